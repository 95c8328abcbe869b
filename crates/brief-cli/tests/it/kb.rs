//! The Markdown knowledge base through the binary, with no `brief.toml`: the context of a
//! chosen decision on every fixture (within budget, exact against tiktoken-rs, the same bytes
//! twice), a superseded ADR's banner, and a topic in the mixed project drawing on every
//! source. Fixtures: `tests/fixtures/kb/<name>/repo` (copied: contexts write an index).

use crate::common::{copy_fixture, run};
use serde_json::Value;

const KB: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/kb");

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

fn node_ids(v: &Value) -> Vec<String> {
    v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_string())
        .collect()
}

/// A decision per fixture, and a node its context must hold at a generous budget.
const CHOSEN: [(&str, &str, &str); 7] = [
    ("adr-tools", "ADR-0007", "doc/runbooks/carrier-outage.md"),
    ("madr", "ADR-0007", "ADR-0003"),
    (
        "log4brains",
        "docs/adr/20230120-publish-order-events-over-redis-streams.md",
        "docs/adr/20230907-publish-order-events-through-kafka.md",
    ),
    (
        "vault",
        "Concepts/Retry budget.md",
        "Concepts/Backoff and jitter.md",
    ),
    ("docs-repo", "ADR-0002", "docs/policies/retries.md"),
    ("home-assistant-layout", "ADR-0002", "ADR-0009"),
    ("mixed", "ADR-0003", "POL-RETRY-BUDGET-01"),
];

#[test]
fn a_decisions_context_is_within_budget_exact_and_deterministic() {
    for (fixture, target, expected) in CHOSEN {
        let dir = copy_fixture(&format!("{KB}/{fixture}/repo"));
        let root = dir.path().to_str().unwrap();
        let full = audit(root, target, "20000");
        assert_eq!(node_ids(&full)[0], target, "{fixture}");
        assert!(
            node_ids(&full).iter().any(|id| id == expected),
            "{fixture}: {target} reaches {expected}: {:?}",
            node_ids(&full)
        );
        for budget in ["300", "700", "1500", "4000"] {
            let json = audit(root, target, budget);
            let document = json["document"].as_str().unwrap();
            let used = json["budget"]["used"].as_u64().unwrap() as usize;
            assert!(
                used <= budget.parse().unwrap(),
                "{fixture} {budget}: {used}"
            );
            assert_eq!(used, oracle(document), "{fixture} {budget}");
            let again = audit(root, target, budget);
            assert_eq!(
                json, again,
                "{fixture} {budget}: the same request, the same bytes"
            );
        }
    }
}

#[test]
fn a_superseded_adrs_context_says_so() {
    for (fixture, target, successor) in [
        ("adr-tools", "ADR-0006", "ADR-0009"),
        ("madr", "ADR-0002", "ADR-0005"),
        ("home-assistant-layout", "ADR-0002", "ADR-0009"),
    ] {
        let dir = copy_fixture(&format!("{KB}/{fixture}/repo"));
        let root = dir.path().to_str().unwrap();
        let document = brief(&["context", target, "--root", root, "--budget", "2000"]);
        assert!(
            document.contains(&format!("{target} is superseded by **{successor}**")),
            "{fixture}: {document}"
        );
    }
}

#[test]
fn a_topic_in_the_mixed_project_draws_on_every_source() {
    let dir = copy_fixture(&format!("{KB}/mixed/repo"));
    let root = dir.path().to_str().unwrap();
    // The topic's five best hits start the context (one seed would start from the policy
    // alone).
    let out = brief(&[
        "context",
        "retry budget",
        "--root",
        root,
        "--seeds",
        "5",
        "--budget",
        "6000",
        "--format",
        "json",
    ]);
    let json: Value = serde_json::from_str(&out).unwrap();
    let ids = node_ids(&json);
    assert!(
        ids.iter().any(|id| id == "POL-RETRY-BUDGET-01"),
        "Spec Graph: {ids:?}"
    );
    assert!(
        ids.iter()
            .any(|id| ["SPEC-RETRY-001", "DEC-RETRY-001", "NORM-RETRY-001"].contains(&id.as_str())),
        "Contextia: {ids:?}"
    );
    assert!(ids.iter().any(|id| id == "ADR-0003"), "ADRs: {ids:?}");
}

#[test]
fn retry_budget_works_with_no_configuration() {
    for (fixture, first) in [
        ("adr-tools", "ADR-0007"),
        ("vault", "Concepts/Retry budget.md"),
        ("docs-repo", "docs/policies/retries.md"),
    ] {
        let dir = copy_fixture(&format!("{KB}/{fixture}/repo"));
        let root = dir.path().to_str().unwrap();
        let json = audit(root, "retry budget", "4000");
        let ids = node_ids(&json);
        assert!(ids.iter().any(|id| id == first), "{fixture}: {ids:?}");
    }
}

#[test]
fn check_reports_knowledge_base_problems_with_positions() {
    let dir = copy_fixture(&format!("{KB}/superseded-by-missing/repo"));
    let root = dir.path().to_str().unwrap();
    let (_, stdout, stderr) = run(&["check", "--root", root]);
    let out = format!("{stdout}{stderr}");
    assert!(
        out.contains("doc/adr/0002-schedule-tasks-with-a-crontab-inside-the-container.md:7:15: warning[adr-superseded-by-missing]"),
        "{out}"
    );
    // Two records sharing a number are no error: both are named by their paths.
    let dir = copy_fixture(&format!("{KB}/duplicate-adr-number/repo"));
    let root = dir.path().to_str().unwrap();
    let (code, stdout, stderr) = run(&["check", "--root", root]);
    let out = format!("{stdout}{stderr}");
    assert!(!out.contains("duplicate id"), "{out}");
    let _ = code;
    let (code, _, stderr) = run(&[
        "context",
        "doc/adr/0004-run-jobs-in-firecracker-microvms.md",
        "--root",
        root,
    ]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn init_prints_writes_and_never_replaces_the_configuration_discovery_uses() {
    let dir = copy_fixture(&format!("{KB}/mixed/repo"));
    let root = dir.path().to_str().unwrap();
    let proposed = brief(&["init", "--root", root]);
    for line in [
        "#   Spec Graph: specgraph/graph.json",
        "#   Contextia: .contextia/",
        "#   ADRs: docs/adr/ (a conventional folder)",
        "specgraph = \"specgraph/graph.json\"",
        "contextia = \".contextia\"",
        "markdown = true",
    ] {
        assert!(
            proposed.lines().any(|l| l == line),
            "{line:?} in\n{proposed}"
        );
    }
    assert!(
        !dir.path().join("brief.toml").exists(),
        "printing writes nothing"
    );
    let before = brief(&["context", "ADR-0003", "--root", root, "--budget", "3000"]);
    let wrote = brief(&["init", "--write", "--root", root]);
    assert!(wrote.starts_with("wrote "), "{wrote}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("brief.toml")).unwrap(),
        proposed
    );
    // The written configuration names the sources discovery found: the same context.
    let after = brief(&["context", "ADR-0003", "--root", root, "--budget", "3000"]);
    assert_eq!(before, after);
    let (code, _, stderr) = run(&["init", "--write", "--root", root]);
    assert_eq!(code, 2);
    assert!(stderr.contains("already exists"), "{stderr}");

    let dir = copy_fixture(&format!("{KB}/docs-repo/repo"));
    let root = dir.path().to_str().unwrap();
    let proposed = brief(&["init", "--root", root]);
    assert!(
        proposed.contains("agent instruction files: .cursor/rules/project.mdc")
            && proposed.contains("AGENTS.md, CLAUDE.md, src/providers/AGENTS.md"),
        "{proposed}"
    );
}

/// Notes link densely, so following links to the end selects most of a vault (a generated
/// 10,000-note vault: 9,484 nodes for one ADR). A knowledge-base target follows links two hops
/// by default, like a Spec Graph target; `--depth full` still follows them to the end.
#[test]
fn a_knowledge_base_target_follows_links_two_hops_by_default() {
    let dir = copy_fixture(&format!("{KB}/vault/repo"));
    let chain = dir.path().join("Chain");
    std::fs::create_dir(&chain).unwrap();
    for (note, next) in [("A", "B"), ("B", "C"), ("C", "D"), ("D", "E")] {
        std::fs::write(
            chain.join(format!("{note}.md")),
            format!("# {note}\n\nSee [[{next}]] for the next step.\n"),
        )
        .unwrap();
    }
    std::fs::write(chain.join("E.md"), "# E\n\nThe end of the chain.\n").unwrap();
    let root = dir.path().to_str().unwrap();
    let ids = node_ids(&audit(root, "Chain/A.md", "100000"));
    for near in ["Chain/A.md", "Chain/B.md", "Chain/C.md"] {
        assert!(ids.iter().any(|id| id == near), "{near} missing: {ids:?}");
    }
    assert!(!ids.iter().any(|id| id == "Chain/D.md"), "{ids:?}");
    let out = brief(&[
        "context",
        "Chain/A.md",
        "--root",
        root,
        "--depth",
        "full",
        "--format",
        "json",
    ]);
    let ids = node_ids(&serde_json::from_str(&out).unwrap());
    assert!(ids.iter().any(|id| id == "Chain/E.md"), "{ids:?}");
}
