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

    // --dry-run only lists: in JSON, and in words on stdout.
    let v = env.ok_json(&["prune", "--dry-run"]);
    assert_eq!(v["ended_local"][0]["session_id"], exited.as_str(), "{v}");
    assert_eq!(v["removed_files"], json!([]));
    let said = env.ok(&["prune", "--dry-run"]);
    assert!(
        said.lines()
            .any(|l| l.starts_with(&format!("would prune {exited}"))),
        "{said:?}"
    );
    assert!(folder_exists(&env, &exited));

    // The holder of an exited shell goes away by itself; then prune removes it all — the
    // killed session's folder too (once its holder has finished saving its last output).
    wait_for(
        15_000,
        "the exited and killed sessions' files to be pruned",
        || {
            env.ok_json(&["prune"]);
            !folder_exists(&env, &exited) && !folder_exists(&env, &killed)
        },
    );
    assert!(folder_exists(&env, &live), "a live session's folder stays");
    let reg = env.registry();
    assert!(reg["sessions"].get(&exited).is_none());
    assert!(reg["sessions"].get(&live).is_some());
    assert_eq!(env.out(&live, "echo still-here"), "still-here");

    // Human output names what went.
    let gone = env.create(&[]);
    env.ok(&["kill", &gone]);
    // Its holder may still be saving the output for a moment: prune keeps a session whose
    // holder still runs, so ask until it is gone.
    let mut said = String::new();
    wait_for(15_000, "prune to remove the killed session's files", || {
        said.push_str(&env.ok(&["prune"]));
        said.contains(&format!("removed the files of {gone}"))
    });
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

/// `kpty ARGS` in `env`'s state directory but with `run` as the runtime directory (so two
/// test environments share one index), as JSON.
fn json_with_runtime(env: &Env, run: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let mut full = vec!["--json"];
    full.extend_from_slice(args);
    let out = env
        .cmd(&full)
        .env("KPTY_RUNTIME_DIR", run)
        .output()
        .expect("run kpty");
    crate::support::parse(&out, args)
}

fn sessions_by_dir(v: &serde_json::Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = v["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|x| {
            (
                s(x, "state_dir").to_string(),
                s(x, "session_id").to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn list_all_shows_every_state_dir_used_and_forgets_removed_ones() {
    let a = Env::new();
    let b = Env::new();
    let run = a.dir.path().join("run");
    let in_a = s(
        &json_with_runtime(&a, &run, &["create", "--label", "in-a"]),
        "session_id",
    )
    .to_string();
    let in_b = s(
        &json_with_runtime(&b, &run, &["create", "--label", "in-b"]),
        "session_id",
    )
    .to_string();
    let (da, db) = (
        a.state().display().to_string(),
        b.state().display().to_string(),
    );
    let mut want = vec![(da.clone(), in_a.clone()), (db.clone(), in_b.clone())];
    want.sort();
    // From either state directory, both are listed, each with its state_dir.
    let v = json_with_runtime(&a, &run, &["list", "--all"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(sessions_by_dir(&v), want, "{v}");
    assert_eq!(
        sessions_by_dir(&json_with_runtime(&b, &run, &["list", "--all"])),
        want
    );
    // Plain list stays this state directory's.
    assert_eq!(json_with_runtime(&a, &run, &["list"])["count"], 1);
    // Human output names the directories.
    let out = a
        .cmd(&["list", "--all"])
        .env("KPTY_RUNTIME_DIR", &run)
        .output()
        .unwrap();
    let text = crate::support::stdout(&out);
    assert!(
        text.contains(&format!("{db}:")) && text.contains("in-b"),
        "{text}"
    );
    // One blank line between directories, each directory's table under its own name: no
    // whitespace-only lines, nothing after the last table, nothing on stderr.
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0] == format!("{da}:"), "{text}");
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() {
            assert!(l.is_empty(), "a whitespace line: {text:?}");
            assert!(lines.get(i + 1).is_some_and(|n| n.ends_with(':')), "{text}");
        }
    }
    assert_eq!(lines.iter().filter(|l| l.is_empty()).count(), 1, "{text}");
    assert!(!text.ends_with("\n\n"), "{text:?}");
    assert_eq!(crate::support::stderr(&out), "", "{out:?}");

    // b's sessions end and its state directory goes: the index forgets it.
    json_with_runtime(&b, &run, &["kill", "--all"]);
    // (A killed holder may still be saving its last output for a moment.)
    wait_for(15_000, "b's state directory to be removed", || {
        let _ = std::fs::remove_dir_all(b.state());
        !b.state().exists()
    });
    let v = json_with_runtime(&a, &run, &["list", "--all"]);
    assert_eq!(sessions_by_dir(&v), vec![(da.clone(), in_a.clone())], "{v}");
    let index = std::fs::read_to_string(run.join("state-dirs")).unwrap();
    assert!(!index.contains(&db), "{index}");
    assert!(index.contains(&da), "{index}");
}

#[test]
fn a_hostile_index_is_read_safely() {
    use std::os::unix::fs::PermissionsExt;
    let a = Env::new();
    let run = a.dir.path().join("run");
    let mine = a.create(&["--label", "mine"]);
    // Another state directory with a session's registry, reached only through a link; one
    // writable by others; garbage lines; a relative path.
    let b = Env::new();
    let other = s(&json_with_runtime(&b, &run, &["create"]), "session_id").to_string();
    let link = a.dir.path().join("link-to-b");
    std::os::unix::fs::symlink(b.state(), &link).unwrap();
    let open = a.dir.path().join("open/state");
    std::fs::create_dir_all(&open).unwrap();
    std::fs::copy(
        b.state().join("_registry.json"),
        open.join("_registry.json"),
    )
    .unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let index = format!(
        "{}\n{}\nrelative/dir\n\u{1b}]0;x\u{7}\n/no/such/dir\n{}\n",
        link.display(),
        open.display(),
        "x".repeat(5000)
    );
    std::fs::write(run.join("state-dirs"), index).unwrap();
    let v = json_with_runtime(&a, &run, &["list", "--all"]);
    assert_eq!(v["ok"], true, "{v}");
    let ids: Vec<String> = sessions_by_dir(&v).into_iter().map(|(_, id)| id).collect();
    assert_eq!(ids, vec![mine.clone()], "{v}");
    assert!(!ids.contains(&other));
    let left = std::fs::read_to_string(run.join("state-dirs")).unwrap();
    assert!(left.is_empty(), "the bad entries are pruned: {left:?}");

    // The index itself a link: not followed; list --all still lists this directory.
    let decoy = a.dir.path().join("decoy");
    std::fs::write(&decoy, format!("{}\n", b.state().display())).unwrap();
    std::fs::remove_file(run.join("state-dirs")).unwrap();
    std::os::unix::fs::symlink(&decoy, run.join("state-dirs")).unwrap();
    let v = json_with_runtime(&a, &run, &["list", "--all"]);
    let ids: Vec<String> = sessions_by_dir(&v).into_iter().map(|(_, id)| id).collect();
    assert_eq!(ids, vec![mine], "{v}");
    assert_eq!(
        std::fs::read_to_string(&decoy).unwrap(),
        format!("{}\n", b.state().display()),
        "the link's target is never written"
    );
}
