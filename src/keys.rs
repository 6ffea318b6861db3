//! Named keys and chords in tmux's spelling (`Enter`, `C-c`, `M-b`, `S-Up`, `F5`, `PageUp` …)
//! and the bytes a terminal (xterm) sends for them: what `send_keys` types.
//!
//! A key is: an optional run of modifiers (`C-` Ctrl, `M-` Meta/Alt, `S-` Shift, any order,
//! either case; `^x` is `C-x`), then a key name (case-insensitive, as tmux reads them), a
//! single character, or a code `0xNN` (a character by its code point). The cursor keys, Home
//! and End without modifiers differ in the terminal's application cursor-key mode (DECCKM,
//! set by full-screen programs): [`Encoded`] holds both spellings and the holder, which
//! knows the mode, types the right one. A name kpty does not know, or a chord a terminal has
//! no code for (`C-Enter`, `C-1`), is an error: for an agent a typo (`Cntrl-c`) typed as text
//! would be worse than a refusal. Text goes in with `literal` (tmux's `send-keys -l`).

const ESC: &str = "\x1b";

/// Why a key cannot be typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyError {
    /// The key as given.
    pub key: String,
    /// What is wrong with it.
    pub reason: String,
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "key {:?}: {}", self.key, self.reason)
    }
}

impl std::error::Error for KeyError {}

/// The hint an unknown key name gets.
pub const KEY_HELP: &str = "a key is a tmux name (Enter, Tab, BTab, Space, BSpace, Escape, Up, \
Down, Left, Right, Home, End, PageUp/PgUp/PPage, PageDown/PgDn/NPage, Insert/IC, Delete/DC, \
F1-F12, KP0-KP9, KP/, KP*, KP-, KP+, KP., KPEnter), one character, or a code 0xNN, after \
modifiers C- (Ctrl), M- (Meta/Alt), S- (Shift) — e.g. C-c, M-b, S-Up; to type text, pass \
literal=true";

/// The bytes a sequence of keys types, in each cursor-key mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    /// Normal cursor-key mode (what a shell's prompt reads).
    pub normal: String,
    /// Application cursor-key mode (DECCKM set: vim, less …).
    pub app_cursor: String,
}

/// Modifiers of a chord.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Mods {
    ctrl: bool,
    meta: bool,
    shift: bool,
}

impl Mods {
    /// xterm's modifier parameter (`CSI 1 ; m A`): 1 + Shift 1 + Meta 2 + Ctrl 4.
    fn param(self) -> u8 {
        1 + u8::from(self.shift) + 2 * u8::from(self.meta) + 4 * u8::from(self.ctrl)
    }

    fn any(self) -> bool {
        self.ctrl || self.meta || self.shift
    }
}

/// A key without its modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    /// A cursor key, Home or End: its final byte (`A` … `D`, `H`, `F`).
    Cursor(char),
    /// F1-F4: their SS3 final byte (`P` … `S`).
    Pf(char),
    /// A `CSI n ~` key (F5-F12, Insert, Delete, PageUp, PageDown): `n`.
    Tilde(u8),
    /// Shift-Tab.
    BTab,
    /// A key that types one character (Enter, Tab, Space, BSpace, Escape, the keypad, a
    /// plain character).
    Char(char),
}

/// The names tmux gives keys (case-insensitive), with what each is.
const NAMES: &[(&str, Base)] = &[
    ("Enter", Base::Char('\r')),
    ("Tab", Base::Char('\t')),
    ("BTab", Base::BTab),
    ("Space", Base::Char(' ')),
    ("BSpace", Base::Char('\x7f')),
    ("Escape", Base::Char('\x1b')),
    ("Up", Base::Cursor('A')),
    ("Down", Base::Cursor('B')),
    ("Right", Base::Cursor('C')),
    ("Left", Base::Cursor('D')),
    ("Home", Base::Cursor('H')),
    ("End", Base::Cursor('F')),
    ("IC", Base::Tilde(2)),
    ("Insert", Base::Tilde(2)),
    ("DC", Base::Tilde(3)),
    ("Delete", Base::Tilde(3)),
    ("PPage", Base::Tilde(5)),
    ("PageUp", Base::Tilde(5)),
    ("PgUp", Base::Tilde(5)),
    ("NPage", Base::Tilde(6)),
    ("PageDown", Base::Tilde(6)),
    ("PgDn", Base::Tilde(6)),
    ("F1", Base::Pf('P')),
    ("F2", Base::Pf('Q')),
    ("F3", Base::Pf('R')),
    ("F4", Base::Pf('S')),
    ("F5", Base::Tilde(15)),
    ("F6", Base::Tilde(17)),
    ("F7", Base::Tilde(18)),
    ("F8", Base::Tilde(19)),
    ("F9", Base::Tilde(20)),
    ("F10", Base::Tilde(21)),
    ("F11", Base::Tilde(23)),
    ("F12", Base::Tilde(24)),
    ("KP/", Base::Char('/')),
    ("KP*", Base::Char('*')),
    ("KP-", Base::Char('-')),
    ("KP+", Base::Char('+')),
    ("KP.", Base::Char('.')),
    ("KPEnter", Base::Char('\r')),
    ("KP0", Base::Char('0')),
    ("KP1", Base::Char('1')),
    ("KP2", Base::Char('2')),
    ("KP3", Base::Char('3')),
    ("KP4", Base::Char('4')),
    ("KP5", Base::Char('5')),
    ("KP6", Base::Char('6')),
    ("KP7", Base::Char('7')),
    ("KP8", Base::Char('8')),
    ("KP9", Base::Char('9')),
];

/// The keys shell completion offers for `send-keys`: every key name, Ctrl and Meta with a
/// letter, and the modified cursor keys — each one `encode` accepts, and none with a
/// character a shell would read (`KP*` would glob).
pub fn completion_names() -> Vec<String> {
    let plain = |n: &&str| n.chars().all(|c| c.is_ascii_alphanumeric());
    let mut out: Vec<String> = NAMES
        .iter()
        .map(|(n, _)| *n)
        .filter(plain)
        .map(String::from)
        .collect();
    for m in ["C-", "M-"] {
        out.extend(('a'..='z').map(|c| format!("{m}{c}")));
    }
    for m in ["C-", "M-", "S-"] {
        for k in ["Up", "Down", "Left", "Right", "Home", "End"] {
            out.push(format!("{m}{k}"));
        }
    }
    out
}

/// The keys of a `send_keys` call as bytes: each element a key (an element of several
/// whitespace-separated words is that many keys; an element of one character, a space
/// included, is that character), or with `literal` each element typed as it is.
pub(crate) fn encode(keys: &[String], literal: bool) -> Result<Encoded, KeyError> {
    let mut out = Encoded {
        normal: String::new(),
        app_cursor: String::new(),
    };
    for element in keys {
        if literal {
            out.normal.push_str(element);
            out.app_cursor.push_str(element);
            continue;
        }
        let words: Vec<&str> = if element.chars().count() == 1 {
            vec![element.as_str()]
        } else {
            element.split_whitespace().collect()
        };
        if words.is_empty() {
            return Err(KeyError {
                key: element.clone(),
                reason: format!("an empty key; {KEY_HELP}"),
            });
        }
        for word in words {
            out.normal.push_str(&key_bytes(word, false)?);
            out.app_cursor.push_str(&key_bytes(word, true)?);
        }
    }
    Ok(out)
}

/// One key's bytes; `app_cursor`: the terminal is in application cursor-key mode.
fn key_bytes(key: &str, app_cursor: bool) -> Result<String, KeyError> {
    let err = |reason: String| KeyError {
        key: key.to_string(),
        reason,
    };
    let (mods, rest) = modifiers(key);
    let base = base(rest).ok_or_else(|| err(format!("not a key kpty knows; {KEY_HELP}")))?;
    chord(mods, base, app_cursor)
        .ok_or_else(|| err("a terminal has no code for this chord (it cannot be typed)".into()))
}

/// The modifiers at the start of a key (`C-`, `M-`, `S-`, `^`) and what follows them.
fn modifiers(key: &str) -> (Mods, &str) {
    let mut mods = Mods::default();
    let mut rest = key;
    if let Some(r) = rest.strip_prefix('^').filter(|r| !r.is_empty()) {
        mods.ctrl = true;
        rest = r;
    }
    loop {
        let b = rest.as_bytes();
        if b.len() < 3 || b[1] != b'-' {
            return (mods, rest);
        }
        match b[0].to_ascii_uppercase() {
            b'C' => mods.ctrl = true,
            b'M' => mods.meta = true,
            b'S' => mods.shift = true,
            _ => return (mods, rest),
        }
        rest = &rest[2..];
    }
}

/// A key name, a single character or a `0xNN` code.
fn base(name: &str) -> Option<Base> {
    if let Some((_, b)) = NAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
        return Some(*b);
    }
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Some(Base::Char(c));
    }
    let hex = name
        .strip_prefix("0x")
        .or_else(|| name.strip_prefix("0X"))?;
    let code = u32::from_str_radix(hex, 16).ok()?;
    char::from_u32(code).map(Base::Char)
}

/// A key with its modifiers, or `None` when a terminal has no code for the chord.
fn chord(mods: Mods, base: Base, app_cursor: bool) -> Option<String> {
    let m = mods.param();
    Some(match base {
        Base::Cursor(f) if !mods.any() && app_cursor => format!("{ESC}O{f}"),
        Base::Cursor(f) if !mods.any() => format!("{ESC}[{f}"),
        Base::Cursor(f) => format!("{ESC}[1;{m}{f}"),
        Base::Pf(f) if !mods.any() => format!("{ESC}O{f}"),
        Base::Pf(f) => format!("{ESC}[1;{m}{f}"),
        Base::Tilde(n) if !mods.any() => format!("{ESC}[{n}~"),
        Base::Tilde(n) => format!("{ESC}[{n};{m}~"),
        Base::BTab if !mods.ctrl => meta(mods, format!("{ESC}[Z")),
        Base::BTab => return None,
        Base::Char('\t') if mods.shift && !mods.ctrl => meta(mods, format!("{ESC}[Z")),
        Base::Char(c) => meta(mods, char_chord(mods, c)?.to_string()),
    })
}

/// Meta: Esc before the key.
fn meta(mods: Mods, s: String) -> String {
    if mods.meta { format!("{ESC}{s}") } else { s }
}

/// A character with Shift and Ctrl applied (Meta is the caller's): tmux's and the
/// terminal's control-key table, `None` where it has no entry.
fn char_chord(mods: Mods, c: char) -> Option<char> {
    let special = matches!(c, '\r' | '\t' | '\x1b' | '\x7f');
    let mut c = c;
    if mods.shift {
        if special || !c.is_alphabetic() {
            return None;
        }
        c = c
            .to_uppercase()
            .next()
            .filter(|_| c.to_uppercase().count() == 1)?;
    }
    if !mods.ctrl {
        return Some(c);
    }
    Some(match c {
        'a'..='z' => char::from(c as u8 - b'a' + 1),
        '@'..='_' => char::from(c as u8 - b'@'),
        ' ' => '\0',
        '?' => '\x7f',
        _ => return None,
    })
}

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
