//! The MCP lifecycle over stdio, as the client sees it: before `initialize`, only `ping` (and
//! the sessionless revision's `server/discover`, or a request that carries its own protocol
//! version and capabilities in `_meta`) may go to rmcp. Any other request is answered here
//! with a JSON-RPC error that says to initialize first — rmcp would answer an unexplained
//! `-32602` about `_meta` — and a notification or response is dropped (rmcp would end the
//! connection on it). Once a request has gone through, everything passes.

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta, ProtocolVersion};
use serde_json::{Value, json};

/// JSON-RPC: the server is not initialized yet (the code LSP gives this; MCP names none).
pub(crate) const NOT_INITIALIZED: i64 = -32002;

/// What the transport does with a message before the lifecycle began.
pub enum Admit {
    /// Hand it to rmcp.
    Pass,
    /// Answer this error instead.
    Reply(Value),
    /// Drop it (a notification or response that has nothing to belong to yet).
    Drop,
}

/// Whether `initialize` (or a self-contained request) has gone through.
#[derive(Debug, Default)]
pub struct Lifecycle {
    begun: bool,
}

impl Lifecycle {
    /// Judge `msg`; a request that goes through begins the lifecycle.
    pub fn admit(&mut self, msg: &ClientJsonRpcMessage) -> Admit {
        if self.begun {
            return Admit::Pass;
        }
        let ClientJsonRpcMessage::Request(req) = msg else {
            tracing::debug!("dropped a message sent before initialize");
            return Admit::Drop;
        };
        match &req.request {
            ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => Admit::Pass,
            ClientRequest::InitializeRequest(_) => {
                self.begun = true;
                Admit::Pass
            }
            r if self_contained(r) => {
                self.begun = true;
                Admit::Pass
            }
            r => Admit::Reply(not_initialized(
                serde_json::to_value(&req.id).unwrap_or(Value::Null),
                r.method(),
            )),
        }
    }
}

/// A request of the sessionless revision: its `_meta` names the protocol version and the
/// client's capabilities, so it needs no `initialize`.
fn self_contained(r: &ClientRequest) -> bool {
    let meta = r.get_meta();
    meta.protocol_version().is_some()
        && meta
            .missing_required_keys(&ProtocolVersion::V_2026_07_28)
            .is_empty()
}

/// The error a request before `initialize` gets.
pub(crate) fn not_initialized(id: Value, method: &str) -> Value {
    let message = format!(
        "the MCP session is not initialized: `{method}` came before `initialize`. Send \
         `initialize` first, then `notifications/initialized`, then your requests (only \
         `ping` may come earlier)"
    );
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": NOT_INITIALIZED, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(v: Value) -> ClientJsonRpcMessage {
        serde_json::from_value(v).expect("a client message")
    }

    fn request(id: i64, method: &str) -> ClientJsonRpcMessage {
        let params = match method {
            "initialize" => json!({"protocolVersion": "2025-06-18", "capabilities": {},
                                   "clientInfo": {"name": "t", "version": "1"}}),
            "tools/call" => json!({"name": "k_pty", "arguments": {"action": "list"}}),
            _ => json!({}),
        };
        msg(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
    }

    proptest::proptest! {
        /// Whatever comes before `initialize` is answered (requests) or dropped, never passed;
        /// `ping` always passes; from `initialize` on, everything passes.
        #[test]
        fn only_ping_passes_before_initialize(
            before in proptest::collection::vec(0usize..5, 0..8),
            after in proptest::collection::vec(0usize..5, 0..8),
        ) {
            let methods = ["tools/list", "tools/call", "ping", "resources/list", "notify"];
            let mut l = Lifecycle::default();
            let judge = |l: &mut Lifecycle, i: usize, k: usize| {
                let m = if methods[k] == "notify" {
                    msg(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                } else {
                    request(i as i64, methods[k])
                };
                l.admit(&m)
            };
            for (i, k) in before.iter().enumerate() {
                match (methods[*k], judge(&mut l, i, *k)) {
                    ("ping", Admit::Pass) | ("notify", Admit::Drop) => {}
                    (m, Admit::Reply(r)) if m != "ping" && m != "notify" => {
                        proptest::prop_assert_eq!(&r["id"], &json!(i));
                        proptest::prop_assert_eq!(&r["error"]["code"], &json!(NOT_INITIALIZED));
                        let text = r["error"]["message"].as_str().unwrap_or_default();
                        proptest::prop_assert!(text.contains("initialize") && text.contains(m), "{}", text);
                    }
                    (m, _) => proptest::prop_assert!(false, "{} before initialize", m),
                }
            }
            proptest::prop_assert!(matches!(l.admit(&request(99, "initialize")), Admit::Pass));
            for (i, k) in after.iter().enumerate() {
                proptest::prop_assert!(matches!(judge(&mut l, i, *k), Admit::Pass));
            }
        }
    }
}
