//! Console logins. A console token — 64 hex characters in kpty's private per-user directory
//! (`console-<hash>.token`, made 0600 by kpty, one per state directory, distinct from the API
//! secret) — travels in the link `kpty console` prints, after `#`: a fragment never reaches a
//! server, a log or a `Referer`. The page posts it to `/console/login` and gets a cookie
//! (`HttpOnly`, `SameSite=Strict`, path `/console`, 12 hours): `EXPIRY.NONCE.MAC`, the MAC an
//! HMAC-SHA256 of `EXPIRY.NONCE` keyed by the token. Nothing is kept on the server: a cookie is
//! good while the token that signed it is the token on disk, so `kpty console --revoke` (a new
//! token) ends every login at once, in every `kpty serve` of the state directory.

use super::super::{JsonBody, Shared, fail};
use crate::error::{Error, Result};
use crate::store::StateDir;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The cookie's name.
const COOKIE: &str = "kpty_console";
/// How long a login lasts.
const LIFETIME: Duration = Duration::from_secs(12 * 3600);

/// The console token's file for `state`.
fn token_path(state: &StateDir) -> Result<PathBuf> {
    super::super::secret::private_file(state, "console", "token")
}

/// The console token of `state`, made on first use.
fn token(state: &StateDir) -> Result<String> {
    let file = token_path(state)?;
    let token = match crate::store::secure::read_secret(&file)? {
        Some(t) => t,
        None => crate::store::secure::make_secret(&file, false)?,
    };
    if token.len() < 32 {
        return Err(Error::state(
            &file,
            "the console token is shorter than 32 characters; run `kpty console --revoke`",
        ));
    }
    Ok(token)
}

/// The console's login link for the `kpty serve` of `state` at `base` (`http://127.0.0.1:8201`):
/// the token after `#`.
pub fn link(state: &StateDir, base: &str) -> Result<String> {
    state.ensure()?;
    Ok(format!(
        "{}{}/#token={}",
        base.trim_end_matches('/'),
        super::PREFIX,
        token(state)?
    ))
}

/// A new console token for `state`: every console login made with the old one ends.
pub fn revoke(state: &StateDir) -> Result<String> {
    state.ensure()?;
    let file = token_path(state)?;
    crate::store::secure::make_secret(&file, true)
}

/// The console token on disk now, if there is one (`None` also when it cannot be read: then
/// nobody is logged in).
fn current(state: &StateDir) -> Option<String> {
    let file = token_path(state).ok()?;
    match crate::store::secure::read_secret(&file) {
        Ok(t) => t.filter(|t| t.len() >= 32),
        Err(e) => {
            tracing::warn!("the console token cannot be read: {e}");
            None
        }
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A cookie value for a login made at `at` (seconds since the epoch) with `token`.
fn issue(token: &str, at: u64) -> String {
    let claim = format!(
        "{}.{}",
        at + LIFETIME.as_secs(),
        uuid::Uuid::new_v4().simple()
    );
    let mac = crate::store::trust::mac_hex(token.as_bytes(), claim.as_bytes());
    format!("{claim}.{mac}")
}

/// Whether `value` is a cookie `token` signed that has not expired at `at`.
fn valid(token: &str, value: &str, at: u64) -> bool {
    let Some((claim, mac)) = value.rsplit_once('.') else {
        return false;
    };
    let Some((expiry, nonce)) = claim.split_once('.') else {
        return false;
    };
    let fresh = expiry
        .parse::<u64>()
        .is_ok_and(|e| e > at && e <= at + LIFETIME.as_secs());
    let well_formed = nonce.len() == 32 && nonce.bytes().all(|b| b.is_ascii_hexdigit());
    let want = crate::store::trust::mac_hex(token.as_bytes(), claim.as_bytes());
    // The MAC is compared whatever else failed, in time independent of where it differs.
    let signed = crate::store::trust::same(mac.as_bytes(), want.as_bytes());
    fresh & well_formed & signed
}

/// The console cookie's value among a request's `Cookie` headers.
pub(super) fn presented(h: &HeaderMap) -> Option<&str> {
    h.get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value)
}

/// How the audit trail names the login of cookie `value`: `web:` and the start of its nonce
/// (a login's own, and nothing of its signature).
pub(super) fn who(value: &str) -> String {
    let nonce = value.split('.').nth(1).unwrap_or_default();
    let short: String = nonce
        .chars()
        .take(8)
        .filter(char::is_ascii_hexdigit)
        .collect();
    format!("web:{short}")
}

/// Whether the request carries a console login that is good now.
pub(super) fn logged_in(state: &StateDir, h: &HeaderMap) -> bool {
    presented(h).is_some_and(|value| still_good(state, value))
}

/// Whether the login cookie `value` is good now (not expired, signed by the token on disk).
pub(super) fn still_good(state: &StateDir, value: &str) -> bool {
    current(state).is_some_and(|token| valid(&token, value, now()))
}

/// What the page posts to log in.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Login {
    token: String,
}

/// `POST /console/login` `{"token": …}`: 204 with the cookie, or 401.
pub(super) async fn login(State(app): State<Shared>, JsonBody(body): JsonBody<Login>) -> Response {
    let token = current(&app.ctx.state);
    let good = token
        .as_deref()
        .is_some_and(|t| crate::store::trust::same(body.token.trim().as_bytes(), t.as_bytes()));
    let Some(token) = token.filter(|_| good) else {
        tracing::warn!("refused a console login with a wrong token");
        return fail(
            StatusCode::UNAUTHORIZED,
            "UNAUTHORIZED",
            "this console link is not (or no longer) valid: run `kpty console` for a new one",
        );
    };
    // Over TLS the browser sends it back over TLS only.
    let secure = if app.tls { "; Secure" } else { "" };
    let cookie = format!(
        "{COOKIE}={}; Path=/console; HttpOnly; SameSite=Strict; Max-Age={}{secure}",
        issue(&token, now()),
        LIFETIME.as_secs()
    );
    tracing::info!("a console login");
    with_cookie(&cookie)
}

/// `POST /console/logout`: the cookie cleared (a login ends for every page with `--revoke`).
pub(super) async fn logout() -> Response {
    with_cookie(&format!(
        "{COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0"
    ))
}

fn with_cookie(cookie: &str) -> Response {
    let mut res = StatusCode::NO_CONTENT.into_response();
    if let Ok(v) = HeaderValue::from_str(cookie) {
        res.headers_mut().insert(header::SET_COOKIE, v);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    const NOW: u64 = 1_800_000_000;

    #[test]
    fn a_cookie_is_good_for_its_lifetime_and_only_under_its_token() {
        let c = issue(TOKEN, NOW);
        assert!(valid(TOKEN, &c, NOW));
        assert!(valid(TOKEN, &c, NOW + LIFETIME.as_secs() - 1));
        assert!(!valid(TOKEN, &c, NOW + LIFETIME.as_secs()));
        let other = TOKEN.replace('0', "1");
        assert!(!valid(&other, &c, NOW), "a new token (--revoke) ends it");
    }

    proptest! {
        /// Any change to a cookie — one character anywhere, a cut, something added — is refused.
        #[test]
        fn a_changed_cookie_is_refused(at in 0usize..200, with in "[0-9a-z.=;-]", cut in any::<bool>()) {
            let c = issue(TOKEN, NOW);
            let at = at % c.len();
            let mut changed = c.clone();
            if cut {
                changed.truncate(at);
            } else {
                changed.replace_range(at..=at, &with);
            }
            prop_assume!(changed != c);
            prop_assert!(!valid(TOKEN, &changed, NOW), "{changed}");
        }

        /// A cookie made up without the token is refused, however it is shaped.
        #[test]
        fn a_forged_cookie_is_refused(expiry in any::<u64>(), nonce in "[0-9a-f]{32}", mac in "[0-9a-f]{64}") {
            let forged = format!("{expiry}.{nonce}.{mac}");
            prop_assert!(!valid(TOKEN, &forged, NOW));
        }
    }

    #[test]
    fn the_cookie_is_found_among_others() {
        let mut h = HeaderMap::new();
        h.append(
            header::COOKIE,
            "a=1; kpty_console=x.y.z; b=2".parse().unwrap(),
        );
        assert_eq!(presented(&h), Some("x.y.z"));
        let mut h = HeaderMap::new();
        h.append(header::COOKIE, "kpty_consoleX=1".parse().unwrap());
        assert_eq!(presented(&h), None);
    }
}
