//! Evidence packs of real sessions in a real git work tree: what a pack holds (screens, the
//! recording of its range, output, commands with exit codes, audit entries, git status and
//! the diff made in the range), that it is redacted, that `kpty evidence verify` names every
//! kind of tampering, that `kpty log` shows the pack on the entries it covers, and the
//! `recording` and `evidence` actions over MCP.

use crate::support::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A git work tree with one committed file.
fn repo(env: &Env) -> PathBuf {
    let dir = env.home().join("repo");
    std::fs::create_dir_all(&dir).unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.email=k@p.t", "-c", "user.name=kpty"])
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    };
    git(&["init", "-q"]);
    std::fs::write(dir.join("notes.txt"), "first\n").unwrap();
    git(&["add", "notes.txt"]);
    git(&["commit", "-qm", "init"]);
    dir
}

fn pack_dir(env: &Env, id: &str) -> PathBuf {
    env.state().join("evidence").join(id)
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn a_pack_holds_its_range_and_verify_names_every_kind_of_tampering() {
    let env = Env::new();
    let cwd = repo(&env);
    let id = env.create(&["--cwd", cwd.to_str().unwrap()]);
    env.talk(&id, "echo before-the-range");
    env.talk(&id, "echo second >> notes.txt; echo in-the-range");
    env.talk(&id, "false");
    let v = env.ok_json(&[
        "evidence",
        "-s",
        &id,
        "--from",
        "echo second",
        "--note",
        "review of the edit",
    ]);
    let ev = s(&v, "evidence_id").to_string();
    let dir = pack_dir(&env, &ev);
    let commands: Vec<(String, Option<i64>)> = v["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (s(c, "command").to_string(), c["exit_code"].as_i64()))
        .collect();
    assert_eq!(
        commands,
        [
            (
                "echo second >> notes.txt; echo in-the-range".to_string(),
                Some(0)
            ),
            ("false".to_string(), Some(1)),
        ]
    );
    let output = read(&dir, "output.txt");
    assert!(
        output.contains("in-the-range") && !output.contains("before-the-range"),
        "{output}"
    );
    assert!(read(&dir, "git.diff").contains("+second"));
    assert!(read(&dir, "git-status.txt").contains("notes.txt"));
    assert!(read(&dir, "screen-after.svg").contains("in-the-range"));
    assert!(read(&dir, "audit.jsonl").contains("\"action\":\"talk\""));
    let manifest: Value = serde_json::from_str(&read(&dir, "manifest.json")).unwrap();
    assert_eq!(manifest["note"], "review of the edit");
    assert_eq!(manifest["session_id"], id.as_str());
    use std::os::unix::fs::PermissionsExt;
    for f in std::fs::read_dir(&dir).unwrap().flatten() {
        let mode = f.metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{:?}", f.path());
    }
    let ok = env.ok_json(&["evidence", "verify", &ev]);
    assert_eq!(ok["ok"], true, "{ok}");
    assert_eq!(ok["manifest_in_trail"], true, "{ok}");

    // Every kind of change is named, each on a fresh copy of the pack.
    let pristine = env.home().join("pristine");
    copy_dir(&dir, &pristine);
    let cases: Vec<(&str, Tamper, &str)> = vec![
        (
            "output.txt",
            Box::new(|d: &Path| append(d, "output.txt")),
            "changed",
        ),
        (
            "recording.cast",
            Box::new(|d: &Path| std::fs::remove_file(d.join("recording.cast")).unwrap()),
            "missing",
        ),
        (
            "planted.txt",
            Box::new(|d: &Path| std::fs::write(d.join("planted.txt"), "x").unwrap()),
            "added",
        ),
        (
            "git.diff",
            Box::new(|d: &Path| std::fs::write(d.join("git.diff"), "").unwrap()),
            "changed",
        ),
    ];
    for (file, tamper, problem) in cases {
        std::fs::remove_dir_all(&dir).unwrap();
        copy_dir(&pristine, &dir);
        tamper(&dir);
        let out = env.kpty(&["--json", "evidence", "verify", &ev]);
        assert_eq!(out.status.code(), Some(1), "{file}: {}", stdout(&out));
        let bad: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        assert!(
            bad["problems"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["file"] == file && p["problem"] == problem),
            "{file}: {bad}"
        );
    }
    // A manifest edited to match a changed file loses its seal and its match with the trail.
    std::fs::remove_dir_all(&dir).unwrap();
    copy_dir(&pristine, &dir);
    append(&dir, "output.txt");
    let mut m: Value = serde_json::from_str(&read(&dir, "manifest.json")).unwrap();
    let sha = sha256_hex(&std::fs::read(dir.join("output.txt")).unwrap());
    for f in m["files"].as_array_mut().unwrap() {
        if f["name"] == "output.txt" {
            f["sha256"] = json!(sha);
        }
    }
    std::fs::remove_file(dir.join("manifest.json")).unwrap();
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_vec_pretty(&m).unwrap(),
    )
    .unwrap();
    let out = env.kpty(&["--json", "evidence", "verify", &ev]);
    let bad: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(out.status.code(), Some(1), "{bad}");
    assert_eq!(
        (
            bad["manifest_sealed"].clone(),
            bad["manifest_in_trail"].clone()
        ),
        (json!(false), json!(false)),
        "{bad}"
    );

    // Ids are checked before any path is made of them.
    for bad in ["../evidence", "ev_../x", "x", "ev_a/b"] {
        env.fails(&["evidence", "verify", bad], 115, "INVALID_PARAMS");
    }
    env.fails(
        &["evidence", "verify", "ev_20000101T000000Z_00000000"],
        119,
        "NOT_FOUND",
    );
    let list = env.ok_json(&["evidence", "list"]);
    assert!(
        list["packs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["evidence_id"] == ev.as_str()),
        "{list}"
    );
}

/// A change made to a pack's folder.
type Tamper = Box<dyn Fn(&Path)>;

fn append(dir: &Path, name: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join(name))
        .unwrap();
    f.write_all(b"tampered\n").unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for f in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn talk_with_evidence_packs_its_command_and_the_diff_it_made_and_log_shows_it() {
    let env = Env::new();
    let cwd = repo(&env);
    // A change made before the talk is not the talk's.
    std::fs::write(cwd.join("notes.txt"), "first\nearlier edit\n").unwrap();
    let id = env.create(&["--cwd", cwd.to_str().unwrap()]);
    env.talk(&id, "echo unrelated");
    let v = env.talk_args(&["-s", &id, "--evidence", "echo by-the-talk >> notes.txt"]);
    let ev = s(&v, "evidence_id").to_string();
    assert_eq!(v["evidence"]["evidence_id"], ev.as_str(), "{v}");
    let dir = pack_dir(&env, &ev);
    let diff = read(&dir, "git.diff");
    assert!(
        diff.contains("+by-the-talk") && !diff.contains("+earlier edit"),
        "{diff}"
    );
    let m: Value = serde_json::from_str(&read(&dir, "manifest.json")).unwrap();
    assert_eq!(m["commands"].as_array().unwrap().len(), 1, "{m}");
    assert_eq!(m["commands"][0]["exit_code"], 0, "{m}");
    // The trail: the talk's own entry names the pack; `log` shows it on the entries in range.
    let log = env.ok(&["log", "-s", &id]);
    let line = log
        .lines()
        .find(|l| l.contains("by-the-talk"))
        .expect("the talk's entry");
    assert!(line.contains(&ev), "{log}");
    assert!(
        !log.lines()
            .find(|l| l.contains("echo unrelated"))
            .unwrap()
            .contains(&ev),
        "{log}"
    );
}

#[test]
fn everything_in_a_pack_is_redacted() {
    let env = Env::new();
    let id = env.create(&[]);
    let (pem, body) = private_key(6);
    let key_file = env.home().join("key.pem");
    std::fs::write(&key_file, &pem).unwrap();
    for (line, _) in secret_lines() {
        env.talk(&id, &format!("echo '{line}'"));
    }
    env.talk(&id, &format!("cat {}", key_file.display()));
    let v = env.ok_json(&[
        "evidence",
        "-s",
        &id,
        "--note",
        "token ghp_R4nd0mGitHubT0kenAbCdEfGhIjKlMnOpQr",
    ]);
    let dir = pack_dir(&env, s(&v, "evidence_id"));
    for f in std::fs::read_dir(&dir).unwrap().flatten() {
        let text = String::from_utf8_lossy(&std::fs::read(f.path()).unwrap()).into_owned();
        assert_eq!(leaked(&text, &body), Vec::<String>::new(), "{:?}", f.path());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn over_mcp_recordings_and_packs_are_redacted_and_capped() {
    let env = Env::new();
    let id = env.create(&[]);
    env.talk(
        &id,
        "echo 'GITHUB_TOKEN=ghp_R4nd0mGitHubT0kenAbCdEfGhIjKlMnOpQr'; seq 1 3000",
    );
    let m = crate::mcp::start(&env).await;
    for format in ["txt", "cast"] {
        let v = m
            .json(json!({"action": "recording", "session_id": id, "format": format}))
            .await;
        let content = s(&v, "content");
        assert!(
            !content.contains("R4nd0mGitHubT0ken") && content.contains("[REDACTED:"),
            "{v}"
        );
        assert!(
            v["markers"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["text"].as_str().unwrap_or("").starts_with("talk by")),
            "{v}"
        );
    }
    let v = m
        .json(json!({"action": "recording", "session_id": id, "max_chars": 100}))
        .await;
    assert_eq!(v["truncated"], true, "{v}");
    assert!(s(&v, "content").chars().count() <= 100, "{v}");
    assert!(s(&v, "content").contains("3000"), "{v}");
    let v = m
        .json(json!({"action": "recording", "session_id": id, "format": "gif"}))
        .await;
    assert_eq!(v["error_code"], "INVALID_PARAMS", "{v}");
    let v = m
        .json(json!({"action": "evidence", "session_id": id, "from": "talk by", "agent_id": "reviewer-1"}))
        .await;
    let dir = pack_dir(&env, s(&v, "evidence_id"));
    let manifest = read(&dir, "manifest.json");
    assert!(manifest.contains("agent reviewer-1 via mcp"), "{manifest}");
    let v = m
        .json(json!({"action": "evidence", "session_id": id, "from": "no-such-marker"}))
        .await;
    assert_eq!(v["error_code"], "INVALID_PARAMS", "{v}");
    m.close().await;
}
