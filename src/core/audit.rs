//! The audit trail: every action that touches a session is recorded with the seeds' traffic
//! event fields in that session's `events.jsonl` (actions without a session go to
//! `_registry_events.jsonl`), commands and responses capped at 10 KB and redacted (values
//! before they are encoded, so an encoding's escapes never hide a secret). With
//! `KPTY_GATEWAY_URL` set, the same event is also POSTed fire-and-forget to
//! `/v1/pty-traffic/emit` (2 s timeout): a dead gateway never fails or slows the action.
//!
//! An action that cannot be audited is not run: before it runs, `Seen::begin` appends an
//! `intent` line (the action, the session named, the command, redacted) to the journal the
//! result will go to; when that write fails (a full disk, a journal kpty may not write) the
//! action is refused with `AUDIT_FAILED` — unless the operator chose `KPTY_AUDIT_FAIL=open`
//! (auditd's `disk_full_action`), which logs a warning and runs it.

use super::Ctx;
use super::handle::Handle;
use super::traffic::{Event, Intent, TRAFFIC};
use crate::api::{Action, Params, SessionId};
use crate::error::{Error, ErrorCode, Result};
use crate::safety::redact;
use crate::store::{Registry, RegistryEntry, journal};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Operations audited that are not actions of the tool (`kpty serve`'s
/// `DELETE /v1/pty/reset`, what a person does in the web console): `kpty log --action` takes
/// them too.
pub const OTHER_ACTIONS: &[&str] = &[RESET, WEB_JOIN, WEB_CONTROL, WEB_WRITE, WEB_LEAVE];
/// The audit trail's name for a reset.
pub const RESET: &str = "reset";
/// A web console page joins a session's terminal (watching).
pub const WEB_JOIN: &str = "web_join";
/// A web console page takes writing over (`write`) or hands it back (`read`).
pub const WEB_CONTROL: &str = "web_control";
/// Keys a writing web console page typed (a line at a time), or keys the input filter kept
/// from the program (failed, `INPUT_BLOCKED`).
pub const WEB_WRITE: &str = "web_write";
/// A web console page leaves a session's terminal.
pub const WEB_LEAVE: &str = "web_leave";

/// Largest `command` / `response` kept in an event.
const FIELD_CAP: usize = 10 * 1024;

/// Gateway posts still in flight (waited for, with a short cap, before a CLI process exits).
static IN_FLIGHT: Mutex<usize> = Mutex::new(0);
static DONE: Condvar = Condvar::new();

/// Actions worth an audit line (`help`, `list` and `check` only look).
pub fn audited(a: Action) -> bool {
    !matches!(a, Action::Help | Action::List | Action::Check)
}

/// What to do when an action's audit entry cannot be written (`KPTY_AUDIT_FAIL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FailMode {
    /// Refuse the action (`AUDIT_FAILED`): the default.
    Closed,
    /// Run it anyway, with a warning on stderr.
    Open,
}

/// The environment variable that chooses the [`FailMode`].
const FAIL_ENV: &str = "KPTY_AUDIT_FAIL";

impl FailMode {
    /// The mode `KPTY_AUDIT_FAIL` chooses (`closed`, the default, or `open`); any other value
    /// is refused rather than guessed at.
    pub fn from_env() -> Result<Self> {
        match std::env::var(FAIL_ENV).as_deref().map(str::trim) {
            Err(_) | Ok("") | Ok("closed") => Ok(Self::Closed),
            Ok("open") => Ok(Self::Open),
            Ok(other) => Err(Error::invalid(format!(
                "{FAIL_ENV}={other:?}: use `closed` (refuse an action that cannot be audited, \
                 the default) or `open` (run it anyway, with a warning)"
            ))),
        }
    }
}

/// What an action typed, as the trail records it: the command, the data, or (send_keys) the
/// keys as given, space-separated (`Up Enter`, `C-c`); capped.
fn command_of(p: &Params) -> Option<String> {
    let keys = p.keys.as_ref().map(|k| k.join(" "));
    p.command
        .as_deref()
        .or(p.data.as_deref())
        .or(keys.as_deref())
        .map(cap)
}

/// Record that operation `name` is about to run, before it runs: an `intent` line in the
/// journal its result will go to, which stays open for that result ([`Seen`]). When that
/// cannot be written the action must not run: `AUDIT_FAILED` (see `FailMode`).
fn begin_open(ctx: &Ctx, name: &'static str, p: &Params) -> Result<Option<journal::Open>> {
    let mode = FailMode::from_env()?;
    let command = command_of(p);
    let named = p
        .session_id
        .as_deref()
        .map(|s| redact::redact(s).into_owned());
    let path = journal_for(ctx, p.session_id.as_deref(), false);
    let line = Intent {
        ts: crate::store::now_rfc3339(),
        event: "intent",
        intent: name,
        session_id: named,
        command,
    };
    // A state directory or journal kpty may not trust is a STATE_ERROR, whatever the
    // fail mode: `open` is for a disk that cannot take the entry, not for tampered state.
    ctx.state.ensure()?;
    ctx.state.check_journal(&path)?;
    let e = match journal::try_append_verified(&path, &line) {
        Ok(open) => return Ok(Some(open)),
        Err(e) => e,
    };
    // Tampered since this process last looked (a link, another owner): refused as such.
    ctx.state.check_journal_afresh(&path)?;
    match mode {
        FailMode::Open => {
            tracing::warn!(
                "{name} runs without its audit entry ({FAIL_ENV}=open): {}",
                e.message
            );
            Ok(None)
        }
        FailMode::Closed => Err(Error::new(
            ErrorCode::AuditFailed,
            format!(
                "{name} was not run: its audit entry cannot be written ({}); free space or fix \
                 the journal, or set {FAIL_ENV}=open to run actions without an audit trail",
                e.message
            ),
        )
        .with_details(crate::error::details::Audit {
            action: name.to_string(),
            journal: path.display().to_string(),
        })),
    }
}

/// The journal of session `id` when it names a session kpty keeps a folder for (or has
/// `known` in its registry), else `_registry_events.jsonl`.
fn journal_for(ctx: &Ctx, id: Option<&str>, known: bool) -> std::path::PathBuf {
    match id.map(SessionId::parse) {
        Some(Ok(id)) if known || ctx.state.session_dir(&id).is_dir() => {
            ctx.state.session_dir(&id).join("events.jsonl")
        }
        _ => ctx.state.registry_events(),
    }
}

/// Text looked at beyond [`FIELD_CAP`] before redaction, so a secret that straddles the cap is
/// still recognised (and replaced) rather than cut into an unrecognisable, leaked prefix.
const REDACT_MARGIN: usize = 2 * 1024;

/// The first `limit` bytes of `s` (at a char boundary), redacted — with the rest of their
/// line as context, so a secret the limit cuts is replaced too; the flag: that is all of `s`.
fn redacted_head(s: &str, limit: usize) -> (Cow<'_, str>, bool) {
    let end = floor_char_boundary(s, limit);
    if end == s.len() {
        return (redact::redact(s), true);
    }
    let after = redact::context_after(&s[end..]);
    (redact::redact_window("", &s[..end], after), false)
}

/// `s` redacted and capped at [`FIELD_CAP`]; only its first `FIELD_CAP + REDACT_MARGIN` bytes
/// are ever scanned, so a megabyte of output costs no more than ten kilobytes.
fn cap(s: &str) -> String {
    let (red, whole) = redacted_head(s, FIELD_CAP + REDACT_MARGIN);
    if whole && red.len() <= FIELD_CAP {
        return red.into_owned();
    }
    truncate(&red, Some(s.len()))
}

/// Already redacted `text` cut at [`FIELD_CAP`] (never inside a character) with its
/// `…[truncated]` mark; `total`: the whole text's length, when known.
fn truncate(text: &str, total: Option<usize>) -> String {
    let end = floor_char_boundary(text, FIELD_CAP);
    match total {
        Some(n) => format!(
            "{}…[truncated {} bytes]",
            &text[..end],
            n.saturating_sub(end)
        ),
        None => format!("{}…[truncated]", &text[..end]),
    }
}

/// What a string in the audited JSON is, for its redaction.
#[derive(Clone, Copy)]
enum Under<'a> {
    /// An array's item, or the top.
    Nothing,
    /// The value of this object key (a key that names a secret takes the string whole).
    Key(&'a str),
    /// A failure's `error` / `message`: kpty's own words, only what they quote is redacted.
    KptyText,
}

/// A copy of `v` whose strings are redacted and no longer than the serialization that
/// will be kept can use (`budget` bytes in all); `short` is set when anything was cut.
/// `under`: what `v` is stored under.
fn redacted_copy(v: &Value, under: Under<'_>, budget: &mut usize, short: &mut bool) -> Value {
    match v {
        Value::String(s) => {
            if *budget == 0 {
                *short |= !s.is_empty();
                return Value::String(String::new());
            }
            let (head, whole) = match under {
                Under::Key(k) if s.len() <= *budget => (redact::redact_entry(k, s), true),
                Under::KptyText if s.len() <= *budget => (crate::safety::redact_message(s), true),
                _ => redacted_head(s, *budget),
            };
            *short |= !whole;
            *budget = budget.saturating_sub(head.len());
            Value::String(head.into_owned())
        }
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|x| redacted_copy(x, Under::Nothing, budget, short))
                .collect(),
        ),
        Value::Object(o) => {
            let failure = o.get("ok") == Some(&Value::Bool(false));
            Value::Object(
                o.iter()
                    .map(|(k, x)| {
                        let under = if failure && (k == "error" || k == "message") {
                            Under::KptyText
                        } else {
                            Under::Key(k)
                        };
                        (k.clone(), redacted_copy(x, under, budget, short))
                    })
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

/// The largest char boundary of `s` at or below `at`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut end = at.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// `v` as compact JSON, serialized no further than `limit` bytes; the flag tells whether it
/// was cut short (a talk reply can be megabytes, of which the trail keeps 10 KB).
fn json_prefix(v: &Value, limit: usize) -> (String, bool) {
    struct Limited {
        buf: Vec<u8>,
        limit: usize,
    }
    impl std::io::Write for Limited {
        fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
            let room = self.limit - self.buf.len();
            if data.len() > room {
                self.buf.extend_from_slice(&data[..room]);
                return Err(std::io::Error::other("limit reached"));
            }
            self.buf.extend_from_slice(data);
            Ok(data.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut w = Limited {
        buf: Vec::new(),
        limit,
    };
    let cut = serde_json::to_writer(&mut w, v).is_err();
    let text = match String::from_utf8(w.buf) {
        Ok(t) => t,
        // Cut inside a multi-byte character: drop its partial bytes.
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let mut b = e.into_bytes();
            b.truncate(valid);
            String::from_utf8(b).unwrap_or_default()
        }
    };
    (text, cut)
}

/// The `response` field: the action's JSON, capped, its strings redacted before encoding
/// (a secret after a newline is a secret after `\n` once encoded).
fn response_field(v: &Value) -> String {
    let limit = FIELD_CAP + REDACT_MARGIN;
    let (mut budget, mut short) = (limit, false);
    let red = redacted_copy(v, Under::Nothing, &mut budget, &mut short);
    let (text, cut) = json_prefix(&red, limit);
    if !cut && !short && text.len() <= FIELD_CAP {
        return text;
    }
    truncate(&text, None)
}

/// The session an audited action resolved, as its work hands it back
/// (`core::audited_seeing`): the record takes the registry's fields for it (owner, label,
/// CLI type) from here rather than reading the registry a second time.
#[derive(Default)]
pub struct Seen {
    entry: Option<RegistryEntry>,
    /// The journal the action's intent went to, still open.
    journal: Option<journal::Open>,
}

impl Seen {
    /// Write the intent of operation `name` ([`begin_open`]) and keep its journal open for
    /// the result.
    pub(super) fn begin(ctx: &Ctx, name: &'static str, p: &Params) -> Result<Self> {
        Ok(Self {
            entry: None,
            journal: begin_open(ctx, name, p)?,
        })
    }

    /// The action resolved `h` (the last one seen counts: a default session replaced).
    pub fn saw(&mut self, h: &Handle) {
        self.entry = Some(h.entry().clone());
    }

    /// The entry seen for session `id`, if that is the one seen.
    fn entry_of(&self, id: &str) -> Option<&RegistryEntry> {
        self.entry.as_ref().filter(|e| e.session_id == id)
    }
}

/// Build and record the event for one finished action (or operation) named `name`, with the
/// session its work resolved (the registry is read only when the session recorded is not
/// that one).
pub(super) fn record_seen(
    ctx: &Ctx,
    name: &'static str,
    p: &Params,
    result: &Result<Value>,
    started: Instant,
    seen: Seen,
) {
    let (ok_value, err) = match result {
        Ok(v) => (Some(v), None),
        Err(e) => (None, Some(e)),
    };
    let session_id = ok_value
        .and_then(|v| {
            v["session_id"]
                .as_str()
                .or(v["resolved_session_id"].as_str())
                .map(str::to_string)
        })
        .or_else(|| err.and_then(|e| e.details.as_ref()?.session_id().map(str::to_string)))
        .or_else(|| p.session_id.clone());
    let entry = session_id
        .as_deref()
        .and_then(|id| match seen.entry_of(id) {
            Some(e) => Some(e.clone()),
            None => Registry::load(&ctx.state).ok()?.sessions.get(id).cloned(),
        });
    let command = command_of(p);
    let response = match result {
        Ok(v) => response_field(v),
        Err(e) => response_field(&e.to_json()),
    };
    let blocked = err.is_some_and(|e| e.code == ErrorCode::DangerousCommandBlocked);
    let took = started.elapsed().as_millis() as u64;
    let agent_id = p
        .agent_id
        .clone()
        .or_else(|| crate::api::config::var("KPTY_AGENT_ID"));
    // The free-text fields (a label, an agent id) are redacted too.
    let red = |s: Option<String>| s.map(|v| redact::redact(&v).into_owned());
    let path = journal_for(ctx, session_id.as_deref(), entry.is_some());
    let event = Event {
        ts: Some(crate::store::now_rfc3339()),
        action: Some(name.to_string()),
        session_id: red(session_id),
        agent_id: red(agent_id),
        owner_session_id: red(entry
            .as_ref()
            .and_then(|e| e.owner_session_id.clone())
            .or(p.owner_session_id.clone())),
        command,
        response: Some(response),
        duration_ms: Some(took),
        result_summary: Some(result_summary(result, took)),
        success: Some(err.is_none()),
        blocked: Some(blocked),
        blocked_pattern: err
            .filter(|_| blocked)
            .and_then(|e| match e.details.as_deref()? {
                crate::error::Details::Blocked(b) => Some(b.pattern.clone()),
                _ => None,
            }),
        error_code: err.map(|e| e.code.as_str().to_string()),
        label: red(entry.as_ref().and_then(|e| e.label.clone())),
        cli_type: red(entry.as_ref().and_then(|e| e.cli_type.clone())),
        ..Event::default()
    };
    let event = with_evidence(event, ok_value);
    let line = if path == ctx.state.registry_events() {
        Event {
            event: Some(TRAFFIC.to_string()),
            ..event.clone()
        }
    } else {
        event.clone()
    };
    match seen.journal {
        Some(open) if open.path() == path => open.append(&ctx.state, &line),
        _ => journal::append(&ctx.state, &path, &line),
    }
    emit(event);
}

/// `event` with the evidence pack its action made (`evidence`, or `talk` with `evidence`):
/// its id, the range it covers and its manifest's hash, for `kpty log` and `kpty evidence
/// verify`.
fn with_evidence(event: Event, ok: Option<&Value>) -> Event {
    let Some(v) = ok else {
        return event;
    };
    // A talk carries its pack under `evidence`; the `evidence` action is the pack.
    let pack = if v["evidence"].is_object() {
        &v["evidence"]
    } else {
        v
    };
    let field = |name: &str| pack[name].as_str().map(str::to_string);
    let Some(id) = field("evidence_id") else {
        return event;
    };
    Event {
        evidence_id: Some(id),
        covers_from: field("from"),
        covers_to: field("to"),
        manifest_sha256: field("manifest_sha256"),
        ..event
    }
}

/// One line of what came of an action (seed 003 §5.2's `result_summary`): `exit 0 in 12 ms,
/// 3 lines`, `blocked: rm_root`, `timeout after 5000 ms`, `SESSION_NOT_FOUND: …`. Only an
/// error's message carries text from outside: redacted as every error message is.
fn result_summary(result: &Result<Value>, took_ms: u64) -> String {
    match result {
        Err(e) if e.code == ErrorCode::DangerousCommandBlocked => {
            let rule = match e.details.as_deref() {
                Some(crate::error::Details::Blocked(b)) => b.pattern.as_str(),
                _ => "a dangerous command",
            };
            format!("blocked: {rule}")
        }
        Err(e) if e.code == ErrorCode::PtyTimeout => format!("timeout after {took_ms} ms"),
        Err(e) => {
            // kpty's own words kept, what it quotes redacted (as in every error's message).
            let message = crate::safety::redact_message(&e.message);
            let first = message.lines().next().unwrap_or_default();
            let cut = floor_char_boundary(first, 120);
            let more = if cut < first.len() { "…" } else { "" };
            format!("{}: {}{more}", e.code.as_str(), &first[..cut])
        }
        Ok(v) => {
            let lines = v["output"].as_str().map(|o| {
                let n = o.lines().count();
                format!(", {n} line{}", if n == 1 { "" } else { "s" })
            });
            let lines = lines.unwrap_or_default();
            match v["exit_code"].as_i64() {
                Some(code) => format!("exit {code} in {took_ms} ms{lines}"),
                None => format!("ok in {took_ms} ms{lines}"),
            }
        }
    }
}

/// POST the event to the gateway in the background, when one is configured.
fn emit(event: Event) {
    let Some(base) = crate::api::config::var("KPTY_GATEWAY_URL") else {
        return;
    };
    if base.trim().is_empty() {
        return;
    }
    let url = format!("{}/v1/pty-traffic/emit", base.trim_end_matches('/'));
    if let Ok(mut n) = IN_FLIGHT.lock() {
        *n += 1;
    }
    std::thread::spawn(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .proxy(None)
            .timeout_global(Some(Duration::from_secs(2)))
            .http_status_as_error(false)
            .build()
            .into();
        if let Err(e) = agent.post(&url).send_json(&event) {
            tracing::debug!("gateway emit to {url} failed: {e}");
        }
        if let Ok(mut n) = IN_FLIGHT.lock() {
            *n = n.saturating_sub(1);
        }
        DONE.notify_all();
    });
}

/// Wait (at most `cap`) for gateway posts still in flight; a short-lived CLI calls this
/// before exiting so that a live gateway gets its events.
pub fn flush(cap: Duration) {
    if let Ok(n) = IN_FLIGHT.lock() {
        let _ = DONE.wait_timeout_while(n, cap, |n| *n > 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn short_fields_are_redacted_whole() {
        let s = "token sk-abcdefghijklmnopqrstuvwx here";
        assert_eq!(cap(s), "token [REDACTED:api_key] here");
    }

    #[test]
    fn a_secret_straddling_the_cap_is_still_redacted() {
        let mut s = "x".repeat(FIELD_CAP - 10);
        s.push_str(" sk-abcdefghijklmnopqrstuvwxyz0123456789 ");
        s.push_str(&"y".repeat(50_000));
        let out = cap(&s);
        assert!(
            !out.contains("sk-abc"),
            "secret prefix leaked: {}",
            &out[FIELD_CAP - 20..]
        );
        assert!(out.ends_with(&format!("…[truncated {} bytes]", s.len() - FIELD_CAP)));
    }

    #[test]
    fn huge_responses_are_serialized_only_up_to_the_cap() {
        let v = json!({"ok": true, "output": "é".repeat(1_000_000), "raw_output": "z"});
        let (text, cut) = json_prefix(&v, FIELD_CAP + REDACT_MARGIN);
        assert!(cut && text.len() <= FIELD_CAP + REDACT_MARGIN);
        let field = response_field(&v);
        assert!(field.starts_with(r#"{"ok":true,"output":"éé"#));
        assert!(field.ends_with("…[truncated]"));
        assert!(field.len() < FIELD_CAP + 32);
        let small = json!({"ok": true});
        assert_eq!(response_field(&small), r#"{"ok":true}"#);
    }

    #[test]
    fn secrets_after_newlines_never_reach_the_encoded_event() {
        let out = "ok\nsk-abcdefghijklmnopqrstuvwx\nghp_0123456789abcdefghij0123456789abcdef\n\
                   AKIAIOSFODNN7EXAMPLE\nexport GITHUB_TOKEN=tok123\n";
        let field = response_field(&json!({"ok": true, "output": out, "raw_output": out}));
        for s in ["sk-abc", "ghp_0123", "AKIAIOSF", "tok123"] {
            assert!(!field.contains(s), "{field}");
        }
        assert!(field.contains(r"\n[REDACTED:api_key]\n"), "{field}");
    }

    #[test]
    fn a_cut_value_is_redacted_and_marked() {
        // A private key at the start shrinks to a placeholder; the token at the scan's end
        // is cut by it and must still not show.
        let key = format!(
            "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n",
            "MIIEpAIBAAKCAQEA".repeat(300)
        );
        let mut s = key;
        s.push_str(&"y".repeat(FIELD_CAP + REDACT_MARGIN - s.len() - 10));
        s.push_str(" ghp_0123456789abcdefghij0123456789abcdef tail");
        let field = response_field(&json!({"output": s}));
        assert!(
            !field.contains("MIIE") && !field.contains("ghp_0123"),
            "{field}"
        );
        assert!(field.ends_with("…[truncated]"));
        let c = cap(&s);
        assert!(!c.contains("MIIE") && !c.contains("ghp_0123"), "{c}");
    }

    proptest::proptest! {
        #[test]
        fn an_event_never_carries_a_secret(
            (secret, value) in crate::safety::redact::tests::secret(),
            pre in crate::safety::redact::tests::surrounding(),
            pad in 0usize..(FIELD_CAP + REDACT_MARGIN),
            big in proptest::bool::ANY,
        ) {
            // After a newline, anywhere up to and across the cap, in the command and the
            // response alike.
            let fill = if big { "z".repeat(pad) } else { String::new() };
            let text = format!("{fill}{pre}\n{secret}\nafter");
            let field = response_field(&json!({"ok": true, "output": text, "n": 1}));
            proptest::prop_assert!(!field.contains(&value), "{}", &field[field.len().saturating_sub(300)..]);
            let command = cap(&text);
            proptest::prop_assert!(!command.contains(&value));
        }

        #[test]
        fn response_fields_never_cut_a_character(n in 0usize..200, pad in "\\PC{0,3}") {
            let v = json!({"output": format!("{pad}{}", "é€😀".repeat(FIELD_CAP / 9 + n))});
            let field = response_field(&v);
            proptest::prop_assert!(field.len() < FIELD_CAP + 32);
        }
    }
}
