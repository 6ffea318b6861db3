//! A terminal on the test's side: a PTY pair whose slave runs a program (`kpty attach`, a shell
//! wrapping it) as a terminal emulator would, with the master read on its own thread.

use crate::support::{Env, Stream};
use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use std::io::Write;
use std::time::Duration;

/// A program running in a test-side terminal.
pub struct Tty {
    /// What the program wrote to the terminal (`None` for a stalled terminal nobody reads).
    pub out: Option<Stream>,
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    child: Option<Box<dyn Child + Send + Sync>>,
}

impl Tty {
    /// `kpty ARGS` in a `cols`×`rows` terminal, with the test's environment.
    pub fn kpty(env: &Env, args: &[&str], (cols, rows): (u16, u16)) -> Self {
        Self::spawn(env, env!("CARGO_BIN_EXE_kpty"), args, (cols, rows), true)
    }

    /// `PROGRAM ARGS` in a terminal (the test's environment; `kpty` on PATH); with `read`
    /// false nobody reads the terminal, so the program stalls once its output fills it.
    pub fn spawn(
        env: &Env,
        program: &str,
        args: &[&str],
        (cols, rows): (u16, u16),
        read: bool,
    ) -> Self {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let mut cmd = CommandBuilder::new(program);
        cmd.args(args);
        cmd.cwd(env.home());
        let bin = std::path::Path::new(env!("CARGO_BIN_EXE_kpty"))
            .parent()
            .expect("bin dir")
            .to_path_buf();
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
        for (k, v) in [
            ("KPTY_STATE_DIR", env.state().as_os_str()),
            ("KPTY_RUNTIME_DIR", env.runtime().as_os_str()),
            ("HOME", env.home().as_os_str()),
            ("PATH", std::ffi::OsStr::new(&path)),
            ("SHELL", std::ffi::OsStr::new("/bin/bash")),
            ("TERM", std::ffi::OsStr::new("xterm-256color")),
            ("KPTY_LOG", std::ffi::OsStr::new("warn")),
        ] {
            cmd.env(k, v);
        }
        cmd.env_remove("KPTY_SESSION");
        cmd.env_remove("KPTY_DETACH_KEY");
        let child = pair
            .slave
            .spawn_command(cmd)
            .expect("spawn in the terminal");
        drop(pair.slave);
        let out = read.then(|| Stream::new(pair.master.try_clone_reader().expect("reader")));
        let writer = pair.master.take_writer().expect("writer");
        Self {
            out,
            master: pair.master,
            writer,
            child: Some(child),
        }
    }

    /// Start reading a stalled terminal.
    pub fn start_reading(&mut self) {
        if self.out.is_none() {
            self.out = Some(Stream::new(self.master.try_clone_reader().expect("reader")));
        }
    }

    /// Type `bytes`.
    pub fn keys(&mut self, bytes: &[u8]) {
        self.writer
            .write_all(bytes)
            .expect("type into the terminal");
        self.writer.flush().expect("flush");
    }

    /// Wait (10 s at most) until `needle` was shown; fail the test with the screen otherwise.
    pub fn expect(&mut self, needle: &str) {
        let out = self.out.as_mut().expect("a read terminal");
        assert!(
            out.until(needle, Duration::from_secs(10)),
            "{needle:?} never shown; the terminal got: {:?}",
            out.seen
        );
    }

    /// Everything shown so far (what the terminal got by now, without waiting for more).
    pub fn seen(&mut self) -> &str {
        match self.out.as_mut() {
            Some(o) => {
                o.drain();
                o.seen.as_str()
            }
            None => "",
        }
    }

    /// The program's pid.
    pub fn pid(&self) -> u32 {
        self.child
            .as_ref()
            .and_then(|c| c.process_id())
            .expect("a pid")
    }

    /// Change the terminal's size (the program gets SIGWINCH).
    pub fn resize(&self, cols: u16, rows: u16) {
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("resize the terminal");
    }

    /// Wait (15 s at most) for the program to exit; its exit code.
    pub fn exit_code(&mut self) -> u32 {
        let mut child = self.child.take().expect("not waited for yet");
        let (tx, rx) = std::sync::mpsc::channel();
        let mut killer = child.clone_killer();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        match rx.recv_timeout(Duration::from_secs(15)) {
            Ok(Ok(status)) => {
                // What the program wrote last may still be on its way from the terminal:
                // take it all in (the stream ends once nothing holds the terminal's slave).
                if let Some(o) = self.out.as_mut() {
                    o.read_to_end(Duration::from_secs(5));
                }
                status.exit_code()
            }
            other => {
                let _ = killer.kill();
                panic!(
                    "the program did not exit: {other:?}; it showed {:?}",
                    self.seen()
                );
            }
        }
    }
}

impl Drop for Tty {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
        }
    }
}
