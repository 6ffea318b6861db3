//! Who may talk to `kpty serve`, checked on every route before anything is read or touched:
//! the `Host` a request names (loopback names only unless `--allow-host`: DNS rebinding), the
//! browser `Origin` it comes from (none unless `--allow-origin`), then the secret.
//!
//! Accepted credentials: the bridge secret (see [`super::secret`]) as `Authorization: Bearer …`,
//! `X-Kuroryuu-Desktop-Secret` or `X-Kuroryuu-Internal-Secret`; the seeds' internal secret
//! (`KPTY_INTERNAL_SECRET`, when set) as `X-Kuroryuu-Internal-Secret`; and a desktop's
//! secret registered with `POST /_x9k_desktop_auth` as `X-Kuroryuu-Desktop-Secret`. Every
//! comparison takes the same time wherever the inputs differ.

use super::{Shared, fail, secret};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use std::sync::RwLock;

/// The header of the seeds' internal secret.
pub(crate) const INTERNAL_HEADER: &str = "X-Kuroryuu-Internal-Secret";
/// The environment variable holding the internal secret (k_pty's name is read too).
pub(crate) const INTERNAL_ENV: &str = "KPTY_INTERNAL_SECRET";
/// Host names always accepted (loopback).
pub(crate) const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// What a request is checked against.
pub struct Access {
    /// The bridge secret.
    pub secret: String,
    /// The seeds' internal secret, when set.
    pub internal: Option<String>,
    /// A desktop's secret, once registered.
    pub desktop: RwLock<Option<String>>,
    /// Host names accepted besides the loopback ones (`*`: any).
    pub hosts: Vec<String>,
    /// Browser origins accepted (`*`: any); none by default.
    pub origins: Vec<String>,
}

impl Access {
    /// The checks for `secret` with the `--allow-host` and `--allow-origin` lists; the
    /// internal secret comes from [`INTERNAL_ENV`].
    pub fn new(secret: String, hosts: Vec<String>, origins: Vec<String>) -> Self {
        let internal = crate::api::config::var(INTERNAL_ENV)
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty());
        Access {
            secret,
            internal,
            desktop: RwLock::new(None),
            hosts: hosts.into_iter().map(|h| h.to_ascii_lowercase()).collect(),
            origins: origins
                .into_iter()
                .map(|o| o.trim_end_matches('/').to_ascii_lowercase())
                .collect(),
        }
    }

    /// Every host name accepted (for rmcp's own check on `/mcp`).
    pub fn allowed_hosts(&self) -> Vec<String> {
        LOOPBACK_HOSTS
            .iter()
            .map(|h| h.to_string())
            .chain(self.hosts.iter().cloned())
            .collect()
    }

    /// Whether `host` (a `Host` header: name, `name:port`, `[v6]:port`) is accepted.
    pub(crate) fn host_ok(&self, host: &str) -> bool {
        let name = host_name(host).to_ascii_lowercase();
        LOOPBACK_HOSTS.contains(&name.as_str())
            || self
                .hosts
                .iter()
                .any(|h| h == "*" || *h == name || h.eq_ignore_ascii_case(host))
    }

    /// Whether a browser `Origin` is accepted.
    pub(crate) fn origin_ok(&self, origin: &str) -> bool {
        let origin = origin.trim_end_matches('/').to_ascii_lowercase();
        self.origins.iter().any(|o| o == "*" || *o == origin)
    }

    /// Whether the request's headers carry an accepted credential.
    pub(crate) fn authorized(&self, h: &HeaderMap) -> bool {
        let bridge = self.secret.as_bytes();
        let bearer = h
            .get(header::AUTHORIZATION)
            .and_then(|v| v.as_bytes().strip_prefix(b"Bearer "));
        let desktop = h
            .get(crate::bridge::client::SECRET_HEADER)
            .map(|v| v.as_bytes());
        let internal = h.get(INTERNAL_HEADER).map(|v| v.as_bytes());
        let registered = self.desktop.read().unwrap_or_else(|p| p.into_inner());
        // Every candidate is compared (no early exit on the first match).
        let checks = [
            bearer.is_some_and(|b| secret::matches(b, bridge)),
            desktop.is_some_and(|d| secret::matches(d, bridge)),
            internal.is_some_and(|i| secret::matches(i, bridge)),
            matches!((internal, &self.internal), (Some(i), Some(s)) if secret::matches(i, s.as_bytes())),
            matches!((desktop, &*registered), (Some(d), Some(s)) if secret::matches(d, s.as_bytes())),
        ];
        checks.iter().fold(false, |acc, c| acc | c)
    }
}

/// The name part of a `Host` header value.
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// The middleware: `Host`, then `Origin` (403 with a JSON body), then the secret (401).
pub async fn check(State(app): State<Shared>, req: Request, next: Next) -> Response {
    let h = req.headers();
    let host = h
        .get(header::HOST)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .or_else(|| req.uri().authority().map(|a| a.to_string()));
    if let Some(host) = host.as_ref().filter(|host| !app.access.host_ok(host)) {
        tracing::warn!("refused a request for host {host:?}");
        return fail(
            StatusCode::FORBIDDEN,
            "FORBIDDEN_HOST",
            &format!(
                "kpty serve answers requests for loopback names only (localhost, 127.0.0.1, [::1]), not {host:?}; start it with --allow-host NAME to accept another"
            ),
        );
    }
    // The web console has its own rule for origins and its own login (a cookie).
    if super::console::is_console(req.uri().path()) {
        return super::console::check(app, host, req, next).await;
    }
    if let Some(origin) = h.get(header::ORIGIN) {
        let origin = String::from_utf8_lossy(origin.as_bytes()).into_owned();
        if !app.access.origin_ok(&origin) {
            tracing::warn!("refused a request from origin {origin:?}");
            return fail(
                StatusCode::FORBIDDEN,
                "FORBIDDEN_ORIGIN",
                &format!(
                    "kpty serve refuses requests from web pages (Origin {origin:?}); start it with --allow-origin {origin} to accept that one"
                ),
            );
        }
    }
    if !app.access.authorized(h) {
        tracing::warn!(
            "refused {} {} without the secret",
            req.method(),
            req.uri().path()
        );
        let mut res = fail(
            StatusCode::UNAUTHORIZED,
            "UNAUTHORIZED",
            "kpty serve needs its secret (the contents of its secret_file, in kpty's private directory) as Authorization: Bearer, X-Kuroryuu-Desktop-Secret or X-Kuroryuu-Internal-Secret",
        );
        // A 401 names its scheme (RFC 9110 §11.6.1).
        res.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            axum::http::HeaderValue::from_static("Bearer realm=\"kpty serve\""),
        );
        return res;
    }
    let (method, path) = (req.method().clone(), req.uri().path().to_string());
    let t0 = std::time::Instant::now();
    let res = next.run(req).await;
    // An access log line (for an MCP call, when its answer starts).
    tracing::info!(
        method = %method,
        path,
        status = res.status().as_u16(),
        ms = u64::try_from(t0.elapsed().as_millis()).unwrap_or(u64::MAX),
        "request"
    );
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access() -> Access {
        Access::new(
            "s".repeat(64),
            vec!["Box.Example".into()],
            vec!["https://app.example:8443/".into()],
        )
    }

    #[test]
    fn hosts_are_loopback_names_unless_allowed() {
        let a = access();
        for ok in [
            "localhost",
            "localhost:8201",
            "127.0.0.1:1",
            "[::1]:8201",
            "box.example:80",
            "BOX.example",
        ] {
            assert!(a.host_ok(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "127.0.0.1.evil.example",
            "localhost.evil.example:8201",
            "[::2]:8201",
            "",
        ] {
            assert!(!a.host_ok(bad), "{bad}");
        }
    }

    #[test]
    fn origins_only_when_listed() {
        let a = access();
        assert!(a.origin_ok("https://app.example:8443"));
        assert!(!a.origin_ok("https://app.example"));
        assert!(!a.origin_ok("http://localhost:3000"));
        assert!(!a.origin_ok("null"));
    }

    #[test]
    fn every_credential_header_takes_the_secret() {
        let a = access();
        let secret = "s".repeat(64);
        for (name, value) in [
            ("authorization", format!("Bearer {secret}")),
            ("x-kuroryuu-desktop-secret", secret.clone()),
            ("x-kuroryuu-internal-secret", secret.clone()),
        ] {
            let mut h = HeaderMap::new();
            h.insert(
                axum::http::HeaderName::from_static(name),
                value.parse().unwrap(),
            );
            assert!(a.authorized(&h), "{name}");
            h.insert(
                axum::http::HeaderName::from_static(name),
                "wrong".parse().unwrap(),
            );
            assert!(!a.authorized(&h), "{name} wrong");
        }
        assert!(!a.authorized(&HeaderMap::new()));
        // A registered desktop secret is accepted in the desktop header.
        *a.desktop.write().unwrap() = Some("d".repeat(64));
        let mut h = HeaderMap::new();
        h.insert("x-kuroryuu-desktop-secret", "d".repeat(64).parse().unwrap());
        assert!(a.authorized(&h));
    }
}
