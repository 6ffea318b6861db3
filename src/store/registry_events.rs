//! The registry's journal (`_registry_events.jsonl`): one typed event per change, written by
//! [`record`] (with its `ts`) and read back as JSON lines by `kpty log`. The JSON shape of
//! each event is its variant's fields under `"event": "<snake_case name>"`.

use super::StateDir;
use crate::error::ErrorCode;
use serde::Serialize;

/// What `resolve` and the owner-changing actions were asked (the selectors given).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Query<'a> {
    /// Owner agent asked for.
    pub agent_id: Option<&'a str>,
    /// Owner session asked for.
    pub owner_session_id: Option<&'a str>,
    /// Label asked for.
    pub label: Option<&'a str>,
    /// Claude Code session asked for (only when given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claude_code_session_id: Option<&'a str>,
}

/// Owner fields of a session after a change.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Owner<'a> {
    /// Owning agent.
    pub owner_agent_id: Option<&'a str>,
    /// Its role.
    pub owner_role: Option<&'a str>,
    /// Label.
    pub label: Option<&'a str>,
    /// Claude Code session.
    pub claude_code_session_id: Option<&'a str>,
}

/// One event of the registry's journal.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RegistryEvent<'a> {
    /// A local session is up.
    SessionCreated {
        /// Its id.
        session_id: &'a str,
        /// Its shell (or program).
        shell: Option<&'a str>,
        /// The shell's pid.
        pid: Option<u32>,
        /// Its label.
        label: Option<&'a str>,
    },
    /// A session failed to start.
    SessionCreateFailed {
        /// The id it had reserved.
        session_id: &'a str,
        /// Why.
        error_code: ErrorCode,
        /// The message.
        message: &'a str,
    },
    /// A shell PTY opened beside a session's program.
    ShellOpened {
        /// The session.
        session_id: &'a str,
        /// Its PTY number.
        pty: u32,
        /// Its address `SESSION:N`.
        address: &'a str,
        /// The shell's pid.
        pid: Option<u32>,
    },
    /// An external session registered.
    Registered {
        /// Always `register`.
        action: &'static str,
        /// Its id.
        session_id: &'a str,
        /// `desktop`, `bridged` …
        source: &'a str,
        /// Where it is reached.
        desktop_url: Option<&'a str>,
        /// Its owner fields.
        #[serde(flatten)]
        owner: Owner<'a>,
    },
    /// An external session forgotten.
    Unregistered {
        /// Always `unregister`.
        action: &'static str,
        /// Its id.
        session_id: &'a str,
        /// Whether a leader's terminal was forced.
        force: bool,
    },
    /// A session pruned.
    Pruned {
        /// Always `prune`.
        action: &'static str,
        /// Its id.
        session_id: &'a str,
        /// Why, when not plain staleness (`bridge_unreachable`).
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<&'static str>,
        /// The bridge that did not answer.
        #[serde(skip_serializing_if = "Option::is_none")]
        desktop_url: Option<&'a str>,
    },
    /// `resolve` found a session.
    Resolved {
        /// Always `resolve`.
        action: &'static str,
        /// The session found.
        session_id: &'a str,
        /// What was asked.
        query: Query<'a>,
    },
    /// `DELETE /v1/pty/reset`.
    Reset {
        /// Every session forgotten.
        removed: &'a [String],
        /// Local sessions ended.
        killed: &'a [String],
        /// Session folders removed.
        removed_files: &'a [String],
        /// Sessions that could not be ended.
        failed: &'a [String],
    },
    /// A session forgotten: killed, or found ended and replaced (`event` names which:
    /// `session_killed`, `default_replaced`, `session_replaced`). Untagged: it names its
    /// own event.
    #[serde(untagged)]
    Forgotten {
        /// The event's name (`default_session_replaced` …).
        event: &'a str,
        /// Its id.
        session_id: &'a str,
        /// Its label.
        label: Option<&'a str>,
    },
    /// Owner fields or the label changed (`update_ownership`, `rename`; `event` names which).
    #[serde(untagged)]
    OwnerChanged {
        /// The event's name.
        event: &'a str,
        /// The action.
        action: &'a str,
        /// The session.
        session_id: &'a str,
        /// Its owner fields now, and its owner session.
        #[serde(flatten)]
        owner: Owner<'a>,
        /// Its owner session.
        owner_session_id: Option<&'a str>,
    },
}

/// Append `event` (with its `ts`) to the registry's journal; a failure is logged: this
/// records what already happened.
pub fn record(state: &StateDir, event: &RegistryEvent<'_>) {
    #[derive(Serialize)]
    struct Line<'a> {
        ts: String,
        #[serde(flatten)]
        event: &'a RegistryEvent<'a>,
    }
    let line = Line {
        ts: super::now_rfc3339(),
        event,
    };
    let path = state.registry_events();
    let written = serde_json::to_vec(&line)
        .map_err(|e| crate::error::Error::state(&path, format!("cannot encode an event: {e}")))
        .and_then(|mut l| {
            l.push(b'\n');
            super::journal::append_line(state, &path, &l)
        });
    if let Err(e) = written {
        tracing::warn!("cannot append to {}: {}", path.display(), e.message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shape(e: &RegistryEvent<'_>) -> serde_json::Value {
        serde_json::to_value(e).unwrap()
    }

    /// The journal's lines keep the shape `kpty log` and earlier journals have.
    #[test]
    fn events_keep_their_json_shape() {
        let owner = Owner {
            owner_agent_id: Some("a"),
            owner_role: None,
            label: Some("l"),
            claude_code_session_id: None,
        };
        assert_eq!(
            shape(&RegistryEvent::Pruned {
                action: "prune",
                session_id: "x",
                reason: None,
                desktop_url: None
            }),
            json!({"event": "pruned", "action": "prune", "session_id": "x"})
        );
        assert_eq!(
            shape(&RegistryEvent::Forgotten {
                event: "default_session_replaced",
                session_id: "x",
                label: None
            }),
            json!({"event": "default_session_replaced", "session_id": "x", "label": null})
        );
        assert_eq!(
            shape(&RegistryEvent::OwnerChanged {
                event: "session_renamed",
                action: "rename",
                session_id: "x",
                owner,
                owner_session_id: None
            }),
            json!({"event": "session_renamed", "action": "rename", "session_id": "x",
                   "owner_agent_id": "a", "owner_role": null, "label": "l",
                   "claude_code_session_id": null, "owner_session_id": null})
        );
        assert_eq!(
            shape(&RegistryEvent::Registered {
                action: "register",
                session_id: "x",
                source: "desktop",
                desktop_url: Some("http://127.0.0.1:1"),
                owner
            })["event"],
            "registered"
        );
    }
}
