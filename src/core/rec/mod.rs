//! Reading recordings back: a PTY's segments found ([`locate`]) and joined into one stream
//! of events with times from the start ([`load`]), rendered as text ([`text`]), redacted for
//! agent channels ([`redact`]), exported ([`export`]). A recording is a file in the state
//! directory (or one a person names): read as untrusted input, within 4 GiB at once.

pub mod action;
pub mod export;
pub mod redact;
pub mod text;
pub mod usage;

use super::Ctx;
use crate::api::SessionId;
use crate::cast::{self, Code, Event, Header};
use crate::error::{Error, ErrorCode, Result};
use crate::store::recordings::{self, Segment};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The most bytes of recording loaded at once (4 GiB: a session's default segments, many
/// times over; more is refused with a hint to export a segment).
const MAX_LOAD: u64 = 4 << 30;

/// What a screen redraw that opens a segment starts with ([`crate::holder::screen::Screen::redraw`]).
const SNAPSHOT_HEAD: &str = "\x1b[?2026h\x1b[0m\x1b[?1049l\x1b[H\x1b[2J";

/// A recording found: whose, and its segments.
#[derive(Debug, Clone)]
pub struct Found {
    /// The PTY's address (`pty_…`, `pty_…:N`), or the file's path.
    pub name: String,
    /// Its segments in order (one for a file named directly).
    pub segments: Vec<Segment>,
}

/// The recording of the PTY `session` names (an id, `SESSION:N`, or a label in the
/// registry), or of the state directory's default session.
pub fn locate(ctx: &Ctx, session: Option<&str>) -> Result<Found> {
    let id = match session.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => match SessionId::parse(s) {
            Ok(id) => id,
            Err(_) => SessionId::parse(&super::trail::session_of(ctx, s)?)?,
        },
        None => by_label(ctx, super::target::DEFAULT_LABEL)?,
    };
    let dir = ctx.state.session_dir(&id);
    ctx.state.verify(&dir.join(recordings::FIRST))?;
    sync(ctx, &id.address());
    let segments = recordings::segments(&dir);
    if segments.is_empty() {
        let why = if dir.is_dir() {
            "has no recording (made with --no-record or KPTY_RECORD=0, or removed by `kpty gc`)"
        } else {
            "is not known here"
        };
        return Err(Error::new(
            ErrorCode::PtySessionNotFound,
            format!("session {} {why}", id.address()),
        ));
    }
    Ok(Found {
        name: id.address(),
        segments,
    })
}

/// Ask the holder of `address` to write what its recording has queued — it gathers events
/// for a moment before writing them — so a reader finds everything up to now (a session that
/// has ended has nothing queued; a holder too old to be asked is not waited for).
fn sync(ctx: &Ctx, address: &str) {
    let Ok(h) = super::sessions::resolve(ctx, address) else {
        return;
    };
    let req = crate::proto::request::RecordSyncRequest { timeout_ms: 2000 };
    if let Err(e) = super::sessions::call(ctx, h.entry(), req, Duration::from_secs(3)) {
        tracing::debug!("recording sync of {address}: {}", e.message);
    }
}

/// The session labelled `label` in the registry.
fn by_label(ctx: &Ctx, label: &str) -> Result<SessionId> {
    let reg = crate::store::Registry::load(&ctx.state)?;
    let id = reg
        .sessions
        .values()
        .find(|e| e.label.as_deref() == Some(label))
        .map(|e| e.session_id.clone())
        .ok_or_else(|| {
            Error::new(
                ErrorCode::PtySessionNotFound,
                format!("no session is labelled {label:?}; name one with -s SESSION"),
            )
        })?;
    SessionId::parse(&id)
}

/// A recording file named directly (`kpty replay FILE`).
pub fn file(path: &Path) -> Result<Found> {
    let md = std::fs::metadata(path)
        .map_err(|e| Error::invalid(format!("cannot read {}: {e}", path.display())))?;
    if !md.is_file() {
        return Err(Error::invalid(format!(
            "{} is not a recording file",
            path.display()
        )));
    }
    Ok(Found {
        name: path.display().to_string(),
        segments: vec![Segment {
            path: path.to_path_buf(),
            n: 0,
            bytes: md.len(),
            modified: md.modified().unwrap_or(std::time::SystemTime::UNIX_EPOCH),
        }],
    })
}

/// One event, at its time from the recording's start.
#[derive(Debug, Clone, PartialEq)]
pub struct Timed {
    /// Time from the start.
    pub at: Duration,
    /// The event.
    pub code: Code,
    /// Its data.
    pub data: String,
}

/// A recording loaded: the first segment's header and every event.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The header of the first segment loaded.
    pub header: Header,
    /// The events in order.
    pub events: Vec<Timed>,
}

impl Loaded {
    /// The terminal's size at the start.
    pub fn size(&self) -> (u16, u16) {
        (self.header.term.cols.max(1), self.header.term.rows.max(1))
    }

    /// How long it lasts.
    pub fn duration(&self) -> Duration {
        self.events.last().map_or(Duration::ZERO, |e| e.at)
    }

    /// The events from the first marker whose text contains `marker`.
    pub fn marker(&self, marker: &str) -> Option<Duration> {
        self.events
            .iter()
            .find(|e| e.code == Code::Marker && e.data.contains(marker))
            .map(|e| e.at)
    }
}

/// Load `found`'s segments as one recording. A later segment's opening snapshot is dropped
/// when the segment before it was loaded (the screen is already there); segments follow one
/// another in time by their headers' timestamps.
pub fn load(found: &Found) -> Result<Loaded> {
    let total: u64 = found.segments.iter().map(|s| s.bytes).sum();
    if total > MAX_LOAD {
        return Err(Error::invalid(format!(
            "the recording of {} is {} MiB, more than kpty loads at once ({} MiB): export one segment",
            found.name,
            total >> 20,
            MAX_LOAD >> 20
        )));
    }
    let mut header = None;
    let mut events = Vec::new();
    // The segment before: its number, header time, start and end.
    let mut prev: Option<(u32, i64, Duration, Duration)> = None;
    for seg in &found.segments {
        let f = crate::store::secure::open_read(&seg.path)?
            .ok_or_else(|| Error::invalid(format!("{} vanished", seg.path.display())))?;
        let (h, reader) =
            cast::Reader::open(std::io::BufReader::new(f)).map_err(|b| bad(seg, b))?;
        let (mut at, skip) = match prev {
            None => (Duration::ZERO, false),
            Some((n, stamp, began, end)) => {
                let gap = h.timestamp.map_or(0, |t| t.saturating_sub(stamp));
                let start = (began + Duration::from_secs(u64::try_from(gap).unwrap_or(0))).max(end);
                (start, seg.n == n + 1)
            }
        };
        let began = at;
        let mut first = true;
        for e in reader {
            let e: Event = e.map_err(|b| bad(seg, b))?;
            at += e.interval;
            let snapshot = first && e.code == Code::Output && e.data.starts_with(SNAPSHOT_HEAD);
            first = false;
            if snapshot && skip {
                continue;
            }
            events.push(Timed {
                at,
                code: e.code,
                data: e.data,
            });
        }
        prev = Some((seg.n, h.timestamp.unwrap_or(0), began, at));
        header.get_or_insert(h);
    }
    Ok(Loaded {
        header: header.unwrap_or_default(),
        events,
    })
}

fn bad(seg: &Segment, b: cast::Bad) -> Error {
    Error::invalid(format!(
        "{} is not a readable recording: {b}",
        seg.path.display()
    ))
}

/// The paths of `found`'s segments.
pub fn paths(found: &Found) -> Vec<PathBuf> {
    found.segments.iter().map(|s| s.path.clone()).collect()
}

/// Where `spec` starts in `loaded`: a time into it (`90`, `1.5`, `1m30s`, `2h`, `01:30`,
/// `1:02:03`), else the first marker whose text contains it.
pub fn start_of(loaded: &Loaded, spec: &str) -> Result<Duration> {
    if let Some(t) = parse_time(spec.trim()) {
        return Ok(t);
    }
    loaded.marker(spec).ok_or_else(|| {
        Error::invalid(format!(
            "--from {spec:?} is neither a time (90, 1m30s, 01:30) nor the text of a marker in \
             the recording (its markers: `kpty rec cat` shows the output; markers start with \
             `talk by`, `input from`, `wait_for`)"
        ))
    })
}

/// A time: seconds (`90`, `1.5`), units (`1m30s`, `2h`, `500ms`) or a clock (`01:30`).
fn parse_time(s: &str) -> Option<Duration> {
    if s.is_empty() {
        return None;
    }
    if let Ok(secs) = s.parse::<f64>() {
        return (secs.is_finite() && (0.0..1e9).contains(&secs))
            .then(|| Duration::from_secs_f64(secs));
    }
    if s.contains(':') {
        let mut total = 0f64;
        for part in s.split(':') {
            let v: f64 = part
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite() && *v >= 0.0)?;
            total = total * 60.0 + v;
        }
        return (total < 1e9).then(|| Duration::from_secs_f64(total));
    }
    let mut total = Duration::ZERO;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(rest.len());
        let v: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        rest = &rest[unit_len..];
        let secs = match unit {
            "ms" => v / 1000.0,
            "s" => v,
            "m" => v * 60.0,
            "h" => v * 3600.0,
            _ => return None,
        };
        if !secs.is_finite() || secs >= 1e9 {
            return None;
        }
        total += Duration::from_secs_f64(secs);
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_in_every_spelling_and_other_text_is_not_one() {
        for (s, secs) in [
            ("90", 90.0),
            ("1.5", 1.5),
            ("1m30s", 90.0),
            ("2h", 7200.0),
            ("500ms", 0.5),
            ("01:30", 90.0),
            ("1:02:03", 3723.0),
        ] {
            assert_eq!(parse_time(s), Some(Duration::from_secs_f64(secs)), "{s}");
        }
        for s in ["", "talk by", "1x", "-5", "inf", "NaN", "1e99", "m"] {
            assert_eq!(parse_time(s), None, "{s}");
        }
    }
}
