//! The index and context on a generated project (`brief-corpus`): cold build, no-change
//! refresh, one named file, and a warm `context` at depth 2 with budget 8000.
//!
//! `cargo bench -p brief --bench index` runs on 10,000 nodes (set `BRIEF_BENCH_NODES` for
//! more); the 100k-node whole-process figures in BENCHMARKS.md come from `hyperfine` on the
//! `brief` binary.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use brief_corpus::{generate, Shape};
use brief_engine::ContextRequest;
use brief_engine::Engine;
use brief_index::Verify;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};

fn nodes() -> usize {
    std::env::var("BRIEF_BENCH_NODES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000)
}

fn fresh(root: &Path) -> Engine {
    Engine::open(Some(root), root).expect("the generated project opens")
}

fn benches(c: &mut Criterion) {
    let n = nodes();
    for (shape, name, target) in [
        (Shape::SpecGraph, "specgraph", "F10-05"),
        (Shape::Artifacts, "artifacts", "TASK-10"),
        (Shape::Notes, "notes", "ADR-0012"),
        (Shape::Layered, "layered", "B-10"),
        (Shape::SpecKit, "speckit", "010-identity-9/T014"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        generate(shape, n, &root, 7).expect("corpus written");
        let mut group = c.benchmark_group(format!("index/{name}/{n}"));
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(10));
        group.bench_function("cold", |b| {
            b.iter_batched(
                || {
                    let _ = std::fs::remove_dir_all(root.join(".brief"));
                },
                |_| {
                    let mut engine = fresh(&root);
                    engine.refresh(Some(Verify::Full), &mut |_| {}).unwrap()
                },
                BatchSize::PerIteration,
            )
        });
        let mut engine = fresh(&root);
        engine.refresh(Some(Verify::Full), &mut |_| {}).unwrap();
        group.bench_function("no-change", |b| {
            b.iter(|| engine.refresh(Some(Verify::Full), &mut |_| {}).unwrap())
        });
        let file = match shape {
            Shape::SpecGraph => "specgraph/nodes/behaviors/F10-05.json",
            Shape::Artifacts => ".contextia/work/tasks/TASK-10.md",
            Shape::Tana => "export.json",
            Shape::Notes => "Notifications/Notifications note 10.md",
            Shape::Layered => "specgraph/nodes/behaviors/B-10.json",
            Shape::Dense => ".contextia/work/tasks/TASK-11.md",
            Shape::SpecKit => "specs/010-identity-9/tasks.md",
        };
        let original = std::fs::read_to_string(root.join(file)).unwrap();
        let mut flip = false;
        group.bench_function("one-named-file", |b| {
            b.iter(|| {
                flip = !flip;
                let text = if flip {
                    original.replace('#', "# ")
                } else {
                    original.clone()
                };
                std::fs::write(root.join(file), text).unwrap();
                let refresh = engine.refresh_paths(&[file.to_string()]).unwrap();
                assert_eq!(refresh.parsed, 1);
            })
        });
        std::fs::write(root.join(file), &original).unwrap();
        group.finish();

        let mut group = c.benchmark_group(format!("context/{name}/{n}"));
        group.sample_size(30);
        let request = ContextRequest {
            target: target.to_string(),
            depth: Some(brief::Depth::Hops(2)),
            budget: Some(8000),
            ..ContextRequest::default()
        };
        engine.context(&request).unwrap();
        group.bench_function("depth2-budget8000-warm", |b| {
            b.iter(|| black_box(engine.context(black_box(&request)).unwrap()))
        });
        group.finish();
    }
}

criterion_group!(index, benches);
criterion_main!(index);
