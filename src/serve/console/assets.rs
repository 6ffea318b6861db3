//! The console's page and its script and style, built into the binary (no CDN, works offline),
//! each served with its type and a strong `ETag` (a browser that has it gets 304).

use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// A file the console serves.
struct Asset {
    name: &'static str,
    kind: &'static str,
    body: &'static [u8],
}

const ASSETS: [Asset; 3] = [
    Asset {
        name: "index.html",
        kind: "text/html; charset=utf-8",
        body: include_bytes!("assets/index.html"),
    },
    Asset {
        name: "console.js",
        kind: "text/javascript; charset=utf-8",
        body: include_bytes!("assets/console.js"),
    },
    Asset {
        name: "console.css",
        kind: "text/css; charset=utf-8",
        body: include_bytes!("assets/console.css"),
    },
];

/// Each asset's `ETag` (a hash of its bytes), in the order of [`ASSETS`].
fn etags() -> &'static [String; 3] {
    static TAGS: OnceLock<[String; 3]> = OnceLock::new();
    TAGS.get_or_init(|| {
        ASSETS.each_ref().map(|a| {
            let d = Sha256::digest(a.body);
            let hex: String = d[..16].iter().map(|b| format!("{b:02x}")).collect();
            format!("\"{hex}\"")
        })
    })
}

fn serve(i: usize, h: &HeaderMap) -> Response {
    let (a, tag) = (&ASSETS[i], &etags()[i]);
    let fresh = h
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag));
    let mut res = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        ([(header::CONTENT_TYPE, a.kind)], a.body).into_response()
    };
    let hs = res.headers_mut();
    if let Ok(v) = HeaderValue::from_str(tag) {
        hs.insert(header::ETAG, v);
    }
    hs.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    res
}

/// `GET /console/`: the page (it holds no session data: that comes over the WebSocket).
pub(super) async fn page(h: HeaderMap) -> Response {
    serve(0, &h)
}

/// `GET /console/assets/NAME`.
pub(super) async fn asset(Path(name): Path<String>, h: HeaderMap) -> Response {
    match ASSETS.iter().position(|a| a.name == name && is_asset(a)) {
        Some(i) => serve(i, &h),
        None => super::super::fail(StatusCode::NOT_FOUND, "NOT_FOUND", "no such console asset"),
    }
}

/// The page itself is served at `/console/`, not among the assets.
fn is_asset(a: &Asset) -> bool {
    a.name != "index.html"
}
