//! The closed sets of the contract, as enums with the seeds' spellings: parsed once at the
//! edge (`FromStr`, serde), written back with [`std::fmt::Display`] / `as_str`. A value
//! outside a set is `INVALID_PARAMS`-worthy: [`UnknownValue`] names the field and lists the
//! allowed spellings.

use serde::{Deserialize, Serialize};

/// A spelling outside a closed set: says which field, what was given, and what is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownValue {
    /// The parameter or field (`mode`, `owner_role` …).
    pub field: &'static str,
    /// What was given.
    pub given: String,
    /// The allowed spellings.
    pub allowed: &'static [&'static str],
}

impl std::fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let allowed = match self.allowed {
            [] => String::new(),
            [one] => (*one).to_string(),
            [init @ .., last] => format!("{} or {last}", init.join(", ")),
        };
        write!(f, "{} {:?} must be {allowed}", self.field, self.given)
    }
}

impl std::error::Error for UnknownValue {}

/// Declares a closed set: the enum, its spellings, `as_str`, `ALL`, `FromStr`, `Display`.
macro_rules! closed_set {
    (
        $(#[$meta:meta])*
        $name:ident, $field:literal {
            $($(#[$vmeta:meta])* $variant:ident => $spelling:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $spelling)] $variant),+
        }

        impl $name {
            /// Every value, in the order the contract lists them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// Every spelling, in the same order.
            pub const SPELLINGS: &'static [&'static str] = &[$($spelling),+];

            /// The seeds' spelling.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $spelling),+
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = UnknownValue;
            fn from_str(s: &str) -> Result<Self, UnknownValue> {
                match s {
                    $($spelling => Ok($name::$variant),)+
                    _ => Err(UnknownValue {
                        field: $field,
                        given: s.to_string(),
                        allowed: Self::SPELLINGS,
                    }),
                }
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                self.as_str()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

closed_set! {
    /// `term_read`'s `mode`.
    TermMode, "mode" {
        /// The last `max_lines` lines of scrollback + screen (the default).
        Tail => "tail",
        /// The visible screen.
        Viewport => "viewport",
        /// Only the lines added since `marker_id`.
        Delta => "delta",
    }
}

closed_set! {
    /// Which screen buffer a terminal shows.
    BufferType, "buffer_type" {
        /// The normal screen, with scrollback.
        Normal => "normal",
        /// The alternate screen of a full-screen program (vim, less, htop).
        Alternate => "alternate",
    }
}

closed_set! {
    /// What the terminal is doing, as far as its screen and shell integration tell.
    TerminalState, "terminal_state" {
        /// The shell waits at its prompt.
        Prompt => "prompt",
        /// A command runs.
        Running => "running",
        /// A full-screen program owns the terminal (alternate screen).
        FullScreen => "full_screen",
        /// The foreground job is blocked reading the terminal: it waits for input.
        WaitingInput => "waiting_input",
    }
}

closed_set! {
    /// How a `talk` learned that its command finished.
    Completion, "completion" {
        /// Shell integration (OSC 133 marks).
        Osc133 => "osc133",
        /// A sentinel line printed after the command.
        Sentinel => "sentinel",
        /// The session's bridge said so.
        Bridge => "bridge",
    }
}

closed_set! {
    /// A session's state as `list` and `kill` report it.
    SessionState, "state" {
        /// Being created: its holder is not up yet (actions naming it wait for it).
        Starting => "starting",
        /// The holder answered.
        Running => "running",
        /// The shell ended and its holder recorded how.
        Exited => "exited",
        /// The holder is gone without recording an exit.
        Dead => "dead",
        /// The holder is there but did not answer in time.
        Unresponsive => "unresponsive",
        /// An external session, known from its registration.
        Registered => "registered",
    }
}

closed_set! {
    /// A session owner's role.
    OwnerRole, "owner_role" {
        /// The leader terminal (protected from unregistering without `force`).
        Leader => "leader",
        /// A worker terminal.
        Worker => "worker",
    }
}

closed_set! {
    /// The kind of shell a session runs, as the holder classified its program.
    ShellKind, "shell_kind" {
        /// bash.
        Bash => "bash",
        /// zsh.
        Zsh => "zsh",
        /// fish.
        Fish => "fish",
        /// A POSIX sh (dash, ash, sh).
        Posix => "posix",
        /// PowerShell.
        Pwsh => "pwsh",
        /// cmd.exe.
        Cmd => "cmd",
        /// Anything else.
        Other => "other",
    }
}

closed_set! {
    /// How a session's holder learns that a command finished.
    Integration, "integration" {
        /// Shell integration (OSC 133 marks).
        Osc133 => "osc133",
        /// A sentinel line printed after the command.
        Sentinel => "sentinel",
    }
}

closed_set! {
    /// A program session's lifecycle (seed 002 §8.5).
    ProcessState, "state" {
        /// The program runs.
        Running => "running",
        /// It exited and waits its restart delay.
        Restarting => "restarting",
        /// It exited for good.
        Dead => "dead",
    }
}

closed_set! {
    /// What ended a `wait_for` in the holder.
    WaitReason, "reason" {
        /// The pattern matched.
        Pattern => "pattern",
        /// No output for `quiet_ms`.
        Quiet => "quiet",
        /// The shell is back at its prompt.
        Prompt => "prompt",
        /// The wait's time ran out.
        Timeout => "timeout",
        /// The shell ended.
        Exited => "exited",
    }
}

closed_set! {
    /// `check`'s verdict on a command.
    CheckVerdict, "verdict" {
        /// talk / send_line would type it.
        Allowed => "allowed",
        /// talk / send_line would refuse it (`DANGEROUS_COMMAND_BLOCKED`).
        Blocked => "blocked",
    }
}

closed_set! {
    /// How `check` judged a command.
    CheckedAs, "checked_as" {
        /// The line parsed as shell: the policy judged its commands.
        Shell => "shell",
        /// The line did not parse as shell: the policy's patterns judged its text.
        Patterns => "patterns",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every spelling parses to its value, serializes back to itself, and round-trips
    /// through serde.
    fn round_trips<T>(spellings: &[&str])
    where
        T: std::str::FromStr<Err = UnknownValue>
            + std::fmt::Display
            + Serialize
            + for<'de> Deserialize<'de>
            + PartialEq
            + std::fmt::Debug,
    {
        for s in spellings {
            let v: T = s.parse().expect(s);
            assert_eq!(v.to_string(), *s);
            assert_eq!(serde_json::to_value(&v).expect("ser"), serde_json::json!(s));
            let back: T = serde_json::from_value(serde_json::json!(s)).expect("de");
            assert_eq!(back, v);
        }
        let bad = "nonsense".parse::<T>().expect_err("outside the set");
        assert_eq!(bad.given, "nonsense");
    }

    #[test]
    fn every_spelling_the_seeds_use_parses() {
        round_trips::<TermMode>(&["tail", "viewport", "delta"]);
        round_trips::<BufferType>(&["normal", "alternate"]);
        round_trips::<TerminalState>(&["prompt", "running", "full_screen", "waiting_input"]);
        round_trips::<Completion>(&["osc133", "sentinel", "bridge"]);
        round_trips::<SessionState>(&[
            "starting",
            "running",
            "exited",
            "dead",
            "unresponsive",
            "registered",
        ]);
        round_trips::<OwnerRole>(&["leader", "worker"]);
        round_trips::<ShellKind>(&["bash", "zsh", "fish", "posix", "pwsh", "cmd", "other"]);
        round_trips::<CheckVerdict>(&["allowed", "blocked"]);
        round_trips::<CheckedAs>(&["shell", "patterns"]);
        round_trips::<Integration>(&["osc133", "sentinel"]);
        round_trips::<ProcessState>(&["running", "restarting", "dead"]);
        round_trips::<WaitReason>(&["pattern", "quiet", "prompt", "timeout", "exited"]);
    }

    #[test]
    fn an_unknown_spelling_lists_the_allowed_ones() {
        let e = "all".parse::<TermMode>().expect_err("not a mode");
        assert_eq!(
            e.to_string(),
            r#"mode "all" must be tail, viewport or delta"#
        );
        let e = "boss".parse::<OwnerRole>().expect_err("not a role");
        assert_eq!(
            e.to_string(),
            r#"owner_role "boss" must be leader or worker"#
        );
    }

    #[test]
    fn spellings_are_case_sensitive() {
        assert!("Tail".parse::<TermMode>().is_err());
        assert!("LEADER".parse::<OwnerRole>().is_err());
    }
}
