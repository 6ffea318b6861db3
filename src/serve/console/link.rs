//! A terminal view's connection to the session's holder: the attach stream
//! ([`crate::proto::attach`]) driven from the view's own task, without threads between them
//! (a hand-over between threads costs a wake-up on each keystroke and each echo).
//!
//! Reading is cancel-safe ([`Link::readable`] only gathers bytes; whole frames are taken from
//! what was gathered), so the view can wait on the holder and on its page at once. While the
//! view does not read (its page is slow), the holder's writes to it stop, and the holder
//! resynchronises this client rather than wait for it.

use crate::proto::attach::{self, Frame};
use std::io;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;

/// How long a frame to the holder may take to go out (its reader is a thread of its own that
/// only stops when the holder is stuck).
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);
/// Bytes read at once.
const CHUNK: usize = 64 * 1024;

/// The holder end of one view.
pub(super) struct Link {
    stream: UnixStream,
    gathered: Vec<u8>,
    chunk: Box<[u8]>,
}

impl Link {
    /// The view's attach stream, made asynchronous.
    pub(super) fn new(stream: std::os::unix::net::UnixStream) -> io::Result<Self> {
        stream.set_nonblocking(true)?;
        Ok(Link {
            stream: UnixStream::from_std(stream)?,
            gathered: Vec::new(),
            chunk: vec![0; CHUNK].into_boxed_slice(),
        })
    }

    /// The next whole frame already gathered, if any.
    pub(super) fn next(&mut self) -> io::Result<Option<Frame>> {
        attach::take(&mut self.gathered)
    }

    /// Wait for bytes from the holder and gather them (cancel-safe); `Ok(false)` at its end.
    pub(super) async fn readable(&mut self) -> io::Result<bool> {
        let n = self.stream.read(&mut self.chunk).await?;
        self.gathered.extend_from_slice(&self.chunk[..n]);
        Ok(n > 0)
    }

    /// Send one frame to the holder.
    pub(super) async fn send(&mut self, frame: &Frame) -> io::Result<()> {
        let mut bytes = Vec::new();
        attach::write(&mut bytes, frame)?;
        tokio::time::timeout(WRITE_TIMEOUT, self.stream.write_all(&bytes))
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "the holder takes no input"))?
    }
}
