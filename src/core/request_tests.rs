//! Properties of the one validating function ([`super::request::parse`]) over generated
//! parameters: it never panics, and what it accepts keeps the promises each action relies on
//! (the session named as the call named it, caps and bounds applied, the default session only
//! when nothing names another).

use super::request::parse;
use super::{Channel, Ctx};
use crate::api::request::{Request, Target};
use crate::api::{self, Action, Params};
use proptest::prelude::*;

fn text() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(proptest::sample::select(vec![
        "",
        "  ",
        "x",
        "work",
        "echo hi",
        "\\xZZ",
        "\\x03",
        "rm -rf /",
        "pty_0000dead",
        "pty_0000dead:2",
        "a:b:c",
    ]))
    .prop_map(|o| o.map(str::to_string))
}

fn number() -> impl Strategy<Value = Option<u64>> {
    proptest::option::of(proptest::sample::select(vec![
        0u64,
        1,
        100,
        api::MAX_TIMEOUT_MS,
        api::MAX_TIMEOUT_MS + 1,
        u64::MAX,
    ]))
}

prop_compose! {
    fn params()(
        (session_id, command, data, label, agent_id) in (text(), text(), text(), text(), text()),
        mode in proptest::option::of(proptest::sample::select(vec!["tail", "viewport", "delta", "all"])),
        (timeout_ms, since, quiet_ms) in (number(), number(), number()),
        (max_bytes, max_lines, max_chars) in (number(), number(), number()),
        (cols, rows) in (proptest::option::of(0u16..1100), proptest::option::of(0u16..1100)),
        keys in proptest::option::of(proptest::collection::vec(
            proptest::sample::select(vec!["C-c", "Up", "Enter", "Nope-key", "a"]), 0..3)),
        (force, prompt, screen) in (any::<Option<bool>>(), any::<Option<bool>>(), any::<Option<bool>>()),
    ) -> Params {
        let size = |n: Option<u64>| n.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        Params {
            session_id, command, data, label, agent_id, timeout_ms, since, quiet_ms, cols, rows,
            force, prompt, screen,
            mode: mode.map(String::from),
            pattern: Some("hi".into()).filter(|_| quiet_ms.is_none()),
            max_bytes: size(max_bytes),
            max_lines: size(max_lines),
            max_chars: size(max_chars),
            keys: keys.map(|k| k.into_iter().map(String::from).collect()),
            ..Default::default()
        }
    }
}

fn ctx() -> (tempfile::TempDir, Ctx) {
    let dir = tempfile::tempdir().expect("temp dir");
    let state = crate::store::StateDir::at(dir.path()).expect("state dir");
    let mut ctx = Ctx::new(state).expect("ctx").on(Channel::Mcp);
    ctx.env_identity = false;
    (dir, ctx)
}

/// The target a request carries, for the actions that name a session by it.
fn target_of(r: &Request) -> Option<&Target> {
    match r {
        Request::SendLine(a) => Some(&a.target),
        Request::Read(a) => Some(&a.target),
        Request::TermRead(a) => Some(&a.target),
        Request::Talk(a) => Some(&a.target),
        Request::Resize(a) => Some(&a.target),
        Request::Kill(t) => Some(t),
        Request::SendKeys(a) => Some(&a.target),
        Request::WaitFor(a) => Some(&a.target),
        Request::Shell(a) => Some(&a.target),
        _ => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn what_is_accepted_keeps_each_actions_promises(p in params(), i in 0..Action::ALL.len()) {
        let action = Action::ALL[i];
        let (_dir, ctx) = ctx();
        let Ok(r) = parse(&ctx, action, &p) else { return Ok(()) };
        if let Some(t) = target_of(&r) {
            prop_assert_eq!(t, &Target::of(&p));
            match t {
                Target::Named(n) => prop_assert_eq!(Some(n), p.session_id.as_ref()),
                Target::Default => prop_assert!(
                    p.session_id.as_deref().is_none_or(|s| s.trim().is_empty())
                        && p.agent_id.as_deref().is_none_or(|s| s.trim().is_empty())
                        && p.label.as_deref().is_none_or(|s| s.trim().is_empty())
                ),
                Target::Owner(_) => prop_assert!(p.session_id.as_deref().is_none_or(|s| s.trim().is_empty())),
            }
        }
        match &r {
            Request::Read(a) => {
                prop_assert!((1..=api::MAX_READ_BYTES).contains(&a.max_bytes));
                prop_assert!(a.timeout_ms <= api::MAX_TIMEOUT_MS);
            }
            Request::Talk(a) => {
                prop_assert!((1..=api::MAX_TIMEOUT_MS).contains(&a.timeout_ms));
                prop_assert!(!a.command.trim().is_empty() && a.max_chars != Some(0));
            }
            Request::TermRead(a) => {
                prop_assert!((1..=super::queries::MAX_LINES).contains(&a.request.max_lines));
                prop_assert!((1..=super::queries::MAX_CHARS).contains(&a.request.max_chars));
            }
            Request::WaitFor(a) => {
                prop_assert!((1..=api::MAX_TIMEOUT_MS).contains(&a.request.timeout_ms));
                prop_assert!((1..=api::MAX_READ_BYTES).contains(&a.request.max_bytes));
            }
            Request::Resize(a) => {
                prop_assert!((2..=api::MAX_COLS).contains(&a.cols) && (1..=api::MAX_ROWS).contains(&a.rows));
            }
            Request::SendLine(a) => prop_assert!(!a.line.contains(['\r', '\n'])),
            Request::SendKeys(a) => prop_assert!(!a.keys.is_empty()),
            Request::Kill(t) => prop_assert!(*t != Target::Default),
            _ => {}
        }
    }
}
