//! Sessions on other machines in the console: the hosts kpty knows (`kpty hosts add`,
//! `KPTY_HOSTS`) are listed over their channels ([`crate::remote::hosts::list_all`]) every
//! [`EVERY`] while a page is open or has asked lately, on a task of their own — a slow or
//! dead host never holds up this machine's tiles. Their sessions join the overview with
//! `source: "remote"` and `host`; a host that does not answer is named in `hosts_down`. A
//! running remote session gets its `miniature` as a local one does: its visible screen, read
//! over the same channel (`term_read`), again only when its output moved on.

use super::super::blocking;
use serde::Serialize;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How often the hosts are asked while they are wanted.
const EVERY: Duration = Duration::from_secs(2);
/// How long after a page last asked the hosts are still asked.
const WANTED_FOR: Duration = Duration::from_secs(30);

/// What the hosts said last: their sessions, and the hosts that did not answer.
#[derive(Debug, Clone, Default)]
pub struct Rows {
    /// Each host's sessions, `host` and `source: "remote"` set.
    pub sessions: Vec<Value>,
    /// The hosts that did not answer.
    down: Vec<Down>,
}

impl Rows {
    /// The sessions, and the hosts that did not answer as JSON (`None` when all did).
    pub fn into_parts(self) -> (Vec<Value>, Option<Value>) {
        let down = (!self.down.is_empty())
            .then(|| serde_json::to_value(self.down).ok())
            .flatten();
        (self.sessions, down)
    }
}

/// A host that did not answer, and why.
#[derive(Debug, Clone, Serialize)]
struct Down {
    /// The host.
    host: String,
    /// What went wrong (ssh's words when it was ssh).
    error: String,
}

/// The hosts' rows, kept fresh while wanted.
#[derive(Default)]
pub struct Hosts {
    rows: Mutex<Rows>,
    asked: Mutex<Option<Instant>>,
}

impl Hosts {
    /// Start asking the hosts (while `open()` says a page is open, or one asked in the last
    /// [`WANTED_FOR`]) until `stop`.
    pub fn start(open: impl Fn() -> bool + Send + 'static, stop: CancellationToken) -> Arc<Self> {
        let hosts = Arc::new(Self::default());
        tokio::spawn(watch(hosts.clone(), open, stop));
        hosts
    }

    /// What the hosts said last; notes that a page wants them.
    pub fn rows(&self) -> Rows {
        *self.asked.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
        self.rows.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn wanted(&self) -> bool {
        self.asked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some_and(|t| t.elapsed() < WANTED_FOR)
    }
}

/// The remote screens last read, by host and session: the output offset they were read at,
/// their lines.
type Screens = std::collections::HashMap<(String, String), (u64, Option<Vec<String>>)>;

/// `list` on every known host into rows, each running session with its miniature (read
/// anew only when its output moved on since `screens` had it).
fn ask(known: &[crate::remote::Host], screens: &mut Screens) -> Rows {
    let mut rows = Rows::default();
    for h in crate::remote::hosts::list_all(known) {
        if h.ok {
            rows.sessions.extend(h.sessions.into_iter().map(|mut s| {
                s["source"] = Value::from("remote");
                s
            }));
        } else {
            let why = h
                .error
                .as_ref()
                .and_then(|e| e["error"]["message"].as_str().or(e["message"].as_str()))
                .unwrap_or("no answer")
                .to_string();
            rows.down.push(Down {
                host: h.host,
                error: why,
            });
        }
    }
    miniatures(known, &mut rows.sessions, screens);
    rows
}

/// Set `miniature` on each running session of `sessions` (rows of `known` hosts): the lines
/// `screens` has when its output has not moved on, else its screen read now — every host's
/// at once, over the channels `list` just used; a screen that cannot be read shows none.
fn miniatures(known: &[crate::remote::Host], sessions: &mut [Value], screens: &mut Screens) {
    use crate::remote::action::send_if_open;
    let key = |s: &Value| -> Option<((String, String), u64)> {
        let host = s["host"].as_str()?.to_string();
        let id = s["session_id"].as_str()?.to_string();
        (s["state"] == "running").then_some(((host, id), s["output_offset"].as_u64()?))
    };
    let mut asked = Vec::new();
    for s in sessions.iter() {
        let Some((k, offset)) = key(s) else { continue };
        if screens.get(&k).is_some_and(|(at, _)| *at == offset) {
            continue;
        }
        let Some(host) = known.iter().find(|h| h.to_string() == k.0) else {
            continue;
        };
        let params = crate::api::Params {
            session_id: Some(k.1.clone()),
            mode: Some("viewport".into()),
            max_lines: Some(super::MINI_LINES),
            max_chars: Some(super::MINI_CHARS),
            ..Default::default()
        };
        let sent = send_if_open(host, crate::api::Action::TermRead, params, "json");
        asked.push((k, offset, sent));
    }
    for (k, offset, sent) in asked {
        let lines = sent.and_then(|s| s.answer().ok()).and_then(|v| {
            let lines = v["lines"].as_array()?.iter();
            let lines = lines.map(|l| l.as_str().unwrap_or_default().to_string());
            Some(super::miniature_of(lines.collect()))
        });
        screens.insert(k, (offset, lines));
    }
    let mut shown = std::collections::HashSet::new();
    for s in sessions.iter_mut() {
        let Some((k, _)) = key(s) else { continue };
        if let Some((_, lines)) = screens.get(&k) {
            s["miniature"] = lines.clone().into();
        }
        shown.insert(k);
    }
    screens.retain(|k, _| shown.contains(k));
}

async fn watch(hosts: Arc<Hosts>, open: impl Fn() -> bool, stop: CancellationToken) {
    let mut screens = Screens::new();
    let mut tick = tokio::time::interval(EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        if !open() && !hosts.wanted() {
            continue;
        }
        let known = match crate::remote::hosts::known() {
            Ok(k) if !k.is_empty() => k,
            _ => {
                *hosts.rows.lock().unwrap_or_else(|p| p.into_inner()) = Rows::default();
                continue;
            }
        };
        let mut mine = std::mem::take(&mut screens);
        let asked = blocking(move || Ok((ask(&known, &mut mine), mine))).await;
        if let Ok((rows, mine)) = asked {
            *hosts.rows.lock().unwrap_or_else(|p| p.into_inner()) = rows;
            screens = mine;
        }
    }
}
