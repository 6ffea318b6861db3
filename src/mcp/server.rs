//! The MCP server handler: `initialize` info, `tools/list` with the one `k_pty` tool, and
//! `tools/call`, which runs the core's action concurrently with other calls — a talk in a
//! session it names on the server's own event loop (`talking::OnLoop`), every other action
//! on the blocking pool —, streams talk progress when the client asked for it, and turns a
//! cancellation into a cancelled talk plus Ctrl-C so the session stays usable.

use super::schema;
use super::talking::OnLoop;
use crate::api::Action;
use crate::core::running::{Progress, Running, Runs};
use crate::core::{self, Ctx};
use crate::error::{Error, ErrorCode};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam,
    ContentBlock, Implementation, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

/// How often talk progress is reported at most.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

const INSTRUCTIONS: &str = "kpty gives you live terminal sessions through one tool, k_pty. \
Typical flow: k_pty(action=\"create\") → session_id; k_pty(action=\"talk\", session_id, \
command=\"git status\") → {output, exit_code}; k_pty(action=\"term_read\", session_id) → the \
screen as a person sees it (mode=delta with the returned marker_id gives only what is new). \
For interactive programs use send_line (a line + Enter) or send_keys (keys by tmux name: \
keys=[\"C-c\"], [\"Up\",\"Enter\"], [\"Tab\"], [\"Escape\"]), then term_read or read (read with since=next_offset \
for only new output). Sessions persist across calls and are shared with the `kpty` CLI. Keep \
reads small (max_lines, max_bytes) to save context; talk returns at most 50000 characters of \
output, the end (max_chars changes it; dropped_chars tells what was cut). A PTY_BUSY error \
means a program other than the shell is in the foreground: answer it with send_line, stop \
it with send_keys keys=[\"C-c\"], or, when it is a shell itself (ssh, su), talk with \
force=true; or that text is left on the shell's input line (details.line, typed by a person \
or an unfinished send_keys): clear it, or talk with force=true to clear it first. Dangerous commands (rm -rf /, mkfs, shutdown …) are blocked; \
k_pty(action=\"check\", command) says whether a command would be, and by which rule, without \
typing it. The policy is a guard-rail against accidents, not a sandbox.";

/// The MCP server state: the core context shared by every call, and its running talks.
#[derive(Clone)]
pub struct KptyServer {
    ctx: Arc<Ctx>,
    talks: Runs,
    /// Where talks in named sessions wait, with the connections they keep.
    on_loop: OnLoop,
    /// The calls in flight, and cancels that came before their call.
    cancels: super::cancels::Cancels,
}

impl KptyServer {
    /// A server over `ctx`.
    pub fn new(ctx: Ctx) -> Self {
        Self {
            ctx: Arc::new(ctx),
            talks: Runs::default(),
            on_loop: OnLoop::default(),
            cancels: super::cancels::Cancels::default(),
        }
    }

    /// This server, listing its talks in `talks` (shared with other servers: `kpty serve`
    /// runs one per MCP session and stops them all at shutdown).
    pub fn listing_talks_in(mut self, talks: Runs) -> Self {
        self.talks = talks;
        self
    }

    /// A failure that did not come from an action (a malformed call, a cancelled or failed
    /// one) as its JSON, through the same edge as every action's result: its hint in this
    /// channel's words, and what it quotes from the call redacted.
    fn failed(&self, e: Error) -> Value {
        core::outgoing_error(&self.ctx, e).to_json()
    }

    async fn run(
        &self,
        action: Action,
        params: crate::api::Params,
        rc: &RequestContext<RoleServer>,
    ) -> Value {
        let ctx = self.ctx.clone();
        let talk = matches!(action, Action::Talk | Action::Run);
        if !talk && action != Action::WaitFor && core::host_of(&params).is_none() {
            let work =
                tokio::task::spawn_blocking(move || core::dispatch_json(&ctx, action, &params));
            return tokio::select! {
                r = work => r.unwrap_or_else(|e| self.failed(Error::internal(format!("action panicked: {e}")))),
                // Non-talk actions are short; a cancelled one is simply not answered.
                _ = rc.ct.cancelled() => self.failed(Error::new(ErrorCode::Cancelled, "cancelled")),
            };
        }
        // Listed in the server's running talks, so that a cancellation (or the server's end)
        // stops it — a talk ended and its command interrupted, so the next talk finds the
        // shell at its prompt; a wait ended; an action on a host stopped there — rather than
        // holding a worker until its timeout. A talk reports its progress when the client
        // asked for it (a token).
        let token = rc.meta.get_progress_token().filter(|_| talk);
        // Without a progress token nothing is sent: the sender is dropped here, not when the
        // work ends, where dropping it would wake this task once more before its result.
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<crate::proto::ProgressBody>();
        let tx = token.is_some().then_some(tx);
        let ticket = self.talks.start();
        let running: Running = (*ticket).clone();
        let work: Pending = if talk && core::talk::waits_only_for_its_holder(&params) {
            // A talk in a named local session waits on this loop: no other thread involved.
            let on_loop = self.on_loop.clone();
            Box::pin(async move {
                let mut sink = sink(&tx);
                let progress = progress(&tx, &mut sink);
                core::talk_tracked(&ctx, &params, &ticket, progress, &on_loop).await
            })
        } else {
            let panicked = ctx.clone();
            let work = tokio::task::spawn_blocking(move || {
                let mut sink = sink(&tx);
                let progress = progress(&tx, &mut sink);
                core::run_tracked(&ctx, action, &params, &ticket, progress)
            });
            Box::pin(async move {
                work.await.unwrap_or_else(|e| {
                    let e = Error::internal(format!("action panicked: {e}"));
                    core::outgoing_error(&panicked, e).to_json()
                })
            })
        };
        self.tracked(rc, token, talk, (running, rx), work).await
    }

    /// Wait for `work` (listed in the server's running talks as `running`), sending the
    /// progress it reports on `rx` to the client under `token` (when it gave one); a
    /// cancellation (or the server's end) stops it — `interrupt` types Ctrl-C into the talk's
    /// session as well — and lets it run to its end (and its audit entry) unwaited for.
    /// `work` is polled all along: a notification the client does not take (it left, and
    /// rmcp no longer sends) holds up the notifications after it, never the talk — whose end,
    /// once stopped, is what a stop waits for.
    async fn tracked(
        &self,
        rc: &RequestContext<RoleServer>,
        token: Option<ProgressToken>,
        interrupt: bool,
        (running, rx): (Running, UnboundedReceiver<crate::proto::ProgressBody>),
        mut work: Pending,
    ) -> Value {
        let mut notify = std::pin::pin!(notify_progress(rc.peer.clone(), token, rx));
        let mut notifying = true;
        loop {
            tokio::select! {
                v = &mut work => {
                    // Its last reports go out before its answer (the work is over: `rx` ends
                    // once they are sent).
                    if notifying {
                        notify.await;
                    }
                    return v;
                }
                _ = &mut notify, if notifying => notifying = false,
                _ = rc.ct.cancelled() => {
                    // The talk runs on (to its end and its audit entry) while it is stopped.
                    tokio::spawn(work);
                    let _ = tokio::task::spawn_blocking(move || running.stop(interrupt)).await;
                    return self.failed(Error::new(ErrorCode::Cancelled, "cancelled by the client"));
                }
            }
        }
    }
}

/// Send each progress report on `rx` to the client under `token` (all of them dropped when
/// it gave none), in order, until the work ends (`rx` closes).
async fn notify_progress(
    peer: rmcp::Peer<RoleServer>,
    token: Option<ProgressToken>,
    mut rx: UnboundedReceiver<crate::proto::ProgressBody>,
) {
    let mut step = 0.0;
    while let Some(p) = rx.recv().await {
        if let Some(t) = &token {
            // progress: bytes of output so far (it only grows); message: the output new since
            // the previous notification.
            step = (p.bytes as f64).max(step + 1.0);
            let note = ProgressNotificationParam::new(t.clone(), step).with_message(p.output);
            let _ = peer.notify_progress(note).await;
        }
    }
}

/// An action running for a call: its JSON once done.
type Pending = std::pin::Pin<Box<dyn std::future::Future<Output = Value> + Send>>;

/// The sink of a talk's progress: each frame to `tx`, when the client asked for progress.
fn sink(
    tx: &Option<UnboundedSender<crate::proto::ProgressBody>>,
) -> impl FnMut(crate::proto::ProgressBody) + Send + '_ {
    move |b| {
        if let Some(tx) = tx {
            let _ = tx.send(b);
        }
    }
}

/// The progress a talk reports into `sink`, when the client asked for it (`tx`).
fn progress<'a>(
    tx: &Option<UnboundedSender<crate::proto::ProgressBody>>,
    sink: &'a mut (impl FnMut(crate::proto::ProgressBody) + Send),
) -> Option<Progress<'a>> {
    tx.is_some()
        .then_some((PROGRESS_EVERY, sink as &mut (dyn FnMut(_) + Send)))
}

/// The action's JSON as a tool result: structured content plus the same JSON as text, and
/// `isError` exactly when `ok` is false; a PNG screenshot also as an image item, which a
/// client can show (or hand to its model) as it is. `v` left through the core's edge
/// ([`core::outgoing`] or [`KptyServer::failed`]): it is redacted once, there, and not again
/// here.
fn to_result(v: Value) -> CallToolResult {
    if v["ok"] != Value::Bool(true) {
        return CallToolResult::structured_error(v);
    }
    let png = match (&v["format"], &v["encoding"], &v["image"]) {
        (Value::String(f), Value::String(e), Value::String(image))
            if f == "png" && e == "base64" =>
        {
            Some(ContentBlock::image(image.clone(), "image/png"))
        }
        _ => None,
    };
    let mut r = CallToolResult::structured(v);
    r.content.extend(png);
    r
}

impl ServerHandler for KptyServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("kpty", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(vec![schema::tool()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if request.name != schema::TOOL_NAME {
            return Err(McpError::invalid_params(
                format!(
                    "tool not found: {} (kpty has one tool, {})",
                    request.name,
                    schema::TOOL_NAME
                ),
                None,
            ));
        }
        // Cancelled at once when its cancel overtook it (two HTTP requests).
        let _in_flight = self.cancels.start(&context.id, &context.ct);
        let value = match schema::parse(request.arguments) {
            Ok((action, params)) => self.run(action, params, &context).await,
            Err(e) => self.failed(e),
        };
        Ok(to_result(value).into())
    }

    async fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        _context: NotificationContext<RoleServer>,
    ) {
        // rmcp has stopped the call if it knew it; one it did not know yet is stopped here
        // when it comes.
        if let Some(id) = notification.request_id {
            self.cancels.cancelled(id);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn instructions_state_the_talk_cap_in_force() {
        assert!(super::INSTRUCTIONS.contains(&format!(
            "at most {} characters",
            crate::core::MCP_TALK_MAX_CHARS
        )));
    }
}
