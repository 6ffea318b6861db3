//! Reading the audit trail back (`kpty log`): every session's `events.jsonl` plus the
//! traffic lines of `_registry_events.jsonl`, filtered and in time order.

use super::Ctx;
use super::traffic::Event;
use crate::error::{Error, ErrorCode, Result};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// What to show.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only this session id.
    pub session: Option<String>,
    /// Only events by (or routed to) this agent.
    pub agent: Option<String>,
    /// Only this action.
    pub action: Option<String>,
    /// Only failures.
    pub errors_only: bool,
    /// Only blocked commands.
    pub blocked_only: bool,
    /// Only events at or after this RFC 3339 time.
    pub since: Option<jiff::Timestamp>,
}

impl Filter {
    /// True when `e` passes.
    pub fn matches(&self, e: &Event) -> bool {
        if !e.is_traffic() {
            return false; // lifecycle lines (session_created …) are not traffic
        }
        let differs = |want: &Option<String>, got: &Option<String>| {
            want.as_deref().is_some_and(|w| got.as_deref() != Some(w))
        };
        if differs(&self.session, &e.session_id)
            || differs(&self.agent, &e.agent_id)
            || differs(&self.action, &e.action)
        {
            return false;
        }
        if self.errors_only && e.success != Some(false) {
            return false;
        }
        if self.blocked_only && e.blocked != Some(true) {
            return false;
        }
        if let Some(since) = self.since {
            match e
                .ts
                .as_deref()
                .and_then(|t| t.parse::<jiff::Timestamp>().ok())
            {
                Some(t) if t >= since => {}
                _ => return false,
            }
        }
        true
    }
}

/// The session id `reference` names, for filtering the trail: a session kpty knows, resolved
/// as every command resolves it (id, unique id prefix, or label); else one only the trail
/// remembers (ended and forgotten): its exact id, the label it had, or a unique id prefix.
pub fn session_of(ctx: &Ctx, reference: &str) -> Result<String> {
    let unknown = match super::sessions::resolve(ctx, reference) {
        Ok(e) => return Ok(e.into_entry().session_id),
        Err(e)
            if matches!(
                e.code,
                ErrorCode::PtySessionNotFound | ErrorCode::InvalidParams
            ) =>
        {
            e
        }
        Err(e) => return Err(e),
    };
    let recorded = recorded(ctx)?;
    if recorded.contains_key(reference) {
        return Ok(reference.to_string());
    }
    let labelled: Vec<&String> = recorded
        .iter()
        .filter(|(_, labels)| labels.iter().any(|l| l == reference))
        .map(|(id, _)| id)
        .collect();
    let prefixed: Vec<&String> = recorded
        .keys()
        .filter(|id| reference.len() >= 3 && id.starts_with(reference))
        .collect();
    let found = if labelled.is_empty() {
        prefixed
    } else {
        labelled
    };
    match found.as_slice() {
        [] => Err(unknown),
        [one] => Ok(one.to_string()),
        many => Err(Error::new(
            ErrorCode::Ambiguous,
            format!(
                "{reference:?} matches {} sessions in the audit trail; use the full session id",
                many.len()
            ),
        )
        .with_details(crate::error::details::Matches {
            matches: many
                .iter()
                .map(|id| {
                    crate::error::details::Match::Id(crate::error::details::IdMatch {
                        session_id: id.to_string(),
                    })
                })
                .collect(),
            query: None,
        })),
    }
}

/// Every session id the trail recorded, with the labels it had (the files streamed).
fn recorded(ctx: &Ctx) -> Result<BTreeMap<String, Vec<String>>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in files(ctx, None)? {
        let Some(mut j) = Journal::open(&p, 0)? else {
            continue;
        };
        while let Some(e) = j.next_event()? {
            // Traffic lines only: an `intent` line names the session as it was asked for.
            let Some(id) = e.session_id.filter(|_| e.action.is_some()) else {
                continue;
            };
            let labels = out.entry(id).or_default();
            if let Some(l) = e.label
                && !labels.contains(&l)
                && labels.len() < MAX_LABELS
            {
                labels.push(l);
            }
        }
    }
    Ok(out)
}

/// Most labels remembered per session id while looking one up.
const MAX_LABELS: usize = 64;

/// The files that hold traffic events: `_registry_events.jsonl` and each session's
/// `events.jsonl` (all of them, or `session`'s). A session folder or journal kpty would not
/// trust (a link, a FIFO, someone else's) is a `STATE_ERROR`: an auditor is never told
/// "nothing happened" about a trail that cannot be read.
pub fn files(ctx: &Ctx, session: Option<&str>) -> Result<Vec<PathBuf>> {
    ctx.state.check_top()?;
    let mut out = vec![ctx.state.registry_events()];
    let dir = ctx.state.path().join("sessions");
    let rd = match std::fs::read_dir(&dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(Error::state(&dir, e)),
    };
    for e in rd {
        let e = e.map_err(|err| Error::state(&dir, err))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if session.is_none_or(|s| s == name) {
            let p = e.path().join("events.jsonl");
            ctx.state.verify(&p)?;
            out.push(p);
        }
    }
    Ok(out)
}

/// One journal's chain, checked (`store::chain`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Verified {
    /// The journal, relative to the state directory.
    pub journal: String,
    /// What was found.
    #[serde(flatten)]
    pub checked: crate::store::chain::Checked,
}

/// Check the chain of every journal of the trail (or `session`'s); `seals` says whether
/// seals could be checked (this user has a key).
pub fn verify(ctx: &Ctx, session: Option<&str>) -> Result<(Vec<Verified>, bool)> {
    let checker = crate::store::trust::journal_checker();
    let seals = checker.is_some();
    let check: Option<crate::store::chain::SealCheck<'_>> = match &checker {
        Some(c) => Some(c),
        None => None,
    };
    let mut out = Vec::new();
    for path in files(ctx, session)? {
        let Some(f) = crate::store::secure::open_read(&path)? else {
            continue;
        };
        let checked = crate::store::chain::check(std::io::BufReader::new(f), check)
            .map_err(|e| Error::state(&path, e))?;
        let journal = path
            .strip_prefix(ctx.state.path())
            .unwrap_or(&path)
            .display()
            .to_string();
        out.push(Verified { journal, checked });
    }
    Ok((out, seals))
}

/// The longest line kpty reads from a journal (its own lines are ~25 KB at most); a longer
/// one is skipped whole, so one huge line costs no memory.
const MAX_LINE: usize = 1 << 20;

/// One journal, read line by line from an offset (bounded memory, whatever its size).
pub struct Journal {
    reader: std::io::BufReader<std::fs::File>,
    path: PathBuf,
    /// Where the next unread line starts.
    offset: u64,
}

impl Journal {
    /// Open `path` (never through a link, only a regular file of ours) at byte `from` (a file
    /// that shrank below it is read from its start); `None` when it does not exist.
    pub fn open(path: &Path, from: u64) -> Result<Option<Self>> {
        use std::io::{Seek, SeekFrom};
        let Some(mut f) = crate::store::secure::open_read(path)? else {
            return Ok(None);
        };
        let len = f.metadata().map_err(|e| Error::state(path, e))?.len();
        let from = if len < from { 0 } else { from };
        f.seek(SeekFrom::Start(from))
            .map_err(|e| Error::state(path, e))?;
        Ok(Some(Self {
            reader: std::io::BufReader::new(f),
            path: path.to_path_buf(),
            offset: from,
        }))
    }

    /// The next complete event (lines that are not JSON objects, or too long, are skipped;
    /// a torn last line is left for later); `None` at the end.
    fn next_event(&mut self) -> Result<Option<Event>> {
        use std::io::{BufRead, Read};
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = (&mut self.reader)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut line)
                .map_err(|e| Error::state(&self.path, e))?;
            if n == 0 {
                return Ok(None);
            }
            if !line.ends_with(b"\n") {
                if n <= MAX_LINE {
                    // A torn last line: not consumed, read again once it is whole.
                    return Ok(None);
                }
                self.offset += n as u64 + self.skip_line()?;
                continue;
            }
            self.offset += n as u64;
            if let Some(e) = Event::from_line(&line) {
                return Ok(Some(e));
            }
        }
    }

    /// Skip to the end of an overlong line; the bytes skipped.
    fn skip_line(&mut self) -> Result<u64> {
        use std::io::BufRead;
        let mut skipped = 0u64;
        loop {
            let buf = self
                .reader
                .fill_buf()
                .map_err(|e| Error::state(&self.path, e))?;
            if buf.is_empty() {
                return Ok(skipped);
            }
            let (used, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            self.reader.consume(used);
            skipped += used as u64;
            if done {
                return Ok(skipped);
            }
        }
    }
}

/// The complete events appended to `path` from byte `from` on, and the offset to read
/// from next time (a file that shrank is read again from its start; a torn last line waits
/// for its end).
fn read_from(path: &Path, from: u64) -> Result<(Vec<Event>, u64)> {
    let Some(mut j) = Journal::open(path, from)? else {
        return Ok((Vec::new(), from));
    };
    let mut events = Vec::new();
    while let Some(e) = j.next_event()? {
        events.push(e);
    }
    Ok((events, j.offset))
}

/// Every matching event handed to `show`, oldest first — each journal streamed and merged
/// by time, one event per journal in memory. With each file read, the offset its next new
/// event will start at (for following).
pub fn query(ctx: &Ctx, f: &Filter, show: &mut dyn FnMut(&Event)) -> Result<HashMap<PathBuf, u64>> {
    let mut heads: Vec<(Journal, Event)> = Vec::new();
    let mut offsets = HashMap::new();
    for p in files(ctx, f.session.as_deref())? {
        if let Some(mut j) = Journal::open(&p, 0)? {
            match next_matching(&mut j, f)? {
                Some(e) => heads.push((j, e)),
                None => {
                    offsets.insert(p, j.offset);
                }
            }
        } else {
            offsets.insert(p, 0);
        }
    }
    while let Some(i) = oldest(&heads) {
        show(&heads[i].1);
        match next_matching(&mut heads[i].0, f)? {
            Some(e) => heads[i].1 = e,
            None => {
                let (j, _) = heads.swap_remove(i);
                offsets.insert(j.path, j.offset);
            }
        }
    }
    Ok(offsets)
}

/// The journal's next event that passes `f`.
fn next_matching(j: &mut Journal, f: &Filter) -> Result<Option<Event>> {
    while let Some(e) = j.next_event()? {
        if f.matches(&e) {
            return Ok(Some(e));
        }
    }
    Ok(None)
}

/// The index of the head with the earliest `ts` (events without one first).
fn oldest(heads: &[(Journal, Event)]) -> Option<usize> {
    (0..heads.len()).min_by(|&a, &b| heads[a].1.ts.cmp(&heads[b].1.ts))
}

/// The events matching `f`, then (with `follow`) every matching event appended later, each
/// handed to `show` as it arrives; a follow never returns. New events are noticed through
/// inotify on the state directory, `sessions/` and each session directory (re-added as
/// sessions appear), with a slow re-check every few seconds for filesystems that do not
/// report changes.
pub fn follow(ctx: &Ctx, f: &Filter, follow: bool, show: &mut dyn FnMut(&Event)) -> Result<()> {
    let covers = covers(ctx, f.session.as_deref())?;
    let mut show = |e: &Event| match covered(&covers, e) {
        Some(id) => show(&Event {
            evidence_id: Some(id),
            ..e.clone()
        }),
        None => show(e),
    };
    let show = &mut show;
    let mut seen = query(ctx, f, show)?;
    if !follow {
        return Ok(());
    }
    let mut watcher = crate::store::watch::Watcher::new();
    loop {
        watcher.watch(ctx.state.path());
        watcher.watch(&ctx.state.path().join("sessions"));
        let files = files(ctx, f.session.as_deref())?;
        for p in &files {
            if let Some(dir) = p.parent() {
                watcher.watch(dir);
            }
        }
        for p in files {
            let from = seen.get(&p).copied().unwrap_or(0);
            let (events, next) = read_from(&p, from)?;
            seen.insert(p, next);
            for e in events.iter().filter(|e| f.matches(e)) {
                show(e);
            }
        }
        watcher.wait(std::time::Instant::now() + std::time::Duration::from_secs(5));
    }
}

/// An evidence pack's range, as the trail recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cover {
    session: String,
    from: String,
    to: String,
    id: String,
}

/// Every pack's range the journals recorded (lines naming an `evidence_id` with a range).
fn covers(ctx: &Ctx, session: Option<&str>) -> Result<Vec<Cover>> {
    let mut out = Vec::new();
    for p in files(ctx, session)? {
        let Some(f) = crate::store::secure::open_read(&p)? else {
            continue;
        };
        use std::io::BufRead;
        for line in std::io::BufReader::new(f).lines().map_while(|l| l.ok()) {
            if !line.contains("\"covers_from\"") {
                continue;
            }
            let Ok(e) = serde_json::from_str::<Event>(&line) else {
                continue;
            };
            if let (Some(session), Some(from), Some(to), Some(id)) =
                (e.session_id, e.covers_from, e.covers_to, e.evidence_id)
            {
                out.push(Cover {
                    session,
                    from,
                    to,
                    id,
                });
            }
        }
    }
    Ok(out)
}

/// The pack that covers `e` (its session, its time within the range), when `e` names none.
fn covered(covers: &[Cover], e: &Event) -> Option<String> {
    if e.evidence_id.is_some() {
        return None;
    }
    let (session, ts) = (e.session_id.as_deref()?, e.ts.as_deref()?);
    covers
        .iter()
        .rev()
        .find(|c| c.session == session && c.from.as_str() <= ts && ts <= c.to.as_str())
        .map(|c| c.id.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::Strategy as _;

    proptest::proptest! {
        #[test]
        fn any_journal_reads_whole_lines_only_and_never_panics(
            lines in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::collection::vec(proptest::num::u8::ANY, 0..64),
                    "[a-z]{0,8}".prop_map(|t| format!("{{\"action\":\"{t}\"}}").into_bytes()),
                ],
                0..20,
            ),
            torn in proptest::collection::vec(proptest::num::u8::ANY, 0..16),
        ) {
            let t = tempfile::tempdir().unwrap();
            let p = t.path().join("events.jsonl");
            let mut bytes = Vec::new();
            let mut objects = 0;
            for l in &lines {
                let l: Vec<u8> = l.iter().copied().filter(|b| *b != b'\n').collect();
                if matches!(serde_json::from_slice::<serde_json::Value>(&l), Ok(serde_json::Value::Object(_))) {
                    objects += 1;
                }
                bytes.extend_from_slice(&l);
                bytes.push(b'\n');
            }
            let whole = bytes.len() as u64;
            let torn: Vec<u8> = torn.into_iter().filter(|b| *b != b'\n').collect();
            bytes.extend_from_slice(&torn);
            std::fs::write(&p, &bytes).unwrap();
            let (events, next) = read_from(&p, 0).unwrap();
            proptest::prop_assert_eq!(events.len(), objects);
            proptest::prop_assert_eq!(next, whole);
        }
    }
}
