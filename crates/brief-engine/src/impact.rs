//! `brief impact`: the targets whose context holds a node, each with the chain that brings it
//! in (`docs/impact.md`).
//!
//! Computed from the inverse of the traversal rules of `docs/traversal.md`
//! ([`inverse`]): candidates from each rule walked backwards once, then a verdict per
//! candidate from only the rules that can bring the node in, with the reasons the target's
//! own selection gives it — so a target is listed iff its context holds the node, and the
//! chain is the selection's. Where the inverse is unsure (a Tana target, a sampled fan-out, a
//! distance it cannot vouch for) the candidate is selected forward with the very settings
//! `brief context` uses ([`crate::context::plan`]). No context is ranked, fitted or rendered.
//!
//! The looser inverse here ([`explorers`]: no pruning) serves `impact --since`, which must
//! also find the targets whose traversal merely passes a changed node.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

pub(crate) use crate::context::WorkLimit;
use crate::context::{plan_for, select, ContextError, ContextRequest, Plan};
use crate::traverse::{Depth, Direction, Reason, Selection, TraverseOptions};
use inverse::{Inverse, Verdict, Walks};

mod inverse;
use brief_model::{Corpus, GraphView, NodeIx, Origin, Relation, Scope, Shape, StoreError};
use brief_project::Defaults;

/// A target whose context holds at least one of the asked nodes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Affected {
    /// The target's id.
    pub id: String,
    /// Its kind's name.
    pub kind: String,
    /// Per asked node the context holds, in the order asked: the chain of links from the
    /// target to it (`CHECKOUT-01 ← contains SHOP ← constrains POL-SHOP-01`).
    pub chain: Vec<String>,
}

/// The answer of `brief impact`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Impact {
    /// The asked nodes, as ids.
    pub nodes: Vec<String>,
    /// Sorted by id.
    pub targets: Vec<Affected>,
    /// How many candidate targets the inverse could not decide alone and selected forward
    /// (Tana targets, sampled fan-outs, a namespace node or the identity at a distance the
    /// restricted walk cannot vouch for): a cost figure, not part of the answer.
    #[serde(skip)]
    pub selected: usize,
    /// Nodes the walks and forward selections visited: the work counted against the limit
    /// ([`Plans::work_limit`]); a cost figure, not part of the answer.
    #[serde(skip)]
    pub visited: usize,
}

/// How many nodes the walks and forward selections of one `impact` may visit in all. The
/// inverse visits few per target; a target it cannot decide alone is selected forward, and
/// where that is most targets of a large dense region (a fan-out over the limit inside it)
/// the work grows with the square of the region: stopped here, in seconds, with a message.
pub(crate) const IMPACT_WORK_LIMIT: usize = 2_000_000;

/// The settings of a context per target origin, so a candidate is selected as `brief
/// context` would select it.
pub struct Plans {
    by_origin: Vec<(Origin, Plan)>,
    /// The origins a target may have: every one unless the caller knows the project's
    /// sources ([`Plans::only`]).
    possible: Vec<Origin>,
    /// The most nodes one `impact` may visit ([`IMPACT_WORK_LIMIT`] unless set).
    work_limit: usize,
}

impl Plans {
    /// The plans of `request` (depth, lens, identity) for every origin.
    pub fn new(defaults: &Defaults, request: &ContextRequest) -> Result<Plans, ContextError> {
        let lens = match &request.lens {
            Some(name) => Some(brief_model::find_lens(name, &defaults.lenses)?),
            None => None,
        };
        let by_origin = Origin::ALL
            .into_iter()
            .map(|origin| Ok((origin, plan_for(defaults, request, lens.clone(), origin)?)))
            .collect::<Result<Vec<_>, ContextError>>()?;
        let possible = by_origin.iter().map(|(origin, _)| *origin).collect();
        Ok(Plans {
            by_origin,
            possible,
            work_limit: IMPACT_WORK_LIMIT,
        })
    }

    /// Stops an `impact` once its walks and forward selections have visited more than
    /// `nodes` nodes ([`IMPACT_WORK_LIMIT`] by default).
    pub fn work_limit(mut self, nodes: usize) -> Plans {
        self.work_limit = nodes;
        self
    }

    /// The plans of a project whose nodes have only these origins (those of its sources).
    /// Without Tana targets, a target that rules 1–4 decide needs no look-up of its origin;
    /// with a single origin, no target does.
    pub fn only(mut self, origins: impl IntoIterator<Item = Origin>) -> Plans {
        self.possible = origins.into_iter().collect();
        self.possible.sort();
        self.possible.dedup();
        self
    }

    /// The plan for a target of `origin`.
    #[allow(clippy::expect_used)] // `Plans::new` makes a plan for each of the four origins
    pub fn of(&self, origin: Origin) -> &Plan {
        &self
            .by_origin
            .iter()
            .find(|(o, _)| *o == origin)
            .expect("a plan per origin")
            .1
    }

    fn rules(&self) -> impl Iterator<Item = &Plan> {
        self.by_origin
            .iter()
            .map(|(_, p)| p)
            .filter(|plan| !plan.tana)
    }
}

/// The targets whose context holds any of `nodes`.
pub fn impact(
    corpus: &dyn Corpus,
    plans: &Plans,
    nodes: &[NodeIx],
) -> Result<Impact, ContextError> {
    let mut asked: Vec<NodeIx> = Vec::new();
    for &node in nodes {
        if !asked.contains(&node) {
            asked.push(node);
        }
    }
    let identity = corpus.identity()?;
    let walks = Walks::default();
    let Candidates {
        mut inverses,
        mine,
        applied,
        candidates,
        everyone,
    } = candidates(corpus, plans, &asked, identity, &walks)?;
    let candidates: Vec<NodeIx> = candidates.into_iter().collect();
    // A target's origin picks its plan. Rules 1–4 do not depend on it, so without Tana
    // targets it is looked up only for a target that needs rule 5; with them, for every one.
    let tana_possible = plans.possible.iter().any(|o| o.shape() == Shape::Outline);
    let mut origins = Origins::new(corpus, plans, &candidates)?;
    let shared = plans.rules().next().map(|p| p.options);
    let mut targets: Vec<Affected> = Vec::new();
    let mut selected = 0;
    for (decided, &candidate) in candidates.iter().enumerate() {
        if walks.visited() > plans.work_limit {
            let mut nodes = Vec::new();
            for &n in &asked {
                nodes.push(corpus.id_of(n)?);
            }
            return Err(WorkLimit {
                nodes: nodes.join(", "),
                decided,
                candidates: candidates.len(),
                visited: walks.visited(),
                limit: plans.work_limit,
                selected,
            }
            .into());
        }
        // Selected forward only when the inverse cannot tell (or for a Tana target).
        let mut selection: Option<Selection> = None;
        let mut chains: Vec<String> = Vec::new();
        for (i, &node) in asked.iter().enumerate() {
            if let Some(scope) = applied[i].get(&candidate) {
                let step = format!("← applies {} ({})", corpus.id_of(node)?, scope_text(scope));
                chains.push(chain_text(corpus, candidate, vec![step])?);
                continue;
            }
            let everyone_here = everyone && Some(node) == identity;
            if !everyone_here && !mine[i].contains(&candidate) {
                continue;
            }
            let standing_asked = !tana_possible && shared.is_some();
            let standing = match (standing_asked, &shared) {
                (true, Some(options)) => inverses[i].probe_standing(candidate, options)?,
                _ => None,
            };
            let verdict = match standing {
                Some(steps) => Verdict::In(steps),
                None => {
                    let plan = plans.of(origins.of(corpus, candidate)?);
                    if plan.tana {
                        match inverses[i].given(candidate, &plan.options) {
                            Some(steps) => Verdict::In(steps),
                            None => Verdict::Unsure,
                        }
                    } else if standing_asked {
                        // Rules 1–4 already said no: only rule 5 is left.
                        inverses[i].probe_forward(candidate, &plan.options)?
                    } else {
                        inverses[i].probe(candidate, &plan.options)?
                    }
                }
            };
            let steps = match verdict {
                Verdict::In(steps) => Some(steps),
                Verdict::Out => None,
                Verdict::Unsure => {
                    let plan = plans.of(origins.of(corpus, candidate)?);
                    let selection = match &mut selection {
                        Some(selection) => selection,
                        None => {
                            selected += 1;
                            let forward = select(corpus, plan, &[candidate])?;
                            walks.visit(forward.reached.len());
                            selection.insert(forward)
                        }
                    };
                    chain_steps(corpus, selection, node)?
                }
            };
            if let Some(steps) = steps {
                chains.push(chain_text(corpus, candidate, steps)?);
            }
        }
        if !chains.is_empty() {
            targets.push(Affected {
                id: corpus.id_of(candidate)?,
                kind: corpus.kind_of(candidate)?.name().to_string(),
                chain: chains,
            });
        }
    }
    targets.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(Impact {
        nodes: asked
            .iter()
            .map(|&n| corpus.id_of(n))
            .collect::<Result<_, _>>()?,
        targets,
        selected,
        visited: walks.visited(),
    })
}

/// A candidate's origin, which picks its plan: when only one origin is possible, that one;
/// with Tana and others, every candidate's read up front; else each read once when asked.
struct Origins {
    sole: Option<Origin>,
    known: HashMap<NodeIx, Origin>,
}

impl Origins {
    fn new(
        corpus: &dyn Corpus,
        plans: &Plans,
        candidates: &[NodeIx],
    ) -> Result<Origins, StoreError> {
        let sole = match plans.possible.as_slice() {
            [origin] => Some(*origin),
            _ => None,
        };
        let mut known: HashMap<NodeIx, Origin> = HashMap::new();
        if plans.possible.contains(&Origin::Tana) && sole.is_none() {
            let store = corpus.store(candidates)?;
            known.extend(candidates.iter().map(|&c| (c, store.node(c).origin)));
        }
        Ok(Origins { sole, known })
    }

    fn of(&mut self, corpus: &dyn Corpus, c: NodeIx) -> Result<Origin, StoreError> {
        if let Some(origin) = self.sole {
            return Ok(origin);
        }
        if let Some(&origin) = self.known.get(&c) {
            return Ok(origin);
        }
        let origin = corpus.store(&[c])?.node(c).origin;
        self.known.insert(c, origin);
        Ok(origin)
    }
}

/// The candidate targets of the nodes asked about, and what decides each.
struct Candidates<'g> {
    /// Per node asked: its inverse walk, which decides a candidate.
    inverses: Vec<Inverse<'g>>,
    /// Per node asked: the candidates its inverse walk found.
    mine: Vec<BTreeSet<NodeIx>>,
    /// Per node asked: the targets it applies to without a link (rule 1b), and how.
    applied: Vec<BTreeMap<NodeIx, Scope>>,
    /// Every candidate, of any node.
    candidates: BTreeSet<NodeIx>,
    /// Whether the identity was asked about and is in every context.
    everyone: bool,
}

/// Gathers the candidates: the rules walked backwards from each node, Tana's, every node when
/// the identity is asked about, and the targets each node applies to.
fn candidates<'g>(
    corpus: &'g dyn Corpus,
    plans: &Plans,
    asked: &[NodeIx],
    identity: Option<NodeIx>,
    walks: &'g Walks,
) -> Result<Candidates<'g>, ContextError> {
    let rule_plans: Vec<TraverseOptions> = plans.rules().map(|p| p.options).collect();
    let mut inverses: Vec<Inverse> = Vec::new();
    let mut mine: Vec<BTreeSet<NodeIx>> = Vec::new();
    let mut candidates: BTreeSet<NodeIx> = BTreeSet::new();
    let mut everyone = false;
    for &node in asked {
        let mut inverse = Inverse::new(corpus, walks, node)?;
        let mut found = inverse.candidates(&rule_plans)?;
        if plans.possible.contains(&Origin::Tana) {
            found.extend(tana_candidates(corpus, plans, node)?);
        }
        if Some(node) == identity && plans.by_origin.iter().any(|(_, p)| p.options.identity) {
            everyone = true;
        }
        candidates.extend(found.iter().copied());
        inverses.push(inverse);
        mine.push(found);
    }
    if everyone {
        // The identity is in every context: every node is a candidate.
        for id in corpus.all_ids()? {
            candidates.extend(corpus.lookup(&id)?);
        }
    }
    // Rule 1b: a node that applies without a link is in the context of every target whose
    // files it covers, whatever the other rules say.
    let applied: Vec<BTreeMap<NodeIx, Scope>> = asked
        .iter()
        .map(|&node| applied_to(corpus, node))
        .collect::<Result<_, _>>()?;
    for found in &applied {
        candidates.extend(found.keys().copied());
    }
    Ok(Candidates {
        inverses,
        mine,
        applied,
        candidates,
        everyone,
    })
}

/// The targets `node` applies to without a link (rule 1b), and how: none unless it is a
/// current node that applies to some files or to every target.
fn applied_to(corpus: &dyn GraphView, node: NodeIx) -> Result<BTreeMap<NodeIx, Scope>, StoreError> {
    let mut found = BTreeMap::new();
    let Some((_, applies)) = corpus.scoped()?.into_iter().find(|(n, _)| *n == node) else {
        return Ok(found);
    };
    if !corpus.lifecycle_of(node)?.is_current() {
        return Ok(found);
    }
    for id in corpus.all_ids()? {
        let Some(target) = corpus.lookup(&id)? else {
            continue;
        };
        if target == node {
            continue;
        }
        let files = match applies {
            brief_model::Applies::Always => Vec::new(),
            _ => corpus.files_of(target)?,
        };
        if let Some(scope) = applies.reaches(&files) {
            found.insert(target, scope);
        }
    }
    Ok(found)
}

/// Every Tana target whose walk (both ways over the lens's families) could reach `node`.
fn tana_candidates(
    graph: &dyn GraphView,
    plans: &Plans,
    node: NodeIx,
) -> Result<BTreeSet<NodeIx>, StoreError> {
    let mut found = BTreeSet::new();
    let tana = plans.of(Origin::Tana);
    let follow = tana.options.follow;
    let mut best: HashMap<NodeIx, u32> = HashMap::from([(node, 0)]);
    let mut queue = VecDeque::from([(node, 0u32)]);
    while let Some((at, hops)) = queue.pop_front() {
        found.insert(at);
        if !within(tana.options.depth, hops + 1) {
            continue;
        }
        // A step P → at in a Tana walk: P's out-edge followed forward, or P's in-edge
        // followed inversely.
        let mut from: Vec<NodeIx> = Vec::new();
        for edge in graph.edges_in(at)? {
            let followed = match &edge.relation {
                Relation::Child => follow.child,
                Relation::Reference => follow.reference,
                Relation::Field(_) => follow.field,
                other => other.is_forward() && follow.reference,
            };
            if followed {
                from.push(edge.from);
            }
        }
        for edge in graph.edges_out(at)? {
            let followed = match &edge.relation {
                Relation::Child => follow.parent,
                Relation::Reference => follow.reference,
                Relation::Field(_) => follow.field,
                _ => false,
            };
            if followed {
                from.push(edge.to);
            }
        }
        for p in from {
            if let std::collections::hash_map::Entry::Vacant(e) = best.entry(p) {
                e.insert(hops + 1);
                queue.push_back((p, hops + 1));
            }
        }
    }
    Ok(found)
}

fn within(depth: Depth, hops: u32) -> bool {
    match depth {
        Depth::Hops(max) => hops <= max,
        Depth::Full => true,
    }
}

/// The chain of links from the selection's target to `node`, or `None` when the selection
/// does not hold it.
pub fn chain(
    graph: &dyn GraphView,
    selection: &Selection,
    node: NodeIx,
) -> Result<Option<String>, StoreError> {
    match chain_steps(graph, selection, node)? {
        Some(steps) => chain_text(graph, selection.target, steps).map(Some),
        None => Ok(None),
    }
}

/// `TARGET step step …`.
fn chain_text(
    graph: &dyn GraphView,
    target: NodeIx,
    steps: Vec<String>,
) -> Result<String, StoreError> {
    let mut text = graph.id_of(target)?;
    for step in steps {
        text.push(' ');
        text.push_str(&step);
    }
    Ok(text)
}

/// The steps after the target, e.g. `["← contains SHOP", "← constrains POL-SHOP-01"]`;
/// `["(the target)"]` for the target and `["(the project identity)"]` for the identity.
pub(crate) fn chain_steps(
    graph: &dyn GraphView,
    selection: &Selection,
    node: NodeIx,
) -> Result<Option<Vec<String>>, StoreError> {
    let by_node: HashMap<NodeIx, &crate::traverse::Reached> =
        selection.reached.iter().map(|r| (r.node, r)).collect();
    let mut steps: Vec<String> = Vec::new();
    let mut at = node;
    // Each step moves to a node strictly nearer the target, so this ends.
    for _ in 0..=selection.reached.len() {
        let Some(reached) = by_node.get(&at) else {
            return Ok(None);
        };
        let Some(reason) = pick(&by_node, reached) else {
            return Ok(None);
        };
        match reason {
            Reason::Target => {
                if steps.is_empty() {
                    steps.push("(the target)".to_string());
                }
                steps.reverse();
                return Ok(Some(steps));
            }
            Reason::Identity => return Ok(Some(vec!["(the project identity)".to_string()])),
            Reason::Applies { .. } | Reason::Words { .. } | Reason::Log { .. } => {
                let mut these = reason_steps(graph, reason, at)?;
                these.reverse();
                steps.extend(these);
                steps.reverse();
                return Ok(Some(steps));
            }
            Reason::Edge {
                relation,
                direction,
                from,
                via,
            } => {
                let mut these = rule_steps(graph, *from, relation, *direction, via, at)?;
                these.reverse();
                steps.extend(these);
                if *direction != Direction::Forward {
                    steps.reverse();
                    return Ok(Some(steps));
                }
                at = *from;
            }
        }
    }
    Ok(None)
}

/// The reason to explain a node by: a rule that starts at the target (not forward) first,
/// else a forward link from a node nearer the target; ties in the selection's reason order.
fn pick<'a>(
    by_node: &HashMap<NodeIx, &crate::traverse::Reached>,
    reached: &'a crate::traverse::Reached,
) -> Option<&'a Reason> {
    reached
        .reasons
        .iter()
        .find(|r| !matches!(r, Reason::Edge { direction, .. } if *direction == Direction::Forward))
        .or_else(|| {
            reached.reasons.iter().find(|r| match r {
                Reason::Edge { from, .. } => by_node
                    .get(from)
                    .is_some_and(|f| f.distance < reached.distance),
                _ => false,
            })
        })
}

/// The steps one reason stands for, from its `from` node to `node`.
fn rule_steps(
    graph: &dyn GraphView,
    from: NodeIx,
    relation: &Relation,
    direction: Direction,
    via: &[NodeIx],
    node: NodeIx,
) -> Result<Vec<String>, StoreError> {
    let id = |ix: NodeIx| graph.id_of(ix);
    let mut steps = Vec::new();
    match direction {
        Direction::Forward => steps.push(format!("→ {} {}", relation.name(), id(node)?)),
        Direction::Inverse => {
            // Namespace and constrainers: up `contains` through `via`, then the rule's edge.
            for &v in via {
                steps.push(format!("← contains {}", id(v)?));
            }
            steps.push(format!("← {} {}", relation.name(), id(node)?));
        }
        Direction::Linked => {
            for &v in via {
                steps.push(format!("→ links {}", id(v)?));
            }
            steps.push(format!("← {} {}", relation.name(), id(node)?));
        }
        Direction::Backlink => steps.push(format!("← {} {}", relation.name(), id(node)?)),
        Direction::Propagated => {
            // The layer walk: each step a `depends_on` target or a grouping parent.
            let mut prev = from;
            for &v in via {
                let depends = graph
                    .edges_out_of(prev, &Relation::DependsOn)?
                    .iter()
                    .any(|e| e.to == v);
                steps.push(if depends {
                    format!("→ depends_on {}", id(v)?)
                } else {
                    format!("← contains {}", id(v)?)
                });
                prev = v;
            }
            steps.push(format!("← {} {}", relation.name(), id(node)?));
        }
    }
    Ok(steps)
}

/// The impact as text: a header, then targets grouped by kind (kinds by name), each with its
/// chains.
pub fn impact_text(impact: &Impact) -> String {
    let mut out = String::new();
    let count = impact.targets.len();
    out.push_str(&format!(
        "{} {} in the context of {count} target{}\n",
        impact.nodes.join(", "),
        if impact.nodes.len() == 1 { "is" } else { "are" },
        if count == 1 { "" } else { "s" }
    ));
    let mut by_kind: BTreeMap<&str, Vec<&Affected>> = BTreeMap::new();
    for target in &impact.targets {
        by_kind.entry(&target.kind).or_default().push(target);
    }
    for (kind, targets) in by_kind {
        out.push_str(&format!("\n{kind} ({})\n", targets.len()));
        for target in targets {
            for chain in &target.chain {
                out.push_str(&format!("  {:<16} {chain}\n", target.id));
            }
        }
    }
    out
}

/// The impact as JSON (`{"nodes": [...], "targets": [{"id", "kind", "chain"}]}`).
pub(crate) fn render_json(impact: &Impact) -> String {
    let mut text = serde_json::to_string_pretty(impact).unwrap_or_default();
    text.push('\n');
    text
}

/// The steps one reason of `node` stands for, from the node the reason leaves (the target,
/// for every rule but forward links).
pub(crate) fn reason_steps(
    graph: &dyn GraphView,
    reason: &Reason,
    node: NodeIx,
) -> Result<Vec<String>, StoreError> {
    match reason {
        Reason::Edge {
            relation,
            direction,
            from,
            via,
        } => rule_steps(graph, *from, relation, *direction, via, node),
        Reason::Applies { scope, .. } => Ok(vec![format!(
            "← applies {} ({})",
            graph.id_of(node)?,
            scope_text(scope)
        )]),
        Reason::Words { share } => Ok(vec![format!(
            "~ words {} ({:.2})",
            graph.id_of(node)?,
            f64::from(*share) / 10_000.0
        )]),
        Reason::Log { of } => Ok(vec![format!("~ log {} (one of {of})", graph.id_of(node)?)]),
        Reason::Target | Reason::Identity => Ok(Vec::new()),
    }
}

/// How a node that applies without a link reached a target, in a few words: `always`, or
/// "glob `src/api/**` matches src/api/orders.ts".
pub(crate) fn scope_text(scope: &brief_model::Scope) -> String {
    match scope {
        brief_model::Scope::Always => "always".to_string(),
        brief_model::Scope::Glob { glob, file } => format!("glob `{glob}` matches {file}"),
        brief_model::Scope::Words { share } => {
            format!("its words match, {:.2}", f64::from(*share) / 10_000.0)
        }
        brief_model::Scope::Section { share } => {
            format!(
                "the part of a rule its words match, {:.2}",
                f64::from(*share) / 10_000.0
            )
        }
        brief_model::Scope::Named { folder, word } => {
            format!("folder `{folder}/` named by `{word}`")
        }
    }
}

/// Every target whose traversal could read `node` or its links, under some origin's plan
/// ([`Inverse::explorers`], and the Tana walk). When `node` changes, only these contexts can.
pub(crate) fn explorers(
    graph: &dyn GraphView,
    plans: &Plans,
    node: NodeIx,
) -> Result<BTreeSet<NodeIx>, StoreError> {
    // The identity is in every context: a change of it can change any.
    if graph.identity()? == Some(node) && plans.by_origin.iter().any(|(_, p)| p.options.identity) {
        let mut everyone = BTreeSet::new();
        for id in graph.all_ids()? {
            everyone.extend(graph.lookup(&id)?);
        }
        return Ok(everyone);
    }
    let walks = Walks::default();
    let rule_plans: Vec<TraverseOptions> = plans.rules().map(|p| p.options).collect();
    let mut found = Inverse::new(graph, &walks, node)?.explorers(&rule_plans)?;
    found.extend(tana_candidates(graph, plans, node)?);
    found.extend(applied_to(graph, node)?.into_keys());
    Ok(found)
}

#[cfg(test)]
mod tests;
