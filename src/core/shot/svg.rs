//! The screen as an SVG: one rectangle per coloured run, one `text` per run (each at its
//! column, so a font of another width never drifts), the cursor as a block outline; and the
//! look of a run (its colours after bold and inverse), which the PNG's own glyph drawing
//! shares.

use crate::proto::screen::{Color, ScreenBody, Span, Style};
use std::fmt::Write;

/// Width and height of a cell in the SVG (a 14 px monospace font).
pub(super) const CELL_W: f64 = 8.4;
pub(super) const CELL_H: f64 = 17.0;
/// Where a row's text sits: its baseline, this far down the cell.
pub(super) const BASELINE: f64 = CELL_H * 0.78;
/// The terminal's default colours.
pub(super) const DEFAULT_FG: Rgb = (0xd0, 0xd0, 0xd0);
pub(super) const DEFAULT_BG: Rgb = (0x1c, 0x1c, 0x1c);
/// How opaque faint text is.
pub(super) const FAINT: f64 = 0.6;

/// A colour: red, green, blue.
pub(super) type Rgb = (u8, u8, u8);

/// The xterm colour of palette entry `i` (16 system colours, the 6×6×6 cube, 24 greys).
fn palette(i: u8) -> Rgb {
    const SYSTEM: [Rgb; 16] = [
        (0, 0, 0),
        (205, 0, 0),
        (0, 205, 0),
        (205, 205, 0),
        (0, 0, 238),
        (205, 0, 205),
        (0, 205, 205),
        (229, 229, 229),
        (127, 127, 127),
        (255, 0, 0),
        (0, 255, 0),
        (255, 255, 0),
        (92, 92, 255),
        (255, 0, 255),
        (0, 255, 255),
        (255, 255, 255),
    ];
    match i {
        0..=15 => SYSTEM[usize::from(i)],
        16..=231 => {
            let n = i - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            (level(n / 36), level((n / 6) % 6), level(n % 6))
        }
        _ => {
            let g = 8 + (i - 232) * 10;
            (g, g, g)
        }
    }
}

/// The colour `c` names; bold makes a system colour bright, as terminals do. `None`: the
/// terminal's default.
pub(super) fn rgb(c: Option<Color>, bold: bool) -> Option<Rgb> {
    Some(match c? {
        Color::Indexed(i) if bold && i < 8 => palette(i + 8),
        Color::Indexed(i) => palette(i),
        Color::Rgb(r, g, b) => (r, g, b),
    })
}

/// `(r, g, b)` as an SVG colour.
pub(super) fn hex((r, g, b): Rgb) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// A run's text colour and its background (`None`: the terminal's), inverse applied.
pub(super) fn look(s: Style) -> (Rgb, Option<Rgb>) {
    let (fg, bg) = (rgb(s.fg, s.bold).unwrap_or(DEFAULT_FG), rgb(s.bg, false));
    if s.inverse {
        (bg.unwrap_or(DEFAULT_BG), Some(fg))
    } else {
        (fg, bg)
    }
}

/// `s` escaped for XML text or an attribute; characters XML 1.0 cannot carry become U+FFFD.
pub(super) fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || matches!(c as u32, 0xfffe | 0xffff) => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// The screen as a standalone SVG.
pub(super) fn svg(body: &ScreenBody) -> String {
    svg_of(body, &|_| true, true)
}

/// The SVG with the text of the runs `text` picks (their backgrounds are always there), and
/// the cursor when `cursor` says so.
pub(super) fn svg_of(body: &ScreenBody, text: &dyn Fn(&Span) -> bool, cursor: bool) -> String {
    let (w, h) = (
        f64::from(body.cols.max(1)) * CELL_W,
        f64::from(body.rows.max(1)) * CELL_H,
    );
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.1}\" height=\"{h:.1}\" \
         viewBox=\"0 0 {w:.1} {h:.1}\" font-family=\"'DejaVu Sans Mono', 'Liberation Mono', \
         Menlo, Consolas, monospace\" font-size=\"14\">"
    );
    if let Some(t) = &body.title {
        let _ = writeln!(out, "<title>{}</title>", xml(t));
    }
    let _ = writeln!(
        out,
        "<rect width=\"100%\" height=\"100%\" fill=\"{}\"/>",
        hex(DEFAULT_BG)
    );
    for (y, row) in body.lines.iter().enumerate() {
        let top = y as f64 * CELL_H;
        let mut x = 0u32;
        for span in &row.spans {
            draw(&mut out, span, f64::from(x) * CELL_W, top, text(span));
            x += u32::from(span.width);
        }
    }
    if let Some((row, col)) = body.cursor.filter(|_| cursor) {
        let _ = writeln!(
            out,
            "<rect class=\"cursor\" x=\"{:.1}\" y=\"{:.1}\" width=\"{CELL_W}\" height=\"{CELL_H}\" \
             fill=\"none\" stroke=\"{}\"/>",
            f64::from(col) * CELL_W,
            f64::from(row) * CELL_H,
            hex(DEFAULT_FG)
        );
    }
    out.push_str("</svg>\n");
    out
}

/// One run: its background when it has one, then (with `text`) its text when it is not all
/// blanks.
fn draw(out: &mut String, span: &Span, left: f64, top: f64, text: bool) {
    let s = span.style;
    let (fg, bg) = look(s);
    if let Some(bg) = bg {
        let _ = writeln!(
            out,
            "<rect x=\"{left:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{CELL_H}\" fill=\"{}\"/>",
            f64::from(span.width) * CELL_W,
            hex(bg)
        );
    }
    if !text || span.text.trim().is_empty() {
        return;
    }
    let mut attrs = format!("fill=\"{}\"", hex(fg));
    if s.bold {
        attrs.push_str(" font-weight=\"bold\"");
    }
    if s.italic {
        attrs.push_str(" font-style=\"italic\"");
    }
    if s.faint {
        let _ = write!(attrs, " opacity=\"{FAINT}\"");
    }
    let lines = [(s.underline, "underline"), (s.strike, "line-through")]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, d)| *d)
        .collect::<Vec<_>>()
        .join(" ");
    if !lines.is_empty() {
        let _ = write!(attrs, " text-decoration=\"{lines}\"");
    }
    let _ = writeln!(
        out,
        "<text x=\"{left:.1}\" y=\"{:.1}\" textLength=\"{:.1}\" lengthAdjust=\"spacingAndGlyphs\" \
         xml:space=\"preserve\" {attrs}>{}</text>",
        top + BASELINE,
        f64::from(span.width) * CELL_W,
        xml(&span.text)
    );
}
