//! The PTYs of a local session as `list` shows them: PTY 0 as its probe found it, then each
//! shell PTY (`SESSION:N`) probed now, in parallel.

use super::Ctx;
use super::handle::files_id;
use super::kind::is_local;
use super::sessions::{self, Liveness, entry};
use crate::api::sessions::PtyView;
use crate::proto::ptys;
use crate::store::RegistryEntry;

/// The PTYs of local session `e` as `list` shows them — PTY 0 as `live` found it, then each
/// shell PTY probed now — or `None` when it never had a shell PTY.
pub fn views(ctx: &Ctx, e: &RegistryEntry, live: &Liveness) -> Option<Vec<PtyView>> {
    let base = files_id(&e.session_id).filter(|_| is_local(e))?;
    let ids = ptys::ids(&ctx.state, &base);
    if ids.is_empty() {
        return None;
    }
    let mut out = vec![view(0, e.session_id.clone(), e.pid, live)];
    let probed: Vec<PtyView> = std::thread::scope(|s| {
        let handles: Vec<_> = ids
            .iter()
            .filter_map(|id| id.pty_parts().map(|(_, n)| (n, id)))
            .map(|(n, id)| {
                s.spawn(move || {
                    let address = id.address();
                    let entry = entry(ctx, e, n).ok()?;
                    let live = sessions::probe(ctx, &entry);
                    Some(PtyView {
                        command: entry.program.as_ref().map(|p| p.command.clone()),
                        ..view(n, address, entry.pid, &live)
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().ok().flatten())
            .collect()
    });
    out.extend(probed);
    Some(out)
}

/// One PTY's view from its probe.
fn view(pty: u32, address: String, pid: Option<u32>, live: &Liveness) -> PtyView {
    let (pid, attached, exit_code) = match live {
        Liveness::Running(s) => (Some(s.pid), s.attached, None),
        Liveness::Exited { exit_code, .. } => (pid, 0, *exit_code),
        _ => (pid, 0, None),
    };
    PtyView {
        pty,
        address,
        pid,
        state: live.state(),
        attached,
        exit_code,
        command: None,
    }
}
