//! `talk` (alias `run`): run one command in a session and return its clean output, exit code
//! and duration. Completion is detected inside the holder from what the shell prints.
//! Front ends that show progress or cancel run it through [`run_talk`].

use super::converse::{Blocking, Converse, Sink, block_now};
use super::handle::{Handle, Place};
use super::running::{Progress, Running};
use super::{Ctx, sessions, wire};
use crate::api::Completion;
use crate::api::reply::{Success, TalkReply};
use crate::api::request::TalkArgs;
use crate::error::{Error, Result};
use crate::proto::{TalkBody, TalkRequest};
use crate::safety::Opacity;
use std::time::Duration;

/// A validated talk, bound to its session.
#[derive(Debug, Clone)]
pub(super) struct Prepared {
    /// The session it runs in.
    pub entry: Handle,
    /// The holder request.
    pub req: TalkRequest,
    /// True when the caller named the session (no default-session replacement then).
    pub named: bool,
    /// Most characters of output returned (the end is kept); all when `None`.
    pub max_chars: Option<usize>,
    /// `max_chars` is the channel's default cap, which holds for the whole result.
    pub whole_result: bool,
    /// Make an evidence pack around the command.
    pub evidence: bool,
}

/// Find (or create) the session of a validated talk ([`super::request::talk`]).
pub(super) fn prepare(ctx: &Ctx, p: &TalkArgs) -> Result<Prepared> {
    let entry = super::target::target_vetted(ctx, &p.target, || vet(&p.command))?;
    if !entry.is_local() {
        super::typed::check_typed(&format!("{}\r", p.command), Opacity::Strict)?;
    }
    if let Some(prog) = &entry.program {
        return Err(Error::invalid(format!(
            "session {} runs a program ({:?}), not a shell: talk needs a shell's prompt to tell \
             when a command is done. Type into it with send_line or send_keys and wait for its \
             answer with wait_for",
            entry.session_id, prog.command
        ))
        .with_details(crate::error::details::ProgramSession {
            session_id: entry.session_id.clone(),
            program: prog.command.clone(),
        }));
    }
    let req = TalkRequest {
        command: p.command.clone(),
        sentinel: p.sentinel.clone(),
        timeout_ms: p.timeout_ms,
        progress_ms: None,
        raw: !ctx.lean || p.include_raw == Some(true),
        force: p.force,
        stdin: ctx
            .talk_stdin
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
        by: Some(ctx.writer(p.agent_id.as_deref())),
        // The running talk's own, set as it goes out ([`run_local`]).
        talk_id: None,
    };
    Ok(Prepared {
        entry,
        req,
        named: p.target.is_named(),
        max_chars: p.max_chars.or(ctx.talk_max_chars),
        whole_result: p.max_chars.is_none() && ctx.talk_max_chars.is_some(),
        evidence: p.evidence,
    })
}

/// The policy check of a command before a session is made for it (a session that exists
/// judges it as it is typed, in its shell's state).
fn vet(command: &str) -> Result<()> {
    super::typed::check_typed(&format!("{command}\r"), Opacity::Ignore)
}

/// Run `talk`.
pub fn talk(ctx: &Ctx, p: &TalkArgs) -> Result<TalkReply> {
    let prepared = prepare(ctx, p)?;
    block_now(run(ctx, prepared, None, &Running::new(), &Blocking))
}

/// Run a prepared talk; with `progress`, `(interval, sink)` receives the output so far;
/// `running` learns each session it is typed into (and refuses when cancelled first); `via`
/// reaches the holder and waits for its answer.
pub(super) async fn run(
    ctx: &Ctx,
    t: Prepared,
    progress: Option<Progress<'_>>,
    running: &Running,
    via: &impl Converse,
) -> Result<TalkReply> {
    let (max_chars, lean, whole_result) = (t.max_chars, !t.req.raw, t.whole_result);
    let witness = t
        .evidence
        .then(|| super::evidence::Witness::before(ctx, &t.entry))
        .transpose()?;
    let res = match running.at(ctx, &t.entry) {
        Err(e) => Err(e),
        Ok(()) => match t.entry.place() {
            Place::Bridged => via.bridged(&t.entry, &t.req).await.map(|b| TalkReply {
                ok: Success,
                session_id: t.entry.session_id.clone(),
                output: b.output,
                sentinel: b.sentinel,
                raw_output: (!lean).then_some(b.raw_output),
                exit_code: b.exit_code,
                duration_ms: b.duration_ms,
                completion: Completion::Bridge,
                truncated: b.truncated,
                start_offset: None,
                end_offset: None,
                screen: None,
                terminal_state: None,
                dropped_chars: 0,
                completed: true,
                waiting_for_input: false,
                prompt: None,
                echo_off: None,
                cleared_line: None,
                evidence_id: None,
                evidence: None,
            }),
            Place::Local(_) => {
                let ran = run_local(ctx, t, progress, running, via).await;
                ran.map(|(session_id, b)| TalkReply {
                    ok: Success,
                    session_id,
                    output: crate::text::clean_text(b.output_raw.as_bytes()),
                    sentinel: b.sentinel,
                    // Left out on request (a lean caller): absent rather than a misleading "".
                    raw_output: (!lean).then_some(b.raw_output),
                    exit_code: b.exit_code.map(i64::from),
                    duration_ms: b.duration_ms,
                    completion: b.completion.or(Completion::Sentinel),
                    truncated: b.truncated,
                    start_offset: Some(b.start_offset),
                    end_offset: Some(b.end_offset),
                    screen: Some(b.screen.map(wire::screen)),
                    terminal_state: Some(wire::terminal_state_opt(b.terminal_state)),
                    dropped_chars: 0,
                    completed: !b.waiting_for_input,
                    waiting_for_input: b.waiting_for_input,
                    prompt: b.prompt.filter(|_| b.waiting_for_input),
                    echo_off: b.waiting_for_input.then_some(b.echo_off),
                    cleared_line: b.cleared_line,
                    evidence_id: None,
                    evidence: None,
                })
            }
        },
    };
    let mut r = res.map_err(|e| cap_partial(redact_partial(ctx, e), max_chars))?;
    if let Some(w) = witness {
        let pack = w.after(ctx, &r.session_id)?;
        r.evidence_id = Some(pack.evidence_id.clone());
        r.evidence = Some(Box::new(pack));
    }
    redact_output(ctx, &mut r);
    cap_output(&mut r, max_chars);
    if let (true, Some(cap)) = (whole_result, max_chars) {
        fit_result(&mut r, cap);
    }
    Ok(r)
}

/// A talk in a local session's holder (the default session replaced once if it ended since
/// it was last used): the session it ran in and the holder's answer.
async fn run_local(
    ctx: &Ctx,
    mut t: Prepared,
    mut progress: Option<Progress<'_>>,
    running: &Running,
    via: &impl Converse,
) -> Result<(String, TalkBody)> {
    t.req.progress_ms = progress.as_ref().map(|(d, _)| d.as_millis() as u64);
    // What its cancel names: this talk is stopped, never another caller's.
    t.req.talk_id = Some(running.talk_id().to_string());
    let io_timeout = Duration::from_millis(t.req.timeout_ms) + sessions::REPLY_MARGIN;
    let mut sink = |b| {
        if let Some((_, sink)) = progress.as_mut() {
            sink(b);
        }
    };
    let mut entry = t.entry.clone().into_entry();
    let mut res = via
        .local(ctx, &entry, t.req.clone(), io_timeout, &mut sink, running)
        .await;
    if let Err(err) = &res {
        // The default session ended since it was last used: replace it and try once more.
        if !t.named && sessions::ended_untouched(err) {
            vet(&t.req.command)?;
            entry = super::target::replace_default(ctx)?;
            running.at(ctx, &entry)?;
            res = via
                .local(ctx, &entry, t.req.clone(), io_timeout, &mut sink, running)
                .await;
        }
    }
    Ok((entry.session_id, res?))
}

/// On a redacted channel, redact the whole output before the cap keeps its end: a secret or
/// private-key block the cut falls inside is replaced, not half kept.
fn redact_output(ctx: &Ctx, r: &mut TalkReply) {
    if ctx.redact {
        let extra = r.raw_output.as_mut().into_iter().chain(r.prompt.as_mut());
        let extra = extra.chain(r.cleared_line.as_mut());
        for s in std::iter::once(&mut r.output).chain(extra) {
            if let std::borrow::Cow::Owned(o) = crate::safety::redact(s) {
                *s = o;
            }
        }
    }
}

/// The same for a failed talk's `partial_output` (and the `prompt` of a command waiting for
/// input).
fn redact_partial(ctx: &Ctx, mut e: Error) -> Error {
    if ctx.redact {
        let text = match e.details.as_deref_mut() {
            Some(crate::error::Details::Talk(t)) => &mut t.partial_output,
            Some(crate::error::Details::Waiting(w)) => &mut w.prompt,
            _ => return e,
        };
        if let std::borrow::Cow::Owned(r) = crate::safety::redact(text) {
            *text = r;
        }
    }
    e
}

/// Keep the end of `output` and `raw_output`, at most `max_chars` characters each; what was
/// cut from `output` is reported as `dropped_chars` (and `truncated: true`).
fn cap_output(r: &mut TalkReply, max_chars: Option<usize>) {
    let dropped = max_chars.map_or(0, |n| {
        if let Some(raw) = r.raw_output.as_mut() {
            keep_tail(raw, n);
        }
        keep_tail(&mut r.output, n)
    });
    if dropped > 0 {
        r.truncated = true;
    }
    r.dropped_chars = dropped as u64;
}

/// The default MCP cap holds for the whole result, not only `output`: the reply as JSON text
/// (escapes, `raw_output` when asked for, every other field) is at most `cap` characters;
/// what more is cut from the start of `output` is added to `dropped_chars`.
fn fit_result(r: &mut TalkReply, cap: usize) {
    for _ in 0..16 {
        let len = serde_json::to_string(r).map_or(0, |s| s.chars().count());
        if len <= cap {
            return;
        }
        let excess = len - cap;
        let out_len = r.output.chars().count();
        let raw_len = r.raw_output.as_ref().map_or(0, |s| s.chars().count());
        if raw_len == 0 && out_len == 0 {
            return;
        }
        // With `include_raw`, the two views share the cap: the longer one gives way first,
        // then both alike, so asking for raw never leaves the clean output empty.
        let (cut_out, cut_raw) = if raw_len > out_len {
            (0, excess.min(raw_len - out_len))
        } else if out_len > raw_len {
            (excess.min(out_len - raw_len), 0)
        } else {
            (excess / 2 + 1, excess / 2 + 1)
        };
        let cut = keep_tail(&mut r.output, out_len.saturating_sub(cut_out));
        r.dropped_chars += cut as u64;
        let mut cut_raw_done = 0;
        if let Some(raw) = r.raw_output.as_mut() {
            cut_raw_done = keep_tail(raw, raw_len.saturating_sub(cut_raw));
        }
        r.truncated |= cut + cut_raw_done > 0;
    }
}

/// The same cap on a failed talk's `details.partial_output` (a timed-out command may have
/// printed megabytes), with `details.dropped_chars`.
fn cap_partial(mut e: Error, max_chars: Option<usize>) -> Error {
    if let (Some(n), Some(crate::error::Details::Talk(t))) = (max_chars, e.details.as_deref_mut()) {
        let cut = keep_tail(&mut t.partial_output, n);
        if cut > 0 {
            t.dropped_chars = Some(cut as u64);
        }
    }
    e
}

/// Cut `s` to its last `max_chars` characters ([`crate::text::keep_tail`]); returns how
/// many were dropped.
fn keep_tail(s: &mut String, max_chars: usize) -> usize {
    let (kept, cut) = crate::text::keep_tail(s, max_chars);
    if cut > 0 {
        *s = kept.to_string();
    }
    cut
}

/// Run `talk` as a front end that streams progress or cancels does: the call is recorded in
/// the audit trail, `running` learns the session before the command is typed (and keeps it
/// from being typed when a cancel came first). The reply is typed: the front end makes its
/// JSON ([`super::to_json`], [`super::outgoing`]).
pub fn run_talk(
    ctx: &Ctx,
    p: &crate::api::Params,
    progress: Option<Progress<'_>>,
    running: &Running,
) -> Result<TalkReply> {
    block_now(run_talk_with(ctx, p, progress, running, &Blocking))
}

/// Whether a talk's only wait is for its holder's answer, so a front end may run it on its
/// event loop (`run_talk_with` with a non-blocking `Converse`): one in a session it
/// names (finding that never makes a session, whose shell would start meanwhile), with no
/// host (a call over ssh) and no evidence pack (whose making reads the recording).
pub fn waits_only_for_its_holder(p: &crate::api::Params) -> bool {
    let named = p
        .session_id
        .as_deref()
        .is_some_and(|s| !s.trim().is_empty());
    named && super::host_of(p).is_none() && p.evidence != Some(true)
}

/// [`run_talk`] reaching the holder and waiting for its answer through `via`.
pub(crate) async fn run_talk_with(
    ctx: &Ctx,
    p: &crate::api::Params,
    progress: Option<Progress<'_>>,
    running: &Running,
    via: &impl Converse,
) -> Result<TalkReply> {
    let _done = super::running::Finish(running);
    // On a redacted channel the progress frames are redacted too, with the output before
    // their tail as context.
    let mut redacting;
    let progress = match progress {
        Some((every, sink)) if ctx.redact => {
            redacting = move |mut b: crate::proto::ProgressBody| {
                let before = std::mem::take(&mut b.context_before);
                if let std::borrow::Cow::Owned(o) =
                    crate::safety::redact_window(&before, &b.output, "")
                {
                    b.output = o;
                }
                sink(b);
            };
            Some((every, &mut redacting as Sink<'_>))
        }
        Some((every, sink)) => Some((every, &mut *sink as Sink<'_>)),
        None => None,
    };
    let action = crate::api::Action::Talk;
    let (mut seen, started) = match super::audit_begin(ctx, action, p) {
        Ok(begun) => begun,
        Err(e) => return Err(e),
    };
    let result = match prepare_seen(ctx, p, &mut seen) {
        Ok(t) => run(ctx, t, progress, running, via).await,
        Err(e) => Err(e),
    };
    super::audit_end(ctx, action, p, result, started, seen)
}

/// Validate and resolve a talk's session, which the audit entry then names.
fn prepare_seen(
    ctx: &Ctx,
    p: &crate::api::Params,
    seen: &mut super::audit::Seen,
) -> Result<Prepared> {
    let t: Prepared = prepare(ctx, &super::request::talk(p)?)?;
    seen.saw(&t.entry);
    Ok(t)
}
