//! `kpty screenshot` (and the `screenshot` action over MCP) against a real shell: the SVG is
//! well-formed and shows the screen's colours, attributes, title and cursor; the text form is
//! the screen's rows; the PNG is that drawing in pixels (raw bytes to a file or a pipe,
//! refused on a terminal, base64 in JSON, an image item over MCP); `-o` writes the file; a
//! secret on screen is redacted on agent channels (`--json`, MCP) and shown as it is to the
//! person at the CLI. And `kpty::core::shot::anim::gif`, the animated GIF of a sequence of
//! screens, decoded.

use crate::support::*;
use base64::Engine;
use kpty::proto::screen::{Color, Row, ScreenBody, Span, Style};
use std::time::Duration;

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
    // A PNG is drawn from the redacted screen on agent channels only: the same screen drawn
    // twice is the same image, the redacted one another.
    let png = || {
        env.kpty(&["screenshot", "-s", &id, "--format", "png"])
            .stdout
    };
    let mine = png();
    assert_eq!(
        decode_png(&mine),
        decode_png(&png()),
        "drawing is deterministic"
    );
    let agent = base64_of(&env.ok_json(&["screenshot", "-s", &id, "--format", "png"]));
    assert_ne!(decode_png(&agent).2, decode_png(&mine).2);
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
    // A PNG: base64 in the JSON, and the same image as an image item.
    let args = serde_json::json!({"action": "screenshot", "session_id": id, "format": "png"});
    let v = m.json(args.clone()).await;
    assert_eq!(
        (&v["format"], &v["encoding"]),
        (&"png".into(), &"base64".into()),
        "{v}"
    );
    let (w, h, _) = decode_png(&base64_of(&v));
    let (cols, rows) = (
        v["cols"].as_u64().unwrap_or(0),
        v["rows"].as_u64().unwrap_or(0),
    );
    assert_eq!(
        (u64::from(w), u64::from(h)),
        ((cols * 84).div_ceil(10), rows * 17),
        "{v}"
    );
    let r = m.call(args).await;
    let item = r
        .content
        .get(1)
        .and_then(|c| c.as_image())
        .expect("an image item");
    let structured = r.structured_content.as_ref().expect("structured content");
    assert_eq!(item.mime_type, "image/png");
    assert_eq!(Some(item.data.as_str()), structured["image"].as_str());
    let v = m
        .json(serde_json::json!({"action": "screenshot", "session_id": id, "format": "bmp"}))
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

/// A `--json` screenshot's image, decoded from base64.
fn base64_of(v: &serde_json::Value) -> Vec<u8> {
    let image = v["image"].as_str().unwrap_or_default();
    base64::engine::general_purpose::STANDARD
        .decode(image)
        .unwrap_or_else(|e| panic!("{e}: {v}"))
}

/// A PNG decoded: (width, height, RGB pixels).
fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "the PNG signature");
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("its pixels");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// How many pixels of an RGB image are exactly `rgb`.
fn count(pixels: &[u8], rgb: [u8; 3]) -> usize {
    pixels.chunks_exact(3).filter(|p| *p == rgb).count()
}

#[test]
fn a_png_screenshot_is_the_screen_in_pixels_in_a_file_a_pipe_or_base64() {
    let env = Env::new();
    let id = env.create(&["--cols", "60", "--rows", "8"]);
    env.talk(
        &id,
        r"printf '\033[41m          \033[0m \033[1;32mgreen\033[0m\n'",
    );
    // -o: the PNG's bytes, 8.4×17 px a cell.
    let file = env.home().join("screen.png");
    let out = env.kpty(&[
        "screenshot",
        "-s",
        &id,
        "--format",
        "png",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let bytes = std::fs::read(&file).unwrap();
    let (w, h, pixels) = decode_png(&bytes);
    assert_eq!((w, h), (504, 136));
    // Ten cells of red background: about 10 × 8.4 × 17 pixels exactly red.
    let red = count(&pixels, [205, 0, 0]);
    assert!((1000..=1500).contains(&red), "{red} red pixels");
    // Bold green text brightens to the bright green.
    assert!(count(&pixels, [0, 255, 0]) > 10, "the green text");
    // A pipe gets the same kind of bytes; --json carries them in base64.
    let piped = env.kpty(&["screenshot", "-s", &id, "--format", "png"]);
    assert!(piped.status.success(), "{}", stderr(&piped));
    assert_eq!(decode_png(&piped.stdout).0, 504);
    let v = env.ok_json(&["screenshot", "-s", &id, "--format", "png"]);
    assert_eq!(
        (
            v["format"].as_str(),
            v["encoding"].as_str(),
            v["cols"].as_u64()
        ),
        (Some("png"), Some("base64"), Some(60)),
        "{v}"
    );
    let (w, h, pixels) = decode_png(&base64_of(&v));
    assert_eq!((w, h), (504, 136));
    assert!(count(&pixels, [205, 0, 0]) >= 1000);
    // Text formats carry no encoding.
    let v = env.ok_json(&["screenshot", "-s", &id]);
    assert!(v.get("encoding").is_none(), "{v}");
}

#[test]
fn a_png_is_not_printed_to_a_terminal() {
    let env = Env::new();
    let id = env.create(&[]);
    let mut tty = crate::tty::Tty::kpty(
        &env,
        &["screenshot", "-s", &id, "--format", "png"],
        (100, 10),
    );
    tty.expect("-o FILE");
    assert_eq!(tty.exit_code(), 115);
    assert!(!tty.seen().contains("IHDR"), "no image: {:?}", tty.seen());
}

/// A one-row screen showing `text`, red on the default background.
fn frame(text: &str) -> ScreenBody {
    ScreenBody {
        cols: 20,
        rows: 2,
        cursor: Some((1, 0)),
        title: None,
        lines: vec![
            Row {
                wrapped: false,
                spans: vec![Span {
                    text: text.into(),
                    width: text.chars().count() as u16,
                    style: Style {
                        fg: Some(Color::Indexed(1)),
                        ..Style::default()
                    },
                }],
            },
            Row::default(),
        ],
    }
}

#[test]
fn an_animated_gif_shows_each_screen_for_its_time_merging_alike_ones() {
    use kpty::core::shot::anim::{MIN_DELAY_MS, gif};
    let ms = Duration::from_millis;
    let titled = ScreenBody {
        title: Some("a title is not drawn".into()),
        ..frame("$ ls")
    };
    let frames = [
        (frame("$"), ms(500)),
        (frame("$ l"), ms(200)),
        (frame("$ ls"), ms(100)),
        (titled, ms(300)),
        (frame("$ ls"), ms(1000)),
        // Gone before a viewer could show it: the next screen takes its place.
        (frame("$ ls -"), ms(MIN_DELAY_MS / 2)),
        (frame("$ ls -l"), ms(2000)),
    ];
    let bytes = gif(&frames).expect("a GIF");
    let mut opts = ::gif::DecodeOptions::new();
    opts.set_color_output(::gif::ColorOutput::RGBA);
    let mut d = opts.read_info(std::io::Cursor::new(&bytes)).expect("a GIF");
    assert_eq!(
        (d.width(), d.height()),
        (168, 34),
        "20×2 cells of 8.4×17 px"
    );
    let mut delays = Vec::new();
    while let Some(f) = d.read_next_frame().expect("a frame") {
        delays.push(f.delay);
        // The first frame is the whole canvas; later ones only what changed (the text's end).
        if delays.len() > 1 {
            assert!(f.left > 0 && f.width < 168, "{}+{}", f.left, f.width);
        }
    }
    assert_eq!(delays, [50, 20, 140, 201]);
    assert!(gif(&[]).is_err(), "no screen, no animation");
}

#[test]
fn a_long_animation_is_capped_at_max_frames_and_keeps_its_time() {
    use kpty::core::shot::anim::{MAX_FRAMES, gif};
    // A new screen every 40 ms, a few more than the cap allows.
    let tick = |i: usize| (frame(&format!("{i}")), Duration::from_millis(40));
    let frames: Vec<_> = (0..MAX_FRAMES + 10).map(tick).collect();
    let bytes = gif(&frames).expect("a GIF");
    let mut d = ::gif::DecodeOptions::new()
        .read_info(std::io::Cursor::new(&bytes))
        .expect("a GIF");
    let mut delays = Vec::new();
    while let Some(f) = d.read_next_frame().expect("a frame") {
        delays.push(u64::from(f.delay));
    }
    assert!(
        delays.len() <= MAX_FRAMES && delays.len() >= MAX_FRAMES / 4,
        "{}",
        delays.len()
    );
    // Every hundredth of a second is still there (the last frame's own time included).
    assert_eq!(delays.iter().sum::<u64>(), (MAX_FRAMES as u64 + 10) * 4);
}
