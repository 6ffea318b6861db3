//! One blocking JSON call to a bridge: proxy off, a global deadline per call, the desktop
//! secret header, and every failure mapped to a kpty error — unreachable → `BRIDGE_UNAVAILABLE`,
//! a failure status or an unreadable body → `BRIDGE_ERROR`, a kpty error answer passed through.

use crate::error::{Error, ErrorCode, Result};
use crate::store::RegistryEntry;
use serde_json::Value;
use std::time::Duration;

/// The header that carries the shared secret (the seeds' name).
pub const SECRET_HEADER: &str = "X-Kuroryuu-Desktop-Secret";
/// The environment variable holding the secret a bridge expects.
const SECRET_ENV: &str = "KPTY_DESKTOP_SECRET";
/// How much of a failing answer's body an error quotes.
const BODY_QUOTE: usize = 200;
/// Largest answer read (a `read` or `talk` carries at most a few MiB of output).
const MAX_ANSWER: u64 = 64 << 20;

/// A desktop's secret registered with this process (`kpty serve`'s `POST /_x9k_desktop_auth`).
static REGISTERED: std::sync::RwLock<Option<String>> = std::sync::RwLock::new(None);

/// Send `secret` with this process's bridge calls from now on (instead of
/// `SECRET_ENV`'s).
pub fn use_desktop_secret(secret: String) {
    *REGISTERED.write().unwrap_or_else(|p| p.into_inner()) = Some(secret);
}

/// The secret sent to bridges: one a desktop registered, else [`SECRET_ENV`].
fn desktop_secret() -> Option<String> {
    REGISTERED
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
        .or_else(|| crate::api::config::var(SECRET_ENV))
        .filter(|s| !s.is_empty())
}

/// The bridge URL of a registered session: its `desktop_url`, else `KPTY_DESKTOP_URL`.
pub fn base_url(e: &RegistryEntry) -> Result<String> {
    e.extra
        .get("desktop_url")
        .and_then(Value::as_str)
        .map(String::from)
        .or_else(|| crate::api::config::var("KPTY_DESKTOP_URL"))
        .filter(|u| !u.is_empty())
        .map(|u| u.trim_end_matches('/').to_string())
        .ok_or_else(|| {
            Error::new(
                ErrorCode::BridgeUnavailable,
                format!("session {} ({}) has no bridge URL", e.session_id, e.source),
            )
            .with_hint(crate::error::Hint::Reregister {
                session: e.session_id.clone(),
            })
            .with_details(crate::error::details::Session::of(&e.session_id))
        })
}

/// `POST {bridge}{path}` with `body`, all of it — resolving, connecting, sending, waiting and
/// reading the answer — within `timeout`; returns the answer's JSON object (which may still
/// say `ok: false` without a kpty error code).
pub fn post(e: &RegistryEntry, path: &str, body: &Value, timeout: Duration) -> Result<Value> {
    let base = base_url(e)?;
    // Checked at every use: the secret below goes only to a loopback or allowed host.
    super::allow::check_use(&e.session_id, &base)?;
    let url = format!("{base}{path}");
    let mut req = agent(timeout).post(&url);
    if let Some(secret) = desktop_secret() {
        req = req.header(SECRET_HEADER, &secret);
    }
    let unavailable = |err: ureq::Error| {
        let why = match err {
            ureq::Error::Timeout(_) => format!(
                "the bridge {base} of session {} did not answer within {} ms",
                e.session_id,
                timeout.as_millis()
            ),
            err => format!(
                "the bridge {base} of session {} cannot be reached ({err})",
                e.session_id
            ),
        };
        Error::new(
            ErrorCode::BridgeUnavailable,
            format!("{why}; is the desktop app (or `kpty serve`) running there?"),
        )
        .with_details(crate::error::details::Bridge {
            session_id: e.session_id.clone(),
            desktop_url: Some(base.clone()),
            url: Some(url.clone()),
            status: None,
            body: None,
        })
    };
    let mut resp = req.send_json(body).map_err(unavailable)?;
    let status = resp.status().as_u16();
    let text = match resp
        .body_mut()
        .with_config()
        .limit(MAX_ANSWER)
        .read_to_string()
    {
        Ok(t) => t,
        Err(ureq::Error::BodyExceedsLimit(n)) => {
            return Err(Error::new(
                ErrorCode::BridgeError,
                format!("the bridge {url} answered more than {n} bytes (HTTP {status})"),
            )
            .with_details(crate::error::details::Bridge {
                session_id: e.session_id.clone(),
                desktop_url: Some(base.clone()),
                url: None,
                status: Some(status),
                body: None,
            }));
        }
        Err(err) => return Err(unavailable(err)),
    };
    let bridge_error = |why: &str| {
        let quote: String = text.chars().take(BODY_QUOTE).collect();
        Error::new(
            ErrorCode::BridgeError,
            format!("the bridge {url} answered {why} (HTTP {status}): {quote}"),
        )
        .with_details(crate::error::details::Bridge {
            session_id: e.session_id.clone(),
            desktop_url: Some(base.clone()),
            url: None,
            status: Some(status),
            body: Some(quote),
        })
    };
    let ok_status = (200..300).contains(&status);
    match serde_json::from_str::<Value>(&text) {
        Ok(v @ Value::Object(_)) => match kpty_error(&v, &base) {
            Some(err) => Err(err),
            None if ok_status => Ok(v),
            None => Err(bridge_error("with a failure")),
        },
        _ if ok_status => Err(bridge_error("with malformed JSON")),
        _ => Err(bridge_error("with a failure")),
    }
}

/// Whether anything answers HTTP at the bridge `base` within `timeout` (`GET /health`, no
/// secret sent: any status counts as up; only a failure to connect, send or hear back in
/// time counts as down). `base` must have passed [`super::allow::refusal`].
pub fn answers(base: &str, timeout: Duration) -> bool {
    match agent(timeout).get(&format!("{base}/health")).call() {
        Ok(_) => true,
        Err(e) => {
            tracing::debug!("bridge {base}: {e}");
            false
        }
    }
}

/// An answer `{ok:false, error_code}` with a code kpty knows, as that error (a kpty bridge
/// answers so; the message names the bridge).
fn kpty_error(v: &Value, base: &str) -> Option<Error> {
    if v["ok"] != Value::Bool(false) {
        return None;
    }
    let code: ErrorCode = serde_json::from_value(v["error_code"].clone()).ok()?;
    let msg = v["message"].as_str().or(v["error"].as_str()).unwrap_or("");
    let mut err = Error::new(code, format!("bridge {base}: {msg}"));
    err.details = v
        .get("details")
        .cloned()
        .map(|d| Box::new(crate::error::details::decode(d)));
    Some(err)
}

/// A non-kpty `{ok:false, error}` answer as `BRIDGE_ERROR`.
pub fn refused(e: &RegistryEntry, path: &str, v: &Value) -> Error {
    let why = v["error"]
        .as_str()
        .or(v["message"].as_str())
        .unwrap_or("no reason given");
    Error::new(
        ErrorCode::BridgeError,
        format!(
            "the bridge of session {} refused {path}: {why}",
            e.session_id
        ),
    )
    .with_details(crate::error::details::BridgeAnswer {
        session_id: e.session_id.clone(),
        answer: crate::error::details::Foreign::of(v),
    })
}

/// An HTTP client for a bridge: no proxy, every status an answer, the whole call within
/// `timeout`, and no redirects (one would carry the secret to a host nobody checked).
fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .proxy(None)
        .max_redirects(0)
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into()
}
