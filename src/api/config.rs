//! Defaults from the environment (the seeds' variables), read once per call: by the core,
//! and by the holder (the scrollback of a spec from an older launcher).

use super as api;

fn env_num<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

/// Default shell: `KURORYUU_PTY_SHELL`, else `$SHELL`, else `/bin/bash`.
pub fn default_shell() -> String {
    for var in ["KURORYUU_PTY_SHELL", "SHELL"] {
        if let Ok(s) = std::env::var(var)
            && !s.trim().is_empty()
        {
            return s;
        }
    }
    "/bin/bash".into()
}

/// Default columns (`KURORYUU_PTY_COLS`, else 120).
pub fn default_cols() -> u16 {
    env_num("KURORYUU_PTY_COLS").unwrap_or(api::DEFAULT_COLS)
}

/// Default rows (`KURORYUU_PTY_ROWS`, else 30).
pub fn default_rows() -> u16 {
    env_num("KURORYUU_PTY_ROWS").unwrap_or(api::DEFAULT_ROWS)
}

/// Ring size (`KURORYUU_PTY_BUFFER_SIZE`, else 100 KiB; 1 KiB ..= 64 MiB).
pub fn buffer_size() -> usize {
    env_num("KURORYUU_PTY_BUFFER_SIZE")
        .unwrap_or(api::DEFAULT_BUFFER_SIZE)
        .clamp(1024, 64 << 20)
}

/// Default talk timeout (`KURORYUU_PTY_TIMEOUT_MS`, else 30 s).
pub fn talk_timeout_ms() -> u64 {
    env_num("KURORYUU_PTY_TIMEOUT_MS").unwrap_or(api::DEFAULT_TALK_TIMEOUT_MS)
}

/// Screen scrollback in lines (`KPTY_SCROLLBACK`, else 10 000; at most [`api::MAX_SCROLLBACK`]).
pub fn scrollback() -> usize {
    env_num::<usize>("KPTY_SCROLLBACK")
        .unwrap_or(api::DEFAULT_SCROLLBACK)
        .min(api::MAX_SCROLLBACK)
}

/// How long `create` waits for the first prompt (`KPTY_READY_TIMEOUT_MS`, else 10 s).
pub fn ready_timeout_ms() -> u64 {
    env_num("KPTY_READY_TIMEOUT_MS").unwrap_or(10_000)
}

/// `KURORYUU_TERM_BUFFER_ACCESS` (`on` unless `off`).
pub fn term_buffer_access() -> &'static str {
    match std::env::var("KURORYUU_TERM_BUFFER_ACCESS") {
        Ok(v) if v.eq_ignore_ascii_case("off") => "off",
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
