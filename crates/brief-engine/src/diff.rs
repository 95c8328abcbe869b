//! `brief diff TARGET --from REV [--to REV]` and `brief impact --since REV`: how contexts
//! change between two revisions of a project (`docs/impact.md`). Both sides are loaded into
//! in-memory graphs by the ordinary loaders; old revisions come from [`crate::revision`].

use std::collections::BTreeSet;

use crate::context::{assemble, plan, select, ContextRequest};
use crate::impact::{explorers, Plans};
use crate::render::Format;
use brief_model::{Graph, Node, StoreError};
use brief_project::Defaults;

/// One side of a comparison: a revision's graph and defaults, and how to name it.
pub struct Side<'a> {
    pub name: &'a str,
    pub graph: &'a Graph,
    pub defaults: &'a Defaults,
}

/// A node that entered, left or changed within a context.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NodeChange {
    pub id: String,
    pub kind: String,
    /// For a changed node: the lines of its fields that differ (`- old`, `+ new`), at most
    /// [`DIFF_LINES`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diff: Vec<String>,
}

/// Most lines of a changed node's textual diff.
pub const DIFF_LINES: usize = 8;

/// The answer of `brief diff`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ContextDiff {
    pub target: String,
    pub from: String,
    pub to: String,
    /// The document's tokens at each side (`None`: the target does not exist there).
    pub tokens_from: Option<usize>,
    pub tokens_to: Option<usize>,
    pub entered: Vec<NodeChange>,
    pub left: Vec<NodeChange>,
    pub changed: Vec<NodeChange>,
}

/// Whether two versions of a node say the same (where they were read from aside: a renamed
/// file changes nothing in a context).
fn same(a: &Node, b: &Node) -> bool {
    let mut b = b.clone();
    b.location = a.location.clone();
    *a == b
}

/// The lines that differ between two versions of a node (its fields as JSON, without the
/// location).
fn node_diff(a: &Node, b: &Node) -> Vec<String> {
    let lines = |n: &Node| -> Vec<String> {
        let mut n = n.clone();
        n.location = Default::default();
        serde_json::to_string_pretty(&n)
            .unwrap_or_default()
            .lines()
            .map(|l| l.trim().trim_end_matches(',').to_string())
            .collect()
    };
    let (old, new) = (lines(a), lines(b));
    let removed = old
        .iter()
        .filter(|l| !new.contains(l))
        .map(|l| format!("- {l}"));
    let added = new
        .iter()
        .filter(|l| !old.contains(l))
        .map(|l| format!("+ {l}"));
    removed.chain(added).take(DIFF_LINES).collect()
}

/// The ids a context for `target` holds at one side (empty when the target does not exist).
fn held(
    side: &Side,
    request: &ContextRequest,
    target: &str,
) -> Result<BTreeSet<String>, StoreError> {
    let Some(ix) = side.graph.lookup(target) else {
        return Ok(BTreeSet::new());
    };
    let Ok(plan) = plan(side.graph, side.defaults, request, ix) else {
        return Ok(BTreeSet::new());
    };
    Ok(select(side.graph, &plan, &[ix])?
        .reached
        .iter()
        .map(|r| side.graph.id_of(r.node))
        .collect())
}

fn node_of<'a>(graph: &'a Graph, id: &str) -> Option<&'a Node> {
    graph.lookup(id).map(|ix| graph.node(ix))
}

/// How the context of `request.target` changes from `from` to `to`.
pub fn diff(
    from: &Side,
    to: &Side,
    request: &ContextRequest,
) -> Result<ContextDiff, crate::context::ContextError> {
    let target = request.target.clone();
    if from.graph.lookup(&target).is_none() && to.graph.lookup(&target).is_none() {
        // Unknown at both sides: the error (with suggestions) of the newer one.
        crate::resolve::resolve(to.graph, &target)??;
    }
    let before = held(from, request, &target)?;
    let after = held(to, request, &target)?;
    let tokens = |side: &Side| {
        side.graph.lookup(&target)?;
        let request = ContextRequest {
            format: Format::Markdown,
            ..request.clone()
        };
        assemble(side.graph, side.defaults, &request)
            .ok()
            .map(|o| o.used)
    };
    let change = |graph: &Graph, id: &str, diff: Vec<String>| NodeChange {
        id: id.to_string(),
        kind: node_of(graph, id).map_or(String::new(), |n| n.kind.name().to_string()),
        diff,
    };
    let mut changed = Vec::new();
    for id in before.intersection(&after) {
        if let (Some(a), Some(b)) = (node_of(from.graph, id), node_of(to.graph, id)) {
            if !same(a, b) {
                changed.push(change(to.graph, id, node_diff(a, b)));
            }
        }
    }
    Ok(ContextDiff {
        target: target.clone(),
        from: from.name.to_string(),
        to: to.name.to_string(),
        tokens_from: tokens(from),
        tokens_to: tokens(to),
        entered: after
            .difference(&before)
            .map(|id| change(to.graph, id, Vec::new()))
            .collect(),
        left: before
            .difference(&after)
            .map(|id| change(from.graph, id, Vec::new()))
            .collect(),
        changed,
    })
}

/// One target whose context changes (`impact --since`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Changed {
    pub id: String,
    pub kind: String,
    pub entered: Vec<String>,
    pub left: Vec<String>,
    pub changed: Vec<String>,
}

/// The answer of `brief impact --since`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Since {
    pub from: String,
    pub to: String,
    /// Nodes added, removed or edited between the two sides, sorted.
    pub nodes: Vec<String>,
    /// Targets (that exist at `to`) whose context changes, sorted by id.
    pub targets: Vec<Changed>,
}

/// Every target whose context changes from `from` to `to`. Only targets whose traversal could
/// read a changed node are compared ([`explorers`] at both sides), each by its selections.
pub fn since(
    from: &Side,
    to: &Side,
    request: &ContextRequest,
) -> Result<Since, crate::context::ContextError> {
    let old_plans = Plans::new(from.defaults, request)?;
    let new_plans = Plans::new(to.defaults, request)?;
    let mut nodes: BTreeSet<String> = BTreeSet::new();
    for node in from.graph.nodes() {
        match node_of(to.graph, &node.id) {
            Some(other) if same(node, other) => {}
            _ => {
                nodes.insert(node.id.clone());
            }
        }
    }
    for node in to.graph.nodes() {
        if from.graph.lookup(&node.id).is_none() {
            nodes.insert(node.id.clone());
        }
    }
    let mut candidates: BTreeSet<String> = BTreeSet::new();
    for id in &nodes {
        if let Some(ix) = from.graph.lookup(id) {
            for c in explorers(from.graph, &old_plans, ix)? {
                candidates.insert(from.graph.id_of(c));
            }
        }
        if let Some(ix) = to.graph.lookup(id) {
            for c in explorers(to.graph, &new_plans, ix)? {
                candidates.insert(to.graph.id_of(c));
            }
        }
    }
    let mut targets = Vec::new();
    for id in candidates {
        let Some(node) = node_of(to.graph, &id) else {
            continue;
        };
        let before = held(from, request, &id)?;
        let after = held(to, request, &id)?;
        let entry = Changed {
            id: id.clone(),
            kind: node.kind.name().to_string(),
            entered: after.difference(&before).cloned().collect(),
            left: before.difference(&after).cloned().collect(),
            changed: before
                .intersection(&after)
                .filter(|n| nodes.contains(*n))
                .cloned()
                .collect(),
        };
        if !(entry.entered.is_empty() && entry.left.is_empty() && entry.changed.is_empty()) {
            targets.push(entry);
        }
    }
    Ok(Since {
        from: from.name.to_string(),
        to: to.name.to_string(),
        nodes: nodes.into_iter().collect(),
        targets,
    })
}

fn signed(from: Option<usize>, to: Option<usize>) -> String {
    let show = |t: Option<usize>| t.map_or("-".to_string(), |t| t.to_string());
    match (from, to) {
        (Some(a), Some(b)) => format!("{a} → {b} ({:+})", b as i64 - a as i64),
        _ => format!("{} → {}", show(from), show(to)),
    }
}

/// `brief diff` as text (Markdown prints the same) or JSON.
pub fn render_diff(d: &ContextDiff, format: Format) -> String {
    if format == Format::Json {
        return format!("{}\n", serde_json::to_string_pretty(d).unwrap_or_default());
    }
    let mut out = format!(
        "Context of {}: {} → {}, tokens {}\n",
        d.target,
        d.from,
        d.to,
        signed(d.tokens_from, d.tokens_to)
    );
    for (title, sign, list) in [
        ("entered", "+", &d.entered),
        ("left", "-", &d.left),
        ("changed", "~", &d.changed),
    ] {
        if list.is_empty() {
            continue;
        }
        out.push_str(&format!("{title} ({}):\n", list.len()));
        for n in list {
            out.push_str(&format!("  {sign} {} ({})\n", n.id, n.kind));
            for line in &n.diff {
                out.push_str(&format!("      {line}\n"));
            }
        }
    }
    if d.entered.is_empty() && d.left.is_empty() && d.changed.is_empty() {
        out.push_str("no node entered, left or changed\n");
    }
    out
}

/// `brief impact --since` as text, Markdown (a pull-request comment) or JSON.
pub fn render_since(s: &Since, format: Format) -> String {
    let list = |ids: &[String], sign: &str| {
        ids.iter()
            .map(|id| format!("{sign}{id}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    match format {
        Format::Json => format!("{}\n", serde_json::to_string_pretty(s).unwrap_or_default()),
        Format::Text => {
            let mut out = format!(
                "{} node(s) changed since {}; {} target context(s) change\n",
                s.nodes.len(),
                s.from,
                s.targets.len()
            );
            for t in &s.targets {
                let parts: Vec<String> = [
                    list(&t.entered, "+"),
                    list(&t.left, "-"),
                    list(&t.changed, "~"),
                ]
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect();
                out.push_str(&format!("  {} ({}): {}\n", t.id, t.kind, parts.join(" ")));
            }
            out
        }
        Format::Markdown => {
            let mut out = format!(
                "### Context changes since `{}`\n\n{} node(s) changed; {} target context(s) change.\n",
                s.from,
                s.nodes.len(),
                s.targets.len()
            );
            if !s.targets.is_empty() {
                out.push_str(
                    "\n| target | kind | entered | left | changed |\n|---|---|---|---|---|\n",
                );
                let cell = |ids: &[String]| {
                    ids.iter()
                        .map(|id| format!("`{id}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                for t in &s.targets {
                    out.push_str(&format!(
                        "| `{}` | {} | {} | {} | {} |\n",
                        t.id,
                        t.kind,
                        cell(&t.entered),
                        cell(&t.left),
                        cell(&t.changed)
                    ));
                }
            }
            out
        }
    }
}
