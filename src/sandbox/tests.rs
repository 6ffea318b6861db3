//! The grant computation against made-up trees, and policy building.

use super::*;
use std::collections::BTreeMap;

/// A lister over a fixed tree: directory → entries (full paths).
fn tree(entries: &[(&str, &[&str])]) -> impl Fn(&Path) -> Vec<PathBuf> {
    let map: BTreeMap<PathBuf, Vec<PathBuf>> = entries
        .iter()
        .map(|(d, kids)| {
            (
                PathBuf::from(d),
                kids.iter().map(|k| Path::new(d).join(k)).collect(),
            )
        })
        .collect();
    move |p: &Path| map.get(p).cloned().unwrap_or_default()
}

fn paths(v: &[&str]) -> Vec<PathBuf> {
    v.iter().map(PathBuf::from).collect()
}

#[test]
fn nothing_denied_grants_the_root_whole() {
    let list = tree(&[("/", &["etc", "home"])]);
    assert_eq!(grants(Path::new("/"), &[], &list), paths(&["/"]));
}

#[test]
fn a_denied_path_is_cut_out_sibling_by_sibling() {
    let list = tree(&[
        ("/", &["etc", "home", "usr"]),
        ("/home", &["me", "you"]),
        ("/home/me", &[".bashrc", ".ssh", "src"]),
    ]);
    let denied = paths(&["/home/me/.ssh"]);
    assert_eq!(
        grants(Path::new("/"), &denied, &list),
        paths(&[
            "/etc",
            "/home/me/.bashrc",
            "/home/me/src",
            "/home/you",
            "/usr"
        ])
    );
}

#[test]
fn a_missing_denied_path_still_splits_its_ancestors() {
    // ~/.aws does not exist yet: ~ is still not granted whole, so a later ~/.aws stays hidden.
    let list = tree(&[("/", &["home"]), ("/home", &["me"]), ("/home/me", &["a"])]);
    let denied = paths(&["/home/me/.aws"]);
    assert_eq!(
        grants(Path::new("/"), &denied, &list),
        paths(&["/home/me/a"])
    );
}

#[test]
fn several_denied_paths_and_nested_ones() {
    let list = tree(&[
        ("/h", &[".ssh", ".config", "x"]),
        ("/h/.config", &["gh", "nvim"]),
        ("/h/.ssh", &["id_rsa"]),
    ]);
    let denied = paths(&["/h/.ssh", "/h/.config/gh", "/h/.ssh/id_rsa"]);
    assert_eq!(
        grants(Path::new("/h"), &denied, &list),
        paths(&["/h/.config/nvim", "/h/x"])
    );
}

#[test]
fn a_root_inside_a_denied_path_grants_nothing() {
    let list = tree(&[]);
    let denied = paths(&["/h/.ssh"]);
    assert!(grants(Path::new("/h/.ssh/keys"), &denied, &list).is_empty());
    assert!(grants(Path::new("/h/.ssh"), &denied, &list).is_empty());
}

#[test]
fn a_root_beside_the_denied_paths_is_granted_whole() {
    let list = tree(&[]);
    let denied = paths(&["/h/.ssh"]);
    assert_eq!(grants(Path::new("/tmp"), &denied, &list), paths(&["/tmp"]));
    // A prefix in characters is not a parent.
    assert_eq!(
        grants(Path::new("/h/.sshx"), &denied, &list),
        paths(&["/h/.sshx"])
    );
}

#[test]
fn a_symlink_cycle_ends() {
    // /a/loop resolves to /a (the lister resolves links).
    let list = |p: &Path| match p.to_str() {
        Some("/a") => paths(&["/a", "/a/b"]),
        _ => Vec::new(),
    };
    let denied = paths(&["/a/secret"]);
    assert_eq!(grants(Path::new("/a"), &denied, &list), paths(&["/a/b"]));
}

#[test]
fn build_refuses_without_landlock_and_without_network_support() {
    let t = tempfile::tempdir().unwrap();
    let req = Request {
        project_root: t.path().into(),
        cwd: t.path().into(),
        network: true,
        ..Default::default()
    };
    let Err(PolicyError::Unsupported { reason, .. }) = Policy::build(&req, None) else {
        panic!("no ABI must fail");
    };
    assert_eq!(reason, "landlock_unavailable");
    let req = Request {
        network: false,
        ..req
    };
    let Err(PolicyError::Unsupported { reason, .. }) = Policy::build(&req, Some(3)) else {
        panic!("ABI 3 cannot deny TCP");
    };
    assert_eq!(reason, "network_unsupported");
    assert!(Policy::build(&req, Some(4)).is_ok());
}

#[test]
fn build_resolves_paths_and_hides_the_credential_stores() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let proj = t.path().join("proj");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    let req = Request {
        project_root: proj.clone(),
        cwd: proj.clone(),
        home: Some(home.clone()),
        network: true,
        deny_read: vec![home.join("notes")],
        ..Default::default()
    };
    let p = Policy::build(&req, Some(7)).unwrap();
    let real_proj = proj.canonicalize().unwrap();
    assert_eq!(p.allow_write.iter().filter(|w| **w == real_proj).count(), 1);
    assert!(p.allow_write.contains(&PathBuf::from("/tmp")));
    assert!(p.deny_read.contains(&home.join(".ssh")));
    assert!(p.deny_read.contains(&home.join(".git-credentials")));
    assert!(p.deny_read.contains(&home.join("notes")));
    // A writable path inside a hidden one is refused, and so is a missing one.
    let bad = Request {
        allow_write: vec![home.join(".ssh")],
        ..req.clone()
    };
    assert!(matches!(
        Policy::build(&bad, Some(7)),
        Err(PolicyError::BadPath(_))
    ));
    let missing = Request {
        allow_write: vec![t.path().join("nope")],
        ..req
    };
    assert!(matches!(
        Policy::build(&missing, Some(7)),
        Err(PolicyError::BadPath(_))
    ));
}

#[test]
fn build_resolves_the_covers_and_refuses_work_under_them() {
    let t = tempfile::tempdir().unwrap();
    let (run, state, proj) = (
        t.path().join("run"),
        t.path().join("st"),
        t.path().join("p"),
    );
    for d in [&run, &state.join("inner"), &proj] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::os::unix::fs::symlink(&run, t.path().join("run-link")).unwrap();
    let req = Request {
        project_root: proj.clone(),
        cwd: proj.clone(),
        network: true,
        hidden: vec![
            t.path().join("run-link"),
            state.clone(),
            state.join("inner"),
            t.path().join("missing"),
        ],
        revealed: vec![t.path().join("run-link/shell-1")],
        ..Default::default()
    };
    let p = Policy::build(&req, Some(7)).unwrap();
    let real = |d: &Path| d.canonicalize().unwrap();
    // Links resolved, nested and missing ones dropped; the revealed one follows its cover.
    assert_eq!(p.hidden, vec![real(&run), real(&state)]);
    assert_eq!(p.revealed, vec![real(&run).join("shell-1")]);
    let inside = Request {
        cwd: state.join("inner"),
        ..req
    };
    assert!(matches!(
        Policy::build(&inside, Some(7)),
        Err(PolicyError::BadPath(_))
    ));
}
