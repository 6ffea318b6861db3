//! Saving a session to disk from its holder: `buffer.txt` (the ring's bytes) and
//! `metadata.json`, debounced while output flows and once more when the shell ends.

use super::session::Shared;
use crate::api::SessionId;
use crate::store::{Metadata, StateDir};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Minimum spacing between two saves while output keeps coming.
const DEBOUNCE: Duration = Duration::from_secs(1);

/// The persistence thread: save whenever something changed, at most once per `DEBOUNCE` (1 s);
/// it returns once the shell has ended, and the holder's main thread then saves last
/// ([`final_save`], after joining this thread: one writer at a time, the final one last).
pub fn debounced(shared: Arc<Shared>, state: StateDir, meta: Metadata) {
    let Ok(id) = SessionId::parse(&meta.session_id) else {
        return;
    };
    let mut meta = meta;
    loop {
        let mut st = shared.lock();
        while !st.dirty && st.exit.is_none() {
            st = shared.cond.wait(st).unwrap_or_else(|p| p.into_inner());
        }
        if st.exit.is_some() {
            return; // the main thread does the final save
        }
        st.dirty = false;
        let bytes = st.ring.contents();
        let size = (st.cols, st.rows);
        let end = st.ring.end();
        meta.process = st.program.as_ref().map(|p| p.status());
        if let Some(label) = &st.label {
            meta.label.clone_from(label);
        }
        drop(st);
        if let Err(e) = state.write_bytes(&state.session_dir(&id).join("buffer.txt"), &bytes) {
            tracing::warn!("saving buffer.txt failed: {e}");
        }
        (meta.cols, meta.rows) = size;
        meta.output_offset = Some(end);
        if let Err(e) = meta.save(&state, &id) {
            tracing::warn!("saving metadata failed: {e}");
        }
        // Debounce: wait the rest of the spell unless the shell ends meanwhile.
        let until = Instant::now() + DEBOUNCE;
        let mut st = shared.lock();
        while st.exit.is_none() {
            let (g, up) = shared.wait_on(&shared.ended, st, until);
            st = g;
            if up {
                break;
            }
        }
    }
}

/// The final save once the shell has ended: buffer, exit status, state.
pub fn final_save(shared: &Shared, state: &StateDir, meta: &Metadata) {
    let Ok(id) = SessionId::parse(&meta.session_id) else {
        return;
    };
    let st = shared.lock();
    let bytes = st.ring.contents();
    let mut meta = meta.clone();
    (meta.cols, meta.rows) = (st.cols, st.rows);
    meta.state = if st.killed {
        "killed".into()
    } else {
        "exited".into()
    };
    meta.exit_code = st.exit.as_ref().map(|e| e.code);
    meta.exit_signal = st.exit.as_ref().and_then(|e| e.signal.clone());
    meta.exited_at = Some(
        st.exit
            .as_ref()
            .map_or_else(crate::store::now_rfc3339, |e| e.at.clone()),
    );
    meta.holder_pid = None;
    meta.output_offset = Some(st.ring.end());
    meta.process = st.program.as_ref().map(|p| p.status());
    if let Some(label) = &st.label {
        meta.label.clone_from(label);
    }
    drop(st);
    if let Err(e) = state.write_bytes(&state.session_dir(&id).join("buffer.txt"), &bytes) {
        tracing::warn!("saving buffer.txt failed: {e}");
    }
    if let Err(e) = meta.save(state, &id) {
        tracing::warn!("saving metadata failed: {e}");
    }
}
