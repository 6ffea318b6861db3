//! The kpty on a host: this very build, at `~/.cache/kpty/bin/kpty-VERSION-SHA12` there (the
//! name says which build: a host never runs another one by mistake). When it is missing, the
//! first call copies this binary there — same OS and architecture only, checked by SHA-256
//! on the host before it is put in place, never touching the host's PATH or rc files — and
//! says so in one line on stderr. `KPTY_REMOTE_INSTALL=0` turns that off: the error then says
//! how to install it. What was found is remembered for [`super::PERSIST`] (a file in the
//! runtime directory), so a call after the first costs nothing here.

use super::{Host, ssh, unreachable};
use crate::error::{Error, ErrorCode, Result};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, SystemTime};

/// This build's name on hosts, and its SHA-256.
fn build() -> Result<(String, String)> {
    let exe = std::fs::read("/proc/self/exe")
        .map_err(|e| Error::internal(format!("cannot read this kpty's binary: {e}")))?;
    let sha = hex::encode(Sha256::digest(&exe));
    Ok((
        format!("kpty-{}-{}", env!("CARGO_PKG_VERSION"), &sha[..12]),
        sha,
    ))
}

/// The remote path of `name`, for the remote shell (`$HOME` expanded there).
fn remote_path(name: &str) -> String {
    format!("\"$HOME\"/.cache/kpty/bin/{name}")
}

/// The file that remembers `host` has `name`.
fn memo(host: &Host, name: &str) -> Result<std::path::PathBuf> {
    let key = hex::encode(&Sha256::digest(format!("{host}\n{name}").as_bytes())[..8]);
    Ok(crate::store::paths::runtime_dir()?
        .join("ssh")
        .join(format!("have-{key}")))
}

/// The command that runs this build's kpty on `host` (installing it first when needed): a
/// line for the remote shell, the arguments to follow.
pub fn ensure(host: &Host) -> Result<String> {
    let name = build_name()?;
    let remembered = memo(host, &name)?;
    let fresh = std::fs::metadata(&remembered)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age < super::PERSIST);
    if !fresh {
        if !probe(host, &name)? {
            install(host)?;
        }
        let _ = std::fs::write(&remembered, b"");
    }
    Ok(remote_path(&name))
}

/// The command that runs this build's kpty on a host, whether or not it is there yet.
pub fn command() -> Result<String> {
    Ok(remote_path(&build_name()?))
}

/// This build's name on hosts (`kpty-VERSION-SHA12`).
pub fn build_name() -> Result<String> {
    cached_name()
        .or_else(|| build().ok().map(|(n, _)| n))
        .ok_or_else(|| Error::internal("cannot tell which kpty build this is"))
}

/// The build's name, remembered in the runtime directory against this binary's identity
/// (hashing a 20 MB binary on every call would cost more than the call).
fn cached_name() -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let md = std::fs::metadata("/proc/self/exe").ok()?;
    let key = format!("build-{}-{}-{}", md.dev(), md.ino(), md.mtime());
    let file = crate::store::paths::runtime_dir()
        .ok()?
        .join("ssh")
        .join(key);
    if let Ok(n) = std::fs::read_to_string(&file) {
        return Some(n.trim().to_string()).filter(|n| n.starts_with("kpty-"));
    }
    let (name, _) = build().ok()?;
    let _ = std::fs::write(&file, &name);
    Some(name)
}

/// Whether `host` has `name` (else: its `uname -sm`, checked against this machine's).
fn probe(host: &Host, name: &str) -> Result<bool> {
    let path = remote_path(name);
    let line = format!("if [ -x {path} ]; then echo have; else uname -sm; fi");
    let out = run_captured(host, &line, None)?;
    if out.trim() == "have" {
        return Ok(true);
    }
    let theirs = out.trim().to_ascii_lowercase();
    let ours = format!("{} {}", std::env::consts::OS, std::env::consts::ARCH);
    if theirs != ours {
        return Err(Error::new(
            ErrorCode::HostUnreachable,
            format!(
                "{host} is `{}`, this kpty is built for `{ours}`: install kpty {} there (to {}) yourself",
                out.trim(),
                env!("CARGO_PKG_VERSION"),
                remote_path(name)
            ),
        ));
    }
    Ok(false)
}

/// Copy this binary to `host`.
fn install(host: &Host) -> Result<()> {
    let (name, sha) = build()?;
    if crate::api::config::var("KPTY_REMOTE_INSTALL").is_some_and(|v| v.trim() == "0") {
        return Err(Error::new(
            ErrorCode::HostUnreachable,
            format!(
                "{host} has no kpty {v} and KPTY_REMOTE_INSTALL=0: copy this kpty ({}) to {} there, \
                 mode 0700, or unset KPTY_REMOTE_INSTALL",
                std::env::current_exe()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
                remote_path(&name),
                v = env!("CARGO_PKG_VERSION"),
            ),
        ));
    }
    let dest = remote_path(&name);
    let line = format!(
        "umask 077; mkdir -p \"$HOME\"/.cache/kpty/bin && t={dest}.$$ && cat > \"$t\" && \
         [ \"$(sha256sum < \"$t\" | cut -d' ' -f1)\" = {sha} ] && chmod 700 \"$t\" && \
         mv -f \"$t\" {dest} || {{ rm -f \"$t\"; echo 'the copy did not arrive whole' >&2; exit 1; }}"
    );
    let bin = std::fs::read("/proc/self/exe")
        .map_err(|e| Error::internal(format!("cannot read this kpty's binary: {e}")))?;
    run_captured(host, &line, Some(bin))?;
    eprintln!(
        "kpty: installed kpty {} on {host} (~/.cache/kpty/bin)",
        env!("CARGO_PKG_VERSION")
    );
    Ok(())
}

/// Run `line` on `host` (over its connection), `input` on its stdin; its stdout, or
/// `HOST_UNREACHABLE` with what it said.
fn run_captured(host: &Host, line: &str, input: Option<Vec<u8>>) -> Result<String> {
    let mut c = ssh()?;
    c.arg(host.as_str())
        .arg(line)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c
        .spawn()
        .map_err(|e| unreachable(host, &format!("cannot run ssh: {e}")))?;
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
    }
    let mut stdout = child.stdout.take();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::Read;
        let mut out = String::new();
        if let Some(o) = stdout.as_mut() {
            let _ = o.take(1 << 20).read_to_string(&mut out);
        }
        let _ = tx.send(out);
    });
    let (ok, said) = super::master::finish(child, Duration::from_secs(120));
    let out = rx.recv_timeout(Duration::from_secs(5)).unwrap_or_default();
    if ok {
        Ok(out)
    } else {
        Err(unreachable(host, &said))
    }
}
