//! `impact` is exact: for every node N and every target T, T is listed for N iff the context
//! of T — assembled as `brief context T` assembles it — holds N (shown or omitted for the
//! budget). Checked on the shipped examples and on generated projects of every source kind,
//! with the default settings and with other depths and lenses.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use brief::{Depth, Format};
use brief_corpus::{generate, Shape};
use brief_engine::{assemble, plan, select, ContextRequest};
use brief_engine::{chain, impact, Plans};
use brief_model::Graph;
use brief_project::{Defaults, Project};
use serde_json::Value;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

fn load(root: &Path) -> (Graph, Defaults) {
    let project = Project::at(root).expect("the project opens");
    let loaded = project.load();
    assert!(loaded.errors().next().is_none(), "{:?}", loaded.problems);
    (loaded.graph, project.defaults.clone())
}

/// Per target, every node its assembled context holds (the JSON audit's shown and omitted
/// nodes).
fn contexts(
    graph: &Graph,
    defaults: &Defaults,
    settings: &ContextRequest,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut held = BTreeMap::new();
    for id in graph.all_ids() {
        let request = ContextRequest {
            target: id.clone(),
            budget: Some(3000),
            format: Format::Json,
            ..settings.clone()
        };
        let out = assemble(graph, defaults, &request).expect("the context assembles");
        let json: Value = serde_json::from_str(&out.text).unwrap();
        // Related material (backlinks, search hits) is outside the rules impact answers for.
        let mut nodes = BTreeSet::new();
        for list in ["nodes", "omitted"] {
            for node in json[list].as_array().unwrap() {
                let class = node["rank"]["class"].as_str().or(node["class"].as_str());
                if class != Some("related") {
                    nodes.insert(node["id"].as_str().unwrap().to_string());
                }
            }
        }
        held.insert(id, nodes);
    }
    held
}

/// What [`assert_exact`] compared.
struct Compared {
    /// (node, target) pairs found affected.
    pairs: usize,
    /// Targets the inverse left to a forward selection.
    selected: usize,
}

/// Asserts impact(N) = {T : context(T) holds N} for every node N, and that each chain is the
/// one the target's own selection gives (what `explain` and the JSON audit show).
fn assert_exact(graph: &Graph, defaults: &Defaults, settings: &ContextRequest) -> Compared {
    let held = contexts(graph, defaults, settings);
    let plans = Plans::new(defaults, settings).unwrap();
    let origins: BTreeSet<brief_model::Origin> = graph
        .all_ids()
        .iter()
        .map(|id| graph.node(graph.lookup(id).unwrap()).origin)
        .collect();
    let mut selections = BTreeMap::new();
    for id in graph.all_ids() {
        let target = graph.lookup(&id).unwrap();
        let request = ContextRequest {
            target: id.clone(),
            ..settings.clone()
        };
        let plan = plan(graph, defaults, &request, target).unwrap();
        selections.insert(id, select(graph, &plan, &[target]).unwrap());
    }
    let mut compared = Compared {
        pairs: 0,
        selected: 0,
    };
    for id in graph.all_ids() {
        let node = graph.lookup(&id).unwrap();
        let expected: BTreeSet<&str> = held
            .iter()
            .filter(|(_, nodes)| nodes.contains(&id))
            .map(|(target, _)| target.as_str())
            .collect();
        let answer = impact(graph, &plans, &[node]).unwrap();
        // Told the origins the graph has, impact skips look-ups and gives the same answer.
        let known = Plans::new(defaults, settings)
            .unwrap()
            .only(origins.iter().copied());
        assert_eq!(impact(graph, &known, &[node]).unwrap(), answer);
        let listed: BTreeSet<&str> = answer.targets.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(
            listed, expected,
            "impact of {id} (depth {:?}, lens {:?})",
            settings.depth, settings.lens
        );
        // Sorted by id, one chain per asked node, starting at the target and ending at it.
        let ids: Vec<&str> = answer.targets.iter().map(|t| t.id.as_str()).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
        for target in &answer.targets {
            assert_eq!(target.chain.len(), 1);
            let expected = chain(graph, &selections[&target.id], node).unwrap();
            assert_eq!(
                Some(&target.chain[0]),
                expected.as_ref(),
                "chain of {id} in {} (depth {:?}, lens {:?})",
                target.id,
                settings.depth,
                settings.lens
            );
        }
        compared.pairs += listed.len();
        compared.selected += answer.selected;
    }
    compared
}

#[test]
fn impact_equals_every_assembled_context_on_the_examples() {
    for name in ["payments", "notes-app"] {
        let (graph, defaults) = load(&example(name));
        for settings in [
            ContextRequest::default(),
            ContextRequest {
                depth: Some(Depth::Hops(1)),
                ..ContextRequest::default()
            },
            ContextRequest {
                depth: Some(Depth::Full),
                no_identity: true,
                ..ContextRequest::default()
            },
            ContextRequest {
                lens: Some("planning".into()),
                ..ContextRequest::default()
            },
        ] {
            let pairs = assert_exact(&graph, &defaults, &settings).pairs;
            assert!(pairs > graph.len(), "{name}: {pairs} pairs");
        }
    }
}

#[test]
fn impact_equals_every_assembled_context_on_generated_projects() {
    for (shape, nodes, seed) in [
        (Shape::SpecGraph, 300, 21),
        (Shape::Layered, 300, 24),
        (Shape::Artifacts, 150, 22),
        (Shape::Notes, 150, 25),
        (Shape::Tana, 300, 23),
        (Shape::Dense, 120, 27),
    ] {
        let dir = tempfile::tempdir().unwrap();
        generate(shape, nodes, dir.path(), seed).unwrap();
        let (graph, defaults) = load(dir.path());
        let compared = assert_exact(&graph, &defaults, &ContextRequest::default());
        let pairs = compared.pairs;
        assert!(pairs > graph.len(), "{}: {pairs} pairs", shape.name());
        if shape != Shape::Tana {
            // The inverse decides nearly every target itself (Tana targets are selected).
            assert!(
                compared.selected * 20 < pairs,
                "{}: {} of {pairs} selected forward",
                shape.name(),
                compared.selected
            );
        }
    }
}

/// A fan-out limit that generated graphs exceed: sampling decides what a context holds, and
/// the inverse must still agree with every assembled context.
#[test]
fn impact_is_exact_where_fan_outs_are_sampled() {
    for (shape, nodes, seed) in [(Shape::SpecGraph, 300, 31), (Shape::Layered, 300, 32)] {
        let dir = tempfile::tempdir().unwrap();
        generate(shape, nodes, dir.path(), seed).unwrap();
        let (graph, mut defaults) = load(dir.path());
        defaults.fanout = Some(1);
        let compared = assert_exact(&graph, &defaults, &ContextRequest::default());
        assert!(compared.pairs > graph.len(), "{}", shape.name());
        assert!(
            compared.selected > 0,
            "{}: no fan-out was sampled",
            shape.name()
        );
    }
}

#[test]
fn the_chain_names_the_rules_of_the_issue_example() {
    let (graph, defaults) = load(&example("payments"));
    let plans = Plans::new(&defaults, &ContextRequest::default()).unwrap();
    let node = graph.lookup("POL-CHK-01").unwrap();
    let answer = impact(&graph, &plans, &[node]).unwrap();
    let behavior = answer
        .targets
        .iter()
        .find(|t| t.id == "CHECKOUT-01")
        .expect("CHECKOUT-01 is affected");
    assert_eq!(behavior.kind, "behavior");
    assert_eq!(
        behavior.chain,
        vec!["CHECKOUT-01 ← contains CHECKOUT ← constrains POL-CHK-01".to_string()]
    );
}

/// A Tana export next to an artifact folder holding the project identity: every Tana target
/// holds the identity (its walk adds it first), which the inverse answers without selecting.
#[test]
fn impact_of_the_identity_is_exact_in_a_project_with_tana() {
    let dir = tempfile::tempdir().unwrap();
    generate(Shape::Tana, 120, dir.path(), 26).unwrap();
    let toml = dir.path().join("brief.toml");
    let mut config = std::fs::read_to_string(&toml).unwrap();
    config.push_str("artifacts = [\"notes\"]\n");
    std::fs::write(&toml, config).unwrap();
    std::fs::create_dir_all(dir.path().join("notes")).unwrap();
    std::fs::write(
        dir.path().join("notes/identity.md"),
        "---\nid: IDENTITY\ntype: identity\ntitle: The workspace\n---\nA Tana workspace for planning.\n",
    )
    .unwrap();
    let (graph, defaults) = load(dir.path());
    let identity = graph.lookup("IDENTITY").expect("the identity loads");
    let compared = assert_exact(&graph, &defaults, &ContextRequest::default());
    assert!(compared.pairs > graph.len(), "{} pairs", compared.pairs);
    let plans = Plans::new(&defaults, &ContextRequest::default()).unwrap();
    let answer = impact(&graph, &plans, &[identity]).unwrap();
    assert_eq!(
        answer.targets.len(),
        graph.len(),
        "every context holds the identity"
    );
    assert_eq!(answer.selected, 0, "none selected forward");
}

/// Issue 30, item 15: on a dense random graph (three random links per node, so nearly every
/// node reaches nearly every other and each context is the whole graph) `impact` once
/// walked the whole region for every target — minutes at 25,000 nodes. Each target now
/// costs the few nodes on the shortest ways to the asked node; the answer is still every
/// target, with the chains of their own selections (checked exactly above on a small one).
#[test]
fn impact_on_a_dense_random_graph_visits_few_nodes_per_target() {
    let dir = tempfile::tempdir().unwrap();
    generate(Shape::Dense, 2000, dir.path(), 28).unwrap();
    let (graph, defaults) = load(dir.path());
    let plans = Plans::new(&defaults, &ContextRequest::default()).unwrap();
    for id in ["SPEC-0", "DEC-1001", "TASK-1999"] {
        let node = graph.lookup(id).unwrap();
        let answer = impact(&graph, &plans, &[node]).unwrap();
        assert!(
            answer.targets.len() > 1900,
            "{id}: {}",
            answer.targets.len()
        );
        assert_eq!(answer.selected, 0, "{id}: nothing needs selecting forward");
        assert!(
            answer.visited < 40 * graph.len(),
            "{id}: {} nodes visited for {} targets",
            answer.visited,
            answer.targets.len()
        );
    }
}

/// Where the inverse cannot decide alone (a fan-out over the limit inside a dense region),
/// every target is selected forward and the work grows with the square of the region:
/// `impact` stops at its limit with a message naming it, instead of running for minutes.
#[test]
fn impact_stops_at_its_work_limit_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    generate(Shape::Dense, 300, dir.path(), 29).unwrap();
    let (graph, mut defaults) = load(dir.path());
    defaults.fanout = Some(1);
    let plans = Plans::new(&defaults, &ContextRequest::default())
        .unwrap()
        .work_limit(20_000);
    let node = graph.lookup("SPEC-0").unwrap();
    let err = impact(&graph, &plans, &[node]).unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(err, brief_engine::ContextError::Limit(_)),
        "{message}"
    );
    for part in [
        "impact of SPEC-0 stopped",
        "limit of 20000",
        "--depth",
        "[context] fanout",
    ] {
        assert!(message.contains(part), "{part}: {message}");
    }
    // Under the default limit the same question is answered.
    let plans = Plans::new(&defaults, &ContextRequest::default()).unwrap();
    let answer = impact(&graph, &plans, &[node]).unwrap();
    assert!(answer.selected > 0 && answer.visited > 20_000);
}
