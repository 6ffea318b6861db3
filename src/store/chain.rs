//! The chain of kpty's journals (seed 003 §5.3, a tamper-evident trail): every line appended
//! ends with `"prev"`, the SHA-256 of the line before it (64 zeros for a file's first line),
//! and `"seal"`, an HMAC-SHA256 of the line up to its seal under this user's kpty key
//! ([`super::trust::journal_seal`]). A line edited afterwards no longer matches its seal; a
//! line removed, inserted or moved breaks the next line's `prev`; a trail rewritten whole
//! needs the key, which sandboxed sessions cannot read. What the chain cannot show: lines
//! cut off the end of a file (nothing follows them to say so).
//!
//! Both fields are written last, at fixed widths, so a line is checked without parsing it.

use std::io::{self, BufRead};

/// `,"prev":"` before the previous line's hash.
const PREV: &[u8] = b",\"prev\":\"";
/// The same for an object with no other field.
const FIRST: &[u8] = b"{\"prev\":\"";
/// `","seal":"` between the hash and the seal.
const SEAL: &[u8] = b"\",\"seal\":\"";
/// The hex digits of a SHA-256.
const HASH_HEX: usize = 64;
/// A seal: `v1:` and 64 hex digits, or empty when no key could be had.
const SEAL_HEX: usize = 3 + 64;
/// The `prev` of a file's first line.
const ZERO: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// SHA-256 of `bytes`, in hex.
fn hash(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(bytes))
}

/// `line` (one JSON object; a newline at its end is kept) linked after `previous` (the file's
/// last line without its newline, `None` at the start): the fields `prev` and `seal` added
/// at its end, the seal made by `seal` over everything before it.
pub fn link(line: &[u8], previous: Option<&[u8]>, seal: impl FnOnce(&[u8]) -> String) -> Vec<u8> {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let Some(open) = body.strip_suffix(b"}") else {
        // Not an object: written as it is (kpty writes only objects).
        return line.to_vec();
    };
    let prev = previous.map_or_else(|| ZERO.to_string(), hash);
    let mut out =
        Vec::with_capacity(body.len() + PREV.len() + HASH_HEX + SEAL.len() + SEAL_HEX + 3);
    out.extend_from_slice(open);
    if open == b"{" {
        out.extend_from_slice(&FIRST[1..]);
    } else {
        out.extend_from_slice(PREV);
    }
    out.extend_from_slice(prev.as_bytes());
    let s = seal(&out);
    out.extend_from_slice(SEAL);
    out.extend_from_slice(s.as_bytes());
    out.extend_from_slice(b"\"}\n");
    out
}

/// A chained line taken apart: what its seal covers, its `prev`, its seal.
struct Parts<'a> {
    sealed: &'a [u8],
    prev: &'a [u8],
    seal: &'a [u8],
}

/// `line` (without its newline) as [`link`] wrote it; `None` for a line without the chain's
/// fields.
fn parts(line: &[u8]) -> Option<Parts<'_>> {
    let rest = line.strip_suffix(b"\"}")?;
    // The seal: empty, or `v1:` + 64 hex digits.
    let (rest, seal) = match rest.strip_suffix(SEAL) {
        Some(r) => (r, &b""[..]),
        None => {
            let cut = rest.len().checked_sub(SEAL_HEX)?;
            let (r, s) = rest.split_at(cut);
            (r.strip_suffix(SEAL)?, s)
        }
    };
    let cut = rest.len().checked_sub(HASH_HEX)?;
    let (head, prev) = rest.split_at(cut);
    let linked = head.ends_with(PREV) || head == FIRST;
    if !linked || !prev.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    Some(Parts {
        sealed: &line[..cut + HASH_HEX],
        prev,
        seal,
    })
}

/// Whether `line` carries the chain's fields somewhere (`"prev":"`, 64 hex digits, then
/// `","seal":"`), even where [`parts`] cannot take them apart: a chained line damaged, never
/// one from before the chain (quotes inside JSON strings are escaped).
fn marked(line: &[u8]) -> bool {
    const TAG: &[u8] = b"\"prev\":\"";
    let mut from = 0;
    while let Some(i) = line[from..].windows(TAG.len()).position(|w| w == TAG) {
        let start = from + i + TAG.len();
        let hex = line.get(start..start + HASH_HEX);
        let next = line.get(start + HASH_HEX..start + HASH_HEX + SEAL.len());
        if hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) && next == Some(SEAL) {
            return true;
        }
        from = start;
    }
    false
}

/// What is wrong with a line of a journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tamper {
    /// Its seal does not match it: it was changed after it was written (or written by
    /// another user's kpty).
    Edited,
    /// Its `prev` is not the hash of the line before it: a line before it was removed, or
    /// lines were inserted or reordered.
    Unlinked,
    /// It has no chain fields though lines before it have: inserted, or stripped.
    Unchained,
    /// Written without a seal (no key could be had then).
    Unsealed,
}

impl Tamper {
    /// One line saying what happened, for a person.
    pub fn says(self) -> &'static str {
        match self {
            Tamper::Edited => "changed after it was written (its seal does not match)",
            Tamper::Unlinked => {
                "an entry before it was removed, or entries were inserted or reordered (its \
                 prev does not match the entry before it)"
            }
            Tamper::Unchained => "inserted or stripped of its chain (no prev or seal)",
            Tamper::Unsealed => "written without a seal (kpty had no key then)",
        }
    }
}

/// A check of a seal: `(covered, seal)`, true when the seal is this user's over `covered`.
pub type SealCheck<'a> = &'a dyn Fn(&[u8], &[u8]) -> bool;

/// A journal checked.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Checked {
    /// Lines read.
    pub lines: usize,
    /// Lines before the chain starts (written by a kpty before it kept one).
    pub unchained: usize,
    /// The first line (1-based) found wrong, and how.
    pub broken: Option<(usize, Tamper)>,
}

/// Check a journal read from `r`: every chained line against its seal (`sealed(covered,
/// seal)`; `None` when no key can check seals) and the line before it. Stops at the first
/// line found wrong.
pub fn check(r: impl BufRead, sealed: Option<SealCheck<'_>>) -> io::Result<Checked> {
    let mut c = Checked::default();
    let mut previous: Option<Vec<u8>> = None;
    // Where the run of lines outside the chain right before this line began (`None` after a
    // chained line). A fault found at a line that follows such a run may lie anywhere in it
    // (a chained line cut in two, stripped, or put in front), so the run's first is named.
    let mut outside: Option<usize> = None;
    let mut chained = false;
    for line in r.split(b'\n') {
        let line = line?;
        c.lines += 1;
        let n = c.lines;
        let fault = match parts(&line) {
            None if marked(&line) => Some((outside.unwrap_or(n), Tamper::Edited)),
            // Inserted or stripped after the chain began.
            None if chained => Some((n, Tamper::Unchained)),
            None => {
                c.unchained += 1;
                outside = outside.or(Some(n));
                previous = Some(line);
                continue;
            }
            Some(p) => {
                let expected = previous.as_deref().map_or_else(|| ZERO.to_string(), hash);
                if p.prev != expected.as_bytes() {
                    Some(match outside {
                        Some(first) => (first, Tamper::Unchained),
                        None => (n, Tamper::Unlinked),
                    })
                } else if p.seal.is_empty() {
                    Some((n, Tamper::Unsealed))
                } else if sealed.is_some_and(|ok| !ok(p.sealed, p.seal)) {
                    Some((n, Tamper::Edited))
                } else {
                    None
                }
            }
        };
        if fault.is_some() {
            c.broken = fault;
            return Ok(c);
        }
        chained = true;
        outside = None;
        previous = Some(line);
    }
    Ok(c)
}

/// The longest last line looked for: kpty's own lines are ~25 KB at most.
const MAX_LAST: u64 = 2 << 20;

/// The last line of a file `len` bytes long read through `at` (positional reads), without its
/// newline; `None` for an empty file. A file whose end is not a newline (a writer died in the
/// middle of a line) gives that unfinished line (`true`: it needs its newline first). A last
/// line over [`MAX_LAST`] bytes (a huge file of zeros, not a journal kpty wrote) is an error.
pub fn last_line(
    len: u64,
    at: impl Fn(&mut [u8], u64) -> io::Result<usize>,
) -> io::Result<Option<(Vec<u8>, bool)>> {
    if len == 0 {
        return Ok(None);
    }
    let mut tail: Vec<u8> = Vec::new();
    let mut end = len;
    let mut step = 4096u64;
    loop {
        let start = end.saturating_sub(step);
        let mut chunk = vec![0u8; (end - start) as usize];
        let mut got = 0;
        while got < chunk.len() {
            let n = at(&mut chunk[got..], start + got as u64)?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the file shrank",
                ));
            }
            got += n;
        }
        chunk.extend_from_slice(&tail);
        tail = chunk;
        end = start;
        let torn = tail.last() != Some(&b'\n');
        let body = if torn {
            &tail[..]
        } else {
            &tail[..tail.len() - 1]
        };
        if let Some(i) = body.iter().rposition(|&b| b == b'\n') {
            return Ok(Some((body[i + 1..].to_vec(), torn)));
        }
        if start == 0 {
            return Ok(Some((body.to_vec(), torn)));
        }
        if tail.len() as u64 > MAX_LAST {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("its last line is longer than {MAX_LAST} bytes: not a journal kpty wrote"),
            ));
        }
        step = step.saturating_mul(2);
    }
}

#[cfg(test)]
#[path = "chain_tests.rs"]
mod tests;
