//! The frames of a host's channel ([`super::mux`] and [`super::server`]): many requests at
//! once over one ssh connection, each told apart by its id. A frame is the holder protocol's
//! length-prefixed body ([`crate::proto::frame`]): a 4-byte big-endian request id, a kind
//! byte, then the kind's payload. Kinds a side does not know are skipped, so a newer kpty can
//! add some.

use serde::{Deserialize, Serialize};
use std::io::{self, Read, Write};

/// What a frame carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// To the host: run a CLI verb ([`Verb`] as JSON).
    Verb,
    /// To the host: run an action ([`super::action::Call`] as JSON).
    Call,
    /// To the host: bytes for the verb's standard input.
    Stdin,
    /// To the host: the verb's standard input ends.
    StdinEnd,
    /// To the host: the caller left or was interrupted; interrupt the request.
    Cancel,
    /// From the host, once, id 0: it is ready (the payload names its build).
    Hello,
    /// From the host: bytes of the verb's standard output.
    Out,
    /// From the host: bytes of the verb's standard error.
    Err,
    /// From the host: the verb ended (its exit code, 4 bytes big-endian); the request is over.
    Exit,
    /// From the host: the action's JSON answer; the request is over.
    Answer,
    /// A kind this build does not know.
    Unknown(u8),
}

impl Kind {
    fn byte(self) -> u8 {
        match self {
            Self::Verb => 1,
            Self::Call => 2,
            Self::Stdin => 3,
            Self::StdinEnd => 4,
            Self::Cancel => 5,
            Self::Hello => 10,
            Self::Out => 11,
            Self::Err => 12,
            Self::Exit => 13,
            Self::Answer => 14,
            Self::Unknown(b) => b,
        }
    }

    fn of(b: u8) -> Self {
        match b {
            1 => Self::Verb,
            2 => Self::Call,
            3 => Self::Stdin,
            4 => Self::StdinEnd,
            5 => Self::Cancel,
            10 => Self::Hello,
            11 => Self::Out,
            12 => Self::Err,
            13 => Self::Exit,
            14 => Self::Answer,
            b => Self::Unknown(b),
        }
    }

    /// Whether this frame ends its request.
    pub fn ends(self) -> bool {
        matches!(self, Self::Exit | Self::Answer)
    }
}

/// One frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The request it belongs to (0: the channel itself).
    pub id: u32,
    /// What it carries.
    pub kind: Kind,
    /// The payload.
    pub data: Vec<u8>,
}

impl Frame {
    /// A frame of `kind` for request `id`.
    pub fn new(id: u32, kind: Kind, data: Vec<u8>) -> Self {
        Self { id, kind, data }
    }

    /// The exit frame of request `id`.
    pub fn exit(id: u32, code: i32) -> Self {
        Self::new(id, Kind::Exit, code.to_be_bytes().to_vec())
    }

    /// The exit code an exit frame carries.
    pub fn exit_code(&self) -> Option<i32> {
        let b: [u8; 4] = self.data.get(..4)?.try_into().ok()?;
        Some(i32::from_be_bytes(b))
    }

    /// Write the frame, whole, and flush.
    pub fn write(&self, w: &mut impl Write) -> io::Result<()> {
        crate::proto::frame::write_frame(w, &self.body())
    }

    /// The frame as it travels: its length, then its body.
    pub fn encode(&self) -> io::Result<Vec<u8>> {
        let mut out = Vec::with_capacity(9 + self.data.len());
        crate::proto::frame::write_frame(&mut out, &self.body())?;
        Ok(out)
    }

    fn body(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(5 + self.data.len());
        body.extend_from_slice(&self.id.to_be_bytes());
        body.push(self.kind.byte());
        body.extend_from_slice(&self.data);
        body
    }

    /// Read one frame; `Ok(None)` at a clean end of the stream.
    pub fn read(r: &mut impl Read) -> io::Result<Option<Self>> {
        match crate::proto::frame::read_frame(r)? {
            Some(body) => Self::from_body(body).map(Some),
            None => Ok(None),
        }
    }

    /// The frame a body (what follows the length) holds.
    fn from_body(mut body: Vec<u8>) -> io::Result<Self> {
        if body.len() < 5 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a frame shorter than its header",
            ));
        }
        let data = body.split_off(5);
        let id = u32::from_be_bytes([body[0], body[1], body[2], body[3]]);
        Ok(Self::new(id, Kind::of(body[4]), data))
    }
}

/// Frames out of bytes that come in pieces of any size (a non-blocking read's): the bytes
/// are kept until a frame is whole.
#[derive(Debug, Default)]
pub struct Unframer {
    buf: Vec<u8>,
    /// Where the bytes not yet taken as frames start: frames are taken from the front
    /// without moving the rest each time (many small frames in one read stay linear).
    from: usize,
}

impl Unframer {
    /// More bytes.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.from == self.buf.len() {
            self.buf.clear();
            self.from = 0;
        } else if self.from > 0 {
            self.buf.drain(..self.from);
            self.from = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next whole frame, if one is; an error for a length past the limit (refused before
    /// its body is waited for) or a body shorter than a frame's header.
    pub fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        let rest = &self.buf[self.from..];
        let Some(prefix) = rest.get(..4) else {
            return Ok(None);
        };
        let len = crate::proto::frame::body_len([prefix[0], prefix[1], prefix[2], prefix[3]])?;
        let Some(body) = rest.get(4..4 + len) else {
            return Ok(None);
        };
        let body = body.to_vec();
        self.from += 4 + len;
        Frame::from_body(body).map(Some)
    }
}

/// A CLI verb for the host: its arguments (the verb first, no `--host`), and whether its
/// standard input follows as [`Kind::Stdin`] frames (else it reads nothing).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Verb {
    /// The arguments.
    pub args: Vec<String>,
    /// Whether stdin frames follow.
    #[serde(default)]
    pub stdin: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any run of frames reads back as written, unknown kinds included.
        #[test]
        fn frames_read_back_as_written(frames in proptest::collection::vec(
            (proptest::num::u32::ANY, proptest::num::u8::ANY, proptest::collection::vec(proptest::num::u8::ANY, 0..300)),
            0..8,
        )) {
            let frames: Vec<Frame> = frames
                .into_iter()
                .map(|(id, k, data)| Frame::new(id, Kind::of(k), data))
                .collect();
            let mut buf = Vec::new();
            for f in &frames {
                f.write(&mut buf).unwrap();
            }
            let mut r = &buf[..];
            let mut back = Vec::new();
            while let Some(f) = Frame::read(&mut r).unwrap() {
                back.push(f);
            }
            proptest::prop_assert_eq!(back, frames);
        }
    }

    proptest::proptest! {
        /// Frames cut into pieces anywhere come out whole, in order, and nothing more.
        #[test]
        fn frames_come_whole_out_of_pieces_of_any_size(
            frames in proptest::collection::vec(
                (proptest::num::u32::ANY, proptest::num::u8::ANY, proptest::collection::vec(proptest::num::u8::ANY, 0..300)),
                0..8,
            ),
            cuts in proptest::collection::vec(1usize..64, 1..40),
        ) {
            let frames: Vec<Frame> = frames
                .into_iter()
                .map(|(id, k, data)| Frame::new(id, Kind::of(k), data))
                .collect();
            let bytes: Vec<u8> = frames.iter().flat_map(|f| f.encode().unwrap()).collect();
            let mut u = Unframer::default();
            let (mut back, mut at, mut i) = (Vec::new(), 0, 0);
            while at < bytes.len() {
                let n = cuts[i % cuts.len()].min(bytes.len() - at);
                u.push(&bytes[at..at + n]);
                at += n;
                i += 1;
                while let Some(f) = u.next_frame().unwrap() {
                    back.push(f);
                }
            }
            proptest::prop_assert_eq!(back, frames);
            proptest::prop_assert!(u.next_frame().unwrap().is_none());
        }
    }

    #[test]
    fn a_length_past_the_limit_is_refused_before_its_body_comes() {
        let mut u = Unframer::default();
        u.push(&u32::MAX.to_be_bytes());
        assert!(u.next_frame().is_err());
        let mut u = Unframer::default();
        u.push(&[0, 0, 0, 2, 1, 2]);
        assert!(u.next_frame().is_err(), "a body shorter than a header");
    }

    #[test]
    fn a_short_frame_is_an_error_not_a_panic() {
        let mut buf = Vec::new();
        crate::proto::frame::write_frame(&mut buf, b"abc").unwrap();
        assert!(Frame::read(&mut &buf[..]).is_err());
        assert_eq!(Frame::exit(7, -3).exit_code(), Some(-3));
        assert_eq!(Frame::new(1, Kind::Exit, vec![1]).exit_code(), None);
    }
}
