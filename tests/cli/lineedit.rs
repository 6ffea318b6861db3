//! The dangerous-command check sees what the shell will run: editing keys (DEL, Ctrl-U/W/K/T/Y/V,
//! NUL, Esc DEL, Ctrl-A + insert, arrows), a line split across writes and Tab completion are
//! refused through send-line, talk and MCP-equivalent paths with nothing typed, and a real
//! bash proves nothing ran; ordinary editing keys and `\xNN` byte escapes still work.

use crate::support::{Env, s};
use serde_json::Value;

/// Ways to type `cat ~/.ssh/id_rsa >ran` — a command the check blocks (reading an SSH key)
/// that is harmless in the test HOME and leaves a trace if it ever runs (the redirect creates
/// `~/ran`) — so that bash, after line editing, runs exactly it; in kpty's escape
/// syntax (send-line, talk), each submitted with Enter.
pub const DISGUISED: &[&str] = &[
    r"x\x7fcat ~/.ssh/id_rsa >ran",             // DEL
    r"x\x08cat ~/.ssh/id_rsa >ran",             // Ctrl-H
    r"echo safe\x15cat ~/.ssh/id_rsa >ran",     // Ctrl-U
    r"echo safe\x17\x17cat ~/.ssh/id_rsa >ran", // Ctrl-W
    r"c\x16at ~/.ssh/id_rsa >ran",              // Ctrl-V
    r"true;\x00cat ~/.ssh/id_rsa >ran",         // NUL
    r"cat ~/.ssh/id_rsa >ran; echo x\x02\x02\x02\x02\x02\x02\x02\x02\x0b", // Ctrl-B, Ctrl-K
    r"act ~/.ssh/id_rsa >ran\x01\x06\x14",      // Ctrl-A, Ctrl-F, Ctrl-T
    r"~/.ssh/id_rsa >ran\x01\x0bcat \x19",      // Ctrl-K, Ctrl-Y
    r"cat ~/.ssh/id_rsa >ran junk\x1b\x7f",     // Esc DEL
    r"at ~/.ssh/id_rsa >ran\x01c",              // Ctrl-A + insert
    r"at ~/.ssh/id_rsa >ran\x1b[Hc",            // Home (CSI) + insert
    r"cat ~/.ssh/id_rsa >ranx\x1b[D\x1b[3~",    // Left, Delete
    r"ca\x1b:t ~/.ssh/id_rsa >ran",             // unbound Esc + key (dropped by readline)
    r"cat ~/.ssh/id_rsa >ran\x03cat ~/.ssh/id_rsa >ran", // Ctrl-C, then again
];

/// The session still answers, `~/ran` does not exist, and the key path never reached the
/// terminal (so nothing of the refused writes was typed).
pub fn assert_nothing_ran(env: &Env, id: &str) {
    assert_eq!(env.out(id, "echo still-here"), "still-here");
    assert!(!env.home().join("ran").exists(), "a blocked command ran");
    let all = env.read(id, &["--since", "0", "--max-bytes", "1000000"]);
    assert!(!s(&all, "output").contains("id_rsa"), "typed: {all}");
}

fn blocked(v: &Value) -> &str {
    s(&v["details"], "pattern")
}

#[test]
fn editing_keys_cannot_smuggle_a_blocked_command_past_send_line_or_talk() {
    let env = Env::new();
    let id = env.create(&[]);
    for data in DISGUISED {
        for verb in ["send-line", "talk"] {
            let v = env.fails(&[verb, "-s", &id, data], 116, "DANGEROUS_COMMAND_BLOCKED");
            assert_eq!(blocked(&v), "ssh_key_read", "{verb} {data}: {v}");
            assert!(s(&v, "message").contains("nothing was typed"), "{v}");
        }
    }
    // CR or LF inside a talk command: each line is a command.
    // (`\r` before a letter stays text, as in `C:\rust`: spell CR and LF as bytes.)
    for data in [
        r"true\x0dcat ~/.ssh/id_rsa >ran",
        r"true\x0acat ~/.ssh/id_rsa >ran",
    ] {
        env.fails(&["talk", "-s", &id, data], 116, "DANGEROUS_COMMAND_BLOCKED");
    }
    assert_nothing_ran(&env, &id);
}

#[test]
fn the_message_shows_the_line_the_shell_would_read() {
    let env = Env::new();
    let id = env.create(&[]);
    let v = env.fails(
        &["send-line", "-s", &id, r"x\x7fcat ~/.ssh/id_rsa"],
        116,
        "DANGEROUS_COMMAND_BLOCKED",
    );
    assert_eq!(s(&v["details"], "line"), "cat ~/.ssh/id_rsa", "{v}");
    assert!(s(&v, "message").contains("\"cat ~/.ssh/id_rsa\""), "{v}");
}

#[test]
fn completion_and_history_edits_cannot_be_submitted_unseen() {
    let env = Env::new();
    let id = env.create(&[]);
    for data in [
        r"cat ~/.ssh/id_rs\t >ran", // Tab completion
        r"\x1b[Acat ~/.ssh/id_rsa", // history, then an edit
        r"\x12cat",                 // reverse search
    ] {
        let v = env.fails(
            &["send-line", "-s", &id, data],
            116,
            "DANGEROUS_COMMAND_BLOCKED",
        );
        assert!(
            ["unverifiable_line_edit", "ssh_key_read"].contains(&blocked(&v)),
            "{data}: {v}"
        );
    }
    let v = env.fails(
        &["send-line", "-s", &id, r"echo hel\x09lo"],
        116,
        "DANGEROUS_COMMAND_BLOCKED",
    );
    assert_eq!(
        (blocked(&v), s(&v["details"], "key")),
        ("unverifiable_line_edit", "Tab (completion)"),
        "{v}"
    );
    assert!(s(&v, "message").contains("Tab"), "{v}");
    assert_nothing_ran(&env, &id);
}

#[test]
fn ordinary_editing_keys_still_work() {
    let env = Env::new();
    let id = env.create(&[]);
    let from = env.offset(&id);
    // DEL and Ctrl-U edit the line as bash does.
    env.send_line(&id, r"echo abc\x7f\x7fXY");
    env.read_until(&id, from, "aXY\r\n");
    let from = env.offset(&id);
    env.send_line(&id, r"echo wrong\x15echo right-$((40+2))");
    env.read_until(&id, from, "right-42\r\n");
    // Ctrl-C on its own, and a history recall made of keys alone.
    env.send_line(&id, r"\x03");
    let from = env.offset(&id);
    env.send_line(&id, r"\x1b[A");
    env.read_until(&id, from, "right-42\r\n");
    // `\xNN` escapes are bytes: two of them spell é.
    assert_eq!(env.out(&id, r"echo caf\xc3\xa9"), "café");
    // A byte that is not text is refused before anything is typed.
    let v = env.fails(
        &["send-line", "-s", &id, r"echo \xe9"],
        115,
        "INVALID_PARAMS",
    );
    assert!(s(&v, "message").contains(r"\xe9"), "{v}");
}

#[test]
fn full_screen_programs_take_keys_and_text_in_one_write() {
    // On the alternate screen no line editor reads the input: arrows + text + Enter pass.
    let env = Env::new();
    std::fs::write(env.home().join("notes.txt"), "one\n").expect("write notes.txt");
    let id = env.create(&[]);
    env.send_line(&id, "vim -u NONE -N notes.txt");
    crate::support::wait_for(10_000, "vim on the alternate screen", || {
        env.read(&id, &["--timeout-ms", "300"])["terminal_state"] == "full_screen"
    });
    env.send_line(&id, r"Otwo\x1bOBthree\x1b:wq");
    crate::support::wait_for(10_000, "vim to write notes.txt", || {
        std::fs::read_to_string(env.home().join("notes.txt"))
            .is_ok_and(|t| t.contains("two") && t.contains("three"))
    });
}
