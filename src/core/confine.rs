//! `create`'s sandbox: whether the session is sandboxed (the `sandbox` parameter, else
//! `KPTY_SANDBOX`), and its [`Policy`] for the running kernel — built here, in the creating
//! process, so a kernel without Landlock (or without a feature asked for) fails the create
//! before any holder starts. The policy also names what the session's mount namespace hides:
//! every kpty runtime directory and this state directory. Whether the kernel lets the session
//! make that namespace is not probed here: `__sandbox-exec` refuses when it cannot (reason
//! `mount_namespace_unavailable`) and the create fails then, before the shell runs.

use super::config;
use crate::api::Params;
use crate::error::{Error, ErrorCode, Result};
use crate::sandbox::{Policy, PolicyError, Request, apply};
use crate::store::StateDir;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The session's sandbox policy, `None` when it is not sandboxed. `env` is the caller's
/// environment for the shell (its `HOME` and `TMPDIR` win over ours).
pub fn policy(
    p: &Params,
    state: &StateDir,
    cwd: &Path,
    env: &BTreeMap<String, String>,
) -> Result<Option<Policy>> {
    let wanted = p.sandbox.unwrap_or_else(config::sandbox_default);
    if !wanted {
        if p.sandbox == Some(false)
            || (p.allow_write.is_none() && p.deny_read.is_none() && p.network.is_none())
        {
            return Ok(None);
        }
        return Err(Error::invalid(
            "allow_write, deny_read and network apply to sandboxed sessions only",
        )
        .with_hint(crate::error::Hint::AddSandbox));
    }
    let var = |k: &str| {
        env.get(k)
            .map(PathBuf::from)
            .or_else(|| std::env::var_os(k).map(PathBuf::from))
            .filter(|p| !p.as_os_str().is_empty())
    };
    state.ensure()?;
    let mut hidden = crate::store::paths::runtime_dirs()?;
    hidden.push(state.path().to_path_buf());
    let req = Request {
        project_root: state.project_root(),
        cwd: cwd.to_path_buf(),
        home: var("HOME").or_else(dirs::home_dir),
        tmpdir: var("TMPDIR"),
        allow_write: absolute(p.allow_write.as_deref()),
        deny_read: absolute(p.deny_read.as_deref()),
        network: p.network.unwrap_or(true),
        hidden,
        revealed: vec![crate::store::paths::shell_integration_dir()?],
    };
    match Policy::build(&req, apply::kernel_abi()) {
        Ok(policy) => Ok(Some(policy)),
        Err(PolicyError::Unsupported { reason, message }) => Err(Error::new(
            ErrorCode::PtySpawnFailed,
            format!("sandbox: {message}"),
        )
        .with_details(serde_json::json!({"reason": reason, "landlock_abi": apply::kernel_abi()}))),
        Err(PolicyError::BadPath(m)) => Err(Error::invalid(format!("sandbox: {m}"))),
    }
}

/// Paths as given, relative ones against the caller's working directory.
fn absolute(paths: Option<&[String]>) -> Vec<PathBuf> {
    paths
        .unwrap_or_default()
        .iter()
        .filter(|s| !s.trim().is_empty())
        .map(|s| std::path::absolute(s).unwrap_or_else(|_| PathBuf::from(s)))
        .collect()
}
