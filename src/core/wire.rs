//! From the holder's wire bodies (`proto`, closed sets as [`Open`] values) to the contract's
//! typed values (`api`). A spelling this build does not know (a newer holder's) is logged and
//! mapped to the neutral value rather than failing a call whose real work is done.

use crate::api::reply::{Cursor, Screen};
use crate::api::{BufferType, TerminalState};
use crate::proto::{Open, ScreenInfo};

/// The typed screen of a holder's [`ScreenInfo`].
pub fn screen(s: ScreenInfo) -> Screen {
    Screen {
        buffer_type: buffer_type(&s.buffer_type),
        title: s.title,
        cursor: Cursor {
            line: s.cursor.line,
            col: s.cursor.col,
        },
    }
}

/// A holder's `buffer_type` (`normal` when it is not one).
pub fn buffer_type(s: &Open<BufferType>) -> BufferType {
    s.or(BufferType::Normal)
}

/// A holder's `terminal_state` (`running` when it is not one: the neutral claim).
pub fn terminal_state(s: &Open<TerminalState>) -> TerminalState {
    s.or(TerminalState::Running)
}

/// A holder's optional `terminal_state`.
pub fn terminal_state_opt(s: Option<Open<TerminalState>>) -> Option<TerminalState> {
    s.as_ref().map(terminal_state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holder_spellings_map_to_the_contract() {
        assert_eq!(buffer_type(&"alternate".into()), BufferType::Alternate);
        assert_eq!(buffer_type(&"sideways".into()), BufferType::Normal);
        assert_eq!(
            terminal_state(&"full_screen".into()),
            TerminalState::FullScreen
        );
        assert_eq!(terminal_state(&"dreaming".into()), TerminalState::Running);
        assert_eq!(terminal_state_opt(None), None);
        let s = screen(ScreenInfo {
            buffer_type: "normal".into(),
            ..Default::default()
        });
        assert_eq!((s.buffer_type, s.cursor.line), (BufferType::Normal, 0));
    }
}
