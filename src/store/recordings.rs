//! Where recordings live and how much room they get. A PTY's recording is a series of
//! asciicast v3 segments in its folder: `recording.cast`, then `recording.1.cast`,
//! `recording.2.cast` … once one passes the segment cap (each starts with a snapshot of the
//! screen, so it plays alone). The state directory's recordings together are kept under a
//! total: past it, the oldest closed segments of ended sessions go first, then the oldest
//! closed segments of running ones — never a segment being written.

use super::StateDir;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The first segment's name.
pub const FIRST: &str = "recording.cast";

/// The default segment cap: 64 MiB.
const DEFAULT_SEGMENT: u64 = 64 << 20;
/// The default total for a state directory: 1 GiB.
const DEFAULT_TOTAL: u64 = 1 << 30;
/// The smallest cap accepted (a cap below it is raised to it): 64 KiB.
const MIN_CAP: u64 = 64 << 10;

/// The name of segment `n`.
pub fn segment_name(n: u32) -> String {
    if n == 0 {
        FIRST.to_string()
    } else {
        format!("recording.{n}.cast")
    }
}

/// The segment number a file name is, if it is one.
pub fn segment_number(name: &str) -> Option<u32> {
    if name == FIRST {
        return Some(0);
    }
    let n = name.strip_prefix("recording.")?.strip_suffix(".cast")?;
    if n.is_empty() || n.len() > 9 || !n.bytes().all(|b| b.is_ascii_digit()) || n.starts_with('0') {
        return None;
    }
    n.parse().ok()
}

/// A recording segment on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Its path.
    pub path: PathBuf,
    /// Its number.
    pub n: u32,
    /// Its size in bytes.
    pub bytes: u64,
    /// When it was last written.
    pub modified: SystemTime,
}

/// The segments in a PTY's folder, in order (regular files only: a link is never one).
pub fn segments(dir: &Path) -> Vec<Segment> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<Segment> = rd
        .flatten()
        .filter_map(|d| {
            let n = segment_number(d.file_name().to_str()?)?;
            let md = d.path().symlink_metadata().ok()?;
            md.is_file().then(|| Segment {
                path: d.path(),
                n,
                bytes: md.len(),
                modified: md.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            })
        })
        .collect();
    out.sort_by_key(|s| s.n);
    out
}

/// The caps in force: `(segment, total)` bytes, from `KPTY_RECORD_SEGMENT` and
/// `KPTY_RECORD_TOTAL` (a number of bytes, or with a `K`, `M` or `G` suffix), else the
/// defaults.
pub fn caps() -> (u64, u64) {
    let read = |name: &str, default: u64| {
        crate::api::config::var(name)
            .and_then(|v| parse_size(&v))
            .map_or(default, |n| n.max(MIN_CAP))
    };
    (
        read("KPTY_RECORD_SEGMENT", DEFAULT_SEGMENT),
        read("KPTY_RECORD_TOTAL", DEFAULT_TOTAL),
    )
}

/// `123`, `64K`, `64M`, `1G` (binary units; `KiB`/`MB` spellings too) as bytes.
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num.parse().ok()?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return None,
    };
    n.checked_mul(1 << shift)
}

/// One PTY's recording, as the total sees it.
#[derive(Debug, Clone)]
pub struct Recording {
    /// The PTY's address (`pty_…` or `pty_…:N`).
    pub address: String,
    /// Its folder.
    pub dir: PathBuf,
    /// Its segments, in order.
    pub segments: Vec<Segment>,
    /// Its session has ended (its holder is gone).
    pub ended: bool,
}

impl Recording {
    /// Bytes on disk.
    pub fn bytes(&self) -> u64 {
        self.segments.iter().map(|s| s.bytes).sum()
    }
}

/// Every recording in the state directory (sessions and the shells beside them).
pub fn all(state: &StateDir) -> Vec<Recording> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(state.path().join("sessions")) else {
        return out;
    };
    for d in rd.flatten() {
        let Some(name) = d.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if !d.file_type().is_ok_and(|t| t.is_dir()) || !name.starts_with("pty_") {
            continue;
        }
        push(&mut out, name.clone(), d.path());
        if let Ok(ptys) = std::fs::read_dir(d.path().join("ptys")) {
            for p in ptys.flatten() {
                let Some(n) = p.file_name().to_str().map(str::to_string) else {
                    continue;
                };
                if p.file_type().is_ok_and(|t| t.is_dir()) && n.bytes().all(|b| b.is_ascii_digit())
                {
                    push(&mut out, format!("{name}:{n}"), p.path());
                }
            }
        }
    }
    out.sort_by(|a, b| a.address.cmp(&b.address));
    out
}

fn push(out: &mut Vec<Recording>, address: String, dir: PathBuf) {
    let segments = segments(&dir);
    if segments.is_empty() {
        return;
    }
    let ended = has_ended(&dir);
    out.push(Recording {
        address,
        dir,
        segments,
        ended,
    });
}

/// A PTY's holder is gone: its metadata says it ended, or names no holder that is alive. (A
/// pid that is alive may be another process's: the recording is then kept, the safe side.)
fn has_ended(dir: &Path) -> bool {
    let Ok(Some(bytes)) = super::secure::read(&dir.join("metadata.json")) else {
        return true;
    };
    let Ok(meta) = serde_json::from_slice::<super::Metadata>(&bytes) else {
        return true;
    };
    if meta.state != "running" {
        return true;
    }
    match meta.holder_pid.and_then(|p| i32::try_from(p).ok()) {
        Some(pid) if pid > 0 => rustix::process::Pid::from_raw(pid)
            .is_none_or(|p| rustix::process::test_kill_process(p).is_err()),
        _ => true,
    }
}

/// What the total asks to remove: the oldest closed segments first (ended sessions' before
/// running ones'; a running recording's last segment is never one), until the rest fits in
/// `total`. Returns the segments to remove, oldest first.
pub fn over_total(recs: &[Recording], total: u64) -> Vec<Segment> {
    let mut used: u64 = recs.iter().map(Recording::bytes).sum();
    let mut closed: Vec<(bool, &Segment)> = recs
        .iter()
        .flat_map(|r| {
            let last = r.segments.last().map(|s| s.n);
            r.segments
                .iter()
                .filter(move |s| r.ended || Some(s.n) != last)
                .map(move |s| (!r.ended, s))
        })
        .collect();
    closed.sort_by_key(|(running, s)| (*running, s.modified, s.n));
    let mut out = Vec::new();
    for (_, s) in closed {
        if used <= total {
            break;
        }
        used = used.saturating_sub(s.bytes);
        out.push(s.clone());
    }
    out
}

/// Remove what [`over_total`] names; returns the segments removed.
pub fn enforce_total(state: &StateDir, total: u64) -> Vec<Segment> {
    let doomed = over_total(&all(state), total);
    doomed
        .into_iter()
        .filter(|s| {
            // Only a regular file of ours, checked again just before.
            s.path.symlink_metadata().is_ok_and(|m| m.is_file())
                && std::fs::remove_file(&s.path).is_ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(n: u32, bytes: u64, age: u64) -> Segment {
        Segment {
            path: PathBuf::from(format!("/x/{}", segment_name(n))),
            n,
            bytes,
            modified: SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1000 - age),
        }
    }

    #[test]
    fn segment_names_read_back_and_nothing_else_is_one() {
        for n in [0, 1, 2, 10, 999_999_999] {
            assert_eq!(segment_number(&segment_name(n)), Some(n));
        }
        for bad in [
            "recording.0.cast",
            "recording.01.cast",
            "recording..cast",
            "recording.1.cast.bak",
            "recording.x.cast",
            "recording.1234567890.cast",
            "Recording.cast",
        ] {
            assert_eq!(segment_number(bad), None, "{bad}");
        }
        assert_eq!(parse_size("64M"), Some(64 << 20));
        assert_eq!(parse_size("1 GiB"), Some(1 << 30));
        assert_eq!(parse_size("12"), Some(12));
        assert_eq!(parse_size("-1"), None);
        assert_eq!(parse_size("99999999999G"), None);
    }

    proptest::proptest! {
        /// The total removes only closed segments, ended sessions' before running ones', never
        /// a running recording's last segment, and stops as soon as the rest fits.
        #[test]
        fn the_total_takes_the_oldest_closed_segments_first(
            recs in proptest::collection::vec(
                (proptest::bool::ANY, proptest::collection::vec((1u64..1000, 0u64..1000), 1..5)),
                0..6,
            ),
            total in 0u64..6000,
        ) {
            let recs: Vec<Recording> = recs
                .into_iter()
                .enumerate()
                .map(|(i, (ended, segs))| Recording {
                    address: format!("pty_{i:08x}"),
                    dir: PathBuf::from(format!("/s/{i}")),
                    segments: segs.iter().enumerate().map(|(n, (b, a))| {
                        let mut s = seg(n as u32, *b, *a);
                        s.path = PathBuf::from(format!("/s/{i}/{}", segment_name(n as u32)));
                        s
                    }).collect(),
                    ended,
                })
                .collect();
            let out = over_total(&recs, total);
            let used: u64 = recs.iter().map(Recording::bytes).sum();
            let freed: u64 = out.iter().map(|s| s.bytes).sum();
            for s in &out {
                let r = recs.iter().find(|r| s.path.starts_with(&r.dir)).expect("owner");
                let last = r.segments.last().expect("last").n;
                proptest::prop_assert!(r.ended || s.n != last, "a live segment removed");
            }
            if let Some(last) = out.last() {
                // Without the last one removed, the rest did not fit yet.
                proptest::prop_assert!(used - (freed - last.bytes) > total);
            }
            let ended_removed = out.iter().any(|s| recs.iter().any(|r| !r.ended && s.path.starts_with(&r.dir)));
            if ended_removed {
                // A running session's segment went only once no ended one was left.
                let ended_left: u64 = recs.iter().filter(|r| r.ended).flat_map(|r| &r.segments)
                    .filter(|s| !out.contains(s)).map(|s| s.bytes).sum();
                proptest::prop_assert_eq!(ended_left, 0);
            }
        }
    }
}
