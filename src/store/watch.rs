//! Waking up when files in the state directory change: inotify on Linux, so a follower
//! (`kpty log --follow`) sleeps until something is written instead of polling. Where
//! inotify is unavailable (another OS, or the per-user watch limit reached) every wait
//! simply lasts until its deadline, and the caller re-checks its files then.

use std::path::Path;
use std::time::Instant;

/// Watches directories for files created, appended to or renamed into them.
pub struct Watcher {
    #[cfg(target_os = "linux")]
    fd: Option<rustix::fd::OwnedFd>,
}

impl Watcher {
    /// A watcher with nothing watched yet.
    pub fn new() -> Self {
        Self {
            #[cfg(target_os = "linux")]
            fd: {
                use rustix::fs::inotify::{CreateFlags, init};
                init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK)
                    .map_err(|e| {
                        tracing::debug!("inotify unavailable ({e}); following by deadline")
                    })
                    .ok()
            },
        }
    }

    /// Watch `dir` (watching a directory twice is harmless). False when it cannot be
    /// watched (it does not exist, or no inotify): waits then end at their deadline.
    pub fn watch(&mut self, dir: &Path) -> bool {
        #[cfg(target_os = "linux")]
        if let Some(fd) = &self.fd {
            use rustix::fs::inotify::{WatchFlags, add_watch};
            let flags = WatchFlags::CREATE | WatchFlags::MODIFY | WatchFlags::MOVED_TO;
            return add_watch(fd, dir, flags).is_ok();
        }
        let _ = dir;
        false
    }

    /// Block until something changed in a watched directory or `deadline` passes; true
    /// when woken by a change. Pending notifications are consumed.
    pub fn wait(&mut self, deadline: Instant) -> bool {
        #[cfg(target_os = "linux")]
        if let Some(fd) = &self.fd {
            use rustix::event::{PollFd, PollFlags};
            let mut fds = [PollFd::new(fd, PollFlags::IN)];
            // (A signal does not end the wait before the deadline.)
            let woken = matches!(crate::eintr::poll_until(&mut fds, deadline), Ok(n) if n > 0);
            if woken {
                drain(fd);
            }
            return woken;
        }
        if let Some(left) = deadline.checked_duration_since(Instant::now()) {
            std::thread::sleep(left);
        }
        false
    }
}

impl Default for Watcher {
    fn default() -> Self {
        Self::new()
    }
}

/// Read and discard every queued inotify event (the fd is non-blocking).
#[cfg(target_os = "linux")]
fn drain(fd: &rustix::fd::OwnedFd) {
    let mut buf = [0u8; 4096];
    loop {
        match rustix::io::read(fd, &mut buf) {
            Ok(n) if n > 0 => {}
            Err(rustix::io::Errno::INTR) => {}
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn wakes_on_an_append_and_times_out_otherwise() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("events.jsonl");
        std::fs::write(&file, "").unwrap();
        let mut w = Watcher::new();
        assert!(w.watch(dir.path()));
        // Nothing happens: the wait ends at its deadline.
        assert!(!w.wait(Instant::now() + Duration::from_millis(20)));
        {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&file)
                .unwrap();
            f.write_all(b"{}\n").unwrap();
        }
        assert!(w.wait(Instant::now() + Duration::from_secs(10)));
        // Consumed: the next wait starts clean.
        assert!(!w.wait(Instant::now() + Duration::from_millis(20)));
    }

    #[test]
    fn a_missing_directory_is_refused() {
        let mut w = Watcher::new();
        assert!(!w.watch(Path::new("/nonexistent/kpty/dir")));
    }
}
