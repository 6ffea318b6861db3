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

/// Waiting calls: `select`/`pselect6` (fds in a bit set), `poll`/`ppoll` (an array of
/// `pollfd`), `epoll_wait`/`epoll_pwait` (the registered fds in the epoll fd's fdinfo).
#[cfg(target_arch = "x86_64")]
const SELECT_CALLS: &[i64] = &[23, 270];
#[cfg(target_arch = "x86_64")]
const POLL_CALLS: &[i64] = &[7, 271];
#[cfg(target_arch = "x86_64")]
const EPOLL_CALLS: &[i64] = &[232, 281, 441];
#[cfg(target_arch = "aarch64")]
const SELECT_CALLS: &[i64] = &[72];
#[cfg(target_arch = "aarch64")]
const POLL_CALLS: &[i64] = &[73];
#[cfg(target_arch = "aarch64")]
const EPOLL_CALLS: &[i64] = &[22, 441];
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const SELECT_CALLS: &[i64] = &[];
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const POLL_CALLS: &[i64] = &[];
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const EPOLL_CALLS: &[i64] = &[];

/// Most fds a waiting call is looked into for.
const MAX_FDS: u64 = 1024;

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

/// Parse `/proc/PID/syscall`: the system call number and its arguments, when the task is
/// blocked in one (not `running`, not `-1` for "in no call").
pub(super) fn parse_syscall(s: &str) -> Option<(i64, Vec<u64>)> {
    let mut f = s.split_ascii_whitespace();
    let nr: i64 = f.next()?.parse().ok()?;
    let args: Vec<u64> = f
        .take(6)
        .map(|a| u64::from_str_radix(a.strip_prefix("0x")?, 16).ok())
        .collect::<Option<_>>()?;
    (nr >= 0 && !args.is_empty()).then_some((nr, args))
}

/// The fds a blocked system call waits to read, when it is a read or a wait for readable
/// fds (`None`: some other call). `args` are the call's first arguments.
fn read_fds(pid: u32, nr: i64, args: &[u64]) -> Option<Vec<u64>> {
    let arg = |i: usize| args.get(i).copied().unwrap_or(0);
    if READ_CALLS.contains(&nr) {
        return Some(vec![arg(0)]);
    }
    read_wait_fds(pid, nr, arg)
}

/// [`read_fds`] for the waiting calls.
fn read_wait_fds(pid: u32, nr: i64, arg: impl Fn(usize) -> u64) -> Option<Vec<u64>> {
    if SELECT_CALLS.contains(&nr) {
        let n = arg(0).min(MAX_FDS);
        let bits = read_mem(pid, arg(1), n.div_ceil(8))?;
        return Some(set_bits(&bits, n));
    }
    if POLL_CALLS.contains(&nr) {
        let n = arg(1).min(MAX_FDS);
        return Some(pollin_fds(&read_mem(pid, arg(0), n * 8)?));
    }
    if EPOLL_CALLS.contains(&nr) {
        let info = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{}", arg(0))).ok()?;
        return Some(epoll_in_fds(&info));
    }
    None
}

/// The fds set in a `select` bit set of `n` fds.
pub(super) fn set_bits(bits: &[u8], n: u64) -> Vec<u64> {
    (0..n)
        .filter(|&fd| {
            bits.get((fd / 8) as usize)
                .is_some_and(|b| b >> (fd % 8) & 1 == 1)
        })
        .collect()
}

/// The fds a `pollfd` array waits to read (`POLLIN`); negative fds are ignored.
pub(super) fn pollin_fds(raw: &[u8]) -> Vec<u64> {
    raw.chunks_exact(8)
        .filter_map(|p| {
            let fd = i32::from_ne_bytes([p[0], p[1], p[2], p[3]]);
            let events = i16::from_ne_bytes([p[4], p[5]]);
            (fd >= 0 && events & 1 != 0).then_some(fd as u64)
        })
        .collect()
}

/// The fds an epoll fd's fdinfo registers for reading (`EPOLLIN`).
pub(super) fn epoll_in_fds(fdinfo: &str) -> Vec<u64> {
    fdinfo
        .lines()
        .filter_map(|l| {
            let mut f = l.split_ascii_whitespace();
            (f.next()? == "tfd:").then_some(())?;
            let fd = f.next()?.parse().ok()?;
            (f.next()? == "events:").then_some(())?;
            let ev = u32::from_str_radix(f.next()?, 16).ok()?;
            (ev & 1 != 0).then_some(fd)
        })
        .collect()
}

/// `len` bytes of `pid`'s memory at `addr` (readable by its ancestor, the holder).
fn read_mem(pid: u32, addr: u64, len: u64) -> Option<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let f = std::fs::File::open(format!("/proc/{pid}/mem")).ok()?;
    let mut buf = vec![0u8; usize::try_from(len).ok()?];
    f.read_exact_at(&mut buf, addr).ok()?;
    Some(buf)
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

/// What `/proc` tells of a process's sleep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sleep {
    /// Blocked reading (or waiting to read) its terminal.
    Reading,
    /// Running, or asleep on something else.
    Not,
    /// Asleep, but its system call and wait channel are hidden (a setuid program such as
    /// sudo, when the holder may not trace it): the caller decides by the terminal's mode.
    Opaque,
}

/// How `pid` (with `stat`) sleeps.
fn sleep_of(pid: u32, stat: &Stat) -> Sleep {
    if stat.state != 'S' || stat.tty_nr == 0 {
        return Sleep::Not;
    }
    let call = std::fs::read_to_string(format!("/proc/{pid}/syscall"))
        .ok()
        .and_then(|s| parse_syscall(&s));
    if let Some((nr, args)) = call {
        // A task blocked in a system call: reading (or waiting to read) the terminal and
        // nothing else, or not waiting for it.
        let reading = read_fds(pid, nr, &args).is_some_and(|fds| {
            let tty = |fd: &u64| fd_is_tty(pid, *fd, stat.tty_nr);
            // An event loop (epoll) watches many fds: the terminal among them is a reader
            // (a REPL, a prompt); a plain read, select or poll waits for the terminal alone
            // (ssh's poll on its socket and the terminal is not waiting for input).
            if EPOLL_CALLS.contains(&nr) {
                fds.iter().any(tty)
            } else {
                !fds.is_empty() && fds.iter().all(tty)
            }
        });
        return if reading { Sleep::Reading } else { Sleep::Not };
    }
    // Unreadable (or racing a wake-up): the wait channel, with stdin on the terminal.
    let wchan = std::fs::read_to_string(format!("/proc/{pid}/wchan")).unwrap_or_default();
    by_wchan(wchan.trim(), || fd_is_tty(pid, 0, stat.tty_nr))
}

/// [`Sleep`] from a wait channel (`0` or empty when hidden) and whether stdin is the tty.
pub(super) fn by_wchan(wchan: &str, stdin_tty: impl FnOnce() -> bool) -> Sleep {
    match wchan {
        "" | "0" => Sleep::Opaque,
        w if TTY_WCHANS.contains(&w) && stdin_tty() => Sleep::Reading,
        _ => Sleep::Not,
    }
}

fn stat_of(pid: u32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// A process of group `pgid` blocked reading its terminal: its pid and how sure `/proc` is
/// ([`Sleep::Reading`], or [`Sleep::Opaque`] when no member is seen reading but one sleeps
/// hidden). The group's leader is looked at first (the usual reader); then every other
/// member (a pipeline's `cat | …`).
pub(super) fn tty_reader(pgid: u32) -> Option<(u32, Sleep)> {
    let leader = stat_of(pgid)
        .filter(|st| st.pgrp == pgid)
        .map(|st| sleep_of(pgid, &st));
    if leader == Some(Sleep::Reading) {
        return Some((pgid, Sleep::Reading));
    }
    let mut opaque = (leader == Some(Sleep::Opaque)).then_some((pgid, Sleep::Opaque));
    for pid in std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != pgid)
    {
        match stat_of(pid)
            .filter(|st| st.pgrp == pgid)
            .map(|st| sleep_of(pid, &st))
        {
            Some(Sleep::Reading) => return Some((pid, Sleep::Reading)),
            Some(Sleep::Opaque) => opaque = opaque.or(Some((pid, Sleep::Opaque))),
            _ => {}
        }
    }
    opaque
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
            Some((0, vec![3, 0x561a3ae30f40, 0x1000, 0, 0x7fff, 0]))
        );
        assert_eq!(parse_syscall("running"), None);
        assert_eq!(parse_syscall("-1 0x7ffd 0x7f59"), None);
        assert_eq!(parse_syscall(""), None);
        #[cfg(target_arch = "x86_64")]
        {
            let me = std::process::id();
            assert_eq!(read_fds(me, 0, &[0, 1, 1]), Some(vec![0]));
            // nanosleep (35) and wait4 (61) are not reads.
            assert_eq!(read_fds(me, 35, &[0x7ffd, 0]), None);
            assert_eq!(read_fds(me, 61, &[0xffff_ffff, 0x7ff]), None);
        }
    }

    #[test]
    fn waited_fds_from_select_poll_and_epoll() {
        assert_eq!(set_bits(&[0b0000_1001, 0b1], 9), vec![0, 3, 8]);
        assert_eq!(set_bits(&[0b1000_0001], 3), vec![0]);
        let mut raw = Vec::new();
        for (fd, ev) in [(0i32, 1i16), (5, 4), (-1, 1), (7, 3)] {
            raw.extend(fd.to_ne_bytes());
            raw.extend(ev.to_ne_bytes());
            raw.extend(0i16.to_ne_bytes());
        }
        assert_eq!(pollin_fds(&raw), vec![0, 7]);
        let info = "pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1057\n\
            tfd:        0 events:       19 data:                0  pos:0 ino:3 sdev:19\n\
            tfd:        9 events:        4 data:                9  pos:0 ino:2 sdev:e\n";
        assert_eq!(epoll_in_fds(info), vec![0]);
    }

    #[test]
    fn this_test_process_is_not_reading_a_terminal() {
        let me = std::process::id();
        // Running (reading its own /proc), never asleep in a tty read.
        let st = stat_of(me).expect("own stat");
        assert_eq!(sleep_of(me, &st), Sleep::Not);
    }

    #[test]
    fn wait_channels_when_the_system_call_is_hidden() {
        assert_eq!(by_wchan("n_tty_read", || true), Sleep::Reading);
        assert_eq!(by_wchan("wait_woken", || true), Sleep::Reading);
        // The same wait with stdin elsewhere, and other waits, are not a tty read.
        assert_eq!(by_wchan("wait_woken", || false), Sleep::Not);
        assert_eq!(by_wchan("hrtimer_nanosleep", || true), Sleep::Not);
        assert_eq!(by_wchan("do_wait", || true), Sleep::Not);
        // Hidden: the caller asks the terminal (a password prompt has echo off).
        assert_eq!(by_wchan("0", || true), Sleep::Opaque);
        assert_eq!(by_wchan("", || true), Sleep::Opaque);
    }
}
