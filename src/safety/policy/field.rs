//! One field (argument) after expansion, and the marks its text carries for what the
//! policy cannot know: the word model every analyser reads. A leaf: it imports no sibling.

/// Stands for a value the policy cannot know.
pub const UNKNOWN: char = '\u{FFFC}';

/// Stands for text downloaded by a command substitution (`$(curl …)`); also unknown.
pub const DOWNLOADED: char = '\u{FFF9}';

/// Separates the elements of an array or of `$@` inside one value: each is its own word,
/// quoted or not.
pub const ELEMENT: char = '\u{1F}';

/// One field (argument) after expansion.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Field {
    /// The text the command receives (unknown parts as [`UNKNOWN`]).
    pub text: String,
    /// The same text as a glob pattern: unquoted `*?[` are live, quoted ones escaped with `\`.
    pub pattern: String,
}

impl Field {
    /// A field with this literal text (no live glob characters).
    #[must_use]
    pub fn literal(text: &str) -> Self {
        let mut f = Field::default();
        f.push(text, true);
        f
    }

    pub(super) fn push(&mut self, s: &str, quoted: bool) {
        self.text.push_str(s);
        for c in s.chars() {
            if quoted && matches!(c, '*' | '?' | '[' | ']' | '\\') {
                self.pattern.push('\\');
            }
            self.pattern.push(c);
        }
    }

    /// Whether the pattern has live glob characters.
    #[must_use]
    pub fn is_glob(&self) -> bool {
        has_live_glob(&self.pattern)
    }

    /// Whether part of the value is unknown.
    #[must_use]
    pub fn has_unknown(&self) -> bool {
        self.text.contains(UNKNOWN)
    }
}

/// Whether a glob pattern has live `*`, `?` or `[` (not escaped with `\`).
#[must_use]
pub fn has_live_glob(pattern: &str) -> bool {
    let mut esc = false;
    for c in pattern.chars() {
        match c {
            _ if esc => esc = false,
            '\\' => esc = true,
            '*' | '?' | '[' => return true,
            _ => {}
        }
    }
    false
}
