//! Escape-sequence decoding for text sent by agents (port of `k_pty`'s `_process_escape_sequences()`).
//!
//! Agents often send control characters as literal backslash text (`\x03` for Ctrl-C,
//! `\r` for Enter). One left-to-right pass turns these into real characters while leaving
//! Windows paths such as `C:\Users\name` or `C:\temp\new` alone.

/// Decodes literal backslash escapes in `input` into real characters.
///
/// At each backslash, in this order of preference:
/// - `\r\n` (four characters) becomes CR LF;
/// - `\xNN` with exactly two hex digits becomes the character U+00NN (`\x03` is Ctrl-C,
///   `\x1b` is ESC), whatever follows it;
/// - `\r`, `\n`, `\t` become CR, LF, TAB only when the next character is not an identifier
///   character `[A-Za-z0-9_]`, so `C:\results`, `C:\new_folder` and `C:\temp` stay intact;
/// - `\\` becomes a single backslash (its second backslash never starts another escape);
/// - any other backslash is kept as is.
#[must_use]
pub fn process_escapes(input: &str) -> String {
    if !input.contains('\\') {
        return input.to_owned();
    }
    let bytes = input.as_bytes();
    let mut out = String::with_capacity(input.len());
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
        // Every escape starts and ends on ASCII bytes, so these are char boundaries.
        out.push_str(&input[copied..i]);
        match replacement {
            Replacement::Str(s) => out.push_str(s),
            Replacement::Char(c) => out.push(c),
        }
        i += len;
        copied = i;
    }
    out.push_str(&input[copied..]);
    out
}

/// What one escape decodes to.
enum Replacement {
    /// A fixed string (CR LF or a single backslash).
    Str(&'static str),
    /// A single character.
    Char(char),
}

fn is_ident(b: Option<&u8>) -> bool {
    b.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

fn hex_val(b: Option<&u8>) -> Option<u32> {
    char::from(*b?).to_digit(16)
}

/// Decodes the escape at the start of `s` (which begins with a backslash):
/// returns the replacement and the number of input bytes it consumes.
fn decode_at(s: &[u8]) -> Option<(Replacement, usize)> {
    match s.get(1)? {
        b'r' if s.get(2..4) == Some(b"\\n") => Some((Replacement::Str("\r\n"), 4)),
        b'x' => {
            let code = hex_val(s.get(2))? * 16 + hex_val(s.get(3))?;
            Some((Replacement::Char(char::from_u32(code)?), 4))
        }
        b'r' | b'n' | b't' if is_ident(s.get(2)) => None,
        b'r' => Some((Replacement::Char('\r'), 2)),
        b'n' => Some((Replacement::Char('\n'), 2)),
        b't' => Some((Replacement::Char('\t'), 2)),
        b'\\' => Some((Replacement::Str("\\"), 2)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::process_escapes as p;

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
        assert_eq!(p(r"\xe9"), "é"); // U+00E9
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
        // Corner case kept from the original: `\x86` is `\x` + two hex digits, so it is
        // decoded to U+0086 even inside a path like `D:\tools\x86`.
        assert_eq!(p(r"D:\tools\x86"), "D:\\tools\u{86}");
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
}
