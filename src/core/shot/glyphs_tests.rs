//! Stamped glyphs are the SVG's text: a screen drawn the fast way and the same screen's SVG
//! drawn whole by resvg are the same image, within antialiasing's rounding; and which runs
//! go the fast way.

use super::super::raster::Painter;
use super::super::svg::{DEFAULT_BG, svg};
use super::*;
use crate::proto::screen::{Color, Row, Style};

fn span(text: &str, style: Style) -> Span {
    Span {
        text: text.into(),
        width: text.chars().count() as u16,
        style,
    }
}

/// A screen of every kind of fast run: colours, bold, faint, inverse, underline, strike-out,
/// at every pixel phase, box drawing and accents; and one slow run (Arabic, which resvg
/// shapes), with the cursor.
fn screen() -> ScreenBody {
    let st = |fg: Option<Color>, bold, faint, inverse| Style {
        fg,
        bold,
        faint,
        inverse,
        ..Style::default()
    };
    let rows = [
        vec![
            span("$ cargo build --release", Style::default()),
            span(" ", Style::default()),
            span(
                "error[E0308]",
                st(Some(Color::Indexed(1)), true, false, false),
            ),
        ],
        vec![
            span(
                "┌──┤ größe: ÆØÅ λ→∞ • █▓░ ",
                st(Some(Color::Rgb(90, 200, 250)), false, false, false),
            ),
            span("faint", st(None, false, true, false)),
            span(" ", Style::default()),
            span("INV", st(Some(Color::Indexed(3)), false, false, true)),
        ],
        // Decorated runs of one cell: the comparison below cuts other runs into cells, and a
        // line cut at each cell would show its seams.
        vec![
            span("12345", Style::default()),
            span(
                "u",
                Style {
                    underline: true,
                    ..Style::default()
                },
            ),
            span(
                "s",
                Style {
                    strike: true,
                    ..Style::default()
                },
            ),
            span(
                "B",
                Style {
                    bold: true,
                    underline: true,
                    strike: true,
                    fg: Some(Color::Indexed(4)),
                    ..Style::default()
                },
            ),
            span("لا", Style::default()),
        ],
    ];
    ScreenBody {
        cols: 48,
        rows: 3,
        cursor: Some((2, 11)),
        title: None,
        lines: rows
            .into_iter()
            .map(|spans| Row {
                wrapped: false,
                spans,
            })
            .collect(),
    }
}

/// `body` with each run cut into runs of one cell: the SVG of that places every glyph by
/// itself, at its cell (resvg keeps a glyph's advance within a longer run — it only scales
/// the glyph to `textLength` — so its long runs drift right by 0.03 px a cell). Runs with a
/// background stay whole: cut, their rectangles' antialiased seams would show.
fn cell_by_cell(body: &ScreenBody) -> ScreenBody {
    let mut out = body.clone();
    for row in &mut out.lines {
        row.spans = row
            .spans
            .iter()
            .flat_map(|s| {
                let (_, bg) = super::super::svg::look(s.style);
                let cells: Vec<Span> = if fast(s) && bg.is_none() {
                    s.text
                        .chars()
                        .map(|c| span(&c.to_string(), s.style))
                        .collect()
                } else {
                    vec![s.clone()]
                };
                cells
            })
            .collect();
    }
    out
}

#[test]
fn stamped_glyphs_are_the_svgs_text() {
    let body = screen();
    let (w, h) = super::super::raster::pixels(&body);
    let fast = Painter::default().draw(&body, (w, h)).expect("drawn");
    let tree = usvg::Tree::from_str(&svg(&cell_by_cell(&body)), &fonts::options()).expect("SVG");
    let mut whole = Pixmap::new(w, h).expect("a pixmap");
    let (r, g, b) = DEFAULT_BG;
    whole.fill(resvg::tiny_skia::Color::from_rgba8(r, g, b, 255));
    resvg::render(&tree, Transform::identity(), &mut whole.as_mut());
    let diffs: Vec<u32> = fast
        .data()
        .iter()
        .zip(whole.data())
        .map(|(a, b)| u32::from(a.abs_diff(*b)))
        .collect();
    let worst = diffs.iter().copied().max().unwrap_or(0);
    let off = diffs.iter().filter(|d| **d > 8).count();
    let inked = whole
        .data()
        .chunks_exact(4)
        .filter(|p| (p[0], p[1], p[2]) != DEFAULT_BG)
        .count();
    assert!(inked > 2000, "the screen has ink: {inked}");
    // Where two glyphs' antialiased edges meet (or a line meets a glyph), resvg fills their
    // union in one pass and the stamps blend one after the other: a few channels differ, by a
    // little.
    assert!(
        off * 50 < inked * 3 && worst <= 48,
        "{off} channels differ by more than 8 (worst {worst}) over {inked} inked pixels"
    );
}

#[test]
fn runs_of_lone_glyphs_are_fast_and_the_rest_are_drawn_by_resvg() {
    let plain = Style::default();
    assert!(fast(&span("ls -la ~/src │ ✓ • ▶", plain)));
    let underlined = Style {
        underline: true,
        ..plain
    };
    assert!(fast(&span("link", underlined)));
    // Wide characters, combining marks and scripts that need shaping.
    let wide = Span {
        text: "日本".into(),
        width: 4,
        style: plain,
    };
    assert!(!fast(&wide));
    assert!(!fast(&span("e\u{301}", plain)));
    assert!(!fast(&span("مرحبا", plain)));
}

#[test]
fn an_underline_runs_the_length_of_its_run() {
    let underlined = Style {
        underline: true,
        ..Style::default()
    };
    let body = ScreenBody {
        cols: 10,
        rows: 1,
        cursor: None,
        title: None,
        lines: vec![Row {
            wrapped: false,
            spans: vec![span("  ", Style::default()), span("a  b", underlined)],
        }],
    };
    let pixmap = Painter::default().draw(&body, (84, 17)).expect("drawn");
    let lines = fonts::lines(false).expect("the font's lines");
    let y = (baseline(0.0) - lines.underline) as u32;
    let at = |x: u32| {
        let i = ((y * 84 + x) * 4) as usize;
        (pixmap.data()[i], pixmap.data()[i + 1], pixmap.data()[i + 2])
    };
    // Under the run (columns 2–5: px 16.8–50.4), across its blanks too; not past it.
    for x in 18..50 {
        assert_ne!(at(x), DEFAULT_BG, "x {x}");
    }
    assert_eq!((at(10), at(60)), (DEFAULT_BG, DEFAULT_BG));
}
