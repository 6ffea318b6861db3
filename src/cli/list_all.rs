//! `kpty list --all`: the core's `list` with `all` ([`crate::core::batch::list_all`]): the
//! sessions of every state directory this user has used, a table per directory.

use super::list_table::list_table;
use super::output::{print_json, shown, text_line};
use crate::api::Params;
use crate::api::batch::ListAllReply;
use crate::core::{self, Ctx, Reply};
use crate::store::RegistryEntry;

/// List them all; exit code 0 (a state directory that cannot be read is reported, not fatal).
pub fn run(here: &Ctx, as_json: bool) -> crate::error::Result<i32> {
    let p = Params {
        all: Some(true),
        ..Default::default()
    };
    let reply = core::run(here, crate::api::Action::List, &p)?;
    if as_json {
        print_json(&core::outgoing(here, core::to_json(Ok(&reply)))?);
    } else if let Reply::ListAll(r) = &reply {
        render(r);
    } else {
        return Err(crate::error::Error::internal(
            "list --all answered another reply",
        ));
    }
    Ok(0)
}

/// Human rendering: each directory with sessions under its path (a blank line between
/// them), each one that could not be read on stderr.
pub fn render(r: &ListAllReply<RegistryEntry>) {
    for f in &r.failed {
        eprintln!("kpty: {}: {}", shown(&f.state_dir), f.error.message);
    }
    let mut first = true;
    for list in r.lists.iter().filter(|l| !l.sessions.is_empty()) {
        // A blank line between directories, none after the last.
        let gap = if first { "" } else { "\n" };
        text_line(&format!("{gap}{}:", shown(&list.state_dir)));
        list_table(list);
        first = false;
    }
    if r.sessions.is_empty() {
        eprintln!("no sessions in any state directory");
    }
}
