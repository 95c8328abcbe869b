//! Token counting throughput, `brief::Encoding::count` (brief-tokens, one thread) and
//! brief's parallel exact count (`Encoding::count_parallel`) against tiktoken-rs
//! (`CoreBPE::encode_ordinary(..).len()`) on the same texts, plus the cost of loading the
//! payments example and of assembling one context from it.
//!
//! Texts:
//! - `context-doc`: the Markdown context of CHECKOUT-01 in `examples/payments` at budget
//!   100000 (everything at full detail), assembled by the library;
//! - `mixed-50k`: ~50 KB of prose, Markdown lists, code and non-ASCII text, built
//!   deterministically here.
//!
//! Run with `cargo bench -p brief --bench tokens`.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use brief::{Depth, Encoding, Format, Project};
use brief_engine::assemble;
use brief_engine::ContextRequest;
use brief_model::Graph;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tiktoken_rs::CoreBPE;

const TARGET: &str = "CHECKOUT-01";

fn payments_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/payments")
}

fn open_payments() -> Project {
    Project::at(&payments_root()).expect("examples/payments is a project")
}

fn load_payments(project: &Project) -> Graph {
    let loaded = project.load();
    let errors: Vec<String> = loaded.errors().map(|p| p.to_string()).collect();
    assert!(
        errors.is_empty(),
        "examples/payments has errors: {errors:?}"
    );
    loaded.graph
}

/// The Markdown context of CHECKOUT-01 at a budget that holds everything.
fn context_document(project: &Project, graph: &Graph) -> String {
    let request = ContextRequest {
        target: TARGET.to_string(),
        budget: Some(100_000),
        format: Format::Markdown,
        ..ContextRequest::default()
    };
    let out = assemble(graph, &project.defaults, &request).expect("context assembles");
    assert_eq!(out.omitted, 0, "budget 100000 holds the whole context");
    out.text
}

/// ~50 KB of mixed prose, lists, code and non-ASCII text, the same on every run.
fn mixed_text() -> String {
    const WORDS: &[&str] = &[
        "the",
        "payment",
        "service",
        "must",
        "retry",
        "idempotent",
        "requests",
        "with",
        "an",
        "exponential",
        "backoff",
        "and",
        "record",
        "every",
        "attempt",
        "in",
        "ledger",
        "when",
        "customer",
        "checkout",
        "fails",
        "refund",
        "is",
        "issued",
        "within",
        "seconds",
        "API",
        "token",
        "budget",
        "context",
        "agent",
        "decision",
        "policy",
        "don't",
        "it's",
        "we'll",
    ];
    const CODE: &[&str] = &[
        "fn charge(order: &Order, key: IdempotencyKey) -> Result<Receipt, PaymentError> {",
        "    let attempt = ledger.begin(order.id, key)?;",
        "    match gateway.authorize(order.total_cents, &order.currency).await {",
        "        Ok(auth) => ledger.commit(attempt, auth.id),",
        "        Err(e) if e.is_retryable() => retry_after(Duration::from_millis(250 << n)),",
        "        Err(e) => return Err(PaymentError::Declined { code: e.code() }),",
        "    }",
        "}",
        "SELECT id, total_cents, status FROM orders WHERE customer_id = $1 AND status <> 'void';",
        "curl -sS -X POST https://api.example.com/v1/charges -H 'Idempotency-Key: 7f3a9c' -d amount=4200",
    ];
    const OTHER: &[&str] = &[
        "café",
        "naïve",
        "Straße",
        "日本語の説明文",
        "支付服务",
        "결제",
        "Платёж",
        "🚀",
        "👍🏽",
        "—",
        "“quoted”",
        "½",
        "€42,00",
    ];
    let mut state: u64 = 0x5eed_1234_abcd_0001;
    let mut next = move |n: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) as usize) % n
    };
    let mut out = String::with_capacity(52_000);
    let mut section = 0;
    while out.len() < 50_000 {
        section += 1;
        out.push_str(&format!("## Section {section}: payment flow\n\n"));
        for _ in 0..3 {
            let len = 30 + next(50);
            for i in 0..len {
                let word = if next(12) == 0 {
                    OTHER[next(OTHER.len())]
                } else {
                    WORDS[next(WORDS.len())]
                };
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(word);
                if next(9) == 0 {
                    out.push_str([",", ".", ";", ":"][next(4)]);
                }
                if next(25) == 0 {
                    out.push_str(&format!(" {}", next(100_000)));
                }
            }
            out.push_str(".\n\n");
        }
        for _ in 0..(2 + next(4)) {
            out.push_str(&format!(
                "- {} {} `{}` ({}%)\n",
                WORDS[next(WORDS.len())],
                WORDS[next(WORDS.len())],
                WORDS[next(WORDS.len())],
                next(100)
            ));
        }
        out.push_str("\n```rust\n");
        let start = next(CODE.len());
        for k in 0..(3 + next(5)) {
            out.push_str(CODE[(start + k) % CODE.len()]);
            out.push('\n');
        }
        out.push_str("```\n\n");
    }
    out
}

/// The text cut after every blank line that is followed by a pre-token split point.
fn blocks_of(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut start = 0;
    for (at, _) in text.match_indices("\n\n") {
        let cut = at + 2;
        if cut > start && brief_count::is_split_point(text, cut) {
            blocks.push(&text[start..cut]);
            start = cut;
        }
    }
    blocks.push(&text[start..]);
    blocks
}

fn tiktoken(encoding: Encoding) -> &'static CoreBPE {
    match encoding {
        Encoding::Cl100k => tiktoken_rs::cl100k_base_singleton(),
        Encoding::O200k => tiktoken_rs::o200k_base_singleton(),
    }
}

fn short_name(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::Cl100k => "cl100k",
        Encoding::O200k => "o200k",
    }
}

fn benches(c: &mut Criterion) {
    let project = open_payments();
    let graph = load_payments(&project);
    let texts = [
        ("context-doc", context_document(&project, &graph)),
        ("mixed-50k", mixed_text()),
    ];
    for (name, text) in &texts {
        println!("text {name}: {} bytes", text.len());
    }

    for encoding in [Encoding::Cl100k, Encoding::O200k] {
        let reference = tiktoken(encoding);
        // Both tokenizers are built before timing, and agree on every text.
        for (name, text) in &texts {
            let ours = encoding.count(text);
            let theirs = reference.encode_ordinary(text).len();
            assert_eq!(ours, theirs, "{encoding} {name}: counts differ");
            println!("text {name}: {ours} tokens ({encoding})");
        }

        let mut group = c.benchmark_group(format!("count/{}/brief", short_name(encoding)));
        for (name, text) in &texts {
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_function(*name, |b| {
                b.iter(|| encoding.count(black_box(text.as_str())))
            });
        }
        group.finish();

        // What brief itself does with a long text: the same exact count, cut at pre-token
        // split points and counted on all cores.
        let mut group = c.benchmark_group(format!("count/{}/brief-parallel", short_name(encoding)));
        for (name, text) in &texts {
            assert_eq!(encoding.count_parallel(text), encoding.count(text));
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_function(*name, |b| {
                b.iter(|| encoding.count_parallel(black_box(text.as_str())))
            });
        }
        group.finish();

        // A fit measures many candidate documents made of the same blocks: brief counts each
        // block once (content-hash cache) and adds, where a re-encoding counter starts over.
        // Blocks here are the document cut at blank lines followed by a split point.
        let mut group = c.benchmark_group(format!("count/{}/brief-cached", short_name(encoding)));
        for (name, text) in &texts {
            let blocks = blocks_of(text);
            let counter = brief_count::Counter::new(encoding);
            counter.prime(&blocks);
            let total: usize = blocks.iter().map(|b| counter.count(b)).sum();
            assert_eq!(total, encoding.count(text), "{name}: blocks add up");
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_function(*name, |b| {
                b.iter(|| {
                    blocks
                        .iter()
                        .map(|b| counter.count(black_box(b)))
                        .sum::<usize>()
                })
            });
        }
        group.finish();

        let mut group = c.benchmark_group(format!("count/{}/tiktoken-rs", short_name(encoding)));
        for (name, text) in &texts {
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_function(*name, |b| {
                b.iter(|| reference.encode_ordinary(black_box(text.as_str())).len())
            });
        }
        group.finish();
    }

    let mut group = c.benchmark_group("assemble");
    let request = ContextRequest {
        target: TARGET.to_string(),
        depth: Some(Depth::Hops(2)),
        budget: Some(4000),
        format: Format::Markdown,
        ..ContextRequest::default()
    };
    group.bench_function(format!("payments/{TARGET}/depth2-budget4000"), |b| {
        b.iter(|| {
            assemble(black_box(&graph), &project.defaults, black_box(&request))
                .expect("context assembles")
        })
    });
    group.finish();

    let mut group = c.benchmark_group("load");
    group.bench_function("payments", |b| b.iter(|| black_box(&project).load()));
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = tokens;
    config = config();
    targets = benches
}
criterion_main!(tokens);
