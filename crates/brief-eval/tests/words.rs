//! The evaluation of tasks in words on this crate's fixtures (`words/fixtures/`): small
//! projects of our own writing in the shapes of the real repositories (Nygard, MADR and
//! log4brains ADRs, status lines in their many real forms, a docs tree with agent files, an
//! Obsidian vault). The same runner as
//! `brief-eval words` runs on copies of them; the tests check that it runs, that every label
//! names a file brief reads, that budgets hold, that the table is well formed and the same
//! on every run, and that brief reaches the floors it reaches today.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use brief_eval::words::{self, evaluate, metric, Method, Options, WordReport};

/// brief's mean must recall (with text) on the fixtures at 2,000 tokens is at least this
/// today (0.94 on main at ee5ea00). Raise it as the engine improves.
const BRIEF_MUST_RECALL_AT_2000: f64 = 0.90;

/// brief's start hit on the fixtures is at least this today (0.57 on main at ee5ea00).
const BRIEF_START_HIT: f64 = 0.55;

/// The acceptance of issue 26: must recall at 2,000 tokens.
const TARGET_MUST_RECALL: f64 = 0.90;

/// The acceptance of issue 26: start hit.
const TARGET_START_HIT: f64 = 0.85;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("words/fixtures")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs the evaluation on fresh copies of the fixtures (brief writes its index into a
/// project's `.brief/`, which must not land in the source tree).
fn run(options: &Options) -> (Vec<words::TaskFile>, WordReport) {
    let files = words::read_dir(&fixtures()).unwrap();
    let repos = tempfile::tempdir().unwrap();
    for file in &files {
        copy_dir(
            &fixtures().join(file.folder()),
            &repos.path().join(file.folder()),
        );
    }
    let report = evaluate(repos.path(), &files, options, &mut |_| {}).unwrap();
    (files, report)
}

#[test]
fn the_fixtures_are_measured_with_every_label_a_file_brief_reads() {
    let options = Options::default();
    let (files, report) = run(&options);
    let names: Vec<&str> = files.iter().map(|f| f.repo.as_str()).collect();
    assert_eq!(
        names,
        [
            "fixture/agents",
            "fixture/log4brains",
            "fixture/madr",
            "fixture/nygard",
            "fixture/statuses",
            "fixture/vault"
        ]
    );
    let tasks: usize = files.iter().map(|f| f.tasks.len()).sum();
    assert_eq!(
        report.rows.len(),
        tasks * options.budgets.len() * Method::ALL.len()
    );
    assert!(report.unread.is_empty(), "{:?}", report.unread);
    for row in &report.rows {
        assert!(row.score.used <= row.budget, "{row:?}");
        assert!(row.failure.is_none(), "{row:?}");
    }
    // The retrieval methods fill their budget when the project is larger than it.
    for row in report.rows.iter().filter(|r| r.method != Method::Brief) {
        if row.budget == 1000 {
            assert!(row.score.used >= 950, "{row:?}");
        }
    }
    let markdown = report.markdown(&options.budgets, &options.methods, true);
    eprintln!("{markdown}");
    assert_tables_are_well_formed(&markdown);
}

#[test]
fn every_ranking_method_places_each_tasks_start() {
    let options = Options::default();
    let (files, report) = run(&options);
    let tasks: usize = files.iter().map(|f| f.tasks.len()).sum();
    let ranked: Vec<Method> = report.start_ranks.keys().copied().collect();
    // The dump has no ranking.
    assert_eq!(ranked, [Method::Brief, Method::Bm25]);
    for ranks in report.start_ranks.values() {
        assert_eq!(ranks.len(), tasks);
        assert!(ranks.values().flatten().all(|&r| r < words::RANKED));
    }
    // BM25's document starts from its best file, so its start hit is its share of starts
    // ranked first.
    let first = report.start_ranks[&Method::Bm25]
        .values()
        .filter(|r| **r == Some(0))
        .count();
    let hit = report
        .mean(None, Method::Bm25, 1000, metric::START)
        .unwrap();
    assert_eq!(first as f64 / tasks as f64, hit);
    // brief finds the labelled start of most fixture tasks among its first files.
    let found = report.start_ranks[&Method::Brief]
        .values()
        .flatten()
        .count();
    assert!(found * 10 >= tasks * 9, "{found} of {tasks}");
}

#[test]
fn brief_reaches_todays_floors_on_the_fixtures() {
    let (_, report) = run(&Options::default());
    let mean = |method, metric: metric::Metric| report.mean(None, method, 2000, metric).unwrap();
    let recall = mean(Method::Brief, metric::MUST_TEXT);
    assert!(recall >= BRIEF_MUST_RECALL_AT_2000, "{recall}");
    let start = mean(Method::Brief, metric::START);
    assert!(start >= BRIEF_START_HIT, "{start}");
    // The baseline itself: BM25 top-k shows every must document of these small projects.
    let bm25 = mean(Method::Bm25, metric::MUST_TEXT);
    assert!(bm25 >= 0.95, "{bm25}");
    // brief never shows misleading documents more often than BM25.
    let never = |m| mean(m, metric::NEVER);
    assert!(never(Method::Brief) <= never(Method::Bm25));
}

/// Issue 26's acceptance on the fixtures; not met today. Run it with
/// `cargo test -p brief-eval --test words -- --ignored` while working on word targets.
#[test]
#[ignore = "issue 26's targets, not met by brief today"]
fn brief_meets_the_targets_of_issue_26_on_the_fixtures() {
    let options = Options::default();
    let (_, report) = run(&options);
    let mean = |method, budget, metric| report.mean(None, method, budget, metric).unwrap();
    let recall = mean(Method::Brief, 2000, metric::MUST_TEXT);
    assert!(recall >= TARGET_MUST_RECALL, "{recall}");
    let start = mean(Method::Brief, 2000, metric::START);
    assert!(start >= TARGET_START_HIT, "{start}");
    for &budget in &options.budgets {
        let brief = mean(Method::Brief, budget, metric::MUST_TEXT);
        let bm25 = mean(Method::Bm25, budget, metric::MUST_TEXT);
        assert!(brief >= bm25, "at {budget}: brief {brief}, BM25 {bm25}");
    }
}

/// Dense retrieval runs on the fixtures with the stub server of `brief_embed::stub` (its
/// vectors hash words, so this is about the plumbing, not about meaning): every node is
/// embedded once per project, every document holds its budget, no run fails.
#[test]
fn dense_retrieval_runs_on_the_fixtures() {
    let server = brief_embed::stub::Stub::start(brief_embed::stub::Answer::Vectors(64)).unwrap();
    let files = words::read_dir(&fixtures()).unwrap();
    let repos = tempfile::tempdir().unwrap();
    for file in &files {
        let copy = repos.path().join(file.folder());
        copy_dir(&fixtures().join(file.folder()), &copy);
        for task in &file.tasks {
            std::fs::write(
                file.root_of(&copy, task).join("brief.toml"),
                format!(
                    "[embeddings]\nurl = \"{}\"\nmodel = \"stub\"\ntimeout_ms = 10000\n",
                    server.url()
                ),
            )
            .unwrap();
        }
    }
    let options = Options {
        budgets: vec![1000, 2000],
        methods: Method::WITH_DENSE.to_vec(),
        seeds: None,
    };
    let report = evaluate(repos.path(), &files, &options, &mut |_| {}).unwrap();
    let dense: Vec<_> = report
        .rows
        .iter()
        .filter(|r| r.method == Method::Dense)
        .collect();
    let tasks: usize = files.iter().map(|f| f.tasks.len()).sum();
    assert_eq!(dense.len(), tasks * 2);
    for row in dense {
        assert!(row.failure.is_none(), "{row:?}");
        assert!(row.score.used <= row.budget, "{row:?}");
    }
    assert!(!server.texts().is_empty());
    let markdown = report.markdown(&options.budgets, &options.methods, false);
    assert!(markdown.contains("dense retrieval"), "{markdown}");
}

#[test]
fn the_report_is_the_same_on_every_run() {
    let options = Options {
        budgets: vec![1000, 4000],
        ..Options::default()
    };
    let (_, first) = run(&options);
    let (_, second) = run(&options);
    let text = |r: &WordReport| r.markdown(&options.budgets, &options.methods, true);
    assert_eq!(text(&first), text(&second));
}

/// Every Markdown table has a header, a rule and rows with as many cells as the header.
fn assert_tables_are_well_formed(markdown: &str) {
    let mut tables = 0;
    for block in markdown.split("\n\n") {
        let rows: Vec<&str> = block.lines().filter(|l| l.starts_with('|')).collect();
        let Some(header) = rows.first() else {
            continue;
        };
        tables += 1;
        let cells = header.matches('|').count();
        for row in &rows {
            assert_eq!(row.matches('|').count(), cells, "{row}\nin\n{block}");
        }
        assert!(rows.len() >= 3, "{block}");
    }
    assert_eq!(tables, 4, "{markdown}");
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.org")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.org")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn a_pinned_commit_is_materialised_from_a_git_directory() {
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("src");
    std::fs::create_dir_all(repo.join("docs/adr")).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("AGENTS.md"), "# Rules\n").unwrap();
    std::fs::write(repo.join("docs/adr/0001-a b.md"), "# 1. A\n").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("AGENTS.md", repo.join("CLAUDE.md")).unwrap();
        std::os::unix::fs::symlink("../../outside", repo.join("docs/escape.md")).unwrap();
    }
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    let pinned = git(&repo, &["rev-parse", "HEAD"]);
    std::fs::write(repo.join("AGENTS.md"), "# Rules, changed later\n").unwrap();
    git(&repo, &["commit", "-q", "-am", "second"]);

    let into = work.path().join("out/o+n");
    let written = words::materialise(&repo.join(".git"), &pinned, &into).unwrap();
    assert_eq!(written.missing, 0);
    let read = |p: &str| std::fs::read_to_string(into.join(p)).unwrap();
    assert_eq!(read("AGENTS.md"), "# Rules\n");
    assert_eq!(read("docs/adr/0001-a b.md"), "# 1. A\n");
    #[cfg(unix)]
    {
        assert_eq!(written.files, 3);
        assert!(into.join("CLAUDE.md").is_symlink());
        assert_eq!(read("CLAUDE.md"), "# Rules\n");
        assert!(!into.join("docs/escape.md").exists());
    }
    assert!(!into.join(".git").exists());
    let absent = "0123456789012345678901234567890123456789";
    let error = words::materialise(&repo.join(".git"), absent, &into).unwrap_err();
    assert!(error.contains("cannot be listed"), "{error}");
    assert_eq!(
        words::git_dir(work.path(), "src"),
        work.path().join("src/.git")
    );
}

/// The committed task files read and validate: the evaluation set (`words/`, at least the 60
/// tasks the evaluation asks for, every file pinned to a commit) and the held-out set
/// (`held-out/`, written after the ranking's parameters were chosen), which share no
/// repository.
#[test]
fn the_committed_task_files_read_and_the_held_out_set_is_apart() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tuned = words::read_dir(&dir.join("words")).unwrap();
    let held = words::read_dir(&dir.join("held-out")).unwrap();
    let tasks = |files: &[words::TaskFile]| files.iter().map(|f| f.tasks.len()).sum::<usize>();
    assert!(tasks(&tuned) >= 60, "{}", tasks(&tuned));
    assert!(tasks(&held) >= 20, "{}", tasks(&held));
    for file in tuned.iter().chain(&held) {
        assert!(file.commit.is_some(), "{} is not pinned", file.repo);
    }
    for file in &held {
        assert!(
            !tuned.iter().any(|t| t.repo == file.repo),
            "{} is in both sets",
            file.repo
        );
    }
}
