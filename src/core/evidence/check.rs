//! Packs checked and listed, and the audit entries a pack carries: `kpty evidence verify`
//! re-hashes every file its manifest lists and names what changed, went missing or was
//! added; the manifest itself is checked against its seal and against the hash the audit
//! trail kept when the pack was made.

use super::pack::{self, MANIFEST, Manifest};
use crate::core::Ctx;
use crate::core::traffic::Event;
use crate::error::{Error, ErrorCode, Result};
use serde::Serialize;
use std::io::BufRead;

/// Most audit bytes a pack carries (the newest entries are kept).
const MAX_AUDIT: usize = 8 << 20;

/// The session's audit entries at or after `from` (and what comes after), redacted, one JSON
/// object a line.
pub fn audit_lines(ctx: &Ctx, address: &str, from: jiff::Timestamp) -> Vec<u8> {
    let Ok(id) = crate::api::SessionId::parse(address) else {
        return Vec::new();
    };
    let path = ctx.state.session_dir(&id).join("events.jsonl");
    let Ok(Some(f)) = crate::store::secure::open_read(&path) else {
        return Vec::new();
    };
    // Entries are stamped to the millisecond; the recording's start to the millisecond too:
    // a second's slack keeps the entry of the command that opened the range.
    let since = from - jiff::SignedDuration::from_secs(1);
    let mut out = Vec::new();
    for line in std::io::BufReader::new(f).lines().map_while(|l| l.ok()) {
        let Ok(e) = serde_json::from_str::<Event>(&line) else {
            continue;
        };
        let at =
            e.ts.as_deref()
                .and_then(|t| t.parse::<jiff::Timestamp>().ok());
        if e.action.is_none() || at.is_none_or(|t| t < since) {
            continue;
        }
        let mut v = serde_json::to_value(&e).unwrap_or_default();
        crate::safety::redact::redact_value(&mut v);
        if let Ok(mut bytes) = serde_json::to_vec(&v) {
            bytes.push(b'\n');
            out.extend(bytes);
        }
    }
    if out.len() > MAX_AUDIT {
        let cut = out.len() - MAX_AUDIT;
        let at = out[cut..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(out.len(), |p| cut + p + 1);
        out.drain(..at);
    }
    out
}

/// What `verify` found wrong with one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The file.
    pub file: String,
    /// `changed`, `missing`, `added` or `unreadable`.
    pub problem: &'static str,
}

/// A pack checked.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// Nothing is wrong.
    pub ok: bool,
    /// The pack.
    pub evidence_id: String,
    /// Its folder.
    pub path: String,
    /// Files checked against the manifest.
    pub files_checked: usize,
    /// What is wrong with them.
    pub problems: Vec<Problem>,
    /// The manifest carries this user's seal (`false`: it was edited, or made by another
    /// user or key).
    pub manifest_sealed: bool,
    /// The audit trail kept this manifest's hash when the pack was made: `true` it matches,
    /// `false` it differs, `null` the trail has no entry for the pack.
    pub manifest_in_trail: Option<bool>,
}

fn not_found(id: &str) -> Error {
    Error::new(
        ErrorCode::NotFound,
        format!("no evidence pack {id:?} here (kpty evidence list shows them)"),
    )
}

/// The manifest of pack `id`, and its bytes.
fn manifest(ctx: &Ctx, id: &str) -> Result<(Manifest, Vec<u8>, std::path::PathBuf)> {
    if !pack::valid_id(id) {
        return Err(Error::invalid(format!(
            "{id:?} is not an evidence id (ev_…)"
        )));
    }
    let dir = pack::root(&ctx.state).join(id);
    if !crate::store::secure::check_dir(&dir).unwrap_or(false) {
        return Err(not_found(id));
    }
    let bytes = crate::store::secure::read(&dir.join(MANIFEST))?.ok_or_else(|| not_found(id))?;
    let m: Manifest = serde_json::from_slice(&bytes).map_err(|e| {
        Error::new(
            ErrorCode::StateError,
            format!("the manifest of {id} is not one kpty wrote: {e}"),
        )
    })?;
    Ok((m, bytes, dir))
}

/// Check pack `id`.
pub fn verify(ctx: &Ctx, id: &str) -> Result<Verdict> {
    let (m, bytes, dir) = manifest(ctx, id)?;
    let mut problems = Vec::new();
    for f in &m.files {
        let ok_name = !f.name.contains('/') && f.name != MANIFEST && !f.name.starts_with('.');
        let got = if ok_name {
            crate::store::secure::read(&dir.join(&f.name))
        } else {
            Ok(None)
        };
        let problem = match got {
            Ok(Some(b)) if pack::sha256_hex(&b) == f.sha256 => continue,
            Ok(Some(_)) => "changed",
            Ok(None) => "missing",
            Err(_) => "unreadable",
        };
        problems.push(Problem {
            file: f.name.clone(),
            problem,
        });
    }
    if let Ok(rd) = std::fs::read_dir(&dir) {
        for d in rd.flatten() {
            let name = d.file_name().to_string_lossy().into_owned();
            if name != MANIFEST && !m.files.iter().any(|f| f.name == name) {
                problems.push(Problem {
                    file: name,
                    problem: "added",
                });
            }
        }
    }
    let manifest_sealed = m.sealed_here(&ctx.state);
    let manifest_in_trail = in_trail(ctx, &m, &pack::sha256_hex(&bytes));
    Ok(Verdict {
        ok: problems.is_empty() && manifest_sealed && manifest_in_trail != Some(false),
        evidence_id: m.evidence_id.clone(),
        path: dir.display().to_string(),
        files_checked: m.files.len(),
        problems,
        manifest_sealed,
        manifest_in_trail,
    })
}

/// Whether the audit trail's entry for the pack names this manifest hash (`None`: no entry).
fn in_trail(ctx: &Ctx, m: &Manifest, sha: &str) -> Option<bool> {
    let id = crate::api::SessionId::parse(&m.session_id).ok()?;
    let path = ctx.state.session_dir(&id).join("events.jsonl");
    let f = crate::store::secure::open_read(&path).ok()??;
    let mut seen = None;
    for line in std::io::BufReader::new(f).lines().map_while(|l| l.ok()) {
        let Ok(e) = serde_json::from_str::<Event>(&line) else {
            continue;
        };
        if e.evidence_id.as_deref() == Some(m.evidence_id.as_str()) && e.manifest_sha256.is_some() {
            seen = Some(e.manifest_sha256.as_deref() == Some(sha));
        }
    }
    seen
}

/// One pack, as `kpty evidence list` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Listed {
    /// Its id.
    pub evidence_id: String,
    /// Its session.
    pub session_id: String,
    /// When it was made.
    pub created_at: String,
    /// The range.
    pub from: String,
    /// The end of the range.
    pub to: String,
    /// Commands in it.
    pub commands: usize,
    /// Its note.
    pub note: Option<String>,
}

/// Every pack of the state directory, oldest first.
pub fn list(ctx: &Ctx) -> Vec<Listed> {
    let Ok(rd) = std::fs::read_dir(pack::root(&ctx.state)) else {
        return Vec::new();
    };
    let mut ids: Vec<String> = rd
        .flatten()
        .filter_map(|d| d.file_name().into_string().ok())
        .filter(|n| pack::valid_id(n))
        .collect();
    ids.sort();
    ids.iter()
        .filter_map(|id| manifest(ctx, id).ok())
        .map(|(m, _, _)| Listed {
            evidence_id: m.evidence_id,
            session_id: m.session_id,
            created_at: m.created_at,
            from: m.from,
            to: m.to,
            commands: m.commands.len(),
            note: m.note,
        })
        .collect()
}
