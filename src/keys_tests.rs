use super::*;

fn k(key: &str) -> String {
    key_bytes(key, false).unwrap_or_else(|e| panic!("{e}"))
}

fn app(key: &str) -> String {
    key_bytes(key, true).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_named_key_has_its_xterm_bytes() {
    let table = [
        ("Enter", "\r"),
        ("Tab", "\t"),
        ("BTab", "\x1b[Z"),
        ("Space", " "),
        ("BSpace", "\x7f"),
        ("Escape", "\x1b"),
        ("Up", "\x1b[A"),
        ("Down", "\x1b[B"),
        ("Right", "\x1b[C"),
        ("Left", "\x1b[D"),
        ("Home", "\x1b[H"),
        ("End", "\x1b[F"),
        ("IC", "\x1b[2~"),
        ("Insert", "\x1b[2~"),
        ("DC", "\x1b[3~"),
        ("Delete", "\x1b[3~"),
        ("PPage", "\x1b[5~"),
        ("PageUp", "\x1b[5~"),
        ("PgUp", "\x1b[5~"),
        ("NPage", "\x1b[6~"),
        ("PageDown", "\x1b[6~"),
        ("PgDn", "\x1b[6~"),
        ("F1", "\x1bOP"),
        ("F2", "\x1bOQ"),
        ("F3", "\x1bOR"),
        ("F4", "\x1bOS"),
        ("F5", "\x1b[15~"),
        ("F6", "\x1b[17~"),
        ("F7", "\x1b[18~"),
        ("F8", "\x1b[19~"),
        ("F9", "\x1b[20~"),
        ("F10", "\x1b[21~"),
        ("F11", "\x1b[23~"),
        ("F12", "\x1b[24~"),
        ("KP/", "/"),
        ("KP*", "*"),
        ("KP-", "-"),
        ("KP+", "+"),
        ("KP.", "."),
        ("KPEnter", "\r"),
        ("KP0", "0"),
        ("KP5", "5"),
        ("KP9", "9"),
    ];
    for (name, bytes) in table {
        assert_eq!(k(name), bytes, "{name}");
    }
    // Every name in the table is covered above or encodes to something.
    for (name, _) in NAMES {
        assert!(!k(name).is_empty(), "{name}");
    }
}

#[test]
fn names_are_case_insensitive_as_in_tmux() {
    assert_eq!(k("enter"), "\r");
    assert_eq!(k("ESCAPE"), "\x1b");
    assert_eq!(k("pageup"), "\x1b[5~");
    assert_eq!(k("f12"), "\x1b[24~");
    assert_eq!(k("c-c"), "\x03");
    assert_eq!(k("m-B"), "\x1bB");
}

#[test]
fn cursor_keys_follow_the_application_cursor_mode() {
    for (name, f) in [
        ("Up", 'A'),
        ("Down", 'B'),
        ("Right", 'C'),
        ("Left", 'D'),
        ("Home", 'H'),
        ("End", 'F'),
    ] {
        assert_eq!(app(name), format!("\x1bO{f}"), "{name}");
        // With a modifier, the same in both modes.
        assert_eq!(app(&format!("C-{name}")), format!("\x1b[1;5{f}"));
        assert_eq!(k(&format!("C-{name}")), format!("\x1b[1;5{f}"));
    }
    // Other keys do not depend on the mode.
    for name in ["F1", "F5", "PageUp", "Enter", "C-c", "BTab", "x"] {
        assert_eq!(app(name), k(name), "{name}");
    }
}

#[test]
fn control_chords_follow_the_terminal_table() {
    for (c, byte) in ('a'..='z').zip(1u8..) {
        let want = char::from(byte).to_string();
        assert_eq!(k(&format!("C-{c}")), want, "C-{c}");
        // tmux: C-C is C-c.
        assert_eq!(k(&format!("C-{}", c.to_ascii_uppercase())), want);
        assert_eq!(k(&format!("^{c}")), want, "^{c}");
    }
    assert_eq!(k("C-@"), "\0");
    assert_eq!(k("C-Space"), "\0");
    assert_eq!(k("C-["), "\x1b");
    assert_eq!(k("C-\\"), "\x1c");
    assert_eq!(k("C-]"), "\x1d");
    assert_eq!(k("C-^"), "\x1e");
    assert_eq!(k("C-_"), "\x1f");
    assert_eq!(k("C-?"), "\x7f");
}

#[test]
fn meta_is_an_escape_prefix_and_modified_keys_carry_xterm_parameters() {
    assert_eq!(k("M-x"), "\x1bx");
    assert_eq!(k("M-Enter"), "\x1b\r");
    assert_eq!(k("M-BSpace"), "\x1b\x7f");
    assert_eq!(k("C-M-x"), "\x1b\x18");
    assert_eq!(k("M-C-x"), "\x1b\x18");
    assert_eq!(k("M--"), "\x1b-");
    assert_eq!(k("S-a"), "A");
    assert_eq!(k("S-Tab"), "\x1b[Z");
    assert_eq!(k("S-BTab"), "\x1b[Z");
    assert_eq!(k("S-Up"), "\x1b[1;2A");
    assert_eq!(k("M-Up"), "\x1b[1;3A");
    assert_eq!(k("C-S-Left"), "\x1b[1;6D");
    assert_eq!(k("C-M-S-Right"), "\x1b[1;8C");
    assert_eq!(k("S-F1"), "\x1b[1;2P");
    assert_eq!(k("C-F5"), "\x1b[15;5~");
    assert_eq!(k("M-PageDown"), "\x1b[6;3~");
    assert_eq!(k("C-Delete"), "\x1b[3;5~");
}

#[test]
fn single_characters_and_codes_are_keys() {
    assert_eq!(k("x"), "x");
    assert_eq!(k("X"), "X");
    assert_eq!(k("-"), "-");
    assert_eq!(k("^"), "^");
    assert_eq!(k("é"), "é");
    assert_eq!(k("0x03"), "\x03");
    assert_eq!(k("0x41"), "A");
    assert_eq!(k("0xe9"), "é");
    assert_eq!(k("M-0x61"), "\x1ba");
}

#[test]
fn unknown_names_and_impossible_chords_are_errors() {
    for bad in [
        "Cntrl-c", "Ctrl-c", "Return", "F13", "C-", "Up2", "", "0x", "0xD800", "0xzz", "KP",
    ] {
        let e = key_bytes(bad, false).expect_err(bad);
        assert_eq!(e.key, bad);
        assert!(e.reason.contains("C- (Ctrl)"), "{bad}: {}", e.reason);
    }
    for bad in [
        "C-Enter", "C-Tab", "C-Escape", "S-Enter", "S-Space", "C-1", "S-1", "C-BTab", "C-é",
    ] {
        let e = key_bytes(bad, false).expect_err(bad);
        assert!(e.reason.contains("no code"), "{bad}: {}", e.reason);
    }
}

#[test]
fn encode_splits_words_keeps_single_characters_and_types_literals() {
    let v = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let e = encode(&v(&["Up Enter"]), false).expect("words");
    assert_eq!(e.normal, "\x1b[A\r");
    assert_eq!(e.app_cursor, "\x1bOA\r");
    let e = encode(&v(&["a", " ", "b", "C-c"]), false).expect("chars");
    assert_eq!(e.normal, "a b\x03");
    assert_eq!(e.normal, e.app_cursor);
    let e = encode(&v(&["echo Up", "Enter"]), true).expect("literal");
    assert_eq!(e.normal, "echo UpEnter");
    let err = encode(&v(&["Up", "Cntrl-c"]), false).expect_err("typo");
    assert_eq!(err.key, "Cntrl-c");
    assert!(encode(&v(&["  "]), false).is_err());
}

#[test]
fn every_key_completion_offers_is_a_key() {
    let names = completion_names();
    assert!(names.len() > 80, "{names:?}");
    for n in &names {
        key_bytes(n, false).unwrap_or_else(|e| panic!("{n}: {e}"));
        assert!(
            n.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
            "{n} has a character a shell reads"
        );
    }
    for want in ["Enter", "Up", "C-c", "M-b", "S-Up", "F5", "PageDown"] {
        assert!(names.iter().any(|n| n == want), "{want} missing");
    }
}
