//! GNU long options as the tools read them: any unambiguous prefix of a long option is that
//! option (`rm --rec --forc` is `rm --recursive --force`). Each command's table is its real
//! option list (coreutils, findutils, tar, util-linux, sed, git), so a prefix is expanded only
//! where the tool itself would expand it; an ambiguous prefix is left as written (the tool
//! refuses it).

use super::field::Field;

const RM: &[&str] = &[
    "--force",
    "--interactive",
    "--one-file-system",
    "--no-preserve-root",
    "--preserve-root",
    "--recursive",
    "--dir",
    "--verbose",
    "--help",
    "--version",
];
const CHMOD: &[&str] = &[
    "--changes",
    "--silent",
    "--quiet",
    "--verbose",
    "--no-preserve-root",
    "--preserve-root",
    "--reference",
    "--recursive",
    "--help",
    "--version",
];
const CHOWN: &[&str] = &[
    "--changes",
    "--dereference",
    "--no-dereference",
    "--from",
    "--silent",
    "--quiet",
    "--verbose",
    "--no-preserve-root",
    "--preserve-root",
    "--reference",
    "--recursive",
    "--help",
    "--version",
];
const CP: &[&str] = &[
    "--archive",
    "--attributes-only",
    "--backup",
    "--copy-contents",
    "--debug",
    "--force",
    "--interactive",
    "--link",
    "--dereference",
    "--no-clobber",
    "--no-dereference",
    "--preserve",
    "--no-preserve",
    "--parents",
    "--recursive",
    "--reflink",
    "--remove-destination",
    "--sparse",
    "--strip-trailing-slashes",
    "--symbolic-link",
    "--suffix",
    "--target-directory",
    "--no-target-directory",
    "--update",
    "--verbose",
    "--one-file-system",
    "--context",
    "--help",
    "--version",
];
const MV: &[&str] = &[
    "--backup",
    "--debug",
    "--exchange",
    "--force",
    "--interactive",
    "--no-clobber",
    "--no-copy",
    "--strip-trailing-slashes",
    "--suffix",
    "--target-directory",
    "--no-target-directory",
    "--update",
    "--verbose",
    "--context",
    "--help",
    "--version",
];
const SHRED: &[&str] = &[
    "--force",
    "--iterations",
    "--random-source",
    "--size",
    "--remove",
    "--verbose",
    "--exact",
    "--zero",
    "--help",
    "--version",
];
const TAR: &[&str] = &[
    "--append",
    "--catenate",
    "--compare",
    "--concatenate",
    "--create",
    "--delete",
    "--diff",
    "--extract",
    "--get",
    "--list",
    "--test-label",
    "--update",
    "--file",
    "--directory",
    "--exclude",
    "--gzip",
    "--gunzip",
    "--bzip2",
    "--xz",
    "--zstd",
    "--verbose",
    "--verify",
    "--keep-old-files",
    "--keep-newer-files",
    "--overwrite",
    "--recursion",
    "--recursive-unlink",
    "--remove-files",
    "--record-size",
    "--read-full-records",
    "--restrict",
    "--rmt-command",
    "--rsh-command",
    "--to-stdout",
    "--to-command",
    "--totals",
    "--touch",
    "--transform",
    "--unlink-first",
    "--help",
    "--version",
];
const WIPEFS: &[&str] = &[
    "--all",
    "--backup",
    "--force",
    "--help",
    "--json",
    "--lock",
    "--no-act",
    "--noheadings",
    "--offset",
    "--output",
    "--parsable",
    "--quiet",
    "--types",
    "--version",
];
const SED: &[&str] = &[
    "--in-place",
    "--expression",
    "--file",
    "--quiet",
    "--silent",
    "--debug",
    "--posix",
    "--regexp-extended",
    "--separate",
    "--sandbox",
    "--unbuffered",
    "--null-data",
    "--line-length",
    "--follow-symlinks",
    "--zero-terminated",
    "--help",
    "--version",
];
const TEE: &[&str] = &[
    "--append",
    "--ignore-interrupts",
    "--output-error",
    "--help",
    "--version",
];
const LN: &[&str] = &[
    "--backup",
    "--directory",
    "--force",
    "--interactive",
    "--logical",
    "--no-dereference",
    "--physical",
    "--relative",
    "--symbolic",
    "--suffix",
    "--target-directory",
    "--no-target-directory",
    "--verbose",
    "--help",
    "--version",
];
const TRUNCATE: &[&str] = &[
    "--no-create",
    "--io-blocks",
    "--reference",
    "--size",
    "--help",
    "--version",
];
const GIT_CLEAN: &[&str] = &[
    "--dry-run",
    "--quiet",
    "--force",
    "--interactive",
    "--exclude",
];

/// The long options of a command (`git-clean` for `git clean`).
fn table(name: &str) -> &'static [&'static str] {
    match name {
        "rm" => RM,
        "chmod" => CHMOD,
        "chown" | "chgrp" => CHOWN,
        "cp" => CP,
        "mv" => MV,
        "shred" => SHRED,
        "tar" | "gtar" | "bsdtar" => TAR,
        "wipefs" => WIPEFS,
        "sed" => SED,
        "tee" => TEE,
        "ln" => LN,
        "truncate" => TRUNCATE,
        "git-clean" => GIT_CLEAN,
        _ => &[],
    }
}

/// The full option a prefix stands for in `table`: exact, else the only one it starts.
fn expand<'a>(table: &[&'a str], word: &str) -> Option<&'a str> {
    if let Some(exact) = table.iter().find(|o| **o == word) {
        return Some(exact);
    }
    let mut hits = table.iter().filter(|o| o.starts_with(word));
    let first = hits.next()?;
    hits.next().is_none().then_some(*first)
}

/// `args` with each abbreviated long option written in full (up to `--`).
#[must_use]
pub fn normalise(name: &str, args: &[Field]) -> Vec<Field> {
    let table = table(name);
    if table.is_empty() {
        return args.to_vec();
    }
    let mut out = Vec::with_capacity(args.len());
    let mut ended = false;
    for a in args {
        ended |= a.text == "--";
        let long = !ended && a.text.starts_with("--") && a.text.len() > 2 && !a.has_unknown();
        let full = long.then(|| {
            let (opt, value) = match a.text.split_once('=') {
                Some((o, v)) => (o, Some(v)),
                None => (a.text.as_str(), None),
            };
            expand(table, opt).map(|full| match value {
                Some(v) => format!("{full}={v}"),
                None => full.to_string(),
            })
        });
        match full.flatten() {
            Some(text) => out.push(Field::literal(&text)),
            None => out.push(a.clone()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(name: &str, words: &[&str]) -> Vec<String> {
        let args: Vec<Field> = words.iter().map(|w| Field::literal(w)).collect();
        normalise(name, &args).into_iter().map(|f| f.text).collect()
    }

    #[test]
    fn unambiguous_prefixes_are_the_full_option() {
        assert_eq!(
            norm("rm", &["--rec", "--forc", "~"]),
            ["--recursive", "--force", "~"]
        );
        assert_eq!(norm("rm", &["--r"]), ["--recursive"]);
        assert_eq!(norm("rm", &["--no-p"]), ["--no-preserve-root"]);
        assert_eq!(norm("chmod", &["--rec", "777"]), ["--recursive", "777"]);
        assert_eq!(norm("tar", &["--remove-f"]), ["--remove-files"]);
        assert_eq!(norm("sed", &["--in-pl=.b"]), ["--in-place=.b"]);
        assert_eq!(norm("rm", &["--", "--rec"]), ["--", "--rec"]);
    }

    #[test]
    fn ambiguous_or_unknown_prefixes_are_left_alone() {
        assert_eq!(norm("chmod", &["--re"]), ["--re"]);
        assert_eq!(norm("rm", &["--ver"]), ["--ver"]);
        assert_eq!(norm("ls", &["--rec"]), ["--rec"]);
        assert_eq!(norm("rm", &["--bogus"]), ["--bogus"]);
    }

    /// Every entry of every table is reachable by some prefix, and no table lists an option
    /// twice (a typo in a table would silently change what a prefix means).
    #[test]
    fn tables_are_well_formed() {
        for name in [
            "rm",
            "chmod",
            "chown",
            "cp",
            "mv",
            "shred",
            "tar",
            "wipefs",
            "sed",
            "tee",
            "ln",
            "truncate",
            "git-clean",
        ] {
            let t = table(name);
            let mut sorted = t.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), t.len(), "{name}");
            for o in t {
                assert!(o.starts_with("--") && o.len() > 3, "{name}: {o}");
                assert_eq!(expand(t, o), Some(*o), "{name}: {o}");
            }
        }
    }
}
