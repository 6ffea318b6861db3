//! What evaluating a line does to the session's state, beside the judgement: [`Track`], kept
//! in the judgement's state for [`super::context`]. A leaf: it imports no sibling.

use std::collections::{HashMap, HashSet};

/// The value an unknown takes in the second judgement: the most destructive operand.
pub(super) const GUESS: &str = "/";

/// What evaluating a line does to the session's state, beside the judgement (`Eval`'s
/// `track`).
#[derive(Debug, Default, Clone)]
pub(super) struct Track {
    /// Inside something that may run zero or several times, or in a subshell (a branch, a
    /// loop, a function body being defined, `X=v cmd`, a pipeline stage): what is assigned
    /// there may not last.
    pub(super) branch: usize,
    /// The next nested string runs in this shell (`eval`, an alias, a function's body).
    pub(super) in_shell_next: bool,
    /// The value unknowns take (the second judgement), or `None`: unknown.
    pub(super) guess: Option<String>,
    pub(super) all_unknown: bool,
    pub(super) uncertain: HashSet<String>,
    /// Every variable the line assigned, in order.
    pub(super) assigned: Vec<String>,
    pub(super) opaque: HashSet<String>,
    pub(super) defined_uncertain: HashSet<String>,
    pub(super) bodies: HashMap<String, String>,
    pub(super) cwd_uncertain: bool,
    pub(super) cwd_changed: bool,
    pub(super) positional_uncertain: bool,
    pub(super) sourced: bool,
    pub(super) oldpwd: Option<String>,
    pub(super) dirs: Option<Vec<Option<String>>>,
    /// The functions whose bodies are being run, innermost last: a function's own name in
    /// its body is the program of that name (`command rm`, or a call that would recurse).
    pub(super) calling: Vec<String>,
}

impl Track {
    pub(super) fn guess(&self) -> Option<String> {
        self.guess.clone()
    }

    /// The value of a variable no line assigned.
    pub(super) fn unset_value(&self) -> Option<String> {
        if self.all_unknown { self.guess() } else { None }
    }

    pub(super) fn assigned(&mut self, name: &str) {
        if self.branch > 0 {
            self.uncertain.insert(name.to_string());
        } else {
            self.uncertain.remove(name);
        }
        if !self.assigned.iter().any(|a| a == name) {
            self.assigned.push(name.to_string());
        }
    }

    /// An alias was defined.
    pub(super) fn defined(&mut self, name: &str) {
        self.opaque.remove(name);
        self.bodies.remove(name);
        if self.branch > 0 {
            self.defined_uncertain.insert(name.to_string());
        }
    }

    pub(super) fn define_function(&mut self, name: &str, body: &str) {
        self.defined(name);
        self.bodies.insert(name.to_string(), body.to_string());
    }

    pub(super) fn is_defined(&self, name: &str) -> bool {
        self.opaque.contains(name) || self.bodies.contains_key(name)
    }
}
