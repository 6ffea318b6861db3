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
//! `WORK_LIMIT` characters (e.g. kill/yank doubling) stops the replay and sets
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
const WORK_LIMIT: usize = 1 << 25;

/// A line editor's state: the line, its cursor, the kill ring, any incomplete key sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
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

use super::keys::*;

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

    /// How many characters the editor holds (the line, an incomplete key sequence, the kill
    /// ring): what a clone or a look at the line costs, without building anything.
    #[must_use]
    pub fn chars_held(&self) -> usize {
        self.buf.len() + self.partial.len() + self.kill.len()
    }

    /// The input needed more work than `WORK_LIMIT`; what it does was not followed.
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

    /// Apply one decoded key: note whether it edits the line, then hand it to its family.
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
        match key {
            Key::Insert(_)
            | Key::Paste(_)
            | Key::Submit
            | Key::Eof
            | Key::Abandon
            | Key::Ignore => {
                self.apply_line_key(key, out);
            }
            Key::EraseBack
            | Key::DeleteForward
            | Key::EofOrDelete
            | Key::KillToStart
            | Key::KillToEnd
            | Key::KillLine
            | Key::UnixWordRubout
            | Key::KernelWordErase
            | Key::KillWordBack
            | Key::KillWordForward => self.apply_erase(key, was_kill),
            Key::Yank | Key::Transpose | Key::Case(_) => self.apply_rewrite(key),
            Key::Home | Key::End | Key::Left | Key::Right | Key::WordLeft | Key::WordRight => {
                self.apply_move(&key);
            }
            Key::Opaque(_) | Key::Recall(_) | Key::SubmitThenOpaque(_) | Key::ViMode => {
                self.apply_unseen(key, out);
            }
        }
    }

    /// Insertion, paste, submitting and abandoning the line.
    fn apply_line_key(&mut self, key: Key, out: &mut Vec<Line>) {
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
            Key::Eof if !self.buf.is_empty() => out.push(self.take_line()),
            Key::Abandon => self.clear_line(),
            _ => {}
        }
    }

    /// Erasing and killing: by character, word or to either end of the line.
    fn apply_erase(&mut self, key: Key, was_kill: bool) {
        let (len, cur) = (self.buf.len(), self.cursor);
        match key {
            Key::EraseBack if cur > 0 => self.erase(cur - 1, cur),
            Key::DeleteForward if cur < len => self.erase(cur, cur + 1),
            // On an empty line this is EOF: the shell (or a nested one) ends and what
            // follows goes to whoever reads next; carry on with a fresh line.
            Key::EofOrDelete if cur < len => {
                self.edited = true;
                self.erase(cur, cur + 1);
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
            _ => {}
        }
    }

    /// Yank, transpose and case changes: text rewritten in place.
    fn apply_rewrite(&mut self, key: Key) {
        let (len, cur) = (self.buf.len(), self.cursor);
        match key {
            Key::Yank => {
                let k = self.kill.clone();
                self.insert(&k);
            }
            Key::Transpose if cur > 0 && len >= 2 => {
                let p = if cur == len { cur - 1 } else { cur };
                self.buf.swap(p - 1, p);
                self.cursor = p + 1;
            }
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
            _ => {}
        }
    }

    /// Cursor moves: the text stays as it is.
    fn apply_move(&mut self, key: &Key) {
        let (len, cur) = (self.buf.len(), self.cursor);
        self.cursor = match key {
            Key::Home => 0,
            Key::End => len,
            Key::Left => cur.saturating_sub(1),
            Key::Right => (cur + 1).min(len),
            Key::WordLeft => self.word_left(cur),
            Key::WordRight => self.word_right(cur),
            _ => cur,
        };
    }

    /// Keys whose effect kpty cannot see: opaque keys, history recalls, vi mode.
    fn apply_unseen(&mut self, key: Key, out: &mut Vec<Line>) {
        match key {
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
            _ => {}
        }
    }
}

#[cfg(test)]
#[path = "lineedit_tests.rs"]
mod tests;
