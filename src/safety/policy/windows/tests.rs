//! The seeds' Windows forms through the whole policy ([`crate::safety::policy::explain`]):
//! tables of spellings, then generated lines — command spellings × case × switch order and
//! gluing × PowerShell abbreviations × target spellings × wrappers × chaining — refused with
//! their category, and generated benign neighbours allowed.

use super::super::explain;
use super::super::tests::{assert_allowed, assert_blocked_by};
use proptest::prelude::*;

#[rustfmt::skip]
const BLOCKED: &[(&str, &str)] = &[
    // cmd del / erase
    ("del /s /q C:\\", "del_recursive_quiet"), ("del /sq C:\\", "del_recursive_quiet"), ("DEL /S /Q C:\\", "del_recursive_quiet"),
    ("del /q/s C:\\", "del_recursive_quiet"), ("del /s/q C:\\*", "del_recursive_quiet"), ("erase /f /s /q C:\\", "del_recursive_quiet"),
    ("del /f /s /q C:\\*.*", "del_recursive_quiet"), ("del /s C:\\Windows", "del_recursive_quiet"), ("del /s /q %SystemDrive%\\", "del_recursive_quiet"),
    ("del /s /q \"%USERPROFILE%\"", "del_recursive_quiet"), ("del /s /q \"C:\\Program Files\"", "del_recursive_quiet"),
    ("del /s /q %SystemRoot%", "del_recursive_quiet"), ("d^el /s /q C:\\", "del_recursive_quiet"), ("del.exe /s /q D:\\", "del_recursive_quiet"),
    ("del /s /q \\\\?\\C:\\", "del_recursive_quiet"), ("del /s /q C:/", "del_recursive_quiet"), ("del /s /q c:", "del_recursive_quiet"),
    ("cd \\ & del /s /q *", "del_recursive_quiet"), ("cd /d C:\\ && del /s /q *.*", "del_recursive_quiet"),
    ("set T=C:\\\ndel /s /q %T%", "del_recursive_quiet"), ("del /s /q C:\\Users\\alice", "del_recursive_quiet"),
    // cmd rd / rmdir
    ("rd /s /q C:\\", "rmdir_recursive"), ("rmdir /s C:\\Windows", "rmdir_recursive"), ("RD /S /Q C:\\Users", "rmdir_recursive"),
    ("rmdir /q /s \"C:\\Program Files (x86)\"", "rmdir_recursive"), ("rd /sq %ProgramFiles%", "rmdir_recursive"),
    ("if exist C:\\ rd /s /q C:\\", "rmdir_recursive"), ("for /d %i in (*) do rd /s /q C:\\", "rmdir_recursive"),
    ("(rd /s /q C:\\)", "rmdir_recursive"), ("echo x | rd /s /q C:\\Windows\\System32", "rmdir_recursive"),
    // PowerShell Remove-Item and its aliases
    ("Remove-Item -Recurse -Force C:\\", "remove_item_recurse_root"), ("Remove-Item -Path C:\\ -Recurse -Force", "remove_item_recurse_root"),
    ("Remove-Item C:\\Windows -Recurse", "remove_item_recurse_root"), ("ri -r -fo $env:SystemDrive\\", "remove_item_recurse_root"),
    ("Remove-item -rec 'C:\\'", "remove_item_recurse_root"), ("RI -R C:\\Users", "remove_item_recurse_root"),
    ("rm -r -Force C:\\", "remove_item_recurse_root"), ("Remove-Item -Recurse:$true C:\\", "remove_item_recurse_root"),
    ("Remove-Item -LiteralPath 'C:\\Program Files' -Recurse", "remove_item_recurse_root"), ("Remove-Item ~ -Recurse -Force", "remove_item_recurse_root"),
    ("Remove-Item $HOME -Recurse", "remove_item_recurse_root"), ("Remove-Item \"$env:USERPROFILE\" -Recurse", "remove_item_recurse_root"),
    ("Remove-Item ${env:SystemRoot} -Recurse", "remove_item_recurse_root"), ("$p = 'C:\\'; Remove-Item $p -Recurse -Force", "remove_item_recurse_root"),
    ("& 'Remove-Item' C:\\ -Recurse", "remove_item_recurse_root"), ("Microsoft.PowerShell.Management\\Remove-Item C:\\ -Recurse", "remove_item_recurse_root"),
    ("Remove-Item C:\\* -Recurse -Force", "remove_item_recurse_root"), ("Set-Location C:\\; Remove-Item * -Recurse -Force", "remove_item_recurse_root"),
    ("Get-ChildItem C:\\ -Recurse | Remove-Item -Force", "remove_item_recurse_root"), ("gci C:\\Users | % { Remove-Item $_ -Recurse }", "remove_item_recurse_root"),
    ("if (Test-Path C:\\) { Remove-Item C:\\ -Recurse -Force }", "remove_item_recurse_root"), ("Remove-Item –Recurse C:\\", "remove_item_recurse_root"),
    ("Remove-Item -Recurse -Force /", "remove_item_recurse_root"), ("Remove-Item -Recurse FileSystem::C:\\", "remove_item_recurse_root"),
    ("[System.IO.Directory]::Delete('C:\\', $true)", "remove_item_recurse_root"), ("rd /S /Q C:\\PROGRA~1", "rmdir_recursive"),
    ("Re`move-Item C:\\ -Recurse", "remove_item_recurse_root"), ("Remove-Item C:\\,D:\\ -Recurse", "remove_item_recurse_root"),
    // wrappers
    ("cmd /c del /s /q C:\\", "del_recursive_quiet"), ("cmd.exe /c \"rd /s /q C:\\\"", "rmdir_recursive"), ("cmd /k rd /s /q C:\\", "rmdir_recursive"),
    ("cmd /s /c \"del /s /q C:\\ & echo x\"", "del_recursive_quiet"), ("cmd /c\"rd /s /q C:\\\"", "rmdir_recursive"),
    ("powershell -c \"Remove-Item C:\\ -Recurse -Force\"", "remove_item_recurse_root"), ("pwsh -Command Remove-Item C:\\ -Recurse", "remove_item_recurse_root"),
    ("powershell.exe -NoProfile -ExecutionPolicy Bypass -Command \"ri -r C:\\\"", "remove_item_recurse_root"),
    ("powershell Remove-Item C:\\ -Recurse", "remove_item_recurse_root"), ("pwsh -com 'rd /s /q C:\\'", "rmdir_recursive"),
    ("powershell -EncodedCommand UgBlAG0AbwB2AGUALQBJAHQAZQBtACAAQwA6AFwAIAAtAFIAZQBjAHUAcgBzAGUA", "remove_item_recurse_root"),
    ("Start-Process cmd -ArgumentList '/c rd /s /q C:\\'", "rmdir_recursive"), ("Start-Process -FilePath cmd.exe -ArgumentList '/c','del /s /q C:\\'", "del_recursive_quiet"),
    ("start \"\" cmd /c rd /s /q C:\\", "rmdir_recursive"), ("call rd /s /q C:\\", "rmdir_recursive"), ("iex 'Remove-Item C:\\ -Recurse'", "remove_item_recurse_root"),
    ("Invoke-Expression \"rd /s /q C:\\\"", "rmdir_recursive"), ("sudo rd /s /q C:\\", "rmdir_recursive"),
    ("bash -c 'cmd /c rd /s /q C:\\\\'", "rmdir_recursive"), ("ssh winhost 'rd /s /q C:\\'", "rmdir_recursive"),
    ("sudo pwsh -c 'Remove-Item -Recurse -Force /'", "remove_item_recurse_root"), ("echo ok; del /s /q C:\\", "del_recursive_quiet"),
    ("dir && rd /s /q C:\\", "rmdir_recursive"), ("schtasks /create /tn x /tr \"cmd /c rd /s /q C:\\\" /sc once", "rmdir_recursive"),
    ("wmic process call create \"cmd /c rd /s /q C:\\\"", "rmdir_recursive"), ("rm -rf C:/", "rm_recursive_root"), ("rm -rf 'C:\\Windows'", "rm_recursive_root"),
    // disks
    ("format c:", "format_drive"), ("format D: /fs:ntfs", "format_drive"), ("format /q c:", "format_drive"), ("FORMAT C: /Q /Y", "format_drive"),
    ("format.com E:\\ /q", "format_drive"), ("diskpart", "diskpart"), ("diskpart.exe /s script.txt", "diskpart"), ("DiskPart /s x", "diskpart"),
    ("Clear-Disk -Number 1 -RemoveData", "powershell_disk_wipe"), ("Format-Volume -DriveLetter D", "powershell_disk_wipe"),
    ("Get-Disk 1 | Initialize-Disk", "powershell_disk_wipe"), ("Remove-Partition -DriveLetter E -Confirm:$false", "powershell_disk_wipe"),
    ("cipher /w:C:\\", "cipher_wipe"), ("CIPHER /W:D:", "cipher_wipe"),
    // registry and boot
    ("reg delete HKLM\\Software\\Foo /f", "reg_delete_hklm"), ("reg delete \"HKEY_LOCAL_MACHINE\\SYSTEM\\X\"", "reg_delete_hklm"),
    ("REG DELETE hklm\\system /va /f", "reg_delete_hklm"), ("reg.exe delete \\\\pc\\HKLM\\Software\\X", "reg_delete_hklm"),
    ("Remove-Item -Path HKLM:\\Software\\Foo -Recurse", "reg_delete_hklm"), ("Remove-ItemProperty HKLM:\\SYSTEM\\X -Name y", "reg_delete_hklm"),
    ("Remove-Item Registry::HKEY_LOCAL_MACHINE\\SOFTWARE\\X", "reg_delete_hklm"),
    ("reg add HKLM\\SYSTEM\\CurrentControlSet\\Services\\X /v Start /d 4 /f", "reg_write_hklm"), ("reg import evil.reg", "reg_write_hklm"),
    ("reg restore HKLM\\SOFTWARE sw.hiv", "reg_write_hklm"), ("reg load HKLM\\X hive", "reg_write_hklm"), ("reg unload HKLM\\X", "reg_write_hklm"),
    ("reg copy HKCU\\X HKLM\\SOFTWARE\\X /s", "reg_write_hklm"), ("regedit /s HKLM\\SYSTEM", "reg_write_hklm"), ("regedit /s x.reg", "reg_write_hklm"),
    ("regedit.exe -s x.reg", "reg_write_hklm"), ("Set-ItemProperty HKLM:\\SYSTEM\\X -Name Start -Value 4", "reg_write_hklm"),
    ("New-Item -Path 'HKLM:\\SOFTWARE\\Policies\\X' -Force", "reg_write_hklm"),
    ("reg query HKLM\\SAM\\SAM\\Domains", "sam_hive"), ("reg save hklm\\sam sam.hive", "sam_hive"), ("reg save HKLM\\SYSTEM sys.hive", "sam_hive"),
    ("reg.exe save HKEY_LOCAL_MACHINE\\SECURITY s", "sam_hive"), ("regedit /e out.reg HKLM\\SAM", "sam_hive"),
    ("bcdedit /set {default} recoveryenabled no", "bcdedit"), ("BCDEDIT /deletevalue {current} safeboot", "bcdedit"), ("bcdedit /delete {x}", "bcdedit"),
    ("bcdedit /import bcd.bak", "bcdedit"), ("bcdedit -set x", "bcdedit"),
    ("vssadmin delete shadows /all /quiet", "vss_delete_shadows"), ("VSSADMIN Delete Shadows /For=C:", "vss_delete_shadows"),
    ("vssadmin resize shadowstorage /for=c: /on=c: /maxsize=401MB", "vss_delete_shadows"), ("wmic shadowcopy delete", "vss_delete_shadows"),
    ("wmic shadowcopy where \"ID='x'\" delete", "vss_delete_shadows"), ("Get-WmiObject Win32_ShadowCopy | Remove-WmiObject", "vss_delete_shadows"),
    ("gwmi win32_shadowcopy | % { $_.Delete() }", "vss_delete_shadows"), ("Get-CimInstance Win32_ShadowCopy | Remove-CimInstance", "vss_delete_shadows"),
    ("wbadmin delete catalog -quiet", "wbadmin_delete"), ("wbadmin DELETE systemstatebackup", "wbadmin_delete"),
    // ownership, access, power
    ("takeown /f C:\\Windows /r /d y", "takeown_system"), ("takeown /R /F C:\\", "takeown_system"),
    ("icacls C:\\Windows /grant Everyone:F /t", "icacls_system"), ("icacls \"C:\\Program Files\" /grant:r Users:F /T /C", "icacls_system"),
    ("icacls C:\\ /reset /t", "icacls_system"), ("shutdown /s /t 0", "shutdown"), ("shutdown /r", "shutdown"), ("SHUTDOWN -s -f -t 0", "shutdown"),
    ("s^hutdown /p", "shutdown"), ("Stop-Computer -Force", "shutdown"), ("Restart-Computer", "shutdown"),
];

#[rustfmt::skip]
const BENIGN: &[&str] = &[
    "reg query HKLM\\SYSTEM\\CurrentControlSet\\Control", "reg query HKCU\\Software", "reg delete HKCU\\Software\\Foo /f", "reg export HKCU\\Software\\X x.reg",
    "dir C:\\Users", "dir /s C:\\", "Get-ChildItem -Recurse", "Get-ChildItem C:\\ -Recurse", "ls C:\\Windows", "del build\\out.txt", "del /q *.tmp",
    "rd /s /q node_modules", "rmdir /s /q .\\build", "rd /s /q dist", "del /s /q build\\*", "Remove-Item .\\dist -Recurse -Force",
    "Remove-Item -Recurse -Force C:\\temp\\build", "Remove-Item .\\out -Recurse", "rm -r -fo node_modules", "ri -r build", "Remove-Item C:\\x.txt",
    "Remove-Item C:\\ -Recurse -WhatIf", "Remove-Item C:\\Windows\\Temp\\* -Recurse -Force", "Remove-Item C:\\ -Recurse -Include *.tmp",
    "del /s /q C:\\Windows\\Temp\\*", "rd /s /q %TEMP%\\x", "rd /s /q C:\\Users\\alice\\proj\\target", "Remove-Item $env:TEMP\\x -Recurse",
    "Remove-Item -Recurse:$false C:\\", "rd C:\\empty", "rd /q C:\\", "echo del /s /q C:\\", "echo \"rd /s /q C:\\\"", "git commit -m \"format c:\"",
    "Write-Host 'Remove-Item C:\\ -Recurse'", "Get-Help Remove-Item", "Get-Help Format-Volume", "bcdedit /enum", "bcdedit", "bcdedit /v", "bcdedit /enum all",
    "bcdedit /export C:\\bcd.bak", "vssadmin list shadows", "wmic shadowcopy list brief", "Get-WmiObject Win32_ShadowCopy", "wbadmin get versions",
    "format", "format /?", "npm run format", "cargo fmt", "shutdown /a", "shutdown /?", "Get-Volume", "Get-Disk", "Get-Partition", "diskmgmt.msc",
    "cipher /e secret.txt", "takeown /f C:\\Users\\me\\file.txt", "icacls C:\\Windows", "icacls C:\\proj /grant me:F /t", "cmd /c dir",
    "powershell -c Get-ChildItem", "pwsh -Command \"Get-Process\"", "Start-Process notepad", "cd C:\\ ; dir", "cd \\ & dir", "set X=C:\\\necho %X%",
    "Get-ChildItem C:\\Windows\\Temp | Remove-Item -Recurse -Force", "Set-ItemProperty HKCU:\\Software\\X -Name a -Value 1", "New-Item -ItemType Directory build",
    "Copy-Item a.txt b.txt", "regedit", "regedit /e backup.reg HKEY_CURRENT_USER\\Software", "Restart-Computer -WhatIf", "Stop-Service spooler",
    "cd C:\\proj && rd /s /q node_modules", "Set-Location C:\\Users\\me\\proj; Remove-Item .\\dist -Recurse -Force", "git log --format=%H",
    "rd /s /q C:\\$Recycle.Bin", "gci C:\\ | where Name -match 'rd'", "[IO.Directory]::Delete('.\\build', $true)", "Get-ChildItem -Path C:\\ -Filter *.log -Recurse", "rm -rf ./build", "Remove-Item $x -Recurse -Force",
];

#[test]
fn the_seeds_windows_forms_are_blocked_by_the_rule_that_names_them() {
    assert_blocked_by(BLOCKED);
}

#[test]
fn their_benign_neighbours_are_allowed() {
    assert_allowed(BENIGN);
}

#[test]
fn every_windows_rule_has_an_example() {
    for r in super::RULES {
        assert!(
            BLOCKED.iter().any(|(_, id)| *id == r.id),
            "no example for {}",
            r.id
        );
    }
}

/// A spelling of `word` in one of the cases cmd and PowerShell read the same.
fn case(word: &str, how: usize) -> String {
    match how % 4 {
        0 => word.to_string(),
        1 => word.to_uppercase(),
        2 => word.to_lowercase(),
        _ => word
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 2 == 0 {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect(),
    }
}

/// Drive-root and system-folder spellings, quoted or not.
fn system_target() -> impl Strategy<Value = String> {
    let t = prop::sample::select(vec![
        "C:\\",
        "C:",
        "C:/",
        "D:\\",
        "c:\\*",
        "C:\\*.*",
        "\\\\?\\C:\\",
        "C:\\Windows",
        "C:\\Windows\\System32",
        "C:\\Program Files",
        "C:\\Program Files (x86)",
        "C:\\Users",
        "C:\\Users\\*",
        "C:\\ProgramData",
        "%SystemDrive%\\",
        "%SystemRoot%",
        "%windir%",
        "%ProgramFiles%",
        "%USERPROFILE%",
        "C:\\Temp\\..",
        "C:\\Windows\\",
        "\\",
    ]);
    (t, 0..4usize, 0..3usize).prop_map(|(t, c, q)| {
        let t = case(t, c);
        match q {
            0 if !t.contains(' ') => t,
            0 => format!("\"{t}\""),
            // A trailing backslash before a closing double quote is an escaped quote for
            // programs, not for cmd: both are read.
            1 => format!("\"{t}\""),
            _ => format!("\"{t}\"").replace("\\\"", "\\ \""),
        }
    })
}

/// The same targets as PowerShell writes them.
fn ps_target() -> impl Strategy<Value = String> {
    let t = prop::sample::select(vec![
        "C:\\",
        "C:",
        "C:/",
        "E:\\",
        "C:\\*",
        "C:\\Windows",
        "C:\\Users",
        "C:\\Program Files",
        "$env:SystemDrive\\",
        "${env:SystemRoot}",
        "$env:windir",
        "$env:USERPROFILE",
        "$HOME",
        "~",
        "~\\",
        "/",
        "FileSystem::C:\\",
        "\\\\?\\C:\\",
    ]);
    (t, 0..4usize, 0..3usize).prop_map(|(t, c, q)| {
        let t = if t.contains('$') {
            t.to_string()
        } else {
            case(t, c)
        };
        match q {
            0 if !t.contains(' ') => t,
            1 if !t.contains('$') => format!("'{t}'"),
            _ => format!("\"{t}\""),
        }
    })
}

/// A cmd remover and its recursive switches in any order, glued, clustered and case.
fn cmd_remover() -> impl Strategy<Value = (String, String)> {
    prop::sample::select(vec!["del", "erase", "rd", "rmdir", "del.exe", "RMDIR.EXE"])
        .prop_flat_map(|name| {
            let sets: Vec<Vec<&'static str>> = if name.to_lowercase().starts_with('r') {
                vec![vec!["s", "q"], vec!["s"]]
            } else {
                vec![
                    vec!["s", "q"],
                    vec!["s"],
                    vec!["s", "q", "f"],
                    vec!["f", "s", "q", "p"],
                ]
            };
            let sw = prop::sample::select(sets).prop_flat_map(|ls| Just(ls).prop_shuffle());
            (Just(name), sw, 0..3usize, any::<bool>())
        })
        .prop_map(|(name, ls, glue, upper)| {
            let ls: Vec<String> = ls
                .iter()
                .map(|l| {
                    if upper {
                        l.to_uppercase()
                    } else {
                        (*l).to_string()
                    }
                })
                .collect();
            let sw = match glue {
                0 => ls
                    .iter()
                    .map(|l| format!("/{l}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                1 => ls.iter().map(|l| format!("/{l}")).collect::<String>(),
                _ => format!("/{}", ls.concat()),
            };
            (name.to_string(), sw)
        })
}

/// A line that runs `cmd` (a cmd or PowerShell command) in one of the ways a line can.
fn wrapped(cmd: String, how: usize, ps: bool) -> String {
    let sq = cmd.replace('\'', "''");
    match how {
        0 => cmd,
        1 if !ps => format!("cmd /c {cmd}"),
        1 => format!("powershell -c \"{}\"", cmd.replace('"', "`\"")),
        2 if !ps => format!("cmd.exe /C \"{cmd}\""),
        2 => format!("pwsh -NoProfile -Command '{sq}'"),
        3 => format!("echo start & {cmd}"),
        4 => format!("dir && {cmd}"),
        5 if !ps => format!("start \"\" {cmd}"),
        5 => format!("& {{ {cmd} }}"),
        6 if ps => format!("Start-Process pwsh -ArgumentList '-c', '{sq}'"),
        6 => format!("Start-Process cmd -ArgumentList '/c {sq}'"),
        7 if ps => format!("Get-Date; {cmd}"),
        7 => format!("call {cmd}"),
        8 => format!("{cmd} | more"),
        // Handed to another machine's shell from bash.
        _ => format!("ssh winhost '{}'", cmd.replace('\'', r"'\''")),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn cmd_removers_of_system_targets_are_refused(
        (name, sw) in cmd_remover(),
        c in 0..4usize,
        target in system_target(),
        how in 0..10usize,
        target_first in any::<bool>(),
    ) {
        let name = case(&name, c);
        let cmd = if target_first { format!("{name} {target} {sw}") } else { format!("{name} {sw} {target}") };
        let line = wrapped(cmd, how, false);
        let v = explain(&line);
        prop_assert_eq!(v.blocked.map(|m| m.category), Some("destructive_file_ops"), "allowed: {}", line);
    }

    #[test]
    fn remove_item_of_system_targets_is_refused(
        name in prop::sample::select(vec!["Remove-Item", "ri", "rm", "del", "erase", "rd", "rmdir", "Microsoft.PowerShell.Management\\Remove-Item"]),
        c in 0..4usize,
        recurse in prop::sample::select(vec!["-Recurse", "-r", "-rec", "-Re", "-Recurse:$true", "–Recurse", "-RECURSE"]),
        force in prop::sample::select(vec!["", "-Force", "-fo", "-Confirm:$false", "-ErrorAction SilentlyContinue", "-Verbose"]),
        path in prop::sample::select(vec!["", "-Path ", "-LiteralPath ", "-lp ", "-Path:"]),
        target in ps_target(),
        order in 0..3usize,
        how in 0..10usize,
    ) {
        let name = case(name, c);
        let t = if path == "-Path:" { format!("-Path:{target}") } else { format!("{path}{target}") };
        let cmd = match order {
            0 => format!("{name} {recurse} {force} {t}"),
            1 => format!("{name} {t} {recurse} {force}"),
            _ => format!("{name} {force} {t} {recurse}"),
        };
        let line = wrapped(cmd, how, true);
        let v = explain(&line);
        prop_assert_eq!(v.blocked.map(|m| m.category), Some("destructive_file_ops"), "allowed: {}", line);
    }

    #[test]
    fn disk_registry_and_boot_tools_are_refused_with_their_category(
        (cmd, cat) in prop::sample::select(vec![
            ("format C:", "disk_ops"), ("format /q /y D:", "disk_ops"), ("format e:\\ /fs:ntfs", "disk_ops"), ("diskpart", "disk_ops"),
            ("diskpart /s wipe.txt", "disk_ops"), ("Format-Volume -DriveLetter C", "disk_ops"), ("Clear-Disk 0 -RemoveData", "disk_ops"),
            ("cipher /w:c:\\", "disk_ops"), ("reg delete HKLM\\SOFTWARE\\X /f", "registry_boot_attacks"),
            ("reg add HKLM\\SYSTEM\\X /v a /d b", "registry_boot_attacks"), ("reg import x.reg", "registry_boot_attacks"),
            ("reg restore HKEY_LOCAL_MACHINE\\SYSTEM s.hiv", "registry_boot_attacks"), ("regedit /s HKLM\\SYSTEM", "registry_boot_attacks"),
            ("bcdedit /set {current} safeboot minimal", "registry_boot_attacks"), ("bcdedit /deletevalue x", "registry_boot_attacks"),
            ("vssadmin delete shadows /all /quiet", "registry_boot_attacks"), ("wmic shadowcopy delete /nointeractive", "registry_boot_attacks"),
            ("wbadmin delete catalog", "registry_boot_attacks"), ("reg save HKLM\\SAM sam", "credential_access"),
            ("shutdown /r /t 0", "system_damage"), ("takeown /f C:\\Windows /r", "system_damage"),
        ]),
        c in 0..4usize,
        how in 0..10usize,
    ) {
        let cmd = cmd.split(' ').map(|w| if w.contains('{') { w.to_string() } else { case(w, c) }).collect::<Vec<_>>().join(" ");
        let line = wrapped(cmd, how, false);
        let v = explain(&line);
        prop_assert_eq!(v.blocked.map(|m| m.category), Some(cat), "allowed: {}", line);
    }

    #[test]
    fn benign_windows_lines_are_allowed(
        cmd in prop::sample::select(vec![
            "rd /s /q node_modules", "rmdir /s /q .\\build", "del /s /q dist\\*.map", "del build\\out.txt", "erase /q *.obj",
            "Remove-Item .\\dist -Recurse -Force", "ri -r -fo node_modules", "rm -r target", "Remove-Item C:\\proj\\out -Recurse",
            "reg query HKLM\\SOFTWARE\\Microsoft", "reg query HKCU\\Environment", "dir C:\\Users", "dir /s /b C:\\Windows\\*.log",
            "Get-ChildItem -Recurse", "Get-ChildItem C:\\Windows -Filter *.dll", "bcdedit /enum", "vssadmin list shadows",
            "Get-Help Remove-Item", "echo del /s /q C:\\", "git commit -m \"format c:\"", "shutdown /a", "format /?",
            "Remove-Item C:\\ -Recurse -WhatIf", "Write-Output 'rd /s /q C:\\'", "icacls .\\build /grant me:F /t",
        ]),
        c in 0..4usize,
        how in 0..10usize,
    ) {
        let cmd = if cmd.contains(['"', '\'']) { cmd.to_string() } else { case(cmd, c) };
        let ps = cmd.contains('-') && !cmd.starts_with("rd") && !cmd.starts_with("git");
        let line = wrapped(cmd, how, ps);
        prop_assert_eq!(explain(&line).blocked, None, "refused: {}", line);
    }
}

/// Lines nested thousands deep (`$($($(…`, `((((…`) are judged without exhausting the stack:
/// the policy, the incompleteness check and a session absorbing the line.
#[test]
fn deep_lines_do_not_overflow_the_stack() {
    for line in [
        "$(".repeat(3000) + "x",
        "\"$(".repeat(2000) + "x",
        "(".repeat(5000) + "rd /s /q C:\\",
        "{".repeat(3000) + " Remove-Item C:\\ -Recurse",
        "cmd /c ".repeat(40) + "rd /s /q C:\\",
    ] {
        let v = explain(&line);
        let _ = super::super::complete::unclosed(&line);
        let mut ctx = super::super::context::ShellContext::default();
        ctx.absorb(&line);
        if line.contains("C:\\") {
            assert!(v.blocked.is_some(), "{}", &line[line.len() - 40..]);
        }
    }
}
