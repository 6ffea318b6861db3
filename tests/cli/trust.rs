//! A repository's state directory grants nothing: a registry entry that routes traffic is
//! used only when this user's kpty sealed it, bridge URLs are loopback unless the user allowed
//! the host, a bridge secret kpty did not make is never adopted, and identity fields that look
//! like secrets are refused before they reach the state directory.

use crate::support::*;
use serde_json::{Value, json};
use std::io::Write;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A loopback "bridge" that answers every request with the attacker's reply and counts them.
struct Bridge {
    url: String,
    hits: Arc<AtomicUsize>,
}

impl Bridge {
    fn start() -> Self {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", l.local_addr().unwrap());
        let hits = Arc::new(AtomicUsize::new(0));
        let h = hits.clone();
        std::thread::spawn(move || {
            for mut c in l.incoming().flatten() {
                h.fetch_add(1, Ordering::SeqCst);
                // Read whole before the answer: one answered after its first piece, and closed
                // with the rest unread, would be reset under a client still sending it.
                let _ = read_request(&mut c);
                let body = r#"{"ok":true,"output":"ATTACKER-REPLY","sentinel_found":true,"exit_code":0,"bytes_written":1}"#;
                let _ = write!(
                    c,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Self { url, hits }
    }
    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

fn plant(env: &Env, entries: &[Value]) {
    std::fs::create_dir_all(env.state().join("sessions")).unwrap();
    let mut sessions = serde_json::Map::new();
    for e in entries {
        sessions.insert(e["session_id"].as_str().unwrap().into(), e.clone());
    }
    let reg = json!({"schema": "pty_registry_v1", "sessions": sessions});
    std::fs::write(
        env.state().join("_registry.json"),
        serde_json::to_vec_pretty(&reg).unwrap(),
    )
    .unwrap();
}

/// Run `kpty --json ARGS` with the desktop secret in the environment.
fn with_secret(env: &Env, args: &[&str]) -> (Option<i32>, Value, String) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let mut c = env.cmd(&all);
    c.env("KURORYUU_DESKTOP_SECRET", "TOPSECRET-desktop");
    let out = run(c, &all);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    (out.status.code(), parse(&out, &all), text)
}

/// Every verb that routes to a session, naming the planted one in each way it can be named.
const ROUTING_VERBS: &[&[&str]] = &[
    &["talk", "cat .env"],
    &["talk", "-s", "desk_evil", "cat .env"],
    &["talk", "-t", "3000", "--label", "default", "cat .env"],
    &["send-line", "-s", "desk_evil", "cat .env"],
    &["read", "-s", "desk_evil"],
    &["term-read", "-s", "desk_evil"],
    &["send-keys", "-s", "desk_evil", "Enter"],
    &["resolve", "--label", "default"],
    &["resolve", "--agent", "boss"],
    &["send-line-to-agent", "--agent", "boss", "cat .env"],
    &["heartbeat", "desk_evil"],
];

#[test]
fn a_shipped_desktop_entry_routes_nothing() {
    let bridge = Bridge::start();
    let seals = [
        None,
        Some("v1:0000000000000000000000000000000000000000000000000000000000000000"),
        Some("garbage"),
    ];
    for seal in seals {
        let env = Env::new();
        let mut e = json!({"session_id": "desk_evil", "source": "desktop", "desktop_url": bridge.url,
                           "label": "default", "owner_agent_id": "boss", "owner_role": "leader"});
        if let Some(s) = seal {
            e["kpty_seal"] = json!(s);
        }
        plant(&env, &[e]);
        for verb in ROUTING_VERBS {
            let (code, v, text) = with_secret(&env, verb);
            assert_eq!(
                (code, v["error_code"].as_str()),
                (Some(113), Some("STATE_ERROR")),
                "{verb:?} with seal {seal:?}: {v}"
            );
            assert!(s(&v, "message").contains("desk_evil"), "{v}");
            assert!(!text.contains("ATTACKER-REPLY"), "{verb:?}: {text}");
        }
        assert_eq!(bridge.hits(), 0, "a shipped entry reached its bridge");
        // Listing it and removing it still work.
        let v = env.ok_json(&["list"]);
        assert_eq!(v["sessions"][0]["session_id"], "desk_evil", "{v}");
        assert_eq!(v["sessions"][0]["untrusted"], true, "{v}");
        env.ok_json(&["unregister", "desk_evil", "--force"]);
    }
}

#[test]
fn a_registered_entry_is_sealed_and_a_tampered_or_copied_one_is_refused() {
    let good = Bridge::start();
    let other = Bridge::start();
    let env = Env::new();
    env.ok_json(&[
        "register",
        "desk_1",
        "--desktop-url",
        &good.url,
        "--label",
        "ui",
    ]);
    let (code, v, _) = with_secret(&env, &["talk", "-s", "ui", "echo hi"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["output"], "ATTACKER-REPLY", "{v}");
    let hits = good.hits();
    assert!(hits >= 1);
    let v = env.ok_json(&["list"]);
    assert!(v["sessions"][0].get("untrusted").is_none(), "{v}");
    // A relabel through kpty keeps the seal.
    env.ok_json(&["update-ownership", "desk_1", "--label", "ui2"]);
    assert_eq!(with_secret(&env, &["read", "-s", "ui2"]).0, Some(0));

    // Each sealed field changed by hand in the file: refused, and nothing is sent anywhere.
    let reg = env.registry();
    let fields: &[(&str, Value)] = &[
        ("desktop_url", json!(other.url)),
        ("source", json!("vscode")),
        ("label", json!("default")),
        ("owner_role", json!("leader")),
        ("owner_agent_id", json!("boss")),
    ];
    let before = good.hits();
    for (field, value) in fields {
        let mut e = reg["sessions"]["desk_1"].clone();
        e[*field] = value.clone();
        plant(&env, &[e]);
        let (code, v, _) = with_secret(&env, &["talk", "-s", "desk_1", "echo hi"]);
        assert_eq!(code, Some(113), "{field}: {v}");
    }
    assert_eq!((good.hits(), other.hits()), (before, 0));

    // The same sealed entry copied into another state directory.
    let env2 = Env::new();
    plant(&env2, &[reg["sessions"]["desk_1"].clone()]);
    let (code, v, _) = with_secret(&env2, &["talk", "-s", "desk_1", "echo hi"]);
    assert_eq!(code, Some(113), "{v}");
    assert_eq!(good.hits(), before);
}

#[test]
fn bridges_are_loopback_unless_the_user_allowed_the_host() {
    let env = Env::new();
    for url in [
        "http://169.254.169.254/latest/meta-data/",
        "http://attacker.example",
        "http://127.0.0.1@attacker.example/",
        "http://10.1.2.3:8201",
        "http://0.0.0.0:8201",
        "http://[fd00::1]:8201",
        "file:///etc/passwd",
    ] {
        let v = env.fails(
            &["register", "desk_x", "--desktop-url", url],
            115,
            "INVALID_PARAMS",
        );
        assert!(s(&v, "message").contains("desktop"), "{v}");
    }
    let mut c = env.cmd(&[
        "--json",
        "register",
        "desk_x",
        "--desktop-url",
        "http://bridge.example:1",
    ]);
    c.env("KPTY_ALLOW_BRIDGE", "other.example, bridge.example");
    let v = parse(&run(c, &["register"]), &["register"]);
    assert_eq!(v["ok"], true, "{v}");
    // Allowed when registered, no longer allowed when used: refused before any connection.
    let v = env.fails(
        &["talk", "-s", "desk_x", "echo hi"],
        111,
        "PTY_ACCESS_DENIED",
    );
    assert!(s(&v, "message").contains("KPTY_ALLOW_BRIDGE"), "{v}");
}

fn private_dir(env: &Env) -> std::path::PathBuf {
    env.home().join(".local/state/kpty")
}

#[test]
fn serve_never_adopts_a_secret_it_did_not_make() {
    let env = Env::new();
    std::fs::create_dir_all(env.state()).unwrap();
    let legacy = env.state().join("_bridge_secret");
    std::fs::write(&legacy, "a".repeat(64)).unwrap();
    std::fs::set_permissions(&legacy, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = env.kpty(&["serve", "--port", "0"]);
    assert_eq!(out.status.code(), Some(113), "{}", stderr(&out));
    assert!(stderr(&out).contains("--new-secret"), "{}", stderr(&out));
    let mode = std::fs::metadata(&legacy).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o644, "the shipped secret was chmod-ed");
    // Nor through --print-config.
    assert_eq!(
        env.kpty(&["serve", "--print-config", "--port", "8765"])
            .status
            .code(),
        Some(113)
    );

    // A new one, made by kpty, in the private directory.
    let v = env.ok_json(&["serve", "--new-secret"]);
    let file = std::path::PathBuf::from(s(&v, "secret_file"));
    assert!(file.starts_with(private_dir(&env)), "{v}");
    let md = std::fs::metadata(&file).unwrap();
    assert_eq!(md.permissions().mode() & 0o777, 0o600);
    let dmode = std::fs::metadata(private_dir(&env))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(dmode & 0o777, 0o700);
    let secret = std::fs::read_to_string(&file).unwrap();
    assert_ne!(secret, "a".repeat(64));
    assert!(!stdout(&env.kpty(&["serve", "--new-secret"])).contains(&secret));

    // Loosened later (or planted there): refused, never repaired.
    for (what, mode) in [("file", 0o644), ("file", 0o640)] {
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        let out = env.kpty(&["serve", "--print-config", "--port", "8765"]);
        assert_eq!(
            out.status.code(),
            Some(113),
            "{what} {mode:o}: {}",
            stderr(&out)
        );
        let now = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(now, mode);
    }
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::set_permissions(private_dir(&env), std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = env.kpty(&["serve", "--print-config", "--port", "8765"]);
    assert_eq!(out.status.code(), Some(113), "{}", stderr(&out));
    assert!(stderr(&out).contains("chmod 700"), "{}", stderr(&out));
}

#[test]
fn identity_fields_that_look_like_secrets_are_refused() {
    let env = Env::new();
    let id = env.create(&["--label", "plain"]);
    for (line, secret) in secret_lines() {
        let label: String = line.chars().take(64).collect();
        for args in [
            vec!["create", "--label", &label],
            vec![
                "register",
                "desk_s",
                "--desktop-url",
                "http://127.0.0.1:1",
                "--label",
                &label,
            ],
            vec![
                "register",
                "desk_s",
                "--desktop-url",
                "http://127.0.0.1:1",
                "--owner-agent-id",
                &line,
            ],
            vec!["update-ownership", &id, "--label", &label],
            vec!["update-ownership", &id, "--owner-agent-id", &line],
        ] {
            if label.chars().any(char::is_control) {
                continue;
            }
            let v = env.fails(&args, 115, "INVALID_PARAMS");
            assert!(
                s(&v, "message").contains("looks like a secret"),
                "{args:?}: {v}"
            );
            assert!(!v.to_string().contains(&secret), "{v}");
        }
    }
    // Nothing of them reached the state directory.
    let mut all = String::new();
    for entry in walk(env.state()) {
        all.push_str(&String::from_utf8_lossy(
            &std::fs::read(entry).unwrap_or_default(),
        ));
    }
    for (_, secret) in secret_lines() {
        assert!(
            !all.contains(&secret),
            "{secret} reached the state directory"
        );
    }
}

#[test]
fn a_program_command_line_is_stored_redacted() {
    let env = Env::new();
    let id = env.create(&[
        "--command",
        "sh -c 'sleep 30' GITHUB_TOKEN=ghp_R4nd0mGitHubT0kenAbCdEfGhIjKlMnOpQr",
    ]);
    let e = env.entry(&id);
    assert!(!e.to_string().contains("R4nd0mGitHubT0ken"), "{e}");
    let meta =
        std::fs::read_to_string(env.state().join("sessions").join(&id).join("metadata.json"))
            .unwrap();
    assert!(!meta.contains("R4nd0mGitHubT0ken"), "{meta}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn serve_registers_bridges_on_loopback_or_allowed_hosts_only() {
    use crate::bridge::Serve;
    let env = Env::new();
    let serve = Serve::start_args(&env, &["--allow-bridge", "desk.example"], &[]);
    let k = Some(serve.secret.as_str());
    for url in [
        "http://169.254.169.254/latest/meta-data/iam/",
        "http://metadata.google.internal/",
        "http://[fd00:ec2::254]/",
        "http://127.0.0.1@attacker.example:80/",
    ] {
        let (status, v) = serve.http(
            "POST",
            "/v1/pty/register",
            k,
            Some(json!({"session_id": "desk_m", "desktop_url": url})),
        );
        assert_eq!(
            (status, s(&v, "error_code")),
            (400, "INVALID_PARAMS"),
            "{url}: {v}"
        );
    }
    let (status, v) = serve.http(
        "POST",
        "/v1/pty/register",
        k,
        Some(json!({"session_id": "desk_ok", "desktop_url": "http://desk.example:8201"})),
    );
    assert_eq!(status, 200, "{v}");
    // The registry holds no entry for the refused ones.
    let reg = env.registry();
    assert!(reg["sessions"].get("desk_m").is_none(), "{reg}");
    assert!(reg["sessions"]["desk_ok"]["kpty_seal"].is_string(), "{reg}");
}

#[test]
fn secret_file_names_the_secret_serve_uses_without_renewing_it() {
    let env = Env::new();
    // Made on first ask, in the private directory, 0600; the path only, never the secret.
    let out = env.kpty(&["serve", "--secret-file"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = std::path::PathBuf::from(stdout(&out).trim());
    assert!(file.starts_with(private_dir(&env)), "{file:?}");
    let md = std::fs::metadata(&file).unwrap();
    assert_eq!(md.permissions().mode() & 0o777, 0o600);
    let secret = std::fs::read_to_string(&file).unwrap();
    assert_eq!(secret.len(), 64, "{secret:?}");
    assert!(!stdout(&out).contains(&secret));
    // Asked again (and as JSON): the same file, the same secret, the one --print-config uses.
    let v = env.ok_json(&["serve", "--secret-file"]);
    assert_eq!(s(&v, "secret_file"), file.display().to_string(), "{v}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), secret);
    let config = stdout(&env.kpty(&["serve", "--print-config", "--port", "8765"]));
    assert!(config.contains(&format!("Bearer {secret}")), "{config}");
    // A planted legacy secret is not what it names.
    let legacy = env.state().join("_bridge_secret");
    std::fs::write(&legacy, "b".repeat(64)).unwrap();
    let again = env.kpty(&["serve", "--secret-file"]);
    assert_eq!(stdout(&again).trim(), file.display().to_string());
}
