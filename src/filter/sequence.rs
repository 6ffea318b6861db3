//! Blocked sequences as people write them: the built-in set (seed 002 §8.4.1), the escape
//! syntax of custom ones (`--block-sequence '\x1b[24~'`, MCP `block_sequences`), and the
//! printable name a writer is told (`exit\r`, `\x04 (Ctrl-D)`).

use crate::error::{Error, Result};

/// The built-in blocked sequences (seed 002 §8.4.1): Ctrl-D (EOF), Ctrl-\ (SIGQUIT), and
/// `exit`, `/exit` (Claude Code), `quit` followed by Enter (CR or LF).
pub const BUILTIN: [&[u8]; 8] = [
    b"\x04", b"\x1c", b"exit\r", b"exit\n", b"/exit\r", b"/exit\n", b"quit\r", b"quit\n",
];

/// The built-in sequences the byte stage cuts wherever they appear (Ctrl-D, Ctrl-\\); the
/// rest of [`BUILTIN`] are lines ([`super::lines::BUILTIN_LINES`]), judged as submitted.
pub const BUILTIN_BYTES: [&[u8]; 2] = [b"\x04", b"\x1c"];

/// The longest custom sequence accepted: every byte of a partial match may be held, so this
/// bounds the hold.
pub const MAX_SEQUENCE_LEN: usize = 64;

/// The most custom sequences accepted.
pub const MAX_SEQUENCES: usize = 64;

/// Decodes a custom blocked sequence written with escapes into its bytes.
///
/// Escapes: `\xNN` (exactly two hex digits: any byte), `\r`, `\n`, `\t`, `\e` (ESC, also
/// `\x1b`), `\0` (NUL), `\a`, `\b`, `\f`, `\v`, `\\` (a backslash). Any other character stands
/// for its UTF-8 bytes. Unlike the typing escapes of `send_line` (`crate::safety::escapes`),
/// this is strict: an unknown escape or a lone trailing backslash is an error, not text, since
/// a sequence silently meaning something else would block nothing.
///
/// # Errors
/// `INVALID_PARAMS` for an unknown or incomplete escape, an empty sequence, or one longer than
/// `MAX_SEQUENCE_LEN` bytes.
pub fn parse_sequence(s: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut chars = s.char_indices();
    while let Some((at, c)) = chars.next() {
        if c != '\\' {
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let byte = match chars.next().map(|(_, e)| e) {
            Some('x') => {
                let hex: String = chars.by_ref().take(2).map(|(_, h)| h).collect();
                let digits = hex.len() == 2 && hex.chars().all(|h| h.is_ascii_hexdigit());
                match u8::from_str_radix(&hex, 16) {
                    Ok(b) if digits => b,
                    _ => return Err(bad_escape(s, at, "`\\x` takes exactly two hex digits")),
                }
            }
            Some(e) => match simple_escape(e) {
                Some(b) => b,
                None => return Err(bad_escape(s, at, &format!("unknown escape `\\{e}`"))),
            },
            None => return Err(bad_escape(s, at, "a lone backslash ends it")),
        };
        out.push(byte);
    }
    check_sequence(&out, s)?;
    Ok(out)
}

/// Checks a custom sequence's bytes: not empty, at most [`MAX_SEQUENCE_LEN`] bytes. `shown`
/// is how the user wrote it, for the message.
pub(super) fn check_sequence(bytes: &[u8], shown: &str) -> Result<()> {
    if bytes.is_empty() {
        return Err(Error::invalid(
            "an empty blocked sequence would block every write: give at least one byte \
             (e.g. `--block-sequence '\\x1a'`)",
        ));
    }
    if bytes.len() > MAX_SEQUENCE_LEN {
        return Err(Error::invalid(format!(
            "the blocked sequence `{shown}` is {} bytes long; at most {MAX_SEQUENCE_LEN} \
             are allowed (its bytes are held while it may still match)",
            bytes.len()
        )));
    }
    Ok(())
}

fn simple_escape(e: char) -> Option<u8> {
    Some(match e {
        'r' => b'\r',
        'n' => b'\n',
        't' => b'\t',
        'e' => 0x1b,
        '0' => 0,
        'a' => 0x07,
        'b' => 0x08,
        'f' => 0x0c,
        'v' => 0x0b,
        '\\' => b'\\',
        _ => return None,
    })
}

fn bad_escape(s: &str, at: usize, why: &str) -> Error {
    Error::invalid(format!(
        "the blocked sequence `{s}` has a bad escape at byte {at}: {why}. Escapes: \\xNN \
         (two hex digits), \\r \\n \\t \\e \\0 \\a \\b \\f \\v, and \\\\ for a backslash"
    ))
}

/// The printable name of a sequence: printable ASCII and other UTF-8 text as is, control and
/// non-text bytes as escapes (`\r`, `\n`, `\t`, `\\`, `\xNN`); a single control byte also
/// names its key (`\x04 (Ctrl-D)`, `\x1c (Ctrl-\)`).
pub fn describe(bytes: &[u8]) -> String {
    let mut name = String::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\r' => name.push_str("\\r"),
                '\n' => name.push_str("\\n"),
                '\t' => name.push_str("\\t"),
                '\\' => name.push_str("\\\\"),
                c if c.is_control() => {
                    for b in c.to_string().bytes() {
                        name.push_str(&format!("\\x{b:02x}"));
                    }
                }
                c => name.push(c),
            }
        }
        for b in chunk.invalid() {
            name.push_str(&format!("\\x{b:02x}"));
        }
    }
    if let [b] = bytes
        && let Some(key) = key_name(*b)
    {
        name.push_str(&format!(" ({key})"));
    }
    name
}

/// The key that types a single control byte, when there is one worth naming.
fn key_name(b: u8) -> Option<String> {
    match b {
        0x00 => Some("Ctrl-@".into()),
        0x01..=0x1a if !matches!(b, b'\t' | b'\n' | b'\r') => {
            Some(format!("Ctrl-{}", char::from(b'A' + b - 1)))
        }
        0x1b => Some("Esc".into()),
        0x1c => Some("Ctrl-\\".into()),
        0x1d => Some("Ctrl-]".into()),
        0x1e => Some("Ctrl-^".into()),
        0x1f => Some("Ctrl-_".into()),
        0x7f => Some("Backspace".into()),
        _ => None,
    }
}
