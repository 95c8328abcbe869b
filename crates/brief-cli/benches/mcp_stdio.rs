//! `brief serve` over stdio: 1,000 sequential `context` calls (depth 2, budget 8000) on a
//! generated 10,000-node Spec Graph project, timed from the client's side of the pipe —
//! one request line written to the answer line read — on the release binary.
//!
//! `cargo bench -p brief-cli --bench mcp_stdio` (set `BRIEF_BENCH_NODES` / `BRIEF_BENCH_CALLS`
//! for other sizes). Prints median, p90, p99 and max per call for one repeated target and for
//! targets rotating over 100 different nodes.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    // `cargo bench` passes `--bench`; a plain `cargo test --benches` passes nothing and
    // should not spend a minute here.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let nodes = env_or("BRIEF_BENCH_NODES", 10_000);
    let calls = env_or("BRIEF_BENCH_CALLS", 1_000);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    brief_corpus::generate(brief_corpus::Shape::SpecGraph, nodes, &root, 7).unwrap();

    let mut child = Command::new(env!("CARGO_BIN_EXE_brief"))
        .args(["serve", "--root"])
        .arg(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut next_id = 0u64;
    let mut request = |method: &str, params: Value| -> (Value, Duration) {
        next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params})
            .to_string();
        let started = Instant::now();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        loop {
            let mut answer = String::new();
            assert!(stdout.read_line(&mut answer).unwrap() > 0, "server closed");
            let value: Value = serde_json::from_str(&answer).unwrap();
            if value["id"] == json!(next_id) {
                return (value, started.elapsed());
            }
        }
    };
    let started = Instant::now();
    request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "bench", "version": "0"}}),
    );
    // The first call builds the index: reported, not counted.
    let (_, first) = request(
        "tools/call",
        json!({"name": "context", "arguments": {"target": "F10-05"}}),
    );
    eprintln!(
        "{nodes} nodes: first call (index build) {} ({} since start)",
        ms(first),
        ms(started.elapsed())
    );
    let (catalog, _) = request("resources/read", json!({"uri": "brief://nodes"}));
    let ids: Vec<String> = catalog["result"]["contents"][0]["text"]
        .as_str()
        .unwrap()
        .lines()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    let step = (ids.len() / 100).max(1);
    let rotating: Vec<String> = ids.iter().step_by(step).take(100).cloned().collect();

    for (label, targets) in [
        ("one target (F10-05)", vec!["F10-05".to_string()]),
        ("100 rotating targets", rotating),
    ] {
        // Warm-up: each target once (its token counts land in the cache).
        for t in &targets {
            request(
                "tools/call",
                json!({"name": "context", "arguments": {"target": t, "depth": 2, "budget": 8000}}),
            );
        }
        let mut times = Vec::with_capacity(calls);
        let mut bytes = 0usize;
        for i in 0..calls {
            let target = &targets[i % targets.len()];
            let (answer, took) = request(
                "tools/call",
                json!({"name": "context", "arguments": {"target": target, "depth": 2, "budget": 8000}}),
            );
            let result = &answer["result"];
            assert_eq!(result["isError"], json!(false), "{answer}");
            bytes += result["content"][0]["text"].as_str().unwrap().len();
            times.push(took);
        }
        times.sort();
        println!(
            "mcp stdio context, {nodes} nodes, {label}: {calls} calls, median {}, p90 {}, p99 {}, max {} ({} KiB of documents)",
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.9)),
            ms(percentile(&times, 0.99)),
            ms(*times.last().unwrap()),
            bytes / 1024
        );
    }
    drop(stdin);
    let _ = child.wait();
}
