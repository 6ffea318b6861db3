//! The holder protocol both ways: every request round-trips through its envelope, an unknown
//! op decodes to [`Request::Unknown`]; every reply body is decoded once into its call's type,
//! an older holder's reply (fields left out) still decodes, a malformed one is a clear
//! `PTY_READ_FAILED` naming the request.

use super::attach::AttachRequest;
use super::follow::FollowRequest;
use super::request::RecordSyncRequest;
use super::wait::{WaitForBody, WaitForRequest};
use super::*;
use crate::api::{Completion, ProcessState, ShellKind, TermMode, TerminalState, WaitReason};
use crate::error::ErrorCode;
use proptest::prelude::*;

/// The ops this build knows (kept in step with [`Request`] by `every_op_is_listed`).
const OPS: &[&str] = &[
    "status",
    "write",
    "read",
    "talk",
    "resize",
    "kill",
    "cancel",
    "term_read",
    "screen",
    "wait_for",
    "attach",
    "follow",
    "spec",
    "set_label",
    "record_sync",
];

/// Fails to compile when a request is added: add it to [`any_request`] and [`OPS`].
fn _every_variant_is_generated(r: &Request) {
    match r {
        Request::Status
        | Request::Write(_)
        | Request::Read(_)
        | Request::Talk(_)
        | Request::Resize(_)
        | Request::Kill(_)
        | Request::Cancel(_)
        | Request::TermRead(_)
        | Request::WaitFor(_)
        | Request::Attach(_)
        | Request::Follow(_)
        | Request::Spec
        | Request::SetLabel(_)
        | Request::Screen(_)
        | Request::RecordSync(_)
        | Request::Unknown => {}
    }
}

fn text() -> impl Strategy<Value = String> {
    "\\PC{0,12}"
}

fn open<T: std::str::FromStr + std::fmt::Debug + 'static>(
    spellings: &'static [&'static str],
) -> BoxedStrategy<Open<T>> {
    prop_oneof![
        proptest::sample::select(spellings).prop_map(Open::from),
        "[a-z_]{1,10}".prop_map(|s| Open::from(s.as_str())),
    ]
    .boxed()
}

fn talk_request() -> impl Strategy<Value = TalkRequest> {
    (
        text(),
        proptest::option::of(text()),
        any::<u64>(),
        proptest::option::of(any::<u64>()),
        any::<(bool, bool)>(),
        (
            proptest::option::of(text()),
            proptest::option::of(text()),
            proptest::option::of(text()),
        ),
    )
        .prop_map(
            |(command, sentinel, timeout_ms, progress_ms, (raw, force), (stdin, by, talk_id))| {
                TalkRequest {
                    command,
                    sentinel,
                    timeout_ms,
                    progress_ms,
                    raw,
                    force,
                    stdin,
                    by,
                    talk_id,
                }
            },
        )
}

fn wait_request() -> impl Strategy<Value = WaitForRequest> {
    (
        proptest::option::of(text()),
        any::<(bool, bool, bool)>(),
        proptest::option::of(any::<u64>()),
        proptest::option::of(any::<u64>()),
        any::<(u64, u32)>(),
    )
        .prop_map(
            |(pattern, (screen, prompt, context), quiet_ms, since, (timeout_ms, max))| {
                WaitForRequest {
                    pattern,
                    screen,
                    quiet_ms,
                    prompt,
                    since,
                    timeout_ms,
                    max_bytes: max as usize,
                    context,
                }
            },
        )
}

/// Any attach request.
fn attach_request() -> impl Strategy<Value = Request> {
    (
        any::<(u16, u16, bool, bool, u32)>(),
        any::<(bool, Option<u64>)>(),
        proptest::option::of(text()),
    )
        .prop_map(
            |((cols, rows, read_only, web, history), (offsets, resume), by)| {
                AttachRequest {
                    cols,
                    rows,
                    read_only,
                    web,
                    history,
                    offsets,
                    resume,
                    by,
                }
                .into_request()
            },
        )
}

/// Any request this build sends, every variant with arbitrary fields.
fn any_request() -> impl Strategy<Value = Request> {
    prop_oneof![
        Just(Request::Status),
        Just(Request::Spec),
        Just(crate::proto::screen::ScreenRequest {}.into_request()),
        any::<u64>().prop_map(|timeout_ms| RecordSyncRequest { timeout_ms }.into_request()),
        (
            text(),
            any::<bool>(),
            proptest::option::of(text()),
            proptest::option::of(text())
        )
            .prop_map(|(data, e, app_cursor, by)| {
                WriteRequest {
                    data,
                    enter_follows: e,
                    app_cursor,
                    by,
                }
                .into_request()
            }),
        (
            proptest::option::of(any::<u64>()),
            any::<u32>(),
            any::<u64>(),
            any::<bool>()
        )
            .prop_map(|(since, max, timeout_ms, context)| ReadRequest {
                since,
                max_bytes: max as usize,
                timeout_ms,
                context,
            }
            .into_request()),
        talk_request().prop_map(Call::into_request),
        any::<(u16, u16)>().prop_map(|(cols, rows)| ResizeRequest { cols, rows }.into_request()),
        any::<u64>().prop_map(|grace_ms| KillRequest { grace_ms }.into_request()),
        (any::<(bool, u64)>(), proptest::option::of(text())).prop_map(
            |((interrupt, settle_ms), talk_id)| CancelRequest {
                interrupt,
                settle_ms,
                talk_id,
            }
            .into_request()
        ),
        (
            open::<TermMode>(TermMode::SPELLINGS),
            any::<(u32, u32, bool)>(),
            proptest::option::of(any::<u64>())
        )
            .prop_map(|(mode, (l, c, merge_wrapped), marker_id)| TermReadRequest {
                mode,
                max_lines: l as usize,
                max_chars: c as usize,
                merge_wrapped,
                marker_id,
            }
            .into_request()),
        wait_request().prop_map(Call::into_request),
        attach_request(),
        (any::<(u64, u32, u64)>(), any::<(bool, bool)>()).prop_map(
            |((since, max, wait_ms), (context, offsets_only))| FollowRequest {
                since,
                max_bytes: max as usize,
                wait_ms,
                context,
                offsets_only,
            }
            .into_request()
        ),
        proptest::option::of(text()).prop_map(|label| SetLabelRequest { label }.into_request()),
    ]
}

fn op_of(r: &Request) -> String {
    let v: serde_json::Value = serde_json::to_value(r).expect("encode");
    v["op"].as_str().expect("an op").to_string()
}

proptest! {
    #[test]
    fn every_request_round_trips_through_its_envelope(req in any_request()) {
        let bytes = serde_json::to_vec(&Envelope { v: PROTOCOL_VERSION, req: &req }).unwrap();
        let back: Envelope = serde_json::from_slice(&bytes).unwrap();
        prop_assert_eq!(back.v, PROTOCOL_VERSION);
        prop_assert!(OPS.contains(&op_of(&req).as_str()), "{:?}", req);
        prop_assert_eq!(back.req, req);
    }

    #[test]
    fn an_unknown_op_decodes_to_the_fallback(
        op in "[a-z_]{1,16}".prop_filter("a known op", |o| !OPS.contains(&o.as_str())),
        extra in text(),
    ) {
        let wire = serde_json::json!({"v": 1, "req": {"op": op, "field": extra, "n": 7}});
        let env: Envelope = serde_json::from_value(wire).unwrap();
        prop_assert_eq!(env.req, Request::Unknown);
    }

    #[test]
    fn unknown_closed_set_values_in_a_reply_are_kept(
        state in "[a-z_]{1,12}",
        kind in "[a-z_]{1,12}",
        completion in "[a-z_]{1,12}",
        reason in "[a-z_]{1,12}",
    ) {
        let status = serde_json::json!({"pid": 1, "alive": true, "terminal_state": state,
            "shell_kind": kind, "process": {"state": state, "restart_count": 2}});
        let s = decode::<StatusRequest>(&ok_reply(status)).unwrap();
        prop_assert_eq!(s.terminal_state.as_ref().map(|t| t.to_string()), Some(state.clone()));
        prop_assert_eq!(s.shell_kind.to_string(), kind.clone());
        prop_assert_eq!(s.process.map(|p| p.state.to_string()), Some(state.clone()));
        let t = decode::<TalkRequest>(&ok_reply(serde_json::json!({"completion": completion}))).unwrap();
        prop_assert_eq!(t.completion.to_string(), completion.clone());
        let w = decode::<WaitForRequest>(&ok_reply(serde_json::json!({"reason": reason}))).unwrap();
        prop_assert_eq!(w.reason.to_string(), reason.clone());
        if !TerminalState::SPELLINGS.contains(&state.as_str()) {
            prop_assert_eq!(s.terminal_state.map(|t| t.or(TerminalState::Running)), Some(TerminalState::Running));
        }
    }
}

/// The wire bytes stay those of earlier builds (older holders read them).
#[test]
fn requests_keep_their_wire_bytes() {
    let enc = |r: Request| serde_json::to_string(&Envelope { v: 1, req: r }).unwrap();
    assert_eq!(enc(Request::Status), r#"{"v":1,"req":{"op":"status"}}"#);
    assert_eq!(enc(Request::Spec), r#"{"v":1,"req":{"op":"spec"}}"#);
    let w = WriteRequest {
        data: "ls".into(),
        ..Default::default()
    };
    assert_eq!(
        enc(w.into_request()),
        r#"{"v":1,"req":{"op":"write","data":"ls"}}"#
    );
    let c = CancelRequest {
        interrupt: true,
        settle_ms: 0,
        talk_id: None,
    };
    assert_eq!(
        enc(c.into_request()),
        r#"{"v":1,"req":{"op":"cancel","interrupt":true}}"#
    );
    let c = CancelRequest {
        interrupt: false,
        settle_ms: 0,
        talk_id: Some("t1".into()),
    };
    assert_eq!(
        enc(c.into_request()),
        r#"{"v":1,"req":{"op":"cancel","interrupt":false,"talk_id":"t1"}}"#
    );
    let t = TermReadRequest {
        mode: TermMode::Delta.into(),
        max_lines: 2,
        max_chars: 3,
        merge_wrapped: true,
        marker_id: Some(4),
    };
    assert_eq!(
        enc(t.into_request()),
        r#"{"v":1,"req":{"op":"term_read","mode":"delta","max_lines":2,"max_chars":3,"merge_wrapped":true,"marker_id":4}}"#
    );
    // An older client's `kill` without a grace period gets the default.
    let k: Envelope = serde_json::from_str(r#"{"v":1,"req":{"op":"kill"}}"#).unwrap();
    assert_eq!(k.req, KillRequest { grace_ms: 1000 }.into_request());
}

/// Every op in [`OPS`] is a request this build decodes (not the fallback).
#[test]
fn every_op_is_listed() {
    for op in OPS {
        let v: Result<Request, _> = serde_json::from_value(serde_json::json!({"op": op}));
        // Ops with required fields fail without them, but never decode as unknown.
        assert!(!matches!(v, Ok(Request::Unknown)), "{op}");
    }
}

fn ok_reply(body: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({"v": 1, "ok": true, "body": body})).unwrap()
}

/// What a client makes of a reply frame for request `C`.
fn decode<C: Call>(frame: &[u8]) -> crate::error::Result<C::Reply> {
    let reply: Reply = serde_json::from_slice(frame).expect("a reply envelope");
    client::into_result::<C>(reply)
}

/// The holder's typed replies decode into the same bodies on the client.
#[test]
fn typed_replies_decode_into_their_bodies() {
    let status = StatusBody {
        pid: 7,
        alive: true,
        integration: crate::api::Integration::Osc133.into(),
        shell_kind: ShellKind::Zsh.into(),
        terminal_state: Some(TerminalState::WaitingInput.into()),
        process: Some(ProcessStatus {
            state: ProcessState::Restarting.into(),
            restart_count: 3,
            ..Default::default()
        }),
        session_id: Some("pty_1".into()),
        ..Default::default()
    };
    let frame = serde_json::to_vec(&Reply::ok(&status)).unwrap();
    assert_eq!(decode::<StatusRequest>(&frame).unwrap(), status);
    let talk = TalkBody {
        output_raw: "hi\n".into(),
        completion: Completion::Osc133.into(),
        exit_code: Some(0),
        ..Default::default()
    };
    let frame = serde_json::to_vec(&Reply::ok(&talk)).unwrap();
    assert_eq!(decode::<TalkRequest>(&frame).unwrap(), talk);
    let wait = WaitForBody {
        matched: true,
        reason: WaitReason::Quiet.into(),
        terminal_state: TerminalState::Prompt.into(),
        ..Default::default()
    };
    let frame = serde_json::to_vec(&Reply::ok(&wait)).unwrap();
    assert_eq!(decode::<WaitForRequest>(&frame).unwrap(), wait);
    let frame = serde_json::to_vec(&Reply::ok(Done {})).unwrap();
    assert_eq!(decode::<SetLabelRequest>(&frame).unwrap(), Done {});
    let frame = serde_json::to_vec(&Reply::ok(CancelBody {
        cancelled: true,
        ..Default::default()
    }))
    .unwrap();
    assert!(decode::<CancelRequest>(&frame).unwrap().cancelled);
}

/// An older holder leaves newer fields out: the reply still decodes, the fields at their
/// defaults (what "absent" means for each).
#[test]
fn an_older_holders_reply_missing_new_fields_decodes() {
    let s = decode::<StatusRequest>(&ok_reply(serde_json::json!({
        "pid": 5, "holder_pid": 6, "alive": true, "exit_code": null, "cols": 80, "rows": 24,
        "integration": "sentinel", "shell_kind": "bash", "at_prompt": true, "talking": false,
        "output_offset": 10, "protocol_version": 1, "kpty_version": "0.1.0"
    })))
    .unwrap();
    assert_eq!((s.pid, s.cols, s.attached), (5, 80, 0));
    assert_eq!(s.shell_kind.known(), Some(ShellKind::Bash));
    assert!(s.screen.is_none() && s.terminal_state.is_none() && s.session_id.is_none());
    let t = decode::<TalkRequest>(&ok_reply(serde_json::json!({
        "output_raw": "x", "raw_output": "x", "exit_code": 0, "completion": "sentinel",
        "sentinel": "__KR_DONE_1__", "duration_ms": 3, "truncated": false,
        "start_offset": 0, "end_offset": 1
    })))
    .unwrap();
    assert!(t.screen.is_none() && t.terminal_state.is_none() && !t.waiting_for_input);
    let r = decode::<TermReadRequest>(&ok_reply(serde_json::json!({
        "lines": ["a"], "rows": 24, "cols": 80, "terminal_state": "prompt"
    })))
    .unwrap();
    assert!(r.wraps.is_empty() && r.context_before.is_empty());
    assert_eq!(
        r.buffer_type.or(crate::api::BufferType::Normal),
        crate::api::BufferType::Normal
    );
    let z = decode::<ResizeRequest>(&ok_reply(serde_json::json!({}))).unwrap();
    assert_eq!(z, ResizeBody::default());
    // A cancel's answer without `untyped`: as before, a cancel that typed its Ctrl-C.
    let frame = br#"{"v":1,"ok":true,"body":{"cancelled":true,"at_prompt":true}}"#;
    let c = decode::<CancelRequest>(frame).unwrap();
    assert!(c.cancelled && c.at_prompt && !c.untyped);
}

/// A body of another shape is one clear error naming the request, never a silent default.
#[test]
fn a_malformed_body_is_pty_read_failed_naming_the_request() {
    for (frame, op) in [
        (ok_reply(serde_json::json!("nonsense")), "status"),
        (ok_reply(serde_json::json!({"pid": "seven"})), "status"),
        (br#"{"v":1,"ok":true}"#.to_vec(), "status"),
    ] {
        let e = decode::<StatusRequest>(&frame).unwrap_err();
        assert_eq!(e.code, ErrorCode::PtyReadFailed);
        assert!(
            e.message.contains(&format!("malformed {op} reply")),
            "{}",
            e.message
        );
    }
    let e =
        decode::<WriteRequest>(&ok_reply(serde_json::json!({"bytes_written": -1}))).unwrap_err();
    assert!(e.message.contains("malformed write reply"), "{}", e.message);
    // The holder's own error passes through as it is.
    let frame = serde_json::to_vec(&Reply::<()>::err(crate::error::Error::invalid("no"))).unwrap();
    assert_eq!(decode::<StatusRequest>(&frame).unwrap_err().message, "no");
}

/// A talk's progress frames reach the caller typed, then the final reply.
#[test]
fn progress_frames_arrive_typed_before_the_reply() {
    use std::os::unix::net::UnixStream;
    let (mut a, mut b) = UnixStream::pair().unwrap();
    let holder = std::thread::spawn(move || {
        let req = frame::read_frame(&mut b).unwrap().unwrap();
        let env: Envelope = serde_json::from_slice(&req).unwrap();
        assert!(matches!(env.req, Request::Talk(_)));
        for i in 0..3u64 {
            let p = ProgressBody {
                output: format!("line {i}\n"),
                bytes: 7 * (i + 1),
                ..Default::default()
            };
            frame::write_frame(&mut b, &serde_json::to_vec(&Reply::progress(&p)).unwrap()).unwrap();
        }
        let done = TalkBody {
            output_raw: "ok".into(),
            ..Default::default()
        };
        frame::write_frame(&mut b, &serde_json::to_vec(&Reply::ok(done)).unwrap()).unwrap();
    });
    let mut seen = Vec::new();
    let req = TalkRequest {
        command: "echo".into(),
        sentinel: None,
        timeout_ms: 1000,
        progress_ms: Some(50),
        raw: true,
        force: false,
        stdin: None,
        by: None,
        talk_id: None,
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let body = client::call_until(&mut a, req, deadline, &mut |p| seen.push(p)).unwrap();
    holder.join().unwrap();
    assert_eq!(body.output_raw, "ok");
    let bytes: Vec<u64> = seen.iter().map(|p| p.bytes).collect();
    assert_eq!(bytes, [7, 14, 21]);
    assert_eq!(seen[2].output, "line 2\n");
}

/// A `status` call over `a` watching `woken` (calling `on_wake` when it is readable) until
/// `within` from now.
fn status_woken(
    a: &mut std::os::unix::net::UnixStream,
    woken: &std::os::unix::net::UnixStream,
    on_wake: &dyn Fn(),
    within: std::time::Duration,
) -> crate::error::Result<crate::proto::StatusBody> {
    let wake = client::Wake {
        fd: std::os::fd::AsFd::as_fd(woken),
        on_wake,
    };
    let deadline = std::time::Instant::now() + within;
    client::call_woken(
        a,
        crate::proto::StatusRequest,
        deadline,
        &mut |_| {},
        Some(wake),
    )
}

#[test]
fn a_woken_call_does_the_wakes_work_on_its_thread_and_still_gets_its_reply() {
    use std::io::{Read, Write};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let (mut a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
    let (woken, mut wake) = std::os::unix::net::UnixStream::pair().unwrap();
    woken.set_nonblocking(true).unwrap();
    let writer = wake.try_clone().unwrap(); // open to the end, as a signal handler's is
    // The holder answers only once the caller has been woken twice (a byte each time, each
    // written after the last was heard): the call goes on waiting through its wake-ups.
    let heard = std::sync::Arc::new(AtomicUsize::new(0));
    let h = heard.clone();
    let holder = std::thread::spawn(move || {
        let _ = frame::read_frame(&mut b).unwrap();
        for n in 1..=2 {
            wake.write_all(b"s").unwrap();
            while h.load(Ordering::SeqCst) < n {
                std::thread::yield_now();
            }
        }
        let body = crate::proto::StatusBody {
            alive: true,
            ..Default::default()
        };
        frame::write_frame(&mut b, &serde_json::to_vec(&Reply::ok(body)).unwrap()).unwrap();
    });
    let on_wake = || {
        let mut buf = [0u8; 8];
        while matches!((&woken).read(&mut buf), Ok(n) if n > 0) {}
        heard.fetch_add(1, Ordering::SeqCst);
    };
    let body = status_woken(&mut a, &woken, &on_wake, std::time::Duration::from_secs(10)).unwrap();
    holder.join().unwrap();
    drop(writer);
    assert!(body.alive);
    assert_eq!(heard.load(Ordering::SeqCst), 2);
}

#[test]
fn a_wake_whose_writer_is_gone_is_let_go_not_spun_on() {
    let (mut a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
    let (woken, wake) = std::os::unix::net::UnixStream::pair().unwrap();
    drop(wake);
    let holder = std::thread::spawn(move || {
        let _ = frame::read_frame(&mut b).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(50));
        let body = crate::proto::StatusBody::default();
        frame::write_frame(&mut b, &serde_json::to_vec(&Reply::ok(body)).unwrap()).unwrap();
    });
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let on_wake = || {
        calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    };
    status_woken(&mut a, &woken, &on_wake, std::time::Duration::from_secs(10)).unwrap();
    holder.join().unwrap();
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 0);
}

#[test]
fn a_woken_call_still_ends_at_its_deadline() {
    let (mut a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
    let (woken, _wake) = std::os::unix::net::UnixStream::pair().unwrap();
    let on_wake = || panic!("nothing was written");
    let e = status_woken(
        &mut a,
        &woken,
        &on_wake,
        std::time::Duration::from_millis(50),
    )
    .unwrap_err();
    assert_eq!(e.code, crate::error::ErrorCode::PtyTimeout, "{e:?}");
}

/// The ops after which the client still writes on the connection (attach's keys) or whose
/// hang-up the holder watches (`wait_for`, `follow`): their connection stays open both ways.
const KEEPS_WRITING: &[&str] = &["attach", "follow", "wait_for"];

/// Call `req` over a socket pair against a holder that reads the request and then, for an op
/// that half-closes, the end of the connection (it answers only once that came), and for one
/// that keeps writing, answers at once. Returns whether the holder saw the end before it
/// answered, and whether the caller could still write after its call.
fn exchange<C: Call + Send + 'static>(req: C, half_close: bool) -> (bool, bool) {
    use std::io::Write;
    let (mut a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
    let holder = std::thread::spawn(move || {
        b.set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        frame::read_frame(&mut b).unwrap().expect("a request");
        let saw_end = half_close && matches!(frame::read_frame(&mut b), Ok(None));
        let e = crate::error::Error::new(ErrorCode::PtyBusy, "busy");
        frame::write_frame(&mut b, &serde_json::to_vec(&Reply::<()>::err(e)).unwrap()).unwrap();
        let mut after = [0u8; 5];
        let still_written = !half_close && std::io::Read::read_exact(&mut b, &mut after).is_ok();
        (saw_end, still_written && &after == b"after")
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let got = client::call_woken(&mut a, req, deadline, &mut |_| {}, None).map(drop);
    assert!(
        matches!(&got, Err(e) if e.code == ErrorCode::PtyBusy),
        "{got:?}"
    );
    if !half_close {
        a.write_all(b"after").unwrap();
    }
    holder.join().unwrap()
}

/// [`exchange`] for the typed call inside `req`.
fn exchange_request(req: Request) -> (bool, bool) {
    let half_close = !KEEPS_WRITING.contains(&op_of(&req).as_str());
    match req {
        Request::Status => exchange(StatusRequest, half_close),
        Request::Spec => exchange(SpecRequest, half_close),
        Request::Write(r) => exchange(r, half_close),
        Request::Read(r) => exchange(r, half_close),
        Request::Talk(r) => exchange(r, half_close),
        Request::Resize(r) => exchange(r, half_close),
        Request::Kill(r) => exchange(r, half_close),
        Request::Cancel(r) => exchange(r, half_close),
        Request::TermRead(r) => exchange(r, half_close),
        Request::WaitFor(r) => exchange(r, half_close),
        Request::Attach(r) => exchange(r, half_close),
        Request::Follow(r) => exchange(r, half_close),
        Request::SetLabel(r) => exchange(r, half_close),
        Request::Screen(r) => exchange(r, half_close),
        Request::RecordSync(r) => exchange(r, half_close),
        Request::Unknown => unreachable!("never sent"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// A one-shot call closes its side for writing once the request is out (so the holder,
    /// having replied, is not woken again by the close); a call after which the client still
    /// writes, or whose hang-up the holder watches, leaves the connection open both ways.
    #[test]
    fn a_one_shot_call_half_closes_and_a_streaming_or_watched_one_does_not(req in any_request()) {
        let op = op_of(&req);
        let (saw_end, still_written) = exchange_request(req);
        if KEEPS_WRITING.contains(&op.as_str()) {
            prop_assert!(still_written && !saw_end, "{op}: the connection was closed");
        } else {
            prop_assert!(saw_end && !still_written, "{op}: the holder did not see the end");
        }
    }
}
