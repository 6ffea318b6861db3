//! Agent programs (seed 002 §8.2, §8.5): a session that runs a program instead of a shell,
//! started again when it exits if asked. States `running → exited → restarting → running`, or
//! `dead`; every client sees the exit and restart notices in the output stream, and stays
//! attached to the new process (it runs on the same PTY: the holder keeps the terminal's slave
//! side open, so the screen, the buffer and attached clients carry on).

pub(super) use super::exit::Phase;
use super::exit::{ExitInfo, Lifecycle};
use super::restarter::ProgramEvent;
use super::session::Shared;
use portable_pty::Child;
use std::time::{Duration, Instant};

/// Output quiet this long after a program exited means the reader has taken in its last.
const SETTLE_QUIET: Duration = Duration::from_millis(30);
/// The longest wait for that quiet.
const SETTLE_MAX: Duration = Duration::from_millis(300);

/// A restart delay never grows past this through back-off.
const BACKOFF_CAP_MS: u64 = 30_000;
/// A program that ran at least this long before exiting is restarted after the configured
/// delay again (the back-off starts over).
const STABLE_AFTER: Duration = Duration::from_secs(10);

/// seed 002's notice when the program exits.
fn exited_notice(code: i32) -> String {
    format!("\r\n\x1b[2m[process exited (code {code})]\x1b[0m\r\n")
}

/// seed 002's notice when a restart is coming.
fn restarting_notice(delay_ms: u64) -> String {
    format!("\x1b[2m[restarting in {delay_ms}ms...]\x1b[0m\r\n")
}

/// The delay before the next restart: the configured one after a run of at least
/// [`STABLE_AFTER`] (or the first time), else double the previous one, up to
/// [`BACKOFF_CAP_MS`] (never below the configured delay).
fn next_delay(configured: u64, previous: Option<u64>, ran_for: Duration) -> u64 {
    match previous {
        Some(prev) if ran_for < STABLE_AFTER => prev
            .saturating_mul(2)
            .max(1)
            .min(BACKOFF_CAP_MS.max(configured))
            .max(configured),
        _ => configured,
    }
}

impl Shared {
    /// After the program exited with `info` having run `ran_for`: with auto-restart (and no
    /// kill), tell the clients, wait the delay, start it again and return the new child;
    /// `None` when the session ends instead.
    pub(super) fn restart(
        &self,
        info: &ExitInfo,
        ran_for: Duration,
    ) -> Option<Box<dyn Child + Send + Sync>> {
        let r = self.restarter.get()?;
        let delay = {
            let mut st = self.lock();
            if st.killed {
                return None;
            }
            st.dirty = true;
            let lc = st.program.get_or_insert_with(Lifecycle::running);
            let delay = next_delay(r.spec.restart_delay_ms, lc.delay_ms, ran_for);
            lc.delay_ms = Some(delay);
            lc.last_exit = Some(info.clone());
            lc.phase = Phase::Restarting;
            delay
        };
        self.settle_output();
        let text = exited_notice(info.code) + &restarting_notice(delay);
        self.announce(text.as_bytes());
        r.record(ProgramEvent::ProcessExited {
            exit_code: info.code,
            exit_signal: info.signal.clone(),
            restarting_in_ms: Some(delay),
        });
        let deadline = Instant::now() + Duration::from_millis(delay);
        let mut st = self.lock();
        while !st.killed && Instant::now() < deadline {
            st = self.wait_on(&self.events, st, deadline).0;
        }
        if st.killed {
            return None;
        }
        drop(st);
        match r.spawn() {
            Ok(child) => {
                let pid = child.process_id().unwrap_or(0);
                self.set_pid(pid);
                self.reset_context();
                let restarts = {
                    let mut st = self.lock();
                    st.dirty = true;
                    let lc = st.program.get_or_insert_with(Lifecycle::running);
                    lc.restarts += 1;
                    lc.phase = Phase::Running;
                    lc.restarts
                };
                self.notify();
                if self.lock().killed {
                    // Killed while it was being started: end this run too.
                    if let Some(p) = rustix::process::Pid::from_raw(pid as i32) {
                        let _ =
                            rustix::process::kill_process_group(p, rustix::process::Signal::HUP);
                    }
                }
                tracing::info!("program restarted (pid {pid}, restart {restarts})");
                r.record(ProgramEvent::ProcessRestarted {
                    pid,
                    restart_count: restarts,
                    delay_ms: delay,
                });
                Some(child)
            }
            Err(e) => {
                tracing::error!("restarting the program failed: {e}");
                let text = format!("\x1b[2m[restart failed: {e}]\x1b[0m\r\n");
                self.announce(text.as_bytes());
                None
            }
        }
    }

    /// Let the reader take in what the program printed last before a notice goes after it:
    /// the program has exited, so its output is already in the terminal; wait until none has
    /// come for [`SETTLE_QUIET`] (at most [`SETTLE_MAX`]). With the slave side kept open for
    /// restarts no EOF marks its end.
    fn settle_output(&self) {
        let deadline = Instant::now() + SETTLE_MAX;
        let mut st = self.lock();
        loop {
            let quiet_at = st.last_output + SETTLE_QUIET;
            let now = Instant::now();
            if now >= quiet_at || now >= deadline {
                return;
            }
            st = self.wait_until(st, quiet_at.min(deadline)).0;
        }
    }

    /// A PTY whose process ends for good — a program (state `dead`) or a shell, PTY 0 or
    /// one opened beside it: every client gets seed 002's exit notice, unless it was given
    /// already (a program killed while waiting to restart).
    pub(super) fn program_ended(&self, info: &ExitInfo) {
        let announce = {
            let st = self.lock();
            let lc = st.program.as_ref();
            lc.is_none_or(|lc| lc.phase != Phase::Restarting)
        };
        // The notice is in the output before anyone can see the program dead: a reader that
        // finds it `exited` finds the notice too.
        if announce {
            self.announce(exited_notice(info.code).as_bytes());
        }
        if let Some(lc) = self.lock().program.as_mut() {
            lc.phase = Phase::Dead;
            lc.last_exit = Some(info.clone());
        }
        if announce && let Some(r) = self.restarter.get() {
            r.record(ProgramEvent::ProcessExited {
                exit_code: info.code,
                exit_signal: info.signal.clone(),
                restarting_in_ms: None,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_exits_back_off_and_a_long_run_starts_over() {
        let quick = Duration::from_millis(50);
        assert_eq!(next_delay(1000, None, quick), 1000);
        assert_eq!(next_delay(1000, Some(1000), quick), 2000);
        assert_eq!(next_delay(1000, Some(16_000), quick), 30_000);
        assert_eq!(next_delay(1000, Some(30_000), quick), 30_000);
        assert_eq!(next_delay(1000, Some(30_000), STABLE_AFTER), 1000);
        assert_eq!(
            next_delay(0, Some(0), quick),
            1,
            "a zero delay still backs off"
        );
        assert_eq!(
            next_delay(60_000, Some(60_000), quick),
            60_000,
            "never below the set delay"
        );
        assert_eq!(
            exited_notice(7),
            "\r\n\x1b[2m[process exited (code 7)]\x1b[0m\r\n"
        );
        assert_eq!(
            restarting_notice(250),
            "\x1b[2m[restarting in 250ms...]\x1b[0m\r\n"
        );
    }
}
