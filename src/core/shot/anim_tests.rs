//! The animation's timeline and frames: screens that look alike are merged, short-lived ones
//! replaced by the next (the last always shown), times rounded on a running clock, the frame
//! count capped; a frame holds only the rectangle that changed. (The GIF as a whole is decoded in tests/cli's
//! screenshot tests, through the public `gif`.)

use super::*;
use crate::proto::screen::{Row, Span, Style};

/// A one-row screen showing `text`.
fn screen(text: &str) -> ScreenBody {
    ScreenBody {
        cols: 10,
        rows: 1,
        cursor: None,
        title: None,
        lines: vec![Row {
            wrapped: false,
            spans: vec![Span {
                text: text.into(),
                width: text.chars().count() as u16,
                style: Style::default(),
            }],
        }],
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// The timeline as (text of the screen, hundredths of a second).
fn times(frames: &[(ScreenBody, Duration)]) -> Vec<(String, u64)> {
    timeline(frames)
        .iter()
        .map(|s| (super::super::text_of(&s.body.lines[0]), s.cs))
        .collect()
}

#[test]
fn alike_screens_merge_and_a_short_lived_one_is_replaced_by_the_next() {
    let titled = ScreenBody {
        title: Some("another title".into()),
        ..screen("a")
    };
    let frames = [
        (screen("a"), ms(100)),
        (screen("a"), ms(250)),
        (titled, ms(50)),
        // Shown for 10 ms: "abc" takes its place.
        (screen("ab"), ms(10)),
        (screen("abc"), ms(1000)),
        // The last screen is shown, however short.
        (screen("abcd"), ms(0)),
    ];
    let t = times(&frames);
    assert_eq!(
        t,
        [("a".into(), 40), ("abc".into(), 101), ("abcd".into(), 0)]
    );
}

#[test]
fn times_are_rounded_on_a_running_clock() {
    // Three frames of 25 ms: 2.5 cs each would round to 3+3+3 (or 2+2+2); the clock gives
    // 3+2+3 = 8 cs for 75 ms.
    let frames = [
        (screen("a"), ms(25)),
        (screen("b"), ms(25)),
        (screen("c"), ms(25)),
    ];
    let t: Vec<u64> = times(&frames).into_iter().map(|(_, cs)| cs).collect();
    assert_eq!(t, [3, 2, 3]);
    assert_eq!((delay(0), delay(7), delay(1 << 20)), (2, 7, u16::MAX));
}

#[test]
fn too_many_frames_are_thinned_to_the_cap() {
    let frames: Vec<(ScreenBody, Duration)> = (0..MAX_FRAMES * 3)
        .map(|i| (screen(&format!("{i}")), ms(40)))
        .collect();
    let t = times(&frames);
    assert!(
        t.len() <= MAX_FRAMES && t.len() > MAX_FRAMES / 4,
        "{}",
        t.len()
    );
    // No time is lost, and the last screen is the last frame.
    let total: u64 = t.iter().map(|(_, cs)| cs).sum();
    assert_eq!(total, (MAX_FRAMES * 3 * 4) as u64);
    assert_eq!(
        t.last().map(|(s, _)| s.clone()),
        Some(format!("{}", MAX_FRAMES * 3 - 1))
    );
}

#[test]
fn a_frame_holds_the_rectangle_that_changed() {
    // 4×3 pixels; pixel (1, 1) and (2, 2) change.
    let w = 4;
    let before = vec![0u8; w * 3 * 4];
    let mut now = before.clone();
    now[(w + 1) * 4] = 9;
    now[(2 * w + 2) * 4 + 3] = 9;
    assert_eq!(changed(None, &now, w), Some((0, 0, 4, 3)));
    assert_eq!(changed(Some(&before), &before, w), None);
    assert_eq!(changed(Some(&before), &now, w), Some((1, 1, 2, 2)));
    let f = frame(&now, w, (1, 1, 2, 2), 7);
    assert_eq!((f.left, f.top, f.width, f.height, f.delay), (1, 1, 2, 2, 7));
}
