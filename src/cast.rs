//! asciicast v3, the recording format (<https://docs.asciinema.org/manual/asciicast/v3>): a
//! JSON header line, then one JSON array a line — `[interval, code, data]`, the interval in
//! seconds since the previous event. Written by the holder's recorder, read back by `kpty
//! replay`, `kpty rec` and evidence packs. A recording is a file in the state directory:
//! untrusted when read (a line past [`MAX_LINE`] or of another shape is an error naming its
//! line, never a panic).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::time::Duration;

/// The longest line a reader accepts (64 MiB: a segment's opening snapshot of a huge screen
/// is far less).
pub const MAX_LINE: usize = 64 << 20;

/// The terminal a recording was made on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Term {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// `TERM`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// The header line.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always 3.
    pub version: u32,
    /// The terminal's size at the start.
    pub term: Term,
    /// Unix time of the first event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<i64>,
    /// Longest pause a player shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_time_limit: Option<f64>,
    /// The program recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// A title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A few environment variables.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

/// What an event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// Output (`o`).
    Output,
    /// Input (`i`).
    Input,
    /// A marker (`m`).
    Marker,
    /// A resize (`r`, data `COLSxROWS`).
    Resize,
    /// The exit status (`x`).
    Exit,
    /// Another code (kept, ignored by kpty's readers).
    Other(char),
}

impl Code {
    /// The code's letter.
    fn letter(self) -> char {
        match self {
            Code::Output => 'o',
            Code::Input => 'i',
            Code::Marker => 'm',
            Code::Resize => 'r',
            Code::Exit => 'x',
            Code::Other(c) => c,
        }
    }

    fn of(s: &str) -> Option<Self> {
        let mut cs = s.chars();
        let c = cs.next()?;
        if cs.next().is_some() {
            return None;
        }
        Some(match c {
            'o' => Code::Output,
            'i' => Code::Input,
            'm' => Code::Marker,
            'r' => Code::Resize,
            'x' => Code::Exit,
            c => Code::Other(c),
        })
    }
}

/// One event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Time since the previous event.
    pub interval: Duration,
    /// Its kind.
    pub code: Code,
    /// Its data.
    pub data: String,
}

impl Event {
    /// The size of a resize event.
    pub fn size(&self) -> Option<(u16, u16)> {
        Self::size_of(&self.data)
    }

    /// The size a resize event's data (`COLSxROWS`) says.
    pub fn size_of(data: &str) -> Option<(u16, u16)> {
        let (c, r) = data.split_once('x')?;
        Some((c.trim().parse().ok()?, r.trim().parse().ok()?))
    }
}

/// Append one event line (with its newline) to `out`; the interval is written to the
/// microsecond, in plain decimal.
pub fn encode(out: &mut Vec<u8>, interval: Duration, code: Code, data: &str) {
    use std::io::Write;
    let _ = write!(
        out,
        "[{}.{:06}, \"{}\", ",
        interval.as_secs(),
        interval.subsec_micros(),
        code.letter()
    );
    // A string always encodes.
    let _ = serde_json::to_writer(&mut *out, data);
    out.extend_from_slice(b"]\n");
}

/// Why a recording could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct Bad {
    /// The line (1-based).
    pub line: usize,
    /// What is wrong.
    pub why: String,
}

impl std::fmt::Display for Bad {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.why)
    }
}

/// Reads a recording line by line.
pub struct Reader<R> {
    input: R,
    line: usize,
    buf: Vec<u8>,
}

impl<R: BufRead> Reader<R> {
    /// Read the header; the reader then yields the events.
    pub fn open(input: R) -> Result<(Header, Self), Bad> {
        let mut r = Self {
            input,
            line: 0,
            buf: Vec::new(),
        };
        let first = r.next_line()?.ok_or_else(|| r.bad("the file is empty"))?;
        #[derive(Deserialize)]
        struct Version {
            version: u32,
        }
        let v: Version = serde_json::from_slice(&first)
            .map_err(|e| r.bad(format!("not an asciicast header: {e}")))?;
        if v.version != 3 {
            return Err(r.bad(format!(
                "asciicast version {} (kpty reads version 3)",
                v.version
            )));
        }
        let header: Header = serde_json::from_slice(&first)
            .map_err(|e| r.bad(format!("not an asciicast v3 header: {e}")))?;
        Ok((header, r))
    }

    fn bad(&self, why: impl Into<String>) -> Bad {
        Bad {
            line: self.line.max(1),
            why: why.into(),
        }
    }

    /// The next line that is not a comment or blank, without its newline.
    fn next_line(&mut self) -> Result<Option<Vec<u8>>, Bad> {
        loop {
            self.buf.clear();
            self.line += 1;
            let mut limited = std::io::Read::take(&mut self.input, MAX_LINE as u64 + 1);
            let n = limited
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| self.bad(format!("cannot read: {e}")))?;
            if n == 0 {
                return Ok(None);
            }
            if self.buf.len() > MAX_LINE {
                return Err(self.bad(format!("a line longer than {MAX_LINE} bytes")));
            }
            let text = self.buf.trim_ascii();
            if text.is_empty() || text.starts_with(b"#") {
                continue;
            }
            return Ok(Some(text.to_vec()));
        }
    }

    /// The next event; `None` at the end. A torn last line (a recorder that stopped in the
    /// middle of a write) ends the recording quietly.
    pub fn next_event(&mut self) -> Result<Option<Event>, Bad> {
        let Some(line) = self.next_line()? else {
            return Ok(None);
        };
        let (t, code, data): (f64, String, String) = match serde_json::from_slice(&line) {
            Ok(x) => x,
            Err(e) if e.is_eof() => return Ok(None),
            Err(e) => return Err(self.bad(format!("not an event: {e}"))),
        };
        if !t.is_finite() || !(0.0..=1e9).contains(&t) {
            return Err(self.bad(format!("an event's interval of {t} seconds")));
        }
        let code = Code::of(&code).ok_or_else(|| self.bad(format!("an event code {code:?}")))?;
        Ok(Some(Event {
            interval: Duration::from_secs_f64(t),
            code,
            data,
        }))
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<Event, Bad>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_event().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Whatever the data (control characters, quotes, any Unicode), an encoded event reads
        /// back the same, to the microsecond.
        #[test]
        fn an_event_reads_back_as_written(
            events in proptest::collection::vec(
                (0u64..10_000_000_000, proptest::sample::select(vec!['o', 'i', 'm', 'r', 'x']), ".{0,40}"),
                0..20,
            )
        ) {
            let mut file = br#"{"version":3,"term":{"cols":80,"rows":24}}"#.to_vec();
            file.push(b'\n');
            for (us, c, d) in &events {
                encode(&mut file, Duration::from_micros(*us), Code::of(&c.to_string()).expect("code"), d);
            }
            let (h, r) = Reader::open(&file[..]).expect("open");
            proptest::prop_assert_eq!(h.term.cols, 80);
            let back: Vec<Event> = r.collect::<Result<_, _>>().expect("events");
            proptest::prop_assert_eq!(back.len(), events.len());
            for (e, (us, c, d)) in back.iter().zip(&events) {
                proptest::prop_assert_eq!(e.interval.as_micros() as u64, *us);
                proptest::prop_assert_eq!(e.code.letter(), *c);
                proptest::prop_assert_eq!(&e.data, d);
            }
        }

        /// Any bytes are an error or events, never a panic.
        #[test]
        fn any_file_reads_without_panicking(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400)) {
            let mut file = br#"{"version":3,"term":{"cols":80,"rows":24}}"#.to_vec();
            file.push(b'\n');
            file.extend(&bytes);
            if let Ok((_, r)) = Reader::open(&file[..]) {
                for e in r {
                    if e.is_err() {
                        break;
                    }
                }
            }
            let _ = Reader::open(&bytes[..]);
        }
    }

    #[test]
    fn comments_and_a_torn_last_line_are_skipped_and_other_versions_refused() {
        let file = "{\"version\":3,\"term\":{\"cols\":10,\"rows\":5}}\n# a comment\n\
                    [0.5, \"o\", \"hi\"]\n[0.25, \"r\", \"90x30\"]\n[0.1, \"o\", \"tor";
        let (_, r) = Reader::open(file.as_bytes()).expect("open");
        let ev: Vec<Event> = r.collect::<Result<_, _>>().expect("events");
        assert_eq!(ev.len(), 2);
        assert_eq!(ev[1].size(), Some((90, 30)));
        let v2 = "{\"version\":2,\"width\":80,\"height\":24}\n";
        let e = Reader::open(v2.as_bytes()).err().expect("v2");
        assert!(e.why.contains("version"), "{e}");
        let bad = "{\"version\":3,\"term\":{\"cols\":10,\"rows\":5}}\n[-1, \"o\", \"x\"]\n";
        let (_, mut r) = Reader::open(bad.as_bytes()).expect("open");
        assert_eq!(r.next_event().expect_err("negative").line, 2);
    }
}
