//! `kpty rec list|cat|export` and `kpty gc`: recordings read back ([`crate::core::rec`]) and
//! kept under their caps.

use super::args::{
    EvidenceVerifyArgs, ExportFormat, GcArgs, RecCommand, RecExportArgs, RecListArgs, RecSource,
    RecSourceArgs,
};
use super::output::{out, print_json, shown};
use crate::core::Ctx;
use crate::core::rec::{self, Found, Loaded};
use crate::error::{Error, Result, Voice};

/// `kpty rec …`.
pub fn run(ctx: &Ctx, command: &RecCommand, json: bool) -> Result<i32> {
    match command {
        RecCommand::List(a) => list(ctx, a, json),
        RecCommand::Cat(a) => cat(ctx, a, json),
        RecCommand::Export(a) => export(ctx, a, json),
    }
    .map_err(|e| e.speak(Voice::Cli))
}

/// `kpty rec list`.
fn list(ctx: &Ctx, _: &RecListArgs, json: bool) -> Result<i32> {
    usage(ctx, false, json)
}

/// `kpty gc`.
pub fn gc(ctx: &Ctx, a: &GcArgs, json: bool) -> Result<i32> {
    usage(ctx, !a.dry_run, json)
}

/// The recording a command names.
pub(super) fn found(ctx: &Ctx, s: &RecSource) -> Result<Found> {
    match &s.file {
        Some(f) => rec::file(f),
        None => rec::locate(ctx, s.session.as_deref()),
    }
}

/// The recording loaded, from `from` on when given.
pub(super) fn loaded(ctx: &Ctx, s: &RecSource, from: Option<&str>) -> Result<Loaded> {
    let l = rec::load(&found(ctx, s)?)?;
    Ok(match from {
        Some(f) => rec::export::from(&l, rec::start_of(&l, f)?),
        None => l,
    })
}

fn usage(ctx: &Ctx, apply: bool, json: bool) -> Result<i32> {
    let u: rec::usage::Usage = rec::usage::usage(ctx, apply);
    if json {
        print_json(&u);
        return Ok(0);
    }
    let mib = |b: u64| format!("{:.1} MiB", b as f64 / 1048576.0);
    let mut text = format!(
        "recordings: {} of {} (segments roll at {})\n",
        mib(u.used),
        mib(u.total_cap),
        mib(u.segment_cap)
    );
    for r in &u.recordings {
        text.push_str(&usage_line(r));
    }
    if !u.over_total.is_empty() {
        let verb = if u.removed {
            "removed"
        } else {
            "over the total (kpty gc removes)"
        };
        text.push_str(&format!("{verb}:\n"));
        for p in &u.over_total {
            text.push_str(&format!("  {}\n", shown(p)));
        }
    }
    out(text.as_bytes());
    Ok(0)
}

/// One recording in `kpty rec list`.
fn usage_line(r: &rec::usage::RecordingUsage) -> String {
    format!(
        "  {:<18} {:>8.1} MiB  {} segment(s){}\n",
        shown(&r.session_id),
        r.bytes as f64 / 1048576.0,
        r.segments.len(),
        if r.ended { ", ended" } else { "" }
    )
}

/// One problem `kpty evidence verify` found.
fn problem_line(p: &crate::core::evidence::check::Problem) -> String {
    format!("  {}: {}\n", shown(&p.file), p.problem)
}

/// The JSON of `kpty evidence list --json`.
#[derive(serde::Serialize)]
struct PackList {
    ok: bool,
    packs: Vec<crate::core::evidence::check::Listed>,
}

/// The JSON of `kpty rec export -o FILE --json`.
#[derive(serde::Serialize)]
struct Exported {
    ok: bool,
    path: String,
    bytes: usize,
}

/// The JSON of `kpty rec cat --json`.
#[derive(serde::Serialize)]
struct CatReply {
    ok: bool,
    recording: String,
    text: String,
}

fn cat(ctx: &Ctx, a: &RecSourceArgs, json: bool) -> Result<i32> {
    let f = found(ctx, &a.source)?;
    let mut l = rec::load(&f)?;
    if json && ctx.redact {
        rec::redact::redact_loaded(&mut l);
    }
    let text = rec::text::render(&l.events, l.size());
    if json {
        print_json(&CatReply {
            ok: true,
            recording: f.name,
            text,
        });
    } else {
        out(text.as_bytes());
    }
    Ok(0)
}

fn export(ctx: &Ctx, a: &RecExportArgs, json: bool) -> Result<i32> {
    let mut l = loaded(ctx, &a.source, a.from.as_deref())?;
    if !a.globals.no_redact {
        rec::redact::redact_loaded(&mut l);
    }
    let bytes = match a.format {
        ExportFormat::Cast => rec::export::to_cast(&l),
        ExportFormat::Txt => rec::text::render(&l.events, l.size()).into_bytes(),
        ExportFormat::Html => rec::export::to_html(&l).into_bytes(),
        ExportFormat::Gif => rec::export::to_gif(&l)?,
    };
    match &a.output {
        Some(path) => {
            std::fs::write(path, &bytes)
                .map_err(|e| Error::invalid(format!("cannot write {}: {e}", path.display())))?;
            if json {
                print_json(&Exported {
                    ok: true,
                    path: path.display().to_string(),
                    bytes: bytes.len(),
                });
            } else {
                eprintln!("kpty: wrote {} ({} bytes)", path.display(), bytes.len());
            }
        }
        None => {
            use std::io::IsTerminal;
            if a.format == ExportFormat::Gif && std::io::stdout().is_terminal() {
                return Err(Error::invalid(
                    "a GIF is binary: write it with -o FILE, or pipe standard output",
                ));
            }
            let mut o = std::io::stdout().lock();
            std::io::Write::write_all(&mut o, &bytes)
                .and_then(|_| std::io::Write::flush(&mut o))
                .map_err(|e| Error::invalid(format!("cannot write the export: {e}")))?;
        }
    }
    Ok(0)
}

/// `kpty evidence verify ID` (exit 1 when something is wrong) and `kpty evidence list`.
pub fn evidence(ctx: &Ctx, a: &super::args::EvidenceArgs, json: bool) -> Result<i32> {
    use super::args::EvidenceCommand;
    use crate::core::evidence::check;
    match &a.command {
        Some(EvidenceCommand::Verify(v)) => verify(ctx, v, json),
        Some(EvidenceCommand::List(_)) => {
            let packs = check::list(ctx);
            if json {
                print_json(&PackList { ok: true, packs });
            } else {
                let mut t = String::new();
                for p in &packs {
                    t.push_str(&format!(
                        "{}  {}  {} command(s){}\n",
                        shown(&p.evidence_id),
                        shown(&p.session_id),
                        p.commands,
                        p.note
                            .as_deref()
                            .map(|n| format!("  {}", shown(n)))
                            .unwrap_or_default()
                    ));
                }
                out(t.as_bytes());
            }
            Ok(0)
        }
        None => Err(Error::internal("evidence without a verb is an action")),
    }
}

/// `kpty evidence verify ID`: exit 1 when something is wrong.
fn verify(ctx: &Ctx, v: &EvidenceVerifyArgs, json: bool) -> Result<i32> {
    let verdict =
        crate::core::evidence::check::verify(ctx, &v.id).map_err(|e| e.speak(Voice::Cli))?;
    if json {
        print_json(&verdict);
    } else {
        let mut t = format!(
            "{} {}: {} file(s) checked\n",
            shown(&verdict.evidence_id),
            if verdict.ok { "intact" } else { "TAMPERED" },
            verdict.files_checked
        );
        for p in &verdict.problems {
            t.push_str(&problem_line(p));
        }
        if !verdict.manifest_sealed {
            t.push_str(
                "  manifest.json: its seal is not this user's (edited, or made elsewhere)\n",
            );
        }
        match verdict.manifest_in_trail {
            Some(false) => {
                t.push_str("  manifest.json: differs from the hash the audit trail kept\n")
            }
            None => t.push_str("  (the audit trail has no entry for this pack)\n"),
            Some(true) => {}
        }
        out(t.as_bytes());
    }
    Ok(if verdict.ok { 0 } else { 1 })
}
