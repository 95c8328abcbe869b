//! The index's precomputed layer guidance against the rules (`brief_model::layer_guides`).
//!
//! Random Spec Graph projects (layers, features, decisions, policies, behaviors with random
//! `contains`, `depends_on`, `constrains` and `supersedes` links, cycles included) are
//! written to disk in the Spec Graph layout and indexed. For every node, the context the
//! index assembles (from its guides table) must be byte-identical to the one assembled
//! from the in-memory graph, which computes guidance rule by rule; and every layer's row
//! set must equal `layer_guides`. Then some node files are rewritten — layer
//! membership, supersedes and constrains edges and kinds change — refreshed (by name or by
//! a full refresh), and compared again.
//!
//! Failure persistence is off so that a failing run writes no `proptest-regressions/` file.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use brief::{Depth, Format, Project};
use brief_engine::assemble;
use brief_engine::ContextRequest;
use brief_engine::Engine;
use brief_model::GraphView;
use brief_model::{layer_guides, LayerGuide};
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
    let ids: Vec<String> = (0..count).map(id).collect();
    compare_ids(root, engine, &ids)
}

/// [`compare`] for the nodes `ids`.
fn compare_ids(root: &Path, engine: &mut Engine, ids: &[String]) -> Result<(), TestCaseError> {
    let project = Project::at(root).unwrap();
    let graph = project.load().graph;
    for n in ids {
        for depth in [Depth::Hops(1), Depth::Hops(2)] {
            let request = ContextRequest {
                target: n.clone(),
                depth: Some(depth),
                budget: Some(100_000),
                format: Format::Json,
                ..ContextRequest::default()
            };
            let memory = assemble(&graph, &project.defaults, &request).map(|o| o.text);
            let indexed = engine.context(&request).map(|o| o.text);
            match (memory, indexed) {
                (Ok(memory), Ok(indexed)) => prop_assert_eq!(memory, indexed, "{}", n),
                (memory, indexed) => {
                    return Err(TestCaseError::fail(format!(
                        "{}: memory {:?}, index {:?}",
                        n,
                        memory.err().map(|e| e.to_string()),
                        indexed.err().map(|e| e.to_string())
                    )))
                }
            }
        }
        let in_memory = graph.lookup(n).unwrap();
        if graph.kind_of(in_memory) == brief_model::Kind::Layer {
            let index = engine.index();
            let stored = index.lookup(n).unwrap().unwrap();
            let named = |view: &dyn GraphView, guides: Vec<LayerGuide>| {
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
            let expected = named(&graph, layer_guides(&graph, in_memory).unwrap());
            let rows = index
                .layer_guides(stored)
                .unwrap()
                .expect("the index keeps guides");
            prop_assert_eq!(expected, named(index, rows), "guides of {}", n);
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
                        .refresh(Some(brief_index::Verify::Full), &mut |_| {})
                        .unwrap();
                }
                compare(root, &mut engine, specs.len())?;
            }
            Ok(())
        })
        .unwrap();
}

/// A refresh that renames the node holding the largest index: SQLite hands the renamed node
/// that index again, so its index, kind and outgoing edges are unchanged while its id — and
/// with it every edge into it — is not. The layer that contained the old id must lose the
/// decision (found in review: the guides kept it).
#[test]
fn a_renamed_node_that_reuses_its_index_moves_the_guides() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let brief = root.join(".brief");
    fs::create_dir_all(&brief).unwrap();
    let write = |name: &str, text: &str| fs::write(brief.join(name), text).unwrap();
    write(
        "a-layer.md",
        "---\nid: L-1\ntype: layer\ntitle: Platform layer\ncontains: [D-1]\n---\nThe platform.\n",
    );
    write(
        "b-target.md",
        "---\nid: T-1\ntype: behavior\ntitle: Checkout\ndepends_on: [L-1]\n---\nPays.\n",
    );
    // Sorted last, so it is written last and holds the largest index.
    write(
        "z-dec.md",
        "---\nid: D-1\ntype: decision\ntitle: Use Postgres\n---\nOne database.\n",
    );
    let mut engine = Engine::open(Some(root), root).unwrap();
    let ids = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    compare_ids(root, &mut engine, &ids(&["L-1", "T-1", "D-1"])).unwrap();
    write(
        "z-dec.md",
        "---\nid: D-2\ntype: decision\ntitle: Use Postgres\n---\nOne database.\n",
    );
    engine
        .refresh_paths(&[".brief/z-dec.md".to_string()])
        .unwrap();
    compare_ids(root, &mut engine, &ids(&["L-1", "T-1", "D-2"])).unwrap();
    // One refresh removes the decision and adds another that a second layer already named
    // (a dangling link that now resolves), again in the freed index.
    write(
        "c-layer.md",
        "---\nid: L-2\ntype: layer\ntitle: Data layer\ncontains: [D-3]\n---\nData.\n",
    );
    write(
        "b-target.md",
        "---\nid: T-1\ntype: behavior\ntitle: Checkout\ndepends_on: [L-1, L-2]\n---\nPays.\n",
    );
    engine
        .refresh_paths(&[
            ".brief/c-layer.md".to_string(),
            ".brief/b-target.md".to_string(),
        ])
        .unwrap();
    compare_ids(root, &mut engine, &ids(&["L-1", "L-2", "T-1", "D-2"])).unwrap();
    fs::remove_file(brief.join("z-dec.md")).unwrap();
    write(
        "y-dec.md",
        "---\nid: D-3\ntype: decision\ntitle: Use Kafka\n---\nOne log.\n",
    );
    engine
        .refresh(Some(brief_index::Verify::Full), &mut |_| {})
        .unwrap();
    compare_ids(root, &mut engine, &ids(&["L-1", "L-2", "T-1", "D-3"])).unwrap();
}
