//! `kpty hosts add|remove|list` and `kpty list --all-hosts` ([`crate::remote::hosts`]).

use super::args::HostsArgs;
use super::output::{out, print_json, shown};
use crate::error::{Error, Result};
use crate::remote::{Host, hosts};

/// The JSON of `kpty hosts`.
#[derive(serde::Serialize)]
struct Hosts {
    ok: bool,
    hosts: Vec<String>,
}

/// `kpty hosts …`.
pub fn run(a: &HostsArgs, json: bool) -> Result<i32> {
    let named = || -> Result<Host> {
        let h = a
            .host
            .as_deref()
            .ok_or_else(|| Error::invalid(format!("kpty hosts {} needs a HOST", a.verb)))?;
        Host::parse(h)
    };
    let list = match a.verb.as_str() {
        "add" => hosts::add(&named()?)?,
        "remove" => hosts::remove(&named()?)?,
        _ => hosts::known()?,
    };
    let names: Vec<String> = list.iter().map(Host::to_string).collect();
    if json {
        print_json(&Hosts {
            ok: true,
            hosts: names,
        });
    } else {
        let text: String = names.iter().map(|h| format!("{}\n", shown(h))).collect();
        out(text.as_bytes());
    }
    Ok(0)
}

/// The JSON of `kpty list --all-hosts`.
#[derive(serde::Serialize)]
struct AllHosts {
    ok: bool,
    hosts: Vec<hosts::HostList>,
}

/// `kpty list --all-hosts`: every host's sessions in one table (exit 0 even when a host is
/// unreachable: it is listed as such).
pub fn list_all(json: bool) -> Result<i32> {
    let known = hosts::known()?;
    if known.is_empty() {
        return Err(Error::invalid(
            "no hosts known: add one with `kpty hosts add HOST` (or set KPTY_HOSTS)",
        ));
    }
    let all = hosts::list_all(&known);
    if json {
        print_json(&AllHosts {
            ok: true,
            hosts: all,
        });
        return Ok(0);
    }
    let mut t = format!(
        "{:<20} {:<14} {:<10} {}\n",
        "HOST", "SESSION", "STATE", "LABEL"
    );
    for h in &all {
        if !h.ok {
            let why = h
                .error
                .as_ref()
                .and_then(|e| e["error"].as_str().or(e["message"].as_str()))
                .unwrap_or("no answer");
            t.push_str(&format!(
                "{:<20} {:<14} {:<10} {}\n",
                shown(&h.host),
                "-",
                "unreachable",
                shown(why)
            ));
            continue;
        }
        for s in &h.sessions {
            let field = |k: &str| s[k].as_str().unwrap_or("-").to_string();
            t.push_str(&format!(
                "{:<20} {:<14} {:<10} {}\n",
                shown(&h.host),
                shown(&field("session_id")),
                shown(&field("state")),
                shown(&field("label"))
            ));
        }
    }
    out(t.as_bytes());
    Ok(0)
}
