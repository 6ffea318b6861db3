//! `kpty console`: the login link of this state directory's web console (the token after `#`),
//! whether a `kpty serve` answers there, `--open` in the browser, `--revoke` to end every
//! console login.

use super::args::ConsoleArgs;
use super::output::print_json;
use crate::core::Ctx;
use crate::error::{Error, Result};
use crate::serve::console::login;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `kpty --json console --revoke`.
#[derive(serde::Serialize)]
struct Revoked {
    ok: bool,
    revoked: bool,
}

/// `kpty --json console`: the link, and whether a `kpty serve` answers there.
#[derive(serde::Serialize)]
struct Link<'a> {
    ok: bool,
    console_url: &'a str,
    port: u16,
    serving: bool,
    opened: bool,
}

/// Run `kpty console`.
pub fn run(ctx: &Ctx, a: &ConsoleArgs, json_out: bool) -> Result<i32> {
    if a.revoke {
        login::revoke(&ctx.state)?;
        if json_out {
            print_json(&Revoked {
                ok: true,
                revoked: true,
            });
        } else {
            eprintln!("kpty: every console login has ended; `kpty console` prints a new link");
        }
        return Ok(0);
    }
    let base = Base::of(a)?;
    let url = login::link(&ctx.state, &base.url)?;
    let serving = base.answers();
    let opened = if a.open {
        Some(open(&ctx.state, &url)?)
    } else {
        None
    };
    if json_out {
        print_json(&Link {
            ok: true,
            console_url: &url,
            port: base.port,
            serving,
            opened: opened.is_some(),
        });
        return Ok(0);
    }
    println!("{url}");
    if !serving {
        eprintln!(
            "kpty: no kpty serve answers at {} yet: start `kpty serve` for {} (the link works once it runs)",
            base.url,
            ctx.state.path().display()
        );
    }
    if let Some(how) = opened {
        eprintln!("kpty: opened with {how}");
    }
    Ok(0)
}

/// Where the console's `kpty serve` is.
struct Base {
    /// `scheme://host:port`, no trailing slash.
    url: String,
    port: u16,
    /// Whether it speaks TLS.
    tls: bool,
    /// The host and port to reach it at.
    authority: String,
}

impl Base {
    /// `--url`, else `http://127.0.0.1:` `--port` (or `KPTY_PORT`, or the default).
    fn of(a: &ConsoleArgs) -> Result<Self> {
        let Some(url) = &a.url else {
            let port = crate::serve::first_port(a.port)?;
            if port == 0 {
                return Err(Error::invalid(
                    "the console link needs a fixed port (--port 0 picks a different one each start)",
                ));
            }
            return Ok(Base {
                url: format!("http://127.0.0.1:{port}"),
                port,
                tls: false,
                authority: format!("127.0.0.1:{port}"),
            });
        };
        let bad = |why: &str| {
            Error::invalid(format!(
                "--url {url:?}: {why}; give the server's address as its browsers reach it, \
                 e.g. https://devbox.example:8201"
            ))
        };
        let uri: ureq::http::Uri = url.trim().parse().map_err(|_| bad("not a URL"))?;
        let tls = match uri.scheme_str() {
            Some("https") => true,
            Some("http") => false,
            _ => return Err(bad("it must start with http:// or https://")),
        };
        if !matches!(uri.path(), "" | "/") || uri.query().is_some() {
            return Err(bad("the address only: no path or query"));
        }
        let Some(auth) = uri.authority().filter(|a| !a.host().is_empty()) else {
            return Err(bad("no host"));
        };
        if auth.as_str().contains('@') {
            return Err(bad("no user name or password"));
        }
        let port = auth.port_u16().unwrap_or(if tls { 443 } else { 80 });
        let host = auth.host();
        Ok(Base {
            url: format!("{}://{host}:{port}", if tls { "https" } else { "http" }),
            port,
            tls,
            authority: format!("{host}:{port}"),
        })
    }

    /// Whether a kpty console answers there (over TLS: whether the port takes a connection;
    /// the certificate is the browser's to check).
    fn answers(&self) -> bool {
        const WAIT: Duration = Duration::from_secs(1);
        if self.tls {
            // The name lookup has no timeout of its own: the whole probe runs on a thread
            // waited for at most WAIT (a lookup still going on is left to finish alone).
            use std::net::ToSocketAddrs;
            let host = self.authority.clone();
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let up = host.to_socket_addrs().is_ok_and(|mut addrs| {
                    addrs.any(|a| std::net::TcpStream::connect_timeout(&a, WAIT).is_ok())
                });
                let _ = tx.send(up);
            });
            return rx.recv_timeout(WAIT).unwrap_or(false);
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .proxy(None)
            .http_status_as_error(false)
            .timeout_global(Some(WAIT))
            .build()
            .into();
        agent
            .get(format!("{}/console/", self.url))
            .call()
            .is_ok_and(|r| r.status() == 200)
    }
}

/// Open `url` in the browser through a page in the private directory that forwards to it (a
/// command line is readable by every user of the machine; the file is this user's, 0600).
/// Returns the program that opened it.
fn open(state: &crate::store::StateDir, url: &str) -> Result<String> {
    let page = crate::serve::secret::private_file(state, "console", "html")?;
    write_private(&page, &forwarding_page(url))?;
    let program = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| "xdg-open".to_string());
    std::process::Command::new(&program)
        .arg(&page)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| {
            Error::invalid(format!(
                "cannot start {program} to open the console ({e}); set BROWSER, or open the link printed above"
            ))
        })?;
    Ok(program)
}

/// A page that sends the browser on to `url` at once.
fn forwarding_page(url: &str) -> String {
    let attr = url
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;");
    format!(
        "<!doctype html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\">\
         <meta http-equiv=\"refresh\" content=\"0; url={attr}\"><title>kpty console</title>\
         <a href=\"{attr}\">kpty console</a>\n"
    )
}

/// Replace `path` with `text`, the new file made 0600 and never through a link.
fn write_private(path: &Path, text: &str) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let dir: PathBuf = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(".console-")
        .permissions(std::fs::Permissions::from_mode(0o600))
        .tempfile_in(&dir)
        .map_err(|e| Error::state(&dir, format!("cannot create a temp file: {e}")))?;
    tmp.write_all(text.as_bytes())
        .map_err(|e| Error::state(path, e))?;
    tmp.persist(path).map_err(|e| Error::state(path, e.error))?;
    Ok(())
}
