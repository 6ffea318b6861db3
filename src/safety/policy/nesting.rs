//! How deeply a line nests: lines past [`MAX_NESTING`] are not parsed (the parser recurses per
//! level). A leaf: the entry, the evaluator and the completeness check all ask it.

/// Lines nested deeper than this (brackets, braces, substitutions) are not parsed: the
/// parser recurses per level, and a thread's stack is finite.
const MAX_NESTING: usize = 48;

/// Whether `text` is nested too deeply to parse.
pub(super) fn too_deep(text: &str) -> bool {
    nesting(text) > MAX_NESTING
}

/// The deepest nesting in `line`: brackets, compound-command keywords (`if` … `fi`, `while`
/// … `done`, `case` … `esac`; quoted ones too, which only errs on the safe side), and
/// backquotes as one level per pair.
fn nesting(line: &str) -> usize {
    brackets(line).max(keywords(line))
}

/// The deepest `if`/`while`/`until`/`for`/`select`/`case` nesting, by words. A `case` counts
/// as eight levels: the parser's time grows about twofold per nested `case`.
fn keywords(line: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for word in line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        match word {
            "if" | "while" | "until" | "for" | "select" | "case" => {
                depth += if word == "case" { 8 } else { 1 };
                max = max.max(depth);
            }
            "esac" => depth = depth.saturating_sub(8),
            "fi" | "done" => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The deepest bracket nesting in `line`, counting backquotes as one level per pair.
fn brackets(line: &str) -> usize {
    let (mut depth, mut max, mut ticks) = (0usize, 0usize, 0usize);
    for c in line.chars() {
        match c {
            '(' | '{' | '[' => {
                depth += 1;
                max = max.max(depth);
            }
            ')' | '}' | ']' => depth = depth.saturating_sub(1),
            '`' => ticks += 1,
            _ => {}
        }
    }
    max + ticks / 2
}
