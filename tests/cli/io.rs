//! `send-line` and `read`: typing, waiting for output, incremental reads by offset, bytes that
//! fell out of the ring, `--strip-ansi`, escape processing, and `resize`.

use crate::support::{Env, s, spawn, wait_child};
use serde_json::Value;

#[test]
fn send_line_then_read_shows_the_output() {
    let env = Env::new();
    let id = env.create(&[]);
    let from = env.offset(&id);
    let v = env.send_line(&id, "echo io-$((2+3))");
    assert_eq!(s(&v, "session_id"), id);
    assert_eq!(
        (&v["typed"]["bytes_written"], &v["enter"]["bytes_written"]),
        (&16.into(), &1.into())
    );
    let text = env.read_until(&id, from, "io-5\r\n");
    assert!(
        text.contains("echo io-$((2+3))"),
        "the typed line is echoed: {text:?}"
    );
}

#[test]
fn read_waits_for_output_to_arrive() {
    let env = Env::new();
    let id = env.create(&[]);
    let from = env.offset(&id).to_string();
    let reader = spawn(env.cmd(&[
        "--json",
        "read",
        "-s",
        &id,
        "--since",
        &from,
        "--timeout-ms",
        "20000",
    ]));
    env.send_line(&id, "echo woke");
    let out = wait_child(reader, &["read"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("read printed JSON");
    assert!(out.status.success(), "{v}");
    assert!(v["bytes_read"].as_u64().expect("bytes_read") > 0, "{v}");
    assert_eq!(v["start_offset"].as_u64(), from.parse().ok());
}

#[test]
fn read_with_nothing_new_returns_empty_after_its_timeout() {
    let env = Env::new();
    let id = env.create(&[]);
    let end = env.offset(&id);
    let v = env.read(&id, &["--since", &end.to_string(), "--timeout-ms", "300"]);
    assert_eq!((s(&v, "output"), &v["bytes_read"]), ("", &0.into()));
    assert_eq!(
        (&v["next_offset"], &v["session_alive"]),
        (&end.into(), &true.into())
    );
}

#[test]
fn since_and_next_offset_read_only_new_bytes() {
    let env = Env::new();
    let id = env.create(&[]);
    let first = env.talk(&id, "echo first-chunk");
    let second = env.talk(&id, "echo second-chunk");
    let first_end = first["end_offset"].as_u64().expect("end_offset");
    let v = env.read(
        &id,
        &["--since", &first_end.to_string(), "--max-bytes", "100000"],
    );
    let text = s(&v, "output");
    assert!(
        text.contains("second-chunk") && !text.contains("first-chunk"),
        "{v}"
    );
    assert_eq!(
        (&v["start_offset"], &v["dropped"]),
        (&first_end.into(), &0.into())
    );
    let second_start = second["start_offset"].as_u64().expect("start_offset");
    assert!(second_start >= first_end);

    let start = first["start_offset"].as_u64().expect("start_offset");
    let page = env.read(&id, &["--since", &start.to_string(), "--max-bytes", "5"]);
    assert_eq!(
        (&page["bytes_read"], &page["next_offset"]),
        (&5.into(), &(start + 5).into())
    );
    let rest = env.read(
        &id,
        &["--since", &(start + 5).to_string(), "--max-bytes", "100000"],
    );
    let whole = env.read(
        &id,
        &["--since", &start.to_string(), "--max-bytes", "100000"],
    );
    assert_eq!(
        format!("{}{}", s(&page, "output"), s(&rest, "output")),
        s(&whole, "output")
    );
}

#[test]
fn dropped_counts_bytes_that_fell_out_of_the_ring() {
    let env = Env::new();
    let id = env.create_with_env(&[("KURORYUU_PTY_BUFFER_SIZE", "2048")], &[]);
    let v = env.talk(&id, r"head -c 10000 /dev/zero | tr '\0' b; echo");
    assert_eq!(s(&v, "output"), "b".repeat(10_000));
    let r = env.read(&id, &["--since", "0", "--max-bytes", "100000"]);
    let dropped = r["dropped"].as_u64().expect("dropped");
    assert!(dropped >= 10_000 - 2048, "{r}");
    assert_eq!(r["start_offset"].as_u64(), Some(dropped));
    assert!(r["bytes_read"].as_u64().expect("bytes_read") <= 2048, "{r}");
    assert!(s(&r, "output").contains("bbbbbbbb"), "{r}");
}

#[test]
fn strip_ansi_removes_escape_sequences() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = env.talk(&id, r"printf '\033[1;31mBOLD\033[0m plain\\n'");
    let since = v["start_offset"]
        .as_u64()
        .expect("start_offset")
        .to_string();
    let raw = env.read(&id, &["--since", &since, "--max-bytes", "100000"]);
    assert!(
        s(&raw, "output").contains("\x1b[1;31mBOLD\x1b[0m plain"),
        "{raw}"
    );
    let clean = env.read(
        &id,
        &["--since", &since, "--max-bytes", "100000", "--strip-ansi"],
    );
    let text = s(&clean, "output");
    assert!(
        text.contains("BOLD plain\n") && !text.contains('\x1b') && !text.contains("\r\n"),
        "{clean}"
    );
}

#[test]
fn escapes_become_control_characters_but_not_inside_words() {
    let env = Env::new();
    // dash reads lines without an editor, so a typed tab stays a tab (bash would complete).
    let id = env.create(&["--shell", "/bin/sh"]);
    let from = env.offset(&id);
    env.send_line(&id, r#"printf "[%s]\\n" "x\t y" 'a\tb'"#);
    env.read_until(&id, from, "[a");
    let r = env.read(
        &id,
        &[
            "--since",
            &from.to_string(),
            "--max-bytes",
            "100000",
            "--strip-ansi",
        ],
    );
    let text = s(&r, "output");
    assert!(
        text.contains("[x\t y]\n") && text.contains("[a\\tb]\n"),
        "{text:?}"
    );
}

#[test]
fn a_windows_path_stays_intact() {
    let env = Env::new();
    let id = env.create(&[]);
    let from = env.offset(&id);
    env.send_line(&id, r"echo 'C:\Users\new_folder'");
    env.read_until(&id, from, "C:\\Users\\new_folder\r\n");
    assert_eq!(
        env.out(&id, r"echo 'C:\Users\new_folder'"),
        r"C:\Users\new_folder"
    );
}

#[test]
fn resize_changes_the_terminal_size() {
    let env = Env::new();
    let id = env.create(&["--cols", "80", "--rows", "24"]);
    assert_eq!(env.out(&id, "stty size"), "24 80");
    let v = env.ok_json(&["resize", "-s", &id, "--cols", "132", "--rows", "43"]);
    assert_eq!(
        (s(&v, "session_id"), &v["cols"], &v["rows"]),
        (id.as_str(), &132.into(), &43.into())
    );
    assert_eq!(env.out(&id, "stty size"), "43 132");
    let entry = env.entry(&id);
    assert_eq!((&entry["cols"], &entry["rows"]), (&132.into(), &43.into()));
}

#[test]
fn resize_out_of_range_is_refused() {
    let env = Env::new();
    let id = env.create(&[]);
    env.fails(
        &["resize", "-s", &id, "--cols", "0", "--rows", "10"],
        115,
        "INVALID_PARAMS",
    );
}

/// `kpty read --follow` prints output as it arrives, ends (status 0) when the session does,
/// and is one event in the audit trail however long it ran.
#[test]
fn read_follow_streams_until_the_session_ends() {
    let env = Env::new();
    let id = env.create(&[]);
    let mut cmd = env.cmd(&["read", "-s", &id, "--follow", "--strip-ansi"]);
    cmd.stdout(std::process::Stdio::piped());
    let mut child = spawn(cmd);
    let mut stream = crate::support::Stream::new(child.stdout.take().expect("stdout"));
    let mut wait_for = |needle: &str| {
        if !stream.until(needle, std::time::Duration::from_secs(20)) {
            panic!("{needle:?} not followed within 20 s; got {:?}", stream.seen);
        }
    };
    for i in 1..=3 {
        env.send_line(&id, &format!("echo follow-$((40+{i}))"));
        wait_for(&format!("follow-4{i}\n"));
    }
    env.ok(&["kill", &id]);
    let out = wait_child(child, &["read", "--follow"]);
    assert!(out.status.success(), "{out:?}");
    let events =
        std::fs::read_to_string(env.state().join("sessions").join(&id).join("events.jsonl"))
            .expect("events");
    let reads = events
        .lines()
        .filter(|l| serde_json::from_str::<Value>(l).is_ok_and(|e| e["action"] == "read"))
        .count();
    assert_eq!(reads, 1, "{events}");
}
