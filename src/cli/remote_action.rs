//! The host's side of an action ([`crate::remote::action`]), run by this machine's core with
//! the caller's channel (redaction and the talk cap are the caller's): [`answer`] for each
//! call a host's channel carries ([`crate::remote::server`]), and `kpty __action` for a call
//! made as an ssh command of its own (one call on stdin, its JSON answer on stdout).

use crate::api::Action;
use crate::core::running::Running;
use crate::error::Error;
use crate::remote::action::Call;
use crate::remote::server::Caller;
use serde_json::Value;
use std::io::{Read, Write};
use std::time::Duration;

/// The shortest interval between a remote talk's progress reports a caller may ask for.
const MIN_PROGRESS_MS: u64 = 50;

/// `kpty __action` on the host: one call on stdin, its JSON on stdout; exit 0 (the answer
/// says whether it succeeded).
pub fn main() -> i32 {
    let mut input = Vec::new();
    if std::io::stdin()
        .take(64 << 20)
        .read_to_end(&mut input)
        .is_err()
    {
        return 1;
    }
    let answer = match serde_json::from_slice::<Call>(&input) {
        Ok(c) => answer(c, &Caller::default()),
        Err(e) => unreadable(&e),
    };
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(&answer);
    let _ = out.write_all(b"\n");
    0
}

/// The host's side of a call: `c` run by this machine's core in the working directory's
/// project, with the caller's channel; its JSON answer (the action's object, or the
/// error's). A talk or a wait tells `caller` how it is stopped when its caller cancels (the
/// talk's command interrupted, the wait ended); a talk that was asked for progress sends it
/// there as it comes.
pub fn answer(c: Call, caller: &Caller) -> Vec<u8> {
    serde_json::to_vec(&run(c, caller)).unwrap_or_default()
}

/// The answer to a call that could not be read.
pub fn unreadable(e: &serde_json::Error) -> Vec<u8> {
    let v = Error::invalid(format!("a remote call kpty could not read: {e}")).to_json();
    serde_json::to_vec(&v).unwrap_or_default()
}

fn run(c: Call, caller: &Caller) -> Value {
    let ctx = match std::env::current_dir()
        .map_err(|e| Error::internal(e.to_string()))
        .and_then(|cwd| crate::core::Ctx::new(crate::store::StateDir::discover(&cwd)))
    {
        Ok(ctx) => ctx,
        Err(e) => return e.to_json(),
    };
    let channel = match c.channel.as_str() {
        "mcp" => crate::core::Channel::Mcp,
        "http" => crate::core::Channel::Http,
        _ => crate::core::Channel::Json { no_redact: false },
    };
    if c.params.host.is_some() {
        return Error::new(
            crate::error::ErrorCode::InvalidParams,
            "a remote call cannot name another host",
        )
        .to_json();
    }
    let ctx = ctx.on(channel);
    // Run as the local front ends run them: a talk's command interrupted, a wait ended, when
    // the caller cancels; a talk's progress sent to the caller as it comes.
    let running = Running::new();
    let stop = running.clone();
    let action = c.action;
    caller.on_cancel(move || {
        let stopped = stop.stop(matches!(action, Action::Talk | Action::Run));
        tracing::info!(
            "a remote {} cancelled by its caller: {stopped:?}",
            action.as_str()
        );
    });
    let mut sink = |b: crate::proto::ProgressBody| {
        if let Ok(data) = serde_json::to_vec(&b) {
            caller.progress(data);
        }
    };
    let progress = c.progress_ms.map(|ms| {
        (
            Duration::from_millis(ms.max(MIN_PROGRESS_MS)),
            &mut sink as &mut (dyn FnMut(_) + Send),
        )
    });
    crate::core::run_tracked(&ctx, c.action, &c.params, &running, progress)
}
