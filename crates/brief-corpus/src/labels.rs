//! The answer key of a generated project: for a sample of its targets, what each must see —
//! its hard constraints and its direct links — and which nodes have nothing to do with it.
//!
//! The labels come from the links the generator itself wrote and from what those links mean
//! (a hard policy on a feature binds every behavior in it; a layer's hard policy binds every
//! behavior whose feature builds on that layer; a norm a task's spec links binds the task),
//! not from brief: `brief-eval` scores brief and its alternatives against them.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::SgNode;

/// The name of the labels file written beside a generated project.
pub const LABELS_FILE: &str = "labels.json";

/// What one target must see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetLabels {
    /// The target's id.
    pub target: String,
    /// Hard constraints that bind the target: hard policies and norms, decisions that
    /// constrain it, Tana `#policy` nodes of its project.
    pub hard: Vec<String>,
    /// Direct links that are not hard constraints: what the target links to, what constrains
    /// it directly; in Tana its parent, children, references and field values.
    pub direct: Vec<String>,
    /// Nodes unrelated to the target (other features, tasks of other projects, …).
    pub noise: Vec<String>,
}

/// The labels of a generated project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labels {
    /// `specgraph`, `artifacts` or `tana`.
    pub shape: String,
    /// The seed the project was generated from (the same seed writes the same files).
    pub seed: u64,
    /// Nodes (Tana: docs) written.
    pub nodes: usize,
    /// The labelled targets.
    pub targets: Vec<TargetLabels>,
}

impl Labels {
    /// The labels as JSON text (`labels.json`).
    pub fn to_json(&self) -> String {
        let targets: Vec<Value> = self
            .targets
            .iter()
            .map(|t| {
                json!({"target": t.target, "hard": t.hard, "direct": t.direct, "noise": t.noise})
            })
            .collect();
        let value = json!({
            "shape": self.shape,
            "seed": self.seed,
            "nodes": self.nodes,
            "targets": targets,
        });
        let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads labels written by [`Labels::to_json`] (or by hand in the same shape; `shape`,
    /// `seed` and `nodes` may be missing).
    pub fn from_json(text: &str) -> Result<Labels, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let list = |v: &Value, key: &str| -> Result<Vec<String>, String> {
            match v.get(key) {
                None => Ok(Vec::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|i| {
                        i.as_str()
                            .map(str::to_string)
                            .ok_or(format!("`{key}` holds a non-string"))
                    })
                    .collect(),
                Some(_) => Err(format!("`{key}` is not a list")),
            }
        };
        let targets = value
            .get("targets")
            .and_then(Value::as_array)
            .ok_or("no `targets` list")?
            .iter()
            .map(|t| {
                Ok(TargetLabels {
                    target: t
                        .get("target")
                        .and_then(Value::as_str)
                        .ok_or("a target without `target`")?
                        .to_string(),
                    hard: list(t, "hard")?,
                    direct: list(t, "direct")?,
                    noise: list(t, "noise")?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Labels {
            shape: value
                .get("shape")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            seed: value.get("seed").and_then(Value::as_u64).unwrap_or(0),
            nodes: value.get("nodes").and_then(Value::as_u64).unwrap_or(0) as usize,
            targets,
        })
    }
}

/// `count` candidates spread over the whole list: one in each of `count` equal stretches,
/// at a position that shifts from stretch to stretch (so a regular layout — the first
/// behavior of every feature — is not all that is picked).
fn spread<T: Clone>(candidates: &[T], count: usize) -> Vec<T> {
    let count = count.min(candidates.len());
    if count == 0 {
        return Vec::new();
    }
    let step = candidates.len() / count;
    (0..count)
        .map(|i| candidates[i * step + (i * 7) % step].clone())
        .collect()
}

fn sorted(set: BTreeSet<String>) -> Vec<String> {
    set.into_iter().collect()
}

fn links<'a>(node: &'a SgNode, relation: &str) -> impl Iterator<Item = &'a str> {
    node.value["links"][relation]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

/// Spec Graph behaviors: hard = hard policies on the behavior, its feature or a layer the
/// feature builds on (its own, those of the features it depends on, and every layer below),
/// and decisions that constrain the behavior; direct = what the behavior depends on and
/// implements, and soft policies on the behavior itself; noise = the members of features it
/// does not build on, and layers it does not reach with their decisions, policies and
/// foundations.
pub(crate) fn spec_graph(nodes: &[SgNode], count: usize) -> Vec<TargetLabels> {
    let by_id: BTreeMap<&str, &SgNode> = nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
    for node in nodes {
        for member in links(node, "contains") {
            parent.insert(member, &node.id);
        }
    }
    let mut behaviors: Vec<&str> = nodes
        .iter()
        .filter(|n| n.kind == "behavior")
        .map(|n| n.id.as_str())
        .collect();
    behaviors.sort_unstable();
    spread(&behaviors, count)
        .into_iter()
        .map(|target| {
            let node = by_id[target];
            let feature = parent.get(target).copied().unwrap_or("");
            let (features, layers) = reach(&by_id, feature);
            let mut hard = BTreeSet::new();
            let mut direct = BTreeSet::new();
            for other in nodes {
                let constrains: Vec<&str> = links(other, "constrains").collect();
                let binds_target = constrains.contains(&target);
                let binds_above = constrains
                    .iter()
                    .any(|c| *c == feature || layers.contains(c));
                match other.kind {
                    "policy"
                        if other.value["severity"] == "hard" && (binds_target || binds_above) =>
                    {
                        hard.insert(other.id.clone());
                    }
                    "policy" if binds_target => {
                        direct.insert(other.id.clone());
                    }
                    "decision" if binds_target || binds_above => {
                        hard.insert(other.id.clone());
                    }
                    _ => {}
                }
            }
            for relation in ["depends_on", "implements"] {
                for to in links(node, relation) {
                    if !hard.contains(to) {
                        direct.insert(to.to_string());
                    }
                }
            }
            // Noise: whatever belongs to a feature the target does not build on, or to a
            // layer it does not reach.
            let related = |id: &str| {
                let home = parent.get(id).copied().unwrap_or(id);
                features.contains(home)
                    || features.contains(id)
                    || layers.contains(home)
                    || layers.contains(id)
            };
            let mut noise = BTreeSet::new();
            for other in nodes {
                let id = other.id.as_str();
                let owner = match other.kind {
                    // A layer's policy and foundation belong to that layer.
                    "policy" | "foundation"
                        if id.starts_with("POL-L") || id.starts_with("FND-") =>
                    {
                        Some(format!(
                            "LAYER-{}",
                            id.trim_start_matches("POL-L").trim_start_matches("FND-")
                        ))
                    }
                    _ => None,
                };
                let is_related = match &owner {
                    Some(layer) => layers.contains(layer.as_str()),
                    None => related(id),
                };
                if !is_related && !hard.contains(id) && !direct.contains(id) {
                    noise.insert(id.to_string());
                }
            }
            TargetLabels {
                target: target.to_string(),
                hard: sorted(hard),
                direct: sorted(direct),
                noise: sorted(noise),
            }
        })
        .collect()
}

/// The features `feature` builds on (itself included), and the layers they reach.
fn reach<'a>(
    by_id: &BTreeMap<&'a str, &'a SgNode>,
    feature: &'a str,
) -> (BTreeSet<&'a str>, BTreeSet<&'a str>) {
    let mut features = BTreeSet::from([feature]);
    let mut stack = vec![feature];
    let mut layers = BTreeSet::new();
    while let Some(f) = stack.pop() {
        for dep in by_id
            .get(f)
            .map(|n| links(n, "depends_on"))
            .into_iter()
            .flatten()
        {
            if dep.starts_with("LAYER-") {
                layers.insert(dep);
            } else if features.insert(dep) {
                stack.push(dep);
            }
        }
    }
    let mut stack: Vec<&str> = layers.iter().copied().collect();
    while let Some(layer) = stack.pop() {
        for dep in by_id
            .get(layer)
            .map(|n| links(n, "depends_on"))
            .into_iter()
            .flatten()
        {
            if dep.starts_with("LAYER-") && layers.insert(dep) {
                stack.push(dep);
            }
        }
    }
    (features, layers)
}

/// The links the artifact generator wrote, by index.
#[derive(Debug, Default)]
pub(crate) struct ArtifactLinks {
    pub norms: usize,
    /// Per decision: the earlier decision it links, if any.
    pub decision_links: Vec<Option<usize>>,
    /// Per spec: the earlier spec it links, if any.
    pub spec_links: Vec<Option<usize>>,
    pub spec_decisions: Vec<[usize; 2]>,
    pub spec_norms: Vec<usize>,
    pub task_specs: Vec<[usize; 2]>,
}

impl ArtifactLinks {
    /// Tasks: hard = the norms of every spec the task reaches (its specs and the specs they
    /// link, transitively); direct = its specs; noise = every spec, decision, norm and task
    /// the task does not reach.
    pub(crate) fn label(&self, count: usize) -> Vec<TargetLabels> {
        let tasks: Vec<usize> = (0..self.task_specs.len()).collect();
        spread(&tasks, count)
            .into_iter()
            .map(|t| {
                let mut specs = BTreeSet::new();
                let mut stack: Vec<usize> = self.task_specs[t].to_vec();
                while let Some(s) = stack.pop() {
                    if specs.insert(s) {
                        stack.extend(self.spec_links[s]);
                    }
                }
                let norms: BTreeSet<usize> = specs.iter().map(|&s| self.spec_norms[s]).collect();
                let mut decisions = BTreeSet::new();
                let mut stack: Vec<usize> =
                    specs.iter().flat_map(|&s| self.spec_decisions[s]).collect();
                while let Some(d) = stack.pop() {
                    if decisions.insert(d) {
                        stack.extend(self.decision_links[d]);
                    }
                }
                let direct: BTreeSet<String> = self.task_specs[t]
                    .iter()
                    .map(|s| format!("SPEC-{s}"))
                    .collect();
                let hard: BTreeSet<String> = norms.iter().map(|n| format!("NORM-{n}")).collect();
                let mut noise = BTreeSet::new();
                noise.extend(
                    (0..self.norms)
                        .filter(|n| !norms.contains(n))
                        .map(|n| format!("NORM-{n}")),
                );
                noise.extend(
                    (0..self.decision_links.len())
                        .filter(|d| !decisions.contains(d))
                        .map(|d| format!("DEC-{d}")),
                );
                noise.extend(
                    (0..self.spec_links.len())
                        .filter(|s| !specs.contains(s))
                        .map(|s| format!("SPEC-{s}")),
                );
                noise.extend(
                    (0..self.task_specs.len())
                        .filter(|&other| other != t)
                        .map(|other| format!("TASK-{other}")),
                );
                TargetLabels {
                    target: format!("TASK-{t}"),
                    hard: sorted(hard),
                    direct: sorted(direct),
                    noise: sorted(noise),
                }
            })
            .collect()
    }
}

/// The links the Tana generator wrote, by doc id.
#[derive(Debug, Default)]
pub(crate) struct TanaLinks {
    /// Tasks whose parent is a project, in the order they were written.
    pub project_tasks: Vec<String>,
    /// Per task: its parent (a project or a task).
    pub parent: BTreeMap<String, String>,
    /// Per task: its owner (a person), the tasks blocking it, the notes it lists.
    pub owner: BTreeMap<String, String>,
    pub blocked_by: BTreeMap<String, Vec<String>>,
    pub notes: BTreeMap<String, Vec<String>>,
    /// Per project: its `#policy` nodes.
    pub policies: BTreeMap<String, Vec<String>>,
    /// Per note: the project or area it sits in.
    pub note_parent: BTreeMap<String, String>,
}

impl TanaLinks {
    /// The project a task belongs to (its nearest project ancestor).
    fn project_of<'a>(&'a self, mut task: &'a str) -> Option<&'a str> {
        for _ in 0..64 {
            let parent = self.parent.get(task)?;
            if self.policies.contains_key(parent) {
                return Some(parent);
            }
            task = parent;
        }
        None
    }

    /// Tasks directly under a project: hard = the project's `#policy` nodes; direct = the
    /// project, the task's subtasks, the notes it lists, its owner and the tasks blocking it;
    /// noise = tasks and notes of other projects.
    pub(crate) fn label(&self, count: usize) -> Vec<TargetLabels> {
        spread(&self.project_tasks, count)
            .into_iter()
            .map(|task| {
                let project = self.parent.get(&task).cloned().unwrap_or_default();
                let hard: BTreeSet<String> = self
                    .policies
                    .get(&project)
                    .into_iter()
                    .flatten()
                    .cloned()
                    .collect();
                let mut direct = BTreeSet::from([project.clone()]);
                direct.extend(
                    self.parent
                        .iter()
                        .filter(|(_, p)| **p == task)
                        .map(|(child, _)| child.clone()),
                );
                direct.extend(self.notes.get(&task).into_iter().flatten().cloned());
                direct.extend(self.owner.get(&task).cloned());
                direct.extend(self.blocked_by.get(&task).into_iter().flatten().cloned());
                let mut noise = BTreeSet::new();
                for other in self.parent.keys() {
                    if self.project_of(other).is_some_and(|p| p != project)
                        && !direct.contains(other)
                    {
                        noise.insert(other.clone());
                    }
                }
                for (note, home) in &self.note_parent {
                    if home != &project
                        && self.policies.contains_key(home)
                        && !direct.contains(note)
                    {
                        noise.insert(note.clone());
                    }
                }
                TargetLabels {
                    target: task,
                    hard: sorted(hard),
                    direct: sorted(direct),
                    noise: sorted(noise),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate, generate_labelled, Shape};

    #[test]
    fn spread_takes_distinct_candidates_across_the_list() {
        let list: Vec<usize> = (0..100).collect();
        let picked = spread(&list, 10);
        assert_eq!(picked.len(), 10);
        assert!(picked.windows(2).all(|w| w[0] < w[1]), "{picked:?}");
        assert!(picked.iter().any(|p| p % 10 != 0), "{picked:?}");
        assert_eq!(spread(&list, 0), Vec::<usize>::new());
        assert_eq!(spread(&list[..3], 10), vec![0, 1, 2]);
    }

    /// Every labelled id is a node of the project (its file exists), the target is not
    /// labelled, and must-see and noise do not overlap.
    fn check(shape: Shape, nodes: usize) -> Labels {
        let dir = std::env::temp_dir().join(format!(
            "brief-corpus-labels-{}-{}",
            shape.name(),
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let (_, labels) = generate_labelled(shape, nodes, &dir, 3, 6).unwrap();
        let written = std::fs::read_to_string(dir.join(LABELS_FILE)).unwrap();
        assert_eq!(Labels::from_json(&written).unwrap(), labels);
        let text: String = match shape {
            Shape::Tana => std::fs::read_to_string(dir.join("export.json")).unwrap(),
            Shape::SpecGraph => std::fs::read_to_string(dir.join("specgraph/graph.json")).unwrap(),
            Shape::Artifacts | Shape::Notes | Shape::Layered | Shape::Dense | Shape::SpecKit => {
                String::new()
            }
        };
        assert_eq!(labels.targets.len(), 6);
        for t in &labels.targets {
            let must: BTreeSet<&String> = t.hard.iter().chain(&t.direct).collect();
            assert!(!must.is_empty(), "{t:?}");
            assert!(!must.contains(&t.target));
            assert!(t.noise.iter().all(|n| !must.contains(n) && n != &t.target));
            for id in must.iter().copied().chain(&t.noise).chain([&t.target]) {
                match shape {
                    Shape::Artifacts => {
                        let folder = match id.split('-').next().unwrap() {
                            "NORM" => "system/norms",
                            "DEC" => "system/rationale",
                            "SPEC" => "system/specs",
                            _ => "work/tasks",
                        };
                        assert!(
                            dir.join(format!(".contextia/{folder}/{id}.md")).is_file(),
                            "{id}"
                        );
                    }
                    _ => assert!(text.contains(&format!("\"{id}\"")), "{id}"),
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        // The labels do not change the project.
        let plain = dir.with_extension("plain");
        let _ = std::fs::remove_dir_all(&plain);
        generate(shape, nodes, &plain, 3).unwrap();
        assert!(!plain.join(LABELS_FILE).exists());
        let _ = std::fs::remove_dir_all(&plain);
        labels
    }

    #[test]
    fn spec_graph_labels() {
        let labels = check(Shape::SpecGraph, 400);
        for t in &labels.targets {
            let feature = t.target.split('-').next().unwrap();
            // The feature's first policy is hard and constrains the feature; layer 0's
            // policy binds every feature.
            assert!(t.hard.contains(&format!("POL-{feature}-0")), "{t:?}");
            assert!(t.hard.contains(&"POL-L0".to_string()), "{t:?}");
            assert!(
                t.direct.contains(&format!("DOM-{}", &feature[1..])),
                "{t:?}"
            );
        }
    }

    #[test]
    fn artifact_labels() {
        let labels = check(Shape::Artifacts, 200);
        for t in &labels.targets {
            assert!(t.direct.iter().all(|d| d.starts_with("SPEC-")), "{t:?}");
            assert!(t.hard.iter().all(|h| h.starts_with("NORM-")), "{t:?}");
            assert!(t.noise.iter().any(|n| n.starts_with("TASK-")));
        }
    }

    #[test]
    fn tana_labels() {
        let labels = check(Shape::Tana, 1500);
        for t in &labels.targets {
            assert!(!t.hard.is_empty() && t.hard.len() <= 2, "{t:?}");
        }
    }
}
