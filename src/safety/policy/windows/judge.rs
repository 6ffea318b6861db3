//! Walks a Windows line: pipelines in order, variables and the current directory as far as
//! the line makes them evident, wrappers peeled down to the command that runs, and every
//! command judged by [`super::commands`].

use std::collections::HashMap;

use super::super::catalog::Hit;
use super::args::{Arg, name_of};
use super::lex::{Dialect, Part, Pipeline, Word, lex};
use super::params::{self, bind};
use super::targets::{self, WinPath};
use super::{Rule, commands};

/// Brackets nested deeper than this are judged flat (each bracket a separator).
const MAX_DEPTH: usize = 12;
/// At most this many commands are judged for one line.
const MAX_COMMANDS: usize = 2_000;
/// At most this many characters are lexed for one line, wrappers' strings included.
const MAX_LEXED: usize = 1 << 20;
/// Wrappers nested deeper than this are followed in one reading only (not three), so
/// `iex iex iex …` costs linear time; deeper than [`MAX_WRAPS`], not followed.
const WIDE_WRAPS: usize = 3;
const MAX_WRAPS: usize = 64;

/// The state of one judgement.
#[derive(Debug, Default)]
pub struct Judge {
    /// Variables assigned in the line (`None`: assigned something unknown).
    vars: HashMap<String, Option<String>>,
    /// The directory after a `cd` the line made evident.
    pub cwd: Option<WinPath>,
    depth: usize,
    judged: usize,
    lexed: usize,
    /// Wrappers (`cmd /c`, `iex`, `powershell -c` …) being followed.
    wraps: usize,
    /// The first rule broken.
    pub hit: Option<Hit>,
}

/// The value of a variable nobody in the line assigned: Windows' well-known folders.
fn builtin(name: &str) -> Option<&'static str> {
    Some(match name {
        "env:systemdrive" | "env:homedrive" => "C:",
        "env:systemroot" | "env:windir" => "C:\\Windows",
        "env:programfiles" | "env:programw6432" => "C:\\Program Files",
        "env:programfiles(x86)" => "C:\\Program Files (x86)",
        "env:commonprogramfiles" => "C:\\Program Files\\Common Files",
        "env:programdata" | "env:allusersprofile" => "C:\\ProgramData",
        "env:userprofile" | "env:home" | "home" => "~",
        "env:homepath" => "\\Users\\user",
        "env:public" => "C:\\Users\\Public",
        "true" => "$true",
        "false" => "$false",
        "null" => "",
        _ => return None,
    })
}

/// Words as text, unknown ones as `…`.
pub fn show(args: &[Arg]) -> String {
    args.iter()
        .map(|a| a.text.clone().unwrap_or_else(|| "…".into()))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Judge {
    fn var(&self, name: &str) -> Option<String> {
        match self.vars.get(name) {
            Some(v) => v.clone(),
            None => builtin(name).map(str::to_string),
        }
    }

    fn resolve(&self, w: &Word) -> Arg {
        let mut text = Some(String::new());
        for p in &w.parts {
            let piece = match p {
                Part::Lit(s) => Some(s.clone()),
                Part::Var(v) => self.var(v),
                Part::Unknown => None,
            };
            text = text.zip(piece).map(|(t, p)| t + &p);
        }
        Arg {
            text,
            raw: w.raw.clone(),
        }
    }

    fn block(&mut self, rule: &'static Rule, seen: String) {
        if self.hit.is_none() {
            self.hit = Some(Hit { rule, seen });
        }
    }

    fn over(&self) -> bool {
        self.hit.is_some() || self.judged > MAX_COMMANDS || self.lexed > MAX_LEXED
    }

    /// Judges a script in dialect `d`: its pipelines, then its bracketed scripts.
    pub fn script(&mut self, text: &str, d: Dialect) {
        self.lexed += text.len();
        if self.over() || self.wraps > MAX_WRAPS {
            return;
        }
        let lexed = lex(text, d, self.depth >= MAX_DEPTH);
        for p in &lexed.pipelines {
            self.pipeline(p, d);
            if self.over() {
                return;
            }
        }
        self.depth += 1;
        let cwd = self.cwd.clone();
        for n in &lexed.nested {
            self.script(n, d);
        }
        self.cwd = cwd;
        self.depth -= 1;
    }

    fn pipeline(&mut self, p: &Pipeline, d: Dialect) {
        let stages: Vec<Vec<Arg>> = p
            .stages
            .iter()
            .map(|s| s.iter().map(|w| self.resolve(w)).collect())
            .collect();
        if let Some(rule) = commands::pipeline(&p.raw, &stages, self.cwd.as_ref()) {
            return self.block(rule, p.raw.trim().to_string());
        }
        for (words, args) in p.stages.iter().zip(&stages) {
            if !self.assignment(words, args) && !self.location(args) {
                self.command(args, d);
            }
            if self.over() {
                return;
            }
        }
    }

    /// Judges a command already split into words.
    pub fn words(&mut self, words: &[Word], d: Dialect) {
        let args: Vec<Arg> = words.iter().map(|w| self.resolve(w)).collect();
        self.command(&args, d);
    }

    /// `$x = value`, `$env:X = value`, `set X=value`: recorded; `true` when it was one.
    fn assignment(&mut self, words: &[Word], args: &[Arg]) -> bool {
        if let Some(Part::Var(name)) = words[0].parts.first() {
            let glued = match words[0].parts.get(1) {
                Some(Part::Lit(s)) if s.starts_with('=') && !s.starts_with("==") => {
                    let rest = Word {
                        parts: std::iter::once(Part::Lit(s[1..].to_string()))
                            .chain(words[0].parts[2..].iter().cloned())
                            .collect(),
                        raw: String::new(),
                    };
                    Some(self.resolve(&rest).text)
                }
                _ => None,
            };
            let spaced = (words[0].parts.len() == 1 && args.get(1).is_some_and(|a| a.raw == "="))
                .then(|| args.get(2).and_then(|a| a.text.clone()));
            if let Some(value) = glued.or(spaced) {
                self.vars.insert(name.clone(), value);
                return true;
            }
            return false;
        }
        if args[0].text.as_deref().map(name_of).as_deref() == Some("set") && args.len() > 1 {
            let text: Option<Vec<String>> = args[1..].iter().map(|a| a.text.clone()).collect();
            let joined = text.map(|t| t.join(" "));
            let (name, value) = match joined.as_deref().and_then(|j| j.split_once('=')) {
                Some((n, v)) => (
                    n.trim_start_matches('"').to_lowercase(),
                    Some(v.trim_end_matches('"').to_string()),
                ),
                None => return true,
            };
            self.vars.insert(format!("env:{name}"), value);
            return true;
        }
        false
    }

    /// `cd`, `chdir`, `Set-Location`, `pushd`: the directory, when evident; `true` when it was one.
    fn location(&mut self, args: &[Arg]) -> bool {
        let name = args[0].text.as_deref().map(name_of).unwrap_or_default();
        if !matches!(
            name.as_str(),
            "cd" | "chdir"
                | "set-location"
                | "sl"
                | "pushd"
                | "push-location"
                | "popd"
                | "pop-location"
        ) {
            return false;
        }
        let target = args[1..].iter().find(|a| {
            a.text.as_deref().is_none_or(|t| {
                let l = t.to_lowercase();
                !(l == "/d"
                    || l.starts_with("-path")
                    || l.starts_with("-literalpath")
                    || l == "-lp")
            })
        });
        self.cwd = match target {
            Some(a) => a
                .text
                .as_deref()
                .and_then(|t| targets::parse(t, self.cwd.as_ref())),
            None if name.starts_with("pop") => None,
            None => self.cwd.clone(),
        };
        true
    }

    /// Judges one command: wrappers followed, then its rule.
    fn command(&mut self, args: &[Arg], d: Dialect) {
        self.judged += 1;
        if args.is_empty() || self.over() {
            return;
        }
        let Some(name) = args[0].text.as_deref().map(name_of) else {
            return;
        };
        let rest = &args[1..];
        if self.wrapper(&name, rest, d) {
            return;
        }
        if let Some(rule) = commands::rule(&name, rest, self.cwd.as_ref()) {
            self.block(rule, show(args));
        }
    }

    /// Text of the arguments, joined as a program would receive them.
    fn joined(args: &[Arg]) -> String {
        show(args)
    }

    /// Judges arguments joined into a script, read each way the joining could have gone:
    /// as received, with the arguments that hold a blank quoted again (as Windows builds a
    /// command line), and as written.
    fn joined_script(&mut self, args: &[Arg], d: Dialect) {
        let requoted: Vec<String> = args
            .iter()
            .map(|a| match a.text.as_deref() {
                Some(t) if t.contains(char::is_whitespace) => format!("\"{t}\""),
                Some(t) => t.to_string(),
                None => "…".into(),
            })
            .collect();
        let raw: Vec<&str> = args.iter().map(|a| a.raw.as_str()).collect();
        let mut readings = vec![Self::joined(args), requoted.join(" "), raw.join(" ")];
        readings.dedup();
        self.wrapped(&readings, d);
    }

    /// Judges the scripts a wrapper runs (its readings of one string), one level deeper.
    fn wrapped(&mut self, readings: &[String], d: Dialect) {
        let take = if self.wraps < WIDE_WRAPS {
            readings.len()
        } else {
            1
        };
        self.wraps += 1;
        for text in readings.iter().take(take) {
            self.script(text, d);
        }
        self.wraps -= 1;
    }

    /// Follows a wrapper to what it runs; `false` when `name` is no wrapper.
    fn wrapper(&mut self, name: &str, rest: &[Arg], d: Dialect) -> bool {
        let texts: Vec<Option<String>> = rest.iter().map(|a| a.text.clone()).collect();
        match name {
            "cmd" => self.cmd_c(rest),
            "powershell" | "pwsh" | "powershell_ise" => self.powershell(rest),
            "start-process" | "saps" => self.start_process(&texts),
            // PowerShell's alias when it has PowerShell parameters, else cmd's `start`.
            "start" if texts.iter().flatten().any(|t| t.starts_with('-')) => {
                self.start_process(&texts)
            }
            "start" => {
                self.start(rest, d);
                true
            }
            "call" | "." | "sudo" | "conhost" | "gsudo" | "nohup" => {
                let skip = rest
                    .iter()
                    .take_while(|a| a.text.as_deref().is_some_and(|t| t.starts_with('-')))
                    .count();
                self.command(&rest[skip..], d);
                true
            }
            "iex" | "invoke-expression" => {
                let code: Vec<Arg> = rest
                    .iter()
                    .filter(|a| {
                        !a.text
                            .as_deref()
                            .is_some_and(|t| t.to_lowercase().starts_with("-c"))
                    })
                    .cloned()
                    .collect();
                self.joined_script(&code, Dialect::Ps);
                true
            }
            "runas" | "schtasks" | "forfiles" | "wmic" => self.string_runner(name, rest),
            "if" | "for" | "do" | "else" | "psexec" | "psexec64" | "paexec" => {
                if let Some(j) = rest.iter().position(|a| {
                    a.text
                        .as_deref()
                        .is_some_and(|t| commands::is_known(&name_of(t)))
                }) {
                    self.command(&rest[j..], d);
                }
                true
            }
            _ => false,
        }
    }

    /// `cmd [/s /q …] /c|/k|/r COMMAND`: the command line after the switch, as cmd reads it.
    fn cmd_c(&mut self, rest: &[Arg]) -> bool {
        let Some(i) = rest.iter().position(|a| {
            a.text.as_deref().is_some_and(|t| {
                let l = t.to_lowercase();
                ["/c", "/k", "/r"].iter().any(|s| l.starts_with(s))
            })
        }) else {
            return false;
        };
        let glued = rest[i].text.clone().unwrap_or_default();
        let glued = &glued[2..];
        let raw: Vec<&str> = rest[i + 1..].iter().map(|a| a.raw.as_str()).collect();
        let raw = format!("{glued} {}", raw.join(" "));
        let raw = raw.trim();
        // `cmd /c "…"`: the outer quotes go.
        let unquoted = match raw.strip_prefix('"') {
            Some(r) => r
                .rfind('"')
                .map_or(r.to_string(), |j| format!("{}{}", &r[..j], &r[j + 1..])),
            None => raw.to_string(),
        };
        let text = format!("{glued} {}", Self::joined(&rest[i + 1..]));
        let mut readings = vec![unquoted, text.trim().to_string()];
        readings.dedup();
        self.wrapped(&readings, Dialect::Cmd);
        true
    }

    /// `powershell [-NoProfile …] -Command …` / `-EncodedCommand B64` / `powershell CMD …`.
    fn powershell(&mut self, rest: &[Arg]) -> bool {
        let texts: Vec<Option<String>> = rest.iter().map(|a| a.text.clone()).collect();
        let b = bind(params::POWERSHELL, &texts);
        if let Some(Some(enc)) = b.values("encodedcommand").next() {
            if let Some(code) = utf16_base64(enc) {
                self.wrapped(&[code], Dialect::Ps);
            }
            return true;
        }
        let at = rest.iter().position(|a| {
            let t = a.text.as_deref().unwrap_or_default().to_lowercase();
            let name = t
                .strip_prefix("--")
                .or_else(|| t.strip_prefix(['-', '/', '–', '—']));
            name.is_some_and(|n| !n.is_empty() && "command".starts_with(n))
        });
        let from = match at {
            Some(i) => i + 1,
            None if b.values("file").next().is_some() => return true,
            None => rest.len() - b.rest_from_first.len(),
        };
        let code = &rest[from..];
        if !(code.len() == 1 && code[0].text.as_deref() == Some("-")) {
            self.joined_script(code, Dialect::Ps);
        }
        true
    }

    /// `Start-Process FILE [ARGS…]`: the program and its arguments, as one command line.
    fn start_process(&mut self, texts: &[Option<String>]) -> bool {
        let b = bind(params::START_PROCESS, texts);
        let file = b
            .values("filepath")
            .next()
            .cloned()
            .or_else(|| b.positional.first().cloned());
        let skip = usize::from(b.values("filepath").next().is_none());
        let args = b
            .values("argumentlist")
            .cloned()
            .chain(b.positional.iter().skip(skip).cloned());
        let line: Vec<String> = std::iter::once(file.flatten())
            .chain(args)
            .map(|t| t.unwrap_or_else(|| "…".into()))
            .collect();
        // The program splits its command line as the C runtime does: `"` quotes, as in cmd.
        self.wrapped(&[line.join(" ")], Dialect::Cmd);
        true
    }

    /// cmd `start ["title"] [/wait /b /min /d DIR …] COMMAND`.
    fn start(&mut self, rest: &[Arg], d: Dialect) {
        let mut i = usize::from(rest.first().is_some_and(|a| a.raw.starts_with('"')));
        while let Some(t) = rest.get(i).and_then(|a| a.text.as_deref()) {
            if !t.starts_with('/') {
                break;
            }
            let l = t.to_lowercase();
            i += if matches!(l.as_str(), "/d" | "/node" | "/affinity") {
                2
            } else {
                1
            };
        }
        self.command(rest.get(i..).unwrap_or_default(), d);
    }

    /// Programs that run a command given as one string: `runas … "CMD"`, `schtasks /tr CMD`,
    /// `forfiles /c CMD`, `wmic process call create CMD`.
    fn string_runner(&mut self, name: &str, rest: &[Arg]) -> bool {
        let lower: Vec<String> = rest
            .iter()
            .map(|a| a.text.clone().unwrap_or_default().to_lowercase())
            .collect();
        let after = |key: &str| lower.iter().position(|l| l == key).map(|i| i + 1);
        let at = match name {
            "runas" => rest
                .iter()
                .rposition(|a| a.text.as_deref().is_some_and(|t| !t.starts_with('/'))),
            "schtasks" => after("/tr"),
            "forfiles" => after("/c"),
            _ => after("create"),
        };
        if let Some(code) = at.and_then(|i| rest.get(i)).and_then(|a| a.text.clone()) {
            self.wrapped(&[code], Dialect::Cmd);
        }
        name != "wmic" || self.hit.is_some()
    }
}

/// `-EncodedCommand`'s text: base64 of UTF-16LE.
fn utf16_base64(b64: &str) -> Option<String> {
    let bytes = super::super::pipes::base64_bytes(b64)?;
    let units: Vec<u16> = bytes
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], *c.get(1).unwrap_or(&0)]))
        .collect();
    Some(String::from_utf16_lossy(&units))
}
