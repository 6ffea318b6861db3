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
    if script.trim().is_empty() || super::too_deep(script) {
        return None;
    }
    match parse(script)? {
        ParseError::Tokenizing { inner, .. } if inner.is_incomplete() => Some(tokenizing(&inner)),
        // The parser also reports a stray `fi` at the end: open only if some ending closes it.
        ParseError::ParsingAtEndOfInput if closable(script, depth(script)) => {
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
    let opts = ParserOptions::default();
    Parser::new(BufReader::new(script.as_bytes()), &opts)
        .parse_program()
        .err()
}

/// Endings that close what a line can leave open; nested constructs take one each.
const CLOSERS: &[&str] = &[
    " :",
    "\n:\nfi",
    "\nthen :\nfi",
    "\n:\ndone",
    "\ndo :\ndone",
    "\nesac",
    "\nin x) :;;\nesac",
    "\n:\n}",
    "\n:\n)",
];

/// How many constructs deep [`closable`] looks (each level tries every closer: a long line
/// gets one level, so the cost stays a few parses of it).
fn depth(script: &str) -> usize {
    if script.len() > 4096 { 1 } else { 3 }
}

/// Whether appending at most `depth` closers makes `script` parse.
fn closable(script: &str, depth: usize) -> bool {
    if depth == 0 {
        return false;
    }
    CLOSERS.iter().any(|c| {
        let longer = format!("{script}{c}");
        match parse(&longer) {
            None => true,
            Some(ParseError::ParsingAtEndOfInput) => closable(&longer, depth - 1),
            Some(_) => false,
        }
    })
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
