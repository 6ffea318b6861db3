//! `kpty screenshot`'s image leaves the CLI: written to `-o FILE` (a PNG as its bytes, not
//! the base64 its JSON carries), or a PNG printed as it is to a pipe or a file — never to a
//! terminal, where binary would only garble the screen.

use super::args::ScreenshotArgs;
use crate::api::reply::ScreenshotReply;
use crate::error::{Error, Result};
use base64::Engine;
use std::borrow::Cow;
use std::io::IsTerminal;

/// Refuse, before the screenshot is taken, a PNG bound for the terminal.
pub(super) fn refuse_terminal(a: &ScreenshotArgs, json: bool) -> Result<()> {
    if a.format == "png" && a.output.is_none() && !json && std::io::stdout().is_terminal() {
        return Err(Error::invalid(
            "a PNG is binary and stdout is a terminal: write it to a file with `-o FILE` \
             (or redirect it: `kpty screenshot --format png > screen.png`)",
        ));
    }
    Ok(())
}

/// Write the image where `-o` says, or print a PNG; true when that was all the output (the
/// human renderer then prints nothing).
pub(super) fn deliver(a: &ScreenshotArgs, r: &ScreenshotReply, json: bool) -> Result<bool> {
    if let Some(path) = &a.output {
        std::fs::write(path, bytes(r)?).map_err(|e| {
            Error::invalid(format!(
                "cannot write the screenshot to {}: {e}",
                path.display()
            ))
        })?;
        if !json {
            eprintln!("kpty: wrote {}", path.display());
        }
        return Ok(!json);
    }
    if json || r.encoding.is_none() {
        return Ok(false);
    }
    super::output::out(&bytes(r)?);
    Ok(true)
}

/// The image's bytes: a PNG's decoded from base64, text as it is.
fn bytes(r: &ScreenshotReply) -> Result<Cow<'_, [u8]>> {
    if r.encoding.is_none() {
        return Ok(Cow::Borrowed(r.image.as_bytes()));
    }
    base64::engine::general_purpose::STANDARD
        .decode(&r.image)
        .map(Cow::Owned)
        .map_err(|e| Error::internal(format!("the screenshot's base64 does not decode: {e}")))
}
