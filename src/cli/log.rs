//! `kpty log`: the audit trail, filtered, one line per event (or its JSON); `--follow`
//! keeps printing new events (the follow itself is the core's, [`crate::core::trail::follow`]).

use super::output::{out, print_json, shown};
use crate::core::Ctx;
use crate::core::traffic::Event;
use crate::error::{Error, Result, Voice};

/// `kpty log`: the audit trail, filtered; `--follow` keeps printing new events.
pub fn log(ctx: &Ctx, a: &super::args::LogArgs, json: bool) -> Result<i32> {
    use crate::core::trail;
    let since = match a.after.as_deref() {
        None => None,
        Some(w) => Some(parse_after(w)?),
    };
    let session = match a.session.as_deref() {
        None => None,
        Some(r) => Some(trail::session_of(ctx, r).map_err(|e| e.speak(Voice::Cli))?),
    };
    if a.verify {
        return verify(ctx, session.as_deref(), json);
    }
    let f = trail::Filter {
        session,
        agent: a.agent.clone(),
        action: a.action.clone(),
        errors_only: a.errors_only,
        blocked_only: a.blocked_only,
        since,
    };
    let mut show = |e: &Event| {
        if json {
            print_json(e);
        } else {
            out(format!("{}\n", shown(&log_line(e))).as_bytes());
        }
    };
    trail::follow(ctx, &f, a.follow, &mut show).map_err(|e| e.speak(Voice::Cli))?;
    Ok(0)
}

/// `kpty log --verify`.
#[derive(serde::Serialize)]
struct Verdict<'a> {
    ok: bool,
    /// Whether seals were checked (this user has a kpty key).
    seals_checked: bool,
    journals: &'a [crate::core::trail::Verified],
}

/// `kpty log --verify`: every journal's chain checked; exit 1 when one is broken.
fn verify(ctx: &Ctx, session: Option<&str>, json: bool) -> Result<i32> {
    let (journals, seals) =
        crate::core::trail::verify(ctx, session).map_err(|e| e.speak(Voice::Cli))?;
    let ok = journals.iter().all(|j| j.checked.broken.is_none());
    if json {
        print_json(&Verdict {
            ok,
            seals_checked: seals,
            journals: &journals,
        });
        return Ok(if ok { 0 } else { 1 });
    }
    for j in &journals {
        let c = &j.checked;
        let earlier = match c.unchained {
            0 => String::new(),
            n => format!(" ({n} from before the chain)"),
        };
        let line = match c.broken {
            None => format!("ok      {}: {} entries{earlier}\n", j.journal, c.lines),
            Some((n, t)) => format!(
                "BROKEN  {}: entry {n} {}: {}\n",
                j.journal,
                kind(t),
                t.says()
            ),
        };
        out(shown(&line).as_bytes());
    }
    if !seals {
        eprintln!("kpty: seals not checked: this user has no kpty key (nothing was sealed here)");
    }
    Ok(if ok { 0 } else { 1 })
}

/// The word `--verify` prints for what is wrong with an entry (as its JSON names it).
fn kind(t: crate::store::chain::Tamper) -> &'static str {
    use crate::store::chain::Tamper;
    match t {
        Tamper::Edited => "edited",
        Tamper::Unlinked => "unlinked",
        Tamper::Unchained => "unchained",
        Tamper::Unsealed => "unsealed",
    }
}

fn parse_after(w: &str) -> Result<jiff::Timestamp> {
    if let Ok(t) = w.parse::<jiff::Timestamp>() {
        return Ok(t);
    }
    let (num, unit) = w.split_at(w.find(|c: char| !c.is_ascii_digit()).unwrap_or(w.len()));
    let n: i64 = num.parse().map_err(|_| {
        Error::invalid(format!(
            "--after {w:?}: use a time (RFC 3339, 2026-11-22T07:00:00Z) or an age like 30s, 10m, 2h, 1d"
        ))
    })?;
    let secs = match unit {
        "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        "d" => n * 86_400,
        _ => {
            return Err(Error::invalid(format!(
                "--after {w:?}: use a time (RFC 3339, 2026-11-22T07:00:00Z) or an age like 30s, 10m, 2h, 1d"
            )));
        }
    };
    jiff::Timestamp::now()
        .checked_sub(jiff::SignedDuration::from_secs(secs))
        .map_err(|e| Error::invalid(format!("--after {w:?}: {e}")))
}

fn log_line(e: &Event) -> String {
    let s = |v: &Option<String>| v.as_deref().unwrap_or("-").to_string();
    let outcome = if e.blocked == Some(true) {
        format!("BLOCKED({})", s(&e.blocked_pattern))
    } else if e.success == Some(true) {
        "ok".into()
    } else {
        format!("ERR {}", s(&e.error_code))
    };
    let mut cmd = e
        .command
        .as_deref()
        .map(|c| c.replace('\n', "\\n"))
        .unwrap_or_default();
    if let Some(id) = &e.evidence_id {
        cmd.push_str(&format!("  [{id}]"));
    }
    format!(
        "{}  {:<18} {:<16} {:<28} {:>6}ms  {}",
        s(&e.ts),
        s(&e.action),
        s(&e.session_id),
        outcome,
        e.duration_ms.unwrap_or(0),
        cmd
    )
}
