//! Shell completion, dynamic: the scripts under completions/ (and `COMPLETE=bash kpty`) only
//! register kpty with the shell, which then asks kpty itself for candidates on every Tab
//! (`COMPLETE=bash kpty -- kpty talk -s …`; clap_complete's engine). So hidden subcommands
//! are never offered, and session ids and labels come from this state directory's registry.
//!
//! Candidates are read from the registry file only (no holder is contacted); any problem —
//! no state directory, a corrupt or tampered registry — means no candidates, never an error
//! printed into the command line.

use super::args::Cli;
use crate::store::StateDir;
use clap::CommandFactory;
use clap_complete::engine::{ArgValueCandidates, CompletionCandidate};
use clap_complete::env::CompleteEnv;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The state directory the command line being completed names (`--state-dir`), if any.
static STATE_DIR: OnceLock<Option<PathBuf>> = OnceLock::new();

/// Answer a completion request and exit, when this run is one: `COMPLETE=<shell>` set and
/// either no argument (print the registration script) or `--` followed by the words to
/// complete. Any other run returns at once.
pub fn answer_if_asked(argv: &[OsString]) {
    if std::env::var_os("COMPLETE").is_none_or(|v| v.is_empty() || v == "0") {
        return;
    }
    if argv.len() > 1 && argv[1] != "--" {
        return;
    }
    let _ = STATE_DIR.set(state_dir_in(argv));
    CompleteEnv::with_factory(Cli::command)
        .completer("kpty")
        .complete();
}

/// The registration script for `shell` (bash, zsh, fish, elvish, powershell), as
/// `COMPLETE=<shell> kpty` prints it.
pub fn registration(shell: &str) -> std::io::Result<Vec<u8>> {
    let shells = clap_complete::env::Shells::builtins();
    let Some(s) = shells.completer(shell) else {
        return Err(std::io::Error::other(format!("unknown shell {shell}")));
    };
    let mut buf = Vec::new();
    s.write_registration("COMPLETE", "kpty", "kpty", "kpty", &mut buf)?;
    Ok(buf)
}

/// `--state-dir DIR` or `--state-dir=DIR` among the words being completed (the last one wins,
/// as clap's would).
fn state_dir_in(argv: &[OsString]) -> Option<PathBuf> {
    let mut found = None;
    let mut words = argv.iter().skip_while(|a| *a != "--").skip(1);
    while let Some(w) = words.next() {
        let w = w.to_string_lossy();
        if w == "--state-dir" {
            found = words.next().map(PathBuf::from);
        } else if let Some(d) = w.strip_prefix("--state-dir=") {
            found = Some(PathBuf::from(d));
        }
    }
    found
}

/// The state directory to read: `--state-dir`, else `KPTY_STATE_DIR`, else discovered from the
/// working directory — as the command itself would pick it.
fn state_dir() -> Option<StateDir> {
    let given = STATE_DIR.get().cloned().flatten().or_else(|| {
        std::env::var_os("KPTY_STATE_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    });
    match given {
        Some(d) => StateDir::at(d).ok(),
        None => Some(StateDir::discover(&std::env::current_dir().ok()?)),
    }
}

/// Session ids and labels (for `-s/--session` and the SESSION arguments).
pub fn sessions() -> ArgValueCandidates {
    ArgValueCandidates::new(|| candidates(true))
}

/// Session labels (for `--label` naming a session).
pub fn labels() -> ArgValueCandidates {
    ArgValueCandidates::new(|| candidates(false))
}

/// The commands `kpty help COMMAND` knows (hidden ones left out).
pub fn commands() -> ArgValueCandidates {
    ArgValueCandidates::new(|| {
        Cli::command()
            .get_subcommands()
            .filter(|c| !c.is_hide_set())
            .map(|c| CompletionCandidate::new(c.get_name()).help(c.get_about().cloned()))
            .collect()
    })
}

/// Key names for `send-keys` (tmux's spelling).
pub fn keys() -> ArgValueCandidates {
    ArgValueCandidates::new(|| {
        crate::keys::completion_names()
            .into_iter()
            .map(CompletionCandidate::new)
            .collect()
    })
}

/// The action names the audit trail records (`kpty log --action`).
pub fn actions() -> ArgValueCandidates {
    ArgValueCandidates::new(|| {
        crate::api::Action::ALL
            .iter()
            .map(|a| CompletionCandidate::new(a.as_str()))
            .collect()
    })
}

fn candidates(with_ids: bool) -> Vec<CompletionCandidate> {
    let Some(sessions) = state_dir().and_then(|s| crate::core::handle::all(&s).ok()) else {
        return vec![];
    };
    let mut out = Vec::new();
    for h in &sessions {
        let label = h.label().filter(|l| is_plain(l));
        if let Some(l) = label {
            let help = format!("session {}", h.session_id());
            out.push(CompletionCandidate::new(l).help(Some(help.into())));
        }
        if with_ids && is_plain(h.session_id()) {
            let help = label.map(|l| format!("label {l}").into());
            out.push(CompletionCandidate::new(h.session_id()).help(help));
        }
    }
    out
}

/// A value safe to hand to a shell's completion: printable, no whitespace or control
/// characters (a hostile registry must not inject anything into the command line).
fn is_plain(s: &str) -> bool {
    !s.is_empty() && s.len() <= 200 && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_dir_is_read_from_the_words() {
        let argv = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(state_dir_in(&argv(&["kpty", "--", "kpty", "talk"])), None);
        assert_eq!(
            state_dir_in(&argv(&[
                "kpty",
                "--",
                "kpty",
                "--state-dir",
                "/a",
                "talk",
                "-s"
            ])),
            Some(PathBuf::from("/a"))
        );
        assert_eq!(
            state_dir_in(&argv(&[
                "kpty",
                "--",
                "kpty",
                "talk",
                "--state-dir=/b",
                "-s"
            ])),
            Some(PathBuf::from("/b"))
        );
    }

    #[test]
    fn only_plain_values_are_offered() {
        assert!(is_plain("build-1"));
        assert!(!is_plain("a b"));
        assert!(!is_plain("x\u{1b}[2J"));
        assert!(!is_plain(""));
    }
}
