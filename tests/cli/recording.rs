//! Recordings of real sessions: every session is recorded as asciicast v3 (output, input with
//! who typed it, markers per talk, resizes, the exit), checked by the real asciinema 3; typed
//! secrets never reach the recording of input; segments roll at their cap and each plays
//! alone; the total removes the oldest closed segments of ended sessions first; `--no-record`
//! and `KPTY_RECORD=0` turn it off; `rec cat|export` and `replay` read it back.

use crate::support::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The asciinema 3 binary: `KPTY_ASCIINEMA`, else `asciinema` on the PATH or in cargo's
/// bin folder when it is version 3.
fn asciinema() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = std::env::var_os("KPTY_ASCIINEMA")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    candidates.push(PathBuf::from("asciinema"));
    if let Some(home) = std::env::var_os("HOME") {
        candidates.push(Path::new(&home).join(".cargo/bin/asciinema"));
    }
    candidates.into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(" 3."))
    })
}

/// The text asciinema 3 renders from `cast` (`convert -f txt`).
fn asciinema_txt(bin: &Path, cast: &Path, dir: &Path) -> String {
    let out_file = dir.join(format!(
        "{}.txt",
        cast.file_name().unwrap().to_string_lossy()
    ));
    let _ = std::fs::remove_file(&out_file);
    let out = Command::new(bin)
        .args(["convert", "-f", "txt"])
        .arg(cast)
        .arg(&out_file)
        .output()
        .expect("run asciinema");
    assert!(
        out.status.success(),
        "asciinema refused {}: {}",
        cast.display(),
        stderr(&out)
    );
    std::fs::read_to_string(&out_file).expect("asciinema's text")
}

/// The events of a cast file: (code, data).
fn events(path: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).expect("the recording");
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().expect("a header")).expect("json");
    assert_eq!(header["version"], 3, "{header}");
    lines
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            (
                v[1].as_str().unwrap_or("").to_string(),
                v[2].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn session_dir(env: &Env, id: &str) -> PathBuf {
    env.state().join("sessions").join(id)
}

/// Kill `id` and wait until its recording is closed (the exit event written, in its last
/// segment).
fn end(env: &Env, id: &str) {
    env.ok(&["kill", "-s", id]);
    let dir = session_dir(env, id);
    wait_for(10_000, "the recording's exit event", || {
        std::fs::read_dir(&dir).is_ok_and(|rd| {
            rd.flatten().any(|d| {
                d.path().extension().is_some_and(|e| e == "cast")
                    && std::fs::read_to_string(d.path()).is_ok_and(|t| t.contains("\"x\","))
            })
        })
    });
}

#[test]
fn a_session_is_recorded_with_who_typed_what_and_plays_in_asciinema() {
    let env = Env::new();
    let id = env.create(&["--cols", "70", "--rows", "12"]);
    env.talk(&id, "echo recorded-$((6*7))");
    let out = env
        .cmd(&["--json", "send-line", "-s", &id, "echo typed-by-an-agent"])
        .env("KPTY_AGENT_ID", "agent-7")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    env.read_until(&id, 0, "typed-by-an-agent\r\n");
    env.ok(&["resize", "-s", &id, "--cols", "90", "--rows", "20"]);
    let list = env.ok_json(&["list"]);
    let me = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["session_id"] == id.as_str())
        .cloned()
        .unwrap();
    assert_eq!(me["recording"], "on", "{me}");
    end(&env, &id);

    let cast = session_dir(&env, &id).join("recording.cast");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&cast).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let ev = events(&cast);
    let has = |code: &str, needle: &str| ev.iter().any(|(c, d)| c == code && d.contains(needle));
    assert!(has("o", "recorded-42"), "{ev:?}");
    assert!(has("m", "talk by cli"), "{ev:?}");
    assert!(has("m", "talk done: exit 0"), "{ev:?}");
    assert!(
        has("m", "input from agent agent-7 via cli --json"),
        "{ev:?}"
    );
    assert!(has("i", "echo typed-by-an-agent"), "{ev:?}");
    assert!(has("r", "90x20"), "{ev:?}");
    assert!(ev.last().is_some_and(|(c, _)| c == "x"), "{ev:?}");

    // Our text of it is what asciinema 3 makes of it.
    let ours = env.ok(&["rec", "cat", "-s", &id]);
    assert!(ours.contains("recorded-42"), "{ours}");
    let Some(bin) = asciinema() else {
        skip("asciinema 3 is not installed (cargo install asciinema --version 3.2.0 --locked)");
        return;
    };
    let theirs = asciinema_txt(&bin, &cast, env.home());
    let trim = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.trim_end().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    };
    assert_eq!(trim(&ours), trim(&theirs));
    // An export is a cast asciinema reads too, and so is a part of it from a marker.
    let file = env.home().join("export.cast");
    env.ok(&["rec", "export", "-s", &id, "-o", file.to_str().unwrap()]);
    assert_eq!(trim(&asciinema_txt(&bin, &file, env.home())), trim(&theirs));
    let part = env.home().join("part.cast");
    env.ok(&[
        "rec",
        "export",
        "-s",
        &id,
        "--from",
        "input from agent",
        "-o",
        part.to_str().unwrap(),
    ]);
    assert!(asciinema_txt(&bin, &part, env.home()).contains("typed-by-an-agent"));
}

#[test]
fn typed_secrets_never_reach_the_recording_of_input_and_exports_are_redacted() {
    let env = Env::new();
    let id = env.create(&[]);
    for (line, _) in secret_lines() {
        env.talk(&id, &format!("echo '{line}' > /dev/null; echo typed"));
    }
    env.talk(
        &id,
        "printf '%s\\n' 'shown GITHUB_TOKEN=ghp_R4nd0mGitHubT0kenAbCdEfGhIjKlMnOpQr'",
    );
    end(&env, &id);
    let cast = session_dir(&env, &id).join("recording.cast");
    let ev = events(&cast);
    let input: String = ev
        .iter()
        .filter(|(c, _)| c == "i" || c == "m")
        .map(|(_, d)| d.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(input.contains("> /dev/null"), "{input}");
    assert_eq!(leaked(&input, &[]), Vec::<String>::new(), "{input}");
    // The output is recorded as it was (the file is the owner's) …
    let output: String = ev
        .iter()
        .filter(|(c, _)| c == "o")
        .map(|(_, d)| d.as_str())
        .collect();
    assert!(output.contains("R4nd0mGitHubT0ken"));
    // … and every copy made to hand on is redacted.
    let exported = env.ok(&["rec", "export", "-s", &id]);
    assert!(exported.contains("shown GITHUB_TOKEN="), "{exported}");
    assert_eq!(leaked(&exported, &[]), Vec::<String>::new());
    let v = env.ok_json(&["rec", "cat", "-s", &id]);
    assert_eq!(leaked(s(&v, "text"), &[]), Vec::<String>::new());
    // The person at the CLI sees their own terminal's text as it was.
    assert!(
        env.ok(&["rec", "cat", "-s", &id])
            .contains("R4nd0mGitHubT0ken")
    );
}

#[test]
fn recording_is_off_with_no_record_or_kpty_record_0() {
    let env = Env::new();
    let off = env.create(&["--no-record"]);
    let env_off = env.create_with_env(&[("KPTY_RECORD", "0")], &[]);
    let on = env.create_with_env(&[("KPTY_RECORD", "1")], &[]);
    for id in [&off, &env_off, &on] {
        env.talk(id, "echo x");
    }
    let list = env.ok_json(&["list"]);
    let state = |id: &str| {
        list["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["session_id"] == id)
            .map(|s| s["recording"].clone())
            .unwrap()
    };
    assert_eq!(state(&off), "off");
    assert_eq!(state(&env_off), "off");
    assert_eq!(state(&on), "on");
    assert!(!session_dir(&env, &off).join("recording.cast").exists());
    assert!(!session_dir(&env, &env_off).join("recording.cast").exists());
    let v = env.fails(&["rec", "cat", "-s", &off], 119, "PTY_SESSION_NOT_FOUND");
    assert!(s(&v, "message").contains("no recording"), "{v}");
}

#[test]
fn segments_roll_at_their_cap_each_plays_alone_and_the_total_keeps_running_ones() {
    let env = Env::new();
    let caps = [
        ("KPTY_RECORD_SEGMENT", "64K"),
        ("KPTY_RECORD_TOTAL", "200K"),
    ];
    let old = env.create_with_env(&caps, &[]);
    env.talk(&old, "seq 1 60000");
    end(&env, &old);
    let segs = |id: &str| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(session_dir(&env, id))
            .unwrap()
            .flatten()
            .map(|d| d.path())
            .filter(|p| p.extension().is_some_and(|e| e == "cast"))
            .collect();
        v.sort_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap());
        v
    };
    let before = segs(&old);
    assert!(before.len() >= 3, "{before:?}");
    // Each segment after the first opens with the screen as it stood.
    let (c, d) = events(&before[1])[0].clone();
    assert_eq!(c, "o");
    assert!(d.starts_with("\u{1b}[?2026h"), "{d:?}");
    // Joined, they are every line once, in order (while the total has not removed any).
    let text = env.ok(&["rec", "cat", "-s", &old]);
    let numbers: Vec<u32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
    if numbers.len() == 60000 {
        assert!(numbers.windows(2).all(|w| w[1] == w[0] + 1), "out of order");
    }
    if let Some(bin) = asciinema() {
        let last = asciinema_txt(&bin, before.last().unwrap(), env.home());
        assert!(last.contains("60000"), "{last}");
    } else {
        skip("asciinema 3 is not installed");
    }

    // A running session with a segment of its own; the total is then over.
    let live = env.create_with_env(&caps, &[]);
    env.talk(&live, "seq 1 30000");
    let v = env.ok_json(&["gc"]);
    assert!(v["used"].as_u64().unwrap() <= 200 * 1024, "{v}");
    let after = segs(&old);
    let removed = before.len() - after.len();
    assert!(removed > 0, "{v}");
    // The oldest went first: what is left is the newest.
    assert_eq!(after, before[removed..].to_vec(), "{v}");
    // Never the segment a running session writes to.
    let live_segs = segs(&live);
    assert!(!live_segs.is_empty(), "{v}");
    let last = std::fs::read_dir(session_dir(&env, &live))
        .unwrap()
        .flatten()
        .filter_map(|d| {
            let n = d.file_name().to_string_lossy().to_string();
            let k: u32 = if n == "recording.cast" {
                0
            } else {
                n.strip_prefix("recording.")?
                    .strip_suffix(".cast")?
                    .parse()
                    .ok()?
            };
            Some(k)
        })
        .max();
    assert!(last.is_some(), "the live recording is gone: {v}");
}

#[test]
fn replay_plays_the_output_from_a_marker_and_refuses_bad_pacing() {
    let env = Env::new();
    let id = env.create(&[]);
    env.talk(&id, "echo first-part");
    env.talk(&id, "echo second-part");
    let out = env
        .cmd(&["replay", "-s", &id, "--speed", "100", "--idle-limit", "0"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let shown = stdout(&out);
    assert!(
        shown.contains("first-part") && shown.contains("second-part"),
        "{shown}"
    );
    assert!(stderr(&out).contains("replay ended"), "{}", stderr(&out));
    // From the second talk: the screen before it is drawn at once, the rest played.
    let out = env
        .cmd(&[
            "replay",
            "-s",
            &id,
            "--idle-limit",
            "0",
            "--from",
            "echo second",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(stdout(&out).contains("second-part"), "{}", stderr(&out));
    env.fails(
        &["replay", "-s", &id, "--speed", "0"],
        115,
        "INVALID_PARAMS",
    );
    let v = env.fails(
        &["replay", "-s", &id, "--from", "no-such-marker"],
        115,
        "INVALID_PARAMS",
    );
    assert!(s(&v, "message").contains("marker"), "{v}");
    // A file that is not a recording is an error naming its line, never a panic.
    let bad = env.home().join("bad.cast");
    std::fs::write(
        &bad,
        "{\"version\":3,\"term\":{\"cols\":80,\"rows\":24}}\n[1, 2]\n",
    )
    .unwrap();
    let v = env.fails(
        &["rec", "cat", bad.to_str().unwrap()],
        115,
        "INVALID_PARAMS",
    );
    assert!(s(&v, "message").contains("line 2"), "{v}");
}

/// The scenario, run inside `unshare --mount`: `$1` is kpty, `$2` the results folder.
const FULL_DISK: &str = r#"
set -u
K=$1; R=$2; S=$KPTY_STATE_DIR
mkdir -p "$S"
mount -t tmpfs -o size=3m,mode=0700 tmpfs "$S" || { echo mount-failed; exit 3; }
trap '"$K" kill --all >/dev/null 2>&1' EXIT
export KPTY_AUDIT_FAIL=open
step() { name=$1; shift; "$@" >"$R/$name.out" 2>"$R/$name.err"; echo $? >"$R/$name.rc"; }
step create "$K" --json create --label full
dd if=/dev/zero of="$S/filler" bs=64k >/dev/null 2>&1
step flood "$K" --json talk -s full 'seq 1 200000; echo still-alive'
step list "$K" --json list
rm -f "$S/filler"
step after "$K" --json talk -s full 'echo after'
"#;

#[test]
fn a_full_disk_stops_the_recording_not_the_session() {
    let env = Env::new();
    if !rustix::process::getuid().is_root() {
        skip("the full-disk test needs root (a tmpfs in a private mount namespace)");
        return;
    }
    let results = env.dir.path().join("results");
    std::fs::create_dir(&results).unwrap();
    let base = env.cmd(&[]);
    let mut c = Command::new("unshare");
    for (k, v) in base.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    c.current_dir(env.home())
        .args([
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            FULL_DISK,
            "sh",
        ])
        .arg(env!("CARGO_BIN_EXE_kpty"))
        .arg(&results);
    let out = run(c, &["unshare", "full-disk recording scenario"]);
    let read = |step: &str, ext: &str| {
        std::fs::read_to_string(results.join(format!("{step}.{ext}"))).unwrap_or_default()
    };
    if stdout(&out).contains("mount-failed") {
        skip(&format!(
            "cannot mount a tmpfs in a private namespace: {}",
            stderr(&out)
        ));
        return;
    }
    assert_eq!(
        read("create", "rc").trim(),
        "0",
        "{}",
        read("create", "out")
    );
    let flood: Value = serde_json::from_str(read("flood", "out").trim()).unwrap_or(Value::Null);
    assert_eq!(read("flood", "rc").trim(), "0", "{flood}");
    assert!(s(&flood, "output").contains("still-alive"), "{flood}");
    let list: Value = serde_json::from_str(read("list", "out").trim()).unwrap_or(Value::Null);
    let state = list["sessions"][0]["recording"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(state.starts_with("stopped: "), "{list}");
    let after: Value = serde_json::from_str(read("after", "out").trim()).unwrap_or(Value::Null);
    assert_eq!(s(&after, "output"), "after", "{after}");
}

#[test]
fn input_at_a_prompt_that_does_not_echo_is_not_recorded() {
    let env = Env::new();
    let id = env.create(&[]);
    env.send_line(&id, "read -s -p 'Passphrase: ' pw; echo; echo got-${#pw}");
    env.read_until(&id, 0, "Passphrase: ");
    let typed = "correct-horse-battery-staple";
    env.send_line(&id, typed);
    env.read_until(&id, 0, "got-28");
    end(&env, &id);
    let ev = events(&session_dir(&env, &id).join("recording.cast"));
    assert!(!ev.iter().any(|(_, d)| d.contains(typed)), "{ev:?}");
    assert!(
        ev.iter()
            .any(|(c, d)| c == "m" && d.contains("input hidden")),
        "{ev:?}"
    );
}

#[test]
fn an_html_export_and_the_consoles_player_page_are_self_contained_and_redacted() {
    let env = Env::new();
    let id = env.create(&[]);
    env.talk(
        &id,
        "echo 'TOKEN=ghp_R4nd0mGitHubT0kenAbCdEfGhIjKlMnOpQr'; echo html-export-ok",
    );
    let html = env.ok(&["rec", "export", "-s", &id, "--format", "html"]);
    assert!(html.contains("AsciinemaPlayer.create") && html.contains("html-export-ok"));
    assert!(!html.contains("R4nd0mGitHubT0ken"));
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"));
    // A GIF: frames drawn as screenshots are, the last one showing how it ended.
    let gif_file = env.home().join("rec.gif");
    env.ok(&[
        "rec",
        "export",
        "-s",
        &id,
        "--format",
        "gif",
        "-o",
        gif_file.to_str().unwrap(),
    ]);
    let bytes = std::fs::read(&gif_file).unwrap();
    assert!(bytes.starts_with(b"GIF89a"), "not a GIF");
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut d = opts.read_info(&bytes[..]).expect("a GIF that decodes");
    let mut frames = 0;
    while d.read_next_frame().expect("a frame").is_some() {
        frames += 1;
    }
    assert!(frames >= 1, "{frames} frames");

    let serve = crate::bridge::Serve::start(&env);
    let path = format!("/console/recording/{id}");
    let denied = crate::console::http(&serve, "GET", &path, &[], "");
    assert_eq!(denied.status, 401, "{}", denied.body);
    let (cookie, origin) = crate::console::logged_in(&env, &serve);
    let page = crate::console::http(
        &serve,
        "GET",
        &path,
        &[("Cookie", &cookie), ("Origin", &origin)],
        "",
    );
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("html-export-ok") && !page.body.contains("R4nd0mGitHubT0ken"));
    let csp = page.header("content-security-policy").unwrap_or_default();
    assert!(
        csp.contains("'wasm-unsafe-eval'")
            && csp.contains("frame-ancestors 'none'")
            && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    let missing = crate::console::http(
        &serve,
        "GET",
        "/console/recording/pty_0000dead",
        &[("Cookie", &cookie)],
        "",
    );
    assert_eq!(missing.status, 404, "{}", missing.body);
    let hostile = crate::console::http(
        &serve,
        "GET",
        "/console/recording/..%2f..%2fetc",
        &[("Cookie", &cookie)],
        "",
    );
    assert!(matches!(hostile.status, 400 | 404), "{}", hostile.body);
}
