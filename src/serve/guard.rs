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
use std::net::IpAddr;
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
    /// The address `--bind` named when it is not loopback: requests naming it are accepted
    /// (an unspecified one, `0.0.0.0` or `::`: any IP address — an address, unlike a name,
    /// cannot be rebound to another server by DNS).
    bound: Option<IpAddr>,
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
            bound: None,
        }
    }

    /// These checks for a server listening on `addr`.
    pub fn bound_to(mut self, addr: IpAddr) -> Self {
        self.bound = (!addr.is_loopback()).then_some(addr);
        self
    }

    /// Whether every host name is accepted (`--allow-host '*'`).
    pub fn any_host(&self) -> bool {
        self.hosts.iter().any(|h| h == "*")
    }

    /// Whether every IP address is accepted as a host (`--bind 0.0.0.0` or `::`).
    pub fn any_address(&self) -> bool {
        self.bound.is_some_and(|a| a.is_unspecified())
    }

    /// Every host name accepted (for rmcp's own check on `/mcp`).
    pub fn allowed_hosts(&self) -> Vec<String> {
        LOOPBACK_HOSTS
            .iter()
            .map(|h| h.to_string())
            .chain(self.hosts.iter().cloned())
            .chain(self.bound.map(|a| a.to_string()))
            .collect()
    }

    /// Whether `host` (a `Host` header: name, `name:port`, `[v6]:port`) is accepted.
    pub(crate) fn host_ok(&self, host: &str) -> bool {
        let name = host_name(host).to_ascii_lowercase();
        let address = name.parse::<IpAddr>().ok();
        LOOPBACK_HOSTS.contains(&name.as_str())
            || address.is_some_and(|a| self.any_address() || Some(a) == self.bound)
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
        // `[v6]` or `[v6]:port`, nothing else after the bracket.
        return match rest.split_once(']') {
            Some((name, "")) => name,
            Some((name, port))
                if port.len() > 1
                    && port.starts_with(':')
                    && port[1..].bytes().all(|b| b.is_ascii_digit()) =>
            {
                name
            }
            _ => "",
        };
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
                "kpty serve answers requests for loopback names only (localhost, 127.0.0.1, [::1]) and the --bind address, not {host:?}; start it with --allow-host NAME to accept another"
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

    use proptest::prelude::*;

    proptest! {
        /// Over every address a server may be bound to and every IP a request may name: a
        /// name is never accepted for being an address; an address is accepted only when it
        /// is a loopback name (127.0.0.1), the bound one, or any (bound to 0.0.0.0 or ::);
        /// loopback binds add nothing.
        #[test]
        fn a_bound_address_is_accepted_as_a_host(
            bound in prop_oneof![
                any::<[u8; 4]>().prop_map(IpAddr::from),
                any::<[u8; 16]>().prop_map(IpAddr::from),
                Just(IpAddr::from([0, 0, 0, 0])),
                Just(IpAddr::from([0u16; 8])),
                Just(IpAddr::from([127, 0, 0, 1])),
            ],
            asked in any::<[u8; 4]>().prop_map(IpAddr::from),
            port in proptest::option::of(1u16..),
        ) {
            let a = access().bound_to(bound);
            let host = |ip: IpAddr| {
                let name = match ip {
                    IpAddr::V4(v) => v.to_string(),
                    IpAddr::V6(v) => format!("[{v}]"),
                };
                port.map_or(name.clone(), |p| format!("{name}:{p}"))
            };
            let any = !bound.is_loopback() && bound.is_unspecified();
            let named = asked == IpAddr::from([127, 0, 0, 1]);
            let expect = named || any || asked == bound && !bound.is_loopback();
            prop_assert_eq!(a.host_ok(&host(asked)), expect, "{} bound to {}", host(asked), bound);
            if !bound.is_loopback() && !bound.is_unspecified() {
                prop_assert!(a.host_ok(&host(bound)));
            }
            prop_assert!(!a.host_ok("evil.example"));
            let suffixed = format!("{}.evil.example", host(bound));
            prop_assert!(!a.host_ok(&suffixed), "{}", suffixed);
            prop_assert_eq!(a.any_address(), any);
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
