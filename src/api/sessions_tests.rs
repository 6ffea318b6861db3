//! The session replies serialize to the objects the snapshots (snapshots/json_list.snap) and
//! the seeds hold.

use super::*;
use crate::api::BufferType;
use crate::api::reply::Cursor;
use serde_json::{Value, json};

fn entry() -> Value {
    json!({"session_id": "pty_1", "source": "local", "pid": 42, "label": "snap",
           "owner_role": null})
}

fn to_json<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).expect("serializes")
}

#[test]
fn a_running_session_in_a_list_is_the_snapshot_shape() {
    let view = SessionView {
        entry: entry(),
        state: SessionState::Running,
        live: Some(Live::Running(Box::new(Running {
            cols: 80,
            rows: 24,
            integration: "osc133".into(),
            at_prompt: true,
            busy: false,
            foreground_command: None,
            command_started_at: None,
            output_offset: 7,
            attached: 0,
            waiting_talks: 0,
            recording: Some("on".into()),
            process: None,
            terminal_state: Some(TerminalState::Prompt),
            screen: Some(Screen {
                buffer_type: BufferType::Normal,
                title: None,
                cursor: Cursor { line: 1, col: 2 },
            }),
        }))),
        untrusted: false,
        ptys: None,
    };
    let list = ListReply {
        ok: Success,
        count: 1,
        sessions: vec![view],
        by_source: BySource {
            local: 1,
            desktop: 0,
        },
        state_dir: "/s".into(),
    };
    assert_eq!(
        to_json(&list),
        json!({"ok": true, "count": 1, "state_dir": "/s",
               "by_source": {"desktop": 0, "local": 1},
               "sessions": [{"session_id": "pty_1", "source": "local", "pid": 42,
                   "label": "snap", "owner_role": null, "state": "running", "cols": 80,
                   "rows": 24, "integration": "osc133", "at_prompt": true, "busy": false,
                   "foreground_command": null, "output_offset": 7, "attached": 0, "recording": "on",
                   "terminal_state": "prompt",
                   "screen": {"buffer_type": "normal", "title": null,
                              "cursor": {"line": 1, "col": 2}}}]})
    );
}

#[test]
fn exited_unresponsive_and_registered_sessions() {
    let mut v = SessionView {
        entry: entry(),
        state: SessionState::Exited,
        live: Some(Live::Exited {
            exit_code: Some(1),
            exit_signal: None,
        }),
        untrusted: false,
        ptys: None,
    };
    let j = to_json(&v);
    assert_eq!(
        (&j["exit_code"], &j["exit_signal"]),
        (&json!(1), &Value::Null)
    );
    v.state = SessionState::Unresponsive;
    v.live = Some(Live::Unresponsive {
        problem: "stopped".into(),
    });
    assert_eq!(to_json(&v)["problem"], "stopped");
    v.state = SessionState::Registered;
    v.live = None;
    let mut want = entry();
    want["state"] = json!("registered");
    assert_eq!(to_json(&v), want);
    let r = ResolveReply {
        ok: Success,
        session_id: "pty_1".into(),
        session: v,
    };
    assert_eq!(
        to_json(&r),
        json!({"ok": true, "session_id": "pty_1", "session": want})
    );
}

#[test]
fn registry_replies() {
    let p = PruneReply {
        ok: Success,
        pruned: vec!["d_1".into()],
        pruned_local: vec![],
        ended_local: vec![Ended {
            session_id: "pty_2".into(),
            state: SessionState::Dead,
            label: None,
        }],
        removed_files: vec![],
    };
    assert_eq!(
        to_json(&p),
        json!({"ok": true, "pruned": ["d_1"], "pruned_local": [],
               "ended_local": [{"session_id": "pty_2", "state": "dead", "label": null}],
               "removed_files": []})
    );
    let u = UnregisterReply {
        ok: Success,
        session_id: "d_1".into(),
        unregistered: true,
    };
    assert_eq!(
        to_json(&u),
        json!({"ok": true, "session_id": "d_1", "unregistered": true})
    );
    let h = HeartbeatReply {
        ok: Success,
        session_id: "d_1".into(),
        last_heartbeat: "t".into(),
    };
    assert_eq!(
        to_json(&h),
        json!({"ok": true, "session_id": "d_1", "last_heartbeat": "t"})
    );
}

#[test]
fn create_reply_shape() {
    let c = CreateReply {
        ok: Success,
        session_id: "pty_1".into(),
        shell: "/bin/bash".into(),
        cwd: "/w".into(),
        cols: 80,
        rows: 24,
        scrollback: 10,
        pid: Some(1),
        holder_pid: None,
        label: None,
        source: "local",
        created_at: "t".into(),
        integration: Some("osc133".into()),
        shell_kind: Some(ShellKind::Bash),
        sandbox: None,
        input_filter: None,
        program: None,
    };
    assert_eq!(
        to_json(&c),
        json!({"ok": true, "session_id": "pty_1", "shell": "/bin/bash", "cwd": "/w",
               "cols": 80, "rows": 24, "scrollback": 10, "pid": 1, "holder_pid": null,
               "label": null, "source": "local", "created_at": "t",
               "integration": "osc133", "shell_kind": "bash", "sandbox": null})
    );
}
