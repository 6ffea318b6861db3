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
    // A build found is touched: its time says when a caller last used it ([`prune`]).
    let line = format!("if [ -x {path} ]; then touch {path}; echo have; else uname -sm; fi");
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
         mv -f \"$t\" {dest} || {{ rm -f \"$t\"; echo 'the copy did not arrive whole' >&2; exit 1; }}; \
         {prune}",
        prune = prune(&name)
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

/// How many other builds a host keeps besides the one just installed, newest first.
const KEEP: usize = 3;

/// The remote shell's tidy-up after `name` was installed, so that builds do not pile up in
/// `~/.cache/kpty/bin` (a release, or a debug build of 300 MB, per upgrade): beyond the
/// [`KEEP`] most recently used other builds, a build goes once no caller has used it for
/// twice [`super::PERSIST`]: a caller touches its build when it finds it there (`probe`)
/// and looks again after `PERSIST`, so a build still in use is never removed. A partial copy
/// (`NAME.PID`, from a copy cut off) goes after a day. Only names kpty writes are touched;
/// it never fails the install.
fn prune(name: &str) -> String {
    format!(
        "(cd \"$HOME\"/.cache/kpty/bin && \
         ls -t | grep -E '^kpty-[0-9A-Za-z.+-]+-[0-9a-f]{{12}}$' | grep -vxF {name} | tail -n +{first} | \
         while read -r f; do [ -n \"$(find \"./$f\" -prune -mmin +{minutes})\" ] && rm -f \"./$f\"; done; \
         ls | grep -E '^kpty-[0-9A-Za-z.+-]+-[0-9a-f]{{12}}\\.[0-9]+$' | \
         while read -r f; do [ -n \"$(find \"./$f\" -prune -mmin +1440)\" ] && rm -f \"./$f\"; done) \
         >/dev/null 2>&1; exit 0",
        first = KEEP + 1,
        minutes = 2 * super::PERSIST.as_secs() / 60,
    )
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;
    use std::time::SystemTime;

    /// What a host's cache holds: builds and partial copies, each with its age in minutes
    /// (all different, so "most recently used" has one answer).
    fn cache() -> impl Strategy<Value = Vec<(String, u64)>> {
        let name = (
            0u8..4,
            "[0-9]{1,2}\\.[0-9]{1,2}\\.[0-9](-rc\\.[0-9])?",
            "[0-9a-f]{12}",
            1u32..99999,
        )
            .prop_map(|(kind, version, sha, pid)| match kind {
                0 => format!("kpty-{version}-{sha}.{pid}"),
                1 => format!("other-{version}"),
                _ => format!("kpty-{version}-{sha}"),
            });
        proptest::collection::btree_map(name, 0u64..4000, 0..10).prop_map(|m| {
            // Distinct ages: the n-th entry is a little older than its age says.
            m.into_iter()
                .enumerate()
                .map(|(i, (n, age))| (n, age * 16 + i as u64))
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

        /// The real tidy-up, run by `sh` on a real directory: the new build, the [`KEEP`]
        /// most recently used others, every build used within twice `PERSIST` and every
        /// file that is not kpty's stay; a partial copy goes after a day.
        #[test]
        fn installing_keeps_recent_builds_and_removes_only_old_kpty_files(files in cache()) {
            let home = tempfile::tempdir().unwrap();
            let bin = home.path().join(".cache/kpty/bin");
            std::fs::create_dir_all(&bin).unwrap();
            let now = SystemTime::now();
            let new = "kpty-9.9.9-abcdefabcdef";
            for (name, age) in files.iter().map(|(n, a)| (n.as_str(), *a)).chain([(new, 0)]) {
                let f = std::fs::File::create(bin.join(name)).unwrap();
                f.set_modified(now - Duration::from_secs(age * 60 + 30)).unwrap();
            }
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(prune(new))
                .env("HOME", home.path())
                .output()
                .unwrap();
            prop_assert!(out.status.success());
            let window = 2 * super::super::PERSIST.as_secs() / 60;
            let build = |n: &str| n.starts_with("kpty-") && n.rsplit('-').next().is_some_and(|s| s.len() == 12);
            let mut builds: Vec<&(String, u64)> = files.iter().filter(|(n, _)| build(n)).collect();
            builds.sort_by_key(|(_, age)| *age);
            let mut expected: BTreeSet<String> = [new.to_string()].into();
            for (i, (n, age)) in builds.iter().enumerate() {
                if i < KEEP || *age < window {
                    expected.insert(n.clone());
                }
            }
            for (n, age) in &files {
                let partial = n.starts_with("kpty-") && !build(n);
                if !n.starts_with("kpty-") || (partial && *age < 1440) {
                    expected.insert(n.clone());
                }
            }
            let left: BTreeSet<String> = std::fs::read_dir(&bin)
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            prop_assert_eq!(left, expected);
        }
    }
}
