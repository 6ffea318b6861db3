//! The chain over generated journals: whatever the lines hold, a chained journal checks out;
//! any one edit, removal, insertion or swap is found at the line it touched; the tail is read
//! right however the file is cut into reads.

use super::*;
use proptest::prelude::*;

const KEY: &[u8] = b"test key: thirty-two bytes long!";

fn seal(covered: &[u8]) -> String {
    format!("v1:{}", hash(&[KEY, covered].concat()))
}

fn sealed(covered: &[u8], given: &[u8]) -> bool {
    seal(covered).as_bytes() == given
}

/// A journal of `lines` (each a JSON object), chained as `journal.rs` appends them.
fn journal(lines: &[String]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    for l in lines {
        let previous = out.last().map(|p| p[..p.len() - 1].to_vec());
        out.push(link(format!("{l}\n").as_bytes(), previous.as_deref(), seal));
    }
    out
}

fn checked(lines: &[Vec<u8>]) -> Checked {
    let bytes = lines.concat();
    check(&bytes[..], Some(&sealed)).expect("read from memory")
}

/// JSON objects with awkward text: quotes, escapes, the chain's own field names, unicode.
fn object() -> impl Strategy<Value = String> {
    let text = prop_oneof![
        "[ -~]{0,40}",
        Just("\"prev\":\"".to_string()),
        Just("\",\"seal\":\"v1:".to_string()),
        "\\PC{0,10}",
    ];
    proptest::collection::btree_map("[a-z_]{1,8}", text, 0..5)
        .prop_map(|m| serde_json::to_string(&m).unwrap_or_default())
}

#[derive(Debug, Clone)]
enum Change {
    /// Flip one byte of a line (not to itself).
    Flip {
        at: usize,
        to: u8,
    },
    Remove,
    /// Swap with the next line.
    Swap,
    /// A line of another key (or chained for another place) put before it.
    Insert,
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, to)| Change::Flip { at, to }),
        Just(Change::Remove),
        Just(Change::Swap),
        Just(Change::Insert),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn a_chained_journal_checks_out(lines in proptest::collection::vec(object(), 0..12)) {
        let j = journal(&lines);
        let c = checked(&j);
        prop_assert_eq!(c, Checked { lines: lines.len(), unchained: 0, broken: None });
        // Each line is still the JSON object it was, with two fields more.
        #[derive(serde::Deserialize)]
        struct Linked {
            prev: String,
            seal: String,
        }
        for l in &j {
            let linked: Result<Linked, _> = serde_json::from_slice(l);
            prop_assert!(
                linked.is_ok_and(|k| k.prev.len() == 64 && k.seal.starts_with("v1:")),
                "{}",
                String::from_utf8_lossy(l)
            );
        }
    }

    #[test]
    fn one_change_is_found_where_it_was_made(
        lines in proptest::collection::vec(object(), 2..10),
        k in any::<prop::sample::Index>(),
        what in change(),
    ) {
        let mut j = journal(&lines);
        // Not the last line: nothing follows it to tell of its removal or of a swap.
        let k = k.index(j.len() - 1);
        match what {
            Change::Flip { at, to } => {
                let line = &mut j[k];
                let at = at % line.len();
                prop_assume!(line[at] != to);
                line[at] = to;
            }
            Change::Remove => {
                j.remove(k);
            }
            Change::Swap => j.swap(k, k + 1),
            Change::Insert => {
                let previous = (k > 0).then(|| j[k - 1][..j[k - 1].len() - 1].to_vec());
                let forged = link(b"{\"action\":\"talk\"}\n", previous.as_deref(), |c| {
                    format!("v1:{}", hash(&[b"another key".as_slice(), c].concat()))
                });
                j.insert(k, forged);
            }
        }
        let c = checked(&j);
        let found = c.broken.map(|(n, _)| n);
        prop_assert_eq!(found, Some(k + 1), "{:?}", c);
    }

    #[test]
    fn the_last_line_is_read_whatever_the_reads(
        lines in proptest::collection::vec("[ -~]{0,300}", 1..8),
        torn in any::<bool>(),
        most in 1usize..64,
    ) {
        // A torn file's last line has something in it (else it is the same file untorn).
        prop_assume!(!torn || lines.last().is_some_and(|l| !l.is_empty()));
        let mut file = lines.join("\n").into_bytes();
        if !torn {
            file.push(b'\n');
        }
        let at = |buf: &mut [u8], from: u64| -> io::Result<usize> {
            let from = from as usize;
            let n = buf.len().min(most).min(file.len() - from);
            buf[..n].copy_from_slice(&file[from..from + n]);
            Ok(n)
        };
        let got = last_line(file.len() as u64, at).expect("read");
        let expected = lines.last().cloned().unwrap_or_default().into_bytes();
        if file.is_empty() {
            prop_assert_eq!(got, None);
        } else {
            prop_assert_eq!(got, Some((expected, torn)));
        }
    }
}

#[test]
fn lines_before_the_chain_are_counted_and_the_chain_goes_on_from_them() {
    let old = b"{\"ts\":\"then\",\"action\":\"talk\"}".to_vec();
    let new = link(b"{\"action\":\"kill\"}\n", Some(&old), seal);
    let file = [old.clone(), b"\n".to_vec(), new].concat();
    let c = check(&file[..], Some(&sealed)).unwrap();
    assert_eq!(
        c,
        Checked {
            lines: 2,
            unchained: 1,
            broken: None
        }
    );
    // A line without the chain after chained ones: inserted (or stripped).
    let first = link(b"{\"action\":\"kill\"}\n", None, seal);
    let file = [first, old, b"\n".to_vec()].concat();
    let c = check(&file[..], Some(&sealed)).unwrap();
    assert_eq!(c.broken, Some((2, Tamper::Unchained)));
    // An empty file is fine.
    assert_eq!(last_line(0, |_, _| Ok(0)).unwrap(), None);
}

#[test]
fn a_line_written_without_a_key_says_so() {
    let l = link(b"{\"a\":1}\n", None, |_| String::new());
    let c = check(&l[..], Some(&sealed)).unwrap();
    assert_eq!(c.broken, Some((1, Tamper::Unsealed)));
}
