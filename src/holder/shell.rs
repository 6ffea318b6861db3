//! Shells: which family a program belongs to, how kpty starts it with shell integration
//! (OSC 133 markers injected after the user's own startup files), and how a `talk` command is
//! typed for each completion method.

use crate::error::{Error, ErrorCode, Result};
use std::path::{Path, PathBuf};

/// Shell families kpty knows how to drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellKind {
    /// GNU bash: `--rcfile` integration.
    Bash,
    /// zsh: `ZDOTDIR` integration.
    Zsh,
    /// fish: `--init-command` integration.
    Fish,
    /// sh, dash, ash, ksh, mksh, busybox: sentinel method, prompt marker in `PS1`.
    Posix,
    /// PowerShell (pwsh, powershell.exe): sentinel method with `$LASTEXITCODE`.
    Pwsh,
    /// cmd.exe: sentinel method with `%ERRORLEVEL%`.
    Cmd,
    /// Anything else (a REPL …): no integration; `talk` uses POSIX sentinels.
    Other,
}

/// How `talk` learns that a command finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Integration {
    /// The shell prints OSC 133 markers (prompt, output start, finished + status).
    Osc133,
    /// An echo-proof sentinel line printed after the command.
    Sentinel,
}

impl Integration {
    /// The name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Integration::Osc133 => "osc133",
            Integration::Sentinel => "sentinel",
        }
    }
}

impl ShellKind {
    /// Whether the shell reads POSIX syntax, so an unclosed quote or `if` leaves it at its
    /// continuation prompt (the policy's completeness check applies).
    pub fn posix_syntax(self) -> bool {
        matches!(self, ShellKind::Bash | ShellKind::Zsh | ShellKind::Posix)
    }

    /// Classify a shell program by its file name.
    pub fn detect(program: &str) -> Self {
        let name = program
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(program)
            .trim_start_matches('-')
            .to_ascii_lowercase();
        let name = name.strip_suffix(".exe").unwrap_or(&name);
        match name {
            "bash" => Self::Bash,
            "zsh" => Self::Zsh,
            "fish" => Self::Fish,
            "sh" | "dash" | "ash" | "ksh" | "mksh" | "pdksh" | "busybox" | "yash" | "posh" => {
                Self::Posix
            }
            "pwsh" | "powershell" => Self::Pwsh,
            "cmd" => Self::Cmd,
            _ => Self::Other,
        }
    }

    /// The name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Bash => "bash",
            Self::Zsh => "zsh",
            Self::Fish => "fish",
            Self::Posix => "posix",
            Self::Pwsh => "pwsh",
            Self::Cmd => "cmd",
            Self::Other => "other",
        }
    }

    /// True when the integration marks the end of the prompt (`B`): readiness waits for it.
    pub fn marks_input_start(self) -> bool {
        matches!(self, Self::Bash | Self::Zsh)
    }

    /// The method this shell supports natively.
    pub fn integration(self) -> Integration {
        match self {
            Self::Bash | Self::Zsh | Self::Fish => Integration::Osc133,
            _ => Integration::Sentinel,
        }
    }
}

/// How to start a shell: extra arguments and environment.
#[derive(Debug, Clone, Default)]
pub struct Launch {
    /// Arguments after the program.
    pub args: Vec<String>,
    /// Environment to set (before the caller's own overrides).
    pub env: Vec<(String, String)>,
}

const BASH_RC: &str = r#"# kpty shell integration for bash (loaded with --rcfile, after /etc/bash.bashrc).
# Runs your own ~/.bashrc first, then adds OSC 133 markers that tell kpty when a command
# starts and finishes and with which status. It changes nothing else.
if [ -n "${KPTY_USER_BASHRC-}" ]; then
  [ -r "$KPTY_USER_BASHRC" ] && . "$KPTY_USER_BASHRC"
elif [ -r "$HOME/.bashrc" ]; then
  . "$HOME/.bashrc"
fi
unset KPTY_USER_BASHRC
__kpty_prompt() {
  local s=$?
  printf '\033]133;D;%s\007\033]133;A\007' "$s"
  return $s
}
# B (input starts) at the end of the prompt, re-added if your PROMPT_COMMAND rewrites PS1.
__kpty_input() {
  local s=$?
  [[ $PS1 == *'133;B'* ]] || PS1="$PS1"'\[\033]133;B\007\]'
  return $s
}
if [[ "$(declare -p PROMPT_COMMAND 2>/dev/null)" == "declare -a"* ]]; then
  PROMPT_COMMAND=(__kpty_prompt "${PROMPT_COMMAND[@]}" __kpty_input)
else
  __kpty_pc=${PROMPT_COMMAND-}
  while [[ $__kpty_pc == *[\;\ ] ]]; do __kpty_pc=${__kpty_pc%?}; done
  PROMPT_COMMAND="__kpty_prompt${__kpty_pc:+;$__kpty_pc};__kpty_input"
  unset __kpty_pc
fi
PS0=$'\033]133;C\007'"${PS0-}"
"#;

const ZSH_ENV: &str = r#"# kpty shell integration for zsh: runs your own .zshenv, then hands over to kpty's .zshrc.
__kpty_zdotdir="$ZDOTDIR"
if [[ -n "${KPTY_ZDOTDIR_ORIG-}" ]]; then ZDOTDIR="$KPTY_ZDOTDIR_ORIG"; else ZDOTDIR="$HOME"; fi
[[ -r "$ZDOTDIR/.zshenv" ]] && source "$ZDOTDIR/.zshenv"
__kpty_user_zdotdir="$ZDOTDIR"
ZDOTDIR="$__kpty_zdotdir"
"#;

const ZSH_RC: &str = r#"# kpty shell integration for zsh: your own .zshrc first, then OSC 133 markers.
ZDOTDIR="$__kpty_user_zdotdir"
unset __kpty_user_zdotdir __kpty_zdotdir KPTY_ZDOTDIR_ORIG
[[ -r "$ZDOTDIR/.zshrc" ]] && source "$ZDOTDIR/.zshrc"
[[ "$ZDOTDIR" == "$HOME" ]] && unset ZDOTDIR
__kpty_precmd() { local s=$?; printf '\033]133;D;%s\007\033]133;A\007' "$s"; }
__kpty_preexec() { printf '\033]133;C\007'; }
__kpty_input() { [[ $PS1 == *'133;B'* ]] || PS1="$PS1%{"$'\e]133;B\a'"%}"; }
precmd_functions=(__kpty_precmd $precmd_functions __kpty_input)
preexec_functions+=(__kpty_preexec)
"#;

const FISH_INIT: &str = r#"# kpty shell integration for fish (run with --init-command, after your config).
function __kpty_prompt --on-event fish_prompt
    printf '\e]133;A\a'
end
function __kpty_preexec --on-event fish_preexec
    printf '\e]133;C\a'
end
function __kpty_postexec --on-event fish_postexec
    printf '\e]133;D;%s\a' $status
end
"#;

/// Write the integration files for `kind` into `dir` and say how to start the shell.
pub fn prepare(kind: ShellKind, dir: &Path) -> Result<Launch> {
    let write = |name: &str, body: &str| -> Result<PathBuf> {
        let p = dir.join(name);
        crate::store::atomic::write_bytes(&p, body.as_bytes())?;
        Ok(p)
    };
    let mut l = Launch::default();
    match kind {
        ShellKind::Bash => {
            let rc = write("bashrc", BASH_RC)?;
            l.args = vec!["--rcfile".into(), path_str(&rc)?, "-i".into()];
        }
        ShellKind::Zsh => {
            let zdir = dir.join("zsh");
            crate::store::secure::ensure_dir(dir)?;
            crate::store::secure::ensure_dir(&zdir)?;
            crate::store::atomic::write_bytes(&zdir.join(".zshenv"), ZSH_ENV.as_bytes())?;
            crate::store::atomic::write_bytes(&zdir.join(".zshrc"), ZSH_RC.as_bytes())?;
            if let Ok(orig) = std::env::var("ZDOTDIR") {
                l.env.push(("KPTY_ZDOTDIR_ORIG".into(), orig));
            }
            l.env.push(("ZDOTDIR".into(), path_str(&zdir)?));
            l.args = vec!["-i".into()];
        }
        ShellKind::Fish => {
            let f = write("kpty.fish", FISH_INIT)?;
            l.args = vec![
                "--interactive".into(),
                "--init-command".into(),
                format!("source {}", fish_quote(&path_str(&f)?)),
            ];
        }
        ShellKind::Posix => {
            // A prompt marker in PS1 (raw ESC bytes: sh does no backslash escapes) lets
            // kpty see the first prompt; completion uses sentinels.
            let sign = if rustix::process::getuid().is_root() {
                "# "
            } else {
                "$ "
            };
            l.env.push(("PS1".into(), format!("\x1b]133;A\x07{sign}")));
            l.args = vec!["-i".into()];
        }
        ShellKind::Pwsh => l.args = vec!["-NoLogo".into()],
        ShellKind::Cmd | ShellKind::Other => {}
    }
    Ok(l)
}

fn path_str(p: &Path) -> Result<String> {
    p.to_str().map(str::to_string).ok_or_else(|| {
        Error::new(
            ErrorCode::PtySpawnFailed,
            format!("path {} is not valid UTF-8", p.display()),
        )
    })
}

/// Quote for POSIX single quotes.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn fish_quote(s: &str) -> String {
    format!("'{}'", s.replace('\\', r"\\").replace('\'', r"\'"))
}

/// Split a sentinel so the typed text never contains it whole: `("__KR_DO", "NE_ab__")`.
fn split(sentinel: &str) -> (&str, &str) {
    let mut mid = sentinel.len() / 2;
    while !sentinel.is_char_boundary(mid) {
        mid += 1;
    }
    sentinel.split_at(mid)
}

/// The bytes to type for a `talk` of `command` (Enter included).
///
/// With OSC 133 integration the command is typed as it is (a multi-line command goes through
/// `eval` so that it runs, and finishes, as one unit). With the sentinel method the shell
/// prints `<sentinel>B` first and `<sentinel><status>` last; the command runs through `eval`
/// so a trailing comment cannot swallow the sentinel.
pub fn typed_command(
    kind: ShellKind,
    method: Integration,
    command: &str,
    sentinel: &str,
) -> String {
    let multi = command.contains('\n') || command.contains('\r');
    match method {
        Integration::Osc133 => match kind {
            ShellKind::Fish if multi => format!("eval {}\r", fish_quote(command)),
            _ if multi => format!("eval {}\r", sh_quote(command)),
            _ => format!("{command}\r"),
        },
        Integration::Sentinel => {
            let (a, b) = split(sentinel);
            match kind {
                ShellKind::Pwsh => format!(
                    "Write-Output ('{a}'+'{b}B'); {command}; Write-Output ('{a}'+'{b}'+$(if ($?) {{0}} elseif ($LASTEXITCODE) {{$LASTEXITCODE}} else {{1}}))\r"
                ),
                // `call` re-expands %ERRORLEVEL% after the command ran; `^` keeps the typed
                // sentinel from matching.
                ShellKind::Cmd => {
                    format!("echo {a}^{b}B & {command} & call echo {a}^{b}%^ERRORLEVEL%\r")
                }
                ShellKind::Fish => format!(
                    "echo \"{a}\"\"{b}B\"; eval {}; echo \"{a}\"\"{b}$status\"\r",
                    fish_quote(command)
                ),
                _ => format!(
                    "echo \"{a}\"\"{b}B\"; eval {}; echo \"{a}\"\"{b}$?\"\r",
                    sh_quote(command)
                ),
            }
        }
    }
}

/// `command` reading its standard input from the file at `path` (the CLI's piped stdin), in
/// `kind`'s syntax: `eval 'COMMAND' < 'PATH'`, so that every part of a list or pipeline
/// reads it. Shells without that syntax (PowerShell, cmd.exe) get the command unchanged.
pub fn with_stdin(kind: ShellKind, command: &str, path: &str) -> String {
    match kind {
        ShellKind::Fish => format!("eval {} < {}", fish_quote(command), fish_quote(path)),
        ShellKind::Pwsh | ShellKind::Cmd => command.to_string(),
        _ => format!("eval {} < {}", sh_quote(command), sh_quote(path)),
    }
}

/// Whether `program` edits its input line with readline-style keys (bash, zsh, fish, ksh,
/// busybox ash …). Only shells known to read lines straight from the tty — dash and posh,
/// also as `sh` when that is a link to them — do not; their typed Tab is text.
pub fn has_line_editor(program: &Path) -> bool {
    let real = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    !matches!(name.as_str(), "dash" | "posh")
}

/// Find `program` on PATH (or check it when it names a path); `what` names it in errors
/// (`shell`, `program`).
pub fn resolve_program(program: &str, what: &str) -> Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    resolve_in(program, what, &path, &here)
}

/// Finds `program` as the session would: a name with a `/` relative to the session's `cwd`,
/// a bare name on the session's `path` (relative entries taken from `cwd` too).
pub fn resolve_in(
    program: &str,
    what: &str,
    path: &std::ffi::OsStr,
    cwd: &Path,
) -> Result<PathBuf> {
    let fail = |why: String| Error::new(ErrorCode::PtySpawnFailed, why);
    if program.is_empty() {
        return Err(fail(format!("the {what} is empty")));
    }
    let is_exec = |p: &Path| {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    };
    if program.contains('/') {
        let p = cwd.join(program);
        return if is_exec(&p) {
            Ok(p)
        } else if p.exists() {
            Err(fail(format!("{what} {program} is not an executable file")))
        } else {
            Err(fail(format!("{what} {program} does not exist")))
        };
    }
    std::env::split_paths(path)
        .map(|d| cwd.join(if d.as_os_str().is_empty() { Path::new(".") } else { &d }).join(program))
        .find(|p| is_exec(p))
        .ok_or_else(|| {
            fail(format!(
                "{what} {program:?} was not found on the session's PATH ({}); give its full path or set PATH with --env",
                path.to_string_lossy()
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_on_the_sessions_path_from_its_directory() {
        let dir = std::env::temp_dir().join(format!("kpty-resolve-{}", std::process::id()));
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let tool = bin.join("only-here");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        let found = resolve_in("only-here", "program", std::ffi::OsStr::new("bin"), &dir);
        assert_eq!(found.unwrap(), dir.join("bin").join("only-here"));
        let found = resolve_in("./bin/only-here", "program", std::ffi::OsStr::new(""), &dir);
        assert_eq!(found.unwrap(), tool);
        let e = resolve_in(
            "only-here",
            "program",
            std::ffi::OsStr::new("/usr/bin"),
            &dir,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::PtySpawnFailed);
        assert!(e.message.contains("/usr/bin"), "{}", e.message);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn stdin_redirects_the_whole_command_with_safe_quoting() {
        assert_eq!(
            with_stdin(ShellKind::Bash, "a; b | c", "/tmp/k'x/stdin"),
            r"eval 'a; b | c' < '/tmp/k'\''x/stdin'"
        );
        assert_eq!(
            with_stdin(ShellKind::Fish, "echo 'hi'", "/tmp/x"),
            r"eval 'echo \'hi\'' < '/tmp/x'"
        );
        assert_eq!(with_stdin(ShellKind::Pwsh, "dir", "/tmp/x"), "dir");
    }

    #[test]
    fn detects_families() {
        assert_eq!(ShellKind::detect("/bin/bash"), ShellKind::Bash);
        assert_eq!(ShellKind::detect("-zsh"), ShellKind::Zsh);
        assert_eq!(ShellKind::detect("/usr/bin/dash"), ShellKind::Posix);
        assert_eq!(ShellKind::detect("pwsh.exe"), ShellKind::Pwsh);
        assert_eq!(ShellKind::detect("C:\\Windows\\cmd.exe"), ShellKind::Cmd);
        assert_eq!(ShellKind::detect("cmd.exe"), ShellKind::Cmd);
        assert_eq!(ShellKind::detect("python3"), ShellKind::Other);
    }

    #[test]
    fn typed_sentinel_never_contains_the_sentinel() {
        let s = "__KR_DONE_0123abcd__";
        for kind in [
            ShellKind::Bash,
            ShellKind::Posix,
            ShellKind::Fish,
            ShellKind::Pwsh,
            ShellKind::Cmd,
        ] {
            let t = typed_command(kind, Integration::Sentinel, "echo a # note", s);
            assert!(!t.contains(s), "{kind:?}: {t}");
            assert!(t.ends_with('\r'));
        }
    }

    #[test]
    fn osc_typing_is_plain_unless_multiline() {
        assert_eq!(
            typed_command(ShellKind::Bash, Integration::Osc133, "ls -l", "x"),
            "ls -l\r"
        );
        assert_eq!(
            typed_command(
                ShellKind::Bash,
                Integration::Osc133,
                "echo 'a'\necho b",
                "x"
            ),
            "eval 'echo '\\''a'\\''\necho b'\r"
        );
    }

    #[test]
    fn quoting() {
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        assert_eq!(fish_quote(r"a\'b"), r"'a\\\'b'");
    }
}
