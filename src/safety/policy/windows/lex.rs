//! Windows command lines split the way cmd.exe and PowerShell read them: statements and
//! pipelines, words with their quotes removed (cmd: `"…"` and `^x`; PowerShell: `'…'`, `"…"`,
//! here-strings and `` `x ``), variables kept as references for the judge to resolve
//! (`%SystemDrive%`, `$env:SystemRoot`, `$p`), redirections dropped, comments skipped.
//!
//! Brackets (`(…)`, `$(…)`, `@(…)`, `{…}`; cmd's `(…)` blocks) are judged as scripts of their
//! own ([`Lexed::nested`]) and stand for an unknown value in the word they occur in. Past a
//! nesting limit the lexer runs *flat*: every bracket separates commands, so no depth hides
//! a command from the judge.

/// Which shell's rules split the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// cmd.exe (and batch files).
    Cmd,
    /// Windows PowerShell and PowerShell 7 (`pwsh`).
    Ps,
}

/// A piece of a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal text (quotes and escapes removed).
    Lit(String),
    /// A variable: `env:name` for environment variables, `name` for PowerShell variables
    /// (lower-case).
    Var(String),
    /// A value that cannot be known (a substitution, a `for` variable, a member access).
    Unknown,
}

/// One word of a command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Word {
    /// Its pieces, in order.
    pub parts: Vec<Part>,
    /// The word as written.
    pub raw: String,
}

impl Word {
    /// A word of literal text.
    #[must_use]
    pub fn literal(text: &str) -> Self {
        Word {
            parts: vec![Part::Lit(text.to_string())],
            raw: text.to_string(),
        }
    }

    fn lit(&mut self, c: char) {
        match self.parts.last_mut() {
            Some(Part::Lit(s)) => s.push(c),
            _ => self.parts.push(Part::Lit(c.to_string())),
        }
    }
}

/// One pipeline: its stages (each a command's words) and its text as written.
#[derive(Debug, Clone, Default)]
pub struct Pipeline {
    /// The commands, in pipe order.
    pub stages: Vec<Vec<Word>>,
    /// The pipeline as written (for rules on what flows through it).
    pub raw: String,
}

/// A line split into pipelines, with the bracketed scripts it holds.
#[derive(Debug, Default)]
pub(super) struct Lexed {
    /// Pipelines in order (`;`, `&`, `&&`, `||`, newlines separate them).
    pub pipelines: Vec<Pipeline>,
    /// Bracketed text, to be judged as scripts of the same dialect.
    pub nested: Vec<String>,
}

/// Splits `text` as `d` would; `flat` makes every bracket a separator.
#[must_use]
pub fn lex(text: &str, d: Dialect, flat: bool) -> Lexed {
    let mut l = Lexer {
        c: text.chars().collect(),
        i: 0,
        d,
        flat,
        out: Lexed::default(),
        stages: vec![],
        stage: vec![],
        word: None,
        word_start: 0,
        pipe_start: 0,
        drop_next: false,
    };
    l.run();
    l.out
}

struct Lexer {
    c: Vec<char>,
    i: usize,
    d: Dialect,
    flat: bool,
    out: Lexed,
    stages: Vec<Vec<Word>>,
    stage: Vec<Word>,
    word: Option<Word>,
    word_start: usize,
    pipe_start: usize,
    /// The next word is a redirection target.
    drop_next: bool,
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.c.get(self.i + k).copied()
    }

    fn word(&mut self) -> &mut Word {
        if self.word.is_none() {
            self.word_start = self.i;
        }
        self.word.get_or_insert_with(Word::default)
    }

    fn end_word(&mut self) {
        if let Some(mut w) = self.word.take() {
            w.raw = self.c[self.word_start..self.i.min(self.c.len())]
                .iter()
                .collect();
            if std::mem::take(&mut self.drop_next) {
                return;
            }
            self.stage.push(w);
        }
    }

    fn end_stage(&mut self) {
        self.end_word();
        if !self.stage.is_empty() {
            self.stages.push(std::mem::take(&mut self.stage));
        }
    }

    /// Ends the pipeline at the current position; the next starts after `skip` characters.
    fn end_pipeline(&mut self, skip: usize) {
        self.end_stage();
        if !self.stages.is_empty() {
            let raw = self.c[self.pipe_start.min(self.i)..self.i.min(self.c.len())]
                .iter()
                .collect();
            self.out.pipelines.push(Pipeline {
                stages: std::mem::take(&mut self.stages),
                raw,
            });
        }
        self.i += skip;
        self.pipe_start = self.i;
    }

    fn run(&mut self) {
        while let Some(ch) = self.peek(0) {
            let ps = self.d == Dialect::Ps;
            match ch {
                ' ' | '\t' | '\u{a0}' => {
                    self.end_word();
                    self.i += 1;
                }
                ';' | ',' if !ps => {
                    self.end_word();
                    self.i += 1;
                }
                ',' => {
                    self.end_word();
                    self.i += 1;
                }
                '\n' | '\r' | ';' => self.end_pipeline(1),
                '&' => {
                    let n = if self.peek(1) == Some('&') { 2 } else { 1 };
                    self.end_pipeline(n);
                }
                '|' if self.peek(1) == Some('|') => self.end_pipeline(2),
                '|' => {
                    self.end_stage();
                    self.i += 1;
                }
                '<' if ps && self.peek(1) == Some('#') => self.block_comment(),
                '>' | '<' => self.redirect(),
                '#' if ps && self.word.is_none() => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '(' | ')' | '{' | '}' if self.flat => self.end_pipeline(1),
                '(' => self.group('(', ')'),
                '{' if ps => self.group('{', '}'),
                ')' | '}' if ps || ch == ')' => self.end_pipeline(1),
                '"' => self.double_quoted(),
                '“' | '”' | '„' if ps => self.double_quoted(),
                '\'' | '‘' | '’' | '‚' | '‛' if ps => self.single_quoted(),
                '`' if ps => self.escaped(),
                '^' if !ps => self.escaped(),
                '$' if ps => self.dollar(),
                '@' if ps && matches!(self.peek(1), Some('\'' | '"')) => self.here_string(),
                '@' if ps && matches!(self.peek(1), Some('(' | '{')) => {
                    self.word();
                    self.i += 1;
                }
                '%' if !ps => self.percent(),
                _ => {
                    self.word().lit(ch);
                    self.i += 1;
                }
            }
        }
        self.end_pipeline(0);
    }

    /// `\`x` (PowerShell) or `^x` (cmd): the next character, literally.
    fn escaped(&mut self) {
        self.word();
        self.i += 1;
        match self.peek(0) {
            // A line continuation.
            Some('\n') => self.i += 1,
            Some('\r') if self.peek(1) == Some('\n') => self.i += 2,
            Some(c) => {
                self.word().lit(c);
                self.i += 1;
            }
            None => {}
        }
    }

    fn block_comment(&mut self) {
        self.i += 2;
        while self.peek(0).is_some() && !(self.peek(0) == Some('#') && self.peek(1) == Some('>')) {
            self.i += 1;
        }
        self.i = (self.i + 2).min(self.c.len());
    }

    /// `>`, `>>`, `2>`, `2>&1`, `<`: the operator and its target are no words of the command.
    fn redirect(&mut self) {
        let fd = self.word.as_ref().is_some_and(|w| {
            let raw: String = self.c[self.word_start..self.i].iter().collect();
            w.parts.len() == 1 && matches!(raw.as_str(), "1" | "2" | "3" | "4" | "5" | "6" | "*")
        });
        if fd {
            self.word = None;
        } else {
            self.end_word();
        }
        while matches!(self.peek(0), Some('>' | '<')) {
            self.i += 1;
        }
        if self.peek(0) == Some('&') && self.peek(1).is_some_and(|c| c.is_ascii_digit()) {
            self.i += 2;
            return;
        }
        self.drop_next = true;
    }

    /// The index of the bracket closing the one at `self.i`, or the end of the text.
    fn close_of(&self, open: char, close: char) -> usize {
        let mut depth = 0usize;
        let mut quote: Option<char> = None;
        let mut j = self.i;
        while let Some(&c) = self.c.get(j) {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) if (c == '`' && self.d == Dialect::Ps) => j += 1,
                Some(_) => {}
                None if c == '"' || (c == '\'' && self.d == Dialect::Ps) => quote = Some(c),
                None if c == '`' && self.d == Dialect::Ps => j += 1,
                None if c == open => depth += 1,
                None if c == close => {
                    depth -= 1;
                    if depth == 0 {
                        return j;
                    }
                }
                None => {}
            }
            j += 1;
        }
        self.c.len()
    }

    /// A bracketed script: judged on its own; an unknown value where it stands.
    fn group(&mut self, open: char, close: char) {
        if self.flat {
            return self.end_pipeline(1);
        }
        let end = self.close_of(open, close);
        let inner: String = self.c[self.i + 1..end.min(self.c.len())].iter().collect();
        self.out.nested.push(inner);
        self.word().parts.push(Part::Unknown);
        self.i = (end + 1).min(self.c.len());
    }

    fn single_quoted(&mut self) {
        self.word();
        self.i += 1;
        while let Some(c) = self.peek(0) {
            if is_single_quote(c) {
                if self.peek(1).is_some_and(is_single_quote) {
                    self.word().lit('\'');
                    self.i += 2;
                    continue;
                }
                self.i += 1;
                return;
            }
            self.word().lit(c);
            self.i += 1;
        }
    }

    fn double_quoted(&mut self) {
        self.word();
        self.i += 1;
        let ps = self.d == Dialect::Ps;
        while let Some(c) = self.peek(0) {
            match c {
                _ if ps && is_double_quote(c) && self.peek(1).is_some_and(is_double_quote) => {
                    self.word().lit('"');
                    self.i += 2;
                }
                _ if c == '"' || ps && is_double_quote(c) => {
                    self.i += 1;
                    return;
                }
                '\n' | '\r' if !ps => return,
                '`' if ps => self.escaped(),
                '$' if ps => self.dollar(),
                '%' if !ps => self.percent(),
                _ => {
                    self.word().lit(c);
                    self.i += 1;
                }
            }
        }
    }

    /// `@'…'@` and `@"…"@`: everything up to the closing line.
    fn here_string(&mut self) {
        let q = self.peek(1).unwrap_or('"');
        self.word();
        self.i += 2;
        while let Some(c) = self.peek(0) {
            if c == '\n' && self.peek(1) == Some(q) && self.peek(2) == Some('@') {
                self.i += 3;
                return;
            }
            if q == '"' && c == '$' {
                self.dollar();
                continue;
            }
            self.word().lit(c);
            self.i += 1;
        }
    }

    /// PowerShell `$name`, `$env:NAME`, `${env:NAME}`, `$(…)`, `$x.Member`.
    fn dollar(&mut self) {
        match self.peek(1) {
            Some('(') => {
                self.word();
                self.i += 1;
                self.group('(', ')');
            }
            Some('{') => {
                let start = self.i + 2;
                let end = (start..self.c.len())
                    .find(|&j| self.c[j] == '}')
                    .unwrap_or(self.c.len());
                let name: String = self.c[start..end].iter().collect();
                self.word().parts.push(Part::Var(var_name(&name)));
                self.i = (end + 1).min(self.c.len());
            }
            Some(c) if c.is_alphanumeric() || matches!(c, '_' | '?' | ':') => {
                let start = self.i + 1;
                let mut end = start;
                while self
                    .c
                    .get(end)
                    .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '?' | ':'))
                {
                    end += 1;
                }
                let name: String = self.c[start..end].iter().collect();
                self.word().parts.push(Part::Var(var_name(&name)));
                self.i = end;
                // `$x.FullName`, `$x[0]`: a member or element, unknown.
                let member = matches!(self.peek(0), Some('.'))
                    && self.peek(1).is_some_and(char::is_alphabetic)
                    || self.peek(0) == Some('[');
                if member {
                    self.word().parts.push(Part::Unknown);
                    while self
                        .peek(0)
                        .is_some_and(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '[' | ']'))
                    {
                        self.i += 1;
                    }
                }
            }
            _ => {
                self.word().lit('$');
                self.i += 1;
            }
        }
    }

    /// cmd `%NAME%`, `%NAME:~0,2%` (unknown), `%i` / `%%i` / `%~dpi` (a `for` variable, unknown).
    fn percent(&mut self) {
        let start = self.i + 1;
        let name_char =
            |c: &char| !c.is_whitespace() && !matches!(c, '%' | '"' | '&' | '|' | '<' | '>');
        let end = (start..self.c.len()).find(|&j| !name_char(&self.c[j]));
        if let Some(end) = end.filter(|&e| e > start && self.c[e] == '%') {
            let name: String = self.c[start..end].iter().collect();
            let part = if name.contains(':') {
                Part::Unknown
            } else {
                Part::Var(format!("env:{}", name.to_lowercase()))
            };
            self.word().parts.push(part);
            self.i = end + 1;
            return;
        }
        let for_var = self
            .peek(1)
            .is_some_and(|c| c.is_alphabetic() || c == '~' || c == '%');
        self.word();
        if for_var {
            self.word().parts.push(Part::Unknown);
            self.i += 1;
            while self
                .peek(0)
                .is_some_and(|c| c.is_alphanumeric() || matches!(c, '~' | '%' | '$' | ':'))
            {
                self.i += 1;
            }
        } else {
            self.word().lit('%');
            self.i += 1;
        }
    }
}

/// PowerShell reads typographic quotes as quotes.
fn is_single_quote(c: char) -> bool {
    matches!(c, '\'' | '‘' | '’' | '‚' | '‛')
}

fn is_double_quote(c: char) -> bool {
    matches!(c, '"' | '“' | '”' | '„')
}

/// A PowerShell variable name, lower-case, without its scope (`$global:x` is `x`).
fn var_name(name: &str) -> String {
    let lower = name.to_lowercase();
    for scope in ["global:", "script:", "local:", "private:", "using:"] {
        if let Some(rest) = lower.strip_prefix(scope) {
            return rest.to_string();
        }
    }
    lower
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str, d: Dialect) -> Vec<Vec<String>> {
        lex(text, d, false)
            .pipelines
            .iter()
            .flat_map(|p| &p.stages)
            .map(|s| s.iter().map(|w| w.raw.clone()).collect())
            .collect()
    }

    #[test]
    fn separators_quotes_and_redirections() {
        assert_eq!(
            words("del /s /q C:\\ & rd x>nul 2>&1", Dialect::Cmd),
            [vec!["del", "/s", "/q", "C:\\"], vec!["rd", "x"]]
        );
        assert_eq!(
            words("Remove-Item 'C:\\' -Recurse; ls | % { rm x }", Dialect::Ps),
            [
                vec!["Remove-Item", "'C:\\'", "-Recurse"],
                vec!["ls"],
                vec!["%", "{ rm x }"]
            ]
        );
        let l = lex("if (x) { rm -r C:\\ }", Dialect::Ps, false);
        assert_eq!(l.nested, ["x", " rm -r C:\\ "]);
        let l = lex("if (x) { rm -r C:\\ }", Dialect::Ps, true);
        assert_eq!(l.pipelines.len(), 3);
    }
}
