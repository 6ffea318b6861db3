//! A command's arguments split into options and operands, the way most programs read them:
//! the shared reader of the analysers. A leaf beside [`super::field`].

use super::field::Field;

/// A command's options and operands, split the usual way (`--` ends options).
pub struct Args<'a> {
    /// Option words (`-rf`, `--force`, `--delete=x`).
    pub options: Vec<&'a str>,
    /// Operands (everything else, in order).
    pub operands: Vec<&'a Field>,
}

impl<'a> Args<'a> {
    /// Splits `args`; options listed in `with_arg` consume the next word.
    pub fn parse(args: &'a [Field], with_arg: &[&str]) -> Self {
        let mut out = Args {
            options: vec![],
            operands: vec![],
        };
        let mut i = 0;
        let mut ended = false;
        while let Some(a) = args.get(i) {
            let t = a.text.as_str();
            if ended || !t.starts_with('-') || t == "-" {
                out.operands.push(a);
            } else if t == "--" {
                ended = true;
            } else {
                out.options.push(t);
                if with_arg.contains(&t) {
                    i += 1;
                }
            }
            i += 1;
        }
        out
    }

    /// A short flag (alone or in a cluster such as `-rf`) or one of the long spellings.
    pub fn flag(&self, short: char, long: &[&str]) -> bool {
        self.options.iter().any(|o| {
            long.iter()
                .any(|l| o == l || o.starts_with(&format!("{l}=")))
                || (!o.starts_with("--") && o[1..].contains(short))
        })
    }

    /// Whether any option starts with `prefix`.
    pub fn long(&self, prefix: &str) -> bool {
        self.options.iter().any(|o| o.starts_with(prefix))
    }
}
