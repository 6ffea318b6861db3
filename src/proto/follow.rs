//! The follow stream (`kpty read --follow`, `kpty term-read --follow`): after a `follow`
//! request the holder sends one [`super::Reply`] frame holding a [`super::ReadBody`] each time
//! output arrives past what it last sent, and one with no text after `wait_ms` without output
//! (a heartbeat, so the client can bound its own wait). Once the shell has ended and
//! everything it printed was sent, the last body says `alive: false` and the holder closes the
//! connection. The client leaves by closing it. Older holders answer an "unknown request"
//! error.

use serde::{Deserialize, Serialize};

/// The `follow` request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FollowRequest {
    /// The absolute offset to start from (output already gone from the ring is reported as
    /// `dropped` in the first body).
    pub since: u64,
    /// The most bytes in one body.
    pub max_bytes: usize,
    /// A heartbeat body follows this long (ms) without output.
    pub wait_ms: u64,
    /// Also send the redaction context around each body's window.
    #[serde(default)]
    pub context: bool,
    /// Only where the output ends, never its text: each body jumps to the end of output (for
    /// a follower that redraws the screen rather than printing the bytes).
    #[serde(default)]
    pub offsets_only: bool,
}
