//! A caller's side of a host's channel ([`super::mux`]): find it (or start it) and run one
//! request over it — a CLI verb whose output streams to this process's own, or an action
//! whose JSON comes back whole. When no channel can be had (it could not start, another
//! process is starting it), the caller goes the direct way: one ssh command for the call.

use super::Host;
use super::wire::{Frame, Kind, Verb};
use crate::error::{Error, ErrorCode, Result};
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The channel's socket for `host` and `dir`: one a host, remote directory, ssh command and
/// kpty build (a new build never talks to an older channel).
fn socket(host: &Host, dir: Option<&str>) -> Result<PathBuf> {
    let (folder, build) = base()?;
    let ssh = crate::api::config::var("KPTY_SSH_COMMAND").unwrap_or_default();
    let seed = format!("{host}\n{}\n{ssh}\n{build}", dir.unwrap_or(""));
    let key = hex::encode(&Sha256::digest(seed.as_bytes())[..8]);
    Ok(folder.join(format!("mux-{key}")))
}

/// The folder of the channels' sockets (made private once) and this build's name, found
/// once a process (`list --all-hosts` asks for them once a host).
fn base() -> Result<(PathBuf, String)> {
    static BASE: std::sync::OnceLock<(PathBuf, String)> = std::sync::OnceLock::new();
    if let Some(b) = BASE.get() {
        return Ok(b.clone());
    }
    let d = crate::store::paths::runtime_dir()?.join("ssh");
    crate::store::secure::ensure_dir(&d)?;
    let b = (d, super::install::build_name()?);
    Ok(BASE.get_or_init(|| b).clone())
}

/// A connection to the channel of `host` (in `dir`), started first when there is none;
/// `Ok(None)` when none can be had, so the caller goes the direct way. Errors are the
/// host's: unreachable, refused, no kpty there and none may be installed.
pub fn connect(host: &Host, dir: Option<&str>) -> Result<Option<UnixStream>> {
    if let Some(s) = open(host, dir)? {
        return Ok(Some(s));
    }
    let sock = socket(host, dir)?;
    super::master::ensure(host)?;
    let mut spec = super::mux::Spec {
        host: host.to_string(),
        dir: dir.map(str::to_string),
        kpty: super::install::command()?,
        socket: sock.clone(),
    };
    // This build is most often there already: the channel is tried first, and only when it
    // does not start is the host asked what it has (and given this build when it has none).
    let first = start(&spec);
    let started = match first {
        Ok(()) => Ok(()),
        Err(Busy) => Err(Busy),
        Err(_) => {
            spec.kpty = super::install::ensure(host)?;
            start(&spec)
        }
    };
    match started {
        Ok(()) => Ok(reach(&sock)),
        Err(Busy) => Ok(None),
        Err(NotStarted::Failed(why)) => {
            tracing::debug!("no channel to {host}, going the direct way: {why}");
            Ok(None)
        }
    }
}

/// Why a channel did not start.
#[derive(Debug)]
enum NotStarted {
    /// Another process serves it, or is starting it.
    Busy,
    /// What the channel's process said.
    Failed(String),
}
use NotStarted::Busy;

/// A connection to the channel of `host` (in `dir`) when one is open; never starts one.
pub fn open(host: &Host, dir: Option<&str>) -> Result<Option<UnixStream>> {
    let sock = socket(host, dir)?;
    Ok(reach(&sock))
}

/// The socket, when a process of this user's serves it.
fn reach(sock: &std::path::Path) -> Option<UnixStream> {
    let s = UnixStream::connect(sock).ok()?;
    let me = rustix::process::getuid();
    let cred = rustix::net::sockopt::socket_peercred(&s).ok()?;
    (cred.uid == me).then_some(s)
}

/// Start the channel's process and wait for its ready line.
fn start(spec: &super::mux::Spec) -> std::result::Result<(), NotStarted> {
    let failed = |e: &dyn std::fmt::Display| NotStarted::Failed(e.to_string());
    let exe = std::env::current_exe().map_err(|e| failed(&e))?;
    let log = spec.socket.with_extension("log");
    let log = crate::store::secure::open_append(&log).map_err(|e| failed(&e.message))?;
    let mut cmd = Command::new(exe);
    cmd.arg(super::mux::SUBCOMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log));
    crate::sys::setsid_on_spawn(&mut cmd);
    let mut child = cmd.spawn().map_err(|e| failed(&e))?;
    let mut line = serde_json::to_string(spec).map_err(|e| failed(&e))?;
    line.push('\n');
    if let Some(mut w) = child.stdin.take() {
        let _ = w.write_all(line.as_bytes());
    }
    let out = child.stdout.take();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut said = String::new();
        if let Some(o) = out {
            let _ = BufReader::new(o).take(4096).read_line(&mut said);
        }
        let _ = tx.send(said);
    });
    let within = super::connect_timeout() * 2 + Duration::from_secs(10);
    let said = rx.recv_timeout(within).unwrap_or_default();
    // Reaped when it ends while we live; adopted by init when we end first.
    std::thread::spawn(move || child.wait());
    match said.trim() {
        "ready" => Ok(()),
        "busy" => Err(Busy),
        other => Err(NotStarted::Failed(other.to_string())),
    }
}

/// The error of a connection that ended before its request did.
pub fn dropped(host: &Host, what: &str) -> Error {
    Error::new(
        ErrorCode::HostUnreachable,
        format!(
            "the connection to {host} dropped during {what}; sessions there live on \
             (`kpty --host {host} list`)"
        ),
    )
}

/// Run verb `args` over `stream`: its output to this process's stdout and stderr, this
/// process's stdin to it when `stdin`; its exit code. SIGINT, SIGTERM and SIGHUP interrupt
/// it there (as Ctrl-C would) instead of ending this process.
pub fn verb(host: &Host, stream: UnixStream, args: &[String], stdin: bool) -> Result<i32> {
    let name = args.iter().find(|a| !a.starts_with('-'));
    let what = format!("`kpty {}`", name.map_or("", String::as_str));
    let mut w = stream
        .try_clone()
        .map_err(|e| dropped(host, &e.to_string()))?;
    let v = serde_json::to_vec(&Verb {
        args: args.to_vec(),
        stdin,
    })
    .map_err(|e| Error::internal(e.to_string()))?;
    Frame::new(0, Kind::Verb, v)
        .write(&mut w)
        .map_err(|_| dropped(host, &what))?;
    forward_signals(stream.try_clone().ok());
    if stdin && let Ok(mut w) = stream.try_clone() {
        std::thread::spawn(move || forward_stdin(&mut w));
    }
    let mut r = &stream;
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    loop {
        match Frame::read(&mut r) {
            Ok(Some(f)) if f.kind == Kind::Out => {
                // A reader that is gone (`| head`) ends the call, as it ends a local one;
                // the channel cancels the verb there.
                if let Err(e) = out.write_all(&f.data).and_then(|()| out.flush())
                    && e.kind() == std::io::ErrorKind::BrokenPipe
                {
                    return Ok(0);
                }
            }
            Ok(Some(f)) if f.kind == Kind::Err => {
                let _ = err.write_all(&f.data);
            }
            Ok(Some(f)) if f.kind == Kind::Exit => return Ok(f.exit_code().unwrap_or(1)),
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => return Err(dropped(host, &what)),
        }
    }
}

/// This process's stdin as frames, then its end.
fn forward_stdin(w: &mut UnixStream) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut input = std::io::stdin().lock();
    loop {
        match crate::eintr::retry(|| input.read(&mut buf)) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if Frame::new(0, Kind::Stdin, buf[..n].to_vec())
                    .write(w)
                    .is_err()
                {
                    return;
                }
            }
        }
    }
    let _ = Frame::new(0, Kind::StdinEnd, Vec::new()).write(w);
}

/// SIGINT, SIGTERM and SIGHUP become a `Cancel` of the request (each time one comes).
fn forward_signals(w: Option<UnixStream>) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let (Some(mut w), Ok(mut signals)) = (
        w,
        signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]),
    ) else {
        return;
    };
    std::thread::spawn(move || {
        for _ in signals.forever() {
            if Frame::new(0, Kind::Cancel, Vec::new())
                .write(&mut w)
                .is_err()
            {
                return;
            }
        }
    });
}

/// Send an action (`call`: [`super::action::Call`] as JSON) over `stream`.
pub fn send_call(host: &Host, stream: &UnixStream, call: Vec<u8>) -> Result<()> {
    let mut w = stream;
    Frame::new(0, Kind::Call, call)
        .write(&mut w)
        .map_err(|_| dropped(host, "a call"))
}

/// The JSON answer to the action sent over `stream`, within `within`.
pub fn answer(host: &Host, stream: &UnixStream, within: Duration) -> Result<Vec<u8>> {
    answer_with(host, stream, within, &mut |_| {})
}

/// [`answer`], handing each progress report that comes first (an `Out` frame of the call) to
/// `progress`; `within` bounds each wait for the next frame.
pub fn answer_with(
    host: &Host,
    stream: &UnixStream,
    within: Duration,
    progress: &mut dyn FnMut(Vec<u8>),
) -> Result<Vec<u8>> {
    let _ = stream.set_read_timeout(Some(within));
    // Read whole: an answer (and the progress before it) most often comes in one read.
    let mut r = BufReader::with_capacity(64 * 1024, stream);
    loop {
        match Frame::read(&mut r) {
            Ok(Some(f)) if f.kind == Kind::Answer => return Ok(f.data),
            Ok(Some(f)) if f.kind == Kind::Out => progress(f.data),
            Ok(Some(_)) => {}
            Ok(None) => return Err(dropped(host, "a call")),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(super::unreachable(
                    host,
                    &format!("no answer within {} s", within.as_secs()),
                ));
            }
            Err(_) => return Err(dropped(host, "a call")),
        }
    }
}
