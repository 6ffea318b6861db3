//! Defaults from the environment, read once per call: by the core, and by the holder (the
//! scrollback of a spec from an older launcher).
//!
//! Every variable has a kpty name (`KPTY_*`); the ones k_pty also read keep working under
//! k_pty's name ([`COMPAT`]) when kpty's own is unset — kpty's name always wins.

use super as api;

/// kpty's variable and the k_pty name read in its place when kpty's is unset.
pub const COMPAT: &[(&str, &str)] = &[
    ("KPTY_SHELL", "KURORYUU_PTY_SHELL"),
    ("KPTY_COLS", "KURORYUU_PTY_COLS"),
    ("KPTY_ROWS", "KURORYUU_PTY_ROWS"),
    ("KPTY_BUFFER_SIZE", "KURORYUU_PTY_BUFFER_SIZE"),
    ("KPTY_TIMEOUT_MS", "KURORYUU_PTY_TIMEOUT_MS"),
    ("KPTY_TERM_READ", "KURORYUU_TERM_BUFFER_ACCESS"),
    ("KPTY_AGENT_ID", "KURORYUU_AGENT_ID"),
    ("KPTY_OWNER_SESSION_ID", "KURORYUU_SESSION_ID"),
    ("KPTY_AGENT_ROLE", "KURORYUU_AGENT_ROLE"),
    ("KPTY_IS_LEADER", "KURORYUU_IS_LEADER"),
    ("KPTY_GATEWAY_URL", "KURORYUU_GATEWAY_URL"),
    ("KPTY_DESKTOP_URL", "KURORYUU_DESKTOP_URL"),
    ("KPTY_DESKTOP_SECRET", "KURORYUU_DESKTOP_SECRET"),
    ("KPTY_PORT", "KURORYUU_PTY_BRIDGE_PORT"),
    ("KPTY_INTERNAL_SECRET", "KURORYUU_INTERNAL_SECRET"),
];

/// The value of kpty's variable `name`, else of its k_pty name (see [`COMPAT`]); empty
/// values count as unset.
pub fn var(name: &str) -> Option<String> {
    let set = |n: &str| std::env::var(n).ok().filter(|v| !v.trim().is_empty());
    set(name).or_else(|| {
        COMPAT
            .iter()
            .find(|(ours, _)| *ours == name)
            .and_then(|(_, theirs)| set(theirs))
    })
}

/// The name a person set for `name`: kpty's own, else the k_pty name, for messages.
pub fn var_name(name: &'static str) -> &'static str {
    if std::env::var_os(name).is_some() {
        return name;
    }
    COMPAT
        .iter()
        .find(|(ours, theirs)| *ours == name && std::env::var_os(theirs).is_some())
        .map_or(name, |(_, theirs)| theirs)
}

fn env_num<T: std::str::FromStr>(name: &str) -> Option<T> {
    var(name).and_then(|v| v.trim().parse().ok())
}

/// Default shell: `KPTY_SHELL`, else `$SHELL`, else `/bin/bash`.
pub fn default_shell() -> String {
    var("KPTY_SHELL")
        .or_else(|| std::env::var("SHELL").ok().filter(|s| !s.trim().is_empty()))
        .unwrap_or_else(|| "/bin/bash".into())
}

/// Default columns (`KPTY_COLS`, else 120).
pub fn default_cols() -> u16 {
    env_num("KPTY_COLS").unwrap_or(api::DEFAULT_COLS)
}

/// Default rows (`KPTY_ROWS`, else 30).
pub fn default_rows() -> u16 {
    env_num("KPTY_ROWS").unwrap_or(api::DEFAULT_ROWS)
}

/// Ring size (`KPTY_BUFFER_SIZE`, else 100 KiB; 1 KiB ..= 64 MiB).
pub fn buffer_size() -> usize {
    env_num("KPTY_BUFFER_SIZE")
        .unwrap_or(api::DEFAULT_BUFFER_SIZE)
        .clamp(1024, 64 << 20)
}

/// Default talk timeout (`KPTY_TIMEOUT_MS`, else 30 s).
pub fn talk_timeout_ms() -> u64 {
    env_num("KPTY_TIMEOUT_MS").unwrap_or(api::DEFAULT_TALK_TIMEOUT_MS)
}

/// Screen scrollback in lines (`KPTY_SCROLLBACK`, else 10 000; at most `api::MAX_SCROLLBACK`).
pub fn scrollback() -> usize {
    env_num::<usize>("KPTY_SCROLLBACK")
        .unwrap_or(api::DEFAULT_SCROLLBACK)
        .min(api::MAX_SCROLLBACK)
}

/// How long `create` waits for the first prompt (`KPTY_READY_TIMEOUT_MS`, else 10 s).
pub fn ready_timeout_ms() -> u64 {
    env_num("KPTY_READY_TIMEOUT_MS").unwrap_or(10_000)
}

/// `KPTY_TERM_READ` (`on` unless `off`).
pub fn term_buffer_access() -> &'static str {
    match var("KPTY_TERM_READ") {
        Some(v) if v.trim().eq_ignore_ascii_case("off") => "off",
        _ => "on",
    }
}

/// `KPTY_REDACT=off` (also `0`, `false`, `no`): the CLI's `--json` output is not redacted.
/// Only that channel honours it; MCP results, `kpty serve` replies and the audit trail are
/// always redacted.
pub fn redact_opted_out() -> bool {
    std::env::var("KPTY_REDACT").is_ok_and(|v| {
        let v = v.trim();
        ["off", "0", "false", "no"]
            .iter()
            .any(|o| v.eq_ignore_ascii_case(o))
    })
}
