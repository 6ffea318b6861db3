//! Environment variables that make the shell or a program run code ([`ENV_RULES`]), and how
//! a value given to one is judged ([`judge_env`]): read by a session's launch
//! ([`super::launch`]) and by a typed line that assigns one (the policy's context). The
//! policy's line judge is passed in, so this file imports nothing of the policy and the
//! policy can use it: `launch` is on top of `policy`, this table under both.

use super::dangerous::BlockedMatch;

/// How an environment variable is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EnvKind {
    /// The value is a command line something runs (`PROMPT_COMMAND`, `GIT_SSH_COMMAND`).
    Line,
    /// The value is a prompt: its `$(…)` and backquoted parts run at every prompt.
    Prompt,
    /// The value names or holds code kpty cannot judge: refused outright.
    Refused,
}

/// One entry of [`ENV_RULES`].
#[derive(Debug)]
pub(super) struct EnvRule {
    /// The variable name, or a prefix when it ends in `*` (`BASH_FUNC_*`).
    pub name: &'static str,
    /// How its value is judged.
    pub kind: EnvKind,
    /// Why (the refusal's description).
    pub why: &'static str,
}

macro_rules! env_rules {
    ($($name:literal => $kind:ident, $why:literal;)*) => {
        /// Environment variables that make the shell or a program run code.
        pub(super) const ENV_RULES: &[EnvRule] = &[$(EnvRule { name: $name, kind: EnvKind::$kind, why: $why }),*];
    };
}

env_rules! {
    "PROMPT_COMMAND" => Line, "bash runs it before every prompt";
    "PS0" => Prompt, "bash expands it (running its command substitutions) after every Enter";
    "PS1" => Prompt, "the shell expands it (running its command substitutions) at every prompt";
    "PS2" => Prompt, "the shell expands it at every continuation prompt";
    "PS3" => Prompt, "the shell expands it at every select prompt";
    "PS4" => Prompt, "the shell expands it before every traced command";
    "PROMPT" => Prompt, "zsh expands it at every prompt";
    "RPROMPT" => Prompt, "zsh expands it at every prompt";
    "BASH_ENV" => Refused, "non-interactive bash runs the file it names, which kpty cannot judge";
    "ENV" => Refused, "sh and interactive POSIX shells run the file it names, which kpty cannot judge";
    "ZDOTDIR" => Refused, "zsh runs the startup files of the folder it names, which kpty cannot judge";
    "BASH_FUNC_*" => Refused, "every bash started imports it as a function that can replace any command";
    "SHELLOPTS" => Refused, "changes how bash reads every line, so the policy's reading no longer holds";
    "BASHOPTS" => Refused, "changes how bash reads every line, so the policy's reading no longer holds";
    "LD_PRELOAD" => Refused, "loads a library into every program started";
    "LD_AUDIT" => Refused, "loads a library into every program started";
    "LD_LIBRARY_PATH" => Refused, "replaces the libraries every program started loads";
    "DYLD_INSERT_LIBRARIES" => Refused, "loads a library into every program started (macOS)";
    "DYLD_LIBRARY_PATH" => Refused, "replaces the libraries every program started loads (macOS)";
    "PERL5OPT" => Refused, "every perl started runs the options (and code) it holds";
    "PYTHONSTARTUP" => Refused, "interactive python runs the file it names";
    "NODE_OPTIONS" => Refused, "every node started takes its options (--require runs a file)";
    "RUBYOPT" => Refused, "every ruby started takes its options (-r runs a file)";
    "JAVA_TOOL_OPTIONS" => Refused, "every JVM started takes its options (agents run code)";
    "_JAVA_OPTIONS" => Refused, "every JVM started takes its options (agents run code)";
    "GIT_SSH_COMMAND" => Line, "git runs it as a command line";
    "GIT_SSH" => Line, "git runs the program it names";
    "GIT_PROXY_COMMAND" => Line, "git runs it as a command line";
    "GIT_EXTERNAL_DIFF" => Line, "git runs it as a command line";
    "GIT_EDITOR" => Line, "git runs it as a command line";
    "GIT_PAGER" => Line, "git runs it as a command line";
    "GIT_ASKPASS" => Line, "git runs the program it names";
    "SSH_ASKPASS" => Line, "ssh runs the program it names";
    "SUDO_ASKPASS" => Line, "sudo runs the program it names";
    "EDITOR" => Line, "programs run it as a command line";
    "VISUAL" => Line, "programs run it as a command line";
    "PAGER" => Line, "programs run it as a command line";
    "MANPAGER" => Line, "man runs it as a command line";
    "LESSOPEN" => Line, "less runs it as a command line on every file";
    "LESSCLOSE" => Line, "less runs it as a command line on every file";
    "BROWSER" => Line, "programs run it as a command line";
    "FCEDIT" => Line, "bash's fc runs it as a command line";
}

/// The rule for a variable name.
#[must_use]
pub(super) fn env_rule(name: &str) -> Option<&'static EnvRule> {
    ENV_RULES.iter().find(|r| match r.name.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => r.name == name,
    })
}

/// Why a launch field is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchRefusal {
    /// The field that carried it (`command`, `shell`, `env.PROMPT_COMMAND`, `restart`…).
    pub field: String,
    /// The rule.
    pub rule: BlockedMatch,
    /// What the policy judged (the command it matched, or the variable).
    pub seen: String,
}

impl LaunchRefusal {
    /// The error message (it says that nothing was started).
    #[must_use]
    pub fn message(&self) -> String {
        format!(
            "blocked: {} breaks the dangerous-command rule {} ({}): {:?}; nothing was started",
            self.field, self.rule.id, self.rule.description, self.seen
        )
    }
}

/// The rule for a variable refused outright (its description is the table's reason).
fn refused_rule(rule: &'static EnvRule) -> BlockedMatch {
    BlockedMatch {
        id: "env_runs_unjudged_code",
        category: "launch",
        description: rule.why,
    }
}

/// The policy's verdict on one line: the rule that blocks it, and the command it saw.
pub(crate) type LineVerdict = (Option<BlockedMatch>, Option<String>);

/// `Err` naming `field` when the policy blocked `line`: the rule, with the command it saw
/// (`seen`, else the line).
pub(super) fn refusal(
    field: &str,
    line: &str,
    blocked: Option<BlockedMatch>,
    seen: Option<String>,
) -> Result<(), LaunchRefusal> {
    match blocked {
        Some(rule) => Err(LaunchRefusal {
            field: field.to_string(),
            rule,
            seen: seen.unwrap_or_else(|| line.to_string()),
        }),
        None => Ok(()),
    }
}

/// Judges an environment variable given to a session (`create --env NAME=value`), or
/// assigned by a typed line. `explain` is the policy's verdict on a command line run in an
/// unknown directory (the value runs later, wherever the shell is then): the rule that
/// blocks it and the command it saw.
pub(super) fn judge_env(
    name: &str,
    value: &str,
    explain: &dyn Fn(&str) -> LineVerdict,
) -> Result<(), LaunchRefusal> {
    let Some(rule) = env_rule(name) else {
        return Ok(());
    };
    let field = format!("env.{name}");
    let judge_line = |line: &str| {
        let (blocked, seen) = explain(line);
        refusal(&field, line, blocked, seen)
    };
    match rule.kind {
        EnvKind::Refused if value.is_empty() => Ok(()),
        EnvKind::Refused => Err(LaunchRefusal {
            field: field.clone(),
            rule: refused_rule(rule),
            seen: format!("{name}={value}"),
        }),
        EnvKind::Line => judge_line(value.trim_start_matches('|')),
        EnvKind::Prompt => substitutions(value).iter().try_for_each(|s| judge_line(s)),
    }
}

/// The command substitutions of a prompt string: `$(…)` (nested parentheses counted) and
/// backquoted parts. An unclosed one runs to the end.
#[must_use]
fn substitutions(prompt: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = prompt.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '$' && chars.get(i + 1) == Some(&'(') {
            let (mut depth, start) = (0usize, i + 2);
            let mut j = i + 1;
            while j < chars.len() {
                match chars[j] {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            out.push(chars[start..j.min(chars.len())].iter().collect());
            i = j + 1;
        } else if chars[i] == '`' {
            let end = chars[i + 1..]
                .iter()
                .position(|&c| c == '`')
                .map_or(chars.len(), |p| i + 1 + p);
            out.push(chars[i + 1..end].iter().collect());
            i = end + 1;
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitutions_are_found_nested_and_unclosed() {
        assert_eq!(substitutions("a $(b $(c)) d `e` $(f"), ["b $(c)", "e", "f"]);
    }
}
