//! The stdio transport of `kpty mcp`: reads one JSON-RPC message per line from stdin with a
//! size cap, checks each line before rmcp sees it, and answers what rmcp would drop in
//! silence — unparsable JSON (`-32700`), too deep or too large a request and a malformed
//! message (`-32600`), `tools/call` arguments that are not an object (`-32602`) — with the id
//! recovered by a shallow scan when there is one. Valid messages go to rmcp unchanged; every
//! line written to stdout (rmcp's and these replies) is one whole JSON-RPC message.

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

/// Longest line (one message) accepted; a longer one is refused with `-32600`, and only its
/// first 64 KiB are kept (to find its id).
/// Eight MiB: room for the largest input kpty takes (1 MiB, `MAX_INPUT_BYTES`) even when every
/// byte of it is JSON-escaped as `\u00XX`.
pub const MAX_LINE: usize = 8 << 20;
/// Deepest nesting of arrays and objects accepted (serde_json itself stops at 128).
pub const MAX_DEPTH: usize = 64;
/// How much of an oversized line is kept to recover its id.
const ID_SCAN: usize = 64 << 10;

/// JSON-RPC: the line is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: JSON, but not an acceptable request.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: a known method with unusable params.
pub const INVALID_PARAMS: i64 = -32602;

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

    /// Wait until every error reply is written.
    async fn flush_replies(&mut self) {
        for h in self.replies.drain(..) {
            let _ = h.await;
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
                LineRead::Line => check(&self.line),
                LineRead::Oversized => Verdict::Reply(error_reply(
                    shallow_id(&self.line),
                    INVALID_REQUEST,
                    &format!("request refused: a message may be at most {MAX_LINE} bytes"),
                )),
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
                Verdict::Pass(msg) => return Some(*msg),
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

/// What to do with one line.
#[derive(Debug)]
enum Verdict {
    /// A message for rmcp.
    Pass(Box<RxJsonRpcMessage<RoleServer>>),
    /// Not for rmcp; answer this.
    Reply(Value),
    /// Not for rmcp, and no answer (blank lines, unknown notifications, stray responses).
    Ignore,
}

/// Judge one line (newline included).
fn check(raw: &[u8]) -> Verdict {
    let line = raw.strip_suffix(b"\n").unwrap_or(raw);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Ignore;
    }
    if depth(line) > MAX_DEPTH {
        return Verdict::Reply(error_reply(
            shallow_id(line),
            INVALID_REQUEST,
            &format!("request refused: JSON nested deeper than {MAX_DEPTH} levels"),
        ));
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Verdict::Reply(error_reply(
                Value::Null,
                PARSE_ERROR,
                &format!("parse error: not JSON ({e})"),
            ));
        }
    };
    let Some(obj) = value.as_object() else {
        return Verdict::Reply(error_reply(
            Value::Null,
            INVALID_REQUEST,
            "invalid request: a message is one JSON object (batches are not supported)",
        ));
    };
    let id = obj.get("id").cloned();
    let method = obj.get("method").and_then(Value::as_str).map(String::from);
    let method = method.as_deref();
    let response = obj.contains_key("result") || obj.contains_key("error");
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return match (&id, method) {
            (None, Some(_)) => Verdict::Ignore,
            _ => Verdict::Reply(error_reply(
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "invalid request: \"jsonrpc\" must be \"2.0\"",
            )),
        };
    }
    if method == Some("tools/call")
        && let Some(args) = obj.get("params").and_then(|p| p.get("arguments"))
        && !args.is_object()
        && !args.is_null()
    {
        let what = match args {
            Value::String(_) => "a string: pass the object itself, not its JSON text",
            Value::Array(_) => "an array",
            Value::Bool(_) => "a boolean",
            _ => "a number",
        };
        return match id {
            Some(id) => Verdict::Reply(error_reply(
                id,
                INVALID_PARAMS,
                &format!(
                    "invalid params: arguments must be a JSON object such as {{\"action\": \"list\"}}, not {what}"
                ),
            )),
            None => Verdict::Ignore,
        };
    }
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
        Ok(msg) => Verdict::Pass(Box::new(msg)),
        Err(e) => match (id, method) {
            // A notification is never answered; an unknown one is simply not for us.
            (None, Some(m)) => {
                tracing::debug!("ignoring the notification {m}: {e}");
                Verdict::Ignore
            }
            (Some(id), Some(m)) => Verdict::Reply(error_reply(
                id,
                INVALID_PARAMS,
                &format!("invalid params for {m}: {e}"),
            )),
            (id, None) if response => {
                tracing::debug!("ignoring a malformed response {id:?}: {e}");
                Verdict::Ignore
            }
            (id, None) => Verdict::Reply(error_reply(
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "invalid request: no method",
            )),
        },
    }
}

/// A JSON-RPC error answer.
fn error_reply(id: Value, code: i64, message: &str) -> Value {
    // An id is a string or a number (or null when unknown); anything else is not echoed.
    let id = if id.is_string() || id.is_number() {
        id
    } else {
        Value::Null
    };
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The deepest nesting of arrays and objects in `line`, strings skipped (a cut or invalid
/// line still gets an answer).
fn depth(line: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut bytes = line.iter();
    while let Some(&b) = bytes.next() {
        match b {
            b'"' => skip_string(&mut bytes),
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Advance past the rest of a string whose opening quote was just read.
fn skip_string(bytes: &mut std::slice::Iter<'_, u8>) {
    while let Some(&b) = bytes.next() {
        match b {
            b'\\' => {
                bytes.next();
            }
            b'"' => return,
            _ => {}
        }
    }
}

/// The `id` of the top-level object in `line` when it is a string or a number, found
/// without parsing the rest (which may be too deep, cut or invalid); else null.
fn shallow_id(line: &[u8]) -> Value {
    let mut depth = 0usize;
    let mut i = 0;
    // At depth 1: whether the next string is a key.
    let mut want_key = false;
    while i < line.len() {
        match line[i] {
            b'"' => {
                let end = string_end(line, i);
                if depth == 1 && want_key {
                    want_key = false;
                    let key = &line[i..end];
                    let mut j = end;
                    while j < line.len() && line[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if key == b"\"id\"" && line.get(j) == Some(&b':') {
                        return scalar_at(line, j + 1);
                    }
                }
                i = end;
                continue;
            }
            b'{' | b'[' => {
                depth += 1;
                want_key = depth == 1 && line[i] == b'{';
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' if depth == 1 => want_key = true,
            _ => {}
        }
        i += 1;
    }
    Value::Null
}

/// The index just past the string starting (at its quote) at `start`.
fn string_end(line: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < line.len() {
        match line[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    line.len()
}

/// The string or number at `start` (after whitespace), else null.
fn scalar_at(line: &[u8], start: usize) -> Value {
    let mut i = start;
    while i < line.len() && line[i].is_ascii_whitespace() {
        i += 1;
    }
    let end = match line.get(i) {
        Some(b'"') => string_end(line, i),
        Some(b) if *b == b'-' || b.is_ascii_digit() => {
            let mut j = i;
            while j < line.len()
                && matches!(line[j], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
            {
                j += 1;
            }
            j
        }
        _ => return Value::Null,
    };
    match serde_json::from_slice::<Value>(&line[i..end]) {
        Ok(v @ (Value::String(_) | Value::Number(_))) => v,
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(n: usize) -> String {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{{\"name\":\"k_pty\",\"arguments\":{{\"x\":{}{}}}}}}}",
            "[".repeat(n),
            "]".repeat(n)
        )
    }

    #[test]
    fn depth_counts_nesting_outside_strings() {
        assert_eq!(depth(br#"{"a":"[[[{{{","b":[1,{"c":2}]}"#), 3);
        assert_eq!(depth(br#""\"[[""#), 0);
        assert_eq!(depth(nested(10_000).as_bytes()), 10_003);
    }

    #[test]
    fn shallow_id_finds_the_top_level_id_only() {
        assert_eq!(shallow_id(nested(10_000).as_bytes()), json!(7));
        assert_eq!(
            shallow_id(br#"{"params":{"id":1},"x":"\"id\":3", "id" : "abc"}"#),
            json!("abc")
        );
        assert_eq!(shallow_id(br#"{"method":"x","id":-2.5e3"#), json!(-2500.0));
        assert_eq!(shallow_id(br#"{"id":[1]}"#), Value::Null);
        assert_eq!(shallow_id(br#"{"id":"cut"#), Value::Null);
        assert_eq!(shallow_id(br#"[{"id":1}]"#), Value::Null);
        assert_eq!(shallow_id(b"not json"), Value::Null);
    }

    fn reply_of(line: &str) -> Value {
        match check(line.as_bytes()) {
            Verdict::Reply(r) => r,
            other => panic!("{line}: expected a reply, got {other:?}"),
        }
    }

    #[test]
    fn check_answers_what_rmcp_would_drop() {
        let r = reply_of("not json\n");
        assert_eq!(
            (&r["id"], &r["error"]["code"]),
            (&Value::Null, &json!(PARSE_ERROR))
        );
        let r = reply_of(&nested(10_000));
        assert_eq!(
            (&r["id"], &r["error"]["code"]),
            (&json!(7), &json!(INVALID_REQUEST))
        );
        let r = reply_of(
            r#"{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"k_pty","arguments":"{\"action\":\"list\"}"}}"#,
        );
        assert_eq!(
            (&r["id"], &r["error"]["code"]),
            (&json!("s"), &json!(INVALID_PARAMS))
        );
        assert!(
            r["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("arguments must be a JSON object")),
            "{r}"
        );
        let r = reply_of("[1,2]");
        assert_eq!(r["error"]["code"], INVALID_REQUEST);
        assert!(matches!(check(b"  \r\n"), Verdict::Ignore));
        // A notification is never answered, malformed or not.
        assert!(matches!(
            check(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":"x"}"#),
            Verdict::Ignore
        ));
        assert!(!matches!(
            check(br#"{"jsonrpc":"2.0","method":"notifications/unknown/thing"}"#),
            Verdict::Reply(_)
        ));
        assert!(matches!(
            check(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            Verdict::Pass(_)
        ));
        assert!(matches!(check(nested(40).as_bytes()), Verdict::Pass(_)));
        // rmcp answers unknown methods itself (-32601).
        assert!(matches!(
            check(br#"{"jsonrpc":"2.0","id":3,"method":"no/such/method"}"#),
            Verdict::Pass(_)
        ));
        let r = reply_of(r#"{"jsonrpc":"1.0","id":4,"method":"tools/list"}"#);
        assert_eq!(
            (&r["id"], &r["error"]["code"]),
            (&json!(4), &json!(INVALID_REQUEST))
        );
    }
}
