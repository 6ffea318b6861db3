//! Which bridge URLs kpty talks to (and sends the desktop secret to): loopback hosts
//! (`localhost`, `127.0.0.0/8`, `::1`), plus hosts the user named — `KPTY_ALLOW_BRIDGE`
//! (comma- or space-separated host names or addresses) or `kpty serve --allow-bridge HOST`.
//! Checked when a session is registered and again before every call, so neither a shipped
//! registry entry nor a `register` call can aim kpty at another machine (a cloud metadata
//! address, an attacker's server) unless the user allowed that host.

use crate::error::{Error, ErrorCode, Result};
use std::net::IpAddr;
use std::sync::RwLock;

/// The environment variable naming bridge hosts allowed besides loopback.
const ALLOW_ENV: &str = "KPTY_ALLOW_BRIDGE";

/// Hosts allowed by this process's flags (`kpty serve --allow-bridge`).
static ALLOWED: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Allow bridges on `hosts` (besides loopback and `ALLOW_ENV`'s) from now on.
pub fn allow_hosts(hosts: &[String]) {
    let mut a = ALLOWED.write().unwrap_or_else(|p| p.into_inner());
    a.extend(hosts.iter().map(|h| normal_host(h)));
}

/// A host as compared: lower case, without IPv6 brackets or a trailing dot.
fn normal_host(h: &str) -> String {
    h.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

/// Whether `host` (normalised) is a loopback name or address.
fn is_loopback(host: &str) -> bool {
    if host == "localhost" || host.ends_with(".localhost") {
        return true;
    }
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(a)) => a.is_loopback(),
        Ok(IpAddr::V6(a)) => {
            a.is_loopback() || a.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        Err(_) => false,
    }
}

/// Whether the user allowed `host` (normalised).
fn is_allowed(host: &str) -> bool {
    let env = std::env::var(ALLOW_ENV).unwrap_or_default();
    env.split([',', ' '])
        .map(normal_host)
        .any(|h| !h.is_empty() && h == host)
        || ALLOWED
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .any(|h| h == host)
}

/// Why `url` is no bridge kpty may call, if it is not: not `http(s)://HOST[:PORT][/…]`,
/// carries a user name, or its host is neither loopback nor allowed.
pub fn refusal(url: &str) -> Option<String> {
    let Ok(uri) = url.parse::<ureq::http::Uri>() else {
        return Some(format!("{url:?} is not a URL"));
    };
    if !matches!(uri.scheme_str(), Some("http" | "https")) {
        return Some(format!("{url:?} must be an http:// or https:// URL"));
    }
    let Some(auth) = uri.authority() else {
        return Some(format!("{url:?} names no host"));
    };
    if auth.as_str().contains('@') {
        return Some(format!("{url:?} carries a user name; kpty sends none"));
    }
    let host = normal_host(auth.host());
    if is_loopback(&host) || is_allowed(&host) {
        return None;
    }
    Some(format!(
        "the bridge host {host:?} is not on this machine; kpty calls bridges on loopback only, \
         unless you allow the host: {ALLOW_ENV}={host} (or `kpty serve --allow-bridge {host}`)"
    ))
}

/// Check a `desktop_url` given to `register`: `INVALID_PARAMS` when it may not be called.
pub fn check_register(url: &str) -> Result<()> {
    match refusal(url) {
        None => Ok(()),
        Some(why) => Err(Error::invalid(format!("desktop_url: {why}"))),
    }
}

/// Check a bridge URL before calling it: `PTY_ACCESS_DENIED` when it may not be called.
pub fn check_use(session: &str, url: &str) -> Result<()> {
    match refusal(url) {
        None => Ok(()),
        Some(why) => Err(Error::new(
            ErrorCode::PtyAccessDenied,
            format!("kpty will not call the bridge of session {session}: {why}"),
        )
        .with_details(crate::error::details::Bridge {
            session_id: session.to_string(),
            desktop_url: Some(url.to_string()),
            url: None,
            status: None,
            body: None,
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_only_unless_allowed() {
        for ok in [
            "http://127.0.0.1:8201",
            "http://localhost:1/x",
            "https://[::1]:9",
            "http://127.9.9.9",
            "http://[::ffff:127.0.0.1]:80",
            "HTTP://LOCALHOST.",
        ] {
            assert_eq!(refusal(ok), None, "{ok}");
        }
        for bad in [
            "http://169.254.169.254/latest/meta-data",
            "http://attacker",
            "http://127.0.0.1@evil.example/",
            "http://user:pw@127.0.0.1/",
            "ftp://127.0.0.1/",
            "file:///etc/passwd",
            "http://0.0.0.0:80",
            "http://[::]:80",
            "http://10.0.0.1",
            "http://127.0.0.1.evil.example",
            "http://localhost.evil.example",
            "//127.0.0.1",
            "",
        ] {
            assert!(refusal(bad).is_some(), "{bad}");
        }
        allow_hosts(&["Desk.Example".into()]);
        assert_eq!(refusal("https://desk.example:8443/"), None);
        assert!(refusal("https://other.example/").is_some());
    }

    proptest::proptest! {
        #[test]
        fn no_public_address_is_called(a in 1u8..=255, b: u8, c: u8, d: u8, port in 1u16..) {
            proptest::prop_assume!(a != 127);
            let url = format!("http://{a}.{b}.{c}.{d}:{port}/");
            proptest::prop_assert!(refusal(&url).is_some());
            let v6 = format!("http://[2001:db8::{b:x}{c:02x}]:{port}/");
            proptest::prop_assert!(refusal(&v6).is_some());
        }
    }
}
