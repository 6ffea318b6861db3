//! The command policy: what a submitted shell line would do, judged by meaning.
//!
//! Each line is parsed with a real shell parser (brush-parser) and walked as the shell would
//! run it (`eval`): words expanded (`words`), wrappers peeled and strings handed to other
//! shells followed (`peel`), pipes followed (`pipes`), then every simple command judged by
//! rules with names and categories (`rules`, `secrets`, `interp`). A line that does not
//! parse (an unbalanced quote, a Windows command line) is judged by the regex patterns of
//! [`super::dangerous`]; the Windows forms of the seeds are judged in every case by
//! `windows`, which reads the line as cmd.exe and as PowerShell would.
//!
//! This is a guard-rail against accidents and careless agents, not a sandbox: code that
//! builds its commands at run time, or a script file it writes first, is not followed. The
//! kernel sandbox (`create --sandbox`) is the boundary for sessions that need a guarantee.
//!
//! [`explain`] is the one entry point.
//!
//! The files import one way. At the bottom, leaves that import no sibling (or only another
//! leaf): the word model (`field`), the rules by name (`catalog`), argument readers (`args`,
//! `peeled`), paths (`paths`), nesting depth (`nesting`), the session bookkeeping (`track`, `vars`)
//! and the state of one judgement (`state`, the `Eval` every analyser is handed). Above them
//! the expansion and the analysers (`words`, `redirects`, `operators`, `pipes`, `secrets`,
//! `system`, `destructive`, `network`, `history`, `interp`, `windows`, `launchers`, `effects`),
//! then `rules`, which asks each analyser, and `peel`; at the top `eval` and this file. An
//! analyser that follows a string into another shell (`sh -c '…'`) calls back into the walk
//! through the `&mut Eval` it was handed (`e.nested(…)`), never by importing `eval`.

mod args;
mod catalog;
pub mod complete;
pub mod context;
mod destructive;
mod effects;
mod eval;
mod field;
mod history;
mod interp;
mod launchers;
mod longopts;
mod nesting;
mod network;
mod operators;
mod paths;
mod peel;
mod peeled;
mod pipes;
mod redirects;
mod reserved;
mod rules;
mod secrets;
mod state;
mod system;
mod track;
mod vars;
mod windows;
mod words;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_prop;
#[cfg(test)]
mod tests_rewrites;

use super::dangerous::{BlockedMatch, check_patterns, check_windows};
use catalog::Rule;

/// The policy's judgement of one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The rule that blocks the line, or `None` when it is allowed.
    pub blocked: Option<BlockedMatch>,
    /// The line parsed as shell; `false` means it was checked by the regex patterns alone.
    pub parsed: bool,
    /// The simple commands the policy saw, normalised (quotes removed, variables substituted,
    /// wrappers peeled), one string each.
    pub commands: Vec<String>,
    /// The normalised command the blocking rule matched.
    pub seen: Option<String>,
}

fn matched(rule: &Rule) -> BlockedMatch {
    BlockedMatch {
        id: rule.id,
        category: rule.category,
        description: rule.description,
    }
}

/// The regex rules still judged on raw text: the Windows ones on the line, all of them on
/// nested strings that did not parse.
fn raw_patterns(line: &str, nested: &[String]) -> (Option<BlockedMatch>, Option<String>) {
    let raw = std::iter::once(line).chain(nested.iter().map(String::as_str));
    let hit = raw.enumerate().find_map(|(i, text)| {
        let m = if i == 0 {
            check_windows(text)
        } else {
            check_patterns(text)
        };
        m.map(|m| (m, text.to_string()))
    });
    match hit {
        Some((m, text)) => (Some(m), Some(text)),
        None => (None, None),
    }
}

/// Whether `command` is blocked: the policy's verdict ([`explain`]).
#[must_use]
pub fn check_dangerous(command: &str) -> Option<BlockedMatch> {
    explain(command).blocked
}

/// Judges one line (or several, newline-separated) as the shell would read it.
#[must_use]
pub fn explain(line: &str) -> Verdict {
    explain_with(line, state::Eval::default()).0
}

/// Judges `line` starting from the state `e` holds ([`context`]); returns the state after it.
fn explain_with(line: &str, mut e: state::Eval) -> (Verdict, state::Eval) {
    if e.script(line).is_none() {
        let hit =
            check_patterns(line).or_else(|| windows::judge_line(line).map(|h| matched(h.rule)));
        let v = Verdict {
            seen: hit.as_ref().map(|_| line.to_string()),
            blocked: hit,
            parsed: false,
            commands: vec![line.to_string()],
        };
        return (v, e);
    }
    let (blocked, seen) = match &e.hit {
        Some(hit) => (Some(matched(hit.rule)), Some(hit.seen.clone())),
        None => match windows::judge_line(line) {
            Some(hit) => (Some(matched(hit.rule)), Some(hit.seen)),
            None => raw_patterns(line, &e.nested_unparsed),
        },
    };
    let v = Verdict {
        blocked,
        parsed: true,
        commands: e.commands.clone(),
        seen,
    };
    (v, e)
}
