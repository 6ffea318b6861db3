//! insta snapshots of what users and scripts read: help texts and every action's JSON shape
//! (ids, times, pids and offsets redacted). Snapshots live in the top-level snapshots/.

use crate::support::Env;
use serde_json::Value;

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s.add_filter(r"\d+\.\d+\.\d+", "[version]");
    // Session ids named in messages (a hint's `kpty read -s ID`).
    s.add_filter(r"pty_[0-9a-f]{8}", "[id]");
    s
}

/// Replace values that change between runs, keeping the shape (keys and types).
fn shape(v: &Value) -> Value {
    let volatile: Vec<&str> = crate::support::VOLATILE
        .iter()
        .copied()
        .chain(["cwd", "socket", "state_dir", "shell", "ts"])
        .collect();
    crate::support::mask(v, &volatile, &|k, x| match x {
        Value::Number(_) => Value::String(format!("[{k}:number]")),
        _ => Value::String(format!("[{k}]")),
    })
}

/// A `check` reply with what depends on how the policy reads a line (a shell parser or
/// patterns) masked: the shape stays, whichever is in force.
fn policy_masked(mut v: Value) -> Value {
    for k in ["parsed", "checked_as", "commands"] {
        v[k] = Value::String(format!("[{k}]"));
    }
    v
}

#[test]
fn help_texts() {
    let env = Env::new();
    settings().bind(|| {
        insta::assert_snapshot!("help_main", env.ok(&["--help"]));
        insta::assert_snapshot!("help_talk", env.ok(&["talk", "--help"]));
        insta::assert_snapshot!("help_create", env.ok(&["create", "--help"]));
        insta::assert_snapshot!("help_read", env.ok(&["read", "--help"]));
        insta::assert_snapshot!("help_check", env.ok(&["check", "--help"]));
    });
}

#[test]
fn action_json_shapes() {
    let env = Env::new();
    let id = env.create(&["--label", "snap", "--cols", "80", "--rows", "24"]);
    let created = env.json(&["list"]);
    let talk = env.json(&["talk", "-s", &id, "echo hi"]);
    let send = env.json(&["send-line", "-s", &id, "echo sent"]);
    let read = env.json(&["read", "-s", &id, "--max-bytes", "16", "--since", "0"]);
    let resize = env.json(&["resize", "-s", &id, "--cols", "100", "--rows", "40"]);
    // Start the timed-out talk from an idle prompt (send-line's command may still be running).
    env.talk_when_free(&id, "true");
    let timeout = env.json(&["talk", "-s", &id, "-t", "300", "sleep 2"]);
    let missing = env.json(&["talk", "-s", "pty_00000000", "echo"]);
    let kill = env.json(&["kill", &id]);
    let check = policy_masked(env.json(&["check", "rm -rf /"]));
    settings().bind(|| {
        insta::assert_json_snapshot!("json_list", shape(&created));
        insta::assert_json_snapshot!("json_talk", shape(&talk));
        insta::assert_json_snapshot!("json_send_line", shape(&send));
        insta::assert_json_snapshot!("json_read", shape(&read));
        insta::assert_json_snapshot!("json_resize", shape(&resize));
        insta::assert_json_snapshot!("json_error_timeout", shape(&timeout));
        insta::assert_json_snapshot!("json_error_not_found", shape(&missing));
        insta::assert_json_snapshot!("json_kill", shape(&kill));
        insta::assert_json_snapshot!("json_check", check);
    });
}
