//! `kpty rec list|cat|export` and `kpty gc`: recordings read back ([`crate::core::rec`]) and
//! kept under their caps.

use super::args::{ExportFormat, GcArgs, RecCommand, RecExportArgs, RecSource, RecSourceArgs};
use super::output::{out, print_json, shown};
use crate::core::Ctx;
use crate::core::rec::{self, Found, Loaded};
use crate::error::{Error, Result, Voice};

/// `kpty rec …`.
pub fn run(ctx: &Ctx, command: &RecCommand, json: bool) -> Result<i32> {
    match command {
        RecCommand::List(_) => usage(ctx, false, json),
        RecCommand::Cat(a) => cat(ctx, a, json),
        RecCommand::Export(a) => export(ctx, a, json),
    }
    .map_err(|e| e.speak(Voice::Cli))
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
    let u = rec::usage::usage(ctx, apply);
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
        text.push_str(&format!(
            "  {:<18} {:>10}  {} segment(s){}\n",
            shown(&r.session_id),
            mib(r.bytes),
            r.segments.len(),
            if r.ended { ", ended" } else { "" }
        ));
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
                print_json(&serde_json::json!({
                    "ok": true,
                    "path": path.display().to_string(),
                    "bytes": bytes.len(),
                }));
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
