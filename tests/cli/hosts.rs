//! `kpty hosts add|remove|list`: the hosts `list --all-hosts` asks, kept in `hosts` in kpty's
//! config directory (`$HOME/.config/kpty` in a test's own HOME). Any name ssh could read as
//! one of its options (a leading `-`), or that holds whitespace or a control character, is
//! refused with nothing written; the file is read as kpty reads its own state — never
//! through a symbolic link, never when others could have written it.

use crate::support::*;
use proptest::prelude::*;
use serde_json::Value;

const INVALID: i32 = 115;
const NOT_FOUND: i32 = 119;
const STATE: i32 = 113;

fn listed(v: &Value) -> Vec<String> {
    v["hosts"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|h| h.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The rule: not empty, at most 255 bytes, no leading `-`, no whitespace or control character.
fn ssh_could_name(h: &str) -> bool {
    !h.is_empty()
        && h.len() <= 255
        && !h.starts_with('-')
        && !h.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// A host ssh could name: an alias, `user@host`, `ssh://user@host:port`, an IPv6 literal.
fn good_host() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9.-]{0,20}",
        "[a-z_][a-z0-9_-]{0,8}@[a-z0-9][a-z0-9.-]{0,20}",
        "ssh://[a-z]{1,8}@[a-z0-9.]{1,20}:[1-9][0-9]{0,4}",
        "\\[[0-9a-f:]{2,20}\\]",
        "[A-Za-z0-9+=@%:._~\\[\\]]{1,40}".prop_filter("no leading dash", |s| !s.starts_with('-')),
    ]
}

/// A name refused: empty, an option for ssh, or broken by whitespace or a control character.
fn bad_host() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "-[a-zA-Z]{1,3}([a-zA-Z]+=[ -~]{0,12})?",
        (
            "[a-z]{1,8}",
            "[ \t\n\r\u{0b}\u{0c}\u{1b}\u{7f}\u{85}\u{a0}\u{2028}]",
            "[a-z]{0,8}"
        )
            .prop_map(|(a, b, c)| format!("{a}{b}{c}")),
        "[a-z]{256,300}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    /// Names ssh could take are kept once, listed in the order added, and removed again;
    /// the refused ones leave the file as it was (`INVALID_PARAMS`), in `add` as in
    /// `KPTY_HOSTS`.
    #[test]
    fn hosts_are_kept_once_and_only_names_ssh_cannot_mistake_for_options(
        good in proptest::collection::vec(good_host(), 1..4),
        bad in bad_host(),
    ) {
        let env = Env::new();
        let mut expected: Vec<String> = Vec::new();
        for h in good.iter().chain(good.iter()) {
            let v = env.ok_json(&["hosts", "add", "--", h]);
            if !expected.contains(h) {
                expected.push(h.clone());
            }
            prop_assert_eq!(listed(&v), expected.clone());
        }
        prop_assert!(!ssh_could_name(&bad));
        let v = env.fails(&["hosts", "add", "--", &bad], INVALID, "INVALID_PARAMS");
        prop_assert!(v["message"].as_str().is_some_and(|m| m.contains("ssh")), "{}", v);
        prop_assert_eq!(listed(&env.ok_json(&["hosts"])), expected.clone());
        // A bad name in KPTY_HOSTS is refused too, whatever the file holds (its entries are
        // trimmed, and an empty one is no entry).
        let t = bad.trim();
        if !t.is_empty() && !ssh_could_name(t) {
            let out = env
                .cmd(&["--json", "hosts"])
                .env("KPTY_HOSTS", format!("{},{bad}", good[0]))
                .output()
                .unwrap();
            prop_assert_eq!(out.status.code(), Some(INVALID), "{:?}: {}", bad, stdout(&out));
        }
        // KPTY_HOSTS adds to the file's, each host once.
        let out = env
            .cmd(&["--json", "hosts"])
            .env("KPTY_HOSTS", format!(" {} ,,zz-extra", good[0]))
            .output()
            .unwrap();
        let mut with_env = expected.clone();
        if !with_env.iter().any(|h| h == "zz-extra") {
            with_env.push("zz-extra".into());
        }
        prop_assert_eq!(listed(&serde_json::from_slice(&out.stdout).unwrap()), with_env);
        for h in &expected {
            env.ok_json(&["hosts", "remove", "--", h]);
        }
        prop_assert!(listed(&env.ok_json(&["hosts"])).is_empty());
        env.fails(&["hosts", "remove", "--", &good[0]], NOT_FOUND, "NOT_FOUND");
    }
}

/// The file is kpty's own: a symbolic link in its place is refused (its target never read
/// nor written), so is a file others could write; lines kpty cannot use (comments, blank
/// lines, names ssh would misread) are passed over, not fatal.
#[test]
fn the_hosts_file_is_read_and_written_only_when_it_is_this_users_own() {
    let env = Env::new();
    let dir = env.home().join(".config/kpty");
    let file = dir.join("hosts");
    env.ok_json(&["hosts", "add", "box"]);
    let mode = |p: &std::path::Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    };
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&file) & 0o077, 0, "{:o}", mode(&file));

    std::fs::write(
        &file,
        "# my hosts\n\n  box  \n-oProxyCommand=touch /tmp/x\nuser@other\nbad name\n",
    )
    .unwrap();
    assert_eq!(
        listed(&env.ok_json(&["hosts"])),
        ["box".to_string(), "user@other".to_string()]
    );

    for (what, mode) in [("group", 0o620), ("others", 0o602)] {
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(mode))
            .unwrap();
        let v = env.fails(&["hosts"], STATE, "STATE_ERROR");
        assert!(
            v["message"].as_str().is_some_and(|m| m.contains("chmod")),
            "{what}: {v}"
        );
        env.fails(&["hosts", "add", "third"], STATE, "STATE_ERROR");
        env.fails(&["list", "--all-hosts"], STATE, "STATE_ERROR");
    }
    std::fs::remove_file(&file).unwrap();

    let target = env.home().join("elsewhere");
    std::fs::write(&target, "planted\n").unwrap();
    std::os::unix::fs::symlink(&target, &file).unwrap();
    env.fails(&["hosts"], STATE, "STATE_ERROR");
    env.fails(&["hosts", "add", "third"], STATE, "STATE_ERROR");
    env.fails(&["hosts", "remove", "planted"], STATE, "STATE_ERROR");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "planted\n");
    assert!(std::fs::symlink_metadata(&file).unwrap().is_symlink());
}
