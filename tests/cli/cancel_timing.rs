//! A cancel at any moment of a talk stops what the talk started, and nothing more: before
//! its command is typed (it then never is), while the shell hands the terminal to it, after
//! the command caught the Ctrl-C and went on (to another command, another program). Every
//! cell in every shell it applies to, all at once; the session is free again long before
//! the long command would end.

use crate::support::{Env, holds_within, parse, shells, spawn, wait_child, wait_for};
use serde_json::Value;
use std::process::Child;

/// SIGINT to `kpty talk` (its cancel), and its answer: `CANCELLED`, exit 130.
fn cancel(child: Child, what: &str) -> Value {
    let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
    rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("signal kpty talk");
    let out = wait_child(child, &["talk", what]);
    let v = parse(&out, &["talk", what]);
    assert_eq!(
        (out.status.code(), v["error_code"].as_str()),
        (Some(130), Some("CANCELLED")),
        "{what}: {v}"
    );
    v
}

/// The next talk runs (the interrupted command is over); its answer. When it does not, the
/// last answer, the terminal and the holder's log say why.
fn free_again(env: &Env, id: &str, what: &str) -> Value {
    let mut last = Value::Null;
    let free = holds_within(20_000, || {
        last = env.json(&["talk", "-s", id, "--timeout-ms", "10000", "echo fr''ee"]);
        last["ok"] == true
    });
    if !free {
        let read = env.json(&["read", "-s", id, "--since", "0"]);
        let log = env.state().join("sessions").join(id).join("holder.log");
        panic!(
            "{what}: the session is not free again: {last} | the terminal: {read} | its \
             holder's log: {}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
    }
    if last["output"] != "free" {
        let read = env.json(&["read", "-s", id, "--since", "0"]);
        panic!("{what}: the next talk's line was not typed whole: {last} | the terminal: {read}");
    }
    last
}

/// Wherever a cancel falls in a talk — before kpty has sent it, while the holder waits to
/// type, as the shell starts the command, while it runs — the same holds: the talk ends (130,
/// or SIGINT's own death before kpty could catch it), its command never finishes, at most one
/// Ctrl-C reaches the terminal, and the session is free again — the next talk's line typed
/// whole, nothing of the cancelled one left on it or eaten from it. The moments are spread
/// from 2 ms to 250 ms after `kpty talk` starts; every shell, all cells at once.
#[test]
fn a_cancel_at_any_moment_stops_the_command_and_only_it() {
    let cells: Vec<(&str, u64)> = shells()
        .into_iter()
        .flat_map(|sh| [2, 10, 30, 60, 120, 250].map(|ms| (sh, ms)))
        .collect();
    at_once(&cells, |(sh, ms)| cancel_after(sh, *ms));
}

/// Run `cell` for each of `cells`, all at once (a thread each).
fn at_once<T: Sync>(cells: &[T], cell: impl Fn(&T) + Sync) {
    let cell = &cell;
    std::thread::scope(|s| {
        for c in cells {
            s.spawn(move || cell(c));
        }
    });
}

/// The shells among `wanted` that are installed.
fn shells_of(wanted: &[&str]) -> Vec<&'static str> {
    shells()
        .into_iter()
        .filter(|sh| wanted.contains(sh))
        .collect()
}

/// One cell of [`a_cancel_at_any_moment_stops_the_command_and_only_it`].
fn cancel_after(sh: &str, ms: u64) {
    let env = Env::new();
    let id = env.create(&["--shell", sh]);
    let from = env.offset(&id);
    let line = "touch began && sleep 30 && touch finished";
    sigint_default_for_children();
    let child = spawn(env.cmd(&["talk", "-s", &id, line]));
    // The moment is what this test varies: a pause, not a wait for something.
    std::thread::sleep(std::time::Duration::from_millis(ms));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
    rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("signal kpty talk");
    let what = format!("{sh}, cancelled after {ms} ms");
    let out = wait_child(child, &["talk", line, &what]);
    let died_of_it = std::os::unix::process::ExitStatusExt::signal(&out.status) == Some(2);
    assert!(
        out.status.code() == Some(130) || died_of_it,
        "{what}: {out:?}"
    );
    free_again(&env, &id, &what);
    let (ctrl_c, since) = env.ctrl_c_shown(&id, from);
    assert!(ctrl_c <= 1, "{what}: Ctrl-C typed {ctrl_c} times: {since}");
    assert!(
        !env.home().join("finished").exists(),
        "{what}: the command ran to its end: {since}"
    );
}

/// SIGINT's default action for the processes this test starts, whatever the test inherited:
/// run from a script's background job, SIGINT comes ignored, and a kpty that has not yet put
/// its handler in place would ignore a cancel too. A handler of this process (the default
/// action, emulated) is not inherited across `exec`, as an ignored signal is; a cancel that
/// comes before kpty catches signals then ends it, as it would at a terminal.
fn sigint_default_for_children() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let always = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        signal_hook::flag::register_conditional_default(signal_hook::consts::SIGINT, always)
            .expect("SIGINT's default action");
    });
}

/// A talk waits for the shell to draw its prompt before it types; a cancel that comes
/// meanwhile types nothing — neither the command nor a Ctrl-C — and the command never runs.
/// Here the prompt takes 5 s to draw once (a command substitution in it), between the
/// prompt's start (OSC 133 A) and its input start (B), in each shell whose prompt marks
/// where input starts.
#[test]
fn a_talk_cancelled_before_its_command_is_typed_runs_nothing() {
    at_once(&shells_of(&["/bin/bash", "zsh"]), |sh| untyped(sh));
}

/// One cell of [`a_talk_cancelled_before_its_command_is_typed_runs_nothing`].
fn untyped(sh: &str) {
    let env = Env::new();
    let id = env.create(&["--shell", sh]);
    slow_next_prompt(&env, &id, sh, sh);
    let talk = "touch ran";
    let child = spawn(env.cmd(&["--json", "talk", "-s", &id, talk]));
    // The talk is let in, and waits for the prompt's input start before it types.
    wait_for(4_000, &format!("{sh}: the talk to be let in"), || {
        env.json(&["read", "-s", &id, "--timeout-ms", "100"])["terminal_state"] == "running"
    });
    let v = cancel(child, talk);
    let said = v["error"].as_str().unwrap_or_default();
    assert!(said.contains("before its command was typed"), "{sh}: {v}");
    // Lines run in order: had the talk typed its command, it would have run by now.
    let after = free_again(&env, &id, sh);
    assert!(
        !env.home().join("ran").exists(),
        "{sh}: the cancelled talk's command ran; then {after}"
    );
}

/// Where a talk that was let in waits before it types.
#[derive(Debug, Clone, Copy)]
enum LetInWait {
    /// For the prompt's input start: the prompt takes 5 s to draw (bash, zsh).
    SlowPrompt,
    /// For the input line a forced talk clears to show empty: the shell is stopped, text
    /// typed on its line (bash, zsh, fish: their line editors, not the terminal, echo it).
    LineToClear,
}

/// A talk let in that still waits to type — for its prompt, for the line it clears — and
/// whose caller hangs up meanwhile (killed: no cancel sent, its connection just closes)
/// types nothing once the wait is over: the command never runs, and the next talk gets the
/// session. Each wait in each shell it applies to, all at once.
#[test]
fn a_talk_whose_caller_hangs_up_before_it_types_runs_nothing() {
    let mut cells: Vec<(LetInWait, &str)> = shells_of(&["/bin/bash", "zsh"])
        .into_iter()
        .map(|sh| (LetInWait::SlowPrompt, sh))
        .collect();
    cells.extend(
        shells_of(&["/bin/bash", "zsh", "fish"])
            .into_iter()
            .map(|sh| (LetInWait::LineToClear, sh)),
    );
    at_once(&cells, |(wait, sh)| hung_up_while_let_in(*wait, sh));
}

/// One cell of [`a_talk_whose_caller_hangs_up_before_it_types_runs_nothing`].
fn hung_up_while_let_in(wait: LetInWait, sh: &str) {
    let what = format!("{sh}, {wait:?}");
    let env = Env::new();
    let id = env.create(&["--shell", sh]);
    let mut resume = None;
    let mut talk = vec!["--json", "talk", "-s", &id];
    match wait {
        LetInWait::SlowPrompt => slow_next_prompt(&env, &id, sh, &what),
        LetInWait::LineToClear => {
            let shell = env.entry(&id)["pid"].as_i64().expect("the shell's pid");
            let shell = rustix::process::Pid::from_raw(shell as i32).expect("pid");
            rustix::process::kill_process(shell, rustix::process::Signal::STOP)
                .expect("stop the shell");
            resume = Some(Resume(shell));
            env.ok_json(&["send-keys", "-l", "-s", &id, "left"]);
            talk.push("--force");
        }
    }
    talk.push("touch ran");
    let child = spawn(env.cmd(&talk));
    wait_for(
        4_000,
        &format!("{what}: the talk to be let in"),
        || match wait {
            LetInWait::SlowPrompt => {
                env.json(&["read", "-s", &id, "--timeout-ms", "100"])["terminal_state"] == "running"
            }
            LetInWait::LineToClear => env.entry(&id)["busy"] == true,
        },
    );
    let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
    rustix::process::kill_process(pid, rustix::process::Signal::KILL).expect("kill kpty talk");
    drop(wait_child(child, &["talk", &what]));
    drop(resume);
    // Lines run in order: had the talk typed its command, it would have run by now.
    let after = free_again(&env, &id, &what);
    assert!(
        !env.home().join("ran").exists(),
        "{what}: the command of a talk whose caller hung up ran; then {after}"
    );
}

/// Make the session's next prompt slow to draw, once: 5 s in a command substitution
/// between its start (OSC 133 A) and its input start (B), the prompt as it was after it;
/// returns once that prompt has begun drawing. For bash and zsh.
fn slow_next_prompt(env: &Env, id: &str, sh: &str, what: &str) {
    let slow = "$(if [ -e slow ]; then rm slow; touch drawing; sleep 5; fi)";
    let line = match sh {
        "zsh" => format!("setopt prompt_subst; PS1='{slow}'\"$PS1\"; touch slow"),
        _ => format!("PS1='{slow}'\"$PS1\"; touch slow"),
    };
    env.ok(&["send-line", "-s", id, &line]);
    let drawing = env.home().join("drawing");
    wait_for(10_000, &format!("{what}: the slow prompt"), || {
        drawing.exists()
    });
}

/// The command in front catches the Ctrl-C, then starts another program in its place
/// (`exec`): that program never saw the Ctrl-C (its process is the same, and so is its
/// group), and the holder interrupts it too. In every shell, all at once.
#[test]
fn a_cancel_interrupts_the_program_a_command_started_after_catching_its_ctrl_c() {
    at_once(&shells(), |sh| caught_then_exec(sh));
}

/// One cell of [`a_cancel_interrupts_the_program_a_command_started_after_catching_its_ctrl_c`].
fn caught_then_exec(sh: &str) {
    let env = Env::new();
    let id = env.create(&["--shell", sh]);
    let from = env.offset(&id);
    // `started` is printed, never typed whole; the trap's `wait` ends at the Ctrl-C (the
    // background sleep ignores it), then `exec` puts a 90 s sleep in the same process.
    let line = "sh -c 'trap : INT; echo sta\"\"rted; sleep 5 & wait; exec sleep 90'";
    let child = spawn(env.cmd(&["--json", "talk", "-s", &id, line]));
    env.read_until(&id, from, "started");
    cancel(child, line);
    free_again(&env, &id, sh);
}

/// A cancel's Ctrl-C reaches whichever process group is in front of the terminal at that
/// moment; when that is not the command left running — here the command in front ignores
/// SIGINT and ends on its own, and the line goes on (after `;`, after `&&`) to a command
/// that would run for 90 s — the holder interrupts that one too. In every shell kpty knows,
/// all cells at once: the talk ends `CANCELLED` (exit 130) and the session is free again
/// long before the long command would end.
#[test]
fn a_cancel_interrupts_the_command_its_ctrl_c_missed_in_every_shell() {
    let cells: Vec<(&str, &str)> = shells()
        .into_iter()
        .flat_map(|sh| [(sh, ";"), (sh, "&&")])
        .collect();
    at_once(&cells, |(sh, sep)| missed_ctrl_c(sh, sep));
}

/// One cell of [`a_cancel_interrupts_the_command_its_ctrl_c_missed_in_every_shell`].
fn missed_ctrl_c(sh: &str, sep: &str) {
    let env = Env::new();
    let id = env.create(&["--shell", sh]);
    let from = env.offset(&id);
    // `started` is printed, never typed whole.
    let line = format!("sh -c 'trap \"\" INT; echo sta\"\"rted; sleep 1' {sep} sleep 90");
    let child = spawn(env.cmd(&["--json", "talk", "-s", &id, &line]));
    env.read_until(&id, from, "started");
    cancel(child, &line);
    free_again(&env, &id, &format!("{sh}, `{sep}`"));
}

/// Sends SIGCONT to a stopped process when dropped (a failing test leaves no shell stopped).
struct Resume(rustix::process::Pid);

impl Drop for Resume {
    fn drop(&mut self) {
        let _ = rustix::process::kill_process(self.0, rustix::process::Signal::CONT);
    }
}

/// A cancel's Ctrl-C that reaches the shell's line editor — the command typed but not read
/// yet, here because the shell is stopped — throws the line away, and the shell draws a new
/// prompt once it runs again. The next talk waits for that prompt however long the shell
/// takes (it waits in the holder all along: `waiting_talks`), and its line is typed whole:
/// none of its keys go to the line thrown away. In bash and zsh, whose line editors draw a
/// new prompt for a Ctrl-C (fish's draws none).
#[test]
fn a_talk_after_a_ctrl_c_that_reached_the_line_editor_waits_for_the_new_prompt() {
    at_once(&shells_of(&["/bin/bash", "zsh"]), |sh| {
        ctrl_c_into_the_line_editor(sh)
    });
}

/// One cell of [`a_talk_after_a_ctrl_c_that_reached_the_line_editor_waits_for_the_new_prompt`].
fn ctrl_c_into_the_line_editor(sh: &str) {
    let env = Env::new();
    let id = env.create(&["--shell", sh]);
    let shell = env.entry(&id)["pid"].as_i64().expect("the shell's pid");
    let shell = rustix::process::Pid::from_raw(shell as i32).expect("pid");
    rustix::process::kill_process(shell, rustix::process::Signal::STOP).expect("stop the shell");
    let resume = Resume(shell);
    let line = "touch began && sleep 30 && touch finished";
    sigint_default_for_children();
    let child = spawn(env.cmd(&["--json", "talk", "-s", &id, line]));
    wait_for(10_000, &format!("{sh}: the talk let in"), || {
        env.entry(&id)["busy"] == true
    });
    let v = cancel(child, &format!("{sh}: the talk into the stopped shell"));
    assert!(
        v["message"]
            .as_str()
            .unwrap_or_default()
            .contains("Ctrl-C was sent"),
        "{sh}: the Ctrl-C was not typed: {v}"
    );
    let next = spawn(env.cmd(&[
        "--json",
        "talk",
        "-s",
        &id,
        "--timeout-ms",
        "30000",
        "echo fr''ee",
    ]));
    wait_for(10_000, &format!("{sh}: the next talk waiting"), || {
        env.entry(&id)["waiting_talks"] == 1
    });
    // It must not give up waiting while the shell is stopped (it once did, after 3 s, and
    // typed into the line about to be thrown away).
    let gave_up = holds_within(5_000, || env.entry(&id)["waiting_talks"] != 1);
    drop(resume);
    let out = wait_child(next, &["talk", "echo free", sh]);
    let v = parse(&out, &["talk", sh]);
    assert!(
        !gave_up,
        "{sh}: the next talk stopped waiting for the prompt: {v}"
    );
    assert_eq!(
        v["output"], "free",
        "{sh}: the next talk's line was not typed whole: {v}"
    );
}
