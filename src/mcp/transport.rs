//! The stdio transport of `kpty mcp`: reads one JSON-RPC message per line from stdin with a
//! size cap, checks each line before rmcp sees it, and answers what rmcp would drop in
//! silence — unparsable JSON (`-32700`), too deep or too large a request and a malformed
//! message (`-32600`), `tools/call` arguments that are not an object (`-32602`) — with the id
//! recovered by a shallow scan when there is one. Valid messages go to rmcp unchanged; every
//! line written to stdout (rmcp's and these replies) is one whole JSON-RPC message. A request
//! before `initialize` is answered with an error saying so ([`super::lifecycle`]). This file
//! reads and writes; the checks and the replies are built in `guard.rs`.

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use super::guard::{self, Verdict};
pub use super::guard::{INVALID_PARAMS, INVALID_REQUEST, MAX_DEPTH, MAX_LINE, PARSE_ERROR};
use super::lifecycle::{Admit, Lifecycle};

/// How much of an oversized line is kept to recover its id.
const ID_SCAN: usize = 64 << 10;

/// What one bounded line read produced.
enum LineRead {
    /// A whole line (newline included) is in the buffer.
    Line,
    /// The line was longer than [`MAX_LINE`]; the buffer holds its beginning.
    Oversized,
    /// The peer closed stdin.
    Eof,
    /// Reading failed.
    Io(std::io::Error),
}

/// A [`Transport`] for rmcp over a reader and a writer (stdin and stdout) that guards the
/// reading side; see the module text.
pub struct GuardedStdio<R, W> {
    read: BufReader<R>,
    /// What may reach rmcp before `initialize`.
    lifecycle: Lifecycle,
    /// The line being read; kept across cancelled `receive` calls.
    line: Vec<u8>,
    /// Dropping the rest of a line already known to be oversized.
    oversized: bool,
    /// The one writer; `None` once closed.
    out: Arc<Mutex<Option<W>>>,
    /// Error replies being written (each its own task, so a cancelled `receive` cannot cut
    /// one in half); awaited before the transport reports the end of input.
    replies: Vec<JoinHandle<()>>,
}

impl<R, W> GuardedStdio<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// The transport over `read` (one message per line) and `write`.
    pub fn new(read: R, write: W) -> Self {
        Self {
            read: BufReader::new(read),
            lifecycle: Lifecycle::default(),
            line: Vec::new(),
            oversized: false,
            out: Arc::new(Mutex::new(Some(write))),
            replies: Vec::new(),
        }
    }

    /// Read one line into `self.line` without letting it grow past [`MAX_LINE`]. Cancel-safe:
    /// what was read stays in `self.line` (and `self.oversized`) for the next call.
    async fn read_line(&mut self) -> LineRead {
        loop {
            let (take, ends) = {
                let available = match self.read.fill_buf().await {
                    Ok(a) => a,
                    Err(e) => return LineRead::Io(e),
                };
                if available.is_empty() {
                    // A last line without its newline is still a line.
                    return if std::mem::take(&mut self.oversized) {
                        LineRead::Oversized
                    } else if self.line.is_empty() {
                        LineRead::Eof
                    } else {
                        LineRead::Line
                    };
                }
                let newline = available.iter().position(|b| *b == b'\n');
                let take = newline.map_or(available.len(), |i| i + 1);
                let room = if self.oversized {
                    0
                } else if self.line.len() + take > MAX_LINE {
                    self.oversized = true;
                    self.line.truncate(ID_SCAN);
                    ID_SCAN.saturating_sub(self.line.len())
                } else {
                    take
                };
                self.line.extend_from_slice(&available[..take.min(room)]);
                (take, newline.is_some())
            };
            self.read.consume(take);
            if ends {
                return if std::mem::take(&mut self.oversized) {
                    LineRead::Oversized
                } else {
                    LineRead::Line
                };
            }
        }
    }

    /// Write `reply` as one line, in a task of its own.
    fn reply(&mut self, reply: Value) {
        self.replies.retain(|h| !h.is_finished());
        let out = self.out.clone();
        self.replies.push(tokio::spawn(async move {
            let mut bytes = reply.to_string().into_bytes();
            bytes.push(b'\n');
            let mut guard = out.lock().await;
            if let Some(w) = guard.as_mut()
                && let Err(e) = write_line(w, &bytes).await
            {
                tracing::warn!("cannot write an error reply: {e}");
            }
        }));
    }

    /// Wait until every error reply is written. Cancel-safe: rmcp may drop a `receive` (or
    /// `close`) in the middle of it; a reply not yet written stays listed, so the next flush
    /// (at the latest `close`'s, before the writer goes) still waits for it. Draining the list
    /// first lost such a reply: its task then found the writer closed.
    async fn flush_replies(&mut self) {
        while let Some(h) = self.replies.last_mut() {
            let _ = h.await;
            self.replies.pop();
        }
    }
}

/// Write one whole line and flush it.
async fn write_line<W: AsyncWrite + Unpin>(w: &mut W, bytes: &[u8]) -> std::io::Result<()> {
    w.write_all(bytes).await?;
    w.flush().await
}

impl<R, W> Transport<RoleServer> for GuardedStdio<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = self.out.clone();
        async move {
            let mut bytes = serde_json::to_vec(&item)?;
            bytes.push(b'\n');
            let mut guard = out.lock().await;
            match guard.as_mut() {
                Some(w) => write_line(w, &bytes).await,
                None => Err(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the transport is closed",
                )),
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let verdict = match self.read_line().await {
                LineRead::Line => guard::check(&self.line),
                LineRead::Oversized => guard::oversized(&self.line),
                LineRead::Eof => {
                    self.flush_replies().await;
                    return None;
                }
                LineRead::Io(e) => {
                    tracing::error!("cannot read stdin: {e}");
                    self.flush_replies().await;
                    return None;
                }
            };
            self.line.clear();
            match verdict {
                Verdict::Pass(msg) => match self.lifecycle.admit(&msg) {
                    Admit::Pass => return Some(*msg),
                    Admit::Reply(r) => self.reply(r),
                    Admit::Drop => {}
                },
                Verdict::Reply(r) => self.reply(r),
                Verdict::Ignore => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.flush_replies().await;
        let mut guard = self.out.lock().await;
        match guard.take() {
            Some(mut w) => w.flush().await,
            None => Ok(()),
        }
    }
}
