//! Shell integration beyond plain bash: zsh and fish (skipped when not installed, failed in CI, where .ci/run installs
//! them), and bash startup files that fight the integration (a PROMPT_COMMAND ending in `;`,
//! one that rewrites PS1 on every prompt).

use crate::support::{Env, skip};

fn have(shell: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {shell}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn exercise(env: &Env, id: &str) {
    let v = env.talk(id, "echo hi; ls /nonexistent-kpty");
    assert_eq!(v["completion"], "osc133", "{v}");
    assert_eq!(v["exit_code"].as_i64().map(|c| c != 0), Some(true), "{v}");
    assert!(
        v["output"]
            .as_str()
            .is_some_and(|o| o.starts_with("hi\n") && o.contains("nonexistent-kpty")),
        "{v}"
    );
    assert_eq!(env.talk(id, "false")["exit_code"], 1);
    assert_eq!(env.out(id, "echo one\necho two"), "one\ntwo");
    assert_eq!(
        env.out(id, &format!("echo {}", "x".repeat(300))),
        "x".repeat(300)
    );
}

#[test]
fn zsh_sessions_use_shell_integration() {
    if !have("zsh") {
        skip("zsh is not installed (apt-get install zsh)");
        return;
    }
    let env = Env::new();
    std::fs::write(env.home().join(".zshrc"), "PROMPT='%F{green}%n%f %~ %# '\n").expect("zshrc");
    let id = env.create(&["--shell", "zsh"]);
    exercise(&env, &id);
}

#[test]
fn fish_sessions_use_shell_integration() {
    if !have("fish") {
        skip("fish is not installed (apt-get install fish)");
        return;
    }
    let env = Env::new();
    let id = env.create(&["--shell", "fish"]);
    exercise(&env, &id);
}

#[test]
fn bash_startup_files_cannot_break_the_integration() {
    // A trailing `;` (as pyenv-virtualenv leaves it) and a PS1 rebuilt before every prompt.
    let env = Env::with_bashrc(
        "__mine() { PS1=\"\\[\\e[1;35m\\]\\w \\$(date +%s)\\[\\e[0m\\] \\$ \"; }\nPROMPT_COMMAND='__mine;'\n",
    );
    let id = env.create(&[]);
    let created = env.entry(&id);
    assert_eq!(created["integration"], "osc133", "{created}");
    exercise(&env, &id);
}
