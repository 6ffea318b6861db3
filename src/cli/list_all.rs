//! `kpty list --all`: the sessions of every state directory this user has used (this one,
//! then those in the runtime directory's index, most recent first — see
//! [`crate::store::index`]). Each session carries its `state_dir`.

use super::render;
use crate::core::{self, Ctx, Reply};
use crate::store::StateDir;
use serde_json::{Value, json};

/// List them all; exit code 0 (a state directory that cannot be read is reported, not fatal).
pub fn run(here: &Ctx, as_json: bool) -> crate::error::Result<i32> {
    let mut dirs: Vec<StateDir> = vec![here.state.clone()];
    match crate::store::index::state_dirs() {
        Ok(indexed) => {
            for d in indexed {
                if !dirs.contains(&d) {
                    dirs.push(d);
                }
            }
        }
        Err(e) => tracing::warn!("the index of state directories cannot be read: {e}"),
    }
    let (mut sessions, mut listed, mut failed) = (Vec::new(), Vec::new(), Vec::new());
    for state in dirs {
        let path = state.path().display().to_string();
        let ctx = Ctx {
            state,
            ..here.clone()
        };
        let reply = match core::list::list(&ctx) {
            Ok(r) => r,
            Err(e) => {
                if !as_json {
                    eprintln!("kpty: {}: {}", render::shown(&path), e.message);
                }
                failed.push(json!({"state_dir": path, "error": e.to_json()}));
                continue;
            }
        };
        if !as_json && !reply.sessions.is_empty() {
            // A blank line between directories, none after the last.
            let gap = if sessions.is_empty() { "" } else { "\n" };
            render::text_line(&format!("{gap}{}:", render::shown(&path)));
            render::human(&Reply::List(reply.clone()));
        }
        for s in &reply.sessions {
            let mut v = serde_json::to_value(s).unwrap_or(Value::Null);
            v["state_dir"] = json!(path);
            sessions.push(v);
        }
        listed.push(path);
    }
    if as_json {
        let v = json!({"ok": true, "count": sessions.len(), "sessions": sessions,
                       "state_dirs": listed, "failed": failed});
        render::print_json(&core::outgoing(here, Ok(v))?);
    } else if sessions.is_empty() {
        eprintln!("no sessions in any state directory");
    }
    Ok(0)
}
