//! The fonts every PNG and GIF is drawn with: DejaVu Sans Mono Book and Bold, built into kpty
//! and loaded once, so that no system font is ever read and an image looks the same on every
//! machine. Their licence is `fonts/LICENSE` beside this file.

use resvg::usvg::{self, fontdb};
use skrifa::MetadataProvider;
use skrifa::instance::{LocationRef, Size};
use std::sync::{Arc, OnceLock};

/// The fonts, as the DejaVu project ships them.
const REGULAR: &[u8] = include_bytes!("fonts/DejaVuSansMono.ttf");
const BOLD: &[u8] = include_bytes!("fonts/DejaVuSansMono-Bold.ttf");
/// Their family, which the SVG names first.
pub(super) const FAMILY: &str = "DejaVu Sans Mono";

/// The fonts' database, made once per process.
pub(super) fn fonts() -> Arc<fontdb::Database> {
    static DB: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = fontdb::Database::new();
        for font in [REGULAR, BOLD] {
            db.load_font_source(fontdb::Source::Binary(Arc::new(font)));
        }
        // Whatever family the SVG names last (`monospace`), it is this one.
        db.set_monospace_family(FAMILY);
        db.set_sans_serif_family(FAMILY);
        db.set_serif_family(FAMILY);
        Arc::new(db)
    })
    .clone()
}

/// How resvg reads kpty's SVGs: with these fonts only.
pub(super) fn options() -> usvg::Options<'static> {
    usvg::Options {
        fontdb: fonts(),
        font_family: FAMILY.to_string(),
        ..usvg::Options::default()
    }
}

/// Whether the fonts have a glyph for `c` (resvg leaves out one they lack, and says so on
/// stderr).
pub(super) fn has(c: char) -> bool {
    static MAPS: OnceLock<Vec<skrifa::charmap::Charmap<'static>>> = OnceLock::new();
    MAPS.get_or_init(|| {
        [REGULAR, BOLD]
            .iter()
            .filter_map(|f| skrifa::FontRef::new(f).ok())
            .map(|f| f.charmap())
            .collect()
    })
    .iter()
    .any(|m| m.map(c).is_some())
}

/// Where a weight's decorations are drawn at 14 px: each line's centre above the baseline
/// (negative: below), and the lines' thickness — read from the font as resvg reads it.
pub(super) struct Lines {
    pub(super) underline: f64,
    pub(super) strike: f64,
    pub(super) thickness: f64,
}

/// The decoration lines of the regular or the bold font (`None` if the font has no metrics).
pub(super) fn lines(bold: bool) -> Option<&'static Lines> {
    static LINES: OnceLock<[Option<Lines>; 2]> = OnceLock::new();
    LINES.get_or_init(|| [read_lines(REGULAR), read_lines(BOLD)])[usize::from(bold)].as_ref()
}

/// usvg's decoration metrics of `font`, in font units rounded as it rounds them, at 14 px.
fn read_lines(font: &[u8]) -> Option<Lines> {
    let m = skrifa::FontRef::new(font)
        .ok()?
        .metrics(Size::unscaled(), LocationRef::default());
    let upem = f64::from(m.units_per_em);
    // usvg's fallbacks, in whole font units.
    let (low, thin) = (
        -f64::from(m.units_per_em / 9),
        f64::from(m.units_per_em / 12),
    );
    let x_height = m
        .x_height
        .filter(|x| *x > 0.0)
        .map_or(((m.ascent - m.descent) * 0.45).round(), f32::round);
    let strike = m
        .strikeout
        .map_or((x_height / 2.0).floor(), |d| d.offset.round());
    let (underline, thickness) = m.underline.map_or((low, thin), |d| {
        let t = f64::from(d.thickness.round());
        (f64::from(d.offset.round()), if t > 0.0 { t } else { thin })
    });
    let scale = 14.0 / upem;
    Some(Lines {
        underline: underline * scale,
        strike: f64::from(strike) * scale,
        thickness: thickness * scale,
    })
}
