//! Context quality on realistic projects: the shipped examples and generated projects of
//! every source kind (Spec Graph, Contextia artifacts, Tana), for every target of interest
//! and both encodings, at every budget from the smallest that works up to the full size in
//! steps of 50 tokens:
//!
//! - the document is within the budget;
//! - presence is monotone (a node shown at B is shown at B + 50), and so is detail in whole
//!   levels (a block cut short holds the level below the one it was cut from);
//! - every hard constraint is shown whenever they all fit at meta, and none is omitted
//!   while a softer node other than the target and the identity is shown at any detail
//!   (so none keeps summary or full);
//! - when material was left out, at least 95 % of the budget is used (from 500 tokens on).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use brief::{Depth, Encoding, Format};
use brief_corpus::{generate, Shape};
use brief_engine::{assemble, ContextError, ContextRequest};
use brief_model::{Graph, Kind};
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
    assert!(
        loaded.errors().next().is_none(),
        "{}: {:?}",
        root.display(),
        loaded.problems
    );
    (loaded.graph, project.defaults.clone())
}

/// What one assembly shows: per node id, (class, whole level 0–3), where 0 is omitted.
struct Shown {
    used: usize,
    levels: BTreeMap<String, (String, u8)>,
    degraded: bool,
}

fn level(name: &str) -> u8 {
    match name {
        "meta" => 1,
        "summary" => 2,
        "full" => 3,
        other => panic!("unknown detail {other}"),
    }
}

fn shown(
    graph: &Graph,
    defaults: &Defaults,
    target: &str,
    encoding: Encoding,
    depth: Option<Depth>,
    budget: usize,
) -> Result<Shown, usize> {
    let request = ContextRequest {
        target: target.to_string(),
        budget: Some(budget),
        encoding: Some(encoding),
        depth,
        format: Format::Json,
        ..ContextRequest::default()
    };
    let out = match assemble(graph, defaults, &request) {
        Ok(out) => out,
        Err(ContextError::TooSmall(err)) => return Err(err.minimum),
        Err(other) => panic!("{target} at {budget}: {other}"),
    };
    let json: Value = serde_json::from_str(&out.text).unwrap();
    let document = json["document"].as_str().unwrap();
    let used = json["budget"]["used"].as_u64().unwrap() as usize;
    assert_eq!(used, encoding.count(document), "{target} at {budget}");
    assert!(used <= budget, "{target}: {used} > {budget}");
    let mut levels = BTreeMap::new();
    let mut degraded = false;
    for node in json["nodes"].as_array().unwrap() {
        let mut whole = level(node["detail"].as_str().unwrap());
        if node["cut"] == true {
            whole -= 1;
        }
        // A retired node other than the target shows its line at most: at meta it is whole.
        let most = if node["retired"].is_string() && node["id"] != json["target"] {
            "meta"
        } else {
            "full"
        };
        degraded |= node["detail"] != most || node["cut"] == true;
        levels.insert(
            node["id"].as_str().unwrap().to_string(),
            (node["rank"]["class"].as_str().unwrap().to_string(), whole),
        );
    }
    for node in json["omitted"].as_array().unwrap() {
        degraded = true;
        levels.insert(
            node["id"].as_str().unwrap().to_string(),
            (node["class"].as_str().unwrap().to_string(), 0),
        );
    }
    Ok(Shown {
        used,
        levels,
        degraded,
    })
}

/// Classes from most to least binding.
fn class_order(class: &str) -> u8 {
    match class {
        "target" => 0,
        "hard" => 1,
        "direct" => 2,
        "guidance" => 3,
        "distant" => 4,
        "related" => 5,
        other => panic!("unknown class {other}"),
    }
}

/// Sweeps every budget for one target and encoding; returns how many budgets were checked.
fn sweep(
    graph: &Graph,
    defaults: &Defaults,
    target: &str,
    encoding: Encoding,
    depth: Option<Depth>,
    fill: &mut Fill,
) -> usize {
    let full = shown(graph, defaults, target, encoding, depth, 1_000_000)
        .unwrap_or_else(|_| panic!("{target} fits in a million tokens"));
    let smallest = match shown(graph, defaults, target, encoding, depth, 0) {
        Err(minimum) => minimum,
        Ok(_) => 0,
    };
    let mut previous: Option<(usize, Shown)> = None;
    let mut checked = 0;
    let mut budget = smallest;
    while budget <= full.used + 50 {
        let now = shown(graph, defaults, target, encoding, depth, budget)
            .unwrap_or_else(|minimum| panic!("{target}: {budget} fails, minimum {minimum}"));
        let label = format!("{target} ({encoding}) at {budget}");
        // Hard constraints go last: none is omitted while something softer keeps content.
        let omitted_hard = now
            .levels
            .iter()
            .filter(|(_, (class, level))| class == "hard" && *level == 0)
            .map(|(id, _)| id.clone())
            .collect::<Vec<_>>();
        if !omitted_hard.is_empty() {
            fill.hard_omitted += 1;
            // They did not fit at meta either: the meta-only context omits one too.
            let mut meta = defaults.clone();
            meta.detail = Some(brief::Detail::Meta);
            let at_meta = shown(graph, &meta, target, encoding, depth, budget)
                .unwrap_or_else(|_| panic!("{label}: meta fails"));
            assert!(
                at_meta
                    .levels
                    .values()
                    .any(|(class, level)| class == "hard" && *level == 0),
                "{label}: hard constraints {omitted_hard:?} omitted although all fit at meta"
            );
            // Stronger than "no softer node keeps summary or full": no softer node is shown
            // at all (the fill order takes every hard constraint's line first).
            for (id, (class, level)) in &now.levels {
                assert!(
                    class_order(class) <= 1 || *level == 0,
                    "{label}: hard constraints {omitted_hard:?} omitted while {id} ({class}) keeps level {level}"
                );
            }
        }
        if now.degraded && budget >= 500 {
            fill.degraded += 1;
            if now.used * 100 < budget * 95 {
                fill.short.push(format!("{label}: {} used", now.used));
            }
            fill.worst = fill.worst.min(now.used as f64 / budget as f64);
        }
        if let Some((before, was)) = &previous {
            for (id, (_, level)) in &was.levels {
                let (_, after) = now.levels[id];
                assert!(
                    *level == 0 || after > 0,
                    "{target} ({encoding}): {id} shown at {before} but omitted at {budget}"
                );
                assert!(
                    after >= *level,
                    "{target} ({encoding}): {id} at level {level} at {before} but {after} at {budget}"
                );
            }
        }
        previous = Some((budget, now));
        checked += 1;
        budget += 50;
    }
    checked
}

/// How full degraded documents of 500 tokens and more are.
#[derive(Debug)]
struct Fill {
    degraded: usize,
    short: Vec<String>,
    worst: f64,
    /// Budgets at which some hard constraint was omitted (the class check ran).
    hard_omitted: usize,
}

fn sweep_all(graph: &Graph, defaults: &Defaults, targets: &[String], depth: Option<Depth>) {
    assert!(!targets.is_empty());
    let mut fill = Fill {
        degraded: 0,
        short: Vec::new(),
        worst: 1.0,
        hard_omitted: 0,
    };
    for target in targets {
        for encoding in [Encoding::Cl100k, Encoding::O200k] {
            let checked = sweep(graph, defaults, target, encoding, depth, &mut fill);
            assert!(checked >= 2, "{target}: only {checked} budgets");
        }
    }
    println!(
        "hard constraints omitted at {} budgets; fill: {} of {} degraded documents below 95 %, worst {:.1} %: {:?}",
        fill.hard_omitted,
        fill.short.len(),
        fill.degraded,
        100.0 * fill.worst,
        fill.short
    );
    // The smallest budgets leave hard constraints out, so the class check above ran.
    assert!(
        fill.hard_omitted > 0,
        "no budget omitted a hard constraint: {fill:?}"
    );
    assert!(
        fill.short.is_empty(),
        "degraded documents filled less than 95 % of their budget: {fill:?}"
    );
}

fn ids_of(graph: &Graph, kind: &Kind) -> Vec<String> {
    graph
        .nodes()
        .iter()
        .filter(|n| &n.kind == kind)
        .map(|n| n.id.clone())
        .collect()
}

#[test]
fn payments_every_behavior_at_every_budget() {
    let (graph, defaults) = load(&example("payments"));
    let behaviors = ids_of(&graph, &Kind::Behavior);
    assert_eq!(behaviors.len(), 8);
    sweep_all(&graph, &defaults, &behaviors, None);
    sweep_all(&graph, &defaults, &behaviors[..2], Some(Depth::Full));
}

#[test]
fn notes_app_every_task_at_every_budget() {
    let (graph, defaults) = load(&example("notes-app"));
    let tasks = ids_of(&graph, &Kind::Task);
    assert_eq!(tasks.len(), 4);
    sweep_all(&graph, &defaults, &tasks, None);
}

/// Every `step`-th node of a kind, at most `most`.
fn sample(graph: &Graph, kind: &Kind, step: usize, most: usize) -> Vec<String> {
    ids_of(graph, kind)
        .into_iter()
        .step_by(step)
        .take(most)
        .collect()
}

#[test]
fn generated_spec_graph_at_every_budget() {
    let dir = tempfile::tempdir().unwrap();
    generate(Shape::SpecGraph, 400, dir.path(), 11).unwrap();
    let (graph, defaults) = load(dir.path());
    let targets = sample(&graph, &Kind::Behavior, 37, 6);
    sweep_all(&graph, &defaults, &targets, None);
}

#[test]
fn generated_artifacts_at_every_budget() {
    let dir = tempfile::tempdir().unwrap();
    generate(Shape::Artifacts, 200, dir.path(), 12).unwrap();
    let (graph, defaults) = load(dir.path());
    let targets = sample(&graph, &Kind::Task, 5, 6);
    sweep_all(&graph, &defaults, &targets, None);
}

#[test]
fn generated_tana_at_every_budget() {
    let dir = tempfile::tempdir().unwrap();
    generate(Shape::Tana, 1500, dir.path(), 13).unwrap();
    let (graph, defaults) = load(dir.path());
    let targets = sample(&graph, &Kind::Task, 13, 3);
    sweep_all(&graph, &defaults, &targets, None);
}
