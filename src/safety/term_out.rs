//! What a session may print on a person's terminal (`kpty attach`): a streaming sanitiser
//! between the holder's output and the person's real terminal, as tmux stands between its
//! panes and the outer terminal.
//!
//! A program in a session is not trusted with the person's terminal. Left raw, its output
//! could set the person's clipboard (OSC 52), retitle the window or plant links (OSC 0/2/8),
//! program keys (DECUDK), or *ask the terminal questions* (DA, DSR, DECRQSS, XTGETTCAP, OSC 11
//! `?`, window reports …) whose answers the terminal types back into the session as if the
//! person had. [`TermOut`] parses the stream (its own state machine, after the DEC/xterm
//! parser: ground, escape, CSI, OSC, DCS/SOS/PM/APC strings, 8-bit C1) and passes on only:
//! - text and C0 controls (not ENQ, which asks for the answerback), UTF-8 as is; C1 controls
//!   (raw or UTF-8 encoded) are read as their 7-bit forms (U+009B as `ESC [` …), judged as
//!   such and written out in 7 bits;
//! - CSI sequences except queries and reports: DA1/2/3 (`c`), DSR/CPR requests (`n`), DECRQM
//!   (`$ p`), XTVERSION (`> q`), window operations and reports (`t`), kitty keyboard
//!   (`? u`, `> u`, `< u`, `= u`), key-modifier modes and queries (`> m`, `? m`), DECREQTPARM
//!   (`x`), XTSMGRAPHICS (`? S`), DECRQLP (`' |`), DECRQCRA (`* y`), DECRQDE (`" v`),
//!   DECRQPSR/DECRQTSR (`$ w`, `$ u`), XTREPORTCOLORS (`# R`), media copy (`i`);
//! - escape sequences except DECID (`ESC Z`, another DA request);
//! - OSC 0/1/2 titles with control characters removed and at most [`MAX_TITLE`] characters;
//!   OSC 8 links whose target is an `http`, `https`, `mailto` or `file` URI of printable
//!   ASCII, at most `MAX_URI` bytes (parameters other than `id` dropped); OSC 7 (working
//!   directory) and 133 (shell marks) of printable text; colour settings (OSC 4, 5, 10–19,
//!   104, 105, 110–119) but never a colour query (`?`); OSC 52 (clipboard) only with
//!   [`Policy::allow_clipboard`], and never its query (reading the clipboard);
//! - nothing of DCS, SOS, PM and APC strings (DECRQSS, XTGETTCAP, DECUDK, sixel, tmux
//!   passthrough, kitty graphics).
//!
//! Every kept sequence is written out whole and well-formed (a string ends with ST), so the
//! person's terminal is back in its ground state after each: a split between frames never
//! leaks a part. The state is bounded: a CSI longer than `MAX_CSI` or an OSC longer than
//! `MAX_OSC` is dropped while it is read, without being kept.

/// Longest CSI sequence kept (bytes after `ESC [`); a longer one is dropped.
const MAX_CSI: usize = 64;
/// Longest OSC kept (bytes after `ESC ]`); a longer one is dropped.
const MAX_OSC: usize = 4096;
/// Longest title passed on (characters).
pub const MAX_TITLE: usize = 256;
/// Longest hyperlink target passed on (bytes).
const MAX_URI: usize = 2048;

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;
const ENQ: u8 = 0x05;
const CAN: u8 = 0x18;
const SUB: u8 = 0x1a;
/// String terminator (`ESC \`), which every kept string is ended with.
const ST: &[u8] = b"\x1b\\";

/// What the person allowed the session to do to their terminal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Policy {
    /// Let OSC 52 set the clipboard (`kpty attach --allow-clipboard`); reading it never.
    pub allow_clipboard: bool,
    /// The client draws the session in the terminal's alternate screen for the whole
    /// attachment (as tmux does, so leaving brings the person's own screen back): the
    /// session's switches between its screens (DEC modes 47, 1047, 1049) are not passed on.
    /// Entering its alternate screen clears ours; leaving it clears ours too and asks for a
    /// redraw ([`TermOut::take_redraw_request`]), since only the holder has the screen the
    /// session goes back to.
    pub own_screen: bool,
}

/// DEC private modes that switch between the main and the alternate screen.
const SCREEN_MODES: [&[u8]; 3] = [b"47", b"1047", b"1049"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    #[default]
    Ground,
    /// After a UTF-8 lead byte 0xC2: the next byte may make a C1 control.
    AfterC2,
    Esc,
    /// `ESC` and intermediates (charset designations and the like).
    EscInter,
    Csi,
    /// A CSI too long or malformed: dropped up to its final byte.
    CsiDrop,
    Osc,
    /// An OSC too long: dropped up to its terminator.
    OscDrop,
    /// `ESC` inside an OSC: `\` ends it.
    OscEsc,
    /// A DCS, SOS, PM or APC string: dropped up to its terminator.
    StringDrop,
    StringEsc,
}

/// The streaming sanitiser of one attached terminal.
#[derive(Debug, Clone)]
pub struct TermOut {
    policy: Policy,
    state: State,
    /// The sequence being read (CSI parameters or OSC text), at most [`MAX_OSC`] bytes.
    buf: Vec<u8>,
    /// Whether the OSC being read was dropped for length (so its end is dropped too).
    osc_dropped: bool,
    /// Continuation bytes the UTF-8 character being written still wants.
    utf8_need: u8,
    /// The range the next continuation byte must be in.
    utf8_next: std::ops::RangeInclusive<u8>,
    /// The session turned focus reporting on (DEC mode 1004), as passed on.
    focus: bool,
    /// The session left its alternate screen under [`Policy::own_screen`]: a redraw is due.
    redraw: bool,
    /// Input bytes fed since the stream was last between characters and sequences.
    since_clean: usize,
    /// Output bytes written since then.
    out_since_clean: usize,
}

/// Where a stream cut now stands: what a sanitiser started afresh, fed the same stream from
/// a clean point, needs to carry on as this one ([`TermOut::unfinished`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Unfinished {
    /// Input bytes fed since the last clean point (between characters and sequences).
    pub input: usize,
    /// Of the output, the last bytes written since that point (a character or a sequence
    /// not finished yet).
    pub passed: usize,
}

impl TermOut {
    /// A sanitiser in the ground state.
    #[must_use]
    pub const fn new(policy: Policy) -> Self {
        Self {
            policy,
            state: State::Ground,
            buf: Vec::new(),
            osc_dropped: false,
            utf8_need: 0,
            utf8_next: 0x80..=0xbf,
            focus: false,
            redraw: false,
            since_clean: 0,
            out_since_clean: 0,
        }
    }

    /// How far the stream fed so far is from a clean point (between characters and
    /// sequences): a page that comes back from the offset before [`Unfinished::input`], to a
    /// sanitiser started afresh, gets every byte it lacks and none twice if it was not sent
    /// the last [`Unfinished::passed`] bytes of the output.
    #[must_use]
    pub fn unfinished(&self) -> Unfinished {
        Unfinished {
            input: self.since_clean,
            passed: self.out_since_clean,
        }
    }

    /// Whether the session left its alternate screen since the last call (under
    /// [`Policy::own_screen`]): the client should ask the holder for a redraw.
    pub fn take_redraw_request(&mut self) -> bool {
        std::mem::take(&mut self.redraw)
    }

    /// Back to the ground state, forgetting a sequence in progress (the stream was cut: a
    /// redraw follows).
    pub fn reset(&mut self) {
        self.state = State::Ground;
        self.buf.clear();
        self.osc_dropped = false;
        self.utf8_need = 0;
        self.since_clean = 0;
        self.out_since_clean = 0;
    }

    /// Whether the session has focus reporting on (so focus events from the person's
    /// terminal are keys it asked for, see [`super::term_in`]).
    #[must_use]
    pub fn focus_reporting(&self) -> bool {
        self.focus
    }

    /// How many bytes of a sequence in progress are kept (bounded by `MAX_OSC`).
    #[must_use]
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    /// Sanitises `input` (any split), appending what may reach the terminal to `out`.
    pub fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) {
        for &b in input {
            let before = out.len();
            self.byte(b, out);
            if self.state == State::Ground && self.utf8_need == 0 {
                self.since_clean = 0;
                self.out_since_clean = 0;
            } else {
                self.since_clean = self.since_clean.saturating_add(1);
                self.out_since_clean += out.len() - before;
            }
        }
    }

    fn byte(&mut self, b: u8, out: &mut Vec<u8>) {
        // Anywhere: CAN and SUB cancel a sequence, ESC starts a new one.
        if self.state != State::Ground && self.state != State::AfterC2 {
            match b {
                CAN | SUB => {
                    self.reset();
                    return;
                }
                ESC if !matches!(self.state, State::Osc | State::OscDrop | State::StringDrop) => {
                    self.buf.clear();
                    self.state = State::Esc;
                    return;
                }
                _ => {}
            }
        }
        match self.state {
            State::Ground => self.ground(b, out),
            State::AfterC2 => {
                self.state = State::Ground;
                match b {
                    0x80..=0x9f => self.c1(b, out), // U+0080..U+009F: a C1 control in UTF-8.
                    0xa0..=0xbf => out.extend_from_slice(&[0xc2, b]),
                    _ => {
                        out.push(0xc2);
                        self.ground(b, out);
                    }
                }
            }
            State::Esc => self.escape(b, out),
            State::EscInter => self.esc_inter(b, out),
            State::Csi => self.csi(b, out),
            State::CsiDrop => {
                if (0x40..=0x7e).contains(&b) {
                    self.state = State::Ground;
                } else if b < 0x20 {
                    out.push(b);
                }
            }
            State::Osc | State::OscDrop => self.osc(b, out),
            State::OscEsc => {
                // ESC ends the string either way; `\` is its terminator, anything else
                // starts the next sequence.
                self.osc_end(out);
                if b != b'\\' {
                    self.state = State::Esc;
                    self.escape(b, out);
                }
            }
            State::StringDrop => {
                if b == ESC {
                    self.state = State::StringEsc;
                }
            }
            State::StringEsc => {
                self.state = State::Ground;
                if b != b'\\' {
                    self.state = State::Esc;
                    self.escape(b, out);
                }
            }
        }
    }

    fn ground(&mut self, b: u8, out: &mut Vec<u8>) {
        if self.utf8_need > 0 {
            if self.utf8_next.contains(&b) {
                self.utf8_need -= 1;
                self.utf8_next = 0x80..=0xbf;
                out.push(b);
                return;
            }
            self.utf8_need = 0; // a broken character: read this byte afresh
        }
        match b {
            ESC => self.state = State::Esc,
            ENQ => {}
            0xc2 => self.state = State::AfterC2,
            // A lone byte that an 8-bit terminal reads as a C1 control.
            0x80..=0x9f => self.c1(b, out),
            0xc3..=0xdf => self.lead(1, b, out),
            0xe0..=0xef => self.lead(2, b, out),
            0xf0..=0xf4 => self.lead(3, b, out),
            _ => out.push(b),
        }
    }

    /// A UTF-8 lead byte wanting `need` continuation bytes (the first in the range UTF-8
    /// allows after it, so no overlong or surrogate form lets a C1 byte through).
    fn lead(&mut self, need: u8, b: u8, out: &mut Vec<u8>) {
        self.utf8_need = need;
        self.utf8_next = match b {
            0xe0 => 0xa0..=0xbf,
            0xed => 0x80..=0x9f,
            0xf0 => 0x90..=0xbf,
            0xf4 => 0x80..=0x8f,
            _ => 0x80..=0xbf,
        };
        out.push(b);
    }

    /// A C1 control (`0x80..=0x9F`, raw or as a UTF-8 character): read as its 7-bit form,
    /// `ESC` and `b - 0x40`, as a terminal that honours C1 would (avt's own redraw writes
    /// U+009B for a CSI in progress), and judged and written out as such.
    fn c1(&mut self, b: u8, out: &mut Vec<u8>) {
        self.state = State::Esc;
        self.escape(b - 0x40, out);
    }

    fn escape(&mut self, b: u8, out: &mut Vec<u8>) {
        self.buf.clear();
        self.state = State::Ground;
        match b {
            b'[' => self.state = State::Csi,
            b']' => {
                self.osc_dropped = false;
                self.state = State::Osc;
            }
            b'P' | b'X' | b'^' | b'_' => self.state = State::StringDrop,
            ESC => self.state = State::Esc,
            0x20..=0x2f => {
                self.buf.push(b);
                self.state = State::EscInter;
            }
            b'Z' => {} // DECID: a DA request.
            0x30..=0x7e => out.extend_from_slice(&[ESC, b]),
            0x00..=0x1f => {
                // A C0 control inside an escape is carried out; the escape goes on.
                if b != ENQ {
                    out.push(b);
                }
                self.state = State::Esc;
            }
            _ => {} // DEL and 8-bit bytes end it.
        }
    }

    fn esc_inter(&mut self, b: u8, out: &mut Vec<u8>) {
        match b {
            0x20..=0x2f if self.buf.len() < 4 => self.buf.push(b),
            0x30..=0x7e => {
                out.push(ESC);
                out.append(&mut self.buf);
                out.push(b);
                self.state = State::Ground;
            }
            0x00..=0x1f if b != ENQ => out.push(b),
            _ => self.reset(),
        }
    }

    fn csi(&mut self, b: u8, out: &mut Vec<u8>) {
        match b {
            0x20..=0x3f if self.buf.len() < MAX_CSI => self.buf.push(b),
            0x20..=0x3f => {
                self.buf.clear();
                self.state = State::CsiDrop;
            }
            b'h' | b'l' if self.policy.own_screen && self.switches_screen() => {
                self.screen_switch(b, out);
                self.reset();
            }
            0x40..=0x7e => {
                if csi_allowed(&self.buf, b) {
                    if let (Some(modes), b'h' | b'l') = (self.buf.strip_prefix(b"?"), b)
                        && modes.split(|&c| c == b';').any(|m| m == b"1004")
                    {
                        self.focus = b == b'h';
                    }
                    out.extend_from_slice(b"\x1b[");
                    out.extend_from_slice(&self.buf);
                    out.push(b);
                }
                self.reset();
            }
            0x00..=0x1f if b != ENQ => out.push(b),
            0x7f | ENQ => {}
            _ => self.reset(),
        }
    }

    /// Whether the DEC private mode sequence being read names a screen switch.
    fn switches_screen(&self) -> bool {
        self.buf.strip_prefix(b"?").is_some_and(|modes| {
            modes
                .split(|&c| c == b';')
                .any(|m| SCREEN_MODES.contains(&m))
        })
    }

    /// A `CSI ? … h|l` naming a screen switch, under [`Policy::own_screen`]: the other modes
    /// it sets are passed on; the switch becomes a cleared screen, and leaving the alternate
    /// screen a redraw request.
    fn screen_switch(&mut self, fin: u8, out: &mut Vec<u8>) {
        let rest: Vec<&[u8]> = self.buf[1..]
            .split(|&c| c == b';')
            .filter(|m| !m.is_empty() && !SCREEN_MODES.contains(m))
            .collect();
        if !rest.is_empty() {
            let mut params = b"?".to_vec();
            params.extend(rest.join(&b';'));
            if rest.contains(&&b"1004"[..]) {
                self.focus = fin == b'h';
            }
            if csi_allowed(&params, fin) {
                out.extend_from_slice(b"\x1b[");
                out.extend_from_slice(&params);
                out.push(fin);
            }
        }
        out.extend_from_slice(b"\x1b[H\x1b[2J");
        if fin == b'l' {
            self.redraw = true;
        }
    }

    fn osc(&mut self, b: u8, out: &mut Vec<u8>) {
        match b {
            BEL => self.osc_end(out),
            ESC => self.state = State::OscEsc,
            0x00..=0x1f => {} // ignored inside an OSC
            _ if self.state == State::OscDrop => {}
            _ if self.buf.len() < MAX_OSC => self.buf.push(b),
            _ => {
                self.buf.clear();
                self.osc_dropped = true;
                self.state = State::OscDrop;
            }
        }
    }

    /// The OSC is complete: pass on its sanitised form, or nothing.
    fn osc_end(&mut self, out: &mut Vec<u8>) {
        let body = std::mem::take(&mut self.buf);
        let dropped = std::mem::replace(&mut self.osc_dropped, false);
        self.state = State::Ground;
        if dropped {
            return;
        }
        if let Some(clean) = osc_allowed(&body, self.policy) {
            out.extend_from_slice(b"\x1b]");
            out.extend_from_slice(&clean);
            out.extend_from_slice(ST);
        }
    }
}

/// Whether a CSI sequence (`params`: parameter and intermediate bytes; `fin`: its final
/// byte) may reach the terminal: everything but queries, reports and keyboard modes.
///
/// Read fail-closed: a private marker (`<=>?`) or an intermediate (`SP`–`/`) counts wherever
/// it stands and whatever stands beside it, so `CSI SP $ u` is judged as `CSI $ u` — a
/// terminal that reads more leniently than the standard must not be handed a query.
fn csi_allowed(params: &[u8], fin: u8) -> bool {
    let marks: Vec<u8> = params
        .iter()
        .copied()
        .filter(|c| b"<=>?".contains(c))
        .collect();
    let inter: Vec<u8> = params
        .iter()
        .copied()
        .filter(|c| (0x20..=0x2f).contains(c))
        .collect();
    let has = |set: &[u8], c: u8| set.contains(&c);
    let query = match fin {
        // Device attributes (DA1, DA2, DA3), device status (DSR, CPR), window operations
        // (reports and resizing the person's window), media copy.
        b'c' | b'n' | b't' | b'i' => true,
        // DECRQM, DECRQPSR.
        b'p' | b'w' => has(&inter, b'$'),
        // XTVERSION.
        b'q' => has(&marks, b'>'),
        // Kitty keyboard (query, push, pop, set); DECRQTSR.
        b'u' => !marks.is_empty() || has(&inter, b'$'),
        // Key modifier modes (XTMODKEYS) and their query: not SGR.
        b'm' => !marks.is_empty(),
        b'x' => marks.is_empty() && inter.is_empty(), // DECREQTPARM
        b'S' => has(&marks, b'?'),                    // XTSMGRAPHICS
        b'|' => has(&inter, b'\''),                   // DECRQLP
        b'y' => has(&inter, b'*'),                    // DECRQCRA
        b'v' => has(&inter, b'"'),                    // DECRQDE
        b'R' => has(&inter, b'#'),                    // XTREPORTCOLORS
        _ => false,
    };
    !query
}

/// An OSC's body as it may be passed on (sanitised), or `None` to drop it.
fn osc_allowed(body: &[u8], policy: Policy) -> Option<Vec<u8>> {
    let (num, rest) = match body.iter().position(|&c| c == b';') {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (body, &b""[..]),
    };
    let num: u32 = std::str::from_utf8(num).ok()?.parse().ok()?;
    // Passed on with its number as digits without leading zeros (`04` is 4 to a terminal,
    // but not to every reader of our output).
    let canon = || match body.iter().position(|&c| c == b';') {
        Some(_) => [format!("{num};").as_bytes(), rest].concat(),
        None => num.to_string().into_bytes(),
    };
    let printable = |s: &[u8]| s.iter().all(|c| (0x20..0x7f).contains(c));
    let is_query = |s: &[u8]| s.split(|&c| c == b';').any(|f| f == b"?");
    match num {
        0..=2 => {
            let title: String = String::from_utf8_lossy(rest)
                .chars()
                .filter(|c| !c.is_control() && !is_bidi_control(*c))
                .take(MAX_TITLE)
                .collect();
            Some(format!("{num};{title}").into_bytes())
        }
        8 => hyperlink(rest).map(|l| [b"8;".as_slice(), &l].concat()),
        52 if policy.allow_clipboard => clipboard(rest).map(|c| [b"52;".as_slice(), c].concat()),
        4 | 5 | 10..=19 | 104 | 105 | 110..=119 if printable(rest) && !is_query(rest) => {
            Some(canon())
        }
        7 | 133 if printable(rest) && rest.len() <= MAX_URI => Some(canon()),
        _ => None,
    }
}

/// Bidirectional overrides and isolates, which make a title read other than it is.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

/// OSC 8 `params;uri`: `id=` kept (word characters), other parameters dropped; the URI
/// printable ASCII of a known scheme and at most [`MAX_URI`] bytes, or empty (the link's end).
fn hyperlink(rest: &[u8]) -> Option<Vec<u8>> {
    let i = rest.iter().position(|&c| c == b';')?;
    let (params, uri) = (&rest[..i], &rest[i + 1..]);
    let id = params.split(|&c| c == b':').find_map(|p| {
        let v = p.strip_prefix(b"id=")?;
        let ok = !v.is_empty()
            && v.len() <= 64
            && v.iter()
                .all(|c| c.is_ascii_alphanumeric() || b"_.-".contains(c));
        ok.then_some(p)
    });
    if !uri.is_empty() {
        let graphic = uri.iter().all(|c| (0x21..0x7f).contains(c));
        let uri_s = std::str::from_utf8(uri).ok()?.to_ascii_lowercase();
        let scheme = ["http://", "https://", "mailto:", "file://"]
            .iter()
            .any(|s| uri_s.starts_with(s));
        if !graphic || !scheme || uri.len() > MAX_URI {
            return None;
        }
    }
    Some([id.unwrap_or_default(), b";", uri].concat())
}

/// OSC 52 `selection;base64`: set only (a `?` reads the clipboard back into the session).
fn clipboard(rest: &[u8]) -> Option<&[u8]> {
    let i = rest.iter().position(|&c| c == b';')?;
    let (sel, data) = (&rest[..i], &rest[i + 1..]);
    let sel_ok = sel.iter().all(|c| b"cpqs01234567".contains(c));
    let data_ok = data
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || b"+/=".contains(c));
    (sel_ok && data_ok).then_some(rest)
}

#[cfg(test)]
#[path = "term_out_tests.rs"]
mod tests;
