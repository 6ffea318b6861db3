//! Escape-sequence decoding for text sent by agents (port of `k_pty`'s `_process_escape_sequences()`).
//!
//! Agents often send control characters as literal backslash text (`\x03` for Ctrl-C,
//! `\r` for Enter). One left-to-right pass turns these into real characters while leaving
//! Windows paths such as `C:\Users\name` or `C:\temp\new` alone.

/// `\xNN` escapes that decode to bytes which are not valid UTF-8 text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EscapeError {
    /// Byte offset in the input of the first escape of the offending run.
    pub offset: usize,
    /// The offending escape (e.g. `\x86`).
    pub escape: String,
}

impl std::fmt::Display for EscapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the escape {} at byte {} decodes to a byte that, with its neighbours, is not valid \
             UTF-8 text; `\\xNN` escapes are bytes and must spell whole UTF-8 characters (e.g. \
             `\\xc3\\xa9` for é). To type a backslash followed by x, write `\\\\x`",
            self.escape, self.offset
        )
    }
}

impl std::error::Error for EscapeError {}

/// Decodes literal backslash escapes in `input` into real characters.
///
/// At each backslash, in this order of preference:
/// - `\r\n` (four characters) becomes CR LF;
/// - `\xNN` with exactly two hex digits becomes the *byte* 0xNN, whatever follows it
///   (`\x03` is Ctrl-C, `\x1b` is ESC, `\xc3\xa9` is `é`);
/// - `\r`, `\n`, `\t` become CR, LF, TAB only when the next character is not an identifier
///   character `[A-Za-z0-9_]`, so `C:\results`, `C:\new_folder` and `C:\temp` stay intact;
/// - `\\` becomes a single backslash (its second backslash never starts another escape);
/// - any other backslash is kept as is.
///
/// # Errors
/// When the decoded bytes are not valid UTF-8 (a lone `\xe9`, or `D:\tools\x86`): kpty types
/// text, and a byte sequence that is not text cannot be typed faithfully.
pub fn process_escapes(input: &str) -> Result<String, EscapeError> {
    if !input.contains('\\') {
        return Ok(input.to_owned());
    }
    let bytes = input.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(input.len());
    // (output position, input position) of every `\xNN` escape, for the error.
    let mut hex_at: Vec<(usize, usize)> = Vec::new();
    // Start of the pending run of text copied verbatim.
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let found = if bytes[i] == b'\\' {
            decode_at(&bytes[i..])
        } else {
            None
        };
        let Some((replacement, len)) = found else {
            i += 1;
            continue;
        };
        out.extend_from_slice(&bytes[copied..i]);
        match replacement {
            Replacement::Str(s) => out.extend_from_slice(s.as_bytes()),
            Replacement::Byte(b) => {
                if len == 4 {
                    hex_at.push((out.len(), i));
                }
                out.push(b);
            }
        }
        i += len;
        copied = i;
    }
    out.extend_from_slice(&bytes[copied..]);
    String::from_utf8(out).map_err(|e| {
        let bad = e.utf8_error().valid_up_to();
        // Literal text is valid UTF-8, so the bad sequence starts at or after an escape.
        let (_, offset) = hex_at
            .iter()
            .rev()
            .find(|(o, _)| *o <= bad)
            .copied()
            .unwrap_or((0, 0));
        EscapeError {
            offset,
            escape: input
                .get(offset..offset + 4)
                .unwrap_or_default()
                .to_string(),
        }
    })
}

/// What one escape decodes to.
enum Replacement {
    /// A fixed string (CR LF or a single backslash).
    Str(&'static str),
    /// A single byte.
    Byte(u8),
}

fn is_ident(b: Option<&u8>) -> bool {
    b.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

fn hex_val(b: Option<&u8>) -> Option<u8> {
    let d = char::from(*b?).to_digit(16)?;
    u8::try_from(d).ok()
}

/// Decodes the escape at the start of `s` (which begins with a backslash):
/// returns the replacement and the number of input bytes it consumes.
fn decode_at(s: &[u8]) -> Option<(Replacement, usize)> {
    match s.get(1)? {
        b'r' if s.get(2..4) == Some(b"\\n") => Some((Replacement::Str("\r\n"), 4)),
        b'x' => {
            let code = hex_val(s.get(2))? * 16 + hex_val(s.get(3))?;
            Some((Replacement::Byte(code), 4))
        }
        b'r' | b'n' | b't' if is_ident(s.get(2)) => None,
        b'r' => Some((Replacement::Byte(b'\r'), 2)),
        b'n' => Some((Replacement::Byte(b'\n'), 2)),
        b't' => Some((Replacement::Byte(b'\t'), 2)),
        b'\\' => Some((Replacement::Str("\\"), 2)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::process_escapes;
    use proptest::prelude::*;

    fn p(s: &str) -> String {
        process_escapes(s).expect("valid UTF-8")
    }

    #[test]
    fn crlf_pair() {
        assert_eq!(p(r"ls\r\n"), "ls\r\n");
        assert_eq!(p(r"a\r\nb"), "a\r\nb");
        // The four-character pair wins even when an identifier follows it.
        assert_eq!(p(r"\r\nfoo"), "\r\nfoo");
    }

    #[test]
    fn hex_escapes() {
        assert_eq!(p(r"\x03"), "\u{3}");
        assert_eq!(p(r"\x1b[A"), "\u{1b}[A");
        assert_eq!(p(r"\x1B\x5b"), "\u{1b}[");
        assert_eq!(p(r"\x41BC"), "ABC"); // converts even when followed by identifier chars
        // Bytes, not code points: `\xc3\xa9` is the UTF-8 encoding of é.
        assert_eq!(p(r"\xc3\xa9"), "é");
        assert_eq!(p(r"caf\xC3\xA9\x21"), "café!");
        assert_eq!(p(r"\xe2\x9c\x93 ok"), "✓ ok");
        assert_eq!(p(r"\x7f"), "\u{7f}");
        // Not exactly two hex digits: left untouched.
        assert_eq!(p(r"\x3"), r"\x3");
        assert_eq!(p(r"\xg1"), r"\xg1");
        assert_eq!(p(r"\x"), r"\x");
    }

    #[test]
    fn single_char_escapes() {
        assert_eq!(p(r"echo hi\n"), "echo hi\n");
        assert_eq!(p(r"\r"), "\r");
        assert_eq!(p(r"a\t b"), "a\t b");
        assert_eq!(p(r"x\n\n"), "x\n\n");
        assert_eq!(p(r"y\t\r"), "y\t\r");
        assert_eq!(p(r"cmd\r "), "cmd\r ");
        assert_eq!(p(r"a\n-b"), "a\n-b");
    }

    #[test]
    fn identifier_guard() {
        assert_eq!(p(r"a\tb"), r"a\tb");
        assert_eq!(p(r"\nfoo"), r"\nfoo");
        assert_eq!(p(r"\r2"), r"\r2");
        assert_eq!(p(r"\t_x"), r"\t_x");
    }

    #[test]
    fn escaped_backslash() {
        assert_eq!(p(r"a\\b"), r"a\b");
        assert_eq!(p(r"\\n"), r"\n"); // the escaped backslash consumes both; `n` stays text
        assert_eq!(p(r"\\\n"), "\\\n");
        // UNC paths lose one leading backslash: this is the original rule.
        assert_eq!(p(r"\\server\share"), r"\server\share");
    }

    #[test]
    fn other_sequences_untouched() {
        assert_eq!(p(r"\q\e\0\a"), r"\q\e\0\a");
        assert_eq!(p(r"trailing\"), r"trailing\");
        assert_eq!(p(r"\u00e9"), r"\u00e9");
    }

    #[test]
    fn windows_paths_intact() {
        for path in [
            r"C:\Users\me\new_folder",
            r"dir C:\Windows\temp",
            r"C:\Users\name",
            r"C:\temp\new",
            r"C:\results",
            r"cd C:\Program Files\tools",
        ] {
            assert_eq!(p(path), path);
        }
        // `\x86` is `\x` + two hex digits, so it is the byte 0x86 even inside a path like
        // `D:\tools\x86`: not text on its own, so refused (write `D:\tools\\x86`).
        assert!(process_escapes(r"D:\tools\x86").is_err());
        assert_eq!(p(r"D:\tools\\x86"), r"D:\tools\x86");
        // Likewise a path ending in `\n`, `\r` or `\t` (nothing follows) is decoded.
        assert_eq!(p(r"cd C:\t"), "cd C:\t");
    }

    #[test]
    fn mixed() {
        assert_eq!(p(r"vim file\x1b:wq\r"), "vim file\u{1b}:wq\r");
        assert_eq!(p(r"type C:\temp\log.txt\r\n"), "type C:\\temp\\log.txt\r\n");
        assert_eq!(p(r"printf 'a\\tb'\n"), "printf 'a\\tb'\n");
        assert_eq!(p(r"\x03\x03\r"), "\u{3}\u{3}\r");
    }

    #[test]
    fn empty_plain_and_non_ascii() {
        assert_eq!(p(""), "");
        let plain = "ls -la /tmp && echo done";
        assert_eq!(p(plain), plain);
        assert_eq!(p("héllo wörld ✓"), "héllo wörld ✓");
        assert_eq!(p(r"日本\n語\t✓"), "日本\n語\t✓");
        assert_eq!(p(r"é\é"), r"é\é");
    }

    #[test]
    fn bytes_that_are_not_text_are_refused() {
        for bad in [r"\xe9", r"a\xc3", r"\xc3\x41", r"\xff\xfe", r"\xa9"] {
            let e = process_escapes(bad).expect_err(bad);
            assert!(bad[e.offset..].starts_with(&e.escape), "{bad}: {e:?}");
            assert!(e.to_string().contains("UTF-8"), "{e}");
        }
        let e = process_escapes(r"ok \xc3\xa9 then \xe9!").unwrap_err();
        assert_eq!((e.offset, e.escape.as_str()), (17, r"\xe9"));
    }

    proptest! {
        #[test]
        fn never_panics_and_plain_text_round_trips(s in "\\PC*", t in "[\\\\xrnt0-9a-fA-F_ é]{0,40}") {
            let _ = process_escapes(&s);
            if let Ok(out) = process_escapes(&t) {
                prop_assert!(out.len() <= t.len());
            }
            if !s.contains('\\') {
                prop_assert_eq!(process_escapes(&s), Ok(s.clone()));
            }
        }
    }
}
