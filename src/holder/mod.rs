//! The detached holder process (`kpty __holder`): owns one session's PTY master and shell,
//! drains output into a ring buffer, detects command completion, serves the socket protocol,
//! persists buffer and metadata, and exits (cleaning its socket) when the shell ends.
//!
//! Lifecycle, the dtach way: the launcher writes a [`HolderSpec`] to our stdin and reads one
//! JSON line from our stdout — `{"ok":true,…}` once the shell's first prompt is up, or
//! `{"ok":false,"error":…}` — then stdout is pointed at /dev/null. Logs go to stderr, which the
//! launcher points at `sessions/<id>/holder.log`.

mod answers;
mod attach;
mod completion;
mod continuation;
mod decode;
mod exit;
mod filter_cell;
mod filtering;
mod follow;
mod history;
mod input_line;
mod input_wait;
mod interrupt;
mod lines;
mod markers;
pub mod persist;
mod proc_dir;
mod proc_tty;
mod program;
mod queue;
mod record;
mod recording;
mod requests;
mod restarter;
pub mod screen;
pub mod server;
pub mod session;
pub mod shell;
mod shell_state;
mod submitted;
pub mod talk;
mod talk_errors;
mod term_queries;
mod wait;

use crate::error::{Error, ErrorCode, Result};
use crate::proto::launch::{HOLDER_MALLOC_ENV, HolderSpec, Ready};
use crate::store::{Metadata, StateDir};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use session::Shared;
use shell::{Integration, ShellKind};
use std::io::{Read, Write};
use std::os::unix::net::UnixListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Entry point of `kpty __holder`; returns the process exit code.
pub fn main() -> i32 {
    // Still single-threaded: close inherited descriptors other than stdio before anything
    // else (portable-pty's helper reads /dev/fd, fine before threads exist).
    portable_pty::unix::close_random_fds();
    let Some(spec) = read_spec() else {
        return 1;
    };
    if let Ok(null) = std::fs::File::open("/dev/null") {
        let _ = rustix::stdio::dup2_stdin(&null);
    }
    crate::init_logging("info");
    let _ = std::env::set_current_dir("/");
    tracing::info!(
        "holder {} starting for {}",
        std::process::id(),
        spec.session_id
    );
    let (shared, listener, state, meta) = match start(&spec) {
        Ok(x) => x,
        Err(e) => {
            tracing::error!("start failed: {e}");
            report(&Ready::failed(e, std::process::id()));
            return 1;
        }
    };
    report(&Ready {
        ok: true,
        pid: Some(shared.pid()),
        holder_pid: Some(std::process::id()),
        integration: Some(meta.integration.as_str().into()),
        shell_kind: Some(meta.shell_kind.as_str().into()),
        shell: Some(meta.shell.clone()),
        error: None,
    });
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        let _ = rustix::stdio::dup2_stdout(&null);
    }
    let srv = shared.clone();
    std::thread::spawn(move || server::serve(listener, srv));
    let p = shared.clone();
    let (pstate, pmeta) = (state.clone(), meta.clone());
    // The saver says when it has ended: the wind-down waits for it with a deadline.
    let (saved, saver) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        persist::debounced(p, pstate, pmeta);
        let _ = saved.send(());
    });

    wind_down(&shared, &spec, &state, &meta, saver);
    tracing::info!("holder exiting");
    0
}

/// The spec the launcher wrote to our stdin; `None` (reported when possible) when it cannot
/// be read or parsed.
fn read_spec() -> Option<HolderSpec> {
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("kpty holder: cannot read the spec: {e}");
        return None;
    }
    match serde_json::from_slice(&input) {
        Ok(s) => Some(s),
        Err(e) => {
            report(&Ready::failed(
                Error::internal(format!("malformed holder spec: {e}")),
                std::process::id(),
            ));
            None
        }
    }
}

/// How long the wind-down waits for a debounced save under way.
const SAVER_DEADLINE: Duration = Duration::from_secs(10);

/// Wait for the shell to end, save, remove the socket, end the shells opened beside PTY 0,
/// and give requests in flight a moment to write their replies. `saver` hears when the
/// debounced saving thread, which ends once the shell has, is done.
fn wind_down(
    shared: &Arc<Shared>,
    spec: &HolderSpec,
    state: &StateDir,
    meta: &Metadata,
    saver: std::sync::mpsc::Receiver<()>,
) {
    // Wait for the shell to end.
    let mut st = shared.lock();
    while st.exit.is_none() {
        st = shared.ended.wait(st).unwrap_or_else(|p| p.into_inner());
    }
    drop(st);
    // A save the debounced thread began before the end (its files taken while the shell ran)
    // lands first: the final save is the last word on disk, never overwritten by a stale one.
    // A save stuck in its write (a hung disk) past the deadline does not keep the holder
    // from ending: the final save goes ahead, and the process ends soon after it.
    if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = saver.recv_timeout(SAVER_DEADLINE) {
        tracing::warn!("the last debounced save did not end within {SAVER_DEADLINE:?}");
    }
    if let Some(r) = shared.recorder.get() {
        r.finish(Duration::from_secs(2));
    }
    persist::final_save(shared, state, meta);
    let _ = std::fs::remove_file(&spec.socket);
    // No new connection reaches this holder now; neither does one a client kept.
    server::end_idle_connections(shared);
    // PTY 0 ended: the session is over, and the shells opened beside it with it.
    if let Ok(id) = crate::api::SessionId::parse(&spec.session_id)
        && id.pty_parts().is_none()
    {
        let ended = crate::proto::ptys::end_all(state, &id, Duration::from_secs(2));
        if !ended.is_empty() {
            tracing::info!("ended {} shell PTY(s) with the session", ended.len());
        }
    }
    // Let requests in flight (woken by the exit) write their replies.
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut st = shared.lock();
    while st.open_connections > 0 {
        let (g, up) = shared.wait_until(st, deadline);
        st = g;
        if up {
            break;
        }
    }
}

fn report(r: &Ready) {
    let mut out = std::io::stdout().lock();
    if let Ok(line) = serde_json::to_string(r) {
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
}

fn spawn_failed(msg: impl Into<String>) -> Error {
    Error::new(ErrorCode::PtySpawnFailed, msg)
}

/// Spawn the shell, bind the socket, start the reader and waiter, wait for the first prompt.
fn start(spec: &HolderSpec) -> Result<(Arc<Shared>, UnixListener, StateDir, Metadata)> {
    let state = StateDir::at(&spec.state_dir)?;
    let id = crate::api::SessionId::parse(&spec.session_id)?;
    if !spec.cwd.is_dir() {
        return Err(spawn_failed(format!(
            "working directory {} does not exist or is not a directory",
            spec.cwd.display()
        )));
    }
    let (program, kind, launch) = what_to_run(spec)?;
    let mut pty = spawn_shell(spec, &program, &launch)?;
    let listener = bind(&spec.socket)?;
    let shared = Shared::new(
        pty.master,
        pty.writer,
        pty.pid,
        (kind, shell::has_line_editor(&program)),
        spec.session_id.clone(),
        session::Limits {
            buffer_size: spec.buffer_size,
            scrollback: spec
                .scrollback
                .unwrap_or_else(crate::api::config::scrollback)
                .min(crate::api::MAX_SCROLLBACK),
        },
        (spec.cols, spec.rows),
    );
    let home = spec
        .env
        .get("HOME")
        .cloned()
        .or_else(|| std::env::var("HOME").ok());
    shared.start_context(&spec.cwd, home.as_deref(), &spec.env);
    equip(&shared, spec, pty.keep.take(), &state, &id)?;
    let r = shared.clone();
    let reader = pty.reader;
    std::thread::spawn(move || r.reader_loop(reader));
    let w = shared.clone();
    let child = pty.child;
    std::thread::spawn(move || w.waiter(child));
    let (integration, cols, rows) = if spec.program.is_some() {
        // A program is ready once started: it may print nothing until spoken to.
        (kind.integration(), spec.cols, spec.rows)
    } else {
        wait_ready(&shared, spec, kind)?
    };
    let meta = Metadata {
        session_id: spec.session_id.clone(),
        source: "local".into(),
        shell: program.display().to_string(),
        shell_args: launch.args.clone(),
        cwd: spec.cwd.display().to_string(),
        cols,
        rows,
        pid: Some(pty.pid),
        holder_pid: Some(std::process::id()),
        socket: Some(spec.socket.display().to_string()),
        integration: integration.as_str().into(),
        shell_kind: kind.as_str().into(),
        state: "running".into(),
        label: spec.label.clone(),
        created_at: spec.created_at.clone(),
        protocol_version: crate::proto::PROTOCOL_VERSION,
        kpty_version: env!("CARGO_PKG_VERSION").into(),
        buffer_size: spec.buffer_size,
        env_keys: spec.env.keys().cloned().collect(),
        sandbox: spec.sandbox.clone(),
        input_filter: spec.input_filter.clone(),
        program: spec.program.clone(),
        ..Default::default()
    };
    meta.save(&state, &id)?;
    Ok((shared, listener, state, meta))
}

/// What the session runs: the program's path, its shell family and how to start it. A
/// program instead of a shell (`--command`) gets its own words, no integration, no rc files.
fn what_to_run(spec: &HolderSpec) -> Result<(std::path::PathBuf, ShellKind, shell::Launch)> {
    Ok(match &spec.program {
        Some(p) => (
            {
                // The session's PATH, not the holder's: `--env PATH=…` when given.
                let path = spec
                    .env
                    .get("PATH")
                    .map(std::ffi::OsString::from)
                    .or_else(|| std::env::var_os("PATH"))
                    .unwrap_or_default();
                shell::resolve_in(&p.argv[0], "program", &path, &spec.cwd)?
            },
            ShellKind::Other,
            shell::Launch {
                args: p.argv[1..].to_vec(),
                env: Vec::new(),
            },
        ),
        None => {
            let kind = ShellKind::detect(&spec.shell);
            let integ_dir = crate::store::paths::shell_integration_dir()?;
            let launch = shell::prepare(kind, &integ_dir)?;
            (shell::resolve_program(&spec.shell, "shell")?, kind, launch)
        }
    })
}

/// Give a new session its terminal answers, program lifecycle (and restarter) and input
/// filter.
fn equip(
    shared: &Arc<Shared>,
    spec: &HolderSpec,
    keep: Option<(Box<dyn portable_pty::SlavePty + Send>, CommandBuilder)>,
    state: &StateDir,
    id: &crate::api::SessionId,
) -> Result<()> {
    let _ = shared.spec.set(spec.clone());
    if let Some(caps) = &spec.record {
        let setup = record::Setup {
            dir: state.session_dir(id),
            state: state.clone(),
            session_id: id.address(),
            segment: caps.segment,
            total: caps.total,
            title: spec.label.clone(),
            command: match &spec.program {
                Some(p) => p.argv.join(" "),
                None => spec.shell.clone(),
            },
        };
        let size = (spec.cols, spec.rows);
        let _ = shared.recorder.set(record::Recorder::start(setup, size));
    }
    let (tx, rx) = answers::queue();
    if shared.answers.set(tx).is_ok() {
        let a = shared.clone();
        std::thread::spawn(move || a.answerer(rx));
    }
    if let Some(p) = &spec.program {
        shared.lock().program = Some(exit::Lifecycle::running());
        if let Some((slave, cmd)) = keep {
            let events = state.session_dir(id).join("events.jsonl");
            let r = restarter::Restarter::new(slave, cmd, p.clone(), state.clone(), events);
            let _ = shared.restarter.set(r);
        }
    }
    if let Some(f) = &spec.input_filter {
        let _ = shared.filter.set(filter_cell::Filter::new(f.build()?));
        let fl = shared.clone();
        std::thread::spawn(move || fl.flusher());
    }
    Ok(())
}

/// What a shell opened beside this holder's starts from: its spec, with `env` the whole
/// environment its shell got — this holder's own (what the session's creator had, less the
/// allocator settings), then the session's `env` — so the shell PTY has the session's
/// environment whoever opens it ([`HolderSpec::env_exact`]).
fn shell_spec(spec: &HolderSpec) -> HolderSpec {
    let mut env: std::collections::BTreeMap<String, String> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| !HOLDER_MALLOC_ENV.iter().any(|(m, _)| m == k))
        .collect();
    env.extend(spec.env.clone());
    HolderSpec {
        env,
        env_exact: true,
        ..spec.clone()
    }
}

/// A spawned shell on its PTY.
struct Pty {
    master: Box<dyn portable_pty::MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    reader: Box<dyn Read + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    pid: u32,
    /// For a program that is restarted: the terminal's slave side and the command.
    keep: Option<(Box<dyn portable_pty::SlavePty + Send>, CommandBuilder)>,
}

/// Open a PTY and start `program` on it with the session's environment.
fn spawn_shell(
    spec: &HolderSpec,
    program: &std::path::Path,
    launch: &shell::Launch,
) -> Result<Pty> {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: spec.rows,
            cols: spec.cols,
            pixel_width: 0,
            pixel_height: 0,
        })
        .map_err(|e| spawn_failed(format!("cannot open a pseudo-terminal: {e}")))?;
    let mut cmd = match &spec.sandbox {
        None => CommandBuilder::new(program),
        Some(_) => sandboxed(program)?,
    };
    if spec.env_exact {
        cmd.env_clear();
    }
    cmd.args(&launch.args);
    cmd.cwd(&spec.cwd);
    cmd.env("TERM", "xterm-256color");
    cmd.env("PAGER", "cat");
    cmd.env("GIT_PAGER", "cat");
    // How callers name this PTY: the session id, or `SESSION:N` for a shell beside it.
    let address = crate::api::SessionId::parse(&spec.session_id)
        .map_or_else(|_| spec.session_id.clone(), |id| id.address());
    cmd.env("KPTY_SESSION_ID", address);
    for (k, _) in HOLDER_MALLOC_ENV {
        cmd.env_remove(k);
    }
    for (k, v) in &launch.env {
        cmd.env(k, v);
    }
    if let Some(policy) = &spec.sandbox {
        let json = serde_json::to_string(policy).map_err(|e| Error::internal(e.to_string()))?;
        cmd.env(crate::sandbox::POLICY_ENV, json);
        // Set by `__sandbox-exec` once confined: LD_PRELOAD must not reach kpty itself.
        let json = serde_json::to_string(&spec.env).map_err(|e| Error::internal(e.to_string()))?;
        cmd.env(crate::sandbox::SESSION_ENV, json);
    } else {
        for (k, v) in &spec.env {
            cmd.env(k, v);
        }
    }
    // Spawn before any thread exists (portable-pty's pre-exec code is not async-signal-safe).
    let child = pair
        .slave
        .spawn_command(cmd.clone())
        .map_err(|e| spawn_failed(format!("cannot start {}: {e}", program.display())))?;
    // A program that is restarted starts again on the same terminal: keep its slave side
    // (the reader then never sees EOF between runs).
    let keep = match &spec.program {
        Some(p) if p.auto_restart => Some((pair.slave, cmd)),
        _ => {
            drop(pair.slave);
            None
        }
    };
    let pid = child
        .process_id()
        .ok_or_else(|| spawn_failed("the shell has no pid"))?;
    let reader = pair
        .master
        .try_clone_reader()
        .map_err(|e| spawn_failed(format!("pty reader: {e}")))?;
    let writer = pair
        .master
        .take_writer()
        .map_err(|e| spawn_failed(format!("pty writer: {e}")))?;
    Ok(Pty {
        master: pair.master,
        writer,
        reader,
        child,
        pid,
        keep,
    })
}

/// The command that starts `program` confined by the spec's sandbox policy: this very executable
/// (`/proc/self/exe`, so a kpty replaced on disk since the holder started still matches it)
/// as `__sandbox-exec -- program`, which restricts itself and then execs the shell; the
/// policy travels in [`crate::sandbox::POLICY_ENV`].
fn sandboxed(program: &std::path::Path) -> Result<CommandBuilder> {
    let exe = std::path::Path::new("/proc/self/exe");
    if !exe.exists() {
        return Err(spawn_failed(
            "the sandbox needs /proc (to re-run kpty as the sandbox)",
        ));
    }
    let mut cmd = CommandBuilder::new(exe);
    cmd.arg(crate::sandbox::exec::SUBCOMMAND);
    cmd.arg("--");
    cmd.arg(program);
    Ok(cmd)
}

/// Wait for the shell to be ready: the first prompt marker; for shells without one, the first
/// output followed by a quiet spell (the only timing-based judgement, and only for unknown
/// shells). Returns the integration in force and the size.
fn wait_ready(
    shared: &Shared,
    spec: &HolderSpec,
    kind: ShellKind,
) -> Result<(Integration, u16, u16)> {
    let deadline = Instant::now() + Duration::from_millis(spec.ready_timeout_ms);
    let quiet = Duration::from_millis(300);
    let expects_marker = kind.integration() == Integration::Osc133 || kind == ShellKind::Posix;
    let mut st = shared.lock();
    loop {
        // Ready once the prompt is fully drawn (B) where the integration marks it, else at the
        // prompt's start (A): typing before that would be echoed by the tty, not the shell.
        if st.prompt_seen && (st.input_seen || !kind.marks_input_start()) {
            break;
        }
        if let Some(exit) = st.exit.clone() {
            let out = crate::text::clean_text(&st.ring.contents());
            drop(st);
            let _ = std::fs::remove_file(&spec.socket);
            return Err(exited_at_start(exit.code, out));
        }
        let wake = if !expects_marker && st.output_seen {
            let q = st.last_output + quiet;
            if Instant::now() >= q {
                break;
            }
            q.min(deadline)
        } else {
            deadline
        };
        let (g, _) = shared.wait_until(st, wake);
        st = g;
        if Instant::now() >= deadline {
            if kind.integration() == Integration::Osc133 && !st.prompt_seen {
                tracing::warn!(
                    "no prompt marker within {} ms: the shell's startup files may have replaced kpty's integration; falling back to sentinels",
                    spec.ready_timeout_ms
                );
                st.integration = Integration::Sentinel;
            }
            break;
        }
    }
    Ok((st.integration, st.cols, st.rows))
}

/// `PTY_SPAWN_FAILED`: the shell exited with `code` during start-up, having printed `out`.
fn exited_at_start(code: i32, out: String) -> Error {
    if code == crate::sandbox::REFUSED_EXIT_CODE {
        let why = out
            .lines()
            .find_map(|l| l.trim().strip_prefix("kpty sandbox: "))
            .unwrap_or("the sandbox could not be applied")
            .to_string();
        let reason = out
            .lines()
            .find_map(|l| l.trim().strip_prefix(crate::sandbox::exec::REASON_PREFIX))
            .filter(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
            .unwrap_or("sandbox_not_enforced");
        return spawn_failed(format!("sandbox: {why}")).with_details(
            crate::error::details::StartFailed {
                reason: Some(reason.to_string()),
                exit_code: code.into(),
                output: out,
            },
        );
    }
    let tail: Vec<&str> = out.lines().rev().take(10).collect();
    let tail = tail.into_iter().rev().collect::<Vec<_>>().join("\n");
    spawn_failed(format!(
        "the shell exited during start-up (code {code}): {}",
        tail.trim()
    ))
    .with_details(crate::error::details::StartFailed {
        reason: None,
        exit_code: code.into(),
        output: out,
    })
}

/// Bind the socket (0600), replacing a stale one; refuse when a live holder answers on it.
fn bind(path: &std::path::Path) -> Result<UnixListener> {
    if path.exists() {
        // Bounded: a stopped holder's full backlog counts as in use, not as a hang.
        let knock = crate::proto::client::connect_within(path, Duration::from_millis(250));
        if knock.is_ok() || knock.is_err_and(|e| e.kind() == std::io::ErrorKind::WouldBlock) {
            return Err(spawn_failed(format!(
                "socket {} is in use by another holder",
                path.display()
            )));
        }
        let _ = std::fs::remove_file(path);
    }
    // Bound (and listening) under a name of its own first, then renamed into place: the
    // socket appears at `path` only once it accepts, so a sweep of dead sockets (another
    // session being created: connect refused means dead) never takes it for a dead one in
    // the moment between bind and listen.
    // (`X.bind` beside `X.sock`: no longer than the final name, which a socket path's
    // 108-byte limit needs; one holder per session binds it.)
    let fresh = path.with_extension("bind");
    let _ = std::fs::remove_file(&fresh);
    let l = UnixListener::bind(&fresh)
        .map_err(|e| spawn_failed(format!("cannot bind {}: {e}", fresh.display())))?;
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(&fresh, std::fs::Permissions::from_mode(0o600));
    std::fs::rename(&fresh, path).map_err(|e| {
        let _ = std::fs::remove_file(&fresh);
        spawn_failed(format!("cannot put the socket at {}: {e}", path.display()))
    })?;
    Ok(l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_appears_at_its_path_only_once_it_accepts() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("x-pty_test.sock");
        // A stale file at the path (a SIGKILLed holder's) is replaced.
        std::fs::write(&path, b"stale").expect("stale");
        let listener = bind(&path).expect("bind");
        assert!(
            !path.with_extension("bind").exists(),
            "the bind name is left behind"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("dir")
            .flatten()
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        let client = std::os::unix::net::UnixStream::connect(&path).expect("connect");
        let (served, _) = listener.accept().expect("accept");
        drop((client, served));
        // A second holder for the same path is refused while this one answers.
        let again = bind(&path).expect_err("in use");
        assert!(again.message.contains("in use"), "{}", again.message);
    }

    #[test]
    fn a_refused_sandbox_is_a_spawn_failure_that_says_why() {
        let out = "kpty sandbox: the kernel enforces the sandbox only PartiallyEnforced\r\n";
        let e = exited_at_start(crate::sandbox::REFUSED_EXIT_CODE, out.into());
        assert_eq!(e.code, ErrorCode::PtySpawnFailed);
        assert!(e.message.contains("PartiallyEnforced"), "{}", e.message);
        let d = e.details.expect("details").to_value();
        assert_eq!(d["reason"], "sandbox_not_enforced");
        let out = "kpty sandbox: cannot create a user and mount namespace\r\n\
                   kpty sandbox reason: mount_namespace_unavailable\r\n";
        let e = exited_at_start(crate::sandbox::REFUSED_EXIT_CODE, out.into());
        assert!(e.message.contains("mount namespace"), "{}", e.message);
        let d = e.details.expect("details").to_value();
        assert_eq!(d["reason"], "mount_namespace_unavailable");
        let other = exited_at_start(1, "bye".into());
        assert!(
            other
                .details
                .expect("details")
                .to_value()
                .get("reason")
                .is_none()
        );
    }
}
