//! Landlock is Linux's: elsewhere no kernel offers it, and `--sandbox` fails the create.

use super::Policy;
use std::path::Path;

/// No Landlock outside Linux.
pub fn kernel_abi() -> Option<u32> {
    None
}

/// What a restriction enforced (never built outside Linux).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Enforced {
    /// Rules added.
    pub rules: usize,
    /// Signals and abstract sockets scoped.
    pub scoped: bool,
}

/// Always refuses: there is no Landlock to apply.
pub(crate) fn restrict(_policy: &Policy, _pty: Option<&Path>) -> Result<Enforced, String> {
    Err("Landlock is only available on Linux".into())
}
