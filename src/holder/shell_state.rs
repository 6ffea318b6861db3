//! The shell's state the policy judges a line in ([`crate::safety::policy::context`]): set up
//! when the shell starts (its directory and home), observed before every write (the real
//! directory from `/proc/<pid>/cwd`, whether the shell has caught up with what was typed,
//! whether another program holds the terminal), and reset when a program is started again.

use super::proc_dir::ProcDir;
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
                && st.prompt_since(st.last_input)
        };
        typing.set_busy(busy);
        let cwd = self.own_child_cwd();
        match &cwd {
            Some(cwd) => typing.context_mut().observe_cwd(cwd, settled),
            // No /proc (macOS): the prompt still says an unfinished line was finished.
            None if settled => typing.context_mut().interrupt(),
            None => {}
        }
        // (Not the variables: their values may be secrets.)
        tracing::debug!(busy, settled, ?cwd, "shell observed");
    }

    /// The working directory of the shell: read through its `/proc` folder, opened the first
    /// time and kept while the pid stays the same (a restarted program gets a new one).
    fn own_child_cwd(&self) -> Option<String> {
        let pid = self.pid();
        let mut dir = self.proc_dir.lock().unwrap_or_else(|p| p.into_inner());
        if dir.as_ref().is_none_or(|d| d.pid() != pid) {
            *dir = ProcDir::open(pid);
        }
        dir.as_ref()?.cwd()
    }
}
