//! The sections of a long rule that a task in words is about (`docs/traversal.md`, "Targets
//! in words"). A rule that applies (a root `AGENTS.md`) is a hard constraint of every
//! context, but a long one is mostly about other work: its sections the task's words match
//! join as hard constraints of their own, so the fit can show them in full while the rest of
//! the rule waits for room (`docs/ranking.md`, "The fill order").

use std::collections::BTreeMap;

use crate::find::{page_of, RULE_MARGIN};
use crate::traverse::{Reason, Selection};
use brief_model::{GraphView, Kind, NodeIx, StoreError};

/// Most sections of one rule taken: the rule's opening is shown too, and a task is rarely
/// about more than a part or two of one file.
pub(crate) const PER_RULE: usize = 2;

/// Most sections taken in all: each is a hard constraint, ahead of every softer node.
pub(crate) const MAX: usize = 4;

/// The hits (node, share of the best; best first) that are sections of a rule in the
/// selection, at most [`PER_RULE`] per rule and [`MAX`] in all, in the order of the hits.
/// A start node's sections are not taken: the start is what the task is about, and its text
/// comes with the starts'. Only a long page has sections (`brief_sources`' section size), so
/// a short rule is never split.
pub(crate) fn rule_sections(
    graph: &dyn GraphView,
    selection: &Selection,
    seeds: &[NodeIx],
    hits: &[(NodeIx, f64)],
) -> Result<Vec<(NodeIx, f64)>, StoreError> {
    let mut per_rule: BTreeMap<NodeIx, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for &(node, share) in hits {
        // As for a whole rule found by words: a section sharing a word or two with the task
        // is not what it is about.
        if out.len() >= MAX || share < RULE_MARGIN {
            break;
        }
        let Some(page) = page_of(graph, node)? else {
            continue;
        };
        if seeds.contains(&page) || !is_rule_in(graph, selection, page)? {
            continue;
        }
        let taken = per_rule.entry(page).or_default();
        if *taken < PER_RULE {
            *taken += 1;
            out.push((node, share));
        }
    }
    Ok(out)
}

/// Whether `page` is selected as a rule: it applies without a link, or it is a norm.
fn is_rule_in(
    graph: &dyn GraphView,
    selection: &Selection,
    page: NodeIx,
) -> Result<bool, StoreError> {
    let Some(reached) = selection.reached.iter().find(|r| r.node == page) else {
        return Ok(false);
    };
    let applies = reached
        .reasons
        .iter()
        .any(|r| matches!(r, Reason::Applies { .. }));
    Ok(applies || graph.kind_of(page)? == Kind::Norm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traverse::{add_applying, traverse_many, TraverseOptions};
    use brief_model::testing::node;
    use brief_model::{Applies, ArtifactFields, Content, Depth, Graph, Node};

    /// A root agent file (applies everywhere) with three sections, a norm-free page with a
    /// section, and the start.
    fn project() -> Graph {
        let rule = Node {
            content: Content::Artifact(ArtifactFields {
                applies: Applies::Always,
                ..ArtifactFields::default()
            }),
            ..node(
                "AGENTS.md",
                Kind::Norm,
                &[
                    ("contains", "AGENTS.md#tests"),
                    ("contains", "AGENTS.md#releases"),
                    ("contains", "AGENTS.md#style"),
                ],
            )
        };
        Graph::build(vec![
            node("START", Kind::Other("note".into()), &[("links", "STYLE")]),
            rule,
            // A norm the start links to: a rule of the selection too.
            node(
                "STYLE",
                Kind::Norm,
                &[
                    ("contains", "STYLE#a"),
                    ("contains", "STYLE#b"),
                    ("contains", "STYLE#c"),
                ],
            ),
            node("STYLE#a", Kind::Section, &[]),
            node("STYLE#b", Kind::Section, &[]),
            node("STYLE#c", Kind::Section, &[]),
            // A norm nothing selects.
            node("OTHER", Kind::Norm, &[("contains", "OTHER#a")]),
            node("OTHER#a", Kind::Section, &[]),
            node("AGENTS.md#tests", Kind::Section, &[]),
            node("AGENTS.md#releases", Kind::Section, &[]),
            node("AGENTS.md#style", Kind::Section, &[]),
            node(
                "GUIDE",
                Kind::Other("note".into()),
                &[("contains", "GUIDE#a")],
            ),
            node("GUIDE#a", Kind::Section, &[]),
        ])
        .0
    }

    fn sections(graph: &Graph, seeds: &[&str], hits: &[(&str, f64)]) -> Vec<String> {
        let ix = |id: &str| graph.lookup(id).unwrap();
        let seeds: Vec<NodeIx> = seeds.iter().map(|s| ix(s)).collect();
        let mut selection =
            traverse_many(graph, &seeds, TraverseOptions::at(Depth::Hops(2))).unwrap();
        add_applying(graph, &mut selection, &seeds).unwrap();
        let hits: Vec<(NodeIx, f64)> = hits.iter().map(|(id, s)| (ix(id), *s)).collect();
        rule_sections(graph, &selection, &seeds, &hits)
            .unwrap()
            .into_iter()
            .map(|(node, _)| graph.node(node).id.clone())
            .collect()
    }

    #[test]
    fn the_sections_of_a_rule_that_applies_are_taken_best_first_two_at_most() {
        let graph = project();
        let hits = [
            ("GUIDE#a", 0.9),
            ("AGENTS.md#releases", 0.7),
            ("AGENTS.md#style", 0.5),
            ("AGENTS.md#tests", 0.4),
        ];
        // A section of a page that is no rule is related material, not a rule's part.
        assert_eq!(
            sections(&graph, &["START"], &hits),
            ["AGENTS.md#releases", "AGENTS.md#style"]
        );
        // A rule that is a start shows its text with the starts'.
        assert!(sections(&graph, &["START", "AGENTS.md"], &hits).is_empty());
    }

    #[test]
    fn sections_of_rules_not_selected_or_matching_too_little_are_not_taken() {
        let graph = project();
        let hits = [
            ("OTHER#a", 0.95),
            ("STYLE#a", 0.9),
            ("AGENTS.md#releases", 0.8),
            ("STYLE#b", 0.7),
            ("STYLE#c", 0.6),
            ("AGENTS.md#style", 0.5),
            ("AGENTS.md#tests", 0.3),
        ];
        // Two per rule, four in all; a norm nothing selects gives none.
        assert_eq!(
            sections(&graph, &["START"], &hits),
            [
                "STYLE#a",
                "AGENTS.md#releases",
                "STYLE#b",
                "AGENTS.md#style"
            ]
        );
        // Below a quarter of the best hit a section shares too little with the task.
        let weak = [("AGENTS.md#releases", 0.24), ("STYLE#a", 0.2)];
        assert!(sections(&graph, &["START"], &weak).is_empty());
    }
}
