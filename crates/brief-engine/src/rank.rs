//! Ranking: the order in which nodes get the budget (`docs/ranking.md`).
//!
//! A priority class first (the target; hard constraints; direct links; guidance; the rest,
//! by distance), then a lens's boost, then the weight of the node's kind (a decision or a
//! policy before an artifact or a foundation), then a score in [0, 1] from graph distance,
//! query relevance, recency (relative to the newest node in the graph, never the clock) and
//! priority or severity; ties by id. Every source is ranked this way: the order in which a
//! document *shows* its sections (Spec Graph's template, Contextia's bundle) is rendering's
//! business and never decides what the budget keeps. Everything is a pure function of the
//! graph and the selection.

use std::collections::HashMap;

use crate::resolve::Confidence;
use crate::traverse::{Direction, Reached, Reason, Selection};
use brief_model::epoch_days;
use brief_model::{Content, Kind, Node, NodeIx, NodeStore, Origin, Relation};

/// The weights of the score components; they sum to 1.
const W_DISTANCE: f64 = 0.5;
const W_RELEVANCE: f64 = 0.2;
const W_RECENCY: f64 = 0.15;
const W_PRIORITY: f64 = 0.15;

/// The priority class of a node in a context: lower gets the budget first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Class {
    /// The target (and the project identity).
    Target,
    /// Hard constraints: policies with `severity: hard`, norms, and decisions that constrain
    /// the target (directly, through an ancestor or through a layer). In Tana, nodes tagged
    /// `#policy`, `#norm`, `#rule` or `#constraint` (or a tag extending one).
    Hard,
    /// Direct links: one hop forward from the target, or a direct constrainer.
    Direct,
    /// Inverse and propagated guidance: namespace, inherited and layer constrainers, layer
    /// decisions, and anything else one hop away.
    Guidance,
    /// Two hops or more, nearest first.
    Distant,
    /// Related material, after everything the links and rules select: nodes that link to a
    /// selected node, further search hits (sections of long documents among them), the rest
    /// of a small decision log and, for a start found by words, its loose links.
    Related,
}

impl Class {
    /// The name used in JSON.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Class::Target => "target",
            Class::Hard => "hard",
            Class::Direct => "direct",
            Class::Guidance => "guidance",
            Class::Distant => "distant",
            Class::Related => "related",
        }
    }
}

/// The score of a node and its components, each in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Score {
    /// The weighted sum of the components (plus a lens boost), rounded to four places.
    pub total: f64,
    /// `1 / (1 + distance)`: nearer is higher.
    pub distance: f64,
    /// The node's search score over the best hit's, when the context started from a query.
    pub relevance: f64,
    /// `1 − age/365`, the age measured from the graph's newest date.
    pub recency: f64,
    /// From `severity` or `priority`: 1 for hard or critical down to 0.25 for low.
    pub priority: f64,
}

/// A selected node with its rank.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ranked {
    /// The node.
    pub node: NodeIx,
    /// Hops from the target.
    pub distance: u32,
    /// Why it was selected, sorted.
    pub reasons: Vec<Reason>,
    /// Its class, the first sort key (see [`Class`]).
    pub class: Class,
    /// Whether a lens boosts the node's kind, category or tags (boosted nodes go first
    /// within their class).
    pub boosted: bool,
    /// The weight of the node's kind within its class ([`kind_weight`]): higher first.
    pub weight: u8,
    /// Its score, the tie-breaker within a class and weight.
    pub score: Score,
    /// No longer in force (superseded, deprecated, rejected, withdrawn, obsolete): unless it
    /// is the target, shown at most by its line, which says so and names its successor.
    pub retired: bool,
}

/// What ranking knows besides the graph: how the start was found, query relevance per node
/// (0–1, from BM25 when the context started from a search) and a lens's boost terms.
#[derive(Debug, Clone, Default)]
pub(crate) struct RankInputs {
    /// How far the start can be trusted: exact when an id or a file named it.
    pub confidence: Confidence,
    /// Each node's query relevance (0–1); absent nodes have none.
    pub relevance: HashMap<NodeIx, f64>,
    /// Kinds, categories or tags (lower case) whose nodes get [`brief_model::LENS_BOOST`].
    pub boost: Vec<String>,
}

/// Ranks a selection, best first.
pub(crate) fn rank(
    graph: &dyn NodeStore,
    selection: Selection,
    inputs: &RankInputs,
) -> Vec<Ranked> {
    let newest = graph.newest_date().and_then(epoch_days);
    let mut ranked: Vec<Ranked> = selection
        .reached
        .into_iter()
        .map(|reached| {
            let node = graph.node(reached.node);
            let relevance = inputs.relevance.get(&reached.node).copied();
            let weight = kind_weight(&node.kind);
            let class = match node.origin {
                Origin::Tana => tana_class(node, &reached),
                Origin::SpecGraph | Origin::Artifact | Origin::Markdown => {
                    let class = class_of(node, &reached, selection.target);
                    if loose_link(inputs, weight, class, relevance) {
                        Class::Related
                    } else {
                        class
                    }
                }
            };
            let relevance = relevance.unwrap_or(0.0);
            let boosted = boosted(node, &inputs.boost);
            let score = score(node, reached.distance, newest, relevance, boosted);
            Ranked {
                node: reached.node,
                distance: reached.distance,
                reasons: reached.reasons,
                class,
                boosted,
                weight,
                score,
                retired: node.lifecycle().retired().is_some(),
            }
        })
        .collect();
    let is_target = |r: &Ranked| r.reasons.contains(&Reason::Target);
    ranked.sort_by(|a, b| {
        a.class
            .cmp(&b.class)
            // The target (a first seed) before the identity, whatever its kind.
            .then(is_target(b).cmp(&is_target(a)))
            .then_with(|| match a.class {
                // "The rest by distance": far nodes differ most by how far they are.
                Class::Distant => a.distance.cmp(&b.distance),
                // Related material: what is in force before what was retired (shown by its
                // line), then what governs the work among the nodes the words reach (a
                // decision, policy or norm before a page about the same thing), then by how
                // well its words match. A backlink goes by its words like any other node: one
                // the words do not reach comes after every hit, since a start found by words
                // may be the wrong one and what links to it then tells nothing of the task.
                Class::Related => a
                    .retired
                    .cmp(&b.retired)
                    .then(governs_by_words(b).cmp(&governs_by_words(a)))
                    .then(b.score.relevance.total_cmp(&a.score.relevance)),
                _ => std::cmp::Ordering::Equal,
            })
            .then(b.boosted.cmp(&a.boosted))
            .then(b.weight.cmp(&a.weight))
            .then(b.score.total.total_cmp(&a.score.total))
            .then_with(|| graph.node(a.node).id.cmp(&graph.node(b.node).id))
    });
    ranked
}

/// The kind weight of decisions, policies and norms: what governs the work.
const NORMATIVE: u8 = 5;

/// How much a node of this kind matters within its class, 1–5: normative kinds first, then
/// what the work is about, then contracts and concepts, then derived material, then
/// grouping and groundwork. The table is in `docs/ranking.md`.
pub(crate) fn kind_weight(kind: &Kind) -> u8 {
    match kind {
        Kind::Decision | Kind::Policy | Kind::Norm => NORMATIVE,
        Kind::Behavior | Kind::Spec | Kind::Task => 4,
        Kind::Domain
        | Kind::ApiContract
        | Kind::DataModel
        | Kind::UiContract
        | Kind::EquivalenceContract => 3,
        Kind::DesignToken | Kind::Pipeline | Kind::Identity | Kind::Section | Kind::Other(_) => 2,
        Kind::Feature | Kind::Layer | Kind::Foundation | Kind::Artifact => 1,
    }
}

/// Whether the words reach a node of a normative kind (decision, policy, norm): among
/// related material, what governs the work the task names.
fn governs_by_words(ranked: &Ranked) -> bool {
    ranked.weight == NORMATIVE
        && ranked
            .reasons
            .iter()
            .any(|r| matches!(r, Reason::Words { .. }))
}

/// Whether a linked node is only loosely tied to a task in words: the links reach it as
/// guidance or further (another start node's link, the namespace above a start, a second
/// hop), the search did not score it (none of the task's words, nor with embeddings a
/// meaning near the task's) and it is not of a kind that governs the work. A start found by
/// words may be the wrong node, and such a node tells less than the next hit of the words:
/// it is ranked as related material. A start named by id or file has no loose links.
/// `weight` is the node's [`kind_weight`].
fn loose_link(inputs: &RankInputs, weight: u8, class: Class, relevance: Option<f64>) -> bool {
    inputs.confidence != Confidence::Exact
        && !relevance.is_some_and(|r| r > 0.0)
        && matches!(class, Class::Guidance | Class::Distant)
        && weight != NORMATIVE
}

/// Whether only related-material reasons brought the node.
fn is_related(reached: &Reached) -> bool {
    !reached.reasons.is_empty() && reached.reasons.iter().all(Reason::is_related)
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
                relation: Relation::Constrains,
                via,
                ..
            } => via.is_empty(),
            _ => false,
        })
}

/// Whether a `constrains` edge brought the node: onto the target, an ancestor or a layer.
fn constrains_target(reached: &Reached) -> bool {
    reached.reasons.iter().any(|reason| {
        matches!(
            reason,
            Reason::Edge {
                relation: Relation::Constrains,
                direction: Direction::Inverse | Direction::Propagated | Direction::Linked,
                ..
            }
        )
    })
}

/// Spec Graph and artifact nodes: one rule set, so a norm is a hard constraint whether a
/// `.contextia/` bundle or a Spec Graph holds it.
fn class_of(node: &Node, reached: &Reached, target: NodeIx) -> Class {
    if is_root_reason(reached) {
        Class::Target
    } else if is_related(reached) {
        Class::Related
    } else if is_hard(node, reached) {
        Class::Hard
    } else if is_direct(reached, target) {
        Class::Direct
    } else if reached.distance <= 1 || is_guidance(reached) {
        Class::Guidance
    } else {
        Class::Distant
    }
}

fn is_hard(node: &Node, reached: &Reached) -> bool {
    // A rule no longer in force binds nothing: its line says so, and names its successor.
    if node.lifecycle().retired().is_some() {
        return false;
    }
    // What applies to the target's files without a link is a rule the agent must follow.
    if reached
        .reasons
        .iter()
        .any(|r| matches!(r, Reason::Applies { .. }))
    {
        return true;
    }
    match node.kind {
        Kind::Norm => true,
        Kind::Policy => node.severity() == Some("hard"),
        Kind::Decision => constrains_target(reached),
        _ => false,
    }
}

fn is_guidance(reached: &Reached) -> bool {
    reached.reasons.iter().any(|reason| {
        matches!(
            reason,
            Reason::Edge {
                direction: Direction::Inverse | Direction::Propagated | Direction::Linked,
                ..
            }
        )
    })
}

/// Supertags that make a Tana node a rule to follow.
const TANA_HARD_TAGS: [&str; 4] = ["policy", "norm", "rule", "constraint"];

/// Tana contexts: the target; nodes tagged as rules (unless a `Severity` field says
/// `soft`); then direct neighbours (children, parent, references both ways, field links both
/// ways); then everything further out. Lens boosts order nodes inside each class.
fn tana_class(node: &Node, reached: &Reached) -> Class {
    if is_root_reason(reached) {
        Class::Target
    } else if is_related(reached) {
        Class::Related
    } else if is_tana_rule(node)
        || reached
            .reasons
            .iter()
            .any(|r| matches!(r, Reason::Applies { .. }))
    {
        Class::Hard
    } else if reached.distance <= 1 {
        Class::Direct
    } else {
        Class::Distant
    }
}

fn is_tana_rule(node: &Node) -> bool {
    let Some(tana) = node.tana() else {
        return false;
    };
    let tagged = tana
        .all_tags()
        .any(|t| TANA_HARD_TAGS.iter().any(|h| t.eq_ignore_ascii_case(h)));
    let soft = tana.fields.iter().any(|f| {
        f.name.eq_ignore_ascii_case("severity")
            && f.values.iter().any(|v| v.eq_ignore_ascii_case("soft"))
    });
    tagged && !soft
}

/// Whether a node's kind, category or tags match a boost term.
fn boosted(node: &Node, boost: &[String]) -> bool {
    if boost.is_empty() {
        return false;
    }
    let mut terms: Vec<String> = vec![node.kind.name().to_lowercase()];
    match &node.content {
        Content::Spec(spec) => {
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
        Content::Artifact(fields) => {
            terms.extend(fields.tags.iter().map(|t| t.to_lowercase()));
        }
        // Applied and inherited supertags: a #bug that extends #task is a task to a lens.
        Content::Tana(tana) => {
            terms.extend(tana.all_tags().map(str::to_lowercase));
        }
    }
    terms.iter().any(|t| boost.contains(t))
}

fn score(node: &Node, distance: u32, newest: Option<i64>, relevance: f64, boosted: bool) -> Score {
    let distance_part = 1.0 / (1.0 + f64::from(distance));
    let recency = match (newest, node.date.as_deref().and_then(epoch_days)) {
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
        total = (total + brief_model::LENS_BOOST).min(1.0);
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
    use crate::traverse::{
        traverse, traverse_tana, Depth, Direction, Reached, Reason, Selection, TraverseOptions,
    };
    use brief_model::testing::node;
    use brief_model::{ArtifactFields, Graph, Location, TanaField, TanaFields};

    fn order(graph: &Graph, target: &str, depth: Depth) -> Vec<(String, Class)> {
        let t = graph.lookup(target).unwrap();
        let selection = traverse(
            graph,
            t,
            TraverseOptions {
                identity: false,
                ..TraverseOptions::at(depth)
            },
        )
        .unwrap();
        rank(graph, selection, &RankInputs::default())
            .iter()
            .map(|r| (graph.node(r.node).id.clone(), r.class))
            .collect()
    }

    fn hard(mut policy: Node) -> Node {
        if let Content::Spec(fields) = &mut policy.content {
            fields.severity = Some("hard".into());
        }
        policy
    }

    fn pairs(list: &[(&str, Class)]) -> Vec<(String, Class)> {
        list.iter().map(|(id, c)| (id.to_string(), *c)).collect()
    }

    #[test]
    fn classes_order_target_hard_direct_guidance_distant() {
        let (graph, _) = Graph::build(vec![
            node("F", Kind::Feature, &[("contains", "T")]),
            node("T", Kind::Behavior, &[("depends_on", "A")]),
            node("A", Kind::Decision, &[("depends_on", "B")]),
            node("B", Kind::Decision, &[]),
            node("POL-SOFT", Kind::Policy, &[("constrains", "F")]),
            hard(node("POL-HARD", Kind::Policy, &[("constrains", "F")])),
        ]);
        assert_eq!(
            order(&graph, "T", Depth::Full),
            pairs(&[
                ("T", Class::Target),
                ("POL-HARD", Class::Hard),
                ("A", Class::Direct),
                ("POL-SOFT", Class::Guidance),
                ("F", Class::Guidance),
                ("B", Class::Distant),
            ]),
            "within guidance the soft policy (weight 5) goes before the feature (weight 1)"
        );
    }

    #[test]
    fn a_start_in_words_ranks_loose_links_as_related_material() {
        let (graph, _) = Graph::build(vec![
            node(
                "T",
                Kind::Behavior,
                &[("depends_on", "PAGE"), ("depends_on", "A")],
            ),
            node(
                "PAGE",
                Kind::Behavior,
                &[("depends_on", "FAR"), ("depends_on", "FAR-HIT")],
            ),
            node("FAR", Kind::Behavior, &[]),
            node("FAR-HIT", Kind::Behavior, &[]),
            node("A", Kind::Decision, &[("depends_on", "B")]),
            node("B", Kind::Decision, &[]),
            node("F", Kind::Feature, &[("contains", "T")]),
        ]);
        let t = graph.lookup("T").unwrap();
        let classes = |confidence: Confidence| {
            let selection = traverse(
                &graph,
                t,
                TraverseOptions {
                    identity: false,
                    ..TraverseOptions::at(Depth::Full)
                },
            )
            .unwrap();
            let inputs = RankInputs {
                confidence,
                relevance: [(t, 1.0), (graph.lookup("FAR-HIT").unwrap(), 0.4)].into(),
                boost: Vec::new(),
            };
            rank(&graph, selection, &inputs)
                .iter()
                .map(|r| (graph.node(r.node).id.clone(), r.class))
                .collect::<Vec<_>>()
        };
        // Named by id, the links decide alone.
        assert_eq!(
            classes(Confidence::Exact),
            pairs(&[
                ("T", Class::Target),
                ("A", Class::Direct),
                ("PAGE", Class::Direct),
                ("F", Class::Guidance),
                ("B", Class::Distant),
                ("FAR-HIT", Class::Distant),
                ("FAR", Class::Distant),
            ])
        );
        // Found by words: the start's own links stay, and so do what the words reach and what
        // governs; a second hop or the feature above with none of the words is related
        // material, after every hit.
        assert_eq!(
            classes(Confidence::Strong),
            pairs(&[
                ("T", Class::Target),
                ("A", Class::Direct),
                ("PAGE", Class::Direct),
                ("B", Class::Distant),
                ("FAR-HIT", Class::Distant),
                ("FAR", Class::Related),
                ("F", Class::Related),
            ])
        );
    }

    #[test]
    fn decisions_that_constrain_the_target_are_hard_constraints() {
        let (graph, _) = Graph::build(vec![
            node(
                "F",
                Kind::Feature,
                &[("contains", "T"), ("depends_on", "L")],
            ),
            node("L", Kind::Layer, &[("contains", "DEC-LAYER")]),
            node("T", Kind::Behavior, &[("depends_on", "DEC-USED")]),
            node("DEC-ON-T", Kind::Decision, &[("constrains", "T")]),
            node("DEC-ON-F", Kind::Decision, &[("constrains", "F")]),
            node("DEC-ON-L", Kind::Decision, &[("constrains", "L")]),
            node("DEC-LAYER", Kind::Decision, &[]),
            node("DEC-USED", Kind::Decision, &[]),
            node("API", Kind::ApiContract, &[("constrains", "T")]),
        ]);
        assert_eq!(
            order(&graph, "T", Depth::Hops(2)),
            pairs(&[
                ("T", Class::Target),
                ("DEC-ON-F", Class::Hard),
                ("DEC-ON-L", Class::Hard),
                ("DEC-ON-T", Class::Hard),
                ("DEC-USED", Class::Direct),
                ("API", Class::Direct),
                ("DEC-LAYER", Class::Guidance),
                ("F", Class::Guidance),
            ]),
            "a decision merely contained in a layer is guidance; one that constrains is hard"
        );
    }

    #[test]
    fn kind_weight_goes_before_ids_and_distance_orders_the_rest() {
        // The payments case: a decision two hops out outranks an artifact export at the
        // same distance, whatever their ids.
        let (graph, _) = Graph::build(vec![
            node("T", Kind::Behavior, &[("depends_on", "M")]),
            node(
                "M",
                Kind::Decision,
                &[
                    ("depends_on", "ZZ-DEC"),
                    ("derived_from", "AA-ART"),
                    ("depends_on", "FAR"),
                ],
            ),
            node("ZZ-DEC", Kind::Decision, &[]),
            node("AA-ART", Kind::Artifact, &[("depends_on", "AB-DEC")]),
            node("AB-DEC", Kind::Decision, &[]),
            node("FAR", Kind::Behavior, &[]),
        ]);
        let ids: Vec<String> = order(&graph, "T", Depth::Full)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(ids, vec!["T", "M", "ZZ-DEC", "FAR", "AA-ART", "AB-DEC"]);
    }

    fn artifact(id: &str, kind: Kind, links: &[(&str, &str)]) -> Node {
        let mut n = node(id, kind, links);
        n.origin = Origin::Artifact;
        n.content = Content::Artifact(ArtifactFields::default());
        n.location = Location::file(format!(".contextia/{id}.md"));
        n
    }

    #[test]
    fn artifact_norms_outrank_specs_and_bundle_order_plays_no_part() {
        let (graph, _) = Graph::build(vec![
            artifact("TASK-1", Kind::Task, &[("specs", "SPEC-1")]),
            artifact(
                "SPEC-1",
                Kind::Spec,
                &[
                    ("links", "SPEC-2"),
                    ("norms", "NORM-1"),
                    ("decisions", "DEC-1"),
                ],
            ),
            artifact("SPEC-2", Kind::Spec, &[]),
            artifact("NORM-1", Kind::Norm, &[]),
            artifact("DEC-1", Kind::Decision, &[]),
        ]);
        assert_eq!(
            order(&graph, "TASK-1", Depth::Full),
            pairs(&[
                ("TASK-1", Class::Target),
                ("NORM-1", Class::Hard),
                ("SPEC-1", Class::Direct),
                ("DEC-1", Class::Distant),
                ("SPEC-2", Class::Distant),
            ])
        );
    }

    #[test]
    fn related_material_puts_what_governs_first_and_backlinks_by_their_words() {
        let (graph, _) = Graph::build(vec![
            node("START", Kind::Other("note".into()), &[]),
            node("PAGE", Kind::Other("note".into()), &[("links", "START")]),
            node("CITING", Kind::Other("note".into()), &[("links", "START")]),
            node("GUIDE", Kind::Other("note".into()), &[]),
            node("DEC-WORDS", Kind::Decision, &[]),
            node("DEC-LOG", Kind::Decision, &[]),
        ]);
        let ix = |id: &str| graph.lookup(id).unwrap();
        let reached = |id: &str, reason: Reason| Reached {
            node: ix(id),
            distance: 1,
            reasons: vec![reason],
        };
        let mut selection = Selection {
            target: ix("START"),
            reached: vec![
                Reached {
                    node: ix("START"),
                    distance: 0,
                    reasons: vec![Reason::Target],
                },
                reached(
                    "PAGE",
                    Reason::Edge {
                        relation: Relation::Link("links".into()),
                        direction: Direction::Backlink,
                        from: ix("START"),
                        via: Vec::new(),
                    },
                ),
                Reached {
                    node: ix("CITING"),
                    distance: 1,
                    reasons: vec![
                        Reason::Edge {
                            relation: Relation::Link("links".into()),
                            direction: Direction::Backlink,
                            from: ix("START"),
                            via: Vec::new(),
                        },
                        Reason::Words { share: 5_000 },
                    ],
                },
                reached("GUIDE", Reason::Words { share: 9_000 }),
                reached("DEC-WORDS", Reason::Words { share: 3_000 }),
                reached("DEC-LOG", Reason::Log { of: 2 }),
            ],
            dangling: Vec::new(),
            truncated: Vec::new(),
        };
        selection.reached.sort_by_key(|r| r.node);
        let inputs = RankInputs {
            relevance: [
                (ix("GUIDE"), 0.9),
                (ix("CITING"), 0.5),
                (ix("DEC-WORDS"), 0.3),
            ]
            .into(),
            boost: Vec::new(),
            confidence: Confidence::Strong,
        };
        let ids: Vec<String> = rank(&graph, selection, &inputs)
            .iter()
            .map(|r| graph.node(r.node).id.clone())
            .collect();
        // The decision the words reach before the better-matching pages; a backlink by its
        // words like any hit; a decision only the log brings and a backlink the words do not
        // reach after every hit, what governs first.
        assert_eq!(
            ids,
            ["START", "DEC-WORDS", "GUIDE", "CITING", "DEC-LOG", "PAGE"]
        );
    }

    #[test]
    fn tana_rules_are_hard_constraints_unless_marked_soft() {
        let tana = |id: &str, tags: &[&str], soft: bool, links: &[(&str, &str)]| {
            let mut n = node(
                id,
                Kind::parse(tags.first().copied().unwrap_or("node")),
                links,
            );
            n.origin = Origin::Tana;
            n.content = Content::Tana(TanaFields {
                tags: tags.iter().map(|t| t.to_string()).collect(),
                fields: if soft {
                    vec![TanaField {
                        name: "Severity".into(),
                        values: vec!["Soft".into()],
                    }]
                } else {
                    Vec::new()
                },
                ..TanaFields::default()
            });
            n
        };
        let (graph, _) = Graph::build(vec![
            tana("task1", &["task"], false, &[("child", "note1")]),
            tana(
                "note1",
                &["note"],
                false,
                &[("reference", "rule1"), ("reference", "soft1")],
            ),
            tana("rule1", &["rule"], false, &[]),
            tana("soft1", &["policy"], true, &[]),
        ]);
        let t = graph.lookup("task1").unwrap();
        let selection = traverse_tana(
            &graph,
            &[t],
            TraverseOptions {
                identity: false,
                follow: brief_model::Follow {
                    child: true,
                    parent: true,
                    reference: true,
                    field: true,
                },
                ..TraverseOptions::at(Depth::Hops(2))
            },
            None,
            &[],
        )
        .unwrap();
        let got: Vec<(String, Class)> = rank(&graph, selection, &RankInputs::default())
            .iter()
            .map(|r| (graph.node(r.node).id.clone(), r.class))
            .collect();
        assert_eq!(
            got,
            pairs(&[
                ("task1", Class::Target),
                ("rule1", Class::Hard),
                ("note1", Class::Direct),
                ("soft1", Class::Distant),
            ])
        );
    }
}
