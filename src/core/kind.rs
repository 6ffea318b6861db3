//! Whether a registry entry is held by a kpty holder here or reached through its bridge, from
//! its `source`. A resolved session carries the answer in its handle
//! ([`super::handle::Handle::place`]): actions match on that instead of asking again.

use crate::store::RegistryEntry;

/// The `source` of sessions kpty holds itself.
pub const LOCAL: &str = "local";

/// True when `e` is held by a kpty holder of this state directory.
pub fn is_local(e: &RegistryEntry) -> bool {
    e.source == LOCAL
}
