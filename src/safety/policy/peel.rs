//! From a command line to the command that actually runs: wrappers peeled (`sudo`, `env`,
//! `timeout 5`, `xargs`, `busybox` …), strings handed to another shell judged as scripts
//! (`sh -c`, `eval`, `su -c`, `ssh host '…'`, `watch`, `find -exec`), aliases and functions
//! defined in the line followed, and a shell or interpreter reading a pipe judged by what the
//! pipe carries.

use super::field::{Field, UNKNOWN};
use super::launchers::{multiplexer, shell};
use super::peeled::{Peeled, is_stdin_path, operands};
use super::state::{Eval, Stdin};
use super::words::command_name;
use super::{catalog, interp, launchers, pipes, rules};

/// How a simple command runs.
pub struct Run {
    /// What it reads.
    pub stdin: Stdin,
    /// One of its arguments is a process substitution that downloads (`bash <(curl …)`).
    pub procsub_download: bool,
}

/// Wrappers: the options that take a separate argument, and how many leading operands they
/// consume before the wrapped command (`timeout 5 CMD`).
const WRAPPERS: &[(&str, &str, usize)] = &[
    ("sudo", "ughpCDrtUTR", 0),
    ("doas", "uC", 0),
    ("pkexec", "", 0),
    ("nice", "n", 0),
    ("ionice", "cnp", 0),
    ("nohup", "", 0),
    ("setsid", "", 0),
    ("stdbuf", "ioe", 0),
    ("strace", "oesSpuEaPIbX", 0),
    ("ltrace", "oesSpuEaAn", 0),
    ("time", "fo", 0),
    ("timeout", "sk", 1),
    ("command", "", 0),
    ("builtin", "", 0),
    ("exec", "a", 0),
    ("chroot", "", 1),
    ("unbuffer", "", 0),
    ("chronic", "", 0),
    ("nocorrect", "", 0),
    ("noglob", "", 0),
    ("rlwrap", "", 0),
    ("systemd-run", "upEMHs", 0),
    ("caffeinate", "wt", 0),
    ("firejail", "", 0),
    ("proxychains", "f", 0),
    ("torsocks", "", 0),
];

/// What an unknown command name is judged as: programs that are dangerous by their
/// arguments (a recursive flag and `/`, `of=/dev/sda`, a key file), never by name alone.
const UNKNOWN_NAME_AS: &[&str] = &[
    "rm", "chmod", "chown", "shred", "dd", "cat", "tee", "find", "rsync",
];

/// Shells: a `-c` string or standard input is their script.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh",
    "rbash",
];

pub(super) fn join(args: &[Field]) -> String {
    args.iter()
        .map(|f| f.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Eval {
    /// Judges a command after expansion; returns what it writes to its standard output.
    pub fn run(&mut self, mut argv: Vec<Field>, run: &Run) -> Stdin {
        // A name that is an alias or a function is judged as the program of that name too:
        // after a wrapper (`command`, `env`, `nice` …) the shell runs the program, and a
        // function's own name in its body is the program (`command rm`) or a call that
        // would recurse. There the program is judged first and the body is not run again;
        // elsewhere the alias or function first (its findings name the category).
        let mut wrapped = false;
        for _ in 0..32 {
            if argv.is_empty() || self.done() {
                return Stdin::Unknown;
            }
            let recursion = self.program_first(&argv, wrapped);
            if self.done() {
                return Stdin::Unknown;
            }
            if let Some(alias) = self.alias_of(&argv[0].text) {
                let rest = quote_all(&argv[1..]);
                let out = self.in_shell(&format!("{alias} {rest}"));
                self.as_program(&argv);
                return out;
            }
            if self.is_function(&argv[0].text) && !recursion {
                self.track.calling.push(argv[0].text.clone());
                let called = self.call(&argv);
                self.track.calling.pop();
                self.as_program(&argv);
                match called {
                    super::effects::Call::Ran(out) => return out,
                    super::effects::Call::Opaque => {
                        argv[0] = Field::literal(&UNKNOWN.to_string());
                        continue;
                    }
                    super::effects::Call::NotKnown => {}
                }
                // Its body was judged where it was defined; its arguments may be a command
                // it runs (`f() { "$@"; }; f rm -rf /`).
                argv.remove(0);
                continue;
            }
            match self.peel(&argv, run) {
                Peeled::Argv(next) => {
                    argv = next;
                    wrapped = true;
                }
                Peeled::Script(s) if command_name(&argv[0].text) == "eval" => {
                    return self.in_shell(&s);
                }
                Peeled::Script(s) => return self.nested(&s),
                Peeled::ShellStdin => return self.shell_stdin(&argv, run),
                Peeled::Nothing => return Stdin::Unknown,
                Peeled::Command | Peeled::File(_) => break,
            }
        }
        let name = command_name(&argv[0].text);
        let client = super::network::CLIENTS.contains(&name.as_str())
            && (name != "openssl" || argv.iter().any(|a| a.text.starts_with("s_")));
        if client {
            self.stages.push(super::state::Stage::Client);
        }
        if !self.session_effects(&name, &argv[1..]) {
            self.builtin_effects(&name, &argv[1..]);
        }
        if let Some(lang) = interp::language(&name) {
            self.interpreter(lang, &argv, run);
        }
        if name == "find" {
            self.find_exec(&argv);
        }
        rules::judge(self, &name, &argv);
        if argv[0].has_unknown() {
            // A command name the policy cannot know (`$X -rf /` with X set by an earlier
            // write): judged as each program whose arguments alone make it dangerous.
            for candidate in UNKNOWN_NAME_AS {
                if self.done() {
                    break;
                }
                rules::judge(self, candidate, &argv);
            }
        }
        pipes::output(&name, &argv[1..], &run.stdin)
    }

    /// After a wrapper, or inside a function of the same name, an alias's or function's
    /// name is judged as the program first; returns whether the name is a function calling
    /// itself (its body is not run again).
    fn program_first(&mut self, argv: &[Field], wrapped: bool) -> bool {
        let name = &argv[0].text;
        let recursion = self.track.calling.contains(name);
        let shadowed = self.alias_of(name).is_some() || self.is_function(name);
        if (wrapped || recursion) && shadowed {
            rules::judge(self, &command_name(name), argv);
        }
        recursion
    }

    /// `argv`, whose name is an alias or a function, judged as the program of that name
    /// (unless a finding already stopped the judgement).
    fn as_program(&mut self, argv: &[Field]) {
        if !self.done() {
            rules::judge(self, &command_name(&argv[0].text), argv);
        }
    }

    fn peel(&mut self, argv: &[Field], run: &Run) -> Peeled {
        let name = command_name(&argv[0].text);
        let args = &argv[1..];
        if let Some((_, with_arg, skip)) = WRAPPERS.iter().find(|w| w.0 == name) {
            if name == "command" && args.iter().any(|a| a.text == "-v" || a.text == "-V") {
                return Peeled::Nothing;
            }
            let start = operands(args, with_arg) + skip;
            return Peeled::Argv(args.get(start..).unwrap_or_default().to_vec());
        }
        match name.as_str() {
            "su" | "runuser" => self.su(args),
            "env" => self.env(args),
            "busybox" => Peeled::Argv(args.to_vec()),
            "eval" => Peeled::Script(join(args)),
            "xargs" => self.xargs(args, run),
            "watch" => {
                let start = operands(args, "ndgq");
                match args.get(start..) {
                    Some(rest) if args.iter().any(|a| a.text == "-x" || a.text == "--exec") => {
                        Peeled::Argv(rest.to_vec())
                    }
                    Some(rest) => Peeled::Script(join(rest)),
                    None => Peeled::Nothing,
                }
            }
            "flock" => {
                let start = operands(args, "wEc");
                match args
                    .iter()
                    .position(|a| a.text == "-c" || a.text == "--command")
                {
                    Some(i) => {
                        Peeled::Script(args.get(i + 1).map(|f| f.text.clone()).unwrap_or_default())
                    }
                    None => Peeled::Argv(args.get(start + 1..).unwrap_or_default().to_vec()),
                }
            }
            "script" => match args
                .iter()
                .position(|a| a.text == "-c" || a.text == "--command")
            {
                Some(i) => {
                    Peeled::Script(args.get(i + 1).map(|f| f.text.clone()).unwrap_or_default())
                }
                None => Peeled::Command,
            },
            "ssh" => {
                let start = operands(args, "BbcDEeFIiJLlmOoPpQRSWw");
                match args.get(start + 1..) {
                    Some(rest) if !rest.is_empty() => Peeled::Script(join(rest)),
                    _ => Peeled::Command,
                }
            }
            "tmux" | "screen" => multiplexer(&name, args),
            "at" | "batch" => match launchers::at(args) {
                Peeled::File(f) => self
                    .written_file(&f)
                    .map_or(Peeled::Command, Peeled::Script),
                other => other,
            },
            "iex" | "invoke-expression" => launchers::invoke_expression(args),
            "source" | "." if run.procsub_download => Peeled::ShellStdin,
            "source" | "." if args.first().is_some_and(|a| is_stdin_path(&a.text)) => {
                Peeled::ShellStdin
            }
            "source" | "." => args
                .first()
                .and_then(|f| self.written_file(&f.text))
                .map_or(Peeled::Command, Peeled::Script),
            _ if SHELLS.contains(&name.as_str()) => match shell(args) {
                Peeled::File(f) => self
                    .written_file(&f)
                    .map_or(Peeled::Command, Peeled::Script),
                other => other,
            },
            _ => match self.written_file(&argv[0].text) {
                Some(script) if argv[0].text.contains('/') => Peeled::Script(script),
                _ => Peeled::Command,
            },
        }
    }

    /// `su [-] [user] -c CMD`, `runuser -u U -- CMD`.
    fn su(&mut self, args: &[Field]) -> Peeled {
        if let Some(i) = args
            .iter()
            .position(|a| a.text == "-c" || a.text == "--command")
        {
            return Peeled::Script(args.get(i + 1).map(|f| f.text.clone()).unwrap_or_default());
        }
        if let Some(cmd) = args.iter().find_map(|a| a.text.strip_prefix("--command=")) {
            return Peeled::Script(cmd.to_string());
        }
        match args.iter().position(|a| a.text == "--") {
            Some(i) => Peeled::Argv(args[i + 1..].to_vec()),
            None => Peeled::Nothing,
        }
    }

    /// `env [-i] [-u N] [-C DIR] [-S STRING] [NAME=VALUE…] CMD…`.
    fn env(&mut self, args: &[Field]) -> Peeled {
        let mut i = 0;
        while let Some(a) = args.get(i) {
            let t = a.text.as_str();
            if let Some(split) = t.strip_prefix("--split-string=") {
                return Peeled::Script(format!("{split} {}", quote_all(&args[i + 1..])));
            }
            match t {
                "-S" => {
                    let s = args.get(i + 1).map(|f| f.text.clone()).unwrap_or_default();
                    return Peeled::Script(format!(
                        "{s} {}",
                        quote_all(args.get(i + 2..).unwrap_or_default())
                    ));
                }
                "-u" | "-C" | "-P" => i += 2,
                "--" => {
                    i += 1;
                    break;
                }
                _ if t.starts_with('-') => i += 1,
                _ => match t.split_once('=') {
                    Some((name, value)) if is_name(name) => {
                        self.assign(name, value.to_string());
                        self.assigned(name, value, t);
                        i += 1;
                    }
                    _ => break,
                },
            }
        }
        Peeled::Argv(args.get(i..).unwrap_or_default().to_vec())
    }

    /// `xargs [opts] CMD…`: the command, with the evident words of its input appended.
    fn xargs(&mut self, args: &[Field], run: &Run) -> Peeled {
        // `-i[R]`, `-e[EOF]`, `-l[N]` take their value glued, if at all.
        let start = operands(args, "InPdLsaE");
        let mut cmd = args.get(start..).unwrap_or_default().to_vec();
        if cmd.is_empty() {
            cmd.push(Field::literal("echo"));
        }
        if let Stdin::Evident(text) = &run.stdin {
            let replace = xargs_replace(&args[..start]);
            let words = text.split_whitespace().map(Field::literal);
            match replace {
                Some(r) => {
                    let input = text.trim().to_string();
                    for f in &mut cmd {
                        f.text = f.text.replace(&r, &input);
                        f.pattern = f.pattern.replace(&r, &input);
                    }
                }
                None => cmd.extend(words),
            }
        }
        Peeled::Argv(cmd)
    }

    /// A shell reading its script from standard input (`… | sh`, `sh < <(curl …)`).
    fn shell_stdin(&mut self, argv: &[Field], run: &Run) -> Stdin {
        self.stages.push(super::state::Stage::ShellReadingStdin);
        let seen = join(argv);
        match &run.stdin {
            _ if run.procsub_download => self.block(&catalog::DOWNLOAD_EXEC, &seen),
            Stdin::Download => {
                self.block(&catalog::DOWNLOAD_EXEC, &format!("(downloaded) | {seen}"))
            }
            Stdin::Decoded => self.block(&catalog::DECODED_EXEC, &format!("(decoded) | {seen}")),
            Stdin::Evident(script) => {
                let script = script.clone();
                return self.nested(&script);
            }
            Stdin::Unknown => {}
        }
        Stdin::Unknown
    }

    /// An interpreter (`python3 -c …`, `perl -e …`, `node -e …`, or reading a pipe).
    fn interpreter(&mut self, lang: interp::Lang, argv: &[Field], run: &Run) {
        let seen = join(argv);
        match interp::script_arg(lang, &argv[1..]) {
            // `python3 -c "$(curl …)"`: downloaded code, whatever it says.
            Some(code) if code.contains(super::field::DOWNLOADED) => {
                self.block(
                    &catalog::DOWNLOAD_EXEC,
                    &seen.replace(super::field::DOWNLOADED, "(downloaded)"),
                );
            }
            Some(code) => interp::judge(self, &code, &seen),
            None if run.procsub_download => self.block(&catalog::DOWNLOAD_EXEC, &seen),
            None if interp::reads_stdin(&argv[1..]) => {
                self.stages.push(super::state::Stage::ShellReadingStdin);
                match &run.stdin {
                    Stdin::Download => {
                        self.block(&catalog::DOWNLOAD_EXEC, &format!("(downloaded) | {seen}"));
                    }
                    Stdin::Decoded => {
                        self.block(&catalog::DECODED_EXEC, &format!("(decoded) | {seen}"));
                    }
                    Stdin::Evident(code) => {
                        let code = code.clone();
                        interp::judge(self, &code, &seen);
                    }
                    Stdin::Unknown => {}
                }
            }
            None => {}
        }
    }

    /// `find PATHS … -exec CMD {} ;`: each command, with `{}` standing for the start paths.
    fn find_exec(&mut self, argv: &[Field]) {
        let args = &argv[1..];
        let paths: Vec<&Field> = args
            .iter()
            .take_while(|a| !a.text.starts_with('-') && a.text != "(" && a.text != "!")
            .collect();
        let mut i = 0;
        while i < args.len() {
            let t = args[i].text.as_str();
            if matches!(t, "-exec" | "-execdir" | "-ok" | "-okdir") {
                let end = args[i + 1..]
                    .iter()
                    .position(|a| a.text == ";" || a.text == "+")
                    .map_or(args.len(), |p| i + 1 + p);
                let template = &args[i + 1..end];
                for p in paths
                    .iter()
                    .copied()
                    .chain(paths.is_empty().then_some(&Field::literal(".")))
                {
                    let cmd: Vec<Field> = template
                        .iter()
                        .map(|f| Field {
                            text: f.text.replace("{}", &p.text),
                            pattern: f.pattern.replace("{}", &p.pattern),
                        })
                        .collect();
                    let run = Run {
                        stdin: Stdin::Unknown,
                        procsub_download: false,
                    };
                    self.run(cmd, &run);
                }
                i = end;
            }
            i += 1;
        }
    }

    /// What `cd`, `alias`, `export` and friends change for the rest of the line.
    fn builtin_effects(&mut self, name: &str, args: &[Field]) {
        match name {
            "cd" | "pushd" | "chdir" => {
                let dir = args
                    .iter()
                    .find(|a| !a.text.starts_with('-') || a.text == "-");
                self.cwd = match dir {
                    None => Some("~".into()),
                    Some(d) => super::paths::resolve(&d.text, self.cwd.as_deref()),
                };
            }
            "alias" => {
                for a in args {
                    if let Some((n, v)) = a.text.split_once('=') {
                        self.alias(n, v);
                    }
                }
            }
            "set" => {
                let start = args.iter().position(|a| a.text == "--").map(|i| i + 1);
                let start = start.or_else(|| {
                    (!args.is_empty() && !args[0].text.starts_with(['-', '+'])).then_some(0)
                });
                if let Some(i) = start {
                    self.set_positional(args[i..].iter().map(|f| f.text.clone()).collect());
                }
            }
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                for a in args {
                    if let Some((n, v)) = a.text.split_once('=').filter(|(n, _)| is_name(n)) {
                        self.assign(n, v.to_string());
                        self.assigned(n, v, &a.text);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The replace string of xargs' options: `-I R`, `-IR`, `-i[R]`, `--replace[=R]` (default `{}`).
fn xargs_replace(opts: &[Field]) -> Option<String> {
    let mut it = opts.iter().map(|f| f.text.as_str());
    while let Some(t) = it.next() {
        match t {
            "-I" => return it.next().map(str::to_string),
            "-i" | "--replace" => return Some("{}".into()),
            _ => {}
        }
        for prefix in ["-I", "-i", "--replace="] {
            if let Some(r) = t.strip_prefix(prefix).filter(|r| !r.is_empty()) {
                return Some(r.to_string());
            }
        }
    }
    None
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Re-quotes expanded words so a script built from them reads them back unchanged.
fn quote_all(args: &[Field]) -> String {
    args.iter()
        .map(|f| {
            if f.text.contains(UNKNOWN) || f.is_glob() {
                f.pattern.clone()
            } else {
                format!("'{}'", f.text.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
