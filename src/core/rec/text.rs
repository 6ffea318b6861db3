//! A recording as text: its output played through kpty's screen model (the terminal the
//! holder keeps), every line that scrolled by and the last screen, trailing blanks trimmed —
//! what `asciinema convert -f txt` prints.

use super::Timed;
use crate::cast::Code;
use crate::holder::screen::{Mode, Query, Screen};

/// Lines of history kept while rendering.
const HISTORY: usize = 1_000_000;

/// Play `e` onto `screen`: output is fed, a resize (within kpty's bounds) applied; other
/// events do not change the screen. Returns whether `e` did.
pub fn play(screen: &mut Screen, e: &Timed) -> bool {
    match e.code {
        Code::Output => screen.feed(e.data.as_bytes()),
        Code::Resize => match crate::cast::Event::size_of(&e.data) {
            Some((c, r)) => screen.resize(
                c.clamp(1, crate::api::MAX_COLS),
                r.clamp(1, crate::api::MAX_ROWS),
            ),
            None => return false,
        },
        _ => return false,
    }
    true
}

/// The text of `events` on a terminal of `size`: each line once, as it was left.
pub fn render(events: &[Timed], (cols, rows): (u16, u16)) -> String {
    let mut screen = Screen::new(cols.max(1), rows.max(1), HISTORY);
    for e in events {
        play(&mut screen, e);
    }
    let q = Query {
        mode: Mode::Tail,
        max_lines: HISTORY,
        max_chars: usize::MAX,
        merge_wrapped: true,
        marker_id: None,
    };
    match screen.read(&q) {
        Ok(v) => {
            let mut text = v.lines.join("\n");
            if !text.is_empty() {
                text.push('\n');
            }
            text
        }
        Err(_) => String::new(),
    }
}
