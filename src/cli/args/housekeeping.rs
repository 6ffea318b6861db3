//! Housekeeping verbs' arguments: `list`.

use clap::Args;

// `list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Every state directory this user has used (an index in the runtime directory), each
    /// session with its state_dir.
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}
