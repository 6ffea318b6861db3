//! `kpty screenshot` (and the `screenshot` action over MCP) against a real shell: the SVG is
//! well-formed and shows the screen's colours, attributes, title and cursor; the text form is
//! the screen's rows; `-o` writes the file; a secret on screen is redacted on agent channels
//! (`--json`, MCP) and shown as it is to the person at the CLI.

use crate::support::*;

const TOKEN: &str = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";

/// The `text` elements of an SVG: (text, fill, bold, underline).
fn texts(svg: &str) -> Vec<(String, String, bool, bool)> {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{e}: {svg}"));
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            (
                n.text().unwrap_or_default().to_string(),
                n.attribute("fill").unwrap_or_default().to_string(),
                n.attribute("font-weight") == Some("bold"),
                n.attribute("text-decoration")
                    .is_some_and(|d| d.contains("underline")),
            )
        })
        .collect()
}

#[test]
fn a_screenshot_shows_the_screen_with_its_colours_title_and_cursor() {
    let env = Env::new();
    let id = env.create(&["--cols", "60", "--rows", "8"]);
    env.talk(
        &id,
        r"printf '\033]2;shot title\007'; printf '\033[1;31mRED\033[0m \033[4munder\033[0m plain\n'",
    );
    let svg = env.ok(&["screenshot", "-s", &id]);
    let t = texts(&svg);
    assert!(
        t.iter()
            .any(|(s, fill, bold, _)| s == "RED" && fill == "#ff0000" && *bold),
        "{t:?}"
    );
    assert!(t.iter().any(|(s, _, _, u)| s == "under" && *u), "{t:?}");
    assert!(svg.contains("<title>shot title</title>"), "{svg}");
    assert!(svg.contains("class=\"cursor\""), "{svg}");
    // The text form: the rows as the screen has them.
    let txt = env.ok(&["screenshot", "-s", &id, "--format", "txt"]);
    assert_eq!(txt.lines().count(), 8, "{txt}");
    assert!(txt.lines().any(|l| l == "RED under plain"), "{txt}");
    // -o writes the file and prints nothing.
    let file = env.home().join("screen.svg");
    let out = env.kpty(&["screenshot", "-s", &id, "-o", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
    assert_eq!(texts(&std::fs::read_to_string(&file).unwrap()), t);
    // --json: the image and what it shows.
    let v = env.ok_json(&["screenshot", "-s", &id, "--format", "txt"]);
    assert_eq!(
        (v["format"].as_str(), v["cols"].as_u64(), v["rows"].as_u64()),
        (Some("txt"), Some(60), Some(8)),
        "{v}"
    );
    assert_eq!(v["title"], "shot title");
    // An unknown session is the usual error.
    env.fails(
        &["screenshot", "-s", "pty_00000000"],
        119,
        "PTY_SESSION_NOT_FOUND",
    );
}

#[test]
fn a_secret_on_screen_is_redacted_on_agent_channels_only() {
    let env = Env::new();
    let id = with_token_on_screen(&env);
    for format in ["svg", "txt"] {
        let mine = env.ok(&["screenshot", "-s", &id, "--format", format]);
        assert!(
            mine.contains(TOKEN),
            "the person's own screenshot is as the screen is"
        );
        let v = env.ok_json(&["screenshot", "-s", &id, "--format", format]);
        let image = v["image"].as_str().unwrap_or_default();
        assert!(!image.contains(TOKEN), "{format}: {image}");
        assert!(
            image.contains("[REDACTED:github_token]"),
            "{format}: {image}"
        );
    }
}

/// The token on the screen of a new session.
fn with_token_on_screen(env: &Env) -> String {
    let id = env.create(&[]);
    env.send_line(&id, &format!("echo {TOKEN}"));
    wait_for(20_000, "the token on screen", || {
        env.ok(&["term-read", "-s", &id, "--mode", "viewport"])
            .lines()
            .any(|l| l.trim() == TOKEN)
    });
    id
}

#[tokio::test(flavor = "multi_thread")]
async fn over_mcp_a_screenshot_is_redacted_and_an_unknown_format_refused() {
    let env = Env::new();
    let id = with_token_on_screen(&env);
    let m = crate::mcp::start(&env).await;
    for format in ["svg", "txt"] {
        let v = m
            .json(serde_json::json!({"action": "screenshot", "session_id": id, "format": format}))
            .await;
        let image = v["image"].as_str().unwrap_or_default();
        assert!(
            !image.contains(TOKEN) && image.contains("[REDACTED:"),
            "{v}"
        );
    }
    let v = m
        .json(serde_json::json!({"action": "screenshot", "session_id": id, "format": "png"}))
        .await;
    assert_eq!(v["error_code"], "INVALID_PARAMS", "{v}");
    m.close().await;
}

#[test]
fn a_desktop_session_has_no_screenshot_and_says_so() {
    let (a, _b, id, serve) = crate::bridge::setup();
    let (code, v) = crate::bridge::with_secret(&a, Some(&serve.secret), &["screenshot", "-s", &id]);
    assert_eq!(code, Some(115), "{v}");
    assert_eq!(v["error_code"], "INVALID_PARAMS", "{v}");
    assert!(
        v["error"].as_str().is_some_and(|e| e.contains("term-read")),
        "{v}"
    );
}
