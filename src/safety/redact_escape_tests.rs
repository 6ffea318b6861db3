//! Generated tests of redaction through terminal escapes: every secret kind with colour
//! codes, links, charset switches, C1 controls, invisible controls and net-zero cursor moves
//! inserted at every position, then cut into two or three reads at every point; and a corpus
//! of ordinary developer output that must come back unchanged.

use super::tests::secret;
use super::*;
use crate::safety::pem;
use crate::safety::redact_plain::{EscKind, scan};
use proptest::prelude::*;

fn r(text: &str) -> String {
    redact(text).into_owned()
}

/// The text an agent sees in `out` once escapes are dropped (what a terminal would show).
fn shown(out: &str) -> String {
    scan(out).stripped.text
}

/// Escapes and controls a terminal does not print, none moving the cursor over text.
const ESCAPES: &[&str] = &[
    "\x1b[m",
    "\x1b[0m",
    "\x1b[01;31m\x1b[K",
    "\x1b[38;5;208m",
    "\x1b[38:2:1:2:3m",
    "\x1b[?25l",
    "\x1b[>4;1m",
    "\x1b[1 q",
    "\x1b]8;;https://example.com/a\x1b\\",
    "\x1b]8;;\x07",
    "\x1b]0;my title\x07",
    "\x1b]133;C\x07",
    "\x1bP1$r0m\x1b\\",
    "\x1b_apc\x1b\\",
    "\x1b(0",
    "\x1b(B",
    "\x0e",
    "\x0f",
    "\x1b=",
    "\x1b>",
    "\u{9b}1m",
    "\u{9d}0;t\u{9c}",
    "\x07",
    "\x00",
    "\x7f",
    "\x1b[1C\x1b[1D",
    "\x1b[0K",
];

/// Every 8-byte piece of `value`.
fn pieces(value: &str) -> Vec<&str> {
    (0..value.len().saturating_sub(7))
        .filter(|i| value.is_char_boundary(*i) && value.is_char_boundary(i + 8))
        .map(|i| &value[i..i + 8])
        .collect()
}

/// No piece of `value` in `out`, as sent or as shown, and no escape in `out` left unfinished
/// that was finished in `input`.
fn check(out: &str, value: &str, input: &str) -> Result<(), TestCaseError> {
    let seen = shown(out);
    for p in pieces(value) {
        prop_assert!(
            !out.contains(p) && !seen.contains(p),
            "{p:?} survives: {input:?} -> {out:?}"
        );
    }
    Ok(())
}

/// True when every escape in `text` is finished (a CSI has its final byte, a string its end).
fn escapes_finished(text: &str) -> bool {
    scan(text).escapes.iter().all(|e| {
        let s = &text[e.range.clone()];
        match e.kind {
            EscKind::Sgr => s.ends_with('m'),
            _ if s.starts_with("\x1b[") || s.starts_with('\u{9b}') => {
                s.len() > 2 && s.as_bytes()[s.len() - 1] >= 0x40
            }
            _ if e.payload.is_some() => {
                s.ends_with('\x07') || s.ends_with("\x1b\\") || s.ends_with('\u{9c}')
            }
            _ => s.len() >= 2 || !s.starts_with('\x1b'),
        }
    })
}

/// `text` with `esc` inserted at byte `at` (moved down to a char boundary).
fn insert(text: &str, at: usize, esc: &str) -> String {
    let at = pem::floor_boundary(text, at);
    format!("{}{esc}{}", &text[..at], &text[at..])
}

/// `text` with each escape inserted at its position in `text` (never inside another).
fn insert_all(text: &str, escs: &[(prop::sample::Index, &str)]) -> String {
    let mut at: Vec<(usize, &str)> = escs
        .iter()
        .map(|(i, e)| (pem::floor_boundary(text, i.index(text.len() + 1)), *e))
        .collect();
    at.sort_by_key(|(i, _)| *i);
    let mut out = String::new();
    let mut cur = 0;
    for (i, e) in at {
        out.push_str(&text[cur..i]);
        out.push_str(e);
        cur = i;
    }
    out.push_str(&text[cur..]);
    out
}

/// What a holder returns for the window `t[lo..hi]`, redacted with its context.
fn window(t: &str, lo: usize, hi: usize) -> String {
    let after = if hi == t.len() {
        ""
    } else {
        context_after(&t[hi..])
    };
    redact_window(context_before(&t[..lo]), &t[lo..hi], after).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn one_escape_at_every_position_hides_every_secret(
        (s, value) in secret(),
        esc in prop::sample::select(ESCAPES),
        pre in "[ -~]{0,12}",
    ) {
        for at in 0..=s.len() {
            if !s.is_char_boundary(at) {
                continue;
            }
            let input = format!("{pre} {}\r\n$ ", insert(&s, at, esc));
            let out = r(&input);
            check(&out, &value, &input)?;
            prop_assert!(escapes_finished(&out), "broken escape: {input:?} -> {out:?}");
            prop_assert_eq!(r(&out), out.clone(), "not idempotent");
            // The same in a JSON reply (MCP, --json, HTTP).
            let mut v = serde_json::json!({"ok": true, "output": input});
            redact_value(&mut v);
            check(v["output"].as_str().unwrap_or_default(), &value, &input)?;
        }
    }

    #[test]
    fn escapes_everywhere_and_reads_cut_anywhere_hide_every_secret(
        (s, value) in secret(),
        escs in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(ESCAPES)), 1..6),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 1..3),
        pre in "[ -~]{0,12}",
    ) {
        let coloured = insert_all(&s, &escs);
        let text = format!("{pre} {coloured}\r\nnext line\r\n$ ");
        let out = r(&text);
        check(&out, &value, &text)?;
        prop_assert!(escapes_finished(&out), "broken escape: {text:?} -> {out:?}");
        // Cut into two or three reads (inside escapes too), each redacted with its context
        // as the holder sends it; the concatenation an agent makes shows nothing either.
        let mut points: Vec<usize> = cuts
            .iter()
            .map(|c| pem::floor_boundary(&text, c.index(text.len() + 1)))
            .collect();
        points.sort_unstable();
        points.dedup();
        let mut bounds = vec![0];
        bounds.extend(points);
        bounds.push(text.len());
        let mut joined = String::new();
        for w in bounds.windows(2) {
            let part = window(&text, w[0], w[1]);
            check(&part, &value, &text)?;
            joined.push_str(&part);
        }
        check(&joined, &value, &text)?;
    }

    #[test]
    fn a_secret_cut_at_every_point_of_a_coloured_line_is_hidden(
        (s, value) in secret(),
        esc in prop::sample::select(ESCAPES),
        at in any::<prop::sample::Index>(),
    ) {
        let coloured = insert(&s, at.index(s.len() + 1), esc);
        let text = format!("$ grep x f\r\n\x1b[35mf\x1b[m:{coloured}\r\n$ ");
        for cut in 0..=text.len() {
            if !text.is_char_boundary(cut) {
                continue;
            }
            let (a, b) = (window(&text, 0, cut), window(&text, cut, text.len()));
            check(&a, &value, &text)?;
            check(&b, &value, &text)?;
            check(&format!("{a}{b}"), &value, &text)?;
        }
    }

    #[test]
    fn benign_output_with_escapes_is_unchanged(
        line in prop::sample::select(BENIGN),
        escs in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(ESCAPES)), 0..4),
    ) {
        let t = insert_all(line, &escs);
        prop_assert_eq!(r(&t), t.clone());
    }

    #[test]
    fn never_panics_on_arbitrary_control_soup(s in "(\\PC|[\\x00-\\x1f\\x7f]|\u{9b}|\u{9d}|\\x1b[\\[\\]P_^X(]|[0-9;?m])*") {
        let once = r(&s);
        let cut = pem::floor_boundary(&s, s.len() / 2);
        let _ = window(&s, 0, cut);
        let _ = window(&s, cut, s.len());
        let _ = r(&once);
    }
}

/// Ordinary developer output: none of it is a secret.
const BENIGN: &[&str] = &[
    "commit 3f2a9c1d4e5b6a7f8091a2b3c4d5e6f708192a3b (HEAD -> main, origin/main)",
    "Author: Jane Dev <jane@example.com>",
    "    Merge pull request #42 from jane/fix-token-refresh",
    "   Compiling kpty v0.1.0 (/home/jane/src/kpty)",
    "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 12.34s",
    "warning: unused variable: `password_len`",
    "error[E0425]: cannot find value `secret_key` in this scope",
    "-rw-r--r--  1 jane staff  1234 Nov 25 10:00 secrets.md",
    "drwxr-xr-x  5 jane staff   160 Nov 25 10:00 tokens",
    "PATH=/usr/local/bin:/usr/bin:/bin",
    "HOME=/home/jane",
    "SHELL=/bin/bash",
    "LANG=en_US.UTF-8",
    "TERM=xterm-256color",
    "test redact::tests::a_secret_never_survives ... ok",
    "Listening on http://127.0.0.1:8080/",
    "Cloning into 'repo'... remote: Enumerating objects: 1234, done.",
    "git push -u origin feature/auth-tokens",
    "mkdir -p build/out && cd build",
    "ssh -p 2222 deploy@host uptime",
    "docker run -u 1000:1000 --rm image:latest",
    "mysql -u root -p",
    "Authorization header missing",
    "ok: 3 passed; 0 failed; 0 ignored",
    "npm WARN deprecated request@2.88.2",
    "https://github.com/org/repo/pull/123",
    "postgres://db.internal:5432/app",
    "src/safety/redact.rs:42:5: note: see the password rule",
];

#[test]
fn benign_output_is_unchanged() {
    for line in BENIGN {
        assert_eq!(r(line), *line, "{line:?}");
        let coloured = format!("\x1b[32m{line}\x1b[0m\r\n");
        assert_eq!(r(&coloured), coloured, "{line:?}");
    }
}

#[test]
fn the_reported_cases() {
    let tok = "ghp_16C7e42F292c6912E7710c838347Ae178B4a";
    // grep --color=always ghp_ env.sample
    let grep = format!(
        "GITHUB_TOKEN=\x1b[01;31m\x1b[Kghp_\x1b[m\x1b[K{}\r\n",
        &tok[4..]
    );
    let out = r(&grep);
    assert!(
        !out.contains(&tok[4..12]) && !shown(&out).contains(&tok[4..12]),
        "{out:?}"
    );
    assert!(escapes_finished(&out), "{out:?}");
    // A backspace overstrike (man-page bold) and a `\r` overprint.
    let bold: String = tok.chars().map(|c| format!("{c}\x08{c}")).collect();
    assert!(!shown(&r(&bold)).contains(&tok[4..12]));
    let over = format!("{}\rghp_", &tok[4..]);
    let out = r(&over);
    assert!(!out.contains(&tok[8..16]), "{out:?}");
    // A two-byte escape that swallows the token's first letter from the screen still hides
    // the rest from a reader of the raw bytes.
    let out = r(&format!("x \x1b{tok} y"));
    assert!(!out.contains(&tok[4..12]), "{out:?}");
    // A secret in a title: replaced inside the sequence.
    let out = r(&format!("\x1b]0;{tok}\x07$ "));
    assert_eq!(out, "\x1b]0;[REDACTED:github_token]\x07$ ");
    // A secret in a link's URL or a title: replaced inside the sequence, which stays valid.
    let link = "\x1b]8;;https://u:hunter22@h/x\x1b\\here\x1b]8;;\x1b\\";
    let out = r(link);
    assert_eq!(
        out,
        "\x1b]8;;https://u:[REDACTED:password]@h/x\x1b\\here\x1b]8;;\x1b\\"
    );
}

#[test]
fn context_counts_shown_characters_not_escape_bytes() {
    let body = "Zq8Xw2Lm4Np6Rt8Vb0Cd2Fg4Hj6Kl8Mn0Pq2";
    let pad = "\x1b[m".repeat(600);
    // The token's start far (in bytes) before the window; its end far after it.
    for text in [
        format!("$ x g{pad}hp_{body} done\r\n$ "),
        format!("$ x ghp_{}{pad}{} done\r\n$ ", &body[..10], &body[10..]),
        format!(
            "$ x ghp_{}{pad}{}{pad}{} done\r\n$ ",
            &body[..10],
            &body[10..20],
            &body[20..]
        ),
    ] {
        for cut in (0..=text.len()).step_by(7) {
            let cut = pem::floor_boundary(&text, cut);
            let (a, b) = (window(&text, 0, cut), window(&text, cut, text.len()));
            for p in pieces(body) {
                assert!(
                    !shown(&a).contains(p) && !shown(&b).contains(p),
                    "cut {cut}: {p:?}"
                );
            }
        }
    }
}
