//! `kpty attach`: a person at a terminal (a test-side PTY, as a terminal emulator would give)
//! joins a session — the screen redrawn, typing merged with other writers, the detach key,
//! the smallest size, read-only, stalled clients, and the terminal put back as it was.

use crate::support::{Env, kill_9, s, wait_for};
use crate::tty::Tty;
use serde_json::Value;

const DETACH: &[u8] = b"\x1c";

fn live<'a>(list: &'a Value, id: &str) -> &'a Value {
    list["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .find(|e| e["session_id"] == id)
        .expect("the session is listed")
}

/// Wait until `list` shows the session at `cols`×`rows` with `attached` clients.
fn wait_size(env: &Env, id: &str, cols: u64, rows: u64, attached: u64) {
    let mut last = Value::Null;
    let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        wait_for(10_000, "the session's size", || {
            last = env.ok_json(&["list"]);
            let e = live(&last, id);
            e["cols"] == cols && e["rows"] == rows && e["attached"] == attached
        })
    }));
    assert!(
        ok.is_ok(),
        "wanted {cols}x{rows} with {attached} attached: {last}"
    );
}

/// The visible screen of a terminal of `cols`×`rows` that was shown `bytes`.
fn screen_of(bytes: &str, cols: usize, rows: usize) -> Vec<String> {
    let mut vt = avt::Terminal::new(cols, rows).expect("a terminal model");
    vt.feed(bytes);
    vt.screen()
        .visible_lines()
        .map(|l| l.text().trim_end().to_string())
        .collect()
}

#[test]
fn attach_redraws_the_screen_and_types_into_the_shell() {
    let env = Env::new();
    let id = env.create(&["--cols", "90", "--rows", "20"]);
    assert_eq!(
        s(
            &env.talk(&id, "printf '\\e[1;31mred\\e[0m before-%s\\n' $((1+1))"),
            "output"
        ),
        "red before-2"
    );
    let mut tty = Tty::kpty(&env, &["attach", &id], (90, 20));
    tty.expect("attached to");
    tty.expect("before-2");
    // The redraw shows what the session's screen model holds.
    let viewport = env.ok_json(&[
        "term-read",
        "-s",
        &id,
        "--mode",
        "viewport",
        "--max-lines",
        "200",
    ]);
    let want: Vec<String> = viewport["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l.as_str().unwrap_or_default().trim_end().to_string())
        .collect();
    let shown = screen_of(tty.seen(), 90, 20);
    let shown: Vec<&String> = shown.iter().filter(|l| !l.is_empty()).collect();
    let want: Vec<&String> = want.iter().filter(|l| !l.is_empty()).collect();
    assert_eq!(shown, want, "the attached screen is the session's screen");
    assert!(
        tty.seen().contains("\x1b[1;31m") || tty.seen().contains("31m"),
        "colours kept"
    );

    tty.keys(b"echo typed-$((2+3))\r");
    tty.expect("typed-5");
    let out = env.ok(&["read", "-s", &id, "--max-bytes", "100000", "--strip-ansi"]);
    assert!(
        out.contains("typed-5"),
        "the shell ran what was typed: {out}"
    );
    tty.keys(DETACH);
    tty.expect("detached from");
    assert_eq!(tty.exit_code(), 0);
    // The session lives on.
    assert_eq!(
        s(&env.talk(&id, "echo still-$((3+4))"), "output"),
        "still-7"
    );
}

/// `kpty attach ID` in a terminal, run by a shell that saves `stty -g` before and after it
/// (see [`modes`]) and then prints its exit code and `done-42`.
fn attach_between_stty(env: &Env, id: &str) -> Tty {
    let dir = env.dir.path().display().to_string();
    let script = format!(
        "stty -g > '{dir}/before'; kpty attach {id}; echo \"code=$?\"; stty -g > '{dir}/after'; echo done-$((6*7))"
    );
    let mut tty = Tty::spawn(env, "/bin/sh", &["-c", &script], (100, 30), true);
    tty.expect("attached to");
    tty
}

/// The terminal's modes before and after `kpty attach` ([`attach_between_stty`]).
fn modes(env: &Env) -> (String, String) {
    let read = |f: &str| std::fs::read_to_string(env.dir.path().join(f)).expect("stty -g saved");
    (read("before"), read("after"))
}

#[test]
fn detaching_puts_the_terminal_back_as_it_was() {
    let env = Env::new();
    let id = env.create(&[]);
    let mut tty = attach_between_stty(&env, &id);
    tty.keys(DETACH);
    tty.expect("done-42");
    assert_eq!(tty.exit_code(), 0);
    assert!(tty.seen().contains("code=0"), "{:?}", tty.seen());
    let (before, after) = modes(&env);
    assert_eq!(before, after, "terminal modes restored");
}

/// The `kpty attach` process a shell in `tty` started.
fn attach_pid_under(shell: u32) -> u32 {
    let mut found = None;
    wait_for(10_000, "kpty attach to start", || {
        let kids = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children"))
            .unwrap_or_default();
        found = kids
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .next();
        found.is_some()
    });
    found.expect("a child")
}

#[test]
fn sigterm_and_a_dead_holder_also_put_the_terminal_back() {
    let env = Env::new();
    let id = env.create(&[]);
    let mut tty = attach_between_stty(&env, &id);
    let pid = attach_pid_under(tty.pid());
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    tty.expect("done-42");
    assert!(tty.seen().contains("code=143"), "{:?}", tty.seen());
    let (before, after) = modes(&env);
    assert_eq!(before, after, "terminal modes restored after SIGTERM");

    // The holder dies under an attached client.
    let mut tty = attach_between_stty(&env, &id);
    let holder = env.entry(&id)["holder_pid"].as_u64().expect("holder pid");
    kill_9(holder);
    tty.expect("done-42");
    assert!(tty.seen().contains("code=118"), "{:?}", tty.seen());
    assert!(tty.seen().contains("holder went away"), "{:?}", tty.seen());
    assert_eq!(
        modes(&env),
        (before.clone(), before),
        "terminal modes restored after the holder died"
    );
}

#[test]
fn two_clients_share_the_output_and_the_smallest_size_wins() {
    let env = Env::new();
    let id = env.create(&["--cols", "100", "--rows", "30"]);
    let mut a = Tty::kpty(&env, &["attach", "-s", &id], (90, 28));
    a.expect("attached to");
    wait_size(&env, &id, 90, 28, 1);
    let mut b = Tty::kpty(&env, &["attach", &id], (60, 20));
    b.expect("attached to");
    wait_size(&env, &id, 60, 20, 2);
    assert_eq!(
        s(
            &env.talk(&id, "echo cols=$(tput cols) shared-$((3*3))"),
            "output"
        ),
        "cols=60 shared-9"
    );
    a.expect("shared-9");
    b.expect("shared-9");
    // Typing from one client is seen by the other.
    a.keys(b"echo from-a-$((5*5))\r");
    b.expect("from-a-25");
    // A client's terminal grows: the size follows what is now the smallest.
    b.resize(95, 29);
    wait_size(&env, &id, 90, 28, 2);
    b.keys(DETACH);
    assert_eq!(b.exit_code(), 0);
    wait_size(&env, &id, 90, 28, 1);
    a.keys(DETACH);
    assert_eq!(a.exit_code(), 0);
    wait_size(&env, &id, 100, 30, 0);
}

#[test]
fn read_only_clients_watch_without_typing() {
    let env = Env::new();
    let id = env.create(&[]);
    let mut tty = Tty::kpty(&env, &["attach", "--read-only", &id], (120, 30));
    tty.expect("read-only");
    tty.keys(b"echo ro-$((4*4))\r");
    assert_eq!(
        s(&env.talk(&id, "echo watched-$((8*8))"), "output"),
        "watched-64"
    );
    tty.expect("watched-64");
    tty.keys(DETACH);
    assert_eq!(tty.exit_code(), 0);
    let out = env.ok(&["read", "-s", &id, "--max-bytes", "100000", "--strip-ansi"]);
    assert!(!out.contains("ro-"), "a read-only client typed: {out}");
}

#[test]
fn the_detach_key_is_settable_and_twice_sends_it() {
    let env = Env::new();
    let id = env.create(&[]);
    let mut tty = Tty::kpty(&env, &["attach", "--detach-key", "C-g", &id], (120, 30));
    tty.expect("detach with Ctrl-G");
    tty.keys(b"cat -v\r");
    wait_for(10_000, "cat to run", || {
        env.entry(&id)["foreground_command"] == "cat"
    });
    tty.keys(b"\x07\x07");
    tty.keys(b"x\r");
    tty.expect("^Gx");
    // Ctrl-\ is an ordinary key here: it reaches cat (which quits on SIGQUIT).
    tty.keys(b"\x1c");
    wait_for(10_000, "cat to quit", || {
        env.entry(&id)["foreground_command"].is_null()
    });
    tty.keys(b"\x07");
    assert_eq!(tty.exit_code(), 0);
    // KPTY_DETACH_KEY sets it too; a bad key is a clear error before anything happens.
    let out = env.kpty(&["attach", "--detach-key", "M-x", &id]);
    assert_eq!(out.status.code(), Some(115), "{out:?}");
}

#[test]
fn a_stalled_client_does_not_hold_up_the_session() {
    let env = Env::new();
    let id = env.create(&[]);
    let mut stalled = Tty::spawn(
        &env,
        env!("CARGO_BIN_EXE_kpty"),
        &["attach", &id],
        (120, 30),
        false,
    );
    wait_for(10_000, "the client to attach", || {
        env.entry(&id)["attached"] == 1
    });
    // Far more output than the client's terminal, socket and lag bound hold.
    let v = env.talk(
        &id,
        "seq 1 300000 | tail -n 1; seq 1 300000 > /dev/tty; echo done",
    );
    assert_eq!(s(&v, "output").lines().last(), Some("done"));
    assert_eq!(
        s(&env.talk(&id, "echo after-stall-$((5*5))"), "output"),
        "after-stall-25"
    );
    // Once read again, the client catches up with a redraw of the screen.
    stalled.start_reading();
    stalled.expect("after-stall-25");
    stalled.keys(DETACH);
    assert_eq!(stalled.exit_code(), 0);
}

/// A flood (`seq` at full speed) may be shown as screen refreshes rather than every byte (one
/// redraw shared by the clients resynchronised at about the same time), but once it is over
/// every attached terminal shows exactly the session's screen, and output after it flows
/// byte by byte again.
#[test]
fn after_a_flood_the_client_shows_exactly_the_sessions_screen() {
    let env = Env::new();
    let id = env.create(&["--cols", "80", "--rows", "20"]);
    let mut ttys: Vec<Tty> = (0..3)
        .map(|_| Tty::kpty(&env, &["attach", "-r", &id], (80, 20)))
        .collect();
    for tty in &mut ttys {
        tty.expect("attached to");
    }
    let v = env.talk(&id, "seq 1 500000 > /dev/tty; echo flood-$((6*7))");
    assert_eq!(s(&v, "output").lines().last(), Some("flood-42"));
    env.send_line(&id, "printf 'after-%s\\n' $((8*8))");
    for (n, tty) in ttys.iter_mut().enumerate() {
        tty.expect("after-64");
        let mut last = (Vec::new(), Vec::new());
        let same = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            wait_for(10_000, "the client's screen to match the session's", || {
                last = (screen_of(tty.seen(), 80, 20), viewport(&env, &id));
                last.0 == last.1
            })
        }));
        assert!(
            same.is_ok(),
            "client {n} {:#?}\nsession {:#?}",
            last.0,
            last.1
        );
    }
}

/// The session's visible screen, lines trimmed at the end.
fn viewport(env: &Env, id: &str) -> Vec<String> {
    let v = env.ok_json(&["term-read", "-s", id, "--mode", "viewport"]);
    v["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l.as_str().unwrap_or_default().trim_end().to_string())
        .collect()
}

/// `lines` without the empty ones at the bottom.
fn trimmed(mut lines: Vec<String>) -> Vec<String> {
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

#[test]
fn attaching_while_the_output_stops_inside_a_sequence_or_a_character_goes_on_from_there() {
    let env = Env::new();
    let id = env.create(&["--cols", "80", "--rows", "20"]);
    // Each program stops after the first part of a colour sequence, of a title, or of a
    // UTF-8 character, long enough for a client to attach in between.
    let cases = [
        (
            r"printf 'X\033[3'; sleep 3; printf '1mRED\033[0m'; echo",
            "XRED",
        ),
        (
            r"printf 'Y\033]2;half'; sleep 3; printf ' title\007TITLED'; echo",
            "YTITLED",
        ),
        (
            r"printf 'Z\342\202'; sleep 3; printf '\254 euro'; echo",
            "Z€ euro",
        ),
    ];
    for (i, (line, done)) in cases.iter().enumerate() {
        env.send_line(&id, line);
        let first = &done[..1];
        let out = env.kpty(&["wait-for", "-s", &id, "-t", "10000", &format!("^{first}")]);
        assert!(out.status.success(), "{out:?}");
        let mut tty = Tty::kpty(&env, &["attach", "-r", &id], (80, 20));
        tty.expect("attached to");
        let mut last = (Vec::new(), Vec::new());
        let same = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            wait_for(15_000, "the client's screen to match the session's", || {
                last = (
                    trimmed(screen_of(tty.seen(), 80, 20)),
                    trimmed(viewport(&env, &id)),
                );
                last.1.iter().any(|l| l == done) && last.0 == last.1
            })
        }));
        assert!(
            same.is_ok(),
            "case {i}: client {:#?}\nsession {:#?}\nraw {:?}",
            last.0,
            last.1,
            tty.seen()
        );
        tty.keys(DETACH);
        assert_eq!(tty.exit_code(), 0);
    }
}

#[test]
fn attach_follows_the_session_to_its_end_and_create_makes_it() {
    let env = Env::new();
    let mut tty = Tty::kpty(&env, &["attach", "--create", "work"], (120, 30));
    tty.expect("(work)");
    let list = env.ok_json(&["list"]);
    assert_eq!(list["count"], 1, "{list}");
    assert_eq!(list["sessions"][0]["label"], "work");
    tty.keys(b"exit 4\r");
    tty.expect("exited with 4");
    assert_eq!(tty.exit_code(), 4);
    // Not a terminal: a clear error, nothing attached.
    let out = env.kpty(&["attach", "work"]);
    assert_eq!(out.status.code(), Some(115), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs a terminal"));
}

/// What a session prints to make a person's terminal act for it: set the clipboard, retitle
/// with control characters, plant a `javascript:` link, and ask DA1, DA2, DSR, DECRQSS,
/// XTGETTCAP, OSC 11 and a title report. The program reads the one answer it gets (from the
/// holder: DA1, DA2 and the cursor position), then prints a marker.
const HOSTILE: &str = r#"printf '\e]52;c;%s\a\e]2;Ti\001tle\a\e]8;;javascript:x\aLINK\e]8;;\a\e[c\e[>c\e[6n\eP$qm\e\\\eP+q544e\e\\\e]11;?\a\e[21t' "$(printf PWNED-CLIP | base64)"
read -rsd R a
printf 'MARK-%s\n' done
"#;

#[test]
fn an_attached_terminal_never_gets_queries_clipboard_or_control_strings() {
    let env = Env::new();
    let id = env.create(&[]);
    let mut tty = Tty::kpty(&env, &["attach", "-r", &id], (100, 30));
    tty.expect("attached to");
    // From a file: the bytes reach the shell as written (send-line would read its escapes).
    let script = env.home().join("hostile.sh");
    std::fs::write(&script, HOSTILE).expect("write the script");
    env.send_line(&id, &format!("bash {}", script.display()));
    tty.expect("MARK-done");
    let seen = tty.seen().to_string();
    for raw in [
        "UFdORUQtQ0xJUA",
        "\x1b]52",
        "\x1b[c",
        "\x1b[>c",
        "\x1b[6n",
        "\x1bP",
        "\x1b]11;?",
        "\x1b[21t",
        "\x1b]8;;javascript:",
        "\x01",
        "\x1b\\e",
    ] {
        assert!(
            !seen.contains(raw),
            "{raw:?} reached the terminal: {seen:?}"
        );
    }
    assert!(
        seen.contains("\x1b]2;Title\x1b\\"),
        "the title, cleaned: {seen:?}"
    );
    assert!(seen.contains("LINK"), "the link's text stays: {seen:?}");
    tty.keys(DETACH);
    assert_eq!(tty.exit_code(), 0);
}

/// With `--allow-clipboard` the session may set the clipboard, never read it.
#[test]
fn allow_clipboard_lets_a_clipboard_write_through_and_never_a_read() {
    let env = Env::new();
    let id = env.create(&[]);
    let mut tty = Tty::kpty(&env, &["attach", "-r", "--allow-clipboard", &id], (100, 30));
    tty.expect("attached to");
    env.send_line(
        &id,
        r#"printf '\e]52;c;%s\a\e]52;c;?\a' "$(printf OK-CLIP | base64)"; printf 'MARK-%s\n' done"#,
    );
    tty.expect("MARK-done");
    let seen = tty.seen().to_string();
    assert!(seen.contains("\x1b]52;c;T0stQ0xJUA==\x1b\\"), "{seen:?}");
    assert!(!seen.contains("\x1b]52;c;?"), "{seen:?}");
}

/// tmux as the person's terminal (it answers queries and keeps OSC 52 in its buffers): a
/// session printing OSC 52 leaves tmux's buffers alone, and a program asking for the cursor
/// position gets exactly one answer — the holder's — though a real terminal is attached.
#[test]
fn under_tmux_the_clipboard_stays_and_a_query_gets_one_answer() {
    let env = Env::new();
    let id = env.create(&["--cols", "100", "--rows", "30"]);
    let sock = env.home().join("tmux.sock");
    let sock = sock.to_str().expect("utf-8 path");
    let tmux = |args: &[&str]| {
        let mut all = vec!["-S", sock, "-f", "/dev/null"];
        all.extend_from_slice(args);
        std::process::Command::new("tmux")
            .args(&all)
            .env("HOME", env.home())
            .env("KPTY_STATE_DIR", env.state())
            .env("KPTY_RUNTIME_DIR", env.runtime())
            .env_remove("TMUX")
            .output()
            .expect("tmux runs")
    };
    let bin = env!("CARGO_BIN_EXE_kpty");
    let start = tmux(&[
        "new-session",
        "-d",
        "-x",
        "100",
        "-y",
        "30",
        "-e",
        &format!("KPTY_STATE_DIR={}", env.state().display()),
        "-e",
        &format!("KPTY_RUNTIME_DIR={}", env.runtime().display()),
        &format!("{bin} attach {id}"),
    ]);
    assert!(start.status.success(), "{start:?}");
    let _server = TmuxGuard(sock.to_string());
    tmux(&["set", "-g", "set-clipboard", "on"]);
    // The control: a pane printing OSC 52 directly does fill tmux's buffer.
    tmux(&[
        "new-window",
        "-d",
        "printf '\\033]52;c;Q09OVFJPTA==\\007'; exec cat",
    ]);
    wait_for(10_000, "tmux to take the control's clipboard", || {
        String::from_utf8_lossy(&tmux(&["show-buffer"]).stdout).contains("CONTROL")
    });
    wait_for(10_000, "the attach to start", || {
        env.ok_json(&["list"])["sessions"][0]["attached"] == 1
    });
    let v = env.talk(
        &id,
        r#"printf '\e]52;c;%s\a' "$(printf PWNED-CLIP | base64)"; printf '\e[6n'; read -rsd R a; printf '\e[5n'; read -rsd n b; printf 'ANS A=%q B=%q\n' "$a" "$b""#,
    );
    let out = s(&v, "output").to_string();
    // (The tty may echo an answer that comes before `read` turns echo off: look past it.)
    let ans = out
        .find("ANS A=")
        .map(|at| out[at..].lines().next().unwrap_or_default().trim_end())
        .unwrap_or_default();
    assert!(
        ans.starts_with("ANS A=$'\\E[") && ans.ends_with("B=$'\\E[0'"),
        "one cursor report, then only the status answer: {out:?}"
    );
    env.send_line(&id, "echo MARK-$((40+2))");
    wait_for(10_000, "tmux to show the marker", || {
        String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", "0"]).stdout)
            .contains("MARK-42")
    });
    let buffers = tmux(&["list-buffers", "-F", "#{buffer_sample}"]);
    let buffers = String::from_utf8_lossy(&buffers.stdout);
    assert!(!buffers.contains("PWNED"), "tmux buffers: {buffers}");
}

/// Kills a test's tmux server on Drop.
struct TmuxGuard(String);

impl Drop for TmuxGuard {
    fn drop(&mut self) {
        let _ = std::process::Command::new("tmux")
            .args(["-S", &self.0, "kill-server"])
            .output();
    }
}

/// Answers the person's terminal sends (a cursor report, a colour report, a DECRQSS reply)
/// are not keystrokes: the session gets only what was typed around them.
#[test]
fn the_terminals_own_answers_never_reach_the_session() {
    let env = Env::new();
    let id = env.create(&[]);
    let mut tty = Tty::kpty(&env, &["attach", &id], (100, 30));
    tty.expect("attached to");
    tty.keys(b"echo A\x1b[24;80R\x1b]11;rgb:0000/0000/0000\x1b\\\x1bP1$r0m\x1b\\B-$((2*3))\r");
    tty.expect("AB-6");
    let out = env.ok(&["read", "-s", &id, "--max-bytes", "100000", "--strip-ansi"]);
    assert!(out.lines().any(|l| l.trim() == "AB-6"), "{out}");
    assert!(!out.contains("rgb:") && !out.contains("24;80"), "{out}");
    tty.keys(DETACH);
    assert_eq!(tty.exit_code(), 0);
}

/// The same fence for `kpty read` printing a session's output on a person's terminal; a pipe
/// still gets the bytes as they were.
#[test]
fn read_on_a_terminal_is_sanitised_too() {
    let env = Env::new();
    let id = env.create(&[]);
    let script = env.home().join("hostile.sh");
    std::fs::write(&script, HOSTILE).expect("write the script");
    env.send_line(&id, &format!("bash {}", script.display()));
    wait_for(10_000, "the script to finish", || {
        env.ok(&["read", "-s", &id, "--max-bytes", "100000", "--strip-ansi"])
            .contains("MARK-done")
    });
    let mut tty = Tty::kpty(
        &env,
        &["read", "-s", &id, "--max-bytes", "100000"],
        (100, 30),
    );
    tty.expect("MARK-done");
    assert_eq!(tty.exit_code(), 0);
    let seen = tty.seen().to_string();
    for raw in ["UFdORUQtQ0xJUA", "\x1b]52", "\x1b[6n", "\x1bP", "\x1b[c"] {
        assert!(
            !seen.contains(raw),
            "{raw:?} reached the terminal: {seen:?}"
        );
    }
    let piped = env.ok(&["read", "-s", &id, "--max-bytes", "100000"]);
    assert!(
        piped.contains("\x1b]52;c;UFdORUQtQ0xJUA"),
        "a pipe gets the raw bytes"
    );
}

/// `stty size` inside the session, as `(rows, cols)`.
fn stty_size(env: &Env, id: &str) -> String {
    s(&env.talk(id, "stty size"), "output").trim().to_string()
}

#[test]
fn resize_while_attached_wins_until_a_client_resizes_and_reports_the_real_size() {
    let env = Env::new();
    let id = env.create(&["--cols", "100", "--rows", "30"]);
    let mut a = Tty::kpty(&env, &["attach", &id], (90, 28));
    a.expect("attached to");
    wait_size(&env, &id, 90, 28, 1);
    // Sizes larger and smaller than the client's, in a row: the last one wins each time.
    for (cols, rows) in [(120u16, 40u16), (70, 20), (95, 33)] {
        let r = env.ok_json(&[
            "resize",
            "-s",
            &id,
            "--cols",
            &cols.to_string(),
            "--rows",
            &rows.to_string(),
        ]);
        assert_eq!(
            (r["cols"].clone(), r["rows"].clone()),
            (cols.into(), rows.into()),
            "{r}"
        );
        assert_eq!(stty_size(&env, &id), format!("{rows} {cols}"));
        wait_size(&env, &id, cols.into(), rows.into(), 1);
    }
    // The client's terminal changes: its size is in force again.
    a.resize(80, 25);
    wait_size(&env, &id, 80, 25, 1);
    assert_eq!(stty_size(&env, &id), "25 80");
    a.keys(DETACH);
    assert_eq!(a.exit_code(), 0);
    // Nobody attached: the last resize's size.
    wait_size(&env, &id, 95, 33, 0);
    assert_eq!(stty_size(&env, &id), "33 95");
}

/// How a terminal that was shown `bytes` looks: its visible rows, the cursor's row, and
/// whether the cursor is visible and the main screen active.
fn terminal_after(bytes: &str, cols: usize, rows: usize) -> (Vec<String>, usize, bool, bool) {
    let mut vt = avt::Terminal::new(cols, rows).expect("a terminal model");
    vt.feed(bytes);
    let lines = vt
        .screen()
        .visible_lines()
        .map(|l| l.text().trim_end().to_string())
        .collect();
    let c = vt.cursor();
    let primary = vt.active_screen_kind() == avt::ScreenKind::Primary;
    (lines, c.row, c.visible, primary)
}

/// The last place `mode` (`?1000`, `?2004` …) was switched on comes before the last place it
/// was switched off (or it never was).
fn mode_off_at_end(seen: &str, mode: &str) -> bool {
    let on = seen.rfind(&format!("\x1b[{mode}h"));
    let off = seen.rfind(&format!("\x1b[{mode}l"));
    match (on, off) {
        (None, _) => true,
        (Some(a), Some(b)) => b > a,
        (Some(_), None) => false,
    }
}

#[test]
fn leaving_attach_brings_the_persons_screen_back_with_modes_off() {
    let env = Env::new();
    let (cols, rows) = (80u16, 24u16);
    // Every way an attachment ends: the detach key, the session killed from elsewhere, its
    // shell exiting; each with the session's terminal left in a state to clean up.
    for (how, setup) in [
        ("detach", ""),
        (
            "detach",
            "printf '\\e[?1049h\\e[?25l\\e[?1000h\\e[?1006h\\e[?2004h\\e[?1h\\e=\\e[5;10r\\e[1;31m'",
        ),
        ("kill", "printf '\\e[?25l\\e[?1002h\\e[7m'"),
        ("exit", "printf '\\e[?1049h\\e[?1003h'"),
    ] {
        let id = env.create(&["--cols", "80", "--rows", "24"]);
        let mut tty = Tty::kpty(&env, &["attach", &id], (cols, rows));
        tty.expect("attached to");
        if !setup.is_empty() {
            env.send_line(&id, &format!("{setup}; echo set-$((2*3))"));
            tty.expect("set-6");
        }
        // Something typed on the prompt line, as a person leaves it mid-typing.
        if how != "exit" {
            tty.keys(b"echo half");
            tty.expect("echo half");
        }
        let (said, code) = match how {
            "detach" => {
                tty.keys(DETACH);
                ("[kpty] detached from", 0)
            }
            "kill" => {
                env.ok_json(&["kill", "-s", &id]);
                ("[kpty] session", 129)
            }
            _ => {
                env.send_line(&id, "exit 3");
                ("[kpty] session", 3)
            }
        };
        tty.expect(said);
        let got = tty.exit_code();
        let seen = tty.seen().to_string();
        let (lines, crow, visible, primary) = terminal_after(&seen, cols.into(), rows.into());
        let at = lines
            .iter()
            .position(|l| l.contains(said))
            .unwrap_or_else(|| panic!("{how}: {said:?} not shown: {lines:#?} in {seen:?}"));
        assert!(
            lines[at].starts_with(said),
            "{how}: the message is on a line of its own: {:?}",
            lines[at]
        );
        // As tmux leaves it: the person's own screen (here, kpty's banner) is back, the
        // session's screen is gone, and the message follows where the person left off.
        let banner = lines
            .iter()
            .position(|l| l.starts_with("[kpty] attached to"))
            .unwrap_or_else(|| panic!("{how}: the person's screen is back: {lines:#?}"));
        assert!(
            at > banner && lines[banner..at].concat().ends_with("to send it"),
            "{how}: right below it (the banner may wrap): {lines:#?}"
        );
        for session_text in ["set-6", "echo half", "$ "] {
            assert!(
                !lines.iter().any(|l| l.contains(session_text)),
                "{how}: the session's screen is gone: {lines:#?}"
            );
        }
        assert_eq!(crow, at + 1, "{how}: the cursor below it");
        assert!(lines[crow].is_empty(), "{how}: a fresh line: {lines:#?}");
        assert!(visible, "{how}: the cursor is visible again");
        assert!(primary, "{how}: the main screen is back");
        for mode in ["?1000", "?1002", "?1003", "?1006", "?2004", "?1", "?25l"] {
            if mode == "?25l" {
                assert!(
                    seen.rfind("\x1b[?25h") > seen.rfind("\x1b[?25l"),
                    "{how}: cursor"
                );
                continue;
            }
            assert!(mode_off_at_end(&seen, mode), "{how}: {mode} left on");
        }
        assert!(
            seen.rfind("\x1b>") > seen.rfind("\x1b="),
            "{how}: keypad mode left on"
        );
        assert!(
            seen.rfind("\x1b[0m") > seen.rfind("\x1b[1;31m").max(seen.rfind("\x1b[7m")),
            "{how}: attributes reset"
        );
        if how == "detach" {
            assert_eq!(got, code, "{how}");
            env.ok_json(&["kill", "-s", &id]);
        } else {
            assert!(got == code || how == "kill", "{how}: exit {got}");
        }
    }
}

/// The client draws in its own alternate screen: a program that enters and leaves the
/// session's alternate screen (an editor, a pager) never takes the person's terminal out of
/// it, and on leaving, the session's main screen is drawn again from the holder's model.
#[test]
fn a_program_leaving_its_alternate_screen_gets_the_sessions_screen_redrawn() {
    let env = Env::new();
    let (cols, rows) = (80u16, 24u16);
    let id = env.create(&["--cols", "80", "--rows", "24"]);
    env.out(&id, "echo before-$((6*7))");
    let mut tty = Tty::kpty(&env, &["attach", &id], (cols, rows));
    tty.expect("before-42");
    for round in 0..3 {
        env.send_line(
            &id,
            &format!(
                "printf '\\e[?1049h'; echo in-alt-{round}$((1+1)); printf '\\e[?1049l'; echo after-{round}$((2+2))"
            ),
        );
        tty.expect(&format!("after-{round}4"));
        // (The typed command line shows `in-alt-…$((1+1))`; its output `in-alt-N2` was on
        // the alternate screen only.)
        wait_for(10_000, "the session's main screen drawn again", || {
            let (lines, _, _, _) = terminal_after(tty.seen(), cols.into(), rows.into());
            lines.iter().any(|l| l == "before-42")
                && lines.iter().any(|l| l == &format!("after-{round}4"))
                && !lines
                    .iter()
                    .any(|l| l.contains(&format!("in-alt-{round}2")))
        });
        let seen = tty.seen().to_string();
        let (_, _, _, primary) = terminal_after(&seen, cols.into(), rows.into());
        assert!(
            !primary,
            "the person's own screen stays put away while attached"
        );
    }
    tty.keys(DETACH);
    tty.expect("[kpty] detached from");
    assert_eq!(tty.exit_code(), 0);
    let (lines, _, _, primary) = terminal_after(tty.seen(), cols.into(), rows.into());
    assert!(primary, "{lines:#?}");
    assert!(
        !lines.iter().any(|l| l.contains("before-42")),
        "the session's screen is gone on leaving: {lines:#?}"
    );
    env.ok_json(&["kill", "-s", &id]);
}
