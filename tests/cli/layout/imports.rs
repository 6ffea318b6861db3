//! Import circles among the files of a folder: every path a module names (`use super::x`,
//! `use crate::folder::x`, `crate::folder::x::f()`, `x::f()` for a child `x`) is resolved to
//! a module path; a path from `folder::a::…` into its sibling `folder::x::…` is an edge a → x
//! in `folder`. Test modules (`#[cfg(test)]`) are left out: they are not the flow.

use super::scan::{Crate, is_cfg_test};
use std::collections::{BTreeMap, BTreeSet};
use syn::visit::{self, Visit};

/// folder (module path) → edges between its child modules.
type Edges = BTreeMap<Vec<String>, BTreeSet<(String, String)>>;

/// One import circle: a folder (`src/holder`), its members, and the edges among them.
pub struct Circle {
    pub folder: String,
    pub members: BTreeSet<String>,
    /// `a → x` for each `a` that names its sibling `x`, both in the circle.
    pub edges: Vec<String>,
}

/// The circles: each folder's strongly connected components of more than one module.
pub fn cycles(krate: &Crate) -> Vec<Circle> {
    let mut edges = Edges::new();
    for file in krate.files.iter().filter(|f| !f.test) {
        let mut v = Uses {
            krate,
            stack: vec![file.module.clone()],
            edges: &mut edges,
        };
        v.visit_file(&file.ast);
    }
    let mut out = Vec::new();
    for (folder, pairs) in &edges {
        for members in components(pairs) {
            let folder = std::iter::once("src".to_string())
                .chain(folder.iter().cloned())
                .collect::<Vec<_>>()
                .join("/");
            let edges = pairs
                .iter()
                .filter(|(a, b)| members.contains(a) && members.contains(b))
                .map(|(a, b)| format!("{a} → {b}"))
                .collect();
            out.push(Circle {
                folder,
                members,
                edges,
            });
        }
    }
    out
}

/// Components of more than one node (a node's component: what it reaches that reaches it).
fn components(pairs: &BTreeSet<(String, String)>) -> Vec<BTreeSet<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in pairs {
        next.entry(a).or_default().push(b);
    }
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from];
        while let Some(n) = todo.pop() {
            for &m in next.get(n).into_iter().flatten() {
                if seen.insert(m) {
                    todo.push(m);
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&str, BTreeSet<&str>> = next.keys().map(|&n| (n, reach(n))).collect();
    let mut out: Vec<BTreeSet<String>> = Vec::new();
    for (&n, from_n) in &reaches {
        let scc: BTreeSet<String> = from_n
            .iter()
            .filter(|m| reaches.get(*m).is_some_and(|r| r.contains(n)))
            .map(|m| m.to_string())
            .collect();
        if scc.len() > 1 && !out.contains(&scc) {
            out.push(scc);
        }
    }
    out
}

struct Uses<'a> {
    krate: &'a Crate,
    /// The module being read (inline modules push onto it).
    stack: Vec<Vec<String>>,
    edges: &'a mut Edges,
}

impl Uses<'_> {
    fn here(&self) -> &[String] {
        self.stack.last().map(Vec::as_slice).unwrap_or(&[])
    }

    /// The module path `segs` names from here, if it starts at a module we know.
    fn resolve(&self, segs: &[String], is_use: bool) -> Option<Vec<String>> {
        let here = self.here();
        let first = segs.first()?;
        match first.as_str() {
            "crate" => Some(segs[1..].to_vec()),
            "self" => Some([here, &segs[1..]].concat()),
            "super" => {
                let ups = segs.iter().take_while(|s| *s == "super").count();
                let base = here.get(..here.len().checked_sub(ups)?)?;
                Some([base, &segs[ups..]].concat())
            }
            name if segs.len() > 1 || is_use => {
                let child = [here, &[name.to_string()]].concat();
                self.krate
                    .modules
                    .contains(&child)
                    .then(|| [here, segs].concat())
            }
            _ => None,
        }
    }

    fn record(&mut self, segs: &[String], is_use: bool) {
        let Some(to) = self.resolve(segs, is_use) else {
            return;
        };
        let from = self.here().to_vec();
        let k = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
        // Outside a `use`, a path is a value or a type: one that ends at a module's name
        // (`super::redact_message(s)`) names an item of the parent that shares it.
        let past = if is_use { k + 1 } else { k + 2 };
        if k < from.len() && to.len() >= past && self.krate.modules.contains(&to[..=k]) {
            let pair = (from[k].clone(), to[k].clone());
            self.edges.entry(to[..k].to_vec()).or_default().insert(pair);
        }
    }
}

/// The paths a `use` tree names, groups and renames expanded.
fn flatten(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => out.push([prefix.as_slice(), &[n.ident.to_string()]].concat()),
        syn::UseTree::Rename(r) => out.push([prefix.as_slice(), &[r.ident.to_string()]].concat()),
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| flatten(t, prefix, out)),
    }
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if is_cfg_test(&m.attrs) || m.content.is_none() {
            return;
        }
        let path = [self.here(), &[m.ident.to_string()]].concat();
        self.stack.push(path);
        visit::visit_item_mod(self, m);
        self.stack.pop();
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_cfg_test(&f.attrs) {
            visit::visit_item_fn(self, f);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if is_cfg_test(&u.attrs) || u.leading_colon.is_some() {
            return;
        }
        let mut paths = Vec::new();
        flatten(&u.tree, &mut Vec::new(), &mut paths);
        for p in paths {
            self.record(&p, true);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() {
            let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
            self.record(&segs, false);
        }
        visit::visit_path(self, p);
    }
}
