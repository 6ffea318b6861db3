//! Private-key blocks (PEM, OpenSSH, PGP, SSH2): where one begins and ends in a text, and
//! whether a window of a longer text starts inside one — the one definition that both the
//! redaction rules and the holders' window context use, so a block cut by a read window is
//! recognised on either side of the cut.
//!
//! A block is its BEGIN marker, the rest of that line, the key-body lines after it (base64,
//! armor headers such as `Proc-Type:`, blank lines), and the END marker line when it comes
//! next. An END marker on the BEGIN line itself (a key with escaped `\n`s) ends the block
//! there. A block whose END is missing (a truncated screen, a read window) runs to the end of
//! its body lines, and a last line that starts with `-` (a marker cut short) belongs to it.

use regex::Regex;
use std::sync::LazyLock;

/// Most lines a block may span (a PGP RSA-4096 secret key is about 110).
const MAX_BLOCK_LINES: usize = 1000;

/// Most bytes before a window looked at for an open block (a context this long is needed
/// only for an extraordinarily long key).
pub const MAX_BLOCK_BYTES: usize = 64 * 1024;

/// The literal every marker contains (the prefilter's needle).
pub const NEEDLE: &str = "PRIVATE KEY";

/// The literal a PuTTY private-key file starts with (the prefilter's other needle).
pub const PUTTY_NEEDLE: &str = "PuTTY-User-Key-File-";

/// The first line of a PuTTY private-key file (`PuTTY-User-Key-File-3: ssh-ed25519`).
static PUTTY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"PuTTY-User-Key-File-[0-9]+:").expect("the PuTTY marker regex is valid")
});

/// BEGIN or END of any private-key type: `-----BEGIN RSA PRIVATE KEY-----`,
/// `-----BEGIN OPENSSH PRIVATE KEY-----`, `-----BEGIN PGP PRIVATE KEY BLOCK-----`,
/// `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----` …
static MARKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"-{4,5} ?(?<kind>BEGIN|END) (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)? ?-{4,5}")
        .expect("the key marker regex is valid")
});

/// `line` without its ANSI CSI sequences (a colouring pager's `ESC [ … m`).
fn without_csi(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('\x1b') {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            // Parameters and intermediates, then one final byte in @..~.
            for f in chars.by_ref() {
                if ('@'..='~').contains(&f) {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A key-body line: base64, an armor header (`Proc-Type: 4,ENCRYPTED`), or blank; colour
/// codes and a leading line number (`cat -n`) are allowed.
fn body_like(line: &str) -> bool {
    let line = without_csi(line);
    let mut l = line.trim();
    if let Some(rest) = l
        .strip_prefix(|c: char| c.is_ascii_digit())
        .map(|r| r.trim_start_matches(|c: char| c.is_ascii_digit()))
        && rest.starts_with(char::is_whitespace)
    {
        l = rest.trim_start();
    }
    if l.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
    {
        return true;
    }
    match l.split_once(": ") {
        Some((name, _)) => {
            name.starts_with(|c: char| c.is_ascii_alphabetic())
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        }
        None => false,
    }
}

/// End (exclusive) of the line holding byte `at`: its `\n`, or the end of the text.
fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i)
}

/// The byte ranges of every private-key block in `text`, in order, not overlapping: PEM-style
/// blocks and PuTTY key files (from their first line through the header and base64 lines
/// that follow it: `Public-Lines`, `Private-Lines`, `Private-MAC` …; the whole file).
pub fn blocks(text: &str) -> Vec<(usize, usize)> {
    let mut out = marker_blocks(text);
    let putty = putty_blocks(text);
    if putty.is_empty() {
        return out;
    }
    out.extend(putty);
    out.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(out.len());
    for (s, e) in out {
        match merged.last_mut() {
            Some(m) if s < m.1 => m.1 = m.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}

/// PuTTY key files: the marker line, then every line that looks like a header or key body.
fn putty_blocks(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(m) = PUTTY.find_at(text, from) {
        let mut end = line_end(text, m.end());
        for _ in 0..MAX_BLOCK_LINES {
            if end >= text.len() {
                break;
            }
            let next = line_end(text, end + 1);
            let line = &text[end + 1..next];
            if next == text.len()
                && line
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b" +/=-:\r".contains(&b))
            {
                // The text ends inside the file (a read window's edge, a line cut short):
                // a window that starts here starts inside it.
                end = next;
                break;
            }
            if line.trim().is_empty() || !body_like(line) || PUTTY.is_match(line) {
                break;
            }
            end = next;
        }
        out.push((m.start(), end));
        from = end.max(m.end());
    }
    out
}

/// The PEM-style blocks of `text`.
fn marker_blocks(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(m) = MARKER.captures_at(text, from) {
        let Some(whole) = m.get(0) else { break };
        if &m["kind"] != "BEGIN" {
            // An END without its BEGIN (the text starts inside a key): the key-body lines
            // just above it belong to the block too.
            let start = body_start(&text[from..whole.start()]).map_or(whole.start(), |s| from + s);
            out.push((start, whole.end()));
            from = whole.end();
            continue;
        }
        let end = block_end(text, whole.end());
        out.push((whole.start(), end));
        from = end.max(whole.end());
    }
    out
}

/// Where the key-body lines that end `text` (just above an END marker) start; `None` when
/// there are none.
fn body_start(text: &str) -> Option<usize> {
    // The END marker's line, from its start up to the marker.
    let mut start = text.rfind('\n').map_or(0, |i| i + 1);
    for _ in 0..MAX_BLOCK_LINES {
        if start == 0 {
            break;
        }
        let above = text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        if !body_like(&text[above..start - 1]) {
            break;
        }
        start = above;
    }
    let line = text.rfind('\n').map_or(0, |i| i + 1);
    (start < line).then_some(start)
}

/// Where the block whose BEGIN marker ends at `marker_end` ends.
fn block_end(text: &str, marker_end: usize) -> usize {
    let first_end = line_end(text, marker_end);
    // An END on the BEGIN line itself (a key written with escaped newlines).
    if let Some(e) = MARKER
        .captures(&text[marker_end..first_end])
        .filter(|c| &c["kind"] == "END")
        .and_then(|c| c.get(0))
    {
        return marker_end + e.end();
    }
    let mut end = first_end;
    for _ in 0..MAX_BLOCK_LINES {
        if end >= text.len() {
            return text.len();
        }
        let start = end + 1;
        let next = line_end(text, start);
        let line = &text[start..next];
        if let Some(c) = MARKER.captures(line) {
            let Some(m) = c.get(0) else { break };
            if &c["kind"] == "END" {
                return start + m.end();
            }
            // Another BEGIN: this block ended with its body.
            return end;
        }
        if body_like(line) {
            end = next;
            continue;
        }
        if next == text.len() && line.trim_start().starts_with('-') {
            // A marker cut short by the end of the text.
            return text.len();
        }
        return end;
    }
    end
}

/// Where the context of a window that starts at the end of `before` (the text preceding it)
/// should begin: the BEGIN marker of a private-key block the window starts inside (or inside
/// whose END line it starts), else the start of the current line (at most `line_max` bytes
/// back, on a char boundary).
pub fn context_start(before: &str, line_max: usize) -> usize {
    let scan_from = floor_boundary(before, before.len().saturating_sub(MAX_BLOCK_BYTES));
    let tail = &before[scan_from..];
    if let Some(&(s, e)) = blocks(tail).last()
        && e == tail.len()
    {
        return scan_from + s;
    }
    let line = before.rfind('\n').map_or(0, |i| i + 1);
    line.max(floor_boundary(
        before,
        before.len().saturating_sub(line_max),
    ))
}

/// The largest char boundary of `s` at or below `at`.
pub(crate) fn floor_boundary(s: &str, at: usize) -> usize {
    let mut i = at.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest char boundary of `s` at or above `at`.
pub(crate) fn ceil_boundary(s: &str, at: usize) -> usize {
    let mut i = at.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str =
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nx+/y=\n-----END RSA PRIVATE KEY-----";

    #[test]
    fn whole_blocks() {
        let t = format!("$ cat k\n{KEY}\n$ ");
        let b = blocks(&t);
        assert_eq!(b.len(), 1);
        assert_eq!(&t[b[0].0..b[0].1], KEY);
        let inline = "K=\"-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----\" next";
        let b = blocks(inline);
        assert_eq!(
            &inline[b[0].0..b[0].1],
            "-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----"
        );
    }

    #[test]
    fn unterminated_blocks_end_with_their_body() {
        let t = "-----BEGIN EC PRIVATE KEY-----\nMHcC\nAQEE\n$ ls\nfile";
        let b = blocks(t);
        assert_eq!(
            &t[b[0].0..b[0].1],
            "-----BEGIN EC PRIVATE KEY-----\nMHcC\nAQEE"
        );
        let cut = "-----BEGIN EC PRIVATE KEY-----\nMHcC\n-----END EC PRI";
        assert_eq!(blocks(cut), vec![(0, cut.len())]);
        let headers = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A\n\nMIIE";
        assert_eq!(blocks(headers), vec![(0, headers.len())]);
    }

    #[test]
    fn an_end_without_its_begin_takes_the_body_above_it() {
        let t = "$ less key\nMIIEpAIB\nx+/y=\n-----END RSA PRIVATE KEY-----\n$ ";
        let b = blocks(t);
        assert_eq!(
            &t[b[0].0..b[0].1],
            "MIIEpAIB\nx+/y=\n-----END RSA PRIVATE KEY-----"
        );
    }

    #[test]
    fn a_lone_end_line_is_only_its_marker() {
        let t = "$ echo -----END PRIVATE KEY-----";
        assert_eq!(blocks(t), vec![(7, t.len())]);
    }

    #[test]
    fn coloured_bodies_are_bodies() {
        let t =
            "-----BEGIN EC PRIVATE KEY-----\n\x1b[32mMHcCAQEE\x1b[0m\n\x1b[32mAoGBAK\x1b[0m\n$ ls";
        let b = blocks(t);
        assert!(t[b[0].0..b[0].1].ends_with("AoGBAK\x1b[0m"), "{b:?}");
    }

    #[test]
    fn putty_files_are_blocks() {
        let key = "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me@host\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIA\nxyz+/=\nPrivate-Lines: 1\nAAAAIGx5c2VjcmV0a2V5Ym9keQ\nPrivate-MAC: 0a1b2c3d";
        let t = format!("$ cat id.ppk\n{key}\n$ ls\n");
        let b = blocks(&t);
        assert_eq!(b.len(), 1);
        assert_eq!(&t[b[0].0..b[0].1], key);
        // A window starting in its private lines looks back to its first line.
        let at = t.find("AAAAIGx5").unwrap_or(0) + 4;
        assert_eq!(context_start(&t[..at], 1024), t.find("PuTTY").unwrap_or(0));
    }

    #[test]
    fn public_material_is_not_a_block() {
        assert!(blocks("-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----").is_empty());
        assert!(blocks("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----").is_empty());
    }

    #[test]
    fn window_context() {
        let t = format!("$ cat k\n{KEY}\n$ ");
        let begin = t.find("-----BEGIN").unwrap_or(0);
        // Starting in the body, on the END line, in the middle of a marker: from BEGIN.
        for at in [
            t.find("MIIE").unwrap_or(0),
            t.find("x+/y").unwrap_or(0) + 2,
            t.find("-----END").unwrap_or(0),
            t.find("END RSA").unwrap_or(0) + 3,
            begin + 12,
        ] {
            assert_eq!(context_start(&t[..at], 1024), begin, "at {at}");
        }
        // After the block: the current line.
        let after = t.len() - 1;
        assert_eq!(context_start(&t[..after], 1024), t.len() - 2);
        assert_eq!(context_start("abc\ndef", 2), 5);
        assert_eq!(context_start("aé", 1), 1);
    }
}
