//! `help`: the actions, the configuration in force and the error codes, as the seeds' shape
//! (`{ok, data: {tool, description, actions, pywinpty_available, term_buffer_access}}`).

use super::{Ctx, config};
use crate::api::Action;
use crate::api::help::{Defaults, HelpData, HelpReply, TermBufferAccess};
use crate::api::reply::Success;
use crate::error::ErrorCode;

/// Run `help`.
pub fn help(ctx: &Ctx) -> HelpReply {
    HelpReply {
        ok: Success,
        data: HelpData {
            tool: "k_pty",
            description: "PTY control for agents, people and scripts: live terminals that survive across invocations",
            version: env!("CARGO_PKG_VERSION"),
            actions: Action::ALL
                .iter()
                .map(|a| (a.as_str(), a.summary()))
                .collect(),
            // The seeds' flag meant "a PTY backend is available"; kpty's holder always is.
            pywinpty_available: true,
            backend: "kpty-holder",
            term_buffer_access: TermBufferAccess {
                mode: config::term_buffer_access(),
                env: "KPTY_TERM_READ",
            },
            state_dir: ctx.state.path().display().to_string(),
            defaults: Defaults {
                shell: config::default_shell(),
                cols: config::default_cols(),
                rows: config::default_rows(),
                buffer_size: config::buffer_size(),
                scrollback: config::scrollback(),
                talk_timeout_ms: config::talk_timeout_ms(),
                read_max_bytes: crate::api::DEFAULT_READ_MAX_BYTES,
                read_timeout_ms: crate::api::DEFAULT_READ_TIMEOUT_MS,
            },
            exit_codes: ErrorCode::ALL
                .iter()
                .map(|c| (c.as_str(), c.exit_code()))
                .collect(),
            sandbox: crate::api::help::SandboxSupport {
                landlock_abi: crate::sandbox::apply::kernel_abi(),
                default: ctx.floor.mode != crate::sandbox::floor::Mode::Off,
                floor: ctx.floor.mode.as_str(),
                env: "KPTY_SANDBOX",
            },
            recording: {
                let (segment_bytes, total_bytes) = crate::store::recordings::caps();
                crate::api::help::RecordingDefaults {
                    default: super::create::records(None).is_some(),
                    segment_bytes,
                    total_bytes,
                    env: "KPTY_RECORD",
                }
            },
        },
    }
}
