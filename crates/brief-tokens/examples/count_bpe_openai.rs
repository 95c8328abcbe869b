//! The `count` probe with bpe-openai, what brief counted with before brief-tokens: counts the
//! tokens of a file in a fresh process, for comparing start-up latency and binary size.
//!
//! `count_bpe_openai <cl100k|o200k> FILE [--time]`.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(encoding), Some(path)) = (args.first(), args.get(1)) else {
        eprintln!("usage: count_bpe_openai <cl100k|o200k> FILE [--time]");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("count_bpe_openai: {path}: {e}");
            return ExitCode::from(1);
        }
    };
    let start = Instant::now();
    let count = match encoding.as_str() {
        "cl100k" => bpe_openai::cl100k_base().count(&text),
        "o200k" => bpe_openai::o200k_base().count(&text),
        other => {
            eprintln!("count_bpe_openai: unknown encoding `{other}`");
            return ExitCode::from(2);
        }
    };
    if args.iter().any(|a| a == "--time") {
        eprintln!("first count: {} µs", start.elapsed().as_micros());
    }
    println!("{count}");
    ExitCode::SUCCESS
}
