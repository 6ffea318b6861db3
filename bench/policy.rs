//! The command policy's cost per line, in process (`cargo bench --bench policy`): what every
//! `talk`/`send_line` pays before typing. Prints a Markdown table of medians and 99th
//! percentiles over many rounds; bench/run.sh puts it in BENCHMARKS.md.
//!
//! Targets (issue 11): a typical line under 50 µs, a 1 000-character pipeline under 1 ms.

use std::hint::black_box;
use std::time::{Duration, Instant};

use kpty::safety::policy::context::ShellContext;
use kpty::safety::policy::explain;
use kpty::safety::{Opacity, Typing};

/// Lines an agent types every day.
const TYPICAL: &[&str] = &[
    "git status",
    "ls -la",
    "cargo test -- --nocapture 2>&1 | tee test.log",
    "cd src && grep -rn 'TODO' . | head -20",
    "npm run build && npm test",
    "python3 -m pytest -x -q tests/",
    "docker compose up -d && docker compose ps",
    "find . -name '*.rs' | xargs wc -l | sort -n | tail",
    "export PATH=$HOME/.local/bin:$PATH; which rg",
    "for f in *.log; do gzip \"$f\"; done",
    "curl -s https://api.example.com/v1/items | jq '.items[] | .id'",
    "sudo systemctl restart nginx",
    "rm -rf target/debug/incremental",
    "echo \"$(date +%F) build ok\" >> build.log",
    "kubectl get pods -n prod -o wide",
];

/// A ~1 000-character pipeline, and a line the policy must unwrap (nested shell, base64).
fn long_lines() -> Vec<(String, String)> {
    let stages: Vec<String> = (0..40)
        .map(|i| format!("grep -v 'pattern{i}' | sed 's/a{i}/b/g'"))
        .collect();
    let mut pipeline = format!("cat input.txt | {}", stages.join(" | "));
    pipeline.truncate(1000);
    while !pipeline.ends_with('\'') {
        pipeline.pop();
    }
    let and_chain: String = (0..23)
        .map(|i| format!("test -f file{i}.txt && cp file{i}.txt out/"))
        .collect::<Vec<_>>()
        .join(" && ");
    let nested = "sudo env X=1 bash -lc \"eval 'echo cm0gLXJmIC8= | base64 -d | sh'\"".to_string();
    vec![
        (format!("pipeline, {} chars", pipeline.len()), pipeline),
        (format!("&& chain, {} chars", and_chain.len()), and_chain),
        ("nested shells + base64 (blocked)".to_string(), nested),
    ]
}

/// Median and 99th percentile of `rounds` timings of judging `line` `batch` times.
fn measure(line: &str, rounds: usize, batch: u32) -> (Duration, Duration) {
    for _ in 0..batch {
        black_box(explain(black_box(line)));
    }
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..batch {
                black_box(explain(black_box(line)));
            }
            t.elapsed() / batch
        })
        .collect();
    times.sort_unstable();
    (times[rounds / 2], times[rounds * 99 / 100])
}

/// A session's holder: its shell's state with ~60 inherited environment variables and a
/// known directory (`tainted`: a person typed, so every value is unknown and each line is
/// judged twice).
fn session(tainted: bool) -> Typing {
    let mut typing = Typing::new();
    let ctx = typing.context_mut();
    *ctx = ShellContext::new(Some("/home/user/project"));
    ctx.set_home(Some("/home/user"));
    for i in 0..60 {
        ctx.set_env(
            &format!("VAR_{i}_SETTING"),
            &format!("/usr/local/share/value-{i}:/opt/tool{i}/bin:/usr/bin"),
        );
    }
    if tainted {
        ctx.taint();
        ctx.observe_cwd("/home/user/project", true);
    }
    typing
}

/// Median and 99th percentile of `rounds` timings of typing `lines` (each with Enter) one
/// after the other into `start`, each judged in the state the ones before left.
fn measure_session(start: &Typing, lines: &[&str], rounds: usize) -> (Duration, Duration) {
    let batch = 20;
    let run = || {
        let mut t = start.clone();
        for line in lines {
            t = t
                .after(black_box(line), Opacity::OnSubmit, true)
                .expect("allowed");
        }
        black_box(t);
    };
    run();
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..batch {
                run();
            }
            t.elapsed() / batch
        })
        .collect();
    times.sort_unstable();
    (times[rounds / 2], times[rounds * 99 / 100])
}

/// A session's line: `Typing::after` in a holder's shell state.
fn session_rows(rounds: usize) {
    let three = ["cd src", "export BUILD_DIR=$PWD/out", "ls -la $BUILD_DIR"];
    let cases: [(&str, bool, &[&str]); 4] = [
        ("session (60 env vars): `echo hi`", false, &["echo hi"]),
        ("session (60 env vars): 3 lines", false, &three),
        ("session, all unknown: `echo hi`", true, &["echo hi"]),
        ("session, all unknown: 3 lines", true, &three),
    ];
    for (name, tainted, lines) in cases {
        let (median, p99) = measure_session(&session(tainted), lines, rounds);
        println!("| {name} | allowed | {} | {} |", us(median), us(p99));
    }
}

fn us(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e6)
}

fn main() {
    let rounds = 200;
    println!("| line | verdict | median µs | p99 µs |");
    println!("| --- | --- | ---: | ---: |");
    let mut medians = Vec::new();
    for line in TYPICAL {
        let (median, p99) = measure(line, rounds, 20);
        medians.push(median);
        let verdict = explain(line).blocked.map_or("allowed", |m| m.id);
        println!("| `{line}` | {verdict} | {} | {} |", us(median), us(p99));
    }
    medians.sort_unstable();
    let typical = medians[medians.len() / 2];
    let worst = *medians.last().unwrap_or(&Duration::ZERO);
    let mut long_worst = Duration::ZERO;
    for (name, line) in long_lines() {
        let (median, p99) = measure(&line, rounds / 4, 5);
        long_worst = long_worst.max(median);
        let verdict = explain(&line).blocked.map_or("allowed", |m| m.id);
        println!("| {name} | {verdict} | {} | {} |", us(median), us(p99));
    }
    session_rows(rounds);
    println!();
    println!(
        "Typical line (median of the {} medians): **{} µs**, slowest typical {} µs (target < 50 µs); \
         slowest ~1 000-character line: **{} µs** (target < 1 000 µs).",
        TYPICAL.len(),
        us(typical),
        us(worst),
        us(long_worst)
    );
}
