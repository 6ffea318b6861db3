//! Arguments as Windows programs read them. PowerShell binds `-Name`, `-Name:value`, an
//! alias, or any unambiguous prefix of a parameter's name (`-Rec`, `-r`, `-fo`), case
//! ignored, with `–`/`—` as dashes — like [`super::super::longopts`] does for GNU options; an
//! ambiguous prefix binds nothing (PowerShell refuses the command). cmd programs take `/x`
//! switches, glued (`/s/q`) or clustered (`/sq`, the seeds' own spelling), case ignored.

/// One PowerShell parameter.
pub(super) struct Param {
    /// Its name, lower-case.
    pub name: &'static str,
    /// Its aliases, lower-case (matched exactly).
    pub aliases: &'static [&'static str],
    /// Whether it takes a value (else it is a switch).
    pub value: bool,
}

const fn sw(name: &'static str, aliases: &'static [&'static str]) -> Param {
    Param {
        name,
        aliases,
        value: false,
    }
}

const fn val(name: &'static str, aliases: &'static [&'static str]) -> Param {
    Param {
        name,
        aliases,
        value: true,
    }
}

/// The common parameters every cmdlet has.
const COMMON: &[Param] = &[
    sw("verbose", &["vb"]),
    sw("debug", &["db"]),
    val("erroraction", &["ea"]),
    val("warningaction", &["wa"]),
    val("informationaction", &["infa"]),
    val("progressaction", &["proga"]),
    val("errorvariable", &["ev"]),
    val("warningvariable", &["wv"]),
    val("informationvariable", &["iv"]),
    val("outvariable", &["ov"]),
    val("outbuffer", &["ob"]),
    val("pipelinevariable", &["pv"]),
    sw("whatif", &["wi"]),
    sw("confirm", &["cf"]),
];

/// `Remove-Item`.
pub const REMOVE_ITEM: &[Param] = &[
    val("path", &[]),
    val("literalpath", &["pspath", "lp"]),
    val("filter", &[]),
    val("include", &[]),
    val("exclude", &[]),
    sw("recurse", &[]),
    sw("force", &[]),
    val("credential", &[]),
    val("stream", &[]),
];

/// `Get-ChildItem` / `Get-Item` (the listing half of `gci C:\ | Remove-Item`).
pub const GET_CHILD_ITEM: &[Param] = &[
    val("path", &[]),
    val("literalpath", &["pspath", "lp"]),
    val("filter", &[]),
    val("include", &[]),
    val("exclude", &[]),
    sw("recurse", &["s"]),
    sw("force", &[]),
    val("depth", &[]),
    sw("name", &[]),
    sw("directory", &["ad", "d"]),
    sw("file", &["af"]),
    sw("hidden", &["ah", "h"]),
    sw("system", &["as"]),
    sw("readonly", &["ar"]),
    val("attributes", &[]),
];

/// `Start-Process`.
pub const START_PROCESS: &[Param] = &[
    val("filepath", &["path"]),
    val("argumentlist", &["args"]),
    val("verb", &[]),
    val("workingdirectory", &[]),
    val("windowstyle", &[]),
    val("credential", &[]),
    val("redirectstandardinput", &["rsi"]),
    val("redirectstandardoutput", &["rso"]),
    val("redirectstandarderror", &["rse"]),
    val("environment", &[]),
    sw("wait", &[]),
    sw("passthru", &[]),
    sw("nonewwindow", &["nnw"]),
    sw("loaduserprofile", &["lup"]),
    sw("usenewenvironment", &[]),
];

/// `powershell.exe` / `pwsh` command-line parameters.
pub const POWERSHELL: &[Param] = &[
    val("command", &["c"]),
    val("encodedcommand", &["e", "ec", "en", "enc"]),
    val("file", &["f"]),
    val("executionpolicy", &["ep", "ex"]),
    val("windowstyle", &["w"]),
    val("version", &["v"]),
    val("psconsolefile", &[]),
    val("inputformat", &["if", "i"]),
    val("outputformat", &["of", "o"]),
    val("configurationname", &["config"]),
    val("workingdirectory", &["wd"]),
    val("custompipename", &[]),
    val("settingsfile", &[]),
    val("encodedarguments", &["ea"]),
    sw("noprofile", &["nop"]),
    sw("noninteractive", &["noni"]),
    sw("nologo", &["nol"]),
    sw("noexit", &["noe"]),
    sw("sta", &[]),
    sw("mta", &[]),
    sw("login", &["l"]),
    sw("interactive", &[]),
    sw("noprofileloadtime", &[]),
];

/// Cmdlets whose parameters do not matter beyond `-WhatIf`.
pub const NONE: &[Param] = &[];

/// What a PowerShell command line bound.
#[derive(Debug, Default)]
pub(super) struct Bound {
    /// `(parameter, value)` in order; a switch's value is `"true"` or `"false"`.
    pub named: Vec<(&'static str, Option<String>)>,
    /// Positional arguments (`None`: unknown).
    pub positional: Vec<Option<String>>,
    /// The arguments after the first positional one, as written (for `powershell CMD …`).
    pub rest_from_first: Vec<Option<String>>,
}

impl Bound {
    /// The values bound to `name` (named, not positional).
    pub fn values(&self, name: &str) -> impl Iterator<Item = &Option<String>> {
        self.named
            .iter()
            .filter(move |(n, _)| *n == name)
            .map(|(_, v)| v)
    }

    /// The paths named: positional arguments, then `-Path` and `-LiteralPath` values
    /// (`None`: unknown).
    pub fn paths(&self) -> Vec<Option<String>> {
        self.positional
            .iter()
            .chain(self.values("path"))
            .chain(self.values("literalpath"))
            .cloned()
            .collect()
    }

    /// Whether the switch `name` is on (`-Recurse`, `-Recurse:$true`; not `-Recurse:$false`).
    pub fn on(&self, name: &str) -> bool {
        self.values(name).any(|v| {
            v.as_deref()
                .is_none_or(|v| !matches!(v.to_lowercase().as_str(), "false" | "$false" | "0"))
        })
    }
}

/// A PowerShell parameter token: its name (without the dash) and a glued `:value`.
fn param_token(t: &str) -> Option<(String, Option<String>)> {
    let rest = t
        .strip_prefix('-')
        .or_else(|| t.strip_prefix('–'))
        .or_else(|| t.strip_prefix('—'))
        .or_else(|| t.strip_prefix('―'))?;
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    let first = rest.chars().next()?;
    if !first.is_alphabetic() && first != '?' {
        return None;
    }
    Some(match rest.split_once(':') {
        Some((n, v)) => (n.to_lowercase(), Some(v.to_string())),
        None => (rest.to_lowercase(), None),
    })
}

/// The parameter `name` binds to in `table` (with the common ones).
fn lookup(table: &'static [Param], name: &str) -> Option<&'static Param> {
    let all = || table.iter().chain(COMMON);
    if let Some(p) = all().find(|p| p.name == name || p.aliases.contains(&name)) {
        return Some(p);
    }
    let mut hits = all().filter(|p| p.name.starts_with(name));
    let first = hits.next()?;
    hits.next().is_none().then_some(first)
}

/// Binds `args` (`None`: an unknown word) to `table` as PowerShell would.
#[must_use]
pub fn bind(table: &'static [Param], args: &[Option<String>]) -> Bound {
    let mut b = Bound::default();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        let token = a.as_deref().and_then(param_token);
        let Some((name, glued)) = token else {
            if b.positional.is_empty() {
                b.rest_from_first = args[i - 1..].to_vec();
            }
            b.positional.push(a.clone());
            continue;
        };
        let Some(p) = lookup(table, &name) else {
            continue;
        };
        let value = match glued {
            Some(v) => Some(v),
            None if p.value => {
                i += 1;
                args.get(i - 1).cloned().flatten()
            }
            None => None,
        };
        b.named.push((p.name, value));
    }
    b
}

/// A cmd program's arguments: its switches (lower-case, without `/`, values after `:`
/// dropped) and its operands. A cluster of single-letter switches (`/sq`) is expanded when
/// every letter is one of `letters`.
#[must_use]
pub fn switches(args: &[Option<String>], letters: &str) -> (Vec<String>, Vec<Option<String>>) {
    let mut sw = Vec::new();
    let mut operands = Vec::new();
    for a in args {
        match a.as_deref() {
            Some(t) if t.starts_with('/') && t.len() > 1 => {
                for seg in t.split('/').filter(|s| !s.is_empty()) {
                    let name = seg.split(':').next().unwrap_or(seg).to_lowercase();
                    if name.len() > 1 && name.chars().all(|c| letters.contains(c)) {
                        sw.extend(name.chars().map(String::from));
                    } else {
                        sw.push(name);
                    }
                }
            }
            _ => operands.push(a.clone()),
        }
    }
    (sw, operands)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<Option<String>> {
        words.iter().map(|w| Some((*w).to_string())).collect()
    }

    #[test]
    fn prefixes_aliases_and_values_bind() {
        let b = bind(REMOVE_ITEM, &args(&["-rec", "-fo", "C:\\", "-Fi", "*.tmp"]));
        assert!(b.on("recurse") && b.on("force"));
        assert_eq!(b.positional, [Some("C:\\".into())]);
        assert_eq!(b.values("filter").next(), Some(&Some("*.tmp".into())));
        let b = bind(REMOVE_ITEM, &args(&["-Recurse:$false", "-f", "-LP", "x"]));
        assert!(!b.on("recurse") && !b.on("force"));
        assert_eq!(b.values("literalpath").next(), Some(&Some("x".into())));
        let b = bind(REMOVE_ITEM, &args(&["–r", "-WI"]));
        assert!(b.on("recurse") && b.on("whatif"));
    }

    #[test]
    fn cmd_switches_glued_and_clustered() {
        let (sw, ops) = switches(&args(&["/S/Q", "/sq", "/A:H", "C:\\"]), "pfsqa");
        assert_eq!(sw, ["s", "q", "s", "q", "a"]);
        assert_eq!(ops, [Some("C:\\".into())]);
    }
}
