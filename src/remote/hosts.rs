//! The hosts kpty knows: `kpty hosts add|remove|list` keep them in `hosts` in kpty's config
//! directory (one a line), `KPTY_HOSTS` (comma-separated) adds more; `kpty list --all-hosts`
//! asks them all at once ([`list_all`]) and shows one table — a host that does not answer in
//! time is listed as unreachable, the rest still are.

use super::Host;
use crate::error::{Error, Result};
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;

/// The hosts file.
fn file() -> Result<PathBuf> {
    let dir = dirs::config_dir()
        .ok_or_else(|| Error::internal("this user has no config directory"))?
        .join("kpty");
    Ok(dir.join("hosts"))
}

/// The hosts kept in the file.
fn saved() -> Result<Vec<Host>> {
    let f = file()?;
    let text = match std::fs::read_to_string(&f) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::state(&f, e)),
    };
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| Host::parse(l).ok())
        .collect())
}

/// Every host kpty knows: the file's, then `KPTY_HOSTS`'s, each once.
pub fn known() -> Result<Vec<Host>> {
    let mut out = saved()?;
    if let Some(env) = crate::api::config::var("KPTY_HOSTS") {
        for h in env.split(',').map(str::trim).filter(|h| !h.is_empty()) {
            let h = Host::parse(h)?;
            if !out.contains(&h) {
                out.push(h);
            }
        }
    }
    Ok(out)
}

/// Keep `host` in the file (once).
pub fn add(host: &Host) -> Result<Vec<Host>> {
    let mut hosts = saved()?;
    if !hosts.contains(host) {
        hosts.push(host.clone());
    }
    write(&hosts)?;
    Ok(hosts)
}

/// Drop `host` from the file.
pub fn remove(host: &Host) -> Result<Vec<Host>> {
    let mut hosts = saved()?;
    let before = hosts.len();
    hosts.retain(|h| h != host);
    if hosts.len() == before {
        return Err(Error::new(
            crate::error::ErrorCode::NotFound,
            format!("{host} is not in the hosts file"),
        ));
    }
    write(&hosts)?;
    Ok(hosts)
}

fn write(hosts: &[Host]) -> Result<()> {
    let f = file()?;
    if let Some(dir) = f.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::state(dir, e))?;
    }
    let text: String = hosts.iter().map(|h| format!("{h}\n")).collect();
    let tmp = f.with_extension("tmp");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, &f))
        .map_err(|e| Error::state(&f, e))
}

/// One host's answer to `list`.
#[derive(Debug, Clone, Serialize)]
pub struct HostList {
    /// The host.
    pub host: String,
    /// It answered.
    pub ok: bool,
    /// Its sessions (each with `host` added), when it answered.
    pub sessions: Vec<Value>,
    /// Why not, when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
}

/// `list` on every host at once, each within the connection's deadline.
pub fn list_all(hosts: &[Host]) -> Vec<HostList> {
    let running: Vec<_> = hosts
        .iter()
        .cloned()
        .map(|h| {
            std::thread::spawn(move || {
                let v =
                    super::action::call(&h, crate::api::Action::List, Default::default(), "json");
                (h, v)
            })
        })
        .collect();
    running
        .into_iter()
        .filter_map(|t| t.join().ok())
        .map(|(h, v)| match v {
            Ok(v) if v["ok"] == true => HostList {
                host: h.to_string(),
                ok: true,
                sessions: v["sessions"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|mut s| {
                        s["host"] = Value::String(h.to_string());
                        s
                    })
                    .collect(),
                error: None,
            },
            Ok(v) => HostList {
                host: h.to_string(),
                ok: false,
                sessions: Vec::new(),
                error: Some(v),
            },
            Err(e) => HostList {
                host: h.to_string(),
                ok: false,
                sessions: Vec::new(),
                error: Some(e.to_json()),
            },
        })
        .collect()
}
