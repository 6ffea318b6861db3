//! Programs that run a command given as text: shells (`-c STRING`, a script file, or
//! standard input, `-s` included), job schedulers reading their job from standard input or
//! a file (`at`, `batch`), PowerShell's `Invoke-Expression`, and terminal multiplexers
//! (`tmux send-keys`, `tmux new-window CMD`, `screen -X stuff`).

use super::field::Field;
use super::peeled::{Peeled, is_stdin_path, operands};

/// A shell's arguments: `-c STRING` is its script; no script operand means standard input.
pub(super) fn shell(args: &[Field]) -> Peeled {
    let mut i = 0;
    let (mut dash_c, mut dash_s) = (false, false);
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if matches!(t, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") {
            i += 2;
            continue;
        }
        if t.starts_with('-') && t.len() > 1 && !t.starts_with("--") {
            dash_c |= t.contains('c');
            dash_s |= t.contains('s');
            i += 1;
            continue;
        }
        if t == "--command" {
            dash_c = true;
            i += 1;
            continue;
        }
        if t.starts_with("--") {
            i += 1;
            continue;
        }
        break;
    }
    match args.get(i) {
        Some(script) if dash_c => Peeled::Script(script.text.clone()),
        // `sh -s -- -y`: the script is standard input, the operands are its arguments.
        _ if dash_s => Peeled::ShellStdin,
        Some(file) if !is_stdin_path(&file.text) && file.text != "-" => {
            Peeled::File(file.text.clone())
        }
        _ => Peeled::ShellStdin,
    }
}

/// `at [-q Q] [-m] TIME`, `batch`: the job is standard input, or the file of `-f FILE`;
/// listing and removing jobs (`-l`, `-r`, `-d`, `-c`) run nothing.
pub(super) fn at(args: &[Field]) -> Peeled {
    let texts: Vec<&str> = args.iter().map(|f| f.text.as_str()).collect();
    if texts
        .iter()
        .any(|t| matches!(*t, "-l" | "-r" | "-d" | "-c" | "-V" | "--help"))
    {
        return Peeled::Nothing;
    }
    match texts.iter().position(|t| *t == "-f") {
        Some(i) => texts
            .get(i + 1)
            .map_or(Peeled::Nothing, |f| Peeled::File((*f).to_string())),
        None => Peeled::ShellStdin,
    }
}

/// PowerShell's `iex STRING` / `Invoke-Expression`: its operand is a script; without one it
/// runs what its pipe gives it (`irm URL | iex`).
pub(super) fn invoke_expression(args: &[Field]) -> Peeled {
    let rest: Vec<&Field> = args
        .iter()
        .filter(|a| !a.text.eq_ignore_ascii_case("-command"))
        .collect();
    if rest.is_empty() {
        return Peeled::ShellStdin;
    }
    let words: Vec<&str> = rest.iter().map(|f| f.text.as_str()).collect();
    Peeled::Script(words.join(" "))
}

/// `tmux send-keys -t T 'rm -rf /' Enter`, `tmux new-window 'cmd'`, `screen -X stuff 'cmd'`:
/// text typed into, or run in, another terminal is judged as a script.
pub(super) fn multiplexer(name: &str, args: &[Field]) -> Peeled {
    let texts: Vec<&str> = args.iter().map(|f| f.text.as_str()).collect();
    let after = |i: usize| {
        let rest = &args[i + 1..];
        let start = operands(rest, "tcnsxyeFNlTp");
        let words: Vec<&str> = rest[start.min(rest.len())..]
            .iter()
            .map(|f| f.text.as_str())
            .filter(|w| !matches!(*w, "Enter" | "C-m" | "KPEnter" | "C-j"))
            .collect();
        words.join(" ")
    };
    let sub = |names: &[&str]| texts.iter().position(|t| names.contains(t));
    if name == "screen" {
        return match sub(&["stuff"]) {
            Some(i) => Peeled::Script(texts.get(i + 1).unwrap_or(&"").replace("\\n", "\n")),
            None => Peeled::Command,
        };
    }
    if let Some(i) = sub(&["send-keys", "send"]) {
        return Peeled::Script(after(i));
    }
    match sub(&[
        "new-session",
        "new",
        "new-window",
        "neww",
        "split-window",
        "splitw",
        "respawn-pane",
        "respawnp",
        "run-shell",
        "run",
    ]) {
        Some(i) => match after(i) {
            script if script.is_empty() => Peeled::Command,
            script => Peeled::Script(script),
        },
        None => Peeled::Command,
    }
}
