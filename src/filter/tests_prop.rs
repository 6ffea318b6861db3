//! Property tests of the input filter's byte stage against a plain reference: random streams
//! over a small alphabet (so sequences and near-misses are frequent), random splits into
//! writes. The alphabet has no Enter, so the line stage passes everything (its own properties
//! are in `tests_lines.rs`).

use std::time::Instant;

use proptest::prelude::*;

use super::*;

/// The reference, on the whole input: after each byte, if the output ends with blocked
/// sequences, the longest is cut, except bytes already released (`committed`). Bytes are
/// released once they cannot start a match, or when `flush_after[i]` says the timeout fired
/// after byte `i`.
fn reference(patterns: &[Vec<u8>], input: &[u8], flush_after: &[bool]) -> Vec<u8> {
    let (mut out, mut committed) = (Vec::new(), 0);
    for (i, &b) in input.iter().enumerate() {
        out.push(b);
        let hit = patterns
            .iter()
            .filter(|p| out.ends_with(p))
            .map(Vec::len)
            .max();
        if let Some(len) = hit {
            out.truncate((out.len() - len).max(committed));
        }
        let depth = (0..=out.len())
            .rev()
            .find(|&k| {
                patterns
                    .iter()
                    .any(|p| p.starts_with(&out[out.len() - k..]))
            })
            .unwrap_or(0);
        committed = committed.max(out.len() - depth);
        if flush_after[i] {
            committed = out.len();
        }
    }
    out
}

fn patterns(custom: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut p: Vec<Vec<u8>> = BUILTIN_BYTES.iter().map(|s| s.to_vec()).collect();
    p.extend(custom.iter().cloned());
    p
}

/// Streams the input in writes of the given sizes; a timeout fires after byte `i` when
/// `flush_after[i]` and the write ends there.
fn stream(
    f: &mut InputFilter,
    input: &[u8],
    cuts: &[usize],
    flush: &[bool],
) -> (Vec<u8>, Vec<bool>) {
    let t0 = Instant::now();
    let (mut out, mut fired) = (Vec::new(), vec![false; input.len()]);
    let mut at = 0;
    let mut sizes = cuts.iter().cycle();
    while at < input.len() {
        let end = (at + sizes.next().copied().unwrap_or(1)).min(input.len());
        out.extend(f.write(&input[at..end], t0).forward);
        at = end;
        if flush[end - 1] {
            fired[end - 1] = true;
            out.extend(f.flush());
        }
    }
    out.extend(f.flush());
    (out, fired)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn is_subsequence(small: &[u8], big: &[u8]) -> bool {
    let mut it = big.iter();
    small.iter().all(|b| it.any(|c| c == b))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn matches_the_reference_for_any_split(
        input in proptest::collection::vec(prop::sample::select(b"exitquab/ \x04\x1c".to_vec()), 0..60),
        custom in proptest::collection::vec(proptest::collection::vec(prop::sample::select(b"abx\x1c".to_vec()), 1..4), 0..3),
        cuts in proptest::collection::vec(1usize..6, 1..8),
        flush in proptest::collection::vec(any::<bool>(), 60),
        flushing in any::<bool>(),
    ) {
        let flush: Vec<bool> = flush.iter().map(|&b| b && flushing).collect();
        let config = FilterConfig { block_sequences: custom.clone(), ctrl_c_debounce_ms: 0 };
        let mut f = InputFilter::new(config.clone()).unwrap();
        let (out, fired) = stream(&mut f, &input, &cuts, &flush);
        let pats = patterns(&custom);
        // The exact semantics.
        prop_assert_eq!(&out, &reference(&pats, &input, &fired));
        // Never a blocked sequence in what the program gets, whatever the timing.
        for p in &pats {
            prop_assert!(!contains(&out, p), "{:?} in {:?}", p, out);
        }
        // Nothing reordered or invented; nothing dropped when nothing matches.
        prop_assert!(is_subsequence(&out, &input));
        if !pats.iter().any(|p| contains(&input, p)) {
            prop_assert_eq!(&out, &input);
        }
        // Without timeouts, the split does not matter.
        if !flushing {
            let mut whole = InputFilter::new(config).unwrap();
            let (one, _) = stream(&mut whole, &input, &[input.len().max(1)], &flush);
            prop_assert_eq!(out, one);
        }
    }

    #[test]
    fn ctrl_c_first_passes_repeats_drop(gaps in proptest::collection::vec(0u64..1200, 1..20)) {
        let mut f = filter_with_debounce(500);
        let mut t = Instant::now();
        let mut window: Option<Instant> = None;
        for g in gaps {
            t += std::time::Duration::from_millis(g);
            let r = f.write(b"\x03", t);
            let first = window.is_none_or(|w| t.duration_since(w).as_millis() >= 500);
            if first {
                window = Some(t);
            }
            prop_assert_eq!(r.forward.len(), usize::from(first));
            prop_assert_eq!(r.ctrl_c_debounced, usize::from(!first));
        }
    }
}

fn filter_with_debounce(ms: u64) -> InputFilter {
    InputFilter::new(FilterConfig {
        block_sequences: Vec::new(),
        ctrl_c_debounce_ms: ms,
    })
    .unwrap()
}
