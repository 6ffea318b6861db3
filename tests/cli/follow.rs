//! Followers as streaming subscribers of a session's output: `kpty read --follow` and
//! `kpty term-read --follow` take the output from the holder's stream, several at once, to
//! the shell's very last byte; a stalled follower holds nothing up and is told what it missed.

use crate::support::{Env, Stream, spawn, wait_child};
use std::process::Stdio;
use std::time::Duration;

/// Start `kpty read --follow --strip-ansi` on `id` with its stdout (and stderr) piped.
fn follower(env: &Env, id: &str) -> std::process::Child {
    let mut cmd = env.cmd(&["read", "-s", id, "--follow", "--strip-ansi"]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    spawn(cmd)
}

/// Several followers at once each get every line a command prints, in order, up to the last
/// one printed just before the shell exits, and then end with status 0.
#[test]
fn followers_get_everything_up_to_the_shells_last_byte() {
    let env = Env::new();
    let id = env.create(&[]);
    let children: Vec<_> = (0..3).map(|_| follower(&env, &id)).collect();
    // Every follower has taken the tail (so is past its first read) before the flood starts.
    env.send_line(&id, "echo ready-$((6*7))");
    let mut children: Vec<_> = children
        .into_iter()
        .map(|mut c| {
            let mut s = Stream::new(c.stdout.take().expect("stdout"));
            assert!(
                s.until("ready-42", Duration::from_secs(20)),
                "follower not started: {:?}",
                s.seen
            );
            (c, s)
        })
        .collect();
    env.send_line(&id, "seq 1 60000; exit");
    for (child, stream) in children.drain(..) {
        let out = wait_child(child, &["read", "--follow"]);
        assert!(out.status.success(), "{out:?}");
        let mut stream = stream;
        stream.until("\n60000\n", Duration::from_secs(20));
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Either every line, in order, or the follower said where it fell behind.
        if !stderr.contains("were missed") {
            let numbers: Vec<u32> = stream
                .seen
                .lines()
                .filter_map(|l| l.trim().parse().ok())
                .collect();
            let want: Vec<u32> = (1..=60000).collect();
            assert!(
                numbers.ends_with(&want),
                "lines lost or reordered: {} numbers, last {:?}; stderr {stderr}",
                numbers.len(),
                numbers.last()
            );
        }
        assert!(stream.seen.contains("\n60000\n"), "{:?}", stream.seen);
    }
}

/// A follower that takes nothing (its stdout never read) neither slows the session nor its
/// other users; once it reads again it prints what it still can, says on stderr how many
/// bytes it missed, and follows on live.
#[test]
fn a_stalled_follower_holds_nothing_up_and_is_told_what_it_missed() {
    let env = Env::new();
    let id = env.create(&[]);
    let mut stalled = follower(&env, &id);
    env.send_line(&id, "echo stalled-$((6*7))");
    // Far more than the pipe, the socket and the session's buffer (100 KiB) hold together.
    let flood = env.talk(&id, "seq 1 300000");
    assert_eq!(flood["exit_code"], 0, "{flood}");
    // Another user of the session is answered while the follower is still stalled.
    let other = env.talk(&id, "echo other-$((6*7))");
    assert!(
        other["output"].as_str().unwrap_or("").contains("other-42"),
        "{other}"
    );
    let mut stream = Stream::new(stalled.stdout.take().expect("stdout"));
    let mut errors = Stream::new(stalled.stderr.take().expect("stderr"));
    assert!(
        stream.until("other-42", Duration::from_secs(30)),
        "the follower did not catch up: {} bytes",
        stream.seen.len()
    );
    assert!(
        errors.until("bytes of output were missed", Duration::from_secs(5)),
        "no word of the gap: {:?}",
        errors.seen
    );
    // Live again.
    env.send_line(&id, "echo live-$((6*7))");
    assert!(stream.until("live-42", Duration::from_secs(20)));
    env.ok(&["kill", &id]);
    let out = wait_child(stalled, &["read", "--follow"]);
    assert!(out.status.success(), "{out:?}");
}

/// `term-read --follow` draws again when the output moves on and ends (status 0) with the
/// shell.
#[test]
fn term_read_follow_redraws_on_output_and_ends_with_the_shell() {
    let env = Env::new();
    let id = env.create(&[]);
    let mut child = spawn(env.cmd(&["term-read", "-s", &id, "--follow"]));
    let mut stream = Stream::new(child.stdout.take().expect("stdout"));
    for word in ["first", "second"] {
        env.send_line(&id, &format!("echo {word}-$((6*7))"));
        assert!(
            stream.until(&format!("{word}-42"), Duration::from_secs(20)),
            "{word} not drawn: {:?}",
            stream.seen
        );
    }
    env.send_line(&id, "exit");
    let out = wait_child(child, &["term-read", "--follow"]);
    assert!(out.status.success(), "{out:?}");
}
