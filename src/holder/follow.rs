//! Followers (`kpty read --follow`, `kpty term-read --follow`): streaming subscribers of the
//! output, like attached clients but sent `Read` bodies (text, offsets, what was missed)
//! instead of terminal bytes.
//!
//! Each follower reads the output ring at its own offset, woken by new output; the reader
//! thread never waits for one. A follower slower than the output falls behind in the ring,
//! never holds it up: once what it has not taken has left the ring, its next body starts at
//! the oldest byte still held and says how many it missed (`dropped`).

use super::requests::read_body;
use super::session::Shared;
use crate::proto::follow::FollowRequest;
use crate::proto::{ReadBody, Reply, frame};
use std::io::{self, Read};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Output arriving this soon after the last body is gathered for up to this long (or until
/// [`GATHER_BYTES`] wait), so a flood goes out in few large bodies while a lone line goes out
/// at once.
const GATHER: Duration = Duration::from_millis(2);
/// Enough output to send without gathering more.
const GATHER_BYTES: u64 = 32 * 1024;

/// How long a follower reuses the terminal's state (foreground program, waiting for input)
/// it last looked up: looking costs a few `/proc` reads, too much for every piece of a flood.
/// (A plain `read` looks once, before it waits for output.)
const STATE_FRESH: Duration = Duration::from_millis(50);

/// One body to send, and whether it is the last.
struct Update {
    body: ReadBody,
    last: bool,
}

impl Shared {
    /// Serve one follower on `stream` until the shell has ended and all its output was sent,
    /// or the follower closes the connection.
    pub fn follow(self: &Arc<Self>, mut stream: UnixStream, req: &FollowRequest) {
        let gone = Arc::new(AtomicBool::new(false));
        match stream.try_clone() {
            Ok(input) => {
                let (me, g) = (self.clone(), gone.clone());
                std::thread::spawn(move || me.watch_close(input, &g));
            }
            Err(e) => {
                tracing::debug!("follower not started: {e}");
                return;
            }
        }
        let wait = Duration::from_millis(req.wait_ms.clamp(1, crate::api::MAX_TIMEOUT_MS));
        let mut since = req.since;
        let mut state = None;
        let mut last_sent = Instant::now()
            .checked_sub(GATHER)
            .unwrap_or_else(Instant::now);
        while let Some(u) = self.next_update(since, req, (wait, last_sent), &mut state, &gone) {
            since = u.body.next_offset;
            let sent = serde_json::to_vec(&Reply::ok(u.body))
                .map_err(io::Error::other)
                .and_then(|b| frame::write_frame(&mut stream, &b));
            if let Err(e) = sent {
                tracing::debug!("follower left: {e}");
                break;
            }
            last_sent = Instant::now();
            if u.last {
                break;
            }
        }
        let _ = stream.shutdown(std::net::Shutdown::Both);
    }

    /// The follower's next body: output past `since` (gathered briefly when it trickles in),
    /// the last one once the shell ended, or a heartbeat after `wait` (from `last_sent`);
    /// `None` once the follower has gone. `state` is the terminal's state last looked up.
    fn next_update(
        &self,
        since: u64,
        req: &FollowRequest,
        (wait, last_sent): (Duration, Instant),
        state: &mut Option<(Instant, (bool, bool))>,
        gone: &AtomicBool,
    ) -> Option<Update> {
        let deadline = Instant::now() + wait;
        let mut st = self.lock();
        loop {
            if gone.load(Ordering::Acquire) {
                return None;
            }
            let end = st.ring.end();
            if st.exit.is_some() {
                break;
            }
            if end > since {
                let gather_until = last_sent + GATHER;
                if end - since >= GATHER_BYTES || Instant::now() >= gather_until {
                    break;
                }
                // A timed wait that output does not cut short (only the shell's end does).
                st = self.wait_on(&self.ended, st, gather_until).0;
                continue;
            }
            let (g, up) = self.wait_until(st, deadline);
            st = g;
            if up {
                break;
            }
        }
        // The terminal's state is looked up without the lock held (it asks the kernel and
        // takes other locks); output in between only makes the body longer.
        let looked = match *state {
            Some((at, s)) if at.elapsed() < STATE_FRESH && st.exit.is_none() => s,
            _ => {
                drop(st);
                let s = (self.foreground_other().is_some(), self.waiting_now());
                *state = Some((Instant::now(), s));
                st = self.lock();
                s
            }
        };
        let from = if req.offsets_only {
            st.ring.end()
        } else {
            since
        };
        let body = read_body(&st, Some(from), req.max_bytes.max(1), req.context, looked);
        let last = !body.alive && body.next_offset >= st.ring.end();
        Some(Update { body, last })
    }

    /// Wait for the follower to close its end (it sends nothing), then wake its sender.
    fn watch_close(&self, mut input: UnixStream, gone: &AtomicBool) {
        let mut buf = [0u8; 256];
        while matches!(crate::eintr::retry(|| input.read(&mut buf)), Ok(n) if n > 0) {}
        gone.store(true, Ordering::Release);
        self.notify();
    }
}
