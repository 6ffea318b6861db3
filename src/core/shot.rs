//! `screenshot`: the visible screen of a session as an image — SVG (its colours, bold,
//! italic, underline, strike-through, inverse, the cursor and the title), PNG (that SVG drawn
//! into pixels, with fonts built into kpty) or plain text — rendered from the holder's screen
//! model ([`crate::proto::screen`]). On an agent channel the screen's text is redacted first
//! (rows soft-wrapped into one another judged as one line); a row redaction changed is drawn
//! in the default look. [`anim`] draws a sequence of screens as an animated GIF.

pub mod anim;
mod fonts;
mod glyphs;
mod raster;
mod svg;

use super::Ctx;
use super::handle::Place;
use super::sessions;
use crate::api::reply::{ScreenshotReply, Success};
use crate::api::request::{ScreenshotArgs, ShotFormat};
use crate::error::{Error, ErrorCode, Result};
use crate::proto::screen::{Row, ScreenBody, ScreenRequest, Span, Style};
use base64::Engine;
use svg::svg;

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
    let (image, encoding) = match a.format {
        ShotFormat::Svg => (svg(&body), None),
        ShotFormat::Txt => (txt(&body), None),
        ShotFormat::Png => (
            base64::engine::general_purpose::STANDARD.encode(raster::png(&body)?),
            Some("base64"),
        ),
    };
    Ok(ScreenshotReply {
        ok: Success,
        session_id: h.session_id.clone(),
        format: a.format.as_str(),
        cols: body.cols,
        rows: body.rows,
        title: body.title,
        image,
        encoding,
    })
}

/// The text of a row.
fn text_of(row: &Row) -> String {
    row.spans.iter().map(|s| s.text.as_str()).collect()
}

/// A screen drawn as the `screenshot` action draws it (SVG), redacted: for evidence packs.
pub(super) fn redacted_svg(mut body: ScreenBody) -> String {
    redact(&mut body);
    svg::svg(&body)
}

/// Redact the screen's text; a row whose text changed keeps only that text, in the default
/// look (a secret's colours are not worth keeping). When redaction merged rows (a private-key
/// block becomes one line), every row is drawn afresh from the redacted text.
fn redact(body: &mut ScreenBody) {
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

#[cfg(test)]
#[path = "shot_tests.rs"]
mod tests;
