//! Counting throughput of brief-tokens against bpe-openai (what brief counted with before) and
//! tiktoken-rs (`CoreBPE::encode_ordinary(..).len()`, the reference), on the same texts, all
//! counts asserted equal before timing.
//!
//! Texts:
//! - `short`: one sentence (a node title and its first clause);
//! - `payments-19k`: the files of `examples/payments` end to end (JSON nodes, Markdown), cut at
//!   the last line break before 19,211 bytes (the size of brief's payments context document);
//! - `mixed-50k`: ~50 KB of prose, Markdown lists, code and non-ASCII text, the same generator
//!   as brief's own `tokens` bench;
//! - `mixed-1m`: the same generator run to ~1 MB.
//!
//! `brief-tokens` counts with its per-thread memo of piece counts as the previous iteration left
//! it; `brief-tokens-cold` clears the memo before every count (the clearing and the memo's
//! allocation are timed too).
//!
//! Run with `cargo bench -p brief-tokens --bench count`; add `--features compare-bpe-openai`
//! for the bpe-openai rows (asserted equal too).
//!
//! Long pieces, each counted by backtracking (`backtrack`, `Encoding::count_by_backtracking`),
//! by the heap merge (`merge`, `Encoding::count_by_merging`) and as `Encoding::count` does
//! (`count`: backtracking from 16 KiB once its tables are built, from 256 KiB in any case),
//! counts asserted equal, the tables built before timing:
//! - `word/<encoding>/<path>/<n>MB`: one unbroken word, `a` repeated to 1, 2, 4 and 8 MiB;
//! - `piece/<encoding>/<path>/<n>`: one word of `n` random lowercase letters, 65 bytes to
//!   256 KiB (where backtracking starts to pay).
//!
//! `cargo bench -p brief-tokens --bench count -- 'word/|piece/'` runs those alone.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use brief_tokens::Encoding;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const SHORT: &str = "Card payment authorization: when the shopper submits the payment form, the \
                     service sends one authorization request to the PSP.";

fn payments() -> String {
    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("examples/payments is readable")
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                files(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/payments");
    let mut paths = Vec::new();
    files(&root, &mut paths);
    let mut text = String::new();
    for path in paths {
        text.push_str(&std::fs::read_to_string(&path).expect("a text file"));
    }
    let cut = text[..19_211].rfind('\n').map_or(0, |at| at + 1);
    text.truncate(cut);
    text
}

/// Prose, lists, code and non-ASCII text, the same on every run, of at least `size` bytes.
fn mixed_text(size: usize) -> String {
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
    let mut out = String::with_capacity(size + 2_000);
    let mut section = 0;
    while out.len() < size {
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

fn short_name(encoding: Encoding) -> &'static str {
    encoding.name().trim_end_matches("_base")
}

fn tiktoken(encoding: Encoding) -> &'static tiktoken_rs::CoreBPE {
    match encoding {
        #[cfg(feature = "cl100k")]
        Encoding::Cl100k => tiktoken_rs::cl100k_base_singleton(),
        #[cfg(feature = "o200k")]
        Encoding::O200k => tiktoken_rs::o200k_base_singleton(),
    }
}

#[cfg(feature = "compare-bpe-openai")]
fn bpe_openai(encoding: Encoding) -> &'static bpe_openai::Tokenizer {
    match encoding {
        #[cfg(feature = "cl100k")]
        Encoding::Cl100k => bpe_openai::cl100k_base(),
        #[cfg(feature = "o200k")]
        Encoding::O200k => bpe_openai::o200k_base(),
    }
}

/// A way to count a text.
type Counter<'a> = dyn Fn(&str) -> usize + 'a;

fn benches(c: &mut Criterion) {
    let texts = [
        ("short", SHORT.to_string()),
        ("payments-19k", payments()),
        ("mixed-50k", mixed_text(50_000)),
        ("mixed-1m", mixed_text(1_000_000)),
    ];
    for &encoding in Encoding::ALL {
        let reference = tiktoken(encoding);
        #[cfg(feature = "compare-bpe-openai")]
        let bpe = bpe_openai(encoding);
        // The tokenizers are built before timing, and agree on every text.
        for (name, text) in &texts {
            let ours = encoding.count(text);
            assert_eq!(ours, reference.encode_ordinary(text).len(), "{name}");
            #[cfg(feature = "compare-bpe-openai")]
            assert_eq!(ours, bpe.count(text), "{name}");
            assert_eq!(ours, encoding.count_parallel(text), "{name}");
            println!("{encoding} {name}: {} bytes, {ours} tokens", text.len());
        }
        let counters: Vec<(&str, Box<Counter>)> = vec![
            ("brief-tokens", Box::new(|t| encoding.count(t))),
            // Each count starts with an empty memo of piece counts (as a fresh thread does).
            (
                "brief-tokens-cold",
                Box::new(|t| {
                    brief_tokens::clear_thread_memo();
                    encoding.count(t)
                }),
            ),
            (
                "brief-tokens-parallel",
                Box::new(|t| encoding.count_parallel(t)),
            ),
            (
                "tiktoken-rs",
                Box::new(|t| reference.encode_ordinary(t).len()),
            ),
        ];
        #[cfg(feature = "compare-bpe-openai")]
        let counters = {
            let mut counters = counters;
            counters.push(("bpe-openai", Box::new(|t| bpe.count(t))));
            counters
        };
        for (counter, count) in counters {
            let mut group = c.benchmark_group(format!("count/{}/{counter}", short_name(encoding)));
            for (name, text) in &texts {
                if *name == "mixed-1m" {
                    group.sample_size(10);
                }
                group.throughput(Throughput::Bytes(text.len() as u64));
                group.bench_function(*name, |b| b.iter(|| count(black_box(text.as_str()))));
            }
            group.finish();
        }
    }
}

/// One word of `len` random lowercase letters, the same on every run.
fn random_word(len: usize) -> String {
    let mut state: u64 = 0x0bac_7ac4_5eed_0001;
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            char::from(b'a' + ((state >> 33) % 26) as u8)
        })
        .collect()
}

/// Long pieces by backtracking and by the heap merge (see the module's documentation).
fn long_pieces(c: &mut Criterion) {
    let words: Vec<(String, String)> = [1, 2, 4, 8]
        .iter()
        .map(|mb| (format!("{mb}MB"), "a".repeat(mb << 20)))
        .collect();
    let pieces: Vec<(String, String)> = [65, 256, 1_024, 4_096, 16_384, 65_536, 262_144]
        .iter()
        .map(|&len| (len.to_string(), random_word(len)))
        .collect();
    for &encoding in Encoding::ALL {
        for (name, text) in words.iter().chain(&pieces) {
            // Also builds the backtracking tables before timing.
            let count = encoding.count_by_backtracking(text);
            assert_eq!(count, encoding.count_by_merging(text), "{encoding} {name}");
            assert_eq!(count, encoding.count(text), "{encoding} {name}");
            assert_eq!(encoding.pre_tokens(text).count(), 1, "{encoding} {name}");
        }
        let paths: [(&str, &Counter); 3] = [
            ("backtrack", &|t| encoding.count_by_backtracking(t)),
            ("merge", &|t| encoding.count_by_merging(t)),
            ("count", &|t| encoding.count(t)),
        ];
        for (path, count) in paths {
            for (kind, texts) in [("word", &words), ("piece", &pieces)] {
                let mut group =
                    c.benchmark_group(format!("{kind}/{}/{path}", short_name(encoding)));
                if kind == "word" {
                    group.sample_size(10);
                }
                for (name, text) in texts {
                    group.throughput(Throughput::Bytes(text.len() as u64));
                    group.bench_function(name, |b| b.iter(|| count(black_box(text.as_str()))));
                }
                group.finish();
            }
        }
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = count;
    config = config();
    targets = benches, long_pieces
}
criterion_main!(count);
