//! Shell completion: the committed bash script (completions/kpty.bash) driven by a real bash,
//! and kpty's completion requests called directly. Session ids and labels come from the state
//! directory the command line names; hidden subcommands are never offered.

use crate::support::{Env, stdout};
use std::path::Path;
use std::process::Command;

/// What bash's completion function offers for `words` (the last one is being completed),
/// with the committed completions/kpty.bash sourced and the test's kpty first on PATH.
fn bash_complete(env: &Env, words: &[&str]) -> Vec<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/kpty.bash");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_kpty")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let prog = format!(
        "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD={}\n_clap_complete_kpty kpty '{}' '{}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        words.len() - 1,
        words[words.len() - 1],
        words[words.len() - 2],
    );
    let c = env.cmd(&[]);
    let mut bash = Command::new("bash");
    bash.arg("--norc")
        .arg("-c")
        .arg(prog)
        .env("PATH", path)
        .env_remove("COMPLETE");
    for (k, v) in c.get_envs() {
        match v {
            Some(v) => bash.env(k, v),
            None => bash.env_remove(k),
        };
    }
    let out = bash.current_dir(env.home()).output().expect("run bash");
    assert!(out.status.success(), "bash failed: {out:?}");
    stdout(&out)
        .lines()
        .map(|l| l.trim_end().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// kpty's answer to a completion request for `words`, asked directly (as the scripts do).
fn direct_complete(env: &Env, words: &[&str]) -> Vec<String> {
    let mut c = env.cmd(&["--"]);
    c.args(words)
        .env("COMPLETE", "bash")
        .env("_CLAP_COMPLETE_INDEX", (words.len() - 1).to_string())
        .env("_CLAP_IFS", "\n");
    let out = c.output().expect("run kpty");
    assert!(out.status.success(), "completion failed: {out:?}");
    assert!(out.stderr.is_empty(), "completion wrote to stderr: {out:?}");
    stdout(&out).lines().map(str::to_string).collect()
}

/// A registry written by hand (no holder needed to complete names).
fn write_registry(dir: &Path, sessions: &[(&str, &str)]) {
    std::fs::create_dir_all(dir).unwrap();
    let mut map = serde_json::Map::new();
    for (id, label) in sessions {
        map.insert(
            id.to_string(),
            serde_json::json!({"session_id": id, "source": "local", "label": label}),
        );
    }
    let reg = serde_json::json!({"schema": "pty_registry_v1", "sessions": map});
    std::fs::write(dir.join("_registry.json"), reg.to_string()).unwrap();
}

#[test]
fn bash_completes_session_labels_and_ids_from_the_registry() {
    let env = Env::new();
    let id = env.create(&["--label", "mybuild"]);
    env.create(&["--label", "other"]);
    assert_eq!(
        bash_complete(&env, &["kpty", "talk", "-s", "my"]),
        ["mybuild"]
    );
    assert_eq!(
        bash_complete(&env, &["kpty", "read", "--session", &id[..6]]),
        [id.as_str()]
    );
    assert_eq!(
        bash_complete(&env, &["kpty", "kill", "--label", "o"]),
        ["other"]
    );
    // kill's positional SESSION argument, with the flags after the names.
    let all = bash_complete(&env, &["kpty", "kill", ""]);
    for want in ["mybuild", "other", id.as_str(), "--label"] {
        assert!(all.iter().any(|c| c == want), "{want} missing from {all:?}");
    }
    assert_eq!(
        direct_complete(&env, &["kpty", "term-read", "-s", "myb"]),
        ["mybuild"]
    );
}

#[test]
fn hidden_subcommands_are_never_offered() {
    let env = Env::new();
    let subs = bash_complete(&env, &["kpty", ""]);
    assert!(subs.iter().any(|c| c == "list") && subs.iter().any(|c| c == "send-line"));
    assert!(!subs.iter().any(|c| c.starts_with("__")), "{subs:?}");
    assert!(bash_complete(&env, &["kpty", "__"]).is_empty());
    assert_eq!(bash_complete(&env, &["kpty", "ta"]), ["talk"]);
    let helps = bash_complete(&env, &["kpty", "help", ""]);
    assert!(helps.iter().any(|c| c == "term-read"), "{helps:?}");
    assert!(!helps.iter().any(|c| c.starts_with("__")), "{helps:?}");
    assert_eq!(
        bash_complete(&env, &["kpty", "log", "--action", "send_line_t"]),
        ["send_line_to_agent"]
    );
}

#[test]
fn the_state_dir_on_the_command_line_is_the_one_read() {
    let env = Env::new();
    write_registry(env.state(), &[("pty_aaaa0001", "here")]);
    let other = env.dir.path().join("other");
    write_registry(&other, &[("pty_bbbb0001", "there")]);
    let o = other.to_str().unwrap();
    assert_eq!(bash_complete(&env, &["kpty", "talk", "-s", "h"]), ["here"]);
    assert_eq!(
        bash_complete(&env, &["kpty", "--state-dir", o, "talk", "-s", "t"]),
        ["there"]
    );
    let eq = format!("--state-dir={o}");
    assert_eq!(
        direct_complete(&env, &["kpty", &eq, "talk", "-s", "pty_b"]),
        ["pty_bbbb0001"]
    );
}

#[test]
fn a_broken_or_hostile_registry_completes_nothing_and_says_nothing() {
    let env = Env::new();
    // No state directory at all.
    assert!(direct_complete(&env, &["kpty", "talk", "-s", ""]).is_empty());
    // Labels that would inject into the command line are not offered; plain ones are.
    write_registry(
        env.state(),
        &[
            ("pty_cccc0001", "ok-label"),
            ("pty_cccc0002", "a b;rm"),
            ("pty_cccc0003", "x\u{1b}[2J"),
        ],
    );
    let got = direct_complete(&env, &["kpty", "talk", "--label", ""]);
    assert_eq!(got, ["ok-label"]);
    // A corrupt registry: nothing, and nothing on stderr.
    std::fs::write(env.state().join("_registry.json"), "{not json").unwrap();
    assert!(direct_complete(&env, &["kpty", "talk", "-s", ""]).is_empty());
}

/// fish, when installed, completes through the committed completions/kpty.fish the same way.
#[test]
fn fish_completes_session_labels() {
    if Command::new("fish").arg("--version").output().is_err() {
        return crate::support::skip("fish is not installed (Debian package: fish)");
    }
    let env = Env::new();
    write_registry(env.state(), &[("pty_dddd0001", "fishy")]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/kpty.fish");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_kpty")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("fish")
        .arg("--no-config")
        .arg("-c")
        .arg(format!(
            "source '{}'; complete --do-complete 'kpty talk -s fi'",
            script.display()
        ))
        .env("PATH", path)
        .env("KPTY_STATE_DIR", env.state())
        .env("HOME", env.home())
        .env_remove("COMPLETE")
        .current_dir(env.home())
        .output()
        .expect("run fish");
    assert_eq!(
        stdout(&out).trim(),
        "fishy\tsession pty_dddd0001",
        "{out:?}"
    );
}

/// The subcommands `kpty --help` lists (the visible ones), read from its Commands section.
fn listed_commands(env: &Env) -> Vec<String> {
    let help = env.ok(&["--help"]);
    let section = help.split("Commands:\n").nth(1).expect("Commands section");
    section
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn every_listed_subcommand_is_offered_and_by_its_prefixes() {
    let env = Env::new();
    let listed = listed_commands(&env);
    assert!(
        listed.len() > 20 && listed.iter().any(|c| c == "talk"),
        "{listed:?}"
    );
    let offered = bash_complete(&env, &["kpty", ""]);
    for cmd in &listed {
        assert!(
            offered.contains(cmd),
            "`kpty <TAB>` lacks {cmd}: {offered:?}"
        );
        // Every prefix of it offers it too (`kpty ta<TAB>`).
        for end in 1..cmd.len() {
            let got = direct_complete(&env, &["kpty", &cmd[..end]]);
            assert!(
                got.contains(cmd),
                "`kpty {}<TAB>` lacks {cmd}: {got:?}",
                &cmd[..end]
            );
        }
    }
    assert!(
        !listed.iter().any(|c| c == "write"),
        "deprecated write listed"
    );
}

#[test]
fn send_keys_completes_key_names() {
    let env = Env::new();
    let names = kpty::keys::completion_names();
    // Any position among the keys, with or without a session flag before them.
    for words in [
        vec!["kpty", "send-keys", ""],
        vec!["kpty", "send-keys", "-s", "x", "Up", ""],
        vec![
            "kpty",
            "--state-dir",
            "/nonexistent",
            "send-keys",
            "C-c",
            "",
        ],
    ] {
        let got = bash_complete(&env, &words);
        for n in &names {
            assert!(got.contains(n), "{words:?}: {n} missing from {got:?}");
        }
    }
    assert_eq!(
        bash_complete(&env, &["kpty", "send-keys", "PageD"]),
        ["PageDown"]
    );
    let chords = direct_complete(&env, &["kpty", "send-keys", "M-"]);
    assert!(
        chords.iter().all(|c| c.starts_with("M-")) && chords.len() > 26,
        "{chords:?}"
    );
}

/// fish, when installed, offers `talk` and key names through the committed script too.
#[test]
fn fish_completes_talk_and_key_names() {
    if Command::new("fish").arg("--version").output().is_err() {
        crate::support::skip("fish is not installed");
        return;
    }
    let env = Env::new();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/kpty.fish");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_kpty")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let complete = |line: &str| {
        let out = Command::new("fish")
            .arg("--no-config")
            .arg("-c")
            .arg(format!(
                "source '{}'; complete --do-complete '{line}'",
                script.display()
            ))
            .env("PATH", &path)
            .env("KPTY_STATE_DIR", env.state())
            .env("HOME", env.home())
            .env_remove("COMPLETE")
            .current_dir(env.home())
            .output()
            .expect("run fish");
        stdout(&out)
            .lines()
            .map(|l| l.split('\t').next().unwrap_or_default().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(complete("kpty ta"), ["talk"]);
    let firsts = complete("kpty ");
    for cmd in listed_commands(&env) {
        assert!(firsts.contains(&cmd), "fish lacks {cmd}: {firsts:?}");
    }
    assert_eq!(complete("kpty send-keys Up PageD"), ["PageDown"]);
}

/// What zsh's completion function (the committed completions/_kpty) offers for `words`,
/// run by a real zsh; only zsh's completion-system builtins it hands the values to
/// (`compdef`, `_describe`) are stand-ins that print them.
fn zsh_complete(env: &Env, words: &[&str]) -> Vec<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/_kpty");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_kpty")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let prog = format!(
        "compdef() {{ :; }}\n_describe() {{ local name=${{@[-1]}}; print -rl -- \"${{(@P)name}}\"; }}\n\
         source '{}'\nwords=({})\nCURRENT={}\n_clap_dynamic_completer_kpty",
        script.display(),
        quoted.join(" "),
        words.len(),
    );
    let out = Command::new("zsh")
        .arg("-f")
        .arg("-c")
        .arg(prog)
        .env("PATH", path)
        .env("KPTY_STATE_DIR", env.state())
        .env("HOME", env.home())
        .env_remove("COMPLETE")
        .current_dir(env.home())
        .output()
        .expect("run zsh");
    assert!(out.status.success(), "zsh failed: {out:?}");
    stdout(&out)
        .lines()
        .map(|l| l.split(':').next().unwrap_or_default().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// zsh, when installed, offers every listed command (talk too) and key names.
#[test]
fn zsh_completes_every_command_and_key_names() {
    if Command::new("zsh").arg("--version").output().is_err() {
        crate::support::skip("zsh is not installed");
        return;
    }
    let env = Env::new();
    let offered = zsh_complete(&env, &["kpty", ""]);
    for cmd in listed_commands(&env) {
        assert!(offered.contains(&cmd), "zsh lacks {cmd}: {offered:?}");
    }
    assert!(zsh_complete(&env, &["kpty", "ta"]).contains(&"talk".to_string()));
    let keys = zsh_complete(&env, &["kpty", "send-keys", "Up", ""]);
    for k in kpty::keys::completion_names() {
        assert!(keys.contains(&k), "zsh lacks key {k}: {keys:?}");
    }
}
