//! `kpty __attach-stream` on a host: a web console on another machine joins one of this
//! host's sessions ([`crate::remote::join`]). One request line on stdin, one reply line on
//! stdout, then the attach stream between stdin/stdout and the session's holder until either
//! ends.
//!
//! The host decides what the view may do: its client is always a web one (`web: true`, so
//! its keys pass the session's input filter here, whatever the console asked), only a
//! client's frames reach the holder, and the view is audited in this host's trail, where the
//! session lives: the join (`web_join`, marked as from a remote console), each typed line and
//! each blocked attempt (`web_write`), taking and handing back control (`web_control`: the
//! console's take-over notice, and its size withdrawn) and the leave (`web_leave`), with the
//! console's login.

use crate::api::{Params, SessionId};
use crate::core::Ctx;
use crate::core::attach::Attachment;
use crate::core::audit::{WEB_CONTROL, WEB_LEAVE, WEB_WRITE};
use crate::core::web_view::TypedLines;
use crate::error::{Error, ErrorCode, Result};
use crate::proto::attach::{self, Event, Frame, MAX_HISTORY};
use crate::remote::join::{JoinReply, JoinRequest, MAX_LINE, is_login_name};
use std::io::{BufRead, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex, mpsc};

/// `kpty __attach-stream`: serve one view; the exit code.
pub fn main() -> i32 {
    let mut line = String::new();
    let read = std::io::stdin().lock().take(MAX_LINE).read_line(&mut line);
    let joined = read
        .map_err(|e| Error::invalid(format!("no join request: {e}")))
        .and_then(|_| {
            serde_json::from_str::<JoinRequest>(&line)
                .map_err(|e| Error::invalid(format!("a join request kpty cannot read: {e}")))
        })
        .and_then(join);
    let (at, trail) = match joined {
        Ok(j) => j,
        Err(e) => {
            say(&JoinReply::Refused {
                error_code: crate::api::Open::Known(e.code),
                message: e.message,
            });
            return 1;
        }
    };
    say(&JoinReply::Joined {
        session_id: at.session_id.clone(),
        label: at.label.clone(),
        body: at.body.clone(),
    });
    relay(at.stream, trail);
    crate::core::audit::flush(std::time::Duration::from_millis(500));
    0
}

/// One JSON line on stdout.
fn say(reply: &JoinReply) {
    let mut out = std::io::stdout().lock();
    let _ = serde_json::to_writer(&mut out, reply);
    let _ = out.write_all(b"\n").and_then(|()| out.flush());
}

/// Open the session's attach stream as a web client, audited as `web_join`.
fn join(mut req: JoinRequest) -> Result<(Attachment, Arc<Mutex<Trail>>)> {
    let id = SessionId::parse(&req.session_id)?;
    if !is_login_name(&req.who) {
        return Err(Error::invalid("a console login name kpty cannot record"));
    }
    // The state directory a verb run here would use: `KPTY_STATE_DIR`, else the project's.
    let cwd = std::env::current_dir().map_err(|e| Error::internal(e.to_string()))?;
    let state = match super::args::env_value("KPTY_STATE_DIR") {
        Some(d) => crate::store::StateDir::at(d)?,
        None => crate::store::StateDir::discover(&cwd),
    };
    let ctx = Ctx::new(state)?.on(crate::core::Channel::Json { no_redact: false });
    // Whatever the console said: a browser's keys always pass this host's input filter.
    req.attach.web = true;
    req.attach.history = req.attach.history.min(MAX_HISTORY);
    req.attach.by = Some(format!("the web console of another machine ({})", req.who));
    let trail = Trail {
        ctx,
        session: id.as_str().to_string(),
        who: req.who.clone(),
        typed: TypedLines::default(),
        writing: false,
    };
    let p = trail.params(Some("read, from a web console on another machine".into()));
    let at = crate::core::web_view::join(&trail.ctx, &p, &req.attach)?;
    Ok((at, Arc::new(Mutex::new(trail))))
}

/// Carry the stream both ways until either side ends; then the leave is recorded.
fn relay(holder: UnixStream, trail: Arc<Mutex<Trail>>) {
    let (done, ended) = mpsc::channel::<()>();
    if let Ok(to_holder) = holder.try_clone() {
        let (done, trail) = (done.clone(), trail.clone());
        std::thread::spawn(move || {
            from_console(to_holder, &trail);
            let _ = done.send(());
        });
    }
    {
        let (done, trail) = (done.clone(), trail.clone());
        std::thread::spawn(move || {
            to_console(holder, &trail);
            let _ = done.send(());
        });
    }
    // Interrupted (the channel's caller went away): the leave is still recorded.
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        std::thread::spawn(move || {
            if signals.forever().next().is_some() {
                let _ = done.send(());
            }
        });
    }
    let _ = ended.recv();
    trail.lock().unwrap_or_else(|p| p.into_inner()).leave();
}

/// The console's frames to the holder (a client's kinds only), noted in the trail; then the
/// client leaves.
fn from_console(mut holder: UnixStream, trail: &Mutex<Trail>) {
    let mut input = std::io::stdin().lock();
    while let Ok(Some(f)) = attach::read(&mut input) {
        let mut t = trail.lock().unwrap_or_else(|p| p.into_inner());
        match &f {
            Frame::Input(keys) => t.typed(keys),
            // Control not recorded is control not taken: the view ends.
            Frame::Notice(_) if !t.control(true) => break,
            Frame::Notice(_) => {}
            Frame::Resize { cols: 0, rows: 0 } => {
                t.control(false);
            }
            Frame::Resize { .. } | Frame::Redraw => {}
            Frame::Detach => break,
            _ => continue,
        }
        drop(t);
        if attach::write(&mut holder, &f).is_err() {
            return;
        }
    }
    let _ = attach::write(&mut holder, &Frame::Detach);
}

/// The holder's frames to the console; a blocked attempt noted in the trail.
fn to_console(mut holder: UnixStream, trail: &Mutex<Trail>) {
    let mut out = std::io::stdout().lock();
    while let Ok(Some(f)) = attach::read(&mut holder) {
        if let Frame::Event(Event::Blocked { blocked, warning }) = &f {
            let mut t = trail.lock().unwrap_or_else(|p| p.into_inner());
            t.blocked(blocked, warning);
        }
        if attach::write(&mut out, &f).is_err() {
            return;
        }
    }
}

/// This view's records in the session's trail.
struct Trail {
    ctx: Ctx,
    session: String,
    who: String,
    /// Keys typed since the last record.
    typed: TypedLines,
    /// The console took control.
    writing: bool,
}

impl Trail {
    fn params(&self, data: Option<String>) -> Params {
        Params {
            session_id: Some(self.session.clone()),
            agent_id: Some(self.who.clone()),
            data,
            ..Default::default()
        }
    }

    /// Record `name`; false when it could not be (the audit failed).
    fn record(&self, name: &'static str, data: Option<String>, result: Result<()>) -> bool {
        let r = crate::core::audited_as(&self.ctx, name, &self.params(data), || result);
        match r {
            Err(e) if e.code != ErrorCode::InputBlocked => {
                tracing::warn!("remote console audit: {e}");
                false
            }
            _ => true,
        }
    }

    /// Keys typed: recorded by line (at each Enter, or when a line grows long).
    fn typed(&mut self, keys: &[u8]) {
        if let Some(line) = self.typed.push(keys) {
            self.record(WEB_WRITE, Some(line), Ok(()));
        }
    }

    fn flush(&mut self) {
        if let Some(line) = self.typed.take() {
            self.record(WEB_WRITE, Some(line), Ok(()));
        }
    }

    fn blocked(&mut self, blocked: &[String], warning: &str) {
        self.flush();
        let e = Error::input_blocked(blocked, warning);
        self.record(WEB_WRITE, Some(blocked.join(" ")), Err(e));
    }

    /// The console took control (`write`) or gave it back; false when that could not be
    /// recorded.
    fn control(&mut self, write: bool) -> bool {
        if self.writing == write {
            return true;
        }
        self.flush();
        self.writing = write;
        let data = if write { "write" } else { "read" };
        self.record(WEB_CONTROL, Some(data.into()), Ok(()))
    }

    fn leave(&mut self) {
        self.flush();
        self.record(WEB_LEAVE, None, Ok(()));
    }
}
