//! A really full disk: the state directory on a 2 MiB tmpfs in a private mount namespace.
//! An action whose audit entry cannot be written is refused (`AUDIT_FAILED`) and does not
//! run, unless `KPTY_AUDIT_FAIL=open`; once there is room again, everything works and is
//! audited.

use crate::support::*;
use serde_json::Value;
use std::process::Command;

/// The scenario, run inside `unshare --mount`: `$1` is kpty, `$2` the results folder.
const SCRIPT: &str = r#"
set -u
K=$1; R=$2; S=$KPTY_STATE_DIR
mkdir -p "$S"
mount -t tmpfs -o size=2m,mode=0700 tmpfs "$S" || { echo mount-failed; exit 3; }
trap '"$K" kill --all >/dev/null 2>&1' EXIT
step() { name=$1; shift; "$@" >"$R/$name.out" 2>"$R/$name.err"; echo $? >"$R/$name.rc"; }
step create "$K" --json create --label full
step before "$K" --json talk -s full 'echo before'
# Fill the disk, then the last pages of the journals (with empty lines, which readers skip).
dd if=/dev/zero of="$S/filler" bs=64k >/dev/null 2>&1
for j in "$S"/_registry_events.jsonl "$S"/sessions/*/events.jsonl; do
  yes '' | dd of="$j" oflag=append conv=notrunc bs=1 >/dev/null 2>&1
done
step closed "$K" --json talk -s full "touch $R/closed-ran"
step open env KPTY_AUDIT_FAIL=open "$K" --json talk -s full "touch $R/open-ran"
step typo env KPTY_AUDIT_FAIL=maybe "$K" --json talk -s full "touch $R/typo-ran"
rm -f "$S/filler"
step after "$K" --json talk -s full 'echo after'
step log "$K" --json log
"#;

fn rc(dir: &std::path::Path, step: &str) -> i32 {
    let t = std::fs::read_to_string(dir.join(format!("{step}.rc"))).unwrap_or_default();
    t.trim().parse().unwrap_or(-1)
}

fn json(dir: &std::path::Path, step: &str) -> Value {
    let t = std::fs::read_to_string(dir.join(format!("{step}.out"))).unwrap_or_default();
    serde_json::from_str(t.lines().next().unwrap_or("")).unwrap_or(Value::Null)
}

#[test]
fn an_action_that_cannot_be_audited_is_refused_on_a_full_disk() {
    let env = Env::new();
    if !rustix::process::getuid().is_root() {
        // A user namespace maps only our uid: `/` and the temp dirs show up owned by nobody,
        // which the state directory's ancestor check (rightly) refuses.
        skip("the full-disk test needs root (a tmpfs in a private mount namespace)");
        return;
    }
    let results = env.dir.path().join("results");
    std::fs::create_dir(&results).unwrap();
    let base = env.cmd(&[]);
    let mut c = Command::new("unshare");
    for (k, v) in base.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    c.current_dir(env.home())
        .args([
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            SCRIPT,
            "sh",
        ])
        .arg(env!("CARGO_BIN_EXE_kpty"))
        .arg(&results);
    let out = run(c, &["unshare", "full-disk scenario"]);
    if stdout(&out).contains("mount-failed") || !out.status.success() && rc(&results, "create") < 0
    {
        skip(&format!(
            "cannot mount a tmpfs in a private namespace: {}",
            stderr(&out)
        ));
        return;
    }
    assert_eq!(rc(&results, "create"), 0, "{}", json(&results, "create"));
    assert_eq!(rc(&results, "before"), 0, "{}", json(&results, "before"));

    let closed = json(&results, "closed");
    assert_eq!(rc(&results, "closed"), 104, "{closed}");
    assert_eq!(closed["error_code"], "AUDIT_FAILED", "{closed}");
    assert!(
        closed["message"]
            .as_str()
            .unwrap_or("")
            .contains("KPTY_AUDIT_FAIL=open")
    );
    assert!(
        !results.join("closed-ran").exists(),
        "the refused command ran"
    );

    assert_eq!(rc(&results, "open"), 0, "{}", json(&results, "open"));
    assert!(
        results.join("open-ran").exists(),
        "KPTY_AUDIT_FAIL=open did not run it"
    );
    let warned = std::fs::read_to_string(results.join("open.err")).unwrap();
    assert!(warned.contains("without its audit entry"), "{warned}");

    assert_eq!(rc(&results, "typo"), 115, "{}", json(&results, "typo"));
    assert!(!results.join("typo-ran").exists());

    assert_eq!(rc(&results, "after"), 0, "{}", json(&results, "after"));
    let log = std::fs::read_to_string(results.join("log.out")).unwrap();
    let events: Vec<Value> = log
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let commands: Vec<&str> = events
        .iter()
        .filter_map(|e| e["command"].as_str())
        .collect();
    assert!(commands.contains(&"echo before"), "{log}");
    assert!(commands.contains(&"echo after"), "{log}");
    assert!(!commands.iter().any(|c| c.contains("closed-ran")), "{log}");
}
