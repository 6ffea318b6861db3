//! Paths as the rules see them: resolved lexically (`..`, `//`, `~user`, the directory a `cd`
//! made evident), globs matched against what they could name, and the classes of paths the
//! rules protect — the root and top-level system directories, home, block devices and
//! credential stores.

use super::field::{Field, UNKNOWN};

/// Top-level directories whose loss breaks the system.
const SYSTEM_DIRS: &[&str] = &[
    "bin",
    "boot",
    "dev",
    "etc",
    "home",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "media",
    "mnt",
    "opt",
    "proc",
    "root",
    "run",
    "sbin",
    "snap",
    "srv",
    "sys",
    "usr",
    "var",
    "System",
    "Library",
    "Applications",
    "Users",
    "Volumes",
    "private",
];

/// Directories under `/usr` that are as vital.
const USR_DIRS: &[&str] = &[
    "bin", "sbin", "lib", "lib64", "libexec", "include", "share", "local",
];

/// Directories under `/var` that are as vital.
const VAR_DIRS: &[&str] = &["lib", "spool", "mail", "backups", "db"];

/// Names a "match everything" glob matches: three or more of them and the glob means "all".
const PROBES: &[&str] = &[
    "bin",
    "etc",
    "usr",
    "home",
    "var",
    "Documents",
    "src",
    ".ssh",
    ".config",
    ".bashrc",
];

/// A path made absolute (`/…` or `~/…`) as components; `None` when its base is unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// `true`: under the home directory (`~`); `false`: under `/`.
    pub home: bool,
    /// Components after the base, `.` and `..` applied; globs kept as patterns.
    pub parts: Vec<String>,
}

impl Resolved {
    /// The path as text (`/`, `/etc`, `~`, `~/x`).
    #[must_use]
    pub fn display(&self) -> String {
        let base = if self.home { "~" } else { "" };
        if self.parts.is_empty() {
            return if self.home { "~".into() } else { "/".into() };
        }
        format!("{base}/{}", self.parts.join("/"))
    }
}

/// Resolves `path` (a glob pattern or plain text) against `cwd`.
#[must_use]
fn resolve_parts(path: &str, cwd: Option<&str>) -> Option<Resolved> {
    if path.is_empty() || path.contains(UNKNOWN) {
        return None;
    }
    let (mut out, rest) = if let Some(rest) = path.strip_prefix('~') {
        let (user, rest) = rest.split_once('/').unwrap_or((rest, ""));
        let out = match user {
            "" => Resolved {
                home: true,
                parts: vec![],
            },
            "root" => Resolved {
                home: false,
                parts: vec!["root".into()],
            },
            _ => Resolved {
                home: false,
                parts: vec!["home".into(), user.into()],
            },
        };
        (out, rest.to_string())
    } else if let Some(rest) = path.strip_prefix('/') {
        (
            Resolved {
                home: false,
                parts: vec![],
            },
            rest.to_string(),
        )
    } else {
        let base = resolve_parts(cwd?, None)?;
        (base, path.to_string())
    };
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if out.parts.pop().is_none() && out.home {
                    // Above an unknown home: some directory under `/home` (or `/`).
                    out = Resolved {
                        home: false,
                        parts: vec!["home".into()],
                    };
                }
            }
            p => out.parts.push(p.to_string()),
        }
    }
    Some(out)
}

/// Resolves a path to text (`cd` uses it to track the directory).
#[must_use]
pub fn resolve(path: &str, cwd: Option<&str>) -> Option<String> {
    resolve_parts(path, cwd).map(|r| r.display())
}

/// What a path argument would destroy if removed recursively: `/`, `/*`, a top-level
/// system directory (or `/usr/…`), `~`, `~/*`. `None` for anything narrower.
#[must_use]
pub fn protected(f: &Field, cwd: Option<&str>) -> Option<String> {
    let r = resolve_parts(&f.pattern, cwd)?;
    let shown = r.display();
    let p: Vec<&str> = r.parts.iter().map(String::as_str).collect();
    let hit = match (r.home, p.as_slice()) {
        (_, []) => true,
        (true, [all]) => matches_all(all),
        (false, [top]) => matches_all(top) || SYSTEM_DIRS.iter().any(|d| glob_match(top, d)),
        (false, [top, sub]) => {
            let system = SYSTEM_DIRS.iter().any(|d| glob_match(top, d));
            system
                && (matches_all(sub)
                    || (glob_match(top, "usr") && USR_DIRS.iter().any(|d| glob_match(sub, d)))
                    || (glob_match(top, "var") && VAR_DIRS.iter().any(|d| glob_match(sub, d))))
                || ((glob_match(top, "home") || glob_match(top, "Users"))
                    && (matches_all(sub) || !is_glob(sub)))
        }
        (false, [top, user, all]) => glob_match(top, "home") && !is_glob(user) && matches_all(all),
        _ => false,
    };
    hit.then_some(shown)
}

/// Whether a glob stands for "everything here" (`*`, `.*`, `?*`, `[a-z]*` …).
fn matches_all(pattern: &str) -> bool {
    is_glob(pattern) && PROBES.iter().filter(|p| glob_match(pattern, p)).count() >= 3
}

/// Whether a block device (a disk, partition, mapper, loop or md device) is named.
#[must_use]
pub fn block_device(f: &Field, cwd: Option<&str>) -> bool {
    let Some(r) = resolve_parts(&f.pattern, cwd) else {
        return false;
    };
    if r.home || r.parts.first().map(String::as_str) != Some("dev") || r.parts.len() < 2 {
        return false;
    }
    let rest = r.parts[1..].join("/");
    const DEVICES: &[&str] = &[
        "sda",
        "sdb1",
        "hda",
        "vda",
        "vdb2",
        "xvda",
        "xvdf1",
        "nvme0n1",
        "nvme1n1p2",
        "mmcblk0",
        "mmcblk0p1",
        "dm-0",
        "loop0",
        "md0",
        "md127",
        "mapper/root",
        "disk/by-id/ata-x",
        "disk/by-uuid/x",
        "disk/by-label/x",
        "disk/by-path/x",
        "disk/by-partuuid/x",
        "disk0",
        "disk2s1",
        "rdisk0",
        "sr0",
        "nbd0",
    ];
    if is_glob(&rest) {
        return DEVICES.iter().any(|d| glob_match(&rest, d));
    }
    let rest = unescape(&rest);
    let name = rest.as_str();
    let numbered = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric()))
    };
    [
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "dm-", "loop", "md", "disk", "rdisk", "nbd",
        "sr",
    ]
    .iter()
    .any(|p| numbered(p))
        || name.starts_with("mapper/") && name != "mapper/control"
        || name.starts_with("disk/by-")
}

/// Whether a path names this exact file (after resolving), e.g. `/proc/sysrq-trigger`.
#[must_use]
pub fn is_file(f: &Field, cwd: Option<&str>, abs: &str) -> bool {
    resolve_parts(&f.pattern, cwd).is_some_and(|r| !r.home && glob_match_path(&r.parts, abs))
}

/// Matches resolved components against an absolute path (globs in the components live).
#[must_use]
fn glob_match_path(parts: &[String], abs: &str) -> bool {
    let want: Vec<&str> = abs.trim_start_matches('/').split('/').collect();
    parts.len() == want.len() && parts.iter().zip(want).all(|(p, w)| glob_match(p, w))
}

/// The components of a path as written (for matching a suffix when the base is unknown).
#[must_use]
pub fn components(f: &Field, cwd: Option<&str>) -> (Option<bool>, Vec<String>) {
    match resolve_parts(&f.pattern, cwd) {
        Some(r) => (Some(r.home), r.parts),
        None => (
            None,
            f.pattern
                .split('/')
                .filter(|p| !p.is_empty() && *p != ".")
                .map(String::from)
                .collect(),
        ),
    }
}

/// Whether a pattern has live glob characters.
#[must_use]
pub fn is_glob(p: &str) -> bool {
    super::field::has_live_glob(p)
}

fn unescape(p: &str) -> String {
    let mut out = String::new();
    let mut esc = false;
    for c in p.chars() {
        if !esc && c == '\\' {
            esc = true;
            continue;
        }
        esc = false;
        out.push(c);
    }
    out
}

/// Shell glob matching of one component: `*`, `?`, `[…]` (with `!`/`^` and ranges), `\x`.
/// A leading `.` must be matched literally, as the shell does without `dotglob`.
#[must_use]
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    if n.first() == Some(&'.')
        && p.first() != Some(&'.')
        && !(p.first() == Some(&'\\') && p.get(1) == Some(&'.'))
    {
        return false;
    }
    match_from(&p, &n)
}

/// Shell pattern matching of a whole string, `/` included (`${v%/*}`, `case`): no rule
/// for a leading dot.
#[must_use]
pub fn pattern_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = text.chars().collect();
    match_from(&p, &n)
}

/// Iterative wildcard matching (one backtrack point per `*`), so a long pattern cannot
/// exhaust the stack or take exponential time.
fn match_from(p: &[char], n: &[char]) -> bool {
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
                continue;
            }
            Some('?') => Some(1),
            Some('[') => match class(&p[pi + 1..]) {
                Some((test, after)) => test(n[ni]).then(|| p.len() - after.len() - pi),
                None => (n[ni] == '[').then_some(1),
            },
            Some('\\') if pi + 1 < p.len() => (n[ni] == p[pi + 1]).then_some(2),
            Some(&c) => (n[ni] == c).then_some(1),
            None => None,
        };
        match (step, star) {
            (Some(len), _) => {
                pi += len;
                ni += 1;
            }
            (None, Some((sp, sn))) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            (None, None) => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

type Class<'a> = (Box<dyn Fn(char) -> bool + 'a>, &'a [char]);

/// A bracket expression after `[`: its test and the pattern after `]`.
fn class(p: &[char]) -> Option<Class<'_>> {
    let negate = matches!(p.first(), Some('!' | '^'));
    let body_start = usize::from(negate);
    let close = p.iter().skip(body_start + 1).position(|&c| c == ']')? + body_start + 1;
    let body = &p[body_start..close];
    let test = move |ch: char| {
        let mut i = 0;
        let mut hit = false;
        while i < body.len() {
            if i + 2 < body.len() && body[i + 1] == '-' {
                hit |= (body[i]..=body[i + 2]).contains(&ch);
                i += 3;
            } else {
                hit |= body[i] == ch;
                i += 1;
            }
        }
        hit != negate
    };
    Some((Box::new(test), &p[close + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prot(p: &str) -> Option<String> {
        protected(
            &Field {
                text: p.into(),
                pattern: p.into(),
            },
            None,
        )
    }

    #[test]
    fn protected_targets_are_found_through_spellings() {
        for p in [
            "/", "//", "/.", "/*", "/tmp/..", "/e*c", "/[e]tc/", "/usr/lib", "/etc/*", "~", "~/",
            "~/*", "~/.*", "~root", "/home/*", "/?*",
        ] {
            assert!(prot(p).is_some(), "{p}");
        }
        for p in [
            "/tmp/x",
            "./build",
            "*",
            "~/projects/old",
            "/etc/nginx/x",
            "/var/log/app",
            "*.o",
            "~/.cache/pip",
            "/tmp",
        ] {
            assert_eq!(prot(p), None, "{p}");
        }
        let star = Field {
            text: "*".into(),
            pattern: "*".into(),
        };
        assert_eq!(protected(&star, Some("/")).as_deref(), Some("/*"));
        assert_eq!(protected(&star, Some("/srv/app")), None);
    }

    #[test]
    fn globs_match_like_the_shell() {
        assert!(glob_match("*", "etc"));
        assert!(!glob_match("*", ".ssh"));
        assert!(glob_match(".*", ".ssh"));
        assert!(glob_match("id_[rd]sa", "id_rsa"));
        assert!(!glob_match("[!i]*", "id_rsa"));
        assert!(!glob_match(r"\*", "x"));
    }

    #[test]
    fn block_devices() {
        let dev = |p: &str| {
            block_device(
                &Field {
                    text: p.into(),
                    pattern: p.into(),
                },
                None,
            )
        };
        for p in [
            "/dev/sda",
            "/dev/sdb1",
            "/dev/nvme0n1",
            "/dev/dm-0",
            "/dev/loop3",
            "/dev/disk/by-id/x",
            "/dev/sd*",
            "/dev/mapper/root",
            "/dev/../dev/sda",
        ] {
            assert!(dev(p), "{p}");
        }
        for p in [
            "/dev/null",
            "/dev/tty",
            "/dev/zero",
            "/dev/stdout",
            "./sda",
            "/dev/mapper/control",
        ] {
            assert!(!dev(p), "{p}");
        }
    }
}
