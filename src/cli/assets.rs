//! Shell completions and man pages generated from the clap model (`kpty __generate-assets`);
//! the checked-in copies under completions/ and man/ are compared with fresh ones by a test.

use std::path::Path;

/// The hidden maintainers' verb: `kpty __generate-assets DIR`.
pub const SUBCOMMAND: &str = "__generate-assets";

/// Run `kpty __generate-assets DIR`: write the assets under DIR; exit code.
pub fn main(args: &[std::ffi::OsString]) -> i32 {
    let [out] = args else {
        eprintln!("usage: kpty {SUBCOMMAND} DIR");
        return 2;
    };
    match generate(Path::new(out)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("kpty: generating assets failed: {e}");
            1
        }
    }
}

/// Appended to the zsh script (see [`generate`]).
const ZSH_AUTOLOAD: &str =
    "if [[ \"${funcstack[1]}\" == _kpty ]]; then\n    _clap_dynamic_completer_kpty \"$@\"\nfi\n";

/// Each shell's completion file, named as the shell's completion directory expects.
const COMPLETIONS: &[(&str, &str)] = &[
    ("bash", "kpty.bash"),
    ("zsh", "_kpty"),
    ("fish", "kpty.fish"),
    ("elvish", "kpty.elv"),
    ("powershell", "_kpty.ps1"),
];

/// Write `completions/` and `man/` under `root`.
pub fn generate(root: &Path) -> std::io::Result<()> {
    let (comp, man) = (root.join("completions"), root.join("man"));
    std::fs::create_dir_all(&comp)?;
    std::fs::create_dir_all(&man)?;
    // Registration scripts: the shell asks `kpty` for candidates on every Tab (see
    // [`super::complete`]), so they never go stale and hidden subcommands never show.
    for (shell, file) in COMPLETIONS {
        let mut script = super::complete::registration(shell)?;
        if *shell == "zsh" {
            // Autoloaded from $fpath as `_kpty`, the file's body runs on the first Tab:
            // complete that Tab too, not only register for the next one.
            script.extend_from_slice(ZSH_AUTOLOAD.as_bytes());
        }
        std::fs::write(comp.join(file), script)?;
    }
    super::man::generate(super::args::command(), &man)?;
    Ok(())
}
