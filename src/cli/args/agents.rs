//! The agent-routing verbs' arguments (send-line-to-agent … prune) and the CLI-only verbs
//! (serve, help, log).

use super::{IdentityArgs, OwnerArgs, action_name};
use clap::Args;

// `send-line-to-agent`.
#[derive(Debug, Args)]
pub struct SendLineToAgentArgs {
    #[command(flatten)]
    pub who: IdentityArgs,
    /// The text to type (escapes processed; Enter is added).
    #[arg(allow_hyphen_values = true, value_name = "DATA")]
    pub data: String,
}

// `update-ownership`.
#[derive(Debug, Args)]
pub struct UpdateOwnershipArgs {
    /// Session id, unique id prefix, or label.
    #[arg(value_name = "SESSION", add = crate::cli::complete::sessions())]
    pub session: String,
    #[command(flatten)]
    pub owner: OwnerArgs,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `register`.
#[derive(Debug, Args)]
pub struct RegisterArgs {
    /// The external session's id.
    #[arg(value_name = "SESSION_ID")]
    pub session: String,
    /// The bridge that serves it (e.g. http://127.0.0.1:8201).
    #[arg(long, value_name = "URL")]
    pub desktop_url: Option<String>,
    /// Where it lives (default: desktop).
    #[arg(long)]
    pub source: Option<String>,
    /// Process id of the program in the terminal.
    #[arg(long)]
    pub pid: Option<u32>,
    #[command(flatten)]
    pub owner: OwnerArgs,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `unregister`.
#[derive(Debug, Args)]
pub struct UnregisterArgs {
    /// The registered session's id.
    #[arg(value_name = "SESSION_ID", add = crate::cli::complete::sessions())]
    pub session: String,
    /// Also remove a leader's session.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `heartbeat`.
#[derive(Debug, Args)]
pub struct HeartbeatArgs {
    /// Session id, unique id prefix, or label.
    #[arg(value_name = "SESSION", add = crate::cli::complete::sessions())]
    pub session: String,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `prune`.
#[derive(Debug, Args)]
pub struct PruneArgs {
    /// Only show what would be removed: forget registered sessions without a heartbeat for 7
    /// days (as the `prune` action without `force` does) and list the ended local ones.
    #[arg(long)]
    pub dry_run: bool,
    /// Accepted for compatibility: removing ended sessions is the default.
    #[arg(long, hide = true, conflicts_with = "dry_run")]
    pub force: bool,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port to listen on; when taken, the next free one (up to +20). 0: any free port.
    /// Default: KPTY_PORT or 8201.
    #[arg(long, value_name = "PORT")]
    pub port: Option<u16>,
    #[command(flatten)]
    pub listen: ListenArgs,
    /// Also answer requests for this host name (besides localhost, 127.0.0.1 and ::1, and
    /// the --bind address); repeatable; `*` accepts any (DNS-rebinding protection off).
    #[arg(long, value_name = "HOST")]
    pub allow_host: Vec<String>,
    /// Accept requests from this browser origin (`https://app.example:8443`); repeatable.
    /// Requests that carry an Origin header are refused unless it is listed.
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// Print how to connect an MCP client (a `claude mcp add --transport http …` line and a
    /// JSON client config, the secret filled in), then exit.
    #[arg(long)]
    pub print_config: bool,
    /// Also register and call bridges (the HTTP servers of registered sessions: a desktop
    /// terminal app, another kpty serve) on this host, besides loopback; repeatable.
    /// The CLI honours KPTY_ALLOW_BRIDGE (comma-separated hosts) the same way.
    #[arg(long, value_name = "HOST")]
    pub allow_bridge: Vec<String>,
    /// Make a new bridge secret for this state directory (in kpty's private directory,
    /// 0600), print where it is, and exit; clients need the new secret.
    #[arg(long)]
    pub new_secret: bool,
    /// Print the path of this state directory's bridge secret (made first when missing),
    /// then exit: `curl -H "Authorization: Bearer $(cat "$(kpty serve --secret-file)")" …`.
    #[arg(long, conflicts_with_all = ["new_secret", "print_config"])]
    pub secret_file: bool,
    #[command(flatten)]
    pub floor: FloorArgs,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

/// Where `kpty serve` listens, and whether it speaks TLS.
#[derive(Debug, Args)]
pub struct ListenArgs {
    /// The address to listen on (default 127.0.0.1; `0.0.0.0` or `::`: every interface). An
    /// address other than loopback needs --tls-cert and --tls-key, or --insecure. Requests
    /// must still name an accepted host: loopback names, this address (with 0.0.0.0 or ::,
    /// any IP address), or a name given with --allow-host.
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<std::net::IpAddr>,
    /// Serve HTTPS with this certificate chain (PEM, the server's certificate first); needs
    /// --tls-key. The console's cookie is then sent over HTTPS only (`Secure`).
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,
    /// Serve a --bind address other than loopback in clear text (a trusted network, or TLS
    /// ended in front of kpty): the secret, console logins and every keystroke cross the
    /// network readable.
    #[arg(long, conflicts_with = "tls_cert")]
    pub insecure: bool,
}

// `console`.
#[derive(Debug, Args)]
pub struct ConsoleArgs {
    /// The port of the `kpty serve` to log in to. Default: KPTY_PORT or 8201.
    #[arg(long, value_name = "PORT", conflicts_with = "url")]
    pub port: Option<u16>,
    /// The address of a `kpty serve` that is not on http://127.0.0.1:PORT (one started with
    /// --bind or --tls-cert), as its browsers reach it: `https://devbox.example:8201`.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Also open the link in the browser ($BROWSER, else xdg-open), through a file in kpty's
    /// private directory: the token never shows on a command line.
    #[arg(long, conflicts_with = "revoke")]
    pub open: bool,
    /// End every console login: make a new console token (earlier links and logins stop
    /// working at once, in every `kpty serve` of this state directory), then exit.
    #[arg(long)]
    pub revoke: bool,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    #[command(flatten)]
    pub floor: FloorArgs,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// The operator's sandbox floor for the sessions agents create through `mcp` or `serve`.
#[derive(Debug, Args)]
pub struct FloorArgs {
    /// The sandbox floor for sessions agents create here: `required` (every session
    /// sandboxed; a request for sandbox=false, or for writing outside the project root, /tmp,
    /// $TMPDIR and --allow-write, or for TCP under --no-network, fails with
    /// SANDBOX_REQUIRED), `default` (sandboxed unless a request says sandbox=false), `off`
    /// (only when asked). Default: KPTY_SANDBOX (1: required), else off.
    #[arg(long = "sandbox", value_name = "MODE", value_parser = ["required", "default", "off"])]
    pub sandbox: Option<String>,
    /// Sandboxed sessions may also write under PATH (repeatable; must exist); under
    /// `required`, requests may widen writes only this far.
    #[arg(long = "allow-write", value_name = "PATH", value_hint = clap::ValueHint::DirPath)]
    pub allow_write: Vec<std::path::PathBuf>,
    /// Hide PATH from every sandboxed session (repeatable).
    #[arg(long = "deny-read", value_name = "PATH", value_hint = clap::ValueHint::AnyPath)]
    pub deny_read: Vec<std::path::PathBuf>,
    /// No TCP bind or connect for sandboxed sessions (Landlock ABI 4); under `required`, a
    /// request for network=true fails.
    #[arg(long)]
    pub no_network: bool,
}

// `help`.
#[derive(Debug, Args)]
pub struct HelpArgs {
    /// A command to show the flags of (as `kpty COMMAND --help`).
    #[arg(add = crate::cli::complete::commands())]
    pub command: Option<String>,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}

// `log`.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// Only this session: id, unique id prefix, or label — also of a session that has
    /// ended (as the trail recorded it).
    #[arg(short, long, value_name = "SESSION", add = crate::cli::complete::sessions())]
    pub session: Option<String>,
    /// Only events of this agent.
    #[arg(long, value_name = "AGENT_ID")]
    pub agent: Option<String>,
    /// Only this action (e.g. talk, send_line; send-line works too).
    #[arg(long, value_parser = action_name, add = crate::cli::complete::actions())]
    pub action: Option<String>,
    /// Only failed actions.
    #[arg(long)]
    pub errors_only: bool,
    /// Only blocked (dangerous) commands.
    #[arg(long)]
    pub blocked_only: bool,
    /// Only events at or after WHEN: a time (RFC 3339, 2026-11-22T07:00:00Z) or an age
    /// (30s, 10m, 2h, 1d: that long ago).
    #[arg(long, alias = "since", value_name = "WHEN")]
    pub after: Option<String>,
    /// Keep printing new events as they are recorded.
    #[arg(long, short = 'f')]
    pub follow: bool,
    /// Check the trail instead of printing it: each entry against its seal and the entry
    /// before it; names the first entry edited, removed, inserted or reordered in each
    /// journal (exit 1 when one is found).
    #[arg(long, conflicts_with_all = ["follow", "agent", "action", "errors_only", "blocked_only", "after"])]
    pub verify: bool,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}
