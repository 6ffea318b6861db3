//! What git says about a session's working directory, for an evidence pack: its status and
//! the diff made in the pack's range. The directory's repository is the user's (the session
//! works in it), but its configuration is not trusted to run anything: no fsmonitor, no
//! hooks, no external diff or text conversion, no pager, no optional locks — and every call
//! has a deadline.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The longest a git call may take.
const DEADLINE: Duration = Duration::from_secs(10);
/// The most output kept from one call (a diff beyond it is cut, and says so).
const MAX_OUT: usize = 4 << 20;

/// A point to diff from: the working tree as it stood (`git stash create` makes a commit of
/// it without touching anything; HEAD when nothing was changed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base(pub String);

/// Run git in `dir` with `args`; its standard output, or `None` when it failed or is not a
/// work tree.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let mut child = Command::new("git")
        .args([
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "core.untrackedCache=false",
            "-c",
            "diff.external=",
            "--no-pager",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut out = child.stdout.take()?;
    // The output's end (git closing its side as it exits) is the event waited on, with a
    // deadline; past it, git is killed.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::Read;
        let mut buf = Vec::new();
        let _ = (&mut out).take(MAX_OUT as u64 + 1).read_to_end(&mut buf);
        // Drain the rest so git is not stuck on a full pipe.
        let _ = std::io::copy(&mut out, &mut std::io::sink());
        let _ = tx.send(buf);
    });
    let Ok(mut buf) = rx.recv_timeout(DEADLINE) else {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    };
    if !child.wait().ok()?.success() {
        return None;
    }
    let cut = buf.len() > MAX_OUT;
    buf.truncate(MAX_OUT);
    let mut text = String::from_utf8_lossy(&buf).into_owned();
    if cut {
        text.push_str("\n[kpty: cut at 4 MiB]\n");
    }
    Some(text)
}

/// Whether `dir` is inside a git work tree.
pub fn is_work_tree(dir: &Path) -> bool {
    git(dir, &["rev-parse", "--is-inside-work-tree"]).is_some_and(|o| o.trim() == "true")
}

/// The working tree as it stands now, to diff against later.
pub fn base(dir: &Path) -> Option<Base> {
    if !is_work_tree(dir) {
        return None;
    }
    let stash = git(dir, &["stash", "create"]).map(|s| s.trim().to_string());
    match stash.filter(|s| !s.is_empty()) {
        Some(s) => Some(Base(s)),
        None => git(dir, &["rev-parse", "--verify", "HEAD"]).map(|h| Base(h.trim().to_string())),
    }
}

/// `git status` (short form, with the branch) of `dir`.
pub fn status(dir: &Path) -> Option<String> {
    git(
        dir,
        &["status", "--short", "--branch", "--untracked-files=all"],
    )
}

/// The diff from `base` (or from HEAD, when the range's start was not seen) to the working
/// tree of `dir`, tracked files only.
pub fn diff(dir: &Path, base: Option<&Base>) -> Option<String> {
    let from = base.map_or("HEAD", |b| b.0.as_str());
    if from.is_empty() || !from.bytes().all(|b| b.is_ascii_hexdigit()) && from != "HEAD" {
        return None;
    }
    git(
        dir,
        &["diff", "--no-ext-diff", "--no-textconv", "--no-color", from],
    )
}
