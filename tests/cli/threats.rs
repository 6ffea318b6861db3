//! docs/THREATS.md stays true: every test it names as proof of a boundary exists (a renamed
//! or deleted test fails here, so the threat model cannot point at nothing).

use std::collections::BTreeSet;
use std::path::Path;

/// Every `.rs` file below `dir`.
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The names `a::b::c` written in backquotes in `text`.
fn paths_in(text: &str) -> BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| {
            s.contains("::")
                && s.split("::").all(|p| {
                    p == "*"
                        || (!p.is_empty()
                            && p.chars()
                                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
                })
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn every_test_the_threat_model_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/THREATS.md")).unwrap();
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    sources(&root.join("tests"), &mut files);
    let stems: BTreeSet<String> = files
        .iter()
        .filter_map(|f| f.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    let code: String = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    let names = paths_in(&doc);
    assert!(
        names.len() > 40,
        "too few test names found in THREATS.md: {names:?}"
    );
    let missing: Vec<&String> = names
        .iter()
        .filter(|path| {
            let parts: Vec<&str> = path.split("::").collect();
            let last = parts[parts.len() - 1];
            if last == "*" {
                // A module of tests: its file or a `mod` of that name.
                let module = parts[parts.len() - 2];
                return !stems.contains(module) && !code.contains(&format!("mod {module}"));
            }
            // A test function, or a module named in prose (`store::trust`).
            !code.contains(&format!("fn {last}(")) && !stems.contains(last)
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/THREATS.md names tests that do not exist (renamed? update the row): {missing:?}"
    );
}
