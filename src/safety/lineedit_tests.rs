//! Tests of the line-editing emulator, one family of keys at a time.

use super::*;

/// Submitted lines' texts and the pending text under readline.
fn rl(input: &str) -> (Vec<String>, String) {
    run(Keymap::Readline, input)
}

fn run(keymap: Keymap, input: &str) -> (Vec<String>, String) {
    let mut e = Editor::new(keymap);
    let lines = e.feed(input).into_iter().map(|l| l.text).collect();
    (lines, e.pending().text)
}

fn submitted(input: &str) -> Vec<String> {
    rl(input).0
}

fn opaque(input: &str) -> Option<&'static str> {
    let mut e = Editor::new(Keymap::Readline);
    let lines = e.feed(input);
    lines.iter().find_map(|l| l.opaque).or(e.pending().opaque)
}

#[test]
fn plain_lines_cr_lf_and_crlf() {
    assert_eq!(submitted("ls\rpwd\ncd /\r\n"), ["ls", "pwd", "cd /"]);
    assert_eq!(rl("echo hi"), (vec![], "echo hi".into()));
    assert_eq!(submitted("\r\r"), ["", ""]);
}

#[test]
fn crlf_split_across_feeds_is_one_enter() {
    let mut e = Editor::new(Keymap::Readline);
    assert_eq!(e.feed("ls\r").len(), 1);
    assert_eq!(e.feed("\npwd\r").len(), 1);
}

#[test]
fn erase_keys() {
    assert_eq!(submitted("x\x7frm -rf /\r"), ["rm -rf /"]);
    assert_eq!(submitted("rm -rf /x\x08\r"), ["rm -rf /"]);
    assert_eq!(submitted("\x7f\x7fa\r"), ["a"]);
}

#[test]
fn kill_keys() {
    assert_eq!(submitted("echo safe\x15rm -rf /\r"), ["rm -rf /"]);
    assert_eq!(submitted("echo rm -rf /\x01\x1bd\x04\r"), ["rm -rf /"]);
    assert_eq!(submitted("rm -rf /tmp\x0b\r"), ["rm -rf /tmp"]);
    assert_eq!(submitted("rm -rf /tmp\x02\x02\x02\x0b\r"), ["rm -rf /"]);
    assert_eq!(
        submitted("echo x; rm -rf /tmp/x\x17/\r"),
        ["echo x; rm -rf /"]
    );
    assert_eq!(submitted("rm -rf /tmp\x1b\x7f\r"), ["rm -rf /"]);
    assert_eq!(submitted("rm -rf /tmp\x1b\x08\r"), ["rm -rf /"]);
    // Ctrl-U kills back from the cursor only (in bash; zsh kills the whole line, so the
    // line is also opaque).
    assert_eq!(submitted("echo /\x02\x15rm -rf \r"), ["rm -rf /"]);
    assert!(opaque("xyz\x02\x15rm -rf /\r").is_some());
    assert_eq!(opaque("xyz\x15rm -rf /\r"), None);
}

#[test]
fn yank_and_accumulated_kills() {
    assert_eq!(submitted("rm -rf /\x15\x19\r"), ["rm -rf /"]);
    assert_eq!(submitted("-rf /\x01\x0brm \x19\r"), ["rm -rf /"]);
    // Two backward kills in a row yank back as one, in order.
    assert_eq!(submitted("rm -rf /\x17\x17\x17\x19\r"), ["rm -rf /"]);
    let mut e = Editor::new(Keymap::Readline);
    e.feed("abc\x15");
    assert_eq!(e.kill_ring(), "abc");
    // The kill ring outlives the line.
    assert_eq!(e.feed("\x19\r")[0].text, "abc");
}

#[test]
fn transpose_and_moves() {
    assert_eq!(submitted("mr\x14 -rf /\r"), ["rm -rf /"]);
    assert_eq!(submitted("mr -rf /\x01\x06\x14\r"), ["rm -rf /"]);
    assert_eq!(submitted("-rf /\x01rm \r"), ["rm -rf /"]);
    assert_eq!(
        submitted("rm -rf \x1b[D\x1b[D\x1b[C\x1b[C/\r"),
        ["rm -rf /"]
    );
    assert_eq!(submitted(" -rf /\x1b[Hrm\x1b[F\r"), ["rm -rf /"]);
    assert_eq!(submitted(" -rf /\x1bOHrm\x1bOF\r"), ["rm -rf /"]);
    assert_eq!(submitted(" -rf /\x1b[1~rm\x1b[4~\r"), ["rm -rf /"]);
    assert_eq!(submitted("rf /\x1bb\x1bb-\x01rm \r"), ["rm -rf /"]);
    assert_eq!(submitted("rm -rf /x\x1b[D\x1b[3~\r"), ["rm -rf /"]);
    assert_eq!(submitted("rm -rf /x\x02\x04\r"), ["rm -rf /"]);
}

#[test]
fn literal_next_and_ignored_keys() {
    assert_eq!(submitted("r\x16m -rf /\r"), ["rm -rf /"]);
    assert_eq!(submitted("true;\x00rm -rf /\r"), ["true;rm -rf /"]);
    assert_eq!(submitted("r\x07m\x0c -rf /\r"), ["rm -rf /"]);
    assert_eq!(submitted("a\x16\x7fb\r"), ["a\x7fb"]);
    assert_eq!(submitted("a\x16\rb\r"), ["a\rb"]);
    // Unbound Esc + character: both dropped.
    assert_eq!(submitted("r\x1b:m\r"), ["rm"]);
}

#[test]
fn ctrl_c_abandons_and_ctrl_d_on_empty_line_is_eof() {
    assert_eq!(
        rl("rm -rf\x03echo ok\r"),
        (vec!["echo ok".into()], String::new())
    );
    assert_eq!(submitted("\x04rm -rf /\r"), ["rm -rf /"]);
}

#[test]
fn case_changes() {
    assert_eq!(submitted("rm\x01\x1bu\r"), ["RM"]);
    assert_eq!(submitted("RM\x01\x1bl\r"), ["rm"]);
    assert_eq!(submitted("rM\x01\x1bc\r"), ["Rm"]);
}

#[test]
fn escape_sequences_do_not_leak_text() {
    assert_eq!(submitted("rm\x1b[1;5C -rf /\r"), ["rm -rf /"]);
    assert_eq!(
        opaque("rm\x1b[1;5C -rf /\r"),
        Some("an escape sequence kpty does not model")
    );
    assert_eq!(
        submitted("a\x1b[200~rm -rf /\rx\x1b[201~\r"),
        ["arm -rf /\nx"]
    );
    assert_eq!(opaque("a\x1b[200~rm -rf /\rx\x1b[201~\r"), None);
    assert!(opaque("\x1b[200~;rm -rf /x\x7f\x1b[201~\r").is_some());
}

#[test]
fn opaque_keys() {
    for input in [
        "reboo\t\r",
        "\x1b[A\r",
        "\x1bOB\r",
        "\x10\r",
        "\x0e",
        "\x12rm\r",
        "\x13",
        "\x1f",
        "\x18\x15",
        "\x1b.",
        "\x1b_",
        "\x1b<",
        "\x1b>",
        "\x1br",
        "\x1by",
        "\x1b3\x7f",
        "\x1b?",
        "\x1b*",
        "\x1b\x1b",
        "\x1b\x05",
        "\x1d/",
        "\x1a",
        "\x1c",
        "\x1b[5~",
        "\x1b[2~",
        "\x1bOP",
        "\x1bt",
    ] {
        assert!(opaque(input).is_some(), "{input:?}");
    }
    for input in [
        "ls\r",
        "\x1b[D\x1b[C",
        "\x01\x05\x02\x06",
        "a\x1bb\x1bf",
        "\x03",
    ] {
        assert_eq!(opaque(input), None, "{input:?}");
    }
}

#[test]
fn ctrl_o_submits_then_loads_history() {
    let mut e = Editor::new(Keymap::Readline);
    let lines = e.feed("ls\x0f");
    assert_eq!(lines[0].text, "ls");
    assert_eq!(lines[0].opaque, None);
    assert!(e.pending().opaque.is_some());
}

#[test]
fn vi_mode_until_set_o_emacs() {
    let mut e = Editor::new(Keymap::Readline);
    let lines = e.feed("\x1b\nls\rset -o emacs\rpwd\r");
    let o: Vec<_> = lines.iter().map(|l| l.opaque.is_some()).collect();
    assert_eq!(o, [true, false, false]);
}

#[test]
fn sequences_split_across_feeds() {
    let mut e = Editor::new(Keymap::Readline);
    e.feed("rm -rf /x\x1b");
    e.feed("[D\x1b[3");
    assert_eq!(e.feed("~\r")[0].text, "rm -rf /");
    e.feed("r\x16");
    assert_eq!(e.feed("m\r")[0].text, "rm");
    e.feed("\x1b[200~rm -rf");
    assert_eq!(e.pending().text, "[200~rm -rf");
    assert_eq!(e.feed(" /\x1b[201~\r")[0].text, "rm -rf /");
}

#[test]
fn a_history_move_replaces_the_line() {
    let mut e = Editor::new(Keymap::Readline);
    let l = e.feed("2\x1b[B\r");
    assert_eq!((l[0].text.as_str(), l[0].edited), ("", false));
    assert!(l[0].opaque.is_some());
    let l = e.feed("\x1b[Ax\r");
    assert!(l[0].edited && l[0].opaque.is_some());
}

#[test]
fn edited_flag() {
    let mut e = Editor::new(Keymap::Readline);
    let l = e.feed("\x1b[A\x1b[D\r");
    assert!(!l[0].edited);
    let l = e.feed("\x1b[A\x7f\r");
    assert!(l[0].edited && l[0].opaque.is_some());
}

#[test]
fn canonical_mode() {
    let c = |s| run(Keymap::Canonical, s);
    assert_eq!(c("x\x7frm\r").0, ["rm"]);
    assert_eq!(c("a\tb\x1b[A\r").0, ["a\tb\x1b[A"]);
    assert_eq!(c("echo x\x15rm\r").0, ["rm"]);
    // Linux's word erase stops at a non-alphanumeric after a word.
    assert_eq!(c("rm -rf /tmp/x\x17\x17\r").0, ["rm -rf /"]);
    assert_eq!(c("rm -rf /x\x01\x7f\x7f\r").0, ["rm -rf /"]);
    assert_eq!(c("r\x16\x7fm\r").0, ["r\x7fm"]);
    assert_eq!(c("rm\x04 -rf /\r").0, ["rm", " -rf /"]);
    assert_eq!(c("rm -rf\x03ls\r").0, ["ls"]);
    let mut e = Editor::new(Keymap::Canonical);
    assert!(e.feed("\t\x12\x1b[A\r").iter().all(|l| l.opaque.is_none()));
}

#[test]
fn runaway_yanks_give_up() {
    let mut e = Editor::new(Keymap::Readline);
    let input = format!("abcdefgh{}", "\x01\x0b\x19\x19".repeat(40));
    e.feed(&input);
    assert!(e.gave_up() || e.pending().opaque.is_some());
    assert!(e.pending().text.chars().count() <= MAX_LINE_CHARS);
}
