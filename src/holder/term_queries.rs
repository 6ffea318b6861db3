//! The terminal queries the holder answers itself (`answers`): device attributes, device
//! status and the cursor position, found by a small scanner in output fed in any chunks.

/// Longest CSI parameter string looked at.
const MAX_PARAMS: usize = 16;

/// A query the holder answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    /// Primary device attributes.
    Da1,
    /// Secondary device attributes.
    Da2,
    /// Device status.
    Status,
    /// Cursor position; `true` for the DEC form (`CSI ? 6 n`).
    Cursor(bool),
}

impl Query {
    /// The answer, with the cursor at (`row`, `col`), both 0-based.
    #[must_use]
    pub fn answer(self, (row, col): (usize, usize)) -> Vec<u8> {
        match self {
            // A VT100 with advanced video, as tmux and screen answer.
            Query::Da1 => b"\x1b[?1;2c".to_vec(),
            Query::Da2 => b"\x1b[>0;10;1c".to_vec(),
            Query::Status => b"\x1b[0n".to_vec(),
            Query::Cursor(false) => format!("\x1b[{};{}R", row + 1, col + 1).into_bytes(),
            Query::Cursor(true) => format!("\x1b[?{};{};1R", row + 1, col + 1).into_bytes(),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum State {
    #[default]
    Ground,
    Esc,
    Csi,
}

/// Finds the queries in output fed in any chunks.
#[derive(Debug, Clone, Default)]
pub struct QueryScanner {
    state: State,
    params: Vec<u8>,
}

impl QueryScanner {
    /// Feeds a chunk; returns each query found with the index just after its last byte.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<(usize, Query)> {
        let mut found = Vec::new();
        for (i, &b) in chunk.iter().enumerate() {
            if let Some(q) = self.byte(b) {
                found.push((i + 1, q));
            }
        }
        found
    }

    fn byte(&mut self, b: u8) -> Option<Query> {
        match (self.state, b) {
            (_, 0x1b) => {
                self.state = State::Esc;
                None
            }
            (_, 0x18 | 0x1a) | (State::Ground, _) => {
                self.state = State::Ground;
                None
            }
            (State::Esc, b'[') => {
                self.params.clear();
                self.state = State::Csi;
                None
            }
            (State::Esc, _) => {
                self.state = State::Ground;
                None
            }
            (State::Csi, 0x30..=0x3f) if self.params.len() < MAX_PARAMS => {
                self.params.push(b);
                None
            }
            (State::Csi, 0x00..=0x17 | 0x19 | 0x1c..=0x1f) => None,
            (State::Csi, _) => {
                self.state = State::Ground;
                query(&self.params, b)
            }
        }
    }
}

fn query(params: &[u8], fin: u8) -> Option<Query> {
    match (params, fin) {
        (b"" | b"0", b'c') => Some(Query::Da1),
        (b">" | b">0", b'c') => Some(Query::Da2),
        (b"5", b'n') => Some(Query::Status),
        (b"6", b'n') => Some(Query::Cursor(false)),
        (b"?6", b'n') => Some(Query::Cursor(true)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_answered_queries_are_found_split_anywhere() {
        let input = b"a\x1b[cb\x1b[0c\x1b[>c\x1b[>0c\x1b[5n\x1b[6n\x1b[?6n\x1b[1;2Hx\x1b[?1;2c";
        let want = vec![
            Query::Da1,
            Query::Da1,
            Query::Da2,
            Query::Da2,
            Query::Status,
            Query::Cursor(false),
            Query::Cursor(true),
        ];
        for cut in 0..=input.len() {
            let mut s = QueryScanner::default();
            let mut got: Vec<Query> = s.feed(&input[..cut]).into_iter().map(|q| q.1).collect();
            got.extend(s.feed(&input[cut..]).into_iter().map(|q| q.1));
            assert_eq!(got, want, "cut {cut}");
        }
        let mut s = QueryScanner::default();
        assert_eq!(s.feed(b"xx\x1b[6nyy"), vec![(6, Query::Cursor(false))]);
        assert_eq!(Query::Cursor(false).answer((4, 9)), b"\x1b[5;10R");
        assert_eq!(Query::Cursor(true).answer((0, 0)), b"\x1b[?1;1;1R");
    }

    proptest! {
        #[test]
        fn state_stays_bounded_and_text_is_never_a_query(input in proptest::collection::vec(any::<u8>(), 0..300)) {
            let mut s = QueryScanner::default();
            let found = s.feed(&input);
            prop_assert!(s.params.len() <= MAX_PARAMS);
            for (end, _) in found {
                prop_assert!(input[..end].contains(&0x1b));
            }
        }
    }
}
