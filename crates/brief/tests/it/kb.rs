//! The Markdown knowledge-base source on every fixture of `brief-cli/tests/fixtures/kb/`
//! (each has an `EXPECTED.md` beside its `repo/`): node sets, kinds, statuses, supersedes
//! edges, rationale and rejected alternatives, and the problems `brief check` reports.

use std::collections::BTreeSet;
use std::path::PathBuf;

use brief::model::{Graph, Node};
use brief::project::{Project, Source};
use brief::sources::Loaded;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../brief-cli/tests/fixtures/kb")
        .join(name)
        .join("repo")
}

fn load(name: &str) -> Loaded {
    let project = Project::at(&fixture(name)).unwrap();
    assert!(
        project
            .sources
            .iter()
            .any(|s| matches!(s, Source::Markdown { .. })),
        "{name}: the knowledge base is found with no brief.toml"
    );
    project.load()
}

fn ids(graph: &Graph) -> Vec<&str> {
    graph.nodes().iter().map(|n| n.id.as_str()).collect()
}

fn node<'g>(graph: &'g Graph, id: &str) -> &'g Node {
    &graph.nodes()[graph.lookup(id).unwrap_or_else(|| panic!("no node {id}")) as usize]
}

/// `(new, old)` pairs: `supersedes` edges, and "superseded by" lines read the other way.
fn supersedes(graph: &Graph) -> BTreeSet<(String, String)> {
    let id = |ix| graph.node(ix).id.clone();
    graph
        .edges()
        .iter()
        .filter_map(|e| match e.relation.name() {
            "supersedes" => Some((id(e.from), id(e.to))),
            "superseded_by" => Some((id(e.to), id(e.from))),
            _ => None,
        })
        .collect()
}

fn edges_named(graph: &Graph, relation: &str) -> BTreeSet<(String, String)> {
    graph
        .edges()
        .iter()
        .filter(|e| e.relation.name() == relation)
        .map(|e| (graph.node(e.from).id.clone(), graph.node(e.to).id.clone()))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn messages(loaded: &Loaded) -> Vec<String> {
    loaded.problems.iter().map(|p| p.to_string()).collect()
}

#[test]
fn adr_tools_nodes_statuses_and_supersede_chain() {
    let loaded = load("adr-tools");
    let graph = &loaded.graph;
    let mut expected: Vec<String> = (1..=10).map(|n| format!("ADR-{n:04}")).collect();
    expected.extend(
        [
            "README.md",
            "doc/adr/README.md",
            "doc/runbooks/carrier-outage.md",
        ]
        .map(String::from),
    );
    expected.sort();
    assert_eq!(ids(graph), expected);
    let statuses: Vec<(&str, Option<&str>, Option<&str>, &str)> = (1..=10)
        .map(|n| {
            let n = node(graph, &format!("ADR-{n:04}"));
            assert_eq!(n.kind.name(), "decision");
            (
                n.id.as_str(),
                n.status.as_deref(),
                n.date.as_deref(),
                n.title.as_str(),
            )
        })
        .collect();
    assert_eq!(
        statuses[0],
        (
            "ADR-0001",
            Some("accepted"),
            Some("2019-01-14"),
            "Record architecture decisions"
        )
    );
    assert_eq!(statuses[2].1, Some("superseded"));
    assert_eq!(statuses[3].1, Some("deprecated"));
    assert_eq!(
        statuses[5].1,
        Some("superseded"),
        "ADR 6 has only link lines"
    );
    assert_eq!(statuses[9].1, Some("proposed"));
    assert_eq!(node(graph, "README.md").kind.name(), "note");
    assert_eq!(
        supersedes(graph),
        pairs(&[("ADR-0006", "ADR-0003"), ("ADR-0009", "ADR-0006")])
    );
    assert!(edges_named(graph, "amends").contains(&("ADR-0008".into(), "ADR-0005".into())));
    assert!(edges_named(graph, "amended_by").contains(&("ADR-0005".into(), "ADR-0008".into())));
    assert!(edges_named(graph, "clarifies").contains(&("ADR-0010".into(), "ADR-0007".into())));
    assert!(edges_named(graph, "links#Escalation")
        .contains(&("ADR-0007".into(), "doc/runbooks/carrier-outage.md".into())));
    let adr7 = node(graph, "ADR-0007").artifact().unwrap();
    assert!(adr7
        .rationale
        .as_deref()
        .unwrap()
        .starts_with("Carrier APIs fail in bursts: a few timeouts, then a few minutes of 503s."));
    assert!(
        adr7.rejected_alternatives.is_empty(),
        "Nygard ADRs name no alternatives"
    );
    assert!(loaded.problems.is_empty(), "{:?}", messages(&loaded));
}

#[test]
fn madr_statuses_supersedes_and_rejected_alternatives() {
    let loaded = load("madr");
    let graph = &loaded.graph;
    let mut expected: Vec<String> = (0..=7).map(|n| format!("ADR-{n:04}")).collect();
    expected.extend(["README.md", "docs/decisions/index.md"].map(String::from));
    expected.sort();
    assert_eq!(ids(graph), expected, "templates are not read");
    let status = |id: &str| node(graph, id).status.clone();
    assert_eq!(status("ADR-0000"), None);
    assert_eq!(status("ADR-0001").as_deref(), Some("accepted"));
    assert_eq!(status("ADR-0002").as_deref(), Some("superseded"));
    assert_eq!(status("ADR-0003").as_deref(), Some("superseded"));
    assert_eq!(status("ADR-0004").as_deref(), Some("proposed"));
    assert_eq!(status("ADR-0006").as_deref(), Some("rejected"));
    assert_eq!(node(graph, "ADR-0001").date.as_deref(), Some("2021-05-17"));
    assert_eq!(
        supersedes(graph),
        pairs(&[("ADR-0005", "ADR-0002"), ("ADR-0007", "ADR-0003")])
    );
    for n in graph.nodes().iter().filter(|n| n.kind.name() == "decision") {
        let fields = n.artifact().unwrap();
        assert!(fields.rationale.is_some(), "{} has a rationale", n.id);
    }
    let adr7 = node(graph, "ADR-0007").artifact().unwrap();
    assert!(!adr7.rejected_alternatives.is_empty());
    assert!(adr7
        .rejected_alternatives
        .iter()
        .all(|r| !r.title.is_empty() && !r.title.contains("](")));
}

#[test]
fn log4brains_dates_are_not_numbers_and_missing_status_is_accepted() {
    let loaded = load("log4brains");
    let graph = &loaded.graph;
    let redis = "docs/adr/20230120-publish-order-events-over-redis-streams.md";
    let kafka = "docs/adr/20230907-publish-order-events-through-kafka.md";
    assert_eq!(node(graph, redis).kind.name(), "decision");
    assert_eq!(node(graph, redis).status.as_deref(), Some("superseded"));
    assert_eq!(node(graph, redis).date.as_deref(), Some("2023-01-20"));
    assert!(
        node(
            graph,
            "packages/billing/adr/20230301-issue-invoices-from-the-billing-package.md"
        )
        .kind
        .name()
            == "decision"
    );
    assert_eq!(supersedes(graph), pairs(&[(kafka, redis)]));
    assert!(!ids(graph).contains(&"docs/adr/template.md"));
    let tags = &node(graph, redis).artifact().unwrap().tags;
    assert!(tags.iter().any(|t| t == "events"), "{tags:?}");
}

#[test]
fn vault_wikilinks_headings_embeds_and_tags() {
    let loaded = load("vault");
    let graph = &loaded.graph;
    assert_eq!(
        ids(graph),
        vec![
            "Concepts/Backoff and jitter.md",
            "Concepts/Circuit breaker.md",
            "Concepts/Retry budget.md",
            "Daily/2024-05-14.md",
            "Home.md",
            "Meetings/2024-05-02 Incident review.md",
            "Projects/Checkout revamp.md",
        ],
        "the template folder is not read"
    );
    assert_eq!(
        node(graph, "Daily/2024-05-14.md").date.as_deref(),
        Some("2024-05-14")
    );
    assert!(edges_named(graph, "links#Budget").contains(&(
        "Concepts/Circuit breaker.md".into(),
        "Concepts/Retry budget.md".into()
    )));
    assert!(edges_named(graph, "embeds#Budget").contains(&(
        "Projects/Checkout revamp.md".into(),
        "Concepts/Retry budget.md".into()
    )));
    assert!(
        edges_named(graph, "links").contains(&(
            "Daily/2024-05-14.md".into(),
            "Concepts/Retry budget.md".into()
        )),
        "[[retry budget]] resolves case-insensitively"
    );
    let tags = &node(graph, "Concepts/Circuit breaker.md")
        .artifact()
        .unwrap()
        .tags;
    assert!(
        !tags.iter().any(|t| t == "not-a-tag" || t == "482"),
        "{tags:?}"
    );
    let tags = &node(graph, "Home.md").artifact().unwrap().tags;
    assert_eq!(
        tags[..2],
        ["moc".to_string(), "project/checkout".to_string()]
    );
    assert_eq!(
        messages(&loaded),
        vec!["Projects/Checkout revamp.md:24:63: broken wikilink [[Load shedding]]: no note named \"Load shedding\""]
    );
}

#[test]
fn docs_repo_agent_files_links_and_broken_links() {
    let loaded = load("docs-repo");
    let graph = &loaded.graph;
    let kind = |id: &str| node(graph, id).kind.name().to_string();
    for id in ["AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md"] {
        assert_eq!(kind(id), "identity", "{id}");
    }
    for id in [
        "src/providers/AGENTS.md",
        ".cursor/rules/typescript.mdc",
        ".cursor/rules/project.mdc",
        ".github/instructions/migrations.instructions.md",
    ] {
        assert_eq!(kind(id), "norm", "{id}");
    }
    let ts = node(graph, ".cursor/rules/typescript.mdc")
        .artifact()
        .unwrap();
    assert_eq!(
        ts.scope,
        vec!["**/*.ts", "**/*.tsx"],
        "Cursor globs are read leniently"
    );
    assert_eq!(graph.nodes().len(), 17);
    assert!(edges_named(graph, "links#Budget")
        .contains(&("AGENTS.md".into(), "docs/policies/retries.md".into())));
    assert!(edges_named(graph, "imports").contains(&("CLAUDE.md".into(), "AGENTS.md".into())));
    assert!(edges_named(graph, "links")
        .contains(&("docs/architecture/glossary.md".into(), "ADR-0003".into())));
    assert_eq!(
        messages(&loaded),
        vec![
            "docs/architecture/glossary.md:14:17: broken wikilink [[idempotency-keys]]: no note named \"idempotency-keys\"",
            "docs/runbooks/provider-outage.md:18:4: broken link ../policies/rate-limits.md: no such file",
        ]
    );
}

#[test]
fn home_assistant_layout_replaces_and_reverted() {
    let loaded = load("home-assistant-layout");
    let graph = &loaded.graph;
    assert_eq!(
        node(graph, "ADR-0002").status.as_deref(),
        Some("superseded")
    );
    assert_eq!(node(graph, "ADR-0002").date.as_deref(), Some("2021-11-15"));
    assert_eq!(node(graph, "ADR-0007").status.as_deref(), Some("reverted"));
    assert_eq!(supersedes(graph), pairs(&[("ADR-0009", "ADR-0002")]));
    assert_eq!(node(graph, "EMPTY-ADR.md").kind.name(), "note");
}

#[test]
fn mixed_project_links_across_sources() {
    let loaded = load("mixed");
    let graph = &loaded.graph;
    assert_eq!(graph.nodes().len(), 14, "{:?}", ids(graph));
    assert_eq!(supersedes(graph), pairs(&[("ADR-0003", "ADR-0002")]));
    let links = edges_named(graph, "links");
    assert!(links.contains(&("ADR-0003".into(), "POL-RETRY-BUDGET-01".into())));
    assert!(links.contains(&("ADR-0003".into(), "NORM-RETRY-001".into())));
    assert!(links.contains(&("SPEC-RETRY-001".into(), "ADR-0003".into())));
    assert!(graph.dangling().is_empty(), "{:?}", graph.dangling());
    assert!(loaded.problems.is_empty(), "{:?}", messages(&loaded));
}

#[test]
fn records_sharing_an_adr_number_keep_their_paths_as_ids() {
    // Real repositories number two records alike (a merge of two branches): neither is
    // ADR-0004 then, and nothing is refused.
    let loaded = load("duplicate-adr-number");
    let errors: Vec<String> = loaded.errors().map(|p| p.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let graph = &loaded.graph;
    assert!(graph.lookup("ADR-0004").is_none());
    for path in [
        "doc/adr/0004-expire-job-results-after-seven-days.md",
        "doc/adr/0004-run-jobs-in-firecracker-microvms.md",
    ] {
        let ix = graph
            .lookup(path)
            .unwrap_or_else(|| panic!("{path} is a node"));
        assert_eq!(
            graph.nodes()[ix as usize].kind,
            brief::model::Kind::Decision
        );
    }
    assert!(graph.lookup("ADR-0003").is_some(), "other numbers stay ids");
}

#[test]
fn superseded_by_a_missing_adr_is_a_warning_and_still_superseded() {
    let loaded = load("superseded-by-missing");
    assert_eq!(
        loaded.graph.nodes()[loaded.graph.lookup("ADR-0002").unwrap() as usize]
            .status
            .as_deref(),
        Some("superseded")
    );
    let found = messages(&loaded);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(
            "doc/adr/0002-schedule-tasks-with-a-crontab-inside-the-container.md:7:15: "
        ),
        "{found:?}"
    );
    assert!(
        found[0].contains("0004-move-scheduling-to-temporal.md"),
        "{found:?}"
    );
}

#[test]
fn a_generated_notes_corpus_loads_with_every_link_resolved() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("notes");
    let written = brief_corpus::generate(brief_corpus::Shape::Notes, 400, &root, 5).unwrap();
    let project = Project::at(&root).unwrap();
    let loaded = project.load();
    assert_eq!(loaded.graph.nodes().len(), written);
    assert!(loaded.problems.is_empty(), "{:?}", messages(&loaded));
    assert!(loaded.graph.dangling().is_empty());
    assert!(supersedes(&loaded.graph).contains(&("ADR-0002".into(), "ADR-0001".into())));
    assert!(loaded.graph.edges().len() > written * 3, "a linked corpus");
}
