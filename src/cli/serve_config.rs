//! `kpty serve --print-config`: how to connect an MCP client to this state directory's
//! `kpty serve` — a `claude mcp add --transport http` line and a JSON client config, the
//! secret filled in (this is the person's own terminal; the secret file is theirs too) — and
//! the web console's login link.

use super::args::ServeArgs;
use super::output::print_json;
use crate::core::Ctx;
use crate::error::{Error, Result};
use serde_json::json;

/// The name the HTTP server is added under in an MCP client: apart from the stdio server's
/// `kpty`, so a client can have both.
const HTTP_NAME: &str = "kpty-http";

/// Print the client configuration for the port `kpty serve` would try first.
pub fn print(ctx: &Ctx, a: &ServeArgs, json_out: bool) -> Result<i32> {
    let port = crate::serve::first_port(a.port)?;
    if port == 0 {
        return Err(Error::invalid(
            "--print-config needs a fixed port (--port 0 picks a different one each start)",
        ));
    }
    let secret = crate::serve::secret::load_or_create(&ctx.state)?;
    let base = super::listen(&a.listen)?.base(port);
    let url = format!("{base}/mcp");
    let header = format!("Authorization: Bearer {secret}");
    let claude = format!("claude mcp add --transport http {HTTP_NAME} {url} --header \"{header}\"");
    let config = json!({"mcpServers": {HTTP_NAME: {
        "type": "http",
        "url": url,
        "headers": {"Authorization": format!("Bearer {secret}")},
    }}});
    let console_url = crate::serve::console::login::link(&ctx.state, &base)?;
    if json_out {
        print_json(
            &json!({"ok": true, "url": url, "claude": claude, "config": config, "console_url": console_url}),
        );
        return Ok(0);
    }
    println!("# Claude Code:");
    println!("{claude}");
    println!();
    println!("# Other MCP clients (an mcpServers entry):");
    println!(
        "{}",
        serde_json::to_string_pretty(&config).unwrap_or_default()
    );
    println!();
    println!("# The web console (a login link; `kpty console` prints it too):");
    println!("{console_url}");
    eprintln!(
        "kpty: for `kpty serve` on port {port} of {} (when that port is taken at start, serve takes the next free one and prints its URL; --port pins it)",
        ctx.state.path().display()
    );
    Ok(0)
}

/// `kpty serve --new-secret`: make a new bridge secret for this state directory and say
/// where it is (never the secret itself).
pub fn new_secret(ctx: &Ctx, json_out: bool) -> Result<i32> {
    let file = crate::serve::secret::renew(&ctx.state)?;
    let legacy = crate::serve::secret::legacy_path(&ctx.state);
    let has_legacy = std::fs::symlink_metadata(&legacy).is_ok();
    if json_out {
        print_json(
            &json!({"ok": true, "secret_file": file.display().to_string(),
                           "legacy_secret_file": has_legacy.then(|| legacy.display().to_string())}),
        );
        return Ok(0);
    }
    println!("{}", file.display());
    eprintln!(
        "kpty: a new bridge secret for {} is in {} (mode 0600); clients need it now{}",
        ctx.state.path().display(),
        file.display(),
        if has_legacy {
            format!(
                "; remove the old one kpty no longer uses: rm {}",
                legacy.display()
            )
        } else {
            String::new()
        }
    );
    Ok(0)
}

/// `kpty serve --secret-file`: where this state directory's bridge secret is (made first
/// when missing, refused as `serve` refuses it), never the secret itself.
pub fn secret_file(ctx: &Ctx, json_out: bool) -> Result<i32> {
    crate::serve::secret::load_or_create(&ctx.state)?;
    let file = crate::serve::secret::path(&ctx.state)?;
    if json_out {
        print_json(&json!({"ok": true, "secret_file": file.display().to_string()}));
    } else {
        println!("{}", file.display());
    }
    Ok(0)
}
