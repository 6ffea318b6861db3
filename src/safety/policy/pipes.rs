//! What flows between commands: the evident output of `echo`/`printf`, the decoders that turn
//! it into a script (`base64 -d`, `rev`, `xxd -r -p`, `tr`), downloads, here-text, and
//! functions that fork themselves.

use brush_parser::ast::{Command, CompoundCommand, CompoundList, Pipeline, SeparatorOperator};

use super::field::{Field, UNKNOWN};
use super::redirects::{Io, Redirect};
use super::state::Stdin;
use super::words::decode_ansi_c;

/// Programs that fetch from the network and write it out.
const DOWNLOADERS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "http",
    "https",
    "aria2c",
    "lwp-request",
    "iwr",
    "irm",
    "invoke-webrequest",
    "invoke-restmethod",
    "xh",
    "xhs",
    "wget2",
    "curlie",
];

/// Interpreter one-liners that fetch a URL (`python3 -c 'import urllib.request …'`).
static FETCH_CODE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"urlopen|urllib|requests\.get|httpx\.get|LWP::Simple|HTTP::Tiny|open-uri|Net::HTTP|URI\.open|https?\.get\(|fetch\(|file_get_contents\(\s*['\x22]https?:",
    )
    .expect("fetch regex")
});

/// The start paths of `find PATHS… EXPR`, and whether its expression narrows what it prints
/// or deletes by name or path (`-name`, `-path`, `-regex` …).
#[must_use]
pub fn find_parts(args: &[Field]) -> (Vec<&Field>, bool) {
    let starts: Vec<&Field> = args
        .iter()
        .take_while(|a| !a.text.starts_with('-') && a.text != "(" && a.text != "!")
        .collect();
    let expr = &args[starts.len()..];
    let filtered = [
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-inum",
        "-samefile",
    ]
    .iter()
    .any(|w| expr.iter().any(|a| a.text == *w));
    (starts, filtered)
}

/// What `find` prints, when evident: every path under its start paths, so the start paths
/// stand for it (`find / | xargs rm -rf` removes `/`).
fn find_output(args: &[Field]) -> Stdin {
    let (starts, filtered) = find_parts(args);
    if filtered || starts.iter().any(|f| f.has_unknown()) {
        return Stdin::Unknown;
    }
    let roots: Vec<&str> = starts.iter().map(|f| f.text.as_str()).collect();
    let roots = if roots.is_empty() { vec!["."] } else { roots };
    Stdin::Evident(roots.join("\n") + "\n")
}

/// The input a command reads: its last input redirection, else the pipe.
#[must_use]
pub fn stdin_from(redirs: &[Redirect], piped: Stdin) -> Stdin {
    let mut stdin = piped;
    for r in redirs {
        match &r.io {
            Io::Here(text) => stdin = Stdin::Evident(text.clone()),
            Io::Read | Io::ReadWrite if r.download => stdin = Stdin::Download,
            Io::Read | Io::ReadWrite => stdin = Stdin::Unknown,
            _ => {}
        }
    }
    stdin
}

/// What a pipeline stage writes, for the stages whose output the policy can follow.
#[must_use]
pub fn output(name: &str, args: &[Field], stdin: &Stdin) -> Stdin {
    let texts: Vec<&str> = args.iter().map(|f| f.text.as_str()).collect();
    let evident = |s: String| {
        if s.contains(UNKNOWN) {
            Stdin::Unknown
        } else {
            Stdin::Evident(s)
        }
    };
    let decode = |f: &dyn Fn(&str) -> Option<String>| match stdin {
        Stdin::Evident(t) => f(t).map_or(Stdin::Decoded, Stdin::Evident),
        Stdin::Download => Stdin::Download,
        Stdin::Unknown | Stdin::Decoded => Stdin::Decoded,
    };
    match name {
        "echo" => evident(echo(&texts)),
        "printf" => texts
            .first()
            .map_or(Stdin::Unknown, |f| evident(printf(f, &texts[1..]))),
        "tee" => stdin.clone(),
        "cat" | "dd" if file_args(&texts).is_empty() => stdin.clone(),
        "base64" | "base32" if has_flag(&texts, &["-d", "--decode", "-D"]) => decode(&base64),
        "openssl" if texts.contains(&"base64") && texts.contains(&"-d") => decode(&base64),
        "rev" => decode(&|t| {
            Some(
                t.lines()
                    .map(|l| l.chars().rev().collect::<String>() + "\n")
                    .collect(),
            )
        }),
        "xxd" if has_flag(&texts, &["-r"]) => decode(&hex),
        "tr" => match stdin {
            Stdin::Evident(t) => tr(t, &texts).map_or(Stdin::Unknown, Stdin::Evident),
            other => other.clone(),
        },
        "gunzip" | "zcat" | "bunzip2" | "bzcat" | "xzcat" | "unxz" | "zstdcat" | "uncompress" => {
            decode(&|_| None)
        }
        "gzip" | "bzip2" | "xz" | "zstd" if has_flag(&texts, &["-d", "--decompress"]) => {
            decode(&|_| None)
        }
        _ if DOWNLOADERS.contains(&name) => Stdin::Download,
        "find" => find_output(args),
        "dirname" if !texts.is_empty() && !texts.iter().any(|t| t.starts_with('-')) => {
            let dirs: Option<Vec<String>> =
                texts.iter().map(|t| super::operators::dirname(t)).collect();
            dirs.map_or(Stdin::Unknown, |d| evident(d.join("\n") + "\n"))
        }
        _ if [
            "python", "pypy", "perl", "ruby", "node", "php", "deno", "bun",
        ]
        .iter()
        .any(|p| name.starts_with(p))
            && texts.iter().any(|t| FETCH_CODE.is_match(t)) =>
        {
            Stdin::Download
        }
        _ => Stdin::Unknown,
    }
}

fn has_flag(args: &[&str], flags: &[&str]) -> bool {
    args.iter().any(|a| {
        flags.contains(a)
            || (a.starts_with('-')
                && !a.starts_with("--")
                && flags
                    .iter()
                    .any(|f| f.len() == 2 && a[1..].contains(&f[1..])))
    })
}

fn file_args<'a>(args: &[&'a str]) -> Vec<&'a str> {
    args.iter()
        .copied()
        .filter(|a| !a.starts_with('-') && !a.contains('='))
        .collect()
}

/// `echo [-neE] args…`.
fn echo(args: &[&str]) -> String {
    let mut newline = true;
    let mut escapes = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let flags = a
            .strip_prefix('-')
            .filter(|f| !f.is_empty() && f.chars().all(|c| "neE".contains(c)));
        let Some(flags) = flags else { break };
        newline &= !flags.contains('n');
        escapes = flags.contains('e') || (escapes && !flags.contains('E'));
        i += 1;
    }
    let body = args[i..].join(" ");
    let mut out = if escapes { decode_ansi_c(&body) } else { body };
    if newline {
        out.push('\n');
    }
    out
}

/// `printf FORMAT args…` for `%s`, `%b`, `%c`, `%d` and escapes; the format is reused while
/// arguments remain.
fn printf(format: &str, args: &[&str]) -> String {
    let format = decode_ansi_c(&format.replace("%%", "\u{0}"));
    let mut out = String::new();
    let mut args = args.iter();
    loop {
        let mut used = false;
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(if c == '\u{0}' { '%' } else { c });
                continue;
            }
            while chars.peek().is_some_and(|c| "-+ #0123456789.".contains(*c)) {
                chars.next();
            }
            let conv = chars.next().unwrap_or('s');
            let arg = args.next().copied().unwrap_or_default();
            used = true;
            match conv {
                'b' => out.push_str(&decode_ansi_c(arg)),
                'c' => out.extend(arg.chars().next()),
                _ => out.push_str(arg),
            }
        }
        if !used || args.len() == 0 {
            return out;
        }
    }
}

fn base64(text: &str) -> Option<String> {
    String::from_utf8(base64_bytes(text)?).ok()
}

/// Decodes base64 (standard or URL-safe alphabet, whitespace ignored, padding optional).
pub(super) fn base64_bytes(text: &str) -> Option<Vec<u8>> {
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in text.bytes().filter(|c| !c.is_ascii_whitespace()) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    Some(out)
}

fn hex(text: &str) -> Option<String> {
    let digits: Vec<u8> = text.bytes().filter(u8::is_ascii_hexdigit).collect();
    let bytes: Vec<u8> = digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap_or("0"), 16).unwrap_or(0))
        .collect();
    String::from_utf8(bytes).ok()
}

/// `tr SET1 SET2` (ranges, no classes); `None` for forms it does not follow.
fn tr(text: &str, args: &[&str]) -> Option<String> {
    let [from, to] = args else { return None };
    let (from, to) = (tr_set(from)?, tr_set(to)?);
    let last = *to.last()?;
    Some(
        text.chars()
            .map(|c| match from.iter().position(|f| *f == c) {
                Some(i) => to.get(i).copied().unwrap_or(last),
                None => c,
            })
            .collect(),
    )
}

fn tr_set(s: &str) -> Option<Vec<char>> {
    if s.starts_with('-') || s.contains("[:") {
        return None;
    }
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if i + 2 < chars.len() && chars[i + 1] == '-' {
            out.extend(chars[i]..=chars[i + 2]);
            i += 3;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    Some(out)
}

/// Whether a loop condition never ends (`while true`, `while :`, `until false`).
#[must_use]
pub fn endless(condition: &CompoundList, until: bool) -> bool {
    let text = condition.to_string();
    let word = text.trim().trim_end_matches(';').trim();
    if until {
        matches!(word, "false" | "/bin/false")
    } else {
        matches!(word, "true" | ":" | "/bin/true" | "[ 1 ]" | "((1))")
    }
}

/// Whether a list starts anything in the background (`cmd &`), at any depth.
#[must_use]
pub fn backgrounds(list: &CompoundList) -> bool {
    list.0.iter().any(|item| {
        matches!(item.1, SeparatorOperator::Async)
            || std::iter::once(&item.0.first)
                .chain(item.0.additional.iter().map(|a| match a {
                    brush_parser::ast::AndOr::And(p) | brush_parser::ast::AndOr::Or(p) => p,
                }))
                .flat_map(|p| &p.seq)
                .any(|c| match c {
                    Command::Compound(CompoundCommand::BraceGroup(g), _) => backgrounds(&g.list),
                    Command::Compound(CompoundCommand::Subshell(s), _) => backgrounds(&s.list),
                    _ => false,
                })
    })
}

/// Whether the body of function `name` runs `name` in the background or in a pipeline.
#[must_use]
pub fn self_forking(name: &str, body: &CompoundCommand) -> bool {
    compound_forks(name, body, false)
}

fn compound_forks(name: &str, c: &CompoundCommand, forked: bool) -> bool {
    let lists: Vec<&CompoundList> = match c {
        CompoundCommand::BraceGroup(g) => vec![&g.list],
        CompoundCommand::Subshell(s) => vec![&s.list],
        CompoundCommand::IfClause(i) => {
            let mut v = vec![&i.condition, &i.then];
            for e in i.elses.iter().flatten() {
                v.extend(e.condition.iter());
                v.push(&e.body);
            }
            v
        }
        CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => vec![&w.0, &w.1.list],
        CompoundCommand::ForClause(f) => vec![&f.body.list],
        CompoundCommand::ArithmeticForClause(f) => vec![&f.body.list],
        CompoundCommand::CaseClause(c) => c.cases.iter().filter_map(|i| i.cmd.as_ref()).collect(),
        CompoundCommand::Coprocess(_) => return true,
        CompoundCommand::Arithmetic(_) => vec![],
    };
    lists.into_iter().any(|l| list_forks(name, l, forked))
}

fn list_forks(name: &str, list: &CompoundList, forked: bool) -> bool {
    list.0.iter().any(|item| {
        let bg = forked || matches!(item.1, SeparatorOperator::Async);
        let pipelines =
            std::iter::once(&item.0.first).chain(item.0.additional.iter().map(|a| match a {
                brush_parser::ast::AndOr::And(p) | brush_parser::ast::AndOr::Or(p) => p,
            }));
        pipelines.into_iter().any(|p| pipeline_forks(name, p, bg))
    })
}

fn pipeline_forks(name: &str, p: &Pipeline, bg: bool) -> bool {
    let forked = bg || p.seq.len() > 1;
    p.seq.iter().any(|c| match c {
        Command::Simple(s) => forked && s.word_or_name.as_ref().is_some_and(|w| w.value == name),
        Command::Compound(c, _) => compound_forks(name, c, forked),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoders_follow_what_a_script_would_be() {
        assert_eq!(base64("cm0gLXJmIC8=").as_deref(), Some("rm -rf /"));
        assert_eq!(hex("726d202d7266202f").as_deref(), Some("rm -rf /"));
        assert_eq!(tr("ez", &["a-z", "n-za-m"]).as_deref(), Some("rm"));
        assert_eq!(printf(r"\x72\x6d %s", &["-rf"]), "rm -rf");
        assert_eq!(echo(&["-n", "a", "b"]), "a b");
        assert_eq!(echo(&["-e", r"\x72m"]), "rm\n");
    }
}
