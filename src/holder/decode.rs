//! What the screen is fed through: a split-safe UTF-8 decoder and a tiny OSC 0/2 title
//! scanner (avt drops titles).

/// Longest title kept (bytes).
const MAX_TITLE: usize = 512;

/// Split-safe UTF-8: decode `chunk` (after what `carry` holds) into `out`, keeping an
/// incomplete tail for the next chunk; invalid bytes become U+FFFD. (CRATES.md §3.)
pub(super) fn decode_utf8(carry: &mut Vec<u8>, chunk: &[u8], out: &mut String) {
    out.clear();
    carry.extend_from_slice(chunk);
    let mut used = 0;
    for part in carry.utf8_chunks() {
        out.push_str(part.valid());
        let bad = part.invalid();
        used += part.valid().len() + bad.len();
        if !bad.is_empty() {
            let need = match bad[0] {
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF4 => 4,
                _ => 0,
            };
            if used == carry.len() && bad.len() < need {
                used -= bad.len(); // an incomplete tail: wait for the rest
            } else {
                out.push('\u{FFFD}');
            }
        }
    }
    carry.drain(..used);
}

/// Finds OSC 0 / OSC 2 (window title) in a byte stream fed in arbitrary chunks.
#[derive(Debug, Default)]
pub(super) struct TitleScanner {
    state: TState,
    num: u32,
    buf: Vec<u8>,
    title: Option<String>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum TState {
    #[default]
    Ground,
    Esc,
    Num,
    Text,
    TextEsc,
    Skip,
    SkipEsc,
}

impl TitleScanner {
    /// Feed output bytes (any chunking).
    pub(super) fn feed(&mut self, chunk: &[u8]) {
        let mut i = 0;
        while i < chunk.len() {
            if self.state == TState::Ground {
                match chunk[i..].iter().position(|&b| b == 0x1b) {
                    Some(p) => {
                        i += p + 1;
                        self.state = TState::Esc;
                    }
                    None => return,
                }
                continue;
            }
            let b = chunk[i];
            i += 1;
            self.state = match (self.state, b) {
                (TState::Esc, b']') => {
                    self.num = 0;
                    TState::Num
                }
                (TState::Esc, 0x1b) => TState::Esc,
                (TState::Esc, _) => TState::Ground,
                (TState::Num, b'0'..=b'9') => {
                    self.num = (self.num * 10 + u32::from(b - b'0')).min(10_000);
                    TState::Num
                }
                (TState::Num, b';') if self.num == 0 || self.num == 2 => {
                    self.buf.clear();
                    TState::Text
                }
                (TState::Num, 0x07) => TState::Ground,
                (TState::Num, _) => TState::Skip,
                (TState::Text, 0x07) => {
                    self.finish();
                    TState::Ground
                }
                (TState::Text | TState::TextEsc, 0x1b) => TState::TextEsc,
                (TState::TextEsc, b'\\') => {
                    self.finish();
                    TState::Ground
                }
                (TState::TextEsc, _) => TState::Ground,
                (TState::Text, 0x18 | 0x1a) => TState::Ground,
                (TState::Text, _) => {
                    if self.buf.len() < MAX_TITLE {
                        self.buf.push(b);
                    }
                    TState::Text
                }
                (TState::Skip, 0x07) => TState::Ground,
                (TState::Skip | TState::SkipEsc, 0x1b) => TState::SkipEsc,
                (TState::SkipEsc, _) => TState::Ground,
                (TState::Skip, _) => TState::Skip,
                (TState::Ground, _) => TState::Ground,
            };
        }
    }

    /// The last title seen.
    pub(super) fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    fn finish(&mut self) {
        let t = String::from_utf8_lossy(&self.buf).into_owned();
        self.title = Some(t);
    }
}
