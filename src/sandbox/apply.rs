//! The Landlock calls: probe the kernel's ABI, and restrict the calling process to a
//! [`Policy`] (no_new_privs first), reporting honestly whether the kernel enforces all of it.

use super::{Policy, WRITABLE_DEVICES, grants, list_dir, list_dir_no_links};
use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope,
};
use std::path::{Path, PathBuf};

/// The Landlock ABI version the running kernel offers, `None` without Landlock.
pub fn kernel_abi() -> Option<u32> {
    crate::sys::landlock_abi()
}

/// What [`restrict`] enforced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Enforced {
    /// Rules added (read grants, write grants, the PTY).
    pub rules: usize,
    /// Signals and abstract sockets scoped to the sandbox (ABI ≥ 6).
    pub scoped: bool,
}

/// Restrict this process (and so everything it execs or forks afterwards) to `policy`; `pty`
/// is the session's terminal device, writable too. Fails, with the reason, unless
/// no_new_privs is set and the kernel enforces every requested access right.
pub(crate) fn restrict(policy: &Policy, pty: Option<&Path>) -> Result<Enforced, String> {
    rustix::thread::set_no_new_privs(true).map_err(|e| format!("cannot set no_new_privs: {e}"))?;
    let abi = ABI::from(i32::try_from(policy.abi).unwrap_or(i32::MAX));
    let read = AccessFs::from_read(abi);
    let all = AccessFs::from_all(abi);
    let scoped = policy.abi >= 6;
    let mut ruleset = Ruleset::default()
        .handle_access(all)
        .map_err(|e| format!("ruleset: {e}"))?;
    if !policy.network {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(|e| format!("ruleset (network): {e}"))?;
    }
    if scoped {
        ruleset = ruleset
            .scope(Scope::AbstractUnixSocket | Scope::Signal)
            .map_err(|e| format!("ruleset (scopes): {e}"))?;
    }
    let mut created = ruleset
        .create()
        .map_err(|e| format!("cannot create the Landlock ruleset: {e}"))?;
    let mut rules = 0;
    // Listing is allowed everywhere (`ls ~`, `ls /`, even the names in `~/.ssh`): only
    // reading and executing files follows the carve-outs below.
    created = add(
        created,
        Path::new("/"),
        AccessFs::ReadDir.into(),
        abi,
        false,
        &mut rules,
    )?;
    let readable = grants(Path::new("/"), &policy.deny_read, &list_dir);
    for p in &readable {
        created = add(created, p, read, abi, false, &mut rules)?;
    }
    let mut writable: Vec<PathBuf> = Vec::new();
    for w in &policy.allow_write {
        writable.extend(grants(w, &policy.deny_read, &list_dir_no_links));
    }
    for p in &writable {
        // Devices may be links (/dev/ptmx); every other write grant must land where the
        // policy says, not where a link put on the way since would aim it.
        let verify = !WRITABLE_DEVICES.iter().any(|d| p == Path::new(d));
        created = add(created, p, all, abi, verify, &mut rules)?;
    }
    if let Some(pty) = pty {
        created = add(created, pty, all, abi, false, &mut rules)?;
    }
    let status = created
        .restrict_self()
        .map_err(|e| format!("landlock_restrict_self failed: {e}"))?;
    if status.ruleset != RulesetStatus::FullyEnforced {
        return Err(format!(
            "the kernel enforces the sandbox only {:?} (ABI {}): refusing to run unconfined",
            status.ruleset, policy.abi
        ));
    }
    if !status.no_new_privs || !rustix::thread::no_new_privs().unwrap_or(false) {
        return Err("no_new_privs is not set: refusing to run".into());
    }
    Ok(Enforced { rules, scoped })
}

/// Add one rule granting `access` beneath `path` (only the file rights for a file). A path
/// that vanished since it was listed is skipped: there is nothing to grant. With `verify`,
/// the opened file must be `path` itself (read back from `/proc/self/fd`): a symbolic link
/// put on the way since the policy was made fails the sandbox instead of moving the grant.
fn add(
    created: RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
    abi: ABI,
    verify: bool,
    rules: &mut usize,
) -> Result<RulesetCreated, String> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(created);
    };
    let access = if meta.is_dir() {
        access
    } else {
        access & AccessFs::from_file(abi)
    };
    let Ok(fd) = PathFd::new(path) else {
        return Ok(created);
    };
    if verify {
        use std::os::fd::{AsFd, AsRawFd};
        let opened = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_fd().as_raw_fd()));
        if opened.as_deref().ok() != Some(path) {
            return Err(format!(
                "the writable {} now leads elsewhere ({}): a symbolic link on the way; refusing",
                path.display(),
                opened.map_or_else(|e| e.to_string(), |o| o.display().to_string())
            ));
        }
    }
    *rules += 1;
    created
        .add_rule(PathBeneath::new(fd, access))
        .map_err(|e| format!("cannot add a rule for {}: {e}", path.display()))
}
