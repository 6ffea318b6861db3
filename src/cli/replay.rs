//! `kpty replay`: a recording played in this terminal at its own pace (`--speed`, pauses
//! shortened to `--idle-limit`), from a marker or a time (`--from`). On a terminal, keys
//! steer it: space pauses and resumes, `.` steps one output while paused, `q` (or Ctrl-C)
//! quits. The output passes the attach sanitiser: a recording (a file from anywhere) cannot
//! set the clipboard or make the terminal answer.

use super::args::ReplayArgs;
use super::rawmode::{self, RawMode};
use crate::cast::Code;
use crate::core::Ctx;
use crate::core::rec::Timed;
use crate::error::{Error, Result, Voice};
use crate::safety::term_out::{Policy, TermOut};
use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A key that steers the replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Pause,
    Step,
    Quit,
}

/// `kpty replay`.
pub fn run(ctx: &Ctx, a: &ReplayArgs) -> Result<i32> {
    if !(0.1..=100.0).contains(&a.speed) {
        return Err(Error::invalid("--speed must be between 0.1 and 100"));
    }
    if a.idle_limit.is_some_and(|s| !s.is_finite() || s < 0.0) {
        return Err(Error::invalid(
            "--idle-limit must be a number of seconds, 0 or more",
        ));
    }
    let l = super::recording::loaded(ctx, &a.source, a.from.as_deref())
        .map_err(|e| e.speak(Voice::Cli))?;
    let idle = a
        .idle_limit
        .or(l.header.idle_time_limit)
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64);
    let (cols, rows) = l.size();
    if let Some((c, r)) = rawmode::size()
        && (c < cols || r < rows)
    {
        eprintln!("[kpty] the recording is {cols}x{rows}, this terminal {c}x{r}: lines may wrap");
    }
    let keys = rawmode::stdin_is_terminal();
    let _raw = if keys {
        Some(RawMode::enter().map_err(|e| Error::invalid(format!("raw mode: {e}")))?)
    } else {
        None
    };
    let rx = keys.then(spawn_keys);
    let played = play(&l.events, a.speed, idle, rx.as_ref());
    drop(_raw);
    eprintln!(
        "[kpty] replay {} at {:.1}s of {:.1}s",
        if played.1 { "quit" } else { "ended" },
        played.0.as_secs_f64(),
        l.duration().as_secs_f64()
    );
    Ok(0)
}

/// Read keys from standard input on a thread of their own.
fn spawn_keys() -> mpsc::Receiver<Key> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut b = [0u8; 64];
        while let Ok(n) = stdin.read(&mut b) {
            if n == 0 {
                break;
            }
            for &c in &b[..n] {
                let key = match c {
                    b' ' => Key::Pause,
                    b'.' => Key::Step,
                    b'q' | b'Q' | 0x03 => Key::Quit,
                    _ => continue,
                };
                if tx.send(key).is_err() {
                    return;
                }
            }
        }
    });
    rx
}

/// Play `events`; returns where it stopped and whether it was quit.
fn play(
    events: &[Timed],
    speed: f64,
    idle: Option<Duration>,
    keys: Option<&mpsc::Receiver<Key>>,
) -> (Duration, bool) {
    let mut sanitiser = TermOut::new(Policy {
        allow_clipboard: false,
        own_screen: true,
    });
    let mut out = std::io::stdout().lock();
    let mut clean = Vec::new();
    let mut prev = Duration::ZERO;
    let mut paused = false;
    for e in events {
        let mut gap = e.at.saturating_sub(prev).div_f64(speed);
        if let Some(limit) = idle {
            gap = gap.min(limit);
        }
        prev = e.at;
        if wait(gap, &mut paused, keys) == Some(Key::Quit) {
            return (e.at, true);
        }
        if e.code == Code::Output {
            clean.clear();
            sanitiser.feed(e.data.as_bytes(), &mut clean);
            let _ = sanitiser.take_redraw_request();
            if out.write_all(&clean).and_then(|_| out.flush()).is_err() {
                return (e.at, true);
            }
        }
    }
    (prev, false)
}

/// Wait `gap` (longer while paused), steered by `keys`; `Some(Quit)` to stop, `Some(Step)`
/// to show the next event now. Pacing is the recording's own time: without keys to wait on,
/// the replay sleeps it.
fn wait(gap: Duration, paused: &mut bool, keys: Option<&mpsc::Receiver<Key>>) -> Option<Key> {
    let Some(keys) = keys else {
        std::thread::sleep(gap);
        return None;
    };
    let deadline = Instant::now() + gap;
    loop {
        let key = if *paused {
            keys.recv().ok()
        } else {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            match keys.recv_timeout(left) {
                Ok(k) => Some(k),
                Err(mpsc::RecvTimeoutError::Timeout) => return None,
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    std::thread::sleep(left);
                    return None;
                }
            }
        };
        match key {
            // Standard input closed while paused: nothing can resume the replay.
            None => return Some(Key::Quit),
            Some(Key::Quit) => return Some(Key::Quit),
            Some(Key::Pause) => *paused = !*paused,
            Some(Key::Step) if *paused => return Some(Key::Step),
            Some(Key::Step) => {}
        }
    }
}
