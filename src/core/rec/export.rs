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

/// Frames a GIF takes at most a second of (output faster than this is drawn as it stands
/// at the end of each step).
const GIF_STEP: Duration = Duration::from_millis(100);
/// The longest a GIF shows one frame (a pause in the recording is shortened to it).
const GIF_IDLE: Duration = Duration::from_secs(2);

/// The recording as an animated GIF: the screen as it stood after each step of output (at
/// most ten frames a second, pauses shortened to 2 s), drawn as `screenshot
/// --format png` draws it ([`crate::core::shot::anim::gif`]).
pub fn to_gif(l: &Loaded) -> crate::error::Result<Vec<u8>> {
    use crate::holder::screen::Screen;
    let (cols, rows) = l.size();
    let mut screen = Screen::new(cols, rows, 0);
    let mut shots: Vec<(crate::proto::screen::ScreenBody, Duration)> = Vec::new();
    let mut last_shot: Option<Duration> = None;
    for (i, e) in l.events.iter().enumerate() {
        if !super::text::play(&mut screen, e) {
            continue;
        }
        let next = l.events[i + 1..]
            .iter()
            .find(|n| matches!(n.code, Code::Output | Code::Resize))
            .map(|n| n.at);
        let due = last_shot.is_none_or(|t| e.at >= t + GIF_STEP);
        if next.is_none() || due || next.is_some_and(|n| n >= e.at + GIF_STEP) {
            shots.push((screen.cells(), e.at));
            last_shot = Some(e.at);
        }
    }
    if shots.is_empty() {
        shots.push((screen.cells(), Duration::ZERO));
    }
    let frames: Vec<_> = (0..shots.len())
        .map(|k| {
            let shown = shots
                .get(k + 1)
                .map_or(GIF_IDLE, |n| n.1.saturating_sub(shots[k].1))
                .min(GIF_IDLE);
            (shots[k].0.clone(), shown)
        })
        .collect();
    let frames = keep_last(frames, crate::core::shot::anim::MAX_FRAMES);
    crate::core::shot::anim::gif(&frames)
}

/// At most `max` frames: the last ones (a long recording's GIF shows how it ended).
fn keep_last<T>(mut frames: Vec<T>, max: usize) -> Vec<T> {
    if frames.len() > max {
        frames.drain(..frames.len() - max);
    }
    frames
}
