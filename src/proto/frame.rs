//! Length-prefixed frames: 4-byte big-endian length + body, bounded by `MAX_FRAME`.

use super::MAX_FRAME;
use std::io::{self, Read, Write};

/// Write one frame.
pub fn write_frame(w: &mut impl Write, body: &[u8]) -> io::Result<()> {
    if body.len() > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("frame of {} bytes is over the limit", body.len()),
        ));
    }
    let len = u32::try_from(body.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "frame too large"))?;
    let mut buf = Vec::with_capacity(4 + body.len());
    buf.extend_from_slice(&len.to_be_bytes());
    buf.extend_from_slice(body);
    w.write_all(&buf)?;
    w.flush()
}

/// Read one frame; `Ok(None)` on a clean EOF before the length.
pub fn read_frame(r: &mut impl Read) -> io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let mut body = vec![0u8; body_len(len)?];
    r.read_exact(&mut body)?;
    Ok(Some(body))
}

/// The length of the body a frame's 4-byte prefix announces, refused past `MAX_FRAME`
/// before anything is read or allocated for it.
pub fn body_len(prefix: [u8; 4]) -> io::Result<usize> {
    let len = u32::from_be_bytes(prefix) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("frame length {len} is over the limit"),
        ));
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_eof() {
        let mut buf = Vec::new();
        write_frame(&mut buf, b"hello").unwrap();
        write_frame(&mut buf, b"").unwrap();
        let mut r = &buf[..];
        assert_eq!(read_frame(&mut r).unwrap().unwrap(), b"hello");
        assert_eq!(read_frame(&mut r).unwrap().unwrap(), b"");
        assert!(read_frame(&mut r).unwrap().is_none());
    }

    #[test]
    fn oversized_length_is_refused_before_reading() {
        let bad = (u32::MAX).to_be_bytes();
        let e = read_frame(&mut &bad[..]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    }

    #[test]
    fn truncated_body_is_an_error() {
        let mut buf = Vec::new();
        write_frame(&mut buf, b"hello").unwrap();
        buf.truncate(6);
        assert!(read_frame(&mut &buf[..]).is_err());
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let mut r = &bytes[..];
            // Every frame read either yields a body within the limit or stops with an error.
            for _ in 0..bytes.len() + 1 {
                match read_frame(&mut r) {
                    Ok(Some(b)) => proptest::prop_assert!(b.len() <= MAX_FRAME),
                    Ok(None) | Err(_) => break,
                }
            }
        }

        #[test]
        fn written_frames_read_back(bodies in proptest::collection::vec(proptest::collection::vec(proptest::num::u8::ANY, 0..32), 0..5)) {
            let mut buf = Vec::new();
            for b in &bodies {
                write_frame(&mut buf, b).unwrap();
            }
            let mut r = &buf[..];
            for b in &bodies {
                let got = read_frame(&mut r).unwrap();
                proptest::prop_assert_eq!(got.as_ref(), Some(b));
            }
            proptest::prop_assert!(read_frame(&mut r).unwrap().is_none());
        }

        #[test]
        fn a_length_prefix_then_garbage_never_panics(len in proptest::num::u32::ANY, tail in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let mut bytes = len.to_be_bytes().to_vec();
            bytes.extend(tail);
            let _ = read_frame(&mut &bytes[..]);
        }
    }
}
