//! The line guard of `kpty mcp`'s stdio transport: judges each line before rmcp sees it —
//! blank, too deep, not JSON, not an object, the wrong `jsonrpc`, `tools/call` arguments that
//! are not an object, a message rmcp cannot read — recovers the id of a line it cannot parse
//! by a shallow scan, and builds the JSON-RPC error replies. `kpty serve` judges each
//! `POST /mcp` body the same way ([`refusal`]).

use rmcp::RoleServer;
use rmcp::service::RxJsonRpcMessage;
use serde_json::{Value, json};

/// Longest line (one message) accepted; a longer one is refused with `-32600`, and only its
/// first 64 KiB are kept (to find its id).
/// Eight MiB: room for the largest input kpty takes (1 MiB, `MAX_INPUT_BYTES`) even when every
/// byte of it is JSON-escaped as `\u00XX`.
pub const MAX_LINE: usize = 8 << 20;
/// Deepest nesting of arrays and objects accepted (serde_json itself stops at 128).
pub const MAX_DEPTH: usize = 64;

/// JSON-RPC: the line is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: JSON, but not an acceptable request.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: a known method with unusable params.
pub const INVALID_PARAMS: i64 = -32602;

/// What to do with one line.
#[derive(Debug)]
pub(super) enum Verdict {
    /// A message for rmcp.
    Pass(Box<RxJsonRpcMessage<RoleServer>>),
    /// Not for rmcp; answer this.
    Reply(Value),
    /// Not for rmcp, and no answer (blank lines, unknown notifications, stray responses).
    Ignore,
}

/// Judge one line (newline included).
pub(super) fn check(raw: &[u8]) -> Verdict {
    match judge(raw) {
        Ok(verdict) | Err(verdict) => verdict,
    }
}

/// For a message that arrived whole (an HTTP body): the JSON-RPC error reply the guard
/// answers it with, or `None` when it may go to rmcp as it is.
pub fn refusal(message: &[u8]) -> Option<Value> {
    match check(message) {
        Verdict::Reply(v) => Some(v),
        Verdict::Pass(_) | Verdict::Ignore => None,
    }
}

/// Whether a refusal says the message itself was unusable (not JSON, not a request), as
/// opposed to a request with unusable params.
pub fn refuses_the_message(reply: &Value) -> bool {
    matches!(
        reply["error"]["code"].as_i64(),
        Some(PARSE_ERROR | INVALID_REQUEST)
    )
}

/// The answer to a line longer than [`MAX_LINE`], of which `start` is the beginning.
pub(super) fn oversized(start: &[u8]) -> Verdict {
    Verdict::Reply(error_reply(
        shallow_id(start),
        INVALID_REQUEST,
        &format!("request refused: a message may be at most {MAX_LINE} bytes"),
    ))
}

/// [`check`] step by step; an `Err` is a verdict reached before the last step.
fn judge(raw: &[u8]) -> Result<Verdict, Verdict> {
    let line = content(raw).ok_or(Verdict::Ignore)?;
    let value = parse(line)?;
    let head = Head::of(&value)?;
    head.check_version()?;
    head.check_arguments(&value)?;
    Ok(head.hand_over(value))
}

/// The line without its newline, carriage return and byte-order mark; `None` when blank.
fn content(raw: &[u8]) -> Option<&[u8]> {
    let line = raw.strip_suffix(b"\n").unwrap_or(raw);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    (!line.iter().all(u8::is_ascii_whitespace)).then_some(line)
}

/// The line as JSON; refused when nested deeper than [`MAX_DEPTH`] (checked before parsing)
/// or when it is not JSON.
fn parse(line: &[u8]) -> Result<Value, Verdict> {
    if depth(line) > MAX_DEPTH {
        return Err(Verdict::Reply(error_reply(
            shallow_id(line),
            INVALID_REQUEST,
            &format!("request refused: JSON nested deeper than {MAX_DEPTH} levels"),
        )));
    }
    serde_json::from_slice(line).map_err(|e| {
        Verdict::Reply(error_reply(
            Value::Null,
            PARSE_ERROR,
            &format!("parse error: not JSON ({e})"),
        ))
    })
}

/// What a message says of itself, read before rmcp is given it.
struct Head {
    id: Option<Value>,
    method: Option<String>,
    /// It has a `result` or an `error`.
    response: bool,
    /// Its `jsonrpc` is `"2.0"`.
    v2: bool,
}

impl Head {
    /// The head of `value`; refused when it is not an object (a batch, say).
    fn of(value: &Value) -> Result<Self, Verdict> {
        let Some(obj) = value.as_object() else {
            return Err(Verdict::Reply(error_reply(
                Value::Null,
                INVALID_REQUEST,
                "invalid request: a message is one JSON object (batches are not supported)",
            )));
        };
        Ok(Self {
            id: obj.get("id").cloned(),
            method: obj.get("method").and_then(Value::as_str).map(String::from),
            response: obj.contains_key("result") || obj.contains_key("error"),
            v2: obj.get("jsonrpc").and_then(Value::as_str) == Some("2.0"),
        })
    }

    /// Refuse a message whose `jsonrpc` is not `"2.0"` (a notification in silence).
    fn check_version(&self) -> Result<(), Verdict> {
        if self.v2 {
            return Ok(());
        }
        Err(match (&self.id, &self.method) {
            (None, Some(_)) => Verdict::Ignore,
            (id, _) => Verdict::Reply(error_reply(
                id.clone().unwrap_or(Value::Null),
                INVALID_REQUEST,
                "invalid request: \"jsonrpc\" must be \"2.0\"",
            )),
        })
    }

    /// Refuse a `tools/call` whose arguments are neither an object nor null (a notification
    /// in silence).
    fn check_arguments(&self, value: &Value) -> Result<(), Verdict> {
        if self.method.as_deref() != Some("tools/call") {
            return Ok(());
        }
        let Some(args) = value.get("params").and_then(|p| p.get("arguments")) else {
            return Ok(());
        };
        if args.is_object() || args.is_null() {
            return Ok(());
        }
        let what = match args {
            Value::String(_) => "a string: pass the object itself, not its JSON text",
            Value::Array(_) => "an array",
            Value::Bool(_) => "a boolean",
            _ => "a number",
        };
        Err(match &self.id {
            Some(id) => Verdict::Reply(error_reply(
                id.clone(),
                INVALID_PARAMS,
                &format!(
                    "invalid params: arguments must be a JSON object such as {{\"action\": \"list\"}}, not {what}"
                ),
            )),
            None => Verdict::Ignore,
        })
    }

    /// The message for rmcp, or what to do when rmcp cannot read it.
    fn hand_over(self, value: Value) -> Verdict {
        let e = match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
            Ok(msg) => return Verdict::Pass(Box::new(msg)),
            Err(e) => e,
        };
        match (self.id, self.method.as_deref()) {
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
            (id, None) if self.response => {
                tracing::debug!("ignoring a malformed response {id:?}: {e}");
                Verdict::Ignore
            }
            (id, None) => Verdict::Reply(error_reply(
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "invalid request: no method",
            )),
        }
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
