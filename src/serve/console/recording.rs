//! `GET /console/recording/ID`: a session's recording, played in the browser by
//! asciinema-player — one page with the player and the recording inside
//! ([`crate::core::rec_html::standalone`]), redacted as everything `kpty serve` hands out is,
//! under the page's own content security policy (hashed inline script, the player's
//! WebAssembly, nothing from the network), never framed.

use super::super::{Shared, fail};
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// `GET /console/recording/ID`.
pub(super) async fn page(State(app): State<Shared>, Path(id): Path<String>) -> Response {
    let ctx = app.ctx.clone();
    let made = tokio::task::spawn_blocking(move || {
        let found = crate::core::rec::locate(&ctx, Some(&id))?;
        let mut l = crate::core::rec::load(&found)?;
        crate::core::rec::redact::redact_loaded(&mut l);
        let cast = String::from_utf8_lossy(&crate::core::rec::export::to_cast(&l)).into_owned();
        let title = format!("kpty recording of {}", found.name);
        Ok::<_, crate::error::Error>(crate::core::rec_html::standalone(&cast, &title))
    })
    .await;
    match made {
        Ok(Ok((html, csp))) => {
            let mut res =
                ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response();
            let policy = format!("{csp}; frame-ancestors 'none'");
            if let Ok(v) = HeaderValue::from_str(&policy) {
                res.headers_mut().insert(header::CONTENT_SECURITY_POLICY, v);
            }
            res
        }
        Ok(Err(e)) => {
            let status = match e.code {
                crate::error::ErrorCode::PtySessionNotFound | crate::error::ErrorCode::NotFound => {
                    StatusCode::NOT_FOUND
                }
                crate::error::ErrorCode::InvalidParams => StatusCode::BAD_REQUEST,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            fail(status, e.code.as_str(), &e.message)
        }
        Err(_) => fail(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            "the recording could not be read",
        ),
    }
}
