//! A recording as one self-contained HTML page that plays it offline: asciinema-player
//! (3.17.0, Apache-2.0; vendored as released in `src/serve/console/assets/vendor/` with its
//! licence and sha256, fetched by its `refresh.sh`) with its script and style inlined and the
//! asciicast embedded, for `kpty rec export --format html` and the web console (which also
//! serves the player's two files as assets).
//!
//! The cast is untrusted text: it goes into the page as one JavaScript string literal in
//! which nothing can end the script or open a comment (`<`, `>`, `&`, quotes, backslashes,
//! control characters and U+2028/U+2029 are `\u` escapes). The page's content security
//! policy names each of its inline scripts and its style by sha256 and allows nothing else —
//! no network, no other script — but the player's WebAssembly terminal.

use sha2::{Digest, Sha256};

/// asciinema-player's script (`dist/bundle/asciinema-player.min.js`), as released.
pub(crate) const PLAYER_JS: &str =
    include_str!("../serve/console/assets/vendor/asciinema-player.min.js");

/// asciinema-player's style (`dist/bundle/asciinema-player.css`), as released.
pub(crate) const PLAYER_CSS: &str =
    include_str!("../serve/console/assets/vendor/asciinema-player.css");

/// The page's own style around the player.
const PAGE_CSS: &str = "html,body{margin:0;background:#121314}\
body{padding:16px}#player{max-width:1200px;margin:0 auto}";

/// The line of the page's boot script that holds the cast (its literal is the next line).
const CAST_LINE: &str = "const cast =\n";

/// One HTML page that plays `cast` — asciicast text (v3, or v2: a JSON header line, then one
/// JSON event a line) — in asciinema-player, titled `title`. Everything it needs is inside:
/// it opens from a file, without a network, and reaches none. `cast` and `title` may hold
/// anything (`</script>`, `<!--`, U+2028 …): both are escaped, and neither can run script.
/// The player starts on a click (or Space), fitting the window's width.
pub fn standalone_html(cast: &str, title: &str) -> String {
    standalone(cast, title).0
}

/// [`standalone_html`], and the content security policy the page carries (for a server that
/// sends it as a header too).
pub fn standalone(cast: &str, title: &str) -> (String, String) {
    let style = format!("{PLAYER_CSS}\n{PAGE_CSS}");
    let boot = format!(
        "{CAST_LINE}{};\nAsciinemaPlayer.create({{ data: cast }}, \
         document.getElementById(\"player\"), {{ fit: \"width\" }});\n",
        js_string(cast)
    );
    let csp = format!(
        "default-src 'none'; script-src {} {} 'wasm-unsafe-eval'; style-src {}; \
         base-uri 'none'; form-action 'none'",
        csp_hash(PLAYER_JS),
        csp_hash(&boot),
        csp_hash(&style)
    );
    let page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>{style}</style>\n</head>\n<body>\n\
         <!-- asciinema-player 3.17.0, Apache-2.0: https://github.com/asciinema/asciinema-player -->\n\
         <div id=\"player\"></div>\n<script>{PLAYER_JS}</script>\n<script>{boot}</script>\n\
         </body>\n</html>\n",
        title = html_text(title)
    );
    (page, csp)
}

/// `text` as a JSON (and JavaScript) string literal safe inside an HTML `<script>`: no `<`,
/// `>` or `&` (nothing can close the script or open a comment), no line terminator.
fn js_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' | '\0'..='\u{1f}' | '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `text` as HTML text (or a quoted attribute's value).
fn html_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The content security policy's source for an inline element whose text is `text`.
fn csp_hash(text: &str) -> String {
    format!("'sha256-{}'", base64(&Sha256::digest(text.as_bytes())))
}

/// Standard base64, padded.
fn base64(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let byte = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let n = (byte(0) << 16) | (byte(1) << 8) | byte(2);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(DIGITS[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "rec_html_tests.rs"]
mod tests;
