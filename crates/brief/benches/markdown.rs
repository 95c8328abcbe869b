//! The knowledge-base parser on hostile pages: marks that open and never close (`[[`, `[`,
//! `![[`, `[[a#`, `[[a|`, `\[[`, `- [[`, `<`, `<!--`), 100,000 wikilinks (resolved and
//! broken), one unbroken word, and a long page split into sections — each at two sizes, so
//! the time per byte shows whether the work is linear (it is: the same per byte at both).
//!
//! Run with `cargo bench -p brief --bench markdown`.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use brief_sources::{parse_markdown as parse, Catalog, Layout};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// A page whose body is `unit` repeated to `size` bytes.
fn page(unit: &str, size: usize) -> String {
    format!("# Hostile\n\n{}\n", unit.repeat(size / unit.len()))
}

/// A long page: `sections` sections of about 1 KB, each with a sub-heading and a link.
fn long_page(sections: usize) -> String {
    let mut text = String::from("# Guide\n\nIntro.\n\n");
    for i in 0..sections {
        text.push_str(&format!("## Part {i}\n\n"));
        text.push_str(&"Words of a paragraph that explains one part of the guide. ".repeat(8));
        text.push_str(&format!("\n\nSee [[note{}]].\n\n### Setup\n\n", i % 50));
        text.push_str(&"A step of the setup, written out in full. ".repeat(8));
        text.push_str("\n\n");
    }
    text
}

fn bench(c: &mut Criterion) {
    let notes: Vec<String> = (0..50).map(|i| format!("notes/note{i}.md")).collect();
    let catalog = Catalog::new(Layout::default(), notes);
    let mut group = c.benchmark_group("markdown");
    group.sample_size(10);
    let units = [
        ("wikilink-open", "[["),
        ("bracket", "["),
        ("embed-open", "![["),
        ("wikilink-heading", "[[a#"),
        ("wikilink-alias", "[[a|"),
        ("escaped", "\\[["),
        ("list-wikilink", "- [["),
        ("angle", "<"),
        ("comment-open", "<!--"),
        ("wikilinks", "[[note7]] "),
        ("broken-wikilinks", "[[nowhere]] "),
        ("word", "a"),
    ];
    for (name, unit) in units {
        for size in [100_000, 1_000_000] {
            let text = page(unit, size);
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_with_input(BenchmarkId::new(name, size), &text, |b, text| {
                b.iter(|| black_box(parse("notes/hostile.md", text, &catalog)))
            });
        }
    }
    for sections in [100, 1_000] {
        let text = long_page(sections);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("sections", text.len()),
            &text,
            |b, text| b.iter(|| black_box(parse("notes/guide.md", text, &catalog))),
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
