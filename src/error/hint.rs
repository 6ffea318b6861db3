//! What an error suggests doing next, said in the caller's language: the CLI names `kpty …`
//! commands and `--flags`, an MCP client (or `kpty serve`'s HTTP caller) names actions and
//! parameters. The core and the holder attach a typed [`Hint`] to an error; the core renders
//! it for its channel's [`Voice`] when the error leaves (see [`crate::error::Error::speak`]).

use serde::{Deserialize, Serialize};

/// Whose vocabulary a message uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Voice {
    /// The command line: `kpty send-keys -s S C-c`, `--timeout-ms`.
    Cli,
    /// The action contract (MCP, HTTP): `send_line` with `data`, `timeout_ms`.
    #[default]
    Tool,
}

/// A suggestion for what to do about an error. Each names the session it is about, so the
/// CLI can spell out a command to paste.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "hint", rename_all = "snake_case")]
pub enum Hint {
    /// `list` shows the sessions there are.
    ListSessions,
    /// No session named and no default yet: talk creates one, or name a session.
    NameOrCreate,
    /// The shell exited: start another session.
    CreateAnother,
    /// The holder is gone: kill cleans up the session.
    KillToCleanUp {
        /// The session.
        session: String,
    },
    /// The shell has not shown a prompt: read its output or interrupt it.
    ReadOrInterrupt {
        /// The session.
        session: String,
    },
    /// A full-screen program holds the screen.
    FullScreen {
        /// The session.
        session: String,
    },
    /// A program other than the shell holds the foreground.
    Foreground {
        /// The session.
        session: String,
    },
    /// A talk ran past its timeout: the command may still be running.
    TalkTimedOut {
        /// The session.
        session: String,
    },
    /// `check` explains why a command is blocked.
    ExplainBlock,
    /// Unregistering a leader's terminal needs force.
    ForceUnregister {
        /// The session.
        session: String,
    },
    /// `write` is gone: send_line or talk.
    UseSendLineOrTalk,
    /// A local session is ended with kill, not unregister.
    UseKill {
        /// The session.
        session: String,
    },
    /// The confinement options need a sandboxed session.
    AddSandbox,
    /// A registered session needs its bridge URL again.
    Reregister {
        /// The session.
        session: String,
    },
    /// The holder did not answer in time: it may be stopped.
    HolderStopped,
    /// A delta read starts over without a marker.
    RestartDelta {
        /// The session.
        session: String,
    },
    /// Screen reads are turned off: raw reads still work.
    TermReadOff,
}

impl Hint {
    /// The suggestion as a clause to add to an error's message, in `voice`.
    pub fn render(&self, voice: Voice) -> String {
        match voice {
            Voice::Cli => self.cli(),
            Voice::Tool => self.tool(),
        }
    }

    fn cli(&self) -> String {
        match self {
            Self::ListSessions => "`kpty list` shows the sessions there".into(),
            Self::NameOrCreate => {
                "`kpty talk CMD` creates one, or name a session with -s/--session".into()
            }
            Self::CreateAnother => "`kpty create` starts another; the next `kpty talk` without \
                 -s starts a new default session"
                .into(),
            Self::KillToCleanUp { session } => format!("`kpty kill {session}` cleans it up"),
            Self::ReadOrInterrupt { session } => format!(
                "read its output (`kpty read -s {session}`), or interrupt it with \
                 `kpty send-keys -s {session} C-c`"
            ),
            Self::FullScreen { session } => format!(
                "look at it with `kpty term-read -s {session} --mode viewport`, drive it with \
                 `kpty send-line -s {session} …`, or quit it first (e.g. \
                 `kpty send-line -s {session} q` for a pager)"
            ),
            Self::Foreground { session } => format!(
                "wait for it, answer it with `kpty send-line -s {session} …`, interrupt it with \
                 `kpty send-keys -s {session} C-c`, or — if it is a shell itself (ssh, su, \
                 docker exec …) — talk to it with `kpty talk -s {session} --force CMD`"
            ),
            Self::TalkTimedOut { session } => format!(
                "it may still be running: `kpty read -s {session}` shows its output, \
                 `kpty send-keys -s {session} C-c` interrupts it; -t/--timeout-ms waits longer"
            ),
            Self::ExplainBlock => "`kpty check CMD` explains a verdict".into(),
            Self::ForceUnregister { session } => {
                format!("`kpty unregister {session} --force` if you really mean to")
            }
            Self::UseSendLineOrTalk => "use `kpty send-line` (type a line + Enter) or \
                 `kpty talk` (run a command and wait)"
                .into(),
            Self::UseKill { session } => format!("`kpty kill {session}` ends it"),
            Self::AddSandbox => "add `--sandbox` to `kpty create`".into(),
            Self::Reregister { session } => {
                format!("register it again with `kpty register {session} --desktop-url URL`")
            }
            Self::HolderStopped => "is it stopped? `kill -CONT` its pid, or end the session \
                 with `kpty kill SESSION`"
                .into(),
            Self::RestartDelta { session } => {
                format!("`kpty term-read -s {session} --mode delta` without --marker starts over")
            }
            Self::TermReadOff => {
                "set KPTY_TERM_READ=on, or read the raw output with `kpty read`".into()
            }
        }
    }

    fn tool(&self) -> String {
        match self {
            Self::ListSessions => "the list action shows the sessions there".into(),
            Self::NameOrCreate => {
                "talk without session_id creates one, or name a session with session_id".into()
            }
            Self::CreateAnother => "create starts another; a talk without session_id starts a \
                 new default session"
                .into(),
            Self::KillToCleanUp { session } => {
                format!("kill with session_id={session:?} cleans it up")
            }
            Self::ReadOrInterrupt { .. } => "read its output (read or term_read), or interrupt it \
                 with send_keys keys=[\"C-c\"]"
                .into(),
            Self::FullScreen { .. } => "look at it with term_read mode=viewport, drive it with \
                 send_line, or quit it first (e.g. send_line data=\"q\" for a pager)"
                .into(),
            Self::Foreground { .. } => "wait for it, answer it with send_line, interrupt it with \
                 send_keys keys=[\"C-c\"], or — if it is a shell itself (ssh, su, docker exec …) \
                 — talk to it with force=true"
                .into(),
            Self::TalkTimedOut { .. } => "it may still be running: read shows its output, \
                 send_keys keys=[\"C-c\"] interrupts it; a larger timeout_ms waits longer"
                .into(),
            Self::ExplainBlock => "the check action explains a verdict".into(),
            Self::ForceUnregister { .. } => {
                "unregister it with force=true if you really mean to".into()
            }
            Self::UseSendLineOrTalk => "use send_line (type a line + Enter) or talk (run a \
                 command and wait)"
                .into(),
            Self::UseKill { .. } => "the kill action ends it".into(),
            Self::AddSandbox => "set sandbox=true in create".into(),
            Self::Reregister { .. } => "register it again with desktop_url".into(),
            Self::HolderStopped => "is it stopped? `kill -CONT` its pid, or end the session \
                 with the kill action"
                .into(),
            Self::RestartDelta { .. } => {
                "term_read mode=delta without marker_id starts over".into()
            }
            Self::TermReadOff => {
                "set KPTY_TERM_READ=on, or read the raw output with the read action".into()
            }
        }
    }
}

/// The contract's parameter names and the CLI flags that set them, for error messages that
/// name a parameter: over the CLI `max_bytes` reads `--max-bytes`.
const FLAGS: &[(&str, &str)] = &[
    ("session_id", "-s/--session"),
    ("timeout_ms", "-t/--timeout-ms"),
    ("max_bytes", "--max-bytes"),
    ("max_chars", "--max-chars"),
    ("max_lines", "--max-lines"),
    ("marker_id", "--marker"),
    ("strip_ansi", "--strip-ansi"),
    ("merge_wrapped", "--no-merge-wrapped"),
    ("owner_role", "--owner-role"),
    ("owner_agent_id", "--owner-agent-id"),
    ("owner_session_id", "--owner-session-id"),
    ("claude_code_session_id", "--claude-code-session-id"),
    ("agent_id", "--agent"),
    ("cli_type", "--cli-type"),
    ("desktop_url", "--desktop-url"),
    ("allow_write", "--allow-write"),
    ("deny_read", "--deny-read"),
    ("send_line_to_agent", "send-line-to-agent"),
    ("update_ownership", "update-ownership"),
    ("send_line", "send-line"),
    ("send_keys", "send-keys"),
    ("wait_for", "wait-for"),
    ("term_read", "term-read"),
    ("input_filter=false", "--no-input-filter"),
    ("block_sequences", "--block-sequence"),
    ("restart_delay_ms", "--restart-delay-ms"),
    ("auto_restart", "--auto-restart"),
    ("force=true", "--force"),
    ("literal=true", "-l/--literal"),
    ("mode=delta", "--mode delta"),
    ("mode=viewport", "--mode viewport"),
    ("mode=tail", "--mode tail"),
];

/// `message` with the contract's parameter and action names spelled as the CLI spells them
/// (whole words only: `max_bytes` → `--max-bytes`, `send_line` → `send-line`).
pub fn cli_words(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    'outer: while !rest.is_empty() {
        let at_word_start = !out.chars().next_back().is_some_and(is_word);
        if at_word_start {
            for (param, flag) in FLAGS {
                if let Some(after) = rest.strip_prefix(param)
                    && !after.chars().next().is_some_and(is_word)
                {
                    out.push_str(flag);
                    rest = after;
                    continue 'outer;
                }
            }
        }
        let c = rest.chars().next().unwrap_or_default();
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_words_rewrites_whole_parameter_names_only() {
        assert_eq!(
            cli_words("max_bytes must be 1..=5; timeout_ms too"),
            "--max-bytes must be 1..=5; -t/--timeout-ms too"
        );
        assert_eq!(
            cli_words("send_line needs `data`"),
            "send-line needs `data`"
        );
        assert_eq!(cli_words("my_max_bytes stays"), "my_max_bytes stays");
        assert_eq!(cli_words("max_bytesx stays"), "max_bytesx stays");
        assert_eq!(cli_words("send_line_to_agent"), "send-line-to-agent");
        assert_eq!(cli_words("ünïcode max_chars"), "ünïcode --max-chars");
    }

    #[test]
    fn every_hint_speaks_each_voice_without_the_other() {
        let s = "ab12".to_string();
        let all = [
            Hint::ListSessions,
            Hint::NameOrCreate,
            Hint::CreateAnother,
            Hint::KillToCleanUp { session: s.clone() },
            Hint::ReadOrInterrupt { session: s.clone() },
            Hint::FullScreen { session: s.clone() },
            Hint::Foreground { session: s.clone() },
            Hint::TalkTimedOut { session: s.clone() },
            Hint::ExplainBlock,
            Hint::ForceUnregister { session: s },
            Hint::UseSendLineOrTalk,
            Hint::UseKill {
                session: "ab12".into(),
            },
            Hint::AddSandbox,
            Hint::Reregister {
                session: "ab12".into(),
            },
            Hint::HolderStopped,
            Hint::RestartDelta {
                session: "ab12".into(),
            },
            Hint::TermReadOff,
        ];
        for h in all {
            let cli = h.render(Voice::Cli);
            let tool = h.render(Voice::Tool);
            assert!(cli.contains("kpty "), "{h:?}: {cli}");
            for word in [
                "send_line",
                "term_read",
                "session_id",
                "timeout_ms",
                "=true",
            ] {
                assert!(!cli.contains(word), "{h:?} CLI says {word}: {cli}");
            }
            for word in ["kpty", "--", "send-line", "term-read", "-s ", "-t/"] {
                assert!(!tool.contains(word), "{h:?} tool says {word}: {tool}");
            }
        }
    }
}
