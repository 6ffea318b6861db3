//! The dangerous-command check applied to typed input as the shell will read it.
//!
//! [`Typing::after`] replays a write through both line editors of [`super::lineedit`] (on top
//! of what earlier writes left on the line, when the caller keeps a [`Typing`]) and runs
//! [`check_dangerous`](super::policy::check_dangerous) on every line either editor submits, on the line left pending (a later
//! Enter would submit it), on readline's kill ring (a later Ctrl-Y would paste it) and, as a
//! second opinion, on the write with its control characters removed (what a program that
//! edits nothing would see). A line that a key kpty cannot follow (history, completion …)
//! made opaque is refused when it was also edited and is submitted ([`Opacity`]); a line of
//! keys alone — `\x1b[A\r`, `\x1b[B\x1b[B\r` — passes.
//!
//! Each line is judged in the shell's state ([`ShellContext`]): the directory it runs in and
//! what earlier submitted lines defined. A line this write submits is judged after the ones
//! before it, and absorbed into the state the next write starts from.

use super::dangerous::BlockedMatch;
use super::lineedit::{Editor, Keymap, Line};
use super::policy::complete::{Unclosed, unclosed};
use super::policy::context::{ShellContext, explain_in, judge_in};
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
    /// The submitted line is not a whole command: the shell would wait at its continuation
    /// prompt for the rest (an unclosed quote, `if` …).
    Incomplete {
        /// What is open.
        unclosed: Unclosed,
        /// The line(s) as the shell would read them.
        line: String,
    },
}

const UNVERIFIABLE: &str = "unverifiable_line_edit";
/// The `pattern` of [`Refusal::Incomplete`].
const INCOMPLETE: &str = "incomplete_line";

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
                    "blocked: the command breaks the dangerous-command rule {} ({}){edited}{ran}; nothing was typed",
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
            Refusal::Incomplete { unclosed, .. } => format!(
                "the command is incomplete: {}, so the shell would wait at its continuation \
                 prompt for the rest instead of running it; nothing was typed. Send the whole \
                 command in one line or one multi-line command; to type partial input on \
                 purpose, use send_keys (`kpty send-keys`) or a raw write",
                unclosed.describe()
            ),
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
            Refusal::Incomplete { unclosed, line } => json!({
                "pattern": INCOMPLETE, "category": "incomplete_input",
                "description": unclosed.describe(), "unclosed": unclosed.name(), "line": line,
            }),
        }
    }
}

/// What has been typed into one terminal so far, as each line editor holds it, and the state
/// of the shell the submitted lines left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Typing {
    readline: Editor,
    canonical: Editor,
    context: ShellContext,
    /// The shell reads lines without a line editor (dash): its lines are the canonical ones.
    canonical_shell: bool,
    /// Another program holds the terminal: a submitted line may reach it or the shell.
    busy: bool,
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
            context: ShellContext::default(),
            canonical_shell: false,
            busy: false,
        }
    }

    /// The shell's state as the submitted lines left it.
    #[must_use]
    pub fn context(&self) -> &ShellContext {
        &self.context
    }

    /// The shell's state, to observe its directory or reset it (a new shell).
    pub fn context_mut(&mut self) -> &mut ShellContext {
        &mut self.context
    }

    /// Whether the shell reads its lines without a line editor (dash, `sh`).
    pub fn set_canonical_shell(&mut self, canonical: bool) {
        self.canonical_shell = canonical;
    }

    /// Whether another program holds the terminal for the next write.
    pub fn set_busy(&mut self, busy: bool) {
        self.busy = busy;
    }

    /// The line is lost (part of a write was held back): the editors start afresh, and what
    /// the shell received is unknown.
    pub fn reset_line(&mut self) {
        self.readline = Editor::new(Keymap::Readline);
        self.canonical = Editor::new(Keymap::Canonical);
        self.context.taint();
    }

    /// The state after typing `text`, or why it must not be typed. With `enter_follows`, the
    /// text is checked as if Enter followed it (the caller sends Enter as a separate write).
    pub fn after(
        &self,
        text: &str,
        opacity: Opacity,
        enter_follows: bool,
    ) -> Result<Self, Refusal> {
        let (mut readline, mut canonical) = (self.readline.clone(), self.canonical.clone());
        if opacity == Opacity::PerWrite {
            readline.forget_line_flags();
        }
        let mut rl_lines = readline.feed(text);
        let mut canon_lines = canonical.feed(text);
        let submitted = [rl_lines.len(), canon_lines.len()];
        let (mut rl_end, mut canon_end) = (readline.clone(), canonical.clone());
        if enter_follows {
            rl_lines.extend(rl_end.feed("\r"));
            canon_lines.extend(canon_end.feed("\r"));
        }
        if rl_end.gave_up() || canon_end.gave_up() {
            return Err(Refusal::TooComplex);
        }
        let judge = Judge {
            typed: text.trim_end_matches(['\r', '\n']),
        };
        // Each editor's submitted lines in order, each in the state the ones before left.
        let interrupted = text.contains('\x03');
        let mut start = self.context.clone();
        if interrupted {
            start.interrupt();
        }
        // Both editors saw the same lines (no key either reads its own way, the usual
        // case): the second would judge the same lines in the same states again.
        let same = submitted[0] == submitted[1] && same_texts(&rl_lines, &canon_lines);
        let mut canon_state = (!same).then(|| start.clone());
        let mut rl_state = start;
        for (k, lines) in [&rl_lines, &canon_lines].into_iter().enumerate() {
            let state = match k {
                0 => &mut rl_state,
                _ => match canon_state.as_mut() {
                    Some(s) => s,
                    None => break,
                },
            };
            for (i, l) in lines.iter().enumerate() {
                judge.line_into(&l.text, state, (i < submitted[k]).then_some(self.busy))?;
            }
        }
        let canon_ref = canon_state.as_ref().unwrap_or(&rl_state);
        let stripped = strip_controls(text);
        // The write without its control characters, in the state before it: already judged
        // when it is the one line the editors submitted from that same state.
        let stripped_judged =
            !interrupted && rl_lines.len() == 1 && one_line_as(&stripped, &rl_lines[0].text);
        let rl_pending = rl_end.pending();
        let canon_pending = canon_end.pending();
        let kill_ring = rl_end.kill_ring();
        let rest = [
            (rl_pending.text.as_str(), &rl_state),
            (canon_pending.text.as_str(), canon_ref),
            (kill_ring.as_str(), &rl_state),
            (
                if stripped_judged {
                    ""
                } else {
                    stripped.as_str()
                },
                &self.context,
            ),
        ];
        if let Some(r) = rest.into_iter().find_map(|(v, ctx)| judge.line(v, ctx)) {
            return Err(r);
        }
        let context = match canon_state {
            Some(canon) if self.canonical_shell => canon,
            _ => rl_state,
        };
        let next = Self {
            readline,
            canonical,
            context,
            canonical_shell: self.canonical_shell,
            busy: self.busy,
        };
        unverifiable(opacity, &rl_lines, &rl_pending).map_or(Ok(next), Err)
    }

    /// Record `text` as typed without checking it (Ctrl-C from a cancelled talk, a person's
    /// keys): a line it submits is one kpty did not judge, so the shell's state is unknown.
    pub fn record(&mut self, text: &str) {
        let lines = self.readline.feed(text).len() + self.canonical.feed(text).len();
        if text.contains('\x03') {
            self.context.interrupt();
        }
        if lines > 0 {
            self.context.taint();
        }
    }

    /// The text left on the shell's input line by what was typed so far (its line editor's
    /// line, or the terminal's for a shell without one): empty once every line was
    /// submitted or cleared. A key kpty cannot follow (a history recall) may hide text.
    #[must_use]
    pub fn pending_line(&self) -> String {
        if self.canonical_shell {
            self.canonical.pending().text
        } else {
            self.readline.pending().text
        }
    }

    /// The input line was cleared with `keys` (Ctrl-E Ctrl-U) and seen empty: record them
    /// (the kill ring keeps what they killed) and start the next line unedited.
    pub fn line_cleared(&mut self, keys: &str) {
        self.record(keys);
        self.readline.forget_line_flags();
        self.canonical.forget_line_flags();
    }
}

/// An edited line holding a key kpty cannot follow, when `opacity` refuses it: among the
/// submitted `lines` (and, when strict, the `pending` one).
fn unverifiable(opacity: Opacity, lines: &[Line], pending: &Line) -> Option<Refusal> {
    let refusal = |l: &Line| {
        l.opaque
            .filter(|_| l.edited)
            .map(|key| Refusal::Unverifiable {
                key,
                line: l.text.clone(),
            })
    };
    match opacity {
        Opacity::Ignore => None,
        Opacity::PerWrite | Opacity::OnSubmit => lines.iter().find_map(refusal),
        Opacity::Strict => lines.iter().chain([pending]).find_map(refusal),
    }
}

/// Judges the lines of one write.
struct Judge<'a> {
    /// The write as typed, without its final Enter (a line that differs was edited).
    typed: &'a str,
}

impl Judge<'_> {
    /// Why `line`, run in `ctx`, must not be typed.
    fn line(&self, line: &str, ctx: &ShellContext) -> Option<Refusal> {
        if line.trim().is_empty() {
            return None;
        }
        self.refusal(line, &explain_in(&line.replace('\r', "\n"), ctx))
    }

    /// [`Self::line`]; when it passes and `submitted` says the shell runs it (`Some(busy)`:
    /// whether another program may read it instead), `ctx` becomes the state it leaves.
    fn line_into(
        &self,
        line: &str,
        ctx: &mut ShellContext,
        submitted: Option<bool>,
    ) -> Result<(), Refusal> {
        let text = line.replace('\r', "\n");
        if line.trim().is_empty() {
            match submitted {
                Some(true) => ctx.absorb_uncertain(&text),
                Some(false) => ctx.absorb(&text),
                None => {}
            }
            return Ok(());
        }
        let judged = judge_in(&text, ctx);
        if let Some(r) = self.refusal(line, &judged.verdict) {
            return Err(r);
        }
        match submitted {
            Some(true) => ctx.absorb_uncertain(&text),
            Some(false) => ctx.absorb_judged(&text, judged),
            None => {}
        }
        Ok(())
    }

    /// The refusal of `line` when `verdict` blocks it.
    fn refusal(&self, line: &str, verdict: &crate::safety::policy::Verdict) -> Option<Refusal> {
        Some(Refusal::Dangerous {
            rule: verdict.blocked.clone()?,
            line: line.to_string(),
            edited: line != self.typed,
            seen: verdict.seen.clone().unwrap_or_else(|| line.to_string()),
        })
    }
}

impl Typing {
    /// Refuses `text` when the lines it submits (with Enter after it when `enter_follows`),
    /// on top of what earlier writes left on the line and after the unfinished text the
    /// shell already holds (its continuation prompt), are not a whole command for a
    /// POSIX-family shell. Text that submits nothing passes.
    pub fn complete(&self, text: &str, enter_follows: bool) -> Result<(), Refusal> {
        let mut editor = self.readline.clone();
        let mut lines = editor.feed(text);
        if enter_follows {
            lines.extend(editor.feed("\r"));
        }
        if lines.is_empty() {
            return Ok(());
        }
        let script: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        check_complete(&self.context.joined(&script.join("\n")))
    }
}

/// Refuses `command` (as the shell reads it, lines separated by newlines) when it is not a
/// whole command for a POSIX-family shell ([`Refusal::Incomplete`]).
pub fn check_complete(command: &str) -> Result<(), Refusal> {
    match unclosed(command) {
        Some(unclosed) => Err(Refusal::Incomplete {
            unclosed,
            line: command.to_string(),
        }),
        None => Ok(()),
    }
}

/// Check `text` typed on a fresh line: [`Typing::after`] with no earlier state.
pub fn check_typed(text: &str, opacity: Opacity) -> Result<(), Refusal> {
    Typing::new().after(text, opacity, false).map(|_| ())
}

/// `text` with CR as LF and every other control character but TAB and LF removed.
/// Whether two editors submitted the same lines.
fn same_texts(a: &[Line], b: &[Line]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.text == y.text)
}

/// Whether `stripped` (a write without its control characters) is `line` with at most one
/// newline after it, so that judging it says nothing judging `line` did not: one line, not
/// continued by a backslash, without a here-document (whose body a newline could start).
fn one_line_as(stripped: &str, line: &str) -> bool {
    let body = stripped.strip_suffix('\n').unwrap_or(stripped);
    body == line && !body.contains(['\n', '\r']) && !body.ends_with('\\') && !body.contains("<<")
}

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

/// The last answers of [`Typing::after`], which depends on nothing but its state and its
/// arguments (the rules are built in): an agent typing the same command at the same prompt
/// (`git status`, a test run) has it judged once, not on every call. Only short texts are
/// kept, and only the last few.
#[derive(Debug, Default)]
pub struct Judged(std::collections::VecDeque<Judgement>);

/// One answer of [`Typing::after`]: the state and arguments it was asked with, the answer.
#[derive(Debug)]
struct Judgement {
    before: Typing,
    text: String,
    opacity: Opacity,
    enter_follows: bool,
    answer: Result<Typing, Refusal>,
}

impl Judged {
    /// Answers kept.
    const KEEP: usize = 16;
    /// The longest text whose answer is kept (a paste is judged each time).
    const LONGEST: usize = 4096;

    /// `before.after(text, opacity, enter_follows)`, answered from here when it was asked
    /// lately.
    pub fn after(
        &mut self,
        before: &Typing,
        text: &str,
        opacity: Opacity,
        enter_follows: bool,
    ) -> Result<Typing, Refusal> {
        let same = |j: &Judgement| {
            j.text == text
                && j.opacity == opacity
                && j.enter_follows == enter_follows
                && j.before == *before
        };
        if let Some(j) = self.0.iter().find(|j| same(j)) {
            return j.answer.clone();
        }
        let answer = before.after(text, opacity, enter_follows);
        if text.len() <= Self::LONGEST {
            if self.0.len() >= Self::KEEP {
                self.0.pop_front();
            }
            self.0.push_back(Judgement {
                before: before.clone(),
                text: text.to_string(),
                opacity,
                enter_follows,
                answer: answer.clone(),
            });
        }
        answer
    }
}

#[cfg(test)]
#[path = "typed_tests.rs"]
mod tests;
