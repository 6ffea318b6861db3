//! `kpty kill --all`: the core's `kill` with `all` ([`crate::core::batch::kill_all`]), shown
//! one line per session killed, each failure on stderr.

use super::output::{print_error, print_json, shown, text_line};
use crate::api::Params;
use crate::api::batch::KillAllReply;
use crate::core::{self, Ctx, Reply};
use crate::error::Result;

/// Kill them all; prints each one killed (or the JSON summary). Exit code: 0, or the first
/// failure's.
pub fn run(ctx: &Ctx, as_json: bool) -> Result<i32> {
    let p = Params {
        all: Some(true),
        ..Default::default()
    };
    let Reply::KillAll(r) = core::run(ctx, crate::api::Action::Kill, &p)? else {
        return Err(crate::error::Error::internal(
            "kill --all answered another reply",
        ));
    };
    let code = r.failed.first().map_or(0, |f| f.error.code.exit_code());
    if as_json {
        print_json(&core::outgoing(ctx, core::to_json(Ok(&r)))?);
    } else {
        render(&r);
    }
    Ok(code)
}

/// Human rendering: `killed ID` a line on stdout, each failure's error on stderr.
pub fn render(r: &KillAllReply) {
    for k in &r.killed {
        text_line(&format!("killed {}", shown(&k.session_id)));
    }
    for f in &r.failed {
        print_error(&f.error);
    }
}
