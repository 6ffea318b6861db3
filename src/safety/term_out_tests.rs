//! Tests of the attach output sanitiser: examples of each kind of sequence, and properties
//! checked with an independent parser (`vte`): random output mixing text, SGR, allowed and
//! forbidden sequences, split into frames anywhere, never shows a forbidden sequence, keeps
//! all text and SGR in order, and keeps its state bounded; arbitrary bytes likewise.

use super::*;
use proptest::prelude::*;

fn clean(policy: Policy, frames: &[&[u8]]) -> Vec<u8> {
    let mut t = TermOut::new(policy);
    let mut out = Vec::new();
    for f in frames {
        t.feed(f, &mut out);
    }
    out
}

fn one(input: &[u8]) -> Vec<u8> {
    clean(Policy::default(), &[input])
}

/// What an independent parser sees in the output.
#[derive(Default, Debug)]
struct Seen {
    text: String,
    sgr: Vec<String>,
    forbidden: Vec<String>,
    titles: Vec<String>,
}

impl vte::Perform for Seen {
    fn print(&mut self, c: char) {
        if ('\u{80}'..='\u{9f}').contains(&c) {
            self.forbidden.push(format!("C1 {c:?}"));
        }
        self.text.push(c);
    }
    fn execute(&mut self, b: u8) {
        if b == 0x05 || b >= 0x80 {
            self.forbidden.push(format!("execute {b:#x}"));
        }
    }
    fn hook(&mut self, _: &vte::Params, i: &[u8], _: bool, a: char) {
        self.forbidden
            .push(format!("DCS {} {a}", String::from_utf8_lossy(i)));
    }
    fn put(&mut self, _: u8) {}
    fn osc_dispatch(&mut self, params: &[&[u8]], _bel: bool) {
        let num = String::from_utf8_lossy(params.first().copied().unwrap_or_default());
        let query = params.iter().any(|p| *p == b"?");
        let ok = match num.as_ref() {
            "0" | "1" | "2" => {
                let t = params[1..]
                    .iter()
                    .map(|p| String::from_utf8_lossy(p))
                    .collect::<Vec<_>>()
                    .join(";");
                let good = t.chars().count() <= MAX_TITLE && !t.chars().any(char::is_control);
                self.titles.push(t);
                good
            }
            "8" => params.get(2).is_some_and(|u| {
                u.is_empty()
                    || (u.len() <= MAX_URI
                        && (u.starts_with(b"http")
                            || u.starts_with(b"mailto:")
                            || u.starts_with(b"file:")))
            }),
            // Colour settings (not queries), as `osc_allowed` passes them.
            "4" | "5" | "104" | "105" | "7" | "133" => !query,
            n if n
                .parse::<u32>()
                .is_ok_and(|n| (10..=19).contains(&n) || (110..=119).contains(&n)) =>
            {
                !query
            }
            _ => false,
        };
        if !ok {
            self.forbidden.push(format!("OSC {params:?}"));
        }
    }
    fn csi_dispatch(&mut self, params: &vte::Params, inter: &[u8], _: bool, a: char) {
        let private = inter.iter().any(|c| b"<=>?".contains(c));
        let query = match a {
            'c' | 'n' | 't' | 'i' => true,
            'p' | 'w' => inter.contains(&b'$'),
            'q' => inter.contains(&b'>'),
            'u' => private || inter.contains(&b'$'),
            'm' => private,
            'x' => inter.is_empty(),
            'S' => inter.contains(&b'?'),
            '|' => inter.contains(&b'\''),
            'y' => inter.contains(&b'*'),
            'v' => inter.contains(&b'"'),
            'R' => inter.contains(&b'#'),
            _ => false,
        };
        if query {
            self.forbidden.push(format!("CSI {inter:?} {a}"));
        } else if a == 'm' {
            let p: Vec<String> = params
                .iter()
                .map(|s| s.iter().map(u16::to_string).collect::<Vec<_>>().join(":"))
                .collect();
            self.sgr.push(p.join(";"));
        }
    }
    fn esc_dispatch(&mut self, inter: &[u8], _: bool, b: u8) {
        if inter.is_empty() && b == b'Z' {
            self.forbidden.push("DECID".into());
        }
    }
}

fn parse(out: &[u8]) -> Seen {
    let mut seen = Seen::default();
    let mut p = vte::Parser::new();
    p.advance(&mut seen, out);
    // SOS/PM/APC strings are ignored by vte: look for their starts in the bytes.
    for w in out.windows(2) {
        if w[0] == 0x1b && b"X^_P".contains(&w[1]) {
            seen.forbidden.push(format!("string {:?}", w[1] as char));
        }
    }
    seen
}

#[test]
fn queries_are_dropped_text_around_them_stays() {
    for q in [
        &b"\x1b[c"[..],
        b"\x1b[0c",
        b"\x1b[>c",
        b"\x1b[>0c",
        b"\x1b[=c",
        b"\x1b[5n",
        b"\x1b[6n",
        b"\x1b[?6n",
        b"\x1b[?2004$p",
        b"\x1b[4$p",
        b"\x1b[>q",
        b"\x1b[>0q",
        b"\x1b[11t",
        b"\x1b[21t",
        b"\x1b[14;2t",
        b"\x1b[8;100;100t",
        b"\x1b[?u",
        b"\x1b[>1u",
        b"\x1b[?4m",
        b"\x1bZ",
        b"\x1bP$qm\x1b\\",
        b"\x1bP+q544e\x1b\\",
        b"\x1bPtmux;\x1b\x1b]52;c;SGk=\x07\x1b\\",
        b"\x1bP0;1|17/ab\x1b\\",
        b"\x1b]11;?\x07",
        b"\x1b]10;?\x1b\\",
        b"\x1b]4;1;?\x07",
        b"\x1b]52;c;UFdORUQtQ0xJUA==\x07",
        b"\x1b]52;c;?\x07",
        b"\x1b]1337;File=name=eA==:eA==\x07",
        b"\x1b]50;?\x07",
        b"\x1b_Ga=q;AAAA\x1b\\",
        b"\x1b^pm\x1b\\",
        b"\x05",
        b"\xc2\x9b6n",
        b"\x9b6n",
        b"\xe0\x9b6n",
    ] {
        assert!(
            !parse(q).forbidden.is_empty(),
            "the checker must see {q:?} raw"
        );
        let mut input = b"a".to_vec();
        input.extend_from_slice(q);
        input.push(b'b');
        let out = one(&input);
        let seen = parse(&out);
        assert!(
            seen.forbidden.is_empty(),
            "{q:?} -> {out:?}: {:?}",
            seen.forbidden
        );
        assert!(
            seen.text.starts_with('a') && seen.text.ends_with('b'),
            "{q:?} -> {out:?}"
        );
        assert!(!out.windows(9).any(|w| w == b"UFdORUQtQ"), "{q:?}");
    }
}

/// Every query CSI stays dropped whatever other intermediates or private markers stand
/// beside its own, wherever they stand (found by `arbitrary_bytes_never_carry_a_query`:
/// `CSI SP $ u` passed because only a lone `$` was read as DECRQTSR).
#[test]
fn extra_intermediates_never_make_a_query_pass() {
    // (parameter and intermediate bytes, final) of each query family.
    let queries: &[(&[u8], u8)] = &[
        (b"", b'c'),
        (b"6", b'n'),
        (b"14", b't'),
        (b"0", b'i'),
        (b"4$", b'p'),
        (b"$", b'w'),
        (b">", b'q'),
        (b"?", b'u'),
        (b"$", b'u'),
        (b">4", b'm'),
        (b"?1;1", b'S'),
        (b"'", b'|'),
        (b"1*", b'y'),
        (b"\"", b'v'),
        (b"#", b'R'),
    ];
    let extras: Vec<u8> = (0x20..=0x2f).chain(0x3c..=0x3f).collect();
    for &(params, fin) in queries {
        for &extra in &extras {
            for at in 0..=params.len() {
                let mut p = params.to_vec();
                p.insert(at, extra);
                let seq = [b"\x1b[".as_slice(), &p, &[fin]].concat();
                let out = one(&seq);
                assert!(out.is_empty(), "{seq:?} passed as {out:?}");
            }
        }
    }
}

#[test]
fn ordinary_output_passes_as_it_came() {
    for s in [
        &b"plain text\r\n"[..],
        b"\x1b[1;31mred\x1b[0m",
        b"\x1b[38;2;1;2;3mrgb\x1b[m",
        b"\x1b[2J\x1b[H\x1b[?25l\x1b[?1049h\x1b[?2004h",
        b"\x1b(0qqq\x1b(B",
        b"\x1b7\x1b8\x1bM\x1bc",
        "é€𝄞 \u{a0}".as_bytes(),
        b"\x1b[3 q",
        b"bell\x07\x08\t",
    ] {
        assert_eq!(one(s), s, "{s:?}");
    }
}

#[test]
fn titles_are_kept_but_cleaned_and_capped() {
    assert_eq!(one(b"\x1b]0;hi there\x07"), b"\x1b]0;hi there\x1b\\");
    assert_eq!(one(b"\x1b]2;x\xc2\x9by\x1b\\"), b"\x1b]2;xy\x1b\\");
    assert_eq!(one("\x1b]2;a\u{202e}b\x07".as_bytes()), b"\x1b]2;ab\x1b\\");
    let long = [b"\x1b]2;".to_vec(), vec![b'x'; 1000], b"\x07".to_vec()].concat();
    let out = one(&long);
    assert_eq!(out.len(), 4 + MAX_TITLE + 2);
    // Beyond the OSC limit: dropped whole, the text after it stays.
    let huge = [
        b"\x1b]2;".to_vec(),
        vec![b'x'; MAX_OSC + 10],
        b"\x07after".to_vec(),
    ]
    .concat();
    assert_eq!(one(&huge), b"after");
}

#[test]
fn links_and_the_clipboard_follow_the_policy() {
    let link = b"\x1b]8;id=a1;https://example.com/x\x1b\\text\x1b]8;;\x1b\\";
    assert_eq!(one(link), link);
    assert_eq!(
        one(b"\x1b]8;foo=bar:id=z;http://e.x\x07"),
        b"\x1b]8;id=z;http://e.x\x1b\\"
    );
    for bad in [
        &b"\x1b]8;;javascript:alert(1)\x07"[..],
        b"\x1b]8;;https://a b\x07",
        b"\x1b]8;;ssh://x\x07",
    ] {
        assert_eq!(one(bad), b"", "{bad:?}");
    }
    let set = b"\x1b]52;c;UFdORUQtQ0xJUA==\x07";
    assert_eq!(one(set), b"");
    let allow = Policy {
        allow_clipboard: true,
        ..Policy::default()
    };
    assert_eq!(clean(allow, &[set]), b"\x1b]52;c;UFdORUQtQ0xJUA==\x1b\\");
    assert_eq!(clean(allow, &[b"\x1b]52;c;?\x07"]), b"");
}

#[test]
fn a_sequence_split_between_frames_is_judged_whole() {
    let input = b"x\x1b]52;c;UFdORUQ=\x07y\x1b[6nz\x1bP$qm\x1b\\w\x1b[31mv";
    let whole = one(input);
    assert_eq!(whole, b"xyzw\x1b[31mv");
    for cut in 0..=input.len() {
        assert_eq!(
            clean(Policy::default(), &[&input[..cut], &input[cut..]]),
            whole,
            "cut {cut}"
        );
    }
}

/// One piece of generated session output.
#[derive(Debug, Clone)]
enum Piece {
    Text(String),
    Sgr(Vec<u16>),
    Allowed(Vec<u8>),
    Forbidden(Vec<u8>),
}

fn term() -> impl Strategy<Value = &'static [u8]> {
    prop::sample::select(vec![&b"\x07"[..], &b"\x1b\\"[..]])
}

fn forbidden() -> impl Strategy<Value = Vec<u8>> {
    let n = 0u16..2000;
    let payload = "[ -~&&[^;]]{0,20}";
    prop_oneof![
        (
            prop::sample::select(&["", "0", "1"][..]),
            prop::sample::select(&["", ">", "="][..])
        )
            .prop_map(|(p, m)| format!("\x1b[{m}{p}c").into_bytes()),
        (prop::sample::select(&["5", "6", "?6", "?15", ""][..]))
            .prop_map(|p| format!("\x1b[{p}n").into_bytes()),
        (n.clone(), any::<bool>()).prop_map(|(p, q)| format!(
            "\x1b[{}{p}$p",
            if q { "?" } else { "" }
        )
        .into_bytes()),
        prop::sample::select(&["", "0"][..]).prop_map(|p| format!("\x1b[>{p}q").into_bytes()),
        prop::sample::select(&[11u16, 13, 14, 18, 19, 20, 21, 8][..])
            .prop_map(|p| format!("\x1b[{p}t").into_bytes()),
        prop::sample::select(&["?", ">1", "<", "=1;1"][..])
            .prop_map(|p| format!("\x1b[{p}u").into_bytes()),
        payload.prop_map(|p| format!("\x1bP$q{p}\x1b\\").into_bytes()),
        "[0-9A-F]{0,12}".prop_map(|p| format!("\x1bP+q{p}\x1b\\").into_bytes()),
        (
            "[A-Za-z0-9+/=]{0,40}",
            term(),
            prop::sample::select(&["c", "p", "s0", ""][..])
        )
            .prop_map(|(d, t, s)| [format!("\x1b]52;{s};{d}").as_bytes(), t].concat()),
        (
            prop::sample::select(&["4;1", "10", "11", "12", "17", "19", "4;200"][..]),
            term()
        )
            .prop_map(|(o, t)| [format!("\x1b]{o};?").as_bytes(), t].concat()),
        (
            prop::sample::select(&["1337", "9", "777", "50", "99", "5113"][..]),
            payload,
            term()
        )
            .prop_map(|(o, p, t)| [format!("\x1b]{o};{p}").as_bytes(), t].concat()),
        (payload).prop_map(|p| format!("\x1b_G{p}\x1b\\").into_bytes()),
        Just(b"\x1bZ".to_vec()),
        Just(b"\x05".to_vec()),
        prop::sample::select(
            &[
                "\u{9b}6n",
                "\u{9b}>c",
                "\u{90}$qm\x1b\\",
                "\u{9d}52;c;QUJD\x07",
                "\u{9b}?6n"
            ][..]
        )
        .prop_map(|c| c.as_bytes().to_vec()),
    ]
}

fn allowed() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (1u16..50, 1u16..200).prop_map(|(r, c)| format!("\x1b[{r};{c}H").into_bytes()),
        prop::sample::select(
            &[
                "\x1b[2J",
                "\x1b[K",
                "\x1b[?25h",
                "\x1b[?1049l",
                "\x1b(B",
                "\x1b7"
            ][..]
        )
        .prop_map(|s| s.as_bytes().to_vec()),
        ("[ -~]{0,30}", term()).prop_map(|(t, e)| [format!("\x1b]2;{t}").as_bytes(), e].concat()),
    ]
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        3 => "[ -~é€]{1,12}".prop_map(Piece::Text),
        2 => proptest::collection::vec(0u16..108, 0..4).prop_map(Piece::Sgr),
        2 => allowed().prop_map(Piece::Allowed),
        3 => forbidden().prop_map(Piece::Forbidden),
    ]
}

fn frames(input: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    at.sort_unstable();
    let mut out = Vec::new();
    let mut from = 0;
    for c in at {
        out.push(input[from..c].to_vec());
        from = c;
    }
    out.push(input[from..].to_vec());
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn no_forbidden_sequence_survives_any_split(
        pieces in proptest::collection::vec(piece(), 0..30),
        cuts in proptest::collection::vec(0usize..10_000, 0..12),
    ) {
        let mut input = Vec::new();
        let (mut text, mut sgr) = (String::new(), Vec::new());
        for p in &pieces {
            match p {
                Piece::Text(t) => {
                    text.push_str(t);
                    input.extend_from_slice(t.as_bytes());
                }
                Piece::Sgr(ps) => {
                    let s: Vec<String> = ps.iter().map(u16::to_string).collect();
                    let s = s.join(";");
                    input.extend_from_slice(format!("\x1b[{s}m").as_bytes());
                    sgr.push(if s.is_empty() { "0".to_string() } else { s });
                }
                Piece::Allowed(b) | Piece::Forbidden(b) => input.extend_from_slice(b),
            }
        }
        let mut t = TermOut::new(Policy::default());
        let mut out = Vec::new();
        for f in frames(&input, &cuts) {
            t.feed(&f, &mut out);
            prop_assert!(t.pending() <= MAX_OSC);
        }
        let seen = parse(&out);
        prop_assert!(seen.forbidden.is_empty(), "{:?} in {:?}", seen.forbidden, String::from_utf8_lossy(&out));
        prop_assert_eq!(seen.text, text);
        prop_assert_eq!(seen.sgr, sgr);
        // The split does not matter.
        prop_assert_eq!(out, one(&input));
    }

    #[test]
    fn arbitrary_bytes_never_carry_a_query(
        input in proptest::collection::vec(prop_oneof![
            4 => any::<u8>(),
            2 => prop::sample::select(b"\x1b[]P_^X;?><= !\"#'*$cnqtuxSyvRpwim0123456789\x07\\\xc2\x9b\x9d".to_vec()),
        ], 0..200),
        cuts in proptest::collection::vec(0usize..400, 0..6),
    ) {
        let mut t = TermOut::new(Policy { allow_clipboard: true, ..Policy::default() });
        let mut out = Vec::new();
        for f in frames(&input, &cuts) {
            t.feed(&f, &mut out);
            prop_assert!(t.pending() <= MAX_OSC);
        }
        let seen = parse(&out);
        let real: Vec<&String> = seen.forbidden.iter().filter(|f| !f.starts_with("OSC [[53, 50]")).collect();
        prop_assert!(real.is_empty(), "{:?} in {:?}", real, out);
    }

    /// A page that lost its connection comes back from the offset `unfinished` gives, to a
    /// sanitiser started afresh: what it is sent before the cut (all but the unfinished
    /// character's bytes) and after it is what one unbroken stream would have been, byte for
    /// byte, wherever the stream is cut (mid-sequence, mid-character, mid-string).
    #[test]
    fn a_stream_resumed_from_its_clean_point_is_the_unbroken_stream(
        input in proptest::collection::vec(prop_oneof![
            3 => any::<u8>(),
            2 => prop::sample::select(b"\x1b[]P_^X;?m0123456789\x07\\\xc2\x9b\xe2\x82\xac\xf0\x9f\x98\x80ab ".to_vec()),
        ], 0..200),
        before in proptest::collection::vec(0usize..400, 0..4),
        cut in 0usize..400,
    ) {
        let cut = cut % (input.len() + 1);
        let policy = Policy::default();
        let mut whole = Vec::new();
        TermOut::new(policy).feed(&input, &mut whole);
        // The first connection: frames up to the cut.
        let mut first = TermOut::new(policy);
        let mut got = Vec::new();
        for f in frames(&input[..cut], &before) {
            first.feed(&f, &mut got);
        }
        let u = first.unfinished();
        prop_assert!(u.input <= cut && u.passed <= got.len(), "{:?}", u);
        got.truncate(got.len() - u.passed);
        // The second: from the clean point on.
        TermOut::new(policy).feed(&input[cut - u.input..], &mut got);
        prop_assert_eq!(got, whole);
    }
}

/// An OSC number with leading zeros is passed on as the number it is (found by
/// `arbitrary_bytes_never_carry_a_query`: a raw C1 OSC `04` ended by ESC NUL).
#[test]
fn osc_numbers_are_passed_on_canonical() {
    let out = clean(Policy::default(), &[b"\x9d04\x1b\0", b"\x1b]0010;#fff\x07"]);
    assert_eq!(out, b"\x1b]4\x1b\\\0\x1b]10;#fff\x1b\\");
    assert!(parse(&out).forbidden.is_empty(), "{out:?}");
}

#[test]
fn c1_controls_are_read_as_their_7_bit_forms() {
    // avt's redraw writes a CSI in progress as U+009B: the rest of it follows.
    let out = clean(
        Policy::default(),
        &["\x1b[0m\u{9b}3\x1b[?2026l\x1b[3".as_bytes(), b"1mRED"],
    );
    assert_eq!(out, b"\x1b[0m\x1b[?2026l\x1b[31mRED");
    assert_eq!(
        one("a\u{9b}1mb\u{9b}6nc\u{85}".as_bytes()),
        b"a\x1b[1mbc\x1bE"
    );
    assert_eq!(one(b"a\x9b31mb\x9d52;c;QUJD\x07c"), b"a\x1b[31mbc");
}

/// A checker of its own (vte): every DEC private mode a stream sets or resets.
#[derive(Default)]
struct Modes(Vec<(u16, char)>);

impl vte::Perform for Modes {
    fn csi_dispatch(&mut self, params: &vte::Params, inter: &[u8], _: bool, a: char) {
        if inter == b"?" && (a == 'h' || a == 'l') {
            self.0
                .extend(params.iter().flat_map(|p| p.iter().map(move |m| (*m, a))));
        }
    }
}

fn modes(out: &[u8]) -> Vec<(u16, char)> {
    let mut m = Modes::default();
    vte::Parser::new().advance(&mut m, out);
    m.0
}

const OWN: Policy = Policy {
    allow_clipboard: false,
    own_screen: true,
};

#[test]
fn under_its_own_screen_the_client_turns_screen_switches_into_clears_and_redraws() {
    let mut t = TermOut::new(OWN);
    let mut out = Vec::new();
    t.feed(b"a\x1b[?1049hb", &mut out);
    assert_eq!(out, b"a\x1b[H\x1b[2Jb");
    assert!(!t.take_redraw_request(), "entering needs no redraw");
    out.clear();
    t.feed(b"\x1b[?1049;1004l", &mut out);
    assert_eq!(out, b"\x1b[?1004l\x1b[H\x1b[2J");
    assert!(
        t.take_redraw_request(),
        "leaving asks for the screen it goes back to"
    );
    assert!(!t.take_redraw_request(), "once");
    out.clear();
    t.feed(b"\x1b[?1004;47h", &mut out);
    assert!(t.focus_reporting());
    // Without its own screen, a switch passes as it is.
    assert_eq!(one(b"\x1b[?1049h"), b"\x1b[?1049h");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Whatever the session prints, cut anywhere, no screen switch reaches a terminal the
    /// client draws in its own alternate screen; every other mode still does.
    #[test]
    fn no_screen_switch_passes_under_its_own_screen(
        seq in proptest::collection::vec((
            prop::sample::select(vec![1u16, 25, 47, 1000, 1004, 1047, 1049, 2004]),
            any::<bool>(),
            "[a-z ]{0,4}",
        ), 0..12),
        cuts in proptest::collection::vec(0usize..400, 0..6),
    ) {
        let mut input = Vec::new();
        let mut want = Vec::new();
        for (m, on, text) in &seq {
            let fin = if *on { 'h' } else { 'l' };
            input.extend_from_slice(format!("\x1b[?{m}{fin}{text}").as_bytes());
            if ![47, 1047, 1049].contains(m) {
                want.push((*m, fin));
            }
        }
        let mut t = TermOut::new(OWN);
        let mut out = Vec::new();
        for f in frames(&input, &cuts) {
            t.feed(&f, &mut out);
        }
        prop_assert_eq!(modes(&out), want);
    }
}
