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

const ASSETS: [Asset; 11] = [
    Asset {
        name: "index.html",
        kind: HTML,
        body: include_bytes!("assets/index.html"),
    },
    Asset {
        name: "term.html",
        kind: HTML,
        body: include_bytes!("assets/term.html"),
    },
    Asset {
        name: "console.js",
        kind: JS,
        body: include_bytes!("assets/console.js"),
    },
    Asset {
        name: "term.js",
        kind: JS,
        body: include_bytes!("assets/term.js"),
    },
    Asset {
        name: "console.css",
        kind: CSS,
        body: include_bytes!("assets/console.css"),
    },
    // xterm.js 6.0.0 and its fit and search addons, as released (MIT; see assets/vendor/, whose
    // refresh.sh fetches them and checks their sha256).
    Asset {
        name: "xterm.js",
        kind: JS,
        body: include_bytes!("assets/vendor/xterm.js"),
    },
    Asset {
        name: "xterm.css",
        kind: CSS,
        body: include_bytes!("assets/vendor/xterm.css"),
    },
    Asset {
        name: "addon-fit.js",
        kind: JS,
        body: include_bytes!("assets/vendor/addon-fit.js"),
    },
    Asset {
        name: "addon-search.js",
        kind: JS,
        body: include_bytes!("assets/vendor/addon-search.js"),
    },
    // asciinema-player 3.17.0, as released (Apache-2.0; vendored beside xterm.js, by the same
    // refresh.sh): the very bytes a recording's HTML page inlines.
    Asset {
        name: "asciinema-player.min.js",
        kind: JS,
        body: crate::core::rec_html::PLAYER_JS.as_bytes(),
    },
    Asset {
        name: "asciinema-player.css",
        kind: CSS,
        body: crate::core::rec_html::PLAYER_CSS.as_bytes(),
    },
];

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

/// Each asset's `ETag` (a hash of its bytes), in the order of [`ASSETS`].
fn etags() -> &'static [String; ASSETS.len()] {
    static TAGS: OnceLock<[String; ASSETS.len()]> = OnceLock::new();
    TAGS.get_or_init(|| {
        ASSETS.each_ref().map(|a| {
            let d = Sha256::digest(a.body);
            let hex = hex::encode(&d[..16]);
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

/// `GET /console/session/ID`: the terminal view (its session's output comes over its
/// WebSocket; the page holds nothing of it).
pub(super) async fn terminal_page(h: HeaderMap) -> Response {
    serve(1, &h)
}

/// `GET /console/assets/NAME`.
pub(super) async fn asset(Path(name): Path<String>, h: HeaderMap) -> Response {
    match ASSETS.iter().position(|a| a.name == name && is_asset(a)) {
        Some(i) => serve(i, &h),
        None => super::super::fail(StatusCode::NOT_FOUND, "NOT_FOUND", "no such console asset"),
    }
}

/// The pages are served at their own paths, not among the assets.
fn is_asset(a: &Asset) -> bool {
    !a.name.ends_with(".html")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vendored files are the released ones `assets/vendor/refresh.sh` fetched: each
    /// matches its line in `SHA256SUMS`, and so do their licences.
    #[test]
    fn the_vendored_files_are_the_released_ones() {
        let sums = include_str!("assets/vendor/SHA256SUMS");
        let want = |name: &str| {
            sums.lines()
                .find_map(|l| l.strip_suffix(name)?.split_whitespace().next())
                .unwrap_or_else(|| panic!("{name} in SHA256SUMS"))
                .to_string()
        };
        let hex = |b: &[u8]| -> String { hex::encode(Sha256::digest(b)) };
        let licences: [(&str, &[u8]); 4] = [
            (
                "LICENSE-xterm",
                include_bytes!("assets/vendor/LICENSE-xterm"),
            ),
            (
                "LICENSE-addon-fit",
                include_bytes!("assets/vendor/LICENSE-addon-fit"),
            ),
            (
                "LICENSE-addon-search",
                include_bytes!("assets/vendor/LICENSE-addon-search"),
            ),
            (
                "LICENSE-asciinema-player",
                include_bytes!("assets/vendor/LICENSE-asciinema-player"),
            ),
        ];
        let vendored = ASSETS
            .iter()
            .filter(|a| VENDORED.contains(&a.name))
            .map(|a| (a.name, a.body));
        let mut n = 0;
        for (name, body) in vendored.chain(licences) {
            assert_eq!(hex(body), want(name), "{name}");
            n += 1;
        }
        assert_eq!(n, 10);
        assert_eq!(
            n,
            sums.lines().count(),
            "every file in SHA256SUMS is checked"
        );
    }

    const VENDORED: [&str; 6] = [
        "xterm.js",
        "xterm.css",
        "addon-fit.js",
        "addon-search.js",
        "asciinema-player.min.js",
        "asciinema-player.css",
    ];
}
