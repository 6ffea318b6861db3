//! Threads kept for the next request: a channel's requests and the streams of its verbs run
//! on tokio's blocking pool (threads made as needed and kept a minute when idle), so a call
//! does not pay for a new thread — and its stack and malloc arena — each time.

use std::sync::OnceLock;
use std::time::Duration;

/// Run `f` on a kept thread (a new thread when the pool cannot be had).
pub fn run(f: impl FnOnce() + Send + 'static) {
    static POOL: OnceLock<Option<tokio::runtime::Runtime>> = OnceLock::new();
    let pool = POOL.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .thread_name("kpty-channel")
            .thread_keep_alive(Duration::from_secs(60))
            .max_blocking_threads(1024)
            .build()
            .ok()
    });
    match pool {
        Some(rt) => drop(rt.spawn_blocking(f)),
        None => drop(std::thread::spawn(f)),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn work_runs_and_threads_are_kept_for_the_next() {
        let (tx, rx) = std::sync::mpsc::channel();
        for i in 0..20 {
            let tx = tx.clone();
            super::run(move || {
                let _ = tx.send((i, std::thread::current().id()));
            });
            // One at a time: each waits for the last, so a kept thread can serve the next.
            rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
        }
        let mut ids = std::collections::HashSet::new();
        for i in 0..20 {
            let tx = tx.clone();
            super::run(move || {
                let _ = tx.send((i, std::thread::current().id()));
            });
            ids.insert(
                rx.recv_timeout(std::time::Duration::from_secs(10))
                    .unwrap()
                    .1,
            );
        }
        assert!(
            ids.len() < 20,
            "threads are reused: {} for 20 calls",
            ids.len()
        );
    }
}
