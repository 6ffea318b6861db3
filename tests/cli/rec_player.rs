//! A recording's standalone HTML page (`kpty::core::rec_html`) in a real headless chromium:
//! opened from a file, with no server, it plays the cast it holds — under its own content
//! security policy, whatever the cast says.

use crate::support::skip;
use serde_json::{Value, json};

/// A hand-written asciicast v3 (each event's time is the interval since the one before) whose
/// output tries to leave its script.
const CAST: &str = concat!(
    r#"{"version":3,"term":{"cols":80,"rows":24},"title":"demo"}"#,
    "\n",
    r#"[0.1, "o", "hello from the cast\r\n"]"#,
    "\n",
    r#"[0.1, "o", "</script><script>document.title='owned'</script><!-- \u2028 done\r\n"]"#,
    "\n",
    r#"[0.1, "x", "0"]"#,
    "\n",
);

/// In the page: wait until the player's text layer shows `arguments[0]`; returns that text
/// (bounded by the session's script timeout).
const TEXT_SHOWS: &str = r#"
const [text, done] = arguments;
const shown = () => { const e = document.querySelector('.ap-term-text'); return e ? e.textContent.replace(/\u00a0/g, ' ') : ''; };
if (shown().includes(text)) { done(shown()); return; }
const o = new MutationObserver(() => { if (shown().includes(text)) { o.disconnect(); done(shown()); } });
o.observe(document.body, { subtree: true, childList: true, characterData: true });
"#;

/// In the page: wait until `arguments[0]` matches an element; returns true.
const MATCHES: &str = r#"
const [sel, done] = arguments;
if (document.querySelector(sel)) { done(true); return; }
const o = new MutationObserver(() => { if (document.querySelector(sel)) { o.disconnect(); done(true); } });
o.observe(document.body, { subtree: true, childList: true, attributes: true });
"#;

/// In the page: from now on, keep what the content security policy refuses.
const WATCH_POLICY: &str = r#"
window.refused = [];
document.addEventListener('securitypolicyviolation', e => window.refused.push(e.effectiveDirective + ' ' + e.blockedURI));
"#;

/// In the page: add an inline script of its own; what it set (null: it did not run).
const INJECT: &str = r#"
const s = document.createElement('script');
s.textContent = 'window.injected = true';
document.body.appendChild(s);
s.remove();
return window.injected ?? null;
"#;

/// In the page: what the policy refused since `WATCH_POLICY`, once that is not empty (the
/// report is an event that comes after the refusal).
const REFUSED: &str = r#"
const done = arguments[0];
if (window.refused.length) { done(window.refused); return; }
document.addEventListener('securitypolicyviolation', () => done(window.refused), { once: true });
"#;

#[test]
fn a_standalone_recording_page_plays_its_cast_from_a_file() {
    let Some(b) = crate::webdriver::Browser::start() else {
        skip("chromium and chromedriver are not installed");
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("demo.html");
    let title = "demo </title><script>document.title='owned'</script>";
    let page = kpty::core::rec_html::standalone_html(CAST, title);
    std::fs::write(&file, page).expect("write the page");
    b.go(&format!("file://{}", file.display()));
    assert_eq!(b.run("return document.title", Value::Null), title);

    // The policy holds: a script the page did not bring does not run (and is reported).
    b.run(WATCH_POLICY, Value::Null);
    assert_eq!(
        b.run(INJECT, Value::Null),
        json!(null),
        "an injected script ran"
    );
    let refused = b.run_async(REFUSED, Value::Null);
    assert_eq!(refused, json!(["script-src-elem inline"]));

    // The player waits for a click; then the cast plays, its hostile line as text.
    let start = b.run_async(MATCHES, json!([".ap-overlay-start"]));
    assert_eq!(
        start, true,
        "the player's start overlay never showed: {start}"
    );
    b.click(".ap-overlay-start");
    let shown = b.run_async(TEXT_SHOWS, json!(["hello from the cast"]));
    let shown = shown
        .as_str()
        .unwrap_or_else(|| panic!("the player never showed the cast: {shown}"));
    assert!(shown.contains("hello from the cast"), "{shown}");
    let shown = b.run_async(TEXT_SHOWS, json!(["done"]));
    let shown = shown
        .as_str()
        .unwrap_or_else(|| panic!("the player never showed the second line: {shown}"));
    assert!(
        shown.contains("</script><script>document.title='owned'</script><!--"),
        "{shown}"
    );
    assert_eq!(b.run("return document.title", Value::Null), title);
    assert_eq!(
        b.run(
            "return document.querySelectorAll('script').length",
            Value::Null
        ),
        2
    );
}
