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

/// The hosts kept in the file: read as kpty reads its own state (never through a symbolic
/// link, only when it is this user's and no one else can write it, at most a few MiB).
fn saved() -> Result<Vec<Host>> {
    let Some(bytes) = crate::store::secure::read(&file()?)? else {
        return Ok(Vec::new());
    };
    Ok(String::from_utf8_lossy(&bytes)
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

/// Replace the file with `hosts` (a private folder made when missing; the file replaced
/// whole, never written through a link).
fn write(hosts: &[Host]) -> Result<()> {
    let f = file()?;
    if let Some(config) = f.parent().and_then(std::path::Path::parent) {
        std::fs::create_dir_all(config).map_err(|e| Error::state(config, e))?;
    }
    let text: String = hosts.iter().map(|h| format!("{h}\n")).collect();
    crate::store::atomic::write_bytes(&f, text.as_bytes())
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

/// `list` on every host at once, each within the connection's deadline: calls to hosts
/// whose channel is open go out first, all from this thread; the others (a channel to
/// start) each on a thread of their own.
pub fn list_all(hosts: &[Host]) -> Vec<HostList> {
    use super::action::{InFlight, call, send_if_open};
    use crate::api::Action;
    enum Pending {
        Sent(InFlight),
        Started(std::thread::JoinHandle<Result<Value>>),
    }
    let pending: Vec<(Host, Pending)> = hosts
        .iter()
        .map(|h| {
            let p = match send_if_open(h, Action::List, Default::default(), "json") {
                Some(sent) => Pending::Sent(sent),
                None => {
                    let h = h.clone();
                    Pending::Started(std::thread::spawn(move || {
                        call(&h, Action::List, Default::default(), "json")
                    }))
                }
            };
            (h.clone(), p)
        })
        .collect();
    pending
        .into_iter()
        .map(|(h, p)| {
            let v = match p {
                Pending::Sent(sent) => sent.answer(),
                Pending::Started(t) => t
                    .join()
                    .unwrap_or_else(|_| Err(Error::internal("a host's list failed"))),
            };
            one(&h, v)
        })
        .collect()
}

/// One host's row of `list --all-hosts`.
fn one(h: &Host, v: Result<Value>) -> HostList {
    match v {
        Ok(mut v) if v.get("ok") == Some(&Value::Bool(true)) => {
            let mut sessions = match v["sessions"].take() {
                Value::Array(a) => a,
                _ => Vec::new(),
            };
            // Another machine's answer: a session that is no object is kept as it came.
            for s in sessions.iter_mut().filter_map(Value::as_object_mut) {
                s.insert("host".into(), Value::String(h.to_string()));
            }
            HostList {
                host: h.to_string(),
                ok: true,
                sessions,
                error: None,
            }
        }
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Any JSON value, nested a few levels.
    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            "[a-z\"\\\\\u{0}-\u{1f}]{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map("(ok|sessions|host|[a-z]{1,4})", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Whatever another machine answers, its row is made without a panic: listed only
        /// when it said `ok: true`, each session that is an object marked with its host,
        /// and anything else kept as the host's error.
        #[test]
        fn a_hosts_answer_of_any_shape_makes_a_row(answer in any_json(), ok_sessions in any_json()) {
            let h = Host::parse("box").unwrap();
            let row = one(&h, Ok(answer.clone()));
            proptest::prop_assert_eq!(row.ok, answer.get("ok") == Some(&Value::Bool(true)));
            if !row.ok {
                proptest::prop_assert_eq!(row.error, Some(answer));
            }
            // The answer as it arrives from the other machine: text, read once.
            let listed = format!(r#"{{"ok": true, "sessions": {ok_sessions}}}"#);
            let row = one(&h, Ok(serde_json::from_str(&listed).unwrap()));
            proptest::prop_assert!(row.ok);
            let expected = ok_sessions.as_array().map_or(0, Vec::len);
            proptest::prop_assert_eq!(row.sessions.len(), expected);
            for s in row.sessions.iter().filter(|s| s.is_object()) {
                proptest::prop_assert_eq!(&s["host"], "box");
            }
        }
    }

    #[test]
    fn a_host_that_failed_is_a_row_with_its_error() {
        let h = Host::parse("box").unwrap();
        let row = one(
            &h,
            Err(crate::remote::unreachable(&h, "Connection refused")),
        );
        assert!(!row.ok);
        assert_eq!(row.error.unwrap()["error_code"], "HOST_UNREACHABLE");
    }
}
