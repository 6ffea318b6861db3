//! The rules request parsing ([`super::request`]) applies to parameters — terminal size,
//! labels, owner roles and identities, where a registered session lives, a shell PTY's
//! program, talk sentinels — and that the actions apply again where they take a value
//! from elsewhere (the environment, a session's spec).

use super::Ctx;
use crate::api::{OwnerRole, Params};
use crate::error::{Error, Result};
use crate::proto::launch::ProgramSpec;

/// Validate a label: 1..=64 printable characters.
pub fn check_label(label: &str) -> Result<()> {
    if !crate::api::ids::is_valid_label(label) {
        return Err(Error::invalid(format!(
            "label {label:?} must be 1-64 printable characters"
        )));
    }
    Ok(())
}

/// Validate an owner role (`OwnerRole`'s spellings).
pub fn check_role(role: &str) -> Result<OwnerRole> {
    role.parse().map_err(|_| {
        Error::invalid(format!(
            "owner_role {role:?} must be \"leader\" or \"worker\""
        ))
    })
}

/// Validate a terminal size.
pub fn check_size(cols: u16, rows: u16) -> Result<()> {
    if !(2..=crate::api::MAX_COLS).contains(&cols) || !(1..=crate::api::MAX_ROWS).contains(&rows) {
        return Err(Error::invalid(format!(
            "terminal size {cols}x{rows} is out of range (cols 2-1000, rows 1-1000)"
        )));
    }
    Ok(())
}

/// A registration's `source` (default `desktop`; never `local`) and bridge URL (`desktop_url`,
/// else `KPTY_DESKTOP_URL`; required for a desktop session).
pub fn where_it_lives(p: &Params) -> Result<(String, Option<String>)> {
    let source = p.source.clone().unwrap_or_else(|| "desktop".into());
    if source == super::kind::LOCAL {
        return Err(Error::invalid(
            "register is for external sessions; local sessions come from create",
        ));
    }
    if !source
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        || source.is_empty()
    {
        return Err(Error::invalid(format!(
            "source {source:?} must be a word like \"desktop\""
        )));
    }
    let url = p
        .desktop_url
        .clone()
        .or_else(|| crate::api::config::var("KPTY_DESKTOP_URL"))
        .filter(|u| !u.is_empty());
    if let Some(u) = &url {
        crate::bridge::allow::check_register(u)?;
    } else if source == "desktop" {
        return Err(Error::invalid(
            "register of a desktop session needs `desktop_url` (its bridge, e.g. http://127.0.0.1:8201)",
        ));
    }
    Ok((source, url))
}

/// Refuse identity fields that look like a secret (the redactor would hide them): they are
/// stored in clear in the registry, metadata and the audit trail of a state directory that
/// lies in a repository, and matched as they are, so they cannot be redacted instead.
pub fn check_not_secret(p: &Params) -> Result<()> {
    for (field, value) in [
        ("label", &p.label),
        ("owner_agent_id", &p.owner_agent_id),
        ("owner_session_id", &p.owner_session_id),
        ("claude_code_session_id", &p.claude_code_session_id),
        ("cli_type", &p.cli_type),
        ("desktop_url", &p.desktop_url),
    ] {
        if let Some(v) = value {
            check_identity(field, v)?;
        }
    }
    Ok(())
}

/// One identity value kpty stores in clear: not a secret, at most
/// [`super::leaders::MAX_ID`] characters, no control characters (an empty one clears the
/// field where that is allowed).
pub fn check_identity(field: &str, v: &str) -> Result<()> {
    if matches!(crate::safety::redact(v), std::borrow::Cow::Owned(_)) {
        return Err(Error::invalid(format!(
            "{field} looks like a secret (kpty would redact it); it is stored in clear in \
             the state directory and the audit trail: use a name that is not a credential"
        ))
        .with_details(crate::error::details::Field {
            env: None,
            field: Some(field.to_string()),
        }));
    }
    if v.chars().count() > super::leaders::MAX_ID || v.chars().any(char::is_control) {
        return Err(Error::invalid(format!(
            "{field} must be at most {} characters, without control characters",
            super::leaders::MAX_ID
        ))
        .with_details(crate::error::details::Field {
            env: None,
            field: Some(field.to_string()),
        }));
    }
    Ok(())
}

/// `p` with the owner identity the environment gives filled in where `p` names none
/// (`create` and `register` from the CLI or a stdio MCP server, whose environment is the
/// calling agent's): `owner_agent_id` from `KPTY_AGENT_ID`, `owner_session_id` from
/// `KPTY_OWNER_SESSION_ID`, `owner_role` from `KPTY_AGENT_ROLE` (or `leader` when
/// `KPTY_IS_LEADER=1`), k_pty's names read when kpty's are unset. Each is checked as the
/// parameter it stands for; a bad value is `INVALID_PARAMS` naming the variable set.
pub fn with_env_owner(ctx: &Ctx, p: &Params) -> Result<Params> {
    let mut p = p.clone();
    if !ctx.env_identity {
        return Ok(p);
    }
    let var = crate::api::config::var;
    let named = |name: &'static str, field: &str| -> Result<Option<String>> {
        let Some(v) = var(name) else { return Ok(None) };
        let name = crate::api::config::var_name(name);
        check_identity(name, &v).map_err(|e| {
            Error::invalid(format!("{} (the {field} it gives)", e.message)).with_details(
                crate::error::details::Field {
                    env: Some(name.to_string()),
                    field: Some(field.to_string()),
                },
            )
        })?;
        Ok(Some(v))
    };
    if p.owner_agent_id.is_none() {
        p.owner_agent_id = named("KPTY_AGENT_ID", "owner_agent_id")?;
    }
    if p.owner_session_id.is_none() {
        p.owner_session_id = named("KPTY_OWNER_SESSION_ID", "owner_session_id")?;
    }
    if p.owner_role.is_none() {
        let leader = var("KPTY_IS_LEADER").is_some_and(|v| v.trim() == "1");
        p.owner_role = match named("KPTY_AGENT_ROLE", "owner_role")? {
            Some(r) => {
                super::validate::check_role(&r).map_err(|e| {
                    let name = crate::api::config::var_name("KPTY_AGENT_ROLE");
                    Error::invalid(format!("{name}: {}", e.message)).with_details(
                        crate::error::details::Field {
                            env: Some(name.to_string()),
                            field: None,
                        },
                    )
                })?;
                Some(r)
            }
            None if leader => Some("leader".into()),
            None => None,
        };
    }
    Ok(p)
}

/// `command`, run instead of the shell (never restarted); the create-only options refused.
pub(super) fn program_of(p: &Params) -> Result<Option<ProgramSpec>> {
    if p.auto_restart.is_some() || p.restart_delay_ms.is_some() {
        return Err(Error::invalid(
            "a shell PTY is never restarted: auto_restart and restart_delay_ms are for create",
        ));
    }
    if p.shell.is_some() {
        return Err(Error::invalid(
            "a shell PTY runs the session's shell; give `command` to run a program instead",
        ));
    }
    super::agent::program(p)
}

/// Check a caller-chosen sentinel: 4-64 chars of `[A-Za-z0-9_:.-]`.
pub fn check_sentinel(s: &str) -> Result<()> {
    let ok = (4..=64).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_:.-".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "sentinel {s:?} must be 4-64 characters of letters, digits, '_', ':', '.', '-'"
        )))
    }
}
