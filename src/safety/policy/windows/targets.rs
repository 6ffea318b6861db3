//! Windows paths and registry keys as the rules see them: drive roots in every spelling
//! (`C:\`, `C:`, `C:/`, `\\?\C:\`, `\\host\c$`, `\`), the folders whose loss breaks Windows
//! (`C:\Windows`, `C:\Program Files`, `C:\Users` and each whole profile, `C:\ProgramData` …),
//! the home directory (`~`, `%USERPROFILE%`, `$HOME`), `.`/`..` and "everything here" globs
//! (`C:\*`, `C:\*.*`) applied, case ignored. PowerShell's `/`-rooted paths on Linux are also
//! judged as POSIX paths (`paths::protected`).

use super::super::field::Field;
use super::super::paths::glob_match;

/// Folders directly under a drive root whose removal breaks the system or every user.
const TOP: &[&str] = &[
    "windows",
    "program files",
    "program files (x86)",
    "programdata",
    "users",
    "documents and settings",
    "boot",
    "efi",
    "recovery",
    "system volume information",
];

/// Folders under `\Windows` as vital as the folder itself.
const WINDOWS_SUBS: &[&str] = &[
    "system32",
    "syswow64",
    "sysnative",
    "winsxs",
    "system",
    "boot",
    "servicing",
    "fonts",
    "inf",
    "assembly",
    "microsoft.net",
    "installer",
    "systemapps",
    "systemresources",
];

/// Where a path starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// A drive (`c`), or a volume (`\\?\Volume{…}`, as `#`).
    Drive(char),
    /// The root of the current drive (`\…`), or `/` (PowerShell on Linux).
    Root,
    /// The home directory.
    Home,
    /// A network share `\\host\share`.
    Unc,
}

/// A path made absolute, as lower-case components.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WinPath {
    /// Where it starts.
    pub base: Base,
    /// The components after the base, `.` and `..` applied.
    pub parts: Vec<String>,
    /// The path as written (for the POSIX judgement of `/…` paths).
    posix: Option<String>,
}

impl WinPath {
    /// The path as text (`C:\`, `C:\windows`, `~`, `\`).
    #[must_use]
    pub fn display(&self) -> String {
        let base = match &self.base {
            Base::Drive('#') => "\\\\?\\volume".to_string(),
            Base::Drive(c) => format!("{}:", c.to_ascii_uppercase()),
            Base::Root | Base::Unc => String::new(),
            Base::Home => "~".to_string(),
        };
        let sep = if self.base == Base::Unc { "\\\\" } else { "\\" };
        format!("{base}{sep}{}", self.parts.join("\\"))
    }
}

/// Parses a path argument; `None` for a relative path when the directory is not known.
#[must_use]
pub fn parse(text: &str, cwd: Option<&WinPath>) -> Option<WinPath> {
    let t = strip_provider(text.trim())?;
    let posix = (t.starts_with('/') && !t.starts_with("//")).then(|| t.to_string());
    let mut t = t.replace('/', "\\").to_lowercase();
    for device in ["\\\\?\\", "\\\\.\\", "\\??\\"] {
        if let Some(rest) = t.strip_prefix(device) {
            t = match rest.strip_prefix("unc\\") {
                Some(unc) => format!("\\\\{unc}"),
                None if rest.starts_with("volume{") => {
                    let after = rest.split_once('\\').map_or("", |(_, r)| r);
                    return Some(build(Base::Drive('#'), after, vec![], None));
                }
                None => rest.to_string(),
            };
        }
    }
    if let Some(unc) = t.strip_prefix("\\\\") {
        let mut it = unc.splitn(3, '\\');
        let (_host, share) = (it.next()?, it.next().unwrap_or(""));
        let rest = it.next().unwrap_or("");
        let admin = share.len() == 2 && share.ends_with('$');
        return Some(match share.chars().next() {
            Some(d) if admin && d.is_ascii_alphabetic() => {
                build(Base::Drive(d), rest, vec![], None)
            }
            _ => build(Base::Unc, rest, vec![], None),
        });
    }
    let mut chars = t.chars();
    if let (Some(d), Some(':')) = (chars.next(), chars.next())
        && d.is_ascii_alphabetic()
    {
        let rest = &t[2..];
        // `C:x` is relative to drive C's current directory: judged only when it is empty.
        if !rest.is_empty() && !rest.starts_with('\\') {
            return None;
        }
        return Some(build(Base::Drive(d), rest, vec![], None));
    }
    if let Some(rest) = t.strip_prefix('~') {
        return match rest.split_once('\\') {
            _ if rest.is_empty() => Some(build(Base::Home, "", vec![], None)),
            Some(("", after)) => Some(build(Base::Home, after, vec![], None)),
            Some((user, after)) => Some(build(Base::Drive('c'), after, users(user), None)),
            None => Some(build(Base::Drive('c'), "", users(rest), None)),
        };
    }
    if let Some(rest) = t.strip_prefix('\\') {
        return Some(build(Base::Root, rest, vec![], posix));
    }
    let cwd = cwd?;
    Some(build(cwd.base.clone(), &t, cwd.parts.clone(), None))
}

fn users(user: &str) -> Vec<String> {
    vec!["users".into(), user.into()]
}

fn build(base: Base, rest: &str, mut parts: Vec<String>, posix: Option<String>) -> WinPath {
    for p in rest.split('\\') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            // Windows ignores trailing dots and spaces in a component (`C:\Windows.`).
            _ => match p.trim_end_matches(['.', ' ']) {
                "" => {}
                t => parts.push(t.to_string()),
            },
        }
    }
    WinPath { base, parts, posix }
}

/// `FileSystem::C:\x` → `C:\x`; a registry path is no file path (`None`).
fn strip_provider(t: &str) -> Option<&str> {
    match t.find("::") {
        Some(i) if t[..i].to_ascii_lowercase().ends_with("filesystem") => Some(&t[i + 2..]),
        Some(i) if t[..i].to_ascii_lowercase().ends_with("registry") => None,
        _ => Some(t),
    }
}

/// Whether a glob component stands for everything in its folder (`*`, `*.*`, `?*`).
fn matches_all(p: &str) -> bool {
    // `*.*` and `*.` match names without an extension too.
    let p = p.trim_end_matches(".*").trim_end_matches('.');
    (p.contains('*') || p.contains('?'))
        && ["windows", "users", "a.txt", "program files", "x"]
            .iter()
            .all(|n| glob_match(p, n))
}

/// Whether component `p` names one of `names`: as a glob, or as an 8.3 short name
/// (`PROGRA~1` for `Program Files`).
fn any(p: &str, names: &[&str]) -> bool {
    let short = p.rsplit_once('~').filter(|(stem, n)| {
        !stem.is_empty()
            && stem.len() <= 6
            && !n.is_empty()
            && n.chars().all(|c| c.is_ascii_digit())
    });
    names.iter().any(|n| {
        glob_match(p, n) || short.is_some_and(|(stem, _)| n.replace(' ', "").starts_with(stem))
    })
}

/// What removing this path recursively would destroy, shown; `None` for anything narrower.
#[must_use]
pub fn protected(p: &WinPath) -> Option<String> {
    let mut parts: Vec<&str> = p.parts.iter().map(String::as_str).collect();
    while parts.last().is_some_and(|l| matches_all(l)) {
        parts.pop();
    }
    let posix = p
        .posix
        .as_ref()
        .is_some_and(|text| super::super::paths::protected(&Field::literal(text), None).is_some());
    let drive_like = matches!(p.base, Base::Drive(_) | Base::Root);
    let hit = posix
        || match (&p.base, parts.as_slice()) {
            (_, []) => true,
            (_, [top]) if drive_like => any(top, TOP),
            (_, [w, sub]) if drive_like && any(w, &["windows"]) => any(sub, WINDOWS_SUBS),
            (_, [u, _]) if drive_like && any(u, &["users", "documents and settings"]) => true,
            (_, [pf, common])
                if drive_like && any(pf, &["program files", "program files (x86)"]) =>
            {
                any(common, &["common files"])
            }
            _ => false,
        };
    hit.then(|| p.display())
}

/// A key under `HKEY_LOCAL_MACHINE` in any spelling (`HKLM\x`, `HKEY_LOCAL_MACHINE\x`,
/// `HKLM:\x`, `Registry::HKLM\x`, `\\host\HKLM\x`): its subkey path, lower-case, `\`-separated
/// (empty for the hive itself).
#[must_use]
pub fn hklm_key(text: &str) -> Option<String> {
    let mut t = text.trim().replace('/', "\\").to_lowercase();
    if let Some(i) = t.find("::") {
        if !t[..i].ends_with("registry") {
            return None;
        }
        t = t[i + 2..].to_string();
    }
    if let Some(unc) = t.strip_prefix("\\\\") {
        t = unc.split_once('\\').map_or("", |(_, r)| r).to_string();
    }
    let rest = ["hkey_local_machine", "hklm"]
        .iter()
        .find_map(|h| t.strip_prefix(h))?;
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    if !(rest.is_empty() || rest.starts_with('\\')) {
        return None;
    }
    let parts: Vec<&str> = rest.split('\\').filter(|p| !p.is_empty()).collect();
    Some(parts.join("\\"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prot(t: &str) -> Option<String> {
        protected(&parse(t, None)?)
    }

    #[test]
    fn roots_and_system_folders_in_their_spellings() {
        for t in [
            "C:\\",
            "c:",
            "C:/",
            "D:\\",
            "\\\\?\\C:\\",
            "\\\\.\\c:\\",
            "\\",
            "/",
            "C:\\*",
            "C:\\*.*",
            "C:\\Windows",
            "c:\\windows\\",
            "C:\\WINDOWS\\System32",
            "C:\\Program Files",
            "C:\\Program Files (x86)\\",
            "C:\\Users",
            "C:\\Users\\alice",
            "C:\\Users\\*",
            "~",
            "~\\",
            "~/*",
            "C:\\Temp\\..",
            "C:\\Windows.",
            "FileSystem::C:\\",
            "Microsoft.PowerShell.Core\\FileSystem::C:\\Windows",
            "\\\\srv\\c$",
            "\\\\srv\\share",
            "C:\\Win*",
            "/etc",
            "\\\\?\\Volume{1234}\\",
            "C:\\\\",
            "C:\\ProgramData",
            "C:\\PROGRA~1",
            "C:\\progra~2",
            "C:\\DOCUME~1\\x",
        ] {
            assert!(prot(t).is_some(), "{t}");
        }
        for t in [
            "C:\\Temp",
            "C:\\Windows\\Temp",
            "C:\\Windows\\Temp\\*",
            "C:\\Users\\alice\\proj",
            "build",
            ".\\dist",
            "node_modules",
            "~\\AppData\\Local\\Temp",
            "C:\\Program Files\\App",
            "C:build",
            "/tmp/x",
            "\\\\srv\\share\\dir",
            "C:\\$Recycle.Bin",
            "HKLM:\\Software",
        ] {
            assert_eq!(prot(t), None, "{t}");
        }
    }

    #[test]
    fn hklm_spellings() {
        for (t, want) in [
            ("HKLM\\SYSTEM", "system"),
            ("hkey_local_machine\\Software\\X", "software\\x"),
            ("HKLM:\\SAM", "sam"),
            ("HKLM:", ""),
            ("Registry::HKEY_LOCAL_MACHINE\\SECURITY", "security"),
            ("\\\\pc\\HKLM\\System", "system"),
        ] {
            assert_eq!(hklm_key(t).as_deref(), Some(want), "{t}");
        }
        for t in ["HKCU\\Software", "HKLMX", "C:\\hklm"] {
            assert_eq!(hklm_key(t), None, "{t}");
        }
    }
}
