//! The state-file matrix: every file kpty reads from a state directory (or its runtime
//! index), in every hostile form a cloned repository or another user could leave there, under
//! every verb that reads it. Each run ends within the harness's deadline (a hang fails), never
//! panics, and either refuses with `STATE_ERROR` naming the file or succeeds without trusting
//! it; where the verb reads that file, refusing is required. A new file kind, form or verb is
//! one line in the tables below.

use crate::support::*;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Where a file kind lives.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Base {
    /// The state directory.
    State,
    /// The session's folder (`sessions/<id>/`).
    Session,
    /// The runtime directory (the index of state directories).
    Runtime,
}

/// What the file holds, for the forms that keep its content.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Content {
    /// JSON parsed whole: garbage and oversize are refused by every reader.
    Json,
    /// A JSONL journal: garbage lines are skipped, oversize refused by `log`.
    Journal,
    /// Contents never parsed (lock files, the saved buffer): only the kind of file matters.
    Opaque,
}

struct Kind {
    name: &'static str,
    base: Base,
    content: Content,
}

/// Every state file kind (one line each).
const KINDS: &[Kind] = &[
    Kind {
        name: "_registry.json",
        base: Base::State,
        content: Content::Json,
    },
    Kind {
        name: "_registry_events.jsonl",
        base: Base::State,
        content: Content::Journal,
    },
    Kind {
        name: "_leaders.json",
        base: Base::State,
        content: Content::Json,
    },
    Kind {
        name: "_registry.lock",
        base: Base::State,
        content: Content::Opaque,
    },
    Kind {
        name: "_default.lock",
        base: Base::State,
        content: Content::Opaque,
    },
    Kind {
        name: "metadata.json",
        base: Base::Session,
        content: Content::Json,
    },
    Kind {
        name: "events.jsonl",
        base: Base::Session,
        content: Content::Journal,
    },
    Kind {
        name: "buffer.txt",
        base: Base::Session,
        content: Content::Opaque,
    },
    Kind {
        name: "starting.lock",
        base: Base::Session,
        content: Content::Opaque,
    },
    Kind {
        name: "state-dirs",
        base: Base::Runtime,
        content: Content::Opaque,
    },
];

/// The hostile forms.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Form {
    Fifo,
    LinkToFile,
    LinkToDevZero,
    Directory,
    HugeSparse,
    Garbage,
    ForeignOwner,
    LooseMode,
}

const FORMS: &[Form] = &[
    Form::Fifo,
    Form::LinkToFile,
    Form::LinkToDevZero,
    Form::Directory,
    Form::HugeSparse,
    Form::Garbage,
    Form::ForeignOwner,
    Form::LooseMode,
];

impl Form {
    /// Whether the form is wrong whatever the file holds (checked before any content is read).
    fn is_unsafe_kind(self) -> bool {
        !matches!(self, Form::HugeSparse | Form::Garbage)
    }
}

/// A verb: its arguments (`{id}` is the session's id), and which state it must refuse on.
struct Verb {
    args: &'static [&'static str],
    /// It loads the registry (so checks every top-level state file). A verb that names a
    /// session by its full id is not cut off by an unreadable registry when the holder on
    /// that id's socket answers (documented: the holder's uid-checked socket is the proof).
    registry: bool,
    /// It parses the registry (rather than only checking the state directory's files).
    parses: bool,
    /// It resolves the session (so checks the session's files).
    session: bool,
    /// It reads the journals.
    journals: bool,
}

const VERBS: &[Verb] = &[
    Verb {
        args: &["list"],
        registry: true,
        parses: true,
        session: false,
        journals: false,
    },
    Verb {
        args: &["list", "--all"],
        registry: false,
        parses: false,
        session: false,
        journals: false,
    },
    Verb {
        args: &["log"],
        registry: true,
        parses: false,
        session: false,
        journals: true,
    },
    Verb {
        args: &["resolve", "--label", "m"],
        registry: true,
        parses: true,
        session: true,
        journals: false,
    },
    Verb {
        args: &["read", "-s", "{id}"],
        registry: false,
        parses: false,
        session: true,
        journals: false,
    },
    Verb {
        args: &["talk", "-t", "3000", "-s", "{id}", "echo hi"],
        registry: false,
        parses: false,
        session: true,
        journals: false,
    },
    Verb {
        args: &["create", "--label", "other"],
        registry: true,
        parses: true,
        session: false,
        journals: false,
    },
    Verb {
        args: &["prune"],
        registry: true,
        parses: true,
        session: false,
        journals: false,
    },
    Verb {
        args: &["kill", "{id}"],
        registry: false,
        parses: false,
        session: true,
        journals: false,
    },
    Verb {
        args: &["kill", "--all"],
        registry: false,
        parses: false,
        session: false,
        journals: false,
    },
    Verb {
        args: &["serve", "--print-config", "--port", "8765"],
        registry: false,
        parses: false,
        session: false,
        journals: false,
    },
];

/// Whether `verb` must refuse `kind` in `form` (else it may refuse or succeed).
fn must_refuse(kind: &Kind, form: Form, verb: &Verb) -> bool {
    match (kind.base, kind.content) {
        (Base::Runtime, _) => false,
        (Base::State, Content::Json) if kind.name == "_registry.json" => {
            verb.parses || (verb.registry && form.is_unsafe_kind())
        }
        (Base::State, content) => {
            (form.is_unsafe_kind() && verb.registry)
                || (content == Content::Journal && form == Form::HugeSparse && verb.journals)
        }
        (Base::Session, content) => {
            (form.is_unsafe_kind() && verb.session)
                || (content == Content::Journal
                    && verb.journals
                    && (form.is_unsafe_kind() || form == Form::HugeSparse))
        }
    }
}

fn is_root() -> bool {
    rustix::process::getuid().is_root()
}

/// Puts the original file back (and kills the session) even when the test fails, so the
/// harness's own cleanup never meets the hostile file.
struct Restore {
    path: PathBuf,
    original: Option<Vec<u8>>,
    pids: Vec<u64>,
}

impl Drop for Restore {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
        let _ = std::fs::remove_file(&self.path);
        if let Some(o) = &self.original {
            let _ = std::fs::write(&self.path, o);
            let _ = std::fs::set_permissions(&self.path, std::fs::Permissions::from_mode(0o600));
        }
        for pid in &self.pids {
            if let Some(pid) = rustix::process::Pid::from_raw(*pid as i32) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
    }
}

/// Replace `path` with `form`; false when the form cannot be made here (foreign owner
/// without root).
fn plant(path: &Path, form: Form, original: &[u8], outside: &Path) -> bool {
    let _ = std::fs::remove_dir_all(path);
    let _ = std::fs::remove_file(path);
    let mode = rustix::fs::Mode::from_raw_mode(0o600);
    match form {
        Form::Fifo => {
            rustix::fs::mknodat(rustix::fs::CWD, path, rustix::fs::FileType::Fifo, mode, 0)
                .expect("mkfifo")
        }
        Form::LinkToFile => {
            std::fs::write(outside, original).unwrap();
            std::os::unix::fs::symlink(outside, path).unwrap();
        }
        Form::LinkToDevZero => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
        Form::Directory => std::fs::create_dir(path).unwrap(),
        Form::HugeSparse => {
            std::fs::write(path, original).unwrap();
            std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .unwrap()
                .set_len(3 << 30)
                .unwrap();
        }
        Form::Garbage => std::fs::write(path, b"\xff\xfe{[garbage\x00\x01\n{\"a\":").unwrap(),
        Form::ForeignOwner => {
            if !is_root() {
                return false;
            }
            std::fs::write(path, original).unwrap();
            let nobody = rustix::fs::Uid::from_raw(65534);
            rustix::fs::chown(path, Some(nobody), None).unwrap();
        }
        Form::LooseMode => {
            std::fs::write(path, original).unwrap();
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666)).unwrap();
        }
    }
    if form != Form::ForeignOwner && form != Form::LooseMode && form != Form::Fifo {
        // Files kpty makes are 0600; the forms above differ in kind or content only.
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
    }
    true
}

/// Run the whole matrix for one file kind.
fn matrix(kind_name: &str) {
    let kind = KINDS
        .iter()
        .find(|k| k.name == kind_name)
        .expect("a kind in KINDS");
    let mut skipped_foreign = false;
    for &form in FORMS {
        let env = Env::new();
        let created = env.ok_json(&["create", "--label", "m"]);
        let id = s(&created, "session_id").to_string();
        let pids: Vec<u64> = [&created["holder_pid"], &created["pid"]]
            .iter()
            .filter_map(|v| v.as_u64())
            .collect();
        env.ok_json(&["talk", "-s", &id, "echo ready"]);
        let path = match kind.base {
            Base::State => env.state().join(kind.name),
            Base::Session => env.state().join("sessions").join(&id).join(kind.name),
            Base::Runtime => env.runtime().join(kind.name),
        };
        let original = std::fs::read(&path).ok();
        let outside = env.dir.path().join("precious");
        let seed = original.clone().unwrap_or_default();
        let _restore = Restore {
            path: path.clone(),
            original: original.clone(),
            pids,
        };
        if !plant(&path, form, &seed, &outside) {
            skipped_foreign = true;
            continue;
        }
        for verb in VERBS {
            // Planted again before every verb: the live holder saves its own files (metadata,
            // buffer) by atomic rename whenever output came, which replaces a planted form —
            // each verb must meet the hostile file, not one the holder healed meanwhile.
            plant(&path, form, &seed, &outside);
            let args: Vec<&str> = verb
                .args
                .iter()
                .map(|a| if *a == "{id}" { id.as_str() } else { a })
                .collect();
            let mut all = vec!["--json"];
            all.extend(&args);
            // The harness fails a run that outlives its deadline: a hang is a failure.
            let out = env.kpty(&all);
            let code = out.status.code();
            let v: Value = stdout(&out)
                .lines()
                .last()
                .and_then(|l| serde_json::from_str(l).ok())
                .unwrap_or(Value::Null);
            let what = format!(
                "{kind_name} as {form:?}, kpty {args:?}: {code:?} {v} {}",
                stderr(&out)
            );
            // A journal that cannot be appended to refuses the action as unauditable.
            let refusals: &[(i32, &str)] = if kind.content == Content::Journal {
                &[(113, "STATE_ERROR"), (104, "AUDIT_FAILED")]
            } else {
                &[(113, "STATE_ERROR")]
            };
            let refused = refusals.iter().any(|(c, e)| {
                code == Some(*c)
                    && (v["error_code"] == *e
                        // kill --all: one failure per session.
                        || v["failed"].as_array().is_some_and(|f| {
                            f.iter().any(|x| x["error"]["error_code"] == *e)
                        }))
            });
            assert!(code == Some(0) || refused, "unexpected result: {what}");
            if must_refuse(kind, form, verb) {
                assert!(refused, "must refuse: {what}");
                assert!(
                    v.to_string().contains(kind_name),
                    "the message does not name the file: {what}"
                );
            }
            if form == Form::LinkToFile {
                assert_eq!(
                    std::fs::read(&outside).unwrap(),
                    seed,
                    "written through a link: {what}"
                );
            }
        }
    }
    if skipped_foreign {
        skip("the foreign-owner column needs root (chown to nobody)");
    }
}

macro_rules! kinds {
    ($($test:ident => $name:literal),* $(,)?) => {$(
        #[test]
        fn $test() {
            matrix($name);
        }
    )*};
}

kinds! {
    registry => "_registry.json",
    registry_events => "_registry_events.jsonl",
    leaders => "_leaders.json",
    registry_lock => "_registry.lock",
    default_lock => "_default.lock",
    metadata => "metadata.json",
    session_events => "events.jsonl",
    buffer => "buffer.txt",
    starting_lock => "starting.lock",
    index => "state-dirs",
}

#[test]
fn every_kind_has_its_test() {
    let src = include_str!("state_matrix.rs");
    for k in KINDS {
        assert!(
            src.contains(&format!("=> \"{}\"", k.name)),
            "{} has no test",
            k.name
        );
    }
}
