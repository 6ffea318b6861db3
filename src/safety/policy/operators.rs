//! Parameter-expansion operators computed as the shell would: `${v%pat}` `${v%%pat}`
//! `${v#pat}` `${v##pat}`, `${v:off:len}`, `${v/pat/rep}` (and `//`, `/#`, `/%`), `${v^^}`
//! `${v,,}` `${v^}` `${v,}`, `${#v}`, `${v:+alt}`, `${v@U}`…, and `${!v}` indirection.
//!
//! Home is unknown to the policy (`~`): an operator on a value under it runs on a model home
//! (`/home/user`), so `${HOME%/*}` is `/home` and `${HOME::1}` is `/`; a result still under
//! the model home reads as `~` again. An operator on an unknown value, or with an operand the
//! policy cannot compute, yields [`UNKNOWN`] (a download stays marked as one).

use brush_parser::word::{Parameter, ParameterExpr, ParameterTransformOp, SubstringMatchKind};

use super::field::{DOWNLOADED, UNKNOWN};
use super::paths::pattern_match;
use super::state::Eval;

/// The home directory operators run on.
const MODEL_HOME: &str = "/home/user";

/// Where a pattern must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Prefix,
    Suffix,
    First,
    All,
}

fn unknown_of(value: &str) -> String {
    if value.contains(DOWNLOADED) {
        format!("{DOWNLOADED}{UNKNOWN}")
    } else {
        UNKNOWN.to_string()
    }
}

/// `~…` as the model home; `None` for a value the policy does not know.
pub(super) fn concrete(value: &str) -> Option<String> {
    if value.contains(UNKNOWN) || value.contains(DOWNLOADED) {
        return None;
    }
    Some(match value.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("{MODEL_HOME}{rest}"),
        _ => value.to_string(),
    })
}

/// The model home read back as `~`.
pub(super) fn abstracted(result: String) -> String {
    match result.strip_prefix(MODEL_HOME) {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("~{rest}"),
        _ => result,
    }
}

/// Removes the shortest or longest prefix or suffix matching `pattern`.
fn remove(s: &str, pattern: &str, suffix: bool, longest: bool) -> String {
    let cuts: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
    let mut order: Vec<usize> = cuts.clone();
    // Prefix: shortest first is cut 0 upwards; suffix: shortest first is the end downwards.
    if suffix != longest {
        order.reverse();
    }
    for cut in order {
        let (keep, drop) = if suffix {
            (&s[..cut], &s[cut..])
        } else {
            (&s[cut..], &s[..cut])
        };
        if pattern_match(pattern, drop) {
            return keep.to_string();
        }
    }
    s.to_string()
}

/// `${s/pattern/rep}` and its anchored and global forms (longest match at each position).
fn replace(s: &str, pattern: &str, rep: &str, anchor: Anchor) -> String {
    let idx: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
    let mut out = String::new();
    let mut i = 0;
    while i < idx.len() {
        let start = idx[i];
        let ends = idx[i..].iter().rev().copied();
        let hit = ends
            .filter(|&end| anchor != Anchor::Suffix || end == s.len())
            .find(|&end| end > start && pattern_match(pattern, &s[start..end]));
        match hit {
            Some(end) => {
                out.push_str(rep);
                if anchor != Anchor::All {
                    out.push_str(&s[end..]);
                    return out;
                }
                i = idx.iter().position(|&x| x == end).unwrap_or(idx.len());
                continue;
            }
            None if anchor == Anchor::Prefix => return s.to_string(),
            None => {}
        }
        if let Some(c) = s[start..].chars().next() {
            out.push(c);
        }
        i += 1;
    }
    out
}

/// `${s:offset:length}` on characters; a negative offset counts from the end.
fn substring(s: &str, offset: i64, length: Option<i64>) -> String {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len() as i64;
    let start = if offset < 0 { n + offset } else { offset }.clamp(0, n);
    let end = match length {
        None => n,
        Some(l) if l < 0 => (n + l).max(start),
        Some(l) => (start + l).min(n),
    };
    chars[start as usize..end.max(start) as usize]
        .iter()
        .collect()
}

/// `dirname PATH`, as coreutils computes it (home through the model home).
#[must_use]
pub fn dirname(path: &str) -> Option<String> {
    let p = concrete(path)?;
    let trimmed = p.trim_end_matches('/');
    let parent = match trimmed.rfind('/') {
        _ if trimmed.is_empty() && p.starts_with('/') => "/".to_string(),
        None => ".".to_string(),
        Some(i) => {
            let d = trimmed[..i].trim_end_matches('/');
            if d.is_empty() {
                "/".to_string()
            } else {
                d.to_string()
            }
        }
    };
    Some(abstracted(parent))
}

/// An arithmetic operand the policy computes: an integer literal, or a variable holding one.
fn number(e: &Eval, text: &str) -> Option<i64> {
    let t = text.trim();
    if t.is_empty() {
        return Some(0);
    }
    t.parse()
        .ok()
        .or_else(|| e.var(t.trim_start_matches('$'))?.trim().parse().ok())
}

fn case(s: &str, upper: bool, first_only: bool) -> String {
    let conv = |c: char| -> String {
        if upper {
            c.to_uppercase().collect()
        } else {
            c.to_lowercase().collect()
        }
    };
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if first_only => conv(c) + chars.as_str(),
        _ => s.chars().map(conv).collect(),
    }
}

/// The parameter an operator expansion reads, and whether through `${!name}`; `None` for
/// the expansions that list names (`${!prefix*}`, `${!array[@]}`).
fn parameter_of(e: &ParameterExpr) -> Option<(&Parameter, bool)> {
    use ParameterExpr as P;
    match e {
        P::Parameter {
            parameter,
            indirect,
        }
        | P::UseDefaultValues {
            parameter,
            indirect,
            ..
        }
        | P::AssignDefaultValues {
            parameter,
            indirect,
            ..
        }
        | P::IndicateErrorIfNullOrUnset {
            parameter,
            indirect,
            ..
        }
        | P::UseAlternativeValue {
            parameter,
            indirect,
            ..
        }
        | P::ParameterLength {
            parameter,
            indirect,
        }
        | P::RemoveSmallestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | P::RemoveLargestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | P::RemoveSmallestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | P::RemoveLargestPrefixPattern {
            parameter,
            indirect,
            ..
        } => Some((parameter, *indirect)),
        other => edit_parameter_of(other),
    }
}

/// [`parameter_of`] for the expansions that edit the value (substrings, case, replacement).
fn edit_parameter_of(e: &ParameterExpr) -> Option<(&Parameter, bool)> {
    use ParameterExpr as P;
    match e {
        P::Substring {
            parameter,
            indirect,
            ..
        }
        | P::Transform {
            parameter,
            indirect,
            ..
        }
        | P::UppercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | P::UppercasePattern {
            parameter,
            indirect,
            ..
        }
        | P::LowercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | P::LowercasePattern {
            parameter,
            indirect,
            ..
        }
        | P::ReplaceSubstring {
            parameter,
            indirect,
            ..
        } => Some((parameter, *indirect)),
        // `${!prefix*}`, `${!array[@]}` (the forms above went to `parameter_of`).
        _ => None,
    }
}

impl Eval {
    /// The value of an operator expansion (the plain and default forms are in `words`).
    pub(super) fn operator(&mut self, e: &ParameterExpr) -> String {
        let Some((parameter, indirect)) = parameter_of(e) else {
            return UNKNOWN.to_string();
        };
        let value = self.param_value(parameter);
        let value = if indirect {
            value.and_then(|name| self.var(&name))
        } else {
            value
        };
        self.apply(e, value)
    }

    /// Applies the operator of `e` to the parameter's `value` (`None`: unset or unknown).
    fn apply(&mut self, e: &ParameterExpr, value: Option<String>) -> String {
        use ParameterExpr as P;
        // Operators that look at set/unset first.
        match e {
            P::UseDefaultValues { default_value, .. }
            | P::AssignDefaultValues { default_value, .. } => {
                return match value {
                    Some(v) if !v.is_empty() => v,
                    _ => default_value
                        .as_ref()
                        .map_or_else(|| UNKNOWN.to_string(), |d| self.expand_one(d).text),
                };
            }
            P::UseAlternativeValue {
                alternative_value, ..
            } => {
                return match value {
                    Some(v) if v.contains(UNKNOWN) => UNKNOWN.to_string(),
                    Some(v) if !v.is_empty() => alternative_value
                        .as_ref()
                        .map_or_else(String::new, |a| self.expand_one(a).text),
                    _ => UNKNOWN.to_string(),
                };
            }
            _ => {}
        }
        let Some(raw) = value else {
            return UNKNOWN.to_string();
        };
        let Some(s) = concrete(&raw) else {
            return unknown_of(&raw);
        };
        self.compute(e, &s)
            .map_or_else(|| unknown_of(&raw), abstracted)
    }

    /// The operator's result on a known value, or `None` when an operand is unknown.
    fn compute(&mut self, e: &ParameterExpr, s: &str) -> Option<String> {
        use ParameterExpr as P;
        let mut pat = |p: &Option<String>| -> Option<String> {
            let f = self.expand_one(p.as_deref().unwrap_or(""));
            (!f.has_unknown()).then_some(f.pattern)
        };
        Some(match e {
            P::Parameter { .. } | P::IndicateErrorIfNullOrUnset { .. } => s.to_string(),
            P::ParameterLength { .. } => s.chars().count().to_string(),
            P::RemoveSmallestSuffixPattern { pattern, .. } => {
                remove(s, &pat(pattern)?, true, false)
            }
            P::RemoveLargestSuffixPattern { pattern, .. } => remove(s, &pat(pattern)?, true, true),
            P::RemoveSmallestPrefixPattern { pattern, .. } => {
                remove(s, &pat(pattern)?, false, false)
            }
            P::RemoveLargestPrefixPattern { pattern, .. } => remove(s, &pat(pattern)?, false, true),
            P::Substring { offset, length, .. } => {
                let off = number(self, &offset.value)?;
                let len = match length {
                    Some(l) => Some(number(self, &l.value)?),
                    None => None,
                };
                substring(s, off, len)
            }
            P::UppercaseFirstChar { .. } => case(s, true, true),
            P::UppercasePattern { .. } => case(s, true, false),
            P::LowercaseFirstChar { .. } => case(s, false, true),
            P::LowercasePattern { .. } => case(s, false, false),
            P::Transform { op, .. } => match op {
                ParameterTransformOp::ToUpperCase => case(s, true, false),
                ParameterTransformOp::ToLowerCase => case(s, false, false),
                ParameterTransformOp::CapitalizeInitial => case(s, true, true),
                ParameterTransformOp::ExpandEscapeSequences => super::words::decode_ansi_c(s),
                _ => return None,
            },
            P::ReplaceSubstring {
                pattern,
                replacement,
                match_kind,
                ..
            } => {
                let p = pat(&Some(pattern.clone()))?;
                let rep = self.expand_one(replacement.as_deref().unwrap_or(""));
                if rep.has_unknown() {
                    return None;
                }
                let anchor = match match_kind {
                    SubstringMatchKind::Prefix => Anchor::Prefix,
                    SubstringMatchKind::Suffix => Anchor::Suffix,
                    SubstringMatchKind::FirstOccurrence => Anchor::First,
                    SubstringMatchKind::Anywhere => Anchor::All,
                };
                replace(s, &p, &rep.text, anchor)
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(line: &str) -> Vec<String> {
        let mut e = Eval::default();
        let mut out = Vec::new();
        for w in line.split(' ') {
            out.extend(e.expand(w).into_iter().map(|f| f.text));
        }
        out
    }

    #[test]
    fn operators_on_home_compute_its_ancestors() {
        assert_eq!(word("${HOME%/*}"), ["/home"]);
        assert_eq!(word("${HOME%%/*}"), [""; 0]);
        assert_eq!(word("${HOME::1}"), ["/"]);
        assert_eq!(word("${HOME:0:1}"), ["/"]);
        assert_eq!(word("${HOME#/}"), ["home/user"]);
        assert_eq!(word("${HOME/user/}"), ["/home/"]);
        assert_eq!(word("${HOME%r}"), ["/home/use"]);
        assert_eq!(word("${HOME}"), ["~"]);
        assert_eq!(word("${HOME^^}"), ["/HOME/USER"]);
        assert_eq!(word("${HOME,,}"), ["~"]);
        assert_eq!(word("${HOME//[a-z]/}"), ["//"]);
        assert_eq!(word("${#HOME}"), ["10"]);
    }

    #[test]
    fn remove_and_replace_follow_the_shell() {
        assert_eq!(remove("/a/b/c", "/*", true, false), "/a/b");
        assert_eq!(remove("/a/b/c", "/*", true, true), "");
        assert_eq!(remove("/a/b/c", "*/", false, false), "a/b/c");
        assert_eq!(remove("/a/b/c", "*/", false, true), "c");
        assert_eq!(replace("a-b-c", "-", "/", Anchor::All), "a/b/c");
        assert_eq!(replace("a-b-c", "-", "/", Anchor::First), "a/b-c");
        assert_eq!(replace("/etcx", "x", "", Anchor::Suffix), "/etc");
        assert_eq!(replace("x/etc", "x", "", Anchor::Prefix), "/etc");
        assert_eq!(substring("abcdef", -2, None), "ef");
        assert_eq!(substring("abcdef", 1, Some(-1)), "bcde");
    }

    #[test]
    fn dirname_follows_coreutils() {
        for (p, want) in [
            ("/a/b", "/a"),
            ("/a/b/", "/a"),
            ("/a", "/"),
            ("/", "/"),
            ("a", "."),
            ("a/b", "a"),
            ("~", "/home"),
            ("~/x", "~"),
        ] {
            assert_eq!(dirname(p).as_deref(), Some(want), "{p}");
        }
    }

    #[test]
    fn indirection_and_unknowns() {
        let mut e = Eval::default();
        e.assign("v", "HOME".into());
        assert_eq!(e.expand("${!v}")[0].text, "~");
        assert_eq!(e.expand("${NOPE%/*}")[0].text, UNKNOWN.to_string());
        e.assign("x", "/etcx".into());
        assert_eq!(e.expand("${x%x}")[0].text, "/etc");
        assert_eq!(e.expand("${x:+/}")[0].text, "/");
    }
}
