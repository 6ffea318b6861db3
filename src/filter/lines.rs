//! Blocked *lines*: `exit`, `quit`, `/exit` (and custom `word…\r` sequences) judged as the line
//! a program receives when Enter is pressed, not as bytes.
//!
//! A submitted line is read the way a shell splits it, so that what kpty compares is what
//! would run: it is cut into commands at `\n`, `;`, `&`, `|`, `(`, `)`, `{`, `}` and backquote;
//! in each, quotes and backslashes are removed (`"exit"`, `e\xit`), words are split on blanks
//! (space, tab: leading, trailing and repeated blanks do not count), and leading variable
//! assignments (`A=1 exit`) and the `builtin`/`command` wrappers are skipped. A command blocks
//! when its words are a rule's words, or a one-word rule followed by one status argument
//! (`exit 1`, `exit $?`). `echo exit`, `exit_code=1`, `exitfoo` are other commands and pass.
//!
//! This is the filter's reading, not a shell: `eval exit`, a function or alias named
//! otherwise, or history expansion are the command policy's business, not the input filter's.

/// The words of the built-in blocked lines (seed 002 §8.4.1: `exit`, `/exit`, `quit` + Enter).
pub const BUILTIN_LINES: [&str; 3] = ["exit", "/exit", "quit"];

/// A blocked line: its words, joined by one space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LineRule {
    pub(super) words: String,
}

impl LineRule {
    /// The rule a custom blocked sequence also stands for, when it is text followed by Enter
    /// (`logout\r`): its text, read as a line. Others (`\x1b[24~`) are byte sequences only.
    pub(super) fn from_sequence(seq: &[u8]) -> Option<Self> {
        let (last, text) = seq.split_last()?;
        if !matches!(last, b'\r' | b'\n') {
            return None;
        }
        let text = std::str::from_utf8(text).ok()?;
        if text.chars().any(char::is_control) {
            return None;
        }
        let mut commands = commands(text);
        let words = commands.next()?;
        (commands.next().is_none() && !words.is_empty()).then_some(Self { words })
    }

    /// Whether `command` (normalised by [`commands`]) is this rule.
    fn is(&self, command: &str) -> bool {
        if command == self.words {
            return true;
        }
        let single = !self.words.contains(' ');
        single
            && command
                .strip_prefix(self.words.as_str())
                .and_then(|rest| rest.strip_prefix(' '))
                .is_some_and(is_status)
    }

    /// Whether `command` could still become this rule as more is typed.
    fn may_become(&self, command: &str) -> bool {
        !command.is_empty() && (self.words.starts_with(command) || command.starts_with(&self.words))
    }
}

/// The first rule a submitted line breaks, if any.
pub(super) fn blocked<'r>(rules: &'r [LineRule], line: &str) -> Option<&'r LineRule> {
    commands(line).find_map(|c| rules.iter().find(|r| r.is(&c)))
}

/// Whether the line being typed could still become a blocked one (its bytes are worth
/// holding back).
pub(super) fn candidate(rules: &[LineRule], line: &str) -> bool {
    commands(line).any(|c| rules.iter().any(|r| r.may_become(&c)))
}

/// The commands of a line, each as its words (unquoted) joined by one space.
pub(super) fn commands(line: &str) -> impl Iterator<Item = String> + '_ {
    line.split(['\n', '\r', ';', '&', '|', '(', ')', '{', '}', '`'])
        .map(|cmd| {
            let unquoted: String = cmd
                .chars()
                .filter(|c| !matches!(c, '\'' | '"' | '\\'))
                .collect();
            let words: Vec<&str> = unquoted
                .split([' ', '\t'])
                .filter(|w| !w.is_empty())
                .skip_while(|w| is_assignment(w) || matches!(*w, "builtin" | "command"))
                .collect();
            words.join(" ")
        })
}

/// `NAME=value`: a variable assignment before a command.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// An exit status argument: a number or a variable.
fn is_status(arg: &str) -> bool {
    let digits = arg.strip_prefix(['-', '+']).unwrap_or(arg);
    (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())) || arg.starts_with('$')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Vec<LineRule> {
        BUILTIN_LINES
            .iter()
            .map(|w| LineRule { words: (*w).into() })
            .collect()
    }

    #[test]
    fn the_same_command_however_written_is_blocked() {
        for line in [
            "exit",
            "  exit",
            "exit \t ",
            "\texit\t",
            "'exit'",
            "\"exit\"",
            "e\\xit",
            "ex''it",
            "exit 0",
            "exit   1",
            "exit $?",
            "exit -1",
            "A=1 exit",
            "builtin exit",
            "command exit",
            "true; exit",
            "true && exit",
            "false || exit",
            "(exit)",
            "{ exit; }",
            "echo `exit`",
            "ls\nexit\n",
            "quit",
            " /exit ",
            "/exit",
            "quit()",
            "exit()",
        ] {
            assert!(blocked(&rules(), line).is_some(), "{line:?}");
        }
    }

    #[test]
    fn other_commands_pass() {
        for line in [
            "",
            "   ",
            "echo exit",
            "exit_code=1",
            "exitfoo",
            "myexit",
            "exit now please",
            "exit 0 1",
            "EXIT",
            "/exits",
            "git commit -m exit",
            "ex it",
            "exit\u{a0}",
        ] {
            assert!(blocked(&rules(), line).is_none(), "{line:?}");
        }
    }

    #[test]
    fn custom_text_lines_become_rules() {
        let r = LineRule::from_sequence(b"git  push\r").unwrap();
        assert_eq!(r.words, "git push");
        assert!(blocked(std::slice::from_ref(&r), " git push ").is_some());
        assert!(blocked(&[r], "git push 1").is_none());
        for not in [
            &b"\x1b[24~"[..],
            b"\r",
            b"  \n",
            b"a\x01\r",
            b"a;b\r",
            b"\xff\r",
        ] {
            assert_eq!(LineRule::from_sequence(not), None, "{not:?}");
        }
    }

    #[test]
    fn candidates_are_prefixes_of_a_rule() {
        for line in ["e", "  ex", "exi", "exit", "exit ", "exit 1", "ls; qu", "/"] {
            assert!(candidate(&rules(), line), "{line:?}");
        }
        for line in ["", "  ", "ls", "x", "echo e"] {
            assert!(!candidate(&rules(), line), "{line:?}");
        }
    }
}
