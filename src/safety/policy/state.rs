//! The state of one judgement ([`Eval`]): what the line assigned and defined so far, the
//! directory it runs in, what each pipeline stage is, the commands seen and the first rule
//! that blocked. The analysers are handed an `&mut Eval`; walking the parsed line is
//! implemented on it by the files above (`eval`, `words`, `peel`, `redirects`, `operators`,
//! `effects`), so nothing here imports them: a leaf under everything but [`super::field`],
//! [`super::track`], [`super::vars`], [`super::catalog`] and [`super::paths`].

use std::collections::HashMap;

use super::catalog::{Hit, Rule};
use super::field::{ELEMENT, UNKNOWN};
use super::track::Track;
use super::vars::Vars;

/// Variable values are followed up to this many bytes.
const MAX_VALUE: usize = 4096;

/// What a command reads on its standard input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stdin {
    /// The terminal, a file, or output the policy cannot know.
    Unknown,
    /// Text whose content is evident (`echo …`, a here-string, a here-document).
    Evident(String),
    /// Something downloaded (`curl`, `wget`).
    Download,
    /// Unknown content decoded (`base64 -d`, `rev`, `xxd -r`): obfuscated on purpose.
    Decoded,
}

/// The state of one judgement.
#[derive(Debug, Default)]
pub struct Eval {
    pub(super) vars: Vars,
    pub(super) aliases: HashMap<String, String>,
    pub(super) functions: Vec<String>,
    /// `$1 $2 …` after `set -- …` (unknown until then).
    pub(super) positional: Option<Vec<String>>,
    /// The session state the line starts from and what the line does to it
    /// ([`super::context`]).
    pub(super) track: Track,
    /// Files written earlier in the line with evident content (`echo 'rm -rf /' > x.sh`).
    pub(super) files: HashMap<String, String>,
    /// The directory the following commands run in, when a `cd` made it evident.
    pub cwd: Option<String>,
    pub(super) depth: usize,
    pub(super) judged: usize,
    /// The first rule that blocked, with the command it saw.
    pub hit: Option<Hit>,
    /// Every simple command judged, normalised.
    pub commands: Vec<String>,
    /// A nested string (`sh -c '…'`) did not parse.
    pub nested_unparsed: Vec<String>,
    /// What the stages of the pipeline being judged are, for the reverse-shell rule.
    pub stages: Vec<Stage>,
    /// Descriptors `exec N<>/dev/tcp/…` opened on a socket in the shell itself.
    pub socket_fds: Vec<String>,
}

/// What a pipeline stage is, for the pipeline rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// A network client.
    Client,
    /// A shell or interpreter running what it reads on standard input.
    ShellReadingStdin,
}

impl Eval {
    /// The value of a variable: assigned earlier in the line, or `HOME` (`~`) and `IFS` (a blank).
    pub fn var(&self, name: &str) -> Option<String> {
        if self.vars.is_unknown(name) {
            return self.track.guess();
        }
        if let Some(v) = self.vars.known(name) {
            return Some(v);
        }
        match name {
            "HOME" => Some("~".into()),
            "IFS" => Some(" \t\n".into()),
            _ => self.track.unset_value(),
        }
    }

    /// Positional parameter `n` (1-based), or all of them (`0`) as array elements.
    pub fn positional(&self, n: usize) -> Option<String> {
        let p = self.positional.as_ref()?;
        match n {
            0 => Some(p.join(&ELEMENT.to_string())),
            n => Some(p.get(n - 1).cloned().unwrap_or_default()),
        }
    }

    /// `set -- a b c`.
    pub fn set_positional(&mut self, values: Vec<String>) {
        self.positional = Some(values);
    }

    /// Records a variable assignment (a value past [`MAX_VALUE`] bytes ends unknown).
    pub fn assign(&mut self, name: &str, mut value: String) {
        if value.len() > MAX_VALUE {
            let cut = (0..=MAX_VALUE)
                .rev()
                .find(|&i| value.is_char_boundary(i))
                .unwrap_or(0);
            value.truncate(cut);
            value.push(UNKNOWN);
        }
        self.track.assigned(name);
        self.vars.set(name, value);
    }

    /// The alias text for a command word, if one was defined in this line.
    pub fn alias_of(&self, word: &str) -> Option<String> {
        self.aliases.get(word).cloned()
    }

    /// Whether a function of this name was defined in this line.
    pub fn is_function(&self, name: &str) -> bool {
        self.functions.iter().any(|f| f == name) || self.track.is_defined(name)
    }

    /// Stops the judgement with `rule`, reporting the command it saw.
    pub fn block(&mut self, rule: &'static Rule, seen: &str) {
        if self.hit.is_none() {
            self.hit = Some(Hit {
                rule,
                seen: seen.to_string(),
            });
        }
    }

    /// Whether the judgement is over (blocked, or over budget).
    pub fn done(&self) -> bool {
        self.hit.is_some()
    }

    /// The key a file written in this line is known by (its resolved path when evident).
    pub(super) fn file_key(&self, path: &str) -> String {
        super::paths::resolve(path, self.cwd.as_deref()).unwrap_or_else(|| {
            let mut p = path;
            while let Some(rest) = p.strip_prefix("./") {
                p = rest.trim_start_matches('/');
            }
            p.to_string()
        })
    }

    /// What a file written earlier in this line holds, if evident.
    pub fn written_file(&self, path: &str) -> Option<String> {
        self.files.get(&self.file_key(path)).cloned()
    }
}
