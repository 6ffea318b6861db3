//! The registry and bridge rows of seeds 000/004 in `kpty serve`: every write through the
//! bridge API (`/pty/write`, `/pty/talk`) in the audit trail, `kpty log` and the gateway emit
//! whatever its verdict; `DELETE /v1/pty/reset` clearing local sessions and their files too;
//! registered sessions of an unreachable bridge pruned at start; `claude_code_session_id`
//! through every front end; and the seeds' environment giving `create` and `register` their
//! owner identity.

use crate::bridge::Serve;
use crate::support::{Env, read_request, run, s, secret_lines, wait_for};
use serde_json::{Value, json};
use std::io::Write;
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

/// A gateway stand-in: every body POSTed to it, in order.
struct Gateway {
    url: String,
    bodies: mpsc::Receiver<String>,
}

impl Gateway {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the gateway");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let (tx, bodies) = mpsc::channel();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { return };
                let Some(body) = read_request(&mut conn) else {
                    continue;
                };
                let _ = conn.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}");
                if tx.send(body).is_err() {
                    return;
                }
            }
        });
        Gateway { url, bodies }
    }

    /// The events received until one matches `want` (within a deadline).
    fn until(&self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let body = self
                .bodies
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("the gateway never got {what}"));
            let v: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            if want(&v) {
                return v;
            }
        }
    }
}

/// The trail's events (`kpty --json log`) for `session` and `action`.
fn trail(env: &Env, session: &str, action: &str) -> Vec<Value> {
    env.ok(&["--json", "log", "-s", session, "--action", action])
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// What the bridge is asked in one case of the matrix, and the verdict it must record.
struct Case {
    route: &'static str,
    body: Value,
    /// `None`: accepted; else the error code of the refusal.
    refused: Option<&'static str>,
    /// The secret the command carries (it must never be in the trail or the emit).
    secret: String,
    marker: String,
}

/// Every bridge write route × {accepted, refused by the policy, blocked by the input filter},
/// each carrying a secret of another kind.
fn cases(id: &str) -> Vec<Case> {
    let secrets = secret_lines();
    let mut out = Vec::new();
    let mut n = 0;
    for route in ["/pty/write", "/pty/talk"] {
        for verdict in [
            None,
            Some("DANGEROUS_COMMAND_BLOCKED"),
            Some("INPUT_BLOCKED"),
        ] {
            let (line, secret) = &secrets[n % secrets.len()];
            n += 1;
            let marker = format!("mark{n}");
            let command = match verdict {
                None => format!("echo {marker} '{line}'"),
                Some("DANGEROUS_COMMAND_BLOCKED") => format!("rm -rf / ; echo {marker} '{line}'"),
                // The input filter keeps `exit` + Enter from the program.
                _ => "exit".to_string(),
            };
            let body = if route == "/pty/write" {
                json!({"session_id": id, "data": format!("{command}\r"), "agent_id": format!("agent-{marker}")})
            } else {
                json!({"session_id": id, "command": command, "timeout_ms": 10000, "agent_id": format!("agent-{marker}")})
            };
            let secret = if verdict == Some("INPUT_BLOCKED") {
                String::new()
            } else {
                secret.clone()
            };
            out.push(Case {
                route,
                body,
                refused: verdict,
                secret,
                marker,
            });
        }
    }
    out
}

#[test]
fn every_bridge_write_is_audited_with_its_caller_and_verdict_and_redacted() {
    let env = Env::new();
    let id = env.create(&["--input-filter"]);
    let gateway = Gateway::start();
    let serve = Serve::start_args(&env, &[], &[("KURORYUU_GATEWAY_URL", &gateway.url)]);
    let k = Some(serve.secret.as_str());
    for case in cases(&id) {
        let action = case.route.trim_start_matches("/pty/");
        let before = trail(&env, &id, action).len();
        let (status, v) = serve.http("POST", case.route, k, Some(case.body.clone()));
        match case.refused {
            None => assert_eq!(status, 200, "{}: {v}", case.route),
            Some(code) => assert_eq!(
                (status, s(&v, "error_code")),
                (403, code),
                "{} {}: {v}",
                case.route,
                case.body
            ),
        }
        let agent = format!("agent-{}", case.marker);
        let events = trail(&env, &id, action);
        assert_eq!(
            events.len(),
            before + 1,
            "one audit line for {} {}: {events:?}",
            case.route,
            case.body
        );
        let e = events.last().expect("the event");
        assert_eq!(e["agent_id"], json!(agent), "{e}");
        assert_eq!(e["session_id"], json!(id), "{e}");
        assert_eq!(e["success"], json!(case.refused.is_none()), "{e}");
        assert_eq!(
            e["error_code"].as_str(),
            case.refused,
            "{} {}: {e}",
            case.route,
            case.body
        );
        assert_eq!(
            e["blocked"],
            json!(case.refused == Some("DANGEROUS_COMMAND_BLOCKED")),
            "{e}"
        );
        let command = e["command"].as_str().unwrap_or_default();
        if case.refused != Some("INPUT_BLOCKED") {
            assert!(command.contains(&case.marker), "{e}");
        }
        let emitted = gateway.until(&format!("the {} of {agent}", case.route), |v| {
            v["agent_id"] == json!(agent)
        });
        assert_eq!(
            (&emitted["action"], &emitted["success"]),
            (&e["action"], &e["success"]),
            "{emitted}"
        );
        if !case.secret.is_empty() {
            for text in [e.to_string(), emitted.to_string()] {
                assert!(
                    !text.contains(&case.secret),
                    "{} leaked in {text}",
                    case.secret
                );
            }
        }
    }
    // A secret-looking caller id is refused, not stored in clear.
    let (status, v) = serve.http(
        "POST",
        "/pty/write",
        k,
        Some(json!({"session_id": id, "data": "x", "agent_id": "ghp_R4nd0mGitHubT0kenAbCdEfGhIjKlMnOpQr"})),
    );
    assert_eq!(
        (status, s(&v, "error_code")),
        (400, "INVALID_PARAMS"),
        "{v}"
    );
}

/// The session folders under the state directory.
fn folders(env: &Env) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(env.state().join("sessions")) else {
        return vec![];
    };
    let mut v: Vec<String> = rd
        .flatten()
        .map(|d| d.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn reset_ends_local_sessions_forgets_registered_ones_and_removes_their_files() {
    let env = Env::new();
    let gone = env.create(&["--label", "gone-before"]);
    env.ok(&["kill", "-s", &gone]);
    let local: Vec<String> = (0..3)
        .map(|i| env.create(&["--label", &format!("local{i}")]))
        .collect();
    let holders: Vec<u64> = local
        .iter()
        .map(|id| env.entry(id)["holder_pid"].as_u64().expect("holder pid"))
        .collect();
    let serve = Serve::start(&env);
    let k = Some(serve.secret.as_str());
    for x in ["aaaa0001", "aaaa0002"] {
        let r = json!({"session_id": x, "desktop_url": "http://127.0.0.1:9"});
        assert_eq!(serve.http("POST", "/v1/pty/register", k, Some(r)).0, 200);
    }
    // Without the secret: refused, nothing touched.
    let (status, _) = serve.http("DELETE", "/v1/pty/reset", None, None);
    assert_eq!(status, 401);
    assert_eq!(
        env.ok_json(&["list"])["sessions"].as_array().map(Vec::len),
        Some(5)
    );

    let (status, v) = serve.http("DELETE", "/v1/pty/reset?agent_id=the-operator", k, None);
    assert_eq!(status, 200, "{v}");
    let mut all: Vec<String> = local.clone();
    all.extend(["aaaa0001".to_string(), "aaaa0002".to_string()]);
    all.sort();
    assert_eq!(v["removed"], json!(all), "{v}");
    assert_eq!(v["count"], 5, "{v}");
    assert_eq!(v["failed"], json!([]), "{v}");
    assert_eq!(env.ok_json(&["list"])["sessions"], json!([]));
    for pid in holders {
        wait_for(10_000, "the holder ended by reset to exit", || {
            crate::support::pid_gone(pid)
        });
    }
    assert_eq!(folders(&env), Vec::<String>::new(), "{v}");
    // Audited, with its caller.
    let log: Vec<Value> = env
        .ok(&["--json", "log", "--action", "reset"])
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(
        (&log[0]["agent_id"], &log[0]["success"]),
        (&json!("the-operator"), &json!(true)),
        "{log:?}"
    );
    // The state directory works on.
    let id = env.create(&[]);
    assert_eq!(env.out(&id, "echo after-reset"), "after-reset");
}

#[test]
fn reset_leaves_what_it_did_not_make_and_follows_no_link() {
    let env = Env::new();
    let id = env.create(&[]);
    let outside = env.home().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("keep"), "mine").unwrap();
    // A folder named like a session that is a link, and one holding a file kpty never makes.
    std::os::unix::fs::symlink(&outside, env.state().join("sessions/pty_0badf00d")).unwrap();
    let odd = env.state().join("sessions/pty_0000abcd");
    std::fs::create_dir(&odd).unwrap();
    std::fs::write(odd.join("notes.txt"), "mine").unwrap();
    let serve = Serve::start(&env);
    let (status, v) = serve.http("DELETE", "/v1/pty/reset", Some(&serve.secret), None);
    assert_eq!((status, &v["removed"]), (200, &json!([id])), "{v}");
    assert_eq!(
        std::fs::read_to_string(outside.join("keep")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(odd.join("notes.txt")).unwrap(),
        "mine"
    );
    assert_eq!(folders(&env), vec!["pty_0000abcd", "pty_0badf00d"]);
}

#[test]
fn serve_prunes_the_sessions_of_unreachable_bridges_at_start() {
    let env = Env::new();
    // One bridge that answers (another kpty serve), one port nobody listens on, one that
    // accepts and never answers (it must not hold the start up).
    let other = Env::new();
    let up = Serve::start(&other);
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_url = format!("http://{}", silent.local_addr().unwrap());
    let rows = [
        ("aaaa0001", up.url.as_str(), true),
        ("aaaa0002", up.url.as_str(), true),
        ("bbbb0001", closed.as_str(), false),
        ("bbbb0002", closed.as_str(), false),
        ("cccc0001", silent_url.as_str(), false),
    ];
    for (id, url, _) in rows {
        env.ok_json(&["register", id, "--desktop-url", url]);
    }
    let local = env.create(&[]);
    let serve = Serve::start(&env);
    // Serving does not wait for the verification.
    let (status, _) = serve.http("GET", "/health", Some(&serve.secret), None);
    assert_eq!(status, 200);
    let registered = || -> Vec<String> {
        let mut ids: Vec<String> = env.registry()["sessions"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        ids.sort();
        ids
    };
    let mut want: Vec<String> = rows
        .iter()
        .filter(|r| r.2)
        .map(|r| r.0.to_string())
        .chain([local.clone()])
        .collect();
    want.sort();
    let journal = || std::fs::read_to_string(env.state().join("_registry_events.jsonl")).unwrap();
    let pruned = |events: &str, id: &str| {
        events
            .lines()
            .any(|l| l.contains("\"pruned\"") && l.contains(id) && l.contains("bridge_unreachable"))
    };
    // The registry changes first, then the journal lines are written.
    wait_for(20_000, "the unreachable bridges' sessions pruned", || {
        let events = journal();
        registered() == want && rows.iter().filter(|r| !r.2).all(|r| pruned(&events, r.0))
    });
    let events = journal();
    for (id, _, alive) in rows {
        assert_eq!(pruned(&events, id), !alive, "{id}: {events}");
    }
    drop(silent);
}

#[test]
fn claude_code_session_id_is_stored_listed_updated_and_resolves() {
    let env = Env::new();
    let serve = Serve::start(&env);
    let k = Some(serve.secret.as_str());
    let local = env.create(&[
        "--label",
        "worker",
        "--claude-code-session-id",
        "cc-local-1",
    ]);
    env.ok_json(&[
        "register",
        "dddd0001",
        "--desktop-url",
        "http://127.0.0.1:9",
        "--claude-code-session-id",
        "cc-cli-1",
    ]);
    let r = json!({"session_id": "dddd0002", "desktop_url": "http://127.0.0.1:9",
                   "claude_code_session_id": "cc-http-1"});
    let (status, v) = serve.http("POST", "/v1/pty/register", k, Some(r));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["session"]["claude_code_session_id"], "cc-http-1", "{v}");
    // Shown by list (CLI and HTTP) and resolved by (CLI and MCP's resolve action).
    let (_, all) = serve.http("GET", "/v1/pty/sessions", k, None);
    for (id, cc) in [
        (local.as_str(), "cc-local-1"),
        ("dddd0001", "cc-cli-1"),
        ("dddd0002", "cc-http-1"),
    ] {
        for listing in [env.ok_json(&["list"]), all.clone()] {
            let row = listing["sessions"]
                .as_array()
                .and_then(|a| a.iter().find(|e| e["session_id"] == id).cloned())
                .unwrap_or(Value::Null);
            assert_eq!(row["claude_code_session_id"], cc, "{id}: {listing}");
        }
        let v = env.ok_json(&["resolve", "--claude-code-session-id", cc]);
        assert_eq!(s(&v, "session_id"), id, "{v}");
    }
    // update_ownership changes it (CLI and HTTP), and resolve follows.
    env.ok_json(&[
        "update-ownership",
        "dddd0001",
        "--claude-code-session-id",
        "cc-cli-2",
    ]);
    let u = json!({"session_id": "dddd0002", "claude_code_session_id": "cc-http-2"});
    assert_eq!(
        serve.http("POST", "/v1/pty/update-ownership", k, Some(u)).0,
        200
    );
    for (id, cc) in [("dddd0001", "cc-cli-2"), ("dddd0002", "cc-http-2")] {
        let v = env.ok_json(&["resolve", "--claude-code-session-id", cc]);
        assert_eq!(s(&v, "session_id"), id, "{v}");
    }
    env.fails(
        &["resolve", "--claude-code-session-id", "cc-cli-1"],
        119,
        "NOT_FOUND",
    );
    // Checked as an owner identity is: no secrets, a length cap.
    for bad in [
        "ghp_R4nd0mGitHubT0kenAbCdEfGhIjKlMnOpQr".to_string(),
        "x".repeat(300),
    ] {
        env.fails(
            &["update-ownership", &local, "--claude-code-session-id", &bad],
            115,
            "INVALID_PARAMS",
        );
    }
    // The registered entries stay sealed (they still route).
    let v = env.ok_json(&["list"]);
    assert!(
        v["sessions"]
            .as_array()
            .is_some_and(|a| a.iter().all(|e| e["untrusted"] != true)),
        "{v}"
    );
}

/// `kpty --json ARGS` with `vars` set: (exit code, JSON).
fn with_env(env: &Env, vars: &[(&str, &str)], args: &[&str]) -> (Option<i32>, Value) {
    let all: Vec<&str> = std::iter::once("--json")
        .chain(args.iter().copied())
        .collect();
    let mut c = env.cmd(&all);
    c.envs(vars.iter().copied());
    let out = run(c, &all);
    (out.status.code(), crate::support::parse(&out, &all))
}

#[test]
fn the_seeds_environment_gives_create_and_register_their_owner() {
    let env = Env::new();
    let vars = [
        ("KURORYUU_AGENT_ID", "worker_env_1"),
        ("KURORYUU_SESSION_ID", "ksess_env_1"),
        ("KURORYUU_AGENT_ROLE", "worker"),
    ];
    // Both verbs, with and without the parameters: a parameter wins over the environment.
    for (verb, given) in [
        ("create", false),
        ("create", true),
        ("register", false),
        ("register", true),
    ] {
        let mut args: Vec<String> = vec![verb.into()];
        let id = format!("eeee000{}", usize::from(given));
        if verb == "register" {
            args.extend([
                id.clone(),
                "--desktop-url".into(),
                "http://127.0.0.1:9".into(),
            ]);
        }
        if given {
            args.extend(
                [
                    "--owner-agent-id",
                    "param_agent",
                    "--owner-session-id",
                    "param_sess",
                    "--owner-role",
                    "leader",
                ]
                .map(String::from),
            );
        }
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, v) = with_env(&env, &vars, &argv);
        assert_eq!(code, Some(0), "{argv:?}: {v}");
        let sid = s(&v, "session_id").to_string();
        let e = env.entry(&sid);
        let want = if given {
            ("param_agent", "param_sess", "leader")
        } else {
            ("worker_env_1", "ksess_env_1", "worker")
        };
        assert_eq!(
            (
                s(&e, "owner_agent_id"),
                s(&e, "owner_session_id"),
                s(&e, "owner_role")
            ),
            want,
            "{argv:?}: {e}"
        );
    }
    // KURORYUU_IS_LEADER=1 makes the role leader when none is given.
    let (code, v) = with_env(&env, &[("KURORYUU_IS_LEADER", "1")], &["create"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(env.entry(s(&v, "session_id"))["owner_role"], "leader");
    // Validated like the parameters: secrets, overlong values and unknown roles refused,
    // naming the variable.
    let long = "y".repeat(300);
    for (var, value) in [
        (
            "KURORYUU_AGENT_ID",
            "ghp_R4nd0mGitHubT0kenAbCdEfGhIjKlMnOpQr",
        ),
        ("KURORYUU_SESSION_ID", long.as_str()),
        ("KURORYUU_AGENT_ROLE", "emperor"),
    ] {
        for verb in [
            &["create"][..],
            &[
                "register",
                "ffff0001",
                "--desktop-url",
                "http://127.0.0.1:9",
            ],
        ] {
            let (code, v) = with_env(&env, &[(var, value)], verb);
            assert_eq!(
                (code, s(&v, "error_code")),
                (Some(115), "INVALID_PARAMS"),
                "{var}={value:.20} {verb:?}: {v}"
            );
            assert!(s(&v, "message").contains(var), "{v}");
        }
    }
    // kpty serve's environment is the operator's, not its callers': not used.
    let serve = Serve::start_args(&env, &[], &vars);
    let r = json!({"session_id": "abab0001", "desktop_url": "http://127.0.0.1:9"});
    let (status, v) = serve.http("POST", "/v1/pty/register", Some(&serve.secret), Some(r));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["session"]["owner_agent_id"], Value::Null, "{v}");
}

#[test]
fn a_caller_the_seeds_environment_names_a_leader_may_unregister_a_leaders_terminal() {
    let env = Env::new();
    let serve = Serve::start(&env);
    let k = Some(serve.secret.as_str());
    assert_eq!(
        serve
            .http("POST", "/_x9k_register_leader?agent_id=lead-agent", k, None)
            .0,
        200
    );
    // The caller's own terminal, a leader's: found by its owner session id.
    env.ok_json(&[
        "register",
        "abab0099",
        "--desktop-url",
        &serve.url,
        "--owner-session-id",
        "ksess-lead",
        "--owner-role",
        "leader",
    ]);
    let callers: [(&[(&str, &str)], bool); 12] = [
        (&[], false),
        (&[("KURORYUU_AGENT_ROLE", "worker")], false),
        (&[("KURORYUU_AGENT_ID", "someone-else")], false),
        (&[("KURORYUU_IS_LEADER", "1")], true),
        (&[("KURORYUU_AGENT_ROLE", "leader")], true),
        (&[("KURORYUU_AGENT_ID", "lead-agent")], true),
        (&[("KURORYUU_SESSION_ID", "ksess-lead")], true),
        // kpty's own names, and kpty's name winning over k_pty's.
        (&[("KPTY_IS_LEADER", "1")], true),
        (&[("KPTY_AGENT_ID", "lead-agent")], true),
        (&[("KPTY_OWNER_SESSION_ID", "ksess-lead")], true),
        (
            &[
                ("KPTY_AGENT_ROLE", "worker"),
                ("KURORYUU_AGENT_ROLE", "leader"),
            ],
            false,
        ),
        (
            &[
                ("KPTY_AGENT_ID", "someone-else"),
                ("KURORYUU_AGENT_ID", "lead-agent"),
            ],
            false,
        ),
    ];
    for (i, (vars, leader)) in callers.iter().enumerate() {
        let id = format!("abab00{i:02}");
        env.ok_json(&[
            "register",
            &id,
            "--desktop-url",
            &serve.url,
            "--owner-role",
            "leader",
            "--owner-session-id",
            "theirs",
        ]);
        let (code, v) = with_env(&env, vars, &["unregister", &id]);
        if *leader {
            assert_eq!(code, Some(0), "{vars:?}: {v}");
        } else {
            assert_eq!(
                (code, s(&v, "error_code")),
                (Some(111), "PTY_ACCESS_DENIED"),
                "{vars:?}: {v}"
            );
        }
    }
    // kpty serve's environment speaks for nobody: its callers still need force. (The bridge
    // these sessions name answers, so the second server's start keeps them.)
    let lead_env = Serve::start_args(&env, &[], &[("KURORYUU_IS_LEADER", "1")]);
    let (status, v) = lead_env.http(
        "DELETE",
        "/v1/pty/unregister/abab0000",
        Some(&lead_env.secret),
        None,
    );
    assert_eq!(
        (status, s(&v, "error_code")),
        (403, "PTY_ACCESS_DENIED"),
        "{v}"
    );
}

/// Over stdio MCP: `register` and `update_ownership` take `claude_code_session_id`, `resolve`
/// routes by it, and the server's environment gives `register` its owner.
#[tokio::test(flavor = "multi_thread")]
async fn claude_code_session_id_and_the_owner_environment_over_mcp() {
    let env = Env::new();
    let mut cmd = env.cmd(&["mcp"]);
    cmd.env("KURORYUU_AGENT_ID", "mcp-agent")
        .env("KURORYUU_SESSION_ID", "mcp-ksess");
    let m = crate::mcp::start_cmd(cmd).await;
    let v = m
        .json(json!({"action": "register", "session_id": "cdcd0001",
                     "desktop_url": "http://127.0.0.1:9", "claude_code_session_id": "cc-mcp-1"}))
        .await;
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["session"]["claude_code_session_id"], "cc-mcp-1", "{v}");
    assert_eq!(v["session"]["owner_agent_id"], "mcp-agent", "{v}");
    assert_eq!(v["session"]["owner_session_id"], "mcp-ksess", "{v}");
    let v = m
        .json(json!({"action": "resolve", "claude_code_session_id": "cc-mcp-1"}))
        .await;
    assert_eq!(v["session_id"], "cdcd0001", "{v}");
    let v = m
        .json(
            json!({"action": "update_ownership", "session_id": "cdcd0001",
                     "claude_code_session_id": "cc-mcp-2"}),
        )
        .await;
    assert_eq!(v["ok"], true, "{v}");
    let v = m
        .json(json!({"action": "resolve", "claude_code_session_id": "cc-mcp-2"}))
        .await;
    assert_eq!(v["session_id"], "cdcd0001", "{v}");
    let v = m
        .json(json!({"action": "resolve", "claude_code_session_id": "cc-mcp-1"}))
        .await;
    assert_eq!(v["error_code"], "NOT_FOUND", "{v}");
    m.client.cancel().await.expect("close");
}

/// A kpty that writes through another's bridge names its agent there: the far side's trail
/// records who typed.
#[test]
fn writes_through_a_bridge_name_the_agent_in_the_far_sides_trail() {
    let (a, b, id, serve) = crate::bridge::setup();
    let vars = [
        ("KURORYUU_DESKTOP_SECRET", serve.secret.as_str()),
        ("KURORYUU_AGENT_ID", "agent-far"),
    ];
    let (code, v) = with_env(&a, &vars, &["talk", "-s", &id, "echo via-bridge"]);
    assert_eq!((code, s(&v, "output")), (Some(0), "via-bridge"), "{v}");
    let (code, v) = with_env(&a, &vars, &["send-line", "-s", &id, "echo typed"]);
    assert_eq!(code, Some(0), "{v}");
    let talks = trail(&b, &id, "talk");
    assert_eq!(
        talks.last().map(|e| e["agent_id"].clone()),
        Some(json!("agent-far")),
        "{talks:?}"
    );
    // send_line is two writes there: the line, then Enter.
    let writes = trail(&b, &id, "write");
    assert_eq!(writes.len(), 2, "{writes:?}");
    assert!(
        writes.iter().all(|e| e["agent_id"] == "agent-far"),
        "{writes:?}"
    );
    // The near side's trail has the same agent.
    let near = trail(&a, &id, "send_line");
    assert_eq!(
        near.last().map(|e| e["agent_id"].clone()),
        Some(json!("agent-far"))
    );
}
