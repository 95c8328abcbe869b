//! What semantic similarity costs a word target on warm caches, the query's embedding
//! excluded: a generated knowledge base of 10,000 notes (`brief-corpus --kind notes`), every
//! node embedded by the stub server of `brief_embed::stub` (384 dimensions, the size of
//! multilingual-e5-small; the stub's vectors are a hash of the words, so the figures are
//! about the scan, not about quality), then, on one engine as `brief serve` keeps it:
//!
//! - `context/off`: the word target with embeddings off;
//! - `context/on`: the same with embeddings on (the query's vector remembered after the
//!   first call, so no request reaches the server);
//! - `similar/200`: `Engine::similar(query, 200)` on the remembered query and the vectors
//!   kept in memory: the scan of every vector, the top 200 and their ids;
//! - `vectors/read`: reading every stored vector from the index into one matrix (what a
//!   one-command process pays once).
//!
//! `cargo bench -p brief --bench embeddings --features embeddings` (set `BRIEF_BENCH_NODES`
//! for another size).

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use brief_corpus::{generate, Shape};
use brief_embed::stub::{Answer, Stub};
use brief_engine::ContextRequest;
use brief_engine::Engine;
use brief_index::Verify;
use criterion::{criterion_group, criterion_main, Criterion};

const DIMS: usize = 384;
const QUERY: &str = "how do we retry a failed carrier call";

fn nodes() -> usize {
    std::env::var("BRIEF_BENCH_NODES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000)
}

fn engine(root: &Path) -> Engine {
    let mut engine = Engine::open(Some(root), root).expect("the generated project opens");
    engine.refresh(Some(Verify::Full), &mut |_| {}).unwrap();
    engine
}

fn benches(c: &mut Criterion) {
    let n = nodes();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    generate(Shape::Notes, n, &root, 7).expect("corpus written");
    let mut off = engine(&root);
    let server = Stub::start(Answer::Vectors(DIMS)).unwrap();
    std::fs::write(
        root.join("brief.toml"),
        format!(
            "[embeddings]\nurl = \"{}\"\nmodel = \"stub\"\nbatch = 256\ntimeout_ms = 60000\n",
            server.url()
        ),
    )
    .unwrap();
    let mut on = engine(&root);
    let done = on.embed(&mut |_| {}).unwrap().unwrap().unwrap();
    assert_eq!(done.missing, 0);
    let request = ContextRequest {
        target: QUERY.into(),
        budget: Some(8000),
        ..ContextRequest::default()
    };
    // Both engines warm, the query's vector remembered.
    off.context(&request).unwrap();
    on.context(&request).unwrap();
    assert!(
        on.embeddings_notes().is_empty(),
        "{:?}",
        on.embeddings_notes()
    );

    let mut group = c.benchmark_group(format!("embeddings/notes/{n}"));
    group.sample_size(30);
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("context/off", |b| {
        b.iter(|| black_box(off.context(&request).unwrap()))
    });
    group.bench_function("context/on", |b| {
        b.iter(|| black_box(on.context(&request).unwrap()))
    });
    group.bench_function("similar/200", |b| {
        b.iter(|| black_box(on.similar(QUERY, 200).unwrap()))
    });
    let key = brief_embed::Endpoint::new("http://unused/v1", "stub").vector_key();
    let index = brief_index::Index::open(&on.project).unwrap();
    group.bench_function("vectors/read", |b| {
        b.iter(|| black_box(index.read_vectors(&key).unwrap().unwrap().len()))
    });
    group.finish();
}

criterion_group!(embeddings, benches);
criterion_main!(embeddings);
