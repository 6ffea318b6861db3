//! What may be typed into a session: the size limit, escape processing (`\\n`, `\\x03` …),
//! and the dangerous-command policy.

use crate::api;
use crate::error::{Error, Result};
use crate::safety::Opacity;

/// Block input whose lines, as the shell's line editor would submit them, match a
/// dangerous-command rule (`DANGEROUS_COMMAND_BLOCKED` naming the pattern and the line); with
/// [`Opacity::Strict`] (sessions behind a bridge, whose holder kpty does not run) also a line
/// edited after a key kpty cannot follow. Local sessions' holders check again, with what
/// earlier writes left on the line and whether a line editor is reading at all.
pub fn check_typed(text: &str, opacity: Opacity) -> Result<()> {
    Ok(crate::safety::check_typed(text, opacity)?)
}

/// Decode `\xNN`, `\r`, `\n`, `\t`, `\\` escapes in `what`; bytes that are not UTF-8 text are
/// `INVALID_PARAMS`.
pub fn unescape(what: &str, text: &str) -> Result<String> {
    crate::safety::process_escapes(text).map_err(|e| Error::invalid(format!("{what}: {e}")))
}

/// Refuse oversized input.
pub fn check_size(what: &str, text: &str) -> Result<()> {
    if text.len() > api::MAX_INPUT_BYTES {
        return Err(Error::invalid(format!(
            "{what} is {} bytes; the limit is {} bytes",
            text.len(),
            api::MAX_INPUT_BYTES
        )));
    }
    Ok(())
}
