//! Rules on disks and the running system: filesystem and partition writers, writes onto
//! block devices, disk erasers, power and init, signalling init.

use super::args::Args;
use super::catalog::Rule;
use super::catalog::{
    DD_DEVICE, DISK_ERASE, HALT_REBOOT, INIT_RUNLEVEL, KILL_INIT, MKFS, MKSWAP, PARTITION,
    SHUTDOWN, SYSTEMCTL_POWER, WIPEFS, WRITE_DEVICE,
};
use super::field::Field;
use super::paths::block_device;
use super::state::Eval;

pub fn disk(e: &Eval, name: &str, args: &[Field]) -> Option<&'static Rule> {
    let a = Args::parse(
        args,
        &[
            "-o", "-t", "-b", "-L", "-n", "-N", "-O", "-E", "-C", "-I", "-i", "-m", "-g", "-G",
            "-U", "-p", "-s", "-T",
        ],
    );
    let cwd = e.cwd.as_deref();
    let texts: Vec<&str> = args.iter().map(|f| f.text.as_str()).collect();
    // Formatting or partitioning an image file is fine; a device, or an unknown target, is not.
    let image_only = !a.operands.is_empty()
        && a.operands.iter().all(|f| {
            !f.has_unknown()
                && (f.text.chars().all(|c| c.is_ascii_digit())
                    || super::paths::resolve(&f.text, cwd)
                        .is_none_or(|p| !p.starts_with("/dev/") && p != "/dev"))
        });
    if image_only && name != "dd" {
        return None;
    }
    match name {
        _ if name.starts_with("mkfs")
            || matches!(
                name,
                "mke2fs"
                    | "mkntfs"
                    | "mkdosfs"
                    | "mkexfatfs"
                    | "mkudffs"
                    | "mkreiserfs"
                    | "mkfatfs"
            )
            || name.starts_with("newfs") =>
        {
            Some(&MKFS)
        }
        "mkswap" => Some(&MKSWAP),
        "wipefs" if a.flag('a', &["--all"]) || a.flag('o', &["--offset"]) => Some(&WIPEFS),
        "fdisk" | "sfdisk" | "cfdisk" | "gdisk" | "sgdisk" | "cgdisk" | "parted" | "gparted" => {
            partition_writes(name, &a, &texts).then_some(&PARTITION)
        }
        "dd" => texts
            .iter()
            .filter_map(|t| t.strip_prefix("of="))
            .any(|of| block_device(&Field::literal(of), cwd))
            .then_some(&DD_DEVICE),
        "tee" | "cp" | "install" | "pv" | "ddrescue" => {
            let targets: Vec<&Field> = match name {
                "tee" => a.operands.clone(),
                "ddrescue" => a.operands.get(1..).unwrap_or_default().to_vec(),
                _ => a.operands.last().copied().into_iter().collect(),
            };
            targets
                .iter()
                .any(|f| block_device(f, cwd))
                .then_some(&WRITE_DEVICE)
        }
        "blkdiscard" => Some(&DISK_ERASE),
        "cryptsetup"
            if texts
                .iter()
                .any(|t| matches!(*t, "luksFormat" | "erase" | "luksErase" | "reencrypt")) =>
        {
            Some(&DISK_ERASE)
        }
        "nvme" if texts.iter().any(|t| matches!(*t, "format" | "sanitize")) => Some(&DISK_ERASE),
        "badblocks" if a.flag('w', &[]) => Some(&DISK_ERASE),
        "hdparm"
            if a.long("--security-erase")
                || a.long("--write-sector")
                || a.long("--trim-sector") =>
        {
            Some(&DISK_ERASE)
        }
        _ => None,
    }
}

/// Whether a partition tool is asked to write (its listing forms read).
fn partition_writes(name: &str, a: &Args, texts: &[&str]) -> bool {
    let lists = match name {
        "fdisk" | "gdisk" => a.flag('l', &["--list"]),
        "sfdisk" => {
            a.flag('l', &["--list"])
                || a.flag('d', &["--dump"])
                || a.flag('s', &["--show-size"])
                || a.flag('J', &["--json"])
                || a.flag('V', &["--verify"])
                || a.long("--list-free")
        }
        "sgdisk" => {
            a.flag('p', &["--print"])
                && !texts
                    .iter()
                    .any(|t| t.starts_with("-o") || t.starts_with("-Z") || t.starts_with("--zap"))
        }
        "parted" => {
            a.flag('l', &["--list"]) || {
                let cmds: Vec<&&Field> = a.operands.iter().skip(1).collect();
                !cmds.is_empty()
                    && cmds.iter().all(|c| {
                        matches!(
                            c.text.as_str(),
                            "print" | "p" | "unit" | "s" | "B" | "MB" | "GB" | "MiB" | "GiB" | "%"
                        )
                    })
            }
        }
        _ => false,
    };
    !lists
}

pub fn power(name: &str, args: &[Field]) -> Option<&'static Rule> {
    let texts: Vec<&str> = args.iter().map(|f| f.text.as_str()).collect();
    if texts.iter().any(|t| matches!(*t, "--help" | "--version")) {
        return None;
    }
    match name {
        // `-c` (Linux) and `/a` (Windows) cancel a pending shutdown.
        "shutdown"
            if !texts
                .iter()
                .any(|t| matches!(*t, "-c" | "/a" | "/A" | "/?")) =>
        {
            Some(&SHUTDOWN)
        }
        // `-WhatIf` only says what would happen.
        "stop-computer" | "restart-computer"
            if !texts
                .iter()
                .any(|t| t.eq_ignore_ascii_case("-whatif") || t.eq_ignore_ascii_case("-wi")) =>
        {
            Some(&SHUTDOWN)
        }
        "halt" | "poweroff" | "reboot" => Some(&HALT_REBOOT),
        "init" | "telinit" if texts.iter().any(|t| matches!(*t, "0" | "6")) => Some(&INIT_RUNLEVEL),
        "kexec" if texts.iter().any(|t| *t == "-e" || *t == "--exec") => Some(&HALT_REBOOT),
        "systemctl" | "loginctl" => systemctl_power(args),
        "kill" => kill_init(&texts),
        "killall5" => Some(&KILL_INIT),
        "pkill" | "killall" => {
            let a = Args::parse(
                args,
                &["-s", "--signal", "-u", "-U", "-g", "-G", "-P", "-t"],
            );
            let targets = ["init", "systemd", "launchd", "1"];
            a.operands
                .iter()
                .any(|f| targets.contains(&f.text.as_str()))
                .then_some(&KILL_INIT)
        }
        _ => None,
    }
}

/// `systemctl` / `loginctl` verbs that power off, reboot, suspend or drop to rescue, and
/// `isolate` / `start` / `restart` of such a target.
fn systemctl_power(args: &[Field]) -> Option<&'static Rule> {
    const VERBS: &[&str] = &[
        "poweroff",
        "halt",
        "reboot",
        "kexec",
        "suspend",
        "hibernate",
        "hybrid-sleep",
        "suspend-then-hibernate",
        "soft-reboot",
        "emergency",
        "rescue",
    ];
    const TARGETS: &[&str] = &[
        "poweroff.target",
        "reboot.target",
        "halt.target",
        "kexec.target",
        "rescue.target",
        "emergency.target",
        "shutdown.target",
        "soft-reboot.target",
    ];
    let a = Args::parse(
        args,
        &[
            "-H",
            "-M",
            "-t",
            "-p",
            "-s",
            "-n",
            "-o",
            "--host",
            "--machine",
            "--type",
            "--property",
            "--signal",
        ],
    );
    let verb = a.operands.first().map(|f| f.text.as_str());
    let bad = verb.is_some_and(|v| VERBS.contains(&v))
        || (matches!(verb, Some("isolate" | "start" | "restart"))
            && a.operands
                .iter()
                .skip(1)
                .any(|f| TARGETS.contains(&f.text.as_str())));
    bad.then_some(&SYSTEMCTL_POWER)
}

/// `kill [-SIG | -s SIG | -n N] PID…` with a signal other than 0 to pid 1 or -1.
fn kill_init(args: &[&str]) -> Option<&'static Rule> {
    let mut signal = "TERM".to_string();
    let mut i = 0;
    while let Some(t) = args.get(i) {
        match *t {
            "-s" | "-n" | "--signal" => {
                signal = args.get(i + 1).unwrap_or(&"").to_string();
                i += 2;
                continue;
            }
            "--" => {
                i += 1;
                break;
            }
            "-l" | "-L" | "--list" | "--table" => return None,
            _ if t.starts_with('-') && i == 0 && t.len() > 1 => {
                signal = t[1..].to_string();
            }
            _ => break,
        }
        i += 1;
    }
    let null = matches!(
        signal.to_ascii_uppercase().trim_start_matches("SIG"),
        "0" | "NULL"
    );
    let pids = &args[i.min(args.len())..];
    (!null && pids.iter().any(|p| matches!(*p, "1" | "-1"))).then_some(&KILL_INIT)
}
