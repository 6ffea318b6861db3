//! Screenshots over generated screens: whatever the cells hold (markup characters, quotes,
//! controls, wide characters), the SVG is well-formed XML whose texts are the screen's; the
//! text form is the screen's rows; a secret on screen is gone once redacted.

use super::svg::{DEFAULT_BG, hex, look, rgb, xml};
use super::*;
use crate::proto::screen::Color;
use proptest::prelude::*;

fn color() -> impl Strategy<Value = Option<Color>> {
    prop_oneof![
        Just(None),
        any::<u8>().prop_map(|i| Some(Color::Indexed(i))),
        any::<(u8, u8, u8)>().prop_map(|(r, g, b)| Some(Color::Rgb(r, g, b))),
    ]
}

fn style() -> impl Strategy<Value = Style> {
    (color(), color(), any::<[bool; 6]>()).prop_map(|(fg, bg, f)| Style {
        fg,
        bg,
        bold: f[0],
        faint: f[1],
        italic: f[2],
        underline: f[3],
        strike: f[4],
        inverse: f[5],
    })
}

fn span() -> impl Strategy<Value = Span> {
    ("(\\PC|[<>&\"'\\x00-\\x1f\\u{fffe}])\\PC{0,6}", style()).prop_map(|(text, style)| Span {
        width: u16::try_from(text.chars().count()).unwrap_or(u16::MAX),
        text,
        style,
    })
}

fn screen() -> impl Strategy<Value = ScreenBody> {
    (
        proptest::collection::vec(proptest::collection::vec(span(), 0..5), 1..6),
        proptest::option::of("\\PC{0,12}"),
        proptest::option::of((0u16..6, 0u16..40)),
    )
        .prop_map(|(rows, title, cursor)| {
            let lines: Vec<Row> = rows
                .into_iter()
                .map(|spans| Row {
                    wrapped: false,
                    spans,
                })
                .collect();
            let cols = lines
                .iter()
                .map(|r| r.spans.iter().map(|s| s.width).sum::<u16>())
                .max()
                .unwrap_or(0);
            ScreenBody {
                cols,
                rows: lines.len() as u16,
                cursor,
                title,
                lines,
            }
        })
}

/// What XML can carry of `s` as `xml` writes it.
fn carried(s: &str) -> String {
    roxmltree::Document::parse(&format!("<t>{}</t>", xml(s)))
        .expect("escaped text parses")
        .root_element()
        .text()
        .unwrap_or_default()
        .to_string()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_svg_is_well_formed_and_shows_every_run(body in screen()) {
        let image = svg(&body);
        let doc = roxmltree::Document::parse(&image);
        prop_assert!(doc.is_ok(), "{:?}\n{}", doc.err(), image);
        let doc = doc.unwrap();
        let texts: Vec<String> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| n.text().unwrap_or_default().to_string())
            .collect();
        let expected: Vec<String> = body
            .lines
            .iter()
            .flat_map(|r| &r.spans)
            .filter(|s| !s.text.trim().is_empty())
            .map(|s| carried(&s.text))
            .collect();
        prop_assert_eq!(texts, expected);
        let title = doc.descendants().find(|n| n.has_tag_name("title")).and_then(|n| n.text().map(str::to_string));
        prop_assert_eq!(title.is_some() || body.title.as_deref().is_some_and(|t| carried(t).is_empty()), body.title.is_some());
        let cursor = doc.descendants().any(|n| n.attribute("class") == Some("cursor"));
        prop_assert_eq!(cursor, body.cursor.is_some());
        // The text form: one line per row.
        prop_assert_eq!(txt(&body).lines().count(), body.lines.len());
    }
}

#[test]
fn colours_follow_the_xterm_palette_and_bold_brightens_the_system_ones() {
    let css = |c, bold| rgb(c, bold).map(hex);
    assert_eq!(
        css(Some(Color::Indexed(1)), false).as_deref(),
        Some("#cd0000")
    );
    assert_eq!(
        css(Some(Color::Indexed(1)), true).as_deref(),
        Some("#ff0000")
    );
    assert_eq!(
        css(Some(Color::Indexed(16)), false).as_deref(),
        Some("#000000")
    );
    assert_eq!(
        css(Some(Color::Indexed(231)), false).as_deref(),
        Some("#ffffff")
    );
    assert_eq!(
        css(Some(Color::Indexed(232)), false).as_deref(),
        Some("#080808")
    );
    assert_eq!(
        css(Some(Color::Rgb(1, 2, 3)), true).as_deref(),
        Some("#010203")
    );
    assert_eq!(css(None, true), None);
    // Inverse: the text takes the background (the terminal's when there is none).
    let inverse = Style {
        fg: Some(Color::Indexed(2)),
        inverse: true,
        ..Style::default()
    };
    assert_eq!(look(inverse), (DEFAULT_BG, Some((0, 205, 0))));
}

#[test]
fn a_secret_on_screen_is_redacted_and_drawn_plain() {
    let token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
    let red = Style {
        fg: Some(Color::Indexed(1)),
        ..Style::default()
    };
    let row = |text: &str, style| Row {
        wrapped: false,
        spans: vec![Span {
            text: text.into(),
            width: text.chars().count() as u16,
            style,
        }],
    };
    let mut body = ScreenBody {
        cols: 60,
        rows: 2,
        cursor: None,
        title: None,
        lines: vec![row(&format!("export T={token}"), red), row("ok", red)],
    };
    redact(&mut body);
    let image = svg(&body);
    assert!(!image.contains(token), "{image}");
    assert!(image.contains("[REDACTED:"), "{image}");
    assert_eq!(body.lines[0].spans[0].style, Style::default());
    assert_eq!(
        body.lines[1].spans[0].style, red,
        "an untouched row keeps its look"
    );
}
