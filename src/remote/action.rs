//! An action run by the kpty on a host, for the front ends that speak actions (MCP's `host`
//! parameter): the action and its parameters go to `kpty __action` there as one JSON object
//! on its standard input; its JSON answer (the action's object, or the error's) comes back
//! on its standard output. The channel travels with it: redaction and the talk cap are the
//! caller's, applied by the host.

use super::{Host, master};
use crate::api::{Action, Params};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::{Read, Write};

use std::process::Stdio;
use std::time::Duration;

/// The hidden verb the host runs.
pub const SUBCOMMAND: &str = "__action";

/// What travels to the host.
#[derive(Debug, Serialize, Deserialize)]
pub struct Call {
    /// The action.
    pub action: Action,
    /// Its parameters (only those set travel: `api::Params` leaves out the rest).
    pub params: Params,
    /// The caller's channel: `mcp`, `http` or `json`.
    pub channel: String,
    /// A talk's progress wanted at most this often (ms), sent back as it comes; none when
    /// absent (a host too old to know the field answers whole).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress_ms: Option<u64>,
}

/// What a caller does with an action's progress while it runs there: the interval it wants
/// at most, and what takes each report (the host's progress body, as JSON).
pub type Progress<'a> = (Duration, &'a mut dyn FnMut(Vec<u8>));

/// Run `action` with `params` (their `host` cleared) by the kpty on `host`; the action's
/// JSON, or its error. The host's channel carries it ([`super::channel`]); without one, an
/// ssh command of its own.
pub fn call(host: &Host, action: Action, params: Params, channel: &str) -> Result<Value> {
    call_watched(host, action, params, channel, &|_| Ok(()), None)
}

/// [`call`]; `watch` sees the channel's connection before the call goes out, and may refuse
/// it: a front end that cancels sends [`cancel`] over that connection (or shuts it), and the
/// host then stops the action (a talk's command interrupted, a wait ended); `progress` takes a talk's progress as it
/// comes. A call made as an ssh command of its own (no channel could start) is not watched
/// and reports no progress: it runs to its end there.
pub fn call_watched(
    host: &Host,
    action: Action,
    params: Params,
    channel: &str,
    watch: &dyn Fn(&std::os::unix::net::UnixStream) -> Result<()>,
    progress: Option<Progress<'_>>,
) -> Result<Value> {
    let every = progress.as_ref().map(|(d, _)| d.as_millis() as u64);
    let (body, within) = encode_with(action, params, channel, every)?;
    let dir = super::remote_dir();
    let out = match super::channel::connect(host, dir.as_deref())? {
        Some(stream) => {
            watch(&stream)?;
            super::channel::send_call(host, &stream, body)?;
            let mut none = |_: Vec<u8>| {};
            let sink = match progress {
                Some((_, sink)) => sink,
                None => &mut none,
            };
            super::channel::answer_with(host, &stream, within, sink)?
        }
        None => direct(host, body, within)?,
    };
    decode(host, &out)
}

/// Ask the host to stop the action called over `stream` (a `Cancel` of the call: a talk's
/// command interrupted, a wait ended); its answer then comes back on `stream`.
pub fn cancel(stream: &std::os::unix::net::UnixStream) {
    let _ = super::wire::Frame::new(0, super::wire::Kind::Cancel, Vec::new()).write(&mut &*stream);
}

/// A call sent over a host's open channel, its answer still to come: many go out at once
/// from one thread ([`send_if_open`]), then each answer is read.
pub struct InFlight {
    host: Host,
    stream: std::os::unix::net::UnixStream,
    within: Duration,
}

impl InFlight {
    /// The action's JSON, or its error.
    pub fn answer(self) -> Result<Value> {
        let out = super::channel::answer(&self.host, &self.stream, self.within)?;
        decode(&self.host, &out)
    }
}

/// Send `action` to `host` when its channel is open (else `None`: [`call`] it, which opens
/// one).
pub fn send_if_open(
    host: &Host,
    action: Action,
    params: Params,
    channel: &str,
) -> Option<InFlight> {
    let (body, within) = encode(action, params, channel).ok()?;
    let stream = super::channel::open(host, super::remote_dir().as_deref()).ok()??;
    super::channel::send_call(host, &stream, body).ok()?;
    Some(InFlight {
        host: host.clone(),
        stream,
        within,
    })
}

/// The call's body (its `host` cleared) and how long its answer may take.
fn encode(action: Action, params: Params, channel: &str) -> Result<(Vec<u8>, Duration)> {
    encode_with(action, params, channel, None)
}

/// [`encode`], asking for a talk's progress every `progress_ms`.
fn encode_with(
    action: Action,
    mut params: Params,
    channel: &str,
    progress_ms: Option<u64>,
) -> Result<(Vec<u8>, Duration)> {
    params.host = None;
    let within = Duration::from_millis(params.timeout_ms.unwrap_or(30_000).min(3_600_000))
        + Duration::from_secs(30);
    let body = serde_json::to_vec(&Call {
        action,
        params,
        channel: channel.to_string(),
        progress_ms,
    })
    .map_err(|e| Error::internal(e.to_string()))?;
    Ok((body, within))
}

fn decode(host: &Host, out: &[u8]) -> Result<Value> {
    serde_json::from_slice(out)
        .map_err(|_| super::unreachable(host, "the host's kpty answered something unreadable"))
}

/// The call as an ssh command of its own: `kpty __action` there.
fn direct(host: &Host, body: Vec<u8>, within: Duration) -> Result<Vec<u8>> {
    let kpty = super::install::ensure(host)?;
    let mut c = super::ssh()?;
    c.arg(host.as_str())
        .arg(match super::remote_dir() {
            Some(d) => format!("cd {} && exec {kpty} {SUBCOMMAND}", super::shell_line(&[d])),
            None => format!("exec {kpty} {SUBCOMMAND}"),
        })
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c
        .spawn()
        .map_err(|e| super::unreachable(host, &format!("cannot run ssh: {e}")))?;
    if let Some(mut stdin) = child.stdin.take() {
        std::thread::spawn(move || {
            let _ = stdin.write_all(&body);
        });
    }
    let mut stdout = child.stdout.take();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(o) = stdout.as_mut() {
            let _ = o.take(256 << 20).read_to_end(&mut out);
        }
        let _ = tx.send(out);
    });
    // The action's own timeout, and the connection's, bound the wait.
    let (_, said) = master::finish(child, within);
    let out = rx.recv_timeout(Duration::from_secs(5)).unwrap_or_default();
    if out.is_empty() {
        return Err(super::unreachable(host, &said));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A call's parameters come back on the host as they were sent, whichever are set.
        #[test]
        fn a_call_reaches_the_host_with_its_parameters_whole(
            session in proptest::option::of("[a-z0-9_]{1,12}"),
            label in proptest::option::of("[^\u{0}]{0,10}"),
            cols in proptest::option::of(2u16..1000),
            timeout in proptest::option::of(0u64..5_000_000),
            record in proptest::option::of(proptest::bool::ANY),
        ) {
            let params = Params {
                session_id: session,
                label,
                cols,
                timeout_ms: timeout,
                record,
                ..Default::default()
            };
            let (body, within) = encode(Action::Talk, params.clone(), "mcp").unwrap();
            let back: Call = serde_json::from_slice(&body).unwrap();
            proptest::prop_assert_eq!(back.params, params.clone());
            proptest::prop_assert_eq!(back.action, Action::Talk);
            // On the wire, no parameter is there as `null` (an absent one is left out).
            #[derive(serde::Deserialize)]
            struct Sent {
                params: std::collections::BTreeMap<String, Option<serde::de::IgnoredAny>>,
            }
            let sent: Sent = serde_json::from_slice(&body).unwrap();
            let nulls: Vec<&String> = sent.params.iter().filter(|(_, v)| v.is_none()).map(|(k, _)| k).collect();
            proptest::prop_assert!(nulls.is_empty(), "sent as null: {:?}", nulls);
            let ms = params.timeout_ms.unwrap_or(30_000).min(3_600_000);
            proptest::prop_assert_eq!(within, Duration::from_millis(ms) + Duration::from_secs(30));
        }
    }
}
