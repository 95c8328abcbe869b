//! Spec Kit, Kiro and rules with globs through the binary, with no `brief.toml`: the context of
//! a task holds what governs it (its story or criteria, the hard principles, the research
//! decisions) at 2,000 tokens; ids scoped by feature keep colliding task ids apart; budgets are
//! exact against tiktoken-rs and the same request gives the same bytes; `brief init` reports
//! what it found. Fixtures: `tests/fixtures/{speckit,kiro,rules}/repo` (copied: contexts write
//! an index).

use crate::common::{copy_fixture, git, run};
use serde_json::Value;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

fn oracle(text: &str) -> usize {
    tiktoken_rs::cl100k_base()
        .unwrap()
        .encode_ordinary(text)
        .len()
}

#[track_caller]
fn brief(args: &[&str]) -> String {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, 0, "brief {args:?}: {stderr}");
    stdout
}

fn audit(root: &str, target: &str, budget: &str) -> Value {
    let out = brief(&[
        "context", target, "--root", root, "--budget", budget, "--format", "json",
    ]);
    serde_json::from_str(&out).expect("JSON output")
}

/// The nodes the document shows (at meta or more), by id.
fn shown(v: &Value) -> Vec<String> {
    v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["detail"] != "omitted")
        .map(|n| n["id"].as_str().unwrap().to_string())
        .collect()
}

#[track_caller]
fn holds(v: &Value, ids: &[&str]) {
    let shown = shown(v);
    for id in ids {
        assert!(
            shown.iter().any(|s| s == id),
            "{id} is not shown: {shown:?}"
        );
    }
}

#[test]
fn a_spec_kit_task_at_2000_tokens_holds_its_story_principles_and_decisions() {
    let dir = copy_fixture(&format!("{FIXTURES}/speckit/repo"));
    let root = dir.path().to_str().unwrap();
    let json = audit(root, "003-payments/T014", "2000");
    holds(
        &json,
        &[
            "003-payments/T014",
            "003-payments/US2",
            "003-payments/FR-007",
            // Non-negotiable in the heading, only in a bullet, worded MUST.
            "constitution/I",
            "constitution/II",
            "constitution/III",
            // The research decisions the plan it builds on is constrained by.
            "003-payments/D-6",
            "003-payments/TD-001",
        ],
    );
    let class = |id: &str| {
        json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == id)
            .map(|n| n["rank"]["class"].as_str().unwrap().to_string())
    };
    assert_eq!(class("constitution/I").as_deref(), Some("hard"));
    assert_eq!(class("003-payments/D-6").as_deref(), Some("hard"));
    assert_ne!(class("constitution/IV").as_deref(), Some("hard"), "soft");
    // What applies to the task's files without a link (rule 1b): the root agent file, and the
    // one of the folder the task's file is in.
    assert_eq!(class("src/payments/AGENTS.md").as_deref(), Some("hard"));
    assert_eq!(class("003-payments/US2").as_deref(), Some("direct"));
    let document = json["document"].as_str().unwrap();
    assert!(
        document.contains("Redis with a TTL"),
        "a decision shows its rejected alternatives:\n{document}"
    );
}

#[test]
fn a_task_whose_id_collides_with_other_features_gets_its_own_feature() {
    let dir = copy_fixture(&format!("{FIXTURES}/speckit/repo"));
    let root = dir.path().to_str().unwrap();
    for (task, story, feature) in [
        ("003-refunds/T056", "003-refunds/US1", "003-refunds"),
        (
            "002-notifications/T056",
            "002-notifications/US1",
            "002-notifications",
        ),
    ] {
        let json = audit(root, task, "6000");
        holds(&json, &[task, story, feature]);
        // Related material (what links to the selection, labelled so) may come from anywhere;
        // what the task's links and namespace bring stays in its feature.
        let foreign: Vec<String> = json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["detail"] != "omitted" && n["rank"]["class"] != "related")
            .map(|n| n["id"].as_str().unwrap().to_string())
            .filter(|id| {
                id.contains('/')
                    && !id.starts_with(feature)
                    && !id.starts_with("constitution")
                    && !id.ends_with("AGENTS.md")
            })
            .collect();
        assert!(foreign.is_empty(), "{task}: {foreign:?}");
    }
}

/// The walk for nested workspaces is kept between runs (`.brief/cache/kiro-walk`): a
/// workspace added after it was kept is found by the very next run.
#[test]
fn a_kiro_workspace_added_after_the_walk_was_kept_is_found() {
    let dir = copy_fixture(&format!("{FIXTURES}/kiro/repo"));
    let root = dir.path().to_str().unwrap();
    let settle = || std::thread::sleep(std::time::Duration::from_millis(120));
    // The first run makes `.brief/cache`; once the folders are past the racy window, the next
    // keeps its walk, and the one after that answers from it.
    for _ in 0..3 {
        // Nothing says `quartzite` yet (exit 1): the runs are for their walks.
        let (_, _, err) = run(&["search", "quartzite", "--root", root]);
        assert!(err.contains("no match"), "{err}");
        settle();
    }
    let kept = dir.path().join(".brief/cache/kiro-walk");
    assert!(kept.is_file(), "the walk was not kept");
    crate::common::write_file(
        dir.path(),
        "tools/lint/.kiro/steering/lint.md",
        "# Lint rules\n\nEvery quartzite check runs before commit.\n",
    );
    let found = brief(&["search", "quartzite", "--root", root]);
    assert!(
        found.contains("tools/lint/.kiro/steering/lint.md"),
        "{found}"
    );
}

#[test]
fn a_kiro_task_holds_its_criteria_requirement_and_design() {
    let dir = copy_fixture(&format!("{FIXTURES}/kiro/repo"));
    let root = dir.path().to_str().unwrap();
    let json = audit(root, "user-auth/2.1", "2000");
    holds(
        &json,
        &[
            "user-auth/2.1",
            "user-auth/R1",
            "user-auth/R1.1",
            "user-auth/R1.2",
            "user-auth/design",
        ],
    );
    // Steering: always, and by fileMatch on the file the task names; not the others.
    holds(
        &json,
        &[
            ".kiro/steering/product.md",
            ".kiro/steering/tech.md",
            ".kiro/steering/api-style.md",
        ],
    );
    let shown = shown(&json);
    for not in [
        ".kiro/steering/testing.md",
        ".kiro/steering/release.md",
        "services/search/.kiro/steering/search.md",
    ] {
        assert!(!shown.iter().any(|s| s == not), "{not}: {shown:?}");
    }
    let document = json["document"].as_str().unwrap();
    assert!(
        document.contains("WHEN a member submits a wrong password THEN the system SHALL"),
        "criteria keep WHEN/THEN/SHALL:\n{document}"
    );
}

#[test]
fn spec_driven_contexts_are_exact_and_deterministic() {
    for (fixture, target) in [
        ("speckit", "003-payments/T014"),
        ("speckit", "001-accounts"),
        ("speckit", "constitution/I"),
        ("kiro", "user-auth/2.1"),
        ("kiro", "services/search/indexing/1"),
        ("rules", "CLAUDE.md"),
    ] {
        let dir = copy_fixture(&format!("{FIXTURES}/{fixture}/repo"));
        let root = dir.path().to_str().unwrap();
        for budget in ["400", "900", "2000", "6000"] {
            let json = audit(root, target, budget);
            let document = json["document"].as_str().unwrap();
            let used = json["budget"]["used"].as_u64().unwrap() as usize;
            assert!(used <= budget.parse().unwrap(), "{target} {budget}: {used}");
            assert_eq!(used, oracle(document), "{target} {budget}");
            assert_eq!(
                json,
                audit(root, target, budget),
                "{target} {budget}: same bytes"
            );
        }
    }
}

#[test]
fn init_reports_what_it_found() {
    for (fixture, lines) in [
        (
            "speckit",
            &[
                "Spec Kit: constitution (5 principles, 3 hard), 5 features (1 archived): 9 stories, 11 requirements, 3 success criteria, 25 tasks, 5 research decisions, 4 entities, 1 contracts, 1 checklists",
                "speckit = true",
            ][..],
        ),
        (
            "kiro",
            &[
                "Kiro: .kiro/ (2 specs: 3 requirements, 8 acceptance criteria, 11 tasks; 5 steering files: 2 always, 2 by file, 1 when linked)",
                "Kiro: services/search/.kiro/ (1 specs: 1 requirements, 1 acceptance criteria, 1 tasks; 1 steering files: 0 always, 1 by file, 0 when linked)",
                "kiro = true",
            ][..],
        ),
        (
            "rules",
            &["(4 always, 7 by file, 2 when linked)", "markdown = true"][..],
        ),
    ] {
        let dir = copy_fixture(&format!("{FIXTURES}/{fixture}/repo"));
        let out = brief(&["init", "--root", dir.path().to_str().unwrap()]);
        for line in lines {
            assert!(out.contains(line), "{fixture}: no {line:?} in\n{out}");
        }
    }
}

/// The start nodes of a file target (its seeds, as the JSON lists them).
fn seeds(v: &Value) -> Vec<String> {
    v["seeds"]
        .as_array()
        .map(|s| {
            s.iter()
                .map(|x| x.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_file_target_starts_from_what_governs_the_file() {
    for (fixture, file, governs, not) in [
        (
            "speckit",
            "src/payments/idempotency.ts",
            &[
                "003-payments/T014",
                "003-payments/T017b",
                "src/payments/AGENTS.md",
                "AGENTS.md",
            ][..],
            &["001-accounts/T011", "003-payments/T012"][..],
        ),
        (
            // A file that does not exist yet: named by a task, under a nested AGENTS.md.
            "speckit",
            "src/payments/receipt.ts",
            &["003-payments/T020", "src/payments/AGENTS.md"][..],
            &["003-payments/T014"][..],
        ),
        (
            "kiro",
            "src/api/auth/login.ts",
            &[
                "user-auth/2.1",
                ".kiro/steering/api-style.md",
                ".kiro/steering/product.md",
                ".kiro/steering/tech.md",
            ][..],
            &[
                ".kiro/steering/testing.md",
                ".kiro/steering/release.md",
                "services/search/.kiro/steering/search.md",
            ][..],
        ),
        (
            "rules",
            "web/src/App.tsx",
            &[
                ".cursor/rules/react.mdc",
                "web/.cursor/rules/ui.mdc",
                ".cursor/rules/always.mdc",
                "AGENTS.md",
            ][..],
            &[
                ".cursor/rules/api.mdc",
                ".cursor/rules/sql.mdc",
                ".github/instructions/python.instructions.md",
                "src/billing/AGENTS.md",
            ][..],
        ),
        (
            "rules",
            "scripts/report.py",
            &[".github/instructions/python.instructions.md"][..],
            &[".cursor/rules/react.mdc", ".claude/rules/migrations.md"][..],
        ),
    ] {
        let dir = copy_fixture(&format!("{FIXTURES}/{fixture}/repo"));
        let root = dir.path().to_str().unwrap();
        let json = audit(root, file, "20000");
        let shown = shown(&json);
        for id in governs {
            assert!(
                shown.iter().any(|s| s == id),
                "{file}: {id} governs it: {shown:?} (seeds {:?})",
                seeds(&json)
            );
        }
        for id in not {
            assert!(
                !shown.iter().any(|s| s == id),
                "{file}: {id} does not govern it: {shown:?}"
            );
        }
        assert!(json["document"]
            .as_str()
            .unwrap()
            .starts_with(&format!("# Context for \"{file}\"")));
    }
}

#[test]
fn a_bare_task_id_resolves_in_the_current_feature() {
    let dir = copy_fixture(&format!("{FIXTURES}/speckit/repo"));
    let root = dir.path().to_str().unwrap();
    let target = |v: &Value| v["nodes"][0]["id"].as_str().unwrap().to_string();
    // Only one feature has T014.
    assert_eq!(target(&audit(root, "T014", "2000")), "003-payments/T014");
    // Four have T056: with none current, the choices are listed (exit 1).
    let (code, _, stderr) = run(&["context", "T056", "--root", root]);
    assert_eq!(code, 1, "{stderr}");
    for choice in [
        "002-notifications/T056",
        "003-payments/T056",
        "003-refunds/T056",
        "_archived/000-prototype/T056",
    ] {
        assert!(stderr.contains(choice), "{stderr}");
    }
    // The branch names the feature, as Spec Kit names it.
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::write(
        dir.path().join(".git/HEAD"),
        "ref: refs/heads/003-refunds\n",
    )
    .unwrap();
    assert_eq!(target(&audit(root, "T056", "2000")), "003-refunds/T056");
    // Kiro's task numbers too.
    let kiro = copy_fixture(&format!("{FIXTURES}/kiro/repo"));
    let (code, _, stderr) = run(&["context", "2.1", "--root", kiro.path().to_str().unwrap()]);
    assert_eq!(code, 1, "user-auth and billing both have 2.1: {stderr}");
    assert!(
        stderr.contains("billing/2.1") && stderr.contains("user-auth/2.1"),
        "{stderr}"
    );
}

#[test]
fn changed_files_start_from_the_union_of_what_governs_them() {
    let dir = copy_fixture(&format!("{FIXTURES}/rules/repo"));
    let root = dir.path().to_str().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "fixture"]);
    // Nothing changed yet: said so, exit 2.
    let (code, _, stderr) = run(&["context", "--changed", "--root", root]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no file changed against HEAD"), "{stderr}");
    for file in ["web/src/App.tsx", "scripts/report.py"] {
        let path = dir.path().join(file);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("\n// edited\n");
        std::fs::write(&path, text).unwrap();
    }
    let out = brief(&[
        "context",
        "--changed",
        "--root",
        root,
        "--budget",
        "20000",
        "--format",
        "json",
    ]);
    let json: Value = serde_json::from_str(&out).unwrap();
    holds(
        &json,
        &[
            ".cursor/rules/react.mdc",
            "web/.cursor/rules/ui.mdc",
            ".github/instructions/python.instructions.md",
            ".cursor/rules/always.mdc",
            "AGENTS.md",
        ],
    );
    let shown = shown(&json);
    for not in [
        ".cursor/rules/api.mdc",
        ".cursor/rules/sql.mdc",
        "src/billing/AGENTS.md",
    ] {
        assert!(!shown.iter().any(|s| s == not), "{not}: {shown:?}");
    }
    let ids: Vec<&str> = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "a node twice: {ids:?}");
    let query = json["query"].as_str().unwrap_or_default();
    assert!(
        query.contains("scripts/report.py") && query.contains("web/src/App.tsx"),
        "{query}"
    );
    // The same against a named revision.
    let again = brief(&[
        "context",
        "--changed",
        "HEAD",
        "--root",
        root,
        "--budget",
        "20000",
        "--format",
        "json",
    ]);
    assert_eq!(again, out);
}

#[test]
fn a_rule_whose_words_match_a_task_in_words_is_a_hard_constraint() {
    let dir = copy_fixture(&format!("{FIXTURES}/rules/repo"));
    let root = dir.path().to_str().unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::write(
        dir.path().join("docs/invoices.md"),
        "# Invoices\n\nHow invoices are totalled: line amounts, summed, then tax.\n",
    )
    .unwrap();
    let json = audit(root, "sum invoice amounts as integer money", "4000");
    let nodes = json["nodes"].as_array().unwrap();
    let billing = nodes
        .iter()
        .find(|n| n["id"] == "src/billing/AGENTS.md")
        .unwrap_or_else(|| panic!("the billing rule is not in: {json}"));
    assert_ne!(billing["detail"], "omitted", "{billing}");
    let reason = &billing["reasons"][0];
    assert_eq!(reason["relation"], "applies", "{billing}");
    assert_eq!(reason["direction"], "words", "{billing}");
    assert!(reason["score"].as_f64().unwrap() >= 0.25, "{billing}");
    // A rule whose words do not match stays out.
    assert!(
        !nodes.iter().any(|n| n["id"] == ".cursor/rules/sql.mdc"),
        "{json}"
    );
}

#[test]
fn windsurf_rules_govern_the_files_their_trigger_names() {
    let dir = copy_fixture(&format!("{FIXTURES}/rules/repo"));
    let root = dir.path().to_str().unwrap();
    let rules = dir.path().join(".windsurf/rules");
    std::fs::create_dir_all(&rules).unwrap();
    for (name, text) in [
        (
            "style.md",
            "---\ntrigger: always_on\n---\n\n# House style\n\nWrite errors as sentences that say what to do.\n",
        ),
        (
            "api.md",
            "---\ntrigger: glob\nglobs: src/api/**/*.ts\n---\n\n# API handlers\n\nEvery handler logs its request id.\n",
        ),
        (
            "sql.md",
            "---\ntrigger: model_decision\ndescription: when writing SQL migrations\n---\n\n# SQL\n\nMigrations are append-only.\n",
        ),
        (
            "release.md",
            "---\ntrigger: manual\n---\n\n# Releases\n\nTag releases from main only.\n",
        ),
    ] {
        std::fs::write(rules.join(name), text).unwrap();
    }
    let never = [".windsurf/rules/sql.md", ".windsurf/rules/release.md"];
    let api = audit(root, "src/api/handler.ts", "20000");
    holds(
        &api,
        &[".windsurf/rules/style.md", ".windsurf/rules/api.md"],
    );
    let shown_api = shown(&api);
    assert!(
        !never.iter().any(|id| shown_api.contains(&id.to_string())),
        "{shown_api:?}"
    );
    // The glob rule governs only what it names; the always-on rule governs every file.
    let report = audit(root, "scripts/report.py", "20000");
    holds(&report, &[".windsurf/rules/style.md"]);
    let shown_report = shown(&report);
    assert!(
        !shown_report.iter().any(|id| id == ".windsurf/rules/api.md"),
        "{shown_report:?}"
    );
    // A rule applied only when asked for is still a node of its own.
    let card = brief(&["show", ".windsurf/rules/sql.md", "--root", root]);
    assert!(card.contains("Migrations are append-only."), "{card}");
    assert!(card.contains("norm"), "{card}");
}

/// The node of `id` in an audit, with a message naming what is there when it is missing.
#[track_caller]
fn node<'a>(json: &'a Value, id: &str) -> &'a Value {
    json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == id)
        .unwrap_or_else(|| panic!("{id} is not in: {json}"))
}

/// A section of a long rule is shown by its line once its page is shown in full: the whole
/// context, at the budget it costs, is that context, not one with the section's full text
/// in the page's place.
#[test]
fn a_context_that_fits_whole_is_whole_when_a_rule_section_shows_by_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let mut agents = String::from(
        "# Working in this repository\n\n\n## Publishing\n\nThe publish job runs on its own once a tag is pushed.\n\n",
    );
    for n in 0..50 {
        agents.push_str(&format!(
            "Step {n}: the publish job that the version tag triggers checks the crate and uploads it.\n\n"
        ));
    }
    agents.push_str("## Style\n");
    std::fs::write(dir.path().join("AGENTS.md"), agents).unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::write(
        dir.path().join("docs/release-process.md"),
        "# Release process\n\nThe version tag triggers the publish job.\n",
    )
    .unwrap();
    let task = "the publish job that the version tag triggers";
    let all = audit(root, task, "40000");
    assert_eq!(node(&all, "AGENTS.md")["detail"], "full", "{all}");
    assert_eq!(
        node(&all, "AGENTS.md#publishing")["detail"],
        "meta",
        "{all}"
    );
    let whole = all["budget"]["used"].as_u64().unwrap().to_string();
    let exact = audit(root, task, &whole);
    assert_eq!(exact["document"], all["document"], "{exact}");
}

#[test]
fn a_nested_agent_file_whose_folder_the_task_names_is_a_hard_constraint() {
    let dir = copy_fixture(&format!("{FIXTURES}/nested-agents"));
    let root = dir.path().to_str().unwrap();
    // Its own words barely match ("Package guidelines", about clients and credentials),
    // but the task's word `connector` names its folder `pkg/connectors/`.
    let json = audit(root, "add a connector for a hosted warehouse API", "4000");
    let rule = node(&json, "pkg/connectors/AGENTS.md");
    assert_eq!(rule["rank"]["class"], "hard", "{rule}");
    let reason = &rule["reasons"][0];
    assert_eq!(reason["relation"], "applies", "{rule}");
    assert_eq!(reason["direction"], "named", "{rule}");
    assert_eq!(reason["folder"], "pkg/connectors", "{rule}");
    assert_eq!(reason["word"], "connector", "{rule}");
    // Folders the task does not name stay out.
    for other in [
        "pkg/retries/AGENTS.md",
        "pkg/storage/AGENTS.md",
        "pkg/cli/AGENTS.md",
    ] {
        assert!(
            !json["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n["id"] == other),
            "{other}: {json}"
        );
    }
    // The Markdown, text and XML documents say why too.
    for format in ["markdown", "text", "xml"] {
        let doc = brief(&[
            "context",
            "add a connector for a hosted warehouse API",
            "--root",
            root,
            "--format",
            format,
        ]);
        assert!(
            doc.contains("its folder `pkg/connectors/` is named by the task's word `connector`"),
            "{format}: {doc}"
        );
    }
}

#[test]
fn a_start_brings_the_rules_of_its_own_folder_not_of_a_namesake() {
    let dir = copy_fixture(&format!("{FIXTURES}/nested-agents"));
    let root = dir.path().to_str().unwrap();
    // The start's own folder has rules: they apply by their globs, as for a file target,
    // and are not counted again as named.
    std::fs::write(
        dir.path().join("docs/retries/AGENTS.md"),
        "# Pages on failure handling\n\n- Every example shows the ceiling.\n",
    )
    .unwrap();
    // The task names no folder and starts from docs/retries/backoff.md.
    let json = audit(
        root,
        "wait longer between attempts when a vendor answers 429",
        "4000",
    );
    assert_eq!(json["seeds"][0]["id"], "docs/retries/backoff.md", "{json}");
    let own = node(&json, "docs/retries/AGENTS.md");
    assert_eq!(own["rank"]["class"], "hard", "{own}");
    let directions: Vec<&str> = own["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["direction"].as_str())
        .collect();
    assert_eq!(directions, ["glob"], "{own}");
    // `pkg/retries/` is named like the start's folder, not by the task: a start found by
    // words is often the wrong one, and its namesakes were noise more often than help on the
    // evaluation, so such a rule stays what its words make it (here related material).
    for other in ["pkg/retries/AGENTS.md", "pkg/connectors/AGENTS.md"] {
        if let Some(n) = json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == other)
        {
            assert_eq!(n["rank"]["class"], "related", "{n}");
        }
    }
}

#[test]
fn a_broad_task_brings_a_bounded_number_of_named_folders() {
    let dir = copy_fixture(&format!("{FIXTURES}/nested-agents"));
    let root = dir.path().to_str().unwrap();
    let json = audit(
        root,
        "move connector storage retries and cli settings into one guide",
        "8000",
    );
    let named = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| {
            n["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["direction"] == "named")
        })
        .count();
    assert!((1..=3).contains(&named), "{named} named: {json}");
}

#[test]
fn agent_files_under_github_and_claude_skills_are_read() {
    let dir = copy_fixture(&format!("{FIXTURES}/rules/repo"));
    let root = dir.path().to_str().unwrap();
    let workflows = dir.path().join(".github/workflows");
    std::fs::create_dir_all(&workflows).unwrap();
    std::fs::write(
        workflows.join("AGENTS.md"),
        "# Workflow rules\n\nNever trigger a job on `pull_request_target`: code from a fork \
         would run with the repository's secrets.\n",
    )
    .unwrap();
    std::fs::write(workflows.join("ci.yml"), "on: push\n").unwrap();
    // One file under two names, as tools want both: read once.
    std::os::unix::fs::symlink("AGENTS.md", workflows.join("CLAUDE.md")).unwrap();
    // A rule that links to an ordinary page is still a rule.
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::write(
        dir.path().join("docs/ui-rule.md"),
        "---\npaths: [\"web/**\"]\n---\n# UI rule\n\nUse the design tokens.\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(
        "../../docs/ui-rule.md",
        dir.path().join(".claude/rules/ui.md"),
    )
    .unwrap();
    let skill = dir.path().join(".claude/skills/release-notes");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: release-notes\ndescription: Drafts the release notes from the merged \
         changes since the last tag.\n---\n\nList every merged change under Added, Changed or \
         Fixed, newest first.\n",
    )
    .unwrap();
    // Without a `name` or a heading, a skill is named by its folder.
    let bare = dir.path().join(".claude/skills/lint-fix");
    std::fs::create_dir_all(&bare).unwrap();
    std::fs::write(
        bare.join("SKILL.md"),
        "---\ndescription: Fixes what the linter reports.\n---\n\nRun the linter first.\n",
    )
    .unwrap();
    // A skill's other files are its own material, not knowledge of the project.
    std::fs::write(skill.join("template.md"), "# Template\n\nUnused.\n").unwrap();

    // The workflows' agent file governs the files under its folder, and only those.
    let ci = audit(root, ".github/workflows/ci.yml", "20000");
    holds(&ci, &[".github/workflows/AGENTS.md", "AGENTS.md"]);
    assert!(
        !shown(&ci).contains(&".github/workflows/CLAUDE.md".to_string()),
        "{:?}",
        shown(&ci)
    );
    let app = audit(root, "web/src/App.tsx", "20000");
    holds(&app, &[".claude/rules/ui.md"]);
    assert!(
        !shown(&app).contains(&".github/workflows/AGENTS.md".to_string()),
        "{:?}",
        shown(&app)
    );
    // A task in words about forks finds it.
    let words = audit(root, "let pull requests from forks run the CI job", "4000");
    holds(&words, &[".github/workflows/AGENTS.md"]);

    // A skill is a node named by its `name`, found by its words, applied only when asked.
    let card = brief(&[
        "show",
        ".claude/skills/release-notes/SKILL.md",
        "--root",
        root,
    ]);
    assert!(
        card.contains(".claude/skills/release-notes/SKILL.md: release-notes\n"),
        "{card}"
    );
    assert!(card.contains("under Added, Changed or"), "{card}");
    let bare = brief(&["show", ".claude/skills/lint-fix/SKILL.md", "--root", root]);
    assert!(
        bare.contains(".claude/skills/lint-fix/SKILL.md: lint-fix\n"),
        "{bare}"
    );
    let words = audit(root, "draft the notes for the next release", "4000");
    holds(&words, &[".claude/skills/release-notes/SKILL.md"]);
    let app = audit(root, "web/src/App.tsx", "20000");
    assert!(
        !shown(&app).contains(&".claude/skills/release-notes/SKILL.md".to_string()),
        "{:?}",
        shown(&app)
    );
    let (code, _, stderr) = run(&[
        "show",
        ".claude/skills/release-notes/template.md",
        "--root",
        root,
    ]);
    assert_eq!(code, 1, "{stderr}");
}

#[test]
fn a_long_rule_shows_the_section_a_task_in_words_is_about_before_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    // A root agent file of five long sections, one about releases.
    let mut agents = String::from("# Working in this repository\n\nRead this before any change.\n");
    for (heading, topic) in [
        ("Code style", "formatting, naming and module layout"),
        ("Tests", "unit tests, fixtures and snapshots"),
        ("Releases", "cutting a release: bump the version in Cargo.toml, write the changelog entry, tag from main and never from a branch"),
        ("Reviews", "what reviewers look for in a pull request"),
        ("Security", "secrets, tokens and dependency audits"),
    ] {
        agents.push_str(&format!("\n## {heading}\n\n"));
        for n in 0..6 {
            agents.push_str(&format!(
                "Paragraph {n} on {topic}. Every change follows these rules; they were agreed \
                 by the maintainers and apply to each contributor and each agent alike.\n\n"
            ));
        }
    }
    agents.push_str("\n## Publishing\n\nThe publish job runs on its own once a tag is pushed.\n");
    std::fs::write(dir.path().join("AGENTS.md"), agents).unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::write(
        dir.path().join("docs/release-process.md"),
        "# Release process\n\nA release is cut from main once the changelog entry is merged; \
         the version tag triggers the publish job.\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("docs/versioning.md"),
        "# Versioning\n\nThe version follows semver; a release with a breaking change bumps \
         the major version.\n",
    )
    .unwrap();

    // The task is about the rule's section on releases: it starts there, and its text comes
    // before the rest of the rule, which is about other work.
    let json = audit(root, "tag the next release and bump its version", "900");
    let detail = |json: &Value, id: &str| node(json, id)["detail"].as_str().unwrap().to_string();
    assert_eq!(seeds_of(&json), ["AGENTS.md#releases"], "{json}");
    assert_eq!(detail(&json, "AGENTS.md#releases"), "full", "{json}");
    for doc in ["docs/release-process.md", "docs/versioning.md"] {
        assert_ne!(detail(&json, doc), "omitted", "{doc}: {json}");
    }
    assert!(oracle(json["document"].as_str().unwrap()) <= 900);

    // The task is about a document, and a section of the rule shares its words: the rule's
    // opening and that section (a hard constraint of its own) come before softer material,
    // the rest of the rule after it.
    let json = audit(root, "the publish job that the version tag triggers", "700");
    assert_eq!(seeds_of(&json), ["docs/release-process.md"], "{json}");
    let rule = node(&json, "AGENTS.md");
    assert!(
        rule["detail"] == "summary" || rule["cut"] == true,
        "the rest of the rule waits: {json}"
    );
    let section = node(&json, "AGENTS.md#publishing");
    assert_eq!(section["rank"]["class"], "hard", "{json}");
    assert_ne!(section["detail"], "omitted", "{json}");
    assert!(
        section["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["relation"] == "applies" && r["direction"] == "section"),
        "{json}"
    );
    assert!(json["document"]
        .as_str()
        .unwrap()
        .contains("the part of a rule that applies whose words match the task"));
    assert!(oracle(json["document"].as_str().unwrap()) <= 700);

    // With room for everything the whole rule is there.
    let all = audit(
        root,
        "the publish job that the version tag triggers",
        "20000",
    );
    assert_eq!(node(&all, "AGENTS.md")["detail"], "full", "{all}");
    // The section's text is in its page's: it is named by its line, not printed twice.
    assert_eq!(
        node(&all, "AGENTS.md#publishing")["detail"],
        "meta",
        "{all}"
    );
    let document = all["document"].as_str().unwrap();
    assert_eq!(
        document.matches("The publish job runs on its own").count(),
        1,
        "{document}"
    );
    assert_eq!(
        oracle(document),
        all["budget"]["used"].as_u64().unwrap() as usize
    );

    // `explain` reads the target as `context` does: words, a file or an id.
    let task = "the publish job that the version tag triggers";
    let text = brief(&[
        "explain",
        "AGENTS.md#publishing",
        "--for",
        task,
        "--root",
        root,
        "--budget",
        "700",
    ]);
    assert!(
        text.starts_with(&format!(
            "AGENTS.md#publishing is in the context of \"{task}\" (started from docs/release-process.md) at detail"
        )),
        "{text}"
    );
    assert!(
        text.contains("the part of a rule its words match"),
        "{text}"
    );
    let json: Value = serde_json::from_str(&brief(&[
        "explain",
        "docs/versioning.md",
        "--for",
        task,
        "--root",
        root,
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(json["target"], task);
    assert_eq!(
        json["starts"],
        serde_json::json!(["docs/release-process.md"])
    );
    let file = brief(&[
        "explain",
        "AGENTS.md",
        "--for",
        "src/main.rs",
        "--root",
        root,
    ]);
    assert!(
        file.starts_with("AGENTS.md is in the context of \"src/main.rs\" (started from AGENTS.md)"),
        "{file}"
    );
    // An id keeps its plain form.
    let id = brief(&[
        "explain",
        "AGENTS.md",
        "--for",
        "docs/versioning.md",
        "--root",
        root,
    ]);
    assert!(
        id.starts_with("AGENTS.md is in the context of docs/versioning.md"),
        "{id}"
    );
}

fn seeds_of(json: &Value) -> Vec<String> {
    json["seeds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_linked_github_folder_and_dependencies_under_it_are_not_read_as_rules() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let write = |rel: &str, text: &str| crate::common::write_file(dir.path(), rel, text);
    write("AGENTS.md", "# Root rules\n\nKeep changes small.\n");
    write("src/AGENTS.md", "# Source rules\n\nNo unsafe code.\n");
    // `.github` linked to the root would read the whole tree again under a second name.
    std::os::unix::fs::symlink(".", dir.path().join(".github")).unwrap();
    let absent = |id: &str| {
        let (code, _, stderr) = run(&["show", id, "--root", root]);
        assert_eq!(code, 1, "{id}: {stderr}");
    };
    absent(".github/src/AGENTS.md");
    absent(".github/AGENTS.md");
    // In a real `.github`, a dependency folder is no one's rules.
    std::fs::remove_file(dir.path().join(".github")).unwrap();
    write(
        ".github/workflows/AGENTS.md",
        "# Workflow rules\n\nPin every action.\n",
    );
    write(
        ".github/workflows/node_modules/tool/AGENTS.md",
        "# A dependency's rules\n\nNot ours.\n",
    );
    // Copilot's instructions are read from their own folder only.
    write(".github/stray.instructions.md", "# Stray\n\nNot a rule.\n");
    write(
        ".github/instructions/ts.instructions.md",
        "# TypeScript\n\nStrict mode.\n",
    );
    let card = brief(&["show", ".github/workflows/AGENTS.md", "--root", root]);
    assert!(card.contains("Pin every action."), "{card}");
    let card = brief(&[
        "show",
        ".github/instructions/ts.instructions.md",
        "--root",
        root,
    ]);
    assert!(card.contains("Strict mode."), "{card}");
    absent(".github/stray.instructions.md");
    absent(".github/workflows/node_modules/tool/AGENTS.md");
}
