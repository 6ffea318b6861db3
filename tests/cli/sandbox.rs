//! `create --sandbox`: the kernel (Landlock) confines a session's whole process tree. Each
//! test builds its own world outside /tmp and $TMPDIR ([`world_root`]) — a project, a HOME
//! with a fake `~/.ssh/id_rsa`, and a directory outside every allowed path — since the usual
//! test world lives under /tmp, which a sandboxed session may write. Skipped where the kernel
//! has no Landlock.

use crate::support::{Env, parse, run, s, skip};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A directory for test worlds that a sandboxed session may not write: cargo's target tmp
/// dir unless the checkout itself lies under /tmp or $TMPDIR (CI clones there), else /var/tmp.
pub(crate) fn world_root() -> PathBuf {
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let tmp = std::env::temp_dir();
    let under_tmp = |p: &Path| p.starts_with("/tmp") || p.starts_with(&tmp);
    if !under_tmp(&target) {
        return target;
    }
    let var_tmp = PathBuf::from("/var/tmp");
    assert!(
        var_tmp.is_dir() && !under_tmp(&var_tmp),
        "sandbox tests need a writable directory outside /tmp: the checkout is under /tmp and \
         /var/tmp is missing"
    );
    var_tmp
}

/// A sandbox test's world.
pub(crate) struct World {
    pub(crate) env: Env,
    pub(crate) _root: tempfile::TempDir,
    pub(crate) project: PathBuf,
    pub(crate) home: PathBuf,
    pub(crate) outside: PathBuf,
    pub(crate) abi: u64,
}

impl World {
    /// A fresh world, or `None` (with a message) when the kernel has no Landlock. In CI
    /// (`CI` set) a missing Landlock fails the test instead: there it must be tested.
    pub(crate) fn new(test: &str) -> Option<World> {
        let env = Env::new();
        let help = env.ok_json(&["help"]);
        let Some(abi) = help["data"]["sandbox"]["landlock_abi"].as_u64() else {
            skip(&format!("{test}: this kernel has no Landlock"));
            return None;
        };
        let root = tempfile::Builder::new()
            .prefix("kpty-sandbox")
            .tempdir_in(world_root())
            .expect("a temp dir outside /tmp");
        let (project, home, outside) = (
            root.path().join("project"),
            root.path().join("home"),
            root.path().join("outside"),
        );
        for d in [&project, &home.join(".ssh"), &outside.join("keep")] {
            std::fs::create_dir_all(d).expect("create the world");
        }
        std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY").unwrap();
        std::fs::write(home.join("notes.txt"), "readable notes").unwrap();
        std::fs::write(home.join(".bashrc"), "").unwrap();
        Some(World {
            env,
            _root: root,
            project,
            home,
            outside,
            abi,
        })
    }

    /// `kpty --json create ARGS` run from the project with the world's HOME; the JSON.
    pub(crate) fn create_json(&self, args: &[&str], vars: &[(&str, &str)]) -> (Option<i32>, Value) {
        let all: Vec<&str> = ["--json", "create"].iter().chain(args).copied().collect();
        let mut c = self.env.cmd(&all);
        c.current_dir(&self.project)
            .env("HOME", &self.home)
            .env_remove("KPTY_SANDBOX")
            .envs(vars.iter().copied());
        let out = run(c, &all);
        (out.status.code(), parse(&out, &all))
    }

    /// Create a session (asserted to succeed); its id.
    pub(crate) fn create(&self, args: &[&str]) -> String {
        let (code, v) = self.create_json(args, &[]);
        assert_eq!((code, &v["ok"]), (Some(0), &Value::Bool(true)), "{v}");
        s(&v, "session_id").to_string()
    }

    /// Run `command` in `session`: (exit code, output).
    pub(crate) fn sh(&self, session: &str, command: &str) -> (i64, String) {
        let v = self.env.talk(session, command);
        (
            v["exit_code"].as_i64().unwrap(),
            s(&v, "output").to_string(),
        )
    }

    pub(crate) fn p(&self, path: &Path) -> String {
        path.display().to_string()
    }
}

#[test]
fn sandbox_confines_writes_and_hides_credentials() {
    let Some(w) = World::new("sandbox_confines_writes_and_hides_credentials") else {
        return;
    };
    let id = w.create(&["--sandbox"]);
    // The project is writable.
    let (code, out) = w.sh(&id, "echo made > made.txt && cat made.txt");
    assert_eq!((code, out.trim()), (0, "made"));
    assert!(w.project.join("made.txt").exists());
    // HOME is not.
    let (code, out) = w.sh(&id, "touch ~/outside");
    assert_ne!(code, 0);
    assert!(out.contains("Permission denied"), "{out}");
    assert!(!w.home.join("outside").exists());
    // Nor is anything else: rm -rf fails and the directory stays.
    let (code, out) = w.sh(&id, &format!("rm -rf {}", w.p(&w.outside)));
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("Permission denied"), "{out}");
    assert!(w.outside.join("keep").is_dir());
    // The credential store is hidden; the rest of HOME is readable.
    // Through a script file written outside the session, which kpty's command policy cannot
    // see (it is a guard-rail; the kernel is what is tested here).
    std::fs::write(w.project.join("peek.sh"), "cat ~/.ssh/id_rsa\n").expect("write peek.sh");
    let (code, out) = w.sh(&id, "sh peek.sh");
    assert_ne!(code, 0);
    assert!(
        out.contains("Permission denied") && !out.contains("PRIVATE"),
        "{out}"
    );
    let (code, out) = w.sh(&id, "cat ~/notes.txt");
    assert_eq!((code, out.trim()), (0, "readable notes"));
    // Directories list (HOME, /, even the names in ~/.ssh); only contents are hidden.
    let (code, out) = w.sh(&id, "ls -a ~ && ls / >/dev/null && ls ~/.ssh");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("notes.txt") && out.contains("id_rsa"), "{out}");
    // /tmp, /dev/null and the session's own terminal are writable; the policy variable is
    // gone from the shell's environment.
    let (code, out) = w.sh(
        &id,
        "echo x > /dev/null && mktemp -p /tmp >/dev/null && echo to-tty > $(tty) && echo \"[${KPTY_SANDBOX_POLICY-unset}]\"",
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("to-tty") && out.contains("[unset]"), "{out}");
}

#[test]
fn sandbox_survives_setuid_and_cannot_signal_outside() {
    let Some(w) = World::new("sandbox_survives_setuid_and_cannot_signal_outside") else {
        return;
    };
    // A setuid-root copy of touch, made outside the sandbox.
    let suid = w.project.join("suid-touch");
    std::fs::copy("/usr/bin/touch", &suid).expect("copy touch");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&suid, std::fs::Permissions::from_mode(0o4755)).unwrap();
    let id = w.create(&["--sandbox"]);
    let (code, out) = w.sh(&id, "grep NoNewPrivs /proc/self/status");
    assert_eq!(code, 0);
    assert!(out.split_whitespace().last() == Some("1"), "{out}");
    let (code, out) = w.sh(&id, "./suid-touch ~/escaped");
    assert_ne!(code, 0);
    assert!(out.contains("Permission denied"), "{out}");
    assert!(!w.home.join("escaped").exists());
    if w.abi >= 6 {
        let holder = w.env.entry(&id)["holder_pid"].as_u64().unwrap();
        let (code, out) = w.sh(&id, &format!("kill -0 {holder}"));
        assert_ne!(code, 0);
        assert!(out.contains("Operation not permitted"), "{out}");
    }
}

#[test]
fn allow_write_no_network_and_unsandboxed_neighbours() {
    let Some(w) = World::new("allow_write_no_network_and_unsandboxed_neighbours") else {
        return;
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let outside = w.p(&w.outside);
    let open = w.create(&["--sandbox", "--allow-write", &outside]);
    let (code, out) = w.sh(&open, &format!("touch {outside}/allowed && echo ok"));
    assert_eq!((code, out.trim()), (0, "ok"));
    assert_eq!(w.sh(&open, &connect).0, 0, "network is on by default");
    if w.abi >= 4 {
        let closed = w.create(&["--sandbox", "--no-network"]);
        let (code, out) = w.sh(&closed, &connect);
        assert_ne!(code, 0);
        assert!(out.contains("Permission denied"), "{out}");
    } else {
        let (code, v) = w.create_json(&["--sandbox", "--no-network"], &[]);
        assert_eq!(
            (code, &v["error_code"]),
            (Some(120), &Value::from("PTY_SPAWN_FAILED"))
        );
    }
    // A session without the sandbox, on the same machine, writes the same place.
    let plain = w.create(&[]);
    assert_eq!(w.sh(&plain, "touch ~/outside && echo ok").1.trim(), "ok");
    assert!(w.home.join("outside").exists());
    // list --json says which is which; the human list marks it.
    let list = w.env.ok_json(&["list"]);
    let by_id = |id: &str| {
        list["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["session_id"] == id)
            .cloned()
            .unwrap()
    };
    assert_eq!(by_id(&plain)["sandbox"], Value::Null);
    let sb = &by_id(&open)["sandbox"];
    assert_eq!(sb["abi"], w.abi);
    assert_eq!(sb["network"], true);
    let real_outside = w.outside.canonicalize().unwrap();
    assert!(
        sb["allow_write"]
            .as_array()
            .unwrap()
            .contains(&Value::from(w.p(&real_outside)))
    );
    assert!(
        sb["deny_read"]
            .as_array()
            .unwrap()
            .contains(&Value::from(w.p(&w.home.join(".ssh"))))
    );
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(
            w.env
                .state()
                .join("sessions")
                .join(&open)
                .join("metadata.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(&meta["sandbox"], sb);
    assert!(w.env.ok(&["list"]).contains(&format!("ll{}", w.abi)));
}

#[test]
fn sandbox_default_from_the_environment_and_refusals() {
    let Some(w) = World::new("sandbox_default_from_the_environment_and_refusals") else {
        return;
    };
    let (code, v) = w.create_json(&[], &[("KPTY_SANDBOX", "1")]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["sandbox"]["abi"], w.abi);
    // KPTY_SANDBOX=1 is a floor: --no-sandbox is refused, saying who set it.
    let (code, v) = w.create_json(&["--no-sandbox"], &[("KPTY_SANDBOX", "1")]);
    assert_eq!(
        (code, &v["error_code"]),
        (Some(105), &Value::from("SANDBOX_REQUIRED")),
        "{v}"
    );
    assert!(s(&v, "message").contains("KPTY_SANDBOX=1"), "{v}");
    // KPTY_SANDBOX=default lets the caller opt out.
    let (code, v) = w.create_json(&["--no-sandbox"], &[("KPTY_SANDBOX", "default")]);
    assert_eq!((code, &v["sandbox"]), (Some(0), &Value::Null), "{v}");
    // Sandbox options without a sandbox, and a missing writable path, are refused up front.
    let (code, v) = w.create_json(&["--no-network"], &[]);
    assert_eq!(
        (code, &v["error_code"]),
        (Some(115), &Value::from("INVALID_PARAMS")),
        "{v}"
    );
    let missing = w.p(&w.outside.join("missing"));
    let (_, v) = w.create_json(&["--sandbox", "--allow-write", &missing], &[]);
    assert_eq!(v["error_code"], "INVALID_PARAMS", "{v}");
}

#[test]
fn sandbox_exec_refuses_to_run_unconfined() {
    // A policy the kernel cannot fully enforce (an ABI beyond it), or none at all: exit 99,
    // a clear message, and the program never runs.
    let Some(w) = World::new("sandbox_exec_refuses_to_run_unconfined") else {
        return;
    };
    let marker = w.outside.join("ran");
    let touch = w.p(&marker);
    let policy =
        serde_json::json!({"abi": 99, "allow_write": [], "deny_read": [], "network": true});
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_kpty"));
    c.args(["__sandbox-exec", "--", "/usr/bin/touch", &touch])
        .env("KPTY_SANDBOX_POLICY", policy.to_string());
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if w.abi < 10 {
        assert_eq!(out.status.code(), Some(99), "{err}");
        assert!(
            err.contains("kpty sandbox:") && err.contains("refusing"),
            "{err}"
        );
        assert!(!marker.exists());
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kpty"))
        .args(["__sandbox-exec", "--", "/usr/bin/touch", &touch])
        .env_remove("KPTY_SANDBOX_POLICY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(99));
    assert!(!marker.exists());
    // A directory to hide that is now a symbolic link is refused too, with its reason.
    let link = w.project.join("link");
    std::os::unix::fs::symlink(&w.outside, &link).unwrap();
    let policy = serde_json::json!({"abi": w.abi, "allow_write": [], "deny_read": [],
        "network": true, "hidden": [w.p(&link)]});
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kpty"))
        .args(["__sandbox-exec", "--", "/usr/bin/touch", &touch])
        .env("KPTY_SANDBOX_POLICY", policy.to_string())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(99), "{err}");
    assert!(
        err.contains("kpty sandbox reason: hidden_path_unsafe"),
        "{err}"
    );
    assert!(!marker.exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn create_with_sandbox_confines_the_session() {
    let env = Env::new();
    if env.ok_json(&["help"])["data"]["sandbox"]["landlock_abi"].is_null() {
        skip("create_with_sandbox_confines_the_session: this kernel has no Landlock");
        return;
    }
    let outside = tempfile::tempdir_in(world_root()).expect("temp dir");
    let secret = env.home().join("secret.txt");
    std::fs::write(&secret, "s3cr3t").expect("write");
    // The cwd, not HOME: HOME holds the hidden credential stores, so it is only granted
    // entry by entry and no new file can be made directly in it.
    let work = env.home().join("work");
    std::fs::create_dir(&work).expect("mkdir");
    let m = crate::mcp::start(&env).await;
    let c = m
        .json(
            serde_json::json!({"action": "create", "sandbox": true, "cwd": work.display().to_string(),
                     "deny_read": [secret.display().to_string()]}),
        )
        .await;
    assert_eq!(c["ok"], true, "{c}");
    assert!(c["sandbox"]["abi"].as_u64().is_some(), "{c}");
    let id = c["session_id"].as_str().expect("id").to_string();
    let target = outside.path().join("x");
    let t = m
        .json(serde_json::json!({"action": "talk", "session_id": id,
                     "command": format!("touch {}; cat ~/secret.txt; echo ok > here.txt", target.display())}))
        .await;
    let out = t["output"].as_str().expect("output");
    assert!(
        out.contains("Permission denied") && !out.contains("s3cr3t"),
        "{t}"
    );
    assert!(!target.exists());
    assert!(work.join("here.txt").exists(), "the cwd stays writable");
    let bad = m
        .json(serde_json::json!({"action": "create", "network": false}))
        .await;
    assert_eq!(bad["error_code"], "INVALID_PARAMS", "{bad}");
    m.close().await;
}

#[test]
fn sandbox_cannot_reach_other_sessions_or_kpty_state() {
    // Landlock below ABI 9 lets a sandbox connect() to any path-named Unix socket: the
    // session's own mount namespace hides kpty's runtime and state directories instead.
    let Some(w) = World::new("sandbox_cannot_reach_other_sessions_or_kpty_state") else {
        return;
    };
    let plain = w.create(&["--label", "plain"]);
    let boxed = w.create(&["--sandbox"]);
    let (state, run) = (w.env.state().to_path_buf(), w.env.dir.path().join("run"));
    let secret = state.join("_bridge_secret");
    std::fs::write(&secret, "BRIDGE-SECRET").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let meta = state.join("sessions").join(&plain).join("metadata.json");
    assert!(meta.exists());
    let escaped = w.outside.join("escaped");
    let holder = w.env.entry(&plain)["holder_pid"].as_u64().unwrap();
    // A script file: kpty's command policy does not follow it (the kernel is under test).
    let script = format!(
        "{kpty} talk -s {plain} 'touch {esc}'; echo \"talk=$?\"\n\
         echo \"run=[$(ls -A {run} | grep sock)]\"; echo \"state=[$(ls -A {state})]\"\n\
         cat {secret} {meta} {buffer}\n\
         ls /proc/{holder}/root{run}\n\
         umount {state}; touch {state}/planted\n",
        kpty = env!("CARGO_BIN_EXE_kpty"),
        esc = w.p(&escaped),
        run = w.p(&run),
        state = w.p(&state),
        secret = w.p(&secret),
        meta = w.p(&meta),
        buffer = w.p(&meta.with_file_name("buffer.txt")),
    );
    std::fs::write(w.project.join("reach.sh"), script).unwrap();
    let (_, out) = w.sh(&boxed, "sh reach.sh");
    assert!(out.contains("talk=") && !out.contains("talk=0"), "{out}");
    assert!(!escaped.exists(), "{out}");
    assert!(out.contains("run=[]") && out.contains("state=[]"), "{out}");
    assert!(
        !out.contains("BRIDGE-SECRET") && !out.contains("\"session_id\""),
        "{out}"
    );
    assert!(
        out.contains(&format!("/proc/{holder}/root")) && out.contains("Permission denied"),
        "{out}"
    );
    assert!(!state.join("planted").exists(), "{out}");
    // The sandboxed session itself still works in its project, with its integration.
    let (code, out) = w.sh(&boxed, "echo kept > kept.txt && cat kept.txt");
    assert_eq!((code, out.trim()), (0, "kept"));
    let list = w.env.ok_json(&["list"]);
    let entry = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["session_id"] == boxed.as_str())
        .cloned()
        .unwrap();
    let hidden = entry["sandbox"]["hidden"].as_array().unwrap().clone();
    let real = |p: &Path| Value::from(w.p(&p.canonicalize().unwrap()));
    assert!(hidden.contains(&real(&run)) && hidden.contains(&real(&state)));
    // The unsandboxed session is untouched: it still sees the sockets and drives the other.
    let (code, out) = w.sh(&plain, &format!("ls {} | grep -c sock", w.p(&run)));
    assert_eq!((code, out.trim()), (0, "2"));
    assert_eq!(
        w.env.ok_json(&["talk", "-s", &boxed, "echo again"])["exit_code"],
        0
    );
}
