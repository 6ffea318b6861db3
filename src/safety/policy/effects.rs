//! What a line does to the session's state besides judging it: the bookkeeping [`Eval`]
//! keeps for [`super::context`] (what is assigned where it may not last, what became unknown,
//! function bodies), calls of functions with their arguments, and the builtins that change
//! the shell's state (`cd`/`pushd`/`popd`, `unset`, `read`, `source` …).

use super::field::Field;
use super::paths::{protected, resolve};
use super::state::{Eval, Stdin};
use super::track::GUESS;

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
    /// Judges `text` run by this shell itself (`eval`, an alias, a function's body): what it
    /// assigns lasts.
    pub(super) fn in_shell(&mut self, text: &str) -> Stdin {
        self.track.in_shell_next = true;
        let out = self.nested(text);
        self.track.in_shell_next = false;
        out
    }

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
        let out = self.in_shell(&body);
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
                        self.vars.forget(&a.text);
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
            self.vars.forget(&n);
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
