//! Housekeeping verbs' arguments: `list`.

use clap::Args;

// `list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Every state directory this user has used (an index in the runtime directory), each
    /// session with its state_dir.
    #[arg(long)]
    pub all: bool,
    /// Every host kpty knows (kpty hosts add, KPTY_HOSTS), asked at once over ssh: one table
    /// with a HOST column; a host that does not answer is shown as unreachable.
    #[arg(long, conflicts_with = "all")]
    pub all_hosts: bool,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}
