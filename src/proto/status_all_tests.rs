//! [`status_all`] against real Unix sockets, each served by a peer that behaves one way: a
//! holder that answers, one that never accepts (a full backlog), one that reads and never
//! answers, garbage, an oversized frame, an error reply, a closed connection, a refused
//! connect, no socket at all. Every mix gets each socket's own answer, by one deadline.

use super::*;
use crate::proto::{Reply, frame};
use proptest::prelude::*;
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::mpsc;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Peer {
    Answers,
    NeverAccepts,
    NeverAnswers,
    Garbage,
    Oversized,
    Refuses,
    Closes,
    ErrorReply,
    Missing,
}

const PEERS: [Peer; 9] = [
    Peer::Answers,
    Peer::NeverAccepts,
    Peer::NeverAnswers,
    Peer::Garbage,
    Peer::Oversized,
    Peer::Refuses,
    Peer::Closes,
    Peer::ErrorReply,
    Peer::Missing,
];

/// What the caller should make of each peer: the code of its error, `None` for `Gone`,
/// `Some("")` for an answer.
fn expected(p: Peer) -> Option<&'static str> {
    match p {
        Peer::Answers => Some(""),
        Peer::NeverAccepts | Peer::NeverAnswers => Some("PTY_TIMEOUT"),
        Peer::Garbage | Peer::Oversized | Peer::Closes => Some("PTY_READ_FAILED"),
        Peer::ErrorReply => Some("PTY_BUSY"),
        Peer::Refuses | Peer::Missing => None,
    }
}

fn got(a: &Answer) -> Option<String> {
    match a {
        Ok(_) => Some(String::new()),
        Err(Unreachable::Gone(_)) => None,
        Err(Unreachable::Other(e)) => Some(e.code.to_string()),
    }
}

/// Serve `path` as `peer` does, until `stop`'s sender is dropped; what must stay open until
/// then is pushed on `held`.
fn serve(path: &Path, peer: Peer, n: usize, stop: mpsc::Receiver<()>, held: &mut Vec<OwnedFd>) {
    match peer {
        Peer::Missing => return,
        Peer::NeverAccepts => {
            // A listener with no room in its queue, whose queue is then filled.
            let l = rustix::net::socket(AddressFamily::UNIX, SocketType::STREAM, None).unwrap();
            rustix::net::bind(&l, &SocketAddrUnix::new(path).unwrap()).unwrap();
            rustix::net::listen(&l, 0).unwrap();
            held.push(l);
            while let Ok(s) = client::connect_within(path, Duration::from_millis(20)) {
                held.push(s.into());
            }
            return;
        }
        _ => {}
    }
    let l = UnixListener::bind(path).expect("bind a test socket");
    if peer == Peer::Refuses {
        // The socket file stays; nobody listens on it any more.
        return;
    }
    std::thread::spawn(move || {
        let Ok((mut s, _)) = l.accept() else { return };
        let _ = frame::read_frame(&mut s);
        // The prober closes its side once its request is out (`Call::HALF_CLOSE`): a holder
        // that answers finds the end before it replies, or does not answer at all.
        if peer == Peer::Answers && !matches!(frame::read_frame(&mut s), Ok(None)) {
            return;
        }
        let reply = |r: &Reply<StatusBody>| serde_json::to_vec(r).expect("encode");
        let body = match peer {
            Peer::Answers => reply(&Reply::ok(StatusBody {
                holder_pid: n as u32,
                alive: true,
                session_id: Some(format!("s{n}")),
                ..StatusBody::default()
            })),
            Peer::Garbage => b"not json".to_vec(),
            Peer::ErrorReply => reply(&Reply::err(Error::new(ErrorCode::PtyBusy, "busy"))),
            Peer::Oversized => {
                let _ = std::io::Write::write_all(&mut s, &u32::MAX.to_be_bytes());
                let _ = stop.recv();
                return;
            }
            Peer::Closes => return,
            _ => {
                let _ = stop.recv();
                return;
            }
        };
        let _ = frame::write_frame(&mut s, &body);
        let _ = stop.recv();
        drop::<UnixStream>(s);
    });
}

fn run(peers: &[Peer]) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let paths: Vec<_> = (0..peers.len())
        .map(|i| dir.path().join(format!("{i}.sock")))
        .collect();
    let mut stops = Vec::new();
    let mut held = Vec::new();
    for (i, (p, path)) in peers.iter().zip(&paths).enumerate() {
        let (tx, rx) = mpsc::channel::<()>();
        stops.push(tx);
        serve(path, *p, i, rx, &mut held);
    }
    let refs: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
    let started = Instant::now();
    let answers = status_all(&refs, Duration::from_millis(300));
    // The deadline holds (with a loaded machine's slack, never a timed race).
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(answers.len(), peers.len());
    for (i, (p, a)) in peers.iter().zip(&answers).enumerate() {
        assert_eq!(got(a), expected(*p).map(String::from), "{i}: {p:?}: {a:?}");
        if let Ok(s) = a {
            assert_eq!(s.session_id.as_deref(), Some(format!("s{i}").as_str()));
            assert_eq!(s.holder_pid, i as u32);
        }
    }
}

#[test]
fn every_kind_of_peer_gets_its_own_answer() {
    run(&PEERS);
}

#[test]
fn many_holders_that_answer_are_all_heard() {
    run(&[Peer::Answers; 300]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_mix_of_peers_gets_each_its_own_answer(peers in proptest::collection::vec(proptest::sample::select(PEERS.to_vec()), 1..16)) {
        run(&peers);
    }
}
