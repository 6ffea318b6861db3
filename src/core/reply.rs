//! Every action's typed reply in one enum: what [`super::run`] returns. It serializes
//! (untagged) to the action's JSON object, which front ends make only at their edge
//! ([`super::to_json`]); human renderers match on it and read fields.

use crate::api::check::CheckReply;
use crate::api::help::HelpReply;
use crate::api::reply::{
    KillReply, ReadReply, ResizeReply, SendKeysReply, SendLineReply, TalkReply, TermReadReply,
};
use crate::api::sessions::{
    CreateReply, HeartbeatReply, ListReply, PruneReply, ResolveReply, SendLineToAgentReply,
    ShellReply, UnregisterReply,
};
use crate::store::RegistryEntry;
use serde::Serialize;

/// One action's success.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Reply {
    /// `help`.
    Help(HelpReply),
    /// `list`.
    List(ListReply<RegistryEntry>),
    /// `create`.
    Create(CreateReply),
    /// `send_line`.
    SendLine(SendLineReply),
    /// `read`.
    Read(ReadReply),
    /// `term_read`.
    TermRead(TermReadReply),
    /// `screenshot`.
    Screenshot(crate::api::reply::ScreenshotReply),
    /// `recording`.
    Recording(crate::api::reply::RecordingReply),
    /// `evidence`.
    Evidence(crate::api::reply::EvidenceReply),
    /// `talk` / `run`.
    Talk(TalkReply),
    /// `check`.
    Check(CheckReply),
    /// `resize`.
    Resize(ResizeReply),
    /// `kill`.
    Kill(KillReply),
    /// `kill` with `all`.
    KillAll(crate::api::batch::KillAllReply),
    /// `list` with `all`.
    ListAll(crate::api::batch::ListAllReply<RegistryEntry>),
    /// `resolve`, `register`, `update_ownership`: the session acted on.
    Session(ResolveReply<RegistryEntry>),
    /// `send_line_to_agent`.
    SendLineToAgent(SendLineToAgentReply<RegistryEntry>),
    /// `unregister`.
    Unregister(UnregisterReply),
    /// `heartbeat`.
    Heartbeat(HeartbeatReply),
    /// `prune`.
    Prune(PruneReply),
    /// `send_keys`.
    SendKeys(SendKeysReply),
    /// `wait_for`.
    WaitFor(crate::api::wait::WaitForReply),
    /// `shell`.
    Shell(ShellReply),
}
