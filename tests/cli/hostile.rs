//! A hostile state directory (one a cloned repository can ship), stalled holders and held
//! locks: each attack fails and nothing outside the state directory changes.

use crate::support::*;
use serde_json::{Value, json};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn is_root() -> bool {
    rustix::process::getuid().is_root()
}

/// Write `_registry.json` with one hand-made entry (a state dir an attacker prepared).
fn plant_registry(env: &Env, entry: Value) {
    std::fs::create_dir_all(env.state().join("sessions")).unwrap();
    let id = entry["session_id"].as_str().unwrap().to_string();
    let reg = json!({"schema": "pty_registry_v1", "sessions": {id: entry}});
    std::fs::write(
        env.state().join("_registry.json"),
        serde_json::to_vec_pretty(&reg).unwrap(),
    )
    .unwrap();
}

/// An unrelated long-running process in its own process group, killed on Drop.
struct Bystander(Child);

impl Bystander {
    fn start() -> Self {
        use std::os::unix::process::CommandExt;
        let child = Command::new("sleep")
            .arg("600")
            .process_group(0)
            .stdin(Stdio::null())
            .spawn()
            .expect("start sleep");
        Self(child)
    }
    fn pid(&self) -> u32 {
        self.0.id()
    }
    fn alive(&mut self) -> bool {
        matches!(self.0.try_wait(), Ok(None))
    }
}

impl Drop for Bystander {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn list_never_deletes_a_file_named_as_a_socket() {
    let env = Env::new();
    let precious = env.home().join("important.txt");
    std::fs::write(&precious, "keep me").unwrap();
    plant_registry(
        &env,
        json!({"session_id": "pty_0badc0de", "source": "local",
               "socket": precious.display().to_string(), "label": "worker"}),
    );
    let v = env.ok_json(&["list"]);
    assert_eq!(v["sessions"][0]["state"], "dead", "{v}");
    env.ok_json(&["prune", "--force"]);
    env.json(&["kill", "pty_0badc0de"]);
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep me");
}

#[test]
fn kill_never_signals_pids_read_from_the_state_dir() {
    let env = Env::new();
    let mut bystander = Bystander::start();
    // A socket that answers garbage, where the entry says the holder listens.
    let sock = env.dir.path().join("garbage.sock");
    let listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    std::thread::spawn(move || {
        use std::io::Write;
        for c in listener.incoming().flatten() {
            let mut c = c;
            let _ = c.write_all(b"\xff\xff\xff\xffgarbage");
        }
    });
    let pid = bystander.pid();
    plant_registry(
        &env,
        json!({"session_id": "pty_0badc0de", "source": "local", "label": "worker",
               "socket": sock.display().to_string(), "pid": pid, "holder_pid": pid}),
    );
    std::fs::create_dir_all(env.state().join("sessions/pty_0badc0de")).unwrap();
    std::fs::write(
        env.state().join("sessions/pty_0badc0de/metadata.json"),
        json!({"session_id": "pty_0badc0de", "pid": pid, "holder_pid": pid,
               "socket": sock.display().to_string(), "state": "running"})
        .to_string(),
    )
    .unwrap();
    env.json(&["kill", "worker"]);
    env.json(&["kill", "pty_0badc0de"]);
    assert!(
        bystander.alive(),
        "kpty kill signalled an unrelated process"
    );
    // The planted pids must not reach the test's own cleanup either.
    std::fs::remove_dir_all(env.state()).unwrap();
}

#[test]
fn audit_lines_never_go_through_a_planted_link() {
    let env = Env::new();
    let id = env.create(&["--label", "worker"]);
    let bashrc = env.home().join(".bashrc");
    std::fs::write(&bashrc, "# mine\n").unwrap();
    let events = env.state().join(format!("sessions/{id}/events.jsonl"));
    let _ = std::fs::remove_file(&events);
    std::os::unix::fs::symlink(&bashrc, &events).unwrap();
    // The tampered session is refused, naming the link; nothing reaches the link's target.
    let v = env.fails(
        &["talk", "-s", "worker", "echo `id` hi"],
        113,
        "STATE_ERROR",
    );
    assert!(s(&v, "message").contains("symbolic link"), "{v}");
    assert!(s(&v, "message").contains("events.jsonl"), "{v}");
    env.json(&["send-line", "-s", "worker", "echo hi"]);
    env.json(&["term-read", "-s", "worker"]);
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "# mine\n");
    // Put back as a group-writable file: refused too, with the fix.
    std::fs::remove_file(&events).unwrap();
    std::fs::write(&events, "").unwrap();
    std::fs::set_permissions(&events, std::fs::Permissions::from_mode(0o664)).unwrap();
    let v = env.fails(&["talk", "-s", "worker", "echo hi"], 113, "STATE_ERROR");
    assert!(s(&v, "message").contains("chmod go-w"), "{v}");
    std::fs::set_permissions(&events, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(s(&env.talk("worker", "echo back"), "output").trim(), "back");
    // A session folder replaced by a link to HOME: nothing is written into HOME.
    let dir = env.state().join(format!("sessions/{id}"));
    let moved = env.state().join("moved");
    std::fs::rename(&dir, &moved).unwrap();
    std::os::unix::fs::symlink(env.home(), &dir).unwrap();
    env.json(&["send-line", "-s", "worker", "echo hi"]);
    env.kpty(&["log"]);
    assert!(!env.home().join("events.jsonl").exists());
    assert!(!env.home().join("metadata.json").exists());
    std::fs::remove_file(&dir).unwrap();
    std::fs::rename(&moved, &dir).unwrap();
}

#[test]
fn the_bridge_secret_is_never_read_or_chmodded_through_a_link() {
    let env = Env::new();
    std::fs::create_dir_all(env.state().join("sessions")).unwrap();
    let target = env.home().join("target.txt");
    std::fs::write(&target, "x".repeat(64)).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::os::unix::fs::symlink(&target, env.state().join("_bridge_secret")).unwrap();
    let mut c = env.cmd(&["serve", "--port", "0"]);
    c.stdin(Stdio::null());
    let out = run(c, &["serve"]);
    assert!(!out.status.success(), "serve started: {}", stdout(&out));
    assert!(stderr(&out).contains("STATE_ERROR"), "{}", stderr(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    let mode = std::fs::metadata(&target).unwrap().mode() & 0o777;
    assert_eq!(mode, 0o644, "the link's target was chmodded");
}

#[test]
fn loose_or_foreign_state_is_refused_with_state_error() {
    let env = Env::new();
    env.create(&["--label", "a"]);
    // Group-writable state dir.
    std::fs::set_permissions(env.state(), std::fs::Permissions::from_mode(0o775)).unwrap();
    let v = env.fails(&["list"], 113, "STATE_ERROR");
    assert!(s(&v, "message").contains("chmod go-w"), "{v}");
    std::fs::set_permissions(env.state(), std::fs::Permissions::from_mode(0o700)).unwrap();
    // A registry file others may write.
    let reg = env.state().join("_registry.json");
    std::fs::set_permissions(&reg, std::fs::Permissions::from_mode(0o666)).unwrap();
    let v = env.fails(&["talk", "-s", "a", "echo hi"], 113, "STATE_ERROR");
    assert!(s(&v, "message").contains("_registry.json"), "{v}");
    std::fs::set_permissions(&reg, std::fs::Permissions::from_mode(0o600)).unwrap();
    env.ok_json(&["list"]);
    // A state dir that is a link.
    let other = Env::new();
    std::fs::create_dir_all(other.dir.path().join("real")).unwrap();
    std::os::unix::fs::symlink(other.dir.path().join("real"), other.state()).unwrap();
    let v = other.fails(&["list"], 113, "STATE_ERROR");
    assert!(s(&v, "message").contains("symbolic link"), "{v}");
    if !is_root() {
        skip("the foreign-owner half needs root to chown");
        return;
    }
    std::os::unix::fs::chown(&reg, Some(65534), None).unwrap();
    let v = env.fails(&["list"], 113, "STATE_ERROR");
    assert!(s(&v, "message").contains("owned by uid 65534"), "{v}");
    std::os::unix::fs::chown(&reg, Some(0), None).unwrap();
    env.ok_json(&["list"]);
}

#[test]
fn state_files_are_private() {
    let env = Env::new();
    let id = env.create(&[]);
    env.talk(&id, "echo hi");
    let check = |p: &Path, want: u32| {
        let m = std::fs::symlink_metadata(p).unwrap().mode() & 0o777;
        assert_eq!(m, want, "{} has mode {m:o}", p.display());
    };
    check(env.state(), 0o700);
    check(&env.state().join("sessions"), 0o700);
    check(&env.state().join(format!("sessions/{id}")), 0o700);
    for f in ["_registry.json", "_registry.lock", "_registry_events.jsonl"] {
        check(&env.state().join(f), 0o600);
    }
    for f in ["metadata.json", "events.jsonl", "holder.log"] {
        check(&env.state().join(format!("sessions/{id}/{f}")), 0o600);
    }
}

#[test]
fn a_failed_create_leaves_no_session_folder() {
    let env = Env::new();
    env.fails(
        &["create", "--shell", "/nonexistent/shell"],
        120,
        "PTY_SPAWN_FAILED",
    );
    let left: Vec<_> = std::fs::read_dir(env.state().join("sessions"))
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn a_squatted_runtime_dir_names_kpty_runtime_dir() {
    let env = Env::new();
    let squat = env.dir.path().join("squat");
    if is_root() {
        std::fs::create_dir(&squat).unwrap();
        std::os::unix::fs::chown(&squat, Some(65534), Some(65534)).unwrap();
    } else {
        std::os::unix::fs::symlink("/tmp", &squat).unwrap();
    }
    let mut c = env.cmd(&["--json", "create"]);
    c.env("KPTY_RUNTIME_DIR", &squat);
    let out = run(c, &["create"]);
    let v = parse(&out, &["create"]);
    assert_eq!(v["error_code"], "STATE_ERROR", "{v}");
    assert!(s(&v, "message").contains("KPTY_RUNTIME_DIR"), "{v}");
}

#[test]
fn a_stopped_holder_costs_no_more_than_the_timeout() {
    let env = Env::new();
    let id = env.create(&[]);
    let holder = env.entry(&id)["holder_pid"].as_u64().unwrap();
    let stop = |sig: &str| {
        Command::new("kill")
            .args([sig, &holder.to_string()])
            .status()
            .unwrap()
    };
    stop("-STOP");
    let t = Instant::now();
    let v = env.json(&["talk", "-s", &id, "-t", "1500", "echo hi"]);
    let took = t.elapsed();
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error_code"], "PTY_TIMEOUT", "{v}");
    assert!(took < Duration::from_secs(9), "talk -t 1500 took {took:?}");
    let t = Instant::now();
    let v = env.json(&["send-line", "-s", &id, "echo hi"]);
    assert_eq!(v["ok"], false, "{v}");
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    // kill proves the stopped holder is the session's (it listens on its socket) and ends it.
    let t = Instant::now();
    let v = env.ok_json(&["kill", &id]);
    assert_eq!(v["state_before"], "unresponsive", "{v}");
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    wait_for(5000, "the stopped holder to be gone", || pid_gone(holder));
}

#[test]
fn a_held_registry_lock_fails_create_with_a_deadline() {
    let env = Env::new();
    env.create(&[]);
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(env.state().join("_registry.lock"))
        .unwrap();
    lock.lock().unwrap();
    let mut c = env.cmd(&["--json", "create"]);
    c.env("KPTY_LOCK_TIMEOUT_MS", "300");
    let out = run(c, &["create"]);
    let v = parse(&out, &["create"]);
    assert_eq!(v["error_code"], "STATE_ERROR", "{v}");
    assert!(s(&v, "message").contains("_registry.lock"), "{v}");
    drop(lock);
    env.create(&[]);
}

#[test]
fn a_corrupt_registry_does_not_cut_off_a_live_session_named_by_id() {
    let env = Env::new();
    let id = env.create(&[]);
    std::fs::write(env.state().join("_registry.json"), b"{ torn").unwrap();
    let v = env.ok_json(&["talk", "-s", &id, "echo still-here"]);
    assert!(s(&v, "output").contains("still-here"), "{v}");
    // Anything that needs the registry itself still says what is wrong.
    let v = env.fails(&["list"], 113, "STATE_ERROR");
    assert!(s(&v, "message").contains("corrupt"), "{v}");
    // Let the test's cleanup find the holder again.
    std::fs::remove_file(env.state().join("_registry.json")).unwrap();
}

#[test]
fn sockets_of_killed_holders_are_swept() {
    let env = Env::new();
    let a = env.create(&[]);
    let b = env.create(&[]);
    let e = env.entry(&a);
    let run_dir = env.dir.path().join("run");
    let socks = || {
        std::fs::read_dir(&run_dir)
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "sock"))
            .count()
    };
    assert_eq!(socks(), 2);
    let holder = e["holder_pid"].as_u64().unwrap();
    kill_9(holder);
    if let Some(p) = e["pid"].as_u64() {
        let _ = Command::new("kill").args(["-9", &p.to_string()]).status();
    }
    wait_for(5000, "the holder to die", || pid_gone(holder));
    // The registry forgets it (as when a state dir is thrown away), yet the next create
    // proves its socket dead and removes it.
    env.json(&["kill", &a]);
    let _ = env.create(&[]);
    assert_eq!(socks(), 2, "b's and the new session's sockets only");
    env.talk(&b, "true");
}

#[test]
fn a_full_disk_is_reported_and_audit_lines_stay_whole() {
    if !is_root() {
        skip("mounting a small tmpfs needs root");
        return;
    }
    let env = Env::new();
    let mnt = env.dir.path().join("full");
    std::fs::create_dir(&mnt).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
        .arg(&mnt)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        skip("cannot mount a tmpfs here");
        return;
    }
    struct Unmount(std::path::PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(mnt.clone());
    let state = mnt.join("state");
    let with_state = |args: &[&str]| {
        let mut c = env.cmd(args);
        c.env("KPTY_STATE_DIR", &state);
        parse(&run(c, args), args)
    };
    let v = with_state(&["--json", "create"]);
    assert_eq!(v["ok"], true, "{v}");
    let id = s(&v, "session_id").to_string();
    let holder = v["holder_pid"].as_u64().unwrap();
    // Fill the disk.
    let _ = Command::new("dd")
        .args(["if=/dev/zero", "bs=64k"])
        .arg(format!("of={}", mnt.join("fill").display()))
        .stderr(Stdio::null())
        .status();
    for i in 0..20 {
        with_state(&["--json", "send-line", "-s", &id, &format!("echo line {i}")]);
    }
    // Its audit entry cannot be written: the kill is refused, and the session lives on.
    let v = with_state(&["--json", "kill", &id]);
    assert_eq!(v["error_code"], "AUDIT_FAILED", "{v}");
    assert!(!pid_gone(holder), "a refused kill killed the holder");
    // The operator's choice: act without an audit trail. The registry cannot be written.
    let mut c = env.cmd(&["--json", "kill", &id]);
    c.env("KPTY_STATE_DIR", &state)
        .env("KPTY_AUDIT_FAIL", "open");
    let v = parse(&run(c, &["kill"]), &["kill"]);
    assert_eq!(v["ok"], false, "kill claimed success on a full disk: {v}");
    assert_eq!(v["error_code"], "STATE_ERROR", "{v}");
    wait_for(5000, "the holder to be gone", || pid_gone(holder));
    for f in [
        state.join("_registry_events.jsonl"),
        state.join(format!("sessions/{id}/events.jsonl")),
    ] {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for line in text.lines() {
            assert!(
                serde_json::from_str::<Value>(line).is_ok(),
                "torn line in {}: {line:?}",
                f.display()
            );
        }
        assert!(text.is_empty() || text.ends_with('\n'), "{text:?}");
    }
}

#[test]
fn another_user_can_read_no_state_and_reach_no_socket() {
    if !is_root() {
        skip("running a command as another user needs root");
        return;
    }
    use std::os::unix::process::CommandExt;
    let env = Env::new();
    let id = env.create(&[]);
    env.talk(&id, "echo secret-ish");
    // Let others traverse the test's own temp dir, so only kpty's modes stand in the way.
    std::fs::set_permissions(env.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let as_nobody = |prog: &str, args: &[&str]| {
        Command::new(prog)
            .args(args)
            .uid(65534)
            .gid(65534)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    let files = [
        env.state().join("_registry.json"),
        env.state().join(format!("sessions/{id}/metadata.json")),
        env.state().join(format!("sessions/{id}/events.jsonl")),
        env.state().join(format!("sessions/{id}/buffer.txt")),
    ];
    for f in &files {
        assert!(f.exists() || f.ends_with("buffer.txt"), "{}", f.display());
        assert!(
            !as_nobody("cat", &[&f.display().to_string()]),
            "uid 65534 read {}",
            f.display()
        );
    }
    let run_dir = env.dir.path().join("run");
    let sock = std::fs::read_dir(&run_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "sock"))
        .expect("a socket");
    let py = format!(
        "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect({:?})\nexcept OSError:\n sys.exit(1)\n",
        sock.display().to_string()
    );
    if Command::new("python3").arg("--version").output().is_ok() {
        assert!(!as_nobody("python3", &["-c", &py]), "uid 65534 connected");
    }
    let mut c = env.cmd(&["--json", "list"]);
    c.uid(65534).gid(65534);
    let out = run(c, &["list"]);
    assert!(!out.status.success(), "{}", stdout(&out));
}

#[test]
fn names_from_a_planted_registry_cannot_drive_the_terminal() {
    let env = Env::new();
    plant_registry(
        &env,
        json!({"session_id": "pty_0badc0de", "source": "local",
               "label": "\u{1b}]0;pwned\u{7}\u{1b}[2J", "shell": "\u{9b}31m"}),
    );
    let out = env.kpty(&["list"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(text.contains("pty_0badc0de"), "{text}");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{9b}'),
        "control characters reached the terminal: {text:?}"
    );
    assert!(text.contains("\\u{1b}]0;pwned"), "{text:?}");
    // Nor can an audit line planted (or typed) with escapes, shown by `kpty log`.
    std::fs::write(
        env.state().join("_registry_events.jsonl"),
        format!(
            "{}\n",
            json!({"ts": "2026-01-01T00:00:00Z", "action": "send_line", "session_id": "pty_0badc0de",
                   "command": "\u{1b}]0;pwned\u{7}", "success": true})
        ),
    )
    .unwrap();
    let out = env.kpty(&["log"]);
    let text = stdout(&out);
    assert!(text.contains("send_line"), "{text:?}{}", stderr(&out));
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
}

#[test]
fn a_directory_above_the_state_dir_that_others_can_write_is_refused() {
    // ssh's StrictModes for every directory from the state directory up to `/`: each mode
    // that lets group or others write (and is not a root-owned sticky one) is refused by
    // every verb, with the directory named and the fix.
    let env = Env::new();
    let project = env.dir.path().join("project");
    let state = project.join("ai/checkpoints/pty");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o700)).unwrap();
    let with_state = |args: &[&str]| {
        let mut c = env.cmd(args);
        c.env("KPTY_STATE_DIR", &state);
        run(c, args)
    };
    for (dir, mode) in [
        (project.join("ai"), 0o777),
        (project.join("ai"), 0o775),
        (project.join("ai/checkpoints"), 0o757),
        (project.clone(), 0o1777),
    ] {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode)).unwrap();
        for verb in [
            &["--json", "list"][..],
            &["--json", "create"],
            &["--json", "log"],
        ] {
            let out = with_state(verb);
            let v = parse(&out, verb);
            let sticky_root = mode & 0o1000 != 0 && is_root();
            if sticky_root {
                // Like /tmp: root's sticky directories are fine.
                continue;
            }
            assert_eq!(out.status.code(), Some(113), "{verb:?} {mode:o}: {v}");
            assert!(s(&v, "message").contains(&*dir.to_string_lossy()), "{v}");
            assert!(s(&v, "message").contains("chmod go-w"), "{v}");
        }
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let _ = with_state(&["kill", "--all"]);
}

#[test]
fn log_refuses_an_audit_trail_it_cannot_trust() {
    let env = Env::new();
    let id = env.create(&[]);
    env.talk(&id, "echo audited");
    assert!(env.ok(&["log"]).contains("echo audited"));
    let events = env.state().join("sessions").join(&id).join("events.jsonl");
    let elsewhere = env.dir.path().join("elsewhere.jsonl");
    std::fs::rename(&events, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &events).unwrap();
    let v = env.fails(&["log"], 113, "STATE_ERROR");
    assert!(s(&v, "message").contains("events.jsonl"), "{v}");
    assert!(s(&v, "message").contains("symbolic link"), "{v}");
    let v = env.fails(&["log", "--session", &id], 113, "STATE_ERROR");
    assert!(s(&v, "message").contains("events.jsonl"), "{v}");
}

/// What is planted in a session's state between two calls of one long-lived server.
#[derive(Debug, Clone, Copy)]
enum Tamper {
    /// `events.jsonl` replaced by a link to a file in HOME.
    JournalLink,
    /// `events.jsonl` made writable by the group.
    JournalLoose,
    /// `events.jsonl` replaced by a FIFO.
    JournalFifo,
    /// `events.jsonl` replaced by a directory.
    JournalDir,
    /// `_registry.json` replaced by a link to a copy in HOME.
    RegistryLink,
    /// The session's folder replaced by a link to HOME.
    FolderLink,
}

impl Tamper {
    const ALL: [Tamper; 6] = [
        Tamper::JournalLink,
        Tamper::JournalLoose,
        Tamper::JournalFifo,
        Tamper::JournalDir,
        Tamper::RegistryLink,
        Tamper::FolderLink,
    ];

    /// Plant it; returns how to put the state back.
    fn plant(self, env: &Env, id: &str) -> Box<dyn FnOnce()> {
        let events = env.state().join(format!("sessions/{id}/events.jsonl"));
        let keep = env.home().join(format!("kept-{self:?}"));
        let bait = env.home().join("bait.txt");
        std::fs::write(&bait, "# mine\n").unwrap();
        match self {
            Tamper::JournalLink | Tamper::JournalFifo | Tamper::JournalDir => {
                std::fs::rename(&events, &keep).unwrap();
                match self {
                    Tamper::JournalLink => std::os::unix::fs::symlink(&bait, &events).unwrap(),
                    Tamper::JournalFifo => {
                        rustix::fs::mknodat(
                            rustix::fs::CWD,
                            &events,
                            rustix::fs::FileType::Fifo,
                            rustix::fs::Mode::from_raw_mode(0o600),
                            0,
                        )
                        .unwrap();
                    }
                    _ => std::fs::create_dir(&events).unwrap(),
                }
                Box::new(move || {
                    let _ = std::fs::remove_file(&events);
                    let _ = std::fs::remove_dir(&events);
                    std::fs::rename(&keep, &events).unwrap();
                })
            }
            Tamper::JournalLoose => {
                std::fs::set_permissions(&events, std::fs::Permissions::from_mode(0o664)).unwrap();
                Box::new(move || {
                    std::fs::set_permissions(&events, std::fs::Permissions::from_mode(0o600))
                        .unwrap()
                })
            }
            Tamper::RegistryLink => {
                let reg = env.state().join("_registry.json");
                std::fs::rename(&reg, &keep).unwrap();
                std::fs::copy(&keep, &bait).unwrap();
                std::os::unix::fs::symlink(&bait, &reg).unwrap();
                Box::new(move || {
                    std::fs::remove_file(&reg).unwrap();
                    std::fs::rename(&keep, &reg).unwrap();
                })
            }
            Tamper::FolderLink => {
                let dir = env.state().join(format!("sessions/{id}"));
                std::fs::rename(&dir, &keep).unwrap();
                std::os::unix::fs::symlink(env.home(), &dir).unwrap();
                Box::new(move || {
                    std::fs::remove_file(&dir).unwrap();
                    std::fs::rename(&keep, &dir).unwrap();
                })
            }
        }
    }
}

/// A long-lived server (`kpty mcp`) remembers for a moment what it proved of the state
/// directory; state tampered with right after a call it made is refused all the same, as a
/// `STATE_ERROR`, and nothing is written through what was planted. Each kind, planted
/// between two calls, then put back: the session works again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_lived_server_refuses_state_tampered_between_two_calls() {
    let env = Env::new();
    let id = env.create(&["--label", "worker"]);
    let m = crate::mcp::start(&env).await;
    let talk = |cmd: &str| json!({"action": "talk", "session_id": "worker", "command": cmd});
    for kind in Tamper::ALL {
        let v = m.json(talk("echo before")).await;
        assert_eq!(
            v["output"].as_str().map(str::trim),
            Some("before"),
            "{kind:?}: {v}"
        );
        let restore = kind.plant(&env, &id);
        let v = m.json(talk("echo `id` during")).await;
        assert_eq!(
            v["error_code"], "STATE_ERROR",
            "{kind:?} was not refused: {v}"
        );
        assert_eq!(
            std::fs::read_to_string(env.home().join("bait.txt")).unwrap(),
            if matches!(kind, Tamper::RegistryLink) {
                std::fs::read_to_string(env.home().join(format!("kept-{kind:?}"))).unwrap()
            } else {
                "# mine\n".to_string()
            },
            "{kind:?}: something was written through the planted link"
        );
        assert!(!env.home().join("events.jsonl").exists(), "{kind:?}");
        assert!(!env.home().join("metadata.json").exists(), "{kind:?}");
        restore();
    }
    let v = m.json(talk("echo after")).await;
    assert_eq!(v["output"].as_str().map(str::trim), Some("after"), "{v}");
    // Nothing typed while the state was tampered with reached the shell.
    let v = env.read("worker", &[]);
    assert!(!s(&v, "output").contains("during"), "{v}");
    m.close().await;
}
