//! `create`'s agent-program options: a program instead of a shell (`command`, with
//! `auto_restart` and `restart_delay_ms`) and the input filter for remote writers
//! (`input_filter`, `block_sequences`, `ctrl_c_debounce_ms`; seed 002 §8.4–8.5).

use crate::api::Params;
use crate::error::{Error, ErrorCode, Result};
use crate::filter::{DEFAULT_CTRL_C_DEBOUNCE_MS, FilterSpec};
use crate::proto::launch::{DEFAULT_RESTART_DELAY_MS, MAX_RESTART_DELAY_MS, ProgramSpec};
use crate::safety::launch::{Launch, LaunchRefusal, judge_launch};
use std::collections::BTreeMap;
use std::path::Path;

/// The program `create` runs instead of a shell, if `command` names one.
pub fn program(p: &Params) -> Result<Option<ProgramSpec>> {
    let Some(command) = p.command.as_deref() else {
        if p.auto_restart == Some(true) || p.restart_delay_ms.is_some() {
            return Err(Error::invalid(
                "auto_restart and restart_delay_ms need `command`: a shell session is not restarted",
            ));
        }
        return Ok(None);
    };
    if p.shell.is_some() {
        return Err(Error::invalid(
            "give `command` (a program to run) or `shell`, not both",
        ));
    }
    let argv = shlex::split(command).ok_or_else(|| {
        Error::invalid(format!(
            "command {command:?} has an unbalanced quote or a trailing backslash"
        ))
    })?;
    if argv.is_empty() {
        return Err(Error::invalid("command is empty: name a program to run"));
    }
    let restart_delay_ms = p.restart_delay_ms.unwrap_or(DEFAULT_RESTART_DELAY_MS);
    if restart_delay_ms > MAX_RESTART_DELAY_MS {
        return Err(Error::invalid(format!(
            "restart_delay_ms {restart_delay_ms} is out of range 0..={MAX_RESTART_DELAY_MS}"
        )));
    }
    Ok(Some(ProgramSpec {
        command: command.to_string(),
        argv,
        auto_restart: p.auto_restart.unwrap_or(false),
        restart_delay_ms,
    }))
}

/// Judges what `create` would start, before anything starts: the program's argv (in the
/// session's directory; it is also what `auto_restart` starts again), the shell as given, and
/// the environment variables that make the shell or its programs run code.
pub fn judge(
    p: &Params,
    program: Option<&ProgramSpec>,
    env: &BTreeMap<String, String>,
    cwd: &Path,
) -> Result<()> {
    let pairs: Vec<(String, String)> = env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let home = env
        .get("HOME")
        .cloned()
        .or_else(|| std::env::var("HOME").ok());
    let launch = Launch {
        command: program.map(|p| p.argv.as_slice()),
        shell: p.shell.as_deref().filter(|s| !s.trim().is_empty()),
        env: &pairs,
        cwd: cwd.to_str(),
        home: home.as_deref(),
    };
    judge_launch(&launch).map_err(refused)
}

/// `DANGEROUS_COMMAND_BLOCKED` naming the field that carried the command.
fn refused(r: LaunchRefusal) -> Error {
    Error::new(ErrorCode::DangerousCommandBlocked, r.message())
        .with_hint(crate::error::Hint::ExplainBlock)
        .with_details(crate::error::details::Blocked {
            pattern: r.rule.id.into(),
            category: r.rule.category.into(),
            description: r.rule.description.into(),
            field: Some(r.field),
            key: None,
            unclosed: None,
            line: None,
            seen: Some(r.seen),
        })
}

/// The input filter `create` sets up, if any: on for a `command` session unless
/// `input_filter` is false, on for any session with `input_filter` or `block_sequences`.
pub fn filter(p: &Params) -> Result<Option<FilterSpec>> {
    let sequences = p.block_sequences.clone().unwrap_or_default();
    let on = match p.input_filter {
        Some(false) if !sequences.is_empty() => {
            return Err(Error::invalid(
                "block_sequences need the input filter: drop input_filter=false",
            ));
        }
        Some(on) => on,
        None => p.command.is_some() || !sequences.is_empty() || p.ctrl_c_debounce_ms.is_some(),
    };
    if !on {
        return Ok(None);
    }
    let spec = FilterSpec {
        block_sequences: sequences,
        ctrl_c_debounce_ms: p.ctrl_c_debounce_ms.unwrap_or(DEFAULT_CTRL_C_DEBOUNCE_MS),
    };
    spec.build()?;
    Ok(Some(spec))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(f: impl FnOnce(&mut Params)) -> Params {
        let mut p = Params::default();
        f(&mut p);
        p
    }

    #[test]
    fn commands_split_as_a_shell_would() {
        let p = params(|p| p.command = Some(r#"sh -c "exit 7" 'a b'"#.into()));
        let prog = program(&p).unwrap().unwrap();
        assert_eq!(prog.argv, ["sh", "-c", "exit 7", "a b"]);
        assert!(!prog.auto_restart);
        assert_eq!(prog.restart_delay_ms, 1000);
        for bad in [r#"sh -c "exit"#, "", "   "] {
            let p = params(|p| p.command = Some(bad.into()));
            assert!(program(&p).is_err(), "{bad:?}");
        }
        let p = params(|p| p.auto_restart = Some(true));
        assert!(program(&p).is_err(), "auto_restart without a command");
        let p = params(|p| {
            p.command = Some("cat".into());
            p.restart_delay_ms = Some(MAX_RESTART_DELAY_MS + 1);
        });
        assert!(program(&p).is_err());
    }

    #[test]
    fn the_filter_is_on_for_programs_and_when_asked() {
        assert_eq!(filter(&Params::default()).unwrap(), None);
        let prog = params(|p| p.command = Some("cat".into()));
        assert!(filter(&prog).unwrap().is_some());
        let off = params(|p| {
            p.command = Some("cat".into());
            p.input_filter = Some(false);
        });
        assert_eq!(filter(&off).unwrap(), None);
        let seqs = params(|p| p.block_sequences = Some(vec![r"\x07".into()]));
        assert_eq!(filter(&seqs).unwrap().unwrap().block_sequences, [r"\x07"]);
        let both = params(|p| {
            p.block_sequences = Some(vec!["x".into()]);
            p.input_filter = Some(false);
        });
        assert!(filter(&both).is_err());
        let bad = params(|p| p.block_sequences = Some(vec![r"\xZZ".into()]));
        assert!(filter(&bad).is_err());
    }
}
