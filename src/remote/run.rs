//! A CLI verb run by the kpty on a host: `kpty --host HOST VERB …` becomes `VERB …` there,
//! with this process's standard input (when it has some), output and error, and the remote
//! verb's exit code. It travels over the host's channel ([`super::channel`]), or as an ssh
//! command of its own when there is none. `attach` and `replay` get a terminal of their own
//! (`ssh -t` over the host's connection), so their keys, size changes and detach key work as
//! they do at home. The local audit trail records that
//! the call was made (host, verb, exit code); the verb's own audit is the host's.

use super::{Host, master, shell_line};
use crate::error::{Error, Result};
use std::process::Stdio;

/// The verbs that make no sense on another machine (they serve, or configure this one).
const LOCAL_ONLY: &[&str] = &["mcp", "serve", "console", "hosts", "help"];
/// The verbs that need a terminal there.
const TERMINAL: &[&str] = &["attach", "replay"];

/// Run `args` (a verb and its arguments, no `--host`) by the kpty on `host`; its exit code.
/// `remote_dir`: the directory the verb runs in there (its project: its state directory),
/// else the login's home. `stdin`: this process's stdin has input for the verb (not a
/// terminal, not `/dev/null`).
pub fn argv(host: &Host, args: &[String], remote_dir: Option<&str>, stdin: bool) -> Result<i32> {
    let verb = args
        .iter()
        .find(|a| !a.starts_with('-'))
        .map(String::as_str)
        .unwrap_or("");
    if LOCAL_ONLY.contains(&verb) {
        return Err(Error::invalid(format!(
            "`kpty {verb}` runs on this machine; --host is for the session verbs (talk, list, attach …)"
        )));
    }
    let env_dir = super::remote_dir();
    let dir = remote_dir.or(env_dir.as_deref());
    if !TERMINAL.contains(&verb)
        && let Some(stream) = super::channel::connect(host, dir)?
    {
        return super::channel::verb(host, stream, args, stdin);
    }
    master::ensure(host)?;
    let kpty = super::install::ensure(host)?;
    let mut line = String::new();
    if let Some(d) = dir {
        line.push_str(&format!("cd {} && ", shell_line(&[d.to_string()])));
    }
    line.push_str(&format!("exec {kpty} {}", shell_line(args)));
    let mut c = super::ssh()?;
    if TERMINAL.contains(&verb) {
        c.arg("-t");
    }
    c.arg(host.as_str())
        .arg(line)
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit());
    let status = c
        .status()
        .map_err(|e| super::unreachable(host, &format!("cannot run ssh: {e}")))?;
    match status.code() {
        // ssh's own failure: the connection went away under the verb.
        Some(255) => Err(super::channel::dropped(host, &format!("`kpty {verb}`"))),
        Some(code) => Ok(code),
        None => Ok(130),
    }
}

/// What `kpty --host HOST [--remote-dir DIR] VERB …` asks: the host, the remote directory,
/// and the arguments for the host's kpty (the two options taken out; they are read only
/// before the verb, so a command's own words are never touched).
pub fn split_argv(argv: &[String]) -> (Option<String>, Option<String>, Vec<String>) {
    let (mut host, mut dir, mut rest) = (None, None, Vec::new());
    let mut i = 0;
    let mut before_verb = true;
    while i < argv.len() {
        let a = &argv[i];
        if before_verb {
            if let Some(v) = a.strip_prefix("--host=") {
                host = Some(v.to_string());
                i += 1;
                continue;
            }
            if let Some(v) = a.strip_prefix("--remote-dir=") {
                dir = Some(v.to_string());
                i += 1;
                continue;
            }
            if (a == "--host" || a == "--remote-dir") && i + 1 < argv.len() {
                let v = Some(argv[i + 1].clone());
                if a == "--host" {
                    host = v;
                } else {
                    dir = v;
                }
                i += 2;
                continue;
            }
            if a == "--state-dir" && i + 1 < argv.len() {
                rest.push(a.clone());
                rest.push(argv[i + 1].clone());
                i += 2;
                continue;
            }
            if !a.starts_with('-') {
                before_verb = false;
            }
        }
        rest.push(a.clone());
        i += 1;
    }
    (host, dir, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn host_options_are_taken_before_the_verb_only() {
        let (h, d, rest) = split_argv(&v(&["--host", "box", "--json", "talk", "--host", "x"]));
        assert_eq!((h.as_deref(), d), (Some("box"), None));
        assert_eq!(rest, v(&["--json", "talk", "--host", "x"]));
        let (h, d, rest) = split_argv(&v(&[
            "--state-dir",
            "talk",
            "--host=b",
            "--remote-dir=/w",
            "list",
        ]));
        assert_eq!((h.as_deref(), d.as_deref()), (Some("b"), Some("/w")));
        assert_eq!(rest, v(&["--state-dir", "talk", "list"]));
    }
}
