//! An error's `details`, typed: one variant per shape the actions return, serialised here
//! and nowhere else (untagged: each variant is the JSON object the seeds and the README show,
//! field for field, `null`s included).
//!
//! Errors also come back over the wire — a holder's reply, a desktop bridge's JSON answer —
//! possibly from another build. [`decode`] reads them: the first variant that reads the
//! object *and writes it back unchanged* is taken, so a known shape is typed and nothing is
//! ever lost; a shape this build does not know (a newer holder's, a bridge's own) is kept
//! as it came, in [`Details::Other`]: its JSON text ([`Foreign`]), opaque but for the few
//! fields the readers here look for. No details type holds a `serde_json::Value`.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

#[cfg(test)]
mod tests;

/// The details enum, its `From` impls (`Details::Variant(shape)` from the shape alone, for
/// `Error::with_details(shape)`) and [`typed`] (the shapes tried in this order: the first
/// that reads JSON back unchanged is taken), from one list of variants, each the JSON
/// object it serialises to (untagged), so they cannot drift apart.
macro_rules! shapes {
    ($($(#[doc = $doc:literal])* $variant:ident($shape:ty),)*) => {
        /// What an error carries beyond its code and message.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(untagged)]
        pub enum Details {
            $($(#[doc = $doc])* $variant($shape),)*
            /// A shape this build does not know, kept as it came (over the wire only).
            Other(Foreign),
        }

        $(impl From<$shape> for Details {
            fn from(d: $shape) -> Self {
                Self::$variant(d)
            }
        })*

        /// `v` as the first shape that gives it back unchanged.
        fn typed(v: &Value) -> Option<Details> {
            if !v.is_object() {
                return None;
            }
            None$(.or_else(|| exactly::<$shape>(v)))*
        }
    };
}

shapes! {
    /// Any other error's details, with the session a `send_line_to_agent` resolved to.
    Resolved(Resolved),
    /// A talk that stopped before its command completed (timeout, cancel, the shell ended).
    Talk(TalkStop),
    /// A `wait_for` that timed out or saw the shell exit.
    Wait(WaitStop),
    /// The terminal waits for input (a continuation prompt, a command reading it).
    Waiting(Waiting),
    /// Another program holds the terminal (full-screen or foreground).
    Foreground(Foreground),
    /// The shell's input line is not empty, or a line was left unfinished.
    InputLine(InputLine),
    /// The session's shell has exited.
    Exited(Exited),
    /// The session's holder is gone, and how its shell ended is unknown.
    Dead(Dead),
    /// A dangerous (or unverifiable, or incomplete) command, refused.
    Blocked(Blocked),
    /// The input filter kept sequences from the program.
    InputBlocked(InputBlocked),
    /// A name kpty does not know, with the near ones.
    Unknown(Unknown),
    /// A name that matched several sessions.
    Matches(Matches),
    /// Only the session concerned.
    Session(Session),
    /// A desktop bridge that could not be reached or answered badly.
    Bridge(Bridge),
    /// A registry entry kpty will not talk to (its source, and whether it is untrusted).
    Source(Source),
    /// A bridge's refusal, with its answer as given.
    BridgeAnswer(BridgeAnswer),
    /// A marker the holder does not (or no longer) know.
    Marker(Marker),
    /// A session that runs a program, not a shell.
    Program(ProgramSession),
    /// A shell PTY number the session does not have.
    Pty(Pty),
    /// A leader's terminal, refused without `force`.
    Leader(Leader),
    /// A shell (or program) that exited during start-up, with what it printed.
    StartFailed(StartFailed),
    /// A sandbox the kernel cannot enforce.
    Sandbox(Sandbox),
    /// What the operator's sandbox floor refused.
    Floor(Floor),
    /// A key `send_keys` does not know.
    Keys(Keys),
    /// An MCP argument of the wrong type.
    Parameter(Parameter),
    /// The journal an action's audit entry could not be written to.
    Audit(Audit),
    /// A request field (or the environment variable standing for it) that was refused.
    Field(Field),
    /// A cancelled call: which signal, and whether the shell is back at its prompt.
    Interrupted(Interrupted),
}

/// Read details from JSON (a holder's reply, a bridge's answer): the first typed variant
/// that gives back exactly this JSON, else [`Details::Other`].
pub fn decode(v: Value) -> Details {
    typed(&v).unwrap_or_else(|| Details::Other(Foreign::of(&v)))
}

/// `v` as shape `T` when `T` writes it back unchanged (a missing optional field read as
/// `None` and written as `null` is not the same JSON: then it is another shape).
fn exactly<T>(v: &Value) -> Option<Details>
where
    T: serde::de::DeserializeOwned + Serialize + Into<Details>,
{
    let t = T::deserialize(v).ok()?;
    (serde_json::to_value(&t).ok()? == *v).then(|| t.into())
}

impl<'de> Deserialize<'de> for Details {
    /// Any JSON, typed when this build knows its shape ([`decode`]).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(decode)
    }
}

/// A field that is written even when `null` (`Some(None)`) but may also be absent (`None`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

impl Details {
    /// These details as the JSON object the action returns.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The session these details name, whatever their shape.
    pub fn session_id(&self) -> Option<&str> {
        match self {
            Self::Resolved(r) => r.inner.as_deref().and_then(Self::session_id),
            Self::Talk(TalkStop { session_id, .. })
            | Self::Wait(WaitStop { session_id, .. })
            | Self::Waiting(Waiting { session_id, .. })
            | Self::Foreground(Foreground { session_id, .. })
            | Self::InputLine(InputLine { session_id, .. })
            | Self::Exited(Exited { session_id, .. })
            | Self::Dead(Dead { session_id, .. })
            | Self::Bridge(Bridge { session_id, .. })
            | Self::Source(Source { session_id, .. })
            | Self::BridgeAnswer(BridgeAnswer { session_id, .. })
            | Self::Marker(Marker { session_id, .. })
            | Self::Program(ProgramSession { session_id, .. })
            | Self::Pty(Pty { session_id, .. })
            | Self::Leader(Leader { session_id, .. })
            | Self::Session(Session { session_id }) => Some(session_id),
            Self::Unknown(u) => u.session_id.as_deref(),
            Self::Other(f) => f.known.session_id.as_deref(),
            _ => None,
        }
    }

    /// What a stopped talk printed before it stopped (`partial_output`).
    pub fn partial_output(&self) -> Option<&str> {
        match self {
            Self::Talk(t) => Some(&t.partial_output),
            Self::Resolved(r) => r.inner.as_deref().and_then(Self::partial_output),
            Self::Other(f) => f.known.partial_output.as_deref(),
            _ => None,
        }
    }

    /// The exit code these details report (a shell that ended, a talk whose shell ended).
    pub fn exit_code(&self) -> Option<i64> {
        match self {
            Self::Talk(t) => t.exit_code,
            Self::Exited(e) => e.exit_code,
            Self::Wait(w) => w.exit_code,
            Self::StartFailed(s) => Some(s.exit_code),
            Self::Resolved(r) => r.inner.as_deref().and_then(Self::exit_code),
            Self::Other(f) => f.known.exit_code,
            _ => None,
        }
    }

    /// The names suggested for a name kpty does not know.
    pub fn did_you_mean(&self) -> &[String] {
        match self {
            Self::Unknown(u) => &u.did_you_mean,
            _ => &[],
        }
    }

    /// Every string in these details with its secrets replaced, as
    /// [`crate::safety::redact_value`] does it for the JSON they become (a string under a key
    /// that names a secret replaced whole).
    pub fn redact(&mut self) {
        let mut v = self.to_value();
        crate::safety::redact_value(&mut v);
        *self = decode(v);
    }
}

/// Any error's details, with the session `send_line_to_agent` resolved to: the inner
/// details' object with `resolved_session_id` added.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The session the query resolved to.
    pub resolved_session_id: String,
    /// The error's own details, when it had any.
    pub inner: Option<Box<Details>>,
}

/// The key [`Resolved`] adds.
const RESOLVED: &str = "resolved_session_id";

impl Serialize for Resolved {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = match self.inner.as_deref().map(Details::to_value) {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        m.insert(
            RESOLVED.into(),
            Value::String(self.resolved_session_id.clone()),
        );
        m.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Resolved {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut m = Map::<String, Value>::deserialize(d)?;
        let Some(Value::String(id)) = m.remove(RESOLVED) else {
            return Err(serde::de::Error::missing_field(RESOLVED));
        };
        Ok(Self {
            resolved_session_id: id,
            inner: (!m.is_empty()).then(|| Box::new(decode(Value::Object(m)))),
        })
    }
}

/// A talk that stopped before its command completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TalkStop {
    /// The session.
    pub session_id: String,
    /// The command typed.
    pub command: String,
    /// What it printed so far (clean text).
    pub partial_output: String,
    /// The talk's timeout.
    pub timeout_ms: u64,
    /// How long it ran.
    pub duration_ms: u64,
    /// The sentinel (or the talk's id).
    pub sentinel: String,
    /// How completion was being detected.
    pub completion: String,
    /// A bridged talk: the bridge's `error` (`null` when it gave none).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub bridge_error: Option<Option<String>>,
    /// The shell ended during the talk with this code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// Characters cut from the start of `partial_output` by the channel's cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped_chars: Option<u64>,
    /// The CLI's Ctrl-C: the signal that interrupted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// The CLI's Ctrl-C: the shell was back at its prompt after the interrupt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_prompt: Option<bool>,
}

/// A `wait_for` that did not see what it waited for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitStop {
    /// The session.
    pub session_id: String,
    /// What was seen while waiting.
    pub output: String,
    /// `output` was cut.
    pub truncated: bool,
    /// Where the waiting began.
    pub start_offset: u64,
    /// Where a next read or wait should begin.
    pub next_offset: u64,
    /// How long it waited.
    pub elapsed_ms: u64,
    /// The terminal's state at the end.
    pub terminal_state: String,
    /// The shell's exit code, when it exited.
    pub exit_code: Option<i64>,
}

/// The terminal waits for input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Waiting {
    /// The session.
    pub session_id: String,
    /// `waiting_input`.
    pub terminal_state: String,
    /// Always true.
    pub waiting_for_input: bool,
    /// The prompt the input waits at.
    pub prompt: String,
}

/// Another program holds the terminal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Foreground {
    /// The session.
    pub session_id: String,
    /// `full_screen` when it runs on the alternate screen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_state: Option<String>,
    /// Its pid, when known.
    pub foreground_pid: Option<u32>,
    /// Its name, when known.
    pub foreground_command: Option<String>,
}

/// Text on the shell's input line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputLine {
    /// The session.
    pub session_id: String,
    /// The text.
    pub line: String,
    /// The terminal's state (`prompt`), when said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_state: Option<String>,
}

/// The session's shell has exited.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exited {
    /// The session.
    pub session_id: String,
    /// `exited`, when said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Its exit code, when known.
    pub exit_code: Option<i64>,
    /// The signal that ended it, if one did.
    pub exit_signal: Option<String>,
    /// Its holder could not be reached: nothing was typed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreachable: Option<bool>,
}

/// The session's holder is gone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dead {
    /// The session.
    pub session_id: String,
    /// `dead`.
    pub state: String,
    /// Always true: nothing was typed.
    pub unreachable: bool,
}

/// A refused command: the rule, and what it matched.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Blocked {
    /// The rule's id.
    pub pattern: String,
    /// Its category.
    pub category: String,
    /// What it guards against.
    pub description: String,
    /// The request field that carried the command (`create`'s launch checks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The key whose effect kpty cannot see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// What is left open (an incomplete command).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unclosed: Option<String>,
    /// The line as the shell would read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// The command the rule matched, as the policy normalised it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<String>,
}

/// What the input filter kept from the program.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputBlocked {
    /// The sequences kept, by printable name.
    pub blocked: Vec<String>,
    /// The filter's text for the writer.
    pub warning: String,
    /// Ctrl-C's dropped as repeats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ctrl_c_debounced: Option<u64>,
    /// Bytes of the write that went through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forwarded_bytes: Option<u64>,
    /// Bytes held back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_bytes: Option<u64>,
}

/// A name kpty does not know: what was asked, and the near ones.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unknown {
    /// The session reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// The parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown: Option<Vec<String>>,
    /// The owner query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<Query>,
    /// The CLI's usage text (a `--json` usage error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<String>,
    /// The closest names.
    pub did_you_mean: Vec<String>,
}

/// The selectors an owner query gave (as `crate::store::registry_events::Query` writes
/// them to the journal).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Query {
    /// Owner agent asked for.
    pub agent_id: Option<String>,
    /// Owner session asked for.
    pub owner_session_id: Option<String>,
    /// Label asked for.
    pub label: Option<String>,
    /// Claude Code session asked for (only when given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_code_session_id: Option<String>,
}

/// The sessions a name matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Matches {
    /// One entry per session.
    pub matches: Vec<Match>,
    /// The owner query, when one matched them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<Query>,
}

/// One session a name matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Match {
    /// Its id only (one the audit trail remembers). Tried first: a missing `label` is not
    /// a `null` one.
    Id(IdMatch),
    /// Its id and label.
    Labelled(LabelledMatch),
    /// The session as `list` shows it, cut to what tells the matches apart.
    Listed(Box<ListedMatch>),
}

/// A matched session as `list --json` shows it, cut to the fields that tell one match from
/// another and that stay put while it runs: who it is (`session_id`, `label`, `source`,
/// `cli_type`), whose it is (the owner fields, `claude_code_session_id`), where and what it
/// runs (`shell`, `cwd`, `pid`, `created_at`) and how it is now (`state`,
/// `terminal_state`). Left out: the holder's plumbing (`socket`, `holder_pid`, seals), the
/// launch description (`sandbox`, `program`, `input_filter`) and the probe's moment-to-moment
/// figures (offsets, screen, size, attached clients): `kpty list --json` shows them all.
///
/// Fields the row always has are written even when `null`, as `list` writes them; fields a
/// newer peer may add are read past (the row is then not the one this build writes, and
/// [`decode`] keeps the whole details as they came, in [`Details::Other`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListedMatch {
    /// Its id.
    pub session_id: String,
    /// Its label.
    pub label: Option<String>,
    /// Who registered it (`local`, `desktop` …).
    pub source: String,
    /// The agent CLI it runs for, when registered.
    pub cli_type: Option<String>,
    /// The agent that owns it.
    pub owner_agent_id: Option<String>,
    /// The owner's session.
    pub owner_session_id: Option<String>,
    /// `leader` or `worker`.
    pub owner_role: Option<String>,
    /// The Claude Code session it belongs to (only when it has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_code_session_id: Option<String>,
    /// The shell (or program) it runs.
    pub shell: Option<String>,
    /// Its working directory at start.
    pub cwd: Option<String>,
    /// Its shell's pid.
    pub pid: Option<u32>,
    /// When it was created.
    pub created_at: Option<String>,
    /// `running`, `exited`, `dead` … (as `list` says).
    pub state: String,
    /// The terminal's own state (`prompt`, `running` …), when its holder answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_state: Option<String>,
}

/// A matched session's id and label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelledMatch {
    /// Its id.
    pub session_id: String,
    /// Its label.
    pub label: Option<String>,
}

/// A matched session's id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdMatch {
    /// Its id.
    pub session_id: String,
}

/// A desktop bridge that failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bridge {
    /// The session.
    pub session_id: String,
    /// The bridge's base URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desktop_url: Option<String>,
    /// The URL called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The HTTP status it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The start of its answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// A registry entry kpty will not talk to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// The session.
    pub session_id: String,
    /// Who registered it.
    pub source: String,
    /// It has no valid seal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub untrusted: Option<bool>,
}

/// A bridge's refusal: its answer quoted whole (a foreign object, kept as it came).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BridgeAnswer {
    /// The session.
    pub session_id: String,
    /// The bridge's answer.
    pub answer: Foreign,
}

/// JSON from elsewhere (a bridge's answer, details of a shape this build does not know),
/// kept as it came: its text, written back verbatim, and — read once, when it is taken in —
/// the fields [`Details`]' readers look for in any details.
#[derive(Debug, Clone)]
pub struct Foreign {
    /// The JSON text.
    raw: Box<RawValue>,
    /// What the readers look for in it.
    known: Known,
}

/// The fields [`Details`]' readers find in details of any shape: each one read when it is
/// there with its type, `None` otherwise (a field of another type is not an error).
#[derive(Debug, Clone, Default, Deserialize)]
struct Known {
    #[serde(default, deserialize_with = "lenient")]
    session_id: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    partial_output: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    exit_code: Option<i64>,
}

/// A `T` when the JSON is one, `None` when it is anything else.
fn lenient<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Or<T> {
        Is(T),
        Not(serde::de::IgnoredAny),
    }
    Ok(match Or::<T>::deserialize(d)? {
        Or::Is(t) => Some(t),
        Or::Not(_) => None,
    })
}

impl Foreign {
    /// `v` as its JSON text (`null` if it cannot be written as JSON).
    pub fn of(v: &impl Serialize) -> Self {
        let raw = serde_json::value::to_raw_value(v).unwrap_or_else(|_| RawValue::NULL.to_owned());
        Self::from_raw(raw)
    }

    /// JSON text taken in as it is.
    fn from_raw(raw: Box<RawValue>) -> Self {
        let known = serde_json::from_str(raw.get()).unwrap_or_default();
        Self { raw, known }
    }

    /// The JSON text, as it came.
    pub fn get(&self) -> &str {
        self.raw.get()
    }
}

impl PartialEq for Foreign {
    /// The same JSON text.
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Serialize for Foreign {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Foreign {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(d).map(Self::from_raw)
    }
}

/// A marker the holder does not know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Marker {
    /// The session.
    pub session_id: String,
    /// The marker.
    pub marker_id: u64,
}

/// A session that runs a program.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramSession {
    /// The session.
    pub session_id: String,
    /// The program's command.
    pub program: String,
}

/// A shell PTY the session does not have.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pty {
    /// The address given.
    pub session_id: String,
    /// The PTY number.
    pub pty: u64,
}

/// A leader's terminal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Leader {
    /// The session.
    pub session_id: String,
    /// `leader`.
    pub owner_role: String,
    /// The leader agent, when registered.
    pub owner_agent_id: Option<String>,
}

/// A shell that exited during start-up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartFailed {
    /// Why the sandbox refused (a sandbox that could not be applied).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Its exit code.
    pub exit_code: i64,
    /// What it printed.
    pub output: String,
}

/// A sandbox the kernel cannot enforce.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sandbox {
    /// Why.
    pub reason: String,
    /// The kernel's Landlock ABI, if any.
    pub landlock_abi: Option<u32>,
}

/// What the sandbox floor refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Floor {
    /// The request field.
    pub field: String,
    /// What was asked.
    pub value: String,
    /// The floor's mode.
    pub floor: String,
    /// Who set the floor.
    pub origin: String,
}

/// A key `send_keys` does not know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Keys {
    /// The key.
    pub key: String,
    /// All the keys given.
    pub keys: Vec<String>,
}

/// An MCP argument of the wrong type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parameter {
    /// The parameter.
    pub parameter: String,
    /// What it takes.
    pub expected: String,
}

/// An audit entry that could not be written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Audit {
    /// The action refused.
    pub action: String,
    /// The journal.
    pub journal: String,
}

/// A refused request field, or the environment variable standing for one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Field {
    /// The variable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<String>,
    /// The field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// The session concerned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Session {
    /// The session.
    pub session_id: String,
}

/// A cancelled call's interrupt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interrupted {
    /// The signal.
    pub signal: String,
    /// The shell is back at its prompt.
    pub at_prompt: bool,
}

impl From<&crate::safety::Refusal> for Details {
    /// A refused write's rule and what it matched ([`Blocked`]): the shape the safety leaf
    /// gives it ([`crate::safety::Refusal::details`]), read once here.
    fn from(r: &crate::safety::Refusal) -> Self {
        decode(r.details())
    }
}

impl Session {
    /// Details naming only `session_id`.
    pub fn of(session_id: impl Into<String>) -> Self {
        Self {
            session_id: session_id.into(),
        }
    }
}
