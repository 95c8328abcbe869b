//! The session store on both backends: latency and throughput of `package add`,
//! `package list` and `error match`, as agents run them (one `brief` process per command,
//! the release binary) and in process (the library call alone, one open store), on a store of
//! `BRIEF_BENCH_PACKAGES` packages (default 10,000; in sessions of 1,000) and a tenth as many
//! error patterns.
//!
//! `cargo bench -p brief-cli --bench session_store` (set `BRIEF_BENCH_PACKAGES=1000000` for
//! the large store, `BRIEF_BENCH_RUNS` for the commands timed per figure). PostgreSQL is
//! `BRIEF_TEST_POSTGRES_URL`, else a cluster started here (`brief_session::testing`).
//! The SQLite store is filled through the library, one transaction per package as
//! `package add` writes; the PostgreSQL one is a `brief session migrate` copy of it. The two
//! stores take turns run by run, so the machine's load falls on both alike.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use brief_session::testing::{self, Database};
use brief_session::{error_match, error_record, ErrorRecord};
use brief_session::{package_add, package_list, ListRequest, NewPackage};
use brief_session::{Location, Mode};
use brief_session::{PackageType, Priority, SessionConfig, Store};

const NOW: i64 = 1_760_000_000;
const PER_SESSION: usize = 1_000;
const AGENTS: [&str; 4] = [
    "developer",
    "qa_expert",
    "tech_lead",
    "senior_software_engineer",
];
const WORDS: [&str; 16] = [
    "database",
    "locked",
    "timeout",
    "socket",
    "refused",
    "module",
    "missing",
    "undefined",
    "property",
    "cursor",
    "stale",
    "replay",
    "merge",
    "conflict",
    "token",
    "expired",
];

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn package(i: usize) -> NewPackage {
    NewPackage {
        session: format!("bench_{}", i / PER_SESSION),
        group: (!i.is_multiple_of(10)).then(|| format!("group_{}", i % 12)),
        kind: [
            PackageType::Research,
            PackageType::Failures,
            PackageType::Handoff,
        ][i % 3],
        file: "notes/package.md".into(),
        producer: AGENTS[i % 4].into(),
        consumers: AGENTS[..1 + i % 3].iter().map(|s| s.to_string()).collect(),
        priority: [
            Priority::Low,
            Priority::Medium,
            Priority::High,
            Priority::Critical,
        ][i % 7 % 4],
        summary: format!(
            "Package {i}: replay of offline edits in group {} dedupes ops by (client_id, op_seq).",
            i % 12
        ),
        supersedes: None,
    }
}

/// An error message of five words drawn from a fixed list, and a number that keeps it apart.
fn message(i: usize) -> String {
    let w = |k: usize| WORDS[(i / 16usize.pow(k as u32)) % 16];
    format!(
        "E{i}: {} {} {} while {} the {} store",
        w(0),
        w(1),
        w(2),
        w(3),
        w(4)
    )
}

fn fill(root: &Path, packages: usize) -> Duration {
    let started = Instant::now();
    let mut store = Store::open(root, Mode::Create).unwrap();
    for i in 0..packages {
        package_add(&mut store, &package(i), NOW - (i % 30) as i64 * 86_400).unwrap();
    }
    for i in 0..packages / 10 {
        let record = ErrorRecord {
            project: "bench".into(),
            message: message(i),
            solution: format!("Solution {i}"),
            lang: None,
        };
        error_record(&mut store, &record, NOW).unwrap();
    }
    started.elapsed()
}

struct Figures {
    sorted: Vec<Duration>,
}

impl Figures {
    fn of(mut times: Vec<Duration>) -> Figures {
        times.sort();
        Figures { sorted: times }
    }

    fn at(&self, p: f64) -> Duration {
        self.sorted[((self.sorted.len() as f64 - 1.0) * p).round() as usize]
    }

    fn line(&self, what: &str) -> String {
        format!(
            "| {what} | {:.2} ms | {:.2} ms | {:.0}/s |",
            self.at(0.5).as_secs_f64() * 1000.0,
            self.at(0.95).as_secs_f64() * 1000.0,
            1.0 / self.at(0.5).as_secs_f64()
        )
    }
}

/// `brief` with the session store of `url` (or SQLite), at the bench's clock.
fn brief(root: &Path, url: Option<&str>) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_brief"));
    c.env("BRIEF_NOW", NOW.to_string()).arg("--root").arg(root);
    match url {
        Some(u) => c.env("BRIEF_SESSION_URL", u),
        None => c.env_remove("BRIEF_SESSION_URL"),
    };
    c
}

fn timed(mut command: Command) -> Duration {
    let started = Instant::now();
    let out = command.output().unwrap();
    let elapsed = started.elapsed();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    elapsed
}

/// A store the bench measures: its label, its URL (`None`: SQLite) and its location.
struct Measured {
    name: &'static str,
    url: Option<String>,
    location: Location,
}

/// Times `step(store, run)` `runs` times on each store, the stores taking turns run by run
/// so that a busy moment of the machine falls on both alike.
fn interleaved<S>(
    stores: &mut [S],
    runs: usize,
    mut step: impl FnMut(&mut S, usize),
) -> Vec<Figures> {
    let mut times = vec![Vec::with_capacity(runs); stores.len()];
    for run in 0..runs {
        for (store, times) in stores.iter_mut().zip(&mut times) {
            let started = Instant::now();
            step(store, run);
            times.push(started.elapsed());
        }
    }
    times.into_iter().map(Figures::of).collect()
}

/// The commands the bench times through the binary.
#[derive(Clone, Copy)]
enum Timed {
    Add,
    List,
    Match,
}

impl Timed {
    const ALL: [Timed; 3] = [Timed::Add, Timed::List, Timed::Match];

    fn label(self) -> &'static str {
        match self {
            Timed::Add => "`brief session package add`",
            Timed::List => "`brief session package list` (a session of 1,000)",
            Timed::Match => "`brief session error match` (similar, BM25)",
        }
    }

    /// The command's arguments for run `i`.
    fn args(self, i: usize, sessions: usize) -> Vec<String> {
        let session = format!("bench_{}", i % sessions);
        let message = format!(
            "{} {} while {}",
            WORDS[i % 16],
            WORDS[(i * 7) % 16],
            WORDS[(i * 3) % 16]
        );
        let args: Vec<&str> = match self {
            Timed::Add => vec![
                "session",
                "package",
                "add",
                "--session",
                &session,
                "--type",
                "handoff",
                "--file",
                "notes/package.md",
                "--producer",
                "developer",
                "--consumers",
                "qa_expert",
                "--summary",
                "Added by the bench",
            ],
            Timed::List => vec![
                "session",
                "package",
                "list",
                "--session",
                &session,
                "--agent",
                "developer",
                "--group",
                "group_5",
            ],
            Timed::Match => vec![
                "session",
                "error",
                "match",
                "--project",
                "bench",
                "--message",
                &message,
            ],
        };
        args.into_iter().map(String::from).collect()
    }
}

/// The three commands through the binary, `runs` times each on every store.
fn through_the_binary(
    root: &Path,
    stores: &mut [&Measured],
    runs: usize,
    packages: usize,
) -> Vec<Vec<String>> {
    let sessions = (packages / PER_SESSION).max(1);
    let mut lines = vec![Vec::new(); stores.len()];
    for what in Timed::ALL {
        let figures = interleaved(stores, runs, |store, i| {
            let mut c = brief(root, store.url.as_deref());
            c.args(what.args(i, sessions));
            timed(c);
        });
        for (lines, f) in lines.iter_mut().zip(figures) {
            lines.push(f.line(what.label()));
        }
    }
    lines
}

/// The library calls alone on one open store per backend.
fn in_process(stores: &[Measured], runs: usize, packages: usize) -> Vec<Vec<String>> {
    let sessions = (packages / PER_SESSION).max(1);
    let mut open: Vec<Store> = stores
        .iter()
        .map(|m| Store::connect(&m.location, Mode::Create).unwrap())
        .collect();
    let config = SessionConfig::default();
    let add = interleaved(&mut open, runs, |store, i| {
        package_add(store, &package(packages + i), NOW).unwrap();
    });
    let list = interleaved(&mut open, runs, |store, i| {
        let request = ListRequest {
            session: format!("bench_{}", i % sessions),
            agent: "developer".into(),
            group: Some("group_5".into()),
            ..ListRequest::default()
        };
        package_list(store, &request, &config, NOW).unwrap();
    });
    let matching = interleaved(&mut open, runs, |store, i| {
        let m = format!(
            "{} {} while {}",
            WORDS[i % 16],
            WORDS[(i * 7) % 16],
            WORDS[(i * 3) % 16]
        );
        error_match(store, "bench", &m, 3, NOW).unwrap();
    });
    (0..stores.len())
        .map(|s| {
            vec![
                add[s].line("`package_add`"),
                list[s].line("`package_list`"),
                matching[s].line("`error_match`"),
            ]
        })
        .collect()
}

/// `workers` processes adding `each` packages at once: packages per second.
fn concurrent_adds(root: &Path, url: Option<&str>, workers: usize, each: usize) -> f64 {
    let started = Instant::now();
    std::thread::scope(|scope| {
        for w in 0..workers {
            scope.spawn(move || {
                for _ in 0..each {
                    let mut c = brief(root, url);
                    c.args([
                        "session",
                        "package",
                        "add",
                        "--session",
                        &format!("bench_{w}"),
                        "--type",
                        "handoff",
                        "--file",
                        "notes/package.md",
                        "--producer",
                        "developer",
                        "--consumers",
                        "qa_expert",
                        "--summary",
                        "Concurrent add",
                    ]);
                    timed(c);
                }
            });
        }
    });
    (workers * each) as f64 / started.elapsed().as_secs_f64()
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let packages = env_or("BRIEF_BENCH_PACKAGES", 10_000);
    let runs = env_or("BRIEF_BENCH_RUNS", 100);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(root.join("notes/package.md"), "# Package\n").unwrap();
    let filled = fill(root, packages);
    println!(
        "filled SQLite with {packages} packages and {} patterns in {:.1} s",
        packages / 10,
        filled.as_secs_f64()
    );
    let Some(server) = testing::server() else {
        return;
    };
    let database = Database::create(server);
    let started = Instant::now();
    let copied =
        brief_session::copy_store(&Location::Project(root.to_path_buf()), &database.location())
            .unwrap();
    println!(
        "`brief session migrate` to PostgreSQL: {} rows in {:.1} s",
        copied.counts.sessions
            + copied.counts.packages
            + copied.counts.consumers
            + copied.counts.error_patterns
            + copied.counts.error_terms,
        started.elapsed().as_secs_f64()
    );
    // What autovacuum does within minutes of a bulk load; measured before it, the first
    // commands plan without statistics and set hint bits on millions of fresh rows.
    let started = Instant::now();
    let joiner = if database.url.contains('?') { '&' } else { '?' };
    testing::execute(
        &format!("{}{joiner}options=-c%20statement_timeout%3D0", database.url),
        "VACUUM ANALYZE",
    );
    println!(
        "VACUUM ANALYZE after the copy: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let stores = [
        Measured {
            name: "SQLite",
            url: None,
            location: Location::Project(root.to_path_buf()),
        },
        Measured {
            name: "PostgreSQL",
            url: Some(database.url.clone()),
            location: database.location(),
        },
    ];
    let mut refs: Vec<&Measured> = stores.iter().collect();
    let binary = through_the_binary(root, &mut refs, runs, packages);
    let library = in_process(&stores, runs, packages);
    let concurrent: Vec<f64> = stores
        .iter()
        .map(|m| concurrent_adds(root, m.url.as_deref(), 8, 25))
        .collect();
    for (s, store) in stores.iter().enumerate() {
        println!(
            "\n{}, {packages} packages: | what | median | p95 | per second at the median |",
            store.name
        );
        for line in binary[s].iter().chain(&library[s]) {
            println!("{line}");
        }
        println!(
            "8 processes × 25 adds at once: {:.0} packages/s",
            concurrent[s]
        );
    }
}
