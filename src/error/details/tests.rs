use super::*;
use crate::error::{Error, ErrorCode};
use proptest::prelude::*;
use serde_json::json;

/// What the generated details are made of.
#[derive(Debug, Clone)]
struct Stuff {
    a: String,
    b: String,
    n: u64,
    flag: bool,
    /// Which optional fields are given.
    some: [bool; 6],
}

fn stuff() -> impl Strategy<Value = Stuff> {
    (
        "\\PC{0,12}",
        "[a-z_]{0,8}",
        0u64..100_000,
        any::<bool>(),
        any::<[bool; 6]>(),
    )
        .prop_map(|(a, b, n, flag, some)| Stuff {
            a,
            b,
            n,
            flag,
            some,
        })
}

impl Stuff {
    /// `a` when optional field `i` is given.
    fn s(&self, i: usize) -> Option<String> {
        self.some[i].then(|| self.a.clone())
    }

    /// `n` when optional field `i` is given.
    fn n(&self, i: usize) -> Option<u64> {
        self.some[i].then_some(self.n)
    }
}

/// One of every shape (and of every optional field, given or not), from `x`.
fn every_shape(x: &Stuff) -> Vec<Details> {
    let talk = TalkStop {
        session_id: x.b.clone(),
        command: x.a.clone(),
        partial_output: x.a.clone(),
        timeout_ms: x.n,
        duration_ms: x.n / 2,
        sentinel: x.b.clone(),
        completion: "osc133".into(),
        bridge_error: x.some[0].then(|| x.s(1)),
        exit_code: x.n(2).map(|c| c as i64 - 7),
        dropped_chars: x.n(3),
        signal: x.s(4),
        at_prompt: x.some[5].then_some(x.flag),
    };
    let unknown = Unknown {
        session_id: x.s(0),
        action: x.s(1),
        unknown: x.some[2].then(|| vec![x.a.clone(), x.b.clone()]),
        query: x.some[3].then(|| Query {
            agent_id: x.s(4),
            owner_session_id: None,
            label: Some(x.b.clone()),
            claude_code_session_id: x.s(5),
        }),
        usage: x.s(4),
        did_you_mean: vec![x.b.clone()],
    };
    let matches = Matches {
        matches: vec![
            Match::Labelled(LabelledMatch {
                session_id: x.b.clone(),
                label: x.s(0),
            }),
            Match::Id(IdMatch {
                session_id: x.a.clone(),
            }),
            Match::Listed(Box::new(listed(x))),
        ],
        query: x.some[1].then(Query::default),
    };
    let shapes: Vec<Details> = [
        vec![talk.clone().into()],
        session_shapes(x),
        policy_shapes(x),
        vec![unknown.into(), matches.into()],
        routing_shapes(x),
        launch_shapes(x),
    ]
    .concat();
    let resolved: Vec<Details> = [None, Some(Box::new(talk.into()))]
        .into_iter()
        .map(|inner| {
            Resolved {
                resolved_session_id: x.b.clone(),
                inner,
            }
            .into()
        })
        .collect();
    shapes.into_iter().chain(resolved).collect()
}

/// A matched session's row, every optional field given or not.
fn listed(x: &Stuff) -> ListedMatch {
    ListedMatch {
        session_id: x.b.clone(),
        label: x.s(0),
        source: "local".into(),
        cli_type: x.s(1),
        owner_agent_id: x.s(2),
        owner_session_id: x.s(3),
        owner_role: x.some[4].then(|| "worker".into()),
        claude_code_session_id: x.s(5),
        shell: x.s(4),
        cwd: x.s(3),
        pid: x.n(2).map(|p| p as u32),
        created_at: x.s(1),
        state: "running".into(),
        terminal_state: x.some[0].then(|| "prompt".into()),
    }
}

/// The shapes of a session waited on, stopped or ended.
fn session_shapes(x: &Stuff) -> Vec<Details> {
    vec![
        WaitStop {
            session_id: x.b.clone(),
            output: x.a.clone(),
            truncated: x.flag,
            start_offset: x.n,
            next_offset: x.n + 1,
            elapsed_ms: 3,
            terminal_state: "prompt".into(),
            exit_code: x.n(0).map(|c| c as i64),
        }
        .into(),
        Waiting {
            session_id: x.b.clone(),
            terminal_state: "waiting_input".into(),
            waiting_for_input: true,
            prompt: x.a.clone(),
        }
        .into(),
        Foreground {
            session_id: x.b.clone(),
            terminal_state: x.s(0),
            foreground_pid: x.n(1).map(|p| p as u32),
            foreground_command: x.s(2),
        }
        .into(),
        InputLine {
            session_id: x.b.clone(),
            line: x.a.clone(),
            terminal_state: x.s(0),
        }
        .into(),
        Exited {
            session_id: x.b.clone(),
            state: x.s(0),
            exit_code: x.n(1).map(|c| c as i64),
            exit_signal: x.s(2),
            unreachable: x.some[3].then_some(x.flag),
        }
        .into(),
        Dead {
            session_id: x.b.clone(),
            state: "dead".into(),
            unreachable: true,
        }
        .into(),
    ]
}

/// The shapes of a refusal: a blocked command, blocked input.
fn policy_shapes(x: &Stuff) -> Vec<Details> {
    vec![
        Blocked {
            pattern: x.b.clone(),
            category: "destructive".into(),
            description: x.a.clone(),
            field: x.s(0),
            key: x.s(1),
            unclosed: x.s(2),
            line: x.s(3),
            seen: x.s(4),
        }
        .into(),
        InputBlocked {
            blocked: vec![x.a.clone()],
            warning: x.b.clone(),
            ctrl_c_debounced: x.n(0),
            forwarded_bytes: x.n(1),
            held_bytes: x.n(2),
        }
        .into(),
    ]
}

/// The shapes of a bridged, registered, or addressed session.
fn routing_shapes(x: &Stuff) -> Vec<Details> {
    vec![
        Bridge {
            session_id: x.b.clone(),
            desktop_url: x.s(0),
            url: x.s(1),
            status: x.n(2).map(|c| (c % 600) as u16),
            body: x.s(3),
        }
        .into(),
        Source {
            session_id: x.b.clone(),
            source: x.a.clone(),
            untrusted: x.some[0].then_some(true),
        }
        .into(),
        BridgeAnswer {
            session_id: x.b.clone(),
            answer: Foreign::of(&json!({"ok": false, "error": x.a, "n": x.n, "more": [x.flag]})),
        }
        .into(),
        Marker {
            session_id: x.b.clone(),
            marker_id: x.n,
        }
        .into(),
        ProgramSession {
            session_id: x.b.clone(),
            program: x.a.clone(),
        }
        .into(),
        Pty {
            session_id: x.b.clone(),
            pty: x.n,
        }
        .into(),
        Leader {
            session_id: x.b.clone(),
            owner_role: "leader".into(),
            owner_agent_id: x.s(0),
        }
        .into(),
    ]
}

/// The shapes of a start, a sandbox, a parameter, the audit, a signal.
fn launch_shapes(x: &Stuff) -> Vec<Details> {
    vec![
        StartFailed {
            reason: x.s(0),
            exit_code: x.n as i64,
            output: x.a.clone(),
        }
        .into(),
        Sandbox {
            reason: x.b.clone(),
            landlock_abi: x.n(0).map(|a| a as u32),
        }
        .into(),
        Floor {
            field: x.b.clone(),
            value: x.a.clone(),
            floor: "required".into(),
            origin: "KPTY_SANDBOX".into(),
        }
        .into(),
        Keys {
            key: x.a.clone(),
            keys: vec![x.a.clone(), x.b.clone()],
        }
        .into(),
        Parameter {
            parameter: x.b.clone(),
            expected: x.a.clone(),
        }
        .into(),
        Audit {
            action: x.b.clone(),
            journal: x.a.clone(),
        }
        .into(),
        Field {
            env: x.s(0),
            field: x.s(1),
        }
        .into(),
        Session::of(x.b.clone()).into(),
        Interrupted {
            signal: x.a.clone(),
            at_prompt: x.flag,
        }
        .into(),
    ]
}

/// Keys the shapes use, to make up objects close to (and beside) them.
const KEYS: &[&str] = &[
    "session_id",
    "partial_output",
    "exit_code",
    "did_you_mean",
    "matches",
    "pattern",
    "category",
    "description",
    "line",
    "state",
    "unreachable",
    "resolved_session_id",
    "field",
    "env",
    "query",
    "answer",
];

fn object() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        proptest::sample::select(KEYS).prop_map(String::from),
        "[a-z_]{1,10}",
    ];
    let value = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "\\PC{0,6}".prop_map(Value::String),
        Just(json!(["a", "b"])),
        Just(json!([{"session_id": "pty_1", "label": null}])),
        Just(json!({"agent_id": null, "owner_session_id": null, "label": "x"})),
    ];
    proptest::collection::btree_map(key, value, 0..6)
        .prop_map(|m| Value::Object(m.into_iter().collect()))
}

proptest! {
    #[test]
    fn every_shape_comes_back_typed_and_unchanged_over_the_wire(x in stuff()) {
        for d in every_shape(&x) {
            let v = d.to_value();
            prop_assert!(v.is_object(), "{v}");
            let back = decode(v.clone());
            prop_assert!(!matches!(back, Details::Other(_)), "{v} read as Other");
            prop_assert_eq!(back.to_value(), v.clone());
            // Inside an error, as a holder sends it and the client reads it.
            let e = Error::new(ErrorCode::PtyTimeout, "m").with_details(d.clone());
            let wire = serde_json::to_vec(&e).unwrap();
            let read: Error = serde_json::from_slice(&wire).unwrap();
            prop_assert_eq!(read.details.map(|d| d.to_value()), Some(v.clone()));
            prop_assert_eq!(e.to_json()["details"].clone(), v);
        }
    }

    #[test]
    fn every_shape_decodes_to_itself(x in stuff()) {
        for d in every_shape(&x) {
            let text = serde_json::to_string(&d).unwrap();
            let back: Details = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(&back, &decode(d.to_value()));
            // The JSON is the contract: a shape that writes the same object as an earlier
            // one (a `Bridge` with no optional field is a `Session`) comes back as that one.
            if back != d {
                prop_assert!(!matches!(back, Details::Other(_)), "{}", text);
                prop_assert_eq!(serde_json::to_string(&back).unwrap(), text);
            }
        }
    }

    #[test]
    fn an_unknown_shape_is_other_and_written_back_byte_for_byte(
        v in object(),
        newer in "[a-z]{1,8}",
        value in prop_oneof![
            Just(json!(null)),
            Just(json!({"nested": [1, 2.5, "x"], "k": {"deep": true}})),
            "\\PC{0,6}".prop_map(Value::String),
        ],
    ) {
        // A field no shape has (and no `resolved_session_id`, which wraps any details).
        let Value::Object(mut m) = v else { unreachable!() };
        m.remove(RESOLVED);
        m.insert(format!("zz_{newer}"), value);
        let text = serde_json::to_string(&m).unwrap();
        let d: Details = serde_json::from_str(&text).unwrap();
        let Details::Other(f) = &d else {
            return Err(TestCaseError::fail(format!("{text} read as {d:?}")));
        };
        prop_assert_eq!(f.get(), text.as_str());
        prop_assert_eq!(serde_json::to_string(&d).unwrap(), text.clone());
        // Its readers find what the object carries, as they would in a typed shape.
        prop_assert_eq!(d.session_id(), m.get("session_id").and_then(Value::as_str));
        prop_assert_eq!(d.partial_output(), m.get("partial_output").and_then(Value::as_str));
        prop_assert_eq!(d.exit_code(), m.get("exit_code").and_then(Value::as_i64));
        // Inside an error, from the wire.
        let wire = format!(r#"{{"code":"PTY_BUSY","message":"m","details":{text}}}"#);
        let e: Error = serde_json::from_str(&wire).unwrap();
        prop_assert_eq!(serde_json::to_string(&e.details).unwrap(), text);
    }

    #[test]
    fn any_details_a_newer_holder_or_a_bridge_sends_survive_whole(v in object()) {
        let d = decode(v.clone());
        prop_assert_eq!(d.to_value(), v.clone());
        let wire = json!({"code": "PTY_BUSY", "message": "m", "details": v});
        let e: Error = serde_json::from_value(wire).unwrap();
        prop_assert_eq!(e.details.map(|d| d.to_value()), Some(v));
    }

    #[test]
    fn redacting_details_is_redacting_their_json(
        x in stuff(),
        (secret, value) in crate::safety::redact::tests::secret(),
    ) {
        let x = Stuff { a: format!("{} {secret}\n", x.a), ..x };
        for mut d in every_shape(&x) {
            let mut v = d.to_value();
            crate::safety::redact_value(&mut v);
            d.redact();
            prop_assert_eq!(d.to_value(), v);
            if let Some(p) = d.partial_output() {
                prop_assert!(!p.contains(&value), "{}", p);
            }
        }
    }
}

#[test]
fn readers_find_what_every_shape_carries() {
    let x = Stuff {
        a: "out".into(),
        b: "pty_abc".into(),
        n: 3,
        flag: true,
        some: [true; 6],
    };
    for d in every_shape(&x) {
        let v = d.to_value();
        assert_eq!(
            d.session_id(),
            v.get("session_id").and_then(Value::as_str),
            "{v}"
        );
        assert_eq!(
            d.partial_output(),
            v.get("partial_output").and_then(Value::as_str)
        );
        assert_eq!(d.exit_code(), v.get("exit_code").and_then(Value::as_i64));
    }
}

#[test]
fn every_refusal_reads_as_blocked() {
    use crate::safety::{Opacity, check_complete, check_typed};
    let refusals = [
        check_typed("rm -rf /\r", Opacity::Strict),
        check_typed("reboo\t\r", Opacity::OnSubmit),
        check_complete("echo 'open"),
        check_typed(&"\x1b[A".repeat(5000), Opacity::OnSubmit),
    ];
    let mut kinds = std::collections::HashSet::new();
    for r in refusals.into_iter().filter_map(Result::err) {
        let d = Details::from(&r);
        assert!(matches!(d, Details::Blocked(_)), "{d:?}");
        assert_eq!(d.to_value(), r.details());
        kinds.insert(std::mem::discriminant(&r));
    }
    assert!(kinds.len() >= 3, "{kinds:?}");
}

#[test]
fn a_list_row_of_an_older_or_newer_peer_is_read_as_a_match_and_kept_whole() {
    // The row as this build's `list --json` shows it (builds before it sent it whole).
    let row = json!({
        "session_id": "pty_a1", "source": "local", "cli_type": null, "pid": 41,
        "owner_agent_id": "twin", "owner_session_id": null, "owner_role": null,
        "label": "w", "created_at": "2026-01-01T00:00:00Z", "last_heartbeat": null,
        "shell": "/bin/bash", "cwd": "/tmp", "socket": "/s/pty_a1.sock", "holder_pid": 40,
        "sandbox": null, "state": "running", "cols": 80, "rows": 24,
        "integration": "osc133", "at_prompt": true, "busy": false,
        "terminal_state": "prompt", "output_offset": 7, "attached": 0,
    });
    let m: Match = serde_json::from_value(row.clone()).unwrap();
    let Match::Listed(l) = &m else {
        panic!("{m:?}")
    };
    assert_eq!(
        (l.session_id.as_str(), l.pid, l.state.as_str()),
        ("pty_a1", Some(41), "running")
    );
    assert_eq!(l.owner_agent_id.as_deref(), Some("twin"));
    assert_eq!(l.terminal_state.as_deref(), Some("prompt"));
    // Details with such rows are not this build's: kept as they came.
    let v = json!({"matches": [row.clone(), row], "query": Query::default()});
    let d = decode(v.clone());
    assert!(matches!(d, Details::Other(_)), "{d:?}");
    assert_eq!(d.to_value(), v);
    // This build's rows come back typed.
    let ours = json!({"matches": [serde_json::to_value(l).unwrap()]});
    assert!(matches!(decode(ours), Details::Matches(_)));
}

#[test]
fn a_bridge_answer_is_quoted_as_it_came() {
    let answer = json!({"ok": false, "error": "nope", "extra": {"n": [1, 2]}});
    let d: Details = BridgeAnswer {
        session_id: "pty_b".into(),
        answer: Foreign::of(&answer),
    }
    .into();
    let v = d.to_value();
    assert_eq!(v, json!({"session_id": "pty_b", "answer": answer}));
    assert_eq!(decode(v), d);
}
