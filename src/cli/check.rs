//! `kpty check`: the command from the arguments (or stdin, for `-`), and the verdict shown as
//! a person reads it — `allowed`, or `blocked` with the rule — plus the commands the policy
//! saw. Exits 0 when allowed and `DANGEROUS_COMMAND_BLOCKED`'s code when blocked, so
//! `kpty check "$c" && kpty talk "$c"` works in scripts.

use super::args::CheckArgs;
use super::output::{out, shown};
use crate::api::Params;
use crate::api::check::CheckReply;
use crate::error::{Error, ErrorCode, Result};
use std::io::Read;

/// `check`'s parameters: the words joined with spaces, or all of stdin for `-`.
pub(super) fn params(a: &CheckArgs) -> Result<Params> {
    let command = match a.command.as_slice() {
        [dash] if dash == "-" => from_stdin()?,
        words => words.join(" "),
    };
    Ok(Params {
        command: Some(command),
        ..Default::default()
    })
}

/// The whole of stdin, trailing newlines removed (read up to one byte past the input limit,
/// so an oversized command is refused by the check's size limit, not read whole).
fn from_stdin() -> Result<String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(crate::api::MAX_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::invalid(format!("cannot read the command from stdin: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::invalid("the command on stdin is not UTF-8 text"))?;
    Ok(text.trim_end_matches(['\n', '\r']).to_string())
}

/// The exit code of a check: 0 allowed, `DANGEROUS_COMMAND_BLOCKED`'s when blocked.
pub(super) fn exit_code(r: &CheckReply) -> i32 {
    if r.allowed {
        0
    } else {
        ErrorCode::DangerousCommandBlocked.exit_code()
    }
}

/// The verdict, then what the policy saw, one line each (control characters escaped).
pub(super) fn render(r: &CheckReply) {
    let mut s = if r.allowed {
        "allowed\n".to_string()
    } else {
        format!(
            "blocked  {} ({}): {}\n",
            shown(r.rule.as_deref().unwrap_or("?")),
            shown(r.category.as_deref().unwrap_or("?")),
            shown(r.description.as_deref().unwrap_or(""))
        )
    };
    if let Some(seen) = &r.seen {
        s.push_str(&format!("  rule matched: {}\n", shown(seen)));
    }
    if let Some(key) = &r.key {
        s.push_str(&format!("  after key: {}\n", shown(key)));
    }
    if r.edited {
        for line in r.line.split('\n') {
            s.push_str(&format!("  shell reads: {}\n", shown(line)));
        }
    }
    for c in &r.commands {
        s.push_str(&format!("  saw: {}\n", shown(c)));
    }
    s.push_str(if r.parsed {
        "  checked as: shell\n"
    } else {
        "  checked as: patterns (the line does not parse as shell)\n"
    });
    out(s.as_bytes());
}
