//! The per-item rules: `unsafe` outside `src/sys.rs`, functions over [`MAX_FN_LINES`] body
//! lines, `pub` items no file outside their module names, and string literals holding a line
//! break's indentation.

use super::scan::{Crate, SourceFile, ident_lines, is_cfg_test, literals};
use syn::visit::{self, Visit};

/// The longest a function body may be, in lines between its braces as rustfmt lays it out.
pub const MAX_FN_LINES: usize = 80;

/// `file:line` of every `unsafe` keyword (blocks, fns, impls, macro bodies) outside src/sys.rs.
pub fn unsafe_outside_sys(krate: &Crate) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for file in krate.files.iter().filter(|f| f.rel != "src/sys.rs") {
        let mut lines = Vec::new();
        ident_lines(file.tokens.clone(), "unsafe", &mut lines);
        out.extend(lines.into_iter().map(|l| (file.rel.clone(), l)));
    }
    out
}

/// `file:line` of every string literal outside tests that holds a source line's indentation
/// in its text: a line break inside a literal whose `\` continuation was lost (the message
/// then shows a run of spaces mid-sentence). A run of [`INDENT_RUN`] spaces or more between
/// two words counts; a `\` continuation's indentation (not part of the text) does not.
pub fn indented_strings(krate: &Crate) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for file in krate.files.iter().filter(|f| !f.test) {
        let mut lits = Vec::new();
        literals(file.tokens.clone(), &mut lits);
        let mut tests = Vec::new();
        test_lines(&file.ast.items, &mut tests);
        for (line, text) in lits {
            let in_test = tests.iter().any(|r| r.contains(&line));
            if !in_test && text.starts_with('"') && has_indent_run(&without_continuations(&text)) {
                out.push((file.rel.clone(), line));
            }
        }
    }
    out
}

/// The lines of the `#[cfg(test)]` modules and functions among `items` (fixtures may hold
/// any text).
fn test_lines(items: &[syn::Item], out: &mut Vec<std::ops::RangeInclusive<usize>>) {
    for item in items {
        match item {
            syn::Item::Mod(m) => match &m.content {
                Some((brace, _)) if is_cfg_test(&m.attrs) => {
                    out.push(brace.span.open().start().line..=brace.span.close().end().line);
                }
                Some((_, inner)) => test_lines(inner, out),
                None => {}
            },
            syn::Item::Fn(f) if is_cfg_test(&f.attrs) => {
                let b = &f.block.brace_token.span;
                out.push(b.open().start().line..=b.close().end().line);
            }
            _ => {}
        }
    }
}

/// The shortest run of spaces between two words taken for a lost line break.
pub const INDENT_RUN: usize = 8;

/// `src` (a literal's source text) without its `\` line continuations and what follows them.
fn without_continuations(src: &str) -> String {
    let mut out = String::new();
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&'\n') {
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            continue;
        }
        if c == '\\' {
            // An escape: kept whole, so `\\` is never read as a continuation's start.
            out.push(c);
            out.extend(chars.next());
            continue;
        }
        out.push(c);
    }
    out
}

fn has_indent_run(text: &str) -> bool {
    // Between two characters that are not spaces (a word, punctuation, an escape).
    let b = text.as_bytes();
    let mut i = 1;
    while i < b.len() {
        if b[i] == b' ' && b[i - 1] != b' ' {
            let run = b[i..].iter().take_while(|c| **c == b' ').count();
            if run >= INDENT_RUN && i + run < b.len() - 1 {
                return true;
            }
            i += run;
        }
        i += 1;
    }
    false
}

/// `(file, qualified fn name, body lines)` of every function over [`MAX_FN_LINES`]; methods
/// are named `Type::method`, nested fns `outer::inner`, fns in inline modules `module::f`.
pub fn long_fns(krate: &Crate) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    for file in &krate.files {
        let mut v = Lengths {
            scope: Vec::new(),
            found: Vec::new(),
        };
        v.visit_file(&file.ast);
        out.extend(v.found.into_iter().map(|(n, l)| (file.rel.clone(), n, l)));
    }
    out
}

struct Lengths {
    scope: Vec<String>,
    found: Vec<(String, usize)>,
}

impl Lengths {
    fn check(&mut self, name: &syn::Ident, block: &syn::Block) {
        let open = block.brace_token.span.open().start().line;
        let close = block.brace_token.span.close().start().line;
        let lines = close.saturating_sub(open + 1);
        if lines > MAX_FN_LINES {
            let q = [self.scope.as_slice(), &[name.to_string()]]
                .concat()
                .join("::");
            self.found.push((q, lines));
        }
    }

    fn scoped(&mut self, name: String, walk: impl FnOnce(&mut Self)) {
        self.scope.push(name);
        walk(self);
        self.scope.pop();
    }
}

impl<'ast> Visit<'ast> for Lengths {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.check(&f.sig.ident, &f.block);
        self.scoped(f.sig.ident.to_string(), |v| visit::visit_item_fn(v, f));
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.check(&f.sig.ident, &f.block);
        self.scoped(f.sig.ident.to_string(), |v| visit::visit_impl_item_fn(v, f));
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.check(&f.sig.ident, block);
        }
        self.scoped(f.sig.ident.to_string(), |v| {
            visit::visit_trait_item_fn(v, f)
        });
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let name = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        self.scoped(name.unwrap_or_else(|| "_".into()), |v| {
            visit::visit_item_impl(v, i)
        });
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        self.scoped(t.ident.to_string(), |v| visit::visit_item_trait(v, t));
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.scoped(m.ident.to_string(), |v| visit::visit_item_mod(v, m));
    }
}

/// `(file, name, line)` of every `pub` item (fn, type, const, static, trait, module, inherent
/// method) whose name no file outside its module mentions — not `src/main.rs`, `tests/` or
/// `bench/` either. Names are compared as identifiers, so a same-named item elsewhere hides
/// an offender: the check finds some, never a false one.
pub fn needless_pub(krate: &Crate) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    for file in krate.files.iter().filter(|f| !f.test) {
        let mut items = Vec::new();
        public_items(&file.ast.items, &file.module, &mut items);
        for (owner, name, line) in items {
            if !named_outside(krate, file, &owner, &name) {
                out.push((file.rel.clone(), name, line));
            }
        }
    }
    out
}

fn named_outside(krate: &Crate, file: &SourceFile, owner: &[String], name: &str) -> bool {
    krate.outside_idents.contains(name)
        || krate
            .files
            .iter()
            .filter(|f| f.rel != file.rel && !f.module.starts_with(owner))
            .any(|f| f.idents.contains(name))
}

/// The `pub` items of a module (and its non-test inline modules) as `(owner, name, line)`.
fn public_items(
    items: &[syn::Item],
    module: &[String],
    out: &mut Vec<(Vec<String>, String, usize)>,
) {
    let public = |v: &syn::Visibility| matches!(v, syn::Visibility::Public(_));
    for item in items {
        let named = match item {
            syn::Item::Fn(i) if public(&i.vis) => Some(&i.sig.ident),
            syn::Item::Struct(i) if public(&i.vis) => Some(&i.ident),
            syn::Item::Enum(i) if public(&i.vis) => Some(&i.ident),
            syn::Item::Const(i) if public(&i.vis) => Some(&i.ident),
            syn::Item::Static(i) if public(&i.vis) => Some(&i.ident),
            syn::Item::Type(i) if public(&i.vis) => Some(&i.ident),
            syn::Item::Trait(i) if public(&i.vis) => Some(&i.ident),
            syn::Item::Mod(i) if public(&i.vis) && i.content.is_none() => Some(&i.ident),
            _ => None,
        };
        if let Some(ident) = named {
            out.push((
                module.to_vec(),
                ident.to_string(),
                ident.span().start().line,
            ));
        }
        match item {
            syn::Item::Impl(i) if i.trait_.is_none() => {
                for it in &i.items {
                    if let syn::ImplItem::Fn(f) = it
                        && public(&f.vis)
                    {
                        let line = f.sig.ident.span().start().line;
                        out.push((module.to_vec(), f.sig.ident.to_string(), line));
                    }
                }
            }
            syn::Item::Mod(m) if !is_cfg_test(&m.attrs) => {
                if let Some((_, inner)) = &m.content {
                    let path = [module, &[m.ident.to_string()]].concat();
                    public_items(inner, &path, out);
                }
            }
            _ => {}
        }
    }
}
