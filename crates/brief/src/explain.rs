//! `brief explain ID --for TARGET`: the rule and chain of links that bring a node into a
//! target's context, or, when it is not in, the nearest ways it could be and why each does
//! not apply (`docs/explain.md`).

use std::collections::{BTreeMap, VecDeque};

use crate::context::{select, Plan};
use crate::impact::chain_steps;
use crate::lens::Follow;
use crate::model::{Detail, GraphView, Kind, NodeIx, Relation};
use crate::traverse::{superseded_guidance, Depth, Direction, Reason, Selection};

/// One rule that brings the node in.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Because {
    /// The traversal rule (`target`, `identity`, `namespace`, `constrainer`,
    /// `linked constrainer`, `layer guidance`, `forward link`, `tana walk`).
    pub rule: String,
    /// The chain from the target to the node.
    pub chain: String,
}

/// One way the node could have been in, and why it is not.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WhyNot {
    /// What stops it: `depth`, `lens`, `fan-out`, `supersedes`, `never forward`,
    /// `linked constrainer`, `reverse link`, `identity`, `no link`.
    pub rule: String,
    pub explanation: String,
}

/// The answer of `brief explain`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Explanation {
    pub node: String,
    pub target: String,
    pub included: bool,
    /// The detail the budget left the node at (`full`, `summary`, `meta`, `omitted`), when
    /// it is in the context.
    pub detail: Option<String>,
    pub budget: usize,
    pub reasons: Vec<Because>,
    pub why_not: Vec<WhyNot>,
}

/// Why `node` is (or is not) in the context of `target` under `plan`. `detail` is filled in
/// by the caller from the fitted context.
pub fn explain(graph: &dyn GraphView, plan: &Plan, target: NodeIx, node: NodeIx) -> Explanation {
    let selection = select(graph, plan, &[target]);
    let reasons = reasons_for(graph, &selection, node);
    let included = !reasons.is_empty();
    let why_not = if included {
        Vec::new()
    } else {
        why_not(graph, plan, target, node)
    };
    Explanation {
        node: graph.id_of(node),
        target: graph.id_of(target),
        included,
        detail: None,
        budget: plan.budget,
        reasons,
        why_not,
    }
}

/// The detail's name for output, `omitted` when the budget left the node out.
pub fn detail_name(detail: Option<Detail>) -> String {
    detail.map_or("omitted", Detail::name).to_string()
}

fn rule_name(reason: &Reason) -> &'static str {
    match reason {
        Reason::Target => "target",
        Reason::Identity => "identity",
        Reason::Edge {
            relation,
            direction,
            ..
        } => match (direction, relation) {
            (_, Relation::Child | Relation::Reference | Relation::Field(_)) => "tana walk",
            (Direction::Inverse, Relation::Contains) => "namespace",
            (Direction::Inverse, _) => "constrainer",
            (Direction::Linked, _) => "linked constrainer",
            (Direction::Propagated, _) => "layer guidance",
            (Direction::Forward, _) => "forward link",
        },
    }
}

/// Every reason the selection holds for `node`, each with its chain from the target.
fn reasons_for(graph: &dyn GraphView, selection: &Selection, node: NodeIx) -> Vec<Because> {
    let Some(reached) = selection.reached.iter().find(|r| r.node == node) else {
        return Vec::new();
    };
    let target = graph.id_of(selection.target);
    reached
        .reasons
        .iter()
        .map(|reason| {
            let chain = match reason {
                Reason::Target => format!("{target} (the target)"),
                Reason::Identity => format!("{} (the project identity)", graph.id_of(node)),
                Reason::Edge { from, .. } => {
                    // The chain to the node the reason leaves, then this reason's steps.
                    let mut text = target.clone();
                    if let Reason::Edge {
                        direction: Direction::Forward,
                        ..
                    } = reason
                    {
                        if *from != selection.target {
                            for step in chain_steps(graph, selection, *from).unwrap_or_default() {
                                text.push(' ');
                                text.push_str(&step);
                            }
                        }
                    }
                    for step in crate::impact::reason_steps(graph, reason, node) {
                        text.push(' ');
                        text.push_str(&step);
                    }
                    text
                }
            };
            Because {
                rule: rule_name(reason).to_string(),
                chain,
            }
        })
        .collect()
}

/// The nearest ways `node` could be in the context of `target`, each with why it is not.
fn why_not(graph: &dyn GraphView, plan: &Plan, target: NodeIx, node: NodeIx) -> Vec<WhyNot> {
    let mut found = Vec::new();
    let id = |ix: NodeIx| graph.id_of(ix);
    let (n, t) = (id(node), id(target));
    if Some(node) == graph.identity() && !plan.options.identity {
        found.push(WhyNot {
            rule: "identity".into(),
            explanation: format!(
                "{n} is the project identity, left out of this context (--no-identity)"
            ),
        });
    }
    let with = |change: &dyn Fn(&mut Plan)| {
        let mut relaxed = plan.clone();
        change(&mut relaxed);
        select(graph, &relaxed, &[target])
    };
    let chain_in = |selection: &Selection| {
        crate::impact::chain(graph, selection, node).unwrap_or_else(|| n.clone())
    };
    // Depth: the same rules followed to the end.
    let deeper = with(&|p| {
        p.options.depth = Depth::Full;
        p.options.fanout = usize::MAX;
    });
    if let Some(r) = deeper.reached.iter().find(|r| r.node == node) {
        found.push(WhyNot {
            rule: "depth".into(),
            explanation: format!(
                "{n} is {} hops from {t}, beyond depth {}: {}",
                r.distance,
                plan.options.depth,
                chain_in(&deeper)
            ),
        });
    } else {
        // Lens: every family followed (and to the end).
        let wider = with(&|p| {
            p.options.depth = Depth::Full;
            p.options.fanout = usize::MAX;
            p.options.follow = Follow {
                child: true,
                parent: true,
                reference: true,
                field: true,
            };
            p.fields = None;
        });
        if wider.reached.iter().any(|r| r.node == node) {
            let lens = plan
                .lens
                .as_ref()
                .map_or("no lens".to_string(), |l| format!("the lens `{}`", l.name));
            found.push(WhyNot {
                rule: "lens".into(),
                explanation: format!(
                    "{lens} does not follow a relation on the way: {} (`contains` is followed forward only by lenses that walk children)",
                    chain_in(&wider)
                ),
            });
        }
    }
    // Fan-out: the same depth with every neighbour followed.
    let unsampled = with(&|p| p.options.fanout = usize::MAX);
    if unsampled.reached.iter().any(|r| r.node == node) {
        found.push(WhyNot {
            rule: "fan-out".into(),
            explanation: format!(
                "a node on the way has more links over one relation than the fan-out limit ({}), and {n} was not among those followed: {}",
                plan.options.fanout,
                chain_in(&unsampled)
            ),
        });
    }
    // Supersedes: a layer-guidance candidate another candidate supersedes.
    if !plan.tana {
        if let Some(&by) = superseded_guidance(graph, target).get(&node) {
            found.push(WhyNot {
                rule: "supersedes".into(),
                explanation: format!(
                    "{n} is layer guidance of {t}, but {} supersedes it and only the newest is kept",
                    id(by)
                ),
            });
        }
    }
    // A rule-3b constrainer of something the target links, when the target is no task.
    if graph.kind_of(target) != Kind::Task {
        for edge in graph.edges_out(node) {
            if edge.relation != Relation::Constrains {
                continue;
            }
            if graph
                .edges_out(target)
                .iter()
                .any(|e| e.to == edge.to && e.relation.is_forward())
            {
                found.push(WhyNot {
                    rule: "linked constrainer".into(),
                    explanation: format!(
                        "{n} constrains {}, which {t} links, but only a task's links bring their constrainers ({t} is a {})",
                        id(edge.to),
                        graph.kind_of(target).name()
                    ),
                });
                break;
            }
        }
    }
    // A relation never followed forward on a path from the target.
    if let Some(path) = path_over(graph, target, node, |_| true) {
        if let Some(step) = path.iter().find(|(_, r, _)| {
            matches!(
                r,
                Relation::Constrains | Relation::Supersedes | Relation::Contains
            )
        }) {
            if step.1 != Relation::Contains || !found.iter().any(|w| w.rule == "lens") {
                found.push(WhyNot {
                    rule: "never forward".into(),
                    explanation: format!(
                        "{} {} {}, and `{}` is never followed forward (it brings what {} the target, not what the target {}): {}",
                        id(step.0),
                        step.1.name(),
                        id(step.2),
                        step.1.name(),
                        match step.1 {
                            Relation::Constrains => "constrains",
                            Relation::Contains => "contains",
                            _ => "supersedes",
                        },
                        match step.1 {
                            Relation::Constrains => "constrains",
                            Relation::Contains => "contains",
                            _ => "supersedes",
                        },
                        render_path(graph, target, &path)
                    ),
                });
            }
        }
    }
    // The link goes the other way: the node's context holds the target.
    if let Some(path) = path_over(graph, node, target, |r| r.is_forward()) {
        found.push(WhyNot {
            rule: "reverse link".into(),
            explanation: format!(
                "links are followed from the target outward, and this chain runs from {n} to {t}, so {t} is in {n}'s context, not the reverse: {}",
                render_path(graph, node, &path)
            ),
        });
    }
    if found.is_empty() {
        found.push(WhyNot {
            rule: "no link".into(),
            explanation: format!("no chain of links connects {t} to {n}"),
        });
    }
    found
}

type Step = (NodeIx, Relation, NodeIx);

/// The shortest path of out-edges `follows` accepts from `from` to `to` (ties by the edge
/// order, which is by id).
fn path_over(
    graph: &dyn GraphView,
    from: NodeIx,
    to: NodeIx,
    follows: impl Fn(&Relation) -> bool,
) -> Option<Vec<Step>> {
    let mut previous: BTreeMap<NodeIx, Step> = BTreeMap::new();
    let mut queue = VecDeque::from([from]);
    while let Some(at) = queue.pop_front() {
        if at == to {
            let mut path = Vec::new();
            let mut cur = to;
            while cur != from {
                let step = previous[&cur].clone();
                cur = step.0;
                path.push(step);
            }
            path.reverse();
            return Some(path);
        }
        for edge in graph.edges_out(at) {
            if follows(&edge.relation) && edge.to != from && !previous.contains_key(&edge.to) {
                previous.insert(edge.to, (at, edge.relation.clone(), edge.to));
                queue.push_back(edge.to);
            }
        }
    }
    None
}

fn render_path(graph: &dyn GraphView, start: NodeIx, path: &[Step]) -> String {
    let mut text = graph.id_of(start);
    for (_, relation, to) in path {
        text.push_str(&format!(" → {} {}", relation.name(), graph.id_of(*to)));
    }
    text
}

/// The explanation as text.
pub fn render_text(e: &Explanation) -> String {
    let mut out = String::new();
    if e.included {
        out.push_str(&format!(
            "{} is in the context of {} at detail {} (budget {}).\n",
            e.node,
            e.target,
            e.detail.as_deref().unwrap_or("?"),
            e.budget
        ));
        for because in &e.reasons {
            out.push_str(&format!("  {}: {}\n", because.rule, because.chain));
        }
    } else {
        out.push_str(&format!(
            "{} is not in the context of {}.\n",
            e.node, e.target
        ));
        for why in &e.why_not {
            out.push_str(&format!("  {}: {}\n", why.rule, why.explanation));
        }
    }
    out
}

/// The explanation as JSON.
pub fn render_json(e: &Explanation) -> String {
    let mut text = serde_json::to_string_pretty(e).unwrap_or_default();
    text.push('\n');
    text
}
