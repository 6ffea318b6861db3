//! `screenshot`: the visible screen of a session as an image — SVG (its colours, bold,
//! italic, underline, strike-through, inverse, the cursor and the title) or plain text —
//! rendered from the holder's screen model ([`crate::proto::screen`]). On an agent channel the
//! screen's text is redacted first (rows soft-wrapped into one another judged as one line); a
//! row redaction changed is drawn in the default look.

use super::Ctx;
use super::handle::Place;
use super::sessions;
use crate::api::reply::{ScreenshotReply, Success};
use crate::api::request::{ScreenshotArgs, ShotFormat};
use crate::error::{Error, ErrorCode, Result};
use crate::proto::screen::{Color, Row, ScreenBody, ScreenRequest, Span, Style};
use std::fmt::Write;

/// Width and height of a cell in the SVG (a 14 px monospace font).
const CELL_W: f64 = 8.4;
const CELL_H: f64 = 17.0;
/// The terminal's default colours in the SVG.
const DEFAULT_FG: &str = "#d0d0d0";
const DEFAULT_BG: &str = "#1c1c1c";

/// Run `screenshot`.
pub fn screenshot(ctx: &Ctx, a: &ScreenshotArgs) -> Result<ScreenshotReply> {
    let h = super::target::target(ctx, &a.target, false)?;
    if let Place::Bridged = h.place() {
        return Err(Error::invalid(format!(
            "{} is a desktop session: its screen is drawn by its app, not by kpty; use term_read \
             for its text",
            h.session_id
        )));
    }
    let mut body =
        sessions::call(ctx, &h, ScreenRequest {}, sessions::SHORT_CALL).map_err(|e| {
            if e.cause == Some(crate::error::Cause::UnknownRequest) {
                Error::new(
                    ErrorCode::PtyReadFailed,
                    format!(
                        "the holder of {} predates screenshots (it was started by an older kpty); \
                     recreate the session to take one",
                        h.session_id
                    ),
                )
            } else {
                e
            }
        })?;
    if ctx.redact {
        redact(&mut body);
    }
    let image = match a.format {
        ShotFormat::Svg => svg(&body),
        ShotFormat::Txt => txt(&body),
    };
    Ok(ScreenshotReply {
        ok: Success,
        session_id: h.session_id.clone(),
        format: a.format.as_str(),
        cols: body.cols,
        rows: body.rows,
        title: body.title,
        image,
    })
}

/// The text of a row.
fn text_of(row: &Row) -> String {
    row.spans.iter().map(|s| s.text.as_str()).collect()
}

/// Redact the screen's text; a row whose text changed keeps only that text, in the default
/// look (a secret's colours are not worth keeping). When redaction merged rows (a private-key
/// block becomes one line), every row is drawn afresh from the redacted text.
pub(super) fn redact(body: &mut ScreenBody) {
    let texts: Vec<String> = body.lines.iter().map(text_of).collect();
    let wraps: Vec<bool> = body.lines.iter().map(|r| r.wrapped).collect();
    let cols = usize::from(body.cols);
    let red = crate::safety::redact::redact_rows("", texts.clone(), (&wraps, cols), "");
    if red == texts {
        return;
    }
    let plain = |text: String| Row {
        wrapped: false,
        spans: vec![Span {
            width: u16::try_from(text.chars().count()).unwrap_or(u16::MAX),
            text,
            style: Style::default(),
        }],
    };
    if red.len() != texts.len() {
        body.lines = red.into_iter().map(plain).collect();
        return;
    }
    for ((row, old), new) in body.lines.iter_mut().zip(&texts).zip(red) {
        if *old != new {
            *row = plain(new);
        }
    }
}

/// The screen as plain text: each row without its trailing blanks; a control character (a
/// cell never holds one, but the holder is another process) becomes U+FFFD, so printing it
/// can never drive the reader's terminal.
fn txt(body: &ScreenBody) -> String {
    let mut out = String::new();
    for row in &body.lines {
        let text: String = text_of(row)
            .chars()
            .map(|c| if c.is_control() { '\u{fffd}' } else { c })
            .collect();
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}

/// The xterm colour of palette entry `i` (16 system colours, the 6×6×6 cube, 24 greys).
fn palette(i: u8) -> (u8, u8, u8) {
    const SYSTEM: [(u8, u8, u8); 16] = [
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

/// `c` as an SVG colour; bold makes a system colour bright, as terminals do.
fn css(c: Option<Color>, bold: bool, default: &str) -> String {
    let (r, g, b) = match c {
        None => return default.to_string(),
        Some(Color::Indexed(i)) if bold && i < 8 => palette(i + 8),
        Some(Color::Indexed(i)) => palette(i),
        Some(Color::Rgb(r, g, b)) => (r, g, b),
    };
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// `s` escaped for XML text or an attribute; characters XML 1.0 cannot carry become U+FFFD.
fn xml(s: &str) -> String {
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

/// The screen as a standalone SVG: one rectangle per coloured run, one `text` per run (each at
/// its column, so a font of another width never drifts), the cursor as a block outline.
pub(super) fn svg(body: &ScreenBody) -> String {
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
        "<rect width=\"100%\" height=\"100%\" fill=\"{DEFAULT_BG}\"/>"
    );
    for (y, row) in body.lines.iter().enumerate() {
        let top = y as f64 * CELL_H;
        let mut x = 0u32;
        for span in &row.spans {
            draw(&mut out, span, f64::from(x) * CELL_W, top);
            x += u32::from(span.width);
        }
    }
    if let Some((row, col)) = body.cursor {
        let _ = writeln!(
            out,
            "<rect class=\"cursor\" x=\"{:.1}\" y=\"{:.1}\" width=\"{CELL_W}\" height=\"{CELL_H}\" \
             fill=\"none\" stroke=\"{DEFAULT_FG}\"/>",
            f64::from(col) * CELL_W,
            f64::from(row) * CELL_H
        );
    }
    out.push_str("</svg>\n");
    out
}

/// One run: its background when it has one, then its text when it is not all blanks.
fn draw(out: &mut String, span: &Span, left: f64, top: f64) {
    let s = span.style;
    let (mut fg, mut bg) = (
        css(s.fg, s.bold, DEFAULT_FG),
        s.bg.map(|c| css(Some(c), false, DEFAULT_BG)),
    );
    if s.inverse {
        let back = bg.unwrap_or_else(|| DEFAULT_BG.to_string());
        bg = Some(std::mem::replace(&mut fg, back));
    }
    if let Some(bg) = bg {
        let _ = writeln!(
            out,
            "<rect x=\"{left:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{CELL_H}\" fill=\"{bg}\"/>",
            f64::from(span.width) * CELL_W
        );
    }
    if span.text.trim().is_empty() {
        return;
    }
    let mut attrs = format!("fill=\"{fg}\"");
    if s.bold {
        attrs.push_str(" font-weight=\"bold\"");
    }
    if s.italic {
        attrs.push_str(" font-style=\"italic\"");
    }
    if s.faint {
        attrs.push_str(" opacity=\"0.6\"");
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
        top + CELL_H * 0.78,
        f64::from(span.width) * CELL_W,
        xml(&span.text)
    );
}

#[cfg(test)]
#[path = "shot_tests.rs"]
mod tests;
