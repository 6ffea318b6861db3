//! A connection to a session's holder on the server's event loop, registered for reading
//! only. A socket registered for writing too wakes its loop each time the peer reads what was
//! sent (the send buffer's room comes back, an edge of its own): for a talk, once more per
//! call while the holder runs the command, for nothing. Requests are small and the holder
//! reads them at once, so a write is tried without waiting; the rare one that finds the
//! socket full finishes on the runtime's pool, blocking up to the call's deadline. The socket
//! itself stays in blocking mode, and every operation on the loop says `DONTWAIT`.

use std::io::{self, Write};
use std::os::unix::net::UnixStream;
use tokio::io::unix::AsyncFd;
use tokio::time::Instant;

/// One holder connection.
pub(super) struct HolderConn {
    fd: AsyncFd<UnixStream>,
}

impl HolderConn {
    /// `stream`, registered with the current runtime's reactor for reading.
    pub(super) fn new(stream: UnixStream) -> io::Result<Self> {
        stream.set_nonblocking(false)?;
        Ok(Self {
            fd: crate::sys::register_readable(stream)?,
        })
    }

    /// Whether the holder hung up: between talks a holder sends nothing, so anything to read
    /// (its end) means it exited.
    pub(super) fn hung_up(&self) -> bool {
        let mut byte = [0u8; 1];
        let peek = rustix::net::recv(
            self.fd.get_ref(),
            &mut byte[..],
            rustix::net::RecvFlags::PEEK | rustix::net::RecvFlags::DONTWAIT,
        );
        !matches!(peek, Err(rustix::io::Errno::AGAIN))
    }

    /// Send all of `bytes`, by `deadline`.
    pub(super) async fn write_all(&self, bytes: &[u8], deadline: Instant) -> io::Result<()> {
        use rustix::net::{SendFlags, send};
        let mut at = 0;
        while at < bytes.len() {
            match send(
                self.fd.get_ref(),
                &bytes[at..],
                SendFlags::DONTWAIT | SendFlags::NOSIGNAL,
            ) {
                Ok(n) => at += n,
                Err(rustix::io::Errno::INTR) => {}
                Err(rustix::io::Errno::AGAIN) => break,
                Err(e) => return Err(e.into()),
            }
        }
        if at == bytes.len() {
            return Ok(());
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        let (rest, mut dup) = (bytes[at..].to_vec(), self.fd.get_ref().try_clone()?);
        tokio::task::spawn_blocking(move || {
            dup.set_write_timeout(Some(left))?;
            dup.write_all(&rest)
        })
        .await
        .map_err(io::Error::other)?
    }

    /// Read what is there into `buf` (waiting for something); 0 at the holder's end.
    async fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let mut ready = self.fd.readable().await?;
            let got = ready.try_io(|s| {
                loop {
                    match rustix::net::recv(
                        s.get_ref(),
                        &mut *buf,
                        rustix::net::RecvFlags::DONTWAIT,
                    ) {
                        Ok((n, _)) => return Ok(n),
                        Err(rustix::io::Errno::INTR) => {}
                        Err(e) => return Err(e.into()),
                    }
                }
            });
            if let Ok(r) = got {
                return r;
            }
        }
    }

    /// Fill `buf` whole; `UnexpectedEof` when the holder's end comes first.
    pub(super) async fn read_exact(&self, mut buf: &mut [u8]) -> io::Result<()> {
        while !buf.is_empty() {
            match self.read(buf).await? {
                0 => return Err(io::ErrorKind::UnexpectedEof.into()),
                n => buf = &mut buf[n..],
            }
        }
        Ok(())
    }
}
