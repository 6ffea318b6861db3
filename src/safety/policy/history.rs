//! History tampering: erasing what a session did from the shell's history — clearing or
//! deleting entries (`history -c`, `history -d N`, fish's `history clear`), turning history
//! off (`unset HISTFILE`, `HISTFILE=/dev/null`, `HISTSIZE=0`, `set +o history`), and writing,
//! truncating, linking over or removing a history file.
//!
//! Reading history stays fine (`history | tail`, `grep x ~/.bash_history`), and so do the
//! usual settings (`HISTSIZE=10000`, `HISTFILE=~/.my_history`, `history -a`).

use super::args::Args;
use super::catalog::Rule;
use super::catalog::{HISTORY_CLEAR, HISTORY_DISABLE, HISTORY_FILE};
use super::field::{Field, UNKNOWN};
use super::paths::{components, glob_match};
use super::state::Eval;

/// History files: the components that end their path.
const FILES: &[&[&str]] = &[
    &[".bash_history"],
    &[".zsh_history"],
    &[".zhistory"],
    &[".histfile"],
    &[".sh_history"],
    &[".history"],
    &["fish", "fish_history"],
    &[".python_history"],
    &[".mysql_history"],
    &[".psql_history"],
    &[".node_repl_history"],
    &[".sqlite_history"],
];

/// Whether a path names a history file (globs included: `~/.*_history`).
#[must_use]
fn is_history(f: &Field, cwd: Option<&str>) -> bool {
    let (_, parts) = components(f, cwd);
    FILES.iter().any(|file| {
        parts.len() >= file.len()
            && parts[parts.len() - file.len()..]
                .iter()
                .zip(file.iter())
                .all(|(p, want)| glob_match(p, want) && (p == want || has_letter(p)))
    })
}

fn has_letter(p: &str) -> bool {
    p.chars().any(|c| c.is_ascii_alphabetic())
}

/// The rule a write to this path breaks, if it is a history file.
#[must_use]
pub fn file(f: &Field, cwd: Option<&str>) -> Option<&'static Rule> {
    is_history(f, cwd).then_some(&HISTORY_FILE)
}

/// Commands that clear history, turn it off, or remove a history file.
pub fn command(e: &Eval, name: &str, args: &[Field]) -> Option<&'static Rule> {
    let texts: Vec<&str> = args.iter().map(|f| f.text.as_str()).collect();
    let cwd = e.cwd.as_deref();
    match name {
        "history" => {
            let a = Args::parse(args, &[]);
            let clears = a.flag('c', &["--clear"])
                || a.flag('d', &["--delete"])
                || texts
                    .first()
                    .is_some_and(|t| matches!(*t, "clear" | "delete" | "clear-session"));
            clears.then_some(&HISTORY_CLEAR)
        }
        "unset" => texts.contains(&"HISTFILE").then_some(&HISTORY_DISABLE),
        "set" | "shopt" => texts
            .windows(2)
            .any(|w| matches!(w[0], "+o" | "-u") && w[1] == "history")
            .then_some(&HISTORY_DISABLE),
        "rm" | "shred" | "unlink" | "srm" | "wipe" => args
            .iter()
            .any(|f| is_history(f, cwd))
            .then_some(&HISTORY_FILE),
        "mv" => {
            // Moving a history file away loses it as surely as removing it.
            let a = Args::parse(args, &["-t", "-S"]);
            let sources = &a.operands[..a.operands.len().saturating_sub(1)];
            sources
                .iter()
                .any(|f| is_history(f, cwd))
                .then_some(&HISTORY_FILE)
        }
        _ => None,
    }
}

/// An assignment that turns history off: `HISTFILE` to nothing or `/dev/null`, a history
/// size of 0, `HISTIGNORE` matching everything.
#[must_use]
pub fn assignment(name: &str, value: &str) -> Option<&'static Rule> {
    if value.contains(UNKNOWN) {
        return None;
    }
    let v = value.trim();
    let off = match name {
        "HISTFILE" => v.is_empty() || v == "/dev/null",
        "HISTSIZE" | "HISTFILESIZE" | "SAVEHIST" => v == "0",
        "HISTIGNORE" => v.split(':').any(|p| p == "*"),
        _ => false,
    };
    off.then_some(&HISTORY_DISABLE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_files() {
        for p in [
            "~/.bash_history",
            "/root/.bash_history",
            "~/.local/share/fish/fish_history",
            "~/.*_history",
            ".zsh_history",
        ] {
            let f = Field {
                text: p.into(),
                pattern: p.into(),
            };
            assert!(is_history(&f, None), "{p}");
        }
        for p in ["~/.bashrc", "history.txt", "~/notes/bash_history.md"] {
            assert!(!is_history(&Field::literal(p), None), "{p}");
        }
    }

    #[test]
    fn assignments() {
        assert!(assignment("HISTFILE", "/dev/null").is_some());
        assert!(assignment("HISTFILE", "").is_some());
        assert!(assignment("HISTSIZE", "0").is_some());
        assert!(assignment("HISTSIZE", "10000").is_none());
        assert!(assignment("HISTFILE", "~/.my_history").is_none());
        assert!(assignment("PATH", "").is_none());
    }
}
