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

/// The longest unfinished control sequence kept to replay (an OSC or DCS string longer than
/// this is replayed as its opener alone, which puts a parser in the same state).
const MAX_PENDING: usize = 256;

/// Where the output stream stands between control sequences: the bytes of a sequence begun
/// but not finished. A redraw taken at that point ends with them, so a client that parses
/// the redraw and then the output that follows is in the same state as the screen model
/// (the rest of a sequence cut in two is not shown as text). Follows the escape states of
/// the DEC/ECMA-48 parser avt implements (vt100.net's "dec_ansi_parser"), 7-bit forms.
#[derive(Debug, Default)]
pub(super) struct PendingSeq {
    state: SState,
    bytes: Vec<u8>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum SState {
    #[default]
    Ground,
    Esc,
    Csi,
    /// OSC, DCS, SOS, PM, APC: a string that ends with BEL (OSC) or ESC \.
    Str,
    /// An ESC inside a string: `\` ends the string, anything else starts a new sequence.
    StrEsc,
}

impl PendingSeq {
    /// Feed output bytes (any chunking).
    pub(super) fn feed(&mut self, chunk: &[u8]) {
        let mut i = 0;
        while i < chunk.len() {
            if self.state == SState::Ground {
                match chunk[i..].iter().position(|&b| b == 0x1b) {
                    Some(p) => i += p,
                    None => return,
                }
            }
            let b = chunk[i];
            i += 1;
            self.step(b);
        }
    }

    fn step(&mut self, b: u8) {
        if self.state == SState::StrEsc && b != b'\\' {
            // The string ended at its ESC, which begins the next sequence.
            self.bytes.clear();
            self.bytes.push(0x1b);
            self.state = SState::Esc;
        }
        let next = match (self.state, b) {
            (SState::Str, 0x1b) => SState::StrEsc,
            (SState::StrEsc, _) => SState::Ground,
            // ESC starts a sequence anywhere.
            (_, 0x1b) => {
                self.bytes.clear();
                SState::Esc
            }
            // CAN and SUB cancel any sequence.
            (_, 0x18 | 0x1a) => SState::Ground,
            (SState::Esc, b'[') => SState::Csi,
            (SState::Esc, b']' | b'P' | b'X' | b'^' | b'_') => SState::Str,
            // Intermediates, DEL, and C0 controls executed inside a sequence keep it going.
            (SState::Esc, 0x00..=0x2f | 0x7f) => SState::Esc,
            (SState::Csi, 0x00..=0x3f | 0x7f) => SState::Csi,
            (SState::Esc | SState::Csi, _) => SState::Ground,
            (SState::Str, 0x07) => SState::Ground,
            (SState::Str, _) => SState::Str,
            (SState::Ground, _) => SState::Ground,
        };
        self.state = next;
        if next == SState::Ground {
            self.bytes.clear();
        } else if (b == 0x1b || b >= 0x20) && self.bytes.len() < MAX_PENDING {
            // A C0 control inside a sequence was executed already: not replayed.
            self.bytes.push(b);
        }
    }

    /// The bytes that put a parser where this stream stands: empty between sequences.
    pub(super) fn replay(&self) -> Vec<u8> {
        let long = self.bytes.len() >= MAX_PENDING;
        match self.state {
            SState::Str if long => self.bytes[..2].to_vec(),
            SState::StrEsc if long => [&self.bytes[..2], b"\x1b"].concat(),
            _ => self.bytes.clone(),
        }
    }
}
