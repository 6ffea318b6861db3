//! kpty's one integration-test binary: every test drives the real `kpty` executable against
//! real holders, real PTYs and real shells, each in its own temporary state directory.
//!
//! - `support` — the helper language: [`support::Env`] (temp state dir and HOME, kills its
//!   holders on Drop), command runners, JSON helpers and [`support::wait_for`].
//! - `sessions` — create, list, naming, isolation, environment, persistence, kill, exit, death,
//!   concurrency and the default session.
//! - `talk` — exit codes, clean output, both completion methods, timeouts, busy sessions, big
//!   and odd output.
//! - `talk_line` — talk and the shell's input line: text left there is PTY_BUSY (--force
//!   clears it), a talk never reports or shows its own typing.
//! - `cancel` — `kpty talk` as ssh: signals interrupt the command in the session (exit 130,
//!   recorded as cancelled); a piped stdin is the command's stdin.
//! - `cancel_timing` — a cancel at any moment of a talk: before its command is typed (it
//!   never is), or after its Ctrl-C missed the command (another group in front, a program
//!   started after the Ctrl-C was caught) — in every shell it applies to.
//! - `batch` — kill and list with `all` over MCP (stdio and HTTP), as the CLI's --all.
//! - `running` — one running talk: front end (CLI, MCP stdio, HTTP) × the caller cancels or
//!   leaves → the command is interrupted, the session free, the trail says `CANCELLED`.
//! - `io` — send-line, read (waiting, offsets, dropped bytes, strip-ansi), escapes, resize.
//! - `keys` — send-keys: tmux key names and chords in bash (Ctrl-C, history, completion,
//!   editing, application cursor mode), the dangerous-command check on them, over MCP too.
//! - `check` — `kpty check` and the `check` action: verdicts, exit codes, stdin, line editing,
//!   no session needed, over MCP too.
//! - `lineedit` — the dangerous-command check on the lines the shell reads after line editing.
//! - `errors` — error codes and exit codes, parameter checks, dangerous commands, corrupt state.
//! - `follow` — read/term-read --follow as streaming subscribers: several at once, to the
//!   last byte, a stalled one holds nothing up and is told what it missed.
//! - `term` — term-read: tail/viewport/delta, markers, caps, redaction, full-screen state.
//! - `redact` — secrets on the CLI's channels: `--json` and the audit trail redacted (also
//!   through small term-read and read windows), opt-outs and human output raw.
//! - `mcp` — `kpty mcp` through rmcp's client: schema, actions, errors, progress, cancellation.
//! - `inspector` — the MCP Inspector CLI (installed by `.ci/run`) lists and calls `k_pty`.
//! - `deadlines` — a stopped holder, or a socket nobody accepts on, ends every call within
//!   its timeout.
//! - `sandbox` — `create --sandbox` (CLI and MCP): Landlock confines writes, hides credentials, survives
//!   setuid, scopes signals, `--allow-write`, `--no-network`, and refuses to run unconfined.
//! - `sandbox_floor` — the operator's floor (a table of loosening fields over MCP and the
//!   CLI), what a sandbox hides of other kpty instances, links, the request's environment.
//! - `bridge` — desktop sessions through `kpty serve`: routing, refusals, the secret, the API.
//! - `serve_registry` — bridge writes audited, reset, bridges verified at start,
//!   `claude_code_session_id`, the seeds' owner environment.
//! - `screenshot` — `kpty screenshot` and the `screenshot` action: SVG colours, title and
//!   cursor, text, PNG (file, pipe, base64, MCP image, refused on a terminal), `-o`, secrets
//!   redacted on agent channels only; the animated GIF of a sequence of screens.
//! - `serve_tls` — `serve --bind` off loopback needs TLS or `--insecure`; over TLS the API,
//!   MCP, the console's Secure cookie, its https origin and wss; IP hosts on 0.0.0.0.
//! - `trail_chain` — the audit trail as evidence: `result_summary` on every entry, the hash
//!   chain and seals `kpty log --verify` checks (every change at every place), writers at once.
//! - `serve_load` — slow authenticated bodies cannot starve /health; every body has a deadline.
//! - `console` — the web console of `kpty serve` over real HTTP and WebSockets: login link,
//!   cookie, revoke, only its own origin, the overview pushed as sessions change; and in a
//!   real headless chromium (`webdriver` drives it).
//! - `rec_player` — a recording's standalone HTML page (asciinema-player inlined) plays its
//!   cast from a file in a real headless chromium, under its own content security policy.
//! - `serve_mcp` — MCP over HTTP in `kpty serve` through rmcp's HTTP client: every action,
//!   SSE progress, cancellation, 20 clients, plain JSON POSTs, auth, hosts, origins, leaders.
//! - `environment` — kpty's variables and the k_pty names read when kpty's is unset.
//! - `shell_ptys` — `kpty shell`: shells beside a session's program (PTY 1, 2 …) named
//!   `SESSION:N` by every verb, their cwd, environment and sandbox, kill, list, and every
//!   PTY's exit notice to attached clients and followers.
//! - `layout` — the source layout: unsafe only in sys.rs, short functions, no import circle
//!   among a folder's files, no needless `pub` (with an allowlist that only shrinks).
//! - `assets`, `snapshots` — generated files are fresh; help texts and JSON shapes.

mod support;

mod assets;
mod attach;
mod audit_full;
mod bridge;
mod cancel;
mod cancel_timing;
mod filter;
mod follow;
mod lifecycle;
mod screenshot;
mod serve_registry;
mod serve_tls;
mod snapshots;
mod state_matrix;
mod trail_chain;
mod trust;
mod tty;

mod batch;
mod check;
mod completion;
mod console;
mod console_term;
mod deadlines;
mod elsewhere;
mod environment;
mod errors;
mod evidence;
mod flags;
mod hints;
mod hostile;
mod hosts;
mod housekeeping;
mod inspector;
mod io;
mod keys;
mod layout;
mod lineedit;
mod mcp;
mod mcp_args;
mod policy;
mod policy_session;
mod rec_player;
mod recording;
mod redact;
mod remote;
mod rename;
mod routing;
mod running;
mod sandbox;
mod sandbox_floor;
mod serve_load;
mod serve_mcp;
mod sessions;
mod shell_ptys;
mod shells;
mod suggest;
mod talk;
mod talk_line;
mod term;
mod threats;
mod wait_for;
mod waiting;
mod webdriver;
