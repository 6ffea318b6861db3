//! A cancelled talk's Ctrl-C, sent again when it reached no command. The terminal sends
//! SIGINT to its foreground process group of the moment, and that can be another group than
//! the command's: the shell's own, while it is still handing the terminal to the command it
//! just started (between its fork and the command taking the terminal); or a command that
//! ignores SIGINT and ends on its own, after which the command line goes on to its next
//! command. Either way the command left running was never interrupted, and the session
//! stays busy for as long as it runs. So after a cancel's Ctrl-C the holder watches, until
//! a prompt shows the command line is over (or [`FOLLOW`] has passed): a process group in
//! front of the terminal at two looks running that is neither the one the Ctrl-C went to
//! nor the shell's is sent SIGINT — that group alone, never the shell (a second Ctrl-C
//! typed could reach the shell, which then eats the next line typed). The group the Ctrl-C
//! went to is signalled again only when its leader runs another program since: a command
//! the shell had forked but not yet started took the signal in the shell's code, and its
//! program started without it (a program that caught the Ctrl-C is left to it). Which group
//! is in front has no event of its own: it is looked at on every state change and at
//! growing intervals between them.

use super::session::Shared;
use crate::error::Result;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long after a cancel's Ctrl-C the holder watches for a command it did not reach (the
/// next talk waits as long for the prompt the interrupt brings).
pub(super) const FOLLOW: Duration = Duration::from_secs(3);
/// The first look at the foreground group; each later one waits twice as long, up to
/// [`MOST_BETWEEN`].
const FIRST_LOOK: Duration = Duration::from_millis(20);
const MOST_BETWEEN: Duration = Duration::from_millis(250);

impl Shared {
    /// The terminal's foreground process group (its leader's pid), when it has one.
    pub(super) fn foreground_group(&self) -> Option<i32> {
        self.master
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .process_group_leader()
            .filter(|g| *g > 0)
    }

    /// Type Ctrl-C into the terminal for a cancel (recorded as its input). A Ctrl-C the
    /// input filter debounces is no failure: the talk is cancelled all the same.
    pub(super) fn type_interrupt(&self) -> Result<()> {
        let mut typing = self.lock_typing();
        self.record_input(b"\x03", "a cancel request");
        match self.write_remote(b"\x03") {
            Err(e) if e.code != crate::error::ErrorCode::InputBlocked => Err(e),
            _ => {
                typing.record("\x03");
                Ok(())
            }
        }
    }
}

/// The foreground group a Ctrl-C goes to, and the program its leader runs then.
pub(super) struct Target {
    group: Option<i32>,
    image: Option<Vec<u8>>,
}

impl Target {
    /// The terminal's foreground group now.
    pub(super) fn now(shared: &Shared) -> Self {
        Self::of(shared.foreground_group())
    }

    fn of(group: Option<i32>) -> Self {
        Self {
            group,
            image: group.and_then(image),
        }
    }

    /// Whether `group`, in front now, is one the Ctrl-C did not reach: another group, or
    /// this one with its leader running another program since.
    fn missed(&self, group: i32) -> bool {
        if self.group != Some(group) {
            return true;
        }
        match (&self.image, image(group)) {
            (Some(then), Some(now)) => *then != now,
            _ => false,
        }
    }
}

/// The program process `pid` runs: its command line (at most 4 KiB of it), `None` when it
/// cannot be told — gone, or a zombie (whose command line reads empty): a leader that ended
/// is no program started since.
fn image(pid: i32) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::new();
    std::fs::File::open(format!("/proc/{pid}/cmdline"))
        .and_then(|f| f.take(4096).read_to_end(&mut out))
        .ok()?;
    (!out.is_empty()).then_some(out)
}

/// Watch, on a thread of its own, for a command the Ctrl-C just typed (to `sent_to`, found
/// before it was typed) did not reach, and interrupt it too.
pub(super) fn follow(shared: &Arc<Shared>, sent_to: Target) {
    let shared = Arc::clone(shared);
    let started = std::thread::Builder::new()
        .name("kpty-interrupt".into())
        .spawn(move || watch(&shared, sent_to, Instant::now() + FOLLOW));
    if let Err(e) = started {
        tracing::warn!("cannot watch a cancelled talk's interrupt: {e}");
    }
}

/// [`follow`]'s watch, until the interrupt is over (a prompt, the shell's end) or `deadline`.
fn watch(shared: &Shared, mut sent_to: Target, deadline: Instant) {
    let pending = |st: &super::session::State| st.talk.interrupt_pending() && st.exit.is_none();
    let shell = i32::try_from(shared.pid()).ok();
    // A group the Ctrl-C did not go to, in front at the last look.
    let mut seen = None;
    let mut gap = FIRST_LOOK;
    loop {
        let st = shared.lock();
        if !pending(&st) {
            return;
        }
        let (st, _) = shared.wait_on(&shared.events, st, (Instant::now() + gap).min(deadline));
        let over = !pending(&st);
        drop(st);
        if over || Instant::now() >= deadline {
            return;
        }
        gap = (gap * 2).min(MOST_BETWEEN);
        let missed = shared
            .foreground_group()
            .filter(|g| Some(*g) != shell && sent_to.missed(*g));
        if missed.is_none() || missed != seen {
            seen = missed;
            continue;
        }
        seen = None;
        // Still in front, looked at last (a group gone by now is not signalled).
        let Some(group) = missed.filter(|g| shared.foreground_group() == Some(*g)) else {
            continue;
        };
        let Some(pid) = rustix::process::Pid::from_raw(group) else {
            continue;
        };
        match rustix::process::kill_process_group(pid, rustix::process::Signal::INT) {
            Ok(()) => {
                tracing::info!(
                    "a cancelled talk's Ctrl-C missed the command in front: SIGINT sent to it"
                );
                sent_to = Target::of(Some(group));
            }
            Err(e) => tracing::debug!("the command a cancel missed could not be signalled: {e}"),
        }
    }
}
