//! What a wrapper stands for ([`Peeled`]) and the small readers of a wrapper's arguments
//! that the peeler and the launchers share. A leaf beside [`super::field`].

use super::field::Field;

/// What a wrapper stands for.
pub(super) enum Peeled {
    /// Another command line (the wrapped one).
    Argv(Vec<Field>),
    /// A string run by a shell.
    Script(String),
    /// A shell that reads its script from standard input.
    ShellStdin,
    /// A shell running a script file.
    File(String),
    /// Not a wrapper: this is the command.
    Command,
    /// Nothing runs (`command -v rm`).
    Nothing,
}

/// The operands after a command's options: skips `-x`, `--long[=v]` and the arguments of
/// the options listed in `with_arg`, up to `--`.
pub(super) fn operands(args: &[Field], with_arg: &str) -> usize {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if t == "--" {
            return i + 1;
        }
        if !t.starts_with('-') || t == "-" {
            return i;
        }
        if !t.starts_with("--") && t.len() == 2 && with_arg.contains(&t[1..]) {
            i += 1;
        }
        i += 1;
    }
    i
}

/// The paths that name standard input.
pub(super) fn is_stdin_path(p: &str) -> bool {
    matches!(
        p,
        "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0" | "/dev/fd/63"
    )
}
