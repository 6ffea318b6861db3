//! Human output for each action (raw, as the terminal shows it; the `--json` output is the
//! action's object as the core returned it, redacted unless opted out), error lines on
//! stderr, and `read --follow`. A closed stdout (e.g. `| head`) ends quietly.

use super::args::Cli;
use crate::api::help::HelpData;
use crate::api::reply::{TermReadReply, TermView};
use crate::api::sessions::{ListReply, Live};
use crate::api::{Action, BufferType, Params};
use crate::core::Reply;
use crate::core::{self, Ctx};
use crate::error::{Error, ErrorCode, Result};
use crate::store::RegistryEntry;
use clap::CommandFactory;
use serde_json::Value;
use std::io::Write;

/// Write to stdout; a broken pipe ends the process quietly (exit 0), as ripgrep does.
fn out(bytes: &[u8]) {
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_all(bytes).and_then(|_| o.flush())
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        std::process::exit(0);
    }
}

/// Print a JSON value on one line.
pub fn print_json(v: &Value) {
    let mut s = serde_json::to_string(v).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    out(s.as_bytes());
}

/// `kpty: error[CODE]: message` on stderr.
pub fn print_error(e: &Error) {
    eprintln!("kpty: error[{}]: {}", e.code, e.message);
}

/// What to show on stdout before an error line (a timed-out talk's partial output).
pub fn before_error(e: &Error) {
    if (e.code == ErrorCode::PtyTimeout || e.code == ErrorCode::PtyProcessExited)
        && let Some(p) = e
            .details
            .as_ref()
            .and_then(|d| d["partial_output"].as_str())
        && !p.is_empty()
    {
        out(format!("{p}\n").as_bytes());
    }
}

fn text_line(s: &str) {
    if s.is_empty() {
        return;
    }
    if s.ends_with('\n') {
        out(s.as_bytes());
    } else {
        out(format!("{s}\n").as_bytes());
    }
}

/// Human rendering of a successful action.
pub fn human(reply: &Reply) {
    match reply {
        Reply::Create(r) => text_line(&r.session_id),
        Reply::Talk(r) => text_line(&r.output),
        Reply::Read(r) => out(r.output.as_bytes()),
        Reply::TermRead(r) => text_line(&r.text),
        Reply::List(r) => list_table(r),
        Reply::Kill(r) => text_line(&format!("killed {}", r.session_id)),
        Reply::Help(r) => text_line(&help_text(&r.data)),
        Reply::Session(r) => text_line(&r.session_id),
        Reply::SendLineToAgent(r) => text_line(&r.resolved_session_id),
        Reply::Unregister(r) => text_line(&format!("unregistered {}", r.session_id)),
        Reply::Prune(r) => {
            for id in r.pruned.iter().chain(&r.pruned_local) {
                text_line(&format!("pruned {id}"));
            }
            for e in &r.ended_local {
                if !r.pruned_local.contains(&e.session_id) {
                    eprintln!("{} is {} (prune --force removes it)", e.session_id, e.state);
                }
            }
        }
        Reply::SendLine(_) | Reply::Resize(_) | Reply::Heartbeat(_) => {}
    }
}

fn list_table(r: &ListReply<RegistryEntry>) {
    if r.sessions.is_empty() {
        eprintln!("no sessions in {}", r.state_dir);
        return;
    }
    let mut rows = vec![
        ["SESSION", "STATE", "PID", "LABEL", "SHELL", "CREATED"]
            .map(String::from)
            .to_vec(),
    ];
    for s in &r.sessions {
        let state = match &s.live {
            Some(Live::Exited { exit_code, .. }) => format!(
                "exited({})",
                exit_code.map_or("?".into(), |c| c.to_string())
            ),
            Some(Live::Running(l)) if l.busy => format!(
                "running:{}",
                l.foreground_command.as_deref().unwrap_or("busy")
            ),
            _ => s.state.to_string(),
        };
        let e = &s.entry;
        let or_dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        rows.push(vec![
            e.session_id.clone(),
            state,
            e.pid.map_or("-".into(), |p| p.to_string()),
            or_dash(&e.label),
            or_dash(&e.shell),
            or_dash(&e.created_at),
        ]);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut s = String::new();
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        s.push_str(line.join("  ").trim_end());
        s.push('\n');
    }
    out(s.as_bytes());
}

fn help_text(d: &HelpData) -> String {
    let mut s = format!(
        "kpty {} — {}\n\nActions (k_pty contract; CLI verbs use dashes):\n",
        d.version, d.description
    );
    for (k, v) in &d.actions {
        s.push_str(&format!("  {k:<19} {v}\n"));
    }
    s.push_str(&format!("\nState directory: {}\n", d.state_dir));
    s.push_str("\nEnvironment: KPTY_STATE_DIR, KPTY_SESSION, KPTY_LOG, KPTY_RUNTIME_DIR, KPTY_READY_TIMEOUT_MS, KPTY_SCROLLBACK,\n  KURORYUU_PTY_SHELL, KURORYUU_PTY_COLS, KURORYUU_PTY_ROWS, KURORYUU_PTY_BUFFER_SIZE, KURORYUU_PTY_TIMEOUT_MS\n");
    s.push_str("\nExit codes: 0 ok; `talk` exits with the command's own code; kpty's failures:\n");
    let mut codes: Vec<(&&str, &i32)> = d.exit_codes.iter().collect();
    codes.sort_by_key(|x| *x.1);
    for (k, n) in codes {
        s.push_str(&format!("  {n:>3}  {k}\n"));
    }
    s.push_str("    2  usage error\n\n`kpty help COMMAND` or `kpty COMMAND --help` shows a command's flags.");
    s
}

/// `kpty help COMMAND`: clap's long help for that subcommand.
pub fn clap_help(name: &str) -> i32 {
    let mut cmd = Cli::command();
    match cmd.find_subcommand_mut(name) {
        Some(sub) => {
            let help = sub.render_long_help().to_string();
            out(format!("{}\n", help.trim_end()).as_bytes());
            0
        }
        None => {
            print_error(&Error::invalid(format!(
                "no command {name:?}; `kpty --help` lists them"
            )));
            ErrorCode::InvalidParams.exit_code()
        }
    }
}

/// `kpty read --follow`: print new output as it arrives until the shell ends. The first read
/// is the one recorded in the audit trail; the waits after it are not recorded one by one (a
/// busy terminal would add an event per chunk of output).
pub fn follow(ctx: &Ctx, mut p: Params, json: bool) -> Result<i32> {
    p.timeout_ms = Some(p.timeout_ms.unwrap_or(30_000));
    // Without `since`: the recent tail at once, then what follows its end.
    let first = Params {
        timeout_ms: if p.since.is_none() {
            Some(0)
        } else {
            p.timeout_ms
        },
        ..p.clone()
    };
    let v = core::dispatch(ctx, Action::Read, &first)?;
    if json {
        print_json(&v);
    } else {
        out(v["output"].as_str().unwrap_or_default().as_bytes());
    }
    let mut alive = v["session_alive"].as_bool() == Some(true);
    let mut next = v["next_offset"].as_u64();
    while alive {
        p.since = next;
        let Some(r) = still_there(core::io::read(ctx, &p))? else {
            return Ok(0);
        };
        if json {
            print_json(&core::to_json(Ok(&r))?);
        } else {
            out(r.output.as_bytes());
        }
        (alive, next) = (r.session_alive, r.next_offset);
    }
    Ok(0)
}

/// `kpty term-read --watch`: clear the terminal and draw the visible screen each time the
/// session's output moves on. New output is waited for with `read --since` (the holder wakes
/// the read on output), not on a timer. Calls the core directly: a watch is not audited.
pub fn watch(ctx: &Ctx, p: Params) -> Result<i32> {
    let view = Params {
        mode: Some("viewport".into()),
        max_lines: Some(p.max_lines.unwrap_or(crate::core::term::MAX_LINES)),
        marker_id: None,
        ..p.clone()
    };
    let reader = |since: Option<u64>, timeout_ms: u64| {
        core::io::read(
            ctx,
            &Params {
                since,
                max_bytes: Some(1),
                timeout_ms: Some(timeout_ms),
                mode: None,
                max_lines: None,
                max_chars: None,
                merge_wrapped: None,
                ..p.clone()
            },
        )
    };
    // The offset is taken before each draw, so output during the draw wakes the next wait.
    let mut since = reader(None, 0)?.next_offset.unwrap_or(0);
    loop {
        let Some(v) = still_there(core::term::term_read(ctx, &view))? else {
            return Ok(0);
        };
        out(format!("\x1b[H\x1b[2J{}\n{}\n", screen_head(&v), v.text).as_bytes());
        loop {
            let Some(r) = still_there(reader(Some(since), 60_000))? else {
                return Ok(0);
            };
            if !r.session_alive {
                return Ok(0);
            }
            let next = r.next_offset.unwrap_or(since);
            if next > since {
                // Redraw from the newest state: skip straight to the current end.
                since = reader(None, 0)?.next_offset.unwrap_or(next).max(next);
                break;
            }
        }
    }
}

/// A follower's next step: the session it was following was killed (and forgotten) meanwhile
/// — the end of the stream, said on stderr, not an error.
fn still_there<T>(r: Result<T>) -> Result<Option<T>> {
    match r {
        Err(e) if e.code == ErrorCode::PtySessionNotFound => {
            eprintln!("kpty: the session is gone (killed); nothing more to follow");
            Ok(None)
        }
        r => r.map(Some),
    }
}

/// The watch's header line: session, terminal state, screen size, title.
fn screen_head(v: &TermReadReply) -> String {
    let (state, alternate, cols, rows, title) = match &v.view {
        TermView::Local(l) => (
            l.terminal_state.to_string(),
            l.buffer_type == BufferType::Alternate,
            l.cols.to_string(),
            l.rows.to_string(),
            l.title.clone().unwrap_or_default(),
        ),
        // A bridge's open shape: shown as it answered.
        TermView::Bridged(m) => {
            let get = |k: &str| m.get(k).cloned().unwrap_or(Value::Null);
            (
                get("terminal_state").as_str().unwrap_or("?").to_string(),
                get("buffer_type") == "alternate",
                get("cols").to_string(),
                get("rows").to_string(),
                get("title").as_str().unwrap_or("").to_string(),
            )
        }
    };
    format!(
        "{} [{state}{}] {cols}x{rows}{}",
        v.session_id,
        if alternate { ", alternate screen" } else { "" },
        if title.is_empty() {
            String::new()
        } else {
            format!(" — {title}")
        }
    )
}

/// `kpty log`: the audit trail, filtered; `--follow` keeps printing new events.
pub fn log(ctx: &Ctx, a: &super::args::LogArgs, json: bool) -> Result<i32> {
    use crate::core::trail;
    let since = match a.since.as_deref() {
        None => None,
        Some(w) => Some(parse_since(w)?),
    };
    let f = trail::Filter {
        session: a.session.clone(),
        agent: a.agent.clone(),
        action: a.action.clone(),
        errors_only: a.errors_only,
        blocked_only: a.blocked_only,
        since,
    };
    let show = |e: &Value| {
        if json {
            print_json(e);
        } else {
            out(format!("{}\n", log_line(e)).as_bytes());
        }
    };
    let (events, mut seen) = trail::query(ctx, &f);
    for e in &events {
        show(e);
    }
    if !a.follow {
        return Ok(0);
    }
    // Follow: from where each file was read, print what is appended. Woken by
    // inotify when a trail file (or a new session's directory) changes; a slow re-check
    // every few seconds covers filesystems that do not report changes.
    let mut watcher = crate::store::watch::Watcher::new();
    loop {
        // Watch the state dir (registry events), sessions/ (new sessions) and each session
        // directory (their events.jsonl), re-added as sessions appear.
        watcher.watch(ctx.state.path());
        watcher.watch(&ctx.state.path().join("sessions"));
        let files = trail::files(ctx, a.session.as_deref());
        for p in &files {
            if let Some(dir) = p.parent() {
                watcher.watch(dir);
            }
        }
        for p in files {
            let from = seen.get(&p).copied().unwrap_or(0);
            let (events, next) = trail::read_from(&p, from);
            seen.insert(p, next);
            for e in events.iter().filter(|e| f.matches(e)) {
                show(e);
            }
        }
        watcher.wait(std::time::Instant::now() + std::time::Duration::from_secs(5));
    }
}

fn parse_since(w: &str) -> Result<jiff::Timestamp> {
    if let Ok(t) = w.parse::<jiff::Timestamp>() {
        return Ok(t);
    }
    let (num, unit) = w.split_at(w.find(|c: char| !c.is_ascii_digit()).unwrap_or(w.len()));
    let n: i64 = num.parse().map_err(|_| {
        Error::invalid(format!(
            "--since {w:?}: use RFC 3339 or an age like 10m, 2h, 1d"
        ))
    })?;
    let secs = match unit {
        "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        "d" => n * 86_400,
        _ => {
            return Err(Error::invalid(format!(
                "--since {w:?}: use RFC 3339 or an age like 10m, 2h, 1d"
            )));
        }
    };
    jiff::Timestamp::now()
        .checked_sub(jiff::SignedDuration::from_secs(secs))
        .map_err(|e| Error::invalid(format!("--since {w:?}: {e}")))
}

fn log_line(e: &Value) -> String {
    let s = |k: &str| e[k].as_str().unwrap_or("-").to_string();
    let outcome = if e["blocked"] == Value::Bool(true) {
        format!("BLOCKED({})", s("blocked_pattern"))
    } else if e["success"] == Value::Bool(true) {
        "ok".into()
    } else {
        format!("ERR {}", s("error_code"))
    };
    let cmd = e["command"]
        .as_str()
        .map(|c| c.replace('\n', "\\n"))
        .unwrap_or_default();
    format!(
        "{}  {:<18} {:<16} {:<28} {:>6}ms  {}",
        s("ts"),
        s("action"),
        s("session_id"),
        outcome,
        e["duration_ms"].as_u64().unwrap_or(0),
        cmd
    )
}
