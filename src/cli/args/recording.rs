//! The recording verbs' flags: `rec` (list, cat, export), `replay` and `gc`.

use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;

/// `kpty rec`.
#[derive(Debug, Args)]
pub struct RecArgs {
    #[command(subcommand)]
    pub command: RecCommand,
}

/// What `kpty rec` does.
#[derive(Debug, Subcommand)]
pub enum RecCommand {
    /// List the state directory's recordings: each PTY's segments, size and whether its
    /// session has ended, with the caps in force.
    List(RecListArgs),
    /// Print a recording's output as text: every line as it was left on the terminal (what
    /// `asciinema convert -f txt` prints).
    Cat(RecSourceArgs),
    /// Write a recording as one file: an asciicast v3 `cast` (segments joined), `txt`, a
    /// self-contained `html` page that plays it offline, or an animated `gif`.
    Export(RecExportArgs),
}

/// `kpty rec list`.
#[derive(Debug, Args)]
pub struct RecListArgs {
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

/// Which recording: a session's, or a file.
#[derive(Debug, Args)]
pub struct RecSource {
    /// The session (id, SESSION:N for its PTY N, or label; default: the default session),
    /// also one that has ended.
    #[arg(short, long, value_name = "SESSION", add = crate::cli::complete::sessions())]
    pub session: Option<String>,
    /// An asciicast v3 file instead of a session's recording.
    #[arg(value_name = "FILE", conflicts_with = "session", value_hint = clap::ValueHint::FilePath)]
    pub file: Option<PathBuf>,
}

/// `kpty rec cat`.
#[derive(Debug, Args)]
pub struct RecSourceArgs {
    #[command(flatten)]
    pub source: RecSource,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

/// `kpty rec export`'s formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// One asciicast v3 file.
    Cast,
    /// The output as text.
    Txt,
    /// One HTML page with asciinema-player embedded: plays offline.
    Html,
    /// An animated GIF, frames drawn as screenshots are.
    Gif,
}

/// `kpty rec export`.
#[derive(Debug, Args)]
pub struct RecExportArgs {
    #[command(flatten)]
    pub source: RecSource,
    /// The format.
    #[arg(long, short = 'f', value_enum, default_value = "cast")]
    pub format: ExportFormat,
    /// Write here (default: standard output; a binary format then needs a pipe). An export
    /// is redacted (it is made to be handed on) unless --no-redact is given.
    #[arg(long, short = 'o', value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub output: Option<PathBuf>,
    /// Start here: a marker's text (the first marker containing it, e.g. `talk by`) or a time
    /// into the recording (90, 1m30s, 01:30).
    #[arg(long, value_name = "MARKER|TIME")]
    pub from: Option<String>,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

/// `kpty replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub source: RecSource,
    /// Play this many times faster (0.1 to 100).
    #[arg(long, default_value_t = 1.0, value_name = "X")]
    pub speed: f64,
    /// Pauses longer than this many seconds are shortened to it (default: the recording's own
    /// idle limit, else none).
    #[arg(long, value_name = "S")]
    pub idle_limit: Option<f64>,
    /// Start here: a marker's text or a time into the recording (90, 1m30s, 01:30).
    #[arg(long, value_name = "MARKER|TIME")]
    pub from: Option<String>,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

/// `kpty gc`.
#[derive(Debug, Args)]
pub struct GcArgs {
    /// Show what the caps would remove; remove nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

/// `kpty evidence`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct EvidenceArgs {
    #[command(subcommand)]
    pub command: Option<EvidenceCommand>,
    #[command(flatten)]
    pub session: super::SessionArg,
    /// Start the pack's range here: a marker's text (e.g. `talk by`) or a time into the
    /// recording (90, 1m30s, 01:30); default: the recording's start.
    #[arg(long, alias = "since", value_name = "MARKER|TIME")]
    pub from: Option<String>,
    /// A note kept in the manifest (redacted).
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

/// `kpty evidence verify|list`.
#[derive(Debug, Subcommand)]
pub enum EvidenceCommand {
    /// Check a pack: every file against its manifest's SHA-256, the manifest against its seal
    /// and the audit trail; names what changed, went missing or was added (exit 1).
    Verify(EvidenceVerifyArgs),
    /// List the state directory's packs.
    List(RecListArgs),
}

/// `kpty evidence verify`.
#[derive(Debug, Args)]
pub struct EvidenceVerifyArgs {
    /// The pack's id (ev_…).
    #[arg(value_name = "EVIDENCE_ID")]
    pub id: String,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

/// `kpty hosts`.
#[derive(Debug, Args)]
pub struct HostsArgs {
    /// `add`, `remove` or `list` (default).
    #[arg(value_parser = ["add", "remove", "list"], default_value = "list")]
    pub verb: String,
    /// The host (for add and remove).
    #[arg(value_name = "HOST")]
    pub host: Option<String>,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}
