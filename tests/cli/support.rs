//! The helper language of the integration tests: an [`Env`] per test (temp state directory,
//! temp HOME with its own `.bashrc`, private socket directory) that runs `kpty` as users do and
//! kills every holder it started when it is dropped, even when the test failed.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// Longest any single `kpty` invocation may take before the test fails instead of hanging.
const COMMAND_DEADLINE: Duration = Duration::from_secs(30);

/// A test's world: state dir, HOME and runtime dir under one temp dir.
pub struct Env {
    /// Root of everything this test writes: `state/`, `home/`, `run/`.
    pub dir: TempDir,
    state: PathBuf,
    home: PathBuf,
    run: PathBuf,
}

impl Env {
    /// An environment whose HOME has an empty `.bashrc`.
    pub fn new() -> Self {
        Self::with_bashrc("")
    }

    /// An environment whose HOME has this `.bashrc`.
    pub fn with_bashrc(text: &str) -> Self {
        let dir = tempfile::Builder::new()
            .prefix("kpty-test")
            .tempdir()
            .expect("create the test's temp dir");
        let state = dir.path().join("state");
        let home = dir.path().join("home");
        let run = dir.path().join("run");
        std::fs::create_dir_all(&home).expect("create the test HOME");
        std::fs::write(home.join(".bashrc"), text).expect("write the test .bashrc");
        Self {
            dir,
            state,
            home,
            run,
        }
    }

    /// The state directory (`KPTY_STATE_DIR`).
    pub fn state(&self) -> &Path {
        &self.state
    }

    /// The private runtime (socket) directory (`KPTY_RUNTIME_DIR`).
    pub fn runtime(&self) -> &Path {
        &self.run
    }

    /// The test HOME, also the working directory of every `kpty` run (so of new sessions).
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// A `kpty` command with the test's environment, not yet run.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_kpty"));
        // Nothing of the caller's kpty (or k_pty) configuration leaks into a test.
        for (name, _) in std::env::vars_os() {
            let n = name.to_string_lossy();
            if n.starts_with("KPTY_") || n.starts_with("KURORYUU_") {
                c.env_remove(&name);
            }
        }
        c.args(args)
            .current_dir(&self.home)
            .env("KPTY_STATE_DIR", &self.state)
            .env("KPTY_RUNTIME_DIR", &self.run)
            .env("HOME", &self.home)
            .env("SHELL", "/bin/bash")
            .env("KPTY_LOG", "warn")
            .env_remove("XDG_STATE_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_RUNTIME_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    /// Run `kpty ARGS`; fails the test if it panicked or hung.
    pub fn kpty(&self, args: &[&str]) -> Output {
        run(self.cmd(args), args)
    }

    /// Run `kpty --json ARGS` and parse stdout, whatever the exit status.
    pub fn json(&self, args: &[&str]) -> Value {
        parse(&self.kpty(&with_json(args)), args)
    }

    /// Run `kpty ARGS`, assert success, return stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.kpty(args);
        assert!(
            out.status.success(),
            "kpty {args:?} failed ({}): {}{}",
            out.status,
            stdout(&out),
            stderr(&out)
        );
        stdout(&out)
    }

    /// Run `kpty --json ARGS`, assert success and `ok: true`, return the JSON.
    pub fn ok_json(&self, args: &[&str]) -> Value {
        let out = self.kpty(&with_json(args));
        let v = parse(&out, args);
        assert!(
            out.status.success() && v["ok"] == true,
            "kpty {args:?} failed ({}): {v}",
            out.status
        );
        v
    }

    /// Run `kpty --json ARGS`, assert it failed with `exit` and `error_code`; return the JSON.
    pub fn fails(&self, args: &[&str], exit: i32, error_code: &str) -> Value {
        let out = self.kpty(&with_json(args));
        let v = parse(&out, args);
        assert_eq!(
            (
                out.status.code(),
                v["ok"].as_bool(),
                v["error_code"].as_str()
            ),
            (Some(exit), Some(false), Some(error_code)),
            "kpty {args:?}: unexpected result {v}"
        );
        v
    }

    /// Create a session (`kpty create EXTRA`) and return its id.
    pub fn create(&self, extra: &[&str]) -> String {
        self.create_with_env(&[], extra)
    }

    /// Create a session with extra environment for `kpty create` itself (e.g.
    /// `KURORYUU_PTY_BUFFER_SIZE`) and return its id.
    pub fn create_with_env(&self, vars: &[(&str, &str)], extra: &[&str]) -> String {
        let args: Vec<&str> = ["--json", "create"].iter().chain(extra).copied().collect();
        let mut c = self.cmd(&args);
        c.envs(vars.iter().copied());
        let out = run(c, &args);
        let v = parse(&out, &args);
        assert!(
            out.status.success(),
            "kpty {args:?} failed ({}): {v}",
            out.status
        );
        v["session_id"]
            .as_str()
            .expect("create's JSON has a session_id")
            .to_string()
    }

    /// `kpty --json talk -s SESSION COMMAND`, asserted to succeed; returns the JSON.
    pub fn talk(&self, session: &str, command: &str) -> Value {
        self.talk_args(&["-s", session, command])
    }

    /// `kpty --json talk ARGS`, asserted to succeed (`ok: true`, and the process exits with
    /// the command's own exit code); returns the JSON.
    pub fn talk_args(&self, args: &[&str]) -> Value {
        let all: Vec<&str> = ["--json", "talk"].iter().chain(args).copied().collect();
        let out = self.kpty(&all);
        let v = parse(&out, &all);
        assert_eq!(v["ok"], true, "kpty {all:?} failed ({}): {v}", out.status);
        let code = v["exit_code"]
            .as_i64()
            .expect("talk's JSON has an exit_code");
        assert_eq!(out.status.code().map(i64::from), Some(code & 0xff), "{v}");
        v
    }

    /// The clean output of `kpty talk -s SESSION COMMAND`.
    pub fn out(&self, session: &str, command: &str) -> String {
        self.talk(session, command)["output"]
            .as_str()
            .expect("talk's JSON has an output")
            .to_string()
    }

    /// Like [`Env::talk`], retrying while the session is `PTY_BUSY` (e.g. a command started
    /// by send-line has printed its output but the shell has not shown its prompt yet).
    pub fn talk_when_free(&self, session: &str, command: &str) -> Value {
        let mut result = Value::Null;
        wait_for(
            10_000,
            &format!("{session} to be free for {command:?}"),
            || {
                let v = self.json(&["talk", "-s", session, command]);
                let busy = v["error_code"] == "PTY_BUSY";
                assert!(busy || v["ok"] == true, "talk {command:?} failed: {v}");
                result = v;
                !busy
            },
        );
        result
    }

    /// `kpty send-line -s SESSION DATA`, asserted to succeed.
    pub fn send_line(&self, session: &str, data: &str) -> Value {
        self.ok_json(&["send-line", "-s", session, data])
    }

    /// `kpty --json read -s SESSION ARGS`, asserted to succeed.
    pub fn read(&self, session: &str, args: &[&str]) -> Value {
        let all: Vec<&str> = ["read", "-s", session]
            .iter()
            .chain(args)
            .copied()
            .collect();
        self.ok_json(&all)
    }

    /// Read from offset `since` until the output so far contains `needle`; returns it.
    pub fn read_until(&self, session: &str, since: u64, needle: &str) -> String {
        let mut text = String::new();
        let mut offset = since;
        wait_for(
            10_000,
            &format!("{needle:?} in the output of {session}"),
            || {
                let v = self.json(&[
                    "read",
                    "-s",
                    session,
                    "--since",
                    &offset.to_string(),
                    "--timeout-ms",
                    "500",
                    "--max-bytes",
                    "1048576",
                ]);
                // A read that outlived its own short deadline (a machine loaded past it) is
                // asked again, within the wait's.
                if v["error_code"] == "PTY_TIMEOUT" {
                    return false;
                }
                assert_eq!(v["ok"], true, "read {session} from {offset}: {v}");
                text.push_str(v["output"].as_str().expect("read's JSON has an output"));
                offset = v["next_offset"].as_u64().expect("read has a next_offset");
                text.contains(needle)
            },
        );
        text
    }

    /// How many times `^C` shows in `session`'s output from offset `since`, and that read.
    pub fn ctrl_c_shown(&self, session: &str, since: u64) -> (usize, Value) {
        let read = self.json(&["read", "-s", session, "--since", &since.to_string()]);
        let n = read["output"]
            .as_str()
            .unwrap_or_default()
            .matches("^C")
            .count();
        (n, read)
    }

    /// The session's entry in `kpty list`.
    pub fn entry(&self, session: &str) -> Value {
        let list = self.ok_json(&["list"]);
        list["sessions"]
            .as_array()
            .expect("list has sessions")
            .iter()
            .find(|s| s["session_id"] == session || s["label"] == session)
            .unwrap_or_else(|| panic!("session {session} is not in the list: {list}"))
            .clone()
    }

    /// The absolute output offset a running session has reached.
    pub fn offset(&self, session: &str) -> u64 {
        self.entry(session)["output_offset"]
            .as_u64()
            .expect("a running session's list entry has output_offset")
    }

    /// `_registry.json`, parsed (`Null` when missing).
    pub fn registry(&self) -> Value {
        match std::fs::read_to_string(self.state.join("_registry.json")) {
            Ok(text) => serde_json::from_str(&text).expect("_registry.json is valid JSON"),
            Err(_) => Value::Null,
        }
    }

    /// Pids of every holder and shell this environment knows of: (holder_pid, shell pid).
    fn pids(&self) -> Vec<(Option<u64>, Option<u64>)> {
        let mut entries = Vec::new();
        let read = |p: &Path| {
            std::fs::read_to_string(p)
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        };
        if let Some(reg) = read(&self.state.join("_registry.json"))
            && let Some(sessions) = reg["sessions"].as_object()
        {
            entries.extend(sessions.values().cloned());
        }
        if let Ok(dirs) = std::fs::read_dir(self.state.join("sessions")) {
            for d in dirs.flatten() {
                entries.extend(read(&d.path().join("metadata.json")));
                // The shells opened beside the session (`kpty shell`): sessions/S/ptys/N/.
                if let Ok(ptys) = std::fs::read_dir(d.path().join("ptys")) {
                    entries.extend(
                        ptys.flatten()
                            .filter_map(|p| read(&p.path().join("metadata.json"))),
                    );
                }
            }
        }
        entries
            .iter()
            .map(|e| (e["holder_pid"].as_u64(), e["pid"].as_u64()))
            .collect()
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        for (holder, shell) in self.pids() {
            if let Some(pid) = shell {
                signal_kill(&format!("-{pid}"));
            }
            if let Some(pid) = holder {
                signal_kill(&pid.to_string());
            }
        }
    }
}

/// SIGKILL a pid (or `-pgid`), ignoring every error.
fn signal_kill(target: &str) {
    let _ = Command::new("kill")
        .args(["-9", "--", target])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// SIGKILL one process (e.g. a holder, to simulate a crash).
pub fn kill_9(pid: u64) {
    let st = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(st.success(), "kill -9 {pid} failed");
}

/// Run a prepared `kpty` command with a deadline; asserts it did not panic.
pub fn run(cmd: Command, args: &[&str]) -> Output {
    let out = wait_child(spawn(cmd), args);
    assert!(
        !stderr(&out).contains("panicked"),
        "kpty {args:?} panicked: {}",
        stderr(&out)
    );
    out
}

/// Start a prepared command.
pub fn spawn(mut cmd: Command) -> Child {
    cmd.spawn().expect("start kpty")
}

/// Wait for a started `kpty` for at most [`COMMAND_DEADLINE`]: a hang fails the test.
pub fn wait_child(child: Child, args: &[&str]) -> Output {
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(COMMAND_DEADLINE) {
        Ok(out) => out.expect("wait for kpty"),
        Err(_) => {
            signal_kill(&pid.to_string());
            panic!("kpty {args:?} hung for {COMMAND_DEADLINE:?}");
        }
    }
}

/// Parse a `--json` run's stdout.
pub fn parse(out: &Output, args: &[&str]) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "kpty {args:?} printed no JSON ({e}); status {}, stdout {:?}, stderr {:?}",
            out.status,
            stdout(out),
            stderr(out)
        )
    })
}

fn with_json<'a>(args: &[&'a str]) -> Vec<&'a str> {
    std::iter::once("--json")
        .chain(args.iter().copied())
        .collect()
}

/// A run's stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A run's stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A JSON string field, or a test failure naming it.
pub fn s<'a>(v: &'a Value, field: &str) -> &'a str {
    v[field]
        .as_str()
        .unwrap_or_else(|| panic!("{field:?} is not a string in {v}"))
}

/// Re-check `cond` until it holds; fail the test after `deadline_ms`. `cond` should itself
/// wait on an event (e.g. `kpty read --timeout-ms`); the short pause between checks only keeps
/// conditions that cannot block from spinning on a small machine.
pub fn wait_for(deadline_ms: u64, what: &str, cond: impl FnMut() -> bool) {
    assert!(
        holds_within(deadline_ms, cond),
        "gave up after {deadline_ms} ms waiting for {what}"
    );
}

/// [`wait_for`] that says whether `cond` came to hold within `deadline_ms`, for a test that
/// gathers what went wrong itself.
pub fn holds_within(deadline_ms: u64, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_millis(deadline_ms);
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// True when no live process has this pid (a zombie counts as gone) — every thread of it:
/// a killed process's first thread shows as a zombie while the others still exit, and its
/// files (sockets) are closed only once the last one has.
pub fn pid_gone(pid: u64) -> bool {
    let dead = |stat: &str| {
        // The state follows the parenthesised command name.
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X']))
    };
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return true;
    };
    if !dead(&stat) {
        return false;
    }
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return true;
    };
    tasks
        .flatten()
        .all(|t| std::fs::read_to_string(t.path().join("stat")).map_or(true, |s| dead(&s)))
}

/// Keys whose values differ from run to run (ids, times, pids, offsets, sentinels, and the
/// cursor, which depends on whether the prompt was drawn yet).
pub const VOLATILE: &[&str] = &[
    "session_id",
    "created_at",
    "last_heartbeat",
    "pid",
    "holder_pid",
    "duration_ms",
    "start_offset",
    "end_offset",
    "next_offset",
    "output_offset",
    "sentinel",
    "raw_output",
    "bytes_read",
    "col",
    "line",
];

/// `v` with the values of `keys` (at any depth) replaced by `with(key, value)`: keeps a JSON
/// shape comparable across runs (ids, times, pids, offsets).
pub fn mask(v: &Value, keys: &[&str], with: &dyn Fn(&str, &Value) -> Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    let nx = if keys.contains(&k.as_str())
                        && !x.is_object()
                        && !x.is_array()
                        && !x.is_null()
                    {
                        with(k, x)
                    } else {
                        mask(x, keys, with)
                    };
                    (k.clone(), nx)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| mask(x, keys, with)).collect()),
        other => other.clone(),
    }
}

/// Secrets of every redaction category, one line each as a program would print them, and the
/// part of each that must never reach an agent channel.
pub fn secret_lines() -> Vec<(String, String)> {
    let v = |line: &str, secret: &str| (line.to_string(), secret.to_string());
    vec![
        v(
            "ghp_R4nd0mGitHubT0kenAbCdEfGhIjKlMnOpQr",
            "R4nd0mGitHubT0ken",
        ),
        v("gho_0Auth0TokenXyZ0123456789abcdefGHIJKL", "0Auth0TokenXyZ"),
        v(
            "github_pat_11ABCDEFG0123456789_fineGrainedPatValue42",
            "fineGrainedPatValue42",
        ),
        v(
            "sk-ant-api03-AnthropicKeyValue_0123456789-abcdefXYZ",
            "AnthropicKeyValue",
        ),
        v("sk-proj-OpenAiKeyValue0123456789abcdef", "OpenAiKeyValue"),
        v("id AKIAQWERTYUIOPASDFGH", "QWERTYUIOPASDFGH"),
        v(
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzSECRETz",
            "wJalrXUtnFEMI",
        ),
        v(
            "export GITHUB_TOKEN=exportedTokenValue123",
            "exportedTokenValue123",
        ),
        v("DB_PASSWORD=dbPassw0rdValue", "dbPassw0rdValue"),
        v("APP_SECRET=appS3cretValue", "appS3cretValue"),
        v("password: plainPasswordValue9", "plainPasswordValue9"),
        v(
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJqd3RTdWJqZWN0In0.jwtSignatureValue0123456789",
            "jwtSignatureValue",
        ),
        v(
            "xoxb-1234567890-SlackBotTokenValue0123",
            "SlackBotTokenValue",
        ),
        v(
            "AIzaSyGoogleApiKeyValue0123456789abcdefg",
            "GoogleApiKeyValue",
        ),
        v("npm_NpmTokenValue0123456789abcdefghijklmn", "NpmTokenValue"),
        v(
            "psql postgres://app:pgUrlPassw0rd@db:5432/app",
            "pgUrlPassw0rd",
        ),
        v(
            "Authorization: Bearer bearerTokenValue0123456789",
            "bearerTokenValue",
        ),
    ]
}

/// A private key in PEM form with `n` distinct body lines (64 characters each).
pub fn private_key(n: usize) -> (String, Vec<String>) {
    let body: Vec<String> = (0..n)
        .map(|i| {
            let line = format!("K{i:02}bodyLine{}", "AbCdEfGh0123456789+/".repeat(4));
            line[..64].to_string()
        })
        .collect();
    let pem = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n",
        body.join("\n")
    );
    (pem, body)
}

/// The secret values from [`secret_lines`] and the key body lines found in `text`.
pub fn leaked(text: &str, body: &[String]) -> Vec<String> {
    let mut out: Vec<String> = secret_lines()
        .into_iter()
        .map(|(_, s)| s)
        .filter(|s| text.contains(s.as_str()))
        .collect();
    out.extend(
        body.iter()
            // Any 12-character piece of a body line (windows may cut lines).
            .flat_map(|l| (0..=l.len() - 12).step_by(6).map(move |i| &l[i..i + 12]))
            .filter(|p| text.contains(p))
            .map(str::to_string),
    );
    if text.contains("END RSA PRIVATE KEY") {
        out.push("END RSA PRIVATE KEY".into());
    }
    out
}

/// A byte stream (a child's stdout, a PTY master) read on its own thread, so a test can wait
/// for text in it with a deadline.
pub struct Stream {
    rx: mpsc::Receiver<Vec<u8>>,
    /// The start of a UTF-8 character whose rest has not been read yet.
    carry: Vec<u8>,
    /// Everything read so far, as text.
    pub seen: String,
}

impl Stream {
    /// Start reading `reader`.
    pub fn new(mut reader: impl std::io::Read + Send + 'static) -> Self {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                let n = match reader.read(&mut buf) {
                    Ok(n) => n,
                    // A signal is not the end of the stream.
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Self {
            rx,
            carry: Vec::new(),
            seen: String::new(),
        }
    }

    /// Add `bytes` to what was seen; a character cut between two reads is kept whole.
    fn take(&mut self, bytes: &[u8]) {
        self.carry.extend_from_slice(bytes);
        let whole = match std::str::from_utf8(&self.carry) {
            Ok(_) => self.carry.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => self.carry.len(),
        };
        let rest = self.carry.split_off(whole);
        self.seen.push_str(&String::from_utf8_lossy(&self.carry));
        self.carry = rest;
    }

    /// Take in whatever has been read by now, without waiting.
    pub fn drain(&mut self) {
        while let Ok(b) = self.rx.try_recv() {
            self.take(&b);
        }
    }

    /// Take in everything until the stream ends (its writer closed), or `within` passed.
    pub fn read_to_end(&mut self, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(b) => self.take(&b),
                Err(_) => return,
            }
        }
    }

    /// Wait until what was read contains `needle`; `false` when `within` passed first (or
    /// the stream ended).
    pub fn until(&mut self, needle: &str, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        while !self.seen.contains(needle) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(b) => self.take(&b),
                Err(_) => return false,
            }
        }
        true
    }
}

/// The shells kpty knows that are installed here (bash, sh, zsh, fish); a missing one is
/// [`skip`]ped — a failure in CI.
pub fn shells() -> Vec<&'static str> {
    ["/bin/bash", "/bin/sh", "zsh", "fish"]
        .into_iter()
        .filter(|sh| {
            let there = Command::new(sh)
                .args(["-c", "exit 0"])
                .status()
                .is_ok_and(|st| st.success());
            if !there {
                skip(&format!("{sh} is not installed (Debian package: {sh})"));
            }
            there
        })
        .collect()
}

/// A test that cannot run here (a tool, root or a kernel feature is missing) says why and
/// passes — except in CI (`CI` set), where `.ci/run` installs what the tests need, so the
/// same absence fails the test with `why`.
pub fn skip(why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must run this test: {why}"
    );
    eprintln!("skipped: {why}");
}

/// One HTTP request's body (headers read up to Content-Length).
pub fn read_request(conn: &mut std::net::TcpStream) -> Option<String> {
    use std::io::{BufRead, BufReader, Read};
    conn.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    let mut reader = BufReader::new(conn.try_clone().ok()?);
    let mut len = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().ok()?;
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some(String::from_utf8_lossy(&body).into_owned())
}
