//! Whether a line is a whole command, as a POSIX-family shell (bash, zsh, sh) reads it: a line
//! with an unclosed quote, substitution, here-document, compound command (`if`, `while`,
//! `case`, `{`, `(`) or a trailing `|`, `&&`, `||` or `\` is not run but continued — the
//! shell prints its continuation prompt and waits for the rest, so a `talk` typing it would
//! wait for its whole timeout and the next command would land inside it.

use std::io::BufReader;

use brush_parser::{ParseError, Parser, ParserOptions, TokenizerError};

/// What a line leaves open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unclosed {
    /// `'…`.
    SingleQuote,
    /// `"…`.
    DoubleQuote,
    /// `$'…`.
    AnsiCQuote,
    /// `` `… ``.
    Backquote,
    /// `$(…`.
    CommandSubstitution,
    /// `${…`, `$((…`.
    Expansion,
    /// A trailing backslash (a line continuation).
    Continuation,
    /// A here-document whose end marker never comes.
    HereDocument(String),
    /// A trailing `|`, `&&` or `||`.
    Operator(String),
    /// An `if`, `while`, `until`, `for`, `case`, `{` or `(` without its end.
    Compound,
}

impl Unclosed {
    /// What is open, for the error message.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Unclosed::SingleQuote => "a single quote (') is not closed".into(),
            Unclosed::DoubleQuote => "a double quote (\") is not closed".into(),
            Unclosed::AnsiCQuote => "a $'…' quote is not closed".into(),
            Unclosed::Backquote => "a backquote (`) is not closed".into(),
            Unclosed::CommandSubstitution => "a $( substitution is not closed".into(),
            Unclosed::Expansion => "a $(, ${ or $(( is not closed".into(),
            Unclosed::Continuation => "the line ends with a backslash (a continuation)".into(),
            Unclosed::HereDocument(tag) => {
                format!("the here-document's end marker {tag:?} never comes")
            }
            Unclosed::Operator(op) => {
                format!("the line ends with {op:?}, which needs a command after it")
            }
            Unclosed::Compound => {
                "an if/while/until/for/case, `{` or `(` is not closed (fi, done, esac, }, )".into()
            }
        }
    }

    /// A stable name (the error's `details.unclosed`).
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Unclosed::SingleQuote => "single_quote",
            Unclosed::DoubleQuote => "double_quote",
            Unclosed::AnsiCQuote => "ansi_c_quote",
            Unclosed::Backquote => "backquote",
            Unclosed::CommandSubstitution => "command_substitution",
            Unclosed::Expansion => "expansion",
            Unclosed::Continuation => "continuation",
            Unclosed::HereDocument(_) => "here_document",
            Unclosed::Operator(_) => "operator",
            Unclosed::Compound => "compound_command",
        }
    }
}

/// What `script` leaves open, or `None` when it is whole (or wrong in another way: a syntax
/// error is the shell's to report, and it does not wait for more).
#[must_use]
pub fn unclosed(script: &str) -> Option<Unclosed> {
    if script.trim().is_empty() || super::nesting::too_deep(script) {
        return None;
    }
    match parse(script)? {
        ParseError::Tokenizing { inner, .. } if inner.is_incomplete() => Some(tokenizing(&inner)),
        // The parser also reports a stray `fi` at the end: open only if some ending closes it.
        ParseError::ParsingAtEndOfInput if closable(script) => {
            let t = script.trim_end();
            let op = ["&&", "||", "|"].into_iter().find(|op| t.ends_with(op));
            Some(match op {
                Some(op) => Unclosed::Operator(op.to_string()),
                None => Unclosed::Compound,
            })
        }
        _ => None,
    }
}

/// The parse error of `script`, if any.
fn parse(script: &str) -> Option<ParseError> {
    // The tokenizer recurses per level: a deeper line would overflow the stack.
    if super::nesting::too_deep(script) {
        return None;
    }
    let opts = ParserOptions::default();
    Parser::new(BufReader::new(script.as_bytes()), &opts)
        .parse_program()
        .err()
}

/// An open construct, and whether its body has begun (`then`, `do`, `in` seen).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    If(bool),
    Loop(bool),
    Case(bool),
    Brace,
    Paren,
}

impl Frame {
    /// What closes it.
    fn closer(self) -> &'static str {
        match self {
            Frame::If(false) => "\nthen :\nfi",
            Frame::If(true) => "\n:\nfi",
            Frame::Loop(false) => "\ndo :\ndone",
            Frame::Loop(true) => "\n:\ndone",
            Frame::Case(false) => "\nin x) :;;\nesac",
            Frame::Case(true) => "\nesac",
            Frame::Brace => "\n:\n}",
            Frame::Paren => "\n:\n)",
        }
    }
}

/// The constructs `script` leaves open, outermost first, by its words (`None` when a closer
/// has no opener: a stray `fi` is an error, not an open line).
fn open_frames(script: &str) -> Option<Vec<Frame>> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut word = String::new();
    let mut tokens = Vec::new();
    for c in script.chars().chain([' ']) {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            tokens.push(std::mem::take(&mut word));
        }
        if matches!(c, '{' | '}' | '(' | ')') {
            tokens.push(c.to_string());
        }
    }
    for t in &tokens {
        let top = stack.last_mut();
        match (t.as_str(), top) {
            ("if", _) => stack.push(Frame::If(false)),
            ("while" | "until" | "for" | "select", _) => stack.push(Frame::Loop(false)),
            ("case", _) => stack.push(Frame::Case(false)),
            ("{", _) => stack.push(Frame::Brace),
            ("(", _) => stack.push(Frame::Paren),
            ("then", Some(Frame::If(b))) => *b = true,
            ("elif", Some(Frame::If(b))) => *b = false,
            ("do", Some(Frame::Loop(b))) => *b = true,
            ("in", Some(Frame::Case(b))) => *b = true,
            // A case pattern's `)`.
            (")", Some(Frame::Case(true))) => {}
            ("fi", Some(Frame::If(_)))
            | ("done", Some(Frame::Loop(_)))
            | ("esac", Some(Frame::Case(_)))
            | ("}", Some(Frame::Brace))
            | (")", Some(Frame::Paren)) => {
                stack.pop();
            }
            ("fi" | "done" | "esac" | "}" | ")", _) => return None,
            _ => {}
        }
    }
    Some(stack)
}

/// Whether `script` parses once its open constructs are closed (and a trailing `|`, `&&` or
/// `||` given a command): one parse, so the check costs what the policy's own parse does.
fn closable(script: &str) -> bool {
    let Some(frames) = open_frames(script) else {
        return false;
    };
    let mut closed = script.to_string();
    let t = script.trim_end();
    if t.ends_with('|') || t.ends_with("&&") {
        closed.push_str(" :");
    }
    for f in frames.iter().rev() {
        closed.push_str(f.closer());
    }
    parse(&closed).is_none()
}

fn tokenizing(e: &TokenizerError) -> Unclosed {
    match e {
        TokenizerError::UnterminatedSingleQuote(_) => Unclosed::SingleQuote,
        TokenizerError::UnterminatedDoubleQuote(_) => Unclosed::DoubleQuote,
        TokenizerError::UnterminatedAnsiCQuote(_) => Unclosed::AnsiCQuote,
        TokenizerError::UnterminatedBackquote(_) => Unclosed::Backquote,
        TokenizerError::UnterminatedCommandSubstitution => Unclosed::CommandSubstitution,
        TokenizerError::UnterminatedEscapeSequence => Unclosed::Continuation,
        TokenizerError::UnterminatedHereDocuments(tag, _) => Unclosed::HereDocument(tag.clone()),
        _ => Unclosed::Expansion,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_lines_say_what_is_open() {
        for (line, want) in [
            ("echo \"x", "double_quote"),
            ("echo 'x", "single_quote"),
            ("echo $'x", "ansi_c_quote"),
            ("echo `date", "backquote"),
            ("echo $(date", "expansion"),
            ("if true; then while x; do", "compound_command"),
            ("echo ${HOME", "expansion"),
            ("echo x \\", "continuation"),
            ("cat <<EOF\nx", "here_document"),
            ("ls |", "operator"),
            ("make &&", "operator"),
            ("false ||", "operator"),
            ("if true; then echo x", "compound_command"),
            ("while true; do", "compound_command"),
            ("for i in 1 2", "compound_command"),
            ("case x in", "compound_command"),
            ("{ echo x", "compound_command"),
            ("( echo x", "compound_command"),
            ("f() {", "compound_command"),
        ] {
            assert_eq!(unclosed(line).map(|u| u.name()), Some(want), "{line:?}");
        }
    }

    #[test]
    fn long_and_deeply_open_lines_are_judged_without_panics() {
        for line in [
            "if x; then ".repeat(300),
            "while x; do ".repeat(40),
            format!("echo {}", "x".repeat(100_000)) + " |",
            "(".repeat(100),
            "fi ".repeat(1000),
            "if x; then ".repeat(47),
            "while x; do ".repeat(47),
            "for i in 1; do if x; then case y in z) ".repeat(16),
        ] {
            let _ = unclosed(&line);
        }
    }

    #[test]
    fn whole_lines_and_plain_errors_pass() {
        for line in [
            "echo x",
            "echo 'it''s'",
            "if true; then echo x; fi",
            "for i in 1 2\ndo echo $i\ndone",
            "cat <<EOF\nx\nEOF",
            "echo x # if (",
            "ls | wc -l",
            "fi",
            "done",
            ")",
            "",
            "echo \"a\nb\"",
        ] {
            assert_eq!(unclosed(line), None, "{line:?}");
        }
    }
}
