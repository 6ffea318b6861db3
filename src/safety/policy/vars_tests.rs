//! The layered variables against the straightforward copy they replace: the same lookups
//! and the same variables after any sequence of assignments and unsets, for any base and
//! guess ([`COPY`] switches every judgement started on this thread to the copy, so the
//! context's tests can compare whole lines both ways).
use super::*;
use proptest::prelude::*;
use std::cell::Cell;

thread_local! {
    /// Judgements started on this thread copy the session's variables (the reference).
    pub(super) static COPY: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with judgements copying the session's variables (`copy`) or layering them.
pub(in crate::safety::policy) fn with_copy<T>(copy: bool, f: impl FnOnce() -> T) -> T {
    let before = COPY.with(|c| c.replace(copy));
    let out = f();
    COPY.with(|c| c.set(before));
    out
}

const NAMES: &[&str] = &["A", "B", "C", "D", "E", "PATH", "X1", "Y_2"];

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Unknown),
        "[a-z/ ]{0,6}".prop_map(Value::Known),
        "[a-z/]{0,3}".prop_map(|s| Value::Known(format!("{s}{UNKNOWN}/x{UNKNOWN}"))),
    ]
}

#[derive(Debug, Clone)]
enum Op {
    Set(&'static str, String),
    Forget(&'static str),
}

fn op() -> impl Strategy<Value = Op> {
    let name = proptest::sample::select(NAMES);
    prop_oneof![
        (name.clone(), "[a-z]{0,3}[\u{FFFC}]?").prop_map(|(n, v)| Op::Set(n, v)),
        name.prop_map(Op::Forget),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// No override leaks and no unset is lost: every name reads the same through the layers
    /// as through the copy, after every step, and the variables handed back are equal.
    #[test]
    fn layering_reads_and_ends_as_the_copy(
        base in proptest::collection::btree_map(proptest::sample::select(NAMES), value(), 0..8),
        guess in proptest::option::of(Just("/")),
        ops in proptest::collection::vec(op(), 0..12),
        uncertain in proptest::collection::hash_set(proptest::sample::select(NAMES), 0..3),
    ) {
        let base: Shared = Arc::new(
            base.into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
        );
        let before = (*base).clone();
        let mut layered = Vars::layered(Arc::clone(&base), guess);
        let mut copy = Vars::copied(&base, guess);
        let uncertain: HashSet<String> = uncertain.into_iter().map(str::to_string).collect();
        for op in ops {
            for v in [&mut layered, &mut copy] {
                match &op {
                    Op::Set(n, s) => v.set(n, s.clone()),
                    Op::Forget(n) => v.forget(n),
                }
            }
            for n in NAMES {
                prop_assert_eq!(layered.known(n), copy.known(n), "{} after {:?}", n, op);
                prop_assert_eq!(layered.is_unknown(n), copy.is_unknown(n), "{} after {:?}", n, op);
            }
        }
        let (layered, copy) = (layered.into_shared(&uncertain), copy.into_shared(&uncertain));
        prop_assert_eq!(&*layered, &*copy);
        // The session's own map is never changed by a judgement started from it.
        prop_assert_eq!(&*base, &before);
    }
}

#[test]
fn a_line_that_changes_nothing_shares_the_map() {
    let base: Shared = Arc::new([("A".to_string(), Value::Known("1".into()))].into());
    let after = Vars::layered(Arc::clone(&base), None).into_shared(&HashSet::new());
    assert!(Arc::ptr_eq(&base, &after));
    let mut changed = Vars::layered(Arc::clone(&base), None);
    changed.set("B", "2".into());
    let after = changed.into_shared(&HashSet::new());
    assert_eq!(base.len(), 1, "the shared map is copied on write");
    assert_eq!(after.get("B"), Some(&Value::Known("2".into())));
}
