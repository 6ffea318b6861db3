//! An animated GIF of a sequence of screens (a recording's), each drawn exactly as a PNG
//! screenshot is, each shown for its own time.
//!
//! What keeps it small and fast:
//! - a screen that looks like the one on show (its cells and cursor; a title is not drawn)
//!   is not drawn again: that frame stays up for the sum of their times;
//! - a screen that comes less than [`MIN_DELAY_MS`] after the frame on show began takes that
//!   frame's place (viewers stretch shorter frames to 100 ms, which would slow typing down):
//!   the screen it replaces was up too briefly to be seen, and the last screen is always
//!   shown;
//! - at most [`MAX_FRAMES`] frames: past that, the shortest time a frame is shown doubles
//!   until the frames fit, so a long recording becomes a coarser animation (screens sampled
//!   at that interval), never an error;
//! - each frame holds only the rectangle that changed since the previous one, with its own
//!   palette: the exact colours when there are 256 or fewer, else 256 picked by NeuQuant.
//!
//! The canvas is the largest screen's size; a smaller screen is drawn from the top-left
//! corner on the terminal's background. A GIF's delays are in hundredths of a second: the
//! frames' times are rounded on a running clock (no drift), and one frame is shown for at
//! most about 11 minutes (65 535 cs). The animation loops.

use super::raster;
use crate::error::{Error, Result};
use crate::proto::screen::ScreenBody;
use std::time::Duration;

/// The most frames an animation has.
pub const MAX_FRAMES: usize = 2000;

/// The shortest time a frame is shown, in milliseconds: a GIF viewer shows a frame with a
/// delay under 20 ms for 100 ms.
pub const MIN_DELAY_MS: u64 = 20;

/// NeuQuant's speed (1 best, 30 fastest) for a frame of more than 256 colours.
const QUANT_SPEED: i32 = 10;

/// One frame to draw: its screen, when it begins and how long it is shown, in hundredths of
/// a second.
struct Shown<'a> {
    body: &'a ScreenBody,
    start: u64,
    cs: u64,
}

/// The screens `frames` (each with the time it is shown) as an animated GIF. Fails on an
/// empty sequence, or when the largest screen is over what kpty draws (16 megapixels).
pub fn gif(frames: &[(ScreenBody, Duration)]) -> Result<Vec<u8>> {
    if frames.is_empty() {
        return Err(Error::invalid("an animation needs at least one screen"));
    }
    let shown = timeline(frames);
    let (w, h) = shown
        .iter()
        .map(|s| raster::pixels(s.body))
        .fold((1, 1), |(w, h), (x, y)| (w.max(x), h.max(y)));
    raster::check_size(w, h)?;
    let side = |n: u32| {
        u16::try_from(n).map_err(|_| Error::invalid(format!("{n} px is wider than a GIF")))
    };
    let (gw, gh) = (side(w)?, side(h)?);
    let failed = |e: ::gif::EncodingError| Error::internal(format!("cannot encode the GIF: {e}"));
    let mut enc = ::gif::Encoder::new(Vec::new(), gw, gh, &[]).map_err(failed)?;
    enc.set_repeat(::gif::Repeat::Infinite).map_err(failed)?;
    let mut painter = raster::Painter::default();
    let mut before: Option<Vec<u8>> = None;
    let mut pending: Option<::gif::Frame<'static>> = None;
    for s in &shown {
        let now = painter.draw(s.body, (w, h))?.take();
        match changed(before.as_deref(), &now, w as usize) {
            // Drawn the same (a title changed): the frame on screen stays up longer.
            None => {
                if let Some(f) = pending.as_mut() {
                    f.delay = delay(u64::from(f.delay) + s.cs);
                }
            }
            Some(rect) => {
                if let Some(f) = pending.replace(frame(&now, w as usize, rect, s.cs)) {
                    enc.write_frame(&f).map_err(failed)?;
                }
            }
        }
        before = Some(now);
    }
    if let Some(f) = pending {
        enc.write_frame(&f).map_err(failed)?;
    }
    enc.into_inner().map_err(failed)
}

/// The frames to draw: screens that look alike merged, short-lived ones replaced, at most
/// [`MAX_FRAMES`] (the shortest time shown doubled until they fit).
fn timeline(frames: &[(ScreenBody, Duration)]) -> Vec<Shown<'_>> {
    let mut min_cs = MIN_DELAY_MS / 10;
    loop {
        let shown = fold(frames, min_cs);
        // Each frame but the last is up for at least `min_cs`: a large enough one fits.
        if shown.len() <= MAX_FRAMES {
            return shown;
        }
        min_cs = min_cs.saturating_mul(2);
    }
}

/// `frames` on a running clock in hundredths of a second: a screen that looks like the one
/// on show extends it; one that comes less than `min_cs` after the frame on show began
/// takes its place.
fn fold(frames: &[(ScreenBody, Duration)], min_cs: u64) -> Vec<Shown<'_>> {
    let cs = |ms: u128| u64::try_from(ms.saturating_add(5) / 10).unwrap_or(u64::MAX);
    let mut out: Vec<Shown<'_>> = Vec::new();
    let mut clock_ms = 0u128;
    for (body, time) in frames {
        let start = cs(clock_ms);
        clock_ms = clock_ms.saturating_add(time.as_millis());
        match out.last_mut() {
            Some(on) if looks_alike(on.body, body) => {}
            Some(on) if start - on.start < min_cs => on.body = body,
            _ => out.push(Shown { body, start, cs: 0 }),
        }
        if let Some(on) = out.last_mut() {
            on.cs = cs(clock_ms) - on.start;
        }
    }
    out
}

/// Two screens drawn alike: the same size, cells and cursor (the title is not drawn).
fn looks_alike(a: &ScreenBody, b: &ScreenBody) -> bool {
    (a.cols, a.rows, a.cursor, &a.lines) == (b.cols, b.rows, b.cursor, &b.lines)
}

/// A frame's delay: at least [`MIN_DELAY_MS`], at most what a GIF holds.
fn delay(cs: u64) -> u16 {
    u16::try_from(cs.max(MIN_DELAY_MS / 10)).unwrap_or(u16::MAX)
}

/// A rectangle of the canvas, in pixels: left, top, width, height.
type Rect = (usize, usize, usize, usize);

/// The rectangle of `now` (RGBA rows of `w` pixels) that differs from `before`: all of it
/// when there is no `before`, `None` when nothing differs.
fn changed(before: Option<&[u8]>, now: &[u8], w: usize) -> Option<Rect> {
    let row = w * 4;
    let h = now.len() / row.max(1);
    let Some(before) = before else {
        return Some((0, 0, w, h));
    };
    let rows: Vec<(&[u8], &[u8])> = before
        .chunks_exact(row)
        .zip(now.chunks_exact(row))
        .collect();
    let top = rows.iter().position(|(a, b)| a != b)?;
    let bottom = rows.iter().rposition(|(a, b)| a != b)?;
    let (mut left, mut right) = (w, 0);
    for (a, b) in &rows[top..=bottom] {
        let px = |i: &usize| a[i * 4..i * 4 + 4] != b[i * 4..i * 4 + 4];
        if let Some(l) = (0..w).find(px) {
            left = left.min(l);
        }
        if let Some(r) = (0..w).rev().find(px) {
            right = right.max(r);
        }
    }
    // A row that differs has a first and a last pixel that differ: left <= right.
    Some((
        left,
        top,
        (right + 1).saturating_sub(left),
        bottom + 1 - top,
    ))
}

/// The frame of `rect` of the canvas `rgba` (rows of `w` pixels), shown for `cs`.
fn frame(rgba: &[u8], w: usize, (left, top, rw, rh): Rect, cs: u64) -> ::gif::Frame<'static> {
    let mut pixels: Vec<u8> = rgba
        .chunks_exact(w * 4)
        .skip(top)
        .take(rh)
        .flat_map(|r| &r[left * 4..(left + rw) * 4])
        .copied()
        .collect();
    // The rectangle lies on a canvas whose sides fit a GIF's (u16).
    let side = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
    let mut f = ::gif::Frame::from_rgba_speed(side(rw), side(rh), &mut pixels, QUANT_SPEED);
    f.left = side(left);
    f.top = side(top);
    f.delay = delay(cs);
    f.dispose = ::gif::DisposalMethod::Keep;
    f
}

#[cfg(test)]
#[path = "anim_tests.rs"]
mod tests;
