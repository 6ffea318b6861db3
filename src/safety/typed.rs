//! The dangerous-command check applied to typed input as the shell will read it.
//!
//! [`Typing::after`] replays a write through both line editors of [`super::lineedit`] (on top
//! of what earlier writes left on the line, when the caller keeps a [`Typing`]) and runs
//! [`check_dangerous`](super::dangerous::check_dangerous) on every line either editor submits, on the line left pending (a later
//! Enter would submit it), on readline's kill ring (a later Ctrl-Y would paste it) and, as a
//! second opinion, on the write with its control characters removed (what a program that
//! edits nothing would see). A line that a key kpty cannot follow (history, completion …)
//! made opaque is refused when it was also edited and is submitted ([`Opacity`]); a line of
//! keys alone — `\x1b[A\r`, `\x1b[B\x1b[B\r` — passes.

use super::dangerous::BlockedMatch;
use super::lineedit::{Editor, Keymap, Line};
use super::policy::explain;
use serde_json::{Value, json};

/// Which opaque lines (edited after a key kpty cannot follow) are refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opacity {
    /// None: no line editor reads this input (a full-screen program, a shell without one).
    Ignore,
    /// Those this write submits, when this write itself holds both the opaque key and an
    /// edit: what earlier writes did to the line is forgotten (a program other than the shell
    /// reads the input, and its keys mean what it says: Shift-Tab, then a prompt).
    PerWrite,
    /// Those this write submits, whichever write edited them or pressed the key.
    OnSubmit,
    /// Those this write submits, and the one it leaves pending (for callers that cannot see
    /// the next write).
    Strict,
}

/// Why typed input is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A line, as the shell would read it, matches a blocked-command rule.
    Dangerous {
        /// The rule.
        rule: BlockedMatch,
        /// The line as the shell would read it.
        line: String,
        /// The line differs from the text as typed (editing keys were applied).
        edited: bool,
        /// The command the rule matched, as the policy normalised it (quotes removed,
        /// variables substituted, wrappers peeled).
        seen: String,
    },
    /// A submitted line was edited after a key whose effect kpty cannot see.
    Unverifiable {
        /// The key, by name.
        key: &'static str,
        /// The line as far as kpty can tell.
        line: String,
    },
    /// The input edits the line in more steps than the emulator follows.
    TooComplex,
}

const UNVERIFIABLE: &str = "unverifiable_line_edit";

impl Refusal {
    /// The error message (it says that nothing was typed).
    #[must_use]
    pub fn message(&self) -> String {
        match self {
            Refusal::Dangerous {
                rule,
                line,
                edited,
                seen,
            } => {
                let edited = if *edited {
                    format!(" (with its editing keys applied, the shell would read {line:?})")
                } else {
                    String::new()
                };
                let ran = if seen != line.trim() {
                    format!("; as the shell would run it: {seen:?}")
                } else {
                    String::new()
                };
                format!(
                    "blocked: the command breaks the dangerous-command rule {} ({}){edited}{ran}; nothing was typed \
                     (`check` explains a verdict)",
                    rule.id, rule.description
                )
            }
            Refusal::Unverifiable { key, .. } => format!(
                "blocked: this input edits and submits a line after {key}, whose effect depends on \
                 the shell's history, completion or key bindings, so kpty cannot check the command \
                 the shell would run; nothing was typed. Send such keys without text on the line \
                 (e.g. \"\\x1b[B\" then \"\\r\" to pick a menu entry), or clear the line (\"\\x15\") \
                 and type the whole command as plain text"
            ),
            Refusal::TooComplex => {
                "blocked: this input edits a line in more steps than kpty follows, so \
                 kpty cannot check the command the shell would run; nothing was typed"
                    .into()
            }
        }
    }

    /// The error details: `pattern`, `category`, `description` and, when known, `line`/`key`.
    #[must_use]
    pub fn details(&self) -> Value {
        match self {
            Refusal::Dangerous {
                rule, line, seen, ..
            } => json!({
                "pattern": rule.id, "category": rule.category,
                "description": rule.description, "line": line, "seen": seen,
            }),
            Refusal::Unverifiable { key, line } => json!({
                "pattern": UNVERIFIABLE, "category": "line_editing",
                "description": "a submitted line was edited after a key whose effect kpty cannot see",
                "key": key, "line": line,
            }),
            Refusal::TooComplex => json!({
                "pattern": UNVERIFIABLE, "category": "line_editing",
                "description": "the input edits a line in more steps than kpty follows",
            }),
        }
    }
}

/// What has been typed into one terminal so far, as each line editor holds it.
#[derive(Debug, Clone)]
pub struct Typing {
    readline: Editor,
    canonical: Editor,
}

impl Default for Typing {
    fn default() -> Self {
        Self::new()
    }
}

impl Typing {
    /// Nothing typed yet.
    #[must_use]
    pub fn new() -> Self {
        Self {
            readline: Editor::new(Keymap::Readline),
            canonical: Editor::new(Keymap::Canonical),
        }
    }

    /// The state after typing `text`, or why it must not be typed. With `enter_follows`, the
    /// text is checked as if Enter followed it (the caller sends Enter as a separate write).
    pub fn after(
        &self,
        text: &str,
        opacity: Opacity,
        enter_follows: bool,
    ) -> Result<Self, Refusal> {
        let mut next = self.clone();
        if opacity == Opacity::PerWrite {
            next.readline.forget_line_flags();
        }
        let mut rl_lines = next.readline.feed(text);
        let mut canon_lines = next.canonical.feed(text);
        let (mut rl_end, mut canon_end) = (next.readline.clone(), next.canonical.clone());
        if enter_follows {
            rl_lines.extend(rl_end.feed("\r"));
            canon_lines.extend(canon_end.feed("\r"));
        }
        if rl_end.gave_up() || canon_end.gave_up() {
            return Err(Refusal::TooComplex);
        }
        let typed = text.trim_end_matches(['\r', '\n']);
        let dangerous = |line: &str| {
            let verdict = explain(&line.replace('\r', "\n"));
            Some(Refusal::Dangerous {
                rule: verdict.blocked?,
                line: line.to_string(),
                edited: line != typed,
                seen: verdict.seen.unwrap_or_else(|| line.to_string()),
            })
        };
        let stripped = strip_controls(text);
        let rl_pending = rl_end.pending();
        let canon_pending = canon_end.pending();
        let kill_ring = rl_end.kill_ring();
        let mut views: Vec<&str> = rl_lines
            .iter()
            .chain(&canon_lines)
            .map(|l| l.text.as_str())
            .chain([
                rl_pending.text.as_str(),
                canon_pending.text.as_str(),
                kill_ring.as_str(),
                stripped.as_str(),
            ])
            .filter(|v| !v.trim().is_empty())
            .collect();
        // Most views are the same text: judge each once.
        let mut seen_views = std::collections::HashSet::new();
        views.retain(|v| seen_views.insert(*v));
        if let Some(r) = views.into_iter().find_map(dangerous) {
            return Err(r);
        }
        let unverifiable = |l: &Line| {
            l.opaque
                .filter(|_| l.edited)
                .map(|key| Refusal::Unverifiable {
                    key,
                    line: l.text.clone(),
                })
        };
        let refused = match opacity {
            Opacity::Ignore => None,
            Opacity::PerWrite | Opacity::OnSubmit => rl_lines.iter().find_map(unverifiable),
            Opacity::Strict => rl_lines.iter().chain([&rl_pending]).find_map(unverifiable),
        };
        match refused {
            Some(r) => Err(r),
            None => Ok(next),
        }
    }

    /// Record `text` as typed without checking it (Ctrl-C from a cancelled talk).
    pub fn record(&mut self, text: &str) {
        self.readline.feed(text);
        self.canonical.feed(text);
    }
}

/// Check `text` typed on a fresh line: [`Typing::after`] with no earlier state.
pub fn check_typed(text: &str, opacity: Opacity) -> Result<(), Refusal> {
    Typing::new().after(text, opacity, false).map(|_| ())
}

/// `text` with CR as LF and every other control character but TAB and LF removed.
fn strip_controls(text: &str) -> String {
    text.chars()
        .filter_map(|c| match c {
            '\r' => Some('\n'),
            '\t' | '\n' => Some(c),
            c if c < ' ' || c == '\x7f' => None,
            c => Some(c),
        })
        .collect()
}

#[cfg(test)]
mod tests {
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
}
