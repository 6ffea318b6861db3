//! The PNG screenshot is the SVG's drawing: it decodes, has the SVG's size in pixels, a cell's
//! background is its colour, bold text is drawn heavier than normal, the cursor is drawn, and
//! its text is set in the fonts built into kpty.

use super::*;
use crate::proto::screen::{Color, Row, Span, Style};

/// The terminal's background as a pixel.
const BACKGROUND: [u8; 3] = [DEFAULT_BG.0, DEFAULT_BG.1, DEFAULT_BG.2];

/// A screen of `cols`×`rows` whose rows are `spans`.
fn screen(cols: u16, rows: u16, lines: Vec<Vec<Span>>) -> ScreenBody {
    ScreenBody {
        cols,
        rows,
        cursor: None,
        title: None,
        lines: lines
            .into_iter()
            .map(|spans| Row {
                wrapped: false,
                spans,
            })
            .collect(),
    }
}

fn span(text: &str, style: Style) -> Span {
    Span {
        text: text.into(),
        width: text.chars().count() as u16,
        style,
    }
}

/// The PNG decoded: (width, height, RGB pixels).
fn decode(png: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("its pixels");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// The pixel at (x, y) of a decoded RGB image `w` wide.
fn at(rgb: &[u8], w: u32, (x, y): (u32, u32)) -> [u8; 3] {
    let i = ((y * w + x) * 3) as usize;
    [rgb[i], rgb[i + 1], rgb[i + 2]]
}

/// How many pixels of the image are not the background.
fn inked(rgb: &[u8]) -> usize {
    rgb.chunks_exact(3).filter(|p| *p != BACKGROUND).count()
}

#[test]
fn the_png_has_the_svgs_size_and_a_cells_background_is_its_colour() {
    let red = Style {
        bg: Some(Color::Indexed(1)),
        ..Style::default()
    };
    let body = screen(
        10,
        3,
        vec![
            vec![span("ab", Style::default())],
            vec![span("xx", Style::default()), span("  ", red)],
        ],
    );
    let (w, h, rgb) = decode(&png(&body).expect("a PNG"));
    assert_eq!((w, h), (84, 51));
    // The centre of cell (row 1, column 2): the red run.
    let centre = |col: f64, row: f64| ((col + 0.5) * CELL_W, (row + 0.5) * CELL_H);
    let (x, y) = centre(2.0, 1.0);
    assert_eq!(at(&rgb, w, (x as u32, y as u32)), [205, 0, 0]);
    // Elsewhere, away from the text: the terminal's background.
    let (x, y) = centre(8.0, 2.0);
    assert_eq!(at(&rgb, w, (x as u32, y as u32)), BACKGROUND);
}

#[test]
fn text_is_drawn_in_the_built_in_fonts_and_bold_is_heavier() {
    let db = fonts::fonts();
    let families: Vec<&str> = db
        .faces()
        .flat_map(|f| f.families.iter().map(|(name, _)| name.as_str()))
        .collect();
    assert_eq!(families, [fonts::FAMILY; 2], "Book and Bold, nothing else");
    let bold = Style {
        bold: true,
        ..Style::default()
    };
    let draw = |style| {
        let body = screen(12, 1, vec![vec![span("MWMWMWMWMWMW", style)]]);
        decode(&png(&body).expect("a PNG")).2
    };
    let (normal, heavy) = (draw(Style::default()), draw(bold));
    assert!(
        inked(&normal) > 300,
        "the text was drawn: {}",
        inked(&normal)
    );
    assert!(
        inked(&heavy) > inked(&normal) * 11 / 10,
        "bold {} vs normal {}",
        inked(&heavy),
        inked(&normal)
    );
}

#[test]
fn the_cursor_is_drawn_as_an_outline() {
    let mut body = screen(4, 2, vec![vec![], vec![]]);
    let bare = decode(&png(&body).expect("a PNG")).2;
    assert_eq!(inked(&bare), 0, "an empty screen is all background");
    body.cursor = Some((1, 2));
    let (w, _, rgb) = decode(&png(&body).expect("a PNG"));
    assert!(inked(&rgb) > 20, "{}", inked(&rgb));
    // The outline, not a block: the cell's centre stays the background.
    let (x, y) = (2.5 * CELL_W, 1.5 * CELL_H);
    assert_eq!(at(&rgb, w, (x as u32, y as u32)), BACKGROUND);
}

#[test]
fn pixels_agree_with_the_svgs_size_as_resvg_reads_it() {
    for (cols, rows) in [
        (1, 1),
        (2, 1),
        (3, 7),
        (5, 2),
        (80, 24),
        (81, 25),
        (200, 50),
        (999, 3),
    ] {
        let body = screen(cols, rows, vec![]);
        let svg = super::super::svg::svg(&body);
        let tree = usvg::Tree::from_str(&svg, &usvg::Options::default()).expect("SVG");
        // Rounded up: the last column is never cut (resvg's own size rounds to nearest).
        let size = tree.size();
        assert_eq!(
            pixels(&body),
            (size.width().ceil() as u32, size.height().ceil() as u32),
            "{cols}×{rows}"
        );
    }
}

#[test]
fn a_screen_too_large_to_draw_is_refused() {
    let e = png(&screen(1000, 1000, vec![])).expect_err("143 megapixels");
    assert_eq!(e.code, crate::error::ErrorCode::InvalidParams);
    assert!(e.message.contains("SVG"), "{}", e.message);
}

#[test]
fn a_character_the_fonts_lack_is_drawn_as_a_replacement_mark() {
    assert!(fonts::has('\u{fffd}') && fonts::has('─') && fonts::has('é'));
    assert!(!fonts::has('日'));
    let plain = Style::default();
    let cjk = Span {
        text: "日".into(),
        width: 2,
        style: plain,
    };
    let mark = Span {
        text: "\u{fffd}".into(),
        width: 2,
        style: plain,
    };
    let draw = |s: Span| decode(&png(&screen(4, 1, vec![vec![s]])).expect("a PNG")).2;
    let drawn = draw(cjk);
    assert!(inked(&drawn) > 20, "a mark, not a blank");
    assert_eq!(drawn, draw(mark));
}
