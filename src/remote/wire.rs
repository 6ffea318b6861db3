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
        let mut body = Vec::with_capacity(5 + self.data.len());
        body.extend_from_slice(&self.id.to_be_bytes());
        body.push(self.kind.byte());
        body.extend_from_slice(&self.data);
        crate::proto::frame::write_frame(w, &body)
    }

    /// Read one frame; `Ok(None)` at a clean end of the stream.
    pub fn read(r: &mut impl Read) -> io::Result<Option<Self>> {
        let Some(mut body) = crate::proto::frame::read_frame(r)? else {
            return Ok(None);
        };
        if body.len() < 5 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a frame shorter than its header",
            ));
        }
        let data = body.split_off(5);
        let id = u32::from_be_bytes([body[0], body[1], body[2], body[3]]);
        Ok(Some(Self::new(id, Kind::of(body[4]), data)))
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

    #[test]
    fn a_short_frame_is_an_error_not_a_panic() {
        let mut buf = Vec::new();
        crate::proto::frame::write_frame(&mut buf, b"abc").unwrap();
        assert!(Frame::read(&mut &buf[..]).is_err());
        assert_eq!(Frame::exit(7, -3).exit_code(), Some(-3));
        assert_eq!(Frame::new(1, Kind::Exit, vec![1]).exit_code(), None);
    }
}
