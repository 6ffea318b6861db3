//! The rules by meaning, each with a name and a category, judged on a command after
//! expansion and peeling: destruction of `/`, system directories or home; disk and
//! filesystem writers; power and init; writes to persistence points. Credential reads are in
//! [`super::secrets`].

use super::args::Args;
use super::catalog::{
    CRED_WRITE, CRONTAB, HISTORY, PERSIST, Rule, SYSRQ, SYSTEM_FILE, WRITE_DEVICE,
};
use super::field::Field;
use super::paths::{block_device, is_file};
use super::redirects::Redirect;
use super::state::Eval;
use super::{destructive, secrets, system};

/// Judges one command (after peeling) and its redirections.
pub fn judge(e: &mut Eval, name: &str, argv: &[Field]) {
    let mut argv = argv.to_vec();
    argv.splice(1.., super::longopts::normalise(name, &argv[1..]));
    let argv = &argv[..];
    let seen = argv
        .iter()
        .map(|f| f.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let args = &argv[1..];
    let rule = destructive::destructive(e, name, args)
        .or_else(|| system::disk(e, name, args))
        .or_else(|| system::power(name, args))
        .or_else(|| writes(e, name, args))
        .or_else(|| super::network::command(name, args))
        .or_else(|| super::history::command(e, name, args))
        .or_else(|| secrets::reads(e, name, args))
        .or_else(|| {
            let words: Vec<String> = argv.iter().map(|f| f.text.clone()).collect();
            super::windows::judge_argv(&words)
        });
    if let Some(rule) = rule {
        e.block(rule, &seen.replace(super::field::UNKNOWN, "…"));
    }
}

/// Judges redirections: writes onto devices, persistence points and system files; reads of
/// credentials.
pub fn judge_redirects(e: &mut Eval, redirs: &[Redirect], seen: &str) {
    for r in redirs {
        let rule = if r.writes() {
            written(e, &r.target)
        } else {
            None
        };
        let rule = rule.or_else(|| {
            r.reads()
                .then(|| secrets::credential(&r.target, e.cwd.as_deref()))
                .flatten()
        });
        if let Some(rule) = rule {
            let shown = if seen.is_empty() {
                let op = if r.writes() { ">" } else { "<" };
                format!("{op} {}", r.target.text)
            } else {
                seen.to_string()
            };
            e.block(rule, &shown);
            return;
        }
    }
}

/// The rule a write to this file breaks, if any.
pub fn written(e: &Eval, f: &Field) -> Option<&'static Rule> {
    let cwd = e.cwd.as_deref();
    if block_device(f, cwd) {
        return Some(&WRITE_DEVICE);
    }
    if is_file(f, cwd, "/proc/sysrq-trigger") {
        return Some(&SYSRQ);
    }
    if [
        "/etc/passwd",
        "/etc/shadow",
        "/etc/group",
        "/etc/gshadow",
        "/etc/sudoers",
        "/etc/fstab",
        "/etc/sudoers.d/*",
    ]
    .iter()
    .any(|p| is_file(f, cwd, p))
    {
        return Some(&SYSTEM_FILE);
    }
    secrets::persistence(f, cwd)
        .or_else(|| secrets::store_written(f, cwd))
        .or_else(|| super::history::file(f, cwd))
}

fn writes(e: &Eval, name: &str, args: &[Field]) -> Option<&'static Rule> {
    let a = Args::parse(args, &["-e", "-f", "-o", "-m", "-g", "-t", "-S", "-s"]);
    let targets: Vec<&Field> = match name {
        "tee" | "vi" | "vim" | "nvim" | "nano" | "emacs" | "ed" | "ex" | "pico" | "micro"
        | "truncate" | "touch" => a.operands.clone(),
        "cp" | "mv" | "install" | "ln" | "rsync" | "scp" => {
            a.operands.last().copied().into_iter().collect()
        }
        "sed" | "perl" if a.flag('i', &["--in-place"]) => {
            a.operands.iter().skip(1).copied().collect()
        }
        "dd" => args.iter().filter(|f| f.text.starts_with("of=")).collect(),
        "crontab" => {
            let listing = a.flag('l', &["--list"]) || a.options.contains(&"-T");
            return (!listing).then_some(&CRONTAB);
        }
        _ => return None,
    };
    targets.iter().find_map(|f| {
        let f = match f.text.strip_prefix("of=") {
            Some(path) => Field::literal(path),
            None => (*f).clone(),
        };
        let rule = written(e, &f)?;
        // `touch` only creates: it cannot plant, leak or wipe anything.
        (name != "touch" || ![PERSIST, CRED_WRITE, HISTORY].contains(&rule.category))
            .then_some(rule)
    })
}
