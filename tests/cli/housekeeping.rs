//! Housekeeping: `kpty prune` removes ended sessions and their files (never a live one's),
//! `kpty kill --all` ends every session of the state directory, and `kpty list --all` shows
//! the sessions of every state directory this user has used.

use crate::support::{Env, s, wait_for};
use serde_json::json;

fn folder_exists(env: &Env, id: &str) -> bool {
    env.state().join("sessions").join(id).is_dir()
}

#[test]
fn prune_removes_ended_sessions_files_but_never_a_live_ones() {
    let env = Env::new();
    let live = env.create(&["--label", "live"]);
    let exited = env.create(&["--label", "done"]);
    let killed = env.create(&[]);
    env.ok(&["kill", &killed]);
    env.ok(&["send-line", "-s", &exited, "exit 3"]);
    wait_for(15_000, "the shell to exit", || {
        env.entry(&exited)["state"] == "exited"
    });
    assert!(folder_exists(&env, &exited) && folder_exists(&env, &killed));

    // --dry-run only lists.
    let v = env.ok_json(&["prune", "--dry-run"]);
    assert_eq!(v["ended_local"][0]["session_id"], exited.as_str(), "{v}");
    assert_eq!(v["removed_files"], json!([]));
    assert!(folder_exists(&env, &exited));

    // The holder of an exited shell goes away by itself; then prune removes it all.
    wait_for(15_000, "the exited session's files to be pruned", || {
        env.ok_json(&["prune"]);
        !folder_exists(&env, &exited)
    });
    assert!(
        !folder_exists(&env, &killed),
        "a killed session's folder goes too"
    );
    assert!(folder_exists(&env, &live), "a live session's folder stays");
    let reg = env.registry();
    assert!(reg["sessions"].get(&exited).is_none());
    assert!(reg["sessions"].get(&live).is_some());
    assert_eq!(env.out(&live, "echo still-here"), "still-here");

    // Human output names what went.
    let gone = env.create(&[]);
    env.ok(&["kill", &gone]);
    let text = env.ok(&["prune"]);
    assert!(
        text.contains(&format!("removed the files of {gone}")),
        "{text}"
    );
}

#[test]
fn prune_leaves_foreign_and_linked_folders_alone() {
    let env = Env::new();
    let live = env.create(&[]);
    let sessions = env.state().join("sessions");
    // Not named as kpty names sessions, or holding a file kpty never writes: not kpty's.
    std::fs::create_dir(sessions.join("notes")).unwrap();
    std::fs::create_dir(sessions.join("pty_0000cafe")).unwrap();
    std::fs::write(sessions.join("pty_0000cafe/mine.txt"), "mine").unwrap();
    // An empty leftover of a failed start is.
    std::fs::create_dir(sessions.join("pty_0000f00d")).unwrap();
    // A link named like a session: never followed, never removed through.
    let outside = env.dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), "keep").unwrap();
    std::os::unix::fs::symlink(&outside, sessions.join("pty_0000beef")).unwrap();
    env.ok_json(&["prune"]);
    assert!(sessions.join("notes").is_dir());
    assert!(sessions.join("pty_0000cafe/mine.txt").is_file());
    assert!(!sessions.join("pty_0000f00d").exists());
    assert_eq!(
        std::fs::read_to_string(outside.join("keep.txt")).unwrap(),
        "keep"
    );
    assert!(folder_exists(&env, &live));
}

#[test]
fn kill_all_ends_every_session_of_this_state_dir() {
    let env = Env::new();
    let other = Env::new();
    let a = env.create(&["--label", "a"]);
    let b = env.create(&[]);
    let elsewhere = other.create(&[]);
    let v = env.ok_json(&["kill", "--all"]);
    let mut ids: Vec<&str> = v["killed"]
        .as_array()
        .expect("killed")
        .iter()
        .map(|k| s(k, "session_id"))
        .collect();
    ids.sort();
    let mut want = vec![a.as_str(), b.as_str()];
    want.sort();
    assert_eq!(ids, want, "{v}");
    assert_eq!(v["failed"], json!([]));
    assert_eq!(env.ok_json(&["list"])["sessions"], json!([]));
    assert_eq!(other.entry(&elsewhere)["state"], "running");
    // Nothing left: still fine, nothing printed.
    assert_eq!(env.ok(&["kill", "--all"]), "");
    let c = env.create(&[]);
    assert_eq!(env.ok(&["kill", "--all"]).trim(), format!("killed {c}"));
    // --all names no session.
    env.fails(&["kill", "--all", "-s", &c], 2, "INVALID_PARAMS");
}
