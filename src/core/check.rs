//! `check`: the dangerous-command policy's verdict on a command, explained, without typing it
//! and without a session. The command goes through what `talk` and `send_line` put it
//! through — escape decoding, then the typed-text check on the line the shell's line editor
//! would submit ([`crate::safety::check_typed`]) — so the verdict is the one they would reach;
//! [`crate::safety::policy::explain`] then tells which commands the policy saw. A command a
//! POSIX shell would not run but continue (an unclosed quote, `if` …) is reported as
//! `incomplete_line`, which talk and send_line refuse with `INVALID_PARAMS`.

use crate::api::check::CheckReply;
use crate::api::reply::Success;
use crate::api::request::CheckArgs;
use crate::api::{CheckVerdict, CheckedAs};
use crate::error::Result;
use crate::safety::lineedit::{Editor, Keymap};
use crate::safety::policy::{Verdict, explain};
use crate::safety::{Opacity, Refusal, check_complete, check_typed};

/// The opacity `check` judges with: the strictest, the one `send_line` and `talk` apply to a
/// bridged session. For a line that ends with Enter it refuses what a local session's holder
/// refuses at the shell's prompt, so one answer holds for either kind of session.
const OPACITY: Opacity = Opacity::Strict;

/// Why a command is blocked, as `check` reports it.
struct Blocked {
    rule: String,
    category: String,
    description: String,
    key: Option<String>,
    seen: Option<String>,
}

/// Run `check`.
pub fn check(a: &CheckArgs) -> Result<CheckReply> {
    let command = a.command.clone();
    // As talk types it: the command, then Enter.
    let (mut line, mut blocked) = judge(&command);
    // send_line strips CR/LF first: a command of several lines is also judged as it would
    // type it, and blocked when either would be.
    if blocked.is_none() && command.contains(['\r', '\n']) {
        let joined: String = command
            .chars()
            .filter(|c| !matches!(c, '\r' | '\n'))
            .collect();
        let (l, b) = judge(&joined);
        if b.is_some() {
            (line, blocked) = (l, b);
        }
    }
    // A line a POSIX shell would continue rather than run is refused by talk and send_line.
    if blocked.is_none()
        && let Err(r) = check_complete(&line.replace('\r', "\n"))
    {
        blocked = refused(&r, &command).1;
    }
    let verdict = explain(&line.replace('\r', "\n"));
    // The typed-text check runs the policy on every line it sees, so an allowed command's
    // lines are allowed by the policy too; should they ever differ, the stricter answer wins.
    let blocked = blocked.or_else(|| {
        let seen = verdict.seen.clone();
        verdict.blocked.as_ref().map(|m| from_rule(m, seen))
    });
    Ok(reply(&command, line, blocked, verdict))
}

/// `command` typed with Enter after it: the line(s) the shell would read, and why the
/// typed-text check refuses them, if it does.
fn judge(command: &str) -> (String, Option<Blocked>) {
    let typed = format!("{command}\r");
    match check_typed(&typed, OPACITY) {
        Ok(()) => (submitted(&typed), None),
        Err(r) => refused(&r, command),
    }
}

/// The lines readline submits for `typed`, newline-separated: what the shell reads.
fn submitted(typed: &str) -> String {
    let lines = Editor::new(Keymap::Readline).feed(typed);
    let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
    texts.join("\n")
}

/// A refusal as `check` reports it: the line it names (or the command, when it names none)
/// and the rule, from the same details a `DANGEROUS_COMMAND_BLOCKED` error carries.
fn refused(r: &Refusal, command: &str) -> (String, Option<Blocked>) {
    // Every refusal has the blocked shape (`error::details` tests); were one not to, its
    // command is still reported as refused.
    let d = match crate::error::Details::from(r) {
        crate::error::Details::Blocked(b) => b,
        _ => crate::error::details::Blocked::default(),
    };
    let line = d.line.unwrap_or_else(|| command.replace('\r', "\n"));
    let blocked = Blocked {
        rule: d.pattern,
        category: d.category,
        description: d.description,
        key: d.key,
        seen: d.seen,
    };
    (line, Some(blocked))
}

/// A policy rule as `check` reports it.
fn from_rule(m: &crate::safety::BlockedMatch, seen: Option<String>) -> Blocked {
    Blocked {
        rule: m.id.to_string(),
        category: m.category.to_string(),
        description: m.description.to_string(),
        key: None,
        seen,
    }
}

/// The reply for `command`, read by the shell as `line`.
fn reply(command: &str, line: String, blocked: Option<Blocked>, v: Verdict) -> CheckReply {
    let as_typed = command.trim_end_matches(['\r', '\n']).replace('\r', "\n");
    let (verdict, checked_as) = (
        if blocked.is_some() {
            CheckVerdict::Blocked
        } else {
            CheckVerdict::Allowed
        },
        if v.parsed {
            CheckedAs::Shell
        } else {
            CheckedAs::Patterns
        },
    );
    let (rule, category, description, key, seen) = match blocked {
        Some(b) => (
            Some(b.rule),
            Some(b.category),
            Some(b.description),
            b.key,
            b.seen,
        ),
        None => (None, None, None, None, None),
    };
    CheckReply {
        ok: Success,
        allowed: verdict == CheckVerdict::Allowed,
        verdict,
        rule,
        category,
        description,
        seen,
        parsed: v.parsed,
        commands: v.commands,
        checked_as,
        edited: line != as_typed,
        line,
        key,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Params;

    /// `check` as the core runs it: validated ([`crate::core::request::check`]), then judged.
    fn checked(p: &Params) -> Result<CheckReply> {
        crate::core::request::check(p).and_then(|a| check(&a))
    }

    fn check_of(command: &str) -> CheckReply {
        let p = Params {
            command: Some(command.into()),
            ..Default::default()
        };
        checked(&p).expect(command)
    }

    #[test]
    fn plain_commands() {
        let r = check_of("ls -la");
        assert!(r.allowed && r.rule.is_none() && !r.edited, "{r:?}");
        assert_eq!(r.verdict, CheckVerdict::Allowed);
        assert_eq!(r.line, "ls -la");
        for (cmd, core) in [("rm -rf /", "rm -rf /"), ("sudo reboot", "reboot")] {
            let r = check_of(cmd);
            assert!(!r.allowed && r.rule.is_some(), "{r:?}");
            assert_eq!(r.verdict, CheckVerdict::Blocked);
            assert!(r.commands.iter().any(|c| c.contains(core)), "{r:?}");
            assert_eq!((r.line.as_str(), r.edited), (cmd, false));
        }
        assert_eq!(
            check_of("rm -rf /").rule.as_deref(),
            Some("rm_recursive_root")
        );
        let r = check_of("X=rm; sudo $X -rf ~");
        assert_eq!(r.seen.as_deref(), Some("rm -rf ~"), "{r:?}");
        assert_eq!(r.checked_as, CheckedAs::Shell);
        assert_eq!(r.commands, ["X=rm", "sudo rm -rf ~"]);
        let r = check_of("echo 'oops");
        assert!(!r.allowed && !r.parsed, "{r:?}");
        assert_eq!(r.rule.as_deref(), Some("incomplete_line"));
        assert_eq!(r.category.as_deref(), Some("incomplete_input"));
        assert_eq!(r.checked_as, CheckedAs::Patterns);
    }

    #[test]
    fn line_editing_is_applied() {
        let r = check_of(r"echo safe\x15rm -rf /");
        assert!(!r.allowed && r.edited, "{r:?}");
        assert_eq!(r.rule.as_deref(), Some("rm_recursive_root"));
        assert_eq!(r.line, "rm -rf /");
        let r = check_of(r"echo bad\x15echo hello");
        assert!(r.allowed && r.edited, "{r:?}");
        assert_eq!(r.line, "echo hello");
        let r = check_of(r"reboo\t");
        assert!(!r.allowed, "{r:?}");
        assert_eq!(r.rule.as_deref(), Some("unverifiable_line_edit"));
        assert_eq!(r.category.as_deref(), Some("line_editing"));
        assert!(r.key.is_some(), "{r:?}");
    }

    #[test]
    fn several_lines_are_judged_as_talk_and_as_send_line_type_them() {
        // talk submits both lines; send_line would type `rm -rf /` as one.
        let r = check_of(r"rm -rf \n/");
        assert!(!r.allowed, "{r:?}");
        assert_eq!((r.line.as_str(), r.edited), ("rm -rf /", true));
        let r = check_of(r"echo one\x0arm -rf /");
        assert!(!r.allowed, "{r:?}");
        let r = check_of(r"echo one\x0aecho two");
        assert!(r.allowed && !r.edited, "{r:?}");
        assert_eq!(r.line, "echo one\necho two");
    }

    #[test]
    fn the_command_is_required() {
        assert!(checked(&Params::default()).is_err());
        let p = Params {
            command: Some("  ".into()),
            ..Default::default()
        };
        assert!(checked(&p).is_err());
    }
}
