//! The console's terminal view: `/console/ws/session/<id>` joins the session as one more
//! attached client of its holder (the attach stream of [`crate::proto::attach`], as a web
//! client: its keys pass the session's input filter), and carries it to the page's xterm.js.
//! A session on a host kpty knows (`HOST:ID`) is joined there, over that host's channel
//! (`remote.rs`): the same view over another stream, audited in the host's trail.
//!
//! The page starts **read-only**: its keys reach nothing until it asks to write (`"write"`,
//! the "Take control" button), which takes writing over from any other page writing to that
//! session (told so, and back to reading); `"read"` hands it back. Only a writing page's size
//! counts toward the terminal's (a person watching never resizes an agent's terminal).
//!
//! The session's output passes [`TermOut`] (queries, clipboard, control strings dropped), so
//! the browser's terminal never answers the session; keys pass [`strip_replies`] all the same.
//! A page that reads slowly never holds the terminal up: the holder resynchronises its client
//! with a redraw, as for `kpty attach`. Joins, leaves, taking control and every key typed go
//! to the session's audit trail, by line, with the login that did it (`web:<login>`).
//!
//! Page → server (JSON text): `{"type":"input","data":…}`, `{"type":"write"}`,
//! `{"type":"read"}`, `{"type":"resize","cols":…,"rows":…}`, `{"type":"redraw"}`. Server →
//! page: terminal output as binary messages, and JSON text: `joined`, `mode`, `size`,
//! `resync`, `offset`, `blocked`, `exited`, `error` (`ToPage`).
//!
//! **Coming back.** Each binary message starts with 8 bytes (big-endian): the offset of the
//! session's output the page has everything before, once it has this message — or all ones
//! while that is not known (the scrollback and redraw sent on joining, until `offset` says
//! where they leave the page). A page whose connection drops opens the socket again with
//! `?from=OFFSET`; while the holder still has the output from there, the page is sent just
//! what it missed and `joined` says `resumed: true` (its terminal stays as it was), else it
//! gets the scrollback and the screen afresh. The offset is taken where the output sanitiser
//! stands between characters and sequences, and a character not finished is held back, so a
//! page that comes back gets every byte once ([`Unfinished`]).

use super::super::{Shared, blocking};
use super::link::Link;
use super::places::Places;
use crate::api::Params;
use crate::core::Ctx;
use crate::core::attach::Attachment;
use crate::core::audit::{WEB_CONTROL as CONTROL, WEB_LEAVE as LEAVE, WEB_WRITE as WRITE};
use crate::core::web_view::TypedLines;
use crate::error::{Error, ErrorCode, Result};
use crate::proto::attach::{self, AttachRequest, Event, Frame};
use crate::safety::term_in::strip_replies;
use crate::safety::term_out::{Policy, TermOut, Unfinished};
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;

/// The most terminal views open at once; one more is answered 503.
const MAX_VIEWS: usize = 32;
/// The largest message a page may send (a paste), as the attach stream's frames.
const MAX_MESSAGE: usize = attach::MAX_PAYLOAD;
/// Rows of the session's scrollback a view is sent before the screen (the page keeps 5000).
const HISTORY: u32 = 3000;
/// How often an open view's login is looked at again.
const RECHECK: Duration = Duration::from_secs(2);
/// Close codes (4000–4999: the application's own).
const LOGGED_OUT: u16 = 4001;
const NOT_JOINED: u16 = 4004;

/// Whether a page reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Read,
    Write,
}

/// The terminal views open, and which page writes to each session now, so another page
/// taking over can tell it.
pub struct Views {
    open: Places,
    next: AtomicU64,
    writers: Mutex<HashMap<String, Writer>>,
}

/// The page writing to a session.
struct Writer {
    view: u64,
    taken: mpsc::UnboundedSender<String>,
}

impl Default for Views {
    fn default() -> Self {
        Views {
            open: Places::new(MAX_VIEWS, "console terminals"),
            next: AtomicU64::default(),
            writers: Mutex::default(),
        }
    }
}

impl Views {
    fn writers(&self) -> std::sync::MutexGuard<'_, HashMap<String, Writer>> {
        self.writers.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `view` writes to `session` now; the page that wrote before (if another) is told who
    /// took over.
    fn take(&self, session: &str, view: u64, who: &str, taken: &mpsc::UnboundedSender<String>) {
        let before = self.writers().insert(
            session.to_string(),
            Writer {
                view,
                taken: taken.clone(),
            },
        );
        if let Some(b) = before.filter(|b| b.view != view) {
            let _ = b.taken.send(who.to_string());
        }
    }

    /// `view` no longer writes to `session`.
    fn release(&self, session: &str, view: u64) {
        let mut w = self.writers();
        if w.get(session).is_some_and(|x| x.view == view) {
            w.remove(session);
        }
    }
}

/// What a page sends.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum FromPage {
    Input {
        data: String,
    },
    Write,
    Read,
    Resize {
        cols: u16,
        rows: u16,
    },
    Redraw,
    #[serde(other)]
    Other,
}

/// What a page is sent, beside the terminal's output.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ToPage {
    /// The view joined the session.
    Joined {
        session_id: String,
        label: Option<String>,
        cols: u16,
        rows: u16,
        attached: usize,
        /// This page's login, as the audit trail names it.
        who: String,
        /// Whether this page may write at all (a holder older than web clients: no).
        can_write: bool,
        /// The page carries on where it was (`?from=`): no scrollback or screen follow.
        resumed: bool,
        /// The host the session lives on (another machine's: its trail and recording are
        /// there).
        #[serde(skip_serializing_if = "Option::is_none")]
        host: Option<String>,
    },
    /// The output sent so far brings the page to this offset (after a redraw).
    Offset { at: u64 },
    /// The page reads or writes now; `by`: who took writing over from it.
    Mode {
        mode: Mode,
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        notice: Option<String>,
    },
    /// The terminal's size now.
    Size { cols: u16, rows: u16 },
    /// Output was skipped; a redraw follows.
    Resync { missed: u64 },
    /// The input filter kept keys of this page from the program.
    Blocked {
        blocked: Vec<String>,
        warning: String,
    },
    /// The session's program ended.
    Exited { code: i32, signal: Option<String> },
    /// The view could not join.
    Error { error_code: String, message: String },
}

impl ToPage {
    fn message(&self) -> Message {
        Message::Text(serde_json::to_string(self).unwrap_or_default().into())
    }
}

/// Where a page comes back from (`?from=OFFSET`).
#[derive(Debug, Deserialize)]
pub(super) struct Resume {
    from: Option<u64>,
}

/// The offset of a binary message whose place in the output is not known.
const UNKNOWN: u64 = u64::MAX;

/// `GET /console/ws/session/{id}` (the login and the `Origin` were checked before).
pub(super) async fn socket(
    State(app): State<Shared>,
    Path(id): Path<String>,
    Query(resume): Query<Resume>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    let place = match app.console.views.open.take() {
        Ok(p) => p,
        Err(full) => return *full,
    };
    let login = super::login::presented(&headers)
        .unwrap_or_default()
        .to_string();
    ws.max_message_size(MAX_MESSAGE)
        .read_buffer_size(super::WS_READ_BUFFER)
        .on_upgrade(move |socket| async move {
            View::run(socket, app, id, login, resume.from).await;
            drop(place);
        })
}

/// One page's view of one session.
struct View {
    app: Shared,
    socket: WebSocket,
    session: String,
    view: u64,
    who: String,
    login: String,
    mode: Mode,
    can_write: bool,
    /// The page's own size (it counts only while writing).
    size: Option<(u16, u16)>,
    holder: Link,
    taken: mpsc::UnboundedSender<String>,
    typed: TypedLines,
    sanitiser: TermOut,
    /// The offset of the session's output fed to the sanitiser so far (`None` until the holder
    /// says, and from a resync until the redraw's offset).
    fed: Option<u64>,
    /// The bytes of a character not finished, held back from the page.
    held: Vec<u8>,
    /// The session is another host's; `Some(true)` once its program's end came.
    remote_exited: Option<bool>,
    /// This view's audit records, written in order by its own thread ([`auditor`]); none for
    /// a session on another host, whose own trail records the view (its host does).
    audits: Option<std::sync::mpsc::Sender<Audit>>,
}

/// One audit record of a view: the name, its parameters, what it did, and who waits to hear
/// whether it was written (an action that cannot be audited is not done).
type Audit = (
    &'static str,
    Params,
    Result<()>,
    Option<tokio::sync::oneshot::Sender<Result<()>>>,
);

/// A view's audit writer: records what the view did, in order, until the view ends.
fn auditor(ctx: Ctx) -> std::sync::mpsc::Sender<Audit> {
    let (tx, rx) = std::sync::mpsc::channel::<Audit>();
    std::thread::spawn(move || {
        for (name, p, result, done) in rx {
            let r = crate::core::audited_as(&ctx, name, &p, || result);
            if let Err(e) = &r
                && e.code != ErrorCode::InputBlocked
            {
                tracing::warn!("console audit: {e}");
            }
            if let Some(done) = done {
                let _ = done.send(r);
            }
        }
    });
    tx
}

/// How a view ended.
enum Ended {
    /// The page left (or its connection failed).
    Left,
    /// The holder's stream ended (the program exited, or the holder went away).
    Holder,
    /// The page's login ended.
    LoggedOut,
}

impl View {
    async fn run(mut socket: WebSocket, app: Shared, id: String, login: String, from: Option<u64>) {
        let who = super::login::who(&login);
        let ctx = app.ctx.clone();
        let (c, w, sid) = (ctx.clone(), who.clone(), id.clone());
        let joined = blocking(move || join(&c, &sid, &w, from)).await;
        let (at, host) = match joined {
            Ok(at) => at,
            Err(e) => {
                let m = ToPage::Error {
                    error_code: e.code.as_str().to_string(),
                    message: crate::safety::redact_message(&e.message).into_owned(),
                };
                let _ = socket.send(m.message()).await;
                let bye = CloseFrame {
                    code: NOT_JOINED,
                    reason: "not joined".into(),
                };
                let _ = socket.send(Message::Close(Some(bye))).await;
                return;
            }
        };
        let holder = match Link::new(at.stream) {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!("console terminal: {e}");
                return;
            }
        };
        let (taken, taken_rx) = mpsc::unbounded_channel();
        let view = app.console.views.next.fetch_add(1, Ordering::Relaxed);
        let hello = ToPage::Joined {
            session_id: at.session_id.clone(),
            label: at.label.clone(),
            cols: at.body.cols,
            rows: at.body.rows,
            attached: at.body.attached,
            who: who.clone(),
            can_write: at.body.web,
            resumed: at.body.resumed,
            host: host.as_ref().map(ToString::to_string),
        };
        let mut v = View {
            app,
            socket,
            session: at.session_id,
            view,
            who,
            login,
            mode: Mode::Read,
            can_write: at.body.web,
            size: None,
            holder,
            taken,
            typed: TypedLines::default(),
            sanitiser: TermOut::new(Policy::default()),
            fed: None,
            held: Vec::new(),
            remote_exited: host.is_some().then_some(false),
            audits: host.is_none().then(|| auditor(ctx)),
        };
        if v.socket.send(hello.message()).await.is_ok() {
            let ended = v.pump(taken_rx).await;
            v.leave(ended).await;
        }
    }

    /// Carry output to the page and the page's messages to the holder until either ends.
    async fn pump(&mut self, mut taken: mpsc::UnboundedReceiver<String>) -> Ended {
        let mut recheck = tokio::time::interval(RECHECK);
        recheck.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut clean = Vec::new();
        loop {
            // What the holder sent already goes out first.
            match self.holder.next() {
                Ok(Some(f)) => {
                    if !self.holder_said(f, &mut clean).await {
                        return Ended::Left;
                    }
                    continue;
                }
                Ok(None) => {}
                Err(e) => {
                    tracing::debug!("console terminal: {e}");
                    return Ended::Holder;
                }
            }
            let sent = tokio::select! {
                more = self.holder.readable() => match more {
                    Ok(true) => true,
                    Ok(false) | Err(_) => return Ended::Holder,
                },
                msg = self.socket.recv() => match msg {
                    Some(Ok(Message::Text(t))) => self.page_said(t.as_str()).await,
                    Some(Ok(Message::Close(_)) | Err(_)) | None => return Ended::Left,
                    Some(Ok(_)) => true,
                },
                Some(by) = taken.recv() => self.taken_over(by).await,
                _ = recheck.tick() => {
                    if !super::login::still_good(&self.app.ctx.state, &self.login) {
                        return Ended::LoggedOut;
                    }
                    true
                }
            };
            if !sent {
                return Ended::Left;
            }
        }
    }

    /// Send `frame` to the holder (a holder that is gone is noticed by the reading side).
    async fn tell(&mut self, frame: Frame) {
        if let Err(e) = self.holder.send(&frame).await {
            tracing::debug!("console terminal: {e}");
        }
    }

    /// One frame from the holder, to the page; false when the page is gone.
    async fn holder_said(&mut self, frame: Frame, clean: &mut Vec<u8>) -> bool {
        let msg = match frame {
            Frame::Output(bytes) => {
                self.fed = self.fed.map(|f| f.saturating_add(bytes.len() as u64));
                clean.clear();
                clean.append(&mut self.held);
                self.sanitiser.feed(&bytes, clean);
                let Unfinished { passed, .. } = self.sanitiser.unfinished();
                self.held = clean.split_off(clean.len().saturating_sub(passed));
                if clean.is_empty() {
                    return true;
                }
                self.output(clean)
            }
            Frame::Event(Event::Size { cols, rows }) => ToPage::Size { cols, rows }.message(),
            Frame::Event(Event::Resync { missed }) => {
                self.sanitiser.reset();
                self.held.clear();
                self.fed = None;
                ToPage::Resync { missed }.message()
            }
            Frame::Event(Event::Offset { at }) => {
                self.fed = Some(at);
                ToPage::Offset { at }.message()
            }
            Frame::Event(Event::Exited { code, signal }) => {
                self.remote_exited = self.remote_exited.map(|_| true);
                ToPage::Exited { code, signal }.message()
            }
            Frame::Event(Event::Blocked { blocked, warning }) => {
                self.audit_blocked(&blocked, &warning);
                // The warning in this page's terminal only, then the event for its controls;
                // sanitised as output is (another host's holder says what it likes).
                let mut shown = Vec::new();
                TermOut::new(Policy::default()).feed(warning.as_bytes(), &mut shown);
                let w = self.output(&shown);
                if self.socket.send(w).await.is_err() {
                    return false;
                }
                ToPage::Blocked { blocked, warning }.message()
            }
            _ => return true,
        };
        self.socket.send(msg).await.is_ok()
    }

    /// A binary message of `bytes` for the page, after the offset it brings the page to.
    fn output(&self, bytes: &[u8]) -> Message {
        let back = self.sanitiser.unfinished().input as u64;
        let at = self
            .fed
            .and_then(|f| f.checked_sub(back))
            .unwrap_or(UNKNOWN);
        let mut m = Vec::with_capacity(8 + bytes.len());
        m.extend_from_slice(&at.to_be_bytes());
        m.extend_from_slice(bytes);
        Message::Binary(m.into())
    }

    /// One message from the page; false when the page is gone.
    async fn page_said(&mut self, text: &str) -> bool {
        let Ok(msg) = serde_json::from_str::<FromPage>(text) else {
            return true;
        };
        match msg {
            FromPage::Input { data } if self.mode == Mode::Write => {
                let keys = strip_replies(data.as_bytes(), self.sanitiser.focus_reporting());
                self.typed(&keys);
                self.tell(Frame::Input(keys)).await;
            }
            FromPage::Write if self.mode == Mode::Read => return self.write().await,
            FromPage::Read if self.mode == Mode::Write => {
                self.release().await;
                return self.tell_mode(None).await;
            }
            FromPage::Resize { cols, rows } => {
                self.size = Some((cols, rows));
                if self.mode == Mode::Write {
                    self.tell(Frame::Resize { cols, rows }).await;
                }
            }
            FromPage::Redraw => self.tell(Frame::Redraw).await,
            _ => {}
        }
        true
    }

    /// The page asks to write: audited first (no audit, no writing), then taken over from
    /// any other page, and the page's size counts from now on.
    async fn write(&mut self) -> bool {
        if !self.can_write {
            let notice = "this session's holder is older than typing from the web: kill and \
                          recreate the session to type into it"
                .to_string();
            return self.tell_mode(Some(notice)).await;
        }
        if let Err(e) = self.audit_control().await {
            return self
                .tell_mode(Some(crate::safety::redact_message(&e.message).into_owned()))
                .await;
        }
        self.mode = Mode::Write;
        let views = &self.app.console.views;
        views.take(&self.session, self.view, &self.who, &self.taken);
        if let Some((cols, rows)) = self.size {
            self.tell(Frame::Resize { cols, rows }).await;
        }
        // People at the session's terminal (`kpty attach`) are told who types along now.
        let notice = format!("{} took control from the web console", self.who);
        self.tell(Frame::Notice(notice)).await;
        self.tell_mode(None).await
    }

    /// Taking control, recorded (a remote session's host records it when the take-over notice
    /// reaches it).
    async fn audit_control(&mut self) -> Result<()> {
        let Some(audits) = &self.audits else {
            return Ok(());
        };
        let (done, audited) = tokio::sync::oneshot::channel();
        let job = (
            CONTROL,
            self.params(Some("write".into())),
            Ok(()),
            Some(done),
        );
        match audits.send(job) {
            Ok(()) => audited
                .await
                .unwrap_or_else(|_| Err(Error::internal("no audit writer"))),
            Err(_) => Err(Error::internal("no audit writer")),
        }
    }

    /// Back to reading: the page's size no longer counts, what it typed is recorded.
    async fn release(&mut self) {
        self.flush_typed();
        self.mode = Mode::Read;
        self.app.console.views.release(&self.session, self.view);
        self.tell(Frame::Resize { cols: 0, rows: 0 }).await;
        self.audit(CONTROL, Some("read".into()), Ok(()));
    }

    /// Another page (`by`) took writing over.
    async fn taken_over(&mut self, by: String) -> bool {
        if self.mode != Mode::Write {
            return true;
        }
        self.flush_typed();
        self.mode = Mode::Read;
        self.tell(Frame::Resize { cols: 0, rows: 0 }).await;
        let m = ToPage::Mode {
            mode: Mode::Read,
            notice: Some(format!("{by} took control; you are watching")),
            by: Some(by),
        };
        self.socket.send(m.message()).await.is_ok()
    }

    async fn tell_mode(&mut self, notice: Option<String>) -> bool {
        let m = ToPage::Mode {
            mode: self.mode,
            by: None,
            notice,
        };
        self.socket.send(m.message()).await.is_ok()
    }

    /// Keys typed: recorded by line (at each Enter, or when a line grows long).
    fn typed(&mut self, keys: &[u8]) {
        if let Some(line) = self.typed.push(keys) {
            self.audit(WRITE, Some(line), Ok(()));
        }
    }

    fn flush_typed(&mut self) {
        if let Some(line) = self.typed.take() {
            self.audit(WRITE, Some(line), Ok(()));
        }
    }

    fn audit_blocked(&mut self, blocked: &[String], warning: &str) {
        self.flush_typed();
        let e = Error::input_blocked(blocked, warning);
        self.audit(WRITE, Some(blocked.join(" ")), Err(e));
    }

    /// The audit parameters of this view: the session, the login as the writer, `data`.
    fn params(&self, data: Option<String>) -> Params {
        Params {
            session_id: Some(self.session.clone()),
            agent_id: Some(self.who.clone()),
            data,
            ..Default::default()
        }
    }

    /// Record `name` in the background, in order (the view does not wait for the disk).
    fn audit(&self, name: &'static str, data: Option<String>, result: Result<()>) {
        if let Some(audits) = &self.audits {
            let _ = audits.send((name, self.params(data), result, None));
        }
    }

    /// The view ends: what was typed is recorded, writing handed back, the holder left, the
    /// page told why (a logged-out page gets the close code the overview uses).
    async fn leave(mut self, ended: Ended) {
        self.flush_typed();
        self.app.console.views.release(&self.session, self.view);
        self.tell(Frame::Detach).await;
        self.audit(LEAVE, None, Ok(()));
        let close = match ended {
            Ended::LoggedOut => Some((LOGGED_OUT, "logged out")),
            // Another host's stream that ended before its program did: the connection
            // dropped, and the page comes back (from its offset) rather than call it ended.
            Ended::Holder if self.remote_exited == Some(false) => {
                Some((1011, "the connection to the session's host dropped"))
            }
            Ended::Holder => Some((1000, "the session ended")),
            Ended::Left => None,
        };
        if let Some((code, reason)) = close {
            let bye = CloseFrame {
                code,
                reason: reason.into(),
            };
            let _ = self.socket.send(Message::Close(Some(bye))).await;
        }
    }
}

/// Join session `id` as a web client (carrying on from output offset `from`, when the holder
/// still has it), audited as `web_join` by `who`; a session on a known host (`HOST:ID`) is
/// joined there ([`super::remote`]), and its host comes back too.
fn join(
    ctx: &Ctx,
    id: &str,
    who: &str,
    from: Option<u64>,
) -> Result<(Attachment, Option<crate::remote::Host>)> {
    let req = AttachRequest {
        cols: crate::api::DEFAULT_COLS,
        rows: crate::api::DEFAULT_ROWS,
        read_only: false,
        web: true,
        history: HISTORY,
        offsets: true,
        resume: from,
        by: Some(format!("the web console ({who})")),
    };
    // No host kpty knows: no remote session (and nothing to reach).
    let known = crate::remote::hosts::known().unwrap_or_default();
    if let Some((host, sid)) = super::remote::named(id, &known)? {
        let at = super::remote::join(ctx, &host, &sid, who, &req)?;
        return Ok((at, Some(host)));
    }
    join_local(ctx, id, who, &req).map(|at| (at, None))
}

/// Join this machine's session `id` with `req`, audited as `web_join` by `who`.
fn join_local(ctx: &Ctx, id: &str, who: &str, req: &AttachRequest) -> Result<Attachment> {
    let p = Params {
        session_id: Some(id.to_string()),
        agent_id: Some(who.to_string()),
        data: Some("read".into()),
        ..Default::default()
    };
    crate::core::web_view::join(ctx, &p, req)
}
