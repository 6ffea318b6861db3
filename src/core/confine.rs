//! `create`'s sandbox: whether the session is sandboxed (the operator's floor, `ctx.floor`,
//! and the `sandbox` parameter, judged by [`floor::judge`]), and its [`Policy`] for the running kernel — built here, in the creating
//! process, so a kernel without Landlock (or without a feature asked for) fails the create
//! before any holder starts. The policy also names what the session's mount namespace hides
//! ([`super::hide`]): every kpty runtime and state directory known, and the private one. Whether the kernel lets the session
//! make that namespace is not probed here: `__sandbox-exec` refuses when it cannot (reason
//! `mount_namespace_unavailable`) and the create fails then, before the shell runs.

use crate::api::Params;
use crate::error::{Error, ErrorCode, Result};
use crate::sandbox::{Policy, PolicyError, Request, apply, floor};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The session's sandbox policy, `None` when it is not sandboxed. `env` is the caller's
/// environment for the shell (its `HOME` and `TMPDIR` win over ours). The operator's floor
/// (`ctx.floor`) decides first ([`floor::judge`]): a request that would lower it fails with
/// `SANDBOX_REQUIRED`.
pub fn policy(
    ctx: &super::Ctx,
    p: &Params,
    cwd: &Path,
    env: &BTreeMap<String, String>,
) -> Result<Option<Policy>> {
    let Some(floor) = judged(ctx, p, &asked(p, cwd, env), &area(&ctx.state))? else {
        return Ok(None);
    };
    let req = request(ctx, p, cwd, env, floor)?;
    match Policy::build(&req, apply::kernel_abi()) {
        Ok(policy) => Ok(Some(policy)),
        Err(PolicyError::Unsupported { reason, message }) => Err(Error::new(
            ErrorCode::PtySpawnFailed,
            format!("sandbox: {message}"),
        )
        .with_details(crate::error::details::Sandbox {
            reason: reason.to_string(),
            landlock_abi: apply::kernel_abi(),
        })),
        Err(PolicyError::BadPath(m)) => Err(Error::invalid(format!("sandbox: {m}"))),
    }
}

/// What the floor adds to a confined session: network, and paths to hide and to open.
type FloorSays = (bool, Vec<PathBuf>, Vec<PathBuf>);

/// Our own environment variable `k`, when set and not empty.
fn ours(k: &str) -> Option<PathBuf> {
    std::env::var_os(k)
        .map(PathBuf::from)
        .filter(|p| !p.as_os_str().is_empty())
}

/// What the request asks of the floor, its paths resolved (links followed as far as they
/// exist, so that a link cannot carry a path past the floor's check).
fn asked(p: &Params, cwd: &Path, env: &BTreeMap<String, String>) -> floor::Asked {
    let asked_path = |s: &str| {
        let p = PathBuf::from(s);
        resolved(&std::path::absolute(&p).unwrap_or(p))
    };
    floor::Asked {
        sandbox: p.sandbox,
        allow_write: absolute(p.allow_write.as_deref())
            .iter()
            .map(|p| resolved(p))
            .collect(),
        network: p.network,
        cwd: resolved(cwd),
        tmpdir: env
            .get("TMPDIR")
            .filter(|t| !t.is_empty())
            .map(|t| asked_path(t)),
    }
}

/// Where a session may work without widening the floor: the project, `/tmp` and our
/// `TMPDIR`, resolved.
fn area(state: &crate::store::StateDir) -> Vec<PathBuf> {
    [
        Some(state.project_root()),
        Some(PathBuf::from("/tmp")),
        ours("TMPDIR"),
    ]
    .into_iter()
    .flatten()
    .map(|p| resolved(&p))
    .collect()
}

/// The floor's verdict: `None` for an unconfined session (an error when the request still
/// gives sandbox settings), else what the floor adds.
fn judged(
    ctx: &super::Ctx,
    p: &Params,
    asked: &floor::Asked,
    area: &[PathBuf],
) -> Result<Option<FloorSays>> {
    match floor::judge(&ctx.floor, asked, area) {
        Err(r) => Err(refused(&ctx.floor, r)),
        Ok(floor::Verdict::Unconfined) => {
            if p.sandbox == Some(false)
                || (p.allow_write.is_none() && p.deny_read.is_none() && p.network.is_none())
            {
                return Ok(None);
            }
            Err(Error::invalid(
                "allow_write, deny_read and network apply to sandboxed sessions only",
            )
            .with_hint(crate::error::Hint::AddSandbox))
        }
        Ok(floor::Verdict::Confined {
            network,
            deny_read,
            allow_write,
        }) => Ok(Some((network, deny_read, allow_write))),
    }
}

/// The sandbox request for a confined session: the caller's `HOME` and `TMPDIR` (else
/// ours), the paths asked and those the floor adds, what the mount namespace hides.
fn request(
    ctx: &super::Ctx,
    p: &Params,
    cwd: &Path,
    env: &BTreeMap<String, String>,
    (network, floor_deny, floor_write): FloorSays,
) -> Result<Request> {
    let state = &ctx.state;
    let var = |k: &str| {
        env.get(k)
            .map(PathBuf::from)
            .or_else(|| ours(k))
            .filter(|p| !p.as_os_str().is_empty())
    };
    state.ensure()?;
    let hidden = super::hide::dirs(state)?;
    let home = var("HOME").or_else(dirs::home_dir);
    let mut deny_read = absolute(p.deny_read.as_deref());
    deny_read.extend(floor_deny);
    // The shell's HOME is the request's to choose: the operator's credential stores stay
    // hidden all the same.
    if let Some(mine) = ours("HOME").or_else(dirs::home_dir)
        && Some(&mine) != home.as_ref()
    {
        deny_read.extend(
            crate::sandbox::DEFAULT_DENY_READ
                .iter()
                .map(|d| mine.join(d)),
        );
    }
    let mut allow_write = absolute(p.allow_write.as_deref());
    allow_write.extend(floor_write);
    Ok(Request {
        project_root: state.project_root(),
        cwd: cwd.to_path_buf(),
        home,
        tmpdir: var("TMPDIR"),
        allow_write,
        deny_read,
        network,
        hidden,
        revealed: vec![crate::store::paths::shell_integration_dir()?],
    })
}

/// `SANDBOX_REQUIRED`: what the floor refused, and who can change it.
fn refused(f: &floor::Floor, r: floor::Refusal) -> Error {
    Error::new(
        ErrorCode::SandboxRequired,
        format!(
            "the operator's sandbox floor ({}) forbids {}={}: {}; only whoever starts kpty \
             can change the floor (KPTY_SANDBOX, or kpty mcp|serve --sandbox, --allow-write, \
             --no-network)",
            f.origin, r.field, r.value, r.why
        ),
    )
    .with_details(crate::error::details::Floor {
        field: r.field.to_string(),
        value: r.value,
        floor: f.mode.as_str().to_string(),
        origin: f.origin.clone(),
    })
}

/// `p` with symlinks resolved as far as it exists (a missing tail kept as given), so that a
/// link cannot carry a path past the floor's check.
fn resolved(p: &Path) -> PathBuf {
    let mut missing = Vec::new();
    let mut cur = p.to_path_buf();
    loop {
        if let Ok(real) = cur.canonicalize() {
            return missing.iter().rev().fold(real, |acc, part| acc.join(part));
        }
        match (cur.parent(), cur.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_os_string());
                cur = parent.to_path_buf();
            }
            _ => return p.to_path_buf(),
        }
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
