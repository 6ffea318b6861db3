//! Keys as a line editor decodes them from typed text: readline's emacs bindings (control
//! keys, Esc-prefixed keys, CSI/SS3 sequences, bracketed paste) and the kernel's canonical
//! line discipline. [`super::lineedit::Editor`] applies them.

/// Longest line kept; a yank that would make it longer is dropped and the line made opaque.
pub(super) const MAX_LINE_CHARS: usize = 1 << 21;

/// What one key does.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Key {
    Insert(char),
    Paste(Vec<char>),
    Submit,
    /// Canonical Ctrl-D: hand the line over (nothing when it is empty).
    Eof,
    Abandon,
    Ignore,
    EraseBack,
    DeleteForward,
    /// Readline Ctrl-D: EOF on an empty line, else delete forward.
    EofOrDelete,
    KillToStart,
    KillToEnd,
    KillLine,
    /// Readline Ctrl-W: back to whitespace.
    UnixWordRubout,
    /// Kernel VWERASE: back over non-alphanumerics, then alphanumerics.
    KernelWordErase,
    KillWordBack,
    KillWordForward,
    Yank,
    Transpose,
    Home,
    End,
    Left,
    Right,
    WordLeft,
    WordRight,
    Case(Case),
    Opaque(&'static str),
    /// A history move: the line is replaced by an entry kpty cannot see (what was typed
    /// before no longer matters; edits after it do).
    Recall(&'static str),
    /// Ctrl-O: submit, then load the next history line.
    SubmitThenOpaque(&'static str),
    ViMode,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Case {
    Upper,
    Lower,
    Capitalize,
}

/// A key decoded at some position: the key and how many characters it takes, or `None` when
/// the text ends inside the sequence.
pub(super) type Decoded = Option<(Key, usize)>;

pub(super) const ESC: char = '\x1b';
pub(super) const DEL: char = '\x7f';

/// Longest escape sequence parsed; a longer one is one opaque key.
pub(super) const MAX_SEQ: usize = 32;

pub(super) fn ctrl(c: char) -> char {
    char::from(c as u8 & 0x1f)
}

pub(super) fn is_control(c: char) -> bool {
    c < ' ' || c == DEL
}

/// A key that needs the next character (Ctrl-V's literal, a prefix's second key).
pub(super) fn with_next(chars: &[char], i: usize, key: impl FnOnce(char) -> Key) -> Decoded {
    chars.get(i + 1).map(|&c| (key(c), 2))
}

/// Readline (emacs mode) at `chars[i]`.
pub(super) fn readline_key(chars: &[char], i: usize) -> Decoded {
    let c = chars[i];
    let key = match c {
        '\r' | '\n' => Key::Submit,
        '\0' => Key::Ignore,
        DEL => Key::EraseBack,
        ESC => return escape_key(chars, i),
        c if c == ctrl('v') => return with_next(chars, i, Key::Insert),
        // Quoted-insert in readline, or flow control the kernel swallows: the same for a
        // printable next character, not for a control one.
        c if c == ctrl('q') => {
            return with_next(chars, i, |n| {
                if is_control(n) {
                    Key::Opaque("Ctrl-Q + a control key")
                } else {
                    Key::Insert(n)
                }
            });
        }
        c if c == ctrl('x') => return with_next(chars, i, |_| Key::Opaque("a Ctrl-X prefix key")),
        c if c == ctrl(']') => {
            return with_next(chars, i, |_| Key::Opaque("Ctrl-] (character search)"));
        }
        c if c < ' ' => match char::from(c as u8 + b'@') {
            'A' => Key::Home,
            'B' => Key::Left,
            'C' => Key::Abandon,
            'D' => Key::EofOrDelete,
            'E' => Key::End,
            'F' => Key::Right,
            'G' | 'L' => Key::Ignore,
            'H' => Key::EraseBack,
            'I' => Key::Opaque("Tab (completion)"),
            'K' => Key::KillToEnd,
            'N' => Key::Recall("Ctrl-N (next history line)"),
            'O' => Key::SubmitThenOpaque("Ctrl-O (operate-and-get-next)"),
            'P' => Key::Recall("Ctrl-P (previous history line)"),
            'R' => Key::Opaque("Ctrl-R (history search)"),
            'S' => Key::Opaque("Ctrl-S (history search / flow control)"),
            'T' => Key::Transpose,
            'U' => Key::KillToStart,
            'W' => Key::UnixWordRubout,
            'Y' => Key::Yank,
            'Z' => Key::Opaque("Ctrl-Z (suspend; flushes unread input)"),
            '\\' => Key::Opaque("Ctrl-\\ (quit; flushes unread input)"),
            '_' => Key::Opaque("Ctrl-_ (undo)"),
            _ => Key::Opaque("a control key kpty does not model"),
        },
        c => Key::Insert(c),
    };
    Some((key, 1))
}

/// Readline at an Esc: a CSI or SS3 sequence, bracketed paste, or a meta key.
pub(super) fn escape_key(chars: &[char], i: usize) -> Decoded {
    let next = *chars.get(i + 1)?;
    let key = match next {
        '[' => return csi_key(chars, i),
        'O' => return ss3_key(chars, i),
        ESC => Key::Opaque("Esc Esc (completion)"),
        '\x08' | DEL => Key::KillWordBack,
        '\x07' => Key::Ignore,
        '\n' | '\r' => Key::ViMode,
        c if is_control(c) => Key::Opaque("an Esc + control key"),
        c if !c.is_ascii() => Key::Opaque("an Esc + character kpty does not model"),
        c => meta_key(c),
    };
    Some((key, 2))
}

/// Readline at `Esc O` (SS3): an arrow, Home or End in application mode.
fn ss3_key(chars: &[char], i: usize) -> Decoded {
    let k = match *chars.get(i + 2)? {
        'C' => Key::Right,
        'D' => Key::Left,
        'H' => Key::Home,
        'F' => Key::End,
        'A' | 'B' => Key::Recall("an Up/Down arrow (history)"),
        _ => Key::Opaque("a function key or escape sequence kpty does not model"),
    };
    Some((k, 3))
}

/// Readline's meta key: Esc and a printable ASCII character `c` (either case).
fn meta_key(c: char) -> Key {
    match c.to_ascii_lowercase() {
        'b' => Key::WordLeft,
        'f' => Key::WordRight,
        'd' => Key::KillWordForward,
        'u' => Key::Case(Case::Upper),
        'l' => Key::Case(Case::Lower),
        'c' => Key::Case(Case::Capitalize),
        ' ' => Key::Ignore,
        't' => Key::Opaque("Esc t (transpose words)"),
        'r' => Key::Opaque("Esc r (revert line)"),
        'y' => Key::Opaque("Esc y (yank-pop)"),
        '.' | '_' => Key::Opaque("Esc . / Esc _ (last argument from history)"),
        '<' | '>' => Key::Recall("Esc < / Esc > (first/last history line)"),
        'p' | 'n' => Key::Opaque("Esc p / Esc n (history search)"),
        '0'..='9' | '-' => Key::Opaque("Esc + digit (numeric argument)"),
        '?' | '*' | '=' | '/' | '~' | '$' | '@' | '!' | '{' | 'g' => {
            Key::Opaque("an Esc completion key")
        }
        '^' | '&' => Key::Opaque("an Esc expansion key"),
        '#' => Key::Opaque("Esc # (insert-comment)"),
        '\\' => Key::Opaque("Esc \\ (delete-horizontal-space)"),
        // Unbound: readline rings the bell and drops both characters.
        _ => Key::Ignore,
    }
}

/// Readline at `Esc [`: parameters, intermediates, a final byte.
pub(super) fn csi_key(chars: &[char], i: usize) -> Decoded {
    let mut j = i + 2;
    while j < chars.len() && j - i <= MAX_SEQ && ('0'..='?').contains(&chars[j]) {
        j += 1;
    }
    let params: String = chars[i + 2..j.min(chars.len())].iter().collect();
    while j < chars.len() && j - i <= MAX_SEQ && (' '..='/').contains(&chars[j]) {
        j += 1;
    }
    if j - i > MAX_SEQ {
        return Some((Key::Opaque("an over-long escape sequence"), j - i));
    }
    let fin = *chars.get(j)?;
    if !('@'..='~').contains(&fin) {
        // Not a well-formed sequence: the Esc [ prefix alone, the rest is read as typed.
        return Some((Key::Opaque("a malformed escape sequence"), 2));
    }
    let len = j + 1 - i;
    let key = match (params.as_str(), fin) {
        (_, 'A' | 'B') => Key::Recall("an Up/Down arrow (history)"),
        ("", 'C') => Key::Right,
        ("", 'D') => Key::Left,
        ("", 'H') | ("1", '~') => Key::Home,
        ("", 'F') | ("4", '~') => Key::End,
        ("3", '~') => Key::DeleteForward,
        ("200", '~') => return paste(chars, i + len).map(|(text, n)| (Key::Paste(text), len + n)),
        ("201", '~') => Key::Ignore,
        ("2", '~') => Key::Opaque("Insert (overwrite mode)"),
        ("5" | "6", '~') => Key::Recall("Page Up/Down (history)"),
        _ => Key::Opaque("an escape sequence kpty does not model"),
    };
    Some((key, len))
}

/// Bracketed paste from `start` to `Esc [ 201 ~`: the text and the characters taken.
pub(super) fn paste(chars: &[char], start: usize) -> Option<(Vec<char>, usize)> {
    const END: [char; 6] = [ESC, '[', '2', '0', '1', '~'];
    match chars[start..].windows(END.len()).position(|w| w == END) {
        Some(at) => Some((chars[start..start + at].to_vec(), at + END.len())),
        // Never ended: past the line limit, stop waiting and read the rest as typed.
        None if chars.len() - start > MAX_LINE_CHARS => Some((Vec::new(), 0)),
        None => None,
    }
}

/// The kernel's canonical mode at `chars[i]`.
pub(super) fn canonical_key(chars: &[char], i: usize) -> Decoded {
    let c = chars[i];
    let key = match c {
        '\r' | '\n' => Key::Submit,
        DEL => Key::EraseBack,
        c if c == ctrl('h') => Key::EraseBack,
        c if c == ctrl('u') => Key::KillLine,
        c if c == ctrl('w') => Key::KernelWordErase,
        c if c == ctrl('v') => return with_next(chars, i, Key::Insert),
        c if c == ctrl('c') || c == ctrl('\\') || c == ctrl('z') => Key::Abandon,
        c if c == ctrl('d') => Key::Eof,
        c if c == ctrl('s') || c == ctrl('q') || c == ctrl('r') || c == ctrl('o') => Key::Ignore,
        c => Key::Insert(c),
    };
    Some((key, 1))
}
