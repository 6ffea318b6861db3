//! The keys a program reads, before its line editor: every encoding of Enter becomes `\r`,
//! bracketed-paste markers disappear, bytes become characters.
//!
//! A terminal sends Enter as `\r` (or `\n`), but also as keypad Enter in application mode
//! (`ESC O M`), as a kitty/CSI-u key (`ESC [ 13 u`, `ESC [ 13 ; mods u`, keypad
//! `ESC [ 57414 u`) or as an xterm modifyOtherKeys key (`ESC [ 27 ; mods ; 13 ~`). A program
//! that enabled those modes submits its line on any of them, so the filter reads them all as
//! Enter (the safe reading: a program that did not enable them sees an unknown key instead).
//! Paste markers (`ESC [ 200 ~`, `ESC [ 201 ~`) are dropped: the text inside a paste is read
//! as typed, so a newline inside a paste submits a line — what a program without bracketed
//! paste does, and the same line a bracketed-paste shell runs on the next Enter.
//!
//! Streaming and bounded: an escape sequence cut between writes is kept (at most
//! [`MAX_ESC`] bytes) until it is decided; one that is none of these is passed on as it came.

/// Longest escape sequence this layer looks at; a longer one is passed on unread.
pub(super) const MAX_ESC: usize = 24;

/// The decoder's state: an escape sequence in progress and an incomplete UTF-8 character.
#[derive(Debug, Clone, Default)]
pub(super) struct KeyDecoder {
    esc: Vec<u8>,
    utf8: Vec<u8>,
    /// Inside a bracketed paste (its start marker read, not its end).
    in_paste: bool,
}

/// The marker that ends a bracketed paste.
pub(super) const PASTE_END: &[u8] = b"\x1b[201~";

impl KeyDecoder {
    /// Feeds one byte; the characters it completes are appended to `out`.
    pub(super) fn push(&mut self, b: u8, out: &mut Vec<char>) {
        if self.esc.is_empty() {
            if b == 0x1b {
                self.esc.push(b);
            } else {
                self.text(b, out);
            }
            return;
        }
        self.esc.push(b);
        match classify(&self.esc) {
            Esc::Partial if self.esc.len() < MAX_ESC => {}
            Esc::Enter => {
                self.esc.clear();
                out.push('\r');
            }
            Esc::PasteMark(start) => {
                self.esc.clear();
                self.in_paste = start;
            }
            Esc::Partial | Esc::Other => {
                let seq = std::mem::take(&mut self.esc);
                // The Esc goes on as typed; what follows it is read afresh (it may be an
                // Esc itself, or the start of a sequence that matters).
                self.text(0x1b, out);
                for &c in &seq[1..] {
                    self.push(c, out);
                }
            }
        }
    }

    /// Whether a bracketed paste is open.
    pub(super) fn in_paste(&self) -> bool {
        self.in_paste
    }

    /// One byte of text: ASCII as is, UTF-8 once complete, anything invalid as U+FFFD.
    fn text(&mut self, b: u8, out: &mut Vec<char>) {
        if self.utf8.is_empty() && b.is_ascii() {
            out.push(char::from(b));
            return;
        }
        self.utf8.push(b);
        match std::str::from_utf8(&self.utf8) {
            Ok(s) => {
                out.extend(s.chars());
                self.utf8.clear();
            }
            Err(e) if e.error_len().is_none() && self.utf8.len() < 4 => {}
            Err(_) => {
                // Invalid: one replacement character, then the last byte afresh when it
                // may start something valid.
                let last = self.utf8.pop().filter(|_| !self.utf8.is_empty());
                self.utf8.clear();
                out.push(char::REPLACEMENT_CHARACTER);
                if let Some(l) = last.filter(|&l| l.is_ascii() || l >= 0xc0) {
                    self.text(l, out);
                }
            }
        }
    }
}

enum Esc {
    /// Could still become one of the sequences this layer reads.
    Partial,
    Enter,
    /// A paste marker: `true` for the start.
    PasteMark(bool),
    Other,
}

/// What an escape sequence (starting with ESC) is, so far.
fn classify(seq: &[u8]) -> Esc {
    match seq {
        [0x1b] | [0x1b, b'O'] | [0x1b, b'['] => Esc::Partial,
        [0x1b, b'O', b'M'] => Esc::Enter,
        [0x1b, b'[', rest @ ..] => classify_csi(rest),
        _ => Esc::Other,
    }
}

/// A CSI sequence's body (after `ESC [`).
fn classify_csi(body: &[u8]) -> Esc {
    let Some((&fin, params)) = body.split_last() else {
        return Esc::Partial;
    };
    if fin.is_ascii_digit() || fin == b';' || fin == b':' {
        return Esc::Partial;
    }
    if !params
        .iter()
        .all(|&c| c.is_ascii_digit() || c == b';' || c == b':')
    {
        return Esc::Other;
    }
    let params = std::str::from_utf8(params).unwrap_or("");
    let first = params.split([';', ':']).next().unwrap_or("");
    match fin {
        b'~' if params == "200" || params == "201" => Esc::PasteMark(params == "200"),
        // modifyOtherKeys: 27 ; mods ; 13 ~
        b'~' if first == "27" && params.split(';').nth(2) == Some("13") => Esc::Enter,
        // CSI-u (kitty): the key code first, then modifiers and event type.
        b'u' if first == "13" || first == "57414" => Esc::Enter,
        _ => Esc::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(writes: &[&[u8]]) -> String {
        let (mut d, mut out) = (KeyDecoder::default(), Vec::new());
        for w in writes {
            for &b in *w {
                d.push(b, &mut out);
            }
        }
        out.into_iter().collect()
    }

    #[test]
    fn enter_encodings_become_cr_and_paste_marks_go() {
        for enter in [
            &b"\r"[..],
            b"\x1bOM",
            b"\x1b[13u",
            b"\x1b[13;1u",
            b"\x1b[13;5:1u",
            b"\x1b[57414u",
            b"\x1b[27;2;13~",
        ] {
            for cut in 0..=enter.len() {
                assert_eq!(
                    decode(&[b"a", &enter[..cut], &enter[cut..]]),
                    "a\r",
                    "{enter:?}"
                );
            }
        }
        assert_eq!(decode(&[b"\x1b[200~exit\r\x1b[2", b"01~"]), "exit\r");
    }

    #[test]
    fn other_sequences_and_text_pass_as_they_came() {
        for s in [
            "\x1b[A",
            "\x1b[1;5C",
            "\x1bOA",
            "\x1bb",
            "\x1b\x1b[A",
            "\x1b[3~",
            "\x1b[12u",
            "\x1b[130u",
            "é€𝄞",
        ] {
            assert_eq!(decode(&[s.as_bytes()]), s, "{s:?}");
        }
        assert_eq!(decode(&[b"a\xffb\xe2\x82"]), "a\u{fffd}b");
        assert_eq!(decode(&[b"\xe2\x82x"]), "\u{fffd}x");
        // A lone Esc waits for what follows it.
        assert_eq!(decode(&[b"\x1b"]), "");
        assert_eq!(decode(&[b"\x1b", b"x"]), "\x1bx");
    }
}
