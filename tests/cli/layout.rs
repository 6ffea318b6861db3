//! The layout the style guide asks for, checked on `src/` as it stands: `unsafe` only in
//! src/sys.rs, no function over 80 body lines, no import circle among the files of a folder,
//! no `pub` item that nothing outside its module names, no message with a line break's
//! indentation inside it (a lost `\` continuation).
//!
//! Today's offenders are listed in `layout/allowlist.txt`. The list only shrinks: a new
//! offender fails, and so does a listed one that is gone (delete its line) or a circle that
//! got smaller (the failure prints the line to write instead).

mod imports;
mod rules;
mod scan;

use scan::Crate;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const ALLOWLIST: &str = include_str!("layout/allowlist.txt");

fn krate() -> Crate {
    Crate::load(Path::new(env!("CARGO_MANIFEST_DIR")))
}

/// The allowlisted lines of one rule (`unsafe`, `long`, `cycle`, `pub`), without the rule.
fn allowed(rule: &str) -> BTreeSet<String> {
    ALLOWLIST
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.strip_prefix(rule)?.strip_prefix(' '))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// Fail unless `found` (key → where, for the message) is exactly the allowlist of `rule`.
fn compare(rule: &str, what: &str, found: BTreeMap<String, String>) {
    let allowed = allowed(rule);
    let new: Vec<String> = found
        .iter()
        .filter(|(k, _)| !allowed.contains(*k))
        .map(|(k, at)| format!("  {rule} {k}    ({at})"))
        .collect();
    let gone: Vec<String> = allowed
        .iter()
        .filter(|k| !found.contains_key(*k))
        .map(|k| format!("  {rule} {k}"))
        .collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "{what}\n\nnew offenders (fix them; the allowlist only shrinks):\n{}\n\n\
         fixed (delete these lines from tests/cli/layout/allowlist.txt):\n{}\n",
        new.join("\n"),
        gone.join("\n"),
    );
}

#[test]
fn unsafe_code_lives_in_sys_only() {
    let mut found = BTreeMap::<String, String>::new();
    for (file, line) in rules::unsafe_outside_sys(&krate()) {
        let at = found.entry(file.clone()).or_default();
        at.push_str(&format!("{file}:{line} "));
    }
    compare(
        "unsafe",
        "`unsafe` outside src/sys.rs (wrap the call there)",
        found,
    );
}

#[test]
fn no_message_holds_a_lost_line_break() {
    let mut found = BTreeMap::<String, String>::new();
    for (file, line) in rules::indented_strings(&krate()) {
        found.insert(format!("{file}:{line}"), "a run of spaces mid-text".into());
    }
    compare(
        "indented",
        "string literals with a source line's indentation inside (end the line with `\\`)",
        found,
    );
}

#[test]
fn no_function_is_over_80_lines() {
    let found = rules::long_fns(&krate())
        .into_iter()
        .map(|(file, name, lines)| (format!("{file} {name}"), format!("{lines} lines")))
        .collect();
    let what = format!(
        "functions over {} body lines (split them into named steps)",
        rules::MAX_FN_LINES
    );
    compare("long", &what, found);
}

#[test]
fn no_import_circle_among_the_files_of_a_folder() {
    let allowed: Vec<(String, BTreeSet<String>)> = allowed("cycle")
        .iter()
        .filter_map(|l| {
            let mut words = l.split(' ').map(String::from);
            Some((words.next()?, words.collect()))
        })
        .collect();
    let mut found = BTreeMap::new();
    for imports::Circle {
        folder,
        members,
        edges,
    } in imports::cycles(&krate())
    {
        let key = |m: &BTreeSet<String>| {
            format!(
                "{folder} {}",
                m.iter().cloned().collect::<Vec<_>>().join(" ")
            )
        };
        // A circle inside a listed one has shrunk: say which line to write instead.
        let shrunk = allowed
            .iter()
            .find(|(f, m)| *f == folder && members.is_subset(m) && members != *m);
        let at = match shrunk {
            Some((_, m)) => format!("shrunk from `cycle {}`: write the new line", key(m)),
            None => "a new circle: move what the files share into a leaf file".into(),
        };
        found.insert(key(&members), format!("{at}; edges: {}", edges.join(", ")));
    }
    compare("cycle", "import circles among the files of a folder", found);
}

#[test]
fn pub_items_are_named_outside_their_module() {
    let found = rules::needless_pub(&krate())
        .into_iter()
        .map(|(file, name, line)| (format!("{file} {name}"), format!("{file}:{line}")))
        .collect();
    let what = "`pub` items nothing outside their module names (make them private)";
    compare("pub", what, found);
}

/// The checker itself: a circle through `use super::x`, a grouped `use`, and a path in an
/// expression is found; a test module's imports are not part of the flow.
#[test]
fn the_circle_finder_sees_every_kind_of_path() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("f")).expect("src/f");
    let files = [
        ("src/lib.rs", "mod f;\n"),
        ("src/f/mod.rs", "mod a;\nmod b;\nmod c;\nmod d;\n"),
        ("src/f/a.rs", "use super::{b::B, d};\n"),
        ("src/f/b.rs", "pub fn g() { crate::f::c::h(); }\n"),
        ("src/f/c.rs", "fn h() { super::a::x(); }\n"),
        (
            "src/f/d.rs",
            "#[cfg(test)]\nmod tests { use super::super::a; }\n",
        ),
    ];
    for (path, text) in files {
        std::fs::write(dir.path().join(path), text).expect("write a fixture file");
    }
    let found: Vec<_> = imports::cycles(&Crate::load(dir.path()))
        .into_iter()
        .map(|c| (c.folder, c.members, c.edges))
        .collect();
    let abc: BTreeSet<String> = ["a", "b", "c"].map(String::from).into();
    let edges = ["a → b", "b → c", "c → a"].map(String::from).to_vec();
    assert_eq!(found, vec![("src/f".to_string(), abc, edges)]);
}
