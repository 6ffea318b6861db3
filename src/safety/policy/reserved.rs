//! Aliases named after the shell's reserved words. bash expands an alias before it looks for
//! reserved words, so after `alias do='rm -rf'` the line `do /` runs `rm -rf /` — while the
//! parser, which knows nothing of aliases, reads `do` as a misplaced keyword and rejects the
//! line (or, for `time`, reads a timed pipeline). Other aliases are judged where the command's
//! name is known (`peel.rs`); these are replaced in the text, wherever a command starts,
//! before the line is parsed.

use std::borrow::Cow;
use std::collections::HashMap;

/// The reserved words of bash, zsh and POSIX sh that can start a command's text.
pub(super) const RESERVED: &[&str] = &[
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "case",
    "esac",
    "for",
    "select",
    "while",
    "until",
    "do",
    "done",
    "in",
    "function",
    "time",
    "coproc",
    "foreach",
    "end",
    "repeat",
    "nocorrect",
];

/// Words after which a command starts again (`then rm …`, `! rm …`).
const LEADING: &[&str] = &[
    "if",
    "then",
    "else",
    "elif",
    "while",
    "until",
    "do",
    "time",
    "!",
    "{",
    "nocorrect",
];

/// `text` with every alias that is named after a reserved word replaced by its text where a
/// command starts (outside quotes); `text` itself when there is none.
pub(super) fn expand<'a>(text: &'a str, aliases: &HashMap<String, String>) -> Cow<'a, str> {
    if !aliases.keys().any(|k| RESERVED.contains(&k.as_str())) {
        return Cow::Borrowed(text);
    }
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut starts) = (0, true);
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' | b'"' | b'\\' | b'`' => {
                let end = quoted_end(text, i);
                out.push_str(&text[i..end]);
                i = end;
                starts = false;
            }
            b';' | b'&' | b'|' | b'(' | b')' | b'\n' => {
                out.push(c as char);
                i += 1;
                starts = true;
            }
            b' ' | b'\t' => {
                out.push(c as char);
                i += 1;
            }
            _ => {
                let end = word_end(b, i);
                let word = &text[i..end];
                match aliases
                    .get(word)
                    .filter(|_| starts && RESERVED.contains(&word))
                {
                    Some(value) => {
                        out.push_str(value);
                        // bash: an alias ending in a blank makes the next word a command too.
                        starts = value.ends_with([' ', '\t']);
                    }
                    None => {
                        out.push_str(word);
                        starts = starts && LEADING.contains(&word);
                    }
                }
                i = end;
            }
        }
    }
    Cow::Owned(out)
}

/// Where the word at `i` ends (at a blank, an operator or a quote).
fn word_end(b: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < b.len()
        && !matches!(
            b[j],
            b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'\'' | b'"' | b'\\' | b'`'
        )
    {
        j += 1;
    }
    j.max(i + 1).min(b.len())
}

/// Where the quoted part (or the escaped character) starting at `i` ends.
fn quoted_end(text: &str, i: usize) -> usize {
    let b = text.as_bytes();
    match b[i] {
        b'\\' => i + 1 + text[i + 1..].chars().next().map_or(0, char::len_utf8),
        q => {
            let mut j = i + 1;
            while j < b.len() && b[j] != q {
                if b[j] == b'\\' && q != b'\'' {
                    j += 1;
                }
                j += 1;
            }
            (j + 1).min(b.len())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aliases(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_reserved_word_alias_is_expanded_where_a_command_starts() {
        for w in RESERVED {
            let a = aliases(&[(w, "rm -rf")]);
            assert_eq!(expand(&format!("{w} /"), &a), "rm -rf /", "{w}");
            assert_eq!(expand(&format!("true; {w} /"), &a), "true; rm -rf /", "{w}");
            assert_eq!(expand(&format!("ls && {w} /"), &a), "ls && rm -rf /", "{w}");
            // Not where it is an argument, nor inside quotes.
            assert_eq!(
                expand(&format!("echo {w} /"), &a),
                format!("echo {w} /"),
                "{w}"
            );
            assert_eq!(
                expand(&format!("echo '{w} /'"), &a),
                format!("echo '{w} /'"),
                "{w}"
            );
        }
        let a = aliases(&[("do", "rm -rf"), ("ls", "ls -l")]);
        assert_eq!(
            expand("if true; then do /; fi", &a),
            "if true; then rm -rf /; fi"
        );
        assert_eq!(
            expand("ls /", &a),
            "ls /",
            "other aliases are judged by name"
        );
        let none = aliases(&[("ll", "ls -l")]);
        assert!(matches!(expand("do /", &none), Cow::Borrowed(_)));
    }

    #[test]
    fn any_text_survives_the_scan() {
        let a = aliases(&[("do", "X")]);
        for t in [
            "",
            "'",
            "\"",
            "\\",
            "`",
            "a\\",
            "do\\",
            "'do' do",
            "\"a\\\"b\" do",
            "é do",
            "\\é do",
        ] {
            let _ = expand(t, &a);
        }
        assert_eq!(expand("é do", &a), "é do");
    }
}
