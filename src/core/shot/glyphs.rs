//! The text of a PNG, fast: each glyph is drawn by resvg once — its character, weight and
//! where it falls within a pixel (a cell is 8.4 px wide: five phases) — into an atlas from
//! one small SVG, then stamped in its colour wherever the screen shows it. A full 200×50
//! screen has ~10 000 glyphs but rarely more than a few hundred different ones, and resvg's
//! cost is per glyph drawn. Each glyph sits where the SVG puts it (its column's x, the row's
//! baseline, the run's `textLength` scale), so the image is the SVG's.
//!
//! Only runs whose glyphs stand alone go this way: one character a cell, from the scripts
//! that need no shaping (Latin, Greek, Cyrillic, punctuation, arrows, maths, box drawing,
//! blocks, shapes, symbols). resvg draws the others' text from the SVG itself
//! ([`fast`] says which). Their underline and strike-out are drawn here too, as the rectangles
//! resvg would draw (the font's own lines, across the run).

use super::fonts;
use super::svg::{BASELINE, CELL_H, CELL_W, FAINT, look, xml};
use crate::error::{Error, Result};
use crate::proto::screen::{ScreenBody, Span};
use resvg::tiny_skia::{Paint, Pixmap, Rect, Transform};
use resvg::usvg;
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;

/// A glyph: its character, bold, and its x's tenths of a pixel (0, 2, 4, 6 or 8).
type Key = (char, bool, u8);

/// Room around a cell in the atlas, for glyphs that reach past it.
const MARGIN: usize = 8;
/// An atlas slot: a cell (rounded up, plus its phase) and the margins; slots a row.
const SLOT_W: usize = 10 + 2 * MARGIN;
const SLOT_H: usize = 17 + 2 * MARGIN;
const SLOTS_A_ROW: usize = 64;

/// A glyph's coverage (0–255), cropped to its ink, placed from its cell's top-left pixel.
struct Mask {
    left: i64,
    top: i64,
    width: usize,
    cover: Vec<u8>,
}

/// The glyphs drawn so far (kept across the frames of an animation).
#[derive(Default)]
pub(super) struct Glyphs {
    masks: HashMap<Key, Option<Mask>>,
}

/// Whether the text of `span` is stamped from glyphs (else resvg draws it from the SVG).
pub(super) fn fast(span: &Span) -> bool {
    span.text.chars().count() == usize::from(span.width) && span.text.chars().all(alone)
}

/// A character whose glyph is the same wherever it stands (no shaping, one cell wide).
fn alone(c: char) -> bool {
    matches!(c,
        ' '..='~'
        | '\u{a0}'..='\u{ac}'
        | '\u{ae}'..='\u{17f}'
        | '\u{391}'..='\u{3c9}'
        | '\u{400}'..='\u{45f}'
        | '\u{2010}'..='\u{2027}'
        | '\u{2030}'..='\u{205e}'
        | '\u{2190}'..='\u{23ff}'
        | '\u{2500}'..='\u{27bf}')
}

/// Where column `col` starts: its whole pixel, and the tenths past it.
fn column(col: u32) -> (i64, u8) {
    let tenths = col * 84;
    (i64::from(tenths / 10), (tenths % 10) as u8)
}

/// Each glyph of a fast run: (column from the run's start, its key).
fn keys(span: &Span, x: u32) -> impl Iterator<Item = (u32, Key)> + '_ {
    (x..)
        .zip(span.text.chars())
        .filter(|(_, c)| *c != ' ')
        .map(move |(col, c)| {
            let phase = column(col).1;
            (col, (c, span.style.bold, phase))
        })
}

/// Each fast run of the screen with its row and first column.
fn runs(body: &ScreenBody) -> impl Iterator<Item = (usize, u32, &Span)> {
    body.lines.iter().enumerate().flat_map(|(y, row)| {
        row.spans
            .iter()
            .scan(0u32, |x, s| {
                let at = *x;
                *x += u32::from(s.width);
                Some((at, s))
            })
            .filter(|(_, s)| fast(s))
            .map(move |(x, s)| (y, x, s))
    })
}

impl Glyphs {
    /// Stamp the text of the screen's fast runs onto `pixmap` (opaque: the screen's image).
    pub(super) fn paint(&mut self, body: &ScreenBody, pixmap: &mut Pixmap) -> Result<()> {
        // In order: a glyph's mask can differ in its last bit with its place in the atlas,
        // and the same screen is the same image.
        let missing: BTreeSet<Key> = runs(body)
            .flat_map(|(_, x, s)| keys(s, x).map(|(_, k)| k))
            .filter(|k| !self.masks.contains_key(k))
            .collect();
        self.learn(missing.into_iter().collect())?;
        // Underlines below the glyphs, strike-outs above them, as resvg orders them.
        decorate(body, pixmap, false);
        let (w, h) = (pixmap.width() as usize, pixmap.height() as usize);
        let data = pixmap.data_mut();
        for (y, x, span) in runs(body) {
            let ((r, g, b), _) = look(span.style);
            let alpha = alpha(span);
            let top = (y as f64 * CELL_H) as i64;
            for (col, key) in keys(span, x) {
                if let Some(Some(m)) = self.masks.get(&key) {
                    let at = (column(col).0 + m.left, top + m.top);
                    stamp(data, (w, h), m, at, [r, g, b], u32::from(alpha));
                }
            }
        }
        decorate(body, pixmap, true);
        Ok(())
    }

    /// Draw the glyphs `keys` with resvg, in one atlas, and keep their masks.
    fn learn(&mut self, keys: Vec<Key>) -> Result<()> {
        if keys.is_empty() {
            return Ok(());
        }
        let rows = keys.len().div_ceil(SLOTS_A_ROW);
        let (w, h) = (SLOTS_A_ROW * SLOT_W, rows * SLOT_H);
        let mut svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             font-family=\"'{}', monospace\" font-size=\"14\">\n",
            fonts::FAMILY
        );
        for (i, (c, bold, phase)) in keys.iter().enumerate() {
            let (sx, sy) = slot(i);
            let _ = writeln!(
                svg,
                "<text x=\"{:.1}\" y=\"{}\" textLength=\"{CELL_W}\" \
                 lengthAdjust=\"spacingAndGlyphs\"{}>{}</text>",
                (sx + MARGIN) as f64 + f64::from(*phase) / 10.0,
                baseline((sy + MARGIN) as f64),
                if *bold { " font-weight=\"bold\"" } else { "" },
                xml(&c.to_string())
            );
        }
        svg.push_str("</svg>\n");
        let tree = usvg::Tree::from_str(&svg, &fonts::options())
            .map_err(|e| Error::internal(format!("cannot read the glyphs' own SVG: {e}")))?;
        let mut atlas = Pixmap::new(w as u32, h as u32)
            .ok_or_else(|| Error::internal(format!("cannot make a {w}×{h} px atlas")))?;
        resvg::render(&tree, Transform::identity(), &mut atlas.as_mut());
        for (i, key) in keys.into_iter().enumerate() {
            self.masks.insert(key, crop(&atlas, slot(i)));
        }
        Ok(())
    }
}

/// How opaque a run's text is (0–255).
fn alpha(span: &Span) -> u8 {
    if span.style.faint {
        (FAINT * 255.0).round() as u8
    } else {
        255
    }
}

/// The baseline of the row whose top is `top`, as the SVG writes it (one decimal).
fn baseline(top: f64) -> f64 {
    ((top + BASELINE) * 10.0).round() / 10.0
}

/// Draw the underlines (or, with `strike`, the strike-outs) of the fast runs that have
/// them and show some text, as resvg draws the SVG's: a line across the run.
fn decorate(body: &ScreenBody, pixmap: &mut Pixmap, strike: bool) {
    for (y, x, span) in runs(body) {
        let s = span.style;
        let on = if strike { s.strike } else { s.underline };
        let Some(lines) = fonts::lines(s.bold).filter(|_| on && !span.text.trim().is_empty())
        else {
            continue;
        };
        let above = if strike {
            lines.strike
        } else {
            lines.underline
        };
        let centre = baseline(y as f64 * CELL_H) - above;
        let (left, width) = (f64::from(x) * CELL_W, f64::from(span.width) * CELL_W);
        let t = lines.thickness;
        let Some(rect) = Rect::from_xywh(
            left as f32,
            (centre - t / 2.0) as f32,
            width as f32,
            t as f32,
        ) else {
            continue;
        };
        let ((r, g, b), _) = look(s);
        let mut paint = Paint::default();
        paint.set_color_rgba8(r, g, b, alpha(span));
        paint.anti_alias = true;
        pixmap.fill_rect(rect, &paint, Transform::identity(), None);
    }
}

/// The top-left pixel of the atlas's slot `i`.
fn slot(i: usize) -> (usize, usize) {
    ((i % SLOTS_A_ROW) * SLOT_W, (i / SLOTS_A_ROW) * SLOT_H)
}

/// The ink of the slot at `(sx, sy)` (its alpha: the glyph is drawn in black on nothing);
/// `None` for a glyph with no ink.
fn crop(atlas: &Pixmap, (sx, sy): (usize, usize)) -> Option<Mask> {
    let stride = atlas.width() as usize;
    let data = atlas.data();
    let a = |x: usize, y: usize| data[((sy + y) * stride + sx + x) * 4 + 3];
    let inked: Vec<(usize, usize)> = (0..SLOT_H)
        .flat_map(|y| (0..SLOT_W).map(move |x| (x, y)))
        .filter(|&(x, y)| a(x, y) != 0)
        .collect();
    let (x0, x1) = (
        inked.iter().map(|p| p.0).min()?,
        inked.iter().map(|p| p.0).max()?,
    );
    let (y0, y1) = (
        inked.iter().map(|p| p.1).min()?,
        inked.iter().map(|p| p.1).max()?,
    );
    let cover = (y0..=y1)
        .flat_map(|y| (x0..=x1).map(move |x| (x, y)))
        .map(|(x, y)| a(x, y))
        .collect();
    Some(Mask {
        left: x0 as i64 - MARGIN as i64,
        top: y0 as i64 - MARGIN as i64,
        width: x1 + 1 - x0,
        cover,
    })
}

/// Blend `m` in `fg` at `alpha` (0–255) onto the opaque RGBA `data` (`w`×`h`) at `(x, y)`.
fn stamp(
    data: &mut [u8],
    (w, h): (usize, usize),
    m: &Mask,
    (x, y): (i64, i64),
    fg: [u8; 3],
    alpha: u32,
) {
    for (dy, row) in m.cover.chunks_exact(m.width).enumerate() {
        let Ok(py) = usize::try_from(y + dy as i64) else {
            continue;
        };
        if py >= h {
            break;
        }
        for (dx, &c) in row.iter().enumerate() {
            let Ok(px) = usize::try_from(x + dx as i64) else {
                continue;
            };
            if px >= w || c == 0 {
                continue;
            }
            let a = (u32::from(c) * alpha + 127) / 255;
            let i = (py * w + px) * 4;
            for (ch, f) in data[i..i + 3].iter_mut().zip(fg) {
                *ch = ((u32::from(f) * a + u32::from(*ch) * (255 - a) + 127) / 255) as u8;
            }
        }
    }
}

#[cfg(test)]
#[path = "glyphs_tests.rs"]
mod tests;
