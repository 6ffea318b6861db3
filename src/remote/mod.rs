//! Sessions on other machines, over OpenSSH: `kpty --host HOST VERB …` runs the verb by the
//! kpty on HOST, whose sessions, policy, redaction and audit are that machine's. The engine is
//! the system `ssh` with the user's own configuration (`KPTY_SSH_COMMAND` replaces it, as
//! `GIT_SSH_COMMAND` does for git); kpty never weakens it — no host-key bypass, no forwarding
//! the user's config does not ask for. One connection per host is kept open by ssh itself
//! (a ControlMaster under kpty's runtime directory, kept [`PERSIST`] after its last use), so a
//! call after the first costs a round trip, not a handshake ([`master`]). The kpty on the
//! host is this very build, copied there on first use when it has none.

pub mod action;
pub mod channel;
mod fair;
pub mod hosts;
mod install;
pub mod join;
pub mod master;
pub mod mux;
mod piped;
pub mod run;
pub mod server;
pub mod wire;
mod workers;

use crate::error::{Error, ErrorCode, Result};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// How long an idle connection to a host is kept open.
pub const PERSIST: Duration = Duration::from_secs(600);

/// A host as `ssh` names it: an alias from `~/.ssh/config`, `user@host`, or
/// `ssh://user@host:port` — checked so it can never be read as one of ssh's options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host(String);

impl Host {
    /// `name`, checked: not empty, no leading `-`, no whitespace or control characters, at
    /// most 255 bytes.
    pub fn parse(name: &str) -> Result<Self> {
        let ok = !name.is_empty()
            && name.len() <= 255
            && !name.starts_with('-')
            && !name.chars().any(|c| c.is_whitespace() || c.is_control());
        if !ok {
            return Err(Error::invalid(format!(
                "{name:?} is not a host ssh could name (an alias, user@host or ssh://user@host:port)"
            )));
        }
        Ok(Self(name.to_string()))
    }

    /// The name as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The `ssh` to run: `KPTY_SSH_COMMAND` split as a shell would (e.g. `ssh -F ./config`), else
/// `ssh` on the PATH.
fn ssh_program() -> Result<Vec<String>> {
    match crate::api::config::var("KPTY_SSH_COMMAND") {
        Some(c) if !c.trim().is_empty() => {
            shlex::split(&c).filter(|w| !w.is_empty()).ok_or_else(|| {
                Error::invalid(format!("KPTY_SSH_COMMAND {c:?} does not split into words"))
            })
        }
        _ => Ok(vec!["ssh".to_string()]),
    }
}

/// Where this user's connections to hosts are kept: a short folder in the runtime directory
/// (a socket path is limited to 108 bytes; `%C` is ssh's hash of the connection).
fn control_path() -> Result<PathBuf> {
    let dir = crate::store::paths::runtime_dir()?.join("ssh");
    crate::store::secure::ensure_dir(&dir)?;
    Ok(dir.join("%C"))
}

/// `ssh` with the connection-sharing options; the host and the command follow.
pub fn ssh() -> Result<Command> {
    let words = ssh_program()?;
    let mut c = Command::new(&words[0]);
    c.args(&words[1..]);
    let path = control_path()?;
    c.arg("-o")
        .arg(format!("ControlPath={}", path.display()))
        .arg("-o")
        .arg("ControlMaster=auto")
        .arg("-o")
        .arg(format!("ControlPersist={}", PERSIST.as_secs()))
        .arg("-o")
        .arg(format!(
            "ConnectTimeout={}",
            connect_timeout().as_secs().max(1)
        ));
    Ok(c)
}

/// The directory verbs run in on a host when `--remote-dir` is not given
/// (`KPTY_REMOTE_DIR`; else the login's home).
pub fn remote_dir() -> Option<String> {
    crate::api::config::var("KPTY_REMOTE_DIR").filter(|d| !d.trim().is_empty())
}

/// How long a connection may take (`KPTY_SSH_CONNECT_TIMEOUT` seconds, else 10).
pub fn connect_timeout() -> Duration {
    crate::api::config::var("KPTY_SSH_CONNECT_TIMEOUT")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|s| (1..=300).contains(s))
        .map_or(Duration::from_secs(10), Duration::from_secs)
}

/// `HOST_UNREACHABLE` for `host`, with what ssh said.
pub fn unreachable(host: &Host, said: &str) -> Error {
    let said = said.trim();
    Error::new(
        ErrorCode::HostUnreachable,
        if said.is_empty() {
            format!("cannot reach {host} over ssh")
        } else {
            format!("cannot reach {host} over ssh: {said}")
        },
    )
}

/// What a host's end of a channel says first: this kpty's version and the channel's
/// protocol.
fn hello() -> String {
    format!("kpty {} channel 1", env!("CARGO_PKG_VERSION"))
}

/// Why a host's kpty did not answer a channel: too old to have one (it did not know the
/// verb), else unreachable, with what ssh said.
fn too_old_or_unreachable(host: &Host, kpty: &str, said: &str) -> Error {
    let unknown = [
        "unrecognized subcommand",
        "unexpected argument",
        "invalid value",
    ];
    if unknown.iter().any(|u| said.contains(u)) {
        return Error::new(
            ErrorCode::HostUnreachable,
            format!(
                "the kpty on {host} ({kpty}) is too old for this kpty {}: remove it there to let \
                 kpty install this build, or install kpty {} there yourself",
                env!("CARGO_PKG_VERSION"),
                env!("CARGO_PKG_VERSION"),
            ),
        );
    }
    unreachable(host, said)
}

/// `words` as one remote command line: each quoted for the remote POSIX shell.
pub fn shell_line(words: &[String]) -> String {
    words
        .iter()
        .map(|w| shlex::try_quote(w).map_or_else(|_| "''".to_string(), |q| q.into_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_is_never_an_option_or_two_words() {
        for good in [
            "box",
            "user@box",
            "ssh://user@box:2222",
            "gpu-01.lab",
            "[::1]",
        ] {
            assert!(Host::parse(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "-oProxyCommand=x",
            "a b",
            "a\nb",
            "a\tb",
            &"x".repeat(256),
        ] {
            assert!(Host::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_kpty_there_that_does_not_know_the_channel_is_called_too_old() {
        let h = Host::parse("box").unwrap();
        let old =
            too_old_or_unreachable(&h, "~/bin/kpty", "error: unrecognized subcommand '__mux'");
        assert_eq!(old.code, ErrorCode::HostUnreachable);
        assert!(old.message.contains("too old"), "{}", old.message);
        assert!(
            old.message.contains("to let kpty install this build"),
            "{}",
            old.message
        );
        let gone = too_old_or_unreachable(&h, "~/bin/kpty", "Connection refused");
        assert!(
            gone.message.contains("Connection refused"),
            "{}",
            gone.message
        );
        assert!(!gone.message.contains("too old"));
    }

    proptest::proptest! {
        /// Any words survive the remote shell as they were.
        #[test]
        fn a_shell_line_splits_back_into_its_words(words in proptest::collection::vec("[^\u{0}]{0,12}", 0..6)) {
            let line = shell_line(&words);
            let back = shlex::split(&line).unwrap_or_default();
            proptest::prop_assert_eq!(back, words);
        }
    }
}
