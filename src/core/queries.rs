//! The holder queries of `term_read` and `wait_for` built from the parameters: closed sets
//! parsed, defaults and caps applied, conditions checked.

use super::config;
use crate::api::queries::{TermReadRequest, WaitForRequest};
use crate::api::{self, Params, TermMode};
use crate::error::{Error, Result};
use crate::proto::wait::compile;

/// Default `max_lines`.
const DEFAULT_MAX_LINES: usize = 40;

/// Largest `max_lines`.
pub const MAX_LINES: usize = 200;

/// Default `max_chars`.
const DEFAULT_MAX_CHARS: usize = 12_000;

/// Largest `max_chars`.
pub const MAX_CHARS: usize = 50_000;

/// The validated request (caps applied: values above a cap are lowered to it).
pub(crate) fn term_read(p: &Params) -> Result<TermReadRequest> {
    let mode = match p.mode.as_deref() {
        None => TermMode::Tail,
        Some(m) => m.parse()?,
    };
    let max_lines = p.max_lines.unwrap_or(DEFAULT_MAX_LINES);
    let max_chars = p.max_chars.unwrap_or(DEFAULT_MAX_CHARS);
    if max_lines == 0 || max_chars == 0 {
        return Err(Error::invalid("max_lines and max_chars must be at least 1"));
    }
    if p.marker_id.is_some() && mode != TermMode::Delta {
        return Err(Error::invalid(
            "marker_id is only used with mode=delta (each delta read returns the next marker)",
        ));
    }
    Ok(TermReadRequest {
        mode: mode.as_str().into(),
        max_lines: max_lines.min(MAX_LINES),
        max_chars: max_chars.min(MAX_CHARS),
        merge_wrapped: p.merge_wrapped.unwrap_or(true),
        marker_id: p.marker_id,
    })
}

/// Default most bytes of output a `wait_for` returns (the end kept).
const DEFAULT_MAX_BYTES: usize = 64 * 1024;

/// The holder request for `p`, checked: a condition, a valid pattern, bounds.
pub(crate) fn wait_for(p: &Params) -> Result<WaitForRequest> {
    let prompt = p.prompt.unwrap_or(false);
    if p.pattern.is_none() && p.quiet_ms.is_none() && !prompt {
        return Err(Error::invalid(
            "wait_for needs a condition: pattern, quiet_ms or prompt",
        ));
    }
    if let Some(pat) = p.pattern.as_deref() {
        compile(pat).map_err(Error::invalid)?;
    }
    let screen = p.screen.unwrap_or(false);
    if screen && p.pattern.is_none() {
        return Err(Error::invalid("screen needs a pattern to look for"));
    }
    if let Some(q) = p.quiet_ms
        && (q == 0 || q > api::MAX_TIMEOUT_MS)
    {
        return Err(Error::invalid(format!(
            "quiet_ms must be 1..={}",
            api::MAX_TIMEOUT_MS
        )));
    }
    let timeout = p.timeout_ms.unwrap_or_else(config::talk_timeout_ms);
    if timeout == 0 || timeout > api::MAX_TIMEOUT_MS {
        return Err(Error::invalid(format!(
            "timeout_ms must be 1..={}",
            api::MAX_TIMEOUT_MS
        )));
    }
    let max = p.max_bytes.unwrap_or(DEFAULT_MAX_BYTES);
    if max == 0 || max > api::MAX_READ_BYTES {
        return Err(Error::invalid(format!(
            "max_bytes must be 1..={}",
            api::MAX_READ_BYTES
        )));
    }
    Ok(WaitForRequest {
        pattern: p.pattern.clone(),
        screen,
        quiet_ms: p.quiet_ms,
        prompt,
        since: p.since,
        timeout_ms: timeout,
        max_bytes: max,
        context: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn caps_and_defaults() {
        let p = crate::api::Params::default();
        let r = term_read(&p).expect("defaults");
        assert_eq!(
            (r.mode.as_str(), r.max_lines, r.max_chars),
            ("tail", 40, 12_000)
        );
        assert!(r.merge_wrapped);
        let p = crate::api::Params {
            max_lines: Some(10_000),
            max_chars: Some(1 << 30),
            ..Default::default()
        };
        let r = term_read(&p).expect("capped");
        assert_eq!((r.max_lines, r.max_chars), (200, 50_000));
        let bad = crate::api::Params {
            mode: Some("all".into()),
            ..Default::default()
        };
        let e = term_read(&bad).expect_err("not a mode");
        assert_eq!(e.code, ErrorCode::InvalidParams);
        assert_eq!(e.message, r#"mode "all" must be tail, viewport or delta"#);
    }
}
