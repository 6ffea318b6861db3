//! The rules of the policy by name: the [`Rule`] type, the [`Hit`] a judgement ends with,
//! and every rule the POSIX analysers block with, by category ([`RULES`]). A leaf: the
//! analysers and the Windows reader name their rules from here; it imports no sibling.

/// One rule of the policy.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// Stable identifier (reported as the error's `pattern`).
    pub id: &'static str,
    /// Rule family (`destructive_file_ops`, `disk_ops`, …).
    pub category: &'static str,
    /// Human-readable reason.
    pub description: &'static str,
}

/// A rule that blocked, and the command it saw.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The rule.
    pub rule: &'static Rule,
    /// The normalised command that broke it.
    pub seen: String,
}

const DFO: &str = "destructive_file_ops";
const DISK: &str = "disk_ops";
const SYS: &str = "system_damage";
const REMOTE: &str = "remote_code_execution";
pub(super) const PERSIST: &str = "persistence";
const CRED: &str = "credential_access";
const REVERSE: &str = "reverse_shell";
pub(super) const CRED_WRITE: &str = "credential_store_write";
pub(super) const HISTORY: &str = "history_tampering";
const SECRETS: &str = "secret_printer";

/// A named rule: `rule!(NAME, "id", CATEGORY, "what it refuses")` (also used by the
/// Windows reader's rules).
macro_rules! rule {
    ($name:ident, $id:literal, $cat:expr, $desc:literal) => {
        #[doc = $desc]
        pub static $name: Rule = Rule {
            id: $id,
            category: $cat,
            description: $desc,
        };
    };
}
pub(super) use rule;

rule!(
    RM_ROOT,
    "rm_recursive_root",
    DFO,
    "recursive removal of /, a top-level system directory, ~ or $HOME"
);
rule!(
    FIND_DELETE,
    "find_delete_root",
    DFO,
    "find deleting everything under /, a system directory or ~ (-delete, -exec rm)"
);
rule!(
    RSYNC_DELETE,
    "rsync_delete_root",
    DFO,
    "rsync --delete into /, a system directory or ~"
);
rule!(
    SHRED_ROOT,
    "shred_root",
    DFO,
    "shred of /, a system directory or everything in ~"
);
rule!(
    GIT_CLEAN,
    "git_clean_root",
    DFO,
    "git clean -f at /, a system directory or ~"
);
rule!(
    TAR_REMOVE,
    "tar_remove_files_root",
    DFO,
    "tar --remove-files archiving (and so deleting) /, a top-level system directory or ~"
);
rule!(
    MV_ROOT,
    "mv_root",
    DFO,
    "moving /, ~, $HOME or a top-level system directory"
);
rule!(
    MKFS,
    "mkfs",
    DISK,
    "creating a filesystem (mkfs, mkfs.*, mke2fs, mkntfs, newfs)"
);
rule!(
    MKSWAP,
    "mkswap",
    DISK,
    "mkswap (overwrites a device with a swap signature)"
);
rule!(
    WIPEFS,
    "wipefs",
    DISK,
    "wipefs erasing filesystem signatures"
);
rule!(
    PARTITION,
    "partition_tools",
    DISK,
    "a partition table editor that can write (fdisk, sfdisk, gdisk, sgdisk, parted; -l reads)"
);
rule!(
    DD_DEVICE,
    "dd_to_device",
    DISK,
    "dd writing to a block device"
);
rule!(
    WRITE_DEVICE,
    "write_block_device",
    DISK,
    "writing onto a block device (>, tee, cp, cat >)"
);
rule!(
    SHRED_DEVICE,
    "shred_device",
    DISK,
    "shred on a block device"
);
rule!(
    DISK_ERASE,
    "disk_erase",
    DISK,
    "erasing a disk (blkdiscard, cryptsetup luksFormat/erase, nvme format/sanitize, badblocks -w, hdparm --security-erase)"
);
rule!(
    SHUTDOWN,
    "shutdown",
    SYS,
    "shutdown / Stop-Computer / Restart-Computer"
);
rule!(HALT_REBOOT, "halt_reboot", SYS, "halt, poweroff or reboot");
rule!(
    INIT_RUNLEVEL,
    "init_runlevel",
    SYS,
    "init/telinit 0 or 6 (halt or reboot)"
);
rule!(
    SYSTEMCTL_POWER,
    "systemctl_power",
    SYS,
    "systemctl/loginctl power verbs or targets (poweroff, reboot, halt, kexec, suspend, rescue …)"
);
rule!(
    SYSRQ,
    "sysrq",
    SYS,
    "writing to /proc/sysrq-trigger (instant reboot, crash or power-off)"
);
rule!(
    KILL_INIT,
    "kill_init",
    SYS,
    "signalling init (pid 1) or every process (-1)"
);
rule!(
    CHMOD_ROOT,
    "chmod_root",
    SYS,
    "recursive chmod of / or a top-level system directory"
);
rule!(
    CHOWN_ROOT,
    "chown_root",
    SYS,
    "recursive chown/chgrp of / or a top-level system directory"
);
rule!(
    SYSTEM_FILE,
    "system_file_overwrite",
    SYS,
    "overwriting /etc/passwd, /etc/shadow, /etc/group, /etc/sudoers or /etc/fstab"
);
rule!(
    FORK_BOMB,
    "fork_bomb",
    SYS,
    "fork bomb (a function or program that forks itself without end)"
);
rule!(
    DOWNLOAD_EXEC,
    "download_exec",
    REMOTE,
    "running downloaded code (curl/wget piped or substituted into a shell or interpreter)"
);
rule!(
    DECODED_EXEC,
    "decoded_exec",
    REMOTE,
    "running decoded or obfuscated text as code (base64 -d | sh, rev | sh)"
);
rule!(
    AUTHORIZED_KEYS,
    "authorized_keys_write",
    PERSIST,
    "writing ~/.ssh/authorized_keys"
);
rule!(
    SHELL_RC,
    "shell_rc_write",
    PERSIST,
    "writing a shell startup file (~/.bashrc, ~/.profile, ~/.zshrc, /etc/profile …)"
);
rule!(
    CRONTAB,
    "crontab_write",
    PERSIST,
    "installing or removing crontabs (crontab FILE/-r/-e, /etc/cron*, /var/spool/cron)"
);

rule!(
    SSH_KEY,
    "ssh_key_read",
    CRED,
    "reading SSH private keys (~/.ssh/…, id_rsa, id_ed25519, host keys; *.pub is fine)"
);
rule!(
    AWS,
    "aws_credentials",
    CRED,
    "reading AWS credentials (~/.aws/…)"
);
rule!(
    CLOUD,
    "cloud_credentials",
    CRED,
    "reading credential files (.netrc, .git-credentials, .docker/config.json, .kube/config, gh, gcloud, azure, .gnupg, .pgpass …) or printing stored secrets"
);
rule!(
    SHADOW,
    "shadow_read",
    CRED,
    "reading /etc/shadow, /etc/gshadow or TLS private keys"
);

rule!(
    DEV_TCP_SHELL,
    "dev_tcp_shell",
    REVERSE,
    "a shell, interpreter or exec wired to /dev/tcp or /dev/udp (bash -i >& /dev/tcp/…)"
);
rule!(
    NETCAT_EXEC,
    "netcat_exec",
    REVERSE,
    "nc/ncat/netcat running a program for the connection (-e, -c, --exec, --sh-exec, --lua-exec)"
);
rule!(
    SOCAT_EXEC,
    "socat_exec",
    REVERSE,
    "socat connecting a network address to a program (exec:, system:)"
);
rule!(
    PIPE_SHELL,
    "network_pipe_shell",
    REVERSE,
    "a pipeline feeding a shell from a network client (mkfifo loops, nc … | sh, telnet | bash)"
);
rule!(
    SOCKET_SHELL,
    "socket_shell_oneliner",
    REVERSE,
    "an interpreter one-liner that opens a socket and runs a shell or duplicates its descriptors"
);
rule!(
    CRED_STORE_WRITE,
    "credential_store_write",
    CRED_WRITE,
    "writing a credential or client config store (~/.netrc, ~/.git-credentials, ~/.docker/config.json, ~/.kube/config, ~/.aws/credentials|config, ~/.ssh/config, ~/.ssh/rc, ~/.pgpass, gh hosts.yml …)"
);
rule!(
    HISTORY_CLEAR,
    "history_clear",
    HISTORY,
    "clearing or deleting shell history entries (history -c, history -d, fish history clear)"
);
rule!(
    HISTORY_DISABLE,
    "history_disable",
    HISTORY,
    "turning shell history off (unset HISTFILE, HISTFILE=/dev/null, HISTSIZE=0, set +o history)"
);
rule!(
    HISTORY_FILE,
    "history_file_write",
    HISTORY,
    "writing, truncating, linking or removing a history file (~/.bash_history, ~/.zsh_history, fish_history …)"
);
rule!(
    SECRET_PRINT,
    "secret_print",
    SECRETS,
    "a command that prints stored secrets or tokens (gh auth token, kubectl config view --raw, gcloud auth print-access-token, aws configure get …secret…, gpg --export-secret-keys, printenv of a secret-named variable …)"
);
rule!(
    PROC_ENVIRON,
    "process_environ_read",
    SECRETS,
    "reading another process's environment (/proc/*/environ)"
);

/// Every rule of this module (the tests check that each has a case).
#[cfg(test)]
pub static RULES: &[&Rule] = &[
    &RM_ROOT,
    &FIND_DELETE,
    &RSYNC_DELETE,
    &SHRED_ROOT,
    &GIT_CLEAN,
    &MV_ROOT,
    &TAR_REMOVE,
    &MKFS,
    &MKSWAP,
    &WIPEFS,
    &PARTITION,
    &DD_DEVICE,
    &WRITE_DEVICE,
    &SHRED_DEVICE,
    &DISK_ERASE,
    &SHUTDOWN,
    &HALT_REBOOT,
    &INIT_RUNLEVEL,
    &SYSTEMCTL_POWER,
    &SYSRQ,
    &KILL_INIT,
    &CHMOD_ROOT,
    &CHOWN_ROOT,
    &SYSTEM_FILE,
    &FORK_BOMB,
    &DOWNLOAD_EXEC,
    &DECODED_EXEC,
    &AUTHORIZED_KEYS,
    &SHELL_RC,
    &CRONTAB,
    &SSH_KEY,
    &AWS,
    &CLOUD,
    &SHADOW,
    &DEV_TCP_SHELL,
    &NETCAT_EXEC,
    &SOCAT_EXEC,
    &PIPE_SHELL,
    &SOCKET_SHELL,
    &CRED_STORE_WRITE,
    &HISTORY_CLEAR,
    &HISTORY_DISABLE,
    &HISTORY_FILE,
    &SECRET_PRINT,
    &PROC_ENVIRON,
];
