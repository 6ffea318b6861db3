//! `kpty kill --all`: end every local session of this state directory, one `kill` action
//! each (audited as such). Registered (desktop) sessions are left to `unregister`: kpty does
//! not hold them.

use super::render;
use crate::api::{Action, Params};
use crate::core::{self, Ctx, Reply};
use crate::error::{ErrorCode, Result};
use crate::store::Registry;
use serde_json::{Value, json};

/// Kill them all; prints each one killed (or the JSON summary). Exit code: 0, or the first
/// failure's. A session that ended and was forgotten meanwhile is no failure.
pub fn run(ctx: &Ctx, as_json: bool) -> Result<i32> {
    let reg = Registry::load(&ctx.state)?;
    let ids: Vec<String> = reg
        .sessions
        .values()
        .filter(|e| core::kind::is_local(e))
        .map(|e| e.session_id.clone())
        .collect();
    let (mut killed, mut failed, mut code) = (Vec::<Value>::new(), Vec::<Value>::new(), 0);
    for id in ids {
        let p = Params {
            session_id: Some(id.clone()),
            ..Default::default()
        };
        match core::run(ctx, Action::Kill, &p) {
            Ok(Reply::Kill(r)) => {
                if !as_json {
                    render::text_line(&format!("killed {}", render::shown(&r.session_id)));
                }
                killed.push(serde_json::to_value(&r).unwrap_or(Value::Null));
            }
            Ok(_) => {}
            Err(e) if e.code == ErrorCode::PtySessionNotFound => {}
            Err(e) => {
                if !as_json {
                    render::print_error(&e);
                }
                if code == 0 {
                    code = e.code.exit_code();
                }
                failed.push(json!({"session_id": id, "error": e.to_json()}));
            }
        }
    }
    if as_json {
        let v = json!({"ok": failed.is_empty(), "killed": killed, "failed": failed});
        render::print_json(&core::outgoing(ctx, Ok(v))?);
    }
    Ok(code)
}
