//! The shell state a line runs in: the directory, variables, functions, aliases and positional
//! parameters that earlier lines left behind ([`ShellContext`]), what a submitted line does to
//! them ([`ShellContext::absorb`]), and the judgement of a line starting from them
//! ([`explain_in`]).
//!
//! A value kpty cannot know (a person typed at the terminal, a file was sourced, a variable
//! was `read` or assigned where the assignment may not last) is *unknown*: it reads as an
//! unset variable does inside a line (`\u{FFFC}`, see `words`), and the line is judged a
//! second time with every unknown taken as `/`, so what would be destructive for some value
//! in a destructive position is refused.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::Verdict;
use super::field::UNKNOWN;
use super::state::Eval;
use super::track::GUESS;
pub use super::vars::Value;
use super::vars::{Shared, Vars};
use crate::safety::env_rules::LineVerdict;

/// Text of an unfinished line (an open quote, `if` without `fi`) kept at most this long.
const MAX_PENDING: usize = 16 * 1024;
/// At most this many directories the shell may be in are judged.
const MAX_CWDS: usize = 4;

/// What a command name stands for, besides a program on `PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Defined {
    /// A shell function with this body.
    Function(String),
    /// An alias with this text.
    Alias(String),
    /// A function or alias whose definition kpty cannot know.
    Unknown,
}

/// The state of one interactive shell, as far as the lines kpty typed make it known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellContext {
    /// Directories the shell may be in (the first is the most likely); `None`: unknown.
    cwds: Vec<Option<String>>,
    /// The home directory as an absolute path (paths under it are shown as `~/…`).
    home: Option<String>,
    /// Shared with the judgements started from this state (copied when it changes).
    vars: Shared,
    /// Every variable not in `vars` may hold anything (a person typed lines kpty cannot see).
    all_unknown: bool,
    commands: BTreeMap<String, Defined>,
    /// `$1 $2 …`; `None`: unknown.
    positional: Option<Vec<String>>,
    oldpwd: Option<String>,
    /// `pushd`'s stack; `None`: unknown.
    dirs: Option<Vec<Option<String>>>,
    /// An unfinished line the shell is still reading (its continuation prompt).
    pending: String,
    /// A line is judged a second time with unknowns taken as `/` (a session's shell; not a
    /// line judged on its own).
    guessing: bool,
}

impl Default for ShellContext {
    /// No session: a line judged on its own, as [`super::explain`] does (nothing unknown is
    /// guessed; the front ends' early check and `kpty check` use it).
    fn default() -> Self {
        Self {
            guessing: false,
            positional: None,
            ..Self::new(None)
        }
    }
}

impl ShellContext {
    /// A shell just started in `cwd` (unknown when `None`): no positional parameters, no
    /// functions or aliases kpty knows of, environment variables as an unset variable reads.
    #[must_use]
    pub fn new(cwd: Option<&str>) -> Self {
        Self {
            cwds: vec![cwd.map(str::to_string)],
            home: None,
            vars: Shared::default(),
            all_unknown: false,
            commands: BTreeMap::new(),
            positional: Some(Vec::new()),
            oldpwd: None,
            dirs: Some(Vec::new()),
            pending: String::new(),
            guessing: true,
        }
    }

    /// Paths under `home` are the home directory's (`~/…`), as the policy's rules know them.
    pub fn set_home(&mut self, home: Option<&str>) {
        self.home = home
            .map(|h| h.trim_end_matches('/').to_string())
            .filter(|h| h.starts_with('/') && !h.is_empty());
        let cwds = std::mem::take(&mut self.cwds);
        self.cwds = cwds
            .into_iter()
            .map(|c| c.map(|c| self.homed(&c)))
            .collect();
    }

    fn homed(&self, path: &str) -> String {
        match &self.home {
            Some(h) if path == h => "~".into(),
            Some(h) => match path.strip_prefix(h.as_str()) {
                Some(rest) if rest.starts_with('/') => format!("~{rest}"),
                _ => path.to_string(),
            },
            None => path.to_string(),
        }
    }

    /// The shell's real directory, seen from outside (`/proc/<pid>/cwd`). `settled`: the shell
    /// has run every line typed so far (it is back at its prompt), so this is where the next
    /// line runs and no unfinished line is pending; otherwise a `cd` typed earlier may still
    /// be ahead of it, and both places are judged.
    pub fn observe_cwd(&mut self, real: &str, settled: bool) {
        if settled {
            // Back at its prompt: the shell read every line to its end.
            self.pending.clear();
        }
        let real = Some(self.homed(real));
        // The belief from the lines absorbed stays first; the place observed replaces any
        // observed before.
        let believed = self.cwds.first().cloned().filter(|_| !settled);
        self.cwds = believed.into_iter().collect();
        if !self.cwds.contains(&real) {
            self.cwds.push(real);
        }
    }

    /// The home directory, when known.
    #[must_use]
    pub fn home(&self) -> Option<&str> {
        self.home.as_deref()
    }

    /// The directory the next line most likely runs in (`None`: unknown).
    #[must_use]
    pub fn cwd(&self) -> Option<&str> {
        self.cwds.first().and_then(Option::as_deref)
    }

    /// The shell starts with `name=value` in its environment. `HOME` (what `~` means to the
    /// rules) and the directory variables the shell sets itself are left alone.
    pub fn set_env(&mut self, name: &str, value: &str) {
        if !matches!(name, "HOME" | "PWD" | "OLDPWD" | "SHLVL" | "_" | "IFS") {
            Arc::make_mut(&mut self.vars).insert(name.to_string(), Value::Known(value.to_string()));
        }
    }

    /// A variable as kpty knows it (`None`: never assigned by a line kpty typed).
    #[must_use]
    pub fn var(&self, name: &str) -> Option<&Value> {
        self.vars.get(name)
    }

    /// Whether an unfinished line is waiting for its end (the shell's continuation prompt).
    #[must_use]
    pub fn continuing(&self) -> bool {
        !self.pending.is_empty()
    }

    /// A person typed at the terminal (or input kpty cannot follow reached the shell): every
    /// variable, function, alias and positional parameter may now hold anything. The
    /// directory is observed from outside, so it stays.
    pub fn taint(&mut self) {
        self.guessing = true;
        self.all_unknown = true;
        for v in Arc::make_mut(&mut self.vars).values_mut() {
            *v = Value::Unknown;
        }
        for d in self.commands.values_mut() {
            *d = Defined::Unknown;
        }
        self.positional = None;
        self.dirs = None;
        self.oldpwd = None;
        self.pending.clear();
        // The person may have moved: only the directory observed next counts.
        self.cwds.clear();
    }

    /// Ctrl-C at the prompt: an unfinished line is abandoned.
    pub fn interrupt(&mut self) {
        self.pending.clear();
    }

    /// Applies what `line` (accepted and submitted) does to the shell's state.
    pub fn absorb(&mut self, line: &str) {
        let text = self.joined(line);
        if text.trim().is_empty() {
            return;
        }
        let primary = self.cwd().map(str::to_string);
        let mut e = self.seed(primary, None);
        let parsed = e.script(&text).is_some();
        self.absorb_evaluated(text, e, parsed);
    }

    /// [`Self::absorb`] of a line [`judge_in`] allowed: its evaluation from this state is
    /// reused rather than run again.
    pub(crate) fn absorb_judged(&mut self, line: &str, judged: Judged) {
        match judged.after {
            Some((e, parsed)) => self.absorb_evaluated(self.joined(line), e, parsed),
            None => self.absorb(line),
        }
    }

    /// The rest of [`Self::absorb`]: `e` evaluated `text` (the joined line) from this state
    /// in its first directory with nothing guessed; `parsed`: whether the script parsed.
    fn absorb_evaluated(&mut self, text: String, e: Eval, parsed: bool) {
        if text.trim().is_empty() {
            return;
        }
        if !parsed {
            if unfinished(&text) {
                // The shell waits for the rest at its continuation prompt.
                self.pending = text;
                if self.pending.len() > MAX_PENDING {
                    self.taint();
                }
            } else {
                // A syntax error: the shell runs none of it. (Or shell kpty cannot read:
                // what it did is unknown.)
                self.pending.clear();
                if super::nesting::too_deep(&text) {
                    self.taint();
                }
            }
            return;
        }
        self.pending.clear();
        let others: Vec<Option<String>> = self.cwds.iter().skip(1).cloned().collect();
        let moved = e.track.cwd_changed;
        self.take(e);
        for other in others {
            let next = if moved {
                let mut o = self.seed(other, None);
                o.script(&text);
                (!o.track.cwd_uncertain).then_some(o.cwd).flatten()
            } else {
                other
            };
            if !self.cwds.contains(&next) && self.cwds.len() < MAX_CWDS {
                self.cwds.push(next);
            }
        }
    }

    /// Applies `line` when it may or may not reach this shell (typed while another program
    /// held the terminal: that program, or the shell after it, reads it): whatever it would
    /// change becomes unknown.
    pub fn absorb_uncertain(&mut self, line: &str) {
        let mut after = self.clone();
        after.absorb(line);
        let changed: Vec<&String> = after
            .vars
            .iter()
            .filter(|(name, v)| self.vars.get(*name) != Some(*v))
            .map(|(name, _)| name)
            .collect();
        if !changed.is_empty() {
            let vars = Arc::make_mut(&mut self.vars);
            for name in changed {
                vars.insert(name.clone(), Value::Unknown);
            }
        }
        for (name, d) in &after.commands {
            if self.commands.get(name) != Some(d) {
                self.commands.insert(name.clone(), Defined::Unknown);
            }
        }
        self.all_unknown |= after.all_unknown;
        if after.positional != self.positional {
            self.positional = None;
        }
        if after.dirs != self.dirs {
            self.dirs = None;
        }
        if after.cwds.first() != self.cwds.first() {
            match self.cwds.first_mut() {
                Some(c) => *c = None,
                None => self.cwds.push(None),
            }
        }
    }

    /// `line` after the unfinished text the shell already holds.
    #[must_use]
    pub fn joined(&self, line: &str) -> String {
        if self.pending.is_empty() {
            line.to_string()
        } else {
            format!("{}\n{line}", self.pending)
        }
    }

    /// Whether anything is unknown (the second judgement can differ from the first).
    fn has_unknowns(&self) -> bool {
        self.guessing && self.has_unknown_values()
    }

    fn has_unknown_values(&self) -> bool {
        self.all_unknown
            || self.positional.is_none()
            || self.cwds.iter().any(Option::is_none)
            || self.vars.values().any(|v| match v {
                Value::Unknown => true,
                Value::Known(s) => s.contains(UNKNOWN),
            })
    }

    /// An evaluation starting from this state in `cwd`; with `guess`, unknowns take it.
    fn seed(&self, cwd: Option<String>, guess: Option<&str>) -> Eval {
        let mut e = Eval {
            cwd: cwd.or_else(|| guess.map(str::to_string)),
            vars: Vars::layered(Arc::clone(&self.vars), guess),
            ..Eval::default()
        };
        e.track.guess = guess.map(str::to_string);
        e.track.all_unknown = self.all_unknown;
        for (name, d) in &self.commands {
            match d {
                Defined::Function(body) => {
                    e.track.bodies.insert(name.clone(), body.clone());
                    e.functions.push(name.clone());
                }
                Defined::Alias(text) => {
                    e.aliases.insert(name.clone(), text.clone());
                }
                Defined::Unknown => {
                    e.track.opaque.insert(name.clone());
                }
            }
        }
        e.positional = match (&self.positional, guess) {
            (Some(p), _) => Some(p.clone()),
            (None, Some(g)) => Some(vec![g.to_string()]),
            (None, None) => None,
        };
        e.track.oldpwd = self.oldpwd.clone();
        e.track.dirs = self.dirs.clone();
        e
    }

    /// Takes the state an evaluation of a whole line left.
    fn take(&mut self, mut e: Eval) {
        // The line's variables over the base: this state's own reference is let go first,
        // so an unshared base is changed in place rather than copied.
        self.vars = Shared::default();
        let vars = std::mem::take(&mut e.vars).into_shared(&e.track.uncertain);
        let t = &e.track;
        if t.sourced {
            self.taint();
        }
        let mut commands = BTreeMap::new();
        for (name, body) in &t.bodies {
            commands.insert(name.clone(), Defined::Function(body.clone()));
        }
        for (name, text) in &e.aliases {
            commands.insert(name.clone(), Defined::Alias(text.clone()));
        }
        for name in t.opaque.iter().chain(&t.defined_uncertain) {
            commands.insert(name.clone(), Defined::Unknown);
        }
        if t.sourced {
            commands.values_mut().for_each(|d| *d = Defined::Unknown);
        }
        self.vars = vars;
        self.commands = commands;
        self.all_unknown |= t.sourced;
        self.positional = if t.positional_uncertain || t.sourced {
            None
        } else {
            e.positional.clone()
        };
        self.oldpwd.clone_from(&t.oldpwd);
        self.dirs.clone_from(&t.dirs);
        let cwd = if t.cwd_uncertain || t.sourced {
            None
        } else {
            e.cwd.clone()
        };
        self.cwds = vec![cwd];
    }
}

/// Whether `text` is the start of a line the shell reads on (an open quote, substitution or
/// here-document; `if` without `fi` …), not a syntax error it rejects.
fn unfinished(text: &str) -> bool {
    use brush_parser::ParseError;
    use brush_parser::TokenizerError as T;
    // The tokenizer recurses per level: a deeper line would overflow the stack.
    if super::nesting::too_deep(text) {
        return false;
    }
    let opts = brush_parser::ParserOptions::default();
    let parsed =
        brush_parser::Parser::new(std::io::BufReader::new(text.as_bytes()), &opts).parse_program();
    match parsed {
        Ok(_) => false,
        Err(ParseError::ParsingAtEndOfInput) => true,
        Err(ParseError::ParsingNear(_)) => false,
        Err(ParseError::Tokenizing { inner, .. }) => matches!(
            inner,
            T::UnterminatedEscapeSequence
                | T::UnterminatedSingleQuote(_)
                | T::UnterminatedAnsiCQuote(_)
                | T::UnterminatedDoubleQuote(_)
                | T::UnterminatedBackquote(_)
                | T::UnterminatedExtendedGlob(_)
                | T::UnterminatedVariable
                | T::UnterminatedCommandSubstitution
                | T::UnterminatedExpansion
                | T::UnterminatedHereDocuments(..)
        ),
    }
}

/// Judges `line` as the shell would run it from the state `ctx`: relative paths resolved
/// against each directory the shell may be in, variables, functions and aliases of earlier
/// lines applied, and, where something is unknown, judged again with the unknown as `/`.
#[must_use]
pub fn explain_in(line: &str, ctx: &ShellContext) -> Verdict {
    judge_in(line, ctx).verdict
}

/// A verdict of [`judge_in`], with the evaluation [`ShellContext::absorb_judged`] reuses.
pub(crate) struct Judged {
    /// The verdict, as [`explain_in`] gives it.
    pub(crate) verdict: Verdict,
    /// The line evaluated from the state in its first directory with nothing guessed (what
    /// `absorb` evaluates), and whether it parsed; `None` when blocked.
    after: Option<(Eval, bool)>,
}

/// [`explain_in`], keeping what [`ShellContext::absorb_judged`] needs to apply an allowed
/// line without evaluating it again.
#[must_use]
pub(crate) fn judge_in(line: &str, ctx: &ShellContext) -> Judged {
    let text = ctx.joined(line);
    let guesses: &[Option<&str>] = if ctx.has_unknowns() {
        &[None, Some(GUESS)]
    } else {
        &[None]
    };
    let mut first = None;
    let unknown = [None];
    let cwds = if ctx.cwds.is_empty() {
        &unknown[..]
    } else {
        &ctx.cwds[..]
    };
    let blocked = |verdict| Judged {
        verdict,
        after: None,
    };
    let mut after = None;
    for (i, cwd) in cwds.iter().enumerate() {
        for guess in guesses {
            let (mut v, e) = super::explain_with(&text, ctx.seed(cwd.clone(), *guess));
            if v.blocked.is_some() {
                // Blocked on its own: reported as it always was.
                let alone = super::explain(&text);
                if alone.blocked.is_some() {
                    return blocked(alone);
                }
                v.seen = v
                    .seen
                    .map(|s| where_run(s, cwd.as_deref(), guess.is_some()));
                return blocked(v);
            }
            if let Some(v) = launch_vars(&e) {
                return blocked(v);
            }
            if i == 0 && guess.is_none() {
                after = Some((e, v.parsed));
            }
            first.get_or_insert(v);
        }
    }
    Judged {
        verdict: first.unwrap_or_else(|| super::explain(&text)),
        after,
    }
}

/// The verdict on `line` run in a shell kpty knows nothing of (an unknown directory): the
/// rule that blocks it and the command it saw. How a variable's value that runs later is
/// judged ([`crate::safety::env_rules::judge_env`]).
pub(crate) fn explain_anywhere(line: &str) -> LineVerdict {
    let v = explain_in(line, &ShellContext::new(None));
    (v.blocked, v.seen)
}

/// The command a rule matched, with the state that made it match.
fn where_run(seen: String, cwd: Option<&str>, guessed: bool) -> String {
    let dir = cwd.map_or_else(|| "an unknown directory".to_string(), str::to_string);
    let unknown = if guessed {
        ", with a value kpty cannot know taken as /"
    } else {
        ""
    };
    format!("{seen} (run in {dir}, after the session's earlier lines{unknown})")
}

/// Variables the line assigned that make the shell run their value later (`PROMPT_COMMAND`
/// at every prompt …), judged as a session's environment is ([`crate::safety::env_rules`]).
/// Variables that name code kpty cannot read (`LD_PRELOAD`, `BASH_ENV`) are not refused in a
/// typed line: running that code directly is not judged either.
fn launch_vars(e: &Eval) -> Option<Verdict> {
    use crate::safety::env_rules::{EnvKind, env_rule, judge_env};
    e.track.assigned.iter().find_map(|name| {
        env_rule(name).filter(|r| r.kind != EnvKind::Refused)?;
        let value = e.vars.known(name)?;
        let refused = judge_env(name, &value, &explain_anywhere).err()?;
        Some(Verdict {
            blocked: Some(refused.rule),
            parsed: true,
            commands: vec![format!("{name}={value}")],
            seen: Some(refused.seen),
        })
    })
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
