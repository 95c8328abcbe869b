//! Generates Spec Graph and Markdown-artifact projects of any size, the same for the same
//! seed, for brief's benchmarks and scale tests (the `brief-corpus` binary drives it).
//!
//! The shape follows the real formats and keeps the graph valid: Spec Graph layers chain over
//! `depends_on`, each newer layer's decisions supersede the older layer's decision of the same
//! category (so layer guidance never becomes ambiguous), features depend on a layer and on
//! earlier features, behaviors depend on earlier behaviors of their feature and implement
//! domains, decisions and policies constrain behaviors and features. Artifact projects link
//! tasks → specs → decisions and norms, with code paths and norm scopes.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Value};

mod labels;
mod layered;
mod notes;
mod speckit;
mod tana;

pub use labels::{Labels, TargetLabels, LABELS_FILE};

/// Which kind of project to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A Spec Graph (`specgraph/graph.json` and its node files).
    SpecGraph,
    /// A `.contextia/` tree of Markdown artifacts.
    Artifacts,
    /// A Tana workspace export (`export.json` + `brief.toml`); `nodes` counts every doc.
    Tana,
    /// A Markdown knowledge base: an Obsidian vault with wikilinks, Nygard ADRs, docs.
    Notes,
    /// A Spec Graph with ten large layers that guide thousands of features each.
    Layered,
    /// Artifacts (specs, decisions, norms, tasks) each linking three others drawn at random:
    /// a dense random graph, where almost every node reaches almost every other.
    Dense,
    /// A GitHub Spec Kit repository; `nodes` counts tasks (50 a feature).
    SpecKit,
}

impl Shape {
    /// The name used on the command line and in `labels.json`.
    pub fn name(self) -> &'static str {
        match self {
            Shape::SpecGraph => "specgraph",
            Shape::Artifacts => "artifacts",
            Shape::Tana => "tana",
            Shape::Notes => "notes",
            Shape::Layered => "layered",
            Shape::Dense => "dense",
            Shape::SpecKit => "speckit",
        }
    }
}

/// Writes a project of about `nodes` nodes into `out` (which must be empty or missing).
/// Returns the number of nodes written.
pub fn generate(shape: Shape, nodes: usize, out: &Path, seed: u64) -> Result<usize, String> {
    build(shape, nodes, out, seed).map(|(written, _)| written)
}

/// Like [`generate`], and also records what `targets` of the project's targets (behaviors,
/// tasks) must see, as the generator built them: hard constraints, direct links, and nodes
/// unrelated to them. The labels are written to `labels.json` beside the project's own files
/// (no source reads it) and returned.
pub fn generate_labelled(
    shape: Shape,
    nodes: usize,
    out: &Path,
    seed: u64,
    targets: usize,
) -> Result<(usize, Labels), String> {
    if matches!(
        shape,
        Shape::Notes | Shape::Layered | Shape::Dense | Shape::SpecKit
    ) {
        return Err(format!(
            "labels are not generated for --kind {}",
            shape.name()
        ));
    }
    let (written, structure) = build(shape, nodes, out, seed)?;
    let labels = Labels {
        shape: shape.name().to_string(),
        seed,
        nodes: written,
        targets: structure.label(targets),
    };
    write(&out.join(LABELS_FILE), &labels.to_json())?;
    Ok((written, labels))
}

fn build(shape: Shape, nodes: usize, out: &Path, seed: u64) -> Result<(usize, Structure), String> {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    match shape {
        Shape::SpecGraph => spec_graph(out, nodes.max(10), &mut rng),
        Shape::Artifacts => artifacts(out, nodes.max(10), &mut rng),
        Shape::Tana => tana::generate(out, nodes.max(200), &mut rng),
        Shape::Notes => notes::generate(out, nodes.max(20), &mut rng),
        Shape::Layered => layered::generate(out, nodes.max(100), &mut rng),
        Shape::Dense => dense(out, nodes.max(10), &mut rng),
        Shape::SpecKit => speckit::generate(out, nodes.max(50), &mut rng),
    }
}

/// Artifacts of four kinds, each with three links to others drawn at random (any kind, any
/// order, so cycles abound): the dense random graph `impact` must stay bounded on.
fn dense(out: &Path, total: usize, rng: &mut Rng) -> Result<(usize, Structure), String> {
    const KINDS: [(&str, &str, &str); 4] = [
        ("SPEC", "specs", "system/specs"),
        ("DEC", "decisions", "system/rationale"),
        ("NORM", "norms", "system/norms"),
        ("TASK", "tasks", "work/tasks"),
    ];
    let base = out.join(".contextia");
    let kind_of = |n: usize| KINDS[n % KINDS.len()];
    for n in 0..total {
        let (prefix, _, folder) = kind_of(n);
        let mut keys: Vec<(&str, Vec<String>)> = Vec::new();
        for _ in 0..3 {
            let other = rng.below(total);
            let (other_prefix, key, _) = kind_of(other);
            let target = format!("{other_prefix}-{other}");
            match keys.iter_mut().find(|(k, _)| *k == key) {
                Some((_, targets)) => targets.push(target),
                None => keys.push((key, vec![target])),
            }
        }
        let links: String = keys
            .iter()
            .map(|(key, targets)| format!("{key}: [{}]\n", targets.join(", ")))
            .collect();
        let id = format!("{prefix}-{n}");
        write(
            &base.join(format!("{folder}/{id}.md")),
            &format!(
                "---\nid: {id}\ntitle: {}\nstatus: active\n{links}---\n# {id}\n\n{}\n",
                title(rng, n),
                paragraph(rng, 2)
            ),
        )?;
    }
    Ok((total, Structure::Unlabelled))
}

/// What the generator knows about the links it wrote, for the labels.
enum Structure {
    SpecGraph(Vec<SgNode>),
    Artifacts(labels::ArtifactLinks),
    Tana(labels::TanaLinks),
    /// Not labelled (`generate_labelled` refuses the shape).
    Unlabelled,
}

impl Structure {
    fn label(&self, targets: usize) -> Vec<TargetLabels> {
        match self {
            Structure::SpecGraph(nodes) => labels::spec_graph(nodes, targets),
            Structure::Artifacts(links) => links.label(targets),
            Structure::Tana(links) => links.label(targets),
            Structure::Unlabelled => Vec::new(),
        }
    }
}

/// A small deterministic PRNG (xorshift64*): the same seed gives the same project.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const SUBJECTS: &[&str] = &[
    "the service",
    "each request",
    "the ledger",
    "every retry",
    "the client",
    "the worker",
    "a refund",
    "the scheduler",
    "the export job",
    "the cache",
    "an operator",
    "the importer",
    "the gateway",
    "each tenant",
    "the audit log",
    "the sync channel",
    "a webhook",
    "the queue",
];
const VERBS: &[&str] = &[
    "records",
    "rejects",
    "validates",
    "retries",
    "stores",
    "publishes",
    "reconciles",
    "signs",
    "compacts",
    "throttles",
    "routes",
    "expires",
    "encrypts",
    "deduplicates",
    "batches",
];
const OBJECTS: &[&str] = &[
    "the idempotency key",
    "every state change",
    "the payment intent",
    "stale sessions",
    "the checksum",
    "the outbox row",
    "late events",
    "the currency amount in minor units",
    "the partner callback",
    "personal data",
    "the rate limit window",
    "the schema version",
    "the retry budget",
    "the settlement file",
    "each attachment",
    "the tenant quota",
];
const QUALIFIERS: &[&str] = &[
    "before it answers",
    "within 200 ms at p95",
    "in one transaction",
    "with exponential backoff",
    "exactly once",
    "without blocking the caller",
    "after the lock is taken",
    "for 30 days",
    "under the tenant's key",
    "in UTC milliseconds",
    "behind a feature flag",
    "in order",
];
const TOPICS: &[&str] = &[
    "Payments",
    "Refunds",
    "Ledger",
    "Search",
    "Sync",
    "Sharing",
    "Billing",
    "Exports",
    "Imports",
    "Identity",
    "Notifications",
    "Reporting",
    "Scheduling",
    "Storage",
    "Audit",
];

fn sentence(rng: &mut Rng) -> String {
    let mut s = format!(
        "{} {} {} {}.",
        rng.pick(SUBJECTS),
        rng.pick(VERBS),
        rng.pick(OBJECTS),
        rng.pick(QUALIFIERS)
    );
    if let Some(first) = s.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    s
}

fn paragraph(rng: &mut Rng, sentences: usize) -> String {
    (0..sentences)
        .map(|_| sentence(rng))
        .collect::<Vec<_>>()
        .join(" ")
}

fn title(rng: &mut Rng, n: usize) -> String {
    let mut t = format!(
        "{} {} {}",
        rng.pick(TOPICS),
        rng.pick(VERBS),
        rng.pick(OBJECTS)
    );
    let _ = write!(t, " #{n}");
    t.truncate(95);
    t
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// One Spec Graph node to write.
pub(crate) struct SgNode {
    id: String,
    kind: &'static str,
    dir: &'static str,
    value: Value,
}

fn spec_graph(out: &Path, total: usize, rng: &mut Rng) -> Result<(usize, Structure), String> {
    let layers = (total / 5000).clamp(1, 20);
    let foundations = layers;
    let per_feature = 25;
    let features = ((total - layers * 5 - foundations) / per_feature).max(1);
    let mut nodes: Vec<SgNode> = Vec::with_capacity(total);
    for l in 0..layers {
        layer(rng, l, &mut nodes);
    }
    for f in 0..features {
        if nodes.len() >= total {
            break;
        }
        let budget = per_feature.min(total.saturating_sub(nodes.len() + 1));
        feature(rng, f, layers, budget, &mut nodes);
    }
    write_spec_graph(out, &nodes)?;
    Ok((nodes.len(), Structure::SpecGraph(nodes)))
}

/// The decision categories, one decision of each per layer.
const CATEGORIES: [&str; 4] = ["architecture", "stack", "pattern", "interface"];

/// Layer `l`, with one decision per category (superseding the previous layer's), a policy
/// that constrains the layer and a foundation.
fn layer(rng: &mut Rng, l: usize, nodes: &mut Vec<SgNode>) {
    let categories = CATEGORIES;
    // policy that constrains the layer.
    let layer = format!("LAYER-{l}");
    let mut contains = Vec::new();
    for (c, category) in categories.iter().enumerate() {
        let id = format!("DEC-L{l}-{c}");
        contains.push(id.clone());
        let mut links = json!({});
        if l > 0 {
            links["supersedes"] = json!([format!("DEC-L{}-{c}", l - 1)]);
        }
        nodes.push(SgNode {
            id: id.clone(),
            kind: "decision",
            dir: "decisions",
            value: json!({"id": id, "type": "decision", "category": category,
                "title": title(rng, nodes.len()), "statement": paragraph(rng, 3),
                "constraints": [sentence(rng), sentence(rng)],
                "verification": [format!("make verify-{}", l)],
                "links": links,
                "metadata": {"rationale": paragraph(rng, 2),
                    "rejected_alternatives": [{"title": "Do nothing", "reason": paragraph(rng, 1)}]}}),
        });
    }
    let policy = format!("POL-L{l}");
    nodes.push(SgNode {
        id: policy.clone(),
        kind: "policy",
        dir: "policies",
        value: json!({"id": policy, "type": "policy", "severity": "hard",
            "title": title(rng, nodes.len()), "statement": paragraph(rng, 2),
            "verification": [{"kind": "command", "command": format!("make policy-{l}")}],
            "links": {"constrains": [layer]}}),
    });
    let foundation = format!("FND-{l}");
    nodes.push(SgNode {
        id: foundation.clone(),
        kind: "foundation",
        dir: "foundations",
        value: json!({"id": foundation, "type": "foundation", "title": title(rng, nodes.len()),
            "statement": paragraph(rng, 1), "verification": ["test -d src"],
            "links": {"depends_on": [format!("DEC-L{l}-0")]}}),
    });
    let mut depends = vec![foundation];
    if l > 0 {
        depends.push(format!("LAYER-{}", l - 1));
    }
    nodes.push(SgNode {
        id: layer.clone(),
        kind: "layer",
        dir: "layers",
        value: json!({"id": layer, "type": "layer", "title": title(rng, nodes.len()),
            "description": paragraph(rng, 2),
            "links": {"contains": contains, "depends_on": depends}}),
    });
}

/// Feature `f` with its members: a domain, behaviors, decisions, policies and contracts
/// (`budget` nodes besides the feature).
fn feature(rng: &mut Rng, f: usize, layers: usize, budget: usize, nodes: &mut Vec<SgNode>) {
    let categories = CATEGORIES;
    let feature = format!("F{f}");
    let mut contains = Vec::new();
    let domain = format!("DOM-{f}");
    let behaviors = budget * 13 / 20;
    let decisions = budget * 3 / 20;
    let policies = budget / 10;
    let extras = budget.saturating_sub(behaviors + decisions + policies + 1);
    nodes.push(SgNode {
        id: domain.clone(),
        kind: "domain",
        dir: "domains",
        value: json!({"id": domain, "type": "domain", "title": title(rng, nodes.len()),
            "statement": paragraph(rng, 2), "constraints": [sentence(rng)],
            "verification": [format!("make domain-{f}")]}),
    });
    contains.push(domain.clone());
    let decision_ids: Vec<String> = (0..decisions).map(|d| format!("DEC-F{f}-{d}")).collect();
    let behavior_ids: Vec<String> = (0..behaviors).map(|b| format!("F{f}-{b:02}")).collect();
    for (b, id) in behavior_ids.iter().enumerate() {
        let mut depends = Vec::new();
        if b > 0 {
            depends.push(behavior_ids[rng.below(b)].clone());
        }
        if !decision_ids.is_empty() && rng.below(3) == 0 {
            depends.push(decision_ids[rng.below(decision_ids.len())].clone());
        }
        nodes.push(SgNode {
            id: id.clone(),
            kind: "behavior",
            dir: "behaviors",
            value: json!({"id": id, "type": "behavior", "title": title(rng, nodes.len()),
                "expectation": paragraph(rng, 2), "constraints": [sentence(rng)],
                "verification": format!("npm test -- --grep {id}"),
                "links": {"depends_on": depends, "implements": [domain.clone()]}}),
        });
        contains.push(id.clone());
    }
    for (d, id) in decision_ids.iter().enumerate() {
        let mut links = json!({"constrains": (0..2).filter(|_| !behavior_ids.is_empty())
            .map(|_| behavior_ids[rng.below(behavior_ids.len())].clone()).collect::<Vec<_>>()});
        if d > 0 {
            links["depends_on"] = json!([decision_ids[rng.below(d)].clone()]);
        }
        nodes.push(SgNode {
            id: id.clone(),
            kind: "decision",
            dir: "decisions",
            value: json!({"id": id, "type": "decision", "category": categories[2 + d % 2],
                "title": title(rng, nodes.len()), "statement": paragraph(rng, 2),
                "constraints": [sentence(rng)], "verification": ["make check"],
                "links": links, "metadata": {"rationale": paragraph(rng, 2)}}),
        });
        contains.push(id.clone());
    }
    for p in 0..policies {
        let id = format!("POL-F{f}-{p}");
        let target = if p == 0 || behavior_ids.is_empty() {
            feature.clone()
        } else {
            behavior_ids[rng.below(behavior_ids.len())].clone()
        };
        nodes.push(SgNode {
            id: id.clone(),
            kind: "policy",
            dir: "policies",
            value: json!({"id": id, "type": "policy",
                "severity": if p % 2 == 0 { "hard" } else { "soft" },
                "title": title(rng, nodes.len()), "statement": paragraph(rng, 1),
                "verification": [{"kind": "observation", "description": sentence(rng)}],
                "links": {"constrains": [target]}}),
        });
        contains.push(id);
    }
    for e in 0..extras {
        let id = format!("API-F{f}-{e}");
        nodes.push(SgNode {
            id: id.clone(),
            kind: "api_contract",
            dir: "api_contracts",
            value: json!({"id": id, "type": "api_contract", "title": title(rng, nodes.len()),
                "statement": paragraph(rng, 2), "verification": ["make contract"],
                "links": {"implements": [domain.clone()]}}),
        });
        contains.push(id);
    }
    let mut depends = vec![format!("LAYER-{}", rng.below(layers))];
    if f > 0 && rng.below(2) == 0 {
        depends.push(format!("F{}", rng.below(f)));
    }
    nodes.push(SgNode {
        id: feature.clone(),
        kind: "feature",
        dir: "features",
        value: json!({"id": feature, "type": "feature", "title": title(rng, nodes.len()),
            "description": paragraph(rng, 1),
            "links": {"contains": contains, "depends_on": depends}}),
    });
}

/// Writes the node files and `graph.json` (entries sorted by id).
fn write_spec_graph(out: &Path, nodes: &[SgNode]) -> Result<(), String> {
    let root = out.join("specgraph");
    let mut entries = Vec::with_capacity(nodes.len());
    for node in nodes {
        let path = format!("nodes/{}/{}.json", node.dir, node.id);
        let text = serde_json::to_string_pretty(&node.value).map_err(|e| e.to_string())?;
        write(&root.join(&path), &text)?;
        entries.push(json!({"id": node.id, "path": path, "expectedType": node.kind}));
    }
    entries.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    let graph = json!({"specgraphVersion": "1.0.0", "nodes": entries});
    write(
        &root.join("graph.json"),
        &serde_json::to_string_pretty(&graph).map_err(|e| e.to_string())?,
    )
}

fn artifacts(out: &Path, total: usize, rng: &mut Rng) -> Result<(usize, Structure), String> {
    let base = out.join(".contextia");
    write(
        &base.join("system/identity.md"),
        &format!(
            "---\ntype: identity\nproject: generated\nversion: \"1.0\"\n---\n# Generated project\n\n{}\n",
            paragraph(rng, 6)
        ),
    )?;
    let rest = total - 1;
    let norms = (rest * 15 / 100).max(1);
    let decisions = (rest * 25 / 100).max(1);
    let specs = (rest * 40 / 100).max(1);
    let tasks = rest.saturating_sub(norms + decisions + specs).max(1);
    let date = |rng: &mut Rng| format!("2026-{:02}-{:02}", 1 + rng.below(12), 1 + rng.below(28));
    let mut links = labels::ArtifactLinks {
        norms,
        ..labels::ArtifactLinks::default()
    };
    for n in 0..norms {
        let id = format!("NORM-{n}");
        write(
            &base.join(format!("system/norms/{id}.md")),
            &format!(
                "---\nid: {id}\ntitle: {}\nstatus: active\nscope: [\"src/{}/**\"]\ncreated: {}\n---\n# {id}\n\n## Rule\n\n{}\n\n## Why\n\n{}\n",
                title(rng, n),
                rng.pick(TOPICS).to_lowercase(),
                date(rng),
                paragraph(rng, 3),
                paragraph(rng, 2)
            ),
        )?;
    }
    for d in 0..decisions {
        let id = format!("DEC-{d}");
        let mut link = String::new();
        let mut linked = None;
        if d > 0 && rng.below(2) == 0 {
            let other = rng.below(d);
            linked = Some(other);
            let _ = writeln!(link, "decisions: [DEC-{other}]");
        }
        links.decision_links.push(linked);
        write(
            &base.join(format!("system/rationale/{id}.md")),
            &format!(
                "---\nid: {id}\ntitle: {}\nstatus: accepted\n{link}created: {}\n---\n# {id}\n\n## Context\n\n{}\n\n## Decision\n\n{}\n\n## Consequences\n\n{}\n",
                title(rng, d),
                date(rng),
                paragraph(rng, 2),
                paragraph(rng, 2),
                paragraph(rng, 2)
            ),
        )?;
    }
    for s in 0..specs {
        let id = format!("SPEC-{s}");
        let mut spec_links = String::new();
        let mut linked = None;
        if s > 0 && rng.below(3) == 0 {
            let other = rng.below(s);
            linked = Some(other);
            let _ = writeln!(spec_links, "links: [SPEC-{other}]");
        }
        // The same draws in the same order as the text below always had.
        let spec_title = title(rng, s);
        let description = sentence(rng);
        let topic = rng.pick(TOPICS).to_lowercase();
        let spec_decisions = [rng.below(decisions), rng.below(decisions)];
        let norm = rng.below(norms);
        links.spec_links.push(linked);
        links.spec_decisions.push(spec_decisions);
        links.spec_norms.push(norm);
        write(
            &base.join(format!("system/specs/{id}.md")),
            &format!(
                "---\nid: {id}\ntitle: {spec_title}\nstatus: approved\ndescription: {description}\npaths: [\"src/{topic}/{s}/**\"]\ndecisions: [DEC-{}, DEC-{}]\nnorms: [NORM-{norm}]\n{spec_links}created: {}\n---\n# {id}\n\n## Overview\n\n{}\n\n## Behaviors\n\n- WHEN {}\n  THEN {}\n- WHEN {}\n  THEN {}\n\n## Notes\n\n{}\n",
                spec_decisions[0],
                spec_decisions[1],
                date(rng),
                paragraph(rng, 3),
                sentence(rng),
                sentence(rng),
                sentence(rng),
                sentence(rng),
                paragraph(rng, 2)
            ),
        )?;
    }
    for t in 0..tasks {
        let id = format!("TASK-{t}");
        let task_title = title(rng, t);
        let task_specs = [rng.below(specs), rng.below(specs)];
        links.task_specs.push(task_specs);
        write(
            &base.join(format!("work/tasks/{id}.md")),
            &format!(
                "---\nid: {id}\ntitle: {task_title}\nkind: feature\nstatus: active\nspecs: [SPEC-{}, SPEC-{}]\ncreated: {}\n---\n# {id}\n\n## Objective\n\n{}\n\n## Plan\n\n1. {}\n2. {}\n3. {}\n",
                task_specs[0],
                task_specs[1],
                date(rng),
                paragraph(rng, 2),
                sentence(rng),
                sentence(rng),
                sentence(rng)
            ),
        )?;
    }
    Ok((
        1 + norms + decisions + specs + tasks,
        Structure::Artifacts(links),
    ))
}
