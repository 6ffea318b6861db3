//! Evidence packs (seed 003 §5.3): what happened in a terminal over a range, in a folder
//! anyone can be handed — `evidence/<evidence_id>/` with the screens before and after, the
//! recording of the range, its output as text, the commands with exit codes and durations,
//! the audit entries, and (in a git work tree) the status and the diff; every file's SHA-256
//! in a sealed manifest ([`pack`]), everything redacted. Made by the `evidence` action, or by
//! `talk` with `evidence: true` around its command; checked by [`check::verify`].

pub mod check;
pub mod git;
pub mod pack;

use super::Ctx;
use super::rec::{self, Found, Loaded, Timed};
use crate::api::evidence::PackCommand;
use crate::api::reply::EvidenceReply;
use crate::api::reply::Success;
use crate::api::request::EvidenceArgs;
use crate::cast::Code;
use crate::error::Result;
use crate::holder::screen::Screen;
use std::time::Duration;

/// What a pack is made of, beyond the recording.
pub struct Range<'a> {
    /// The recording found.
    pub found: &'a Found,
    /// It loaded, whole.
    pub loaded: &'a Loaded,
    /// Where the range starts in it.
    pub start: Duration,
    /// The note given.
    pub note: Option<&'a str>,
    /// Who asks.
    pub made_by: String,
    /// The working tree as it stood at the start, when that was seen (`talk` with
    /// `evidence`).
    pub base: Option<git::Base>,
}

/// Run `evidence`.
pub fn make(ctx: &Ctx, a: &EvidenceArgs) -> Result<EvidenceReply> {
    let found = rec::action::found(ctx, &a.target)?;
    let loaded = rec::load(&found)?;
    let start = match &a.from {
        Some(f) => rec::start_of(&loaded, f)?,
        None => Duration::ZERO,
    };
    write(
        ctx,
        &Range {
            found: &found,
            loaded: &loaded,
            start,
            note: a.note.as_deref(),
            made_by: ctx.writer(a.agent_id.as_deref()),
            base: None,
        },
    )
}

/// Write the pack for `r`.
pub fn write(ctx: &Ctx, r: &Range<'_>) -> Result<EvidenceReply> {
    let id = pack::new_id();
    let l = r.loaded;
    let entry = crate::store::Registry::load(&ctx.state)
        .ok()
        .and_then(|reg| reg.sessions.get(&r.found.name).cloned());
    let began = started(l);
    let from = began + r.start;
    let to = began + l.duration();
    let mut w = pack::Writer::create(&ctx.state, &id)?;
    let (before, after) = screens(l, r.start);
    w.add("screen-before.svg", before.as_bytes())?;
    w.add("screen-after.svg", after.as_bytes())?;
    let mut range = rec::export::from(l, r.start);
    rec::redact::redact_loaded(&mut range);
    w.add("recording.cast", &rec::export::to_cast(&range))?;
    let fresh: Vec<Timed> = range
        .events
        .iter()
        .filter(|e| !e.at.is_zero() || r.start.is_zero())
        .cloned()
        .collect();
    let size = size_at(l, r.start);
    w.add("output.txt", rec::text::render(&fresh, size).as_bytes())?;
    w.add("audit.jsonl", &check::audit_lines(ctx, &r.found.name, from))?;
    let cwd = entry.as_ref().and_then(|e| e.cwd.clone());
    if let Some(dir) = cwd.as_deref().map(std::path::Path::new)
        && dir.is_absolute()
        && git::is_work_tree(dir)
    {
        let red = |s: String| crate::safety::redact::redact(&s).into_owned();
        if let Some(s) = git::status(dir) {
            w.add("git-status.txt", red(s).as_bytes())?;
        }
        if let Some(d) = git::diff(dir, r.base.as_ref()) {
            w.add("git.diff", red(d).as_bytes())?;
        }
    }
    let commands = commands(&range.events);
    let stamp = |t: jiff::Timestamp| format!("{t:.3}");
    let manifest = pack::Manifest {
        evidence_id: id.clone(),
        session_id: r.found.name.clone(),
        made_by: r.made_by.clone(),
        owner_agent_id: entry.as_ref().and_then(|e| e.owner_agent_id.clone()),
        from: stamp(from),
        to: stamp(to),
        created_at: crate::store::now_rfc3339(),
        kpty_version: env!("CARGO_PKG_VERSION").into(),
        cwd,
        note: r
            .note
            .map(|n| crate::safety::redact::redact(n).into_owned()),
        commands: commands.clone(),
        files: Vec::new(),
        seal: String::new(),
    };
    let path = w.dir().display().to_string();
    let (m, manifest_sha256) = w.finish(&ctx.state, manifest)?;
    Ok(EvidenceReply {
        ok: Success,
        evidence_id: id,
        session_id: r.found.name.clone(),
        path,
        from: m.from,
        to: m.to,
        commands,
        files: m.files,
        manifest_sha256,
    })
}

/// When the recording started: the header's time (whole seconds), or the precise time its
/// tags carry.
fn started(l: &Loaded) -> jiff::Timestamp {
    l.header
        .tags
        .iter()
        .find_map(|t| t.strip_prefix("start:")?.parse().ok())
        .or_else(|| jiff::Timestamp::from_second(l.header.timestamp?).ok())
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
}

/// The terminal's size at `at`.
fn size_at(l: &Loaded, at: Duration) -> (u16, u16) {
    l.events
        .iter()
        .take_while(|e| e.at <= at)
        .filter(|e| e.code == Code::Resize)
        .filter_map(|e| crate::cast::Event::size_of(&e.data))
        .last()
        .unwrap_or_else(|| l.size())
}

/// The screens at `start` and at the end, as SVG, redacted.
fn screens(l: &Loaded, start: Duration) -> (String, String) {
    let (cols, rows) = l.size();
    let mut screen = Screen::new(cols, rows, 0);
    let mut before = None;
    for e in &l.events {
        if before.is_none() && e.at >= start && !start.is_zero() {
            before = Some(screen.cells());
        }
        rec::text::play(&mut screen, e);
    }
    let before = before.unwrap_or_else(|| Screen::new(cols, rows, 0).cells());
    (
        super::shot::redacted_svg(before),
        super::shot::redacted_svg(screen.cells()),
    )
}

/// The commands the range's markers name (`talk by WHO: COMMAND`, then `talk done: exit N in
/// M ms` or `talk failed: CODE`).
pub fn commands(events: &[Timed]) -> Vec<PackCommand> {
    let mut out: Vec<PackCommand> = Vec::new();
    for e in events.iter().filter(|e| e.code == Code::Marker) {
        if let Some(rest) = e.data.strip_prefix("talk by ")
            && let Some((by, command)) = rest.split_once(": ")
        {
            out.push(PackCommand {
                command: command.to_string(),
                by: by.to_string(),
                exit_code: None,
                duration_ms: None,
                at_ms: e.at.as_millis() as u64,
            });
        } else if let Some(done) = e.data.strip_prefix("talk done: ")
            && let Some(last) = out.last_mut()
            && last.duration_ms.is_none()
        {
            let (what, took) = done.rsplit_once(" in ").unwrap_or((done, ""));
            last.exit_code = what.strip_prefix("exit ").and_then(|c| c.parse().ok());
            last.duration_ms = took.strip_suffix(" ms").and_then(|m| m.parse().ok());
        }
    }
    out
}

/// A `talk` with `evidence: true`, watched: the working tree as it stood before the command
/// (to diff against after), then the pack of the talk's range once it answered.
pub struct Witness {
    base: Option<git::Base>,
    made_by: String,
}

impl Witness {
    /// Before the talk into `h`: a session that is not recorded cannot be witnessed.
    pub fn before(ctx: &Ctx, h: &super::handle::Handle) -> Result<Self> {
        let entry = h.entry();
        if !h.is_local() {
            return Err(crate::error::Error::invalid(format!(
                "evidence packs are made from kpty's own recordings: {} is a desktop session",
                entry.session_id
            )));
        }
        rec::locate(ctx, Some(&entry.session_id))?;
        let base = entry
            .cwd
            .as_deref()
            .map(std::path::Path::new)
            .filter(|d| d.is_absolute())
            .and_then(git::base);
        Ok(Self {
            base,
            made_by: ctx.writer(None),
        })
    }

    /// After the talk in `session`: the pack from its `talk by` marker (the last one: a
    /// session runs one talk at a time) to now.
    pub fn after(self, ctx: &Ctx, session: &str) -> Result<EvidenceReply> {
        let found = rec::locate(ctx, Some(session))?;
        let loaded = rec::load(&found)?;
        let start = loaded
            .events
            .iter()
            .rev()
            .find(|e| e.code == Code::Marker && e.data.starts_with("talk by "))
            .map_or(Duration::ZERO, |e| e.at);
        write(
            ctx,
            &Range {
                found: &found,
                loaded: &loaded,
                start,
                note: None,
                made_by: self.made_by,
                base: self.base,
            },
        )
    }
}
