//! Walks a parsed line the way the shell would run it, keeping what a policy can know:
//! variables and aliases assigned so far, functions defined, the directory after `cd`, and
//! what each pipeline stage feeds the next. Every simple command reached — including those in
//! substitutions, function bodies and strings handed to another shell — is judged by
//! [`super::rules`].

use std::io::BufReader;

use brush_parser::ast::{
    AndOr, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, FunctionDefinition,
    Pipeline, SimpleCommand,
};
use brush_parser::{Parser, ParserOptions};

use super::field::{Field, UNKNOWN};
use super::redirects::Redirect;
use super::state::{Eval, Stdin};

/// How deep strings handed to another shell (and substitutions) are followed.
const MAX_DEPTH: usize = 8;
/// At most this many simple commands are judged for one line.
const MAX_COMMANDS: usize = 2_000;

impl Eval {
    /// Judges an assignment made in this line (`HISTFILE=/dev/null`, `export HISTSIZE=0`).
    pub fn assigned(&mut self, name: &str, value: &str, shown: &str) {
        if let Some(rule) = super::history::assignment(name, value) {
            self.block(rule, shown);
        }
    }

    /// Records an alias definition (`alias x='…'`), judging its text as a command.
    pub fn alias(&mut self, name: &str, value: &str) {
        self.track.defined(name);
        self.aliases.insert(name.to_string(), value.to_string());
        self.nested(value);
    }

    /// Judges a whole script; returns what it writes, or `None` when it does not parse.
    pub fn script(&mut self, text: &str) -> Option<Stdin> {
        if super::nesting::too_deep(text) {
            return None;
        }
        // An alias named after a reserved word is expanded before the shell parses (bash).
        let text = super::reserved::expand(text, &self.aliases);
        let opts = ParserOptions::default();
        let program = Parser::new(BufReader::new(text.as_bytes()), &opts)
            .parse_program()
            .ok()?;
        let mut out = Stdin::Unknown;
        for c in &program.complete_commands {
            out = self.list(c);
        }
        Some(out)
    }

    /// Judges a string another program hands to a shell (`sh -c`, `eval`, `ssh host …`).
    /// A string that does not parse is judged by the regex patterns. Returns what it writes.
    pub fn nested(&mut self, text: &str) -> Stdin {
        if self.depth >= MAX_DEPTH || self.done() {
            return Stdin::Unknown;
        }
        if text.contains(super::field::DOWNLOADED) {
            let shown = text
                .replace(super::field::DOWNLOADED, "$(download)")
                .replace(UNKNOWN, "");
            self.block(&super::catalog::DOWNLOAD_EXEC, &shown);
            return Stdin::Unknown;
        }
        // The string may reach cmd.exe or PowerShell (`ssh winhost 'rd /s /q C:\'`).
        if let Some(hit) = super::windows::judge_line(text) {
            self.block(hit.rule, &hit.seen);
            return Stdin::Unknown;
        }
        self.depth += 1;
        // Another shell's string: what it assigns does not reach this one.
        let scoped = usize::from(!std::mem::take(&mut self.track.in_shell_next));
        self.track.branch += scoped;
        let cwd = self.cwd.clone();
        let out = self.script(text).unwrap_or_else(|| {
            self.nested_unparsed.push(text.to_string());
            Stdin::Unknown
        });
        self.cwd = cwd;
        self.track.branch -= scoped;
        self.depth -= 1;
        out
    }

    /// Judges a list; returns what its last pipeline writes.
    fn list(&mut self, list: &CompoundList) -> Stdin {
        let mut out = Stdin::Unknown;
        for item in &list.0 {
            out = self.pipeline(&item.0.first);
            self.track.branch += 1;
            for next in &item.0.additional {
                let (AndOr::And(p) | AndOr::Or(p)) = next;
                out = self.pipeline(p);
            }
            self.track.branch -= 1;
        }
        out
    }

    fn pipeline(&mut self, p: &Pipeline) -> Stdin {
        // Each stage of a pipeline runs in a subshell: what it assigns may not last.
        let staged = usize::from(p.seq.len() > 1);
        self.track.branch += staged;
        let outer = std::mem::take(&mut self.stages);
        let mut stdin = Stdin::Unknown;
        for cmd in &p.seq {
            if self.done() {
                break;
            }
            stdin = self.command(cmd, stdin);
        }
        self.track.branch -= staged;
        let stages = std::mem::replace(&mut self.stages, outer);
        if p.seq.len() > 1 && !self.done() {
            super::network::pipeline(self, &stages, p.to_string().trim());
        }
        if self.done() {
            return Stdin::Unknown;
        }
        stdin
    }

    /// Judges one command; returns what it writes to its standard output.
    fn command(&mut self, cmd: &Command, stdin: Stdin) -> Stdin {
        match cmd {
            Command::Simple(s) => self.simple(s, stdin),
            Command::Compound(c, redirects) => {
                let redirs: Vec<_> = redirects
                    .iter()
                    .flat_map(|r| &r.0)
                    .map(|r| self.redirect(r))
                    .collect::<Vec<_>>();
                let stdin = super::pipes::stdin_from(&redirs, stdin);
                super::rules::judge_redirects(self, &redirs, "");
                let shown = format!("{c}");
                super::network::redirected(self, &[Field::literal("sh")], &redirs, shown.trim());
                self.compound(c, &stdin);
                Stdin::Unknown
            }
            Command::Function(f) => {
                self.function(f);
                Stdin::Unknown
            }
            Command::ExtendedTest(..) => Stdin::Unknown,
        }
    }

    fn compound(&mut self, c: &CompoundCommand, stdin: &Stdin) {
        // Only a brace group runs its body exactly once, in this shell.
        let branch = usize::from(!matches!(c, CompoundCommand::BraceGroup(_)));
        self.track.branch += branch;
        self.compound_body(c, stdin);
        self.track.branch -= branch;
    }

    fn compound_body(&mut self, c: &CompoundCommand, stdin: &Stdin) {
        match c {
            CompoundCommand::BraceGroup(g) => {
                self.list(&g.list);
            }
            CompoundCommand::Subshell(s) => {
                let cwd = self.cwd.clone();
                self.list(&s.list);
                self.cwd = cwd;
            }
            CompoundCommand::ForClause(f) => self.for_clause(f),
            CompoundCommand::CaseClause(c) => {
                for body in c.cases.iter().filter_map(|i| i.cmd.as_ref()) {
                    self.list(body);
                }
            }
            CompoundCommand::IfClause(i) => {
                self.list(&i.condition);
                self.list(&i.then);
                for e in i.elses.iter().flatten() {
                    if let Some(cond) = &e.condition {
                        self.list(cond);
                    }
                    self.list(&e.body);
                }
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                let until = matches!(c, CompoundCommand::UntilClause(_));
                if super::pipes::endless(&w.0, until) && super::pipes::backgrounds(&w.1.list) {
                    let shown = format!("{c}");
                    return self.block(&super::catalog::FORK_BOMB, shown.trim());
                }
                self.list(&w.0);
                self.list(&w.1.list);
            }
            CompoundCommand::ArithmeticForClause(f) => {
                self.list(&f.body.list);
            }
            CompoundCommand::Coprocess(c) => {
                self.command(&c.body, stdin.clone());
            }
            CompoundCommand::Arithmetic(_) => {}
        }
    }

    /// `for v in a b; do …; done`: the body once per (evident) value.
    fn for_clause(&mut self, f: &brush_parser::ast::ForClauseCommand) {
        let values: Vec<Field> = match &f.values {
            Some(words) => words.iter().flat_map(|w| self.expand(&w.value)).collect(),
            None => vec![],
        };
        let values = if values.is_empty() {
            vec![Field::literal(&UNKNOWN.to_string())]
        } else {
            values
        };
        for v in values.into_iter().take(16) {
            self.assign(&f.variable_name, v.text);
            self.list(&f.body.list);
            if self.done() {
                return;
            }
        }
    }

    /// A function definition: its body is judged now (a definition exists to be called), and a
    /// function that runs itself in the background or in a pipeline is a fork bomb.
    fn function(&mut self, f: &FunctionDefinition) {
        let name = f.fname.value.clone();
        self.functions.push(name.clone());
        let body = f.body.to_string();
        if super::pipes::self_forking(&name, &f.body.0) {
            self.block(&super::catalog::FORK_BOMB, &format!("{name}() {body}"));
            return;
        }
        self.track.define_function(&name, &body);
        // The body is judged now, but a definition runs none of it.
        self.track.branch += 1;
        self.compound(&f.body.0, &Stdin::Unknown);
        self.track.branch -= 1;
    }

    fn simple(&mut self, s: &SimpleCommand, stdin: Stdin) -> Stdin {
        self.judged += 1;
        if self.judged > MAX_COMMANDS {
            return Stdin::Unknown;
        }
        let mut assignments = Vec::new();
        let mut redirs = Vec::new();
        let mut argv: Vec<Field> = Vec::new();
        let mut procsub_download = false;
        let items = s.prefix.iter().flat_map(|p| &p.0);
        let word = s.word_or_name.iter().map(|w| (true, w));
        let suffix = s.suffix.iter().flat_map(|p| &p.0);
        for item in items {
            match item {
                CommandPrefixOrSuffixItem::AssignmentWord(a, _) => assignments.push(a),
                other => self.item(other, &mut argv, &mut redirs, &mut procsub_download),
            }
        }
        for (_, w) in word {
            argv.extend(self.expand(&w.value));
        }
        for item in suffix {
            self.item(item, &mut argv, &mut redirs, &mut procsub_download);
        }
        let mut shown_vars = Vec::new();
        // `X=v cmd` sets X for cmd alone.
        let scoped = usize::from(!argv.is_empty());
        self.track.branch += scoped;
        for a in assignments {
            shown_vars.extend(self.assignment(a));
        }
        self.track.branch -= scoped;
        let stdin = super::pipes::stdin_from(&redirs, stdin);
        let shown = super::redirects::show(&shown_vars, &argv, &redirs);
        if !shown.is_empty() {
            self.commands.push(shown.clone());
        }
        super::rules::judge_redirects(self, &redirs, &shown);
        super::network::redirected(self, &argv, &redirs, &shown);
        if argv.is_empty() || self.done() {
            return Stdin::Unknown;
        }
        let run = super::peel::Run {
            stdin,
            procsub_download,
        };
        let out = self.run(argv, &run);
        // `echo … > f`, `cat > f <<EOF`: remember what the file holds, for `sh f` later on.
        let stdout = redirs
            .iter()
            .rev()
            .find(|r| r.writes() && matches!(r.fd, None | Some(1)));
        match (stdout, out) {
            (Some(r), Stdin::Evident(text)) => {
                let key = self.file_key(&r.target.text);
                self.files.insert(key, text);
                Stdin::Unknown
            }
            (Some(_), _) => Stdin::Unknown,
            (None, out) => out,
        }
    }

    fn item(
        &mut self,
        item: &CommandPrefixOrSuffixItem,
        argv: &mut Vec<Field>,
        redirs: &mut Vec<Redirect>,
        procsub_download: &mut bool,
    ) {
        match item {
            CommandPrefixOrSuffixItem::IoRedirect(r) => redirs.push(self.redirect(r)),
            CommandPrefixOrSuffixItem::Word(w)
            | CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                argv.extend(self.expand(&w.value));
            }
            CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                *procsub_download |= self.substituted(&sub.list);
                argv.push(Field::literal("/dev/fd/63"));
            }
        }
    }

    /// Judges a process substitution's commands; `true` when it writes something downloaded.
    pub(super) fn substituted(&mut self, list: &CompoundList) -> bool {
        let cwd = self.cwd.clone();
        let out = self.list(list);
        self.cwd = cwd;
        out == Stdin::Download
    }

    /// Records `NAME=value`; returns it as shown.
    fn assignment(&mut self, a: &brush_parser::ast::Assignment) -> Option<String> {
        use brush_parser::ast::{AssignmentName, AssignmentValue};
        let AssignmentName::VariableName(name) = &a.name else {
            return None;
        };
        let mut value = match &a.value {
            AssignmentValue::Scalar(w) => self.expand_one(&w.value).text,
            AssignmentValue::Array(items) => {
                let words: Vec<String> = items
                    .iter()
                    .flat_map(|(_, w)| self.expand(&w.value))
                    .map(|f| f.text)
                    .collect();
                words.join(&super::field::ELEMENT.to_string())
            }
        };
        if a.append {
            value = format!("{}{value}", self.var(name).unwrap_or_default());
        }
        self.assign(name, value.clone());
        let shown = format!("{name}={}", value.replace(super::field::ELEMENT, " "));
        self.assigned(name, &value, &shown);
        Some(shown)
    }
}
