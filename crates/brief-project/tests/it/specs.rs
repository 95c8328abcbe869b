//! The spec-driven sources on their fixtures (`brief-cli/tests/fixtures/{speckit,kiro,rules}`):
//! discovery with no `brief.toml`, node sets, kinds, ids scoped by feature, edges from
//! markers and references, hardness and `applies` of every rule format (that the index holds
//! the same nodes is brief-index's `tests/it/specs.rs`).

use std::collections::BTreeSet;
use std::path::PathBuf;

use brief_model::{Applies, Graph, Kind, Node};
use brief_project::{Project, Source};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../brief-cli/tests/fixtures")
        .join(name)
        .join("repo")
}

fn load(name: &str) -> (Project, Graph) {
    let project = Project::at(&fixture(name)).unwrap();
    let loaded = project.load();
    let errors: Vec<String> = loaded.errors().map(|p| p.to_string()).collect();
    assert!(errors.is_empty(), "{name}: {errors:?}");
    (project, loaded.graph)
}

fn node<'g>(graph: &'g Graph, id: &str) -> &'g Node {
    &graph.nodes()[graph.lookup(id).unwrap_or_else(|| panic!("no node {id}")) as usize]
}

fn ids_of_kind(graph: &Graph, kind: &str) -> Vec<String> {
    graph
        .nodes()
        .iter()
        .filter(|n| n.kind.name() == kind)
        .map(|n| n.id.clone())
        .collect()
}

/// The targets of a node's edges of one relation, sorted.
fn out(graph: &Graph, id: &str, relation: &str) -> Vec<String> {
    let from = graph.lookup(id).unwrap();
    let mut targets: Vec<String> = graph
        .edges()
        .iter()
        .filter(|e| e.from == from && e.relation.name() == relation)
        .map(|e| graph.node(e.to).id.clone())
        .collect();
    targets.sort();
    targets
}

fn dangling(graph: &Graph) -> BTreeSet<(String, String)> {
    graph
        .dangling()
        .iter()
        .map(|d| (graph.node(d.from).id.clone(), d.target.clone()))
        .collect()
}

#[test]
fn spec_kit_is_found_and_every_feature_read() {
    let (project, graph) = load("speckit");
    assert!(project
        .sources
        .iter()
        .any(|s| matches!(s, Source::SpecKit { .. })));
    assert_eq!(
        ids_of_kind(&graph, "feature"),
        [
            "001-accounts",
            "002-notifications",
            "003-payments",
            "003-refunds",
            "_archived/000-prototype"
        ]
    );
    // spec.md is the feature, not also a knowledge-base note; templates are not read.
    assert!(graph.lookup("specs/003-payments/spec.md").is_none());
    assert!(!graph
        .nodes()
        .iter()
        .any(|n| n.location.path.contains("templates")));
    // The same task id in four features, two of them numbered 003: one node each.
    let t056: Vec<&str> = graph
        .nodes()
        .iter()
        .map(|n| n.id.as_str())
        .filter(|id| id.ends_with("/T056"))
        .collect();
    assert_eq!(
        t056,
        [
            "002-notifications/T056",
            "003-payments/T056",
            "003-refunds/T056",
            "_archived/000-prototype/T056"
        ]
    );
    assert_eq!(
        node(&graph, "_archived/000-prototype/T056")
            .lifecycle()
            .name(),
        "obsolete"
    );
    assert_eq!(
        node(&graph, "003-refunds/T001").status.as_deref(),
        Some("stale")
    );
}

#[test]
fn spec_kit_constitution_principles_are_policies_that_constrain_every_feature() {
    let (_, graph) = load("speckit");
    let severity = |id: &str| node(&graph, id).severity().map(str::to_string);
    // Non-negotiable in the heading, only inside a bullet, or worded MUST: hard.
    for hard in ["constitution/I", "constitution/II", "constitution/III"] {
        assert_eq!(severity(hard).as_deref(), Some("hard"), "{hard}");
        assert_eq!(node(&graph, hard).kind, Kind::Policy);
    }
    for soft in ["constitution/IV", "constitution/V"] {
        assert_eq!(severity(soft).as_deref(), Some("soft"), "{soft}");
    }
    let principle = node(&graph, "constitution/I");
    assert_eq!(principle.title, "Ledger Is the Source of Truth");
    let rationale = principle.artifact().unwrap().rationale.as_deref().unwrap();
    assert!(rationale.starts_with("Auditors reconstruct"), "{rationale}");
    assert_eq!(
        out(&graph, "constitution/I", "constrains"),
        [
            "001-accounts",
            "002-notifications",
            "003-payments",
            "003-refunds",
            "_archived/000-prototype"
        ]
    );
    let constitution = node(&graph, "constitution");
    assert_eq!(constitution.date.as_deref(), Some("2025-09-18"));
    assert!(!constitution
        .artifact()
        .unwrap()
        .body
        .contains("Sync Impact"));
}

#[test]
fn spec_kit_stories_requirements_and_criteria() {
    let (_, graph) = load("speckit");
    assert_eq!(
        ids_of_kind(&graph, "story")
            .into_iter()
            .filter(|id| id.starts_with("00"))
            .collect::<Vec<_>>(),
        [
            "001-accounts/US1",
            "001-accounts/US2",
            "002-notifications/US1",
            "002-notifications/US2",
            "003-payments/US1",
            "003-payments/US2",
            "003-payments/US3",
            "003-refunds/US1"
        ]
    );
    // A hyphen, an em dash, a colon, Japanese: one title rule.
    assert_eq!(
        node(&graph, "001-accounts/US1").title,
        "Sign up with e-mail"
    );
    assert_eq!(
        node(&graph, "002-notifications/US1").title,
        "Receipt by e-mail"
    );
    assert_eq!(
        node(&graph, "002-notifications/US2").title,
        "Webhooks for merchants"
    );
    assert_eq!(node(&graph, "003-refunds/US1").title, "全額返金");
    let us2 = node(&graph, "003-payments/US2").artifact().unwrap();
    assert!(us2.extra.contains(&("priority".into(), "P1".into())));
    assert!(us2
        .extra
        .contains(&("acceptance scenarios".into(), "1".into())));
    assert_eq!(
        out(&graph, "003-payments/US2", "requirements"),
        ["003-payments/FR-007"]
    );
    // `* **FR-001 (Name)**:` and `FR-001a`.
    assert_eq!(
        node(&graph, "002-notifications/FR-001").title,
        "Receipt timing"
    );
    assert_eq!(
        node(&graph, "002-notifications/FR-001a").title,
        "Receipt language"
    );
    assert_eq!(node(&graph, "003-payments/SC-001").kind.name(), "criterion");
    // Key entities in spec.md when there is no data-model.md; data-model.md's otherwise.
    assert!(graph.lookup("001-accounts/entity/Customer").is_some());
    assert!(graph.lookup("003-payments/entity/Invoice").is_some());
    assert!(graph.lookup("003-payments/entity/Relationships").is_none());
    // A requirement mentioning a principle links it.
    assert_eq!(
        out(&graph, "003-payments/FR-001", "principles"),
        ["constitution/I"]
    );
}

#[test]
fn spec_kit_tasks_carry_their_story_requirements_files_and_order() {
    let (_, graph) = load("speckit");
    let t014 = node(&graph, "003-payments/T014");
    assert_eq!(t014.kind, Kind::Task);
    assert_eq!(
        out(&graph, "003-payments/T014", "implements"),
        ["003-payments/FR-007", "003-payments/US2"]
    );
    assert_eq!(
        t014.artifact().unwrap().paths,
        [
            "src/payments/idempotency.ts",
            "specs/003-payments/contracts/payments-api.yaml"
        ]
    );
    assert_eq!(
        out(&graph, "003-payments/T014", "depends_on"),
        [
            "003-payments/data-model",
            "003-payments/plan",
            "003-payments/research"
        ]
    );
    assert_eq!(
        out(&graph, "003-payments/T014", "links"),
        ["003-payments/contracts/payments-api.yaml"]
    );
    assert_eq!(
        out(&graph, "003-payments/T014", "tasks"),
        ["003-payments/T006"]
    );
    // `T017b`, several paths on a line, an explicit dependency, the task before it.
    let t017b = node(&graph, "003-payments/T017b").artifact().unwrap();
    assert_eq!(
        t017b.paths,
        [
            "src/payments/idempotency.ts",
            "src/observability/metrics.ts"
        ]
    );
    assert!(out(&graph, "003-payments/T017b", "depends_on").contains(&"003-payments/T017".into()));
    // `[x]` and `[X]` are done; `[P]` tasks do not wait for the one before.
    let extra = |id: &str, key: &str| {
        node(&graph, id)
            .artifact()
            .unwrap()
            .extra
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(extra("003-payments/T010", "done").as_deref(), Some("done"));
    assert_eq!(extra("003-payments/T011", "done").as_deref(), Some("done"));
    assert_eq!(extra("003-payments/T014", "done").as_deref(), Some("open"));
    assert_eq!(
        extra("003-payments/T015", "parallel").as_deref(),
        Some("yes")
    );
    assert!(!out(&graph, "003-payments/T015", "depends_on").contains(&"003-payments/T014".into()));
    // A whole folder is a path; a task duplicated in its file is read once.
    assert_eq!(
        node(&graph, "003-payments/T015").artifact().unwrap().paths,
        ["tests/payments/"]
    );
    assert_eq!(
        node(&graph, "003-payments/T020").title,
        "Receipt PDF in src/payments/receipt.ts"
    );
    // References to a story and a requirement that do not exist stay dangling (`check` says so).
    let dangling = dangling(&graph);
    assert!(dangling.contains(&("003-payments/T021".into(), "003-payments/US9".into())));
    assert!(dangling.contains(&("003-payments/T021".into(), "003-payments/FR-099".into())));
    assert!(dangling.contains(&(
        "003-payments/plan#constitution-check".into(),
        "constitution/VII".into()
    )));
}

#[test]
fn spec_kit_research_decisions_in_every_heading_style() {
    let (_, graph) = load("speckit");
    assert_eq!(
        ids_of_kind(&graph, "decision"),
        [
            "001-accounts/research#signed-expiring-verification-tokens",
            "002-notifications/research#delivery-queue",
            "002-notifications/research#webhook-retries",
            "003-payments/D-6",
            "003-payments/TD-001"
        ]
    );
    let d6 = node(&graph, "003-payments/D-6");
    let fields = d6.artifact().unwrap();
    assert!(fields.body.contains("payment_requests"), "{}", fields.body);
    assert!(fields
        .rationale
        .as_deref()
        .unwrap()
        .starts_with("A retry after a timeout"));
    let rejected: Vec<&str> = fields
        .rejected_alternatives
        .iter()
        .map(|a| a.title.as_str())
        .collect();
    assert_eq!(
        rejected,
        ["Redis with a TTL", "Processor-side idempotency only"]
    );
    let queue = node(&graph, "002-notifications/research#delivery-queue")
        .artifact()
        .unwrap();
    // The body leads with what was decided; rationale and alternatives follow as written.
    assert!(
        queue.body.starts_with(
            "Use the existing PostgreSQL outbox table polled by a worker.\n\n**Rationale**: The receipt"
        ),
        "{}",
        queue.body
    );
    assert!(queue
        .rationale
        .as_deref()
        .unwrap()
        .starts_with("The receipt must follow"));
    assert_eq!(queue.rejected_alternatives[0].title, "RabbitMQ");
    assert_eq!(queue.rejected_alternatives[1].title, "Send inline");
    let td = node(&graph, "003-payments/TD-001").artifact().unwrap();
    assert_eq!(td.rejected_alternatives.len(), 1);
    assert_eq!(
        out(&graph, "003-payments/research", "decisions"),
        ["003-payments/D-6", "003-payments/TD-001"]
    );
    // plan ↔ research: the plan names research.md; its Constitution Check names principles.
    assert!(
        out(&graph, "003-payments/plan#summary", "links").contains(&"003-payments/research".into())
    );
    assert_eq!(
        out(&graph, "003-payments/plan#constitution-check", "principles"),
        ["constitution/I", "constitution/II"]
    );
}

#[test]
fn kiro_specs_and_steering() {
    let (project, graph) = load("kiro");
    let kiro: Vec<&Source> = project
        .sources
        .iter()
        .filter(|s| matches!(s, Source::Kiro { .. }))
        .collect();
    assert_eq!(kiro.len(), 2, "the root workspace and the nested one");
    assert_eq!(
        ids_of_kind(&graph, "feature"),
        ["billing", "services/search/indexing", "user-auth"]
    );
    // Requirements and criteria, WHEN/IF/THEN/SHALL kept.
    assert_eq!(
        out(&graph, "user-auth/R1", "contains"),
        ["user-auth/R1.1", "user-auth/R1.2", "user-auth/R1.3"]
    );
    assert!(node(&graph, "user-auth/R1.3")
        .artifact()
        .unwrap()
        .body
        .starts_with("IF a member fails five times"));
    assert_eq!(node(&graph, "user-auth/R2").title, "Sessions");
    // Task ids are scoped by spec: `2.1` in two specs.
    assert!(graph.lookup("user-auth/2.1").is_some() && graph.lookup("billing/2.1").is_some());
    assert_eq!(
        out(&graph, "user-auth/3.1", "implements"),
        [
            "user-auth/R2",
            "user-auth/R2.1",
            "user-auth/R2.2",
            "user-auth/R2.3"
        ]
    );
    assert_eq!(
        out(&graph, "user-auth/3.2", "implements"),
        ["user-auth/requirements"]
    );
    assert_eq!(out(&graph, "user-auth/2.2", "checks"), ["user-auth/R1.3"]);
    assert_eq!(
        out(&graph, "user-auth/3", "contains"),
        ["user-auth/3.1", "user-auth/3.2"]
    );
    assert!(dangling(&graph).contains(&("user-auth/2.3".into(), "user-auth/R9.9".into())));
    // Design sections and the properties' `Validates` lines.
    assert_eq!(
        out(&graph, "user-auth/design#correctness-properties", "checks"),
        ["user-auth/R1.3", "user-auth/R2.2"]
    );
    // Steering by inclusion; a nested workspace's steering covers its folder.
    let applies = |id: &str| node(&graph, id).applies().clone();
    assert_eq!(applies(".kiro/steering/product.md"), Applies::Always);
    assert_eq!(applies(".kiro/steering/tech.md"), Applies::Always);
    assert_eq!(
        applies(".kiro/steering/api-style.md"),
        Applies::Files(vec!["src/api/**/*.ts".into()])
    );
    assert_eq!(
        applies(".kiro/steering/testing.md"),
        Applies::Files(vec!["**/*.test.ts".into(), "**/*.spec.ts".into()])
    );
    assert_eq!(applies(".kiro/steering/release.md"), Applies::Linked);
    assert_eq!(
        applies("services/search/.kiro/steering/search.md"),
        Applies::Files(vec!["services/search/**".into()])
    );
    assert_eq!(
        out(&graph, "services/search/indexing/1", "implements"),
        [
            "services/search/indexing/R1",
            "services/search/indexing/R1.1"
        ]
    );
}

#[test]
fn rules_of_every_format_say_when_they_apply() {
    let (_, graph) = load("rules");
    let applies = |id: &str| node(&graph, id).applies().clone();
    let files = |globs: &[&str]| Applies::Files(globs.iter().map(|g| g.to_string()).collect());
    let cases = [
        ("AGENTS.md", Applies::Always),
        ("CLAUDE.md", Applies::Always),
        (".github/copilot-instructions.md", Applies::Always),
        (".cursor/rules/always.mdc", Applies::Always),
        ("src/billing/AGENTS.md", files(&["src/billing/**"])),
        (".claude/rules/migrations.md", files(&["db/migrations/**"])),
        (".claude/rules/legacy.md", files(&["legacy/**/*.php"])),
        // Unquoted, comma-joined, not YAML.
        (".cursor/rules/api.mdc", files(&["**/*.ts", "src/api/**"])),
        (".cursor/rules/react.mdc", files(&["web/src/**/*.{ts,tsx}"])),
        ("web/.cursor/rules/ui.mdc", files(&["web/src/**/*.tsx"])),
        (
            ".github/instructions/python.instructions.md",
            files(&["**/*.py"]),
        ),
        // A description and empty globs: only when linked.
        (".cursor/rules/sql.mdc", Applies::Linked),
        (".github/instructions/docs.instructions.md", Applies::Linked),
    ];
    for (id, expected) in cases {
        assert_eq!(applies(id), expected, "{id}");
        assert_eq!(node(&graph, id).kind, Kind::Norm, "{id}");
    }
    // Both root agent files are kept (neither is the one identity), and prompts are no rules.
    assert!(graph.lookup(".github/prompts/review.prompt.md").is_none());
    assert_eq!(out(&graph, "CLAUDE.md", "imports"), ["AGENTS.md"]);
    // One matcher answers for the engine and check.
    let api = node(&graph, ".cursor/rules/api.mdc").applies().clone();
    assert!(brief_sources::applies_to(&api, "src/api/handler.ts"));
    assert!(brief_sources::applies_to(&api, "web/src/x.ts"));
    assert!(!brief_sources::applies_to(&api, "web/src/App.tsx"));
}
