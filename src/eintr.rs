//! Waits and reads that a signal can interrupt (`EINTR`): retried, with what is left of
//! their deadline, instead of taken as an answer. (std's `read_exact`, `read_to_end`,
//! `read_line`, `accept`, `Child::wait` and `thread::sleep` already retry; a bare `read` and
//! `poll(2)` do not — `poll` is never restarted by `SA_RESTART`.)

use rustix::event::{PollFd, Timespec, poll};
use rustix::io::Errno;
use std::time::Instant;

/// `poll(2)` on `fds` until one is ready or `deadline` passes; a signal does not end the
/// wait early. Returns how many are ready (0 at the deadline).
pub fn poll_until(fds: &mut [PollFd<'_>], deadline: Instant) -> rustix::io::Result<usize> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let t = Timespec::try_from(left).unwrap_or(Timespec {
            tv_sec: i64::MAX,
            tv_nsec: 0,
        });
        match poll(fds, Some(&t)) {
            Err(Errno::INTR) if !left.is_zero() => continue,
            Err(Errno::INTR) => return Ok(0),
            r => return r,
        }
    }
}

/// Run `f` again while a signal interrupts it.
pub fn retry<T>(mut f: impl FnMut() -> std::io::Result<T>) -> std::io::Result<T> {
    loop {
        match f() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            r => return r,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn poll_until_waits_for_the_deadline_and_sees_readiness() {
        let (a, mut b) = std::os::unix::net::UnixStream::pair().expect("a socket pair");
        let mut fds = [PollFd::new(&a, rustix::event::PollFlags::IN)];
        assert_eq!(poll_until(&mut fds, Instant::now()).expect("poll"), 0);
        std::io::Write::write_all(&mut b, b"x").expect("write");
        let ready = poll_until(&mut fds, Instant::now() + Duration::from_secs(30));
        assert_eq!(ready.expect("poll"), 1);
    }

    #[test]
    fn retry_runs_again_after_an_interruption_only() {
        let mut calls = 0;
        let r = retry(|| {
            calls += 1;
            match calls {
                1 | 2 => Err(std::io::ErrorKind::Interrupted.into()),
                _ => Ok(calls),
            }
        });
        assert_eq!(r.expect("third call"), 3);
        let mut calls = 0;
        let r: std::io::Result<()> = retry(|| {
            calls += 1;
            Err(std::io::ErrorKind::TimedOut.into())
        });
        assert!(r.is_err());
        assert_eq!(calls, 1);
    }
}
