//! The traversal rules run backwards from one asked node, with a verdict per target.
//!
//! [`Inverse::candidates`] is every target whose context could hold the node, found by
//! walking each rule backwards once for the whole graph; [`Inverse::probe`] then decides one
//! target by evaluating only the rules that can bring *this* node in, for *this* target:
//! its namespace and constrainers, its layer walk against the layers that propagate the node
//! (supersedes pruning included), and forward links inside the region that reaches the node
//! within the depth. The verdict carries the same reasons a full selection gives the node, so
//! the chain is the one `brief context --format json` and `explain` report.
//!
//! Where the inverse cannot be exact cheaply it says [`Verdict::Unsure`] and the caller
//! selects the target forward: a fan-out over the limit inside the region (sampling depends
//! on the whole selection), and a namespace node or the identity that links into the region
//! at a distance the restricted walk cannot vouch for.

use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::rc::Rc;

use crate::traverse::{
    ancestors, edge_reason, follows_forward, reason_key, walk_step, Depth, Direction, LayerWalk,
    Reached, Reason, Selection, TraverseOptions, WalkStep,
};
use brief_model::{GraphView, IxMap, Kind, LayerGuide, NodeIx, Relation, StoreError};

/// One target's answer for the asked node.
#[derive(Debug)]
pub(super) enum Verdict {
    /// The context holds the node; the chain's steps after the target.
    In(Vec<String>),
    /// The context does not hold the node.
    Out,
    /// Only a forward selection can tell.
    Unsure,
}

/// The nodes that reach the asked node over forward links the plan follows, within its
/// depth, and whether a fan-out inside that region could be sampled.
struct Region {
    /// Fewest forward hops to the asked node.
    hops: HashMap<NodeIx, u32>,
    options: TraverseOptions,
    /// Whether a fan-out inside the region is over the limit: read when first asked, since
    /// only targets that need rule 5 ask.
    sampled: OnceCell<bool>,
}

impl Region {
    /// Whether sampling could drop an edge inside the region: a node of it with more edges
    /// of one followed relation than the limit, one of which leads into the region.
    fn sampled(&self, graph: &dyn GraphView) -> Result<bool, StoreError> {
        if let Some(&sampled) = self.sampled.get() {
            return Ok(sampled);
        }
        let mut sampled = false;
        for &at in self.hops.keys() {
            let mut groups: HashMap<&Relation, (usize, bool)> = HashMap::new();
            let edges = graph.edges_out(at)?;
            for edge in &edges {
                if follows_forward(self.options.follow, &edge.relation) {
                    let group = groups.entry(&edge.relation).or_default();
                    group.0 += 1;
                    group.1 |= self.hops.contains_key(&edge.to);
                }
            }
            if groups
                .values()
                .any(|&(count, inward)| inward && count > self.options.fanout)
            {
                sampled = true;
                break;
            }
        }
        Ok(*self.sampled.get_or_init(|| sampled))
    }
}

/// Past this many nodes a backwards layer walk reads the walk's edges whole instead of node
/// by node (one scan of two relations against a query per node). Unit tests read whole at
/// once, so both ways are tested (the integration tests walk node by node).
#[cfg(not(test))]
const WHOLE_READ_AFTER: usize = 4096;
#[cfg(test)]
const WHOLE_READ_AFTER: usize = 0;

/// What the inverses of one `impact` share: each node's layer-walk step, and the walk's
/// edges both ways once a walk has grown large enough to read them whole.
#[derive(Default)]
pub(super) struct Walks {
    steps: RefCell<IxMap<Rc<WalkStep>>>,
    /// `None` inside when the view cannot list a relation's edges.
    whole: OnceCell<Option<WholeWalk>>,
    /// Nodes visited by the walks of rule 5 and the forward selections so far: the work
    /// `impact` counts against its limit.
    visited: std::cell::Cell<usize>,
}

/// The layer walk's edges, read whole.
struct WholeWalk {
    /// Per node, the nodes its walk steps to: its `depends_on` targets and its feature or
    /// layer `contains` parents.
    after: IxMap<Vec<NodeIx>>,
    /// Per node, the nodes whose walk steps to it.
    before: IxMap<Vec<NodeIx>>,
    layers: std::collections::HashSet<NodeIx>,
}

impl Walks {
    /// Counts `nodes` more visited.
    pub(super) fn visit(&self, nodes: usize) {
        self.visited.set(self.visited.get().saturating_add(nodes));
    }

    /// The nodes visited so far.
    pub(super) fn visited(&self) -> usize {
        self.visited.get()
    }

    /// `at`'s step, remembered: from the whole read when there is one, else from `at`'s
    /// edges.
    fn step(&self, graph: &dyn GraphView, at: NodeIx) -> Result<Rc<WalkStep>, StoreError> {
        if let Some(step) = self.steps.borrow().get(&at) {
            return Ok(Rc::clone(step));
        }
        let step = match self.whole.get() {
            Some(Some(whole)) => {
                let mut step: WalkStep = Vec::new();
                for &next in whole.after.get(&at).map_or(&[][..], |a| a.as_slice()) {
                    step.push((graph.id_of(next)?, next, whole.layers.contains(&next)));
                }
                step.sort();
                step.dedup();
                step
            }
            _ => walk_step(graph, at)?,
        };
        let step = Rc::new(step);
        self.steps.borrow_mut().insert(at, Rc::clone(&step));
        Ok(step)
    }

    /// The nodes whose walk steps to `at`: what depends on it, and what it contains when it
    /// is a feature or a layer.
    fn before(
        &self,
        graph: &dyn GraphView,
        at: NodeIx,
        whole: bool,
    ) -> Result<Cow<'_, [NodeIx]>, StoreError> {
        if whole && self.whole.get().is_none() {
            let read = read_whole(graph)?;
            let _ = self.whole.set(read);
        }
        if let Some(Some(whole)) = self.whole.get() {
            return Ok(Cow::Borrowed(
                whole.before.get(&at).map_or(&[], |b| b.as_slice()),
            ));
        }
        let mut before: Vec<NodeIx> = graph
            .edges_in_of(at, &Relation::DependsOn)?
            .into_iter()
            .map(|e| e.from)
            .collect();
        if graph.kind_of(at)?.is_grouping() {
            before.extend(
                graph
                    .edges_out_of(at, &Relation::Contains)?
                    .into_iter()
                    .map(|e| e.to),
            );
        }
        Ok(Cow::Owned(before))
    }
}

/// The layer walk's edges, read whole, or `None` when the view cannot.
fn read_whole(graph: &dyn GraphView) -> Result<Option<WholeWalk>, StoreError> {
    let (Some(depends), Some(contains), Some(features), Some(layers)) = (
        graph.relation_pairs(&Relation::DependsOn)?,
        graph.relation_pairs(&Relation::Contains)?,
        graph.nodes_of_kind(&Kind::Feature)?,
        graph.nodes_of_kind(&Kind::Layer)?,
    ) else {
        return Ok(None);
    };
    let layers: std::collections::HashSet<NodeIx> = layers.into_iter().collect();
    let mut after: IxMap<Vec<NodeIx>> = IxMap::default();
    let mut before: IxMap<Vec<NodeIx>> = IxMap::default();
    for (from, to) in depends {
        after.entry(from).or_default().push(to);
        before.entry(to).or_default().push(from);
    }
    let features: std::collections::HashSet<NodeIx> = features.into_iter().collect();
    for (parent, child) in contains {
        if features.contains(&parent) || layers.contains(&parent) {
            after.entry(child).or_default().push(parent);
            before.entry(parent).or_default().push(child);
        }
    }
    Ok(Some(WholeWalk {
        after,
        before,
        layers,
    }))
}

/// The inverse of the traversal for one asked node.
pub(super) struct Inverse<'g> {
    graph: &'g dyn GraphView,
    walks: &'g Walks,
    node: NodeIx,
    identity: Option<NodeIx>,
    /// Per node looked at: the layers whose guidance holds it, with the guide rows.
    propagated: HashMap<NodeIx, Rc<BTreeMap<NodeIx, Vec<LayerGuide>>>>,
    /// Per node looked at: the nodes that transitively supersede it.
    superseders: HashMap<NodeIx, Rc<BTreeSet<NodeIx>>>,
    /// Per node looked at: what it `constrains`.
    constrained: HashMap<NodeIx, Rc<BTreeSet<NodeIx>>>,
    /// Per plan (by its depth and families): the region around the node.
    regions: Vec<(RegionKey, Rc<Region>)>,
}

/// What of a plan shapes the region: the depth, the families followed, the fan-out limit.
type RegionKey = (Depth, brief_model::Follow, usize);

impl<'g> Inverse<'g> {
    /// The inverse for `node`.
    pub(super) fn new(
        graph: &'g dyn GraphView,
        walks: &'g Walks,
        node: NodeIx,
    ) -> Result<Inverse<'g>, StoreError> {
        Ok(Inverse {
            graph,
            walks,
            node,
            identity: graph.identity()?,
            propagated: HashMap::new(),
            superseders: HashMap::new(),
            constrained: HashMap::new(),
            regions: Vec::new(),
        })
    }

    /// Every target whose context could hold the node under one of `plans` (the rule-set
    /// plans, not Tana's): a superset of the exact answer, tight enough that deciding each
    /// candidate is the whole remaining cost.
    pub(super) fn candidates(
        &mut self,
        plans: &[TraverseOptions],
    ) -> Result<BTreeSet<NodeIx>, StoreError> {
        let graph = self.graph;
        let node = self.node;
        let mut found = BTreeSet::from([node]);
        // Rule 2: the node is the namespace of everything beneath it.
        if plans.iter().any(|p| p.follow.parent) {
            found.extend(graph.reach_out(node, &Relation::Contains)?);
        }
        // Rules 3 and 3b.
        found.extend(self.constrained_targets(node)?);
        // Rule 4, minus the targets where a superseder of the node is also propagated.
        let reaching = self.reaching(&[node])?;
        let supers: Vec<NodeIx> = self.superseders_of(node)?.iter().copied().collect();
        let pruned = self.reaching(&supers)?;
        // A target's own layers are not in its walk: a layer that propagates a superseder
        // may reach itself only around a cycle, which prunes nothing.
        let mut uncertain: BTreeSet<NodeIx> = supers.iter().copied().collect();
        for &s in &supers {
            uncertain.extend(self.propagated_by(s)?.keys().copied());
        }
        for t in reaching {
            if t != node && (!pruned.contains(&t) || uncertain.contains(&t)) {
                found.insert(t);
            }
        }
        // Rule 5: what links to the node within the depth, and the targets those links'
        // sources are guidance for.
        for options in plans {
            let region = self.region(options)?;
            let mut guides: Vec<NodeIx> = Vec::new();
            for (&at, &hops) in &region.hops {
                found.insert(at);
                if at != node && options.depth.allows(hops + 1) {
                    guides.push(at);
                }
            }
            guides.sort_unstable();
            for &g in &guides {
                found.extend(self.constrained_targets(g)?);
            }
            found.extend(self.reaching(&guides)?);
        }
        Ok(found)
    }

    /// The chain when the node is in every selection of `target` whatever its rules: the
    /// target itself, or the identity (every traversal, Tana's included, adds it first).
    pub(super) fn given(&self, target: NodeIx, options: &TraverseOptions) -> Option<Vec<String>> {
        if self.node == target {
            return Some(vec!["(the target)".to_string()]);
        }
        if options.identity && self.identity == Some(self.node) {
            return Some(vec!["(the project identity)".to_string()]);
        }
        None
    }

    /// Whether `target`'s context holds the node by rules 1–4 (target, identity, namespace,
    /// constrainers, layer guidance), and the chain. These rules read only the families and
    /// the identity setting, which every rule-set plan of one request shares, so the answer
    /// holds whatever the target's origin (Tana targets aside).
    pub(crate) fn probe_standing(
        &mut self,
        target: NodeIx,
        options: &TraverseOptions,
    ) -> Result<Option<Vec<String>>, StoreError> {
        if let Some(steps) = self.given(target, options) {
            return Ok(Some(steps));
        }
        let context = TargetRules::new(self.graph, target)?;
        let reasons = self.standing_reasons(&context, self.node, options)?;
        if reasons.is_empty() {
            return Ok(None);
        }
        match self.steps(target, vec![reached(self.graph, self.node, 1, reasons)?])? {
            Verdict::In(steps) => Ok(Some(steps)),
            _ => Ok(None),
        }
    }

    /// Whether `target`'s context, selected with `options`, holds the node, and the chain.
    pub(super) fn probe(
        &mut self,
        target: NodeIx,
        options: &TraverseOptions,
    ) -> Result<Verdict, StoreError> {
        if let Some(steps) = self.probe_standing(target, options)? {
            return Ok(Verdict::In(steps));
        }
        self.probe_forward(target, options)
    }

    /// Rule 5 only, for a target rules 1–4 do not bring the node into: a walk from the target
    /// and its guidance inside the region.
    pub(crate) fn probe_forward(
        &mut self,
        target: NodeIx,
        options: &TraverseOptions,
    ) -> Result<Verdict, StoreError> {
        let graph = self.graph;
        let node = self.node;
        let context = TargetRules::new(graph, target)?;
        let region = self.region(options)?;
        if region.hops.len() == 1 {
            // Nothing links to the node within the depth.
            return Ok(Verdict::Out);
        }
        if region.sampled(graph)? {
            return Ok(Verdict::Unsure);
        }
        let hops = &region.hops;
        let mut standing = self.standing_in(&context, &region, options)?;
        let mut sources: Vec<(NodeIx, u32)> = Vec::new();
        if hops.contains_key(&target) {
            sources.push((target, 0));
        }
        sources.extend(
            standing
                .iter()
                .filter(|(_, s)| s.guidance)
                .map(|(&at, _)| (at, 1)),
        );
        // A namespace node or the identity stands nearer the target than its forward
        // distance; it may be picked as a chain's step only if the walk found its true
        // distance (a node of the region at a distance that still reaches the node).
        let mut stands_near: Vec<NodeIx> = Vec::new();
        if options.follow.parent {
            stands_near.extend(context.ancestors.keys().filter(|a| hops.contains_key(a)));
        }
        if let Some(identity) = self.identity.filter(|&i| options.identity && i != target) {
            if hops.contains_key(&identity) {
                stands_near.push(identity);
            }
        }
        // Without such a node every distance is the walk's own, and only the shortest ways to
        // the node can give its chain: the walk follows those alone.
        let walked = if stands_near.is_empty() {
            shortest_walk(graph, &region, target, &sources)?
        } else {
            whole_walk(graph, &region, target, &sources)?
        };
        let Walked { best, mut forward } = walked;
        self.walks.visit(best.len());
        if !best.contains_key(&node) {
            return Ok(Verdict::Out);
        }
        let exact = |at: NodeIx| {
            best.get(&at)
                .is_some_and(|&b| options.depth.allows(b + hops[&at]))
        };
        if stands_near.iter().any(|&at| !exact(at)) {
            return Ok(Verdict::Unsure);
        }
        let mut selection: Vec<Reached> = Vec::new();
        let mut nodes: BTreeSet<NodeIx> = best.keys().copied().collect();
        nodes.extend(standing.keys().copied());
        for at in nodes {
            let (mut distance, mut reasons) = standing
                .remove(&at)
                .map_or((u32::MAX, Vec::new()), |s| (s.distance, s.reasons));
            if at == target {
                distance = 0;
                reasons.push(Reason::Target);
            }
            if options.identity && self.identity == Some(at) && at != target {
                distance = 0;
                reasons.push(Reason::Identity);
            }
            if let Some(&b) = best.get(&at) {
                distance = distance.min(b);
            }
            reasons.extend(forward.remove(&at).unwrap_or_default());
            selection.push(reached(graph, at, distance, reasons)?);
        }
        self.steps(target, selection)
    }

    /// The nodes of the region that rules 2–4 bring into `context`'s selection, with their
    /// distance and reasons. Only the target's namespace, the constrainers of the target, of
    /// its namespace and (a task) of its links, and its layers' guidance can be brought in
    /// that way, so only those are asked, not the whole region.
    fn standing_in(
        &mut self,
        context: &TargetRules,
        region: &Region,
        options: &TraverseOptions,
    ) -> Result<BTreeMap<NodeIx, Standing>, StoreError> {
        let graph = self.graph;
        let target = context.target;
        let mut asked: BTreeSet<NodeIx> = context.ancestors.keys().copied().collect();
        let constrained = std::iter::once(&target)
            .chain(context.ancestors.keys())
            .chain(&context.linked);
        for &at in constrained {
            asked.extend(
                graph
                    .edges_in_of(at, &Relation::Constrains)?
                    .into_iter()
                    .map(|e| e.from),
            );
        }
        let walk = context.walk(graph, self.walks)?;
        for &(_, _, layer) in &walk.layers {
            let guides = match graph.layer_guides(layer)? {
                Some(guides) => guides,
                None => brief_model::layer_guides(graph, layer)?,
            };
            asked.extend(guides.iter().map(|g| g.node));
        }
        let mut standing = BTreeMap::new();
        for at in asked {
            if at == target || !region.hops.contains_key(&at) {
                continue;
            }
            let reasons = self.standing_reasons(context, at, options)?;
            if reasons.is_empty() {
                continue;
            }
            // Constrainers (rules 3, 3b) and layer guidance (rule 4) start rule 5 at distance 1.
            let guidance = reasons.iter().any(|r| {
                matches!(
                    r,
                    Reason::Edge {
                        relation: Relation::Constrains,
                        ..
                    } | Reason::Edge {
                        direction: Direction::Propagated,
                        ..
                    }
                )
            });
            let distance = if guidance {
                1
            } else {
                // The namespace: its hops up `contains`.
                context.ancestors.get(&at).map_or(u32::MAX, |(h, _)| *h)
            };
            standing.insert(
                at,
                Standing {
                    distance,
                    reasons,
                    guidance,
                },
            );
        }
        Ok(standing)
    }

    /// The chain of `node` in a partial selection holding every node it may pass.
    fn steps(&self, target: NodeIx, reached: Vec<Reached>) -> Result<Verdict, StoreError> {
        let selection = Selection {
            target,
            reached,
            dangling: Vec::new(),
            truncated: Vec::new(),
        };
        Ok(
            match super::chain_steps(self.graph, &selection, self.node)? {
                Some(steps) => Verdict::In(steps),
                None => Verdict::Unsure,
            },
        )
    }

    /// The reasons of rules 2–4 that bring `at` into `context`'s selection (namespace,
    /// constrainers, a task's linked constrainers, layer guidance after pruning).
    fn standing_reasons(
        &mut self,
        context: &TargetRules,
        at: NodeIx,
        options: &TraverseOptions,
    ) -> Result<Vec<Reason>, StoreError> {
        let target = context.target;
        let mut reasons: Vec<Reason> = Vec::new();
        if let Some((_, path)) = context.ancestors.get(&at).filter(|_| options.follow.parent) {
            reasons.push(edge_reason(
                Relation::Contains,
                Direction::Inverse,
                target,
                path.clone(),
            ));
        }
        if at != target {
            let constrained = self.constrained_by(at)?;
            if constrained.contains(&target) {
                reasons.push(edge_reason(
                    Relation::Constrains,
                    Direction::Inverse,
                    target,
                    Vec::new(),
                ));
            }
            for (ancestor, (_, path)) in &context.ancestors {
                if constrained.contains(ancestor) {
                    let mut via = path.clone();
                    via.push(*ancestor);
                    reasons.push(edge_reason(
                        Relation::Constrains,
                        Direction::Inverse,
                        target,
                        via,
                    ));
                }
            }
            for spec in &context.linked {
                if constrained.contains(spec) {
                    reasons.push(edge_reason(
                        Relation::Constrains,
                        Direction::Linked,
                        target,
                        vec![*spec],
                    ));
                }
            }
            let propagated = self.propagated_by(at)?;
            let walk = context.walk(self.graph, self.walks)?;
            let mut propagating = Vec::new();
            for &(_, _, layer) in &walk.layers {
                if let Some(guides) = propagated.get(&layer) {
                    let path = walk.path(layer);
                    propagating.extend(guides.iter().filter_map(|g| walk.reason(layer, &path, g)));
                }
            }
            if !propagating.is_empty() && !self.pruned(context, at)? {
                reasons.extend(propagating);
            }
        }
        reasons.sort();
        reasons.dedup();
        Ok(reasons)
    }

    /// Whether rule 4 drops `at` for the target: another candidate of its layer walk
    /// supersedes it.
    fn pruned(&mut self, context: &TargetRules, at: NodeIx) -> Result<bool, StoreError> {
        let walk = context.walk(self.graph, self.walks)?;
        let layers: BTreeSet<NodeIx> = walk.layers.iter().map(|&(_, _, l)| l).collect();
        for &other in self.superseders_of(at)?.iter() {
            if other == context.target {
                continue;
            }
            if self
                .propagated_by(other)?
                .keys()
                .any(|l| layers.contains(l))
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The targets `guide` constrains by rules 3 and 3b: what it constrains, everything
    /// beneath that, and the tasks that link what it constrains.
    fn constrained_targets(&mut self, guide: NodeIx) -> Result<BTreeSet<NodeIx>, StoreError> {
        let graph = self.graph;
        let mut found = BTreeSet::new();
        for &spec in self.constrained_by(guide)?.iter() {
            found.extend(graph.reach_out(spec, &Relation::Contains)?);
            for edge in graph.edges_in(spec)? {
                if edge.relation.is_forward() && graph.kind_of(edge.from)? == Kind::Task {
                    found.insert(edge.from);
                }
            }
        }
        Ok(found)
    }

    /// Every node whose layer walk reaches, in at least one step, a layer that propagates one
    /// of `guides`.
    fn reaching(&mut self, guides: &[NodeIx]) -> Result<BTreeSet<NodeIx>, StoreError> {
        let mut layers: BTreeSet<NodeIx> = BTreeSet::new();
        for &g in guides {
            layers.extend(self.propagated_by(g)?.keys().copied());
        }
        self.walking_to(layers)
    }

    /// Every node whose layer walk reaches one of `ends` in at least one step.
    fn walking_to(&self, ends: BTreeSet<NodeIx>) -> Result<BTreeSet<NodeIx>, StoreError> {
        let mut seen: BTreeSet<NodeIx> = BTreeSet::new();
        let mut stack: Vec<NodeIx> = ends.into_iter().collect();
        while let Some(at) = stack.pop() {
            let whole = seen.len() > WHOLE_READ_AFTER;
            for &before in self.walks.before(self.graph, at, whole)?.iter() {
                if seen.insert(before) {
                    stack.push(before);
                }
            }
        }
        Ok(seen)
    }

    /// Every target whose traversal under one of `plans` could read the node or its links:
    /// the candidates without any pruning (a superseder pruned itself still prunes, so a
    /// change of it can matter where it is pruned), what the node contains (whose namespace
    /// walk passes it) and every node whose layer walk passes through it. When the node
    /// changes, only these contexts can (`impact --since`).
    pub(crate) fn explorers(
        &mut self,
        plans: &[TraverseOptions],
    ) -> Result<BTreeSet<NodeIx>, StoreError> {
        let node = self.node;
        // Every target that may hold it, what it contains, and where rule 4 would propagate it
        // before pruning (a pruned superseder still prunes, so its change matters there)...
        let mut found = self.candidates(plans)?;
        found.extend(self.graph.reach_out(node, &Relation::Contains)?);
        found.extend(self.propagated_by(node)?.keys().copied());
        found.extend(self.reaching(&[node])?);
        // ... the layers that propagate it or what links to it within the depth (the walk
        // from a layer never counts the layer itself, but a change there is read there)...
        for options in plans {
            let region = self.region(options)?;
            for (&at, &hops) in &region.hops {
                if options.depth.allows(hops + 1) {
                    found.extend(self.propagated_by(at)?.keys().copied());
                }
            }
        }
        // ... and every node whose layer walk passes through it.
        found.extend(self.walking_to(BTreeSet::from([node]))?);
        Ok(found)
    }

    /// The region of `options`, built once per plan shape.
    fn region(&mut self, options: &TraverseOptions) -> Result<Rc<Region>, StoreError> {
        let key = (options.depth, options.follow, options.fanout);
        if let Some((_, region)) = self.regions.iter().find(|(k, _)| *k == key) {
            return Ok(Rc::clone(region));
        }
        let graph = self.graph;
        let mut hops: HashMap<NodeIx, u32> = HashMap::from([(self.node, 0)]);
        let mut queue = VecDeque::from([(self.node, 0u32)]);
        while let Some((at, h)) = queue.pop_front() {
            if !options.depth.allows(h + 1) {
                continue;
            }
            for edge in graph.edges_in(at)? {
                if follows_forward(options.follow, &edge.relation) && !hops.contains_key(&edge.from)
                {
                    hops.insert(edge.from, h + 1);
                    queue.push_back((edge.from, h + 1));
                }
            }
        }
        let region = Rc::new(Region {
            hops,
            options: *options,
            sampled: OnceCell::new(),
        });
        self.regions.push((key, Rc::clone(&region)));
        Ok(region)
    }

    /// The layers whose guidance (rule 4) holds `at`, with the guide rows: the layers above
    /// it when it is a decision, and the layers above what it constrains.
    fn propagated_by(
        &mut self,
        at: NodeIx,
    ) -> Result<Rc<BTreeMap<NodeIx, Vec<LayerGuide>>>, StoreError> {
        if !self.propagated.contains_key(&at) {
            let graph = self.graph;
            let mut members: Vec<(NodeIx, Relation)> = Vec::new();
            if graph.kind_of(at)? == Kind::Decision {
                members.push((at, Relation::Contains));
            }
            for &spec in self.constrained_by(at)?.iter() {
                members.push((spec, Relation::Constrains));
            }
            let mut layers: BTreeMap<NodeIx, Vec<LayerGuide>> = BTreeMap::new();
            for (member, relation) in members {
                for holder in graph.reach_in(member, &Relation::Contains)? {
                    if graph.kind_of(holder)? == Kind::Layer {
                        layers.entry(holder).or_default().push(LayerGuide {
                            node: at,
                            member,
                            relation: relation.clone(),
                        });
                    }
                }
            }
            for guides in layers.values_mut() {
                guides.sort();
                guides.dedup();
            }
            self.propagated.insert(at, Rc::new(layers));
        }
        Ok(Rc::clone(&self.propagated[&at]))
    }

    /// What `at` constrains.
    fn constrained_by(&mut self, at: NodeIx) -> Result<Rc<BTreeSet<NodeIx>>, StoreError> {
        if !self.constrained.contains_key(&at) {
            let set = self
                .graph
                .edges_out_of(at, &Relation::Constrains)?
                .into_iter()
                .map(|e| e.to)
                .collect();
            self.constrained.insert(at, Rc::new(set));
        }
        Ok(Rc::clone(&self.constrained[&at]))
    }

    /// The nodes that transitively supersede `at`, without `at`.
    fn superseders_of(&mut self, at: NodeIx) -> Result<Rc<BTreeSet<NodeIx>>, StoreError> {
        if !self.superseders.contains_key(&at) {
            let mut set = self.graph.reach_in(at, &Relation::Supersedes)?;
            set.remove(&at);
            self.superseders.insert(at, Rc::new(set));
        }
        Ok(Rc::clone(&self.superseders[&at]))
    }
}

/// A node rules 2–4 bring into a target's selection.
struct Standing {
    distance: u32,
    reasons: Vec<Reason>,
    /// A constrainer or layer guidance: rule 5 starts from it at distance 1.
    guidance: bool,
}

/// A forward walk inside the region: each node's fewest hops from the walk's sources, and
/// the forward links that reach it.
struct Walked {
    best: HashMap<NodeIx, u32>,
    forward: BTreeMap<NodeIx, Vec<Reason>>,
}

/// Whether the walk follows `edge` from a node of the region into it.
fn inward(region: &Region, target: NodeIx, edge: &brief_model::Edge) -> bool {
    edge.to != target
        && region.hops.contains_key(&edge.to)
        && follows_forward(region.options.follow, &edge.relation)
}

/// The walk of rule 5 from `sources` over every forward link inside the region, as a
/// selection walks it.
fn whole_walk(
    graph: &dyn GraphView,
    region: &Region,
    target: NodeIx,
    sources: &[(NodeIx, u32)],
) -> Result<Walked, StoreError> {
    let mut walked = Walked {
        best: HashMap::new(),
        forward: BTreeMap::new(),
    };
    let mut queue: VecDeque<(NodeIx, u32)> = VecDeque::new();
    for &(at, d) in sources {
        if walked.best.get(&at).is_none_or(|&b| b > d) {
            walked.best.insert(at, d);
            queue.push_back((at, d));
        }
    }
    queue.make_contiguous().sort_by_key(|&(_, d)| d);
    while let Some((at, d)) = queue.pop_front() {
        if walked.best.get(&at) != Some(&d) || !region.options.depth.allows(d + 1) {
            continue;
        }
        for edge in graph.edges_out(at)? {
            if !inward(region, target, &edge) {
                continue;
            }
            walked.forward.entry(edge.to).or_default().push(edge_reason(
                edge.relation.clone(),
                Direction::Forward,
                at,
                Vec::new(),
            ));
            if walked.best.get(&edge.to).is_none_or(|&b| b > d + 1) {
                walked.best.insert(edge.to, d + 1);
                queue.push_back((edge.to, d + 1));
            }
        }
    }
    Ok(walked)
}

/// The same walk restricted to the shortest ways from `sources` to the asked node (the
/// region's own node at hop 0): a link is followed only when it leads one hop nearer at the
/// fewest hops overall. Every node on such a way has the distance the whole walk gives it,
/// and every link into it from a nearer node is one of these, so the chain `pick` reads
/// back from the asked node is the whole walk's — at the cost of the few nodes on shortest
/// ways instead of the region.
fn shortest_walk(
    graph: &dyn GraphView,
    region: &Region,
    target: NodeIx,
    sources: &[(NodeIx, u32)],
) -> Result<Walked, StoreError> {
    let mut walked = Walked {
        best: HashMap::new(),
        forward: BTreeMap::new(),
    };
    let hops = &region.hops;
    let Some(fewest) = sources.iter().map(|&(at, d)| d + hops[&at]).min() else {
        return Ok(walked);
    };
    if !region.options.depth.allows(fewest) {
        return Ok(walked);
    }
    let mut queue: VecDeque<(NodeIx, u32)> = VecDeque::new();
    for &(at, d) in sources {
        if d + hops[&at] == fewest && walked.best.get(&at).is_none_or(|&b| b > d) {
            walked.best.insert(at, d);
            queue.push_back((at, d));
        }
    }
    queue.make_contiguous().sort_by_key(|&(_, d)| d);
    while let Some((at, d)) = queue.pop_front() {
        if walked.best.get(&at) != Some(&d) || d >= fewest {
            continue;
        }
        for edge in graph.edges_out(at)? {
            if !inward(region, target, &edge) || d + 1 + hops[&edge.to] != fewest {
                continue;
            }
            walked.forward.entry(edge.to).or_default().push(edge_reason(
                edge.relation.clone(),
                Direction::Forward,
                at,
                Vec::new(),
            ));
            if walked.best.get(&edge.to).is_none_or(|&b| b > d + 1) {
                walked.best.insert(edge.to, d + 1);
                queue.push_back((edge.to, d + 1));
            }
        }
    }
    Ok(walked)
}

/// What one target's selection is built from, computed when first needed.
struct TargetRules {
    target: NodeIx,
    /// Transitive `contains` ancestors: hops and the path in between.
    ancestors: BTreeMap<NodeIx, (u32, Vec<NodeIx>)>,
    /// What a task target links directly (rule 3b); empty for other kinds.
    linked: BTreeSet<NodeIx>,
    walk: OnceCell<LayerWalk>,
}

impl TargetRules {
    fn new(graph: &dyn GraphView, target: NodeIx) -> Result<TargetRules, StoreError> {
        let linked = if graph.kind_of(target)? == Kind::Task {
            graph
                .edges_out(target)?
                .iter()
                .filter(|e| e.relation.is_forward())
                .map(|e| e.to)
                .collect()
        } else {
            BTreeSet::new()
        };
        Ok(TargetRules {
            target,
            ancestors: ancestors(graph, target)?,
            linked,
            walk: OnceCell::new(),
        })
    }

    fn walk(&self, graph: &dyn GraphView, walks: &Walks) -> Result<&LayerWalk, StoreError> {
        if let Some(walk) = self.walk.get() {
            return Ok(walk);
        }
        let walk = LayerWalk::with_steps(self.target, |at| walks.step(graph, at))?;
        Ok(self.walk.get_or_init(|| walk))
    }
}

/// A selection entry with its reasons in the order a selection keeps them.
fn reached(
    graph: &dyn GraphView,
    node: NodeIx,
    distance: u32,
    reasons: Vec<Reason>,
) -> Result<Reached, StoreError> {
    let id = |ix: &NodeIx| graph.id_of(*ix);
    let mut keyed = Vec::with_capacity(reasons.len());
    for reason in reasons {
        keyed.push((reason_key(&reason, &id)?, reason));
    }
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.dedup_by(|a, b| a.1 == b.1);
    Ok(Reached {
        node,
        distance,
        reasons: keyed.into_iter().map(|(_, r)| r).collect(),
    })
}
