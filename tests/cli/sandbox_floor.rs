//! The operator's sandbox floor and what a sandbox hides, with the real sandbox: a
//! `required` floor refuses every request that would loosen it (a table over the fields,
//! through MCP and the CLI); what is accepted is confined; other kpty instances' state,
//! sockets and the private directory cannot be reached from inside; links in a writable
//! directory carry no write grant; the request's environment reaches only the confined shell.

use crate::sandbox::World;
use crate::support::{parse, run, s, skip};
use serde_json::{Value, json};
use std::path::Path;

/// `kpty mcp FLAGS` as the operator starts it: from the project, with the world's HOME and
/// no `KPTY_SANDBOX`.
async fn operator_mcp(w: &World, flags: &[&str]) -> crate::mcp::Mcp {
    let args: Vec<&str> = std::iter::once("mcp")
        .chain(flags.iter().copied())
        .collect();
    let mut c = w.env.cmd(&args);
    c.current_dir(&w.project)
        .env("HOME", &w.home)
        .env_remove("KPTY_SANDBOX");
    crate::mcp::start_cmd(c).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_required_floor_refuses_every_loosening_field_over_mcp() {
    let Some(w) = World::new("a_required_floor_refuses_every_loosening_field_over_mcp") else {
        return;
    };
    let no_network = w.abi >= 4;
    let flags: &[&str] = if no_network {
        &["--sandbox=required", "--no-network"]
    } else {
        &["--sandbox=required"]
    };
    let m = operator_mcp(&w, flags).await;
    let p = |x: &Path| x.display().to_string();
    let link = w.project.join("to-outside");
    std::os::unix::fs::symlink(&w.outside, &link).unwrap();
    std::fs::create_dir(w.project.join("sub")).unwrap();
    let mut table: Vec<(&str, Value)> = vec![
        ("sandbox", json!({"sandbox": false})),
        ("allow_write", json!({"allow_write": ["/"]})),
        ("allow_write", json!({"allow_write": [p(&w.home)]})),
        ("allow_write", json!({"allow_write": [p(&w.outside)]})),
        (
            "allow_write",
            json!({"allow_write": [p(&w.project.join(".."))]}),
        ),
        ("allow_write", json!({"allow_write": [p(&link)]})),
        (
            "allow_write",
            json!({"allow_write": ["sub", p(&w.outside.join("keep"))]}),
        ),
        ("cwd", json!({"cwd": p(&w.outside)})),
        ("cwd", json!({"cwd": p(&link)})),
        ("env.TMPDIR", json!({"env": {"TMPDIR": p(&w.outside)}})),
    ];
    if no_network {
        table.push(("network", json!({"network": true})));
    }
    for (field, extra) in table {
        let mut args = json!({"action": "create"});
        args.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let v = m.json(args.clone()).await;
        assert_eq!(v["error_code"], "SANDBOX_REQUIRED", "{args}: {v}");
        assert_eq!(v["details"]["field"], field, "{args}: {v}");
        let msg = s(&v, "message");
        assert!(
            msg.contains("kpty mcp --sandbox=required") && msg.contains("operator"),
            "{v}"
        );
    }
    // Nothing was started by the refused requests.
    let list = m.json(json!({"action": "list"})).await;
    assert_eq!(list["count"], 0, "{list}");
    // What stays inside the floor is accepted, and sandboxed.
    let ok = m
        .json(json!({"action": "create", "sandbox": true, "cwd": p(&w.project.join("sub")),
                     "allow_write": [p(&w.project.join("sub"))], "deny_read": [p(&w.home.join("notes.txt"))],
                     "env": {"HOME": p(&w.outside)}}))
        .await;
    assert_eq!(ok["ok"], true, "{ok}");
    assert_eq!(ok["sandbox"]["network"], !no_network, "{ok}");
    let id = s(&ok, "session_id").to_string();
    // The request chose another HOME: the operator's credential stores stay hidden.
    std::fs::write(
        w.project.join("peek.sh"),
        format!("cat {}\n", p(&w.home.join(".ssh/id_rsa"))),
    )
    .unwrap();
    let t = m
        .json(json!({"action": "talk", "session_id": id, "command": "sh ../peek.sh; touch ../../outside/x"}))
        .await;
    let out = s(&t, "output");
    assert!(
        out.contains("Permission denied") && !out.contains("PRIVATE"),
        "{t}"
    );
    assert!(!w.outside.join("x").exists());
    // A session made without naming a sandbox is sandboxed too (the default session of a
    // talk included).
    let t = m
        .json(json!({"action": "talk", "command": "touch ../outside/y; echo done"}))
        .await;
    assert_eq!(t["ok"], true, "{t}");
    assert!(!w.outside.join("y").exists(), "{t}");
    m.close().await;
}

#[test]
fn the_environment_floor_binds_the_cli_too() {
    let Some(w) = World::new("the_environment_floor_binds_the_cli_too") else {
        return;
    };
    let floor = [("KPTY_SANDBOX", "1")];
    let outside = w.p(&w.outside);
    for args in [
        vec!["--no-sandbox"],
        vec!["--allow-write", "/"],
        vec!["--allow-write", &outside],
        vec!["--cwd", &outside],
    ] {
        let (code, v) = w.create_json(&args, &floor);
        assert_eq!(
            (code, &v["error_code"]),
            (Some(105), &Value::from("SANDBOX_REQUIRED")),
            "{args:?}: {v}"
        );
    }
    // Under the floor, `talk` with no session makes its default session sandboxed.
    let all = ["--json", "talk", "touch ../outside/z; echo done"];
    let mut c = w.env.cmd(&all);
    c.current_dir(&w.project)
        .env("HOME", &w.home)
        .env("KPTY_SANDBOX", "1");
    let v = parse(&run(c, &all), &all);
    assert_eq!(v["ok"], true, "{v}");
    assert!(!w.outside.join("z").exists(), "{v}");
    let list = w.env.ok_json(&["list"]);
    let default = &list["sessions"][0];
    assert_eq!(default["label"], "default", "{list}");
    assert!(default["sandbox"]["abi"].is_u64(), "{list}");
}

#[test]
fn a_link_in_a_writable_directory_carries_no_write_grant() {
    // A deny_read under the project splits its write grant entry by entry: a link there to a
    // directory outside must not make that directory writable.
    let Some(w) = World::new("a_link_in_a_writable_directory_carries_no_write_grant") else {
        return;
    };
    std::os::unix::fs::symlink(&w.outside, w.project.join("esc")).unwrap();
    std::os::unix::fs::symlink("/", w.project.join("root")).unwrap();
    std::fs::create_dir(w.project.join("private")).unwrap();
    // (A split directory takes no new files itself; its subdirectories stay writable.)
    std::fs::create_dir(w.project.join("work")).unwrap();
    let private = w.p(&w.project.join("private"));
    let id = w.create(&["--sandbox", "--deny-read", &private]);
    let (code, out) = w.sh(
        &id,
        "touch esc/pwned root/tmp/../x; echo made > work/mine.txt",
    );
    assert!(out.contains("Permission denied"), "{code} {out}");
    assert!(!w.outside.join("pwned").exists(), "{out}");
    assert!(w.project.join("work/mine.txt").exists(), "{out}");
}

#[test]
fn the_requests_environment_reaches_only_the_confined_shell() {
    // LD_PRELOAD set by the request must never load into kpty before the sandbox holds (the
    // library would write a file outside; only an unconfined process could): `create`
    // refuses the variable outright, and whatever else the request sets is handed over
    // only by the confined launcher, right before it execs the shell.
    let Some(w) = World::new("the_requests_environment_reaches_only_the_confined_shell") else {
        return;
    };
    let marker = w.outside.join("preloaded");
    let src = w.project.join("pre.c");
    std::fs::write(
        &src,
        format!(
            "#include <stdio.h>\n__attribute__((constructor)) static void hit(void) {{\n\
             FILE *f = fopen(\"{}\", \"a\"); if (f) {{ fputs(\"x\", f); fclose(f); }} }}\n",
            w.p(&marker)
        ),
    )
    .unwrap();
    let so = w.project.join("pre.so");
    let built = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&so)
        .arg(&src)
        .status();
    if !built.is_ok_and(|s| s.success()) {
        skip("no C compiler to build an LD_PRELOAD library (gcc)");
        return;
    }
    let env = format!("LD_PRELOAD={}", w.p(&so));
    let (code, v) = w.create_json(&["--sandbox", "--env", &env], &[]);
    assert_eq!(code, Some(116), "{v}");
    assert_eq!(v["details"]["field"], "env.LD_PRELOAD", "{v}");
    assert!(!marker.exists(), "LD_PRELOAD ran: {v}");
    let id = w.create(&["--sandbox", "--env", "KPTY_PROBE=seen"]);
    let (code, out) = w.sh(&id, "echo \"[$KPTY_PROBE][${KPTY_SANDBOX_ENV-unset}]\"");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("[seen][unset]"), "{out}");
    assert!(!marker.exists(), "LD_PRELOAD ran unconfined: {out}");
}

/// Another kpty instance's state (and runtime) directory, its sessions killed on drop.
struct Other {
    state: std::path::PathBuf,
    run: Option<std::path::PathBuf>,
    home: std::path::PathBuf,
    /// The runtime directory `cmd` leaves it with when `run` is `None` (the world's): where
    /// the kill on drop finds its holders.
    world_run: std::path::PathBuf,
}

impl Other {
    fn cmd(&self, w: &World, args: &[&str]) -> std::process::Command {
        let mut c = w.env.cmd(args);
        c.env("KPTY_STATE_DIR", &self.state)
            .env("HOME", &self.home)
            .current_dir(&self.home);
        if let Some(r) = &self.run {
            c.env("KPTY_RUNTIME_DIR", r);
        }
        c
    }
}

impl Drop for Other {
    fn drop(&mut self) {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_kpty"));
        c.args(["kill", "--all"])
            .env("KPTY_STATE_DIR", &self.state)
            .env("HOME", &self.home)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        c.env(
            "KPTY_RUNTIME_DIR",
            self.run.as_ref().unwrap_or(&self.world_run),
        );
        let _ = c.status();
    }
}

#[test]
fn other_instances_and_the_private_dir_are_hidden() {
    let Some(w) = World::new("other_instances_and_the_private_dir_are_hidden") else {
        return;
    };
    let root = w.project.parent().unwrap().to_path_buf();
    // One instance with another state dir and this runtime dir (so in this index), one with
    // its own runtime dir too (known through the private record).
    let a = Other {
        state: root.join("a/state"),
        run: None,
        home: w.home.clone(),
        world_run: w.env.runtime().to_path_buf(),
    };
    let b = Other {
        state: root.join("b/state"),
        run: Some(root.join("b/run")),
        home: w.home.clone(),
        world_run: w.env.runtime().to_path_buf(),
    };
    for o in [&a, &b] {
        std::fs::create_dir_all(&o.state).unwrap();
        let out = run(o.cmd(&w, &["--json", "create"]), &["create"]);
        assert!(out.status.success(), "{}", parse(&out, &["create"]));
    }
    let private = w.home.join(".local/state/kpty");
    assert!(private.is_dir(), "the private directory is made");
    std::fs::write(private.join("secret.txt"), "PRIVATE-SECRET").unwrap();
    let b_run = b.run.clone().unwrap();
    let b_sock = std::fs::read_dir(&b_run)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "sock"))
        .expect("b's holder socket");
    let id = w.create(&["--sandbox"]);
    let script = format!(
        "echo \"a=[$(ls -A {a})]\"; cat {a}/_registry.json\n\
         echo \"b=[$(ls -A {brun})]\"; test -S {bsock} && echo b-socket-visible\n\
         echo \"p=[$(ls -A {p})]\"; cat {p}/secret.txt\n",
        a = w.p(&a.state),
        brun = w.p(&b_run),
        bsock = w.p(&b_sock),
        p = w.p(&private),
    );
    std::fs::write(w.project.join("look.sh"), script).unwrap();
    let (_, out) = w.sh(&id, "sh look.sh");
    assert!(
        out.contains("a=[]") && out.contains("b=[]") && out.contains("p=[]"),
        "{out}"
    );
    assert!(
        !out.contains("pty_registry")
            && !out.contains("b-socket-visible")
            && !out.contains("PRIVATE-SECRET"),
        "{out}"
    );
    let list = w.env.ok_json(&["list"]);
    let hidden = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["session_id"] == id.as_str())
        .map(|e| e["sandbox"]["hidden"].clone())
        .unwrap();
    for d in [&a.state, &b_run, &private] {
        let real = Value::from(w.p(&d.canonicalize().unwrap()));
        assert!(
            hidden.as_array().unwrap().contains(&real),
            "{d:?} in {hidden}"
        );
    }
}

#[test]
fn a_required_floor_binds_kpty_serve_too() {
    let Some(w) = World::new("a_required_floor_binds_kpty_serve_too") else {
        return;
    };
    let serve = crate::bridge::Serve::start_args(&w.env, &["--sandbox=required"], &[]);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .proxy(None)
        .http_status_as_error(false)
        .timeout_global(Some(std::time::Duration::from_secs(30)))
        .build()
        .into();
    let call = |args: Value| -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "k_pty", "arguments": args}});
        let mut r = agent
            .post(format!("{}/mcp", serve.url))
            .header("Authorization", format!("Bearer {}", serve.secret))
            .header("Accept", "application/json")
            .send_json(body)
            .expect("POST /mcp");
        let v: Value = r.body_mut().read_json().expect("a JSON answer");
        v["result"]["structuredContent"].clone()
    };
    let v = call(json!({"action": "create", "sandbox": false}));
    assert_eq!(v["error_code"], "SANDBOX_REQUIRED", "{v}");
    assert!(
        s(&v, "message").contains("kpty serve --sandbox=required"),
        "{v}"
    );
    let v = call(json!({"action": "create", "allow_write": ["/"]}));
    assert_eq!(v["error_code"], "SANDBOX_REQUIRED", "{v}");
    let v = call(json!({"action": "create"}));
    assert_eq!(v["ok"], true, "{v}");
    assert!(v["sandbox"]["abi"].is_u64(), "{v}");
}
