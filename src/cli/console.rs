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
    let port = crate::serve::first_port(a.port)?;
    if port == 0 {
        return Err(Error::invalid(
            "the console link needs a fixed port (--port 0 picks a different one each start)",
        ));
    }
    let url = login::link(&ctx.state, port)?;
    let serving = answers(port);
    let opened = if a.open {
        Some(open(&ctx.state, &url)?)
    } else {
        None
    };
    if json_out {
        print_json(&Link {
            ok: true,
            console_url: &url,
            port,
            serving,
            opened: opened.is_some(),
        });
        return Ok(0);
    }
    println!("{url}");
    if !serving {
        eprintln!(
            "kpty: no kpty serve answers on port {port} yet: start `kpty serve` for {} (the link works once it runs)",
            ctx.state.path().display()
        );
    }
    if let Some(how) = opened {
        eprintln!("kpty: opened with {how}");
    }
    Ok(0)
}

/// Whether a kpty console answers on 127.0.0.1:`port`.
fn answers(port: u16) -> bool {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .proxy(None)
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(1)))
        .build()
        .into();
    agent
        .get(format!("http://127.0.0.1:{port}/console/"))
        .call()
        .is_ok_and(|r| r.status() == 200)
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
