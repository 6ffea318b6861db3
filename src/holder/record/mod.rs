//! The session's recording (asciicast v3, [`crate::cast`]), kept off the hot path: the reader
//! thread and the writers only hand events to a queue; a thread of its own encodes and writes
//! them ([`writer`]). A disk that cannot keep up (more than [`MAX_PENDING`] bytes waiting) or
//! fails stops the recording, never the session: the stop is told in the audit trail and in
//! `list` ([`Recorder::state`]).
//!
//! The writer wakes once a burst, not once an event: the first event queued wakes it, and it
//! lets the rest gather for [`GATHER`] before it writes them all; a reader that needs what is
//! queued on disk now asks for it ([`Recorder::sync`]), which cuts the gathering short.
//!
//! What is recorded: the terminal's output as it was (the file is the owner's), every write's
//! input with a marker naming who wrote when the writer changes (redacted; hidden while the
//! terminal does not echo), resizes, a marker at each `talk` and `wait_for`, and the exit.

mod writer;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::time::{Duration, Instant};

/// Most bytes waiting for the disk before the recording stops (the session goes on).
const MAX_PENDING: usize = 32 << 20;

/// How long the writer, once woken, lets a burst of events gather before it writes them.
const GATHER: Duration = Duration::from_millis(20);

/// Bytes queued past which the writer is woken at once (a flood is written as it comes, and a
/// segment rolls close to its cap): this, or an eighth of the segment cap when smaller.
const WAKE_PENDING: usize = 256 << 10;

/// One event for the writer.
enum Rec {
    /// Output.
    Out(Instant, Vec<u8>),
    /// Input (already redacted).
    In(Instant, String),
    /// A marker.
    Mark(Instant, String),
    /// A resize.
    Resize(Instant, (u16, u16)),
    /// Start the next segment with this snapshot of the screen, of this size.
    Roll(Instant, Vec<u8>, (u16, u16)),
    /// The exit status.
    Exit(Instant, i32),
    /// Say so once everything before is written.
    Sync(mpsc::Sender<()>),
    /// Close the file and end the thread.
    End,
}

/// What the writer and the hot path share.
#[derive(Default)]
struct Flags {
    /// Bytes queued, not yet written.
    pending: AtomicUsize,
    /// The segment passed its cap: the next output starts a new one.
    roll: AtomicBool,
    /// Why the recording stopped, once it did.
    stopped: OnceLock<String>,
    /// An event that must not wait for the burst to gather (a sync, the end, a flood) was
    /// queued.
    urgent: AtomicBool,
}

/// Where and how a session records.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The PTY's folder.
    pub dir: std::path::PathBuf,
    /// The state directory (for the total and the audit trail).
    pub state: crate::store::StateDir,
    /// The session's address, for the audit line.
    pub session_id: String,
    /// Segment cap in bytes.
    pub segment: u64,
    /// Total cap for the state directory's recordings.
    pub total: u64,
    /// The header's title and command.
    pub title: Option<String>,
    /// The program recorded.
    pub command: String,
}

/// A session's recorder.
pub struct Recorder {
    /// Each event with the bytes it counts in [`Flags::pending`] while queued.
    tx: Mutex<mpsc::Sender<(Rec, usize)>>,
    flags: Arc<Flags>,
    /// The writer's thread, woken with `unpark`.
    writer: std::thread::Thread,
    /// Bytes queued past which the writer is woken at once.
    wake_pending: usize,
    done: Mutex<mpsc::Receiver<()>>,
    /// Who wrote the last input recorded, and whether it was hidden.
    last_by: Mutex<(Option<String>, bool)>,
}

impl Recorder {
    /// Start recording a terminal of `size` in `setup.dir`.
    pub fn start(setup: Setup, size: (u16, u16)) -> Self {
        let wake_pending = usize::try_from(setup.segment / 8)
            .unwrap_or(usize::MAX)
            .clamp(1, WAKE_PENDING);
        let (tx, rx) = mpsc::channel();
        let (done_tx, done) = mpsc::channel();
        let flags = Arc::new(Flags::default());
        let f = flags.clone();
        let writer = std::thread::spawn(move || {
            writer::run(setup, size, rx, &f);
            let _ = done_tx.send(());
        })
        .thread()
        .clone();
        Self {
            tx: Mutex::new(tx),
            flags,
            writer,
            wake_pending,
            done: Mutex::new(done),
            last_by: Mutex::new((None, false)),
        }
    }

    /// `on`, or `stopped: WHY`.
    pub fn state(&self) -> String {
        match self.flags.stopped.get() {
            Some(why) => format!("stopped: {why}"),
            None => "on".into(),
        }
    }

    /// Queue `rec` of `bytes` bytes, unless the recording stopped; stop it when the disk is
    /// too far behind.
    fn send(&self, rec: Rec, bytes: usize) {
        if self.flags.stopped.get().is_some() {
            return;
        }
        let waiting = self.flags.pending.fetch_add(bytes, Ordering::AcqRel) + bytes;
        if waiting > MAX_PENDING {
            self.flags.pending.fetch_sub(bytes, Ordering::AcqRel);
            let _ = self.flags.stopped.set(format!(
                "the disk did not keep up ({} MiB waiting)",
                waiting >> 20
            ));
            return;
        }
        {
            let tx = self.tx.lock().unwrap_or_else(|p| p.into_inner());
            let _ = tx.send((rec, bytes));
        }
        if waiting > self.wake_pending {
            self.hurry();
        }
    }

    /// Have the writer write what is queued now, not after the burst gathered.
    fn hurry(&self) {
        self.flags.urgent.store(true, Ordering::Release);
        self.writer.unpark();
    }

    /// Output `chunk` arrived at `at`; `snapshot` makes the screen's redraw and size, asked for
    /// only when a new segment starts (called under the state lock, so it is the screen as
    /// the chunk found it).
    pub(in crate::holder) fn output(
        &self,
        at: Instant,
        chunk: &[u8],
        snapshot: impl FnOnce() -> (Vec<u8>, (u16, u16)),
    ) {
        if self.flags.roll.swap(false, Ordering::AcqRel) {
            let (screen, size) = snapshot();
            let n = screen.len();
            self.send(Rec::Roll(at, screen, size), n);
        }
        self.send(Rec::Out(at, chunk.to_vec()), chunk.len());
    }

    /// The terminal was resized.
    pub(in crate::holder) fn resize(&self, size: (u16, u16)) {
        self.send(Rec::Resize(Instant::now(), size), 16);
    }

    /// A marker.
    pub(in crate::holder) fn mark(&self, text: &str) {
        let one_line: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(500)
            .collect();
        let n = one_line.len();
        self.send(Rec::Mark(Instant::now(), one_line), n);
    }

    /// `by` typed `data`; `hidden`: the terminal was not echoing (a password prompt).
    pub(in crate::holder) fn input(&self, data: &[u8], by: &str, hidden: bool) {
        let (new_writer, newly_hidden) = {
            let mut last = self.last_by.lock().unwrap_or_else(|p| p.into_inner());
            let new_writer = last.0.as_deref() != Some(by);
            let newly_hidden = hidden && (new_writer || !last.1);
            *last = (Some(by.to_string()), hidden);
            (new_writer, newly_hidden)
        };
        if new_writer {
            self.mark(&format!("input from {by}"));
        }
        if hidden {
            // Told once a run: a password typed key by key is one marker, not one per key.
            if newly_hidden {
                self.mark("input hidden: the terminal was not echoing");
            }
            return;
        }
        let text = String::from_utf8_lossy(data);
        let text = crate::safety::redact::redact(&text).into_owned();
        let n = text.len();
        self.send(Rec::In(Instant::now(), text), n);
    }

    /// The program exited with `code`.
    pub(in crate::holder) fn exit(&self, code: i32) {
        self.send(Rec::Exit(Instant::now(), code), 8);
    }

    /// Wait up to `within` until what is queued now is written; false when it was not.
    pub fn sync(&self, within: Duration) -> bool {
        let (tx, rx) = mpsc::channel();
        {
            let q = self.tx.lock().unwrap_or_else(|p| p.into_inner());
            if q.send((Rec::Sync(tx), 0)).is_err() {
                return false;
            }
        }
        self.hurry();
        rx.recv_timeout(within).is_ok()
    }

    /// Close the recording: wait up to `within` for what is queued to reach the disk.
    pub fn finish(&self, within: Duration) {
        {
            let tx = self.tx.lock().unwrap_or_else(|p| p.into_inner());
            let _ = tx.send((Rec::End, 0));
        }
        self.hurry();
        let done = self.done.lock().unwrap_or_else(|p| p.into_inner());
        if done.recv_timeout(within).is_err() {
            tracing::warn!("the recording did not finish writing within {within:?}");
        }
    }
}

/// Who wrote, in a recording's markers: what a request says, else `an unnamed writer`.
pub(in crate::holder) fn writer_name(by: Option<&str>) -> &str {
    by.filter(|b| !b.trim().is_empty())
        .unwrap_or("an unnamed writer")
}
