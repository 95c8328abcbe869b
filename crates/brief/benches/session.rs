//! The session store: ranked listing from a session of 10,000 packages, the zone document
//! over it, and concurrent write throughput (threads, each with its own connection, adding
//! packages at once; every add is its own IMMEDIATE transaction, as in the CLI).
//!
//! Run with `cargo bench -p brief --bench session`.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use brief::Project;
use brief_session::{
    package_add, package_list, zone_context, ListRequest, Mode, NewPackage, PackageType, Priority,
    Secrets, SessionConfig, SessionPart, Store, ZoneRequest,
};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const NOW: i64 = 1_760_000_000;
const PACKAGES: usize = 10_000;
const AGENTS: [&str; 4] = [
    "developer",
    "qa_expert",
    "tech_lead",
    "senior_software_engineer",
];

fn package(i: usize) -> NewPackage {
    let priority = [
        Priority::Low,
        Priority::Medium,
        Priority::High,
        Priority::Critical,
    ][i % 7 % 4];
    let kind = [
        PackageType::Research,
        PackageType::Failures,
        PackageType::Decisions,
        PackageType::Handoff,
        PackageType::Investigation,
    ][i % 5];
    NewPackage {
        session: "bench".into(),
        // One in ten packages is global to the session.
        group: (!i.is_multiple_of(10)).then(|| format!("group_{}", i % 12)),
        kind,
        file: format!("bazinga/artifacts/bench/{i:05}.md"),
        producer: AGENTS[i % 4].into(),
        consumers: AGENTS[..1 + i % 3].iter().map(|s| s.to_string()).collect(),
        priority,
        summary: format!(
            "Package {i}: replay of offline edits in group {} deduplicates ops by (client_id, op_seq); see the attached trace for the reconnect storm.",
            i % 12
        ),
        supersedes: None,
    }
}

fn filled(root: &Path) -> Store {
    let mut store = Store::open(root, Mode::Create).unwrap();
    for i in 0..PACKAGES {
        // Created over the last 30 days.
        let created = NOW - ((i * 259) % (30 * 86_400)) as i64;
        package_add(&mut store, &package(i), created).unwrap();
    }
    store
}

fn listing(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = filled(dir.path());
    let config = SessionConfig::default();
    let mut group = c.benchmark_group("session/list-10k");
    for (name, group_id, limit) in [
        ("developer-group-limit3", Some("group_5"), None),
        ("developer-session-limit3", None, None),
        ("tech_lead-session-limit50", None, Some(50)),
    ] {
        let agent = if name.starts_with("tech_lead") {
            "tech_lead"
        } else {
            "developer"
        };
        let request = ListRequest {
            session: "bench".into(),
            agent: agent.into(),
            group: group_id.map(str::to_string),
            limit,
            ..ListRequest::default()
        };
        let first = package_list(&mut store, &request, &config, NOW).unwrap();
        assert!(first.total_available > 0);
        group.bench_function(name, |b| {
            b.iter(|| {
                black_box(package_list(&mut store, black_box(&request), &config, NOW).unwrap())
            })
        });
    }
    group.finish();

    let project = Project::at(dir.path()).unwrap();
    let request = ZoneRequest {
        part: SessionPart {
            session: "bench".into(),
            agent: "developer".into(),
            group: Some("group_5".into()),
            secrets: Secrets::Redact,
            ..SessionPart::default()
        },
        ..ZoneRequest::default()
    };
    let mut group = c.benchmark_group("session/zone-10k");
    group.bench_function("normal-no-task", |b| {
        b.iter(|| black_box(zone_context(&project, None, &request, NOW).unwrap()))
    });
    group.finish();
}

fn concurrent_writes(c: &mut Criterion) {
    let mut group = c.benchmark_group("session/concurrent-add");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(15));
    for threads in [1usize, 4, 8] {
        const ADDS: usize = 50;
        group.throughput(Throughput::Elements((threads * ADDS) as u64));
        group.bench_function(format!("{threads}x{ADDS}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let dir = tempfile::tempdir().unwrap();
                    drop(Store::open(dir.path(), Mode::Create).unwrap());
                    let start = Instant::now();
                    std::thread::scope(|scope| {
                        for t in 0..threads {
                            let root = dir.path();
                            scope.spawn(move || {
                                let mut store = Store::open(root, Mode::Create).unwrap();
                                for i in 0..ADDS {
                                    package_add(&mut store, &package(t * ADDS + i), NOW).unwrap();
                                }
                            });
                        }
                    });
                    total += start.elapsed();
                    let mut store = Store::open(dir.path(), Mode::Existing).unwrap();
                    let all = package_list(
                        &mut store,
                        &ListRequest {
                            session: "bench".into(),
                            agent: "developer".into(),
                            limit: Some(1),
                            ..ListRequest::default()
                        },
                        &SessionConfig::default(),
                        NOW,
                    )
                    .unwrap();
                    assert_eq!(all.total_available, threads * ADDS, "a write was lost");
                }
                total
            })
        });
    }
    group.finish();
}

criterion_group!(session, listing, concurrent_writes);
criterion_main!(session);
