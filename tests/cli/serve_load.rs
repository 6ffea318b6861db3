//! `kpty serve` under slow-connection load, all on 127.0.0.1 and stopping itself: more
//! authenticated clients than the connection cap, each sending a body a byte at a time,
//! cannot keep `/health` out (they make room, oldest first), and every body that does not
//! arrive within the body deadline ends its request, whichever route reads it.

use crate::bridge::Serve;
use crate::support::Env;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// How a dribbling client ended.
#[derive(Debug)]
enum Ended {
    /// The server closed the connection; what it sent before.
    Closed(String),
    /// The test stopped it.
    Stopped,
}

/// Connect, send `head` (a whole header announcing a long body), then a byte every `every`
/// until the server closes the connection or `stop` is cancelled. `sent` is told once the
/// server reads the body (or closed the connection).
async fn dribble(
    addr: String,
    head: String,
    every: Duration,
    stop: CancellationToken,
    sent: tokio::sync::mpsc::Sender<()>,
) -> Ended {
    let Ok(mut conn) = tokio::net::TcpStream::connect(&addr).await else {
        let _ = sent.send(()).await;
        return Ended::Closed(String::new());
    };
    let wrote = conn.write_all(head.as_bytes()).await;
    if wrote.is_err() {
        let _ = sent.send(()).await;
        return Ended::Closed(String::new());
    }
    let (mut rd, mut wr) = conn.into_split();
    let mut got = Vec::new();
    let mut buf = [0u8; 512];
    // `Expect: 100-continue`: the server says "100 Continue" when its handler starts reading
    // the body, so the request is known to be in its body phase (or it was closed).
    let mut continued = false;
    while !continued {
        match rd.read(&mut buf).await {
            Ok(0) | Err(_) => {
                let _ = sent.send(()).await;
                return Ended::Closed(String::from_utf8_lossy(&got).into_owned());
            }
            Ok(n) => {
                got.extend_from_slice(&buf[..n]);
                if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
                    continued = got.starts_with(b"HTTP/1.1 100");
                    got.drain(..end + 4);
                    if !continued {
                        let _ = sent.send(()).await;
                        return Ended::Closed(String::from_utf8_lossy(&got).into_owned());
                    }
                }
            }
        }
    }
    let _ = sent.send(()).await;
    loop {
        tokio::select! {
            () = stop.cancelled() => return Ended::Stopped,
            r = rd.read(&mut buf) => match r {
                Ok(0) | Err(_) => return Ended::Closed(String::from_utf8_lossy(&got).into_owned()),
                Ok(n) => got.extend_from_slice(&buf[..n]),
            },
            () = tokio::time::sleep(every) => {
                // A write may fail once the server closed; the read then says so.
                let _ = wr.write_all(b" ").await;
            }
        }
    }
}

fn head(secret: &str, path: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Kuroryuu-Desktop-Secret: {secret}\r\n\
         Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 100000\r\n\r\n{{"
    )
}

fn addr(serve: &Serve) -> String {
    serve.url.trim_start_matches("http://").to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn slow_authenticated_bodies_cannot_starve_health() {
    let env = Env::new();
    // A body deadline far beyond the watchdog: /health must not wait for it.
    let serve = Serve::start_args(&env, &[], &[("KPTY_SERVE_HEADER_TIMEOUT_MS", "60000")]);
    let stop = CancellationToken::new();
    let (tx, mut rx) = tokio::sync::mpsc::channel(16);
    const SLOW: usize = 300; // more than the 256 connections kept open
    let mut tasks = Vec::new();
    for _ in 0..SLOW {
        tasks.push(tokio::spawn(dribble(
            addr(&serve),
            head(&serve.secret, "/pty/read"),
            Duration::from_millis(500),
            stop.clone(),
            tx.clone(),
        )));
    }
    for _ in 0..SLOW {
        rx.recv().await.expect("a client sent its header");
    }
    let serve = std::sync::Arc::new(serve);
    let s2 = serve.clone();
    let health = tokio::task::spawn_blocking(move || {
        let k = Some(s2.secret.as_str());
        s2.http("GET", "/health", k, None)
    });
    let (status, v) = tokio::time::timeout(Duration::from_secs(15), health)
        .await
        .expect("/health answered behind the slow bodies (watchdog)")
        .expect("the /health request");
    assert_eq!(status, 200, "{v}");
    stop.cancel();
    let mut closed = 0;
    for t in tasks {
        if let Ended::Closed(_) = t.await.expect("a slow client") {
            closed += 1;
        }
    }
    // The ones beyond the cap displaced the oldest ones (and /health one more).
    assert!(
        closed >= SLOW - 256,
        "only {closed} slow clients were closed"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_slower_than_its_deadline_ends_its_request_on_every_route() {
    let env = Env::new();
    let serve = Serve::start_args(&env, &[], &[("KPTY_SERVE_HEADER_TIMEOUT_MS", "1500")]);
    let stop = CancellationToken::new();
    let (tx, mut rx) = tokio::sync::mpsc::channel(16);
    // JSON routes (408 from their reader) and a leader route that takes raw bytes; each
    // client sends a byte every 300 ms, never idle long enough for an idle timeout.
    let routes = [
        "/pty/read",
        "/pty/talk",
        "/v1/pty/register",
        "/_x9k_register_leader",
    ];
    let mut tasks = Vec::new();
    for i in 0..20 {
        let route = routes[i % routes.len()];
        tasks.push((
            route,
            tokio::spawn(dribble(
                addr(&serve),
                head(&serve.secret, route),
                Duration::from_millis(300),
                stop.clone(),
                tx.clone(),
            )),
        ));
    }
    for _ in 0..tasks.len() {
        rx.recv().await.expect("a client sent its header");
    }
    // Watchdog: the deadline (1.5 s) plus generous slack; then the load stops itself.
    let watchdog = stop.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(12)).await;
        watchdog.cancel();
    });
    for (route, t) in tasks {
        match t.await.expect("a slow client") {
            Ended::Closed(answer) => {
                if route.starts_with("/pty/") || route.starts_with("/v1/") {
                    assert!(answer.starts_with("HTTP/1.1 408"), "{route}: {answer}");
                }
            }
            Ended::Stopped => panic!("{route}: a body slower than its deadline kept its request"),
        }
    }
    let k = Some(serve.secret.as_str());
    let s = &serve;
    let (status, _) = tokio::task::block_in_place(|| s.http("GET", "/health", k, None));
    assert_eq!(status, 200);
}
