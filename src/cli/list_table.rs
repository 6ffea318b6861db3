//! `list`'s human table: one row a session (its state, pid, label, shell, sandbox, age),
//! one indented row for each of its other PTYs, columns aligned; names read from state
//! shown with their control characters escaped.

use super::output::{out, shown};
use crate::api::sessions::{ListReply, Live, SessionView};
use crate::store::RegistryEntry;

/// `list`'s short sandbox marker: `-`, `ll7` (Landlock ABI 7), `ll7,nonet`.
fn sandbox_marker(s: Option<&crate::sandbox::Policy>) -> String {
    match s {
        None => "-".into(),
        Some(p) if p.network => format!("ll{}", p.abi),
        Some(p) => format!("ll{},nonet", p.abi),
    }
}

/// The table of `r` on stdout (or "no sessions in DIR" on stderr).
pub(super) fn list_table(r: &ListReply<RegistryEntry>) {
    if r.sessions.is_empty() {
        eprintln!("no sessions in {}", r.state_dir);
        return;
    }
    let mut rows = vec![
        [
            "SESSION", "STATE", "PID", "LABEL", "SHELL", "SANDBOX", "CREATED",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for s in &r.sessions {
        rows.push(session_row(s));
        rows.extend(pty_rows(s));
    }
    out(aligned(rows).as_bytes());
}

/// A session's STATE cell: its program's or foreground command's state, with how many
/// talks wait to be let in and how many clients are attached.
fn session_state(s: &SessionView<RegistryEntry>) -> String {
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
    let Some(Live::Running(l)) = &s.live else {
        return state;
    };
    let mut state = state;
    if l.waiting_talks > 0 {
        state = format!("{state} [{} waiting]", l.waiting_talks);
    }
    if l.attached > 0 {
        state = format!("{state} [{} attached]", l.attached);
    }
    state
}

/// A text cell read from state, escaped, or `-`.
fn or_dash(v: &Option<String>) -> String {
    v.as_deref().map_or("-".into(), |t| shown(t).into_owned())
}

/// The session's own row.
fn session_row(s: &SessionView<RegistryEntry>) -> Vec<String> {
    let state = session_state(s);
    let e = &s.entry;
    vec![
        shown(&e.session_id).into_owned(),
        shown(&state).into_owned(),
        e.pid.map_or("-".into(), |p| p.to_string()),
        or_dash(&e.label),
        or_dash(&e.shell),
        sandbox_marker(e.sandbox.as_ref()),
        or_dash(&e.created_at),
    ]
}

/// One indented row for each PTY of the session beyond its first.
fn pty_rows(s: &SessionView<RegistryEntry>) -> Vec<Vec<String>> {
    let e = &s.entry;
    let mut rows = Vec::new();
    for p in s.ptys.iter().flatten().filter(|p| p.pty > 0) {
        let state = match (p.exit_code, p.attached) {
            (Some(c), _) => format!("exited({c})"),
            (None, 0) => p.state.to_string(),
            (None, n) => format!("{} [{n} attached]", p.state),
        };
        rows.push(vec![
            format!("  {}", shown(&p.address)),
            state,
            p.pid.map_or("-".into(), |p| p.to_string()),
            "-".into(),
            p.command
                .as_deref()
                .map_or_else(|| or_dash(&e.shell), |c| shown(c).into_owned()),
            sandbox_marker(e.sandbox.as_ref()),
            "-".into(),
        ]);
    }
    rows
}

/// The rows as text, each column as wide as its widest cell, two spaces between columns.
fn aligned(rows: Vec<Vec<String>>) -> String {
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
    s
}
