//! kpty: live terminals for agents, people and scripts.
//!
//! One binary, four roles:
//! - `kpty <verb>` — the CLI front end ([`cli`]): argv → `api::Params` → [`core`] → human
//!   text or the action's JSON (`--json`).
//! - `kpty __holder` — a detached per-session holder ([`holder`]): owns the PTY master and the
//!   shell, keeps a ring buffer with absolute offsets, detects command completion from OSC 133
//!   shell-integration markers (or echo-proof sentinels), and serves a versioned, length-framed
//!   protocol ([`proto`]) on a private Unix socket.
//! - `kpty mcp` — the stdio MCP server ([`mcp`], rmcp): one tool, `k_pty`, over the same core.
//! - `kpty serve` — the desktop-bridge HTTP API ([`serve`], axum) over the same core, so another
//!   kpty (or a desktop app's client) reaches these sessions; sessions registered from elsewhere
//!   are reached the other way, through [`bridge`].
//!
//! The contract is typed (`api`): `api::Params` in, one reply struct per action out
//! (`TalkReply`, `ReadReply`, `TermReadReply`, `ListReply` …), closed sets as enums parsed
//! once with the seeds' spellings, environment defaults in [`api::config`]. JSON is made only
//! at the edges: the CLI's `--json`, MCP results, HTTP bodies and the audit trail.
//!
//! The core ([`core`]) is one function per action of the `k_pty` contract, returning its
//! typed reply; a session is `Local | Bridged`, decided once, and each reply is built in one
//! place whichever side served it. Policy lives there once — redaction per channel, leader
//! checks, pruning at start, the audit record, follow and read-window loops — so the front
//! ends only translate. Core and holder meet only in [`proto`] (wire messages, the launch
//! handshake, the ring buffer both read); state lives under `ai/checkpoints/pty` through
//! `store`, which treats every file there as untrusted input.
//! Pure logic — dangerous-command patterns, line editing, escapes, redaction ([`safety`]),
//! clean text ([`text`]), ring, markers — is unit-tested beside its code.

pub(crate) mod api;
pub mod bridge;
pub mod cast;
pub mod cli;
pub mod core;
mod eintr;
pub mod error;
pub mod filter;
pub mod holder;
pub mod keys;
pub(crate) mod launch;
mod lazy_log;
pub mod mcp;
pub mod proto;
pub mod remote;
mod role;
pub mod safety;
pub mod sandbox;
pub mod serve;
pub(crate) mod store;
pub(crate) mod sys;
pub mod text;

/// Run kpty with the process's arguments; returns the exit code. The role is decided once,
/// in `role::Role::of`, and played by its own module.
pub fn run() -> i32 {
    role::Role::of(std::env::args_os().collect()).run()
}

/// Log to stderr (never stdout: in MCP mode it carries the protocol). The filter comes from
/// `KPTY_LOG`, else `RUST_LOG`, else `default` (a level: `warn`, `info` …, or directives);
/// `KPTY_LOG_FORMAT=json` writes one JSON object a line (for a service's log collector).
pub(crate) fn init_logging(default: &str) {
    let from_env = ["KPTY_LOG", "RUST_LOG"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    let json = std::env::var("KPTY_LOG_FORMAT").is_ok_and(|f| f.eq_ignore_ascii_case("json"));
    let filter = || {
        tracing_subscriber::EnvFilter::try_from_env("KPTY_LOG")
            .or_else(|_| tracing_subscriber::EnvFilter::try_from_default_env())
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default))
    };
    // Without a filter in the environment, a plain level: no directive parsing on every start
    // (and less code paged in by every long-lived holder).
    let level = default.parse::<tracing_subscriber::filter::LevelFilter>();
    let from_env = from_env || level.is_err(); // a default with directives (`info,rmcp=warn`)
    let level = level.unwrap_or(tracing_subscriber::filter::LevelFilter::WARN);
    let fmt = stderr_fmt();
    let _ = match (from_env, json) {
        (true, false) => fmt.with_env_filter(filter()).try_init(),
        (true, true) => fmt.json().with_env_filter(filter()).try_init(),
        // The common case (a CLI call that logs nothing): no registry set up unless it logs.
        (false, false) => {
            use tracing_subscriber::util::SubscriberInitExt;
            let build = |level| stderr_fmt().with_max_level(level).finish();
            lazy_log::Lazy::new(level, build)
                .try_init()
                .map_err(Into::into)
        }
        (false, true) => fmt.json().with_max_level(level).try_init(),
    };
}

/// kpty's log lines: plain text on stderr.
fn stderr_fmt() -> tracing_subscriber::fmt::SubscriberBuilder<
    tracing_subscriber::fmt::format::DefaultFields,
    tracing_subscriber::fmt::format::Format,
    tracing_subscriber::filter::LevelFilter,
    fn() -> std::io::Stderr,
> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr as fn() -> std::io::Stderr)
        .with_ansi(false)
}
