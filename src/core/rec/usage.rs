//! What the recordings take and what their caps allow: `kpty rec list` and `kpty gc`.

use super::Ctx;
use crate::store::recordings;
use serde::Serialize;

/// One PTY's recording.
#[derive(Debug, Clone, Serialize)]
pub struct RecordingUsage {
    /// Its address (`pty_…`, `pty_…:N`).
    pub session_id: String,
    /// Its folder.
    pub dir: String,
    /// Its segments' paths, in order.
    pub segments: Vec<String>,
    /// Bytes on disk.
    pub bytes: u64,
    /// Its session has ended.
    pub ended: bool,
}

/// The recordings of a state directory, with the caps in force.
#[derive(Debug, Clone, Serialize)]
pub struct Usage {
    /// Always true.
    pub ok: bool,
    /// Bytes a segment reaches before the next starts (`KPTY_RECORD_SEGMENT`).
    pub segment_cap: u64,
    /// Bytes all recordings may take (`KPTY_RECORD_TOTAL`).
    pub total_cap: u64,
    /// Bytes they take now.
    pub used: u64,
    /// Each recording.
    pub recordings: Vec<RecordingUsage>,
    /// The segments over the total (removed, unless this was a dry run).
    pub over_total: Vec<String>,
    /// They were removed.
    pub removed: bool,
}

/// The recordings and their caps; with `apply`, the segments over the total are removed.
pub fn usage(ctx: &Ctx, apply: bool) -> Usage {
    let (segment_cap, total_cap) = recordings::caps();
    let all = recordings::all(&ctx.state);
    let over: Vec<String> = if apply {
        recordings::enforce_total(&ctx.state, total_cap)
    } else {
        recordings::over_total(&all, total_cap)
    }
    .into_iter()
    .map(|s| s.path.display().to_string())
    .collect();
    let all = if apply && !over.is_empty() {
        recordings::all(&ctx.state)
    } else {
        all
    };
    Usage {
        ok: true,
        segment_cap,
        total_cap,
        used: all.iter().map(recordings::Recording::bytes).sum(),
        recordings: all
            .iter()
            .map(|r| RecordingUsage {
                session_id: r.address.clone(),
                dir: r.dir.display().to_string(),
                segments: r
                    .segments
                    .iter()
                    .map(|s| s.path.display().to_string())
                    .collect(),
                bytes: r.bytes(),
                ended: r.ended,
            })
            .collect(),
        removed: apply && !over.is_empty(),
        over_total: over,
    }
}
