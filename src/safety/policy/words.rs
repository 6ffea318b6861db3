//! Word expansion as the shell would do it, as far as a policy can know: brace expansion,
//! quote removal, `$'…'` decoding, tilde and `$HOME`, variables assigned earlier in the line,
//! `$IFS` as a blank, word splitting of unquoted expansions, and command substitutions whose
//! output is evident (`$(echo rm)`, `$(printf '\x72\x6d')`).
//!
//! What cannot be known (an unset variable, `$(date)`) becomes [`UNKNOWN`] in the text, so the
//! rules can tell "some path" from "`/`".

use brush_parser::ParserOptions;
use brush_parser::word::{
    self, BraceExpressionMember, BraceExpressionOrText, Parameter, ParameterExpr, SpecialParameter,
    TildeExpr, WordPiece, WordPieceWithSource,
};

use super::field::{DOWNLOADED, ELEMENT, Field, UNKNOWN};
use super::state::Eval;

/// At most this many words come from one word's brace expansion.
const MAX_BRACE_WORDS: usize = 256;

/// Fields being built from one word: `current` is open, `done` are split off.
#[derive(Default)]
struct Fields {
    /// The characters unquoted expansions are split on (`$IFS`).
    ifs: String,
    done: Vec<Field>,
    current: Field,
    /// `current` exists even if empty (`""` is one empty field).
    started: bool,
}

impl Fields {
    fn text(&mut self, s: &str, quoted: bool) {
        self.current.push(s, quoted);
        self.started |= quoted || !s.is_empty();
    }

    /// An expansion's value: unquoted, it is split on blanks (`$IFS` is a blank).
    fn expansion(&mut self, value: &str, quoted: bool) {
        if value.contains(ELEMENT) {
            let mut elements = value.split(ELEMENT).peekable();
            while let Some(e) = elements.next() {
                self.expansion(e, quoted);
                if elements.peek().is_some() {
                    self.split();
                }
            }
            return;
        }
        if quoted {
            return self.text(value, true);
        }
        // Field splitting: IFS blanks delimit (runs of them count once); other IFS
        // characters delimit one field each. Results are not re-globbed (literal text).
        let ifs = std::mem::take(&mut self.ifs);
        for c in value.chars() {
            if !ifs.contains(c) {
                let mut buf = [0; 4];
                self.text(c.encode_utf8(&mut buf), true);
            } else if c.is_whitespace() {
                self.split();
            } else {
                self.started = true;
                self.split();
            }
        }
        self.ifs = ifs;
    }

    fn split(&mut self) {
        if self.started {
            self.done.push(std::mem::take(&mut self.current));
        }
        self.started = false;
    }

    fn finish(mut self) -> Vec<Field> {
        self.split();
        self.done
    }
}

impl Eval {
    /// Expands one raw word into the fields a command would receive.
    pub fn expand(&mut self, raw: &str) -> Vec<Field> {
        let opts = ParserOptions::default();
        let alternatives = match word::parse_brace_expansions(raw, &opts) {
            Ok(Some(parts)) => brace_alternatives(&parts),
            _ => vec![raw.to_string()],
        };
        let mut out = Vec::new();
        for alt in alternatives {
            match word::parse(&alt, &opts) {
                Ok(pieces) => {
                    let mut fields = Fields {
                        ifs: self.var("IFS").unwrap_or_else(|| " \t\n".into()),
                        ..Fields::default()
                    };
                    self.pieces(&pieces, false, &mut fields);
                    out.extend(fields.finish());
                }
                Err(_) => out.push(Field {
                    text: alt.clone(),
                    pattern: alt,
                }),
            }
        }
        out
    }

    /// Expands a word to one string (an assignment's value, a redirection target).
    pub fn expand_one(&mut self, raw: &str) -> Field {
        let fields = self.expand(raw);
        let mut it = fields.into_iter();
        let mut first = it.next().unwrap_or_default();
        for f in it {
            first.text.push(' ');
            first.text.push_str(&f.text);
            first.pattern.push(' ');
            first.pattern.push_str(&f.pattern);
        }
        first
    }

    fn pieces(&mut self, pieces: &[WordPieceWithSource], quoted: bool, out: &mut Fields) {
        for p in pieces {
            match &p.piece {
                WordPiece::Text(t) => out.text(t, quoted),
                WordPiece::SingleQuotedText(t) => out.text(t, true),
                WordPiece::AnsiCQuotedText(t) => out.text(&decode_ansi_c(t), true),
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    out.text("", true);
                    self.pieces(inner, true, out);
                }
                WordPiece::TildeExpansion(t) => out.text(&tilde(t), quoted),
                WordPiece::ParameterExpansion(e) => {
                    let v = self.parameter(e);
                    out.expansion(&v, quoted);
                }
                WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                    let v = self.substitution(s);
                    out.expansion(&v, quoted);
                }
                WordPiece::EscapeSequence(s) => {
                    let c = s.strip_prefix('\\').unwrap_or(s);
                    // `\<newline>` is a line continuation: nothing.
                    if c != "\n" {
                        out.text(c, true);
                    }
                }
                WordPiece::ArithmeticExpression(_) => out.expansion(&UNKNOWN.to_string(), quoted),
            }
        }
    }

    /// The value of a parameter expansion, or [`UNKNOWN`].
    fn parameter(&mut self, e: &ParameterExpr) -> String {
        let unknown = || UNKNOWN.to_string();
        match e {
            ParameterExpr::Parameter {
                parameter,
                indirect: false,
            }
            | ParameterExpr::IndicateErrorIfNullOrUnset {
                parameter,
                indirect: false,
                ..
            } => self.param_value(parameter).unwrap_or_else(unknown),
            ParameterExpr::UseDefaultValues {
                parameter,
                indirect: false,
                default_value,
                ..
            }
            | ParameterExpr::AssignDefaultValues {
                parameter,
                indirect: false,
                default_value,
                ..
            } => match self.param_value(parameter) {
                Some(v) if !v.is_empty() => v,
                _ => match default_value {
                    Some(d) => self.expand_one(d).text,
                    None => unknown(),
                },
            },
            // Operators and indirection (`${v%/*}`, `${v::1}`, `${!v}` …).
            _ => self.operator(e),
        }
    }

    pub(super) fn param_value(&self, p: &Parameter) -> Option<String> {
        match p {
            Parameter::Named(name) => self.var(name),
            Parameter::NamedWithAllIndices { name, .. } => self.var(name),
            Parameter::NamedWithIndex { name, index } => {
                let i: usize = index.parse().ok()?;
                self.var(name)?.split(ELEMENT).nth(i).map(str::to_string)
            }
            Parameter::Positional(0) | Parameter::Special(SpecialParameter::ShellName) => {
                Some("sh".into())
            }
            Parameter::Positional(n) => self.positional(*n as usize),
            Parameter::Special(SpecialParameter::AllPositionalParameters { .. }) => {
                self.positional(0)
            }
            Parameter::Special(SpecialParameter::PositionalParameterCount) => self
                .positional(0)
                .map(|p| (p.split(ELEMENT).filter(|e| !e.is_empty()).count()).to_string()),
            _ => None,
        }
    }

    /// The output of `$(…)` when it is evident; the inner script is checked either way.
    fn substitution(&mut self, script: &str) -> String {
        match self.nested(script) {
            super::state::Stdin::Evident(s) => s.trim_end_matches('\n').to_string(),
            super::state::Stdin::Download => format!("{DOWNLOADED}{UNKNOWN}"),
            _ => UNKNOWN.to_string(),
        }
    }
}

/// `~`, `~user` as text; other tilde forms are unknown directories.
fn tilde(t: &TildeExpr) -> String {
    match t {
        TildeExpr::Home => "~".into(),
        TildeExpr::UserHome(u) => format!("~{u}"),
        _ => UNKNOWN.to_string(),
    }
}

/// The words a brace expression stands for (capped).
fn brace_alternatives(parts: &[BraceExpressionOrText]) -> Vec<String> {
    let mut acc = vec![String::new()];
    for part in parts {
        let options: Vec<String> = match part {
            BraceExpressionOrText::Text(t) => vec![t.clone()],
            BraceExpressionOrText::Expr(members) => members.iter().flat_map(member).collect(),
        };
        let mut next = Vec::new();
        for a in &acc {
            for o in &options {
                if next.len() >= MAX_BRACE_WORDS {
                    break;
                }
                next.push(format!("{a}{o}"));
            }
        }
        acc = next;
    }
    acc
}

fn member(m: &BraceExpressionMember) -> Vec<String> {
    match m {
        BraceExpressionMember::Child(parts) => brace_alternatives(parts),
        BraceExpressionMember::NumberSequence {
            start,
            end,
            increment,
        } => {
            let step = increment.unsigned_abs().max(1) as usize;
            let (lo, hi) = (*start.min(end), *start.max(end));
            (lo..=hi)
                .step_by(step)
                .take(MAX_BRACE_WORDS)
                .map(|n| n.to_string())
                .collect()
        }
        BraceExpressionMember::CharSequence {
            start,
            end,
            increment,
        } => {
            let step = increment.unsigned_abs().max(1) as usize;
            let (lo, hi) = ((*start).min(*end), (*start).max(*end));
            (lo..=hi)
                .step_by(step)
                .take(MAX_BRACE_WORDS)
                .map(String::from)
                .collect()
        }
    }
}

/// Decodes the body of `$'…'` (bash's ANSI-C quoting) and `printf`/`echo -e` escapes.
#[must_use]
pub fn decode_ansi_c(s: &str) -> String {
    let mut bytes = Vec::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0; 4];
            bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let Some(e) = chars.next() else {
            bytes.push(b'\\');
            break;
        };
        let simple = match e {
            'a' => Some(7),
            'b' => Some(8),
            'e' | 'E' => Some(27),
            'f' => Some(12),
            'n' => Some(b'\n'),
            'r' => Some(b'\r'),
            't' => Some(b'\t'),
            'v' => Some(11),
            '\\' | '\'' | '"' | '?' => Some(e as u8),
            _ => None,
        };
        if let Some(b) = simple {
            bytes.push(b);
            continue;
        }
        let (radix, max) = match e {
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            '0'..='7' => (8, 2),
            'c' => {
                if let Some(k) = chars.next() {
                    bytes.push((k as u8) & 0x1f);
                }
                continue;
            }
            _ => {
                bytes.push(b'\\');
                let mut buf = [0; 4];
                bytes.extend_from_slice(e.encode_utf8(&mut buf).as_bytes());
                continue;
            }
        };
        let mut digits = String::new();
        if radix == 8 {
            digits.push(e);
        }
        while digits.len() < max + usize::from(radix == 8) {
            match chars.peek() {
                Some(d) if d.is_digit(radix) => digits.push(chars.next().unwrap_or('0')),
                _ => break,
            }
        }
        let n = u32::from_str_radix(&digits, radix).unwrap_or(0);
        match e {
            'u' | 'U' => {
                let ch = char::from_u32(n).unwrap_or('\u{FFFD}');
                let mut buf = [0; 4];
                bytes.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            _ if digits.is_empty() => bytes.extend_from_slice(b"\\x"),
            _ => bytes.push((n & 0xff) as u8),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The program name of a command word: its last path component, lower-case, without `.exe`.
#[must_use]
pub fn command_name(word: &str) -> String {
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let lower = base.to_ascii_lowercase();
    lower.strip_suffix(".exe").unwrap_or(&lower).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_c_decodes_hex_octal_and_named_escapes() {
        assert_eq!(decode_ansi_c(r"\x72\x6d"), "rm");
        assert_eq!(decode_ansi_c(r"\162\155"), "rm");
        assert_eq!(decode_ansi_c(r"a\tb\n"), "a\tb\n");
        assert_eq!(decode_ansi_c(r"\u0072m"), "rm");
        assert_eq!(decode_ansi_c(r"\q"), r"\q");
    }

    fn fields(word: &str) -> Vec<String> {
        Eval::default()
            .expand(word)
            .into_iter()
            .map(|f| f.text)
            .collect()
    }

    #[test]
    fn quotes_are_removed_and_expansions_split() {
        assert_eq!(fields("r''m"), ["rm"]);
        assert_eq!(fields(r#""r"\m"#), ["rm"]);
        assert_eq!(fields("rm${IFS}-rf${IFS}/"), ["rm", "-rf", "/"]);
        assert_eq!(fields(r"$'\x72\x6d'"), ["rm"]);
        assert_eq!(fields("$(echo rm)"), ["rm"]);
        assert_eq!(fields("\"$(echo a b)\""), ["a b"]);
        assert_eq!(fields("$HOME/x"), ["~/x"]);
        assert_eq!(fields("/{,e}tc"), ["/tc", "/etc"]);
        assert_eq!(fields("\"\""), [""]);
        assert_eq!(fields("$NOPE"), [UNKNOWN.to_string()]);
    }

    #[test]
    fn quoted_glob_characters_are_escaped_in_the_pattern() {
        let f = Eval::default().expand("'*'x*");
        assert_eq!(f[0].text, "*x*");
        assert_eq!(f[0].pattern, r"\*x*");
        assert!(f[0].is_glob());
        assert!(!Eval::default().expand("'*'")[0].is_glob());
    }
}
