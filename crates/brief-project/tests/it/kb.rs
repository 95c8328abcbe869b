//! The Markdown knowledge-base source on every fixture of `brief-cli/tests/fixtures/kb/`
//! (each has an `EXPECTED.md` beside its `repo/`): node sets, kinds, statuses, supersedes
//! edges, rationale and rejected alternatives, and the problems `brief check` reports.

use std::collections::BTreeSet;
use std::path::PathBuf;

use brief_model::{Graph, Node};
use brief_project::{Project, Source};
use brief_sources::Loaded;

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
    // Agent files are norms; the root ones apply in every context (`applies: always`).
    for id in ["AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md"] {
        assert_eq!(kind(id), "norm", "{id}");
        assert_eq!(
            node(graph, id).applies(),
            &brief_model::Applies::Always,
            "{id}"
        );
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
        assert_eq!(graph.nodes()[ix as usize].kind, brief_model::Kind::Decision);
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

/// Every common way an ADR writes its status (one ADR per form in `status-forms/`), each read
/// to its normal word, with the successor an edge whether linked or named as text.
#[test]
fn every_common_status_form_is_read() {
    use brief_model::{Lifecycle, Retired};
    let loaded = load("status-forms");
    let graph = &loaded.graph;
    let status = |id: &str| node(graph, id).status.clone().unwrap_or_default();
    let forms = [
        ("ADR-0001", "accepted", "## Status section"),
        (
            "ADR-0002",
            "superseded",
            "- **Status:** Superseded by [ADR-0004](…)",
        ),
        ("ADR-0003", "accepted", "**Status:** Accepted"),
        ("ADR-0004", "accepted", "* **Status**: Accepted"),
        ("ADR-0005", "deprecated", "a plain Status: line"),
        ("ADR-0006", "rejected", "| Status | Rejected | table row"),
        ("ADR-0007", "superseded", "Superseded by ADR-0009, no link"),
        ("ADR-0008", "deprecated", "[Deprecated](url)"),
        ("ADR-0009", "accepted", "MADR frontmatter"),
        ("ADR-0010", "frobnicated", "an unknown word, kept"),
        ("ADR-0011", "proposed", "a setext Status heading"),
        ("ADR-0012", "superseded", "* Status: superseded by ADR-0013"),
        ("ADR-0013", "accepted", "Accepted with an HTML comment"),
        ("ADR-0014", "no longer", "No longer relevant."),
    ];
    for (id, word, form) in forms {
        assert_eq!(status(id), word, "{id}: {form}");
    }
    let lifecycle = |id: &str| node(graph, id).lifecycle();
    assert_eq!(
        lifecycle("ADR-0014"),
        Lifecycle::NotCurrent(Retired::Obsolete)
    );
    assert_eq!(
        lifecycle("ADR-0005"),
        Lifecycle::NotCurrent(Retired::Deprecated)
    );
    assert_eq!(
        lifecycle("ADR-0006"),
        Lifecycle::NotCurrent(Retired::Rejected)
    );
    assert_eq!(lifecycle("ADR-0011"), Lifecycle::Proposed);
    assert_eq!(
        lifecycle("ADR-0010"),
        Lifecycle::Current,
        "unknown: current"
    );
    assert_eq!(
        supersedes(graph),
        pairs(&[
            ("ADR-0004", "ADR-0002"),
            ("ADR-0009", "ADR-0007"),
            ("ADR-0013", "ADR-0012"),
        ]),
        "linked, named as text, and written on both records"
    );
    assert_eq!(
        messages(&loaded),
        vec!["docs/adr/0010-round-half-to-even.md:7:1: unknown status `frobnicated`: brief reads it as current; write a known word (accepted, proposed, superseded, deprecated, rejected, withdrawn, obsolete, …)"]
    );
}

/// ADR titles lose the number their id already says, however it is written; setext titles
/// are titles.
#[test]
fn adr_titles_are_not_doubled() {
    let loaded = load("status-forms");
    let graph = &loaded.graph;
    for (id, title) in [
        ("ADR-0001", "Record architecture decisions"),
        ("ADR-0002", "Keep postings in PostgreSQL"),
        ("ADR-0011", "Use gRPC between services"),
        ("ADR-0012", "Log in JSON"),
        ("ADR-0013", "Log with OpenTelemetry"),
    ] {
        assert_eq!(node(graph, id).title, title, "{id}");
    }
}

/// A copy of a fixture whose clone names `origin` (a `.git/config` cannot be committed
/// inside the repository, so the test writes it).
fn cloned(name: &str, origin: &str) -> tempfile::TempDir {
    fn copy(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    copy(&fixture(name), dir.path());
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::write(
        dir.path().join(".git/config"),
        format!("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = {origin}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"),
    )
    .unwrap();
    dir
}

/// The Markdown details real repositories write (`markdown-details/`): their own URLs,
/// escaped pipes in tables, a vault in a subfolder, in-page anchors, setext headings, file
/// names as titles, raw HTML.
#[test]
fn markdown_details_of_real_repositories() {
    let dir = cloned("markdown-details", "git@github.com:acme/shipyard.git");
    let loaded = Project::at(dir.path()).unwrap().load();
    let graph = &loaded.graph;
    let links = |from: &str| -> BTreeSet<(String, String)> {
        graph
            .edges()
            .iter()
            .filter(|e| graph.node(e.from).id == from)
            .map(|e| (e.relation.name().to_string(), graph.node(e.to).id.clone()))
            .collect()
    };
    let pair = |r: &str, t: &str| (r.to_string(), t.to_string());
    // The repository's own URLs (blob, any ref, any case; raw) are links; another
    // repository's file of the same path, a folder and generated files are not edges.
    assert_eq!(
        links("README.md"),
        BTreeSet::from([
            pair("links#Rollback", "docs/guides/deploy.md"),
            pair("links", "ADR-0001"),
            pair("links", "docs/guides/runners.md"),
        ])
    );
    // `[[Note\|alias]]` in a table is the note, with its alias.
    let deploy = links("docs/guides/deploy.md");
    assert!(
        deploy.contains(&pair("links", "docs/guides/runners.md")),
        "{deploy:?}"
    );
    assert!(deploy.contains(&pair("links", "ADR-0002")), "{deploy:?}");
    // A vault kept in a subfolder writes its links from its own root.
    assert_eq!(
        links("notes/Home.md"),
        BTreeSet::from([
            pair("links", "notes/Guides/Runbook.md"),
            pair("links", "notes/Daily/2024-06-03.md"),
        ])
    );
    assert!(links("notes/Guides/Runbook.md").contains(&pair("links", "notes/Guides/Escalation.md")));
    // Titles: setext, HTML removed, a note's file name (not its path).
    assert_eq!(node(graph, "README.md").title, "Shipyard");
    assert_eq!(node(graph, "docs/guides/deploy.md").title, "Deploy v2");
    assert_eq!(
        node(graph, "notes/Guides/Escalation.md").title,
        "Escalation"
    );
    assert_eq!(node(graph, "notes/Daily/2024-06-03.md").title, "2024-06-03");
    assert_eq!(node(graph, "ADR-0001").title, "Build images with BuildKit");
    // Raw HTML is dropped from the body, its text kept; code keeps it as written.
    let body = &node(graph, "docs/guides/deploy.md")
        .artifact()
        .unwrap()
        .body;
    assert!(
        !body.contains("<!--") && !body.contains("<details>") && !body.contains("<summary>"),
        "{body}"
    );
    assert!(body.contains("Why not deploy from laptops?"), "{body}");
    assert!(body.contains("the HTML `<b>` in code stays"), "{body}");
    // An in-page anchor is not a tag; real tags are.
    let tags = |id: &str| node(graph, id).artifact().unwrap().tags.clone();
    assert!(
        tags("docs/guides/deploy.md").is_empty(),
        "{:?}",
        tags("docs/guides/deploy.md")
    );
    assert_eq!(tags("docs/guides/runners.md"), ["ci", "infra/runners"]);
}

/// Without an `origin`, a URL of the GitHub form is the project's when its path is a file of
/// the knowledge base.
#[test]
fn own_urls_without_an_origin_resolve_by_path() {
    let loaded = load("markdown-details");
    let graph = &loaded.graph;
    let targets: BTreeSet<String> = graph
        .edges()
        .iter()
        .filter(|e| graph.node(e.from).id == "README.md")
        .map(|e| graph.node(e.to).id.clone())
        .collect();
    // The upstream link has the same path: read as the project's own, by the documented rule.
    assert_eq!(
        targets,
        BTreeSet::from(
            [
                "ADR-0001",
                "docs/guides/deploy.md",
                "docs/guides/runners.md"
            ]
            .map(String::from)
        )
    );
}

/// A long page (`docs/storage.md`, 5.9 KB) is split at its section level (`##`); a section
/// that is long too (`## Backups`, 4 KB) at its own. Ids are GitHub's anchors, numbered over
/// every heading of the page (`setup`, `setup-1`, `setup-2`).
#[test]
fn a_long_page_is_split_into_sections() {
    use brief_model::Kind;
    let loaded = load("markdown-details");
    let graph = &loaded.graph;
    let page = "docs/storage.md";
    let sections: Vec<&str> = graph
        .nodes()
        .iter()
        .filter(|n| n.kind == Kind::Section)
        .map(|n| n.id.as_str())
        .collect();
    assert_eq!(
        sections,
        [
            "docs/storage.md#backups",
            "docs/storage.md#cache-directory",
            "docs/storage.md#layout",
            "docs/storage.md#monitoring",
            "docs/storage.md#nightly-snapshots",
            "docs/storage.md#off-site-copies",
            "docs/storage.md#restoring",
            "docs/storage.md#retention",
            "docs/storage.md#setup-2",
        ]
    );
    let contains = edges_named(graph, "contains");
    let top = ["layout", "cache-directory", "retention", "backups"];
    let sub = [
        "nightly-snapshots",
        "restoring",
        "off-site-copies",
        "monitoring",
        "setup-2",
    ];
    let expected: BTreeSet<(String, String)> = top
        .iter()
        .map(|a| (page.to_string(), format!("{page}#{a}")))
        .chain(
            sub.iter()
                .map(|a| (format!("{page}#backups"), format!("{page}#{a}"))),
        )
        .collect();
    assert_eq!(contains, expected);
    let cache = node(graph, "docs/storage.md#cache-directory");
    assert_eq!(cache.title, "Cache directory");
    assert_eq!(
        (cache.location.path.as_str(), cache.location.line),
        (page, 21)
    );
    let fields = cache.artifact().unwrap();
    assert_eq!(fields.body_line, 21);
    assert!(
        fields.body.starts_with("\nBuildKit's cache mounts live in"),
        "{:?}",
        fields.body
    );
    assert!(fields.body.contains("### Setup") && !fields.body.contains("## Retention"));
    // A section's links are the links written inside it, resolved as the page's.
    let links_of = |id: &str| -> BTreeSet<String> {
        node(graph, id)
            .links
            .iter()
            .filter(|l| l.relation.name() != "contains")
            .map(|l| l.target.clone())
            .collect()
    };
    assert_eq!(
        links_of("docs/storage.md#retention"),
        BTreeSet::from(["notes/Guides/Runbook.md".to_string()])
    );
    assert_eq!(
        links_of("docs/storage.md#off-site-copies"),
        BTreeSet::from(["notes/Guides/Escalation.md".to_string()])
    );
    assert!(links_of("docs/storage.md#backups").contains("notes/Guides/Escalation.md"));
    // The page keeps its whole body and all its links.
    let whole = node(graph, page);
    assert!(whole.artifact().unwrap().body.contains("## Backups"));
    assert!(links_of(page).contains("notes/Guides/Escalation.md"));
    // Links to a heading land on its section; a heading that is not a section lands on the page.
    let from_runners: BTreeSet<(String, String)> = graph
        .edges()
        .iter()
        .filter(|e| graph.node(e.from).id == "docs/guides/runners.md")
        .map(|e| (e.relation.name().to_string(), graph.node(e.to).id.clone()))
        .collect();
    for (relation, to) in [
        ("links#Cache directory", "docs/storage.md#cache-directory"),
        ("links#Restoring", "docs/storage.md#restoring"),
        ("links#Layout", "docs/storage.md#layout"),
        ("links#Setup 1", "docs/storage.md"),
    ] {
        assert!(
            from_runners.contains(&(relation.to_string(), to.to_string())),
            "{relation} → {to}: {from_runners:?}"
        );
    }
    // ADRs and short pages are never split.
    assert!(!ids(graph)
        .iter()
        .any(|id| id.starts_with("ADR-") && id.contains('#')));
    assert!(!ids(graph)
        .iter()
        .any(|id| id.starts_with("docs/guides/") && id.contains('#')));
}
