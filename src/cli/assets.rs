//! Shell completions and man pages generated from the clap model (`kpty __generate-assets`);
//! the checked-in copies under completions/ and man/ are compared with fresh ones by a test.

use super::args::Cli;
use clap::CommandFactory;
use clap_complete::{generate_to, shells};
use std::path::Path;

/// Write `completions/` and `man/` under `root`.
pub fn generate(root: &Path) -> std::io::Result<()> {
    let (comp, man) = (root.join("completions"), root.join("man"));
    std::fs::create_dir_all(&comp)?;
    std::fs::create_dir_all(&man)?;
    let mut cmd = Cli::command();
    generate_to(shells::Bash, &mut cmd, "kpty", &comp)?;
    generate_to(shells::Zsh, &mut cmd, "kpty", &comp)?;
    generate_to(shells::Fish, &mut cmd, "kpty", &comp)?;
    generate_to(shells::Elvish, &mut cmd, "kpty", &comp)?;
    generate_to(shells::PowerShell, &mut cmd, "kpty", &comp)?;
    clap_mangen::generate_to(Cli::command(), &man)?;
    Ok(())
}
