//! `kpty rename` and the MCP `rename` action: a session gets a new label, checked as
//! `create --label` checks one (unique in the state directory, printable, 1-64 characters,
//! not secret-looking), written under the registry lock, and audited.

use crate::mcp;
use crate::support::{Env, s};
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn rename_relabels_a_session_for_every_later_command() {
    let env = Env::new();
    let id = env.create(&["--label", "first"]);
    let said = env.ok(&["rename", "-s", "first", "second"]);
    assert_eq!(said.trim(), id);
    assert_eq!(env.entry(&id)["label"], "second");
    // The holder's metadata.json follows the registry.
    let meta_label = || {
        let path = env.state().join("sessions").join(&id).join("metadata.json");
        let text = std::fs::read_to_string(path).unwrap_or_default();
        serde_json::from_str::<serde_json::Value>(&text).unwrap_or_default()["label"].clone()
    };
    crate::support::wait_for(10_000, "metadata.json to carry the new label", || {
        meta_label() == "second"
    });
    assert_eq!(env.out("second", "echo by-new-name"), "by-new-name");
    let v = env.fails(&["read", "-s", "first"], 119, "PTY_SESSION_NOT_FOUND");
    assert!(s(&v, "message").contains("first"), "{v}");
    // By id prefix, and through KPTY_SESSION.
    env.ok(&["rename", "-s", &id[..8], "third"]);
    let out = env
        .cmd(&["rename", "fourth"])
        .env("KPTY_SESSION", "third")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(env.entry(&id)["label"], "fourth");
    // Over MCP: the same action, the same checks.
    let m = mcp::start(&env).await;
    let v = m
        .json(json!({"action": "rename", "session_id": id, "label": "fifth"}))
        .await;
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["session"]["label"], "fifth", "{v}");
    let v = m.json(json!({"action": "rename", "session_id": id})).await;
    assert_eq!(v["error_code"], "INVALID_PARAMS", "{v}");
    m.close().await;
    crate::support::wait_for(10_000, "metadata.json to carry fifth", || {
        meta_label() == "fifth"
    });
    // It stays when the session ends (the holder's last save).
    env.ok(&["kill", &id]);
    crate::support::wait_for(10_000, "the final save", || {
        let path = env.state().join("sessions").join(&id).join("metadata.json");
        std::fs::read_to_string(path).is_ok_and(|t| t.contains("\"killed\""))
    });
    assert_eq!(meta_label(), "fifth");
    // Audited, as every action is.
    let log = env.ok(&["log", "--action", "rename"]);
    assert!(
        log.lines().filter(|l| l.contains(" ok ")).count() >= 4,
        "{log}"
    );
}

#[test]
fn rename_refuses_what_create_refuses() {
    let env = Env::new();
    let id = env.create(&["--label", "mine"]);
    let other = env.create(&["--label", "taken"]);
    let long = "x".repeat(65);
    for bad in [
        "taken",
        "",
        "   ",
        &long,
        "tab\there",
        "esc\u{1b}[2J",
        "sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    ] {
        let v = env.fails(&["rename", "-s", &id, bad], 115, "INVALID_PARAMS");
        assert!(!s(&v, "message").is_empty(), "{v}");
        // create --label refuses it as well.
        if !bad.trim().is_empty() {
            let out = env.kpty(&["--json", "create", "--label", bad]);
            assert_eq!(
                out.status.code(),
                Some(115),
                "create --label {bad:?}: {out:?}"
            );
        }
    }
    assert_eq!(env.entry(&id)["label"], "mine");
    assert_eq!(env.entry(&other)["label"], "taken");
    // Renaming a session to its own label is no conflict.
    env.ok(&["rename", "-s", &id, "mine"]);
    // No session named: a usage error that names the flag.
    let out = env.kpty(&["--json", "rename", "newname"]);
    assert_eq!(out.status.code(), Some(115), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("-s/--session"),
        "{out:?}"
    );
    env.fails(
        &["rename", "-s", "nosuch", "x"],
        119,
        "PTY_SESSION_NOT_FOUND",
    );
}

/// Concurrent renames are serialised by the registry lock: of many racing for one label
/// exactly one wins, and renames of different sessions all land (no lost update).
#[test]
fn concurrent_renames_never_lose_an_update_nor_share_a_label() {
    let env = Env::new();
    let ids: Vec<String> = (0..4).map(|_| env.create(&[])).collect();
    let race = |labels: Vec<String>| -> Vec<bool> {
        let children: Vec<_> = ids
            .iter()
            .zip(&labels)
            .map(|(id, l)| crate::support::spawn(env.cmd(&["--json", "rename", "-s", id, l])))
            .collect();
        children
            .into_iter()
            .map(|c| crate::support::wait_child(c, &["rename"]).status.success())
            .collect()
    };
    let won = race(vec!["same".to_string(); 4]);
    assert_eq!(won.iter().filter(|w| **w).count(), 1, "{won:?}");
    let reg = env.registry();
    let holders = ids
        .iter()
        .filter(|id| reg["sessions"][id.as_str()]["label"] == "same")
        .count();
    assert_eq!(holders, 1, "{reg}");
    let won = race((0..4).map(|i| format!("own-{i}")).collect());
    assert!(won.iter().all(|w| *w), "{won:?}");
    let reg = env.registry();
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(
            reg["sessions"][id.as_str()]["label"],
            format!("own-{i}"),
            "{reg}"
        );
    }
}
