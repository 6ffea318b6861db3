//! A session made in one environment and used from another: a desktop terminal (where
//! `XDG_RUNTIME_DIR` is set), an ssh login or cron (where it is not), a script with its own
//! `KPTY_RUNTIME_DIR`. Its holder's socket lies in the runtime directory of the environment
//! that made it. From any environment whose kpty can find it there (kpty's default
//! directories are all looked in) the session works as at home; from one that cannot, it is
//! never called dead nor forgotten while its holder runs: `list` says `unresponsive` and why,
//! a call is refused with nothing typed, and `kill` ends the holder — proven by the
//! session's own `holder.log` open as its standard error, never by the registry's pid alone.

use crate::support::*;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// Where a kpty process runs, as far as its runtime directory goes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    /// A login without `XDG_RUNTIME_DIR` (`<TMPDIR>/kpty-UID`).
    Login,
    /// A desktop terminal (`$XDG_RUNTIME_DIR/kpty`).
    Desktop,
    /// A script with `KPTY_RUNTIME_DIR` of its own, no `XDG_RUNTIME_DIR`.
    Script,
    /// `KPTY_RUNTIME_DIR` of its own in a desktop terminal.
    DesktopScript,
}
use Place::*;

const PLACES: [Place; 4] = [Login, Desktop, Script, DesktopScript];

/// The test's world: one state directory, one TMPDIR and one XDG_RUNTIME_DIR for every place.
struct World {
    env: Env,
    root: tempfile::TempDir,
}

impl World {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        for d in ["tmp", "xdg", "script", "desktop-script"] {
            std::fs::create_dir_all(root.path().join(d)).unwrap();
            std::fs::set_permissions(
                root.path().join(d),
                std::os::unix::fs::PermissionsExt::from_mode(0o700),
            )
            .unwrap();
        }
        Self {
            env: Env::new(),
            root,
        }
    }

    fn dir(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }

    /// `kpty ARGS` as run in `place`.
    fn cmd(&self, place: Place, args: &[&str]) -> Command {
        let mut c = self.env.cmd(args);
        c.env_remove("KPTY_RUNTIME_DIR")
            .env_remove("XDG_RUNTIME_DIR")
            .env("TMPDIR", self.dir("tmp"));
        match place {
            Login => {}
            Desktop => {
                c.env("XDG_RUNTIME_DIR", self.dir("xdg"));
            }
            Script => {
                c.env("KPTY_RUNTIME_DIR", self.dir("script"));
            }
            DesktopScript => {
                c.env("XDG_RUNTIME_DIR", self.dir("xdg"))
                    .env("KPTY_RUNTIME_DIR", self.dir("desktop-script"));
            }
        }
        c
    }

    fn json(&self, place: Place, args: &[&str]) -> (Option<i32>, Value) {
        let all = [&["--json"][..], args].concat();
        let out = run(self.cmd(place, &all), &all);
        (out.status.code(), parse(&out, &all))
    }

    fn kill_all(&self) {
        for p in PLACES {
            let _ = self.cmd(p, &["kill", "--all"]).output();
        }
    }
}

impl Drop for World {
    fn drop(&mut self) {
        self.kill_all();
    }
}

/// Whether `made`'s sockets are in a directory kpty run in `from` looks in: its own, and the
/// defaults (`$XDG_RUNTIME_DIR/kpty` when set there, `<TMPDIR>/kpty-UID`).
fn reachable(made: Place, from: Place) -> bool {
    made == from || made == Login || (made == Desktop && matches!(from, DesktopScript))
}

/// Whether process `pid` still runs (a zombie has ended).
fn running(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
    })
}

fn state_of(w: &World, place: Place, id: &str) -> Value {
    let (_, v) = w.json(place, &["list"]);
    v["sessions"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["session_id"] == id).cloned())
        .unwrap_or(Value::Null)
}

/// Every pair of places: a session made in one and used from the other works there when its
/// socket can be found, and is otherwise `unresponsive` (never `dead`), refuses calls with
/// nothing typed, and is ended — holder and shell — by `kill` from there.
#[test]
fn a_session_made_in_one_environment_is_reached_or_ended_from_any_other() {
    let cells: Vec<(Place, Place)> = PLACES
        .iter()
        .flat_map(|m| PLACES.iter().map(move |f| (*m, *f)))
        .filter(|(m, f)| m != f)
        .collect();
    std::thread::scope(|s| {
        for (made, from) in cells {
            s.spawn(move || cell(made, from));
        }
    });
}

fn cell(made: Place, from: Place) {
    let w = World::new();
    let what = format!("made in {made:?}, used from {from:?}");
    let (_, v) = w.json(made, &["create", "--label", "far"]);
    let id = v["session_id"].as_str().expect("created").to_string();
    let holder = v["holder_pid"].as_u64().unwrap();
    let shell = v["pid"].as_u64().unwrap();
    if reachable(made, from) {
        assert_eq!(state_of(&w, from, &id)["state"], "running", "{what}");
        let (code, v) = w.json(from, &["talk", "-s", &id, "echo reached-$((40+2))"]);
        assert_eq!(code, Some(0), "{what}: {v}");
        assert!(
            v["output"].as_str().unwrap().contains("reached-42"),
            "{what}: {v}"
        );
    } else {
        let s = state_of(&w, from, &id);
        assert_eq!(s["state"], "unresponsive", "{what}: {s}");
        let problem = s["problem"].as_str().unwrap_or_default();
        assert!(
            problem.contains("KPTY_RUNTIME_DIR") && problem.contains(&holder.to_string()),
            "{what}: {s}"
        );
        for args in [
            &["talk", "-s", &id, "echo never-$((6*7))"][..],
            &["send-line", "-s", &id, "echo never-$((6*7))"][..],
        ] {
            let (code, v) = w.json(from, args);
            assert_eq!(
                (code, &v["error_code"]),
                (Some(113), &Value::from("STATE_ERROR")),
                "{what}: {args:?}: {v}"
            );
        }
        // Nothing of it reached the shell: its own environment reads the screen.
        let (_, v) = w.json(made, &["read", "-s", &id, "--since", "0"]);
        let out = v["output"].as_str().unwrap_or_default();
        assert!(
            !out.contains("never-42") && !out.contains("never-$"),
            "{what}: {out}"
        );
    }
    let (code, v) = w.json(from, &["kill", "-s", &id]);
    assert_eq!(
        (code, &v["killed"]),
        (Some(0), &Value::Bool(true)),
        "{what}: {v}"
    );
    wait_for(
        10_000,
        &format!("{what}: the holder and the shell end"),
        || !running(holder) && !running(shell),
    );
    for p in [made, from] {
        assert_eq!(
            w.json(p, &["list"]).1["count"],
            0,
            "{what}: seen from {p:?}"
        );
    }
}

/// A holder whose socket was removed (a clean-up of `/tmp`) is `unresponsive`, and `kill`
/// ends it; a registry entry naming another session's live holder as its own is believed of
/// nothing: it is dead, and killing it leaves the other session running.
#[test]
fn a_holder_is_believed_only_with_its_own_log_open() {
    let w = World::new();
    let (_, a) = w.json(Script, &["create", "--label", "a"]);
    let (_, b) = w.json(Script, &["create", "--label", "b"]);
    let (a_id, a_holder) = (
        a["session_id"].as_str().unwrap(),
        a["holder_pid"].as_u64().unwrap(),
    );
    let (b_id, b_holder) = (
        b["session_id"].as_str().unwrap(),
        b["holder_pid"].as_u64().unwrap(),
    );
    let socket_of = |id: &str| -> PathBuf {
        std::fs::read_dir(w.dir("script"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with(&format!("-{id}.sock")))
            .expect("the socket")
    };
    // B's socket is removed: B is unresponsive, not dead, and kill ends it.
    std::fs::remove_file(socket_of(b_id)).unwrap();
    assert_eq!(state_of(&w, Script, b_id)["state"], "unresponsive");
    let (code, v) = w.json(Script, &["kill", "-s", b_id]);
    assert_eq!(code, Some(0), "{v}");
    wait_for(10_000, "b's holder ends", || !running(b_holder));

    // A's holder is killed outright (its socket left behind); the registry then names a
    // live holder of another session (C) as A's.
    let (_, c) = w.json(Script, &["create", "--label", "c"]);
    let c_holder = c["holder_pid"].as_u64().unwrap();
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(a_holder as i32).unwrap(),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    wait_for(10_000, "a's holder ends", || !running(a_holder));
    let registry = w.env.state().join("_registry.json");
    let mut reg: Value =
        serde_json::from_str(&std::fs::read_to_string(&registry).unwrap()).unwrap();
    reg["sessions"][a_id]["holder_pid"] = Value::from(c_holder);
    std::fs::write(&registry, serde_json::to_vec_pretty(&reg).unwrap()).unwrap();
    for p in [Script, Login, Desktop] {
        assert_eq!(state_of(&w, p, a_id)["state"], "dead", "from {p:?}");
    }
    let (code, v) = w.json(Login, &["kill", "-s", a_id]);
    assert_eq!(
        (code, &v["state_before"]),
        (Some(0), &Value::from("dead")),
        "{v}"
    );
    assert!(running(c_holder), "another session's holder was killed");
    assert_eq!(
        state_of(&w, Script, c["session_id"].as_str().unwrap())["state"],
        "running"
    );
}
