//! Reads `src/` as the compiler does: the module tree from `src/lib.rs` (`mod x;`, `#[path]`,
//! inline modules), every file parsed with syn, plus the identifiers that `src/main.rs`,
//! `tests/` and `bench/` name (the crate's users outside the library).

use proc_macro2::{TokenStream, TokenTree};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One file of the library.
pub struct SourceFile {
    /// Path from the repository root, `/`-separated: `src/holder/attach.rs`.
    pub rel: String,
    /// Its module path below `crate`: `["holder", "attach"]`.
    pub module: Vec<String>,
    /// Declared under `#[cfg(test)]` (itself or an ancestor).
    pub test: bool,
    pub ast: syn::File,
    pub tokens: TokenStream,
    /// Every identifier token, macro bodies included.
    pub idents: BTreeSet<String>,
}

/// The library's files and modules.
pub struct Crate {
    root: PathBuf,
    pub files: Vec<SourceFile>,
    /// Every module path, inline modules included.
    pub modules: BTreeSet<Vec<String>>,
    /// Identifiers named by `src/main.rs`, `tests/**.rs` and `bench/**.rs`.
    pub outside_idents: BTreeSet<String>,
}

impl Crate {
    /// Load the library under `root` (the repository).
    pub fn load(root: &Path) -> Crate {
        let mut krate = Crate {
            root: root.to_path_buf(),
            files: Vec::new(),
            modules: BTreeSet::new(),
            outside_idents: BTreeSet::new(),
        };
        krate.load_file(Path::new("src/lib.rs"), Vec::new(), false);
        let mut users: Vec<PathBuf> = Some(root.join("src/main.rs"))
            .filter(|p| p.exists())
            .into_iter()
            .collect();
        for dir in ["tests", "bench"] {
            rust_files(&root.join(dir), &mut users);
        }
        for user in users {
            let text = std::fs::read_to_string(&user).expect("read a test or bench file");
            let tokens: TokenStream = text.parse().expect("tokenize a test or bench file");
            collect_idents(tokens, &mut krate.outside_idents);
        }
        krate
    }

    fn load_file(&mut self, rel: &Path, module: Vec<String>, test: bool) {
        let text = std::fs::read_to_string(self.root.join(rel))
            .unwrap_or_else(|e| panic!("read {}: {e}", rel.display()));
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("parse {}: {e}", rel.display()));
        let tokens: TokenStream = text.parse().expect("tokenize a source file");
        let mut idents = BTreeSet::new();
        collect_idents(tokens.clone(), &mut idents);
        let dir = rel.parent().unwrap_or(Path::new("")).to_path_buf();
        let stem = rel.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let child_dir = match stem {
            "lib" | "mod" | "main" => dir.clone(),
            _ => dir.join(stem),
        };
        self.modules.insert(module.clone());
        self.declare(&ast.items, &module, &child_dir, &dir, test);
        self.files.push(SourceFile {
            rel: rel.to_string_lossy().replace('\\', "/"),
            module,
            test,
            ast,
            tokens,
            idents,
        });
    }

    /// Follow the `mod` items of one module: inline ones in place, the others into files.
    fn declare(
        &mut self,
        items: &[syn::Item],
        module: &[String],
        child_dir: &Path,
        path_base: &Path,
        test: bool,
    ) {
        for item in items {
            let syn::Item::Mod(m) = item else { continue };
            let name = m.ident.to_string();
            let mut path = module.to_vec();
            path.push(name.clone());
            let test = test || is_cfg_test(&m.attrs);
            if let Some((_, inner)) = &m.content {
                self.modules.insert(path.clone());
                let dir = child_dir.join(&name);
                self.declare(inner, &path, &dir, &dir, test);
                continue;
            }
            let file = match path_attr(&m.attrs) {
                Some(p) => path_base.join(p),
                None if self
                    .root
                    .join(child_dir.join(format!("{name}.rs")))
                    .exists() =>
                {
                    child_dir.join(format!("{name}.rs"))
                }
                None => child_dir.join(&name).join("mod.rs"),
            };
            if self.root.join(&file).exists() {
                self.load_file(&file, path, test);
            }
        }
    }
}

/// `#[cfg(test)]`, or any `cfg` that names `test`.
pub fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && matches!(&a.meta, syn::Meta::List(l) if {
                let mut names = BTreeSet::new();
                collect_idents(l.tokens.clone(), &mut names);
                names.contains("test")
            })
    })
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Every identifier in `tokens`, inside groups (macro bodies) too.
pub fn collect_idents(tokens: TokenStream, out: &mut BTreeSet<String>) {
    for tt in tokens {
        match tt {
            TokenTree::Group(g) => collect_idents(g.stream(), out),
            TokenTree::Ident(i) => {
                out.insert(i.to_string().trim_start_matches("r#").to_string());
            }
            _ => {}
        }
    }
}

/// The lines where the identifier `name` stands in `tokens`.
pub fn ident_lines(tokens: TokenStream, name: &str, out: &mut Vec<usize>) {
    for tt in tokens {
        match tt {
            TokenTree::Group(g) => ident_lines(g.stream(), name, out),
            TokenTree::Ident(i) if i == name => out.push(i.span().start().line),
            _ => {}
        }
    }
}

/// The line and source text of every literal in `tokens`, macro bodies included.
pub fn literals(tokens: TokenStream, out: &mut Vec<(usize, String)>) {
    for tt in tokens {
        match tt {
            TokenTree::Group(g) => literals(g.stream(), out),
            TokenTree::Literal(l) => out.push((l.span().start().line, l.to_string())),
            _ => {}
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
