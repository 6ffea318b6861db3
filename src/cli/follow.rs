//! `kpty read --follow`: print new output as it arrives until the shell ends, or the session
//! is killed.

use super::output::{out, print_error, print_json};
use crate::api::Params;
use crate::api::reply::ReadReply;
use crate::core::follow::FollowEnd;
use crate::core::{self, Ctx};
use crate::error::{ErrorCode, Result};

/// `kpty read --follow`: print new output as it arrives until the shell ends (the follow
/// itself is the core's, [`core::follow::follow`]).
pub fn follow(ctx: &Ctx, p: Params, json: bool) -> Result<i32> {
    let mut emit = |r: &ReadReply| {
        if json {
            match core::to_json(Ok(r)) {
                Ok(v) => print_json(&v),
                Err(e) => print_error(&e),
            }
        } else {
            if let Some(n) = r.dropped.filter(|n| *n > 0) {
                eprintln!("{}", missed(n));
            }
            out(r.output.as_bytes());
        }
    };
    if core::follow::follow(ctx, p, &mut emit)? == FollowEnd::Gone {
        eprintln!("{GONE}");
    }
    Ok(0)
}

/// Said on stderr (before the output that follows the gap) when the follower fell so far
/// behind that output it had not taken left the session's buffer.
fn missed(n: u64) -> String {
    format!(
        "kpty: {n} bytes of output were missed here (this follower fell behind the session's \
         buffer; a larger KPTY_BUFFER_SIZE keeps more)"
    )
}

/// Said on stderr when the session followed was killed: the end of the stream, not an error.
const GONE: &str = "kpty: the session is gone (killed); nothing more to follow";

/// A follower's next step: the session it was following was killed (and forgotten) meanwhile
/// — the end of the stream, said on stderr, not an error.
pub(super) fn still_there<T>(r: Result<T>) -> Result<Option<T>> {
    match r {
        Err(e) if e.code == ErrorCode::PtySessionNotFound => {
            eprintln!("{GONE}");
            Ok(None)
        }
        r => r.map(Some),
    }
}
