//! The seeds' Windows forms, judged by meaning: a line is split as cmd.exe *and* as
//! PowerShell would split it (`lex`) — kpty cannot know which shell a PTY runs, so a line
//! is refused when either reading of it is destructive. Wrappers are followed (`cmd /c`,
//! `powershell -c`/`-EncodedCommand`, `pwsh -Command`, `Start-Process`, `start`, `call`,
//! `&`/`.`, `iex`, `sudo`, `runas`, `if`/`for … do`, `psexec`, `schtasks /tr`, `wmic process
//! call create`), variables resolved (`%SystemDrive%`, `$env:SystemRoot`, `$p = 'C:\'`), and
//! `cd` tracked. Paths and registry keys are classified by [`targets`]; each command's rule is
//! in `commands`. The POSIX judge hands this module every string it gives another shell and
//! every command it reaches, so `sudo pwsh -c '…'` and `ssh host 'rd /s /q C:\'` are judged
//! too.
//!
//! Judgement calls (documented in the README text of the notes): removal is refused on drive
//! roots, the system folders, whole profiles and home — `rd /s /q node_modules` passes, as
//! `rm -rf ./build` does; `bcdedit` reading (`/enum`, `/v`, `/export`) passes; `diskpart` is
//! refused in any use; `reg import` and `regedit /s` are refused whatever the file (its keys
//! are not seen); `-WhatIf` makes a cmdlet a dry run.

mod args;
mod commands;
mod judge;
mod lex;
mod params;
pub mod targets;

#[cfg(test)]
mod tests;

use super::catalog::{Hit, Rule};

const DFO: &str = "destructive_file_ops";
const DISK: &str = "disk_ops";
const SYS: &str = "system_damage";
const CRED: &str = "credential_access";
const REG: &str = "registry_boot_attacks";

use super::catalog::rule;

rule!(
    DEL,
    "del_recursive_quiet",
    DFO,
    "Windows del/erase /s (recursive delete) of a drive root, a system folder, a whole profile or home"
);
rule!(
    RMDIR,
    "rmdir_recursive",
    DFO,
    "Windows rmdir/rd /s (recursive directory removal) of a drive root, a system folder, a whole profile or home"
);
rule!(
    REMOVE_ITEM,
    "remove_item_recurse_root",
    DFO,
    "PowerShell Remove-Item -Recurse (ri, rm, del, rd …) of a drive root, a system folder, a whole profile or home"
);
rule!(
    FORMAT,
    "format_drive",
    DISK,
    "format of a drive letter or volume"
);
rule!(
    DISKPART,
    "diskpart",
    DISK,
    "diskpart (disk partitioning tool), in any use"
);
rule!(
    DISK_WIPE,
    "powershell_disk_wipe",
    DISK,
    "PowerShell Format-Volume / Clear-Disk / Initialize-Disk / Remove-Partition"
);
rule!(
    CIPHER,
    "cipher_wipe",
    DISK,
    "cipher /w (overwrites a volume's free space)"
);
rule!(
    SAM_HIVE,
    "sam_hive",
    CRED,
    "querying or saving the SAM/SECURITY/SYSTEM registry hives"
);
rule!(
    REG_DELETE,
    "reg_delete_hklm",
    REG,
    "deleting HKLM registry keys or values (reg delete, Remove-Item, Remove-ItemProperty)"
);
rule!(
    REG_WRITE,
    "reg_write_hklm",
    REG,
    "writing HKLM registry keys (reg add/import/restore/load/unload/copy, regedit /s, Set-ItemProperty HKLM:)"
);
rule!(
    BCDEDIT,
    "bcdedit",
    REG,
    "bcdedit changing the boot configuration (/enum, /v and /export read)"
);
rule!(
    VSS,
    "vss_delete_shadows",
    REG,
    "deleting volume shadow copies (vssadmin, wmic shadowcopy, Win32_ShadowCopy)"
);
rule!(
    WBADMIN,
    "wbadmin_delete",
    REG,
    "wbadmin delete (backup catalog/backups)"
);
rule!(
    TAKEOWN,
    "takeown_system",
    SYS,
    "takeown /r of a drive root, a system folder or a whole profile"
);
rule!(
    ICACLS,
    "icacls_system",
    SYS,
    "icacls granting, denying or resetting access recursively or for everyone on a drive root or system folder"
);

/// Every rule of this module (the Windows forms of `shutdown` and `rm` use
/// [`super::catalog::SHUTDOWN`] and [`super::catalog::RM_ROOT`]).
#[cfg(test)]
pub static RULES: &[&Rule] = &[
    &DEL,
    &RMDIR,
    &REMOVE_ITEM,
    &FORMAT,
    &DISKPART,
    &DISK_WIPE,
    &CIPHER,
    &SAM_HIVE,
    &REG_DELETE,
    &REG_WRITE,
    &BCDEDIT,
    &VSS,
    &WBADMIN,
    &TAKEOWN,
    &ICACLS,
];

/// Judges a line as cmd.exe and as PowerShell would run it; the first rule it breaks.
#[must_use]
pub fn judge_line(text: &str) -> Option<Hit> {
    [lex::Dialect::Cmd, lex::Dialect::Ps]
        .into_iter()
        .find_map(|d| {
            let mut j = judge::Judge::default();
            j.script(text, d);
            j.hit
        })
}

/// Judges one command already split into words (by the POSIX judge, after expansion).
#[must_use]
pub fn judge_argv(argv: &[String]) -> Option<&'static Rule> {
    let words: Vec<lex::Word> = argv.iter().map(|a| lex::Word::literal(a)).collect();
    let mut j = judge::Judge::default();
    j.words(&words, lex::Dialect::Ps);
    j.hit.map(|h| h.rule)
}
