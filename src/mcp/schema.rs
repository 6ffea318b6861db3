//! The `k_pty` tool's definition: a flat input schema (an `action` enum plus every parameter
//! as an optional property — no top-level `oneOf`/`anyOf`/`allOf`, which Claude Code and the
//! Anthropic API reject), its description and annotations, and argument parsing that turns
//! unknown or mistyped fields into `INVALID_PARAMS` results.

use crate::api::{Action, Params};
use crate::error::{Error, Result};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;
use std::sync::Arc;

/// The tool's name.
pub const TOOL_NAME: &str = "k_pty";

/// The tool's arguments: the action and its parameters, flat.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct KptyArgs {
    /// What to do. Sessions: help, list, create, talk (run is its alias), send_line, read,
    /// term_read, resize, kill, write (deprecated). Routing by owner: resolve,
    /// send_line_to_agent, update_ownership. Registered (desktop) sessions: register,
    /// unregister, heartbeat, prune. Policy: check (would a command be blocked, and why; no
    /// session needed). Start with create, then talk; read output with read (raw,
    /// incremental via since/next_offset) or term_read (the rendered screen).
    pub action: Action,
    /// The action's parameters.
    #[serde(flatten)]
    pub params: Params,
}

const DESCRIPTION: &str = "Drive live terminal (PTY) sessions that persist across calls and \
processes. `talk` runs a command in a session and returns its clean output and exit_code \
(completion detected from the shell itself); `create` starts a session (returns session_id); \
`send_line` types a line + Enter (for prompts, REPLs, Ctrl-C as \\x03); `read` returns raw \
recent output, or everything after `since` (use next_offset); `term_read` returns the rendered \
screen as text (mode tail | viewport | delta with marker_id; for TUIs, pagers, progress bars); \
`list` shows sessions and their state (terminal_state prompt | running | full_screen); `resize`; `kill`; \
`check` tells, without typing anything, whether a command would be blocked as dangerous and \
by which rule (allowed=false is an answer, not an error). Without session_id, talk/read/send_line use a default session. Every \
result is a JSON object with `ok`; failures carry `error_code` (PTY_TIMEOUT with \
details.partial_output, PTY_BUSY, PTY_SESSION_NOT_FOUND, DANGEROUS_COMMAND_BLOCKED …).";

/// The input schema as a JSON object.
pub fn input_schema() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_type::<KptyArgs>()
}

/// The tool definition.
pub fn tool() -> Tool {
    Tool::new(TOOL_NAME, DESCRIPTION, input_schema()).with_annotations(
        ToolAnnotations::with_title("Terminal sessions (kpty)")
            .read_only(false)
            .destructive(true)
            .idempotent(false)
            .open_world(true),
    )
}

/// Parse tool arguments: unknown fields and wrong types become `INVALID_PARAMS`.
pub fn parse(args: Option<JsonObject>) -> Result<(Action, Params)> {
    let args = args.unwrap_or_default();
    let schema = input_schema();
    let known = schema.get("properties").and_then(|p| p.as_object());
    if let Some(known) = known {
        let mut unknown: Vec<&String> = args.keys().filter(|k| !known.contains_key(*k)).collect();
        if !unknown.is_empty() {
            unknown.sort();
            let mut names: Vec<&String> = known.keys().collect();
            names.sort();
            return Err(Error::invalid(format!(
                "unknown parameter(s) {unknown:?}; k_pty takes {names:?}"
            )));
        }
    }
    if !args.contains_key("action") {
        let names: Vec<&str> = Action::ALL.iter().map(|a| a.as_str()).collect();
        return Err(Error::invalid(format!(
            "`action` is required: one of {names:?}"
        )));
    }
    let parsed: KptyArgs = serde_json::from_value(serde_json::Value::Object(args))
        .map_err(|e| Error::invalid(format!("invalid arguments: {e}")))?;
    Ok((parsed.action, parsed.params))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_is_flat_object_without_combinators() {
        let s = input_schema();
        assert_eq!(s["type"], "object");
        for k in ["oneOf", "anyOf", "allOf", "$ref", "$defs"] {
            assert!(!s.contains_key(k), "top-level {k} in {s:?}");
        }
        let props = s["properties"].as_object().expect("properties");
        assert_eq!(props["action"]["type"], "string");
        assert!(
            props["action"]["enum"]
                .as_array()
                .is_some_and(|e| e.len() == Action::ALL.len())
        );
        for p in [
            "session_id",
            "command",
            "data",
            "timeout_ms",
            "max_bytes",
            "since",
            "cols",
            "rows",
        ] {
            assert!(props.contains_key(p), "missing {p}");
        }
        assert_eq!(s["required"], serde_json::json!(["action"]));
    }

    #[test]
    fn parse_rejects_unknown_and_missing() {
        let obj = |v: serde_json::Value| v.as_object().cloned();
        assert!(parse(obj(serde_json::json!({"action": "list"}))).is_ok());
        let e = parse(obj(serde_json::json!({"action": "list", "sesion_id": "x"}))).unwrap_err();
        assert!(e.message.contains("sesion_id"), "{}", e.message);
        assert!(parse(obj(serde_json::json!({"command": "ls"}))).is_err());
        assert!(parse(obj(serde_json::json!({"action": "explode"}))).is_err());
        assert!(
            parse(obj(
                serde_json::json!({"action": "talk", "timeout_ms": "soon"})
            ))
            .is_err()
        );
        let (a, p) = parse(obj(serde_json::json!({"action": "run", "command": "ls"}))).unwrap();
        assert_eq!(a, Action::Run);
        assert_eq!(p.command.as_deref(), Some("ls"));
    }
}
