//! A person's view from a web console, as the session's audit trail sees it, whichever
//! machine serves the page: the join (`web_join`: the attach stream opened, and what the
//! holder said) and the keys typed, recorded by line ([`TypedLines`]). The console's own
//! view (`serve::console::term`) and a host's end of another machine's console
//! (`cli::attach_stream`) both record through here.

use super::Ctx;
use super::attach::{Attachment, Target};
use super::audit::WEB_JOIN;
use crate::api::Params;
use crate::error::{Error, Result};
use crate::proto::attach::AttachRequest;

/// Keys typed are audited by line; a line longer than this is recorded in parts.
const AUDIT_CHUNK: usize = 1024;

/// Open the attach stream of the session `p` names with `req` (a web client's), audited as
/// `web_join` with `p`'s writer and data.
pub fn join(ctx: &Ctx, p: &Params, req: &AttachRequest) -> Result<Attachment> {
    let mut at = None;
    super::audited_as(ctx, WEB_JOIN, p, || {
        let a = super::attach::open(ctx, Target::Named(p), req)?;
        let joined = Joined {
            session_id: a.session_id.clone(),
            attached: a.body.attached,
            resumed: a.body.resumed,
        };
        at = Some(a);
        Ok(joined)
    })?;
    at.ok_or_else(|| Error::internal("the join left no stream"))
}

/// What `web_join` records.
#[derive(serde::Serialize)]
struct Joined {
    session_id: String,
    attached: usize,
    /// A page that came back, carrying on where it was.
    resumed: bool,
}

/// Keys typed since the last `web_write` record: a line is recorded at each Enter, or in
/// parts of 1 KiB (`AUDIT_CHUNK`).
#[derive(Default)]
pub struct TypedLines(Vec<u8>);

impl TypedLines {
    /// Take `keys`; the text to record now, if a line ended or grew long.
    pub fn push(&mut self, keys: &[u8]) -> Option<String> {
        self.0.extend_from_slice(keys);
        let enter = keys.iter().any(|b| matches!(b, b'\r' | b'\n'));
        (enter || self.0.len() >= AUDIT_CHUNK)
            .then(|| self.take())
            .flatten()
    }

    /// What was typed and not yet recorded (before control changes hands, a block or the
    /// leave).
    pub fn take(&mut self) -> Option<String> {
        (!self.0.is_empty())
            .then(|| String::from_utf8_lossy(&std::mem::take(&mut self.0)).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// However keys arrive, every byte is recorded once, in order; a record is taken at
        /// each Enter or past the chunk, never otherwise.
        #[test]
        fn typed_keys_are_recorded_whole_and_by_line(
            parts in proptest::collection::vec(
                proptest::collection::vec(prop_oneof![Just(b'\r'), Just(b'a'), Just(b'\n')], 0..700),
                0..12,
            ),
        ) {
            let mut t = TypedLines::default();
            let (mut recorded, mut typed) = (String::new(), Vec::new());
            for keys in &parts {
                typed.extend_from_slice(keys);
                let before = t.0.len();
                match t.push(keys) {
                    Some(r) => {
                        let enter = keys.iter().any(|b| *b != b'a');
                        prop_assert!(enter || before + keys.len() >= AUDIT_CHUNK);
                        recorded.push_str(&r);
                    }
                    None => prop_assert!(t.0.len() < AUDIT_CHUNK || keys.is_empty()),
                }
            }
            recorded.push_str(&t.take().unwrap_or_default());
            prop_assert_eq!(recorded.as_bytes(), &typed[..]);
            prop_assert!(t.take().is_none());
        }
    }
}
