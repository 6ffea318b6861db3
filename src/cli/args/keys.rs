//! `send-keys`: press named keys and chords in a session (tmux's spelling).

use super::SessionArg;
use clap::Args;

// `send-keys`.
#[derive(Debug, Args)]
pub struct SendKeysArgs {
    #[command(flatten)]
    pub session: SessionArg,
    /// Type each KEY as text instead of reading it as a key name (tmux's -l); no Enter.
    #[arg(short, long)]
    pub literal: bool,
    /// Keys, in tmux's spelling: Enter, Tab, BTab, Space, BSpace, Escape, Up, Down, Left,
    /// Right, Home, End, PageUp, PageDown, Insert, Delete, F1-F12, KP0-KP9, a single
    /// character, or a code 0xNN, after modifiers C- (Ctrl), M- (Meta/Alt), S- (Shift): C-c,
    /// M-b, S-Up. An unknown name is an error (INVALID_PARAMS), nothing typed.
    #[arg(
        required = true,
        num_args = 1..,
        allow_hyphen_values = true,
        trailing_var_arg = true,
        value_name = "KEY",
        add = crate::cli::complete::keys()
    )]
    pub keys: Vec<String>,
    #[command(flatten)]
    pub(crate) globals: super::Globals,
}
