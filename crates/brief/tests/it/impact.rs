//! `impact` is exact: for every node N and every target T, T is listed for N iff the context
//! of T — assembled as `brief context T` assembles it — holds N (shown or omitted for the
//! budget). Checked on the shipped examples and on generated projects of every source kind,
//! with the default settings and with other depths and lenses.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use brief::context::{assemble, ContextRequest};
use brief::impact::{impact, Plans};
use brief::model::Graph;
use brief::project::{Defaults, Project};
use brief::{Depth, Format};
use brief_corpus::{generate, Shape};
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
        let mut nodes = BTreeSet::new();
        for list in ["nodes", "omitted"] {
            for node in json[list].as_array().unwrap() {
                nodes.insert(node["id"].as_str().unwrap().to_string());
            }
        }
        held.insert(id, nodes);
    }
    held
}

/// Asserts impact(N) = {T : context(T) holds N} for every node N; returns how many
/// (node, target) pairs were compared as affected.
fn assert_exact(graph: &Graph, defaults: &Defaults, settings: &ContextRequest) -> usize {
    let held = contexts(graph, defaults, settings);
    let plans = Plans::new(defaults, settings).unwrap();
    let mut pairs = 0;
    for id in graph.all_ids() {
        let node = graph.lookup(&id).unwrap();
        let expected: BTreeSet<&str> = held
            .iter()
            .filter(|(_, nodes)| nodes.contains(&id))
            .map(|(target, _)| target.as_str())
            .collect();
        let answer = impact(graph, &plans, &[node]).unwrap();
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
            assert!(target.chain[0].starts_with(&target.id), "{:?}", target);
        }
        pairs += listed.len();
    }
    pairs
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
            let pairs = assert_exact(&graph, &defaults, &settings);
            assert!(pairs > graph.len(), "{name}: {pairs} pairs");
        }
    }
}

#[test]
fn impact_equals_every_assembled_context_on_generated_projects() {
    for (shape, nodes, seed) in [
        (Shape::SpecGraph, 300, 21),
        (Shape::Artifacts, 150, 22),
        (Shape::Tana, 300, 23),
    ] {
        let dir = tempfile::tempdir().unwrap();
        generate(shape, nodes, dir.path(), seed).unwrap();
        let (graph, defaults) = load(dir.path());
        let pairs = assert_exact(&graph, &defaults, &ContextRequest::default());
        assert!(pairs > graph.len(), "{}: {pairs} pairs", shape.name());
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
