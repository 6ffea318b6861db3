//! Line editing as the shell sees it: an emulator of what a line editor makes of typed text.
//!
//! The dangerous-command check must judge the line the shell will *run*, not the text as
//! typed: `x\x7frm -rf /` (DEL), `echo safe\x15rm -rf /` (Ctrl-U) or `r\x16m` (Ctrl-V) all
//! reach the shell as a blocked command. An [`Editor`] replays typed characters the way one
//! of two editors would ([`Keymap`]) and hands over the lines it submits, the line still
//! being edited, and what a later Ctrl-Y would paste back.
//!
//! [`Keymap::Readline`] models GNU readline in emacs mode (bash; zsh's ZLE, fish and
//! PSReadLine bind the same basic keys): insert at the cursor; CR/LF submit (CR LF once);
//! Ctrl-H/DEL erase back; Ctrl-U kills to the line start (with text after the cursor the line
//! is also opaque: zsh kills the whole line), Ctrl-K to its end, Ctrl-W a
//! whitespace-delimited word back, Esc DEL/Esc Ctrl-H an alphanumeric word back, Esc d one
//! forward; consecutive kills accumulate and Ctrl-Y yanks them; Ctrl-T transposes; Ctrl-A/E/B/F,
//! Esc b/f, arrows, Home/End move; Ctrl-D and Delete delete forward (Ctrl-D on an empty line
//! is EOF); Ctrl-V inserts the next character literally; Esc c/l/u change a word's case;
//! Ctrl-C abandons the line; NUL (set-mark), Ctrl-G, Ctrl-L and unbound Esc+character
//! (readline rings the bell and drops both) change nothing; bracketed paste inserts its text.
//! Keys whose effect depends on state kpty cannot see — history, search, undo, completion
//! (Tab), Ctrl-X prefixes, numeric arguments, Ctrl-Z/Ctrl-\ (their signal flushes unread
//! input) and every escape sequence not listed — make the line *opaque* ([`Line::opaque`]).
//! A history move (arrows, Ctrl-P/N, Esc </>) replaces the line with an entry kpty cannot see:
//! the text is dropped and the line counts as unedited until a later key edits it.
//!
//! [`Keymap::Canonical`] models the kernel's canonical-mode line discipline alone (dash, a
//! program reading lines): DEL/Ctrl-H erase, Ctrl-U kills the line, Ctrl-W erases a word the
//! Linux way, Ctrl-V quotes, Ctrl-C/Ctrl-\/Ctrl-Z flush the line, Ctrl-D hands it over without
//! a newline; every other character, Esc and Tab included, is text. It never makes a line opaque.
//!
//! The work done per line is bounded: an input that would make the editor copy more than
//! [`WORK_LIMIT`] characters (e.g. kill/yank doubling) stops the replay and sets
//! [`Editor::gave_up`].

/// Which line editor reads the typed text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keymap {
    /// GNU readline, emacs mode.
    Readline,
    /// The kernel's canonical-mode line discipline, no editor above it.
    Canonical,
}

/// One line as the editor submits it (or holds it, for the pending line).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Line {
    /// The text; characters inserted literally (Ctrl-V, bracketed paste) are kept as they are.
    pub text: String,
    /// The first key on this line whose effect kpty cannot see, by name.
    pub opaque: Option<&'static str>,
    /// A key changed the text (insert, erase, kill, yank, transpose, case change).
    pub edited: bool,
}

/// Most characters moved (inserted, killed, yanked) per [`Editor::feed`] before giving up.
pub const WORK_LIMIT: usize = 1 << 25;

/// Longest line kept; a yank that would make it longer is dropped and the line made opaque.
pub const MAX_LINE_CHARS: usize = 1 << 21;

/// A line editor's state: the line, its cursor, the kill ring, any incomplete key sequence.
#[derive(Debug, Clone)]
pub struct Editor {
    keymap: Keymap,
    buf: Vec<char>,
    cursor: usize,
    kill: Vec<char>,
    last_was_kill: bool,
    opaque: Option<&'static str>,
    edited: bool,
    /// Esc Ctrl-J switched readline to vi mode: every line is opaque until `set -o emacs`.
    vi_mode: bool,
    /// The start of a key sequence cut off at the end of the last feed.
    partial: Vec<char>,
    /// The last feed ended on a CR: an LF first thing next time is the same Enter.
    after_cr: bool,
    work: usize,
    gave_up: bool,
}

/// What one key does.
#[derive(Debug, Clone, PartialEq)]
enum Key {
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
enum Case {
    Upper,
    Lower,
    Capitalize,
}

/// A key decoded at some position: the key and how many characters it takes, or `None` when
/// the text ends inside the sequence.
type Decoded = Option<(Key, usize)>;

const ESC: char = '\x1b';
const DEL: char = '\x7f';

/// Longest escape sequence parsed; a longer one is one opaque key.
const MAX_SEQ: usize = 32;

fn ctrl(c: char) -> char {
    char::from(c as u8 & 0x1f)
}

fn is_control(c: char) -> bool {
    c < ' ' || c == DEL
}

impl Editor {
    /// An empty line for `keymap`.
    #[must_use]
    pub fn new(keymap: Keymap) -> Self {
        Self {
            keymap,
            buf: Vec::new(),
            cursor: 0,
            kill: Vec::new(),
            last_was_kill: false,
            opaque: None,
            edited: false,
            vi_mode: false,
            partial: Vec::new(),
            after_cr: false,
            work: 0,
            gave_up: false,
        }
    }

    /// Type `text`; returns the lines it submits, in order.
    pub fn feed(&mut self, text: &str) -> Vec<Line> {
        let mut chars = std::mem::take(&mut self.partial);
        chars.extend(text.chars());
        let mut out = Vec::new();
        self.work = 0;
        let mut i = 0;
        if self.after_cr && chars.first() == Some(&'\n') {
            i = 1;
        }
        self.after_cr = false;
        while i < chars.len() {
            if self.gave_up {
                return out;
            }
            let decoded = match self.keymap {
                Keymap::Readline => readline_key(&chars, i),
                Keymap::Canonical => canonical_key(&chars, i),
            };
            let Some((key, len)) = decoded else {
                self.partial = chars[i..].to_vec();
                break;
            };
            if key == Key::Submit && chars.get(i) == Some(&'\r') {
                if chars.get(i + 1) == Some(&'\n') {
                    i += 1;
                } else if i + 1 == chars.len() {
                    self.after_cr = true;
                }
            }
            self.apply(key, &mut out);
            i += len;
        }
        out
    }

    /// The line being edited (not submitted yet), with any incomplete key sequence's
    /// characters appended as text.
    #[must_use]
    pub fn pending(&self) -> Line {
        let mut text: String = self.buf.iter().collect();
        text.extend(self.partial.iter().filter(|c| !is_control(**c)));
        Line {
            text,
            opaque: self.line_opaque(),
            edited: self.edited,
        }
    }

    /// Forget whether the line being edited was edited or made opaque so far (its text stays).
    pub fn forget_line_flags(&mut self) {
        self.opaque = None;
        self.edited = false;
    }

    /// What Ctrl-Y would insert now.
    #[must_use]
    pub fn kill_ring(&self) -> String {
        self.kill.iter().collect()
    }

    /// The input needed more work than [`WORK_LIMIT`]; what it does was not followed.
    #[must_use]
    pub fn gave_up(&self) -> bool {
        self.gave_up
    }

    fn line_opaque(&self) -> Option<&'static str> {
        self.opaque
            .or(self.vi_mode.then_some("Esc Ctrl-J (vi editing mode)"))
    }

    fn take_line(&mut self) -> Line {
        let text: String = self.buf.iter().collect();
        let mut opaque = self.line_opaque();
        if self.vi_mode && text.trim() == "set -o emacs" {
            self.vi_mode = false;
            opaque = self.opaque;
        }
        let line = Line {
            text,
            opaque,
            edited: self.edited,
        };
        self.clear_line();
        line
    }

    fn clear_line(&mut self) {
        self.buf.clear();
        self.cursor = 0;
        self.opaque = None;
        self.edited = false;
    }

    fn spend(&mut self, n: usize) -> bool {
        self.work = self.work.saturating_add(n);
        if self.work > WORK_LIMIT {
            self.gave_up = true;
        }
        !self.gave_up
    }

    fn make_opaque(&mut self, key: &'static str) {
        self.opaque.get_or_insert(key);
    }

    fn insert(&mut self, chars: &[char]) {
        if self.buf.len() + chars.len() > MAX_LINE_CHARS {
            self.make_opaque("a line longer than kpty follows");
            return;
        }
        if !self.spend(chars.len() + (self.buf.len() - self.cursor)) {
            return;
        }
        self.buf
            .splice(self.cursor..self.cursor, chars.iter().copied());
        self.cursor += chars.len();
    }

    /// Remove `from..to` into the kill ring (appended or prepended after another kill).
    fn kill_range(&mut self, from: usize, to: usize, backward: bool, was_kill: bool) {
        self.last_was_kill = true;
        if from >= to {
            return;
        }
        if !self.spend((to - from) + self.kill.len() + (self.buf.len() - to)) {
            return;
        }
        let cut: Vec<char> = self.buf.drain(from..to).collect();
        self.cursor = from;
        if !was_kill {
            self.kill = cut;
        } else if backward {
            self.kill.splice(0..0, cut);
        } else {
            self.kill.extend(cut);
        }
    }

    fn erase(&mut self, from: usize, to: usize) {
        if from < to && self.spend(self.buf.len() - from) {
            self.buf.drain(from..to);
            self.cursor = from;
        }
    }

    fn word_left(&self, from: usize) -> usize {
        let mut p = from;
        while p > 0 && !self.buf[p - 1].is_alphanumeric() {
            p -= 1;
        }
        while p > 0 && self.buf[p - 1].is_alphanumeric() {
            p -= 1;
        }
        p
    }

    fn word_right(&self, from: usize) -> usize {
        let mut p = from;
        while p < self.buf.len() && !self.buf[p].is_alphanumeric() {
            p += 1;
        }
        while p < self.buf.len() && self.buf[p].is_alphanumeric() {
            p += 1;
        }
        p
    }

    fn apply(&mut self, key: Key, out: &mut Vec<Line>) {
        let was_kill = std::mem::replace(&mut self.last_was_kill, false);
        let edits = !matches!(
            key,
            Key::Submit
                | Key::Eof
                | Key::Abandon
                | Key::Ignore
                | Key::Home
                | Key::End
                | Key::Left
                | Key::Right
                | Key::WordLeft
                | Key::WordRight
                | Key::Opaque(_)
                | Key::Recall(_)
                | Key::SubmitThenOpaque(_)
                | Key::ViMode
                | Key::EofOrDelete
        );
        if edits {
            self.edited = true;
        }
        let (len, cur) = (self.buf.len(), self.cursor);
        match key {
            Key::Insert(c) => self.insert(&[c]),
            Key::Paste(text) => {
                if text
                    .iter()
                    .any(|c| is_control(*c) && !matches!(c, '\r' | '\n' | '\t'))
                {
                    // A readline without bracketed paste would read these as editing keys.
                    self.make_opaque("a bracketed paste holding control keys");
                }
                let text: Vec<char> = text
                    .into_iter()
                    .map(|c| if c == '\r' { '\n' } else { c })
                    .collect();
                self.insert(&text);
            }
            Key::Submit => out.push(self.take_line()),
            Key::Eof => {
                if len > 0 {
                    out.push(self.take_line());
                }
            }
            Key::Abandon => self.clear_line(),
            Key::Ignore => {}
            Key::EraseBack => {
                if cur > 0 {
                    self.erase(cur - 1, cur);
                }
            }
            Key::DeleteForward => {
                if cur < len {
                    self.erase(cur, cur + 1);
                }
            }
            Key::EofOrDelete => {
                // On an empty line this is EOF: the shell (or a nested one) ends and what
                // follows goes to whoever reads next; carry on with a fresh line.
                if cur < len {
                    self.edited = true;
                    self.erase(cur, cur + 1);
                }
            }
            Key::KillToStart => {
                if cur < len {
                    // bash keeps the text after the cursor, zsh's Ctrl-U kills the whole line.
                    self.make_opaque("Ctrl-U with text after the cursor (shells differ)");
                }
                self.kill_range(0, cur, true, was_kill);
            }
            Key::KillToEnd => self.kill_range(cur, len, false, was_kill),
            Key::KillLine => self.kill_range(0, len, true, was_kill),
            Key::UnixWordRubout => {
                let mut p = cur;
                while p > 0 && matches!(self.buf[p - 1], ' ' | '\t') {
                    p -= 1;
                }
                while p > 0 && !matches!(self.buf[p - 1], ' ' | '\t') {
                    p -= 1;
                }
                self.kill_range(p, cur, true, was_kill);
            }
            Key::KernelWordErase => {
                let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
                let mut p = cur;
                while p > 0 && !word(self.buf[p - 1]) {
                    p -= 1;
                }
                while p > 0 && word(self.buf[p - 1]) {
                    p -= 1;
                }
                self.erase(p, cur);
            }
            Key::KillWordBack => {
                let p = self.word_left(cur);
                self.kill_range(p, cur, true, was_kill);
            }
            Key::KillWordForward => {
                let p = self.word_right(cur);
                self.kill_range(cur, p, false, was_kill);
            }
            Key::Yank => {
                let k = self.kill.clone();
                self.insert(&k);
            }
            Key::Transpose => {
                if cur > 0 && len >= 2 {
                    let p = if cur == len { cur - 1 } else { cur };
                    self.buf.swap(p - 1, p);
                    self.cursor = p + 1;
                }
            }
            Key::Home => self.cursor = 0,
            Key::End => self.cursor = len,
            Key::Left => self.cursor = cur.saturating_sub(1),
            Key::Right => self.cursor = (cur + 1).min(len),
            Key::WordLeft => self.cursor = self.word_left(cur),
            Key::WordRight => self.cursor = self.word_right(cur),
            Key::Case(case) => {
                let end = self.word_right(cur);
                let mut first = true;
                for c in &mut self.buf[cur..end] {
                    let upper = match case {
                        Case::Upper => true,
                        Case::Lower => false,
                        Case::Capitalize => c.is_alphanumeric() && std::mem::take(&mut first),
                    };
                    // Only ASCII changes length-safely here; the check ignores case anyway.
                    if upper {
                        c.make_ascii_uppercase();
                    } else {
                        c.make_ascii_lowercase();
                    }
                }
                self.cursor = end;
            }
            Key::Opaque(name) => self.make_opaque(name),
            Key::Recall(name) => {
                self.clear_line();
                self.make_opaque(name);
            }
            Key::SubmitThenOpaque(name) => {
                out.push(self.take_line());
                self.make_opaque(name);
            }
            Key::ViMode => {
                self.vi_mode = true;
                self.make_opaque("Esc Ctrl-J (vi editing mode)");
            }
        }
    }
}

/// A key that needs the next character (Ctrl-V's literal, a prefix's second key).
fn with_next(chars: &[char], i: usize, key: impl FnOnce(char) -> Key) -> Decoded {
    chars.get(i + 1).map(|&c| (key(c), 2))
}

/// Readline (emacs mode) at `chars[i]`.
fn readline_key(chars: &[char], i: usize) -> Decoded {
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
fn escape_key(chars: &[char], i: usize) -> Decoded {
    let next = *chars.get(i + 1)?;
    let key = match next {
        '[' => return csi_key(chars, i),
        'O' => {
            let k = match *chars.get(i + 2)? {
                'C' => Key::Right,
                'D' => Key::Left,
                'H' => Key::Home,
                'F' => Key::End,
                'A' | 'B' => Key::Recall("an Up/Down arrow (history)"),
                _ => Key::Opaque("a function key or escape sequence kpty does not model"),
            };
            return Some((k, 3));
        }
        ESC => Key::Opaque("Esc Esc (completion)"),
        '\x08' | DEL => Key::KillWordBack,
        '\x07' => Key::Ignore,
        '\n' | '\r' => Key::ViMode,
        c if is_control(c) => Key::Opaque("an Esc + control key"),
        c if !c.is_ascii() => Key::Opaque("an Esc + character kpty does not model"),
        c => match c.to_ascii_lowercase() {
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
        },
    };
    Some((key, 2))
}

/// Readline at `Esc [`: parameters, intermediates, a final byte.
fn csi_key(chars: &[char], i: usize) -> Decoded {
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
fn paste(chars: &[char], start: usize) -> Option<(Vec<char>, usize)> {
    const END: [char; 6] = [ESC, '[', '2', '0', '1', '~'];
    match chars[start..].windows(END.len()).position(|w| w == END) {
        Some(at) => Some((chars[start..start + at].to_vec(), at + END.len())),
        // Never ended: past the line limit, stop waiting and read the rest as typed.
        None if chars.len() - start > MAX_LINE_CHARS => Some((Vec::new(), 0)),
        None => None,
    }
}

/// The kernel's canonical mode at `chars[i]`.
fn canonical_key(chars: &[char], i: usize) -> Decoded {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Submitted lines' texts and the pending text under readline.
    fn rl(input: &str) -> (Vec<String>, String) {
        run(Keymap::Readline, input)
    }

    fn run(keymap: Keymap, input: &str) -> (Vec<String>, String) {
        let mut e = Editor::new(keymap);
        let lines = e.feed(input).into_iter().map(|l| l.text).collect();
        (lines, e.pending().text)
    }

    fn submitted(input: &str) -> Vec<String> {
        rl(input).0
    }

    fn opaque(input: &str) -> Option<&'static str> {
        let mut e = Editor::new(Keymap::Readline);
        let lines = e.feed(input);
        lines.iter().find_map(|l| l.opaque).or(e.pending().opaque)
    }

    #[test]
    fn plain_lines_cr_lf_and_crlf() {
        assert_eq!(submitted("ls\rpwd\ncd /\r\n"), ["ls", "pwd", "cd /"]);
        assert_eq!(rl("echo hi"), (vec![], "echo hi".into()));
        assert_eq!(submitted("\r\r"), ["", ""]);
    }

    #[test]
    fn crlf_split_across_feeds_is_one_enter() {
        let mut e = Editor::new(Keymap::Readline);
        assert_eq!(e.feed("ls\r").len(), 1);
        assert_eq!(e.feed("\npwd\r").len(), 1);
    }

    #[test]
    fn erase_keys() {
        assert_eq!(submitted("x\x7frm -rf /\r"), ["rm -rf /"]);
        assert_eq!(submitted("rm -rf /x\x08\r"), ["rm -rf /"]);
        assert_eq!(submitted("\x7f\x7fa\r"), ["a"]);
    }

    #[test]
    fn kill_keys() {
        assert_eq!(submitted("echo safe\x15rm -rf /\r"), ["rm -rf /"]);
        assert_eq!(submitted("echo rm -rf /\x01\x1bd\x04\r"), ["rm -rf /"]);
        assert_eq!(submitted("rm -rf /tmp\x0b\r"), ["rm -rf /tmp"]);
        assert_eq!(submitted("rm -rf /tmp\x02\x02\x02\x0b\r"), ["rm -rf /"]);
        assert_eq!(
            submitted("echo x; rm -rf /tmp/x\x17/\r"),
            ["echo x; rm -rf /"]
        );
        assert_eq!(submitted("rm -rf /tmp\x1b\x7f\r"), ["rm -rf /"]);
        assert_eq!(submitted("rm -rf /tmp\x1b\x08\r"), ["rm -rf /"]);
        // Ctrl-U kills back from the cursor only (in bash; zsh kills the whole line, so the
        // line is also opaque).
        assert_eq!(submitted("echo /\x02\x15rm -rf \r"), ["rm -rf /"]);
        assert!(opaque("xyz\x02\x15rm -rf /\r").is_some());
        assert_eq!(opaque("xyz\x15rm -rf /\r"), None);
    }

    #[test]
    fn yank_and_accumulated_kills() {
        assert_eq!(submitted("rm -rf /\x15\x19\r"), ["rm -rf /"]);
        assert_eq!(submitted("-rf /\x01\x0brm \x19\r"), ["rm -rf /"]);
        // Two backward kills in a row yank back as one, in order.
        assert_eq!(submitted("rm -rf /\x17\x17\x17\x19\r"), ["rm -rf /"]);
        let mut e = Editor::new(Keymap::Readline);
        e.feed("abc\x15");
        assert_eq!(e.kill_ring(), "abc");
        // The kill ring outlives the line.
        assert_eq!(e.feed("\x19\r")[0].text, "abc");
    }

    #[test]
    fn transpose_and_moves() {
        assert_eq!(submitted("mr\x14 -rf /\r"), ["rm -rf /"]);
        assert_eq!(submitted("mr -rf /\x01\x06\x14\r"), ["rm -rf /"]);
        assert_eq!(submitted("-rf /\x01rm \r"), ["rm -rf /"]);
        assert_eq!(
            submitted("rm -rf \x1b[D\x1b[D\x1b[C\x1b[C/\r"),
            ["rm -rf /"]
        );
        assert_eq!(submitted(" -rf /\x1b[Hrm\x1b[F\r"), ["rm -rf /"]);
        assert_eq!(submitted(" -rf /\x1bOHrm\x1bOF\r"), ["rm -rf /"]);
        assert_eq!(submitted(" -rf /\x1b[1~rm\x1b[4~\r"), ["rm -rf /"]);
        assert_eq!(submitted("rf /\x1bb\x1bb-\x01rm \r"), ["rm -rf /"]);
        assert_eq!(submitted("rm -rf /x\x1b[D\x1b[3~\r"), ["rm -rf /"]);
        assert_eq!(submitted("rm -rf /x\x02\x04\r"), ["rm -rf /"]);
    }

    #[test]
    fn literal_next_and_ignored_keys() {
        assert_eq!(submitted("r\x16m -rf /\r"), ["rm -rf /"]);
        assert_eq!(submitted("true;\x00rm -rf /\r"), ["true;rm -rf /"]);
        assert_eq!(submitted("r\x07m\x0c -rf /\r"), ["rm -rf /"]);
        assert_eq!(submitted("a\x16\x7fb\r"), ["a\x7fb"]);
        assert_eq!(submitted("a\x16\rb\r"), ["a\rb"]);
        // Unbound Esc + character: both dropped.
        assert_eq!(submitted("r\x1b:m\r"), ["rm"]);
    }

    #[test]
    fn ctrl_c_abandons_and_ctrl_d_on_empty_line_is_eof() {
        assert_eq!(
            rl("rm -rf\x03echo ok\r"),
            (vec!["echo ok".into()], String::new())
        );
        assert_eq!(submitted("\x04rm -rf /\r"), ["rm -rf /"]);
    }

    #[test]
    fn case_changes() {
        assert_eq!(submitted("rm\x01\x1bu\r"), ["RM"]);
        assert_eq!(submitted("RM\x01\x1bl\r"), ["rm"]);
        assert_eq!(submitted("rM\x01\x1bc\r"), ["Rm"]);
    }

    #[test]
    fn escape_sequences_do_not_leak_text() {
        assert_eq!(submitted("rm\x1b[1;5C -rf /\r"), ["rm -rf /"]);
        assert_eq!(
            opaque("rm\x1b[1;5C -rf /\r"),
            Some("an escape sequence kpty does not model")
        );
        assert_eq!(
            submitted("a\x1b[200~rm -rf /\rx\x1b[201~\r"),
            ["arm -rf /\nx"]
        );
        assert_eq!(opaque("a\x1b[200~rm -rf /\rx\x1b[201~\r"), None);
        assert!(opaque("\x1b[200~;rm -rf /x\x7f\x1b[201~\r").is_some());
    }

    #[test]
    fn opaque_keys() {
        for input in [
            "reboo\t\r",
            "\x1b[A\r",
            "\x1bOB\r",
            "\x10\r",
            "\x0e",
            "\x12rm\r",
            "\x13",
            "\x1f",
            "\x18\x15",
            "\x1b.",
            "\x1b_",
            "\x1b<",
            "\x1b>",
            "\x1br",
            "\x1by",
            "\x1b3\x7f",
            "\x1b?",
            "\x1b*",
            "\x1b\x1b",
            "\x1b\x05",
            "\x1d/",
            "\x1a",
            "\x1c",
            "\x1b[5~",
            "\x1b[2~",
            "\x1bOP",
            "\x1bt",
        ] {
            assert!(opaque(input).is_some(), "{input:?}");
        }
        for input in [
            "ls\r",
            "\x1b[D\x1b[C",
            "\x01\x05\x02\x06",
            "a\x1bb\x1bf",
            "\x03",
        ] {
            assert_eq!(opaque(input), None, "{input:?}");
        }
    }

    #[test]
    fn ctrl_o_submits_then_loads_history() {
        let mut e = Editor::new(Keymap::Readline);
        let lines = e.feed("ls\x0f");
        assert_eq!(lines[0].text, "ls");
        assert_eq!(lines[0].opaque, None);
        assert!(e.pending().opaque.is_some());
    }

    #[test]
    fn vi_mode_until_set_o_emacs() {
        let mut e = Editor::new(Keymap::Readline);
        let lines = e.feed("\x1b\nls\rset -o emacs\rpwd\r");
        let o: Vec<_> = lines.iter().map(|l| l.opaque.is_some()).collect();
        assert_eq!(o, [true, false, false]);
    }

    #[test]
    fn sequences_split_across_feeds() {
        let mut e = Editor::new(Keymap::Readline);
        e.feed("rm -rf /x\x1b");
        e.feed("[D\x1b[3");
        assert_eq!(e.feed("~\r")[0].text, "rm -rf /");
        e.feed("r\x16");
        assert_eq!(e.feed("m\r")[0].text, "rm");
        e.feed("\x1b[200~rm -rf");
        assert_eq!(e.pending().text, "[200~rm -rf");
        assert_eq!(e.feed(" /\x1b[201~\r")[0].text, "rm -rf /");
    }

    #[test]
    fn a_history_move_replaces_the_line() {
        let mut e = Editor::new(Keymap::Readline);
        let l = e.feed("2\x1b[B\r");
        assert_eq!((l[0].text.as_str(), l[0].edited), ("", false));
        assert!(l[0].opaque.is_some());
        let l = e.feed("\x1b[Ax\r");
        assert!(l[0].edited && l[0].opaque.is_some());
    }

    #[test]
    fn edited_flag() {
        let mut e = Editor::new(Keymap::Readline);
        let l = e.feed("\x1b[A\x1b[D\r");
        assert!(!l[0].edited);
        let l = e.feed("\x1b[A\x7f\r");
        assert!(l[0].edited && l[0].opaque.is_some());
    }

    #[test]
    fn canonical_mode() {
        let c = |s| run(Keymap::Canonical, s);
        assert_eq!(c("x\x7frm\r").0, ["rm"]);
        assert_eq!(c("a\tb\x1b[A\r").0, ["a\tb\x1b[A"]);
        assert_eq!(c("echo x\x15rm\r").0, ["rm"]);
        // Linux's word erase stops at a non-alphanumeric after a word.
        assert_eq!(c("rm -rf /tmp/x\x17\x17\r").0, ["rm -rf /"]);
        assert_eq!(c("rm -rf /x\x01\x7f\x7f\r").0, ["rm -rf /"]);
        assert_eq!(c("r\x16\x7fm\r").0, ["r\x7fm"]);
        assert_eq!(c("rm\x04 -rf /\r").0, ["rm", " -rf /"]);
        assert_eq!(c("rm -rf\x03ls\r").0, ["ls"]);
        let mut e = Editor::new(Keymap::Canonical);
        assert!(e.feed("\t\x12\x1b[A\r").iter().all(|l| l.opaque.is_none()));
    }

    #[test]
    fn runaway_yanks_give_up() {
        let mut e = Editor::new(Keymap::Readline);
        let input = format!("abcdefgh{}", "\x01\x0b\x19\x19".repeat(40));
        e.feed(&input);
        assert!(e.gave_up() || e.pending().opaque.is_some());
        assert!(e.pending().text.chars().count() <= MAX_LINE_CHARS);
    }
}
