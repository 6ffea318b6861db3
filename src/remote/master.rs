//! The connection to a host: one ssh ControlMaster a host, started by the first call (which
//! waits for it, with a deadline, and says why it failed: `HOST_UNREACHABLE` with ssh's own
//! words — unreachable, refused, authentication, a changed host key) and reused by every call
//! after it until it has been idle for [`super::PERSIST`].

use super::{Host, ssh, unreachable};
use crate::error::Result;
use std::io::Read;
use std::process::{Child, Stdio};
use std::time::Duration;

/// Make sure a connection to `host` is open.
pub fn ensure(host: &Host) -> Result<()> {
    let mut check = ssh()?;
    check
        .args(["-O", "check", host.as_str()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if check.status().is_ok_and(|s| s.success()) {
        return Ok(());
    }
    // The first command over a new master starts it; ControlPersist keeps it after.
    let mut open = ssh()?;
    open.args([host.as_str(), "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let child = open
        .spawn()
        .map_err(|e| unreachable(host, &format!("cannot run ssh: {e}")))?;
    let deadline = super::connect_timeout() * 2 + Duration::from_secs(5);
    let (ok, said) = finish(child, deadline);
    if ok {
        Ok(())
    } else {
        Err(unreachable(host, &said))
    }
}

/// Wait for `child` (its stderr piped) until `deadline`; whether it succeeded, and what it
/// said on stderr. Past the deadline it is killed. The end of its stderr, then its exit, are
/// the events waited on (a master that goes to the background closes our end).
pub fn finish(mut child: Child, deadline: Duration) -> (bool, String) {
    let mut err = child.stderr.take();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut said = String::new();
        if let Some(e) = err.as_mut() {
            let _ = e.take(64 * 1024).read_to_string(&mut said);
        }
        let _ = tx.send(said);
    });
    match rx.recv_timeout(deadline) {
        Ok(said) => {
            let ok = child.wait().is_ok_and(|s| s.success());
            (ok, said)
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            (false, format!("no answer within {} s", deadline.as_secs()))
        }
    }
}
