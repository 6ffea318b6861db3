//! A real headless chromium driven over WebDriver (W3C, through `chromedriver`), for the web
//! console's tests: a small client over ureq — new session, go to, run a script (sync or
//! async), delete the session. The driver and its browser are ended on Drop, even when the
//! test failed. Without chromium the tests that need it are skipped, unless `CI` is set
//! (`.ci/run` installs `chromium` and `chromium-driver`): then they fail.

use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A browser session.
pub(crate) struct Browser {
    driver: Child,
    base: String,
    session: String,
    agent: ureq::Agent,
    _profile: tempfile::TempDir,
}

/// The browser and its driver, when installed (`None` outside CI when they are not).
fn programs() -> Option<(String, String)> {
    let find = |names: &[&str]| {
        names.iter().find_map(|n| {
            let p = std::path::Path::new("/usr/bin").join(n);
            p.exists().then(|| p.to_string_lossy().into_owned())
        })
    };
    let found =
        find(&["chromium", "chromium-browser", "google-chrome"]).zip(find(&["chromedriver"]));
    if found.is_none() && std::env::var_os("CI").is_some() {
        panic!(
            "chromium and chromedriver are needed in CI (apt-get install chromium chromium-driver)"
        );
    }
    found
}

/// A channel that gets a message once chromedriver says it listens; its output is read to
/// the end meanwhile (a full pipe would stop it).
fn started(out: std::process::ChildStdout) -> std::sync::mpsc::Receiver<()> {
    use std::io::BufRead;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            if line.contains("started successfully") {
                let _ = tx.send(());
            }
        }
    });
    rx
}

/// A free port on 127.0.0.1 (for the driver to listen on).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

impl Browser {
    /// Start chromedriver and a headless chromium; `None` when they are not installed (and
    /// `CI` is not set).
    pub(crate) fn start() -> Option<Self> {
        let (chromium, chromedriver) = programs()?;
        let port = free_port();
        let mut driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let started = started(driver.stdout.take().expect("chromedriver's stdout"));
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .proxy(None)
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        let profile = tempfile::tempdir().expect("a browser profile");
        let mut b = Browser {
            driver,
            base: format!("http://127.0.0.1:{port}"),
            session: String::new(),
            agent,
            _profile: profile,
        };
        started
            .recv_timeout(Duration::from_secs(30))
            .expect("chromedriver said it started");
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            // The TLS tests' certificates are their own, made for the test.
            "acceptInsecureCerts": true,
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--no-first-run",
                         format!("--user-data-dir={}", b._profile.path().display())],
            },
        }}});
        let v = b.call("POST", "/session", Some(caps));
        b.session = v["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no browser session: {v}"))
            .to_string();
        b.call(
            "POST",
            &format!("/session/{}/timeouts", b.session),
            Some(json!({"script": 30_000, "pageLoad": 30_000})),
        );
        Some(b)
    }

    /// One WebDriver command: its `value`.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let res = match (method, body) {
            ("DELETE", _) => self.agent.delete(&url).call(),
            ("GET", _) => self.agent.get(&url).call(),
            (_, Some(b)) => self.agent.post(&url).send_json(b),
            (_, None) => self.agent.post(&url).send_json(json!({})),
        };
        let v: Value = res
            .expect("chromedriver answers")
            .body_mut()
            .read_json()
            .unwrap_or(Value::Null);
        v["value"].clone()
    }

    /// Go to `url` (waits for the page to load).
    pub(crate) fn go(&self, url: &str) {
        let v = self.call(
            "POST",
            &format!("/session/{}/url", self.session),
            Some(json!({ "url": url })),
        );
        assert!(v.is_null(), "navigating to {url}: {v}");
    }

    /// Run `script` (a function body; `arguments` are `args`) in the page: what it returns.
    pub(crate) fn run(&self, script: &str, args: Value) -> Value {
        self.call(
            "POST",
            &format!("/session/{}/execute/sync", self.session),
            Some(json!({ "script": script, "args": list(args) })),
        )
    }

    /// Run `script` asynchronously: it ends by calling its last argument with the result
    /// (bounded by the session's 30 s script timeout).
    pub(crate) fn run_async(&self, script: &str, args: Value) -> Value {
        self.call(
            "POST",
            &format!("/session/{}/execute/async", self.session),
            Some(json!({ "script": script, "args": list(args) })),
        )
    }
}

impl Browser {
    /// The WebDriver reference of the element `css` finds.
    fn element(&self, css: &str) -> String {
        let found = self.call(
            "POST",
            &format!("/session/{}/element", self.session),
            Some(json!({"using": "css selector", "value": css})),
        );
        found
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element {css}: {found}"))
            .to_string()
    }

    /// Type `text` into the element `css` finds, as a person's keystrokes (WebDriver's
    /// element send keys: real key events, `\n` is Enter).
    pub(crate) fn type_into(&self, css: &str, text: &str) {
        let element = self.element(css);
        let v = self.call(
            "POST",
            &format!("/session/{}/element/{element}/value", self.session),
            Some(json!({ "text": text })),
        );
        assert!(v.is_null(), "typing into {css}: {v}");
    }

    /// Click the element `css` finds (found again if the page replaced it in between).
    pub(crate) fn click(&self, css: &str) {
        for _ in 0..5 {
            let element = self.element(css);
            let v = self.call(
                "POST",
                &format!("/session/{}/element/{element}/click", self.session),
                None,
            );
            if v["error"] != "stale element reference" {
                assert!(v.is_null(), "clicking {css}: {v}");
                return;
            }
        }
        panic!("{css} was replaced five times while clicking it");
    }
}

/// A script's arguments as WebDriver wants them: a list (`null`: none).
fn list(args: Value) -> Value {
    if args.is_null() { json!([]) } else { args }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self
                .agent
                .delete(format!("{}/session/{}", self.base, self.session))
                .call();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
