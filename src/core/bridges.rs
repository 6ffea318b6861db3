//! What `kpty serve` does at start for registered sessions (seed 004, startup step 5: "verify
//! any registered Desktop sessions are still active"): each bridge their entries name is
//! asked once, all at once, each within `PROBE`; the sessions of a bridge where nothing
//! answers are marked dead and pruned as `prune` prunes stale ones (forgotten, a `pruned`
//! line in the registry's journal), and logged. A bridge that answers anything is up. Entries
//! kpty sends nothing to (no valid seal, a host not allowed, no URL) are left alone, as is an
//! entry registered again while its bridge was being asked.

use super::Ctx;
use super::kind::is_local;
use crate::error::Result;
use crate::store::{Registry, RegistryEntry};
use std::collections::BTreeMap;
use std::time::Duration;

/// How long one bridge has to answer.
const PROBE: Duration = Duration::from_secs(2);
/// Most bridges asked at the same time.
const AT_ONCE: usize = 32;

/// Ask every bridge of a registered session whether it is up and prune the sessions of
/// those that are not; the ids pruned.
pub fn verify_registered(ctx: &Ctx) -> Result<Vec<String>> {
    let reg = Registry::load(&ctx.state)?;
    let mut by_bridge: BTreeMap<String, Vec<RegistryEntry>> = BTreeMap::new();
    for e in reg.sessions.values().filter(|e| !is_local(e)) {
        if super::sessions::check_route(&ctx.state, e).is_err() {
            continue;
        }
        let Ok(url) = crate::bridge::client::base_url(e) else {
            continue;
        };
        if crate::bridge::allow::refusal(&url).is_none() {
            by_bridge.entry(url).or_default().push(e.clone());
        }
    }
    let bridges: Vec<(String, Vec<RegistryEntry>)> = by_bridge.into_iter().collect();
    let mut down = Vec::new();
    // At most AT_ONCE threads at a time, each bridge with its own deadline.
    for batch in bridges.chunks(AT_ONCE) {
        let answered: Vec<bool> = std::thread::scope(|s| {
            let asks: Vec<_> = batch
                .iter()
                .map(|(url, _)| s.spawn(move || crate::bridge::client::answers(url, PROBE)))
                .collect();
            asks.into_iter()
                .map(|h| h.join().unwrap_or(false))
                .collect()
        });
        down.extend(
            batch
                .iter()
                .zip(answered)
                .filter(|(_, up)| !up)
                .map(|(b, _)| b.clone()),
        );
    }
    if down.is_empty() {
        return Ok(Vec::new());
    }
    let pruned = Registry::update(&ctx.state, |reg| {
        let mut pruned = Vec::new();
        for (url, entries) in &down {
            for e in entries {
                // Registered again (or changed) meanwhile: not the entry found dead.
                if reg.sessions.get(&e.session_id) == Some(e) {
                    reg.sessions.remove(&e.session_id);
                    pruned.push((url.clone(), e.session_id.clone()));
                }
            }
        }
        Ok(pruned)
    })?;
    for (url, id) in &pruned {
        tracing::warn!("bridge {url} does not answer: its session {id} is marked dead and pruned");
        crate::store::registry_events::record(
            &ctx.state,
            &crate::store::registry_events::RegistryEvent::Pruned {
                action: "prune",
                session_id: id,
                reason: Some("bridge_unreachable"),
                desktop_url: Some(url),
            },
        );
    }
    Ok(pruned.into_iter().map(|(_, id)| id).collect())
}
