//! A recording as an agent may see it: every output event redacted with the output around it
//! as context (a secret split over two events, or a private-key block that spans many, is
//! still found: [`crate::safety::redact::redact_window`]); input and markers were redacted
//! when recorded and are again here, as are the header's free-text fields.

use super::{Loaded, Timed};
use crate::cast::Code;
use crate::safety::redact::{context_after, context_before, redact, redact_window};

/// Most bytes of preceding output kept as context (a 4096-bit private key's block is about 3 KiB).
const BEFORE: usize = 16 << 10;
/// Most bytes of following output looked at for context.
const AFTER: usize = 8 << 10;

/// `loaded`, redacted in place.
pub fn redact_loaded(loaded: &mut Loaded) {
    let h = &mut loaded.header;
    for field in [&mut h.title, &mut h.command] {
        if let Some(v) = field.as_mut() {
            *v = redact(v).into_owned();
        }
    }
    for v in h.env.values_mut() {
        *v = redact(v).into_owned();
    }
    redact_events(&mut loaded.events);
}

/// Redact `events` in place.
fn redact_events(events: &mut [Timed]) {
    let outputs: Vec<usize> = (0..events.len())
        .filter(|&i| events[i].code == Code::Output)
        .collect();
    let originals: Vec<String> = outputs.iter().map(|&i| events[i].data.clone()).collect();
    let mut before = String::new();
    for (k, &i) in outputs.iter().enumerate() {
        let mut after = String::new();
        // The rest of the line is all the context needed: stop at a line's end.
        for next in &originals[k + 1..] {
            if after.len() >= AFTER || after.contains('\n') {
                break;
            }
            after.push_str(next);
        }
        let red = redact_window(
            context_before(&before),
            &originals[k],
            context_after(&after),
        );
        before.push_str(&originals[k]);
        if before.len() > 2 * BEFORE {
            let cut = before.len() - BEFORE;
            let cut = (cut..before.len())
                .find(|&c| before.is_char_boundary(c))
                .unwrap_or(before.len());
            before.drain(..cut);
        }
        events[i].data = red.into_owned();
    }
    for e in events.iter_mut().filter(|e| e.code != Code::Output) {
        e.data = redact(&e.data).into_owned();
    }
}
