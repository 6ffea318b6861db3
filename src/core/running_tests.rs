use super::*;

/// A local session's entry whose holder is not there.
fn entry(dir: &std::path::Path) -> (Ctx, RegistryEntry) {
    let ctx = Ctx::new(crate::store::StateDir::at(dir).expect("dir")).expect("ctx");
    let e = RegistryEntry {
        session_id: "pty-test".into(),
        source: super::super::kind::LOCAL.into(),
        ..Default::default()
    };
    (ctx, e)
}

#[test]
fn a_cancel_before_the_command_is_typed_keeps_it_from_being_typed() {
    let r = Running::new();
    let soon = Instant::now() + Duration::from_secs(5);
    assert!(matches!(
        r.cancel(true, Duration::ZERO, soon),
        Stopped::NotStarted
    ));
    let dir = tempfile::tempdir().expect("tmp");
    let (ctx, e) = entry(dir.path());
    let err = r.at(&ctx, &e).expect_err("refused");
    assert_eq!(err.code, ErrorCode::Cancelled);
    assert_eq!(r.session_id().as_deref(), Some("pty-test"));
}

#[test]
fn a_wake_up_before_the_command_is_typed_is_heard_once_and_keeps_it_from_being_typed() {
    use std::io::Write;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let dir = tempfile::tempdir().expect("tmp");
    let (ctx, e) = entry(dir.path());
    // Nothing to hear: the command goes ahead.
    let (quiet, _keep) = std::os::unix::net::UnixStream::pair().expect("pair");
    let r = Running::new();
    r.wake_on(quiet.into(), |_| panic!("woken with nothing written"));
    r.at(&ctx, &e).expect("not woken");
    // Woken (a signal's byte) before the command: heard on this thread, no target yet (so
    // the front end's cancel finds nothing started), and the command is refused.
    let (read, mut write) = std::os::unix::net::UnixStream::pair().expect("pair");
    read.set_nonblocking(true).expect("nonblocking");
    write.write_all(b"x").expect("wake");
    let heard = std::sync::Arc::new(AtomicUsize::new(0));
    let r = Running::new();
    let (h, drain) = (heard.clone(), read.try_clone().expect("clone"));
    r.wake_on(read.into(), move |running| {
        let mut buf = [0u8; 8];
        while matches!(std::io::Read::read(&mut &drain, &mut buf), Ok(n) if n > 0) {}
        assert!(
            running.session_id().is_none(),
            "a target before the wake-up was heard"
        );
        h.fetch_add(1, Ordering::SeqCst);
    });
    let err = r.at(&ctx, &e).expect_err("refused");
    assert_eq!(err.code, ErrorCode::Cancelled);
    assert_eq!(heard.load(Ordering::SeqCst), 1);
    let soon = Instant::now() + Duration::from_secs(5);
    assert!(matches!(
        r.cancel(true, Duration::ZERO, soon),
        Stopped::NotStarted
    ));
}

#[test]
fn a_cancel_after_the_talk_returned_finds_it_ended() {
    let r = Running::new();
    drop(Finish(&r));
    assert!(r.is_done());
    let soon = Instant::now() + Duration::from_secs(5);
    assert!(matches!(
        r.cancel(true, Duration::ZERO, soon),
        Stopped::Ended
    ));
}

#[test]
fn a_cancel_of_a_session_whose_holder_is_gone_says_so_within_its_deadline() {
    let dir = tempfile::tempdir().expect("tmp");
    let (ctx, e) = entry(dir.path());
    let r = Running::new();
    r.at(&ctx, &e).expect("not cancelled");
    let soon = Instant::now() + Duration::from_secs(5);
    assert!(matches!(
        r.cancel(true, Duration::ZERO, soon),
        Stopped::Gone(_)
    ));
}

#[test]
fn tickets_leave_the_list_when_dropped_and_cancel_all_returns_when_empty() {
    let f = Runs::default();
    let a = f.start();
    let b = f.start();
    assert_eq!(f.len(), 2);
    drop(a);
    assert_eq!(f.len(), 1);
    let f2 = f.clone();
    let t = std::thread::spawn(move || {
        // No session resolved yet: nothing to cancel; it returns once the ticket leaves.
        f2.cancel_all(Instant::now() + Duration::from_secs(20))
    });
    // The worker learns of the cancel when it reaches its session, and returns.
    wait_until(|| b.state().cancelled);
    drop(b);
    assert_eq!(t.join().expect("join"), 0);
    assert!(f.is_empty());
}

/// Wait (bounded) until `cond` holds.
fn wait_until(cond: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !cond() {
        assert!(Instant::now() < deadline, "condition never held");
        std::thread::yield_now();
    }
}
