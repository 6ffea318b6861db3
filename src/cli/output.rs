//! Writing to the CLI's channels: stdout that ends quietly on a closed pipe (`| head`) and
//! passes the attach sanitiser on a terminal, JSON a line, error lines on stderr, and names
//! read from state shown with their control characters escaped. A leaf: every renderer of
//! the CLI writes through it.

use crate::error::Error;
use std::io::Write;

/// Write to stdout; a broken pipe ends the process quietly (exit 0), as ripgrep does. On a
/// terminal, session output (`read`, `talk`, `--follow` …) passes the attach sanitiser
/// ([`crate::safety::term_out`]): it cannot set the clipboard or make the terminal answer.
pub(super) fn out(bytes: &[u8]) {
    let shown = on_terminal(bytes);
    let bytes = shown.as_deref().unwrap_or(bytes);
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_all(bytes).and_then(|_| o.flush())
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        std::process::exit(0);
    }
}

/// `bytes` sanitised when stdout is a terminal (one sanitiser for the process, so a sequence
/// split between writes is judged whole); `None` when stdout is not a terminal.
fn on_terminal(bytes: &[u8]) -> Option<Vec<u8>> {
    use crate::safety::term_out::{Policy, TermOut};
    use std::io::IsTerminal;
    static TTY: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    static SANITISER: std::sync::Mutex<TermOut> = std::sync::Mutex::new(TermOut::new(Policy {
        allow_clipboard: false,
        own_screen: false,
    }));
    if !*TTY.get_or_init(|| std::io::stdout().is_terminal()) {
        return None;
    }
    let mut clean = Vec::with_capacity(bytes.len());
    SANITISER
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .feed(bytes, &mut clean);
    Some(clean)
}

/// Print a value as JSON on one line.
pub(super) fn print_json<T: serde::Serialize + ?Sized>(v: &T) {
    let mut s = serde_json::to_string(v).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    out(s.as_bytes());
}

/// `kpty: error[CODE]: message` on stderr.
pub(super) fn print_error(e: &Error) {
    eprintln!("kpty: error[{}]: {}", e.code, e.message);
}

/// `s` as a line on stdout (a newline added unless it ends with one); nothing when empty.
pub(super) fn text_line(s: &str) {
    if s.is_empty() {
        return;
    }
    if s.ends_with('\n') {
        out(s.as_bytes());
    } else {
        out(format!("{s}\n").as_bytes());
    }
}

/// `s` with control characters (C0, DEL, C1) shown as escapes: names and paths read from a
/// state directory (a cloned repository can ship one) must not drive the user's terminal.
pub(super) fn shown(s: &str) -> std::borrow::Cow<'_, str> {
    let is_ctl = |c: char| c.is_control();
    if !s.chars().any(is_ctl) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(
        s.chars()
            .map(|c| {
                if is_ctl(c) {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}
