//! The variables one judgement sees ([`Vars`]): the session's, shared with its
//! [`super::context::ShellContext`] and never copied to start a judgement, under what the line
//! assigned and unset. A leaf: it imports no sibling but the word model's marker.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use super::field::UNKNOWN;

/// A variable's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// Assigned by a line kpty typed (unknown parts as `\u{FFFC}`).
    Known(String),
    /// May hold anything.
    Unknown,
}

/// A session's variables, shared between its state and the judgements started from it.
pub(super) type Shared = Arc<BTreeMap<String, Value>>;

/// The variables of one judgement: the session's (`base`, shared, read as if every unknown
/// part of a known value were `guess`) under the line's own assignments and unsets.
#[derive(Debug, Default)]
pub(super) struct Vars {
    base: Shared,
    /// The value unknown parts of the session's values take (the second judgement).
    guess: Option<String>,
    /// What the line assigned (`Known`, as evaluated) or unset (`Unknown`) since.
    own: HashMap<String, Value>,
}

impl Vars {
    /// The session's variables `base`, unknown parts read as `guess` (when given).
    pub(super) fn layered(base: Shared, guess: Option<&str>) -> Self {
        #[cfg(test)]
        if tests::COPY.with(std::cell::Cell::get) {
            return Self::copied(&base, guess);
        }
        Self {
            base,
            guess: guess.map(str::to_string),
            own: HashMap::new(),
        }
    }

    /// The straightforward start the layering replaces (tests compare both): every variable
    /// copied into the line's own, unknown parts replaced by `guess` up front.
    #[cfg(test)]
    fn copied(base: &BTreeMap<String, Value>, guess: Option<&str>) -> Self {
        let own = base
            .iter()
            .map(|(name, v)| {
                let v = match (v, guess) {
                    (Value::Known(s), Some(g)) => Value::Known(s.replace(UNKNOWN, g)),
                    (v, _) => v.clone(),
                };
                (name.clone(), v)
            })
            .collect();
        Self {
            base: Shared::default(),
            guess: None,
            own,
        }
    }

    fn slot(&self, name: &str) -> Option<&Value> {
        self.own.get(name).or_else(|| self.base.get(name))
    }

    /// Whether `name` may hold anything (unknown to the session, or unset in the line).
    pub(super) fn is_unknown(&self, name: &str) -> bool {
        matches!(self.slot(name), Some(Value::Unknown))
    }

    /// The known value of `name` (`None`: unknown, or never assigned).
    pub(super) fn known(&self, name: &str) -> Option<String> {
        if let Some(v) = self.own.get(name) {
            return match v {
                Value::Known(s) => Some(s.clone()),
                Value::Unknown => None,
            };
        }
        match (self.base.get(name)?, &self.guess) {
            (Value::Known(s), Some(g)) => Some(s.replace(UNKNOWN, g)),
            (Value::Known(s), None) => Some(s.clone()),
            (Value::Unknown, _) => None,
        }
    }

    /// The line assigned `value` to `name`.
    pub(super) fn set(&mut self, name: &str, value: String) {
        self.own.insert(name.to_string(), Value::Known(value));
    }

    /// The line unset `name` (or made it unknown): it may hold anything.
    pub(super) fn forget(&mut self, name: &str) {
        self.own.insert(name.to_string(), Value::Unknown);
    }

    /// The variables as the line left them: what it assigned where the assignment may not
    /// last (`uncertain`) is unknown. The session's map is shared on when the line changed
    /// nothing, and copied (on write) otherwise.
    pub(super) fn into_shared(self, uncertain: &HashSet<String>) -> Shared {
        let Self {
            mut base,
            guess,
            own,
        } = self;
        let known = |name: &String| matches!(base.get(name), Some(Value::Known(_)));
        if own.is_empty() && guess.is_none() && !uncertain.iter().any(known) {
            return base;
        }
        let map = Arc::make_mut(&mut base);
        if let Some(g) = guess {
            for v in map.values_mut() {
                if let Value::Known(s) = v
                    && s.contains(UNKNOWN)
                {
                    *s = s.replace(UNKNOWN, &g);
                }
            }
        }
        map.extend(own);
        for name in uncertain {
            if let Some(v @ Value::Known(_)) = map.get_mut(name) {
                *v = Value::Unknown;
            }
        }
        base
    }
}

#[cfg(test)]
#[path = "vars_tests.rs"]
pub(super) mod tests;
