//! The rule each Windows command breaks, by its arguments: removers on protected targets
//! (cmd `del`/`rd` with `/s`, PowerShell `Remove-Item -Recurse` and its aliases, GNU `rm -r`
//! on a drive path), disk and boot tools, registry writes on HKLM and reads of its secret
//! hives, shadow-copy deletion, ownership and access changes on system folders, and shutdown.

use super::args::{Arg, name_of};
use super::params::{self, bind, switches};
use super::targets::{self, WinPath, hklm_key};
use super::{
    BCDEDIT, CIPHER, DEL, DISK_WIPE, DISKPART, FORMAT, ICACLS, REG_DELETE, REG_WRITE, REMOVE_ITEM,
    RMDIR, Rule, SAM_HIVE, TAKEOWN, VSS, WBADMIN,
};
use crate::safety::policy::catalog::{RM_ROOT, SHUTDOWN};

/// PowerShell's names (and aliases) for `Remove-Item`.
const REMOVERS: &[&str] = &["remove-item", "ri", "rm", "del", "erase", "rd", "rmdir"];

/// Commands this module judges or follows (for `if …`/`for … do …` to find the command).
const KNOWN: &[&str] = &[
    "del",
    "erase",
    "rd",
    "rmdir",
    "rm",
    "ri",
    "remove-item",
    "remove-itemproperty",
    "rp",
    "format",
    "format-volume",
    "clear-disk",
    "initialize-disk",
    "remove-partition",
    "diskpart",
    "cipher",
    "bcdedit",
    "vssadmin",
    "wmic",
    "wbadmin",
    "reg",
    "regedit",
    "regedt32",
    "takeown",
    "icacls",
    "shutdown",
    "stop-computer",
    "restart-computer",
    "cmd",
    "powershell",
    "pwsh",
    "start",
    "start-process",
    "call",
    "iex",
    "invoke-expression",
    "if",
    "for",
    "do",
    "sudo",
];

/// PowerShell cmdlets (and aliases) that write a registry key or value given as a path.
const REG_WRITERS: &[&str] = &[
    "set-itemproperty",
    "sp",
    "new-itemproperty",
    "new-item",
    "ni",
    "set-item",
    "si",
    "clear-itemproperty",
    "clp",
    "clear-item",
    "cli",
    "rename-item",
    "rni",
    "rename-itemproperty",
    "rnp",
    "move-item",
    "mi",
    "move-itemproperty",
    "mp",
    "copy-item",
    "cpi",
    "copy-itemproperty",
    "cpp",
];

/// Whether the Windows judge knows this command (judges it or follows it).
pub fn is_known(name: &str) -> bool {
    KNOWN.contains(&name)
}

fn texts(args: &[Arg]) -> Vec<Option<String>> {
    args.iter().map(|a| a.text.clone()).collect()
}

/// `-x` written for `/x` (shutdown, regedit accept both).
fn slashed(args: &[Arg]) -> Vec<Option<String>> {
    texts(args)
        .into_iter()
        .map(|t| t.map(|t| t.strip_prefix('-').map_or(t.clone(), |r| format!("/{r}"))))
        .collect()
}

fn protected_any(ops: &[Option<String>], cwd: Option<&WinPath>) -> bool {
    ops.iter().flatten().any(|t| {
        targets::parse(t, cwd)
            .and_then(|p| targets::protected(&p))
            .is_some()
    })
}

/// The rule `name` with these arguments breaks, if any.
pub fn rule(name: &str, args: &[Arg], cwd: Option<&WinPath>) -> Option<&'static Rule> {
    let t = texts(args);
    let lower: Vec<String> = t
        .iter()
        .map(|t| t.clone().unwrap_or_default().to_lowercase())
        .collect();
    match name {
        "del" | "erase" => cmd_remove(&t, "pfsqa", &DEL, cwd).or_else(|| ps_remove(&t, cwd)),
        "rd" | "rmdir" => cmd_remove(&t, "sq", &RMDIR, cwd).or_else(|| ps_remove(&t, cwd)),
        "rm" => ps_remove(&t, cwd).or_else(|| gnu_rm(&t, cwd)),
        "ri" | "remove-item" | "remove-itemproperty" | "rp" => ps_remove(&t, cwd),
        "format" => format(&t),
        "format-volume" | "clear-disk" | "initialize-disk" | "remove-partition" => {
            (!bind(params::NONE, &t).on("whatif")).then_some(&DISK_WIPE)
        }
        "diskpart" => (lower.iter().any(|l| l != "/?") || lower.is_empty()).then_some(&DISKPART),
        "cipher" => switches(&t, "")
            .0
            .iter()
            .any(|s| s == "w")
            .then_some(&CIPHER),
        "bcdedit" => bcdedit(&slashed(args)),
        "vssadmin" => {
            let ops: Vec<&str> = lower
                .iter()
                .map(String::as_str)
                .filter(|l| !l.starts_with('/'))
                .collect();
            matches!(
                ops.as_slice(),
                ["delete", "shadows", ..] | ["resize", "shadowstorage", ..]
            )
            .then_some(&VSS)
        }
        "wmic" => lower
            .iter()
            .position(|l| l == "shadowcopy")
            .is_some_and(|i| lower[i..].iter().any(|l| l == "delete"))
            .then_some(&VSS),
        "wbadmin" => (lower
            .iter()
            .find(|l| !l.starts_with(['/', '-']))
            .map(String::as_str)
            == Some("delete"))
        .then_some(&WBADMIN),
        "reg" => reg(&lower),
        "regedit" | "regedt32" => regedit(&slashed(args)),
        _ if REG_WRITERS.contains(&name) => args
            .iter()
            .any(|a| a.raw.contains(':') && a.text.as_deref().and_then(hklm_key).is_some())
            .then_some(&REG_WRITE),
        "takeown" => {
            let (sw, ops) = switches(&t, "");
            (sw.iter().any(|s| s == "r") && protected_any(&ops, cwd)).then_some(&TAKEOWN)
        }
        "icacls" => icacls(&t, cwd),
        "shutdown" => shutdown(&slashed(args)),
        "stop-computer" | "restart-computer" => {
            (!bind(params::NONE, &t).on("whatif")).then_some(&SHUTDOWN)
        }
        _ => None,
    }
}

/// cmd's `del`/`rd`: `/s` on a protected target.
fn cmd_remove(
    t: &[Option<String>],
    letters: &str,
    rule: &'static Rule,
    cwd: Option<&WinPath>,
) -> Option<&'static Rule> {
    let (sw, ops) = switches(t, letters);
    (sw.iter().any(|s| s == "s") && protected_any(&ops, cwd)).then_some(rule)
}

/// PowerShell's `Remove-Item` (any alias): an HKLM key in any case; `-Recurse` on a
/// protected target, unless `-WhatIf` or a narrowing `-Filter`/`-Include`.
fn ps_remove(t: &[Option<String>], cwd: Option<&WinPath>) -> Option<&'static Rule> {
    let b = bind(params::REMOVE_ITEM, t);
    if b.on("whatif") {
        return None;
    }
    let paths = b.paths();
    if paths
        .iter()
        .flatten()
        .any(|p| hklm_key(p).is_some() && p.contains(':'))
    {
        return Some(&REG_DELETE);
    }
    let narrowed = b
        .values("filter")
        .chain(b.values("include"))
        .any(|v| v.as_deref().is_some_and(|v| !matches!(v, "*" | "*.*")));
    (b.on("recurse") && !narrowed && protected_any(&paths, cwd)).then_some(&REMOVE_ITEM)
}

/// GNU `rm -r` (Git Bash, MSYS, WSL) on a Windows drive path (`C:/`, `'C:\Windows'`).
fn gnu_rm(t: &[Option<String>], cwd: Option<&WinPath>) -> Option<&'static Rule> {
    let texts: Vec<&str> = t.iter().flatten().map(String::as_str).collect();
    let end = texts.iter().position(|a| *a == "--").unwrap_or(texts.len());
    let recursive = texts[..end].iter().any(|a| {
        (a.starts_with('-') && !a.starts_with("--") && a.contains(['r', 'R']))
            || (a.len() > 3 && "--recursive".starts_with(a))
    });
    let ops: Vec<Option<String>> = texts
        .iter()
        .enumerate()
        .filter(|(i, a)| *i > end || !a.starts_with('-'))
        .map(|(_, a)| Some((*a).to_string()))
        .filter(|a| a.as_deref() != Some("--"))
        .collect();
    (recursive && protected_any(&ops, cwd)).then_some(&RM_ROOT)
}

/// `format X: [/q /fs:…]`, `format \\?\Volume{…}`; `format /?` reads.
fn format(t: &[Option<String>]) -> Option<&'static Rule> {
    let (sw, ops) = switches(t, "");
    if sw.iter().any(|s| s == "?") {
        return None;
    }
    let volume = |o: &str| {
        let l = o.to_lowercase();
        let b = l.as_bytes();
        (b.len() == 2 || b.len() == 3 && matches!(b[2], b'\\' | b'/'))
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            || l.starts_with("\\\\?\\")
            || l.starts_with("\\\\.\\")
    };
    ops.iter().flatten().any(|o| volume(o)).then_some(&FORMAT)
}

/// `bcdedit` changing anything: every switch but the reading ones.
fn bcdedit(t: &[Option<String>]) -> Option<&'static Rule> {
    const READS: &[&str] = &["enum", "v", "?", "help", "export", "store"];
    let (sw, _) = switches(t, "");
    sw.iter()
        .any(|s| !READS.contains(&s.as_str()))
        .then_some(&BCDEDIT)
}

/// `reg OP KEY …`.
fn reg(l: &[String]) -> Option<&'static Rule> {
    let key = |i: usize| l.get(i).and_then(|k| hklm_key(k));
    let secret = |k: &Option<String>, system: bool| {
        k.as_deref().is_some_and(|k| {
            let top = k.split('\\').next().unwrap_or("");
            top == "sam" || top == "security" || (system && top == "system")
        })
    };
    match l.first().map(String::as_str)? {
        "delete" => key(1).map(|_| &REG_DELETE),
        "import" => Some(&REG_WRITE),
        "add" | "restore" | "load" | "unload" => key(1).map(|_| &REG_WRITE),
        "copy" if key(2).is_some() => Some(&REG_WRITE),
        "copy" | "query" => secret(&key(1), false).then_some(&SAM_HIVE),
        "save" | "export" => secret(&key(1), true).then_some(&SAM_HIVE),
        _ => None,
    }
}

/// `regedit /s FILE` (silent import), `regedit FILE` (import), `regedit /e FILE HKLM\SAM`.
fn regedit(t: &[Option<String>]) -> Option<&'static Rule> {
    let (sw, ops) = switches(t, "");
    if sw.iter().any(|s| s == "e" || s == "a") {
        let key = ops.get(1).cloned().flatten().and_then(|k| hklm_key(&k));
        let top = key
            .as_deref()
            .map(|k| k.split('\\').next().unwrap_or("").to_string());
        return matches!(top.as_deref(), Some("sam" | "security" | "system")).then_some(&SAM_HIVE);
    }
    (sw.iter().any(|s| s == "s") || !ops.is_empty()).then_some(&REG_WRITE)
}

/// `icacls TARGET /grant|/deny|/reset|/setowner …` with `/t` or for everyone/all users.
fn icacls(t: &[Option<String>], cwd: Option<&WinPath>) -> Option<&'static Rule> {
    const CHANGES: &[&str] = &[
        "grant",
        "deny",
        "remove",
        "setowner",
        "reset",
        "inheritance",
        "setintegritylevel",
        "restore",
        "substitute",
    ];
    let (sw, ops) = switches(t, "");
    let changes = sw.iter().any(|s| CHANGES.contains(&s.as_str()));
    let broad = sw.iter().any(|s| s == "t")
        || ops.iter().flatten().any(|o| {
            let l = o.to_lowercase();
            [
                "everyone",
                "*s-1-1-0",
                "users",
                "authenticated users",
                "*s-1-5-11",
                "*s-1-5-32-545",
            ]
            .iter()
            .any(|w| l.starts_with(w))
        });
    let target = ops.first().cloned().into_iter().collect::<Vec<_>>();
    (changes && broad && protected_any(&target, cwd)).then_some(&ICACLS)
}

/// `shutdown /s|/r|/p|/h|/g|/l|/o|/f|/i …`; `/a` (abort) and `/?` pass.
fn shutdown(t: &[Option<String>]) -> Option<&'static Rule> {
    const ACTS: &[&str] = &[
        "s", "r", "p", "h", "g", "sg", "l", "o", "f", "i", "hybrid", "fw", "soft",
    ];
    let (sw, _) = switches(t, "");
    if sw.iter().any(|s| s == "a" || s == "?") {
        return None;
    }
    sw.iter()
        .any(|s| ACTS.contains(&s.as_str()))
        .then_some(&SHUTDOWN)
}

/// Rules on what flows through a pipeline: shadow copies listed and deleted
/// (`Get-WmiObject Win32_ShadowCopy | Remove-WmiObject`, `… | % { $_.Delete() }`), and a
/// protected folder listed into a remover (`Get-ChildItem C:\ -Recurse | Remove-Item`).
pub fn pipeline(raw: &str, stages: &[Vec<Arg>], cwd: Option<&WinPath>) -> Option<&'static Rule> {
    let l = raw.to_lowercase();
    let tokens = |s: &str| -> Vec<String> {
        s.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
            .map(str::to_string)
            .collect()
    };
    let all = tokens(&l);
    if l.contains("win32_shadowcopy")
        && (l.contains(".delete(")
            || all.iter().any(|t| {
                matches!(
                    t.as_str(),
                    "remove-wmiobject" | "rwmi" | "remove-ciminstance" | "rcim"
                )
            }))
    {
        return Some(&VSS);
    }
    if dotnet_delete(&l, cwd) {
        return Some(&REMOVE_ITEM);
    }
    let lists = |s: &[Arg]| {
        let name = s
            .first()
            .and_then(|a| a.text.as_deref())
            .map(name_of)
            .unwrap_or_default();
        if !matches!(
            name.as_str(),
            "get-childitem" | "gci" | "ls" | "dir" | "get-item" | "gi"
        ) {
            return false;
        }
        let b = bind(params::GET_CHILD_ITEM, &texts(&s[1..]));
        let paths = b.paths();
        match (paths.is_empty(), cwd) {
            (true, Some(c)) => targets::protected(c).is_some(),
            _ => protected_any(&paths, cwd),
        }
    };
    // A remover stage, or a loop whose body removes (`% { Remove-Item $_ -Recurse }`).
    let removes = |s: &Vec<Arg>| {
        let name = s
            .first()
            .and_then(|a| a.text.as_deref())
            .map(name_of)
            .unwrap_or_default();
        let body: Vec<String> = s
            .iter()
            .filter(|a| a.raw.starts_with('{'))
            .map(|a| a.raw.to_lowercase())
            .collect();
        REMOVERS.contains(&name.as_str())
            || tokens(&body.join(" "))
                .iter()
                .any(|t| REMOVERS.contains(&t.as_str()))
    };
    let first = stages.iter().position(|s| lists(s))?;
    stages[first + 1..]
        .iter()
        .any(removes)
        .then_some(&REMOVE_ITEM)
}

/// .NET's recursive deletes called from PowerShell: `[IO.Directory]::Delete('C:\', $true)`,
/// `[Microsoft.VisualBasic.FileIO.FileSystem]::DeleteDirectory('C:\Windows', …)`.
fn dotnet_delete(lower: &str, cwd: Option<&WinPath>) -> bool {
    [
        ("directory]::delete(", true),
        ("filesystem]::deletedirectory(", false),
    ]
    .iter()
    .any(|(call, needs_true)| {
        lower.match_indices(call).any(|(i, _)| {
            let args = &lower[i + call.len()..];
            let args = &args[..args.find(')').unwrap_or(args.len())];
            let mut it = args.split(',').map(|a| a.trim().trim_matches(['\'', '"']));
            let path = it.next().map(str::to_string);
            let recursive = !needs_true
                || it
                    .next()
                    .is_some_and(|a| matches!(a, "$true" | "true" | "1"));
            recursive && protected_any(&[path], cwd)
        })
    })
}
