//! The screenshot drawn into pixels — the PNG screenshot, and the frames of an animated GIF
//! ([`super::anim`]): the SVG's backgrounds, and the text of the runs [`super::glyphs`] does
//! not stamp, drawn by resvg; then the glyphs stamped; then the cursor on top, as the SVG has
//! it. Text is set in the fonts built into kpty ([`super::fonts`]).

use super::fonts;
use super::glyphs::{self, Glyphs};
use super::svg::{CELL_H, CELL_W, DEFAULT_BG, DEFAULT_FG, svg_of};
use crate::error::{Error, Result};
use crate::proto::screen::ScreenBody;
use resvg::tiny_skia::{Color, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};
use resvg::usvg;
use std::borrow::Cow;

/// The largest image drawn, in pixels (64 MiB of RGBA): a 500×200 screen is 14 megapixels;
/// the largest terminal kpty makes (1000×1000) would be 143.
const MAX_PIXELS: u64 = 16 << 20;

/// The size of the screen's image in pixels: the SVG's (a cell is 8.4×17), rounded up so that
/// the last column is never cut.
pub(super) fn pixels(body: &ScreenBody) -> (u32, u32) {
    // The SVG writes its size with one decimal.
    let tenths = |cells: u16, cell: f64| (f64::from(cells.max(1)) * cell * 10.0).round();
    let (w, h) = (tenths(body.cols, CELL_W), tenths(body.rows, CELL_H));
    ((w / 10.0).ceil() as u32, (h / 10.0).ceil() as u32)
}

/// Refuse an image of `w`×`h` pixels over [`MAX_PIXELS`].
pub(super) fn check_size(w: u32, h: u32) -> Result<()> {
    if u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(Error::invalid(format!(
            "a {w}×{h} px image is more than kpty draws ({} megapixels): make the terminal \
             smaller (resize), or take an SVG screenshot",
            MAX_PIXELS >> 20
        )));
    }
    Ok(())
}

/// Draws screens, keeping the glyphs it drew for the next one.
#[derive(Default)]
pub(super) struct Painter {
    glyphs: Glyphs,
}

impl Painter {
    /// The screen drawn on a `w`×`h` canvas (at least its own size), from its top-left
    /// corner; the rest of the canvas is the background. Every pixel is opaque.
    pub(super) fn draw(&mut self, body: &ScreenBody, (w, h): (u32, u32)) -> Result<Pixmap> {
        check_size(w, h)?;
        let body = &*drawable(body);
        let svg = svg_of(body, &|s| !glyphs::fast(s), false);
        let tree = usvg::Tree::from_str(&svg, &fonts::options())
            .map_err(|e| Error::internal(format!("cannot read the screenshot's own SVG: {e}")))?;
        let mut pixmap = Pixmap::new(w, h)
            .ok_or_else(|| Error::internal(format!("cannot make a {w}×{h} px image")))?;
        let (r, g, b) = DEFAULT_BG;
        pixmap.fill(Color::from_rgba8(r, g, b, 255));
        resvg::render(&tree, Transform::identity(), &mut pixmap.as_mut());
        self.glyphs.paint(body, &mut pixmap)?;
        if let Some((row, col)) = body.cursor {
            cursor(
                &mut pixmap,
                (f64::from(col) * CELL_W, f64::from(row) * CELL_H),
            );
        }
        Ok(pixmap)
    }
}

/// What the fonts can't draw (CJK, emoji …) as U+FFFD, which they can: a mark where the
/// character is, rather than a blank (and a warning on stderr for each).
fn drawable(body: &ScreenBody) -> Cow<'_, ScreenBody> {
    let drawn = |c: char| c.is_ascii() || fonts::has(c);
    let texts = || body.lines.iter().flat_map(|r| &r.spans).map(|s| &s.text);
    if texts().all(|t| t.chars().all(drawn)) {
        return Cow::Borrowed(body);
    }
    let mut body = body.clone();
    for span in body.lines.iter_mut().flat_map(|r| &mut r.spans) {
        span.text = span
            .text
            .chars()
            .map(|c| if drawn(c) { c } else { '\u{fffd}' })
            .collect();
    }
    Cow::Owned(body)
}

/// The cursor as the SVG draws it: the outline of its cell, a 1 px line in the default
/// foreground centred on the cell's edges.
fn cursor(pixmap: &mut Pixmap, (x, y): (f64, f64)) {
    let Some(rect) = Rect::from_xywh(x as f32, y as f32, CELL_W as f32, CELL_H as f32) else {
        return;
    };
    let path = PathBuilder::from_rect(rect);
    let mut paint = Paint::default();
    let (r, g, b) = DEFAULT_FG;
    paint.set_color_rgba8(r, g, b, 255);
    paint.anti_alias = true;
    let stroke = Stroke {
        width: 1.0,
        ..Stroke::default()
    };
    pixmap.stroke_path(&path, &paint, &stroke, Transform::identity(), None);
}

/// The screen as a PNG image (RGB, 8 bits a channel), at its own size.
pub(super) fn png(body: &ScreenBody) -> Result<Vec<u8>> {
    let (w, h) = pixels(body);
    let pixmap = Painter::default().draw(body, (w, h))?;
    let failed = |e: png::EncodingError| Error::internal(format!("cannot encode the PNG: {e}"));
    let mut out = Vec::with_capacity(pixmap.data().len() / 4);
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    // fdeflate's fast mode after the Up filter: ~3× faster than the adaptive filter for ~10%
    // more bytes.
    enc.set_compression(png::Compression::Fast);
    enc.set_filter(png::Filter::Up);
    let mut writer = enc.write_header().map_err(failed)?;
    let mut stream = writer.stream_writer().map_err(failed)?;
    // Row by row, the alpha channel left out (opaque: the premultiplied RGBA is the colour).
    let mut rgb = Vec::with_capacity(w as usize * 3);
    for row in pixmap.data().chunks_exact(w as usize * 4) {
        rgb.clear();
        rgb.extend(row.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]));
        std::io::Write::write_all(&mut stream, &rgb)
            .map_err(|e| Error::internal(format!("cannot encode the PNG: {e}")))?;
    }
    stream.finish().map_err(failed)?;
    writer.finish().map_err(failed)?;
    Ok(out)
}

#[cfg(test)]
#[path = "raster_tests.rs"]
mod tests;
