//! Redirections as the policy sees them: what each reads or writes, here-text as input, and
//! process substitutions that download; and the command line as the policy shows it.

use brush_parser::ast::{IoFileRedirectKind, IoFileRedirectTarget, IoRedirect};

use super::field::{Field, UNKNOWN};
use super::state::Eval;

/// What a redirection does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Io {
    /// `<`: reads the target.
    Read,
    /// `>`, `>>`, `>|`, `&>`: writes the target.
    Write,
    /// `<>`: both.
    ReadWrite,
    /// A here-string or here-document: this text is the input.
    Here(String),
    /// Descriptor duplication (`2>&1`).
    Dup,
}

/// One redirection, its target expanded.
#[derive(Debug, Clone)]
pub struct Redirect {
    /// The descriptor redirected (`None`: the operator's default, 0 or 1).
    pub fd: Option<i32>,
    /// What it does.
    pub io: Io,
    /// The target (empty for here-text; the descriptor number for duplication).
    pub target: Field,
    /// The target is a process substitution that writes something downloaded.
    pub download: bool,
}

impl Redirect {
    /// Whether the target file is written.
    #[must_use]
    pub fn writes(&self) -> bool {
        matches!(self.io, Io::Write | Io::ReadWrite)
    }

    /// Whether the target file is read.
    #[must_use]
    pub fn reads(&self) -> bool {
        matches!(self.io, Io::Read | Io::ReadWrite)
    }
}

impl Eval {
    pub(super) fn redirect(&mut self, r: &IoRedirect) -> Redirect {
        let mut out = Redirect {
            fd: None,
            io: Io::Dup,
            target: Field::default(),
            download: false,
        };
        match r {
            IoRedirect::File(fd, kind, target) => {
                out.fd = *fd;
                out.io = match kind {
                    IoFileRedirectKind::Read => Io::Read,
                    IoFileRedirectKind::ReadAndWrite => Io::ReadWrite,
                    IoFileRedirectKind::Write
                    | IoFileRedirectKind::Append
                    | IoFileRedirectKind::Clobber => Io::Write,
                    IoFileRedirectKind::DuplicateInput | IoFileRedirectKind::DuplicateOutput => {
                        Io::Dup
                    }
                };
                match target {
                    IoFileRedirectTarget::Filename(w) => out.target = self.expand_one(&w.value),
                    IoFileRedirectTarget::ProcessSubstitution(_, sub) => {
                        out.download = self.substituted(&sub.list);
                        out.target = Field::literal("/dev/fd/63");
                    }
                    // `>& FILE` (not a descriptor number, not `-`): stdout and stderr to FILE.
                    IoFileRedirectTarget::Duplicate(w) => {
                        let f = self.expand_one(&w.value);
                        let fd = f.text.trim_end_matches('-');
                        if fd.chars().all(|c| c.is_ascii_digit()) {
                            out.io = Io::Dup;
                            out.target = Field::literal(fd);
                        } else {
                            out.io = match kind {
                                IoFileRedirectKind::DuplicateInput => Io::Read,
                                _ => Io::Write,
                            };
                            out.target = f;
                        }
                    }
                    IoFileRedirectTarget::Fd(fd) => {
                        out.io = Io::Dup;
                        out.target = Field::literal(&fd.to_string());
                    }
                }
            }
            IoRedirect::OutputAndError(w, _) => {
                out.io = Io::Write;
                out.target = self.expand_one(&w.value);
            }
            IoRedirect::HereString(_, w) => {
                out.io = Io::Here(format!("{}\n", self.expand_one(&w.value).text));
            }
            IoRedirect::HereDocument(_, doc) => out.io = Io::Here(doc.doc.value.clone()),
        }
        out
    }
}

/// The command as the policy saw it: words joined by blanks, unknown values as `…`.
pub(super) fn show(vars: &[String], argv: &[Field], redirs: &[Redirect]) -> String {
    let mut parts: Vec<String> = vars.to_vec();
    parts.extend(argv.iter().map(|f| f.text.clone()));
    for r in redirs {
        let op = match &r.io {
            Io::Read => "<",
            Io::Write => ">",
            Io::ReadWrite => "<>",
            Io::Here(_) => "<<…",
            Io::Dup => continue,
        };
        let target = if matches!(r.io, Io::Here(_)) {
            ""
        } else {
            &r.target.text
        };
        parts.push(format!("{op}{target}"));
    }
    parts
        .join(" ")
        .replace(super::field::DOWNLOADED, "")
        .replace(UNKNOWN, "…")
}
