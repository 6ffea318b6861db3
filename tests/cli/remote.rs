//! Sessions on another machine over a real OpenSSH: each test starts `sshd` on 127.0.0.1 and
//! a free port with a host key and an authorized key made for it, and points kpty at it with
//! `KPTY_SSH_COMMAND=ssh -F CONFIG` (strict host-key checking, the generated known_hosts).
//! Covered: talk and persistence across calls (and the first-use install), the local audit
//! entry, an unreachable port and a changed host key (`HOST_UNREACHABLE`, never bypassed), a
//! connection killed mid-talk (the remote session lives on), `list --all-hosts` with a dead
//! host, and MCP's `host`.

use crate::support::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A private sshd and the client configuration that reaches it as `testbox`.
pub(crate) struct Sshd {
    dir: tempfile::TempDir,
    pid: u32,
}

impl Sshd {
    /// Start one; `None` when sshd (or ssh) is not installed (a failure under CI).
    pub(crate) fn start() -> Option<Self> {
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
        let conf = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/hostkey\nPidFile {d}/sshd.pid\n\
             AuthorizedKeysFile {d}/authorized_keys\nUsePAM no\nStrictModes no\n\
             PasswordAuthentication no\nPermitRootLogin yes\nMaxStartups 50\n",
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
        Some(Self { dir, pid })
    }

    /// `KPTY_SSH_COMMAND` for it.
    pub(crate) fn ssh_command(&self) -> String {
        format!("ssh -F {}", self.dir.path().join("config").display())
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
        // The connections kpty left open (ControlPersist) end with the server.
        let _ = Command::new("kill").arg(self.pid.to_string()).status();
    }
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

fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_str(stdout(out).lines().last().unwrap_or("")).unwrap_or(Value::Null)
}

/// The sessions made "on the host" under a remote directory: they are this machine's
/// holders too, killed when the test ends, however it ends.
struct Sessions(PathBuf);

impl Drop for Sessions {
    fn drop(&mut self) {
        let state = self.0.join("ai/checkpoints/pty");
        if state.exists() {
            let _ = Command::new(env!("CARGO_BIN_EXE_kpty"))
                .arg("--state-dir")
                .arg(&state)
                .args(["kill", "--all"])
                .output();
        }
    }
}

#[test]
fn talk_over_ssh_persists_across_calls_and_is_audited_here() {
    let Some(ssh) = Sshd::start() else { return };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let _sessions = Sessions(remote.clone());
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

#[test]
fn an_unreachable_host_or_a_changed_host_key_is_host_unreachable() {
    let Some(ssh) = Sshd::start() else { return };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let _sessions = Sessions(remote.clone());
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
    let _sessions = Sessions(remote.clone());
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
    let busy = || {
        let out = Command::new(env!("CARGO_BIN_EXE_kpty"))
            .arg("--state-dir")
            .arg(&state)
            .args(["--json", "list"])
            .output()
            .unwrap();
        json_of(&out)["sessions"][0]["busy"] == true
    };
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
    let _sessions = Sessions(remote.clone());
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

#[tokio::test(flavor = "multi_thread")]
async fn over_mcp_an_action_with_host_runs_there() {
    let Some(ssh) = Sshd::start() else { return };
    let env = Env::new();
    let remote = ssh.remote_dir("work");
    let _sessions = Sessions(remote.clone());
    let mut c = env.cmd(&["mcp"]);
    c.env("KPTY_SSH_COMMAND", ssh.ssh_command())
        .env("KPTY_REMOTE_DIR", &remote);
    let m = crate::mcp::start_cmd(c).await;
    let v = m
        .json(json!({"action": "talk", "host": "testbox", "command": "echo 'from afar GITHUB_TOKEN=ghp_R4nd0mGitHubT0kenAbCdEfGhIjKlMnOpQr'"}))
        .await;
    let out = v["output"].as_str().unwrap_or("");
    assert!(
        out.contains("from afar") && !out.contains("R4nd0mGitHubT0ken"),
        "{v}"
    );
    let v = m.json(json!({"action": "list", "host": "deadbox"})).await;
    assert_eq!(v["error_code"], "HOST_UNREACHABLE", "{v}");
    m.close().await;
}
