//! Generated assets (completions/, man/) are fresh: regenerated from the clap model and
//! compared byte for byte. `UPDATE_ASSETS=1 cargo test --test cli assets` rewrites them.

use std::collections::BTreeMap;
use std::path::Path;

fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for sub in ["completions", "man"] {
        let Ok(rd) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in rd.flatten() {
            let name = format!("{sub}/{}", e.file_name().to_string_lossy());
            out.insert(name, std::fs::read(e.path()).expect("read asset"));
        }
    }
    out
}

#[test]
fn assets_are_fresh() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let st = std::process::Command::new(env!("CARGO_BIN_EXE_kpty"))
        .arg("__generate-assets")
        .arg(tmp.path())
        .status()
        .expect("run kpty");
    assert!(st.success());
    let fresh = files(tmp.path());
    assert!(fresh.contains_key("completions/kpty.bash") && fresh.contains_key("man/kpty.1"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("UPDATE_ASSETS").is_some() {
        for sub in ["completions", "man"] {
            let _ = std::fs::remove_dir_all(root.join(sub));
        }
        let st = std::process::Command::new(env!("CARGO_BIN_EXE_kpty"))
            .arg("__generate-assets")
            .arg(root)
            .status()
            .expect("run kpty");
        assert!(st.success());
        return;
    }
    let checked_in = files(root);
    let stale: Vec<&String> = fresh
        .keys()
        .chain(checked_in.keys())
        .filter(|k| fresh.get(*k) != checked_in.get(*k))
        .collect();
    assert!(
        stale.is_empty(),
        "completions/ or man/ are stale ({stale:?}); run `UPDATE_ASSETS=1 cargo test --test cli assets` and commit the result"
    );
}
