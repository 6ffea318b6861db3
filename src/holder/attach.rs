//! People at the terminal: `kpty attach` clients of one holder (seed 002 §8.3).
//!
//! Fan-out: every client streams from the output ring at its own offset, woken by new output
//! like any other waiter; the reader thread never waits for a client. A client that falls
//! more than [`MAX_LAG`] bytes behind (or behind what the ring still holds) is resynchronised:
//! told how many bytes it missed and sent a redraw of the screen model, then carries on live.
//! During a flood a client is likewise shown the screen (at most ~60 redraws a second) rather
//! than every byte, as tmux does ([`Pace`]).
//! Input from every client is typed in arrival order, merged with every other writer. The
//! terminal takes the smallest attached client's size, and the size `create`/`resize` set
//! once the last one leaves.

use super::session::{ClientSize, Shared, State};
use crate::proto::attach::{self, AttachBody, AttachRequest, Event, Frame};
use crate::proto::{Reply, frame};
use std::io;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Notices kept for clients that have not sent them yet (one that misses more, busy writing a
/// flood, misses the oldest).
const KEPT_NOTICES: usize = 8;
/// How far (bytes) a client may fall behind the output before it is resynchronised.
const MAX_LAG: u64 = 256 << 10;
/// The most output sent in one frame.
const CHUNK: usize = 256 * 1024;
/// How long a client's output loop sleeps at most before looking at its state again.
const RECHECK: Duration = Duration::from_secs(1);
/// Output arriving this soon after the last frame is gathered for up to this long (or until
/// [`GATHER_BYTES`] wait), so a busy program's output goes out in few large frames while a
/// lone keystroke's echo goes out at once.
const GATHER: Duration = Duration::from_millis(2);
/// Enough output to send without gathering more.
const GATHER_BYTES: u64 = 32 * 1024;
/// Output faster than this (bytes a second) at two sends in a row is a flood, far beyond
/// what a person reads: the client is shown the screen instead of every byte (see [`Pace`]).
const FLOOD_RATE: u64 = 4 << 20;
/// A web client's flood starts at a quarter of [`FLOOD_RATE`]: its browser parses every byte in
/// script, and a machine busy with a flood slows the flood itself below `FLOOD_RATE`, when ten
/// watching pages were each sent every byte of it (bench/console.py: the watched flood ran up
/// to twice as long).
const WEB_FLOOD_RATE: u64 = 1 << 20;
/// Below this many bytes waiting, output is never a flood (a short burst goes out whole).
const FLOOD_BYTES: u64 = 8 * 1024;
/// During a flood the client's screen is redrawn at most this often (about 60 a second).
const REFRESH: Duration = Duration::from_millis(16);
/// A web client's screen during a flood: about 30 redraws a second, each parsed in script by
/// its browser and carried over the network (ten pages watching a flood cost the session half
/// as much as at [`REFRESH`]).
const WEB_REFRESH: Duration = Duration::from_millis(33);
/// A redraw made for one resynchronised client serves the others this long: ten pages
/// watching a flood cost one redraw per refresh, not ten, and the terminal's reader waits
/// for the state lock that much less.
const SHARED_REDRAW: Duration = Duration::from_millis(8);

/// One client's pacing: when to send, and whether to send bytes or the screen.
///
/// As tmux does for its clients, a client is not sent every byte of a flood (`seq 1 2000000`,
/// `cat` of a big file): after two sends in a row each found output arriving faster than
/// [`FLOOD_RATE`], it is sent a redraw of the screen at most every [`REFRESH`] (told how many
/// bytes it skipped) until the output slows down again, when bytes flow again from the
/// redraw's offset. What the person sees is the same; the cost of a flood to every attached
/// client (and its terminal) is bounded by the refresh rate, not by the output's size.
struct Pace {
    last_sent: Instant,
    /// The previous send found output arriving faster than [`FLOOD_RATE`].
    was_fast: bool,
    /// Redrawing instead of forwarding bytes.
    flood: bool,
    /// Output faster than this (bytes a second) is a flood.
    rate: u64,
    /// During a flood, redrawn at most this often.
    refresh: Duration,
}

impl Pace {
    fn new() -> Self {
        Pace {
            last_sent: Instant::now()
                .checked_sub(REFRESH)
                .unwrap_or_else(Instant::now),
            was_fast: false,
            flood: false,
            rate: FLOOD_RATE,
            refresh: REFRESH,
        }
    }

    /// A web client's pace ([`WEB_FLOOD_RATE`], [`WEB_REFRESH`]).
    fn for_web() -> Self {
        Pace {
            rate: WEB_FLOOD_RATE,
            refresh: WEB_REFRESH,
            ..Pace::new()
        }
    }

    /// With `waiting` bytes not yet sent: `Some(until)` to gather more first, `None` to send
    /// now.
    fn hold(&self, waiting: u64) -> Option<Instant> {
        let until = self.last_sent + if self.flood { self.refresh } else { GATHER };
        let enough = !self.flood && waiting >= GATHER_BYTES;
        (!enough && Instant::now() < until).then_some(until)
    }

    /// Whether this send, of `waiting` bytes, is to be a redraw (a flood goes on or starts).
    fn flooding(&mut self, waiting: u64) -> bool {
        let since = self.last_sent.elapsed().max(GATHER);
        let fast = waiting >= FLOOD_BYTES
            && u128::from(waiting) * 1_000_000 >= u128::from(self.rate) * since.as_micros();
        self.flood = fast && (self.was_fast || self.flood);
        self.was_fast = fast;
        self.flood
    }

    /// A frame went out.
    fn sent(&mut self) {
        self.last_sent = Instant::now();
    }
}

/// The terminal size in force: the one a `resize` asked for while clients were attached
/// (until a client resizes), else the smallest attached client's (of those whose size counts),
/// else the one set by `create` or `resize`.
pub fn effective_size(st: &State) -> (u16, u16) {
    let sized = || st.clients.iter().filter(|c| c.sized);
    if sized().next().is_none() {
        return st.base_size;
    }
    if let Some(asked) = st.asked_size {
        return asked;
    }
    let cols = sized().map(|c| c.cols).min().unwrap_or(st.base_size.0);
    let rows = sized().map(|c| c.rows).min().unwrap_or(st.base_size.1);
    (cols.max(2), rows.max(1))
}

/// What one client's two threads share: its input thread tells its output loop.
#[derive(Default)]
struct Client {
    /// Its id.
    id: u64,
    /// A web client (notices are not for it: its page has its own).
    web: bool,
    /// It wants [`Event::Offset`] after each redraw.
    offsets: bool,
    /// The client left (or its connection failed).
    gone: AtomicBool,
    /// It asked for a redraw.
    wants_redraw: AtomicBool,
    /// Events for it alone (a web client's blocked keys), sent by its output loop.
    notices: Mutex<Vec<Event>>,
}

impl Shared {
    /// Serve one attached client on `stream` until it detaches, goes away, or the shell ends.
    pub fn attach(self: &Arc<Self>, mut stream: UnixStream, req: &AttachRequest) {
        let id = {
            let mut st = self.lock();
            st.next_client += 1;
            st.asked_size = None;
            let id = st.next_client;
            st.clients.push(ClientSize {
                id,
                cols: req.cols.clamp(2, crate::api::MAX_COLS),
                rows: req.rows.clamp(1, crate::api::MAX_ROWS),
                sized: !req.web,
            });
            id
        };
        if let Err(e) = self.apply_size() {
            tracing::warn!("attach: {e}");
        }
        let (body, first, offset) = self.joined(req);
        tracing::info!(
            "client {id} attached ({} now){}",
            body.attached,
            if req.web { ", from the web" } else { "" }
        );
        let client = Arc::new(Client {
            id,
            web: req.web,
            offsets: req.offsets,
            ..Client::default()
        });
        let size = (body.cols, body.rows);
        let at = req
            .offsets
            .then_some(Frame::Event(Event::Offset { at: offset }));
        let started = serde_json::to_vec(&Reply::ok(body))
            .map_err(io::Error::other)
            .and_then(|b| frame::write_frame(&mut stream, &b))
            .and_then(|_| {
                first
                    .iter()
                    .chain(&at)
                    .try_for_each(|f| attach::write(&mut stream, f))
            });
        match (started, stream.try_clone()) {
            (Ok(()), Ok(input)) => {
                let (me, c, req) = (self.clone(), client.clone(), req.clone());
                std::thread::spawn(move || me.client_input(input, id, &req, &c));
                if let Err(e) = self.pump(&mut stream, offset, size, &client) {
                    tracing::debug!("client {id}: {e}");
                }
            }
            (Err(e), _) | (_, Err(e)) => tracing::debug!("client {id} not started: {e}"),
        }
        let _ = stream.shutdown(std::net::Shutdown::Both);
        {
            let mut st = self.lock();
            st.clients.retain(|c| c.id != id);
            st.asked_size = None;
        }
        if let Err(e) = self.apply_size() {
            tracing::warn!("detach: {e}");
        }
        tracing::info!("client {id} detached");
    }

    /// What a client joining with `req` is told first: the reply's body, the frames before live
    /// output (the scrollback and a redraw, or nothing for a client coming back while the ring
    /// still holds its offset), and the output offset live output starts at.
    fn joined(&self, req: &AttachRequest) -> (AttachBody, Vec<Frame>, u64) {
        let st = self.lock();
        let resume = req
            .resume
            .filter(|&from| st.ring.start() <= from && from <= st.ring.end());
        let body = AttachBody {
            cols: st.cols,
            rows: st.rows,
            attached: st.clients.len(),
            pid: self.pid(),
            web: req.web,
            resumed: resume.is_some(),
        };
        let first = match resume {
            Some(_) => Vec::new(),
            None => {
                let rows = req.history.min(attach::MAX_HISTORY) as usize;
                let history = st.screen.scrollback_text(rows);
                let history = (!history.is_empty()).then_some(Frame::Output(history));
                history
                    .into_iter()
                    .chain([Frame::Output(st.screen.redraw())])
                    .collect()
            }
        };
        (body, first, resume.unwrap_or(st.ring.end()))
    }

    /// Send output from `offset` on as it arrives (and a redraw when the client asks for
    /// one, the terminal's size when it changes from `told`, the client's own notices); end
    /// after the shell's exit is sent.
    fn pump(
        &self,
        out: &mut UnixStream,
        mut offset: u64,
        told: (u16, u16),
        client: &Client,
    ) -> io::Result<()> {
        let mut told = told;
        let mut st = self.lock();
        let mut pace = if client.web {
            Pace::for_web()
        } else {
            Pace::new()
        };
        let mut notices_seen = st.notice_seq;
        loop {
            if client.gone.load(Ordering::Acquire) {
                return Ok(());
            }
            let mut frames = news(&st, client, &mut told, &mut notices_seen);
            if client.wants_redraw.swap(false, Ordering::AcqRel) {
                offset = st.ring.end();
                frames.extend(resync(client, 0, st.screen.redraw(), offset));
            }
            if !frames.is_empty() {
                drop(st);
                for f in &frames {
                    attach::write(out, f)?;
                }
                st = self.lock();
                continue;
            }
            let end = st.ring.end();
            if end > offset
                && st.exit.is_none()
                && let Some(until) = pace.hold(end - offset)
            {
                // A timed wait that output does not cut short (only the shell's end does).
                st = self.wait_on(&self.ended, st, until).0;
                continue;
            }
            if end > offset {
                let lag = end - offset;
                let frames = if offset < st.ring.start() || lag > MAX_LAG || pace.flooding(lag) {
                    let (at, screen) = shared_redraw(&mut st, offset);
                    let missed = at - offset;
                    offset = at;
                    resync(client, missed, screen, at)
                } else {
                    let slice = st.ring.read_since(offset, CHUNK);
                    offset = slice.start + slice.bytes.len() as u64;
                    vec![Frame::Output(slice.bytes)]
                };
                drop(st);
                for f in &frames {
                    attach::write(out, f)?;
                }
                pace.sent();
                st = self.lock();
                continue;
            }
            if let Some(exit) = st.exit.clone() {
                drop(st);
                return attach::write(
                    out,
                    &Frame::Event(Event::Exited {
                        code: exit.code,
                        signal: exit.signal,
                    }),
                );
            }
            st = self.wait_until(st, Instant::now() + RECHECK).0;
        }
    }

    /// Read one client's frames: keystrokes (unless read-only), size changes, redraw
    /// requests, detach.
    fn client_input(&self, mut input: UnixStream, id: u64, req: &AttachRequest, client: &Client) {
        let by = attacher(req);
        self.record_mark(&format!("{by} attached"));
        loop {
            match attach::read(&mut input) {
                Ok(Some(Frame::Redraw)) => {
                    // Set under the lock, so the pump sees it before it waits, or is woken.
                    let st = self.lock();
                    client.wants_redraw.store(true, Ordering::Release);
                    drop(st);
                    self.notify();
                }
                Ok(Some(Frame::Input(bytes))) if !req.read_only => {
                    self.record_input(&bytes, &by);
                    let typed = if req.web {
                        self.type_web(&bytes, client)
                    } else {
                        self.type_local(&bytes)
                    };
                    if let Err(e) = typed {
                        tracing::debug!("client {id}: {e}");
                    }
                }
                Ok(Some(Frame::Resize { cols, rows })) => self.client_resized(id, cols, rows),
                Ok(Some(Frame::Notice(text))) => self.tell_others(id, &text),
                Ok(Some(Frame::Detach) | None) | Err(_) => break,
                Ok(Some(_)) => {}
            }
        }
        client.gone.store(true, Ordering::Release);
        self.record_mark(&format!("{by} left"));
        let _ = input.shutdown(std::net::Shutdown::Both);
        self.notify();
    }

    /// Client `id` has `text` to tell the others (the last few notices are kept).
    fn tell_others(&self, id: u64, text: &str) {
        let mut st = self.lock();
        st.notice_seq += 1;
        let seq = st.notice_seq;
        st.notices.push_back(super::session::Notice {
            seq,
            from: id,
            text: attach::notice_text(text),
        });
        while st.notices.len() > KEPT_NOTICES {
            st.notices.pop_front();
        }
        drop(st);
        self.notify();
    }

    /// Client `id`'s terminal is now `cols`×`rows` (`0×0`: its size no longer counts).
    fn client_resized(&self, id: u64, cols: u16, rows: u16) {
        let mut st = self.lock();
        st.asked_size = None;
        if let Some(c) = st.clients.iter_mut().find(|c| c.id == id) {
            c.sized = cols > 0 && rows > 0;
            c.cols = cols.clamp(2, crate::api::MAX_COLS);
            c.rows = rows.clamp(1, crate::api::MAX_ROWS);
        }
        drop(st);
        if let Err(e) = self.apply_size() {
            tracing::warn!("client {id} resize: {e}");
        }
    }

    /// Type a person's keystrokes as they come: no command check (the person is at the
    /// terminal), but recorded, so the next agent write is checked against the line as it
    /// now stands.
    fn type_local(&self, bytes: &[u8]) -> crate::error::Result<()> {
        let mut typing = self.lock_typing();
        typing.record(&String::from_utf8_lossy(bytes));
        self.write_local(bytes)
    }

    /// Type a web client's keystrokes: recorded as a person's are, and through the session's
    /// input filter as a remote writer's are; what the filter keeps back is told to that
    /// client alone ([`Event::Blocked`], with seed 002's web warning).
    fn type_web(&self, bytes: &[u8], client: &Client) -> crate::error::Result<()> {
        let mut typing = self.lock_typing();
        typing.record(&String::from_utf8_lossy(bytes));
        let Err(e) = self.write_remote(bytes) else {
            return Ok(());
        };
        drop(typing);
        if let Some(crate::error::Details::InputBlocked(d)) = e.details.as_deref() {
            lock(&client.notices).push(Event::Blocked {
                blocked: d.blocked.clone(),
                warning: crate::filter::for_web(&d.warning).to_string(),
            });
            // Under the state lock, so the output loop sees it before it waits, or is woken.
            drop(self.lock());
            self.notify();
        }
        Err(e)
    }
}

/// Who an attached client is, in the recording's markers.
fn attacher(req: &AttachRequest) -> String {
    match req.by.as_deref().filter(|b| !b.trim().is_empty()) {
        Some(b) => b.to_string(),
        None if req.web => "a web page".into(),
        None => "kpty attach".into(),
    }
}

/// What `client` has not been told yet: the terminal's size when it changed from `told`, the
/// notices of other clients after `seen` (not for a web client: its page has its own), and
/// its own notices.
fn news(st: &State, client: &Client, told: &mut (u16, u16), seen: &mut u64) -> Vec<Frame> {
    let mut frames = Vec::new();
    for n in st.notices.iter().filter(|n| n.seq > *seen) {
        if n.from != client.id && !client.web {
            let text = n.text.clone();
            frames.push(Frame::Event(Event::Notice { text }));
        }
    }
    *seen = st.notice_seq;
    if (st.cols, st.rows) != *told {
        *told = (st.cols, st.rows);
        frames.push(Frame::Event(Event::Size {
            cols: told.0,
            rows: told.1,
        }));
    }
    let own = std::mem::take(&mut *lock(&client.notices));
    frames.extend(own.into_iter().map(Frame::Event));
    frames
}

/// A resync of `client`: `missed` bytes skipped, the screen redrawn, and (when it wants to
/// know) the output offset `at` the redraw brings it to.
fn resync(client: &Client, missed: u64, screen: Vec<u8>, at: u64) -> Vec<Frame> {
    let mut frames = vec![
        Frame::Event(Event::Resync { missed }),
        Frame::Output(screen),
    ];
    if client.offsets {
        frames.push(Frame::Event(Event::Offset { at }));
    }
    frames
}

/// A redraw of the screen for a client at `offset` that is to be resynchronised, and the
/// output offset it stands at: the one made for another client in the last
/// [`SHARED_REDRAW`] when it is not behind this client, else a new one (kept for the others).
fn shared_redraw(st: &mut State, offset: u64) -> (u64, Vec<u8>) {
    let fresh = st
        .redrawn
        .as_ref()
        .filter(|r| r.at >= offset && r.at >= st.ring.start() && r.made.elapsed() < SHARED_REDRAW);
    if let Some(r) = fresh {
        return (r.at, r.bytes.to_vec());
    }
    let at = st.ring.end();
    let bytes = st.screen.redraw();
    st.redrawn = Some(super::session::Redrawn {
        at,
        made: Instant::now(),
        bytes: bytes.as_slice().into(),
    });
    (at, bytes)
}

/// `m` locked, whatever a panicking holder of it left.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pace whose last frame went out `ago`.
    fn sent_ago(ago: Duration) -> Pace {
        let mut p = Pace::new();
        p.last_sent = Instant::now() - ago;
        p
    }

    #[test]
    fn a_lone_burst_goes_out_as_bytes() {
        // Much output at once after a quiet spell: not a flood (one fast send is a burst).
        let mut p = sent_ago(Duration::from_secs(5));
        assert!(!p.flooding(2_000_000));
        // Output below the flood's floor never is one, however fast.
        let mut p = sent_ago(GATHER);
        assert!(!p.flooding(FLOOD_BYTES - 1));
        assert!(!p.flooding(FLOOD_BYTES - 1));
    }

    #[test]
    fn fast_output_at_two_sends_in_a_row_is_a_flood_until_it_slows() {
        let mut p = sent_ago(GATHER);
        assert!(
            !p.flooding(64 << 20),
            "the first fast send still forwards bytes"
        );
        p.sent();
        assert!(p.flooding(64 << 20), "the second one redraws");
        p.sent();
        // While flooding, the client is sent something only every REFRESH.
        assert!(p.hold(1 << 20).is_some());
        assert!(p.flooding(64 << 20));
        // Output slows (a few bytes in a long while): bytes again, gathered briefly only.
        let mut p = Pace {
            last_sent: Instant::now() - Duration::from_secs(1),
            ..p
        };
        assert!(!p.flooding(100));
        p.sent();
        assert!(p.hold(GATHER_BYTES).is_none(), "enough to send at once");
    }

    #[test]
    fn a_web_clients_flood_starts_at_a_lower_rate() {
        // 2 MB/s at two sends in a row: a flood for a browser, not for a terminal.
        let waiting = 2 * (1 << 20) * 16 / 1000;
        for (mut p, flood) in [(Pace::new(), false), (Pace::for_web(), true)] {
            p.last_sent = Instant::now() - Duration::from_millis(16);
            assert!(!p.flooding(waiting));
            p.last_sent = Instant::now() - Duration::from_millis(16);
            assert_eq!(p.flooding(waiting), flood);
        }
    }

    #[test]
    fn a_web_client_in_a_flood_is_redrawn_half_as_often() {
        for (mut p, refresh) in [(Pace::new(), REFRESH), (Pace::for_web(), WEB_REFRESH)] {
            p.flood = true;
            p.last_sent = Instant::now();
            let until = p.hold(1 << 20).expect("held during a flood");
            let wait = until - p.last_sent;
            assert_eq!(wait, refresh);
        }
        assert!(WEB_REFRESH >= REFRESH * 2);
    }

    #[test]
    fn a_keystroke_goes_out_at_once_after_a_quiet_spell() {
        let p = sent_ago(Duration::from_millis(500));
        assert!(p.hold(1).is_none());
        let p = sent_ago(Duration::ZERO);
        assert!(
            p.hold(1).is_some(),
            "output right after a frame is gathered"
        );
    }
}
