//! `brief diff TARGET --from REV [--to REV]` and `brief impact --since REV`: how contexts
//! change between two revisions of a project (`docs/impact.md`). Both sides are loaded into
//! in-memory graphs by the ordinary loaders; old revisions come from [`crate::revision`].

use std::collections::BTreeSet;

use crate::context::{assemble, plan, select, ContextRequest};
use crate::impact::{explorers, Plans};
use crate::render::{Format, Style};
use brief_model::{Graph, Node, StoreError};
use brief_project::Defaults;

/// One side of a comparison: a revision's graph and defaults, and how to name it.
pub(crate) struct Side<'a> {
    /// The revision as the user named it, for the answer.
    pub name: &'a str,
    /// The project's graph at that revision.
    pub graph: &'a Graph,
    /// Its `brief.toml` defaults at that revision.
    pub defaults: &'a Defaults,
}

/// A node that entered, left or changed within a context.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct NodeChange {
    /// The node's id.
    pub id: String,
    /// Its kind's name.
    pub kind: String,
    /// For a changed node: each field that differs, in the node's field order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
}

/// One field of a node that differs between two revisions.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct FieldChange {
    /// The field's name (`title`, `status`, `links`, `body`, `rationale`, …).
    pub field: String,
    /// The old value, one line (`None`: the field was absent; also for a text diff).
    pub from: Option<String>,
    /// The new value, one line (`None`: the field is absent now; also for a text diff).
    pub to: Option<String>,
    /// For a value of several lines (a body): the lines that differ, `- old` / `+ new`,
    /// with a line of context around each change (`  same`), at most [`DIFF_LINES`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
}

/// Most lines of one field's text diff.
pub(crate) const DIFF_LINES: usize = 40;

/// Most lines of a text on each side compared line by line (above it, a text shows its
/// removed lines, then its added ones).
const MAX_ALIGNED: usize = 2_000;

/// The answer of `brief diff`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct ContextDiff {
    /// The target as the user gave it.
    pub target: String,
    /// The words the target was searched for with, when it was given as words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// The old side's name.
    pub from: String,
    /// The new side's name.
    pub to: String,
    /// The document's tokens at each side (`None`: the target does not exist there).
    pub tokens_from: Option<usize>,
    /// The same on the new side.
    pub tokens_to: Option<usize>,
    /// Nodes in the new context only.
    pub entered: Vec<NodeChange>,
    /// Nodes in the old context only.
    pub left: Vec<NodeChange>,
    /// Nodes in both whose content differs.
    pub changed: Vec<NodeChange>,
}

/// Whether two versions of a node say the same (where they were read from aside: a renamed
/// file changes nothing in a context).
fn same(a: &Node, b: &Node) -> bool {
    let mut b = b.clone();
    b.location = a.location.clone();
    *a == b
}

/// A node's fields by name, in order: its own, then its content's (a Spec Graph node's,
/// an artifact's or a Tana node's), each as JSON. Where it was read from is no field.
fn fields(node: &Node) -> Vec<(String, serde_json::Value)> {
    let mut node = node.clone();
    node.location = Default::default();
    let Ok(serde_json::Value::Object(top)) = serde_json::to_value(&node) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, value) in top {
        match (key.as_str(), value) {
            ("location", _) => {}
            ("content", serde_json::Value::Object(variants)) => {
                for (_, inner) in variants {
                    if let serde_json::Value::Object(inner) = inner {
                        // Where the body starts in its file moves with the frontmatter.
                        out.extend(inner.into_iter().filter(|(k, _)| k != "body_line"));
                    }
                }
            }
            (_, value) => out.push((key, value)),
        }
    }
    out
}

/// A value on one line: text as it is, links as `relation target`, lists joined, anything
/// else as compact JSON.
fn one_line(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::String(text) => text.clone(),
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::Object(link) if link.contains_key("relation") => format!(
                    "{} {}",
                    link.get("relation").map(one_line).unwrap_or_default(),
                    link.get("target").map(one_line).unwrap_or_default()
                ),
                other => one_line(other),
            })
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// The fields that differ between two versions of a node.
fn node_diff(a: &Node, b: &Node) -> Vec<FieldChange> {
    let (old, new) = (fields(a), fields(b));
    let value_of = |list: &[(String, serde_json::Value)], key: &str| {
        list.iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .filter(|v| !v.is_null())
    };
    let mut names: Vec<String> = old.iter().map(|(k, _)| k.clone()).collect();
    for (k, _) in &new {
        if !names.contains(k) {
            names.push(k.clone());
        }
    }
    let mut changes = Vec::new();
    for name in names {
        let (before, after) = (value_of(&old, &name), value_of(&new, &name));
        if before == after {
            continue;
        }
        let before = before.as_ref().map(one_line);
        let after = after.as_ref().map(one_line);
        let multiline = [&before, &after]
            .iter()
            .any(|v| v.as_deref().is_some_and(|t| t.contains('\n')));
        changes.push(if multiline {
            FieldChange {
                field: name,
                from: None,
                to: None,
                lines: text_diff(
                    before.as_deref().unwrap_or(""),
                    after.as_deref().unwrap_or(""),
                ),
            }
        } else {
            FieldChange {
                field: name,
                from: before,
                to: after,
                lines: Vec::new(),
            }
        });
    }
    changes
}

/// One line of a text diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line<'a> {
    Same(&'a str),
    Removed(&'a str),
    Added(&'a str),
}

/// The lines that differ between two texts, `- old` / `+ new`, with one line of context
/// around each change, at most [`DIFF_LINES`] (then how many more).
fn text_diff(old: &str, new: &str) -> Vec<String> {
    let (old, new): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let script = align(&old, &new);
    let changed: Vec<bool> = script.iter().map(|l| !matches!(l, Line::Same(_))).collect();
    let near = |i: usize| {
        changed[i] || (i > 0 && changed[i - 1]) || changed.get(i + 1).copied().unwrap_or(false)
    };
    let shown: Vec<String> = script
        .iter()
        .enumerate()
        .filter(|(i, _)| near(*i))
        .map(|(_, line)| match line {
            Line::Same(t) => format!("  {t}"),
            Line::Removed(t) => format!("- {t}"),
            Line::Added(t) => format!("+ {t}"),
        })
        .collect();
    if shown.len() <= DIFF_LINES {
        return shown;
    }
    let more = shown.len() - DIFF_LINES;
    let mut kept: Vec<String> = shown.into_iter().take(DIFF_LINES).collect();
    kept.push(format!(
        "… {more} more line{}",
        if more == 1 { "" } else { "s" }
    ));
    kept
}

/// An edit script from `old` to `new`: the common start and end kept, the middle aligned
/// by a longest common subsequence while it is small enough (quadratic), else every old
/// line removed and every new one added.
fn align<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<Line<'a>> {
    let start = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let end = old[start..]
        .iter()
        .rev()
        .zip(new[start..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (a, b) = (&old[start..old.len() - end], &new[start..new.len() - end]);
    let mut script: Vec<Line> = old[..start].iter().map(|l| Line::Same(l)).collect();
    if a.len() <= MAX_ALIGNED && b.len() <= MAX_ALIGNED {
        script.extend(lcs_script(a, b));
    } else {
        script.extend(a.iter().map(|l| Line::Removed(l)));
        script.extend(b.iter().map(|l| Line::Added(l)));
    }
    script.extend(old[old.len() - end..].iter().map(|l| Line::Same(l)));
    script
}

/// The edit script of a longest common subsequence of `a` and `b`.
fn lcs_script<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<Line<'a>> {
    let (n, m) = (a.len(), b.len());
    // `longest[i][j]`: the LCS length of a[i..] and b[j..].
    let mut longest = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            longest[i][j] = if a[i] == b[j] {
                longest[i + 1][j + 1] + 1
            } else {
                longest[i + 1][j].max(longest[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut script = Vec::with_capacity(n + m);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            script.push(Line::Same(a[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || longest[i + 1][j] >= longest[i][j + 1]) {
            // On a tie the old line goes first: `- old` reads before `+ new`.
            script.push(Line::Removed(a[i]));
            i += 1;
        } else {
            script.push(Line::Added(b[j]));
            j += 1;
        }
    }
    script
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
pub(crate) fn diff(
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
    let change = |graph: &Graph, id: &str, fields: Vec<FieldChange>| NodeChange {
        id: id.to_string(),
        kind: node_of(graph, id).map_or(String::new(), |n| n.kind.name().to_string()),
        fields,
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
        query: None,
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
pub(crate) struct Changed {
    /// The target's id.
    pub id: String,
    /// Its kind's name.
    pub kind: String,
    /// Changed nodes that its new context holds and its old one did not.
    pub entered: Vec<String>,
    /// Changed nodes that its old context held and its new one does not.
    pub left: Vec<String>,
    /// Changed nodes in both contexts whose content differs.
    pub changed: Vec<String>,
}

/// The answer of `brief impact --since`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Since {
    /// The old side's name.
    pub from: String,
    /// The new side's name.
    pub to: String,
    /// Nodes added, removed or edited between the two sides, sorted.
    pub nodes: Vec<String>,
    /// Targets (that exist at `to`) whose context changes, sorted by id.
    pub targets: Vec<Changed>,
}

/// Every target whose context changes from `from` to `to`. Only targets whose traversal could
/// read a changed node are compared ([`explorers`] at both sides), each by its selections.
pub(crate) fn since(
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
pub(crate) fn render_diff(d: &ContextDiff, format: Format) -> String {
    if format == Format::Json {
        return format!("{}\n", serde_json::to_string_pretty(d).unwrap_or_default());
    }
    let searched = d
        .query
        .as_ref()
        .map_or(String::new(), |q| format!(" (the best match for `{q}`)"));
    let mut out = format!(
        "Context of {}{searched}: {} → {}, tokens {}\n",
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
            for field in &n.fields {
                render_field(&mut out, field);
            }
        }
    }
    if d.entered.is_empty() && d.left.is_empty() && d.changed.is_empty() {
        out.push_str("no node entered, left or changed\n");
    }
    out
}

/// One changed field: `name: old → new`, or the name and its text diff beneath.
fn render_field(out: &mut String, field: &FieldChange) {
    if !field.lines.is_empty() {
        out.push_str(&format!("      {}:\n", field.field));
        for line in &field.lines {
            out.push_str(&format!("        {line}\n"));
        }
        return;
    }
    let show = |v: &Option<String>| match v {
        Some(text) if text.is_empty() => "\"\"".to_string(),
        Some(text) => text.clone(),
        None => "(none)".to_string(),
    };
    out.push_str(&format!(
        "      {}: {} → {}\n",
        field.field,
        show(&field.from),
        show(&field.to)
    ));
}

/// `brief impact --since` as text, Markdown (a pull-request comment) or JSON.
pub(crate) fn render_since(s: &Since, format: Format) -> String {
    let list = |ids: &[String], sign: &str| {
        ids.iter()
            .map(|id| format!("{sign}{id}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    match format.document() {
        None => format!("{}\n", serde_json::to_string_pretty(s).unwrap_or_default()),
        Some(Style::Text) => {
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
        // Markdown, and any other document style: a pull-request comment.
        Some(_) => {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_diff_shows_changed_lines_with_their_neighbours() {
        let old = "a\nb\nc\nd\ne\nf\n";
        let new = "a\nb\nC\nd\ne\nf\ng\n";
        assert_eq!(
            text_diff(old, new),
            ["  b", "- c", "+ C", "  d", "  f", "+ g"]
        );
        assert!(text_diff("same\n", "same\n").is_empty());
        assert_eq!(text_diff("", "new\n"), ["+ new"]);
    }

    #[test]
    fn a_long_text_diff_is_cut_and_says_how_much_more() {
        let old: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let new: String = (0..100).map(|i| format!("LINE {i}\n")).collect();
        let lines = text_diff(&old, &new);
        assert_eq!(lines.len(), DIFF_LINES + 1);
        assert_eq!(lines.last().unwrap(), "… 160 more lines");
    }

    #[test]
    fn texts_too_long_to_align_are_removed_then_added() {
        let old: Vec<String> = (0..MAX_ALIGNED + 1).map(|i| format!("o{i}")).collect();
        let new: Vec<String> = (0..3).map(|i| format!("n{i}")).collect();
        let old: Vec<&str> = old.iter().map(String::as_str).collect();
        let new: Vec<&str> = new.iter().map(String::as_str).collect();
        let script = align(&old, &new);
        assert_eq!(script.len(), old.len() + new.len());
        assert!(matches!(script[0], Line::Removed("o0")));
        assert!(matches!(script.last(), Some(Line::Added("n2"))));
    }
}
