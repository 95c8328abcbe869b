use super::*;

fn feature_role(files: &[&str]) -> Role {
    Role::Feature {
        dir: "specs/003-payments".into(),
        key: "003-payments".into(),
        files: files.iter().map(|f| f.to_string()).collect(),
    }
}

fn ids(nodes: &[Node]) -> Vec<&str> {
    let mut ids: Vec<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    ids.sort();
    ids
}

fn find<'a>(nodes: &'a [Node], id: &str) -> &'a Node {
    nodes
        .iter()
        .find(|n| n.id == id)
        .unwrap_or_else(|| panic!("no {id} in {:?}", ids(nodes)))
}

fn targets(node: &Node, relation: &str) -> Vec<String> {
    let mut out: Vec<String> = node
        .links
        .iter()
        .filter(|l| l.relation.name() == relation)
        .map(|l| l.target.clone())
        .collect();
    out.sort();
    out
}

#[test]
fn mentions_name_stories_requirements_and_principles() {
    let files = vec!["spec.md".to_string()];
    let feature = FeatureRef {
        key: "003-payments",
        files: &files,
    };
    let found: Vec<String> = mentions(
        "[US2] covers FR-007 and FR-001a, SC-002; see User Story 3 and Principle IV, Article 2",
        &feature,
    )
    .into_iter()
    .map(|(_, id)| id)
    .collect();
    assert_eq!(
        found,
        [
            "003-payments/US2",
            "003-payments/FR-007",
            "003-payments/FR-001a",
            "003-payments/SC-002",
            "003-payments/US3",
            "constitution/IV",
            "constitution/II",
        ]
    );
}

#[test]
fn a_tasks_file_as_people_write_it() {
    let text = "# Tasks: Payments\n\n**Prerequisites**: plan.md, research.md\n\n## Phase 1: Setup\n\n\
- [x] T001 Create `backend/pyproject.toml`\n- [X] T002 [P] Configure lint in backend/ruff.toml\n\n\
## Phase 3: User Story 1 - Pay an invoice (Priority: P1)\n\n\
- [ ] T010 [P] [US1] Contract test in tests/contract/test_pay.py\n\
- [ ] T011 Implement FR-007 in `src/pay/service.py` and src/pay/api.py\n  - also update docs/pay.md\n\
- [ ] T011 duplicate line\n- [x] **T012 [P]** Wire file:///home/me/repo/src/pay/wire.py (depends on T010)\n";
    let role = feature_role(&["plan.md", "research.md", "spec.md", "tasks.md"]);
    let (nodes, problems) = parse("specs/003-payments/tasks.md", text, &role);
    assert_eq!(
        ids(&nodes),
        [
            "003-payments/T001",
            "003-payments/T002",
            "003-payments/T010",
            "003-payments/T011",
            "003-payments/T012",
            "003-payments/tasks",
        ]
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0]
        .message
        .contains("duplicate id `003-payments/T011`"));
    let t011 = find(&nodes, "003-payments/T011");
    assert_eq!(
        targets(t011, "implements"),
        ["003-payments/FR-007", "003-payments/US1"]
    );
    assert_eq!(
        t011.artifact().unwrap().paths,
        ["src/pay/service.py", "src/pay/api.py", "docs/pay.md"]
    );
    assert_eq!(
        targets(t011, "depends_on"),
        [
            "003-payments/T010",
            "003-payments/plan",
            "003-payments/research"
        ]
    );
    let t012 = find(&nodes, "003-payments/T012");
    assert_eq!(t012.artifact().unwrap().paths, ["src/pay/wire.py"]);
    assert!(targets(t012, "depends_on").contains(&"003-payments/T010".to_string()));
    let extra = &t012.artifact().unwrap().extra;
    assert!(extra.contains(&("done".into(), "done".into())), "{extra:?}");
    assert!(extra.contains(&("parallel".into(), "yes".into())));
    let page = find(&nodes, "003-payments/tasks");
    assert_eq!(targets(page, "contains").len(), 5);
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    /// Pieces of the real formats, so mutations land on what the parsers look at.
    const PIECES: [&str; 16] = [
        "# Tasks: X\n",
        "## Phase 1: User Story 2 - A (Priority: P1)\n",
        "- [x] T001 [P] [US1] ",
        "- [ ] **T002 [P]** ",
        "src/a/b.ts ",
        "file:///h/r/src/c.ts ",
        "(FR-007) ",
        "### D-6. ",
        "**Decision**: ",
        "**Rationale**: ",
        "- a: b\n",
        "```\n",
        "### I. Rule (NON-NEGOTIABLE)\n",
        "MUST ",
        "Principle IV ",
        "\n\n",
    ];

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                prop::sample::select(PIECES.to_vec()).prop_map(str::to_string),
                ".{0,12}",
            ],
            0..40,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn any_file_of_a_feature(text in text(), which in 0usize..7) {
            let files = ["spec.md", "plan.md", "research.md", "data-model.md", "tasks.md",
                "quickstart.md", "checklists/x.md"];
            let role = feature_role(&files);
            let rel = format!("specs/003-payments/{}", files[which]);
            let (nodes, _) = parse(&rel, &text, &role);
            let mut seen = std::collections::BTreeSet::new();
            for node in &nodes {
                prop_assert!(seen.insert(node.id.clone()), "one id once: {}", node.id);
            }
            let constitution = Role::Constitution { features: vec!["003-payments".into()] };
            let _ = parse(".specify/memory/constitution.md", &text, &constitution);
            let _ = speckit_task_ids(&text);
        }
    }
}
