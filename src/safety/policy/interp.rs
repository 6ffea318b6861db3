//! Interpreter one-liners (`python3 -c`, `perl -e`, `ruby -e`, `node -e`, `php -r`, `lua -e`,
//! awk programs) matched by their evident calls: strings handed to a shell runner are judged
//! as shell, recursive removals of protected paths, fork loops, credential paths and block
//! devices named in the code, and a socket opened beside a spawned shell (a reverse shell).
//! Not a sandbox: code that builds its strings at run time is not followed.

use std::sync::LazyLock;

use regex::Regex;

use super::catalog::{FORK_BOMB, RM_ROOT, SOCKET_SHELL, WRITE_DEVICE};
use super::field::Field;
use super::paths::{block_device, protected};
use super::secrets::credential;
use super::state::Eval;

/// An interpreter language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// Python.
    Python,
    /// Perl.
    Perl,
    /// Ruby.
    Ruby,
    /// Node.js (and Deno, Bun).
    Node,
    /// PHP.
    Php,
    /// Lua.
    Lua,
    /// awk (gawk, mawk, nawk, busybox awk): `system()` and pipes to `"sh"`.
    Awk,
}

/// The language of an interpreter command name.
#[must_use]
pub fn language(name: &str) -> Option<Lang> {
    match name {
        n if n.starts_with("python") || n.starts_with("pypy") => Some(Lang::Python),
        n if n.starts_with("perl") => Some(Lang::Perl),
        "ruby" | "jruby" => Some(Lang::Ruby),
        "node" | "nodejs" | "deno" | "bun" => Some(Lang::Node),
        n if n.starts_with("php") => Some(Lang::Php),
        n if n.starts_with("lua") => Some(Lang::Lua),
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => Some(Lang::Awk),
        _ => None,
    }
}

/// The code given on the command line (`-c`, `-e`, `--eval`, `-r`), joined.
#[must_use]
pub fn script_arg(lang: Lang, args: &[Field]) -> Option<String> {
    if lang == Lang::Awk {
        return awk_program(args);
    }
    let flags: &[&str] = match lang {
        Lang::Python => &["-c"],
        Lang::Perl => &["-e", "-E"],
        Lang::Ruby | Lang::Lua => &["-e"],
        Lang::Node => &["-e", "--eval", "-p", "--print", "eval"],
        Lang::Php => &["-r"],
        Lang::Awk => &[],
    };
    let mut code = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        // Clustered short flags end in the code flag: `-le`, `-Bc`, `-ne`.
        let takes = flags.contains(&t)
            || (t.starts_with('-')
                && !t.starts_with("--")
                && t.len() > 2
                && flags.iter().any(|f| f.len() == 2 && t.ends_with(&f[1..])));
        if takes {
            code.extend(args.get(i + 1).map(|f| f.text.clone()));
            i += 2;
            continue;
        }
        if lang == Lang::Python && !t.starts_with('-') {
            break;
        }
        i += 1;
    }
    (!code.is_empty()).then(|| code.join("\n"))
}

/// awk's program: its first operand (after `-F fs`, `-v var=val`), or the `-e`/`--source`
/// texts; none with `-f FILE`.
fn awk_program(args: &[Field]) -> Option<String> {
    let mut code = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        match t {
            "-f" | "--file" => return None,
            "-e" | "--source" => code.extend(args.get(i + 1).map(|f| f.text.clone())),
            "-F" | "-v" | "--assign" | "--field-separator" => {}
            "--" => {
                i += 1;
                break;
            }
            _ if t.starts_with('-') && t.len() > 1 => {
                i += 1;
                continue;
            }
            _ => break,
        }
        i += 2;
    }
    if code.is_empty() {
        code.extend(args.get(i).map(|f| f.text.clone()));
    }
    (!code.is_empty()).then(|| code.join("\n"))
}

/// Whether the interpreter reads its program from standard input (no script operand).
#[must_use]
pub fn reads_stdin(args: &[Field]) -> bool {
    args.iter()
        .all(|a| a.text.starts_with('-') && a.text != "-" || a.text.is_empty())
        || args.iter().any(|a| a.text == "-")
}

static RUNNER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)\b(system|popen|popen2|popen3|exec[lv]?p?e?|execSync|execFileSync|spawnSync|spawn|execFile
        |check_output|check_call|call|run|Popen|getoutput|getstatusoutput|shell_exec|passthru
        |proc_open|capture2e?|capture3|os\.execute|io\.popen)\s*\(|`|\bqx\s*[{(/|!]|%x[{(]|\b(system|exec)\s+['\x22]
        |\|\s*\x22|\x22\s*\|\s*getline\b|\|&\s*\x22",
    )
    .expect("runner regex")
});

static REMOVER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(rmtree|rm_rf|rm_r|remove_tree|rmSync|rmdirSync|rimraf|remove_dir_all|rmdir|removedirs|remove_entry_secure)\b")
        .expect("remover regex")
});

static FORK_LOOP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?s)\b(while|loop|until|for\s*\(\s*;\s*;)\b?.*\bfork\b|\bfork\b.*\b(while|until)\b",
    )
    .expect("fork regex")
});

static HOME_CALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"Path\.home\(\)|homedir\(\)|expanduser\(\s*['"]~['"]\s*\)|ENV\s*\[\s*['"]HOME['"]\s*\]|\$ENV\{\s*HOME\s*\}|environ\s*\[\s*['"]HOME['"]\s*\]|getenv\(\s*['"]HOME['"]\s*\)|Dir\.home"#)
        .expect("home regex")
});

static OPENS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(open|write|writeFile|writeFileSync|File\.write|sysopen|fopen|file_put_contents|io\.open)\b")
        .expect("open regex")
});

static SOCKET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"socket\.socket|socket\.create_connection|\bsocket\s*\(|TCPSocket|UDPSocket|IO::Socket|\bSocket\.new|fsockopen|stream_socket_client|net\.connect|net\.Socket|new\s+net\.|createConnection|\bsocket\.tcp\b|/inet/tcp/|require\(\s*['\x22]net['\x22]\s*\)",
    )
    .expect("socket regex")
});

static SPAWN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"pty\.spawn|\bdup2?\b|\bsubprocess\b|os\.system|\bpopen|\bexec[a-z]*\s*\(|\bexec\s+['\x22]|\bspawn|\bsystem\s*\(|child_process|proc_open|shell_exec|passthru|/bin/(ba|z|da)?sh\b|cmd\.exe|\|&",
    )
    .expect("spawn regex")
});

/// The string literals of `code` (single, double and back quotes; simple escapes).
fn literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if !matches!(c, '\'' | '"' | '`') {
            continue;
        }
        let mut s = String::new();
        while let Some(d) = chars.next() {
            match d {
                '\\' => {
                    if let Some(n) = chars.next() {
                        s.push_str(&super::words::decode_ansi_c(&format!("\\{n}")));
                    }
                }
                _ if d == c => break,
                _ => s.push(d),
            }
        }
        out.push(s);
    }
    out
}

/// The list literals of `code` (`["rm", "-rf", "/"]`), each joined into one command line.
fn list_literals(code: &str) -> Vec<String> {
    static LIST: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"[\[(]\s*((?:(?:'[^']*'|"[^"]*")\s*,\s*)+(?:'[^']*'|"[^"]*"))\s*,?\s*[\])]"#)
            .expect("list regex")
    });
    LIST.captures_iter(code)
        .map(|c| literals(&c[1]).join(" "))
        .collect()
}

/// Judges interpreter code by its evident calls.
pub fn judge(e: &mut Eval, code: &str, seen: &str) {
    if SOCKET.is_match(code) && SPAWN.is_match(code) {
        return e.block(&SOCKET_SHELL, seen);
    }
    let mut strings = literals(code);
    if HOME_CALL.is_match(code) {
        strings.push("~".into());
    }
    if RUNNER.is_match(code) {
        let all = strings.join(" ");
        for s in list_literals(code).iter().chain(&strings).chain([&all]) {
            e.nested(s);
            if e.done() {
                return;
            }
        }
        if code.contains('`') {
            for s in code.split('`').skip(1).step_by(2) {
                e.nested(s);
            }
        }
    }
    let cwd = e.cwd.clone();
    let fields: Vec<Field> = strings.iter().map(|s| Field::literal(s)).collect();
    if REMOVER.is_match(code)
        && fields
            .iter()
            .any(|f| protected(f, cwd.as_deref()).is_some())
    {
        return e.block(&RM_ROOT, seen);
    }
    if FORK_LOOP.is_match(code) {
        return e.block(&FORK_BOMB, seen);
    }
    if let Some(rule) = fields.iter().find_map(|f| credential(f, cwd.as_deref())) {
        return e.block(rule, seen);
    }
    if OPENS.is_match(code) && fields.iter().any(|f| block_device(f, cwd.as_deref())) {
        e.block(&WRITE_DEVICE, seen);
    }
}
