//! The replies of `kpty serve`'s bridge endpoints (seed 000 §6, §13) that are not an
//! action's own: `/pty/talk`, `/pty/read`, `/pty/list`, `/pty/is-leader`, `/health` and
//! `/v1/pty/reset`.

use crate::api::Completion;
use crate::api::reply::{Success, TalkReply};
use serde::Serialize;

/// `POST /pty/talk` of `kpty serve`: a finished command, in the bridge's shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BridgeTalkReply {
    /// Always true.
    pub ok: Success,
    /// The session it ran in.
    pub session_id: String,
    /// The clean output.
    pub output: String,
    /// Always true (a timeout is an error).
    pub sentinel_found: bool,
    /// The sentinel the caller asked for, else the marker used.
    pub sentinel: String,
    /// The command's exit code, when known.
    pub exit_code: Option<i64>,
    /// How long it ran.
    pub duration_ms: u64,
    /// How completion was detected.
    pub completion: Completion,
    /// True when output was cut.
    pub truncated: bool,
}

impl BridgeTalkReply {
    /// The bridge's view of `talk`'s reply, echoing the caller's `sentinel` when it gave one.
    pub fn from_talk(t: TalkReply, sentinel: Option<String>) -> Self {
        Self {
            ok: Success,
            session_id: t.session_id,
            output: t.output,
            sentinel_found: true,
            sentinel: sentinel.unwrap_or(t.sentinel),
            exit_code: t.exit_code,
            duration_ms: t.duration_ms,
            completion: t.completion,
            truncated: t.truncated,
        }
    }
}

/// `POST /pty/read` of `kpty serve`: everything a session printed during a window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WindowReply {
    /// Always true.
    pub ok: Success,
    /// The session read.
    pub session_id: String,
    /// What it printed.
    pub output: String,
    /// Bytes of `output`.
    pub bytes_read: usize,
}

/// `GET /pty/is-leader` of `kpty serve`: is this session the leader's terminal?
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeaderReply {
    /// Always true.
    pub ok: Success,
    /// The id asked about, normalised (hyphens removed, first 16 characters).
    pub session_id: String,
    /// True when it is a leader's.
    pub is_leader: bool,
    /// It, when it is a leader's; else the first leader found (normalised), if any.
    pub leader_terminal_id: Option<String>,
}

/// One running local session in `GET /pty/list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BridgeSession {
    /// The session's id.
    pub session_id: String,
    /// The same id (the seeds' bridge has an internal one).
    pub internal_id: String,
    /// The shell's pid.
    pub pid: Option<u32>,
    /// Columns.
    pub cols: Option<u16>,
    /// Rows.
    pub rows: Option<u16>,
    /// Working directory at start.
    pub cwd: Option<String>,
    /// Its label.
    pub label: Option<String>,
}

/// `GET /pty/list`: the running local sessions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BridgeListReply {
    /// Always true.
    pub ok: Success,
    /// How many.
    pub count: usize,
    /// The sessions.
    pub sessions: Vec<BridgeSession>,
}

/// `DELETE /v1/pty/reset`: every session ended or forgotten, and their files removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResetReply {
    /// Always true.
    pub ok: Success,
    /// The ids removed: local sessions ended and registered ones forgotten.
    pub removed: Vec<String>,
    /// How many.
    pub count: usize,
    /// The local sessions whose holders were ended.
    pub killed: Vec<String>,
    /// The session folders removed (these sessions' and those of sessions ended before).
    pub removed_files: Vec<String>,
    /// Local sessions that could not be ended (still running, still in the registry).
    pub failed: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bridge_replies_are_the_seeds_shapes() {
        let l = BridgeListReply {
            ok: Success,
            count: 1,
            sessions: vec![BridgeSession {
                session_id: "pty_1".into(),
                internal_id: "pty_1".into(),
                pid: Some(4),
                cols: Some(80),
                rows: None,
                cwd: None,
                label: Some("x".into()),
            }],
        };
        assert_eq!(
            serde_json::to_value(&l).expect("ser"),
            json!({"ok": true, "count": 1, "sessions": [{"session_id": "pty_1",
                   "internal_id": "pty_1", "pid": 4, "cols": 80, "rows": null, "cwd": null,
                   "label": "x"}]})
        );
        let r = ResetReply {
            ok: Success,
            removed: vec!["d".into()],
            count: 1,
            killed: vec![],
            removed_files: vec![],
            failed: vec![],
        };
        assert_eq!(
            serde_json::to_value(&r).expect("ser"),
            json!({"ok": true, "removed": ["d"], "count": 1, "killed": [], "removed_files": [],
                   "failed": []})
        );
        let w = LeaderReply {
            ok: Success,
            session_id: "abc".into(),
            is_leader: false,
            leader_terminal_id: None,
        };
        assert_eq!(
            serde_json::to_value(&w).expect("ser"),
            json!({"ok": true, "session_id": "abc", "is_leader": false,
                   "leader_terminal_id": null})
        );
        let t = BridgeTalkReply {
            ok: Success,
            session_id: "pty_1".into(),
            output: "hi".into(),
            sentinel_found: true,
            sentinel: "S".into(),
            exit_code: None,
            duration_ms: 3,
            completion: Completion::Osc133,
            truncated: false,
        };
        assert_eq!(
            serde_json::to_value(&t).expect("ser"),
            json!({"ok": true, "session_id": "pty_1", "output": "hi", "sentinel_found": true,
                   "sentinel": "S", "exit_code": null, "duration_ms": 3,
                   "completion": "osc133", "truncated": false})
        );
    }
}
