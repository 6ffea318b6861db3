//! The only unsafe code in kpty: one syscall wrapper per function, each with a `// SAFETY:` note.

use std::process::Command;

/// Make the spawned child the leader of a new session (`setsid(2)`), detaching it from our
/// controlling terminal and process group, so the holder outlives the CLI or MCP server that
/// started it and never receives their terminal's SIGHUP.
pub fn setsid_on_spawn(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: `pre_exec` runs the closure in the forked child before exec. The closure calls
    // only setsid(2) through rustix's raw syscall wrapper: async-signal-safe, no allocation,
    // no locks, so it is sound even though the parent may be multi-threaded.
    unsafe {
        cmd.pre_exec(|| rustix::process::setsid().map(drop).map_err(Into::into));
    }
}

/// The Landlock ABI version the running kernel offers, `None` without Landlock.
///
/// `landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)` creates nothing: it only
/// answers the version (or fails with `ENOSYS`/`EOPNOTSUPP`). The landlock crate keeps its own
/// probe private, hence this one raw syscall.
#[cfg(target_os = "linux")]
pub fn landlock_abi() -> Option<u32> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_long = 1;
    // SAFETY: a null attribute pointer with size 0 is the documented version query; no memory
    // is read or written and no descriptor is created.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    u32::try_from(v).ok().filter(|v| *v > 0)
}

/// `unshare(2)` of the mount and user namespaces only (any other flag panics). rustix marks
/// `unshare` `unsafe` because `CLONE_FILES` would give this thread a descriptor table other
/// threads do not see; namespace flags carry no such hazard. (`CLONE_NEWUSER` also needs a
/// single-threaded caller, which the kernel checks itself.)
#[cfg(target_os = "linux")]
pub fn unshare_namespaces(flags: rustix::thread::UnshareFlags) -> std::io::Result<()> {
    use rustix::thread::UnshareFlags;
    assert!(
        flags
            .difference(UnshareFlags::NEWNS | UnshareFlags::NEWUSER)
            .is_empty()
    );
    // SAFETY: no descriptor table is unshared (checked above), the one hazard rustix names.
    unsafe { rustix::thread::unshare_unsafe(flags) }.map_err(std::io::Error::from)
}

/// `stream` registered with the current tokio runtime's reactor for reading only (`epoll`
/// without `EPOLLOUT`: see [`crate::mcp`]'s holder connections). Tokio marks the registration
/// `unsafe` because a borrowed descriptor could be closed or replaced under it; an owned
/// stream cannot be. Panics outside a runtime, as tokio's own constructors do.
pub fn register_readable(
    stream: std::os::unix::net::UnixStream,
) -> std::io::Result<tokio::io::unix::AsyncFd<std::os::unix::net::UnixStream>> {
    // SAFETY: the `AsyncFd` owns the stream, so its descriptor stays open and names the same
    // socket until the `AsyncFd` drops (deregistering first) or gives the stream back.
    unsafe {
        tokio::io::unix::AsyncFd::register_with_interest(stream, tokio::io::Interest::READABLE)
    }
    .map_err(|e| e.into())
}
