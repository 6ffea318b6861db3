//! `kpty mcp`: the stdio MCP server (rmcp). One tool, `k_pty`, over the same core as the CLI;
//! sessions it creates are the CLI's sessions and outlive the server. Nothing but JSON-RPC is
//! written to stdout; logs go to stderr (`KPTY_LOG`, else `RUST_LOG`, else `warn`). Every
//! line read is checked first ([`transport`]): a bad one gets a JSON-RPC error reply.

mod cancels;
pub mod guard;
mod holder_conn;
pub mod lifecycle;
pub mod schema;
pub mod server;
mod talking;
pub mod transport;

use crate::core::Ctx;
use rmcp::ServiceExt;
use std::time::Duration;

/// How long talks still running when the client has gone get to stop after their Ctrl-C.
const TALK_STOP: Duration = Duration::from_secs(3);

/// stdin/stdout as rmcp's transport, every line checked first ([`transport::GuardedStdio`]).
fn stdio() -> transport::GuardedStdio<rmcp::transport::StdioReader, rmcp::transport::StdioWriter> {
    let (read, write) = rmcp::transport::stdio_pipes();
    transport::GuardedStdio::new(read, write)
}

/// Serve MCP on stdin/stdout until the client goes away; returns the exit code.
pub fn run(ctx: Ctx) -> i32 {
    crate::init_logging("warn");
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        // A person started it by hand: say what it is waiting for (stderr; stdout is JSON-RPC).
        eprintln!(
            "kpty mcp: waiting for an MCP client on stdin (JSON-RPC over stdio); MCP clients \
             start this themselves (e.g. `claude mcp add kpty -- kpty mcp`). Ctrl-D to quit."
        );
    }
    let ctx = ctx.on(crate::core::Channel::Mcp);
    // Registered sessions without a heartbeat for 7 days are dropped when a server starts.
    crate::core::registered::prune_at_start(&ctx);
    // Built by hand (not #[tokio::main]) so that shutdown cannot hang on a blocking stdin read.
    // One thread for the async side (stdio, rmcp's tasks, progress, a talk's wait for its
    // holder): other work runs on the blocking pool, so more workers only add hand-offs.
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("kpty mcp: cannot start the runtime: {e}");
            return 1;
        }
    };
    let talks = crate::core::running::Runs::default();
    let code = rt.block_on(async move {
        let server = server::KptyServer::new(ctx).listing_talks_in(talks.clone());
        let service = match server.serve(stdio()).await {
            Ok(s) => s,
            Err(e) => {
                // The client left before (or while) initializing: not a crash.
                tracing::info!("client went away during initialization: {e}");
                return 0;
            }
        };
        let (ct, stop) = (service.cancellation_token(), talks.clone());
        tokio::spawn(async move {
            if let Ok(mut term) =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            {
                term.recv().await;
                ct.cancel();
                // Asked to end: the talks still running stop now (Ctrl-C, their audit entries
                // written), not after rmcp's wait for the calls in flight (up to 5 s once the
                // client's input ended), by which time a client that sent SIGTERM may have
                // killed this process (rmcp's own client does, 3 s later).
                let deadline = std::time::Instant::now() + TALK_STOP;
                let _ = tokio::task::spawn_blocking(move || stop.cancel_all(deadline)).await;
            }
        });
        match service.waiting().await {
            Ok(reason) => tracing::info!("MCP session ended: {reason:?}"),
            Err(e) => tracing::warn!("MCP session ended with an error: {e}"),
        }
        // rmcp gave calls in flight 5 s to finish, then cancelled them; a talk still running
        // is stopped (Ctrl-C) before the process leaves, so its session is left free.
        let deadline = std::time::Instant::now() + TALK_STOP;
        let left = tokio::task::spawn_blocking(move || talks.cancel_all(deadline))
            .await
            .unwrap_or(0);
        if left > 0 {
            tracing::warn!("{left} talks did not stop in time; they run on in their sessions");
        }
        0
    });
    rt.shutdown_timeout(Duration::from_millis(200));
    code
}
