//! A layer-heavy Spec Graph: few layers, each *containing* hundreds of decisions, policies and
//! foundations directly, and thousands of features that depend on a layer — so one layer's
//! guidance reaches tens of thousands of nodes. `spec_graph` makes the opposite shape (many
//! small layers chained by supersedes); this one is what the speed goals call "whatever the
//! graph's shape": a context whose cost must not grow with the size of a layer.
//!
//! Counts at N nodes: 10 layers, N/50 features, and of the rest 60 % behaviors, 15 %
//! decisions, 10 % domains, 10 % policies, 5 % foundations. A tenth of the decisions,
//! policies and foundations sit in a layer, the others in a feature. Behaviors depend on a
//! decision and on up to two earlier behaviors (no cycles) and implement a domain; decisions
//! constrain one to five behaviors; a policy constrains a feature (three in ten) or one to four
//! behaviors. Inside a layer, decisions keep distinct categories (a second decision of a
//! category becomes a soft policy), so the layer's guidance is never ambiguous.

use std::path::Path;

use serde_json::{json, Value};

use super::{paragraph, sentence, title, write, Rng, Structure};

const LAYERS: usize = 10;
const CATEGORIES: [&str; 4] = ["architecture", "stack", "pattern", "interface"];

/// Where a decision, policy or foundation lives.
#[derive(Clone, Copy)]
enum Home {
    Layer(usize),
    Feature(usize),
}

fn ids(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}-{i}")).collect()
}

/// `k` distinct picks from `pool` (fewer if the pool is smaller), in pick order.
fn sample(rng: &mut Rng, pool: &[String], k: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(k);
    let mut tries = 0;
    while out.len() < k.min(pool.len()) && tries < k * 8 {
        let pick = &pool[rng.below(pool.len())];
        if !out.contains(pick) {
            out.push(pick.clone());
        }
        tries += 1;
    }
    out
}

/// The ids of each kind, fixed before any node is written.
struct Pools {
    behaviors: Vec<String>,
    decisions: Vec<String>,
    domains: Vec<String>,
    policies: Vec<String>,
    foundations: Vec<String>,
    features: Vec<String>,
}

impl Pools {
    fn new(total: usize) -> Pools {
        let features = (total / 50).max(1);
        let rest = total.saturating_sub(LAYERS + features);
        let behaviors = ids("B", rest * 60 / 100);
        Pools {
            behaviors: if behaviors.is_empty() {
                ids("B", 1)
            } else {
                behaviors
            },
            decisions: ids("DEC", (rest * 15 / 100).max(1)),
            domains: ids("DOM", (rest * 10 / 100).max(1)),
            policies: ids("POL", rest * 10 / 100),
            foundations: ids("FND", rest * 5 / 100),
            features: ids("FEAT", features),
        }
    }
}

/// The members of each layer and feature, as nodes take their homes.
struct Homes {
    layers: Vec<Vec<String>>,
    features: Vec<Vec<String>>,
}

impl Homes {
    /// Places `id` in a feature, or (one in ten, when it may) in a layer.
    fn place(&mut self, rng: &mut Rng, id: &str, may_layer: bool) -> Home {
        let at = if may_layer && rng.below(10) == 0 {
            Home::Layer(rng.below(LAYERS))
        } else {
            Home::Feature(rng.below(self.features.len()))
        };
        match at {
            Home::Layer(l) => self.layers[l].push(id.to_string()),
            Home::Feature(f) => self.features[f].push(id.to_string()),
        }
        at
    }
}

/// One node to write: id, type, JSON.
type Written = (String, &'static str, Value);

pub(crate) fn generate(
    out: &Path,
    total: usize,
    rng: &mut Rng,
) -> Result<(usize, Structure), String> {
    let pools = Pools::new(total);
    let mut homes = Homes {
        layers: vec![Vec::new(); LAYERS],
        features: vec![Vec::new(); pools.features.len()],
    };
    let mut nodes: Vec<Written> = Vec::with_capacity(total);
    behaviors(rng, &pools, &mut homes, &mut nodes);
    decisions(rng, &pools, &mut homes, &mut nodes);
    domains(rng, &pools, &mut homes, &mut nodes);
    policies(rng, &pools, &mut homes, &mut nodes);
    foundations(rng, &pools, &mut homes, &mut nodes);
    namespaces(rng, &pools, &homes, &mut nodes);
    nodes.sort_by(|a, b| a.0.cmp(&b.0));
    write_project(out, &nodes)?;
    Ok((nodes.len(), Structure::Unlabelled))
}

fn behaviors(rng: &mut Rng, pools: &Pools, homes: &mut Homes, nodes: &mut Vec<Written>) {
    for (n, id) in pools.behaviors.iter().enumerate() {
        homes.place(rng, id, false);
        let mut depends = sample(rng, &pools.decisions, 1);
        if n > 0 {
            for _ in 0..rng.below(3) {
                let earlier = format!("B-{}", rng.below(n));
                if !depends.contains(&earlier) {
                    depends.push(earlier);
                }
            }
        }
        let constraints: Vec<String> = (0..rng.below(4)).map(|_| sentence(rng)).collect();
        nodes.push((
            id.clone(),
            "behavior",
            json!({"id": id, "type": "behavior", "title": title(rng, n),
                "expectation": paragraph(rng, 4), "constraints": constraints,
                "verification": format!("cargo test -- {}", id.to_lowercase()),
                "links": {"depends_on": depends, "implements": sample(rng, &pools.domains, 1)}}),
        ));
    }
}

/// Decisions first take a home, so a layer's duplicate categories are demoted to policies.
fn decisions(rng: &mut Rng, pools: &Pools, homes: &mut Homes, nodes: &mut Vec<Written>) {
    let mut layer_categories: Vec<Vec<&str>> = vec![Vec::new(); LAYERS];
    for (n, id) in pools.decisions.iter().enumerate() {
        let at = homes.place(rng, id, true);
        let category = CATEGORIES[rng.below(CATEGORIES.len())];
        let k = 1 + rng.below(5);
        let constrains = sample(rng, &pools.behaviors, k);
        let demoted = match at {
            Home::Layer(l) if layer_categories[l].contains(&category) => true,
            Home::Layer(l) => {
                layer_categories[l].push(category);
                false
            }
            Home::Feature(_) => false,
        };
        let value = if demoted {
            json!({"id": id, "type": "policy", "severity": "soft", "title": title(rng, n),
                "statement": paragraph(rng, 3), "verification": [format!("check {id}")],
                "links": {"constrains": constrains}})
        } else {
            let k = rng.below(3);
            let later: Vec<String> = sample(rng, &pools.decisions, k)
                .into_iter()
                .filter(|d| d.as_str() > id.as_str())
                .collect();
            let mut links = json!({"constrains": constrains});
            if !later.is_empty() {
                links["depends_on"] = json!(later);
            }
            json!({"id": id, "type": "decision", "category": category, "title": title(rng, n),
                "statement": paragraph(rng, 5), "constraints": [sentence(rng)],
                "verification": [format!("cargo test -- {}", id.to_lowercase())],
                "links": links, "metadata": {"rationale": paragraph(rng, 3)}})
        };
        let kind = if demoted { "policy" } else { "decision" };
        nodes.push((id.clone(), kind, value));
    }
}

fn domains(rng: &mut Rng, pools: &Pools, homes: &mut Homes, nodes: &mut Vec<Written>) {
    for (n, id) in pools.domains.iter().enumerate() {
        homes.place(rng, id, false);
        nodes.push((
            id.clone(),
            "domain",
            json!({"id": id, "type": "domain", "title": title(rng, n),
                "statement": paragraph(rng, 4), "verification": [format!("check {id}")]}),
        ));
    }
}

fn policies(rng: &mut Rng, pools: &Pools, homes: &mut Homes, nodes: &mut Vec<Written>) {
    for (n, id) in pools.policies.iter().enumerate() {
        homes.place(rng, id, true);
        let constrains = if rng.below(10) < 3 {
            sample(rng, &pools.features, 1)
        } else {
            let k = 1 + rng.below(4);
            sample(rng, &pools.behaviors, k)
        };
        let severity = if rng.below(2) == 0 { "hard" } else { "soft" };
        nodes.push((
            id.clone(),
            "policy",
            json!({"id": id, "type": "policy", "severity": severity, "title": title(rng, n),
                "statement": paragraph(rng, 3), "verification": [format!("check {id}")],
                "links": {"constrains": constrains}}),
        ));
    }
}

fn foundations(rng: &mut Rng, pools: &Pools, homes: &mut Homes, nodes: &mut Vec<Written>) {
    for (n, id) in pools.foundations.iter().enumerate() {
        homes.place(rng, id, true);
        nodes.push((
            id.clone(),
            "foundation",
            json!({"id": id, "type": "foundation", "title": title(rng, n),
                "statement": paragraph(rng, 2), "verification": [format!("test -d {id}")]}),
        ));
    }
}

/// The layers and features, with the members that took their homes there.
fn namespaces(rng: &mut Rng, pools: &Pools, homes: &Homes, nodes: &mut Vec<Written>) {
    for (l, members) in homes.layers.iter().enumerate() {
        let id = format!("LAYER-{l}");
        nodes.push((
            id.clone(),
            "layer",
            json!({"id": id, "type": "layer", "title": format!("Layer {l}"),
                "description": paragraph(rng, 2), "links": {"contains": members}}),
        ));
    }
    for (f, members) in homes.features.iter().enumerate() {
        let id = &pools.features[f];
        nodes.push((
            id.clone(),
            "feature",
            json!({"id": id, "type": "feature", "title": format!("Feature {f}"),
                "description": paragraph(rng, 2),
                "links": {"contains": members, "depends_on": [format!("LAYER-{}", rng.below(LAYERS))]}}),
        ));
    }
}

/// Writes the node files and `graph.json` (nodes sorted by id).
fn write_project(out: &Path, nodes: &[Written]) -> Result<(), String> {
    let root = out.join("specgraph");
    let mut listed = Vec::with_capacity(nodes.len());
    for (id, kind, value) in nodes {
        let dir = match *kind {
            "policy" => "policies".to_string(),
            k => format!("{k}s"),
        };
        let path = format!("nodes/{dir}/{id}.json");
        let text = serde_json::to_string(value).map_err(|e| e.to_string())?;
        write(&root.join(&path), &text)?;
        listed.push(json!({"id": id, "path": path, "expectedType": kind}));
    }
    let manifest = json!({"specgraphVersion": "1.0.0", "nodes": listed});
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    write(&root.join("graph.json"), &text)
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;

    fn read(dir: &Path) -> BTreeMap<String, Value> {
        let root = dir.join("specgraph");
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(root.join("graph.json")).unwrap())
                .unwrap();
        let mut nodes = BTreeMap::new();
        for entry in manifest["nodes"].as_array().unwrap() {
            let path = root.join(entry["path"].as_str().unwrap());
            let node: Value =
                serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            assert_eq!(node["type"], entry["expectedType"]);
            assert_eq!(node["id"], entry["id"]);
            nodes.insert(entry["id"].as_str().unwrap().to_string(), node);
        }
        nodes
    }

    #[test]
    fn layers_are_large_and_every_link_resolves() {
        let dir = tempfile::tempdir().unwrap();
        let (written, _) = generate(dir.path(), 5000, &mut Rng(7)).unwrap();
        let nodes = read(dir.path());
        assert_eq!(nodes.len(), written);
        assert!(written > 4900 && written <= 5000, "{written}");
        for (id, node) in &nodes {
            for (relation, targets) in node["links"].as_object().into_iter().flatten() {
                for target in targets.as_array().unwrap() {
                    let target = target.as_str().unwrap();
                    assert!(nodes.contains_key(target), "{id} {relation} {target}");
                    if relation == "depends_on"
                        && node["type"] == "behavior"
                        && target.starts_with("B-")
                    {
                        let n = |s: &str| s[2..].parse::<usize>().unwrap();
                        assert!(
                            n(target) < n(id),
                            "{id} depends on a later behavior {target}"
                        );
                    }
                }
            }
        }
        // Each layer holds members directly and guides features that depend on it.
        let mut guided = BTreeMap::<String, usize>::new();
        for node in nodes.values().filter(|n| n["type"] == "feature") {
            for layer in node["links"]["depends_on"].as_array().unwrap() {
                *guided
                    .entry(layer.as_str().unwrap().to_string())
                    .or_default() += 1;
            }
        }
        for l in 0..LAYERS {
            let layer = &nodes[&format!("LAYER-{l}")];
            let members = layer["links"]["contains"].as_array().unwrap();
            assert!(
                members.len() >= 5,
                "LAYER-{l} has {} members",
                members.len()
            );
            assert!(guided[&format!("LAYER-{l}")] >= 3);
            let categories: Vec<&str> = members
                .iter()
                .map(|m| &nodes[m.as_str().unwrap()])
                .filter(|m| m["type"] == "decision")
                .map(|m| m["category"].as_str().unwrap())
                .collect();
            let distinct: BTreeSet<&str> = categories.iter().copied().collect();
            assert_eq!(
                distinct.len(),
                categories.len(),
                "LAYER-{l}: {categories:?}"
            );
        }
    }

    #[test]
    fn the_same_seed_writes_the_same_files() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        generate(a.path(), 800, &mut Rng(3)).unwrap();
        generate(b.path(), 800, &mut Rng(3)).unwrap();
        assert_eq!(read(a.path()), read(b.path()));
    }
}
