//! Credential stores and persistence points: which paths hold private keys and tokens (read
//! by any command or redirection, globs included; public keys are fine), and which files
//! make a change outlive the session (`authorized_keys`, shell startup files, crontabs).

use super::args::Args;
use super::catalog::Rule;
use super::catalog::{
    AUTHORIZED_KEYS, AWS, CLOUD, CRED_STORE_WRITE, CRONTAB, PROC_ENVIRON, SECRET_PRINT, SHADOW,
    SHELL_RC, SSH_KEY,
};
use super::field::Field;
use super::paths::{components, glob_match, is_glob};
use super::state::Eval;

/// Files in `~/.ssh` that hold nothing secret.
const SSH_PUBLIC: &[&str] = &[
    "*.pub",
    "known_hosts",
    "known_hosts.old",
    "authorized_keys",
    "authorized_keys2",
    "config",
];
/// Names a private-key glob is tried against.
const SSH_PRIVATE: &[&str] = &[
    "id_rsa",
    "id_ed25519",
    "id_ecdsa",
    "id_dsa",
    "id_ed25519_sk",
    "identity",
];

/// Credential stores: components that must appear in order, whether anything below counts,
/// and the rule.
const STORES: &[(&[&str], bool, &Rule)] = &[
    // `~/.aws/config` holds profiles and regions; the keys live in `credentials` and the
    // SSO and CLI caches.
    (&[".aws"], false, &AWS),
    (&[".aws", "credentials"], false, &AWS),
    (&[".aws", "sso"], true, &AWS),
    (&[".aws", "cli"], true, &AWS),
    (&[".gnupg"], true, &CLOUD),
    (&[".config", "gh"], true, &CLOUD),
    (&[".config", "gcloud"], true, &CLOUD),
    (&[".config", "hub"], false, &CLOUD),
    (&[".azure"], true, &CLOUD),
    (&[".docker", "config.json"], false, &CLOUD),
    (&[".kube", "config"], false, &CLOUD),
    (&[".netrc"], false, &CLOUD),
    (&["_netrc"], false, &CLOUD),
    (&[".git-credentials"], false, &CLOUD),
    (&[".pgpass"], false, &CLOUD),
    (&[".pypirc"], false, &CLOUD),
    (&[".vault-token"], false, &CLOUD),
    (&[".password-store"], true, &CLOUD),
    (&[".cargo", "credentials"], false, &CLOUD),
    (&[".cargo", "credentials.toml"], false, &CLOUD),
];

/// Absolute credential files and directories.
const SYSTEM_STORES: &[(&[&str], bool)] = &[
    (&["etc", "shadow"], false),
    (&["etc", "shadow-"], false),
    (&["etc", "gshadow"], false),
    (&["etc", "gshadow-"], false),
    (&["etc", "ssl", "private"], true),
];

/// Commands that take a path without revealing its content.
const NON_READERS: &[&str] = &[
    "ls",
    "ll",
    "la",
    "dir",
    "exa",
    "eza",
    "lsd",
    "tree",
    "stat",
    "test",
    "[",
    "[[",
    "chmod",
    "chown",
    "chgrp",
    "touch",
    "ssh",
    "ssh-add",
    "ssh-keygen",
    "ssh-copy-id",
    "echo",
    "printf",
    "rm",
    "rmdir",
    "mkdir",
    "cd",
    "pushd",
    "realpath",
    "readlink",
    "basename",
    "dirname",
    "which",
    "type",
    "export",
    "unset",
    "set",
    "shift",
    "declare",
    "typeset",
    "local",
    "readonly",
    "file",
    "du",
    "df",
    "mv",
    "ln",
    "wc",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "shred",
    "chattr",
    "lsattr",
    "getfacl",
    "setfacl",
    "find",
    "locate",
    "git-crypt",
    "kpty",
    "sleep",
    "true",
    "false",
    "alias",
    "command",
];

/// Commands whose first operand is a pattern or a script, not a file.
const PATTERN_FIRST: &[&str] = &[
    "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "mawk", "nawk", "zgrep",
];

/// Whether path component `p` (maybe a glob) names `store`: a glob needs a letter of its own
/// (`.a*` names `.aws`; `*` alone names anything and is judged by what it is under).
fn names(p: &str, store: &str) -> bool {
    glob_match(p, store) && (!is_glob(p) || p.chars().any(|c| c.is_ascii_alphanumeric()))
}

/// Whether `parts` start with the components of `store`: the first named by a glob with a
/// letter of its own, the ones below it by any glob (`~/.aws/*` names `~/.aws/credentials`).
fn tail_names(store: &[&str], parts: &[&str]) -> bool {
    store.iter().zip(parts).enumerate().all(|(k, (s, p))| {
        if k == 0 {
            names(p, s)
        } else {
            glob_match(p, s)
        }
    })
}

/// Stores of credentials and of client configuration that can run code or redirect
/// credentials (`~/.ssh/config`'s `ProxyCommand`, `~/.ssh/rc`): writing them is refused.
const WRITE_STORES: &[&[&str]] = &[
    &[".netrc"],
    &["_netrc"],
    &[".git-credentials"],
    &[".config", "git", "credentials"],
    &[".docker", "config.json"],
    &[".kube", "config"],
    &[".aws", "credentials"],
    &[".aws", "config"],
    &[".ssh", "config"],
    &[".ssh", "rc"],
    &[".pgpass"],
    &[".pypirc"],
    &[".npmrc"],
    &[".vault-token"],
    &[".cargo", "credentials"],
    &[".cargo", "credentials.toml"],
    &[".config", "gh", "hosts.yml"],
    &[".config", "hub"],
    &[".config", "gcloud", "credentials.db"],
    &[".azure", "msal_token_cache.json"],
];

/// The credential-store rule a write to this path breaks, if any.
#[must_use]
pub fn store_written(f: &Field, cwd: Option<&str>) -> Option<&'static Rule> {
    let (_, parts) = components(f, cwd);
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    WRITE_STORES
        .iter()
        .any(|store| {
            parts.len() >= store.len() && tail_names(store, &parts[parts.len() - store.len()..])
        })
        .then_some(&CRED_STORE_WRITE)
}

/// Whether a path is a process's environment (`/proc/PID/environ`, `/proc/self/environ`).
fn proc_environ(base_home: Option<bool>, parts: &[&str]) -> bool {
    base_home == Some(false) && parts.len() == 3 && parts[0] == "proc" && names(parts[2], "environ")
}

/// The credential rule a read of this path breaks, if any.
#[must_use]
pub fn credential(f: &Field, cwd: Option<&str>) -> Option<&'static Rule> {
    let (base_home, parts) = components(f, cwd);
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    if proc_environ(base_home, &parts) {
        return Some(&PROC_ENVIRON);
    }
    if base_home == Some(false) {
        for (store, below) in SYSTEM_STORES {
            if store.len() <= parts.len()
                && (*below || store.len() == parts.len())
                && store.iter().zip(&parts).all(|(s, p)| names(p, s))
            {
                return Some(&SHADOW);
            }
        }
    }
    ssh(&parts).or_else(|| {
        STORES.iter().find_map(|(store, below, rule)| {
            (0..parts.len()).find_map(|i| {
                let rest = &parts[i..];
                let fits = store.len() <= rest.len()
                    && (*below || store.len() == rest.len())
                    && tail_names(store, rest);
                fits.then_some(*rule)
            })
        })
    })
}

fn ssh(parts: &[&str]) -> Option<&'static Rule> {
    let last = *parts.last()?;
    if let Some(i) = parts.iter().position(|p| names(p, ".ssh")) {
        return match &parts[i + 1..] {
            [] => Some(&SSH_KEY),
            [name] if is_glob(name) => SSH_PRIVATE
                .iter()
                .any(|k| glob_match(name, k))
                .then_some(&SSH_KEY),
            [name] => (!SSH_PUBLIC.iter().any(|p| glob_match(p, name))).then_some(&SSH_KEY),
            _ => Some(&SSH_KEY),
        };
    }
    // A bare key name: a glob only with a literal start (`id_*`, not `*`).
    let literal_start = !last.starts_with(['*', '?', '[']);
    let key = if is_glob(last) {
        literal_start && SSH_PRIVATE.iter().any(|k| glob_match(last, k))
    } else {
        let k = last
            .strip_prefix("id_")
            .map(|k| k.strip_suffix("_sk").unwrap_or(k));
        matches!(k, Some("rsa" | "dsa" | "ecdsa" | "ed25519"))
            || (last.starts_with("ssh_host_") && last.ends_with("_key"))
            || last.ends_with(".ppk")
    };
    key.then_some(&SSH_KEY)
}

/// A command that reads a credential path given as an operand or an option value.
pub fn reads(e: &Eval, name: &str, args: &[Field]) -> Option<&'static Rule> {
    if name == "unshadow" {
        return Some(&SHADOW);
    }
    if dumps_secrets(name, args) {
        return Some(&SECRET_PRINT);
    }
    if NON_READERS.contains(&name) {
        return None;
    }
    let a = Args::parse(args, &[]);
    let explicit = a
        .options
        .iter()
        .any(|o| matches!(*o, "-e" | "-f" | "--regexp" | "--file"))
        || a.options.iter().any(|o| {
            o.starts_with("--regexp=") || o.starts_with("--file=") || o.starts_with("--expression")
        });
    let skip = usize::from(PATTERN_FIRST.contains(&name) && !explicit);
    let cwd = e.cwd.as_deref();
    let operands = a.operands.iter().skip(skip).map(|f| (*f).clone());
    // `--key-file=PATH`, `if=PATH`, `-F f=@PATH`: the value after `=` or `@`.
    let values = args.iter().filter_map(|f| {
        let i = f.text.rfind(['=', '@'])?;
        (i + 1 < f.text.len()).then(|| Field::literal(&f.text[i + 1..]))
    });
    operands.chain(values).find_map(|f| credential(&f, cwd))
}

/// Commands that print stored secrets (`gpg --export-secret-keys`, `gh auth token`, …).
fn dumps_secrets(name: &str, args: &[Field]) -> bool {
    let t: Vec<&str> = args.iter().map(|f| f.text.as_str()).collect();
    let has = |w: &str| t.contains(&w);
    match name {
        "gpg" | "gpg2" => t.iter().any(|a| a.starts_with("--export-secret")),
        "gh" => has("auth") && (has("token") || has("--show-token") || has("-t")),
        "kubectl" | "oc" => {
            has("config") && has("view") && t.iter().any(|a| *a == "--raw" || *a == "--raw=true")
        }
        "git" => has("credential") && (has("fill") || has("get")),
        "printenv" => t.iter().any(|a| secret_name(a)),
        _ if name.starts_with("docker-credential-") => has("get"),
        "gcloud" => {
            has("auth")
                && t.iter()
                    .any(|a| a.starts_with("print-") && a.ends_with("-token"))
        }
        "az" => has("get-access-token"),
        "aws" => {
            has("export-credentials")
                || (has("configure")
                    && has("get")
                    && t.iter()
                        .any(|a| a.contains("secret") || a.contains("token")))
        }
        "security" => {
            t.iter().any(|a| {
                matches!(
                    *a,
                    "dump-keychain" | "find-generic-password" | "find-internet-password"
                )
            }) && (has("-w") || has("-g") || has("dump-keychain"))
        }
        "secret-tool" => has("lookup"),
        _ => false,
    }
}

/// Whether an environment variable's name says it holds a secret.
fn secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    [
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "API_KEY",
        "APIKEY",
        "PRIVATE_KEY",
        "ACCESS_KEY",
        "CREDENTIAL",
    ]
    .iter()
    .any(|w| upper.contains(w))
}

/// The persistence rule a write to this path breaks, if any.
#[must_use]
pub fn persistence(f: &Field, cwd: Option<&str>) -> Option<&'static Rule> {
    let (base_home, parts) = components(f, cwd);
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let last = *parts.last()?;
    let under = |dirs: &[&str]| {
        parts.len() > dirs.len() && dirs.iter().zip(&parts).all(|(d, p)| glob_match(p, d))
    };
    let absolute = base_home == Some(false);
    if names(last, "authorized_keys") || names(last, "authorized_keys2") {
        return Some(&AUTHORIZED_KEYS);
    }
    const RC: &[&str] = &[
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zprofile",
        ".zshenv",
        ".zlogin",
        ".zlogout",
        ".kshrc",
        ".mkshrc",
        ".cshrc",
        ".tcshrc",
        ".login",
        ".xprofile",
        ".xsessionrc",
        ".bash_aliases",
        ".zsh_aliases",
    ];
    let fish = parts.len() >= 3 && parts[parts.len() - 3..] == [".config", "fish", "config.fish"];
    let etc_rc = absolute
        && (parts == ["etc", "profile"]
            || parts == ["etc", "bash.bashrc"]
            || parts == ["etc", "bashrc"]
            || parts == ["etc", "zshrc"]
            || parts == ["etc", "environment"]
            || under(&["etc", "profile.d"])
            || under(&["etc", "zsh"]));
    if RC.iter().any(|rc| names(last, rc)) || fish || etc_rc {
        return Some(&SHELL_RC);
    }
    let cron = absolute
        && (parts == ["etc", "crontab"]
            || under(&["etc", "cron.d"])
            || under(&["var", "spool", "cron"])
            || ["cron.hourly", "cron.daily", "cron.weekly", "cron.monthly"]
                .iter()
                .any(|d| under(&["etc", d])));
    cron.then_some(&CRONTAB)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cred(p: &str) -> Option<&'static str> {
        credential(
            &Field {
                text: p.into(),
                pattern: p.into(),
            },
            None,
        )
        .map(|r| r.id)
    }

    #[test]
    fn credential_paths() {
        for p in [
            "~/.ssh/id_rsa",
            ".ssh/id_ed25519",
            "/root/.ssh/id_rsa",
            "/home/bob/.ssh/x",
            "~/.ssh",
            "~/.ssh/*",
            "~/.ssh/id_*",
            "id_rsa",
            "id_*",
            "/etc/ssh/ssh_host_rsa_key",
            "~/.ss?/id_rsa",
        ] {
            assert_eq!(cred(p), Some("ssh_key_read"), "{p}");
        }
        for p in [
            "~/.aws/credentials",
            "~/.aws",
            "~/.aws/*",
            ".aws/sso/cache/x.json",
            "~/.netrc",
            "~/.kube/config",
            "~/.docker/config.json",
            "~/.config/gh/hosts.yml",
            "~/.git-credentials",
            "/etc/shadow",
        ] {
            assert!(cred(p).is_some(), "{p}");
        }
        for p in [
            "~/.ssh/id_rsa.pub",
            "~/.ssh/*.pub",
            "~/.ssh/known_hosts",
            "*",
            "auth.log",
            "id_rsa.pub",
            "config",
            "credentials",
            "~/.docker/daemon.json",
            "~/.aws/config",
            ".aws/config",
            "/etc/passwd",
            "~/.bashrc",
        ] {
            assert_eq!(cred(p), None, "{p}");
        }
    }

    #[test]
    fn persistence_paths() {
        let rule = |p: &str| {
            persistence(
                &Field {
                    text: p.into(),
                    pattern: p.into(),
                },
                None,
            )
            .map(|r| r.id)
        };
        assert_eq!(
            rule("~/.ssh/authorized_keys"),
            Some("authorized_keys_write")
        );
        assert_eq!(rule("~/.bashrc"), Some("shell_rc_write"));
        assert_eq!(rule("/etc/profile.d/x.sh"), Some("shell_rc_write"));
        assert_eq!(rule("/etc/cron.d/job"), Some("crontab_write"));
        assert_eq!(rule("/var/spool/cron/crontabs/root"), Some("crontab_write"));
        assert_eq!(rule("./notes.txt"), None);
        assert_eq!(rule("bashrc.bak"), None);
    }
}
