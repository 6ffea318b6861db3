//! The command policy: what a submitted shell line would do, judged by meaning.
//!
//! Each line is parsed with a real shell parser (brush-parser) and walked as the shell would
//! run it (`eval`): words expanded (`words`), wrappers peeled and strings handed to other
//! shells followed (`peel`), pipes followed (`pipes`), then every simple command judged by
//! rules with names and categories ([`rules`], [`secrets`], `interp`). A line that does not
//! parse (an unbalanced quote, a Windows command line) is judged by the regex patterns of
//! [`super::dangerous`]; the Windows forms of the seeds are judged in every case by
//! [`windows`], which reads the line as cmd.exe and as PowerShell would.
//!
//! This is a guard-rail against accidents and careless agents, not a sandbox: code that
//! builds its commands at run time, or a script file it writes first, is not followed. The
//! kernel sandbox (`create --sandbox`) is the boundary for sessions that need a guarantee.
//!
//! [`explain`] is the one entry point.

pub mod complete;
pub mod context;
mod destructive;
mod effects;
mod eval;
mod history;
mod interp;
mod launchers;
mod longopts;
mod network;
mod operators;
mod paths;
mod peel;
mod pipes;
mod redirects;
pub mod rules;
pub mod secrets;
mod system;
pub mod windows;
mod words;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_prop;
#[cfg(test)]
mod tests_rewrites;

use super::dangerous::{BlockedMatch, check_patterns, check_windows};

/// One rule of the policy.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// Stable identifier (reported as the error's `pattern`).
    pub id: &'static str,
    /// Rule family (`destructive_file_ops`, `disk_ops`, …).
    pub category: &'static str,
    /// Human-readable reason.
    pub description: &'static str,
}

/// A rule that blocked, and the command it saw.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The rule.
    pub rule: &'static Rule,
    /// The normalised command that broke it.
    pub seen: String,
}

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

/// Lines nested deeper than this (brackets, braces, substitutions) are not parsed: the
/// parser recurses per level, and a thread's stack is finite.
const MAX_NESTING: usize = 48;

/// Whether `text` is nested too deeply to parse.
fn too_deep(text: &str) -> bool {
    nesting(text) > MAX_NESTING
}

/// The deepest nesting in `line`: brackets, compound-command keywords (`if` … `fi`, `while`
/// … `done`, `case` … `esac`; quoted ones too, which only errs on the safe side), and
/// backquotes as one level per pair.
fn nesting(line: &str) -> usize {
    brackets(line).max(keywords(line))
}

/// The deepest `if`/`while`/`until`/`for`/`select`/`case` nesting, by words. A `case` counts
/// as eight levels: the parser's time grows about twofold per nested `case`.
fn keywords(line: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for word in line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        match word {
            "if" | "while" | "until" | "for" | "select" | "case" => {
                depth += if word == "case" { 8 } else { 1 };
                max = max.max(depth);
            }
            "esac" => depth = depth.saturating_sub(8),
            "fi" | "done" => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The deepest bracket nesting in `line`, counting backquotes as one level per pair.
fn brackets(line: &str) -> usize {
    let (mut depth, mut max, mut ticks) = (0usize, 0usize, 0usize);
    for c in line.chars() {
        match c {
            '(' | '{' | '[' => {
                depth += 1;
                max = max.max(depth);
            }
            ')' | '}' | ']' => depth = depth.saturating_sub(1),
            '`' => ticks += 1,
            _ => {}
        }
    }
    max + ticks / 2
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
    explain_with(line, eval::Eval::default()).0
}

/// Judges `line` starting from the state `e` holds ([`context`]); returns the state after it.
fn explain_with(line: &str, mut e: eval::Eval) -> (Verdict, eval::Eval) {
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
