//! The holder answers a program's terminal queries itself, from its screen model, as tmux
//! does: device attributes (DA1 `CSI c`, DA2 `CSI > c`), device status (`CSI 5 n`) and the
//! cursor position (`CSI 6 n`, `CSI ? 6 n`), whether or not anyone is attached.
//!
//! Attached terminals never see these queries (`crate::safety::term_out` drops them), so a
//! program gets exactly one answer: this one. Other queries (DECRQSS, XTGETTCAP, OSC colour
//! queries, window reports) get no answer, as from a terminal that does not know them.
//! Answers are written by their own thread through a bounded queue, so the reader thread
//! never waits on the program's input (a program that asks without reading loses answers,
//! never stalls its output).

use super::session::Shared;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};

/// Answers waiting to be written, at most.
const QUEUE: usize = 64;
/// The queue the reader thread hands answers to.
pub(super) type Answers = SyncSender<Vec<u8>>;

/// A queue and its receiving end, for [`Shared::answerer`].
#[must_use]
pub(super) fn queue() -> (Answers, Receiver<Vec<u8>>) {
    sync_channel(QUEUE)
}

impl Shared {
    /// Queue answers for the program (dropped when the queue is full).
    pub(super) fn answer(&self, bytes: Vec<u8>) {
        if let Some(tx) = self.answers.get() {
            match tx.try_send(bytes) {
                Ok(()) | Err(TrySendError::Disconnected(_)) => {}
                Err(TrySendError::Full(_)) => tracing::debug!("terminal answers: queue full"),
            }
        }
    }

    /// The answering thread: writes queued answers to the program, as a terminal would type
    /// them (the input filter follows them, unfiltered), for the holder's life (a restarted
    /// program is answered too; nothing is written while none runs).
    pub fn answerer(self: Arc<Self>, rx: Receiver<Vec<u8>>) {
        while let Ok(bytes) = rx.recv() {
            if self.lock().exit.is_some() {
                continue;
            }
            if let Err(e) = self.write_local(&bytes) {
                tracing::debug!("terminal answer: {e}");
            }
        }
    }
}
