//! A recording written out whole: one asciicast v3 file (segments joined), its text, one
//! self-contained HTML page that plays it, or an animated GIF.

use super::Loaded;
use crate::cast::{self, Code};
use std::time::Duration;

/// The recording as one asciicast v3 file: the first segment's header, every event with its
/// interval from the one before.
pub fn to_cast(loaded: &Loaded) -> Vec<u8> {
    let mut out = serde_json::to_vec(&loaded.header).unwrap_or_default();
    out.push(b'\n');
    let mut last = Duration::ZERO;
    for e in &loaded.events {
        cast::encode(&mut out, e.at.saturating_sub(last), e.code, &e.data);
        last = last.max(e.at);
    }
    out
}

/// The events from `from` on (a later start: the screen as it stood then is drawn by the
/// output before it, kept at time zero, so playing from there shows the right screen).
pub fn from(loaded: &Loaded, from: Duration) -> Loaded {
    if from.is_zero() {
        return loaded.clone();
    }
    let mut events = Vec::with_capacity(loaded.events.len());
    let mut lead = String::new();
    let mut size = None;
    for e in &loaded.events {
        if e.at >= from {
            let mut e = e.clone();
            e.at -= from;
            events.push(e);
            continue;
        }
        match e.code {
            Code::Output => lead.push_str(&e.data),
            Code::Resize => size = Some(e.data.clone()),
            _ => {}
        }
    }
    let mut head = Vec::new();
    if let Some(s) = size {
        head.push(super::Timed {
            at: Duration::ZERO,
            code: Code::Resize,
            data: s,
        });
    }
    if !lead.is_empty() {
        head.push(super::Timed {
            at: Duration::ZERO,
            code: Code::Output,
            data: lead,
        });
    }
    head.extend(events);
    Loaded {
        header: loaded.header.clone(),
        events: head,
    }
}

/// The recording as one self-contained HTML page that plays it offline (asciinema-player
/// embedded: [`crate::core::rec_html::standalone_html`]).
pub fn to_html(l: &Loaded) -> String {
    let cast = String::from_utf8_lossy(&to_cast(l)).into_owned();
    let title = l
        .header
        .title
        .clone()
        .unwrap_or_else(|| "kpty recording".into());
    crate::core::rec_html::standalone_html(&cast, &title)
}

/// TEMPORARY until the GIF renderer lands.
pub fn to_gif(_l: &Loaded) -> crate::error::Result<Vec<u8>> {
    Err(crate::error::Error::invalid("gif: not yet"))
}
