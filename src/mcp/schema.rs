//! The `k_pty` tool's definition: a flat input schema (an `action` enum plus every parameter
//! as an optional property — no top-level `oneOf`/`anyOf`/`allOf`, which Claude Code and the
//! Anthropic API reject), its description and annotations, and argument parsing that turns
//! unknown or mistyped fields into `INVALID_PARAMS` results.

use crate::api::{self, Action, OwnerRole, Params, TermMode, suggest};
use crate::error::{Error, Result};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// The tool's name.
pub const TOOL_NAME: &str = "k_pty";

/// The tool's arguments: the action and its parameters, flat.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct KptyArgs {
    /// What to do. Sessions: help, list, create, talk (run is its alias), send_line,
    /// send_keys (keys by tmux name: C-c, Up, Enter, Tab, Escape, F1 …), read,
    /// term_read, wait_for (until output matches a pattern, goes quiet, or the prompt is
    /// back), resize, kill, rename (a new label), write (deprecated). Routing by owner: resolve,
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
(completion detected from the shell itself; a command that waits for input — read -p, a \
password prompt, cat — returns early with completed=false, waiting_for_input=true and its \
prompt: answer it with send_line, then read); `create` starts a session (returns session_id; with `command`, a program such as an agent CLI \
instead of a shell, restarted with auto_restart; its input filter answers INPUT_BLOCKED to exit, \
/exit, quit, Ctrl-D sent by agents); \
`send_line` types a line + Enter (for prompts, REPLs); `send_keys` presses keys by tmux name \
(keys [\"C-c\"], [\"Up\",\"Enter\"], [\"Tab\"]; literal=true types text without Enter); `read` returns raw \
recent output, or everything after `since` (use next_offset); `term_read` returns the rendered \
screen as text (mode tail | viewport | delta with marker_id; for TUIs, pagers, progress bars); \
`wait_for` waits until output since the last input (or `since`) matches `pattern` (a regex; e.g. '>>> ' after starting a REPL), \
or quiet_ms passes without output, or (prompt=true) the shell is back at its prompt, and \
returns the output since with next_offset (instead of sleep + read loops); \
`list` shows sessions and their state (terminal_state prompt | running | full_screen | waiting_input); `resize`; `kill`; \
`check` tells, without typing anything, whether a command would be blocked as dangerous and \
by which rule (allowed=false is an answer, not an error). Without session_id, talk/read/send_line use a default session. Every \
result is a JSON object with `ok`; failures carry `error_code` (PTY_TIMEOUT with \
details.partial_output, PTY_BUSY, PTY_SESSION_NOT_FOUND, DANGEROUS_COMMAND_BLOCKED …).";

/// Integer parameters and the range kpty accepts (or clamps to), as the schema declares them.
const RANGES: &[(&str, u64, Option<u64>)] = &[
    ("cols", 2, Some(1000)),
    ("rows", 1, Some(1000)),
    ("scrollback", 0, Some(api::MAX_SCROLLBACK as u64)),
    ("timeout_ms", 0, Some(api::MAX_TIMEOUT_MS)),
    ("max_bytes", 1, Some(api::MAX_READ_BYTES as u64)),
    ("max_lines", 1, Some(crate::core::queries::MAX_LINES as u64)),
    ("max_chars", 1, None),
    ("since", 0, None),
    ("pid", 1, Some(u32::MAX as u64)),
    ("marker_id", 0, None),
    ("quiet_ms", 1, Some(api::MAX_TIMEOUT_MS)),
    (
        "ctrl_c_debounce_ms",
        0,
        Some(crate::filter::MAX_CTRL_C_DEBOUNCE_MS),
    ),
    (
        "restart_delay_ms",
        0,
        Some(crate::proto::launch::MAX_RESTART_DELAY_MS),
    ),
];

/// String parameters that take one of a closed set of values.
fn closed_sets() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        ("mode", TermMode::ALL.iter().map(|m| m.as_str()).collect()),
        (
            "owner_role",
            OwnerRole::ALL.iter().map(|r| r.as_str()).collect(),
        ),
    ]
}

/// The input schema as a JSON object: plain JSON Schema every client can fill in — one
/// `type` per property (optional by absence from `required`, never `["integer","null"]`),
/// no `default: null`, no non-standard `format`s, ranges that are kpty's real ones, enums
/// for closed sets.
pub fn input_schema() -> Arc<JsonObject> {
    static PLAIN: std::sync::OnceLock<Arc<JsonObject>> = std::sync::OnceLock::new();
    PLAIN
        .get_or_init(|| {
            let mut schema =
                (*rmcp::handler::server::common::schema_for_type::<KptyArgs>()).clone();
            if let Some(Value::Object(props)) = schema.get_mut("properties") {
                for (name, prop) in props.iter_mut() {
                    if let Value::Object(prop) = prop {
                        plain_property(name, prop);
                    }
                }
            }
            Arc::new(schema)
        })
        .clone()
}

/// One property made plain (see [`input_schema`]).
fn plain_property(name: &str, prop: &mut JsonObject) {
    if let Some(Value::Array(types)) = prop.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if let [one] = kept.as_slice() {
            prop.insert("type".into(), one.clone());
        }
    }
    if prop.get("default") == Some(&Value::Null) {
        prop.remove("default");
    }
    prop.remove("format");
    if prop.get("type") == Some(&Value::String("integer".into())) {
        prop.remove("maximum");
        let (min, max) = RANGES
            .iter()
            .find(|(n, ..)| *n == name)
            .map_or((0, None), |(_, min, max)| (*min, *max));
        prop.insert("minimum".into(), min.into());
        if let Some(max) = max {
            prop.insert("maximum".into(), max.into());
        }
    }
    if let Some((_, values)) = closed_sets().into_iter().find(|(n, _)| *n == name) {
        prop.insert("enum".into(), values.into());
    }
}

/// A lenient reader, strict about meaning: an integer or boolean parameter sent as a string
/// (`"100"`, `"true"`, as clients that map every field through a text box do) is read as
/// the number or boolean it spells, and an array parameter sent as one string is an array of
/// that string (`keys: "Up Enter"`, which send_keys reads as two keys); anything else stays
/// as sent (and fails as a wrong type).
fn coerce(args: &mut JsonObject, props: &JsonObject) {
    for (name, value) in args.iter_mut() {
        let Value::String(text) = value else { continue };
        let t = text.trim();
        let new = match props
            .get(name)
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str)
        {
            Some("integer") => t.parse::<u64>().ok().map(Value::from),
            Some("array") => Some(Value::Array(vec![Value::String(text.clone())])),
            Some("boolean") => match t.to_ascii_lowercase().as_str() {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            _ => None,
        };
        if let Some(new) = new {
            *value = new;
        }
    }
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

/// Parse tool arguments: unknown fields and wrong types become `INVALID_PARAMS`, naming the
/// parameter (and the closest known name for a mistyped one, in `details.did_you_mean`).
pub fn parse(args: Option<JsonObject>) -> Result<(Action, Params)> {
    let mut args = args.unwrap_or_default();
    let schema = input_schema();
    let known = schema.get("properties").and_then(|p| p.as_object());
    if let Some(known) = known {
        coerce(&mut args, known);
        unknown_parameters(&args, known)?;
    }
    check_action(args.get("action"))?;
    if let Some(known) = known {
        for (name, value) in &args {
            typed(name, value, known)?;
        }
    }
    let parsed: KptyArgs = serde_json::from_value(serde_json::Value::Object(args))
        .map_err(|e| Error::invalid(format!("invalid arguments: {e}")))?;
    Ok((parsed.action, parsed.params))
}

/// Refuse parameters the tool does not take, suggesting the closest known names.
fn unknown_parameters(args: &JsonObject, known: &JsonObject) -> Result<()> {
    let mut unknown: Vec<&String> = args.keys().filter(|k| !known.contains_key(*k)).collect();
    if unknown.is_empty() {
        return Ok(());
    }
    unknown.sort();
    let mut said = Vec::new();
    let mut suggested: Vec<&str> = Vec::new();
    for u in &unknown {
        let near = suggest::closest(u, known.keys().map(String::as_str));
        said.push(format!("{u:?}{}", suggest::clause(&near)));
        suggested.extend(near);
    }
    let mut names: Vec<&String> = known.keys().collect();
    names.sort();
    let noun = if unknown.len() == 1 {
        "parameter"
    } else {
        "parameters"
    };
    Err(Error::invalid(format!(
        "unknown {noun} {}; k_pty takes {names:?}",
        said.join(", ")
    ))
    .with_details(crate::error::details::Unknown {
        unknown: Some(unknown.iter().map(|u| u.to_string()).collect()),
        did_you_mean: suggested.iter().map(|s| s.to_string()).collect(),
        ..crate::error::details::Unknown::default()
    }))
}

/// `action` must be there and name an action (a near miss gets a suggestion).
fn check_action(action: Option<&Value>) -> Result<()> {
    let names: Vec<&str> = Action::ALL.iter().map(|a| a.as_str()).collect();
    let given = match action {
        None => {
            return Err(Error::invalid(format!(
                "`action` is required: one of {names:?}"
            )));
        }
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(Error::invalid(format!(
                "action: expected a string, got {}",
                shown_value(other)
            )));
        }
    };
    if names.contains(&given.as_str()) {
        return Ok(());
    }
    let near = suggest::closest(given, names.iter().copied());
    Err(Error::invalid(format!(
        "unknown action {given:?}{}; one of {names:?}",
        suggest::clause(&near)
    ))
    .with_details(crate::error::details::Unknown {
        action: Some(given.to_string()),
        did_you_mean: near.into_iter().map(String::from).collect(),
        ..crate::error::details::Unknown::default()
    }))
}

/// One parameter's value must have its schema type: else an error naming the parameter, the
/// type expected and the value given (`timeout_ms: expected an integer, got "abc"`).
fn typed(name: &str, value: &Value, known: &JsonObject) -> Result<()> {
    if name == "action" || value.is_null() {
        return Ok(());
    }
    let alone = serde_json::json!({ name: value });
    if serde_json::from_value::<Params>(alone).is_ok() {
        return Ok(());
    }
    let prop = known.get(name);
    let expected = match prop.and_then(|p| p.get("type")).and_then(Value::as_str) {
        Some("integer") => {
            let min = prop.and_then(|p| p.get("minimum")).and_then(Value::as_u64);
            let max = prop.and_then(|p| p.get("maximum")).and_then(Value::as_u64);
            match (min, max) {
                (Some(lo), Some(hi)) => format!("an integer from {lo} to {hi}"),
                (Some(lo), None) => format!("an integer of at least {lo}"),
                _ => "an integer".into(),
            }
        }
        Some("boolean") => "true or false".into(),
        Some("array") => "an array of strings".into(),
        Some("object") => "an object of string values".into(),
        _ => "a string".into(),
    };
    Err(Error::invalid(format!(
        "{name}: expected {expected}, got {}",
        shown_value(value)
    ))
    .with_details(crate::error::details::Parameter {
        parameter: name.to_string(),
        expected,
    }))
}

/// A value as an error message shows it: JSON, cut short.
fn shown_value(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s,
    }
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
    fn every_property_is_plain_json_schema() {
        let s = input_schema();
        let props = s["properties"].as_object().expect("properties");
        for (name, p) in props {
            let ty = p["type"].as_str();
            assert!(
                ty.is_some(),
                "{name}: type must be one string, got {}",
                p["type"]
            );
            assert!(p.get("format").is_none(), "{name}: non-standard format");
            assert!(
                p.get("default").is_none_or(|d| !d.is_null()),
                "{name}: default null"
            );
            if ty == Some("integer") {
                assert!(p["minimum"].is_u64(), "{name}: no minimum");
            }
        }
        let range = |n: &str| (props[n]["minimum"].as_u64(), props[n]["maximum"].as_u64());
        assert_eq!(range("cols"), (Some(2), Some(1000)));
        assert_eq!(range("rows"), (Some(1), Some(1000)));
        assert_eq!(range("max_lines"), (Some(1), Some(200)));
        assert_eq!(range("timeout_ms").1, Some(api::MAX_TIMEOUT_MS));
        assert_eq!(
            props["mode"]["enum"],
            serde_json::json!(["tail", "viewport", "delta"])
        );
        assert_eq!(
            props["owner_role"]["enum"],
            serde_json::json!(["leader", "worker"])
        );
    }

    #[test]
    fn numbers_and_booleans_sent_as_strings_are_read_strictly() {
        let obj = |v: serde_json::Value| v.as_object().cloned();
        let (_, p) = parse(obj(serde_json::json!({
            "action": "create", "cols": "100", "rows": " 20 ", "sandbox": "false", "label": "42"
        })))
        .expect("strings that spell numbers and booleans");
        assert_eq!(
            (p.cols, p.rows, p.sandbox),
            (Some(100), Some(20), Some(false))
        );
        assert_eq!(
            p.label.as_deref(),
            Some("42"),
            "string parameters stay strings"
        );
        let (_, p) = parse(obj(
            serde_json::json!({"action": "read", "strip_ansi": "TRUE", "max_bytes": "5"}),
        ))
        .expect("read");
        assert_eq!((p.strip_ansi, p.max_bytes), (Some(true), Some(5)));
        let (_, p) = parse(obj(
            serde_json::json!({"action": "send_keys", "keys": "Up Enter", "literal": "false"}),
        ))
        .expect("keys as one string");
        assert_eq!(p.keys, Some(vec!["Up Enter".to_string()]));
        assert_eq!(p.literal, Some(false));
        let (_, p) = parse(obj(
            serde_json::json!({"action": "send_keys", "keys": ["C-c", "Enter"]}),
        ))
        .expect("keys as an array");
        assert_eq!(p.keys, Some(vec!["C-c".to_string(), "Enter".to_string()]));
        assert!(parse(obj(serde_json::json!({"action": "send_keys", "keys": 3}))).is_err());
        for bad in [
            serde_json::json!({"action": "create", "cols": "wide"}),
            serde_json::json!({"action": "create", "cols": "-3"}),
            serde_json::json!({"action": "create", "cols": "1e3"}),
            serde_json::json!({"action": "read", "strip_ansi": "yes"}),
            serde_json::json!({"action": "create", "cols": "70000"}),
        ] {
            assert!(parse(obj(bad.clone())).is_err(), "{bad}");
        }
    }

    /// Values of the wrong JSON type for a property of schema type `ty`.
    fn wrong_values(ty: &str) -> Vec<Value> {
        use serde_json::json;
        match ty {
            "integer" => vec![
                json!("abc"),
                json!(true),
                json!([1]),
                json!({"a": 1}),
                json!(-1),
                json!(1.5),
            ],
            "boolean" => vec![json!("maybe"), json!(3), json!([]), json!({})],
            "array" => vec![json!(3), json!(true), json!({}), json!([3]), json!([[]])],
            "object" => vec![json!(3), json!("x"), json!([]), json!({"a": 3})],
            _ => vec![json!(3), json!(true), json!([]), json!({})],
        }
    }

    #[test]
    fn every_parameter_with_a_wrong_type_is_named() {
        let schema = input_schema();
        let props = schema["properties"].as_object().expect("properties");
        let mut checked = 0;
        for (name, prop) in props.iter().filter(|(n, _)| *n != "action") {
            let ty = prop["type"].as_str().expect("one type");
            for bad in wrong_values(ty) {
                let args = serde_json::json!({"action": "list", name.as_str(): bad});
                let e = parse(args.as_object().cloned()).expect_err(&format!("{name}={bad}"));
                assert_eq!(e.code, crate::error::ErrorCode::InvalidParams);
                assert!(
                    e.message.starts_with(&format!("{name}: expected ")),
                    "{name}={bad}: {}",
                    e.message
                );
                assert!(e.message.contains("got "), "{}", e.message);
                checked += 1;
            }
        }
        assert!(checked > 100, "only {checked} cases");
    }

    #[test]
    fn a_mistyped_action_or_parameter_gets_the_near_name() {
        let obj = |v: serde_json::Value| v.as_object().cloned();
        let e = parse(obj(serde_json::json!({"action": "tlak"}))).unwrap_err();
        assert!(
            e.message.contains(r#"did you mean "talk"?"#),
            "{}",
            e.message
        );
        assert_eq!(
            e.details.as_ref().unwrap().to_value()["did_you_mean"],
            serde_json::json!(["talk"])
        );
        let e = parse(obj(serde_json::json!({"action": "talk", "timeout": 5}))).unwrap_err();
        assert!(
            e.message
                .contains(r#""timeout" (did you mean "timeout_ms"?)"#),
            "{}",
            e.message
        );
        assert_eq!(
            e.details.as_ref().unwrap().to_value()["did_you_mean"],
            serde_json::json!(["timeout_ms"])
        );
        let e = parse(obj(
            serde_json::json!({"action": "talk", "timeout_ms": "abc"}),
        ))
        .unwrap_err();
        assert_eq!(
            e.message,
            format!(
                r#"timeout_ms: expected an integer from 0 to {}, got "abc""#,
                api::MAX_TIMEOUT_MS
            )
        );
        let e = parse(obj(serde_json::json!({"action": "explode"}))).unwrap_err();
        assert!(!e.message.contains("did you mean"), "{}", e.message);
        let e = parse(obj(serde_json::json!({"action": 3}))).unwrap_err();
        assert_eq!(e.message, "action: expected a string, got 3");
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
