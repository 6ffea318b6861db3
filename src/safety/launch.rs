//! What a session is started with, judged like a typed line: the program (`create --command`,
//! the whole argv as one line), the shell (a path or a command line) and environment
//! variables that the shell or the programs it starts run as code ([`ENV_RULES`]).
//!
//! A variable whose value is a command line is judged as one (in an unknown directory: a
//! prompt hook runs wherever the shell is); one that names code kpty cannot read (a startup
//! file, a preloaded library, interpreter options) is refused outright.

use super::dangerous::BlockedMatch;
use super::policy::context::{ShellContext, explain_in};

/// How an environment variable is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvKind {
    /// The value is a command line something runs (`PROMPT_COMMAND`, `GIT_SSH_COMMAND`).
    Line,
    /// The value is a prompt: its `$(…)` and backquoted parts run at every prompt.
    Prompt,
    /// The value names or holds code kpty cannot judge: refused outright.
    Refused,
}

/// One entry of [`ENV_RULES`].
#[derive(Debug)]
pub struct EnvRule {
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
        pub const ENV_RULES: &[EnvRule] = &[$(EnvRule { name: $name, kind: EnvKind::$kind, why: $why }),*];
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
pub fn env_rule(name: &str) -> Option<&'static EnvRule> {
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

/// Judges one line in `ctx`; `Err` names `field`.
fn judge_line(field: &str, line: &str, ctx: &ShellContext) -> Result<(), LaunchRefusal> {
    let v = explain_in(line, ctx);
    match v.blocked {
        Some(rule) => Err(LaunchRefusal {
            field: field.to_string(),
            rule,
            seen: v.seen.unwrap_or_else(|| line.to_string()),
        }),
        None => Ok(()),
    }
}

/// Judges an environment variable given to a session (`create --env NAME=value`), or
/// assigned by a typed line.
pub fn judge_env(name: &str, value: &str) -> Result<(), LaunchRefusal> {
    let Some(rule) = env_rule(name) else {
        return Ok(());
    };
    let field = format!("env.{name}");
    // It runs later, wherever the shell is then.
    let anywhere = ShellContext::new(None);
    match rule.kind {
        EnvKind::Refused if value.is_empty() => Ok(()),
        EnvKind::Refused => Err(LaunchRefusal {
            field,
            rule: refused_rule(rule),
            seen: format!("{name}={value}"),
        }),
        EnvKind::Line => judge_line(&field, value.trim_start_matches('|'), &anywhere),
        EnvKind::Prompt => substitutions(value)
            .iter()
            .try_for_each(|s| judge_line(&field, s, &anywhere)),
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

/// Judges what a session is launched with: its program's argv (run in `cwd`), its shell,
/// its environment and the program started again on exit. Nothing may start when `Err`.
pub fn judge_launch(launch: &Launch<'_>) -> Result<(), LaunchRefusal> {
    let mut ctx = ShellContext::new(launch.cwd);
    ctx.set_home(launch.home);
    for (name, value) in launch.env {
        judge_env(name, value)?;
    }
    if let Some(shell) = launch.shell {
        judge_line("shell", shell, &ctx)?;
    }
    if let Some(argv) = launch.command {
        judge_line("command", &quote_argv(argv), &ctx)?;
    }
    Ok(())
}

/// What a session is launched with (see [`judge_launch`]).
#[derive(Debug, Default)]
pub struct Launch<'a> {
    /// The program and its arguments (`create --command`).
    pub command: Option<&'a [String]>,
    /// The shell, as given (a path or a command line).
    pub shell: Option<&'a str>,
    /// `--env NAME=value` pairs.
    pub env: &'a [(String, String)],
    /// The directory it starts in.
    pub cwd: Option<&'a str>,
    /// The home directory (absolute), so paths under it read as `~/…`.
    pub home: Option<&'a str>,
}

/// An argv as one shell line that reads back as the same words.
#[must_use]
fn quote_argv(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_blocked(name: &str, value: &str) -> bool {
        judge_env(name, value).is_err()
    }

    #[test]
    fn every_table_entry_has_a_reason_and_a_dangerous_value_is_refused() {
        for rule in ENV_RULES {
            assert!(!rule.why.is_empty());
            let name = rule.name.replace('*', "x%%");
            let value = match rule.kind {
                EnvKind::Line => "rm -rf ~",
                EnvKind::Prompt => "\\u $(rm -rf ~) \\$ ",
                EnvKind::Refused => "/tmp/x",
            };
            assert!(env_blocked(&name, value), "{name}={value}");
        }
    }

    #[test]
    fn benign_values_and_other_variables_pass() {
        for (n, v) in [
            ("PROMPT_COMMAND", "history -a"),
            ("PS1", "\\u@\\h:\\w\\$ "),
            ("PS1", "$(git branch --show-current) $ "),
            ("EDITOR", "vim"),
            (
                "GIT_SSH_COMMAND",
                "ssh -i ~/.ssh/deploy -o IdentitiesOnly=yes",
            ),
            ("PATH", "/usr/bin:/bin"),
            ("FOO", "rm -rf /"),
            ("LD_PRELOAD", ""),
        ] {
            assert!(!env_blocked(n, v), "{n}={v}");
        }
    }

    #[test]
    fn prompt_hooks_are_judged_wherever_the_shell_may_be() {
        assert!(env_blocked("PROMPT_COMMAND", "rm -rf *"));
        assert!(env_blocked("PS1", "`rm -rf *`$ "));
        assert!(env_blocked("PS0", "$(echo $(rm -rf /))"));
        assert!(env_blocked("LESSOPEN", "| rm -rf / %s"));
        assert!(!env_blocked("PROMPT_COMMAND", "rm -rf build"));
    }

    #[test]
    fn launch_fields_are_judged_and_named() {
        let argv: Vec<String> = ["sh", "-c", "rm -rf ~"].map(String::from).to_vec();
        let r = judge_launch(&Launch {
            command: Some(&argv),
            ..Launch::default()
        });
        assert_eq!(r.map_err(|e| e.field), Err("command".into()));
        let argv: Vec<String> = ["rm", "-rf", "."].map(String::from).to_vec();
        let in_root = Launch {
            command: Some(&argv),
            cwd: Some("/"),
            ..Launch::default()
        };
        assert!(judge_launch(&in_root).is_err());
        let r = judge_launch(&Launch {
            shell: Some("bash -c 'rm -rf /'"),
            ..Launch::default()
        });
        assert_eq!(r.map_err(|e| e.field), Err("shell".into()));
        let env = vec![("BASH_ENV".to_string(), "/tmp/x".to_string())];
        let r = judge_launch(&Launch {
            env: &env,
            ..Launch::default()
        });
        assert_eq!(r.map_err(|e| e.field), Err("env.BASH_ENV".into()));
        let argv: Vec<String> = ["python3", "-m", "http.server"].map(String::from).to_vec();
        assert!(
            judge_launch(&Launch {
                command: Some(&argv),
                shell: Some("/bin/bash"),
                cwd: Some("/"),
                ..Launch::default()
            })
            .is_ok()
        );
    }

    #[test]
    fn substitutions_are_found_nested_and_unclosed() {
        assert_eq!(substitutions("a $(b $(c)) d `e` $(f"), ["b $(c)", "e", "f"]);
    }
}
