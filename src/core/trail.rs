//! Reading the audit trail back (`kpty log`): every session's `events.jsonl` plus the
//! traffic lines of `_registry_events.jsonl`, filtered and in time order.

use super::Ctx;
use crate::error::{Error, ErrorCode, Result};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// What to show.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only this session id.
    pub session: Option<String>,
    /// Only events by (or routed to) this agent.
    pub agent: Option<String>,
    /// Only this action.
    pub action: Option<String>,
    /// Only failures.
    pub errors_only: bool,
    /// Only blocked commands.
    pub blocked_only: bool,
    /// Only events at or after this RFC 3339 time.
    pub since: Option<jiff::Timestamp>,
}

impl Filter {
    /// True when `e` passes.
    pub fn matches(&self, e: &Value) -> bool {
        let s = |k: &str| e[k].as_str();
        if e.get("action").is_none() {
            return false; // lifecycle lines (session_created …) are not traffic
        }
        if self
            .session
            .as_deref()
            .is_some_and(|w| s("session_id") != Some(w))
        {
            return false;
        }
        if self
            .agent
            .as_deref()
            .is_some_and(|w| s("agent_id") != Some(w))
        {
            return false;
        }
        if self
            .action
            .as_deref()
            .is_some_and(|w| s("action") != Some(w))
        {
            return false;
        }
        if self.errors_only && e["success"] != Value::Bool(false) {
            return false;
        }
        if self.blocked_only && e["blocked"] != Value::Bool(true) {
            return false;
        }
        if let Some(since) = self.since {
            match s("ts").and_then(|t| t.parse::<jiff::Timestamp>().ok()) {
                Some(t) if t >= since => {}
                _ => return false,
            }
        }
        true
    }
}

/// The session id `reference` names, for filtering the trail: a session kpty knows, resolved
/// as every command resolves it (id, unique id prefix, or label); else one only the trail
/// remembers (ended and forgotten): its exact id, the label it had, or a unique id prefix.
pub fn session_of(ctx: &Ctx, reference: &str) -> Result<String> {
    let unknown = match super::sessions::resolve(ctx, reference) {
        Ok(e) => return Ok(e.session_id),
        Err(e)
            if matches!(
                e.code,
                ErrorCode::PtySessionNotFound | ErrorCode::InvalidParams
            ) =>
        {
            e
        }
        Err(e) => return Err(e),
    };
    let recorded = recorded(ctx);
    if recorded.contains_key(reference) {
        return Ok(reference.to_string());
    }
    let labelled: Vec<&String> = recorded
        .iter()
        .filter(|(_, labels)| labels.iter().any(|l| l == reference))
        .map(|(id, _)| id)
        .collect();
    let prefixed: Vec<&String> = recorded
        .keys()
        .filter(|id| reference.len() >= 3 && id.starts_with(reference))
        .collect();
    let found = if labelled.is_empty() {
        prefixed
    } else {
        labelled
    };
    match found.as_slice() {
        [] => Err(unknown),
        [one] => Ok(one.to_string()),
        many => Err(Error::new(
            ErrorCode::Ambiguous,
            format!(
                "{reference:?} matches {} sessions in the audit trail; use the full session id",
                many.len()
            ),
        )
        .with_details(
            json!({"matches": many.iter().map(|id| json!({"session_id": id})).collect::<Vec<_>>()}),
        )),
    }
}

/// Every session id the trail recorded, with the labels it had.
fn recorded(ctx: &Ctx) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in files(ctx, None) {
        for e in read_from(&p, 0).0 {
            let Some(id) = e["session_id"].as_str() else {
                continue;
            };
            let labels = out.entry(id.to_string()).or_default();
            if let Some(l) = e["label"].as_str()
                && !labels.iter().any(|x| x == l)
            {
                labels.push(l.to_string());
            }
        }
    }
    out
}

/// The files that hold traffic events.
pub fn files(ctx: &Ctx, session: Option<&str>) -> Vec<PathBuf> {
    let mut out = vec![ctx.state.registry_events()];
    let dir = ctx.state.path().join("sessions");
    if let Ok(rd) = std::fs::read_dir(&dir) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if session.is_none_or(|s| s == name) {
                let p = e.path().join("events.jsonl");
                // A session folder that is a link (or not ours) is not read.
                match ctx.state.verify(&p) {
                    Ok(()) => out.push(p),
                    Err(err) => tracing::warn!("skipping {}: {}", p.display(), err.message),
                }
            }
        }
    }
    out
}

/// The complete events appended to `path` from byte `from` on, and the offset to read
/// from next time (reads only the new part; a file that shrank is read again from its start;
/// a torn last line waits for its end).
pub fn read_from(path: &std::path::Path, from: u64) -> (Vec<Value>, u64) {
    use std::io::{Read, Seek, SeekFrom};
    // Never through a link, never a file someone else could have written.
    let Ok(Some(mut f)) = crate::store::secure::open_read(path) else {
        return (Vec::new(), from);
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let from = if len < from { 0 } else { from };
    let mut bytes = Vec::new();
    if len == from || f.seek(SeekFrom::Start(from)).is_err() || f.read_to_end(&mut bytes).is_err() {
        return (Vec::new(), from);
    }
    let (events, used) = parse_lines(&bytes);
    (events, from + used as u64)
}

/// Parse the complete lines of `bytes` (a torn last line is left for later).
pub fn parse_lines(bytes: &[u8]) -> (Vec<Value>, usize) {
    let mut events = Vec::new();
    let mut used = 0;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        if !line.ends_with(b"\n") {
            break;
        }
        used += line.len();
        if let Ok(v) = serde_json::from_slice::<Value>(line) {
            events.push(v);
        }
    }
    (events, used)
}

/// Every matching event, oldest first.
/// With each file read, the offset its next new event will start at (for following).
pub fn query(ctx: &Ctx, f: &Filter) -> (Vec<Value>, HashMap<PathBuf, u64>) {
    let mut offsets = HashMap::new();
    let mut all = Vec::new();
    for p in files(ctx, f.session.as_deref()) {
        let (events, next) = read_from(&p, 0);
        all.extend(events.into_iter().filter(|e| f.matches(e)));
        offsets.insert(p, next);
    }
    all.sort_by(|a, b| a["ts"].as_str().cmp(&b["ts"].as_str()));
    (all, offsets)
}

/// The events matching `f`, then (with `follow`) every matching event appended later, each
/// handed to `show` as it arrives; a follow never returns. New events are noticed through
/// inotify on the state directory, `sessions/` and each session directory (re-added as
/// sessions appear), with a slow re-check every few seconds for filesystems that do not
/// report changes.
pub fn follow(ctx: &Ctx, f: &Filter, follow: bool, show: &mut dyn FnMut(&Value)) {
    let (events, mut seen) = query(ctx, f);
    for e in &events {
        show(e);
    }
    if !follow {
        return;
    }
    let mut watcher = crate::store::watch::Watcher::new();
    loop {
        watcher.watch(ctx.state.path());
        watcher.watch(&ctx.state.path().join("sessions"));
        let files = files(ctx, f.session.as_deref());
        for p in &files {
            if let Some(dir) = p.parent() {
                watcher.watch(dir);
            }
        }
        for p in files {
            let from = seen.get(&p).copied().unwrap_or(0);
            let (events, next) = read_from(&p, from);
            seen.insert(p, next);
            for e in events.iter().filter(|e| f.matches(e)) {
                show(e);
            }
        }
        watcher.wait(std::time::Instant::now() + std::time::Duration::from_secs(5));
    }
}
