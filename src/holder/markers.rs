//! Completion detection from what the shell prints: OSC 133 shell-integration markers
//! (A prompt start, B input start, C output start, `D;<exit>` finished), scanned incrementally
//! across reads, and the echo-proof sentinel lines of the fallback method. Pure functions.

use regex::bytes::Regex;

/// A shell-integration marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkKind {
    /// `A`: a prompt is being drawn.
    PromptStart,
    /// `B`: the prompt is drawn, input starts.
    InputStart,
    /// `C`: the command line was accepted, its output starts.
    OutputStart,
    /// `D;<exit>`: the command finished with that status.
    Finished(Option<i32>),
}

/// A marker and where it sits in the output stream (absolute offsets, end exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    /// Which marker.
    pub kind: MarkKind,
    /// Offset of its ESC.
    pub start: u64,
    /// Offset just past its terminator.
    pub end: u64,
}

const PREFIX: &[u8] = b"\x1b]133;";
/// Longest payload looked at before a terminator must appear.
const MAX_PAYLOAD: usize = 128;

/// Finds OSC 133 markers in a byte stream fed in arbitrary chunks.
#[derive(Debug, Default)]
pub struct MarkerScanner {
    carry: Vec<u8>,
    carry_start: u64,
}

impl MarkerScanner {
    /// A scanner at offset 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed `chunk`, which starts at absolute offset `chunk_start`; returns the markers that
    /// complete in it (a marker split across chunks is reported when its end arrives).
    pub fn feed(&mut self, chunk: &[u8], chunk_start: u64) -> Vec<Mark> {
        let mut out = Vec::new();
        let (data, base): (std::borrow::Cow<[u8]>, u64) = if self.carry.is_empty() {
            (chunk.into(), chunk_start)
        } else {
            let mut d = std::mem::take(&mut self.carry);
            d.extend_from_slice(chunk);
            (d.into(), self.carry_start)
        };
        let mut i = 0;
        while let Some(p) = data[i..].iter().position(|&b| b == 0x1b) {
            let at = i + p;
            let rest = &data[at..];
            if rest.len() < PREFIX.len() {
                if PREFIX.starts_with(rest) {
                    self.keep(&data[at..], base + at as u64);
                    break;
                }
                // Another sequence near the end (`ESC [ K`): a marker may still start
                // after it.
                i = at + 1;
                continue;
            }
            if !rest.starts_with(PREFIX) {
                i = at + 1;
                continue;
            }
            let body = &rest[PREFIX.len()..];
            let limit = body.len().min(MAX_PAYLOAD);
            let term = body[..limit]
                .iter()
                .enumerate()
                .find_map(|(j, &b)| match b {
                    0x07 => Some((j, 1)),
                    0x1b if body.get(j + 1) == Some(&b'\\') => Some((j, 2)),
                    _ => None,
                });
            match term {
                Some((j, tlen)) => {
                    if let Some(kind) = parse_payload(&body[..j]) {
                        let start = base + at as u64;
                        let end = start + (PREFIX.len() + j + tlen) as u64;
                        out.push(Mark { kind, start, end });
                    }
                    i = at + PREFIX.len() + j + tlen;
                }
                None if body.len() < MAX_PAYLOAD => {
                    // Unterminated so far: wait for the rest.
                    self.keep(&data[at..], base + at as u64);
                    break;
                }
                None => i = at + 1,
            }
        }
        out
    }

    fn keep(&mut self, bytes: &[u8], start: u64) {
        self.carry = bytes.to_vec();
        self.carry_start = start;
    }
}

fn parse_payload(p: &[u8]) -> Option<MarkKind> {
    let mut parts = p.split(|&b| b == b';');
    let kind = parts.next()?;
    Some(match kind {
        b"A" => MarkKind::PromptStart,
        b"B" => MarkKind::InputStart,
        b"C" => MarkKind::OutputStart,
        b"D" => MarkKind::Finished(
            parts
                .next()
                .and_then(|s| std::str::from_utf8(s).ok())
                .and_then(|s| s.trim().parse().ok()),
        ),
        _ => return None,
    })
}

/// The echo-proof sentinel pair for one fallback talk. The shell is told to print
/// `<sentinel>B` before the command and `<sentinel><status>` after it, with the sentinel split
/// by an empty quote pair in what is typed, so the echoed command line never matches.
#[derive(Debug, Clone)]
pub struct SentinelMatcher {
    begin: Regex,
    done: Regex,
}

impl SentinelMatcher {
    /// Matchers for `sentinel`.
    pub fn new(sentinel: &str) -> Self {
        let s = regex::escape(sentinel);
        // Both unwraps are on patterns built from an escaped literal: they cannot fail.
        #[allow(clippy::unwrap_used)]
        Self {
            begin: Regex::new(&format!(r"{s}B\r*\n")).unwrap(),
            done: Regex::new(&format!(r"(?m){s}(-?[0-9]{{1,10}})\r*$")).unwrap(),
        }
    }

    /// Find the begin line at or after `from`; returns the index just past its newline.
    pub fn find_begin(&self, buf: &[u8], from: usize) -> Option<usize> {
        self.begin
            .find_at(buf, from.min(buf.len()))
            .map(|m| m.end())
    }

    /// Find a complete done line at or after `from`: (index where the sentinel starts, status).
    pub fn find_done(&self, buf: &[u8], from: usize) -> Option<(usize, i32)> {
        let mut at = from.min(buf.len());
        while let Some(c) = self.done.captures_at(buf, at) {
            let whole = c.get(0)?;
            // Only a complete line counts: the status digits must be followed by a newline.
            if buf.get(whole.end()) == Some(&b'\n') {
                let code = std::str::from_utf8(c.get(1)?.as_bytes())
                    .ok()?
                    .parse()
                    .ok()?;
                return Some((whole.start(), code));
            }
            at = whole.end();
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both sentinel lines in `buf`: (output start, output end, exit status).
    fn find(m: &SentinelMatcher, buf: &[u8]) -> Option<(usize, usize, i32)> {
        let start = m.find_begin(buf, 0)?;
        let (end, code) = m.find_done(buf, start)?;
        Some((start, end, code))
    }

    fn scan_all(stream: &[u8], chunk: usize) -> Vec<Mark> {
        let mut s = MarkerScanner::new();
        let mut out = Vec::new();
        for (k, c) in stream.chunks(chunk).enumerate() {
            out.extend(s.feed(c, (k * chunk) as u64));
        }
        out
    }

    /// A recorded bash session: first prompt, `echo hi`, `false`, with colours and
    /// bracketed-paste toggles as bash 5.2 prints them.
    const BASH: &[u8] = b"\x1b]133;D;0\x07\x1b]133;A\x07\x1b[?2004h\x1b[01;32muser@host\x1b[00m$ echo hi\r\n\x1b[?2004l\r\x1b]133;C\x07hi\r\n\x1b]133;D;0\x07\x1b]133;A\x07\x1b[?2004h$ false\r\n\x1b[?2004l\r\x1b]133;C\x07\x1b]133;D;1\x1b\\\x1b]133;A\x07$ ";

    #[test]
    fn finds_markers_at_every_chunk_size() {
        let whole = scan_all(BASH, BASH.len());
        let kinds: Vec<_> = whole.iter().map(|m| m.kind).collect();
        use MarkKind::*;
        assert_eq!(
            kinds,
            vec![
                Finished(Some(0)),
                PromptStart,
                OutputStart,
                Finished(Some(0)),
                PromptStart,
                OutputStart,
                Finished(Some(1)),
                PromptStart
            ]
        );
        for n in 1..40 {
            assert_eq!(scan_all(BASH, n), whole, "chunk size {n}");
        }
        // offsets point at the ESC and past the terminator
        let c = whole[2];
        assert_eq!(&BASH[c.start as usize..c.end as usize], b"\x1b]133;C\x07");
    }

    /// Pieces of what shells print: markers (both terminators), short sequences that end
    /// just before a marker (fish's `\r ESC [K` before its A), text.
    const PIECES: &[&[u8]] = &[
        b"\x1b]133;A\x07",
        b"\x1b]133;B\x07",
        b"\x1b]133;C\x07",
        b"\x1b]133;D;0\x07",
        b"\x1b]133;D;1\x1b\\",
        b"\x1b]133;A;click_events=1\x07",
        b"\r\x1b[K",
        b"\x1b(B",
        b"\x1b[m",
        b"\x1b",
        b"\x1b]0;t\x07",
        b"$ ",
        b"hi\r\n",
    ];

    proptest::proptest! {
        #[test]
        fn markers_are_found_wherever_the_reads_cut_the_stream(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..12),
            cuts in proptest::collection::vec(proptest::num::usize::ANY, 0..8),
        ) {
            let stream = pieces.concat();
            let whole = scan_all(&stream, stream.len().max(1));
            let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
            bounds.extend([0, stream.len()]);
            bounds.sort_unstable();
            bounds.dedup();
            let mut s = MarkerScanner::new();
            let cut: Vec<Mark> = bounds
                .windows(2)
                .flat_map(|w| s.feed(&stream[w[0]..w[1]], w[0] as u64))
                .collect();
            proptest::prop_assert_eq!(cut, whole, "{:?}", String::from_utf8_lossy(&stream));
        }
    }

    #[test]
    fn the_echoed_command_never_matches() {
        // What a terminal shows when someone types the marker text: no raw ESC.
        let echo = b"$ printf '\\e]133;D;0\\a'\r\n";
        assert!(scan_all(echo, 7).is_empty());
    }

    #[test]
    fn ignores_other_osc_and_garbage() {
        let s = b"\x1b]0;title\x07\x1b]133;Z\x07\x1b]133;D;x\x07\x1b[31m";
        let m = scan_all(s, 3);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].kind, MarkKind::Finished(None));
    }

    #[test]
    fn sentinel_lines_are_found_only_when_printed() {
        let m = SentinelMatcher::new("__KR_DONE_1234abcd__");
        let echo = b"$ echo \"__KR_DONE_1234abcd\"\"__B\"; eval 'echo hi'; echo \"__KR_DONE_1234abcd\"\"__$?\"\r\n";
        assert_eq!(find(&m, echo), None);
        let mut full = echo.to_vec();
        full.extend_from_slice(b"__KR_DONE_1234abcd__B\r\nhi\r\n");
        assert_eq!(find(&m, &full), None, "no done line yet");
        full.extend_from_slice(b"__KR_DONE_1234abcd__7");
        assert_eq!(find(&m, &full), None, "line not complete yet");
        full.extend_from_slice(b"\r\n$ ");
        let (start, end, code) = find(&m, &full).unwrap();
        assert_eq!(code, 7);
        assert_eq!(&full[start..end], b"hi\r\n");
    }

    #[test]
    fn sentinel_after_output_without_newline() {
        let m = SentinelMatcher::new("S_x__");
        let s = b"cmd\r\nS_x__B\r\nno-newlineS_x__0\r\n";
        let (start, end, code) = find(&m, s).unwrap();
        assert_eq!(&s[start..end], b"no-newline");
        assert_eq!(code, 0);
    }

    #[test]
    fn a_command_printing_the_prefix_does_not_end_it() {
        let m = SentinelMatcher::new("__KR_DONE_00000001__");
        let s = b"S\r\n__KR_DONE_00000001__B\r\n__KR_DONE_\r\n__KR_DONE_00000002__0\r\n";
        assert_eq!(find(&m, s), None);
    }
}
