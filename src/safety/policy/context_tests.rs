//! Tests of the session state: a destructive act split across writes is refused from the
//! state the earlier writes left; benign sequences pass.
use super::*;
use crate::safety::policy::vars::tests::with_copy;
use proptest::prelude::*;

/// Judges the last line after absorbing the others, from `cwd`.
fn last_blocked(cwd: &str, lines: &[&str]) -> Option<&'static str> {
    let mut ctx = ShellContext::new(Some(cwd));
    let (last, earlier) = lines.split_last().expect("a line");
    for l in earlier {
        assert!(
            explain_in(l, &ctx).blocked.is_none(),
            "{l:?} alone was blocked (in {lines:?})"
        );
        ctx.absorb(l);
    }
    explain_in(last, &ctx).blocked.map(|m| m.id)
}

#[test]
fn the_issue_sequences_are_refused() {
    for lines in [
        &["cd /", "rm -rf *"][..],
        &["D=/", "rm -rf $D"],
        &["f(){ rm -rf \"$@\"; }", "f /"],
        &["export T=/etc", "sh -c 'rm -rf $T'"],
        &["alias nuke='rm -rf'", "nuke /"],
        &["pushd /", "rm -rf *"],
        &["cd /usr", "cd lib", "rm -rf ."],
        &["cd /", "cd /tmp", "cd -", "rm -rf *"],
        &["pushd /", "pushd /tmp", "popd", "rm -rf *"],
        &["set -- / ~", "rm -rf \"$@\""],
        &["D=/tmp/x", "if false; then D=/; fi", "rm -rf $D"],
        &["D=/", "D=/tmp/x true", "rm -rf $D"],
        &["D=/", "unset D", "rm -rf $D"],
        &["read D", "rm -rf \"$D\""],
        &["source ./env.sh", "rm -rf $ANY"],
        &["X=$(cat f)", "rm -rf $X"],
        &["f(){ rm -rf \"$1\"; }", "g(){ f \"$@\"; }", "g ~"],
        &["echo \"x", "\"; rm -rf /"],
        &["D=build", "sh -c 'D=/'", "eval 'D=/'", "rm -rf $D"],
        &["pushd /", "pushd /tmp", "popd", "rm -rf ./*"],
    ] {
        assert!(
            last_blocked("/home/u/project", lines).is_some(),
            "{lines:?} was allowed"
        );
    }
}

#[test]
fn deep_cwd_climbs_are_resolved() {
    let deep = "/home/u/a/b/c/d/e/f";
    assert!(last_blocked(deep, &["cd ../../../../../../.. && rm -rf *"]).is_some());
    assert!(last_blocked(deep, &["cd ../../../../../../..", "rm -rf *"]).is_some());
    assert!(last_blocked(deep, &["cd ../..", "rm -rf *"]).is_none());
}

#[test]
fn benign_sequences_pass() {
    for lines in [
        &["cd /home/u/project", "rm -rf build"][..],
        &["D=build", "rm -rf $D"],
        &["f(){ rm -rf \"$@\"; }", "f build dist"],
        &["alias ll='ls -l'", "ll /"],
        &["cd /", "ls *"],
        &["pushd /tmp", "popd", "rm -rf *"],
        &["export P=/tmp/kpty", "sh -c 'rm -rf $P'"],
        &["set -- a b", "rm -rf \"$@\""],
        &[
            "echo \"S\"\"B\"; eval 'D=build'; echo \"S\"\"$?\"",
            "rm -rf $D",
        ],
    ] {
        assert_eq!(last_blocked("/home/u/project", lines), None, "{lines:?}");
    }
}

#[test]
fn a_person_typing_makes_values_unknown() {
    let mut ctx = ShellContext::new(Some("/home/u/p"));
    ctx.absorb("D=build");
    ctx.absorb("f(){ ls \"$@\"; }");
    assert!(explain_in("rm -rf $D", &ctx).blocked.is_none());
    ctx.taint();
    assert_eq!(ctx.var("D"), Some(&Value::Unknown));
    assert!(explain_in("rm -rf $D", &ctx).blocked.is_some());
    assert!(
        explain_in("rm -rf \"$NEVER_SET\"/*", &ctx)
            .blocked
            .is_some()
    );
    assert!(explain_in("f -rf /", &ctx).blocked.is_some());
    assert!(explain_in("rm -rf build", &ctx).blocked.is_none());
    assert!(explain_in("echo $D", &ctx).blocked.is_none());
    // Assigned again by kpty: known again.
    ctx.absorb("D=build");
    assert!(explain_in("rm -rf $D", &ctx).blocked.is_none());
}

#[test]
fn an_unsettled_directory_is_judged_both_ways() {
    let mut ctx = ShellContext::new(Some("/home/u/p"));
    ctx.absorb("cd /");
    // The shell has not run the cd yet: /proc still says the old place.
    ctx.observe_cwd("/home/u/p", false);
    assert!(explain_in("rm -rf *", &ctx).blocked.is_some());
    // Settled in a project: only there.
    ctx.observe_cwd("/home/u/p", true);
    assert!(explain_in("rm -rf *", &ctx).blocked.is_none());
    ctx.set_home(Some("/home/u"));
    ctx.observe_cwd("/home/u", true);
    assert_eq!(ctx.cwd(), Some("~"));
    assert!(explain_in("rm -rf *", &ctx).blocked.is_some());
}

#[test]
fn lines_typed_to_another_program_make_what_they_set_unknown() {
    let mut ctx = ShellContext::new(Some("/home/u/p"));
    ctx.absorb("D=/");
    ctx.absorb_uncertain("D=/tmp/x");
    assert!(explain_in("rm -rf $D", &ctx).blocked.is_some());
    let mut ctx = ShellContext::new(Some("/home/u/p"));
    ctx.absorb_uncertain("cd /");
    assert!(explain_in("rm -rf *", &ctx).blocked.is_some());
}

#[test]
fn prompt_hooks_assigned_in_a_line_are_judged() {
    let ctx = ShellContext::new(Some("/home/u/p"));
    assert!(
        explain_in("PROMPT_COMMAND='rm -rf *'", &ctx)
            .blocked
            .is_some()
    );
    assert!(
        explain_in("export PS1='$(rm -rf ~)'", &ctx)
            .blocked
            .is_some()
    );
    assert!(
        explain_in("export GIT_SSH_COMMAND='rm -rf *'", &ctx)
            .blocked
            .is_some()
    );
    // Code kpty cannot read, typed: as unjudged as running it directly.
    assert!(
        explain_in("LD_LIBRARY_PATH=/opt/lib ./app", &ctx)
            .blocked
            .is_none()
    );
    assert!(
        explain_in("PROMPT_COMMAND='history -a'", &ctx)
            .blocked
            .is_none()
    );
}

use super::super::reserved::RESERVED;

/// bash expands an alias before it looks for reserved words: `alias do='rm -rf'` then `do /`
/// runs `rm -rf /` (found by `a_split_act_is_refused`). Every reserved word, wherever a
/// command starts.
#[test]
fn an_alias_named_after_a_reserved_word_is_judged_as_its_text() {
    for w in RESERVED {
        let alias = format!("alias {w}='rm -rf'");
        for act in [
            format!("{w} /"),
            format!("true; {w} ~"),
            format!("ls && {w} /etc"),
        ] {
            assert!(
                last_blocked("/home/u/project", &[&alias, &act]).is_some(),
                "{alias} then {act}"
            );
        }
        // Where it is an argument, it is only a word.
        assert!(last_blocked("/home/u/project", &[&alias, &format!("echo {w} /")]).is_none());
    }
}

/// One way to carry a destructive target across writes: the earlier lines, then the last
/// line's operand (a word that reaches `target` only through the state).
fn carriers(target: &'static str) -> impl Strategy<Value = (Vec<String>, String)> {
    let name = "[A-Z][A-Z0-9_]{0,6}";
    prop_oneof![
        name.prop_map(move |n| (vec![format!("{n}={target}")], format!("rm -rf ${n}"))),
        name.prop_map(move |n| (
            vec![format!("export {n}='{target}'")],
            format!("bash -c 'rm -rf ${n}'")
        )),
        // A reserved word cannot be defined as `name() { … }` (the shell refuses the line).
        "[a-z][a-z0-9]{0,6}"
            .prop_filter("a reserved word is no function name", |f| !RESERVED
                .contains(&f.as_str()))
            .prop_map(move |f| (
                vec![format!("{f}() {{ rm -rf \"$@\"; }}")],
                format!("{f} {target}")
            )),
        "[a-z][a-z0-9]{0,6}"
            .prop_map(move |a| (vec![format!("alias {a}='rm -rf'")], format!("{a} {target}"))),
        Just((vec![format!("cd {target}")], "rm -rf *".to_string())),
        Just((vec![format!("pushd {target}")], "rm -rf ./*".to_string())),
        Just((
            vec![
                format!("pushd {target}"),
                "pushd /tmp".into(),
                "popd".into()
            ],
            "rm -rf *".to_string()
        )),
        Just((
            vec![format!("cd {target}"), "cd /tmp".into(), "cd -".into()],
            "rm -rf *".to_string()
        )),
        Just((
            vec![format!("set -- {target}")],
            "rm -rf \"$1\"".to_string()
        )),
        name.prop_map(move |n| (
            vec![format!("{n}={target}"), format!("{n}=/tmp/safe true")],
            format!("rm -rf \"${n}\"")
        )),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A destructive act split across 2–4 writes, with benign writes between, is refused at
    /// the write that does it.
    #[test]
    fn a_split_act_is_refused(
        target in prop_oneof![Just("/"), Just("~"), Just("/etc"), Just("/usr")],
        (setup, act) in carriers("PLACEHOLDER"),
        noise in proptest::collection::vec(
            prop_oneof![Just("ls"), Just("echo hi"), Just("true"), Just("pwd"), Just("noise_y=1")], 0..2),
    ) {
        let setup: Vec<String> = setup.iter().map(|s| s.replace("PLACEHOLDER", target)).collect();
        let act = act.replace("PLACEHOLDER", target);
        let mut lines: Vec<String> = setup;
        lines.extend(noise.iter().map(|s| s.to_string()));
        lines.push(act);
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        prop_assert!(last_blocked("/home/u/project", &refs).is_some(), "{:?}", lines);
    }

    /// `cd ..` climbs from a random depth reach `/` exactly when they climb far enough.
    #[test]
    fn climbs_from_any_depth(depth in 1usize..9, extra in 0usize..3, split in any::<bool>()) {
        let cwd = format!("/srv{}", "/d".repeat(depth));
        let up = vec![".."; depth + extra].join("/");
        let lines: Vec<String> = if split {
            vec![format!("cd {up}"), "rm -rf *".into()]
        } else {
            vec![format!("cd {up} && rm -rf *")]
        };
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        prop_assert!(last_blocked(&cwd, &refs).is_some(), "{:?} from {}", lines, cwd);
        let short = vec![".."; depth - 1].join("/");
        if depth > 1 {
            let cd = format!("cd {short}");
            prop_assert!(last_blocked(&cwd, &[cd.as_str(), "rm -rf *"]).is_none());
        }
    }

    /// Benign sequences into a project stay allowed.
    #[test]
    fn project_cleanups_pass(dir in "[a-z]{1,8}", sub in "[a-z]{1,8}", name in "[A-Z]{1,5}") {
        let lines = [
            format!("cd /tmp/{dir}"),
            format!("{name}={sub}"),
            format!("rm -rf ${name} build *.o"),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        prop_assert!(last_blocked("/home/u", &refs).is_none(), "{:?}", lines);
    }
}

#[test]
fn without_a_session_a_line_is_judged_on_its_own() {
    let ctx = ShellContext::default();
    for line in [
        "rm -rf *",
        "rm -rf $D",
        "rm -rf \"$1\"",
        "cd .. && rm -rf *",
    ] {
        assert_eq!(
            explain_in(line, &ctx),
            super::super::explain(line),
            "{line}"
        );
    }
}

#[test]
fn only_an_unfinished_line_is_carried_into_the_next() {
    for open in [
        "echo \"x",
        "if true; then echo x",
        "cat <<EOF",
        "echo $(ls",
        "f() {",
    ] {
        let mut ctx = ShellContext::new(Some("/home/u/p"));
        ctx.absorb(open);
        assert!(ctx.continuing(), "{open:?}");
        ctx.interrupt();
        assert!(!ctx.continuing());
    }
    for rejected in ["echo )", "done; ls", "ls ;; x"] {
        let mut ctx = ShellContext::new(Some("/home/u/p"));
        ctx.absorb(rejected);
        assert!(!ctx.continuing(), "{rejected:?}");
        assert!(
            explain_in("ls", &ctx).parsed,
            "{rejected:?} poisoned the next line"
        );
    }
    // The shell back at its prompt (seen from outside) read the whole line.
    let mut ctx = ShellContext::new(Some("/home/u/p"));
    ctx.absorb("fi");
    ctx.observe_cwd("/home/u/p", true);
    assert!(!ctx.continuing());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Applying a judged line with the evaluation its judging made (`absorb_judged`) leaves
    /// exactly the state a fresh evaluation (`absorb`) leaves: over state-changing lines,
    /// unfinished ones carried to the next, in shells with one directory, two or none known.
    #[test]
    fn absorbing_a_judged_line_equals_absorbing_it_afresh(
        (setup, act) in carriers("/tmp/x"),
        noise in proptest::collection::vec(prop_oneof![
            Just("ls"), Just("cd src"), Just("cd -"), Just("X=$(pwd)"), Just("echo 'open"),
            Just("done'"), Just("for f in *; do"), Just("echo $f; done"), Just("unset X"),
            Just("set -- a b"), Just("shift"), Just("pushd /srv"), Just("popd"),
        ], 0..4),
        cwds in 0usize..3,
    ) {
        let mut plain = match cwds {
            0 => ShellContext::new(None),
            _ => ShellContext::new(Some("/home/u/p")),
        };
        if cwds == 2 {
            plain.observe_cwd("/home/u/q", false);
        }
        let mut judged = plain.clone();
        let lines = setup.iter().map(String::as_str).chain(noise).chain([act.as_str()]);
        for line in lines {
            let j = judge_in(line, &judged);
            if j.verdict.blocked.is_some() {
                break;
            }
            plain.absorb(line);
            judged.absorb_judged(line, j);
            prop_assert_eq!(&plain, &judged, "after {:?}", line);
        }
    }
}

/// Names the generated lines use (a few a holder's environment also has).
const SESSION_NAMES: &[&str] = &["V1", "V2", "V3", "PROMPT_COMMAND", "CDPATH", "HOME_DIR"];

/// A holder's state: many environment variables (random names and values, some with parts
/// kpty cannot know), some made unknown by earlier lines, sometimes a person's typing.
fn holder_context() -> impl Strategy<Value = ShellContext> {
    let var = prop_oneof![
        proptest::sample::select(SESSION_NAMES).prop_map(str::to_string),
        "[A-Z][A-Z0-9_]{0,7}",
    ];
    let value = prop_oneof![
        "[a-z/. -]{0,10}",
        "[a-z/]{0,4}".prop_map(|s| format!("{s}\u{FFFC}"))
    ];
    let made_unknown =
        proptest::collection::vec((proptest::sample::select(SESSION_NAMES), 0..3usize), 0..3);
    (
        proptest::collection::vec((var, value), 20..80),
        made_unknown,
        any::<bool>(),
    )
        .prop_map(|(env, made_unknown, tainted)| {
            let mut ctx = ShellContext::new(Some("/home/u/p"));
            ctx.set_home(Some("/home/u"));
            for (k, v) in &env {
                ctx.set_env(k, v);
            }
            for (name, how) in made_unknown {
                let line = ["unset ", "read ", "true && "][how];
                let line = if how == 2 {
                    format!("{line}{name}=x")
                } else {
                    format!("{line}{name}")
                };
                ctx.absorb(&line);
            }
            if tainted {
                ctx.taint();
                ctx.observe_cwd("/home/u/p", false);
            }
            ctx
        })
}

/// Lines that read, assign, append to, unset and export the session's variables.
fn session_line() -> impl Strategy<Value = (String, bool)> {
    let templates = proptest::sample::select(
        &[
            "export {n}={v}",
            "unset {n}",
            "{n}={v}",
            "{n}+={v}",
            "true && {n}={v}",
            "read {n}",
            "for {n} in a /; do :; done",
            "if true; then unset {n}; fi",
            "rm -rf ${n}",
            "rm -rf \"${n}\"/*",
            "cd ${n}",
            "echo ${n} ${V1}",
            "eval \"${n}\"",
            "sh -c \"rm -rf ${n}\"",
            "declare {n}={v}; echo ${n}",
            "{n}={v} env",
        ][..],
    );
    let values = proptest::sample::select(&["/", "/tmp/x", "src", "'rm -rf /'", "a b", "$V2"][..]);
    (
        templates,
        proptest::sample::select(SESSION_NAMES),
        values,
        proptest::bool::weighted(0.15),
    )
        .prop_map(|(t, n, v, uncertain)| (t.replace("{n}", n).replace("{v}", v), uncertain))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Judging and absorbing lines from a shared, layered view of a holder's variables gives
    /// the verdicts and the states the straightforward copy of them gives.
    #[test]
    fn layered_variables_judge_as_a_copy(
        start in holder_context(),
        lines in proptest::collection::vec(session_line(), 1..6),
    ) {
        let (mut layered, mut copy) = (start.clone(), start);
        for (line, uncertain) in &lines {
            let judged = judge_in(line, &layered);
            let reference = with_copy(true, || explain_in(line, &copy));
            prop_assert_eq!(&judged.verdict, &reference, "{:?} after {:?}", line, lines);
            if judged.verdict.blocked.is_some() {
                continue;
            }
            if *uncertain {
                layered.absorb_uncertain(line);
                with_copy(true, || copy.absorb_uncertain(line));
            } else {
                layered.absorb_judged(line, judged);
                with_copy(true, || copy.absorb(line));
            }
            prop_assert_eq!(&layered, &copy, "{:?} in {:?}", line, lines);
        }
    }
}

/// A function or alias named after a program does not hide the program: reached through a
/// wrapper that runs programs (`command`, `env`, `nice` …), with a backslash, directly, or
/// from the function's own body (`command rm`, or a call that would recurse), a destructive
/// act is refused, on one line with the definition or split from it.
#[test]
fn a_function_or_alias_named_after_a_program_does_not_hide_it() {
    let acts = [
        ("rm", "-rf /"),
        ("chmod", "-R 777 /"),
        ("dd", "if=/dev/zero of=/dev/sda"),
    ];
    let shadows = [
        "NAME() { echo hi; }",
        "NAME() { true; }",
        r#"NAME() { NAME "$@"; }"#,
        r#"NAME() { command NAME "$@"; }"#,
        "alias NAME='echo'",
        "alias NAME='true'",
    ];
    let wrappers = [
        "",
        "command ",
        "env ",
        "nice ",
        "nohup ",
        "timeout 5 ",
        "\\",
    ];
    for (name, args) in acts {
        for shadow in shadows {
            let def = shadow.replace("NAME", name);
            for wrapper in wrappers {
                let act = format!("{wrapper}{name} {args}");
                let split = last_blocked("/home/u/project", &[&def, &act]);
                assert!(split.is_some(), "{def:?} then {act:?} ran");
                let one = format!("{def}; {act}");
                assert!(
                    last_blocked("/home/u/project", &[&one]).is_some(),
                    "{one:?} ran"
                );
            }
        }
    }
    // Neighbours still run.
    for lines in [
        &[r#"rm() { command rm -i "$@"; }"#, "rm notes.txt"][..],
        &["alias rm='rm -i'", "rm notes.txt"],
        &[r#"ls() { command ls --color=auto "$@"; }"#, "ls -la /"],
        &["alias ll='ls -l'", "command ls -l /"],
    ] {
        assert_eq!(last_blocked("/home/u/project", lines), None, "{lines:?}");
    }
}
