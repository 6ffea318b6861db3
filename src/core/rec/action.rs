//! The `recording` action: a session's recording handed to the caller — as text or
//! asciicast v3, redacted on agent channels (as every channel that hands one to an agent
//! must: [`super::redact`]), the end kept under `max_chars`.

use super::{Found, Loaded};
use crate::api::evidence::{Marker, RecFormat};
use crate::api::reply::RecordingReply;
use crate::api::reply::Success;
use crate::api::request::RecordingArgs;
use crate::api::request::Target;
use crate::cast::Code;
use crate::core::Ctx;
use crate::error::Result;

/// Most markers a reply lists (the last are kept).
const MAX_MARKERS: usize = 500;

/// The recording `target` names.
pub fn found(ctx: &Ctx, target: &Target) -> Result<Found> {
    match target {
        Target::Named(r) => super::locate(ctx, Some(r)),
        t => {
            let h = super::super::target::target(ctx, t, false)?;
            super::locate(ctx, Some(&h.session_id))
        }
    }
}

/// `found` loaded from `from` (a marker's text or a time) on.
fn loaded_from(found: &Found, from: Option<&str>) -> Result<Loaded> {
    let l = super::load(found)?;
    Ok(match from {
        Some(f) => super::export::from(&l, super::start_of(&l, f)?),
        None => l,
    })
}

/// Run `recording`.
pub fn recording(ctx: &Ctx, a: &RecordingArgs) -> Result<RecordingReply> {
    let f = found(ctx, &a.target)?;
    let mut l = loaded_from(&f, a.from.as_deref())?;
    if ctx.redact {
        super::redact::redact_loaded(&mut l);
    }
    let content = match a.format {
        RecFormat::Txt => super::text::render(&l.events, l.size()),
        RecFormat::Cast => String::from_utf8_lossy(&super::export::to_cast(&l)).into_owned(),
    };
    let cap = a.max_chars.or(ctx.talk_max_chars);
    let (content, dropped) = keep_end(content, cap);
    let mut markers: Vec<Marker> = l
        .events
        .iter()
        .filter(|e| e.code == Code::Marker)
        .map(|e| Marker {
            at_ms: e.at.as_millis() as u64,
            text: e.data.clone(),
        })
        .collect();
    if markers.len() > MAX_MARKERS {
        markers.drain(..markers.len() - MAX_MARKERS);
    }
    Ok(RecordingReply {
        ok: Success,
        session_id: f.name.clone(),
        format: a.format.as_str(),
        segments: f.segments.len(),
        bytes: f.segments.iter().map(|s| s.bytes).sum(),
        duration_ms: l.duration().as_millis() as u64,
        markers,
        content,
        truncated: dropped > 0,
        dropped_chars: dropped,
    })
}

/// `text`'s last `cap` characters, and how many were cut.
fn keep_end(text: String, cap: Option<usize>) -> (String, u64) {
    let Some(cap) = cap else {
        return (text, 0);
    };
    let n = text.chars().count();
    if n <= cap {
        return (text, 0);
    }
    let cut = n - cap;
    let at = text.char_indices().nth(cut).map_or(text.len(), |(i, _)| i);
    (text[at..].to_string(), cut as u64)
}
