//! Starting a holder: spawn `kpty __holder` detached (setsid, stdin = the spec, stdout = the
//! ready pipe, stderr = `holder.log`) and wait for its one ready-or-error line.

use super::Ctx;
use crate::error::{Error, ErrorCode, Result};
use crate::proto::launch::{HOLDER_MALLOC_ENV, HolderSpec, Ready};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Start a holder for `spec` and wait until its shell is ready (or it failed).
pub fn start_holder(ctx: &Ctx, spec: &HolderSpec, log: &std::path::Path) -> Result<Ready> {
    let fail = |m: String| Error::new(ErrorCode::PtySpawnFailed, m);
    ctx.state.verify(log)?;
    let log_file = crate::store::secure::open_append(log)?;
    let mut cmd = Command::new(&ctx.exe);
    cmd.arg("__holder")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log_file));
    // glibc's malloc raises its mmap threshold after big buffers are freed and then keeps
    // later big buffers (a talk's multi-megabyte capture) in a heap it never returns: pin the
    // threshold and cap arenas so a long-lived holder gives that memory back.
    for (k, v) in HOLDER_MALLOC_ENV {
        cmd.env(k, v);
    }
    crate::sys::setsid_on_spawn(&mut cmd);
    let mut child = cmd.spawn().map_err(|e| {
        fail(format!(
            "cannot start the session holder {}: {e}",
            ctx.exe.display()
        ))
    })?;
    let spec_json = serde_json::to_vec(spec).map_err(|e| Error::internal(e.to_string()))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(&spec_json)
            .map_err(|e| fail(format!("cannot hand the spec to the holder: {e}")))?;
    }
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| fail("the holder has no stdout".into()))?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let r = BufReader::new(stdout).read_line(&mut line).map(|_| line);
        let _ = tx.send(r);
    });
    // Reap the holder if it exits while we live (a long-lived MCP server must not collect
    // zombies); when we exit first, init adopts it.
    let wait = Duration::from_millis(spec.ready_timeout_ms + 5_000);
    let line = rx.recv_timeout(wait);
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    let line = match line {
        Ok(Ok(l)) => l,
        Ok(Err(e)) => return Err(fail(format!("reading the holder's ready line failed: {e}"))),
        Err(_) => {
            return Err(fail(format!(
                "the holder did not report ready within {} ms; see {}",
                wait.as_millis(),
                log.display()
            )));
        }
    };
    if line.trim().is_empty() {
        let tail = crate::store::secure::read(log)
            .ok()
            .flatten()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let tail: Vec<&str> = tail.lines().rev().take(5).collect();
        return Err(fail(format!(
            "the holder exited before it was ready; last log lines: {}",
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        )));
    }
    let ready: Ready = serde_json::from_str(line.trim())
        .map_err(|e| fail(format!("malformed ready line from the holder: {e}")))?;
    if ready.ok {
        Ok(ready)
    } else {
        Err(ready
            .error
            .unwrap_or_else(|| fail("the holder failed without saying why".into())))
    }
}
