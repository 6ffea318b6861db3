//! The `/proc` folder of the holder's own child (its shell or program): opened once, proven
//! the child's, and read through while that process lives.

/// The `/proc/<pid>` folder of this holder's own child, proven so when opened. The open
/// folder stays the process's own: once that process is gone (even with its pid reused),
/// reads through it fail rather than reach another process.
pub(super) struct ProcDir {
    pid: u32,
    fd: std::os::fd::OwnedFd,
}

impl ProcDir {
    /// Open `/proc/<pid>` when `pid` is a child of this process (its parent is checked: the
    /// pid was never read from a file, but a recycled one is not read either).
    pub(super) fn open(pid: u32) -> Option<Self> {
        use rustix::fs::{Mode, OFlags};
        if pid == 0 {
            return None;
        }
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let fd = rustix::fs::open(format!("/proc/{pid}"), flags, Mode::empty()).ok()?;
        let stat = rustix::fs::openat(&fd, "stat", OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())
            .ok()?;
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::fs::File::from(stat), &mut text).ok()?;
        // `pid (comm) state ppid …`: comm may hold spaces and parentheses; the last `)` ends it.
        let after = &text[text.rfind(')')? + 1..];
        let ppid: u32 = after.split_whitespace().nth(1)?.parse().ok()?;
        (ppid == std::process::id()).then_some(Self { pid, fd })
    }

    /// The pid it was opened for.
    pub(super) fn pid(&self) -> u32 {
        self.pid
    }

    /// The process's working directory, while it lives.
    pub(super) fn cwd(&self) -> Option<String> {
        let link = rustix::fs::readlinkat(&self.fd, "cwd", Vec::new()).ok()?;
        link.into_string().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cwd_of(pid: u32) -> Option<String> {
        ProcDir::open(pid)?.cwd()
    }

    #[test]
    fn only_a_child_of_this_process_is_read() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .current_dir("/")
            .spawn()
            .expect("sleep");
        let pid = child.id();
        let seen = cwd_of(pid);
        let kept = ProcDir::open(pid);
        let _ = child.kill();
        let _ = child.wait();
        if std::path::Path::new("/proc/self/stat").exists() {
            assert_eq!(seen.as_deref(), Some("/"));
            // Gone (and reaped): the folder kept open reads nothing, whoever has the pid now.
            assert_eq!(kept.expect("opened while alive").cwd(), None);
            // pid 1 is nobody's child of ours.
            assert_eq!(cwd_of(1), None);
        }
        assert_eq!(cwd_of(0), None);
    }
}
