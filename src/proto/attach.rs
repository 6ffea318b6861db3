//! The attach stream: after an `attach` request is answered, the connection carries typed
//! binary frames both ways until either side closes it.
//!
//! Frame: one kind byte, a 4-byte big-endian length, then the payload (at most
//! [`MAX_PAYLOAD`]). Holder → client: [`Frame::Output`] (terminal bytes, as the program wrote
//! them, or a redraw of the screen) and [`Frame::Event`] (JSON, [`Event`]). Client → holder:
//! [`Frame::Input`] (keystrokes), [`Frame::Resize`], [`Frame::Redraw`] and [`Frame::Detach`].
//! A frame of an unknown kind is skipped, so either side can grow new kinds.

use serde::{Deserialize, Serialize};
use std::io::{self, Read, Write};

/// The largest payload accepted in either direction (1 MiB).
pub const MAX_PAYLOAD: usize = 1 << 20;

/// The `attach` request: the client's terminal and whether it may type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttachRequest {
    /// The client terminal's columns.
    pub cols: u16,
    /// The client terminal's rows.
    pub rows: u16,
    /// Watch only: the holder drops this client's input.
    #[serde(default)]
    pub read_only: bool,
    /// A person in a browser (the web console): their keys pass the session's input filter,
    /// as a remote writer's do (seed 002 §8.4), and their size counts toward the terminal's
    /// only once they send one ([`Frame::Resize`]; `0×0` withdraws it again). An older holder
    /// ignores this and says so: [`AttachBody::web`] stays false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub web: bool,
    /// Rows of the screen's scrollback wanted before the redraw, as plain text (at most
    /// [`MAX_HISTORY`]; 0: none, as a terminal that keeps its own, `kpty attach`'s, wants).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub history: u32,
    /// Tell this client where its output stands ([`Event::Offset`]), so it can come back with
    /// [`AttachRequest::resume`] (the web console's pages do). An older holder never does.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub offsets: bool,
    /// Carry on from this output offset instead of a redraw (a page that lost its
    /// connection, told it by [`Event::Offset`]): when the holder still has the output from
    /// there, it sends those bytes and no history or redraw ([`AttachBody::resumed`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<u64>,
    /// Who is attaching (`kpty attach`, a web login …), for the recording's markers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// The most scrollback rows an attach sends before its redraw.
pub const MAX_HISTORY: u32 = 10_000;

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The reply to `attach`, before the stream starts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AttachBody {
    /// The terminal's size now (the smallest attached client's, this one included).
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// Clients attached now, this one included.
    pub attached: usize,
    /// The shell's pid.
    pub pid: u32,
    /// The holder treats this client as a web client ([`AttachRequest::web`]); false from a
    /// holder older than web clients, whose keys would reach the program unfiltered.
    pub web: bool,
    /// The stream carries on from [`AttachRequest::resume`]: no history, no redraw.
    pub resumed: bool,
}

/// An event on the attach stream (holder → client).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The client fell behind by more than its queue holds: `missed` bytes of output were
    /// skipped and the next [`Frame::Output`] is a redraw of the screen.
    Resync {
        /// Bytes of output skipped.
        missed: u64,
    },
    /// The terminal's size changed (another client attached, detached or resized).
    Size {
        /// Columns.
        cols: u16,
        /// Rows.
        rows: u16,
    },
    /// The shell (or program) ended; the stream ends after this.
    Exited {
        /// Its exit code.
        code: i32,
        /// The signal that ended it.
        #[serde(default)]
        signal: Option<String>,
    },
    /// Some of this (web) client's keys were kept from the program by the input filter; the
    /// rest of them were typed.
    Blocked {
        /// The sequences kept, by printable name.
        blocked: Vec<String>,
        /// The text to show that client (in its terminal only).
        warning: String,
    },
    /// Another client has something to say to the people attached (a page of the web console
    /// took control); a terminal shows it for a moment.
    Notice {
        /// The text (no control characters).
        text: String,
    },
    /// The output sent so far brings the client to this offset of the session's output
    /// ([`AttachRequest::offsets`]): sent before live output starts and after every redraw;
    /// each [`Frame::Output`] after it that is not a redraw moves it on by its length.
    Offset {
        /// Bytes of output the session has written before this point.
        at: u64,
    },
    /// An event this build does not know (skipped).
    #[serde(other)]
    Other,
}

/// One frame of the attach stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    /// Terminal output (holder → client).
    Output(Vec<u8>),
    /// An event (holder → client).
    Event(Event),
    /// Keystrokes (client → holder).
    Input(Vec<u8>),
    /// The client's terminal changed size (client → holder).
    Resize {
        /// Columns.
        cols: u16,
        /// Rows.
        rows: u16,
    },
    /// The client leaves (client → holder).
    Detach,
    /// The client wants the screen drawn again (client → holder): the holder answers with
    /// [`Event::Resync`] and a redraw, as for a client that fell behind. (An older holder
    /// skips it.)
    Redraw,
    /// Something to tell the other people attached (client → holder; at most
    /// 200 characters are kept, control characters dropped): each other client
    /// that is not a web one gets it as [`Event::Notice`].
    Notice(String),
    /// A kind this build does not know (skipped).
    Unknown(u8),
}

/// The most characters of a notice kept.
const MAX_NOTICE: usize = 200;

/// `text` as a notice may carry it: no control characters, at most 200 of them.
pub fn notice_text(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .take(MAX_NOTICE)
        .collect()
}

const OUTPUT: u8 = 1;
const EVENT: u8 = 2;
const INPUT: u8 = 3;
const RESIZE: u8 = 4;
const DETACH: u8 = 5;
const REDRAW: u8 = 6;
const NOTICE: u8 = 7;

/// Write one frame (payloads over [`MAX_PAYLOAD`] are split into several output or input
/// frames).
pub fn write(w: &mut impl Write, frame: &Frame) -> io::Result<()> {
    let (kind, payload): (u8, Vec<u8>) = match frame {
        Frame::Output(b) | Frame::Input(b) if b.len() > MAX_PAYLOAD => {
            let input = matches!(frame, Frame::Input(_));
            for part in b.chunks(MAX_PAYLOAD) {
                let f = if input {
                    Frame::Input(part.to_vec())
                } else {
                    Frame::Output(part.to_vec())
                };
                write(w, &f)?;
            }
            return Ok(());
        }
        Frame::Output(b) => (OUTPUT, b.clone()),
        Frame::Input(b) => (INPUT, b.clone()),
        Frame::Event(e) => (EVENT, serde_json::to_vec(e).map_err(io::Error::other)?),
        Frame::Resize { cols, rows } => {
            let mut p = cols.to_be_bytes().to_vec();
            p.extend_from_slice(&rows.to_be_bytes());
            (RESIZE, p)
        }
        Frame::Detach => (DETACH, Vec::new()),
        Frame::Redraw => (REDRAW, Vec::new()),
        Frame::Notice(t) => (NOTICE, t.as_bytes().to_vec()),
        Frame::Unknown(k) => (*k, Vec::new()),
    };
    let len = u32::try_from(payload.len()).map_err(io::Error::other)?;
    let mut buf = Vec::with_capacity(5 + payload.len());
    buf.push(kind);
    buf.extend_from_slice(&len.to_be_bytes());
    buf.extend_from_slice(&payload);
    w.write_all(&buf)?;
    w.flush()
}

/// Read one frame; `Ok(None)` on a clean end of stream before a frame starts.
pub fn read(r: &mut impl Read) -> io::Result<Option<Frame>> {
    let mut head = [0u8; 5];
    match r.read_exact(&mut head) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if len > MAX_PAYLOAD {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("attach frame of {len} bytes is over the limit"),
        ));
    }
    let mut payload = vec![0u8; len];
    r.read_exact(&mut payload)?;
    let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_string());
    Ok(Some(match head[0] {
        OUTPUT => Frame::Output(payload),
        INPUT => Frame::Input(payload),
        EVENT => Frame::Event(
            serde_json::from_slice(&payload).map_err(|_| bad("malformed attach event"))?,
        ),
        RESIZE => {
            let [c0, c1, r0, r1] = payload[..] else {
                return Err(bad("malformed resize frame"));
            };
            Frame::Resize {
                cols: u16::from_be_bytes([c0, c1]),
                rows: u16::from_be_bytes([r0, r1]),
            }
        }
        DETACH => Frame::Detach,
        REDRAW => Frame::Redraw,
        NOTICE => Frame::Notice(String::from_utf8_lossy(&payload).into_owned()),
        k => Frame::Unknown(k),
    }))
}

/// The first whole frame at the front of `buf`, taken out of it; `Ok(None)` while `buf` holds
/// only part of one (for a reader that gathers bytes as they come, as an async one does).
pub fn take(buf: &mut Vec<u8>) -> io::Result<Option<Frame>> {
    let Some(head) = buf.get(..5) else {
        return Ok(None);
    };
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if len <= MAX_PAYLOAD && buf.len() < 5 + len {
        return Ok(None);
    }
    let frame = read(&mut &buf[..buf.len().min(5 + len)])?;
    buf.drain(..5 + len);
    Ok(frame)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Whatever a client sends as a notice, what the others are shown holds no control
        /// character (no escape reaches a person's terminal) and is at most MAX_NOTICE long.
        #[test]
        fn a_notice_carries_no_control_characters(text in "(\\PC|[\\x00-\\x1f\\x7f-\\x9f])*") {
            let shown = notice_text(&text);
            proptest::prop_assert!(shown.chars().all(|c| !c.is_control()));
            proptest::prop_assert!(shown.chars().count() <= MAX_NOTICE);
            let kept: String = text.chars().filter(|c| !c.is_control()).take(MAX_NOTICE).collect();
            proptest::prop_assert_eq!(shown, kept);
        }
    }

    #[test]
    fn frames_round_trip_and_unknown_kinds_are_skipped() {
        let frames = [
            Frame::Output(b"\x1b[1mhi\xff".to_vec()),
            Frame::Event(Event::Resync { missed: 7 }),
            Frame::Event(Event::Exited {
                code: 3,
                signal: None,
            }),
            Frame::Event(Event::Size { cols: 9, rows: 4 }),
            Frame::Event(Event::Blocked {
                blocked: vec!["exit".into()],
                warning: "no".into(),
            }),
            Frame::Input(b"ls\r".to_vec()),
            Frame::Resize { cols: 80, rows: 24 },
            Frame::Detach,
            Frame::Redraw,
            Frame::Notice("web:1234 took control".into()),
            Frame::Event(Event::Notice { text: "hi".into() }),
            Frame::Unknown(99),
        ];
        let mut buf = Vec::new();
        for f in &frames {
            write(&mut buf, f).unwrap();
        }
        let mut r = &buf[..];
        for f in &frames {
            assert_eq!(read(&mut r).unwrap().as_ref(), Some(f));
        }
        assert_eq!(read(&mut r).unwrap(), None);
        // Taken from a buffer that grows a byte at a time: each frame once it is whole.
        let (mut gathered, mut taken) = (Vec::new(), Vec::new());
        for b in &buf {
            gathered.push(*b);
            while let Some(f) = take(&mut gathered).unwrap() {
                taken.push(f);
            }
        }
        assert_eq!(taken, frames);
        assert!(gathered.is_empty());
        // An event of a newer build is read as one this build skips.
        let mut buf = Vec::new();
        let newer = br#"{"event":"something_new","x":1}"#;
        buf.push(EVENT);
        buf.extend_from_slice(&(newer.len() as u32).to_be_bytes());
        buf.extend_from_slice(newer);
        assert_eq!(
            read(&mut &buf[..]).unwrap(),
            Some(Frame::Event(Event::Other))
        );
    }

    #[test]
    fn big_payloads_are_split_and_oversized_lengths_refused() {
        let big = vec![b'x'; MAX_PAYLOAD * 2 + 5];
        let mut buf = Vec::new();
        write(&mut buf, &Frame::Output(big.clone())).unwrap();
        let mut r = &buf[..];
        let mut got = Vec::new();
        while let Some(Frame::Output(b)) = read(&mut r).unwrap() {
            got.extend(b);
        }
        assert_eq!(got, big);
        let mut bad = vec![OUTPUT];
        bad.extend_from_slice(&u32::MAX.to_be_bytes());
        assert!(read(&mut &bad[..]).is_err());
        let short = [RESIZE, 0, 0, 0, 1, 9];
        assert!(read(&mut &short[..]).is_err());
    }
}
