//! `brief explain ID --for TARGET`: the rule and chain of links that bring a node into a
//! target's context, or, when it is not in, the nearest ways it could be and why each does
//! not apply (`docs/explain.md`).

use std::collections::{BTreeMap, VecDeque};

use crate::context::{select, select_from, Plan, Start};
use crate::impact::chain_steps;
use crate::related::Copies;
use crate::traverse::{superseded_guidance, Depth, Direction, Reason, Selection};
use brief_model::Follow;
use brief_model::{Detail, GraphView, Kind, NodeIx, Relation, StoreError};

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
    /// Why, in a sentence for the user.
    pub explanation: String,
}

/// The answer of `brief explain`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Explanation {
    /// The node asked about.
    pub node: String,
    /// The target whose context was examined: its id, or the words or file as asked.
    pub target: String,
    /// The nodes the context started from, when the target is not an id (words, a file, a
    /// feature's local id); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub starts: Vec<String>,
    /// Whether the node is in that context (at any detail, or omitted for the budget).
    pub included: bool,
    /// The detail the budget left the node at (`full`, `summary`, `meta`, `omitted`), when
    /// it is in the context.
    pub detail: Option<String>,
    /// The budget the context was fitted to.
    pub budget: usize,
    /// Every rule that brings the node in (empty when it is not selected).
    pub reasons: Vec<Because>,
    /// When it is not selected: the nearest ways in and what stops each.
    pub why_not: Vec<WhyNot>,
}

/// Why `node` is (or is not) in the context that starts from `start` (non-empty: an id's
/// node, what governs a file, the start nodes and related material of words) under `plan`.
/// `target` and `detail` are filled in by the caller: the target as asked, the detail from
/// the fitted context.
pub fn explain(
    graph: &dyn GraphView,
    plan: &Plan,
    start: &Start,
    node: NodeIx,
) -> Result<Explanation, StoreError> {
    let target = start.seeds.first().copied().unwrap_or_default();
    let selection = select_from(graph, plan, start)?;
    let reasons = reasons_for(graph, &selection, node)?;
    let included = !reasons.is_empty();
    let why_not = if included {
        Vec::new()
    } else {
        let mut found = Vec::new();
        // Neither a backlink nor a further hit, whatever its links or words.
        if Copies::new(&selection, &start.seeds).elsewhere(graph, node)? {
            found.push(WhyNot {
                rule: "translation".into(),
                explanation: format!(
                    "{} is a copy in another language (a language folder beside en/ or under \
                     i18n/, or a page beside its original) and the start is not: as related \
                     material it would say again what its page says",
                    graph.id_of(node)?
                ),
            });
        }
        found.extend(why_not(graph, plan, target, node)?);
        found
    };
    Ok(Explanation {
        node: graph.id_of(node)?,
        target: graph.id_of(target)?,
        starts: Vec::new(),
        included,
        detail: None,
        budget: plan.budget,
        reasons,
        why_not,
    })
}

/// The detail's name for output, `omitted` when the budget left the node out.
pub(crate) fn detail_name(detail: Option<Detail>) -> String {
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
            (Direction::Backlink, _) => "backlink",
        },
        Reason::Applies { .. } => "applies",
        Reason::Words { .. } => "related by words",
        Reason::Log { .. } => "the project's decision log",
    }
}

/// Every reason the selection holds for `node`, each with its chain from the target.
fn reasons_for(
    graph: &dyn GraphView,
    selection: &Selection,
    node: NodeIx,
) -> Result<Vec<Because>, StoreError> {
    let Some(reached) = selection.reached.iter().find(|r| r.node == node) else {
        return Ok(Vec::new());
    };
    let target = graph.id_of(selection.target)?;
    reached
        .reasons
        .iter()
        .map(|reason| {
            let chain = match reason {
                Reason::Target => format!("{target} (the target)"),
                Reason::Identity => format!("{} (the project identity)", graph.id_of(node)?),
                Reason::Applies { .. } | Reason::Words { .. } | Reason::Log { .. } => {
                    let mut text = target.clone();
                    for step in crate::impact::reason_steps(graph, reason, node)? {
                        text.push(' ');
                        text.push_str(&step);
                    }
                    text
                }
                Reason::Edge { from, .. } => {
                    // The chain to the node the reason leaves, then this reason's steps.
                    let mut text = target.clone();
                    if let Reason::Edge {
                        direction: Direction::Forward,
                        ..
                    } = reason
                    {
                        if *from != selection.target {
                            for step in chain_steps(graph, selection, *from)?.unwrap_or_default() {
                                text.push(' ');
                                text.push_str(&step);
                            }
                        }
                    }
                    for step in crate::impact::reason_steps(graph, reason, node)? {
                        text.push(' ');
                        text.push_str(&step);
                    }
                    text
                }
            };
            Ok(Because {
                rule: rule_name(reason).to_string(),
                chain,
            })
        })
        .collect()
}

/// The nearest ways `node` could be in the context of `target`, each with why it is not.
fn why_not(
    graph: &dyn GraphView,
    plan: &Plan,
    target: NodeIx,
    node: NodeIx,
) -> Result<Vec<WhyNot>, StoreError> {
    let mut found = Vec::new();
    let id = |ix: NodeIx| graph.id_of(ix);
    let (n, t) = (id(node)?, id(target)?);
    if Some(node) == graph.identity()? && !plan.options.identity {
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
    let chain_in = |selection: &Selection| -> Result<String, StoreError> {
        Ok(crate::impact::chain(graph, selection, node)?.unwrap_or_else(|| n.clone()))
    };
    // Depth: the same rules followed to the end.
    let deeper = with(&|p| {
        p.options.depth = Depth::Full;
        p.options.fanout = usize::MAX;
    })?;
    let beyond = deeper
        .reached
        .iter()
        .find(|r| r.node == node)
        .filter(|r| !within(plan.options.depth, r.distance));
    if let Some(r) = beyond {
        found.push(WhyNot {
            rule: "depth".into(),
            explanation: format!(
                "{n} is {} hops from {t}, beyond depth {}{}: {}",
                r.distance,
                plan.options.depth,
                if plan.guess_depth.is_some() {
                    " (a weak match of words is walked that far unless `--depth` asks for more)"
                } else {
                    ""
                },
                chain_in(&deeper)?
            ),
        });
    } else if !deeper.reached.iter().any(|r| r.node == node) {
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
        })?;
        if wider.reached.iter().any(|r| r.node == node) {
            let lens = plan
                .lens
                .as_ref()
                .map_or("no lens".to_string(), |l| format!("the lens `{}`", l.name));
            found.push(WhyNot {
                rule: "lens".into(),
                explanation: format!(
                    "{lens} does not follow a relation on the way: {} (`contains` is followed forward only by lenses that walk children)",
                    chain_in(&wider)?
                ),
            });
        }
    }
    // Fan-out: the same depth with every neighbour followed.
    let unsampled = with(&|p| p.options.fanout = usize::MAX)?;
    if unsampled.reached.iter().any(|r| r.node == node) {
        found.push(WhyNot {
            rule: "fan-out".into(),
            explanation: format!(
                "a node on the way has more links over one relation than the fan-out limit ({}), and {n} was not among those followed: {}",
                plan.options.fanout,
                chain_in(&unsampled)?
            ),
        });
    }
    // Supersedes: a layer-guidance candidate another candidate supersedes.
    if !plan.tana {
        if let Some(&by) = superseded_guidance(graph, target)?.get(&node) {
            found.push(WhyNot {
                rule: "supersedes".into(),
                explanation: format!(
                    "{n} is layer guidance of {t}, but {} supersedes it and only the newest is kept",
                    id(by)?
                ),
            });
        }
    }
    by_structure(graph, target, node, &mut found)?;
    if found.is_empty() {
        found.push(WhyNot {
            rule: "no link".into(),
            explanation: format!("no chain of links connects {t} to {n}"),
        });
    }
    Ok(found)
}

/// The reasons in the graph's shape: a constrainer only a task's links bring, a relation never
/// followed forward on the way, a chain that runs the other way.
fn by_structure(
    graph: &dyn GraphView,
    target: NodeIx,
    node: NodeIx,
    found: &mut Vec<WhyNot>,
) -> Result<(), StoreError> {
    let id = |ix: NodeIx| graph.id_of(ix);
    let (n, t) = (id(node)?, id(target)?);
    // A rule-3b constrainer of something the target links, when the target is no task.
    if graph.kind_of(target)? != Kind::Task {
        for edge in graph.edges_out(node)? {
            if edge.relation != Relation::Constrains {
                continue;
            }
            if graph
                .edges_out(target)?
                .iter()
                .any(|e| e.to == edge.to && e.relation.is_forward())
            {
                found.push(WhyNot {
                    rule: "linked constrainer".into(),
                    explanation: format!(
                        "{n} constrains {}, which {t} links, but only a task's links bring their constrainers ({t} is a {})",
                        id(edge.to)?,
                        graph.kind_of(target)?.name()
                    ),
                });
                break;
            }
        }
    }
    // A relation never followed forward on a path from the target.
    if let Some(path) = path_over(graph, target, node, |_| true)? {
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
                        id(step.0)?,
                        step.1.name(),
                        id(step.2)?,
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
                        render_path(graph, target, &path)?
                    ),
                });
            }
        }
    }
    // The link goes the other way: the node's context holds the target.
    if let Some(path) = path_over(graph, node, target, |r| r.is_forward())? {
        found.push(WhyNot {
            rule: "reverse link".into(),
            explanation: format!(
                "links are followed from the target outward, and this chain runs from {n} to {t}, so {t} is in {n}'s context, not the reverse: {}",
                render_path(graph, node, &path)?
            ),
        });
    }
    Ok(())
}

fn within(depth: Depth, hops: u32) -> bool {
    match depth {
        Depth::Hops(max) => hops <= max,
        Depth::Full => true,
    }
}

type Step = (NodeIx, Relation, NodeIx);

/// The shortest path of out-edges `follows` accepts from `from` to `to` (ties by the edge
/// order, which is by id).
fn path_over(
    graph: &dyn GraphView,
    from: NodeIx,
    to: NodeIx,
    follows: impl Fn(&Relation) -> bool,
) -> Result<Option<Vec<Step>>, StoreError> {
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
            return Ok(Some(path));
        }
        for edge in graph.edges_out(at)? {
            if follows(&edge.relation) && edge.to != from && !previous.contains_key(&edge.to) {
                previous.insert(edge.to, (at, edge.relation.clone(), edge.to));
                queue.push_back(edge.to);
            }
        }
    }
    Ok(None)
}

fn render_path(graph: &dyn GraphView, start: NodeIx, path: &[Step]) -> Result<String, StoreError> {
    let mut text = graph.id_of(start)?;
    for (_, relation, to) in path {
        text.push_str(&format!(" → {} {}", relation.name(), graph.id_of(*to)?));
    }
    Ok(text)
}

/// The explanation as text.
pub fn explanation_text(e: &Explanation) -> String {
    let mut out = String::new();
    let target = match e.starts.as_slice() {
        [] => e.target.clone(),
        starts => format!("\"{}\" (started from {})", e.target, starts.join(", ")),
    };
    if e.included {
        match e.detail.as_deref() {
            Some("omitted") | None => out.push_str(&format!(
                "{} is in the context of {target}, but a budget of {} tokens leaves it out.\n",
                e.node, e.budget
            )),
            Some(detail) => out.push_str(&format!(
                "{} is in the context of {target} at detail {detail} (budget {}).\n",
                e.node, e.budget
            )),
        }
        for because in &e.reasons {
            out.push_str(&format!("  {}: {}\n", because.rule, because.chain));
        }
    } else {
        out.push_str(&format!("{} is not in the context of {target}.\n", e.node));
        for why in &e.why_not {
            out.push_str(&format!("  {}: {}\n", why.rule, why.explanation));
        }
    }
    out
}

/// The explanation as JSON.
pub(crate) fn render_json(e: &Explanation) -> String {
    let mut text = serde_json::to_string_pretty(e).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{plan_for, ContextRequest};
    use brief_model::testing::node;
    use brief_model::{Graph, Origin};
    use brief_project::Defaults;

    /// One project where every traversal rule brings something in and each way of being
    /// left out happens once.
    fn project() -> Graph {
        Graph::build(vec![
            node("ID", Kind::Identity, &[]),
            node(
                "PLATFORM",
                Kind::Layer,
                &[("contains", "DEC-OLD"), ("contains", "DEC-NEW")],
            ),
            node("DEC-OLD", Kind::Decision, &[]),
            node("DEC-NEW", Kind::Decision, &[("supersedes", "DEC-OLD")]),
            node(
                "AUTH",
                Kind::Feature,
                &[("contains", "AUTH-01"), ("depends_on", "PLATFORM")],
            ),
            node(
                "AUTH-01",
                Kind::Behavior,
                &[("depends_on", "LIB-01"), ("depends_on", "LIB-02")],
            ),
            node("LIB-01", Kind::Behavior, &[("depends_on", "LIB-03")]),
            node("LIB-02", Kind::Behavior, &[]),
            node("LIB-03", Kind::Behavior, &[("depends_on", "LIB-04")]),
            node("LIB-04", Kind::Behavior, &[]),
            node("POL-AUTH", Kind::Policy, &[("constrains", "AUTH")]),
            node("NORM-LIB", Kind::Norm, &[("constrains", "LIB-01")]),
            node("TASK-1", Kind::Task, &[("specs", "LIB-01")]),
            node("LONE", Kind::Behavior, &[]),
        ])
        .0
    }

    fn run(graph: &Graph, id: &str, target: &str, request: ContextRequest) -> Explanation {
        let defaults = Defaults {
            fanout: request.budget.map(|_| 1),
            ..Defaults::default()
        };
        let lens = request
            .lens
            .as_ref()
            .map(|name| brief_model::find_lens(name, &defaults.lenses).unwrap());
        let plan = plan_for(&defaults, &request, lens, Origin::SpecGraph).unwrap();
        let start = Start {
            seeds: vec![graph.lookup(target).unwrap()],
            ..Start::default()
        };
        explain(graph, &plan, &start, graph.lookup(id).unwrap()).unwrap()
    }

    fn within(graph: &Graph, id: &str, target: &str) -> Vec<(String, String)> {
        let e = run(graph, id, target, ContextRequest::default());
        assert!(e.included, "{id} for {target}: {e:?}");
        e.reasons.into_iter().map(|b| (b.rule, b.chain)).collect()
    }

    fn outside(graph: &Graph, id: &str, target: &str, request: ContextRequest) -> Vec<WhyNot> {
        let e = run(graph, id, target, request);
        assert!(!e.included, "{id} for {target}: {e:?}");
        e.why_not
    }

    fn rules(why: &[WhyNot]) -> Vec<&str> {
        why.iter().map(|w| w.rule.as_str()).collect()
    }

    #[test]
    fn every_rule_that_brings_a_node_in_is_named_with_its_chain() {
        let g = project();
        let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert_eq!(
            within(&g, "AUTH-01", "AUTH-01"),
            pairs(&[("target", "AUTH-01 (the target)")])
        );
        assert_eq!(
            within(&g, "ID", "AUTH-01"),
            pairs(&[("identity", "ID (the project identity)")])
        );
        assert_eq!(
            within(&g, "AUTH", "AUTH-01"),
            pairs(&[("namespace", "AUTH-01 ← contains AUTH")])
        );
        assert_eq!(
            within(&g, "POL-AUTH", "AUTH-01"),
            pairs(&[(
                "constrainer",
                "AUTH-01 ← contains AUTH ← constrains POL-AUTH"
            )])
        );
        assert_eq!(
            within(&g, "NORM-LIB", "TASK-1"),
            pairs(&[(
                "linked constrainer",
                "TASK-1 → links LIB-01 ← constrains NORM-LIB"
            )])
        );
        assert_eq!(
            within(&g, "DEC-NEW", "AUTH-01"),
            pairs(&[(
                "layer guidance",
                "AUTH-01 ← contains AUTH → depends_on PLATFORM ← contains DEC-NEW"
            )])
        );
        assert_eq!(
            within(&g, "LIB-03", "AUTH-01"),
            pairs(&[(
                "forward link",
                "AUTH-01 → depends_on LIB-01 → depends_on LIB-03"
            )])
        );
    }

    #[test]
    fn every_way_of_being_left_out_is_named() {
        let g = project();
        let d = ContextRequest::default;
        // Depth: three hops at depth 2.
        let why = outside(&g, "LIB-04", "AUTH-01", d());
        assert_eq!(rules(&why), ["depth"]);
        assert!(why[0].explanation.contains("3 hops"), "{why:?}");
        assert!(why[0]
            .explanation
            .ends_with("AUTH-01 → depends_on LIB-01 → depends_on LIB-03 → depends_on LIB-04"));
        // Lens: `planning` walks children and fields, not `depends_on`.
        let lens = ContextRequest {
            lens: Some("planning".into()),
            ..d()
        };
        assert_eq!(rules(&outside(&g, "LIB-01", "AUTH-01", lens)), ["lens"]);
        // Without a lens `contains` is not followed forward either.
        assert_eq!(rules(&outside(&g, "AUTH-01", "AUTH", d())), ["lens"]);
        // Fan-out: one `depends_on` link followed per node (`budget` stands for fanout 1 here).
        let sampled = ContextRequest {
            budget: Some(4000),
            ..d()
        };
        assert_eq!(
            rules(&outside(&g, "LIB-02", "AUTH-01", sampled)),
            ["fan-out"]
        );
        // Supersedes: DEC-NEW replaces DEC-OLD in the layer.
        let why = outside(&g, "DEC-OLD", "AUTH-01", d());
        assert_eq!(rules(&why), ["supersedes"]);
        assert!(why[0].explanation.contains("DEC-NEW supersedes it"));
        // Never forward: what the target constrains is not its context.
        let why = outside(&g, "AUTH-01", "POL-AUTH", d());
        assert_eq!(rules(&why), ["never forward"]);
        assert!(why[0].explanation.starts_with("POL-AUTH constrains AUTH"));
        // Rule 3b is for tasks only.
        assert_eq!(
            rules(&outside(&g, "NORM-LIB", "AUTH-01", d())),
            ["linked constrainer"]
        );
        // The links run the other way, over two hops (one hop back is a backlink, which the
        // context holds as related material).
        assert_eq!(
            rules(&outside(&g, "AUTH-01", "LIB-03", d())),
            ["reverse link"]
        );
        assert_eq!(
            within(&g, "AUTH-01", "LIB-01"),
            [(
                "backlink".to_string(),
                "LIB-01 ← depends_on AUTH-01".to_string()
            )]
        );
        // The identity, left out on request.
        let bare = ContextRequest {
            no_identity: true,
            ..d()
        };
        assert_eq!(rules(&outside(&g, "ID", "AUTH-01", bare)), ["identity"]);
        // Nothing at all.
        assert_eq!(rules(&outside(&g, "LONE", "AUTH-01", d())), ["no link"]);
    }
}
