//! The person's terminal during `kpty attach`: raw mode on and the session drawn in the
//! alternate screen, and put back as tmux leaves it — the person's own screen and cursor
//! back — on detach, on a signal, when the holder goes away, and on a panic.

use rustix::termios::{self, OptionalActions, Termios};
use std::io::Write;
use std::sync::Mutex;

/// The modes to put back, for the panic hook.
static SAVED: Mutex<Option<Termios>> = Mutex::new(None);

/// Entering the attachment: save the cursor and draw in the alternate screen, so leaving it
/// brings the person's own screen back (tmux's `smcup`).
pub const OWN_SCREEN: &str = "\x1b[?1049h";

/// Modes a program in the session may have set on the terminal, turned off again on leaving:
/// cursor shown, mouse and focus reports, bracketed paste, normal cursor and keypad keys, no
/// scroll region, no origin mode, autowrap on — while still in the alternate screen, since
/// resetting the scroll region or origin mode homes the cursor — then the main screen with
/// the cursor saved on entering, attributes reset, and the cursor's line cleared from its
/// start, so what kpty says next is on a line of its own (also on a terminal without an
/// alternate screen).
const RESET_MODES: &str = "\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\
     \x1b[?1006l\x1b[?1015l\x1b[?1004l\x1b[?2004l\x1b[?1l\x1b>\x1b[r\x1b[?6l\x1b[?7h\
     \x1b[?1049l\x1b[0m\r\x1b[K";

/// Raw mode on standard input while this lives.
pub struct RawMode {
    saved: Termios,
}

impl RawMode {
    /// Save standard input's modes and make it raw (no echo, no line editing, no signals from
    /// keys: every key goes to the session).
    pub fn enter() -> std::io::Result<Self> {
        let stdin = std::io::stdin();
        let saved = termios::tcgetattr(&stdin)?;
        let mut raw = saved.clone();
        raw.make_raw();
        *SAVED.lock().unwrap_or_else(|p| p.into_inner()) = Some(saved.clone());
        install_panic_hook();
        termios::tcsetattr(&stdin, OptionalActions::Now, &raw)?;
        Ok(Self { saved })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        restore(&self.saved);
        *SAVED.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// Put the terminal's modes back, reset what the session may have switched on, and bring
/// the person's own screen back.
fn restore(saved: &Termios) {
    let _ = termios::tcsetattr(std::io::stdin(), OptionalActions::Now, saved);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(RESET_MODES.as_bytes());
    let _ = out.flush();
}

/// A panic anywhere during attach leaves the terminal usable (the hook runs before unwinding,
/// and also when panics abort).
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if let Some(saved) = SAVED.lock().unwrap_or_else(|p| p.into_inner()).take() {
                restore(&saved);
            }
            previous(info);
        }));
    });
}

/// Put the terminal's modes back without writing to it: for leaving while the terminal does
/// not take output (nobody reads it); what is still queued for it is discarded.
pub fn restore_silently() {
    if let Some(saved) = SAVED.lock().unwrap_or_else(|p| p.into_inner()).take() {
        let _ = termios::tcflush(std::io::stdout(), termios::QueueSelector::OFlush);
        let _ = termios::tcsetattr(std::io::stdin(), OptionalActions::Now, &saved);
    }
}

/// Standard input's terminal size, when it is a terminal.
pub fn size() -> Option<(u16, u16)> {
    let ws = termios::tcgetwinsize(std::io::stdin()).ok()?;
    (ws.ws_col > 0 && ws.ws_row > 0).then_some((ws.ws_col, ws.ws_row))
}

/// Whether standard input is a terminal.
pub fn stdin_is_terminal() -> bool {
    termios::isatty(std::io::stdin())
}
