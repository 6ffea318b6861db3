//! "Did you mean …?": the names closest to a mistyped one (a session's label or id, an
//! action, a parameter), by edit distance with transpositions (`tlak` → `talk`). Only close
//! names are suggested: at most a third of the longer name's characters may differ (one
//! always may), so a name that merely shares a letter or two is never offered.

/// The candidates closest to `given` within the threshold, best first; ties are all
/// returned (in the order given), an exact match or an empty `given` returns nothing.
pub fn closest<'a, I>(given: &str, candidates: I) -> Vec<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let given_lower = given.to_lowercase();
    if given_lower.is_empty() {
        return vec![];
    }
    let mut best: Vec<&'a str> = Vec::new();
    let mut best_distance = usize::MAX;
    for c in candidates {
        if c == given {
            return vec![];
        }
        let d = strsim::osa_distance(&given_lower, &c.to_lowercase());
        if d > threshold(given, c) || d > best_distance {
            continue;
        }
        if d < best_distance {
            best.clear();
            best_distance = d;
        }
        if !best.contains(&c) {
            best.push(c);
        }
    }
    best
}

/// The largest distance still worth a suggestion between `a` and `b`.
fn threshold(a: &str, b: &str) -> usize {
    (a.chars().count().max(b.chars().count()) / 3).max(1)
}

/// The clause an error message adds for `names`: ` (did you mean "work"?)`, empty for none.
pub fn clause(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => format!(" (did you mean {one:?}?)"),
        [init @ .., last] => {
            let init: Vec<String> = init.iter().map(|n| format!("{n:?}")).collect();
            format!(" (did you mean {} or {last:?}?)", init.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Action;
    use proptest::prelude::*;

    fn actions() -> Vec<&'static str> {
        Action::ALL.iter().map(|a| a.as_str()).collect()
    }

    /// Every parameter name of the MCP tool.
    fn params() -> Vec<String> {
        crate::api::Params::names()
    }

    /// One edit of `s` (insert, delete, substitute or transpose at `at`, with `ch`).
    fn edit(s: &str, kind: u8, at: usize, ch: char) -> String {
        let mut v: Vec<char> = s.chars().collect();
        let at = at % (v.len() + 1);
        match kind % 4 {
            0 => v.insert(at, ch),
            1 if !v.is_empty() => {
                v.remove(at.min(v.len() - 1));
            }
            2 if !v.is_empty() => {
                let i = at.min(v.len() - 1);
                v[i] = ch;
            }
            _ if v.len() >= 2 => {
                let i = at.min(v.len() - 2);
                v.swap(i, i + 1);
            }
            _ => v.insert(at, ch),
        }
        v.into_iter().collect()
    }

    fn one_edit_suggests_the_original(names: &[&str], pick: usize, kind: u8, at: usize, ch: char) {
        let original = names[pick % names.len()];
        let typo = edit(original, kind, at, ch);
        if names.contains(&typo.as_str()) {
            return; // the edit made another real name: not a typo
        }
        let got = closest(&typo, names.iter().copied());
        assert!(
            got.contains(&original),
            "{typo:?} (from {original:?}) suggested {got:?}"
        );
    }

    proptest! {
        #[test]
        fn one_edit_of_an_action_suggests_it(
            pick in 0usize..100, kind in 0u8..4, at in 0usize..40, ch in "[a-z_]"
        ) {
            let ch = ch.chars().next().unwrap_or('x');
            one_edit_suggests_the_original(&actions(), pick, kind, at, ch);
        }

        #[test]
        fn one_edit_of_a_parameter_suggests_it(
            pick in 0usize..100, kind in 0u8..4, at in 0usize..40, ch in "[a-z_]"
        ) {
            let ch = ch.chars().next().unwrap_or('x');
            let names = params();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            one_edit_suggests_the_original(&names, pick, kind, at, ch);
        }

        #[test]
        fn far_strings_get_no_suggestion(s in "[0-9]{1,20}|[A-Z]{12,30}") {
            let names = params();
            prop_assert!(closest(&s, actions()).is_empty(), "{s}");
            prop_assert!(closest(&s, names.iter().map(String::as_str)).is_empty(), "{s}");
        }
    }

    #[test]
    fn the_issues_examples() {
        assert_eq!(closest("tlak", actions()), ["talk"]);
        let names = params();
        let names = || names.iter().map(String::as_str);
        assert_eq!(closest("timeout", names()), ["timeout_ms"]);
        assert_eq!(closest("wrok", ["work", "build"]), ["work"]);
        assert!(closest("work", ["work", "wrok"]).is_empty(), "exact");
        assert!(closest("zzz", ["work"]).is_empty());
        assert_eq!(closest("rols", ["cols", "rows"]), ["cols", "rows"]);
    }

    #[test]
    fn the_clause_lists_the_names() {
        assert_eq!(clause(&[]), "");
        assert_eq!(clause(&["talk"]), r#" (did you mean "talk"?)"#);
        assert_eq!(
            clause(&["cols", "rows"]),
            r#" (did you mean "cols" or "rows"?)"#
        );
    }
}
