//! A holder that runs but whose socket is not where this kpty looks: started in an
//! environment with another `KPTY_RUNTIME_DIR` (or its socket removed by a clean-up of
//! `/tmp`). It is no dead session: saying so, and forgetting it at `kill`, would leave its
//! shell running where no kpty sees it. Its pid comes from the registry, a file anyone who
//! can write the state directory controls, so it is believed only when the kernel vouches:
//! the process is this user's, runs kpty's holder, and has this session's own `holder.log`
//! (the file in this state directory, the same inode) open as its standard error — as the
//! launcher started every holder. No other process has that file there.

use crate::api::SessionId;
use crate::store::StateDir;
use rustix::process::Pid;
use std::os::unix::fs::MetadataExt;

/// The holder of session `id` of `state`, when the registry's `holder_pid` is provably it.
pub fn proven_holder(state: &StateDir, id: &SessionId, holder_pid: Option<u32>) -> Option<Pid> {
    let raw = holder_pid?;
    let pid = Pid::from_raw(i32::try_from(raw).ok()?)?;
    let proc_dir = std::path::PathBuf::from(format!("/proc/{raw}"));
    if std::fs::metadata(&proc_dir).ok()?.uid() != rustix::process::getuid().as_raw() {
        return None;
    }
    let cmdline = std::fs::read(proc_dir.join("cmdline")).ok()?;
    if cmdline.split(|b| *b == 0).nth(1) != Some(b"__holder".as_slice()) {
        return None;
    }
    let log = state.session_dir(id).join("holder.log");
    let ours = std::fs::symlink_metadata(&log).ok()?;
    if !ours.file_type().is_file() {
        return None;
    }
    // `stat` of the descriptor's link: the file the process has open, wherever it is.
    let theirs = std::fs::metadata(proc_dir.join("fd/2")).ok()?;
    (theirs.dev() == ours.dev() && theirs.ino() == ours.ino()).then_some(pid)
}

/// Why session `session` cannot be reached from here though its holder (`pid`) runs.
pub fn unreached(session: &str, pid: Pid) -> String {
    let here =
        crate::store::paths::runtime_dir().map_or_else(|e| e.message, |d| d.display().to_string());
    format!(
        "its holder (pid {pid}) is running, but its socket is in none of kpty's runtime \
         directories here ({here}, and the defaults): it was started with another \
         KPTY_RUNTIME_DIR, or its socket was removed; run kpty with that KPTY_RUNTIME_DIR to \
         reach it, or `kpty kill {session}` to end it",
        pid = pid.as_raw_nonzero()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process that is not a holder, or a holder whose standard error is not the
    /// session's log, is never taken for the session's holder — whatever pid the registry
    /// names: this test process, pid 1, a pid that does not exist, none.
    #[test]
    fn only_a_holder_with_the_sessions_log_open_is_believed() {
        let t = tempfile::tempdir().unwrap();
        let state = StateDir::at(t.path().join("ai/checkpoints/pty")).unwrap();
        let id = SessionId::parse("pty_0123abcd").unwrap();
        let dir = state.session_dir(&id);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("holder.log"), "").unwrap();
        for pid in [
            Some(std::process::id()),
            Some(1),
            Some(u32::MAX),
            Some(0),
            None,
        ] {
            assert_eq!(proven_holder(&state, &id, pid), None, "{pid:?}");
        }
    }
}
