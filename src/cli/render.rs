//! Human output for each action (raw, as the terminal shows it, read from the typed reply;
//! the `--json` output is the action's object, redacted unless opted out) and error lines on
//! stderr. A closed stdout (e.g. `| head`) ends quietly.

use super::list_table::list_table;
use super::output::{out, shown, text_line};
use crate::core::Reply;
use crate::error::{Error, ErrorCode};

// The channel primitives, where the front end's entry points name them.
pub(super) use super::output::{print_error, print_json};

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
            if let Some(e) = &r.evidence {
                eprintln!("kpty: evidence {} in {}", e.evidence_id, shown(&e.path));
            }
        }
        Reply::Check(r) => super::check::render(r),
        Reply::Read(r) => out(r.output.as_bytes()),
        // A line of text, ended as a line (the output may stop at a prompt).
        Reply::WaitFor(r) => text_line(&r.output),
        Reply::TermRead(r) => text_line(&r.text),
        // The image as it is (`-o FILE`, or a PNG, was written before this; then nothing is
        // printed).
        Reply::Screenshot(r) => out(r.image.as_bytes()),
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
        Reply::Recording(r) => text_line(&r.content),
        Reply::Evidence(r) => evidence(r),
        Reply::SendLine(_) | Reply::SendKeys(_) | Reply::Resize(_) | Reply::Heartbeat(_) => {}
    }
}

/// An evidence pack made: its id and folder, its range, its commands.
pub(super) fn evidence(r: &crate::api::reply::EvidenceReply) {
    let mut t = format!(
        "{}\n  {}\n  {} .. {}, {} file(s)\n",
        r.evidence_id,
        shown(&r.path),
        r.from,
        r.to,
        r.files.len()
    );
    for c in &r.commands {
        let end = match (c.exit_code, c.duration_ms) {
            (Some(code), Some(ms)) => format!("exit {code} in {ms} ms"),
            (None, Some(ms)) => format!("no exit code, {ms} ms"),
            _ => "unfinished".into(),
        };
        t.push_str(&format!("  $ {}  ({end})\n", shown(&c.command)));
    }
    super::output::out(t.as_bytes());
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

/// `kpty help`: clap's long help, exactly as `kpty --help` prints it.
pub fn main_help() -> i32 {
    let help = super::args::command().render_long_help().to_string();
    out(format!("{}\n", help.trim_end()).as_bytes());
    0
}

/// `kpty help COMMAND`: clap's long help for that subcommand.
pub fn clap_help(name: &str) -> i32 {
    let mut cmd = super::args::command();
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
