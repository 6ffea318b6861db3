//! Is a process group blocked reading its terminal? Linux's `/proc` answers: a process
//! sleeping (`S`) in the `read` system call (`/proc/PID/syscall`) on a file descriptor that
//! is its controlling terminal or `/dev/tty` is waiting for input. When `/proc/PID/syscall`
//! cannot be read (no permission, another architecture), the kernel's wait channel
//! (`/proc/PID/wchan`: `n_tty_read`, or `wait_woken` as newer kernels show a tty read) with
//! standard input on the terminal stands in. A process asleep elsewhere (`nanosleep`,
//! `wait4`, a pipe read) is not waiting for the terminal.

use std::os::unix::fs::MetadataExt;

/// `/dev/tty`'s device number (5, 0) as the kernel encodes it.
const DEV_TTY: u64 = 5 << 8;

/// The `read` and `readv` system call numbers of this architecture.
#[cfg(target_arch = "x86_64")]
const READ_CALLS: &[i64] = &[0, 19];
#[cfg(target_arch = "aarch64")]
const READ_CALLS: &[i64] = &[63, 65];
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const READ_CALLS: &[i64] = &[];

/// Wait channels of a task blocked in a tty read.
const TTY_WCHANS: &[&str] = &["n_tty_read", "wait_woken"];

/// The fields of `/proc/PID/stat` this module needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stat {
    /// Process state (`R`, `S`, `D`, `T`, `Z` …).
    pub state: char,
    /// Process group.
    pub pgrp: u32,
    /// Controlling terminal's device number (0: none).
    pub tty_nr: u64,
}

/// Parse `/proc/PID/stat` (the command name may hold spaces and parentheses: fields are
/// counted after its last `)`).
pub(super) fn parse_stat(s: &str) -> Option<Stat> {
    let rest = &s[s.rfind(')')? + 1..];
    let mut f = rest.split_ascii_whitespace();
    let state = f.next()?.chars().next()?;
    let _ppid = f.next()?;
    let pgrp = f.next()?.parse().ok()?;
    let _session = f.next()?;
    let tty_nr = f.next()?.parse().ok()?;
    Some(Stat {
        state,
        pgrp,
        tty_nr,
    })
}

/// Parse `/proc/PID/syscall`: the system call number and its first argument, when the task
/// is blocked in one (not `running`, not `-1` for "in no call").
pub(super) fn parse_syscall(s: &str) -> Option<(i64, u64)> {
    let mut f = s.split_ascii_whitespace();
    let nr: i64 = f.next()?.parse().ok()?;
    let arg0 = f.next()?;
    let arg0 = u64::from_str_radix(arg0.strip_prefix("0x")?, 16).ok()?;
    (nr >= 0).then_some((nr, arg0))
}

/// What a system-call line says about a tty read: `Some(fd)` when it is a read.
fn read_fd(syscall: &str) -> Option<u64> {
    parse_syscall(syscall).and_then(|(nr, fd)| READ_CALLS.contains(&nr).then_some(fd))
}

/// `fd` of `pid` is its controlling terminal `tty_nr` (or `/dev/tty`).
fn fd_is_tty(pid: u32, fd: u64, tty_nr: u64) -> bool {
    std::fs::metadata(format!("/proc/{pid}/fd/{fd}"))
        .map(|m| {
            use std::os::unix::fs::FileTypeExt;
            m.file_type().is_char_device() && (m.rdev() == tty_nr || m.rdev() == DEV_TTY)
        })
        .unwrap_or(false)
}

/// `pid` (with `stat`) sleeps reading its terminal.
fn blocked_in_tty_read(pid: u32, stat: &Stat) -> bool {
    if stat.state != 'S' || stat.tty_nr == 0 {
        return false;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/syscall")) {
        // A task blocked in a system call: a read on the terminal, or not waiting for it.
        Ok(s) if parse_syscall(&s).is_some() => {
            read_fd(&s).is_some_and(|fd| fd_is_tty(pid, fd, stat.tty_nr))
        }
        // Unreadable (or racing a wake-up): the wait channel, with stdin on the terminal.
        _ => std::fs::read_to_string(format!("/proc/{pid}/wchan"))
            .is_ok_and(|w| TTY_WCHANS.contains(&w.trim()) && fd_is_tty(pid, 0, stat.tty_nr)),
    }
}

fn stat_of(pid: u32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// A process of group `pgid` blocked reading its terminal: its pid. The group's leader is
/// looked at first (the usual reader); then every other member (a pipeline's `cat | …`).
pub(super) fn tty_reader(pgid: u32) -> Option<u32> {
    if let Some(st) = stat_of(pgid)
        && st.pgrp == pgid
        && blocked_in_tty_read(pgid, &st)
    {
        return Some(pgid);
    }
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != pgid)
        .find(|&pid| {
            stat_of(pid).is_some_and(|st| st.pgrp == pgid && blocked_in_tty_read(pid, &st))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_after_the_command_name() {
        let s = "4242 (a) b (c)) S 1 4242 4242 34821 4242 4194304 0 0";
        assert_eq!(
            parse_stat(s),
            Some(Stat {
                state: 'S',
                pgrp: 4242,
                tty_nr: 34821
            })
        );
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("1 (x) S 1"), None);
    }

    #[test]
    fn syscall_lines() {
        assert_eq!(
            parse_syscall("0 0x3 0x561a3ae30f40 0x1000 0x0 0x7fff 0x0 0x7fff 0x7f59"),
            Some((0, 3))
        );
        assert_eq!(parse_syscall("running"), None);
        assert_eq!(parse_syscall("-1 0x7ffd 0x7f59"), None);
        assert_eq!(parse_syscall(""), None);
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(read_fd("0 0x0 0x1 0x1 0 0 0 0x1 0x2"), Some(0));
            // nanosleep (35) and wait4 (61) are not reads.
            assert_eq!(read_fd("35 0x7ffd 0x0 0x0 0 0 0 0x1 0x2"), None);
            assert_eq!(read_fd("61 0xffffffff 0x7ff 0xa 0 0 0 0x1 0x2"), None);
        }
    }

    #[test]
    fn this_test_process_is_not_reading_a_terminal() {
        let me = std::process::id();
        // Running (reading its own /proc), never asleep in a tty read.
        let st = stat_of(me).expect("own stat");
        assert!(!blocked_in_tty_read(me, &st));
    }
}
