//! Ranking: the order in which nodes keep their detail when the budget is tight (DESIGN §4).
//!
//! A priority class first, then a score in [0, 1] from graph distance, query relevance,
//! recency (relative to the newest node in the graph, never the clock) and priority or
//! severity; ties by id. Everything is a pure function of the graph and the selection.

use std::collections::HashMap;

use crate::dates::days;
use crate::model::{Kind, Node, NodeIx, NodeStore, Origin};
use crate::traverse::{Direction, Reached, Reason, Selection};

/// The weights of the score components; they sum to 1.
const W_DISTANCE: f64 = 0.5;
const W_RELEVANCE: f64 = 0.2;
const W_RECENCY: f64 = 0.15;
const W_PRIORITY: f64 = 0.15;

/// The priority class of a node in a context: lower keeps its detail longer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// The target (and the project identity).
    Target,
    /// Hard constraints: policies with `severity: hard` and norms (Spec Graph contexts).
    Hard,
    /// Direct links: one hop forward from the target, or a direct constrainer.
    Direct,
    /// Inverse and propagated guidance: namespace, inherited and layer constrainers.
    Guidance,
    /// Two hops or more.
    Distant,
}

impl Class {
    /// The name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Class::Target => "target",
            Class::Hard => "hard",
            Class::Direct => "direct",
            Class::Guidance => "guidance",
            Class::Distant => "distant",
        }
    }
}

/// The score of a node and its components, each in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Score {
    pub total: f64,
    pub distance: f64,
    pub relevance: f64,
    pub recency: f64,
    pub priority: f64,
}

/// A selected node with its rank.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub node: NodeIx,
    pub distance: u32,
    pub reasons: Vec<Reason>,
    pub class: Class,
    /// Within the class, artifact contexts order specs, then norms, then decisions.
    pub kind_order: u8,
    pub score: Score,
}

/// What ranking knows besides the graph: query relevance per node (0–1, from BM25 when the
/// context started from a search) and a lens's boost terms.
#[derive(Debug, Clone, Default)]
pub struct RankInputs {
    pub relevance: HashMap<NodeIx, f64>,
    /// Kinds, categories or tags (lower case) whose nodes get [`crate::lens::BOOST`].
    pub boost: Vec<String>,
}

/// Ranks a selection, best first.
pub fn rank(graph: &dyn NodeStore, selection: Selection, inputs: &RankInputs) -> Vec<Ranked> {
    let target_origin = graph.node(selection.target).origin;
    let newest = graph.newest_date().and_then(days);
    let mut ranked: Vec<Ranked> = selection
        .reached
        .into_iter()
        .map(|reached| {
            let node = graph.node(reached.node);
            let (class, kind_order) = match target_origin {
                Origin::SpecGraph => (spec_graph_class(node, &reached, selection.target), 0),
                Origin::Artifact => artifact_class(node, &reached),
                Origin::Tana => (tana_class(&reached), 0),
            };
            let relevance = inputs.relevance.get(&reached.node).copied().unwrap_or(0.0);
            let boosted = boosted(node, &inputs.boost);
            let score = score(node, reached.distance, newest, relevance, boosted);
            Ranked {
                node: reached.node,
                distance: reached.distance,
                reasons: reached.reasons,
                class,
                kind_order,
                score,
            }
        })
        .collect();
    ranked.sort_by(|a, b| {
        a.class
            .cmp(&b.class)
            .then(a.kind_order.cmp(&b.kind_order))
            .then(b.score.total.total_cmp(&a.score.total))
            .then_with(|| graph.node(a.node).id.cmp(&graph.node(b.node).id))
    });
    ranked
}

fn is_root_reason(reached: &Reached) -> bool {
    reached
        .reasons
        .iter()
        .any(|r| matches!(r, Reason::Target | Reason::Identity))
}

fn is_direct(reached: &Reached, target: NodeIx) -> bool {
    reached.distance <= 1
        && reached.reasons.iter().any(|reason| match reason {
            Reason::Edge {
                direction: Direction::Forward,
                from,
                ..
            } => *from == target,
            Reason::Edge {
                direction: Direction::Inverse,
                relation,
                via,
                ..
            } => relation.name() == "constrains" && via.is_empty(),
            _ => false,
        })
}

fn spec_graph_class(node: &Node, reached: &Reached, target: NodeIx) -> Class {
    if is_root_reason(reached) {
        Class::Target
    } else if (node.kind == Kind::Policy && node.severity() == Some("hard"))
        || node.kind == Kind::Norm
    {
        Class::Hard
    } else if is_direct(reached, target) {
        Class::Direct
    } else if reached.distance <= 1 || is_guidance(reached) {
        Class::Guidance
    } else {
        Class::Distant
    }
}

fn is_guidance(reached: &Reached) -> bool {
    reached.reasons.iter().any(|reason| {
        matches!(
            reason,
            Reason::Edge {
                direction: Direction::Inverse | Direction::Propagated,
                ..
            }
        )
    })
}

/// Artifact contexts follow Contextia's priority: identity and task, then specs (direct
/// before transitive), then norms, then decisions, then anything else.
fn artifact_class(node: &Node, reached: &Reached) -> (Class, u8) {
    if is_root_reason(reached) {
        return (Class::Target, 0);
    }
    match node.kind {
        Kind::Spec if reached.distance <= 1 => (Class::Direct, 0),
        Kind::Spec => (Class::Direct, 1),
        Kind::Norm => (Class::Guidance, 0),
        Kind::Decision => (Class::Guidance, 1),
        _ if reached.distance <= 1 => (Class::Guidance, 2),
        _ => (Class::Distant, 0),
    }
}

/// Tana contexts have no normative kinds: the target, then its direct neighbours (children,
/// parent, references both ways, field links both ways), then everything further out. Lens
/// boosts order nodes inside each class.
fn tana_class(reached: &Reached) -> Class {
    if is_root_reason(reached) {
        Class::Target
    } else if reached.distance <= 1 {
        Class::Direct
    } else {
        Class::Distant
    }
}

/// Whether a node's kind, category or tags match a boost term.
fn boosted(node: &Node, boost: &[String]) -> bool {
    if boost.is_empty() {
        return false;
    }
    let mut terms: Vec<String> = vec![node.kind.name().to_lowercase()];
    match &node.content {
        crate::model::Content::Spec(spec) => {
            terms.extend(spec.category.iter().map(|c| c.to_lowercase()));
            for (key, value) in &spec.metadata {
                if key == "tags" {
                    if let Some(tags) = value.as_array() {
                        terms.extend(
                            tags.iter()
                                .filter_map(|t| t.as_str())
                                .map(str::to_lowercase),
                        );
                    }
                }
            }
        }
        crate::model::Content::Artifact(fields) => {
            terms.extend(fields.tags.iter().map(|t| t.to_lowercase()));
        }
        // Applied and inherited supertags: a #bug that extends #task is a task to a lens.
        crate::model::Content::Tana(tana) => {
            terms.extend(tana.all_tags().map(str::to_lowercase));
        }
    }
    terms.iter().any(|t| boost.contains(t))
}

fn score(node: &Node, distance: u32, newest: Option<i64>, relevance: f64, boosted: bool) -> Score {
    let distance_part = 1.0 / (1.0 + f64::from(distance));
    let recency = match (newest, node.date.as_deref().and_then(days)) {
        (Some(newest), Some(day)) => (1.0 - (newest - day) as f64 / 365.0).clamp(0.0, 1.0),
        _ => 0.0,
    };
    let priority = priority(node);
    let relevance = relevance.clamp(0.0, 1.0);
    let mut total = W_DISTANCE * distance_part
        + W_RELEVANCE * relevance
        + W_RECENCY * recency
        + W_PRIORITY * priority;
    if boosted {
        total = (total + crate::lens::BOOST).min(1.0);
    }
    Score {
        total: round4(total),
        distance: round4(distance_part),
        relevance,
        recency: round4(recency),
        priority: round4(priority),
    }
}

fn priority(node: &Node) -> f64 {
    let field = node
        .artifact()
        .and_then(|a| a.extra.iter().find(|(k, _)| k == "priority"))
        .map(|(_, v)| v.as_str());
    match (node.severity(), field) {
        (Some("hard"), _) | (_, Some("critical")) => 1.0,
        (_, Some("high")) => 0.75,
        (Some("soft"), _) | (_, Some("medium")) => 0.5,
        (_, Some("low")) => 0.25,
        _ => 0.0,
    }
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::node;
    use crate::model::Graph;
    use crate::traverse::{traverse, Depth, TraverseOptions};

    #[test]
    fn classes_order_target_hard_direct_guidance_distant() {
        let mut hard = node("POL-HARD", Kind::Policy, &[("constrains", "F")]);
        if let crate::model::Content::Spec(fields) = &mut hard.content {
            fields.severity = Some("hard".into());
        }
        let (graph, _) = Graph::build(vec![
            node("F", Kind::Feature, &[("contains", "T")]),
            node("T", Kind::Behavior, &[("depends_on", "A")]),
            node("A", Kind::Decision, &[("depends_on", "B")]),
            node("B", Kind::Decision, &[]),
            node("POL-SOFT", Kind::Policy, &[("constrains", "F")]),
            hard,
        ]);
        let t = graph.lookup("T").unwrap();
        let selection = traverse(
            &graph,
            t,
            TraverseOptions {
                identity: false,
                ..TraverseOptions::at(Depth::Full)
            },
        );
        let order: Vec<(&str, Class)> = rank(&graph, selection, &RankInputs::default())
            .iter()
            .map(|r| (graph.node(r.node).id.as_str(), r.class))
            .collect();
        assert_eq!(
            order,
            vec![
                ("T", Class::Target),
                ("POL-HARD", Class::Hard),
                ("A", Class::Direct),
                ("F", Class::Guidance),
                ("POL-SOFT", Class::Guidance),
                ("B", Class::Distant),
            ]
        );
    }
}
