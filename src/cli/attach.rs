//! `kpty attach`: a person joins a session's terminal, as with `tmux attach` or `dtach -a`.
//! The screen is redrawn from the holder's screen model, then output streams live; keys go to
//! the session (merged with every other writer) until the detach key. See
//! [`crate::proto::attach`] for the stream and [`super::rawmode`] for the terminal.
//!
//! The session's output is not trusted with the person's terminal: it passes
//! [`crate::safety::term_out`] (queries, clipboard, control strings dropped; titles and links
//! cleaned), and the person's keys pass [`crate::safety::term_in`] (replies of the terminal to
//! a query never reach the session as typed input).

use super::args::AttachArgs;
use super::rawmode::{self, RawMode};
use crate::core::Ctx;
use crate::core::attach::{Attachment, Target};
use crate::error::{Error, ErrorCode, Result};
use crate::proto::attach::{self, AttachRequest, Event, Frame};
use crate::safety::term_in::strip_replies;
use crate::safety::term_out::{Policy, TermOut};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The detach key when none is set: Ctrl-\ (as dtach and abduco).
const DEFAULT_DETACH_KEY: &str = "C-\\";
/// After the detach key, how long a second press may take to send the key through instead.
const SECOND_PRESS: Duration = Duration::from_millis(400);

/// How the attachment ended.
#[derive(Debug, Clone, PartialEq)]
enum End {
    /// The detach key.
    Detached,
    /// A signal to this process (its name, its number).
    Signal(&'static str, i32),
    /// The session's shell or program ended.
    Exited { code: i32, signal: Option<String> },
}

/// Run `kpty attach`; returns the exit code: 0 after detaching, the shell's exit code when
/// it ended, 128+n after signal n, 118 when the holder went away.
pub fn run(ctx: &Ctx, a: &AttachArgs) -> Result<i32> {
    let key = detach_key(a.detach_key.as_deref().unwrap_or(DEFAULT_DETACH_KEY))?;
    if !rawmode::stdin_is_terminal() {
        return Err(Error::invalid(
            "kpty attach needs a terminal on standard input; to follow a session's output from a script use `kpty read --follow` or `kpty term-read --follow`",
        ));
    }
    let (cols, rows) =
        rawmode::size().unwrap_or((crate::api::DEFAULT_COLS, crate::api::DEFAULT_ROWS));
    let req = AttachRequest {
        cols,
        rows,
        read_only: a.read_only,
        web: false,
        history: 0,
        offsets: false,
        resume: None,
        by: Some(match &a.session.agent {
            Some(agent) => format!("kpty attach as {agent}"),
            None => "kpty attach".into(),
        }),
    };
    let params = crate::api::Params {
        session_id: a.target.clone().or_else(|| a.session.named()),
        label: a.session.label.clone(),
        agent_id: a.session.agent.clone(),
        ..Default::default()
    };
    let at = match a.create.as_deref() {
        Some(label) => crate::core::attach::open(ctx, Target::CreateLabel(label), &req)?,
        None => crate::core::attach::open(ctx, Target::Named(&params), &req)?,
    };
    let name = match &at.label {
        Some(l) => format!("{} ({l})", at.session_id),
        None => at.session_id.clone(),
    };
    // Said once the terminal is raw, so keys pressed after it all go to the session.
    let banner = format!(
        "[kpty] attached to {name}, {}x{}{} — detach with {}; press it twice to send it\r\n",
        at.body.cols,
        at.body.rows,
        if a.read_only { ", read-only" } else { "" },
        key_name(key)
    );
    let policy = Policy {
        allow_clipboard: a.allow_clipboard,
        own_screen: true,
    };
    let end = stream(at, key, a.read_only, policy, &banner)?;
    Ok(match end {
        Some(End::Detached) => {
            eprintln!("[kpty] detached from {name}");
            0
        }
        Some(End::Signal(sig, n)) => {
            eprintln!("[kpty] detached from {name} ({sig})");
            128 + n
        }
        Some(End::Exited { code, signal }) => {
            match signal {
                Some(s) => eprintln!("[kpty] session {name} ended: its shell was killed by {s}"),
                None => eprintln!("[kpty] session {name} ended: its shell exited with {code}"),
            }
            code
        }
        None => {
            eprintln!("[kpty] lost session {name}: its holder went away");
            ErrorCode::PtyProcessExited.exit_code()
        }
    })
}

/// Stream until the end; the terminal is raw only inside.
fn stream(
    at: Attachment,
    key: u8,
    read_only: bool,
    policy: Policy,
    banner: &str,
) -> Result<Option<End>> {
    let io = |e: std::io::Error| Error::new(ErrorCode::PtyReadFailed, format!("attach: {e}"));
    let end: Arc<Mutex<Option<End>>> = Arc::new(Mutex::new(None));
    let mut inbound = at.stream;
    let outbound = Arc::new(Mutex::new(inbound.try_clone().map_err(io)?));
    // The signals are caught before the terminal turns raw: one that came in between would
    // end the process the default way and leave the terminal raw.
    let (done, finished) = std::sync::mpsc::channel::<()>();
    spawn_signals(outbound.clone(), end.clone(), finished).map_err(io)?;
    let _raw = RawMode::enter().map_err(io)?;
    eprint!("{banner}");
    let mut out = std::io::stdout().lock();
    out.write_all(rawmode::OWN_SCREEN.as_bytes()).map_err(io)?;
    let focus = Arc::new(AtomicBool::new(false));
    let (o, e, f) = (outbound.clone(), end.clone(), focus.clone());
    std::thread::spawn(move || keys(&o, &e, key, read_only, &f));
    let mut sanitiser = TermOut::new(policy);
    let mut clean = Vec::new();
    // The first output is the holder's redraw: its own screen switches ask for nothing.
    let mut redraw_next = true;
    loop {
        match attach::read(&mut inbound) {
            Ok(Some(Frame::Output(bytes))) => {
                clean.clear();
                sanitiser.feed(&bytes, &mut clean);
                focus.store(sanitiser.focus_reporting(), Ordering::Relaxed);
                if out.write_all(&clean).and_then(|_| out.flush()).is_err() {
                    break;
                }
                // The session went back to its main screen, which only the holder has.
                if sanitiser.take_redraw_request() && !std::mem::take(&mut redraw_next) {
                    let mut o = outbound.lock().unwrap_or_else(|p| p.into_inner());
                    if attach::write(&mut *o, &Frame::Redraw).is_err() {
                        break;
                    }
                }
                redraw_next = false;
            }
            // Bytes were skipped (or a redraw was asked for): a redraw follows, from the
            // ground state.
            Ok(Some(Frame::Event(Event::Resync { .. }))) => {
                sanitiser.reset();
                redraw_next = true;
            }
            Ok(Some(Frame::Event(Event::Exited { code, signal }))) => {
                set_end(&end, End::Exited { code, signal });
            }
            Ok(Some(Frame::Event(Event::Notice { text }))) => {
                if show_notice(&mut out, &text, &outbound).is_err() {
                    break;
                }
            }
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => break,
        }
    }
    drop(out);
    let _ = done.send(());
    let e = end.lock().unwrap_or_else(|p| p.into_inner()).clone();
    Ok(e)
}

/// How long a notice stays on the person's screen before the session's screen is drawn again.
const NOTICE_SHOWN: Duration = Duration::from_secs(3);

/// Show another client's notice (a web page took control) on the bottom row of the person's
/// terminal, in reverse video, the cursor and its attributes put back; after
/// [`NOTICE_SHOWN`] the holder is asked for a redraw, which covers it again.
fn show_notice(
    out: &mut impl Write,
    text: &str,
    outbound: &Arc<Mutex<UnixStream>>,
) -> std::io::Result<()> {
    let rows = rawmode::size().map_or(crate::api::DEFAULT_ROWS, |(_, r)| r);
    let text = attach::notice_text(text);
    write!(
        out,
        "\x1b7\x1b[{rows};1H\x1b[0;7m [kpty] {text} \x1b[0m\x1b[K\x1b8"
    )?;
    out.flush()?;
    let o = outbound.clone();
    std::thread::spawn(move || {
        // The notice's display time, not a wait for an event.
        std::thread::sleep(NOTICE_SHOWN);
        let mut s = o.lock().unwrap_or_else(|p| p.into_inner());
        let _ = attach::write(&mut *s, &Frame::Redraw);
    });
    Ok(())
}

/// Record how it ended (the first reason wins) and close the stream.
fn set_end(end: &Mutex<Option<End>>, why: End) {
    let mut e = end.lock().unwrap_or_else(|p| p.into_inner());
    if e.is_none() {
        *e = Some(why);
    }
}

/// Leave: tell the holder, and close the connection so the output loop ends.
fn detach(out: &Mutex<UnixStream>, end: &Mutex<Option<End>>, why: End) {
    set_end(end, why);
    let mut s = out.lock().unwrap_or_else(|p| p.into_inner());
    let _ = attach::write(&mut *s, &Frame::Detach);
    let _ = s.shutdown(std::net::Shutdown::Both);
}

/// Forward keystrokes until the detach key (pressed once) or the end of input; the
/// terminal's own answers are not keystrokes and stay out ([`strip_replies`]).
fn keys(
    out: &Mutex<UnixStream>,
    end: &Mutex<Option<End>>,
    key: u8,
    read_only: bool,
    focus: &AtomicBool,
) {
    let mut stdin = std::io::stdin().lock();
    let mut buf = [0u8; 4096];
    let send = |bytes: &[u8]| {
        if read_only || bytes.is_empty() {
            return true;
        }
        let mut s = out.lock().unwrap_or_else(|p| p.into_inner());
        attach::write(&mut *s, &Frame::Input(bytes.to_vec())).is_ok()
    };
    let mut pending_key = false;
    loop {
        let n = match crate::eintr::retry(|| stdin.read(&mut buf)) {
            Ok(0) | Err(_) => return detach(out, end, End::Detached),
            Ok(n) => n,
        };
        let typed = strip_replies(&buf[..n], focus.load(Ordering::Relaxed));
        let mut chunk: &[u8] = &typed;
        if chunk.is_empty() {
            continue;
        }
        if pending_key {
            // The key, then the key again: send it through.
            if chunk[0] != key {
                return detach(out, end, End::Detached);
            }
            pending_key = false;
            if !send(&[key]) {
                return;
            }
            chunk = &chunk[1..];
        }
        loop {
            let Some(i) = chunk.iter().position(|&b| b == key) else {
                if !send(chunk) {
                    return;
                }
                break;
            };
            if !send(&chunk[..i]) {
                return;
            }
            match chunk.get(i + 1) {
                Some(&b) if b == key => {
                    if !send(&[key]) {
                        return;
                    }
                    chunk = &chunk[i + 2..];
                }
                Some(_) => return detach(out, end, End::Detached),
                None if second_press_coming() => {
                    pending_key = true;
                    break;
                }
                None => return detach(out, end, End::Detached),
            }
        }
    }
}

/// Whether more input arrives within [`SECOND_PRESS`] (a window-size change meanwhile
/// does not cut the wait short).
fn second_press_coming() -> bool {
    use rustix::event::{PollFd, PollFlags};
    let stdin = std::io::stdin();
    let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
    let until = std::time::Instant::now() + SECOND_PRESS;
    matches!(crate::eintr::poll_until(&mut fds, until), Ok(n) if n > 0)
}

/// How long a signal waits for the output loop to finish before leaving without it (its
/// terminal may not be taking output: nobody reads it).
const LEAVE_GRACE: Duration = Duration::from_secs(1);

/// Window-size changes go to the holder; SIGTERM, SIGHUP and SIGINT detach (and end the
/// process after [`LEAVE_GRACE`] if the output loop is stuck writing to a terminal nobody
/// reads).
fn spawn_signals(
    out: Arc<Mutex<UnixStream>>,
    end: Arc<Mutex<Option<End>>>,
    finished: std::sync::mpsc::Receiver<()>,
) -> std::io::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    let (mut winch, mut term, mut hup, mut int) = {
        let _in = rt.enter();
        (
            signal(SignalKind::window_change())?,
            signal(SignalKind::terminate())?,
            signal(SignalKind::hangup())?,
            signal(SignalKind::interrupt())?,
        )
    };
    std::thread::spawn(move || {
        rt.block_on(async move {
            loop {
                let why = tokio::select! {
                    _ = winch.recv() => {
                        if let Some((cols, rows)) = rawmode::size() {
                            let mut s = out.lock().unwrap_or_else(|p| p.into_inner());
                            let _ = attach::write(&mut *s, &Frame::Resize { cols, rows });
                        }
                        continue;
                    }
                    _ = term.recv() => End::Signal("SIGTERM", 15),
                    _ = hup.recv() => End::Signal("SIGHUP", 1),
                    _ = int.recv() => End::Signal("SIGINT", 2),
                };
                let code = match why {
                    End::Signal(_, n) => 128 + n,
                    _ => 1,
                };
                detach(&out, &end, why);
                if finished.recv_timeout(LEAVE_GRACE).is_err() {
                    rawmode::restore_silently();
                    std::process::exit(code);
                }
                return;
            }
        });
    });
    Ok(())
}

/// The detach key's byte from its spelling: `C-\`, `C-]`, `C-a` … `C-z` (also `^\`, `^A`).
pub fn detach_key(spelled: &str) -> Result<u8> {
    let s = spelled.trim();
    let rest = s
        .strip_prefix("C-")
        .or_else(|| s.strip_prefix("c-"))
        .or_else(|| s.strip_prefix("Ctrl-"))
        .or_else(|| s.strip_prefix('^'));
    let byte = match rest.map(str::as_bytes) {
        Some([c]) if c.is_ascii_alphabetic() => c.to_ascii_lowercase() - b'a' + 1,
        Some([b'\\']) => 0x1c,
        Some([b']']) => 0x1d,
        Some([b'^']) => 0x1e,
        Some([b'_']) => 0x1f,
        _ => {
            return Err(Error::invalid(format!(
                "detach key {spelled:?} is not a control key: use C-\\, C-], C-^, C-_ or C-a … C-z"
            )));
        }
    };
    Ok(byte)
}

/// A key's name for the banner.
fn key_name(byte: u8) -> String {
    match byte {
        0x1c => "Ctrl-\\".into(),
        0x1d => "Ctrl-]".into(),
        0x1e => "Ctrl-^".into(),
        0x1f => "Ctrl-_".into(),
        b => format!("Ctrl-{}", char::from(b + b'A' - 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detach_keys_are_spelled_as_in_tmux_and_stty() {
        assert_eq!(detach_key("C-\\").unwrap(), 0x1c);
        assert_eq!(detach_key("^\\").unwrap(), 0x1c);
        assert_eq!(detach_key("C-]").unwrap(), 0x1d);
        assert_eq!(detach_key("C-a").unwrap(), 0x01);
        assert_eq!(detach_key("^G").unwrap(), 0x07);
        assert_eq!(detach_key("Ctrl-z").unwrap(), 0x1a);
        for bad in ["", "x", "C-", "C-ab", "C-1", "M-x", "Enter"] {
            assert!(detach_key(bad).is_err(), "{bad}");
        }
        assert_eq!(key_name(0x1c), "Ctrl-\\");
        assert_eq!(key_name(0x07), "Ctrl-G");
    }
}
