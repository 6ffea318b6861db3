//! `kpty __sandbox-exec -- PROGRAM ARGS…`: the holder starts a sandboxed session's shell
//! through this re-exec of kpty (portable-pty has no pre-exec hook). It reads the [`Policy`]
//! from [`POLICY_ENV`], restricts itself, removes the variable and execs the program, which
//! inherits the restriction with everything it starts. The request's own environment
//! ([`SESSION_ENV`]) is set only then, so `LD_PRELOAD` cannot run code in kpty before. First it enters its own mount
//! namespace where kpty's sockets and state are hidden (`super::namespace`). When the
//! sandbox cannot be enforced it says why on stderr (the session's terminal: a
//! `kpty sandbox: MESSAGE` line, then `kpty sandbox reason: WORD`) and exits with
//! [`REFUSED_EXIT_CODE`]: it never runs the program unconfined.

use super::{POLICY_ENV, Policy, REFUSED_EXIT_CODE, SESSION_ENV, apply};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;

/// The subcommand name `kpty::run` dispatches on.
pub const SUBCOMMAND: &str = "__sandbox-exec";

/// The prefix of the line that names why the sandbox was refused (a machine word).
pub const REASON_PREFIX: &str = "kpty sandbox reason: ";

/// Why the program was not run: a machine word for `details.reason`, and a message.
type Refusal = (&'static str, String);

/// Entry point: `args` are the process's arguments after `__sandbox-exec`. Returns only on
/// failure (the exit code).
pub fn main(args: &[OsString]) -> i32 {
    match run(args) {
        Ok(never) => match never {},
        Err((reason, msg)) => {
            eprintln!("kpty sandbox: {msg}");
            eprintln!("{REASON_PREFIX}{reason}");
            REFUSED_EXIT_CODE
        }
    }
}

fn run(args: &[OsString]) -> Result<std::convert::Infallible, Refusal> {
    let refused = |m: String| ("sandbox_not_enforced", m);
    let rest = match args.split_first() {
        Some((dashes, rest)) if dashes == "--" && !rest.is_empty() => rest,
        _ => {
            return Err(refused(
                "usage: kpty __sandbox-exec -- PROGRAM [ARGS…]".into(),
            ));
        }
    };
    let json =
        std::env::var(POLICY_ENV).map_err(|_| refused(format!("{POLICY_ENV} is not set")))?;
    let policy: Policy =
        serde_json::from_str(&json).map_err(|e| refused(format!("malformed {POLICY_ENV}: {e}")))?;
    // The request's environment waits until the sandbox holds (see [`SESSION_ENV`]).
    let session_env: std::collections::BTreeMap<String, String> = match std::env::var(SESSION_ENV) {
        Ok(j) => serde_json::from_str(&j)
            .map_err(|e| refused(format!("malformed {SESSION_ENV}: {e}")))?,
        Err(_) => Default::default(),
    };
    let pty = rustix::termios::ttyname(std::io::stdin(), Vec::new())
        .ok()
        .map(|n| PathBuf::from(OsString::from_vec(n.into_bytes())));
    #[cfg(target_os = "linux")]
    super::namespace::enter(&policy)?;
    apply::restrict(&policy, pty.as_deref()).map_err(refused)?;
    let err = std::process::Command::new(&rest[0])
        .args(&rest[1..])
        .env_remove(POLICY_ENV)
        .env_remove(SESSION_ENV)
        .envs(&session_env)
        .exec();
    Err(refused(format!(
        "cannot run {}: {err}",
        rest[0].to_string_lossy()
    )))
}
