//! Secret redaction over the corpus in `crates/brief-session/tests/redaction/` (the ordinary texts, the secrets)
//! and over a 64 KiB mix of both, plus one typical package summary without a secret (what
//! every `session package add` pays); and, in the group `redact-sizes`, hostile shapes
//! (many unterminated key blocks, one long line of flags or assignments, thousands of
//! random tokens) at 64 KiB, 256 KiB and 1 MiB, whose time per byte must stay flat.
//!
//! Run with `cargo bench -p brief --bench redact` (`-- redact-sizes` for the sizes alone).

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use brief_session::redact;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde::Deserialize;

#[derive(Deserialize)]
struct Corpus {
    #[serde(default)]
    secret: Vec<Entry>,
    #[serde(default)]
    ordinary: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    text: String,
}

fn texts(toml_text: &str) -> Vec<String> {
    let corpus: Corpus = toml::from_str(toml_text).expect("corpus parses");
    corpus
        .secret
        .into_iter()
        .chain(corpus.ordinary)
        .map(|e| e.text)
        .collect()
}

fn bench(c: &mut Criterion) {
    let ordinary = texts(include_str!(
        "../../brief-session/tests/redaction/ordinary.toml"
    ));
    let secrets = texts(include_str!(
        "../../brief-session/tests/redaction/secrets.toml"
    ));
    // Ordinary texts with a secret every tenth entry, up to 64 KiB.
    let mut mixed = String::new();
    let mut i = 0;
    while mixed.len() < 64 * 1024 {
        let text = if i % 10 == 9 {
            &secrets[i / 10 % secrets.len()]
        } else {
            &ordinary[i % ordinary.len()]
        };
        mixed.push_str(text);
        mixed.push('\n');
        i += 1;
    }
    let summary = "Replay of offline edits deduplicates ops by (client_id, op_seq); see the attached trace for the reconnect storm in group 5 and the retry budget.";

    let mut group = c.benchmark_group("redact");
    for (name, set) in [("ordinary-corpus", &ordinary), ("secret-corpus", &secrets)] {
        let bytes: usize = set.iter().map(String::len).sum();
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                for text in set {
                    black_box(redact(black_box(text)));
                }
            })
        });
    }
    group.throughput(Throughput::Bytes(mixed.len() as u64));
    group.bench_function("mixed-64k", |b| {
        b.iter(|| black_box(redact(black_box(&mixed))))
    });
    group.throughput(Throughput::Bytes(summary.len() as u64));
    group.bench_function("summary-no-secret", |b| {
        b.iter(|| black_box(redact(black_box(summary))))
    });
    group.finish();
}

/// Hostile inputs: one unit repeated to the size asked.
const SHAPES: &[(&str, &str)] = &[
    (
        "unterminated-private-keys",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n",
    ),
    (
        "unterminated-putty-keys",
        "PuTTY-User-Key-File-3: ssh-ed25519\n",
    ),
    (
        "unterminated-certificates",
        "-----BEGIN CERTIFICATE-----\nkP9zQ2wX7vB4nM1rT8yL5cD3fG6hJ0\n",
    ),
    ("mysql-flags-one-line", "mysql -h db -u root "),
    ("passphrases-one-line", "Password: correct horse "),
    ("random-tokens", "kP9zQ2wX7vB4nM1rT8yL5cD3fG6hJ0 "),
    ("bearer-words", "Bearer "),
    ("url-credentials", "https://a:b@"),
    ("unclosed-quoted-tokens", "token=\"aaa "),
    ("assignments-glued", "a="),
    ("one-long-word", "a"),
];

fn sizes(c: &mut Criterion) {
    let mut group = c.benchmark_group("redact-sizes");
    group.sample_size(10);
    for (name, unit) in SHAPES {
        for size in [64 * 1024, 256 * 1024, 1024 * 1024] {
            let text = unit.repeat(size / unit.len());
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_function(format!("{name}/{}k", size / 1024), |b| {
                b.iter(|| black_box(redact(black_box(&text))))
            });
        }
    }
    group.finish();
}

criterion_group!(redaction, bench, sizes);
criterion_main!(redaction);
