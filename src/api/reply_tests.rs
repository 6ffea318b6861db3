//! Each typed reply serializes to the object the snapshots (snapshots/json_*.snap) and the
//! seeds hold: the same keys, `null` where they have `null`, absent where they omit a key.

use super::*;
use serde_json::json;

fn screen() -> Screen {
    Screen {
        buffer_type: BufferType::Normal,
        title: None,
        cursor: Cursor { line: 3, col: 2 },
    }
}

fn screen_json() -> Value {
    json!({"buffer_type": "normal", "cursor": {"col": 2, "line": 3}, "title": null})
}

fn to_json<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).expect("serializes")
}

#[test]
fn send_line_reply_is_the_snapshot_shape() {
    let r = SendLineReply {
        ok: Success,
        session_id: "pty_1".into(),
        typed: Written::new(9),
        enter: Written::new(1),
    };
    assert_eq!(
        to_json(&r),
        json!({"ok": true, "session_id": "pty_1",
               "typed": {"ok": true, "bytes_written": 9},
               "enter": {"ok": true, "bytes_written": 1}})
    );
}

#[test]
fn read_reply_local_and_bridged() {
    let mut r = ReadReply {
        ok: Success,
        session_id: "pty_1".into(),
        output: "hi".into(),
        bytes_read: 2,
        session_alive: true,
        start_offset: Some(10),
        next_offset: Some(12),
        dropped: Some(0),
        exit_code: None,
        screen: Some(Some(screen())),
        terminal_state: Some(Some(TerminalState::Prompt)),
    };
    assert_eq!(
        to_json(&r),
        json!({"ok": true, "session_id": "pty_1", "output": "hi", "bytes_read": 2,
               "session_alive": true, "start_offset": 10, "next_offset": 12, "dropped": 0,
               "exit_code": null, "screen": screen_json(), "terminal_state": "prompt"})
    );
    // A local holder without a screen model: null, not absent.
    r.screen = Some(None);
    r.terminal_state = Some(None);
    assert_eq!(to_json(&r)["screen"], Value::Null);
    assert!(to_json(&r).get("terminal_state").is_some());
    // Through a bridge: offsets null, no screen fields at all.
    r.start_offset = None;
    r.next_offset = None;
    r.dropped = None;
    r.screen = None;
    r.terminal_state = None;
    assert_eq!(
        to_json(&r),
        json!({"ok": true, "session_id": "pty_1", "output": "hi", "bytes_read": 2,
               "session_alive": true, "start_offset": null, "next_offset": null,
               "dropped": null, "exit_code": null})
    );
}

#[test]
fn talk_reply_is_the_snapshot_shape() {
    let mut r = TalkReply {
        ok: Success,
        session_id: "pty_1".into(),
        output: "hi".into(),
        sentinel: "__KR_DONE__".into(),
        raw_output: Some("hi\r\n".into()),
        exit_code: Some(0),
        duration_ms: 5,
        completion: Completion::Osc133,
        truncated: false,
        start_offset: Some(1),
        end_offset: Some(2),
        screen: Some(Some(screen())),
        terminal_state: Some(Some(TerminalState::Prompt)),
        dropped_chars: 0,
        completed: true,
        waiting_for_input: false,
        prompt: None,
        echo_off: None,
        cleared_line: None,
        evidence_id: None,
        evidence: None,
    };
    assert_eq!(
        to_json(&r),
        json!({"ok": true, "session_id": "pty_1", "output": "hi", "sentinel": "__KR_DONE__",
               "raw_output": "hi\r\n", "exit_code": 0, "duration_ms": 5,
               "completion": "osc133", "truncated": false, "start_offset": 1,
               "end_offset": 2, "screen": screen_json(), "terminal_state": "prompt",
               "dropped_chars": 0, "completed": true, "waiting_for_input": false})
    );
    // Waiting for input: the prompt and the echo state come along.
    let mut w = r.clone();
    (w.completed, w.waiting_for_input) = (false, true);
    (w.prompt, w.echo_off) = (Some("name? ".into()), Some(false));
    w.terminal_state = Some(Some(TerminalState::WaitingInput));
    let v = to_json(&w);
    assert_eq!(
        (&v["prompt"], &v["echo_off"], &v["terminal_state"]),
        (&json!("name? "), &json!(false), &json!("waiting_input"))
    );
    // Lean: raw_output absent; bridged: no screen fields, offsets null.
    r.raw_output = None;
    r.screen = None;
    r.terminal_state = None;
    r.start_offset = None;
    r.end_offset = None;
    r.completion = Completion::Bridge;
    let v = to_json(&r);
    assert!(v.get("raw_output").is_none() && v.get("screen").is_none());
    assert!(v.get("terminal_state").is_none());
    assert_eq!(
        (&v["start_offset"], &v["completion"]),
        (&Value::Null, &json!("bridge"))
    );
}

#[test]
fn term_read_reply_local_with_and_without_delta_fields() {
    let view = LocalView {
        cursor_line: 1,
        cursor_col: 2,
        viewport_y: 0,
        rows: 24,
        cols: 80,
        buffer_type: BufferType::Alternate,
        first_line: 0,
        marker_id: 7,
        marker_line: 3,
        marker_disposed: false,
        title: None,
        terminal_state: TerminalState::FullScreen,
        scrollback: 0,
        lines_lost: None,
        more: None,
    };
    let mut r = TermReadReply {
        ok: Success,
        session_id: "pty_1".into(),
        mode: TermMode::Tail,
        text: "a\nb".into(),
        lines: vec!["a".into(), "b".into()],
        truncated: false,
        dropped_chars: 0,
        view: TermView::Local(view.clone()),
    };
    let want = json!({"ok": true, "session_id": "pty_1", "mode": "tail", "text": "a\nb",
        "lines": ["a", "b"], "truncated": false, "dropped_chars": 0, "cursor_line": 1,
        "cursor_col": 2, "viewport_y": 0, "rows": 24, "cols": 80,
        "buffer_type": "alternate", "first_line": 0, "marker_id": 7, "marker_line": 3,
        "marker_disposed": false, "title": null, "terminal_state": "full_screen",
        "scrollback": 0});
    assert_eq!(to_json(&r), want);
    r.mode = TermMode::Delta;
    r.view = TermView::Local(LocalView {
        lines_lost: Some(0),
        more: Some(false),
        ..view
    });
    let v = to_json(&r);
    assert_eq!((&v["lines_lost"], &v["more"]), (&json!(0), &json!(false)));
}

#[test]
fn term_read_reply_bridged_passes_the_bridges_fields_on() {
    let mut extra = Map::new();
    extra.insert("marker_id".into(), json!("m-1"));
    extra.insert("vendor".into(), json!({"x": 1}));
    let r = TermReadReply {
        ok: Success,
        session_id: "pty_1".into(),
        mode: TermMode::Viewport,
        text: String::new(),
        lines: vec![],
        truncated: true,
        dropped_chars: 3,
        view: TermView::Bridged(extra),
    };
    assert_eq!(
        to_json(&r),
        json!({"ok": true, "session_id": "pty_1", "mode": "viewport", "text": "",
               "lines": [], "truncated": true, "dropped_chars": 3, "marker_id": "m-1",
               "vendor": {"x": 1}})
    );
}

#[test]
fn resize_and_kill_replies_are_the_snapshot_shapes() {
    let r = ResizeReply {
        ok: Success,
        session_id: "pty_1".into(),
        cols: 100,
        rows: 40,
    };
    assert_eq!(
        to_json(&r),
        json!({"cols": 100, "ok": true, "rows": 40, "session_id": "pty_1"})
    );
    let k = KillReply {
        ok: Success,
        session_id: "pty_1".into(),
        killed: true,
        state_before: SessionState::Running,
        exit_code: Some(1),
        exit_signal: Some("Hangup".into()),
        ended_ptys: Vec::new(),
    };
    assert_eq!(
        to_json(&k),
        json!({"exit_code": 1, "exit_signal": "Hangup", "killed": true, "ok": true,
               "session_id": "pty_1", "state_before": "running"})
    );
    let w = WriteReply {
        ok: Success,
        session_id: "pty_1".into(),
        bytes_written: 3,
    };
    assert_eq!(
        to_json(&w),
        json!({"ok": true, "session_id": "pty_1", "bytes_written": 3})
    );
}
