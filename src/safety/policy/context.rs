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

use std::collections::{BTreeMap, HashMap, HashSet};

use super::Verdict;
use super::eval::{Eval, Stdin};
use super::paths::{protected, resolve};
use super::words::{Field, UNKNOWN};

/// The value an unknown takes in the second judgement: the most destructive operand.
const GUESS: &str = "/";
/// Text of an unfinished line (an open quote, `if` without `fi`) kept at most this long.
const MAX_PENDING: usize = 16 * 1024;
/// At most this many directories the shell may be in are judged.
const MAX_CWDS: usize = 4;

/// A variable's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// Assigned by a line kpty typed (unknown parts as `\u{FFFC}`).
    Known(String),
    /// May hold anything.
    Unknown,
}

/// What a command name stands for, besides a program on `PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Defined {
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
    vars: BTreeMap<String, Value>,
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
            vars: BTreeMap::new(),
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
    /// has run every line typed so far, so this is where the next line runs; otherwise a `cd`
    /// typed earlier may still be ahead of it, and both places are judged.
    pub fn observe_cwd(&mut self, real: &str, settled: bool) {
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

    /// A variable as kpty knows it (`None`: never assigned by a line kpty typed).
    #[must_use]
    pub fn var(&self, name: &str) -> Option<&Value> {
        self.vars.get(name)
    }

    /// What a command name was defined as.
    #[must_use]
    pub fn command(&self, name: &str) -> Option<&Defined> {
        self.commands.get(name)
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
        for v in self.vars.values_mut() {
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
        if e.script(&text).is_none() {
            // Unfinished (the shell waits for the rest) or not shell at all.
            self.pending = text;
            if self.pending.len() > MAX_PENDING {
                self.taint();
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
        for (name, v) in &after.vars {
            if self.vars.get(name) != Some(v) {
                self.vars.insert(name.clone(), Value::Unknown);
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
    fn joined(&self, line: &str) -> String {
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
        let mut e = Eval::default();
        e.cwd = cwd.or_else(|| guess.map(str::to_string));
        e.track.guess = guess.map(str::to_string);
        e.track.all_unknown = self.all_unknown;
        for (name, v) in &self.vars {
            match (v, guess) {
                (Value::Known(s), Some(g)) => {
                    e.vars.insert(name.clone(), s.replace(UNKNOWN, g));
                }
                (Value::Known(s), None) => {
                    e.vars.insert(name.clone(), s.clone());
                }
                (Value::Unknown, _) => {
                    e.track.unknown_vars.insert(name.clone());
                }
            }
        }
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
    fn take(&mut self, e: Eval) {
        let t = &e.track;
        if t.sourced {
            self.taint();
        }
        let mut vars = BTreeMap::new();
        for (name, v) in &e.vars {
            let value = if t.uncertain.contains(name) {
                Value::Unknown
            } else {
                Value::Known(v.clone())
            };
            vars.insert(name.clone(), value);
        }
        for name in &t.unknown_vars {
            vars.insert(name.clone(), Value::Unknown);
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

/// Judges `line` as the shell would run it from the state `ctx`: relative paths resolved
/// against each directory the shell may be in, variables, functions and aliases of earlier
/// lines applied, and, where something is unknown, judged again with the unknown as `/`.
#[must_use]
pub fn explain_in(line: &str, ctx: &ShellContext) -> Verdict {
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
    for cwd in cwds {
        for guess in guesses {
            let (mut v, e) = super::explain_with(&text, ctx.seed(cwd.clone(), *guess));
            if v.blocked.is_some() {
                // Blocked on its own: reported as it always was.
                let alone = super::explain(&text);
                if alone.blocked.is_some() {
                    return alone;
                }
                v.seen = v
                    .seen
                    .map(|s| where_run(s, cwd.as_deref(), guess.is_some()));
                return v;
            }
            if let Some(v) = launch_vars(&e) {
                return v;
            }
            first.get_or_insert(v);
        }
    }
    first.unwrap_or_else(|| super::explain(&text))
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
/// at every prompt …), judged as [`crate::safety::launch`] judges a session's environment.
fn launch_vars(e: &Eval) -> Option<Verdict> {
    e.track.assigned.iter().find_map(|name| {
        let value = e.vars.get(name)?;
        let refused = crate::safety::launch::judge_env(name, value).err()?;
        Some(Verdict {
            blocked: Some(refused.rule),
            parsed: true,
            commands: vec![format!("{name}={value}")],
            seen: Some(refused.seen),
        })
    })
}

/// What evaluating a line does to the session's state, beside the judgement ([`Eval`]'s
/// `track`).
#[derive(Debug, Default, Clone)]
pub(super) struct Track {
    /// Inside something that may run zero or several times, or in a subshell (a branch, a
    /// loop, a function body being defined, `X=v cmd`, a pipeline stage): what is assigned
    /// there may not last.
    pub(super) branch: usize,
    /// The value unknowns take (the second judgement), or `None`: unknown.
    pub(super) guess: Option<String>,
    pub(super) all_unknown: bool,
    pub(super) unknown_vars: HashSet<String>,
    uncertain: HashSet<String>,
    /// Every variable the line assigned, in order.
    pub(super) assigned: Vec<String>,
    pub(super) opaque: HashSet<String>,
    defined_uncertain: HashSet<String>,
    pub(super) bodies: HashMap<String, String>,
    cwd_uncertain: bool,
    cwd_changed: bool,
    positional_uncertain: bool,
    sourced: bool,
    oldpwd: Option<String>,
    dirs: Option<Vec<Option<String>>>,
}

impl Track {
    pub(super) fn is_unknown_var(&self, name: &str) -> bool {
        self.unknown_vars.contains(name)
    }

    pub(super) fn guess(&self) -> Option<String> {
        self.guess.clone()
    }

    /// The value of a variable no line assigned.
    pub(super) fn unset_value(&self) -> Option<String> {
        if self.all_unknown { self.guess() } else { None }
    }

    pub(super) fn assigned(&mut self, name: &str) {
        self.unknown_vars.remove(name);
        if self.branch > 0 {
            self.uncertain.insert(name.to_string());
        } else {
            self.uncertain.remove(name);
        }
        if !self.assigned.iter().any(|a| a == name) {
            self.assigned.push(name.to_string());
        }
    }

    /// An alias was defined.
    pub(super) fn defined(&mut self, name: &str) {
        self.opaque.remove(name);
        self.bodies.remove(name);
        if self.branch > 0 {
            self.defined_uncertain.insert(name.to_string());
        }
    }

    pub(super) fn define_function(&mut self, name: &str, body: &str) {
        self.defined(name);
        self.bodies.insert(name.to_string(), body.to_string());
    }

    pub(super) fn is_defined(&self, name: &str) -> bool {
        self.opaque.contains(name) || self.bodies.contains_key(name)
    }
}

/// How a call of a function (or an alias of unknown text) is judged.
pub(super) enum Call {
    /// The body ran with the call's arguments; this is what it wrote.
    Ran(Stdin),
    /// The definition is unknown: the name is judged as an unknown command.
    Opaque,
    /// A function of this line whose body is not kept.
    NotKnown,
}

impl Eval {
    /// Runs a function's body with the call's arguments as `$1 $2 …`.
    pub(super) fn call(&mut self, argv: &[Field]) -> Call {
        let name = argv[0].text.as_str();
        if self.track.opaque.contains(name) {
            return Call::Opaque;
        }
        let Some(body) = self.track.bodies.get(name).cloned() else {
            return Call::NotKnown;
        };
        let cwd = self.cwd.clone();
        let args = argv[1..]
            .iter()
            .map(|f| {
                // A glob the shell expands into protected directories: as bad as `/`.
                if f.is_glob() && protected(f, cwd.as_deref()).is_some() {
                    GUESS.to_string()
                } else {
                    f.text.clone()
                }
            })
            .collect();
        let saved = self.positional.replace(args);
        let out = self.nested(&body);
        self.positional = saved;
        Call::Ran(out)
    }

    /// What `cd`, `pushd`, `popd`, `unset`, `read`, `source` … do to the session's state.
    /// Returns `true` when the command was handled here (the directory builtins).
    pub(super) fn session_effects(&mut self, name: &str, args: &[Field]) -> bool {
        let operands: Vec<&Field> = args
            .iter()
            .filter(|a| !a.text.starts_with('-') || a.text == "-")
            .collect();
        match name {
            "cd" | "chdir" | "pushd" | "popd" => {
                self.change_dir(name, &operands);
                return true;
            }
            "unset" => {
                let functions = args.iter().any(|a| a.text == "-f");
                for a in &operands {
                    if functions {
                        self.track.opaque.insert(a.text.clone());
                    } else {
                        self.vars.remove(&a.text);
                        self.track.unknown_vars.insert(a.text.clone());
                    }
                }
            }
            "unalias" => {
                for a in &operands {
                    self.aliases.remove(&a.text);
                    self.track.opaque.insert(a.text.clone());
                }
                if args.iter().any(|a| a.text == "-a") {
                    let names: Vec<String> = self.aliases.drain().map(|(n, _)| n).collect();
                    self.track.opaque.extend(names);
                }
            }
            "read" | "mapfile" | "readarray" | "getopts" | "printf" | "hash" | "declare"
            | "typeset" | "local" | "export" | "readonly" => {
                self.unknown_names(name, args);
            }
            "source" | "." => {
                self.track.sourced = true;
                self.track.all_unknown = true;
            }
            "set" if self.track.branch > 0 => self.track.positional_uncertain = true,
            "shift" => {
                let n = operands
                    .first()
                    .and_then(|a| a.text.parse::<usize>().ok())
                    .unwrap_or(1);
                match (&mut self.positional, self.track.branch) {
                    (Some(p), 0) if n <= p.len() => {
                        p.drain(..n);
                    }
                    _ => self.track.positional_uncertain = true,
                }
            }
            _ => {}
        }
        false
    }

    /// Names whose values a builtin sets from input kpty cannot see (`read X`, `printf -v X`,
    /// `hash -p PATH NAME`, `declare -n X=Y` …).
    fn unknown_names(&mut self, name: &str, args: &[Field]) {
        let mut names: Vec<String> = Vec::new();
        match name {
            "read" => {
                names.push("REPLY".into());
                names.extend(
                    args.iter()
                        .filter(|a| is_name(&a.text))
                        .map(|a| a.text.clone()),
                );
            }
            "mapfile" | "readarray" => {
                names.push("MAPFILE".into());
                names.extend(
                    args.iter()
                        .filter(|a| is_name(&a.text))
                        .map(|a| a.text.clone()),
                );
            }
            "getopts" => {
                names.push("OPTARG".into());
                names.extend(args.get(1).map(|a| a.text.clone()));
            }
            "printf" => {
                let v = args.iter().position(|a| a.text == "-v");
                names.extend(v.and_then(|i| args.get(i + 1)).map(|a| a.text.clone()));
            }
            "hash" => {
                if args.iter().any(|a| a.text.starts_with("-p")) {
                    let n = args.last().map(|a| a.text.clone());
                    self.track.opaque.extend(n);
                }
                return;
            }
            _ => {
                // `declare -n ref=X`, `declare -i`, `-a`/`-A`: the value is not the text.
                let unusual = args
                    .iter()
                    .any(|a| a.text.starts_with('-') && a.text.contains(['n', 'i', 'a', 'A', 'f']));
                if !unusual {
                    return;
                }
                names.extend(args.iter().filter_map(|a| {
                    let n = a.text.split('=').next()?;
                    is_name(n).then(|| n.to_string())
                }));
                if args
                    .iter()
                    .any(|a| a.text.starts_with('-') && a.text.contains('f'))
                {
                    self.track.opaque.extend(names.drain(..));
                }
            }
        }
        for n in names {
            self.vars.remove(&n);
            self.track.unknown_vars.insert(n);
        }
    }

    /// `cd`, `pushd`, `popd`: the directory (and the stack, and `$OLDPWD`) after it.
    fn change_dir(&mut self, name: &str, operands: &[&Field]) {
        let prev = self.cwd.clone();
        let target = operands.first().map(|f| f.text.as_str());
        let relative = |t: &str| !t.starts_with(['/', '~', '.']);
        let cdpath = self.var("CDPATH").is_some_and(|v| !v.is_empty());
        let next = match (name, target) {
            ("popd", None) => match self.track.dirs.as_mut() {
                Some(stack) if !stack.is_empty() => stack.pop().flatten(),
                Some(_) => prev.clone(),
                None => None,
            },
            ("popd", Some(_)) => {
                self.track.dirs = None;
                prev.clone()
            }
            ("pushd", None) => match self.track.dirs.as_mut() {
                Some(stack) if !stack.is_empty() => {
                    let top = stack.pop().flatten();
                    stack.push(prev.clone());
                    top
                }
                _ => None,
            },
            ("pushd", Some(t)) if t.starts_with(['+', '-']) && t.len() > 1 => {
                self.track.dirs = None;
                None
            }
            (_, None) => Some("~".into()),
            (_, Some("-")) => self.track.oldpwd.clone(),
            (_, Some(t)) if cdpath && relative(t) => None,
            (_, Some(t)) => resolve(t, prev.as_deref()),
        };
        if name == "pushd"
            && target.is_some()
            && let Some(stack) = self.track.dirs.as_mut()
        {
            stack.push(prev.clone());
        }
        if self.track.branch > 0 {
            self.track.cwd_uncertain = true;
        }
        self.track.cwd_changed = true;
        self.track.oldpwd = prev;
        self.cwd = next;
    }
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
