//! Man pages: clap_mangen renders kpty.1 and one page per subcommand (kpty-talk.1 …) from the
//! clap model; kpty.1 also gets EXIT STATUS, ENVIRONMENT, FILES and EXAMPLES from
//! [`super::reference`], and each subcommand page its examples and a SEE ALSO.

use super::reference::{self, ENVIRONMENT, EXAMPLES, EXIT_STATUS, FILES};
use crate::error::ErrorCode;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, italic, roman};
use std::path::Path;

/// Write every page into `dir`.
pub fn generate(cmd: clap::Command, dir: &Path) -> std::io::Result<()> {
    // The man page has its own EXIT STATUS and ENVIRONMENT sections: not `--help`'s summary.
    let mut cmd = cmd
        .disable_help_subcommand(true)
        .after_long_help(None::<&str>);
    cmd.build();
    write_page(dir, "kpty", Man::new(cmd.clone()), &main_sections())?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        // Built: its display name is `kpty-<verb>`.
        let name = sub
            .get_display_name()
            .map(str::to_string)
            .unwrap_or_else(|| format!("kpty-{}", sub.get_name()));
        write_page(dir, &name, Man::new(sub.clone()), &sub_sections(&name))?;
    }
    Ok(())
}

/// Render `man` with `extra` inserted before its VERSION section (or at the end).
fn write_page(dir: &Path, name: &str, man: Man, extra: &Roff) -> std::io::Result<()> {
    let mut page = Vec::new();
    man.render(&mut page)?;
    let page = String::from_utf8_lossy(&page).into_owned();
    let preamble = Roff::default().render();
    let rendered = extra.render();
    let extra = rendered.strip_prefix(&preamble).unwrap_or(&rendered);
    let page = match page.find("\n.SH VERSION") {
        Some(at) => format!("{}\n{}{}", &page[..at], extra, &page[at + 1..]),
        None => format!("{page}{extra}"),
    };
    std::fs::write(dir.join(format!("{name}.1")), page)
}

/// A `.TP` entry: `term` in bold, then `text`.
fn entry(roff: &mut Roff, term: &str, text: &str) {
    roff.control("TP", []);
    roff.text([bold(term)]);
    roff.text([roman(text)]);
}

fn main_sections() -> Roff {
    let mut r = Roff::default();
    r.control("SH", ["EXIT STATUS"]);
    for (code, what) in EXIT_STATUS {
        entry(&mut r, code, what);
    }
    let mut codes: Vec<ErrorCode> = ErrorCode::ALL.to_vec();
    codes.sort_by_key(|c| c.exit_code());
    for c in codes {
        let what = format!("{c}: {}", reference::error_meaning(c));
        entry(&mut r, &c.exit_code().to_string(), &what);
    }
    r.control("SH", ["ENVIRONMENT"]);
    for (var, default, effect) in ENVIRONMENT {
        r.control("TP", []);
        r.text([
            bold(*var),
            roman(" (default: "),
            italic(*default),
            roman(")"),
        ]);
        r.text([roman(*effect)]);
    }
    r.control("PP", []);
    let compat: Vec<String> = crate::api::config::COMPAT
        .iter()
        .map(|(ours, theirs)| format!("{theirs} for {ours}"))
        .collect();
    r.text([roman(format!(
        "k_pty's names are read when kpty's is unset: {}.",
        compat.join(", ")
    ))]);
    r.control("SH", ["FILES"]);
    for (path, what) in FILES {
        entry(&mut r, path, what);
    }
    examples(&mut r, |_| true);
    see_also(&mut r, "kpty");
    r
}

fn sub_sections(name: &str) -> Roff {
    let mut r = Roff::default();
    let verb = name.trim_start_matches("kpty-");
    examples(&mut r, |cmd| uses(cmd, verb));
    see_also(&mut r, name);
    r
}

/// Whether an example command line runs `kpty VERB`.
fn uses(cmd: &str, verb: &str) -> bool {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    words
        .windows(2)
        .any(|w| w[0].trim_start_matches("$(") == "kpty" && w[1] == verb)
        || words.windows(3).any(|w| {
            w[0].trim_start_matches("$(") == "kpty" && w[1].starts_with("--") && w[2] == verb
        })
}

fn examples(r: &mut Roff, keep: impl Fn(&str) -> bool) {
    let chosen: Vec<_> = EXAMPLES.iter().filter(|(c, _)| keep(c)).collect();
    if chosen.is_empty() {
        return;
    }
    r.control("SH", ["EXAMPLES"]);
    for (cmd, what) in chosen {
        entry(r, cmd, what);
    }
}

fn see_also(r: &mut Roff, name: &str) {
    r.control("SH", ["SEE ALSO"]);
    let text = if name == "kpty" {
        "kpty-COMMAND(1) for each command (kpty-talk(1), kpty-create(1) ...); kpty help; \
         kpty COMMAND --help"
            .to_string()
    } else {
        format!(
            "kpty(1) for exit statuses, environment and files; kpty {} --help",
            &name[5..]
        )
    };
    r.text([roman(text)]);
}
