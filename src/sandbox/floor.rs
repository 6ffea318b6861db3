//! The operator's sandbox floor: the least confinement every session gets, set by whoever
//! starts kpty (`KPTY_SANDBOX`, `kpty mcp --sandbox=required`, `kpty serve --sandbox=…`,
//! with `--allow-write`, `--deny-read`, `--no-network` beside it). A request (MCP arguments,
//! an HTTP body, the CLI's flags) may tighten it, never lower it: [`judge`] decides, as a
//! pure function over resolved paths, and names the field it refuses and who may change the
//! floor.
//!
//! Under a `required` floor, every field that could widen what a session may do is checked:
//! `sandbox: false`; an `allow_write` path, the `cwd` (it becomes writable) or the shell's
//! `TMPDIR` (it becomes writable) outside the floor's writable area (the project root, /tmp,
//! the operator's `$TMPDIR` and `--allow-write` paths, symlinks resolved by the caller);
//! `network: true` where the operator said `--no-network`. The shell's `HOME` cannot unhide
//! the credential stores (the caller hides the operator's HOME's as well), and `deny_read`
//! only ever adds. Under `default` the session is sandboxed unless the request
//! says `sandbox: false` (the operator lets agents choose); under `off`, only when asked.

use std::path::{Path, PathBuf};

/// How strongly the operator wants sessions sandboxed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Every session is sandboxed; no request may lower the floor.
    Required,
    /// Sessions are sandboxed unless a request says `sandbox: false`.
    Default,
    /// Sessions are sandboxed only when a request asks.
    #[default]
    Off,
}

impl Mode {
    /// The spelling of `--sandbox=MODE` and `KPTY_SANDBOX`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Required => "required",
            Mode::Default => "default",
            Mode::Off => "off",
        }
    }

    /// `KPTY_SANDBOX`'s value: `1`, `true`, `on`, `yes`, `required` are `required`;
    /// `default` is `default`; empty, `0`, `false`, `off`, `no` are `off`. Anything else is
    /// `required` (an operator's typo must not open the floor).
    fn from_env_value(v: &str) -> Mode {
        let v = v.trim().to_ascii_lowercase();
        match v.as_str() {
            "default" => Mode::Default,
            "" | "0" | "false" | "off" | "no" => Mode::Off,
            _ => Mode::Required,
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Mode, String> {
        match s {
            "required" => Ok(Mode::Required),
            "default" => Ok(Mode::Default),
            "off" => Ok(Mode::Off),
            _ => Err(format!("{s:?} is not one of required, default, off")),
        }
    }
}

/// The operator's floor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Floor {
    /// Whether sessions are sandboxed.
    pub mode: Mode,
    /// Extra paths the operator lets sessions write (absolute).
    pub allow_write: Vec<PathBuf>,
    /// Extra paths hidden from every sandboxed session (absolute).
    pub deny_read: Vec<PathBuf>,
    /// No TCP for any sandboxed session.
    pub no_network: bool,
    /// Who set it, for refusals: `KPTY_SANDBOX=1`, `kpty mcp --sandbox=required` …
    pub origin: String,
}

/// The environment variable of the floor.
const ENV: &str = "KPTY_SANDBOX";

impl Floor {
    /// The floor `KPTY_SANDBOX` sets (no variable: `off`).
    pub fn from_env() -> Floor {
        match std::env::var(ENV) {
            Ok(v) => Floor {
                mode: Mode::from_env_value(&v),
                origin: format!("{ENV}={}", v.trim()),
                ..Floor::default()
            },
            Err(_) => Floor {
                origin: format!("{ENV} unset"),
                ..Floor::default()
            },
        }
    }
}

/// A request's sandbox fields, paths made absolute and symlinks resolved by the caller.
#[derive(Debug, Clone, Default)]
pub struct Asked {
    /// `sandbox`.
    pub sandbox: Option<bool>,
    /// `allow_write`, resolved.
    pub allow_write: Vec<PathBuf>,
    /// `network`.
    pub network: Option<bool>,
    /// The session's working directory, resolved (it becomes writable).
    pub cwd: PathBuf,
    /// `TMPDIR` from the request's `env`, resolved (it becomes writable).
    pub tmpdir: Option<PathBuf>,
}

/// A request the floor forbids: the field, the value asked, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The request field (`sandbox`, `allow_write`, `cwd`, `env.TMPDIR`, `network`).
    pub field: &'static str,
    /// What was asked, as text.
    pub value: String,
    /// Why the floor forbids it.
    pub why: String,
}

/// What [`judge`] allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// No sandbox (the floor allows that and the request did not ask for one).
    Unconfined,
    /// Sandboxed, with the floor's additions.
    Confined {
        /// TCP allowed.
        network: bool,
        /// Paths hidden besides the request's `deny_read` (the operator's).
        deny_read: Vec<PathBuf>,
        /// Writable paths besides the request's (the operator's `--allow-write`).
        allow_write: Vec<PathBuf>,
    },
}

/// Decide a request under `floor`. `area` is what the floor lets a session write (the project
/// root, /tmp, the operator's `$TMPDIR`, resolved; the operator's `--allow-write` are added
/// here). Pure: paths are compared as given.
pub fn judge(floor: &Floor, asked: &Asked, area: &[PathBuf]) -> Result<Verdict, Refusal> {
    let sandboxed = match (floor.mode, asked.sandbox) {
        (Mode::Required, Some(false)) => {
            return Err(Refusal {
                field: "sandbox",
                value: "false".into(),
                why: "every session must be sandboxed".into(),
            });
        }
        (Mode::Required, _) => true,
        (Mode::Default, s) => s.unwrap_or(true),
        (Mode::Off, s) => s.unwrap_or(false),
    };
    if !sandboxed {
        return Ok(Verdict::Unconfined);
    }
    if floor.mode == Mode::Required {
        let area: Vec<&PathBuf> = area.iter().chain(&floor.allow_write).collect();
        let inside = |p: &Path| area.iter().any(|a| p.starts_with(a));
        let outside = |field: &'static str, p: &Path| Refusal {
            field,
            value: p.display().to_string(),
            why: format!(
                "it would be writable and lies outside what the floor lets sessions write ({})",
                area.iter()
                    .map(|a| a.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        if let Some(p) = asked.allow_write.iter().find(|p| !inside(p)) {
            return Err(outside("allow_write", p));
        }
        if !inside(&asked.cwd) {
            return Err(outside("cwd", &asked.cwd));
        }
        if let Some(t) = asked.tmpdir.as_deref().filter(|t| !inside(t)) {
            return Err(outside("env.TMPDIR", t));
        }
        if floor.no_network && asked.network == Some(true) {
            return Err(Refusal {
                field: "network",
                value: "true".into(),
                why: "the operator denies sessions TCP (--no-network)".into(),
            });
        }
    }
    Ok(Verdict::Confined {
        network: asked.network.unwrap_or(!floor.no_network),
        deny_read: floor.deny_read.clone(),
        allow_write: floor.allow_write.clone(),
    })
}

#[cfg(test)]
#[path = "floor_tests.rs"]
mod tests;
