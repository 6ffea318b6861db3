//! What a session is started with, judged like a typed line: the program (`create --command`,
//! the whole argv as one line), the shell (a path or a command line) and environment
//! variables that the shell or the programs it starts run as code (the table of `env_rules`).
//!
//! A variable whose value is a command line is judged as one (in an unknown directory: a
//! prompt hook runs wherever the shell is); one that names code kpty cannot read (a startup
//! file, a preloaded library, interpreter options) is refused outright.

pub use super::env_rules::LaunchRefusal;
use super::env_rules::{self, refusal};
use super::policy::context::{ShellContext, explain_anywhere, explain_in};

/// Judges one line in `ctx`; `Err` names `field`.
fn judge_line(field: &str, line: &str, ctx: &ShellContext) -> Result<(), LaunchRefusal> {
    let v = explain_in(line, ctx);
    refusal(field, line, v.blocked, v.seen)
}

/// Judges an environment variable given to a session (`create --env NAME=value`): as the
/// table says (`env_rules::judge_env`), a command line judged wherever the shell is then.
pub fn judge_env(name: &str, value: &str) -> Result<(), LaunchRefusal> {
    env_rules::judge_env(name, value, &explain_anywhere)
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
    use crate::safety::env_rules::{ENV_RULES, EnvKind};

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
}
