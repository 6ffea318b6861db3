//! `kpty __sandbox-exec -- PROGRAM ARGS…`: the holder starts a sandboxed session's shell
//! through this re-exec of kpty (portable-pty has no pre-exec hook). It reads the [`Policy`]
//! from [`POLICY_ENV`], restricts itself, removes the variable and execs the program, which
//! inherits the restriction with everything it starts. When the sandbox cannot be enforced it
//! says why on stderr (the session's terminal) and exits with [`REFUSED_EXIT_CODE`]: it never
//! runs the program unconfined.

use super::{POLICY_ENV, Policy, REFUSED_EXIT_CODE, apply};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;

/// The subcommand name `kpty::run` dispatches on.
pub const SUBCOMMAND: &str = "__sandbox-exec";

/// Entry point: `args` are the process's arguments after `__sandbox-exec`. Returns only on
/// failure (the exit code).
pub fn main(args: &[OsString]) -> i32 {
    match run(args) {
        Ok(never) => match never {},
        Err(msg) => {
            eprintln!("kpty sandbox: {msg}");
            REFUSED_EXIT_CODE
        }
    }
}

fn run(args: &[OsString]) -> Result<std::convert::Infallible, String> {
    let rest = match args.split_first() {
        Some((dashes, rest)) if dashes == "--" && !rest.is_empty() => rest,
        _ => return Err("usage: kpty __sandbox-exec -- PROGRAM [ARGS…]".into()),
    };
    let json = std::env::var(POLICY_ENV).map_err(|_| format!("{POLICY_ENV} is not set"))?;
    let policy: Policy =
        serde_json::from_str(&json).map_err(|e| format!("malformed {POLICY_ENV}: {e}"))?;
    let pty = rustix::termios::ttyname(std::io::stdin(), Vec::new())
        .ok()
        .map(|n| PathBuf::from(OsString::from_vec(n.into_bytes())));
    apply::restrict(&policy, pty.as_deref())?;
    let err = std::process::Command::new(&rest[0])
        .args(&rest[1..])
        .env_remove(POLICY_ENV)
        .exec();
    Err(format!("cannot run {}: {err}", rest[0].to_string_lossy()))
}
