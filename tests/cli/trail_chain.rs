//! The audit trail as evidence (seed 003 §5.2–5.3): every entry says in one line what came of
//! it (`result_summary`), and is chained to the entry before it and sealed with this user's
//! key, so `kpty log --verify` names the first entry edited, removed, inserted or reordered —
//! a matrix of changes at every place — and a trail sealed by someone else does not pass;
//! writers at once keep one chain.

use crate::support::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The session's journal.
fn journal(env: &Env, id: &str) -> PathBuf {
    env.state().join("sessions").join(id).join("events.jsonl")
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("the journal")
        .lines()
        .map(str::to_string)
        .collect()
}

/// `kpty --json log --verify -s ID`: exit code and JSON.
fn verify(env: &Env, id: &str) -> (i32, Value) {
    let out = env.kpty(&["--json", "log", "--verify", "-s", id]);
    let v = parse(&out, &["log", "--verify"]);
    (out.status.code().unwrap_or(-1), v)
}

/// The first broken entry of the session's journal, as `--verify` names it.
fn broken(v: &Value) -> Option<(u64, String)> {
    v["journals"].as_array()?.iter().find_map(|j| {
        let b = j["broken"].as_array()?;
        Some((b[0].as_u64()?, b[1].as_str()?.to_string()))
    })
}

#[test]
fn every_entry_says_what_came_of_it_and_the_trail_verifies() {
    let env = Env::new();
    let id = env.create(&[]);
    env.talk(&id, "echo one; echo two");
    let out = env.kpty(&["--json", "talk", "-s", &id, "(exit 3)"]);
    assert_eq!(out.status.code(), Some(3));
    env.fails(
        &["talk", "-s", &id, "rm -rf /"],
        116,
        "DANGEROUS_COMMAND_BLOCKED",
    );
    env.fails(
        &["talk", "-s", &id, "-t", "300", "sleep 2"],
        124,
        "PTY_TIMEOUT",
    );
    let log = env.ok(&["--json", "log", "-s", &id]);
    let summaries: Vec<String> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["action"] == "talk")
        .map(|e| e["result_summary"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(summaries.len(), 4, "{log}");
    let starts = ["exit 0 in ", "exit 3 in ", "blocked: ", "timeout after "];
    for (s, start) in summaries.iter().zip(starts) {
        assert!(s.starts_with(start), "{s:?} for {start:?}");
    }
    assert!(summaries[0].ends_with(" ms, 2 lines"), "{}", summaries[0]);
    // The chain's fields are the journal's, not shown as the event's.
    assert!(!log.contains("\"seal\""), "{log}");
    let (code, v) = verify(&env, &id);
    assert_eq!(
        (code, &v["ok"], &v["seals_checked"]),
        (0, &Value::Bool(true), &Value::Bool(true)),
        "{v}"
    );
    let human = env.ok(&["log", "--verify", "-s", &id]);
    assert!(human.starts_with("ok "), "{human}");
}

#[test]
fn log_verify_names_the_first_entry_changed_wherever_it_was() {
    let env = Env::new();
    let id = env.create(&[]);
    for n in 0..4 {
        env.talk(&id, &format!("echo line-{n}"));
    }
    let path = journal(&env, &id);
    let original = lines(&path);
    let n = original.len();
    assert!(n >= 8, "{original:#?}");
    let write = |l: &[String]| std::fs::write(&path, l.join("\n") + "\n").unwrap();
    // Every place but the last (nothing follows the last to tell of its removal or a swap).
    for k in 0..n - 1 {
        let mut changes: Vec<(&str, Vec<String>)> = Vec::new();
        let mut edited = original.clone();
        edited[k] = edited[k].replacen("\"ts\":\"2", "\"ts\":\"1", 1);
        changes.push(("edited", edited));
        let mut removed = original.clone();
        removed.remove(k);
        changes.push(("removed", removed));
        let mut swapped = original.clone();
        swapped.swap(k, k + 1);
        changes.push(("swapped", swapped));
        let mut inserted = original.clone();
        inserted.insert(k, original[n - 1].clone());
        changes.push(("inserted", inserted));
        let mut stripped = original.clone();
        let cut = stripped[k].find(",\"prev\":").unwrap();
        stripped[k] = format!("{}}}", &stripped[k][..cut]);
        changes.push(("stripped", stripped));
        for (what, changed) in changes {
            write(&changed);
            let (code, v) = verify(&env, &id);
            assert_eq!(code, 1, "{what} at {k}: {v}");
            assert_eq!(
                broken(&v).map(|b| b.0),
                Some(k as u64 + 1),
                "{what} at {k}: {v}"
            );
        }
    }
    // What the chain cannot show: entries cut off the end.
    write(&original[..n - 1]);
    assert_eq!(verify(&env, &id).0, 0);
    // The original again: whole, and appended to as before.
    write(&original);
    env.talk(&id, "echo after");
    assert_eq!(verify(&env, &id).0, 0);
}

#[test]
fn a_trail_sealed_by_someone_else_does_not_pass() {
    let mine = Env::new();
    let theirs = Env::new();
    let id = mine.create(&[]);
    mine.talk(&id, "echo mine");
    let other = theirs.create(&[]);
    theirs.talk(&other, "echo theirs");
    // Their journal, whole and chained, put in place of mine: sealed with another key.
    std::fs::copy(journal(&theirs, &other), journal(&mine, &id)).unwrap();
    let (code, v) = verify(&mine, &id);
    assert_eq!(code, 1, "{v}");
    assert_eq!(broken(&v), Some((1, "edited".to_string())), "{v}");
    let human = mine.kpty(&["log", "--verify", "-s", &id]);
    assert!(stdout(&human).contains("BROKEN"), "{}", stdout(&human));
}

#[test]
fn writers_at_once_keep_one_chain() {
    let env = Env::new();
    let id = env.create(&[]);
    std::thread::scope(|s| {
        for t in 0..6 {
            let (env, id) = (&env, &id);
            s.spawn(move || {
                for n in 0..4 {
                    env.send_line(id, &format!("echo w{t}-{n}"));
                }
            });
        }
    });
    let (code, v) = verify(&env, &id);
    assert_eq!(code, 0, "{v}");
    let sent = lines(&journal(&env, &id))
        .iter()
        .filter(|l| l.contains("\"action\":\"send_line\""))
        .count();
    assert_eq!(sent, 24);
}
