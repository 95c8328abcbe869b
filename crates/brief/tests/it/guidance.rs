//! The index's precomputed layer guidance (`brief::guidance`) against the rules.
//!
//! Random Spec Graph projects (layers, features, decisions, policies, behaviors with random
//! `contains`, `depends_on`, `constrains` and `supersedes` links, cycles included) are
//! written to disk in the Spec Graph layout and indexed. For every node, the context the
//! index assembles (from its guides table) must be byte-identical to the one assembled
//! from the in-memory graph, which computes guidance rule by rule; and every layer's row
//! set must equal `guidance::compute`. Then some node files are rewritten — layer
//! membership, supersedes and constrains edges and kinds change — refreshed (by name or by
//! a full refresh), and compared again.
//!
//! Failure persistence is off so that a failing run writes no `proptest-regressions/` file.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use brief::context::ContextRequest;
use brief::engine::Engine;
use brief::guidance;
use brief::model::GraphView;
use brief::{assemble, Depth, Format, Project};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

const KINDS: [(&str, &str); 5] = [
    ("layer", "layers"),
    ("feature", "features"),
    ("decision", "decisions"),
    ("policy", "policies"),
    ("behavior", "behaviors"),
];

const RELATIONS: [&str; 4] = ["contains", "depends_on", "constrains", "supersedes"];

/// One node as generated: a kind (index into `KINDS`) and links (relation index, target).
#[derive(Debug, Clone)]
struct Spec {
    kind: usize,
    links: Vec<(usize, usize)>,
}

fn id(n: usize) -> String {
    format!("N-{n:02}")
}

fn node_json(n: usize, spec: &Spec, count: usize) -> String {
    let (kind, _) = KINDS[spec.kind];
    let mut links: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for &(relation, target) in &spec.links {
        let target = target % count;
        if target != n {
            links
                .entry(RELATIONS[relation])
                .or_default()
                .push(id(target));
        }
    }
    for targets in links.values_mut() {
        targets.sort();
        targets.dedup();
    }
    let mut value = serde_json::json!({
        "id": id(n),
        "type": kind,
        "title": format!("{kind} number {n}"),
        "description": format!("What {kind} {n} is about, in one sentence."),
    });
    if kind == "decision" || kind == "policy" {
        value["statement"] = serde_json::json!(format!("The rule that {kind} {n} states."));
    }
    if !links.is_empty() {
        value["links"] = serde_json::json!(links);
    }
    serde_json::to_string_pretty(&value).unwrap()
}

fn path_of(n: usize, spec: &Spec) -> String {
    format!("nodes/{}/{}.json", KINDS[spec.kind].1, id(n))
}

/// Writes the whole project; returns the files written, relative to the root.
fn write_project(root: &Path, specs: &[Spec]) -> Vec<String> {
    let dir = root.join("specgraph");
    let _ = fs::remove_dir_all(&dir);
    let entries: Vec<serde_json::Value> = specs
        .iter()
        .enumerate()
        .map(|(n, spec)| {
            serde_json::json!({
                "id": id(n),
                "path": path_of(n, spec),
                "expectedType": KINDS[spec.kind].0,
            })
        })
        .collect();
    let graph = serde_json::json!({
        "$schema": "https://oco-adam.github.io/specgraph/schemas/graph.schema.json",
        "specgraphVersion": "1.0.0",
        "nodes": entries,
    });
    let mut written = Vec::new();
    for (n, spec) in specs.iter().enumerate() {
        let file = dir.join(path_of(n, spec));
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, node_json(n, spec, specs.len())).unwrap();
        written.push(format!("specgraph/{}", path_of(n, spec)));
    }
    fs::write(
        dir.join("graph.json"),
        serde_json::to_string_pretty(&graph).unwrap(),
    )
    .unwrap();
    written
}

fn spec_strategy(count: usize) -> impl Strategy<Value = Spec> {
    (
        prop_oneof![
            2 => Just(0usize),
            2 => Just(1usize),
            3 => Just(2usize),
            2 => Just(3usize),
            3 => Just(4usize),
        ],
        prop::collection::vec((0..RELATIONS.len(), 0..count), 0..5),
    )
        .prop_map(|(kind, links)| Spec { kind, links })
}

/// One round of edits: (node number, its new spec), and whether to refresh the files by name.
type Round = (Vec<(usize, Spec)>, bool);

/// A project and the rounds of edits made to it.
fn case_strategy() -> impl Strategy<Value = (Vec<Spec>, Vec<Round>)> {
    (6usize..24).prop_flat_map(|count| {
        (
            prop::collection::vec(spec_strategy(count), count),
            prop::collection::vec(
                (
                    prop::collection::vec((0..count, spec_strategy(count)), 1..4),
                    any::<bool>(),
                ),
                1..4,
            ),
        )
    })
}

/// Every node's context from the index against the one from memory, and every layer's
/// guides against the rules.
fn compare(root: &Path, engine: &mut Engine, count: usize) -> Result<(), TestCaseError> {
    let project = Project::at(root).unwrap();
    let graph = project.load().graph;
    for n in 0..count {
        for depth in [Depth::Hops(1), Depth::Hops(2)] {
            let request = ContextRequest {
                target: id(n),
                depth: Some(depth),
                budget: Some(100_000),
                format: Format::Json,
                ..ContextRequest::default()
            };
            let memory = assemble(&graph, &project.defaults, &request).map(|o| o.text);
            let indexed = engine.context(&request).map(|o| o.text);
            match (memory, indexed) {
                (Ok(memory), Ok(indexed)) => prop_assert_eq!(memory, indexed, "{}", id(n)),
                (memory, indexed) => {
                    return Err(TestCaseError::fail(format!(
                        "{}: memory {:?}, index {:?}",
                        id(n),
                        memory.err().map(|e| e.to_string()),
                        indexed.err().map(|e| e.to_string())
                    )))
                }
            }
        }
        let in_memory = graph.lookup(&id(n)).unwrap();
        if graph.kind_of(in_memory) == brief::Kind::Layer {
            let index = engine.index();
            let stored = index.lookup(&id(n)).unwrap().unwrap();
            let named = |view: &dyn GraphView, guides: Vec<guidance::LayerGuide>| {
                let mut named: Vec<(String, String, String)> = guides
                    .into_iter()
                    .map(|g| {
                        (
                            view.id_of(g.node).unwrap(),
                            view.id_of(g.member).unwrap(),
                            g.relation.name().to_string(),
                        )
                    })
                    .collect();
                named.sort();
                named
            };
            let expected = named(&graph, guidance::compute(&graph, in_memory).unwrap());
            let rows = index
                .layer_guides(stored)
                .unwrap()
                .expect("the index keeps guides");
            prop_assert_eq!(expected, named(index, rows), "guides of {}", id(n));
        }
    }
    Ok(())
}

#[test]
fn precomputed_guidance_gives_the_contexts_of_the_rules() {
    let mut runner = TestRunner::new(Config {
        cases: 24,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&case_strategy(), |(mut specs, rounds)| {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            write_project(root, &specs);
            let mut engine = Engine::open(Some(root), root).unwrap();
            compare(root, &mut engine, specs.len())?;
            for (edits, by_name) in rounds {
                let mut changed = Vec::new();
                let mut moved = false;
                for (n, spec) in edits {
                    moved |= spec.kind != specs[n].kind;
                    specs[n] = spec;
                }
                // Kinds decide folders: a moved file changes the manifest (a full refresh).
                let files = write_project(root, &specs);
                changed.extend(files);
                if by_name && !moved {
                    engine.refresh_paths(&changed).unwrap();
                } else {
                    engine
                        .refresh(Some(brief::index::Verify::Full), &mut |_| {})
                        .unwrap();
                }
                compare(root, &mut engine, specs.len())?;
            }
            Ok(())
        })
        .unwrap();
}
