//! Rules on destruction of `/`, top-level system directories and home: `rm -r`, `find
//! -delete`, `rsync --delete`, `shred`, `git clean`, `mv`, recursive `chmod`/`chown`.

use super::args::Args;
use super::catalog::Rule;
use super::catalog::{
    CHMOD_ROOT, CHOWN_ROOT, FIND_DELETE, GIT_CLEAN, MV_ROOT, RM_ROOT, RSYNC_DELETE, SHRED_DEVICE,
    SHRED_ROOT, TAR_REMOVE,
};
use super::field::Field;
use super::paths::{block_device, protected, resolve};
use super::state::Eval;
use super::words::command_name;

fn protected_any(e: &Eval, fields: &[&Field]) -> bool {
    fields
        .iter()
        .any(|f| protected(f, e.cwd.as_deref()).is_some())
}

pub fn destructive(e: &Eval, name: &str, args: &[Field]) -> Option<&'static Rule> {
    let a = Args::parse(args, &[]);
    let recursive = a.flag('r', &["--recursive"]) || a.flag('R', &[]);
    match name {
        "rm" if recursive && protected_any(e, &a.operands) => Some(&RM_ROOT),
        "find" => find_delete(e, args),
        "rsync" if a.long("--del") => {
            let dest = a.operands.last().map(|f| strip_host(f));
            dest.filter(|d| protected(d, e.cwd.as_deref()).is_some())
                .map(|_| &RSYNC_DELETE)
        }
        "shred" if protected_any(e, &a.operands) => Some(&SHRED_ROOT),
        "shred" if a.operands.iter().any(|f| block_device(f, e.cwd.as_deref())) => {
            Some(&SHRED_DEVICE)
        }
        "git" => git_clean(e, args),
        "tar" | "gtar" | "bsdtar" if a.long("--remove-files") && protected_any(e, &a.operands) => {
            Some(&TAR_REMOVE)
        }
        "mv" => {
            let sources = if a.long("-t") || a.long("--target") {
                &a.operands[..]
            } else {
                &a.operands[..a.operands.len().saturating_sub(1)]
            };
            protected_any(e, sources).then_some(&MV_ROOT)
        }
        "chmod" | "chown" | "chgrp" if a.flag('R', &["--recursive"]) => {
            let skip = usize::from(!a.long("--reference"));
            let targets = a.operands.get(skip..).unwrap_or_default();
            let system = targets.iter().any(|f| {
                protected(f, e.cwd.as_deref()).is_some_and(|p| {
                    !p.starts_with('~') && !p.starts_with("/home/") && !p.starts_with("/Users/")
                })
            });
            system.then_some(if name == "chmod" {
                &CHMOD_ROOT
            } else {
                &CHOWN_ROOT
            })
        }
        _ => None,
    }
}

/// `user@host:/path` → `/path`.
fn strip_host(f: &Field) -> Field {
    match f.text.split_once(':') {
        Some((host, path)) if !host.contains('/') && !host.is_empty() => {
            Field::literal(if path.is_empty() { "~" } else { path })
        }
        _ => f.clone(),
    }
}

fn find_delete(e: &Eval, args: &[Field]) -> Option<&'static Rule> {
    let (starts, filtered) = super::pipes::find_parts(args);
    let expr = &args[starts.len()..];
    let has = |w: &str| expr.iter().any(|a| a.text == w);
    let deletes = has("-delete")
        || expr.windows(2).any(|w| {
            matches!(w[0].text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                && matches!(command_name(&w[1].text).as_str(), "rm" | "shred" | "unlink")
        });
    (deletes && !filtered && protected_any(e, &starts)).then_some(&FIND_DELETE)
}

fn git_clean(e: &Eval, args: &[Field]) -> Option<&'static Rule> {
    let mut dir = e.cwd.clone();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        match t {
            "-C" => {
                let d = args.get(i + 1)?;
                dir = resolve(&d.text, dir.as_deref());
                i += 2;
                continue;
            }
            _ if t.starts_with("--work-tree=") => dir = resolve(&t[12..], dir.as_deref()),
            "clean" => {
                let rest = super::longopts::normalise("git-clean", &args[i + 1..]);
                let a = Args::parse(&rest, &["-e", "--exclude"]);
                let forced = a.flag('f', &["--force"]);
                let root = Field::literal(dir.as_deref().unwrap_or("."));
                return (forced && protected(&root, None).is_some()).then_some(&GIT_CLEAN);
            }
            _ if t.starts_with('-') => {}
            _ => return None,
        }
        i += 1;
    }
    None
}
