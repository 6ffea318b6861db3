//! The recorder's thread: encodes the queued events as asciicast v3 lines and writes them,
//! a segment at a time. Output that arrives in a burst is written as fewer, larger events
//! (chunks less than [`MERGE_GAP`] apart, up to [`MERGE_MAX`] bytes): a flood's recording
//! stays close to its size. A write that fails stops the recording, with an audit line.

use super::{Flags, GATHER, Rec, Setup};
use crate::cast::{self, Code};
use crate::store::recordings;
use std::io::Write;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Output chunks closer than this are written as one event.
const MERGE_GAP: Duration = Duration::from_millis(5);
/// The largest merged output event.
const MERGE_MAX: usize = 256 << 10;

/// The open segment.
struct Segment {
    file: std::fs::File,
    n: u32,
    bytes: u64,
    /// When its last event happened (intervals count from it).
    last: Instant,
}

/// The thread's state.
struct Writer<'a> {
    setup: Setup,
    flags: &'a Flags,
    seg: Option<Segment>,
    /// An incomplete UTF-8 sequence at the end of the output so far.
    carry: Vec<u8>,
    /// Encoded lines not yet written.
    buf: Vec<u8>,
    /// Output merged, not yet encoded: when it began, when its last chunk came, its bytes.
    out: Option<(Instant, Instant, Vec<u8>)>,
    text: String,
    /// The stop was told in the audit trail.
    told: bool,
}

/// Run until [`Rec::End`] (or every sender is gone).
pub(super) fn run(setup: Setup, size: (u16, u16), rx: mpsc::Receiver<(Rec, usize)>, flags: &Flags) {
    let mut w = Writer {
        setup,
        flags,
        seg: None,
        carry: Vec::new(),
        buf: Vec::new(),
        out: None,
        text: String::new(),
        told: false,
    };
    w.open(0, Instant::now(), size, None);
    w.total();
    // Asleep until the first event of a burst comes; the rest gather meanwhile.
    while let Ok(first) = rx.recv() {
        gather(flags);
        let mut end = false;
        let mut next = Some(first);
        while let Some((rec, counted)) = next.take() {
            w.take(rec, &mut end);
            flags.pending.fetch_sub(counted, Ordering::AcqRel);
            if !end {
                next = rx.try_recv().ok();
            }
        }
        w.flush_out();
        w.write_buf();
        w.tell();
        if end {
            break;
        }
    }
    w.flush_out();
    w.write_buf();
    w.tell();
}

/// Let a burst gather for [`GATHER`] after its first event — at once for an urgent one (a
/// sync, the end, a flood), whose sender sets `urgent` and wakes this thread.
fn gather(flags: &Flags) {
    if !flags.urgent.swap(false, Ordering::AcqRel) {
        std::thread::park_timeout(GATHER);
        flags.urgent.store(false, Ordering::Release);
    }
}

impl Writer<'_> {
    /// Handle one event.
    fn take(&mut self, rec: Rec, end: &mut bool) {
        match rec {
            Rec::Out(at, bytes) => match &mut self.out {
                Some((_, last, held))
                    if held.len() + bytes.len() <= MERGE_MAX && at < *last + MERGE_GAP =>
                {
                    held.extend_from_slice(&bytes);
                    *last = at;
                }
                _ => {
                    self.flush_out();
                    self.out = Some((at, at, bytes));
                }
            },
            Rec::In(at, text) => self.event(at, Code::Input, &text),
            Rec::Mark(at, text) => self.event(at, Code::Marker, &text),
            Rec::Resize(at, (c, r)) => self.event(at, Code::Resize, &format!("{c}x{r}")),
            Rec::Exit(at, code) => self.event(at, Code::Exit, &code.to_string()),
            Rec::Roll(at, screen, size) => {
                self.flush_out();
                self.write_buf();
                let next = self.seg.as_ref().map_or(0, |s| s.n + 1);
                self.open(next, at, size, Some(&screen));
                self.total();
            }
            Rec::Sync(done) => {
                self.flush_out();
                self.write_buf();
                let _ = done.send(());
            }
            Rec::End => *end = true,
        }
    }

    /// Encode a non-output event (the output merged before it goes first).
    fn event(&mut self, at: Instant, code: Code, data: &str) {
        self.flush_out();
        self.encode(at, code, data);
    }

    /// Encode the merged output.
    fn flush_out(&mut self) {
        let Some((at, _, bytes)) = self.out.take() else {
            return;
        };
        let mut text = std::mem::take(&mut self.text);
        super::super::decode::decode_utf8(&mut self.carry, &bytes, &mut text);
        if !text.is_empty() {
            self.encode(at, Code::Output, &text);
        }
        self.text = text;
    }

    fn encode(&mut self, at: Instant, code: Code, data: &str) {
        let Some(seg) = self.seg.as_mut() else {
            return;
        };
        let interval = at.saturating_duration_since(seg.last);
        seg.last = seg.last.max(at);
        cast::encode(&mut self.buf, interval, code, data);
    }

    /// Write the encoded lines; a failure stops the recording.
    fn write_buf(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        let Some(seg) = self.seg.as_mut() else {
            self.buf.clear();
            return;
        };
        match seg.file.write_all(&self.buf) {
            Ok(()) => {
                seg.bytes += self.buf.len() as u64;
                if seg.bytes >= self.setup.segment {
                    self.flags.roll.store(true, Ordering::Release);
                }
            }
            Err(e) => self.stop(format!("cannot write the recording: {e}")),
        }
        self.buf.clear();
    }

    /// Open segment `n` (its header, and the screen's snapshot as its first output).
    fn open(&mut self, n: u32, at: Instant, (cols, rows): (u16, u16), screen: Option<&[u8]>) {
        self.seg = None;
        if self.flags.stopped.get().is_some() {
            return;
        }
        let path = self.setup.dir.join(recordings::segment_name(n));
        let file = match create(&path) {
            Ok(f) => f,
            Err(e) => return self.stop(format!("cannot create {}: {e}", path.display())),
        };
        let header = cast::Header {
            version: 3,
            term: cast::Term {
                cols,
                rows,
                kind: Some("xterm-256color".into()),
            },
            timestamp: jiff::Timestamp::now().as_second().into(),
            idle_time_limit: None,
            command: Some(self.setup.command.clone()),
            title: self.setup.title.clone(),
            env: [("TERM".to_string(), "xterm-256color".to_string())].into(),
            tags: vec![
                format!("kpty:{}", self.setup.session_id),
                format!("segment:{n}"),
                format!("start:{}", crate::store::now_rfc3339()),
            ],
        };
        self.buf.clear();
        if serde_json::to_writer(&mut self.buf, &header).is_err() {
            return self.stop("cannot encode the recording's header".into());
        }
        self.buf.push(b'\n');
        self.seg = Some(Segment {
            file,
            n,
            bytes: 0,
            last: at,
        });
        if let Some(screen) = screen {
            // Decoded afresh: the snapshot ends with any incomplete sequence of the output.
            self.carry.clear();
            self.out = Some((at, at, screen.to_vec()));
            self.flush_out();
        }
        self.write_buf();
    }

    /// Keep the state directory's recordings under their total.
    fn total(&self) {
        let removed = recordings::enforce_total(&self.setup.state, self.setup.total);
        if !removed.is_empty() {
            tracing::info!(
                "recordings over their total: removed {} old segment(s)",
                removed.len()
            );
        }
    }

    /// Stop recording for `why` (the first reason counts).
    fn stop(&mut self, why: String) {
        self.seg = None;
        let _ = self.flags.stopped.set(why);
    }

    /// Tell a stop (ours, or the hot path's: the disk fell behind) once, in the holder's log
    /// and the audit trail; the segment is closed.
    fn tell(&mut self) {
        let Some(why) = self.flags.stopped.get().cloned() else {
            return;
        };
        self.seg = None;
        if std::mem::replace(&mut self.told, true) {
            return;
        }
        tracing::warn!("recording stopped: {why}");
        let Ok(id) = crate::api::SessionId::parse(&self.setup.session_id) else {
            return;
        };
        let path = self.setup.state.session_dir(&id).join("events.jsonl");
        let line = Stopped {
            ts: crate::store::now_rfc3339(),
            action: "recording_stopped",
            session_id: &self.setup.session_id,
            result_summary: format!("recording stopped: {why}"),
            success: false,
        };
        crate::store::journal::append(&self.setup.state, &path, &line);
    }
}

/// The audit line of a recording that stopped: a traffic event's fields (`kpty log` shows
/// it with the session's actions).
#[derive(serde::Serialize)]
struct Stopped<'a> {
    ts: String,
    action: &'static str,
    session_id: &'a str,
    result_summary: String,
    success: bool,
}

/// Create a segment: a new regular file, 0600, never through a link.
fn create(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    if path.symlink_metadata().is_ok_and(|m| m.is_file()) {
        // A segment of that number is there already (a holder restarted over its folder):
        // replaced, never appended to.
        std::fs::remove_file(path)?;
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
}
