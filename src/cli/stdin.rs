//! `kpty talk CMD` with a piped stdin: its bytes become CMD's standard input, then EOF, as
//! `ssh host CMD < file` does. They go through a private FIFO (mode 0600 in a fresh 0700
//! temporary directory) that the command reads as `eval 'CMD' < FIFO`, never through the
//! terminal: no echo, no line discipline (any size, binary bytes, no trailing newline
//! needed), and the dangerous-command check still judges CMD itself. A terminal, `/dev/null`
//! or a closed stdin forwards nothing: the command is typed exactly as before.

use crate::error::{Error, Result};
use std::io::IsTerminal;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A stdin being forwarded: the FIFO the command reads; removed when dropped.
pub struct Forward {
    _dir: TempDir,
    fifo: PathBuf,
}

impl Forward {
    /// The FIFO the command reads as its standard input.
    pub fn path(&self) -> &Path {
        &self.fifo
    }
}

/// Start forwarding this process's stdin, unless it is a terminal, `/dev/null` or closed.
/// A thread copies stdin into the FIFO once the command's shell opens it; a command that
/// never reads it leaves the thread waiting, which ends with kpty.
pub fn forward() -> Result<Option<Forward>> {
    if !has_input() {
        return Ok(None);
    }
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        Error::internal(format!("cannot forward stdin: {what}: {e}"))
    };
    let dir = tempfile::Builder::new()
        .prefix("kpty-stdin-")
        .tempdir()
        .map_err(|e| failed("temporary directory", &e))?;
    let fifo = dir.path().join("stdin");
    use rustix::fs::{CWD, Mode, mkfifoat};
    mkfifoat(CWD, &fifo, Mode::RUSR | Mode::WUSR).map_err(|e| failed("mkfifo", &e))?;
    let target = fifo.clone();
    std::thread::spawn(move || {
        // Opening blocks until the shell opens the FIFO to read; closing it is the EOF.
        if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&target) {
            // A command that stops reading early ends this with EPIPE.
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut f);
        }
    });
    Ok(Some(Forward { _dir: dir, fifo }))
}

/// Whether this process's stdin has input to forward: not a terminal, `/dev/null` or closed.
pub fn has_input() -> bool {
    let stdin = std::io::stdin();
    !(stdin.is_terminal() || nothing_to_forward(stdin.as_fd()))
}

/// `/dev/null` (nothing to read, as a CI job's stdin often is) or no stdin at all.
fn nothing_to_forward(fd: std::os::fd::BorrowedFd<'_>) -> bool {
    use rustix::fs::{FileType, fstat, stat};
    let Ok(st) = fstat(fd) else {
        return true;
    };
    let char_dev = FileType::from_raw_mode(st.st_mode) == FileType::CharacterDevice;
    char_dev && stat("/dev/null").is_ok_and(|null| null.st_rdev == st.st_rdev)
}
