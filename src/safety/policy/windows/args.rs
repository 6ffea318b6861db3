//! One argument of a Windows command after resolution, and a command's name as the rules
//! know it: what the walk (`judge`) hands the per-command rules (`commands`).

/// One argument after resolution: its text (`None` when unknown) and how it was written.
#[derive(Debug, Clone)]
pub struct Arg {
    /// The value, when evident.
    pub text: Option<String>,
    /// As written.
    pub raw: String,
}

/// A command word's program name: last path component, lower-case, without `.exe`/`.com`.
pub fn name_of(text: &str) -> String {
    let n = super::super::words::command_name(text.trim());
    n.strip_suffix(".com").map_or(n.clone(), str::to_string)
}
