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
