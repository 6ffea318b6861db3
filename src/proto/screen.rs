//! `Screen`: the visible screen as cells' runs — text with its colours and attributes, the
//! cursor and the title — for a screenshot (`kpty screenshot`, the `screenshot` action).

use serde::{Deserialize, Serialize};

/// `Screen`: the visible screen, styled. Holders older than it answer an "unknown request"
/// error.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ScreenRequest {}

/// What `Screen` returns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScreenBody {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// The cursor (row, column from 0), when it is shown.
    pub cursor: Option<(u16, u16)>,
    /// The window title the program set.
    pub title: Option<String>,
    /// Each row of the screen, top first.
    pub lines: Vec<Row>,
}

/// One row of the screen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Row {
    /// The row goes on in the next one (the terminal wrapped it).
    pub wrapped: bool,
    /// Its runs of cells that look the same, left to right, covering the whole row.
    pub spans: Vec<Span>,
}

/// A run of cells with one look.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Span {
    /// The characters (a wide character takes two columns).
    pub text: String,
    /// The columns it takes.
    pub width: u16,
    /// How it looks.
    #[serde(skip_serializing_if = "Style::is_plain")]
    pub style: Style,
}

/// How a run of cells looks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Style {
    /// Foreground; `None`: the terminal's default.
    pub fg: Option<Color>,
    /// Background; `None`: the terminal's default.
    pub bg: Option<Color>,
    pub bold: bool,
    pub faint: bool,
    pub italic: bool,
    pub underline: bool,
    pub strike: bool,
    /// Foreground and background swapped.
    pub inverse: bool,
}

impl Style {
    /// The terminal's default look.
    pub fn is_plain(&self) -> bool {
        *self == Style::default()
    }
}

/// A colour: one of the 256 of the palette, or RGB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Color {
    Indexed(u8),
    Rgb(u8, u8, u8),
}
