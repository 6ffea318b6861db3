//! What a person's terminal sends that is not the person typing: answers to queries. In
//! `kpty attach` these are dropped before they reach the session, so no program can make the
//! person's terminal type for it.
//!
//! [`strip_replies`] removes from one read of the person's keys: cursor position reports
//! (`CSI r ; c R` with r > 1, `CSI ? … R`), device attributes (`CSI ? … c`, `CSI > … c`,
//! `CSI = … c`), mode reports (`CSI … $ y`), window reports (`CSI … t`), kitty keyboard and
//! modifier-key mode reports (`CSI ? … u`, `CSI > … m`), focus events (`CSI I`, `CSI O`)
//! unless the session turned focus reporting on, and every OSC, DCS, APC, PM and SOS string
//! (colour, title and clipboard reports, DECRQSS/XTGETTCAP/XTVERSION answers, kitty graphics
//! replies). Keys, mouse reports (`CSI M…`, `CSI < … M/m`) and pastes pass.
//!
//! A terminal writes each answer whole, so one read holds it whole: a sequence not complete in
//! the read it starts in is passed as typed (Alt-] followed by keys is not an OSC). The
//! session's queries never reach the terminal (see [`super::term_out`]); this is the second
//! fence, for answers the terminal sends on its own.
//! Modified F3 (`CSI 1 ; mods R`) looks like a cursor report for row 1 and passes.

/// The person's keys of one read with the terminal's answers removed; `focus`: the session
/// asked for focus events (DEC mode 1004).
#[must_use]
pub fn strip_replies(keys: &[u8], focus: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(keys.len());
    let mut i = 0;
    while i < keys.len() {
        if keys[i] == 0x1b
            && let Some(len) = reply_len(&keys[i..], focus)
        {
            i += len;
            continue;
        }
        out.push(keys[i]);
        i += 1;
    }
    out
}

/// The length of the answer starting at `s[0]` (an ESC), when it is one and complete.
fn reply_len(s: &[u8], focus: bool) -> Option<usize> {
    match s.get(1)? {
        b'[' => csi_reply(s, focus),
        b']' | b'P' | b'_' | b'^' | b'X' => string_end(s),
        _ => None,
    }
}

/// A complete CSI at `s` that is a report rather than a key.
fn csi_reply(s: &[u8], focus: bool) -> Option<usize> {
    let mut j = 2;
    while s.get(j).is_some_and(|c| (0x30..=0x3f).contains(c)) {
        j += 1;
    }
    let params = &s[2..j];
    let k = j;
    while s.get(j).is_some_and(|c| (0x20..=0x2f).contains(c)) {
        j += 1;
    }
    let inter = &s[k..j];
    let fin = *s.get(j)?;
    if !(0x40..=0x7e).contains(&fin) {
        return None;
    }
    let private = params.first().copied().filter(|c| b"<=>?".contains(c));
    let first_row = params.split(|&c| c == b';').next().unwrap_or_default();
    let report = match (fin, private, inter) {
        (b'R', Some(b'?'), _) => true,
        (b'R', None, []) => params.contains(&b';') && first_row != b"1",
        (b'c', Some(b'?' | b'>' | b'='), _) => true,
        (b'y', _, [b'$']) => true,
        (b't', ..) => true,
        (b'u', Some(b'?'), _) => true,
        (b'm', Some(b'>'), _) => true,
        (b'I' | b'O', None, []) if params.is_empty() => !focus,
        _ => false,
    };
    report.then_some(j + 1)
}

/// The end of a string (OSC, DCS, APC, PM, SOS) at `s`: after its BEL or ST.
fn string_end(s: &[u8]) -> Option<usize> {
    let body = &s[2..];
    let end = body.iter().enumerate().find_map(|(i, &c)| match c {
        0x07 => Some(i + 1),
        0x1b if body.get(i + 1) == Some(&b'\\') => Some(i + 2),
        _ => None,
    })?;
    Some(2 + end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_go_keys_stay() {
        for reply in [
            &b"\x1b[24;80R"[..],
            b"\x1b[?5;1;1R",
            b"\x1b[?1;2c",
            b"\x1b[?62;22c",
            b"\x1b[>0;10;1c",
            b"\x1b[?2004;1$y",
            b"\x1b[8;24;80t",
            b"\x1b[?1u",
            b"\x1b[>4;2m",
            b"\x1b]11;rgb:0000/0000/0000\x1b\\",
            b"\x1b]10;rgb:ffff/ffff/ffff\x07",
            b"\x1b]52;c;UFdORUQ=\x07",
            b"\x1b]lPWNED\x1b\\",
            b"\x1bP1$r0m\x1b\\",
            b"\x1bP1+r544e=787465726d\x1b\\",
            b"\x1bP>|XTerm(390)\x1b\\",
            b"\x1b_Gi=1;OK\x1b\\",
            b"\x1b[I",
            b"\x1b[O",
        ] {
            let mut keys = b"a".to_vec();
            keys.extend_from_slice(reply);
            keys.extend_from_slice(b"b\r");
            assert_eq!(strip_replies(&keys, false), b"ab\r", "{reply:?}");
        }
        for key in [
            &b"\x1b[A"[..],
            b"\x1b[1;5R",
            b"\x1b[3~",
            b"\x1b[13;2u",
            b"\x1b[<0;10;5M",
            b"\x1b[<0;10;5m",
            b"\x1b[M !!",
            b"\x1b[200~text\x1b[201~",
            b"\x1b]",
            b"\x1b]abc",
            b"\x1bPx",
            b"\x1bOP",
            b"\x1b",
            "é".as_bytes(),
        ] {
            assert_eq!(strip_replies(key, false), key, "{key:?}");
        }
        assert_eq!(strip_replies(b"\x1b[I\x1b[O", true), b"\x1b[I\x1b[O");
    }

    use proptest::prelude::*;

    fn key() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            "[ -~]{1,4}".prop_map(String::into_bytes),
            prop::sample::select(
                &[
                    "\r",
                    "\x7f",
                    "\x03",
                    "\x1b[A",
                    "\x1b[1;5D",
                    "\x1bOP",
                    "\x1b[1;2R",
                    "\x1b[15~",
                    "\x1b[13;5u",
                    "\x1b[<0;3;4M",
                    "\x1b[<0;3;4m",
                    "\x1bb",
                    "é",
                    "\x1b[200~pasted\x1b[201~",
                ][..]
            )
            .prop_map(|k| k.as_bytes().to_vec()),
        ]
    }

    fn reply() -> impl Strategy<Value = Vec<u8>> {
        let n = 1u16..300;
        prop_oneof![
            (2u16..300, n.clone()).prop_map(|(r, c)| format!("\x1b[{r};{c}R")),
            (n.clone(), n.clone()).prop_map(|(r, c)| format!("\x1b[?{r};{c};1R")),
            "[0-9;]{1,12}".prop_map(|p| format!("\x1b[?{p}c")),
            "[0-9;]{1,12}".prop_map(|p| format!("\x1b[>{p}c")),
            (n.clone(), 0u16..5).prop_map(|(m, v)| format!("\x1b[?{m};{v}$y")),
            (n.clone(), n.clone()).prop_map(|(h, w)| format!("\x1b[8;{h};{w}t")),
            (
                prop::sample::select(&[10u16, 11, 12, 4, 52][..]),
                "[ -~&&[^\\\\]]{0,30}",
                any::<bool>()
            )
                .prop_map(|(o, t, bel)| format!(
                    "\x1b]{o};{t}{}",
                    if bel { "\x07" } else { "\x1b\\" }
                )),
            ("[01]", "[$+]", "[ -~&&[^\\\\]]{0,30}")
                .prop_map(|(a, b, t)| format!("\x1bP{a}{b}r{t}\x1b\\")),
            Just("\x1b[I".to_string()),
            Just("\x1b[O".to_string()),
        ]
        .prop_map(String::into_bytes)
    }

    proptest! {
        #[test]
        fn a_read_mixing_keys_and_answers_keeps_exactly_the_keys(
            items in proptest::collection::vec((any::<bool>(), key(), reply()), 0..20),
        ) {
            let (mut read, mut keys) = (Vec::new(), Vec::new());
            for (is_key, k, r) in items {
                if is_key {
                    read.extend_from_slice(&k);
                    keys.extend_from_slice(&k);
                } else {
                    read.extend_from_slice(&r);
                }
            }
            prop_assert_eq!(strip_replies(&read, false), keys);
        }
    }
}
