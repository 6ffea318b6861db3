//! The shell's state the policy judges a line in ([`crate::safety::policy::context`]): set up
//! when the shell starts (its directory and home), observed before every write (the real
//! directory from `/proc/<pid>/cwd`, whether the shell has caught up with what was typed,
//! whether another program holds the terminal), and reset when a program is started again.

use super::session::Shared;
use super::shell::Integration;
use crate::safety::Typing;
use std::path::Path;

impl Shared {
    /// The shell started in `cwd` with `home` and the environment `env` (what the holder
    /// inherited, then the session's `--env`): the state its first line runs in.
    pub(super) fn start_context(
        &self,
        cwd: &Path,
        home: Option<&str>,
        env: &std::collections::BTreeMap<String, String>,
    ) {
        let mut typing = self.lock_typing();
        typing.set_canonical_shell(!self.line_editor);
        let ctx = typing.context_mut();
        *ctx = crate::safety::policy::context::ShellContext::new(cwd.to_str());
        ctx.set_home(home);
        let inherited = std::env::vars().filter(|(k, _)| !env.contains_key(k));
        for (k, v) in inherited.chain(env.iter().map(|(k, v)| (k.clone(), v.clone()))) {
            ctx.set_env(&k, &v);
        }
    }

    /// A program was started again: a new process, nothing of the old one's state.
    pub(super) fn reset_context(&self) {
        let mut typing = self.lock_typing();
        let home = typing.context().home().map(str::to_string);
        let ctx = typing.context_mut();
        *ctx = crate::safety::policy::context::ShellContext::new(None);
        ctx.set_home(home.as_deref());
        drop(typing);
        self.observe_shell(&mut self.lock_typing());
    }

    /// Before a write is judged: where the shell really is, whether it has run every line
    /// typed so far (its prompt came back after the last input, with shell integration),
    /// and whether another program holds the terminal.
    pub(super) fn observe_shell(&self, typing: &mut Typing) {
        let busy = self.foreground_other().is_some();
        let settled = {
            let st = self.lock();
            !busy
                && st.integration == Integration::Osc133
                && st.at_prompt
                && st.prompt_at.is_some_and(|p| p >= st.last_input)
        };
        typing.set_busy(busy);
        let cwd = own_child_cwd(self.pid());
        match &cwd {
            Some(cwd) => typing.context_mut().observe_cwd(cwd, settled),
            // No /proc (macOS): the prompt still says an unfinished line was finished.
            None if settled => typing.context_mut().interrupt(),
            None => {}
        }
        // (Not the variables: their values may be secrets.)
        tracing::debug!(busy, settled, ?cwd, "shell observed");
    }
}

/// The working directory of `pid`, when it is this holder's own child (the pid was never read
/// from a file: it is the one this process spawned; its parent is checked all the same, so
/// a recycled pid is not read).
fn own_child_cwd(pid: u32) -> Option<String> {
    if pid == 0 {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses; the last `)` ends it.
    let after = &stat[stat.rfind(')')? + 1..];
    let ppid: u32 = after.split_whitespace().nth(1)?.parse().ok()?;
    if ppid != std::process::id() {
        return None;
    }
    let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok()?;
    cwd.to_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_child_of_this_process_is_read() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .current_dir("/")
            .spawn()
            .expect("sleep");
        let pid = child.id();
        let seen = own_child_cwd(pid);
        let _ = child.kill();
        let _ = child.wait();
        if Path::new("/proc/self/stat").exists() {
            assert_eq!(seen.as_deref(), Some("/"));
            // pid 1 is nobody's child of ours.
            assert_eq!(own_child_cwd(1), None);
        }
        assert_eq!(own_child_cwd(0), None);
    }
}
