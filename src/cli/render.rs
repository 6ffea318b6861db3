//! Human output for each action (raw, as the terminal shows it, read from the typed reply;
//! the `--json` output is the action's object, redacted unless opted out) and error lines on
//! stderr. A closed stdout (e.g. `| head`) ends quietly.

use super::args::Cli;
use crate::api::sessions::{ListReply, Live};
use crate::core::Reply;
use crate::error::{Error, ErrorCode};
use crate::store::RegistryEntry;
use clap::CommandFactory;
use serde_json::Value;
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

/// What to show on stdout before an error line (a timed-out or interrupted talk's partial
/// output).
pub fn before_error(e: &Error) {
    if matches!(
        e.code,
        ErrorCode::PtyTimeout | ErrorCode::PtyProcessExited | ErrorCode::Cancelled
    ) && let Some(p) = e.details.as_ref().and_then(|d| d.partial_output())
        && !p.is_empty()
    {
        out(format!("{p}\n").as_bytes());
    }
}

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

/// A forced talk that cleared text from the shell's input line first: say so on stderr.
fn cleared_note(r: &crate::api::reply::TalkReply) {
    if let Some(line) = &r.cleared_line {
        eprintln!("kpty: cleared {line:?} from the shell's input line before typing (--force)");
    }
}

/// A talk that returned because its command waits for input: say so on stderr, with how
/// to answer it.
fn waiting_note(r: &crate::api::reply::TalkReply) {
    if !r.waiting_for_input {
        return;
    }
    let prompt = r.prompt.as_deref().unwrap_or("").trim();
    let echo = if r.echo_off == Some(true) {
        " (echo off: a password?)"
    } else {
        ""
    };
    eprintln!(
        "kpty: waiting for input{}{echo} — answer with `kpty send-line -s {} …`, then `kpty read -s {}` \
         (or interrupt it: `kpty send-line -s {} '\\x03'`)",
        if prompt.is_empty() {
            String::new()
        } else {
            format!(": {prompt}")
        },
        r.session_id,
        r.session_id,
        r.session_id,
    );
}

/// Human rendering of a successful action.
pub fn human(reply: &Reply) {
    match reply {
        Reply::Create(r) => text_line(&r.session_id),
        Reply::Shell(r) => text_line(&r.address),
        Reply::Talk(r) => {
            cleared_note(r);
            text_line(&r.output);
            waiting_note(r);
        }
        Reply::Check(r) => super::check::render(r),
        Reply::Read(r) => out(r.output.as_bytes()),
        // A line of text, ended as a line (the output may stop at a prompt).
        Reply::WaitFor(r) => text_line(&r.output),
        Reply::TermRead(r) => text_line(&r.text),
        Reply::List(r) => list_table(r),
        Reply::Kill(r) => text_line(&format!("killed {}", shown(&r.session_id))),
        Reply::KillAll(r) => super::kill_all::render(r),
        Reply::ListAll(r) => super::list_all::render(r),
        Reply::Help(_) => {
            main_help();
        }
        Reply::Session(r) => text_line(&r.session_id),
        Reply::SendLineToAgent(r) => text_line(&r.resolved_session_id),
        Reply::Unregister(r) => text_line(&format!("unregistered {}", shown(&r.session_id))),
        Reply::Prune(r) => prune(r),
        Reply::SendLine(_) | Reply::SendKeys(_) | Reply::Resize(_) | Reply::Heartbeat(_) => {}
    }
}

/// `prune`'s report: what went, and (with --dry-run) what would go, one line each on stdout.
fn prune(r: &crate::api::sessions::PruneReply) {
    let mut said = false;
    for id in r.pruned.iter().chain(&r.pruned_local) {
        text_line(&format!("pruned {}", shown(id)));
        said = true;
    }
    for id in r
        .removed_files
        .iter()
        .filter(|id| !r.pruned_local.contains(id))
    {
        text_line(&format!("removed the files of {}", shown(id)));
        said = true;
    }
    // Ended but kept: a dry run (or a prune not asked to remove them).
    for e in r
        .ended_local
        .iter()
        .filter(|e| !r.pruned_local.contains(&e.session_id))
    {
        text_line(&format!(
            "would prune {} ({})",
            shown(&e.session_id),
            e.state
        ));
        said = true;
    }
    if !said {
        eprintln!("nothing to prune");
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

/// `list`'s short sandbox marker: `-`, `ll7` (Landlock ABI 7), `ll7,nonet`.
fn sandbox_marker(s: Option<&crate::sandbox::Policy>) -> String {
    match s {
        None => "-".into(),
        Some(p) if p.network => format!("ll{}", p.abi),
        Some(p) => format!("ll{},nonet", p.abi),
    }
}

fn list_table(r: &ListReply<RegistryEntry>) {
    if r.sessions.is_empty() {
        eprintln!("no sessions in {}", r.state_dir);
        return;
    }
    let mut rows = vec![
        [
            "SESSION", "STATE", "PID", "LABEL", "SHELL", "SANDBOX", "CREATED",
        ]
        .map(String::from),
    ];
    for s in &r.sessions {
        let e = &s.entry;
        rows.push([
            shown(&e.session_id).into_owned(),
            shown(&state_cell(s)).into_owned(),
            e.pid.map_or("-".into(), |p| p.to_string()),
            or_dash(&e.label),
            or_dash(&e.shell),
            sandbox_marker(e.sandbox.as_ref()),
            or_dash(&e.created_at),
        ]);
        rows.extend(
            s.ptys
                .iter()
                .flatten()
                .filter(|p| p.pty > 0)
                .map(|p| pty_row(e, p)),
        );
    }
    out(table(&rows).as_bytes());
}

/// A listed name or `-`, with control characters shown as escapes.
fn or_dash(v: &Option<String>) -> String {
    v.as_deref().map_or("-".into(), |t| shown(t).into_owned())
}

/// A session's STATE column: `exited(3)`, `program:running(2 restarts)`,
/// `running:vim [1 attached]` …
fn state_cell(s: &crate::api::sessions::SessionView<RegistryEntry>) -> String {
    let state = match &s.live {
        Some(Live::Exited { exit_code, .. }) => format!(
            "exited({})",
            exit_code.map_or("?".into(), |c| c.to_string())
        ),
        Some(Live::Running(l)) if l.process.is_some() => {
            let p = l
                .process
                .as_ref()
                .map(|p| (p.state.as_str(), p.restart_count));
            match p {
                Some((state, 0)) => format!("program:{state}"),
                Some((state, n)) => format!("program:{state}({n} restarts)"),
                None => s.state.to_string(),
            }
        }
        Some(Live::Running(l)) if l.busy => format!(
            "running:{}",
            l.foreground_command.as_deref().unwrap_or("busy")
        ),
        _ => s.state.to_string(),
    };
    match &s.live {
        Some(Live::Running(l)) if l.attached > 0 => {
            format!("{state} [{} attached]", l.attached)
        }
        _ => state,
    }
}

/// The row of shell PTY `p` of the session of entry `e`, under the session's row.
fn pty_row(e: &RegistryEntry, p: &crate::api::sessions::PtyView) -> [String; 7] {
    let state = match (p.exit_code, p.attached) {
        (Some(c), _) => format!("exited({c})"),
        (None, 0) => p.state.to_string(),
        (None, n) => format!("{} [{n} attached]", p.state),
    };
    [
        format!("  {}", shown(&p.address)),
        state,
        p.pid.map_or("-".into(), |p| p.to_string()),
        "-".into(),
        p.command
            .as_deref()
            .map_or_else(|| or_dash(&e.shell), |c| shown(c).into_owned()),
        sandbox_marker(e.sandbox.as_ref()),
        "-".into(),
    ]
}

/// `rows` as columns two spaces apart, each as wide as its widest cell (counted once), no
/// trailing blanks.
fn table<const N: usize>(rows: &[[String; N]]) -> String {
    let widths: Vec<usize> = (0..N)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut s = String::with_capacity(rows.len() * (widths.iter().sum::<usize>() + 2 * N + 1));
    for r in rows {
        let start = s.len();
        for (i, (c, w)) in r.iter().zip(&widths).enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            s.push_str(c);
            if i + 1 < N {
                let pad = w.saturating_sub(c.chars().count());
                s.extend(std::iter::repeat_n(' ', pad));
            }
        }
        let end = s[start..].trim_end().len() + start;
        s.truncate(end);
        s.push('\n');
    }
    s
}

/// `kpty help`: clap's long help, exactly as `kpty --help` prints it.
pub fn main_help() -> i32 {
    let help = Cli::command().render_long_help().to_string();
    out(format!("{}\n", help.trim_end()).as_bytes());
    0
}

/// `kpty help COMMAND`: clap's long help for that subcommand.
pub fn clap_help(name: &str) -> i32 {
    let mut cmd = Cli::command();
    // Built, so the usage line reads `kpty talk …`, as `kpty talk --help` shows it.
    cmd.build();
    if name == "write" {
        out(
            b"write is deprecated: an action kept for older MCP clients, not a kpty command. Use `kpty send-line` \
              (type a line + Enter) or `kpty talk` (run a command and wait).\n",
        );
        return 0;
    }
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
