//! The output ring buffer: the last `capacity` bytes of a session's output, addressed by
//! absolute offsets (bytes since the session started), so readers can resume losslessly and
//! learn exactly how much fell out. The holder keeps one; the core rebuilds one from an
//! ended session's saved buffer, and both cut a `Read` window with [`Ring::read_body`].

use super::ReadBody;
use std::collections::VecDeque;

/// A bounded byte ring with absolute offsets.
#[derive(Debug)]
pub struct Ring {
    buf: VecDeque<u8>,
    capacity: usize,
    /// Absolute offset of `buf[0]`.
    start: u64,
}

/// A slice of the ring.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Slice {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Absolute offset of the first byte.
    pub start: u64,
    /// Bytes asked for that had already been dropped.
    pub dropped: u64,
}

impl Ring {
    /// An empty ring holding at most `capacity` bytes (at least 1).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            buf: VecDeque::with_capacity(capacity.min(1 << 16)),
            capacity,
            start: 0,
        }
    }

    /// A ring rebuilt from a saved buffer whose last byte sat at absolute offset `end - 1`.
    pub fn from_saved(bytes: &[u8], end: u64) -> Self {
        let mut r = Self::new(bytes.len());
        r.buf.extend(bytes);
        r.start = end.saturating_sub(bytes.len() as u64);
        r
    }

    /// Append output, dropping the oldest bytes past capacity.
    pub fn push(&mut self, data: &[u8]) {
        let data = if data.len() > self.capacity {
            let skip = data.len() - self.capacity;
            self.start += (self.buf.len() + skip) as u64;
            self.buf.clear();
            &data[skip..]
        } else {
            data
        };
        let over = (self.buf.len() + data.len()).saturating_sub(self.capacity);
        if over > 0 {
            self.buf.drain(..over);
            self.start += over as u64;
        }
        self.buf.extend(data);
    }

    /// Absolute offset of the oldest byte still held.
    pub fn start(&self) -> u64 {
        self.start
    }

    /// Absolute offset just past the newest byte (total bytes ever pushed).
    pub fn end(&self) -> u64 {
        self.start + self.buf.len() as u64
    }

    /// Bytes held.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Up to `max` bytes from absolute offset `since` (clamped into the ring; what was
    /// already dropped is counted in `dropped`).
    pub(crate) fn read_since(&self, since: u64, max: usize) -> Slice {
        let dropped = self.start.saturating_sub(since);
        let from = since.clamp(self.start, self.end());
        let idx = (from - self.start) as usize;
        let n = max.min(self.buf.len() - idx);
        // Copied slice-wise (memcpy), not byte by byte: streaming clients read here while
        // they hold the holder's lock.
        let (a, b) = self.buf.as_slices();
        let mut bytes = Vec::with_capacity(n);
        if idx < a.len() {
            let end = (idx + n).min(a.len());
            bytes.extend_from_slice(&a[idx..end]);
            bytes.extend_from_slice(&b[..n - (end - idx)]);
        } else {
            let i = idx - a.len();
            bytes.extend_from_slice(&b[i..i + n]);
        }
        Slice {
            bytes,
            start: from,
            dropped,
        }
    }

    /// The most recent `max` bytes.
    pub(crate) fn tail(&self, max: usize) -> Slice {
        let n = max.min(self.buf.len());
        let from = self.end() - n as u64;
        self.read_since(from, n)
    }

    /// The redaction context of the window `start..end` (absolute offsets): what precedes
    /// it (up to a private-key block's BEGIN, or the line start) and the rest of its last
    /// line, as far as the ring still holds them.
    pub fn context(&self, start: u64, end: u64) -> (String, String) {
        let from = start
            .saturating_sub(crate::safety::pem::MAX_BLOCK_BYTES as u64)
            .max(self.start);
        let to = end
            .saturating_add(crate::safety::redact::MAX_CONTEXT_BYTES as u64)
            .min(self.end());
        if from >= to {
            return (String::new(), String::new());
        }
        let (a, b) = ((from - self.start) as usize, (to - self.start) as usize);
        let bytes: Vec<u8> = self.buf.range(a..b).copied().collect();
        let at = |o: u64| (o.clamp(from, to) - from) as usize;
        crate::safety::redact::byte_window_context(&bytes, at(start), at(end))
    }

    /// The `Read` window: from `since`, or else the most recent `max` bytes starting on a
    /// character boundary; when `live` (more output may follow), an incomplete character at
    /// the ring's end is held back for the next read. Fills the window's fields of a
    /// [`ReadBody`] (and `alive` = `live`), with the redaction context around the window
    /// when `context` is set; the caller adds the session's state.
    pub fn read_body(&self, since: Option<u64>, max: usize, live: bool, context: bool) -> ReadBody {
        let mut s = match since {
            Some(o) => self.read_since(o, max),
            None => self.tail(max),
        };
        if since.is_none() {
            let skip = leading_continuations(&s.bytes);
            s.bytes.drain(..skip);
            s.start += skip as u64;
        }
        if live && s.start + s.bytes.len() as u64 == self.end() {
            let keep = s.bytes.len() - incomplete_utf8_tail(&s.bytes);
            s.bytes.truncate(keep);
        }
        let (context_before, context_after) = if context {
            self.context(s.start, s.start + s.bytes.len() as u64)
        } else {
            Default::default()
        };
        ReadBody {
            context_before,
            context_after,
            text: String::from_utf8_lossy(&s.bytes).into_owned(),
            start_offset: s.start,
            next_offset: s.start + s.bytes.len() as u64,
            dropped: s.dropped,
            bytes_read: s.bytes.len(),
            alive: live,
            ..ReadBody::default()
        }
    }

    /// Everything held, oldest first.
    pub fn contents(&self) -> Vec<u8> {
        self.buf.iter().copied().collect()
    }
}

/// How many bytes at the end of `bytes` form an incomplete (so far) UTF-8 sequence that more
/// output may complete; 0 when the end is a character boundary or plainly invalid.
fn incomplete_utf8_tail(bytes: &[u8]) -> usize {
    let n = bytes.len();
    for back in 1..=3.min(n) {
        let b = bytes[n - back];
        if b & 0xC0 == 0x80 {
            continue; // continuation byte: look further back for the lead
        }
        let need = match b {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => return 0,
        };
        return if need > back { back } else { 0 };
    }
    0
}

/// How many leading bytes are UTF-8 continuation bytes (a slice that starts mid-character).
fn leading_continuations(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take(3)
        .take_while(|b| *b & 0xC0 == 0x80)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_survive_wraparound() {
        let mut r = Ring::new(10);
        r.push(b"0123456789");
        assert_eq!((r.start(), r.end()), (0, 10));
        r.push(b"abc");
        assert_eq!((r.start(), r.end()), (3, 13));
        assert_eq!(r.contents(), b"3456789abc");
        let s = r.read_since(0, 100);
        assert_eq!(s.dropped, 3);
        assert_eq!(s.start, 3);
        assert_eq!(s.bytes, b"3456789abc");
        let s = r.read_since(11, 100);
        assert_eq!(
            (s.bytes.as_slice(), s.start, s.dropped),
            (&b"bc"[..], 11, 0)
        );
        let s = r.read_since(99, 100);
        assert_eq!((s.bytes.len(), s.start), (0, 13));
        assert_eq!(r.tail(4).bytes, b"9abc");
        assert_eq!(r.tail(4).start, 9);
    }

    #[test]
    fn push_larger_than_capacity_keeps_the_end() {
        let mut r = Ring::new(4);
        r.push(b"xy");
        r.push(b"abcdefgh");
        assert_eq!(r.contents(), b"efgh");
        assert_eq!((r.start(), r.end()), (6, 10));
    }

    #[test]
    fn utf8_boundaries() {
        let s = "aé€😀".as_bytes();
        assert_eq!(incomplete_utf8_tail(s), 0);
        assert_eq!(incomplete_utf8_tail(&s[..s.len() - 1]), 3);
        assert_eq!(incomplete_utf8_tail(&s[..s.len() - 2]), 2);
        assert_eq!(incomplete_utf8_tail(&s[..2]), 1);
        assert_eq!(incomplete_utf8_tail(b"\xff"), 0);
        assert_eq!(leading_continuations(&s[2..]), 1);
        assert_eq!(leading_continuations(b"abc"), 0);
    }
}
