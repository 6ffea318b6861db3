//! Sessions on another machine over a real OpenSSH: each test starts `sshd` on 127.0.0.1 and
//! a free port with a host key and an authorized key made for it, and points kpty at it with
//! `KPTY_SSH_COMMAND=ssh -F CONFIG` (strict host-key checking, the generated known_hosts).
//! Covered: talk and persistence across calls, the first-use install and
//! `KPTY_REMOTE_INSTALL=0` (on a server whose logins get a home of their own), the local audit
//! entry, an unreachable port and a changed host key (`HOST_UNREACHABLE`, never bypassed), a
//! connection killed mid-talk (the remote session lives on), `list --all-hosts` with a dead
//! host, MCP's `host`, attach through ssh in a test-side terminal, the host's channel (one
//! for every call: stdin, Ctrl-C, calls at once; its far end fed any bytes), the web
//! console's overview of the hosts' sessions, and a remote session's terminal view in the
//! console (over the channel; the host's end, `kpty __attach-stream`, run directly too).
//! The logins "there" run with a home and a runtime directory of the test's ([`Sshd`]): no
//! test installs into, or leaves sessions under, the user's own.

use crate::support::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A private sshd and the client configuration that reaches it as `testbox`.
pub(crate) struct Sshd {
    dir: tempfile::TempDir,
    pid: u32,
    /// The logins' home: where kpty is installed there and keeps its key.
    home: PathBuf,
    /// The logins' runtime directory (`KPTY_RUNTIME_DIR`): the sockets of the sessions
    /// made there.
    run: PathBuf,
}

/// The home of every test's logins but the install test's: a folder of this build's test
/// area, never the user's own home, kept between runs so that the 300 MB debug build is
/// copied there once a build (kpty prunes the builds it no longer uses).
fn shared_home() -> PathBuf {
    let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join("remote-home");
    std::fs::create_dir_all(&home).expect("the logins' home");
    home
}

impl Sshd {
    /// Start one; `None` when sshd (or ssh) is not installed (a failure under CI).
    pub(crate) fn start() -> Option<Self> {
        Self::start_with(false)
    }

    /// Start one whose logins get a home of their own (`home/` in its folder: no kpty there
    /// yet) when `own_home`, else [`shared_home`]; their runtime directory is always the
    /// server's own (`run/` in its folder): no test reads or writes the user's home or
    /// `/tmp/kpty-UID`, here or "there".
    pub(crate) fn start_with(own_home: bool) -> Option<Self> {
        let sshd = Path::new("/usr/sbin/sshd");
        if !sshd.exists() || Command::new("ssh").arg("-V").output().is_err() {
            skip("sshd and ssh are needed (apt-get install openssh-server openssh-client)");
            return None;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        for key in ["hostkey", "userkey", "otherkey"] {
            let out = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", ""])
                .arg("-f")
                .arg(d.join(key))
                .output()
                .expect("ssh-keygen");
            assert!(out.status.success(), "{}", stderr(&out));
        }
        std::fs::copy(d.join("userkey.pub"), d.join("authorized_keys")).unwrap();
        let port = free_port();
        let home = if own_home {
            let home = d.join("home");
            std::fs::create_dir_all(&home).unwrap();
            home
        } else {
            shared_home()
        };
        let run = d.join("run");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::set_permissions(&run, std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .unwrap();
        let extra = format!(
            "ForceCommand HOME='{}' KPTY_RUNTIME_DIR='{}' exec /bin/sh -c \"$SSH_ORIGINAL_COMMAND\"\n",
            home.display(),
            run.display()
        );
        let conf = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/hostkey\nPidFile {d}/sshd.pid\n\
             AuthorizedKeysFile {d}/authorized_keys\nUsePAM no\nStrictModes no\n\
             PasswordAuthentication no\nPermitRootLogin yes\nMaxStartups 50\n{extra}",
            d = d.display()
        );
        std::fs::write(d.join("sshd_config"), conf).unwrap();
        if rustix::process::getuid().is_root() {
            let _ = std::fs::create_dir_all("/run/sshd");
        }
        let out = Command::new(sshd)
            .arg("-f")
            .arg(d.join("sshd_config"))
            .arg("-E")
            .arg(d.join("sshd.log"))
            .output()
            .expect("start sshd");
        assert!(out.status.success(), "sshd: {}", stderr(&out));
        let pidfile = d.join("sshd.pid");
        wait_for(10_000, "sshd's pid file", || {
            std::fs::read_to_string(&pidfile).is_ok_and(|p| !p.trim().is_empty())
        });
        let pid = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let host_pub = std::fs::read_to_string(d.join("hostkey.pub")).unwrap();
        let key: Vec<&str> = host_pub.split_whitespace().take(2).collect();
        std::fs::write(
            d.join("known_hosts"),
            format!("[127.0.0.1]:{port} {}\n", key.join(" ")),
        )
        .unwrap();
        let user = std::env::var("USER").unwrap_or_else(|_| "root".into());
        let user = if rustix::process::getuid().is_root() {
            "root".to_string()
        } else {
            user
        };
        let block = |name: &str, port: u16, known: &str| {
            format!(
                "Host {name}\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  \
                 IdentityFile {d}/userkey\n  IdentitiesOnly yes\n  UserKnownHostsFile {d}/{known}\n  \
                 StrictHostKeyChecking yes\n  BatchMode yes\n  ConnectTimeout 5\n",
                d = d.display()
            )
        };
        // `imposter`: the same server, but known_hosts holds another key for it.
        let other = std::fs::read_to_string(d.join("otherkey.pub")).unwrap();
        let other: Vec<&str> = other.split_whitespace().take(2).collect();
        std::fs::write(
            d.join("known_wrong"),
            format!("[127.0.0.1]:{port} {}\n", other.join(" ")),
        )
        .unwrap();
        let config = [
            block("testbox", port, "known_hosts"),
            block("deadbox", free_port(), "known_hosts"),
            block("imposter", port, "known_wrong"),
        ]
        .concat();
        std::fs::write(d.join("config"), config).unwrap();
        Some(Self {
            dir,
            pid,
            home,
            run,
        })
    }

    /// `KPTY_SSH_COMMAND` for it.
    pub(crate) fn ssh_command(&self) -> String {
        format!("ssh -F {}", self.dir.path().join("config").display())
    }

    /// `kpty ARGS` on the state directory `state` (the host's, read here directly, as the
    /// logins there run it: their home and runtime directory).
    fn at_host(&self, state: &Path, args: &[&str]) -> std::process::Output {
        Command::new(env!("CARGO_BIN_EXE_kpty"))
            .arg("--state-dir")
            .arg(state)
            .args(args)
            .env("HOME", &self.home)
            .env("KPTY_RUNTIME_DIR", &self.run)
            .env_remove("XDG_STATE_HOME")
            .env_remove("XDG_RUNTIME_DIR")
            .output()
            .unwrap()
    }

    /// `kpty --json list` of the state directory `state` (the host's, read here directly).
    fn listed(&self, state: &Path) -> Value {
        json_of(&self.at_host(state, &["--json", "list"]))
    }

    /// The sessions made "on the host" under the remote directory `dir`, killed when the
    /// test ends, however it ends.
    fn sessions(&self, dir: &Path) -> Sessions<'_> {
        Sessions(self, dir.to_path_buf())
    }

    /// A directory on "the host" (the same machine) for a test's remote state.
    pub(crate) fn remote_dir(&self, name: &str) -> PathBuf {
        let d = self.dir.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        // The server and each connection's own sshd: the connections kpty left open (its
        // ControlMasters, its channels to the host and their ends there) end with them.
        let mut pids = children_of(self.pid);
        pids.push(self.pid);
        for p in pids {
            let _ = Command::new("kill").arg(p.to_string()).status();
        }
    }
}

/// The processes whose parent is `pid` (from /proc).
fn children_of(pid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| {
                // `pid (comm) state ppid …`: the fields after the last `)`.
                s.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok())
                    == Some(pid)
            })
        })
        .collect()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `kpty ARGS` with the sshd's configuration and `remote` as the remote directory.
fn cmd(env: &Env, ssh: &Sshd, remote: &Path, args: &[&str]) -> Command {
    let mut c = env.cmd(args);
    c.env("KPTY_SSH_COMMAND", ssh.ssh_command())
        .env("KPTY_REMOTE_DIR", remote)
        .env("KPTY_SSH_CONNECT_TIMEOUT", "5");
    c
}

/// `kpty --host testbox ARGS`, which must succeed; its stdout.
fn on_testbox(env: &Env, ssh: &Sshd, remote: &Path, args: &[&str]) -> String {
    let out = cmd(env, ssh, remote, &[&["--host", "testbox"], args].concat())
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_str(stdout(out).lines().last().unwrap_or("")).unwrap_or(Value::Null)
}

/// The sessions made "on the host" under a remote directory: they are this machine's
/// holders too ([`Sshd::sessions`]).
struct Sessions<'a>(&'a Sshd, PathBuf);

impl Drop for Sessions<'_> {
    fn drop(&mut self) {
        let state = self.1.join("ai/checkpoints/pty");
        if state.exists() {
            let _ = self.0.at_host(&state, &["kill", "--all"]);
        }
    }
}

#[test]
fn talk_over_ssh_persists_across_calls_and_is_audited_here() {
    let Some(ssh) = Sshd::start() else { return };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let _sessions = ssh.sessions(&remote);
    let run = |args: &[&str]| cmd(&env, &ssh, &remote, args).output().unwrap();
    let out = run(&[
        "--host",
        "testbox",
        "--json",
        "talk",
        "export KPTY_REMOTE_MARK=41; echo set",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run(&[
        "--host",
        "testbox",
        "talk",
        "echo $((KPTY_REMOTE_MARK + 1))",
    ]);
    assert_eq!(stdout(&out).trim(), "42", "{}", stderr(&out));
    // The command's exit code comes back as it does locally.
    let out = run(&["--host", "testbox", "talk", "exit 7"]);
    assert_eq!(out.status.code(), Some(7));
    // The session is the host's: its state directory is under the remote directory.
    let out = run(&["--host", "testbox", "--json", "list"]);
    let v = json_of(&out);
    assert_eq!(v["count"], 1, "{v}");
    assert!(
        remote.join("ai/checkpoints/pty/_registry.json").exists()
            || remote.join(".git").exists()
            || v["state_dir"]
                .as_str()
                .is_some_and(|d| d.starts_with(remote.to_str().unwrap())),
        "{v}"
    );
    // Here, the trail records that a remote call was made.
    let log = env.ok(&["log"]);
    assert!(
        log.lines()
            .any(|l| l.contains("remote") && l.contains("testbox: kpty")),
        "{log}"
    );
}

/// The verbs a user runs against a host, as `kpty --host testbox VERB` and as the kpty there
/// run on its state directory directly (each after the other, on the same session): the same
/// exit code, the same `ok` and error code, the same fields; a read of the screen or of the
/// output the same text. Errors too: an unknown session, a malformed id, a wait that times
/// out, an unknown key.
#[test]
fn every_verb_over_ssh_answers_as_the_kpty_there_does() {
    let Some(ssh) = Sshd::start() else { return };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let _sessions = ssh.sessions(&remote);
    let state = remote.join("ai/checkpoints/pty");
    on_testbox(&env, &ssh, &remote, &["create", "--label", "far"]);
    on_testbox(&env, &ssh, &remote, &["talk", "-s", "far", "echo hi-there"]);
    let cases: &[(&[&str], bool)] = &[
        (&["list"], false),
        (&["read", "-s", "far", "--since", "0"], true),
        (&["term-read", "-s", "far"], true),
        (
            &["wait-for", "-s", "far", "hi-there", "--timeout-ms", "5000"],
            false,
        ),
        (&["log", "-s", "far"], false),
        (&["send-line", "-s", "far", "true"], false),
        (&["send-keys", "-s", "far", "C-c"], false),
        (&["read", "-s", "pty_00000000"], false),
        (&["read", "-s", "../../etc/passwd"], false),
        (&["term-read", "-s", "nobody-by-that-label"], false),
        (
            &[
                "wait-for",
                "-s",
                "far",
                "never-printed-xyz",
                "--timeout-ms",
                "300",
            ],
            false,
        ),
        (&["send-keys", "-s", "far", "NoSuchKey"], false),
    ];
    for (args, same_text) in cases {
        let json: Vec<&str> = [&["--json"][..], args].concat();
        let there = ssh.at_host(&state, &json);
        let here = cmd(
            &env,
            &ssh,
            &remote,
            &[&["--host", "testbox"][..], &json].concat(),
        )
        .output()
        .unwrap();
        let (a, b) = (json_of(&here), json_of(&there));
        let what = format!("{args:?}: over ssh {a} ({}), there {b}", stderr(&here));
        assert_eq!(here.status.code(), there.status.code(), "{what}");
        assert_eq!(
            (&a["ok"], &a["error_code"]),
            (&b["ok"], &b["error_code"]),
            "{what}"
        );
        let keys = |v: &Value| -> Vec<String> {
            v.as_object()
                .map(|o| o.keys().cloned().collect())
                .unwrap_or_default()
        };
        assert_eq!(keys(&a), keys(&b), "{what}");
        if *same_text {
            let there = stdout(&ssh.at_host(&state, args));
            let here = on_testbox(&env, &ssh, &remote, args);
            assert_eq!(here, there, "{args:?}");
        }
    }
    // And the last: the session ends there.
    on_testbox(&env, &ssh, &remote, &["kill", "-s", "far"]);
    assert_eq!(ssh.listed(&state)["count"], 0, "{}", ssh.listed(&state));
}

#[test]
fn an_unreachable_host_or_a_changed_host_key_is_host_unreachable() {
    let Some(ssh) = Sshd::start() else { return };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let _sessions = ssh.sessions(&remote);
    for (host, says) in [("deadbox", "refused"), ("imposter", "host key")] {
        let out = cmd(
            &env,
            &ssh,
            &remote,
            &["--host", host, "--json", "talk", "echo never"],
        )
        .output()
        .unwrap();
        let v = json_of(&out);
        assert_eq!(out.status.code(), Some(103), "{host}: {v}");
        assert_eq!(v["error_code"], "HOST_UNREACHABLE", "{v}");
        assert!(
            v["message"]
                .as_str()
                .unwrap_or("")
                .to_lowercase()
                .contains(says),
            "{host}: {v}"
        );
    }
    // A host that could be read as an option never reaches ssh.
    let out = env.kpty(&["--host", "-oProxyCommand=touch /tmp/x", "--json", "list"]);
    assert_eq!(
        json_of(&out)["error_code"],
        "INVALID_PARAMS",
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_connection_killed_mid_talk_leaves_the_remote_session_running() {
    let Some(ssh) = Sshd::start() else { return };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let _sessions = ssh.sessions(&remote);
    let out = cmd(
        &env,
        &ssh,
        &remote,
        &["--host", "testbox", "talk", "echo warm"],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let talk = cmd(
        &env,
        &ssh,
        &remote,
        &["--host", "testbox", "talk", "echo started; sleep 30"],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // The command runs there (the host is this machine: its state is read directly).
    let state = remote.join("ai/checkpoints/pty");
    let busy = || ssh.listed(&state)["sessions"][0]["busy"] == true;
    wait_for(20_000, "the remote talk to start", busy);
    // The connection to the host goes away: the master ends its sessions.
    let mut stop = Command::new("sh");
    stop.arg("-c").arg(format!(
        "{} -o ControlPath=$0/ssh/%C -O exit testbox",
        ssh.ssh_command()
    ));
    let rt = env.runtime().to_path_buf();
    stop.arg(&rt);
    let _ = stop.output();
    let out = wait_child(talk, &["talk over a dropped connection"]);
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    // The session there lives on, still running the command.
    let out = cmd(
        &env,
        &ssh,
        &remote,
        &["--host", "testbox", "--json", "list"],
    )
    .output()
    .unwrap();
    let v = json_of(&out);
    assert_eq!(v["sessions"][0]["state"], "running", "{v}");
}

#[test]
fn list_all_hosts_shows_every_host_and_a_dead_one_as_unreachable() {
    let Some(ssh) = Sshd::start() else { return };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let _sessions = ssh.sessions(&remote);
    let out = cmd(
        &env,
        &ssh,
        &remote,
        &["--host", "testbox", "create", "--label", "far"],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = cmd(&env, &ssh, &remote, &["--json", "list", "--all-hosts"])
        .env("KPTY_HOSTS", "testbox, deadbox")
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(out.status.code(), Some(0), "{v}");
    let hosts = v["hosts"].as_array().expect("hosts");
    let by = |h: &str| {
        hosts
            .iter()
            .find(|x| x["host"] == h)
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(by("testbox")["ok"], true, "{v}");
    assert!(
        by("testbox")["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["label"] == "far" && s["host"] == "testbox"),
        "{v}"
    );
    assert_eq!(by("deadbox")["ok"], false, "{v}");
    assert_eq!(
        by("deadbox")["error"]["error_code"],
        "HOST_UNREACHABLE",
        "{v}"
    );
}

/// Every action the MCP tool takes (read from its own schema), named with a host, goes to
/// that host: to one nobody can reach, each is `HOST_UNREACHABLE`, and nothing runs here —
/// no session made, nothing typed (a talk with `host` once ran in a local session).
#[tokio::test(flavor = "multi_thread")]
async fn over_mcp_every_action_with_a_host_goes_there_and_never_runs_here() {
    let env = Env::new();
    let local = env.create(&["--label", "here"]);
    let m = crate::mcp::start(&env).await;
    let tools = m.client.list_all_tools().await.expect("tools/list");
    let schema = Value::Object((*tools[0].input_schema).clone());
    let actions: Vec<String> = schema["properties"]["action"]["enum"]
        .as_array()
        .expect("the action enum")
        .iter()
        .filter_map(|a| a.as_str().map(str::to_string))
        .collect();
    assert!(actions.len() >= 20, "{actions:?}");
    for action in &actions {
        for host in ["no-such-host.invalid", "nobody@no-such-host.invalid"] {
            let v = m
                .json(json!({"action": action, "host": host, "command": "echo ran-here"}))
                .await;
            assert_eq!(
                v["error_code"], "HOST_UNREACHABLE",
                "{action} with host {host} did not go there: {v}"
            );
        }
    }
    m.close().await;
    // This machine: still its one session, and nothing was typed into it.
    let list = env.json(&["list"]);
    let ids: Vec<&str> = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["session_id"].as_str())
        .collect();
    assert_eq!(ids, vec![local.as_str()], "{list}");
    let out = env.read("here", &[]);
    assert!(!s(&out, "output").contains("ran-here"), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn over_mcp_an_action_with_host_runs_there_and_streams_its_progress() {
    let Some(ssh) = Sshd::start() else { return };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let _sessions = ssh.sessions(&remote);
    let m = crate::mcp::start_cmd(cmd(&env, &ssh, &remote, &["mcp"])).await;
    let v = m
        .json(json!({"action": "talk", "host": "testbox", "command": "echo 'from afar GITHUB_TOKEN=ghp_R4nd0mGitHubT0kenAbCdEfGhIjKlMnOpQr'"}))
        .await;
    let out = v["output"].as_str().unwrap_or("");
    assert!(
        out.contains("from afar") && !out.contains("R4nd0mGitHubT0ken"),
        "{v}"
    );
    // It ran there: the session is the host's, and none was made here.
    let state = remote.join("ai/checkpoints/pty");
    let there = ssh.listed(&state);
    assert!(
        there["sessions"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x["session_id"] == v["session_id"])),
        "{v} not in {there}"
    );
    assert_eq!(env.json(&["list"])["sessions"], json!([]));
    let v = m.json(json!({"action": "list", "host": "deadbox"})).await;
    assert_eq!(v["error_code"], "HOST_UNREACHABLE", "{v}");
    let id = v_str(
        &m.json(json!({"action": "create", "host": "testbox"})).await,
        "session_id",
    );
    let peer = m.client.peer().clone();
    // A talk there streams its progress as a local one does (the request carries a token).
    let h = talk_there(
        &peer,
        &id,
        "for i in 1 2 3; do echo line$i; sleep 0.4; done",
    )
    .await;
    let rmcp::model::ServerResult::CallToolResult(r) = h.await_response().await.expect("answer")
    else {
        panic!("not a tool result")
    };
    let r = r.structured_content.expect("content");
    assert_eq!(r["output"], "line1\nline2\nline3", "{r}");
    let seen = m.handler.progress.lock().unwrap().clone();
    assert!(
        seen.iter()
            .any(|p| p.message.as_deref().is_some_and(|t| t.contains("line1"))),
        "no progress from the host: {seen:?}"
    );
    assert!(
        seen.windows(2).all(|w| w[1].progress > w[0].progress),
        "{seen:?}"
    );
    m.close().await;
}

/// A talk there that the MCP client cancels is stopped there: its command interrupted, the
/// session free again long before the command would have ended, and the next talk runs.
#[tokio::test(flavor = "multi_thread")]
async fn over_mcp_a_cancelled_talk_with_host_is_interrupted_there() {
    let Some(ssh) = Sshd::start() else { return };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let _sessions = ssh.sessions(&remote);
    let mut c = cmd(&env, &ssh, &remote, &["mcp"]);
    // The channel's log says where a cancel went, should one be lost.
    c.env("KPTY_LOG", "info");
    let m = crate::mcp::start_cmd(c).await;
    let state = remote.join("ai/checkpoints/pty");
    let id = v_str(
        &m.json(json!({"action": "create", "host": "testbox"})).await,
        "session_id",
    );
    let peer = m.client.peer().clone();
    let terminal = || {
        let out = ssh.at_host(
            &state,
            &["--json", "read", "-s", &id, "--timeout-ms", "100"],
        );
        json_of(&out)["terminal_state"].clone()
    };
    // The command runs (its process in front), not only the talk let in: a cancel before
    // the command is typed types nothing (tests/cli/cancel_timing.rs).
    let sleeping = || {
        ssh.listed(&state)["sessions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|s| s["session_id"] == id.as_str() && s["foreground_command"] == "sleep")
    };
    for round in 0..3 {
        let h = talk_there(&peer, &id, "sleep 30").await;
        wait_for(20_000, "the talk's command to start there", sleeping);
        h.cancel(Some("test".into())).await.expect("cancel");
        if !holds_within(10_000, || terminal() == "prompt") {
            // What each side saw: the host's terminal and trail, and the channel's own log.
            let read = ssh.at_host(&state, &["--json", "read", "-s", &id]);
            let trail = ssh.at_host(&state, &["log", "--after", "1m"]);
            let logs: Vec<String> = std::fs::read_dir(env.runtime().join("ssh"))
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".log"))
                .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                .collect();
            panic!(
                "round {round}: the cancelled command was not interrupted there: {} | the \
                 host's trail: {} | channel log: {logs:?}",
                json_of(&read),
                String::from_utf8_lossy(&trail.stdout)
            );
        }
        let v = m
            .json(json!({"action": "talk", "host": "testbox", "session_id": id, "command": format!("echo after{round}"), "timeout_ms": 20000}))
            .await;
        let read = ssh.at_host(&state, &["--json", "read", "-s", &id]);
        assert_eq!(
            v["output"],
            format!("after{round}"),
            "round {round}: {v} | the host's terminal: {}",
            json_of(&read)
        );
    }
    m.close().await;
}

/// Send an MCP talk of `command` in session `id` on `testbox`, as a request the test can
/// cancel.
async fn talk_there(
    peer: &rmcp::service::Peer<rmcp::RoleClient>,
    id: &str,
    command: &str,
) -> rmcp::service::RequestHandle<rmcp::RoleClient> {
    let args = json!({"action": "talk", "host": "testbox", "session_id": id, "command": command});
    let request = rmcp::model::ClientRequest::CallToolRequest(rmcp::model::Request::new(
        rmcp::model::CallToolRequestParams::new("k_pty")
            .with_arguments(args.as_object().unwrap().clone()),
    ));
    peer.send_cancellable_request(request, rmcp::service::PeerRequestOptions::no_options())
        .await
        .expect("send")
}

fn v_str(v: &Value, field: &str) -> String {
    v[field]
        .as_str()
        .unwrap_or_else(|| panic!("no {field} in {v}"))
        .to_string()
}

#[test]
fn attach_through_ssh_types_resizes_and_detaches_in_a_real_terminal() {
    let Some(ssh) = Sshd::start() else { return };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let _sessions = ssh.sessions(&remote);
    let out = cmd(
        &env,
        &ssh,
        &remote,
        &["--host", "testbox", "talk", "echo before-$((40+2))"],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // A person's terminal: `kpty --host testbox attach` in a test-side PTY.
    let line = format!(
        "KPTY_SSH_COMMAND='{}' KPTY_REMOTE_DIR='{}' KPTY_SSH_CONNECT_TIMEOUT=5 exec kpty --host testbox attach",
        ssh.ssh_command(),
        remote.display()
    );
    let mut tty = crate::tty::Tty::spawn(&env, "/bin/sh", &["-c", &line], (90, 24), true);
    tty.expect("before-42");
    tty.keys(b"echo typed-$((6*7))\r");
    tty.expect("typed-42");
    // The terminal's size reaches the session there.
    let state = remote.join("ai/checkpoints/pty");
    let size = || {
        let s = ssh.listed(&state)["sessions"][0].clone();
        (
            s["cols"].as_u64(),
            s["rows"].as_u64(),
            s["attached"].as_u64(),
        )
    };
    wait_for(20_000, "the session to take the terminal's size", || {
        size() == (Some(90), Some(24), Some(1))
    });
    tty.resize(100, 30);
    wait_for(20_000, "the session to follow a resize", || {
        size() == (Some(100), Some(30), Some(1))
    });
    // The detach key works through ssh; the session lives on.
    tty.keys(b"\x1c");
    tty.expect("detached from");
    assert_eq!(tty.exit_code(), 0);
    let out = cmd(
        &env,
        &ssh,
        &remote,
        &["--host", "testbox", "talk", "echo still-$((1+1))"],
    )
    .output()
    .unwrap();
    assert_eq!(stdout(&out).trim(), "still-2", "{}", stderr(&out));
}

/// The sockets of the channels to hosts in this environment's runtime directory.
fn channels(env: &Env) -> Vec<PathBuf> {
    std::fs::read_dir(env.runtime().join("ssh"))
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("mux-") && !n.contains('.'))
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn one_channel_carries_every_call_stdin_signals_and_calls_at_once() {
    let Some(ssh) = Sshd::start() else { return };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let _sessions = ssh.sessions(&remote);
    let run = |args: &[&str]| cmd(&env, &ssh, &remote, args).output().unwrap();
    let out = run(&["--host", "testbox", "talk", "echo first"]);
    assert_eq!(stdout(&out).trim(), "first", "{}", stderr(&out));
    assert_eq!(channels(&env).len(), 1, "one channel to the host");
    // A piped stdin is the remote command's stdin, any bytes, as with `ssh host cmd < file`.
    for input in ["a\nb\nc\n", "no newline", ""] {
        let mut c = cmd(&env, &ssh, &remote, &["--host", "testbox", "talk", "wc -c"]);
        let mut child = c
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = wait_child(child, &["talk wc -c with a piped stdin"]);
        assert_eq!(
            stdout(&out).trim(),
            input.len().to_string(),
            "{}",
            stderr(&out)
        );
    }
    // Calls at once, to sessions of their own, each get their own answer.
    let names: Vec<String> = (0..4)
        .map(|_| {
            let out = run(&["--host", "testbox", "--json", "create"]);
            assert!(out.status.success(), "{}", stderr(&out));
            s(&json_of(&out), "session_id").to_string()
        })
        .collect();
    let running: Vec<_> = names
        .iter()
        .map(|n| {
            cmd(
                &env,
                &ssh,
                &remote,
                &[
                    "--host",
                    "testbox",
                    "talk",
                    "-s",
                    n,
                    &format!("echo from-{n}"),
                ],
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    for (n, child) in names.iter().zip(running) {
        let out = wait_child(child, &["a talk at once with others"]);
        assert_eq!(stdout(&out).trim(), format!("from-{n}"), "{}", stderr(&out));
    }
    assert_eq!(channels(&env).len(), 1, "still one channel");
    // A command that does not read its stdin yet never holds up the channel's other calls.
    let go = remote.join("go");
    let slow_line = format!(
        "while [ ! -e {} ]; do sleep 0.05; done; wc -c",
        go.display()
    );
    let mut c = cmd(
        &env,
        &ssh,
        &remote,
        &["--host", "testbox", "talk", "-s", &names[1], &slow_line],
    );
    let mut slow = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut feed = slow.stdin.take().unwrap();
    let fed = std::thread::spawn(move || {
        use std::io::Write;
        feed.write_all(&vec![b'x'; 1 << 20]).unwrap();
    });
    let out = run(&["--host", "testbox", "talk", "-s", &names[2], "echo quick"]);
    assert_eq!(stdout(&out).trim(), "quick", "{}", stderr(&out));
    assert!(
        slow.try_wait().unwrap().is_none(),
        "the slow reader is still waiting"
    );
    std::fs::write(&go, "").unwrap();
    fed.join().unwrap();
    let out = wait_child(slow, &["a talk reading its stdin late"]);
    assert_eq!(
        stdout(&out).trim(),
        (1 << 20).to_string(),
        "{}",
        stderr(&out)
    );
    // Ctrl-C interrupts the command there, as it does at home: exit 130, the shell usable.
    let talk = cmd(
        &env,
        &ssh,
        &remote,
        &["--host", "testbox", "talk", "-s", &names[0], "sleep 30"],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let state = remote.join("ai/checkpoints/pty");
    let busy = || {
        ssh.listed(&state)["sessions"].as_array().is_some_and(|a| {
            a.iter()
                .any(|e| e["session_id"] == names[0].as_str() && e["busy"] == true)
        })
    };
    // The command itself runs (not just typed: a Ctrl-C before bash has read the line is
    // another story).
    let sleeping = || {
        ssh.listed(&state)["sessions"].as_array().is_some_and(|a| {
            a.iter().any(|e| {
                e["session_id"] == names[0].as_str()
                    && e["foreground_command"]
                        .as_str()
                        .is_some_and(|c| c.starts_with("sleep"))
            })
        })
    };
    wait_for(20_000, "the remote command to start", sleeping);
    let _ = Command::new("kill")
        .args(["-INT", &talk.id().to_string()])
        .status();
    let out = wait_child(talk, &["an interrupted remote talk"]);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("CANCELLED"), "{said}");
    let ended = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        wait_for(20_000, "the interrupted command to end there", || !busy())
    }));
    assert!(ended.is_ok(), "the talk said: {said}");
    let out = run(&["--host", "testbox", "talk", "-s", &names[0], "echo after"]);
    assert_eq!(stdout(&out).trim(), "after", "{}", stderr(&out));
}

/// One frame of a host's channel, as `kpty __mux` reads and writes them: a 4-byte length,
/// then the request id (4 bytes), the kind (1 byte) and the payload.
fn frame(id: u32, kind: u8, data: &[u8]) -> Vec<u8> {
    let mut body = id.to_be_bytes().to_vec();
    body.push(kind);
    body.extend_from_slice(data);
    let mut f = (body.len() as u32).to_be_bytes().to_vec();
    f.extend(body);
    f
}

/// Every frame in `bytes`: (id, kind, payload).
fn frames(mut bytes: &[u8]) -> Vec<(u32, u8, Vec<u8>)> {
    let mut out = Vec::new();
    while bytes.len() >= 4 {
        let len = u32::from_be_bytes(bytes[..4].try_into().unwrap()) as usize;
        let body = &bytes[4..4 + len];
        out.push((
            u32::from_be_bytes(body[..4].try_into().unwrap()),
            body[4],
            body[5..].to_vec(),
        ));
        bytes = &bytes[4 + len..];
    }
    out
}

/// `kpty __mux` in `dir` with `input` on its stdin; its output.
fn channel_server(env: &Env, dir: &Path, input: &[u8]) -> std::process::Output {
    let mut c = env.cmd(&["__mux"]);
    c.current_dir(dir)
        .env_remove("KPTY_STATE_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut w = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        let _ = w.write_all(&input);
    });
    let out = wait_child(child, &["__mux"]);
    feeder.join().unwrap();
    out
}

#[test]
fn the_hosts_end_of_a_channel_answers_each_request_by_its_id_and_skips_what_it_does_not_know() {
    let env = Env::new();
    let dir = env.home().join("project");
    std::fs::create_dir_all(&dir).unwrap();
    let call = json!({"action": "list", "params": {}, "channel": "json"}).to_string();
    let input = [
        frame(7, 1, br#"{"args": ["--version"]}"#),
        frame(8, 99, b"a kind from a newer kpty"),
        frame(9, 1, b"{not json"),
        frame(10, 2, call.as_bytes()),
        frame(11, 5, b""),
    ]
    .concat();
    let out = channel_server(&env, &dir, &input);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let got = frames(&out.stdout);
    assert_eq!(got[0].0, 0, "a hello first");
    assert!(String::from_utf8_lossy(&got[0].2).starts_with("kpty "));
    let of = |id: u32| -> Vec<&(u32, u8, Vec<u8>)> { got.iter().filter(|f| f.0 == id).collect() };
    let version: Vec<u8> = of(7)
        .iter()
        .filter(|f| f.1 == 11)
        .flat_map(|f| f.2.clone())
        .collect();
    assert!(String::from_utf8_lossy(&version).starts_with("kpty "));
    assert_eq!(
        of(7).last().map(|f| (f.1, f.2.clone())),
        Some((13, 0i32.to_be_bytes().to_vec()))
    );
    assert!(of(8).is_empty(), "an unknown kind is skipped");
    assert_eq!(
        of(9).last().map(|f| (f.1, f.2.clone())),
        Some((13, 2i32.to_be_bytes().to_vec()))
    );
    let answer: Value = serde_json::from_slice(&of(10)[0].2).unwrap();
    assert_eq!((of(10)[0].1, &answer["ok"]), (14, &json!(true)), "{answer}");
    assert!(of(11).is_empty(), "a cancel of nothing running is a no-op");
}

/// Ends the sessions of the state directory `.1` with the environment of `.0` (its home seals
/// the registry, its runtime directory holds the sockets), even when the test failed.
struct EndedWith<'a>(&'a Env, PathBuf);

impl Drop for EndedWith<'_> {
    fn drop(&mut self) {
        let state = self.1.to_string_lossy().into_owned();
        let _ = self
            .0
            .cmd(&["--state-dir", &state, "kill", "--all"])
            .output();
    }
}

/// A `list` on the host's end waits for a holder that does not answer (stopped) up to the
/// probe's deadline; answered on the channel's reader, it holds the reader up that long —
/// once: the calls after it go to other threads, so one behind a second such `list` is
/// answered at once, not after it.
#[test]
fn a_stopped_holder_holds_the_hosts_channel_up_once_not_at_every_list() {
    let env = Env::new();
    let dir = env.home().join("project");
    let state = dir.join("ai/checkpoints/pty");
    std::fs::create_dir_all(&state).unwrap();
    let _sessions = EndedWith(&env, state.clone());
    let made = env.ok_json(&["--state-dir", state.to_str().unwrap(), "create"]);
    let holder = made["holder_pid"].as_u64().expect("a holder pid");
    let _stopped = crate::deadlines::Stopped::new(holder);
    let call =
        |action: &str| json!({"action": action, "params": {}, "channel": "json"}).to_string();
    let input = [
        frame(1, 2, call("list").as_bytes()),
        frame(2, 2, call("list").as_bytes()),
        frame(3, 2, call("help").as_bytes()),
    ]
    .concat();
    let out = channel_server(&env, &dir, &input);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answered: Vec<u32> = frames(&out.stdout)
        .into_iter()
        .filter(|f| f.1 == 14)
        .map(|f| f.0)
        .collect();
    assert_eq!(answered.len(), 3, "{answered:?}");
    let at = |id: u32| answered.iter().position(|a| *a == id).unwrap();
    assert!(
        at(3) < at(2),
        "help waited for the second list: {answered:?}"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    /// Whatever bytes reach the host's end, it never panics: it skips, answers or stops.
    #[test]
    fn any_bytes_on_a_channel_end_it_cleanly(junk in proptest::collection::vec(proptest::num::u8::ANY, 0..200), cut in 0usize..64) {
        let env = Env::new();
        let dir = env.home().join("p");
        std::fs::create_dir_all(&dir).unwrap();
        let mut input = frame(1, 2, &junk);
        input.extend(frame(2, 4, &junk));
        input.extend(&junk[..cut.min(junk.len())]);
        let out = channel_server(&env, &dir, &input);
        proptest::prop_assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
        proptest::prop_assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    }
}

#[test]
fn the_web_console_lists_the_known_hosts_sessions_and_names_a_dead_host() {
    let Some(ssh) = Sshd::start() else { return };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let _sessions = ssh.sessions(&remote);
    let out = cmd(
        &env,
        &ssh,
        &remote,
        &[
            "--host", "testbox", "--json", "create", "--label", "far-away",
        ],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let far = s(&json_of(&out), "session_id").to_string();
    let here = env.create(&["--label", "close-by"]);
    let command = ssh.ssh_command();
    let dir = remote.display().to_string();
    let serve = crate::bridge::Serve::start_args(
        &env,
        &[],
        &[
            ("KPTY_SSH_COMMAND", command.as_str()),
            ("KPTY_REMOTE_DIR", dir.as_str()),
            ("KPTY_SSH_CONNECT_TIMEOUT", "5"),
            ("KPTY_HOSTS", "testbox,deadbox"),
        ],
    );
    let (cookie, _) = crate::console::logged_in(&env, &serve);
    let sessions_now = || {
        let cookie = [("Cookie", cookie.as_str())];
        crate::console::http(&serve, "GET", "/console/api/sessions", &cookie, "").json()
    };
    let mut last = Value::Null;
    let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        wait_for(30_000, "the hosts' sessions in the console", || {
            last = sessions_now();
            let all = last["sessions"].as_array().cloned().unwrap_or_default();
            let has = |id: &str, source: &str| {
                all.iter()
                    .any(|e| e["session_id"] == id && e["source"] == source)
            };
            let down = last["hosts_down"].as_array().cloned().unwrap_or_default();
            has(&here, "local")
                && has(&far, "remote")
                && down.iter().any(|d| d["host"] == "deadbox")
        })
    }));
    assert!(ok.is_ok(), "{last}");
    let row = last["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["session_id"] == far.as_str())
        .unwrap();
    assert_eq!(
        (&row["host"], &row["label"]),
        (&json!("testbox"), &json!("far-away"))
    );
    assert!(
        !last["hosts_down"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["host"] == "testbox"),
        "{last}"
    );
    // The remote tile shows its screen in small, as a local one does, read again when the
    // output moves on, and redacted.
    let (line, secret) = secret_lines().remove(0);
    let typed = format!("echo far-screen-$((6*7)); echo {line}");
    let out = cmd(
        &env,
        &ssh,
        &remote,
        &["--host", "testbox", "talk", "-s", &far, &typed],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let mut mini = String::new();
    let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        wait_for(30_000, "the remote session's miniature", || {
            let v = sessions_now();
            let row = v["sessions"].as_array().and_then(|all| {
                all.iter()
                    .find(|e| e["session_id"] == far.as_str() && e["source"] == "remote")
                    .cloned()
            });
            mini = row.map(|r| r["miniature"].to_string()).unwrap_or_default();
            mini.contains("far-screen-42")
        })
    }));
    assert!(ok.is_ok(), "{mini}");
    assert!(!mini.contains(&secret), "a secret in the miniature: {mini}");
}

#[test]
fn a_host_without_this_kpty_gets_it_once_or_is_told_how_to_install_it() {
    let Some(ssh) = Sshd::start_with(true) else {
        return;
    };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let _sessions = ssh.sessions(&remote);
    let installed = || -> Vec<String> {
        let bin = ssh.home.join(".cache/kpty/bin");
        std::fs::read_dir(bin)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    // Told off: nothing is copied, and the error says where the binary goes.
    let out = cmd(
        &env,
        &ssh,
        &remote,
        &["--host", "testbox", "--json", "talk", "echo no"],
    )
    .env("KPTY_REMOTE_INSTALL", "0")
    .output()
    .unwrap();
    let v = json_of(&out);
    assert_eq!(
        (out.status.code(), &v["error_code"]),
        (Some(103), &json!("HOST_UNREACHABLE")),
        "{v}"
    );
    assert!(
        s(&v, "message").contains("KPTY_REMOTE_INSTALL=0")
            && s(&v, "message").contains(".cache/kpty/bin"),
        "{v}"
    );
    assert!(installed().is_empty());
    // Builds left there before (older kpty versions, partial copies, someone's own file).
    let bin = ssh.home.join(".cache/kpty/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let ago =
        |minutes: u64| std::time::SystemTime::now() - std::time::Duration::from_secs(minutes * 60);
    let old_builds = [
        ("kpty-0.0.9-ffffffffffff", ago(1)), // in use a minute ago
        ("kpty-0.0.8-000000000008", ago(60)),
        ("kpty-0.0.7-000000000007", ago(120)),
        ("kpty-0.0.6-000000000006", ago(180)),
        ("kpty-0.0.5-000000000005", ago(240)),
        ("kpty-1.0.0-rc.1-00000000000a", ago(300)),
        ("kpty-0.0.9-ffffffffffff.4242", ago(2)), // a copy under way
        ("kpty-0.0.4-000000000004.77", ago(3000)), // a copy cut off days ago
        ("notes.txt", ago(600)),
    ];
    for (name, when) in old_builds {
        let f = std::fs::File::create(bin.join(name)).unwrap();
        f.set_modified(when).unwrap();
    }
    // The first call copies this build there, says so once, and runs.
    let out = cmd(
        &env,
        &ssh,
        &remote,
        &["--host", "testbox", "talk", "echo first-$((1+1))"],
    )
    .output()
    .unwrap();
    assert_eq!(stdout(&out).trim(), "first-2", "{}", stderr(&out));
    assert!(stderr(&out).contains("installed kpty"), "{}", stderr(&out));
    let mut names = installed();
    names.sort();
    let ours: Vec<&String> = names
        .iter()
        .filter(|n| n.starts_with(&format!("kpty-{}-", env!("CARGO_PKG_VERSION"))))
        .collect();
    assert_eq!(ours.len(), 1, "{names:?}");
    // Installing tidied up: the three most recently used other builds stay, older ones unused
    // for twenty minutes go, and so does a copy cut off long ago; the rest is not kpty's.
    let mut left: Vec<&str> = names
        .iter()
        .filter(|n| *n != ours[0])
        .map(String::as_str)
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            "kpty-0.0.7-000000000007",
            "kpty-0.0.8-000000000008",
            "kpty-0.0.9-ffffffffffff",
            "kpty-0.0.9-ffffffffffff.4242",
            "notes.txt"
        ],
        "{names:?}"
    );
    // The next call finds it: no copy, no message.
    let out = cmd(
        &env,
        &ssh,
        &remote,
        &["--host", "testbox", "talk", "echo again"],
    )
    .output()
    .unwrap();
    assert_eq!(stdout(&out).trim(), "again", "{}", stderr(&out));
    assert!(!stderr(&out).contains("installed"), "{}", stderr(&out));
}

/// The web console's actions (`web_*`) in the trail of session `id` on the host's state
/// directory `state`.
fn host_web_trail(ssh: &Sshd, state: &Path, id: &str) -> Vec<Value> {
    stdout(&ssh.at_host(state, &["--json", "log", "-s", id]))
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["action"].as_str().is_some_and(|a| a.starts_with("web_")))
        .collect()
}

/// `kpty serve` knowing `testbox` and `deadbox`, its ssh a wrapper that logs each command it
/// is given to `log` before it runs the real one.
fn serve_knowing_hosts(env: &Env, ssh: &Sshd, remote: &Path, log: &Path) -> crate::bridge::Serve {
    let command = format!(
        "sh -c 'echo \"$*\" >> {}; exec {} \"$@\"' ssh",
        log.display(),
        ssh.ssh_command()
    );
    let dir = remote.display().to_string();
    crate::bridge::Serve::start_args(
        env,
        &[],
        &[
            ("KPTY_SSH_COMMAND", command.as_str()),
            ("KPTY_REMOTE_DIR", dir.as_str()),
            ("KPTY_SSH_CONNECT_TIMEOUT", "5"),
            ("KPTY_HOSTS", "testbox,deadbox"),
        ],
    )
}

#[test]
fn a_remote_session_is_joined_from_the_web_console_as_a_local_one_is() {
    use crate::console_term::{View, WEB_WARNING};
    let Some(ssh) = Sshd::start() else { return };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let state = remote.join("ai/checkpoints/pty");
    let _sessions = ssh.sessions(&remote);
    let at = |args: &[&str]| on_testbox(&env, &ssh, &remote, args);
    let made = |args: &[&str]| {
        let v: Value = serde_json::from_str(at(args).lines().last().unwrap_or("")).unwrap();
        s(&v, "session_id").to_string()
    };
    let far = made(&["--json", "create", "--label", "far"]);
    at(&["talk", "-s", &far, "echo before-$((6*7))"]);
    let log = remote.join("ssh.log");
    let serve = serve_knowing_hosts(&env, &ssh, &remote, &log);
    let (cookie, own) = crate::console::logged_in(&env, &serve);

    // The page names it as its tile does (HOST:ID, URL-encoded): the screen, then live output.
    let (mut v, joined) = View::join(&serve, &format!("testbox%3A{far}"), &cookie, &own);
    assert_eq!(
        (&joined["host"], &joined["session_id"], &joined["can_write"]),
        (
            &json!("testbox"),
            &json!(format!("testbox:{far}")),
            &json!(true)
        ),
        "{joined}"
    );
    let who = joined["who"].as_str().unwrap().to_string();
    v.until_output("before-42");
    at(&["talk", "-s", &far, "echo live-$((7*6))"]);
    v.until_output("live-42");
    let attached = || ssh.listed(&state)["sessions"][0]["attached"].as_u64();
    assert_eq!(attached(), Some(1), "{}", ssh.listed(&state));

    // Watching, its keys reach nothing; once it writes, a typed command runs there.
    v.send(json!({"type": "input", "data": "echo sneaky-$((4*4))\r"}));
    v.send(json!({"type": "redraw"}));
    v.until_event("resync", |e| e["type"] == "resync");
    v.send(json!({"type": "write"}));
    v.until_event("write mode", |e| {
        e["type"] == "mode" && e["mode"] == "write"
    });
    v.send(json!({"type": "input", "data": "echo typed-$((5*5))\r"}));
    v.until_output("typed-25");
    let read = at(&["read", "-s", &far, "--since", "0", "--strip-ansi"]);
    assert!(
        read.contains("typed-25") && !read.contains("sneaky-16"),
        "{read}"
    );

    // Leaving the page ends the host's end: its holder's client is gone, the leave recorded.
    let from = v.at.expect("the view's offset");
    drop(v);
    wait_for(30_000, "the host's holder to see the view leave", || {
        attached() == Some(0)
    });
    // A page that comes back carries on from its offset there too.
    at(&["talk", "-s", &far, "echo missed-$((3*3))"]);
    let path = format!("/console/ws/session/testbox%3A{far}?from={from}");
    let (mut v, joined) = View::join_at(&serve, &path, &cookie, &own);
    assert_eq!(joined["resumed"], true, "{joined}");
    v.until_output("missed-9");
    // The channel to the host drops (its process on this machine ends): the page is told to
    // come back, not that the session ended, and comes back from where it was.
    let serve_pid = serve.child.id();
    let channel: Vec<u32> = children_of(serve_pid)
        .into_iter()
        .filter(|p| {
            std::fs::read(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("__ssh-mux"))
        })
        .collect();
    assert_eq!(channel.len(), 1, "the channel to testbox: {channel:?}");
    let _ = Command::new("kill").arg(channel[0].to_string()).status();
    while v.read_one() {}
    assert_eq!(v.closed, Some(1011), "{:?}", v.events);
    let path = format!("/console/ws/session/testbox%3A{far}?from={}", v.at.unwrap());
    let (mut v, joined) = View::join_at(&serve, &path, &cookie, &own);
    assert_eq!(joined["resumed"], true, "{joined}");
    // The program's end reaches the page, and the view closes.
    v.send(json!({"type": "write"}));
    v.until_event("write mode", |e| {
        e["type"] == "mode" && e["mode"] == "write"
    });
    v.send(json!({"type": "input", "data": "exit\r"}));
    v.until_event("exited", |e| e["type"] == "exited");
    while v.read_one() {}
    let trail = host_web_trail(&ssh, &state, &far);
    let actions: Vec<&str> = trail.iter().filter_map(|e| e["action"].as_str()).collect();
    for want in ["web_join", "web_control", "web_write", "web_leave"] {
        assert!(actions.contains(&want), "{want}: {trail:?}");
    }
    assert!(
        trail.iter().all(|e| e["agent_id"] == who.as_str()),
        "{trail:?}"
    );
    let typed = trail.iter().find(|e| e["action"] == "web_write").unwrap();
    assert!(typed.to_string().contains("typed-"), "{typed}");
    // This machine's trail records the remote view, and keeps no trail of that session.
    let here = env.ok(&["log"]);
    assert!(here.contains(&format!("testbox: web_join {far}")), "{here}");

    // An agent session there: its input filter keeps a web `exit` from the program, and the
    // warning comes to this page.
    let agent = made(&["--json", "create", "--command", "sh -i"]);
    let (mut a, _) = View::join(&serve, &format!("testbox:{agent}"), &cookie, &own);
    a.send(json!({"type": "write"}));
    a.until_event("write mode", |e| {
        e["type"] == "mode" && e["mode"] == "write"
    });
    a.send(json!({"type": "input", "data": "exit\r"}));
    let blocked = a.until_event("blocked", |e| e["type"] == "blocked");
    assert_eq!(blocked["warning"], WEB_WARNING, "{blocked}");
    a.until_output(WEB_WARNING);
    a.send(json!({"type": "input", "data": "\x15echo alive-$((6*7))\r"}));
    a.until_output("alive-42");
    let blocked_there = host_web_trail(&ssh, &state, &agent)
        .iter()
        .any(|e| e["action"] == "web_write" && e["error_code"] == "INPUT_BLOCKED");
    assert!(blocked_there, "{:?}", host_web_trail(&ssh, &state, &agent));
    drop(a);

    // A name that is not a known host's session is refused, and no ssh is run for it: an
    // unknown host's is a local name (none such here), a known host's with a malformed id is
    // refused before anything is asked there, a session the host does not have is refused
    // by the host.
    let (cookie, own) = (cookie.as_str(), own.as_str());
    for (name, code) in [
        ("evilhost%3Apty_0123abcd", "INVALID_PARAMS"),
        ("ssh%3A%2F%2Fevilhost%3A22%3Apty_0123abcd", "INVALID_PARAMS"),
        ("evilhost%3A1", "PTY_SESSION_NOT_FOUND"),
        ("testbox%3A..%2Fetc", "INVALID_PARAMS"),
        ("testbox%3A", "INVALID_PARAMS"),
        ("testbox%3A-oProxyCommand%3Devilhost", "INVALID_PARAMS"),
        ("testbox%3Apty_0123abcd", "PTY_SESSION_NOT_FOUND"),
    ] {
        let path = format!("/console/ws/session/{name}");
        let (ws, mut r) =
            crate::console::websocket_at(&serve, &path, &[("Cookie", cookie), ("Origin", own)]);
        assert_eq!(ws.status, 101, "{name}");
        let (_, op, text) = crate::console::frame(&mut r).expect("an answer");
        let m: Value = serde_json::from_slice(&text).unwrap_or_default();
        assert_eq!(
            (op, &m["type"], &m["error_code"]),
            (0x1, &json!("error"), &json!(code)),
            "{name}: {m}"
        );
        let (_, op, _) = crate::console::frame(&mut r).expect("a close");
        assert_eq!(op, 0x8, "{name}: closed");
    }
    let ran = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        ran.contains("testbox") && !ran.contains("evilhost"),
        "{ran}"
    );
}

/// One attach frame as the holder protocol writes it.
fn attach_frame(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![kind];
    f.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    f.extend_from_slice(payload);
    f
}

#[test]
fn the_hosts_end_of_a_console_view_is_a_web_client_whatever_it_is_asked() {
    use std::io::{BufRead, Read, Write};
    let env = Env::new();
    let agent = env.create(&["--command", "sh -i"]);
    // Refused before anything is joined: a malformed id, a login name with a space, no JSON.
    for line in [
        json!({"session_id": "../x", "who": "web:ab", "attach": {"cols": 80, "rows": 24}})
            .to_string(),
        json!({"session_id": agent, "who": "web: ab", "attach": {"cols": 80, "rows": 24}})
            .to_string(),
        "not json".to_string(),
    ] {
        let mut c = env.cmd(&["__attach-stream"]);
        let mut child = c.stdin(Stdio::piped()).spawn().unwrap();
        let mut w = child.stdin.take().unwrap();
        writeln!(w, "{line}").unwrap();
        drop(w);
        let out = wait_child(child, &["__attach-stream"]);
        let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        assert_eq!(
            (out.status.code(), &v["error_code"]),
            (Some(1), &json!("INVALID_PARAMS")),
            "{line}: {v}"
        );
    }
    // Asked for a client that is not a web one, it joins as one: `exit` is kept from the
    // program and the warning comes back.
    let mut c = env.cmd(&["__attach-stream"]);
    let mut child = c.stdin(Stdio::piped()).spawn().unwrap();
    let mut w = child.stdin.take().unwrap();
    let ask = json!({"session_id": agent, "who": "web:abcd1234",
        "attach": {"cols": 80, "rows": 24, "web": false, "read_only": false}});
    writeln!(w, "{ask}").unwrap();
    let mut r = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut reply = String::new();
    r.read_line(&mut reply).unwrap();
    let reply: Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(
        (&reply["session_id"], &reply["body"]["web"]),
        (&json!(agent), &json!(true)),
        "{reply}"
    );
    w.write_all(&attach_frame(3, b"exit\r")).unwrap();
    let mut blocked = None;
    while blocked.is_none() {
        let mut head = [0u8; 5];
        r.read_exact(&mut head).expect("a frame from the holder");
        let len = u32::from_be_bytes(head[1..5].try_into().unwrap()) as usize;
        let mut body = vec![0u8; len];
        r.read_exact(&mut body).unwrap();
        if head[0] == 2 {
            let e: Value = serde_json::from_slice(&body).unwrap();
            blocked = (e["event"] == "blocked").then_some(e);
        }
    }
    assert!(s(blocked.as_ref().unwrap(), "warning").contains("Blocked from web"));
    // Its input's end is the client's leave: the process ends, the view is in the trail.
    drop(w);
    let out = wait_child(child, &["__attach-stream"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(env.entry(&agent)["state"], "running");
    let trail = env.ok(&["--json", "log", "-s", &agent]);
    for want in [
        "web_join",
        "web_write",
        "web_leave",
        "INPUT_BLOCKED",
        "web:abcd1234",
    ] {
        assert!(trail.contains(want), "{want}: {trail}");
    }
}

#[test]
fn in_a_real_browser_a_remote_tile_opens_its_terminal_there() {
    use crate::console_term::{rows_show, shows};
    let Some(b) = crate::webdriver::Browser::start() else {
        skip("chromium and chromedriver are not installed");
        return;
    };
    let Some(ssh) = Sshd::start() else { return };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let _sessions = ssh.sessions(&remote);
    let at = |args: &[&str]| on_testbox(&env, &ssh, &remote, args);
    let made: Value =
        serde_json::from_str(&at(&["--json", "create", "--label", "far-tile"])).unwrap();
    let far = s(&made, "session_id").to_string();
    at(&["talk", "-s", &far, "echo earlier-$((7*6))"]);
    let serve = serve_knowing_hosts(&env, &ssh, &remote, &remote.join("ssh.log"));
    let port = crate::console::port(&serve);
    let link = env.ok(&["console", "--port", &port]);
    b.go(link.trim());

    // The remote tile is a link like a local one's, to the terminal named HOST:ID.
    let open = format!("[data-session-id=\"testbox:{far}\"] a[data-action=open]");
    shows(&b, json!([open]));
    let href = b.run(
        "return document.querySelector(arguments[0]).getAttribute('href')",
        json!([open]),
    );
    assert_eq!(href, json!(format!("/console/session/testbox%3A{far}")));
    b.click(&open);
    rows_show(&b, "earlier-42");
    shows(&b, json!(["#terminal[data-host=testbox][data-mode=read]"]));
    shows(&b, json!(["#show-activity[hidden]"]));
    // Take control; a typed command runs there.
    b.click("[data-action=write]");
    shows(&b, json!(["#terminal[data-mode=write]"]));
    b.type_into("#terminal .xterm-helper-textarea", "echo typed-$((8*8))\n");
    rows_show(&b, "typed-64");
    let read = at(&["read", "-s", &far, "--since", "0", "--strip-ansi"]);
    assert!(read.contains("typed-64"), "{read}");
}
