//! A verb on a host whose standard input and output are a socket of the caller's (the web
//! console's view of a remote session: [`super::join`]), over the host's channel like any verb
//! ([`super::channel`]). What the caller writes to its end of the socket pair goes to the
//! verb's stdin as `Stdin` frames, and closing it ends that stdin; the verb's stdout comes out
//! of it, and its end is read when the verb ended (or the channel dropped).
//!
//! The channel never waits for a slow caller: the verb's output is queued for a thread of its
//! own that writes it to the socket, and a caller that lets more than [`MAX_WAITING`] pile up
//! is cut off (the channel's other requests go on). A verb that does not end within
//! [`AFTER_STDIN`] of its input's end is left: the channel's connection is closed, and the
//! channel interrupts it there.

use super::Host;
use super::wire::{Frame, Kind, Verb};
use crate::error::{Error, Result};
use std::io::{Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// The most output kept waiting for a caller that reads slowly.
const MAX_WAITING: usize = 16 << 20;
/// How long a verb may take to end once its input ended.
const AFTER_STDIN: Duration = Duration::from_secs(10);
/// The most of the verb's stderr kept.
const MAX_SAID: usize = 4096;

/// What the verb said on its stderr (the first [`MAX_SAID`] bytes), for an error.
#[derive(Clone, Default)]
pub(super) struct Said(Arc<Mutex<String>>);

impl Said {
    /// The text so far.
    pub(super) fn text(&self) -> String {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn add(&self, bytes: &[u8]) {
        let mut s = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if s.len() < MAX_SAID {
            s.push_str(&String::from_utf8_lossy(bytes));
            let mut end = s.len().min(MAX_SAID);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            s.truncate(end);
        }
    }
}

/// Run verb `args` over `stream` (a connection to `host`'s channel) with its stdin and stdout
/// on the returned socket; what it says on stderr goes to the [`Said`].
pub(super) fn verb(host: &Host, stream: UnixStream, args: &[String]) -> Result<(UnixStream, Said)> {
    let v = serde_json::to_vec(&Verb {
        args: args.to_vec(),
        stdin: true,
    })
    .map_err(|e| Error::internal(e.to_string()))?;
    let dropped = |_| super::channel::dropped(host, "a verb's start");
    Frame::new(0, Kind::Verb, v)
        .write(&mut &stream)
        .map_err(dropped)?;
    let (mine, theirs) = UnixStream::pair().map_err(|e| Error::internal(e.to_string()))?;
    let clone = |s: &UnixStream| s.try_clone().map_err(|e| Error::internal(e.to_string()));
    let (to_caller, from_caller, to_host) = (clone(&mine)?, mine, clone(&stream)?);
    let said = Said::default();
    let (ended, on_end) = mpsc::channel::<()>();
    let s = said.clone();
    super::workers::run(move || from_host(stream, to_caller, &s, ended));
    super::workers::run(move || to_host_until_end(from_caller, to_host, &on_end));
    Ok((theirs, said))
}

/// The caller's bytes to the verb's stdin until the caller closes its end; then the verb gets
/// [`AFTER_STDIN`] to end before its connection is closed.
fn to_host_until_end(mut from: UnixStream, to: UnixStream, ended: &mpsc::Receiver<()>) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match crate::eintr::retry(|| from.read(&mut buf)) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if Frame::new(0, Kind::Stdin, buf[..n].to_vec())
                    .write(&mut &to)
                    .is_err()
                {
                    break;
                }
            }
        }
    }
    let _ = Frame::new(0, Kind::StdinEnd, Vec::new()).write(&mut &to);
    if let Err(mpsc::RecvTimeoutError::Timeout) = ended.recv_timeout(AFTER_STDIN) {
        let _ = to.shutdown(Shutdown::Both);
    }
}

/// The verb's output to the caller (through a queue: see the module's note), its stderr to
/// `said`, until it exits or the channel drops; then the caller's end reads its end.
fn from_host(stream: UnixStream, to: UnixStream, said: &Said, _ended: mpsc::Sender<()>) {
    let waiting = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let cut = to.try_clone().ok();
    {
        let waiting = waiting.clone();
        super::workers::run(move || write_out(&rx, to, &waiting));
    }
    let mut r = &stream;
    while let Ok(Some(f)) = Frame::read(&mut r) {
        match f.kind {
            Kind::Out => {
                let n = f.data.len();
                if waiting.fetch_add(n, Ordering::AcqRel) + n > MAX_WAITING
                    || tx.send(f.data).is_err()
                {
                    tracing::debug!("a remote verb's caller reads too slowly: cut off");
                    if let Some(c) = &cut {
                        let _ = c.shutdown(Shutdown::Both);
                    }
                    break;
                }
            }
            Kind::Err => said.add(&f.data),
            k if k.ends() => break,
            _ => {}
        }
    }
    let _ = stream.shutdown(Shutdown::Both);
}

/// Write what `rx` brings to `to` until it ends (then `to`'s reader sees the end) or `to`
/// is gone.
fn write_out(rx: &mpsc::Receiver<Vec<u8>>, mut to: UnixStream, waiting: &AtomicUsize) {
    for chunk in rx {
        waiting.fetch_sub(chunk.len(), Ordering::AcqRel);
        if to.write_all(&chunk).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A verb over a stand-in channel: the caller's socket, what it said, the channel's end.
    fn started() -> (UnixStream, Said, UnixStream) {
        let (chan, far) = UnixStream::pair().unwrap();
        let host = Host::parse("box").unwrap();
        let (caller, said) = verb(&host, chan, &["x".into()]).unwrap();
        let f = Frame::read(&mut &far).unwrap().unwrap();
        assert_eq!(f.kind, Kind::Verb);
        (caller, said, far)
    }

    #[test]
    fn the_callers_bytes_are_the_verbs_stdin_and_its_output_comes_back_to_its_end() {
        let (mut caller, said, far) = started();
        caller.write_all(b"hello").unwrap();
        let mut stdin = Vec::new();
        while stdin.len() < 5 {
            let f = Frame::read(&mut &far).unwrap().unwrap();
            assert_eq!(f.kind, Kind::Stdin);
            stdin.extend(f.data);
        }
        assert_eq!(stdin, b"hello");
        Frame::new(0, Kind::Out, b"out".to_vec())
            .write(&mut &far)
            .unwrap();
        let mut out = [0u8; 3];
        caller.read_exact(&mut out).unwrap();
        assert_eq!(&out, b"out");
        // The caller's input ends: so does the verb's stdin.
        caller.shutdown(Shutdown::Write).unwrap();
        let f = Frame::read(&mut &far).unwrap().unwrap();
        assert_eq!(f.kind, Kind::StdinEnd);
        // The verb says something on stderr and ends: the caller's end ends.
        Frame::new(0, Kind::Err, b"oops".to_vec())
            .write(&mut &far)
            .unwrap();
        Frame::exit(0, 0).write(&mut &far).unwrap();
        let mut rest = Vec::new();
        caller.read_to_end(&mut rest).unwrap();
        assert_eq!((rest.len(), said.text().as_str()), (0, "oops"));
    }

    #[test]
    fn a_caller_that_does_not_read_is_cut_off_not_waited_for() {
        let (mut caller, _said, far) = started();
        let chunk = vec![b'x'; 1 << 20];
        let mut sent = 0;
        while Frame::new(0, Kind::Out, chunk.clone())
            .write(&mut &far)
            .is_ok()
        {
            sent += chunk.len();
            assert!(sent <= 4 * MAX_WAITING, "never cut off");
        }
        // What was queued before the cut may arrive; then the caller's end ends.
        let mut got = Vec::new();
        let _ = caller.read_to_end(&mut got);
        assert!(got.len() <= MAX_WAITING + chunk.len(), "{}", got.len());
    }
}
