//! Counts the tokens of a file (or standard input) in a fresh process: the probe for start-up
//! latency and binary size, since it links nothing but brief-tokens.
//!
//! `count <cl100k|o200k|none> [FILE] [--repeat N] [--time]`: prints the count; `none` reads the
//! text and counts nothing (the process's baseline); `--time` prints the first count's latency
//! to standard error; `--repeat N` counts N times (for profiling).

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(encoding) = args.next() else {
        eprintln!("usage: count <cl100k|o200k|none> [FILE] [--repeat N] [--time]");
        return ExitCode::from(2);
    };
    let (mut file, mut repeat, mut time) = (None, 1, false);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--time" => time = true,
            "--repeat" => repeat = args.next().and_then(|n| n.parse().ok()).unwrap_or(1),
            _ => file = Some(arg),
        }
    }
    let mut text = String::new();
    let read = match &file {
        Some(path) => std::fs::read_to_string(path).map(|t| text = t),
        None => std::io::stdin().read_to_string(&mut text).map(|_| ()),
    };
    if let Err(e) = read {
        eprintln!("count: {e}");
        return ExitCode::from(1);
    }
    if encoding == "none" {
        println!("{}", text.len());
        return ExitCode::SUCCESS;
    }
    let encoding: brief_tokens::Encoding = match encoding.parse() {
        Ok(encoding) => encoding,
        Err(e) => {
            eprintln!("count: {e}");
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    let mut count = encoding.count(&text);
    if time {
        eprintln!("first count: {} µs", start.elapsed().as_micros());
    }
    for _ in 1..repeat {
        count = encoding.count(std::hint::black_box(&text));
    }
    println!("{count}");
    ExitCode::SUCCESS
}
