//! Reverse shells: a shell or interpreter whose input and output are a network connection.
//! The forms: `/dev/tcp` and `/dev/udp` redirections of a shell, an interpreter or `exec`;
//! netcat's program options; socat's `exec:`/`system:` addresses beside a network address; a
//! pipeline in which a network client and a shell reading its standard input meet (the
//! `mkfifo` loop); interpreter one-liners that open a socket and spawn or duplicate.
//!
//! Connections alone are fine: `nc -z host 80`, `echo > /dev/tcp/host/80` (a port probe),
//! `exec 3<>/dev/tcp/host/80` (a socket in the shell, until a shell's input is taken from it),
//! `socat TCP-LISTEN:8080 TCP:localhost:80`, `cat f | nc host 9000`.

use super::catalog::Rule;
use super::catalog::{DEV_TCP_SHELL, NETCAT_EXEC, PIPE_SHELL, SOCAT_EXEC};
use super::field::Field;
use super::paths::components;
use super::redirects::{Io, Redirect};
use super::state::{Eval, Stage};
use super::words::command_name;

/// Network clients whose stream can carry a shell's input or output.
pub const CLIENTS: &[&str] = &[
    "nc",
    "ncat",
    "netcat",
    "nc.traditional",
    "nc.openbsd",
    "socat",
    "telnet",
    "cryptcat",
    "openssl",
    "pwncat",
];

const NETCATS: &[&str] = &[
    "nc",
    "ncat",
    "netcat",
    "nc.traditional",
    "nc.openbsd",
    "cryptcat",
    "pwncat",
];

/// Programs that run what they read, or a command line, as code.
const RUNNERS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "ash",
    "yash",
    "posh",
    "fish",
    "csh",
    "tcsh",
    "rbash",
    "exec",
    "python",
    "python2",
    "python3",
    "perl",
    "ruby",
    "php",
    "node",
    "lua",
    "busybox",
    "pwsh",
    "powershell",
];

/// Whether a path is a bash network pseudo-device (`/dev/tcp/HOST/PORT`, `/dev/udp/…`).
#[must_use]
fn is_socket_path(f: &Field, cwd: Option<&str>) -> bool {
    let (base_home, parts) = components(f, cwd);
    base_home == Some(false)
        && parts.len() >= 2
        && parts[0] == "dev"
        && matches!(parts[1].as_str(), "tcp" | "udp")
}

/// A simple command's redirections onto `/dev/tcp` or `/dev/udp` (or onto a descriptor an
/// earlier `exec N<>/dev/tcp/…` opened) when it runs code: a shell, an interpreter, or `exec`
/// with a program. `exec N<>/dev/tcp/…` alone opens a socket in the shell (a port probe, a
/// hand-made HTTP request): it is remembered, not refused.
pub fn redirected(e: &mut Eval, argv: &[Field], redirs: &[Redirect], shown: &str) {
    let cwd = e.cwd.clone();
    let sockets: Vec<&Redirect> = redirs
        .iter()
        .filter(|r| is_socket_path(&r.target, cwd.as_deref()))
        .collect();
    if argv.len() == 1 && command_name(&argv[0].text) == "exec" {
        let fds = sockets.iter().filter_map(|r| r.fd).map(|fd| fd.to_string());
        e.socket_fds.extend(fds);
        return;
    }
    let on_socket_fd = redirs
        .iter()
        .any(|r| r.io == Io::Dup && e.socket_fds.contains(&r.target.text));
    if sockets.is_empty() && !on_socket_fd {
        return;
    }
    // A command name the policy cannot know (`$line` read from the socket) runs anything.
    let runs_code = argv.first().is_some_and(Field::has_unknown)
        || argv.iter().any(|a| {
            let n = command_name(&a.text);
            RUNNERS.contains(&n.as_str()) || n.starts_with("python") || n.starts_with("perl")
        });
    if runs_code {
        e.block(&DEV_TCP_SHELL, shown);
    }
}

/// netcat's and socat's program options.
#[must_use]
pub fn command(name: &str, args: &[Field]) -> Option<&'static Rule> {
    let texts: Vec<&str> = args.iter().map(|f| f.text.as_str()).collect();
    if NETCATS.contains(&name) {
        let exec = texts.iter().any(|t| {
            matches!(*t, "-e" | "-c" | "--exec" | "--sh-exec" | "--lua-exec")
                || ["--exec=", "--sh-exec=", "--lua-exec="]
                    .iter()
                    .any(|p| t.starts_with(p))
                || (t.starts_with('-') && !t.starts_with("--") && t.len() > 2 && t.ends_with('e'))
        });
        return exec.then_some(&NETCAT_EXEC);
    }
    if name == "socat" {
        let lower: Vec<String> = texts.iter().map(|t| t.to_ascii_lowercase()).collect();
        let program = lower
            .iter()
            .any(|t| t.starts_with("exec:") || t.starts_with("system:"));
        let network = lower.iter().any(|t| {
            [
                "tcp", "udp", "sctp", "openssl", "ssl", "socks", "proxy", "vsock", "dccp",
            ]
            .iter()
            .any(|p| t.starts_with(p))
        });
        return (program && network).then_some(&SOCAT_EXEC);
    }
    None
}

/// The pipeline rule: a network client and a shell reading standard input in one pipeline.
pub fn pipeline(e: &mut Eval, stages: &[Stage], shown: &str) {
    if stages.contains(&Stage::Client) && stages.contains(&Stage::ShellReadingStdin) {
        e.block(&PIPE_SHELL, shown);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn socket_paths() {
        for p in [
            "/dev/tcp/10.0.0.1/4444",
            "/dev/udp/h/53",
            "/dev/../dev/tcp/h/1",
        ] {
            assert!(is_socket_path(&Field::literal(p), None), "{p}");
        }
        for p in ["/dev/null", "./dev/tcp/x", "/tmp/dev/tcp", "tcp"] {
            assert!(!is_socket_path(&Field::literal(p), None), "{p}");
        }
    }
}
