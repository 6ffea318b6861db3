//! Tests of the typed-text check.
use super::*;
use proptest::prelude::*;

fn blocked(text: &str) -> bool {
    check_typed(text, Opacity::Strict).is_err()
}

#[test]
fn the_issue_bypasses_are_refused() {
    for text in [
        "x\x7frm -rf /\r",
        "echo safe\x15rm -rf /\r",
        "echo safe\x17\x17rm -rf /\r",
        "r\x16m -rf /\r",
        "true;\x00rm -rf /\r",
        "true\rrm -rf /\r",
        "true\nrm -rf /",
        "rm -rf /x\x7f",
        "rm -rf /tmp\x1b\x7f\r",
        "-rf /\x01\x0brm \x19\r",
        "mr\x14 -rf /\r",
        " -rf /\x01rm\r",
        "rm -rf /x\x01\x7f\x7f\r",
        "rm -rf /x\x7f\x15",
        "reboo\x1b:t\r",
        "\x1b[200~rm -rf /\x1b[201~\r",
    ] {
        let r = check_typed(text, Opacity::Strict);
        assert!(
            matches!(r, Err(Refusal::Dangerous { .. })),
            "{text:?}: {r:?}"
        );
    }
}

#[test]
fn opaque_edits_are_refused_keys_alone_pass() {
    for text in ["reboo\t\r", "\x1b[Arm\r", "\x1b[A\x7f\x7f\r", "\x12rm\r"] {
        assert!(
            matches!(
                check_typed(text, Opacity::OnSubmit),
                Err(Refusal::Unverifiable { .. })
            ),
            "{text:?}"
        );
        assert_eq!(check_typed(text, Opacity::Ignore), Ok(()), "{text:?}");
    }
    for text in [
        "\x1b[A\r",
        "\x1b[B\x1b[B\r",
        "\t",
        "\x03",
        "y",
        "\x1b:wq\r",
        "ls -la\r",
    ] {
        assert_eq!(check_typed(text, Opacity::Strict), Ok(()), "{text:?}");
    }
    // Pending opaque edits: only a caller that cannot see the next write refuses them.
    assert!(check_typed("cd /us\t", Opacity::OnSubmit).is_ok());
    assert!(check_typed("cd /us\t", Opacity::Strict).is_err());
}

#[test]
fn state_carries_across_writes() {
    let t = Typing::new();
    let t = t.after("rm -rf", Opacity::OnSubmit, false).unwrap();
    assert!(t.after(" /\r", Opacity::OnSubmit, false).is_err());
    let t = t.after("\x03", Opacity::OnSubmit, false).unwrap();
    assert!(t.after(" /\r", Opacity::OnSubmit, false).is_ok());
    // An opaque line edited in one write and submitted in the next.
    let t = Typing::new()
        .after("reboo\t", Opacity::OnSubmit, false)
        .unwrap();
    assert!(t.after("\r", Opacity::OnSubmit, false).is_err());
    // Per write: only keys and edits in the same write count.
    let t = Typing::new()
        .after("\x1b[Z", Opacity::PerWrite, false)
        .unwrap();
    assert!(t.after("go on\r", Opacity::PerWrite, false).is_ok());
    assert!(t.after("go on\r", Opacity::OnSubmit, false).is_err());
    assert!(t.after("go\ton\r", Opacity::PerWrite, false).is_err());
    // Enter that follows in a separate write.
    let t = Typing::new()
        .after("rm -rf ", Opacity::OnSubmit, false)
        .unwrap();
    assert!(t.after("/", Opacity::OnSubmit, true).is_err());
}

#[test]
fn messages_and_details() {
    let r = check_typed("x\x7frm -rf /\r", Opacity::Strict).unwrap_err();
    assert!(r.message().contains("rm_recursive_root"), "{}", r.message());
    assert!(r.message().contains("\"rm -rf /\""), "{}", r.message());
    assert_eq!(r.details()["line"], "rm -rf /");
    let r = check_typed("rm -rf /", Opacity::Strict).unwrap_err();
    assert!(!r.message().contains("would read"), "{}", r.message());
    let r = check_typed("reboo\t\r", Opacity::OnSubmit).unwrap_err();
    assert_eq!(r.details()["key"], "Tab (completion)");
    assert!(r.message().contains("nothing was typed"));
}

const BLOCKED: &[&str] = &[
    "rm -rf /",
    "rm -rf ~",
    "mkfs.ext4 /dev/sda",
    "shutdown -h now",
    "reboot",
    "dd if=/dev/zero of=/dev/sda",
    "cat ~/.ssh/id_rsa",
    "chmod -R 777 /",
    "sudo halt",
];

/// Ways to type `cmd` so that the line submitted is still `cmd`.
fn disguise(cmd: &str, ops: &[(u8, usize, String)]) -> String {
    let chars: Vec<char> = cmd.chars().collect();
    let mut out = String::new();
    // Prefix noise that the line editor removes.
    for (op, _, junk) in ops.iter().filter(|o| o.0 < 3) {
        match op {
            0 => {
                out.push_str(junk);
                out.push_str(&"\x7f".repeat(junk.chars().count()));
            }
            1 => {
                out.push_str(junk);
                out.push('\x15');
            }
            _ => {
                out.push_str(junk);
                out.push('\x03');
            }
        }
    }
    let mut at = 0;
    for (op, pos, _) in ops.iter().filter(|o| o.0 >= 3) {
        let pos = (*pos % (chars.len() + 1)).max(at);
        out.extend(&chars[at..pos]);
        at = pos;
        match op {
            3 => out.push('\0'),
            4 => {
                // Ctrl-V quotes the next character: it must be the command's own.
                if let Some(c) = chars.get(pos) {
                    out.push('\x16');
                    out.push(*c);
                    at = pos + 1;
                }
            }
            5 => out.push('\x07'),
            6 => out.push_str("\x1b:"),
            _ => out.push('\x0c'),
        }
    }
    out.extend(&chars[at..]);
    out.push('\r');
    out
}

proptest! {
    #[test]
    fn editing_keys_never_let_a_blocked_command_through(
        which in 0..BLOCKED.len(),
        ops in proptest::collection::vec((0u8..8, 0usize..40, "[a-z ;]{1,8}"), 0..8),
    ) {
        let text = disguise(BLOCKED[which], &ops);
        prop_assert!(blocked(&text), "{:?}", text);
    }

    #[test]
    fn moving_left_and_inserting_never_lets_a_blocked_command_through(
        which in 0..BLOCKED.len(),
        split in 0usize..40,
        kill_yank in any::<bool>(),
    ) {
        // Type the tail, go back to the start, type the head (or kill and yank it around).
        let chars: Vec<char> = BLOCKED[which].chars().collect();
        let at = split % (chars.len() + 1);
        let head: String = chars[..at].iter().collect();
        let tail: String = chars[at..].iter().collect();
        let text = if kill_yank {
            format!("{tail}\x01\x0b{head}\x19\r")
        } else {
            format!("{tail}\x01{head}\r")
        };
        prop_assert!(blocked(&text), "{:?}", text);
    }

    #[test]
    fn fixed_typos_never_let_a_blocked_command_through(
        which in 0..BLOCKED.len(),
        at in 0usize..40,
        kind in 0u8..5,
        arrows in any::<bool>(),
    ) {
        // Type the command with a typo, then fix it with cursor keys and editing keys.
        let c: Vec<char> = BLOCKED[which].chars().collect();
        let n = c.len();
        let k = at % (n - 1);
        let text = |v: &[char]| v.iter().collect::<String>();
        let left = |times: usize| if arrows { "\x1b[D" } else { "\x02" }.repeat(times);
        let end = if arrows { "\x1b[F" } else { "\x05" };
        let typed = match kind {
            // A character left out, inserted after moving back.
            0 => format!(
                "{}{}{}{}{end}",
                text(&c[..k]), text(&c[k + 1..]), left(n - k - 1), c[k]
            ),
            // Two characters swapped, fixed with Ctrl-T.
            1 => format!(
                "{}{}{}{}{}\x14{end}",
                text(&c[..k]), c[k + 1], c[k], text(&c[k + 2..]), left(n - k - 1)
            ),
            // A character too many, erased after moving back.
            2 => format!("{}#{}{}\x7f{end}", text(&c[..k]), text(&c[k..]), left(n - k)),
            // The same, deleted forward.
            3 => format!("{}#{}{}\x04{end}", text(&c[..k]), text(&c[k..]), left(n - k + 1)),
            // The last word killed and yanked back.
            _ => format!("{}\x17\x19", text(&c)),
        };
        prop_assert!(blocked(&format!("{typed}\r")), "{:?}", typed);
    }

    #[test]
    fn split_writes_never_let_a_blocked_command_through(
        which in 0..BLOCKED.len(),
        split in 0usize..40,
    ) {
        let chars: Vec<char> = BLOCKED[which].chars().collect();
        let at = split % (chars.len() + 1);
        let head: String = chars[..at].iter().collect();
        let tail: String = chars[at..].iter().collect();
        let first = Typing::new().after(&head, Opacity::OnSubmit, false);
        if let Ok(t) = first {
            let second = format!("{tail}\r");
            prop_assert!(t.after(&second, Opacity::OnSubmit, false).is_err());
        }
    }

    #[test]
    fn arbitrary_input_never_panics(
        text in proptest::collection::vec(
            prop_oneof![
                4 => proptest::char::range('\0', '\x7f'),
                1 => any::<char>(),
            ],
            0..200,
        ).prop_map(|v| v.into_iter().collect::<String>()),
        split in 0usize..200,
    ) {
        let cut = text.char_indices().nth(split).map_or(text.len(), |(i, _)| i);
        let mut t = Typing::new();
        for part in [&text[..cut], &text[cut..]] {
            for o in [Opacity::Ignore, Opacity::PerWrite, Opacity::OnSubmit, Opacity::Strict] {
                let _ = t.after(part, o, true).map(|r| r.after("\r", o, false));
            }
            t.record(part);
        }
    }
}

/// A shell's typing state in `cwd`, as the holder keeps it.
fn shell_in(cwd: &str) -> Typing {
    let mut t = Typing::new();
    *t.context_mut() = crate::safety::policy::context::ShellContext::new(Some(cwd));
    t
}

#[test]
fn lines_are_judged_in_the_state_earlier_writes_left() {
    let t = shell_in("/home/u/p");
    let t = t
        .after("cd /\r", Opacity::OnSubmit, false)
        .expect("cd alone passes");
    assert!(matches!(
        t.after("rm -rf *\r", Opacity::OnSubmit, false),
        Err(Refusal::Dangerous { .. })
    ));
    // Within one write, and with Enter sent apart.
    let t = shell_in("/home/u/p");
    assert!(
        t.after("cd /\rrm -rf *\r", Opacity::OnSubmit, false)
            .is_err()
    );
    let t = shell_in("/home/u/p");
    let t = t.after("D=/", Opacity::OnSubmit, true).expect("assignment");
    let t = t.after("\r", Opacity::OnSubmit, false).expect("its Enter");
    assert!(t.after("rm -rf $D\r", Opacity::OnSubmit, false).is_err());
    // An edited line is absorbed as the shell reads it.
    let t = shell_in("/home/u/p");
    let t = t
        .after("D=/tmp/x\x7f\x7f\x7f\x7f\x7f\r", Opacity::OnSubmit, false)
        .expect("D=/");
    assert!(t.after("rm -rf $D\r", Opacity::OnSubmit, false).is_err());
}

#[test]
fn a_persons_line_or_a_line_to_another_program_makes_values_unknown() {
    let t = shell_in("/home/u/p");
    let mut t = t
        .after("D=build\r", Opacity::OnSubmit, false)
        .expect("D=build");
    assert!(t.after("rm -rf $D\r", Opacity::OnSubmit, false).is_ok());
    t.record("D=/\r");
    assert!(t.after("rm -rf $D\r", Opacity::OnSubmit, false).is_err());
    let mut t = shell_in("/home/u/p");
    t = t.after("D=/\r", Opacity::OnSubmit, false).expect("D=/");
    t.set_busy(true);
    let mut t = t
        .after("D=build\r", Opacity::OnSubmit, false)
        .expect("typed to a program");
    t.set_busy(false);
    assert!(t.after("rm -rf $D\r", Opacity::OnSubmit, false).is_err());
}

/// Feeds `text` to a shell's typing state in `writes` pieces cut at `cuts`; returns whether
/// some write was refused.
fn refused_in_pieces(cwd: &str, text: &str, cuts: &[usize]) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (chars.len() + 1)).collect();
    at.sort_unstable();
    at.dedup();
    let mut t = shell_in(cwd);
    let mut from = 0;
    for end in at.into_iter().chain([chars.len()]) {
        let piece: String = chars[from..end].iter().collect();
        from = end;
        match t.after(&piece, Opacity::OnSubmit, false) {
            Ok(next) => t = next,
            Err(_) => return true,
        }
    }
    false
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    /// A destructive act carried by the shell's state, its text cut into 2–4 writes at
    /// random places (inside lines too): some write is refused before the act runs.
    #[test]
    fn an_act_cut_into_random_writes_is_refused(
        case in 0usize..7,
        target in prop_oneof![Just("/"), Just("~"), Just("/usr")],
        cuts in proptest::collection::vec(any::<usize>(), 1..4),
    ) {
        let text = [
            format!("cd {target}\rrm -rf *\r"),
            format!("D={target}\rrm -rf $D\r"),
            format!("f(){{ rm -rf \"$@\"; }}\rf {target}\r"),
            format!("alias z='rm -rf'\rz {target}\r"),
            format!("export T={target}\rsh -c 'rm -rf $T'\r"),
            format!("pushd {target}\rpushd /tmp\rpopd\rrm -rf ./*\r"),
            format!("set -- {target}\rrm -rf \"$1\"\r"),
        ][case].clone();
        prop_assert!(refused_in_pieces("/home/u/p", &text, &cuts), "{:?} cut at {:?}", text, cuts);
    }

    /// The same shapes on a project's own folders pass, however cut.
    #[test]
    fn project_work_cut_into_random_writes_passes(
        case in 0usize..4,
        cuts in proptest::collection::vec(any::<usize>(), 1..4),
    ) {
        let text = [
            "cd /home/u/p\rrm -rf build\r",
            "D=build\rrm -rf $D\r",
            "f(){ rm -rf \"$@\"; }\rf build dist\r",
            "pushd /home/u/p/sub\rpopd\rrm -rf ./target\r",
        ][case];
        prop_assert!(!refused_in_pieces("/home/u/p", text, &cuts), "{:?} cut at {:?}", text, cuts);
    }
}

proptest! {
    /// `after` judges a one-line write's control-free text only when it differs from the
    /// line the editors submitted: a newline after such a line never changes the verdict,
    /// in a fresh shell or one whose state earlier lines set.
    #[test]
    fn a_newline_after_one_line_never_changes_its_verdict(
        which in 0..BLOCKED.len(),
        prefix in prop_oneof![Just(""), Just("sudo "), Just("echo ok; "), Just("true && ")],
        suffix in prop_oneof![Just(""), Just(" # note"), Just(" &"), Just(" | cat"), Just("; ls")],
        state in 0usize..3,
    ) {
        let line = format!("{prefix}{}{suffix}", BLOCKED[which]);
        let mut ctx = shell_in("/home/u/p");
        let setup = ["", "cd /\r", "D=/usr\r"][state];
        ctx = ctx.after(setup, Opacity::OnSubmit, false).expect("setup passes");
        prop_assume!(super::one_line_as(&format!("{line}\n"), &line));
        let verdict = |l: &str| explain_in(l, ctx.context()).blocked.is_some();
        prop_assert_eq!(verdict(&line), verdict(&format!("{line}\n")), "{:?}", line);
        for benign in ["ls -la", "git status", "cargo test -- --nocapture 2>&1 | tee t.log"] {
            prop_assert_eq!(verdict(benign), verdict(&format!("{benign}\n")));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// An answer kept by `Judged` is exactly what `Typing::after` gives in that state: over
    /// sequences of writes that change the shell's state (cd, variables, aliases), repeat
    /// themselves (hits), refuse, leave lines unfinished, interrupt and paste.
    #[test]
    fn a_kept_judgement_is_the_judgement(
        steps in proptest::collection::vec(
            (
                prop_oneof![
                    Just("echo hi\r".to_string()),
                    Just("cd /tmp\r".to_string()),
                    Just("cd ~\r".to_string()),
                    Just("X=/\r".to_string()),
                    Just("X=/tmp/x\r".to_string()),
                    Just("rm -rf $X\r".to_string()),
                    Just("rm -rf ./build\r".to_string()),
                    Just("alias ll='rm -rf /'\r".to_string()),
                    Just("ll\r".to_string()),
                    Just("git status".to_string()),
                    Just("\r".to_string()),
                    Just("\x15".to_string()),
                    Just("\x03".to_string()),
                    Just("echo 'unclosed\r".to_string()),
                    "[a-z /$=;']{0,12}\r?",
                    "x{4090,4100}",
                ],
                prop_oneof![
                    Just(Opacity::Ignore),
                    Just(Opacity::PerWrite),
                    Just(Opacity::OnSubmit),
                    Just(Opacity::Strict),
                ],
                any::<bool>(),
            ),
            1..24,
        ),
    ) {
        let mut judged = Judged::default();
        let mut t = shell_in("/home/u/project");
        for (text, opacity, enter) in steps {
            let kept = judged.after(&t, &text, opacity, enter);
            prop_assert_eq!(&kept, &t.after(&text, opacity, enter));
            if let Ok(next) = kept {
                t = next;
            } else {
                t.record(&text);
            }
        }
    }
}
