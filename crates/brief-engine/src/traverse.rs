//! Traversal: which nodes a context holds and why (docs/traversal.md).
//!
//! For a target T: T itself; its namespace (transitive `contains` ancestors, not expanded);
//! its constrainers (nodes that `constrains` T or an ancestor); layer guidance (decisions and
//! constrainers of every layer T reaches over `depends_on` and feature/layer parents, minus
//! superseded candidates); then forward relations from T and from those guidance nodes up to
//! the depth. One rule set serves Spec Graph and artifact projects: an artifact link is a
//! forward relation, and artifact keys named like Spec Graph relations keep their meaning.
//!
//! Every traversal keeps visited sets, so cycles of any relation terminate, and each node is
//! reported once with every reason that brought it.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use brief_model::Follow;
use brief_model::{Dangling, Edge, GraphView, IxMap, Kind, NodeIx, Relation, Scope, StoreError};

mod tana;

pub(crate) use tana::{traverse_tana, TANA_FANOUT};

pub(crate) use brief_model::Depth;

/// How a relation was followed to reach a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// From source to target of the edge.
    Forward,
    /// From target to source (constrainers, namespace).
    Inverse,
    /// Layer guidance inherited through a layer dependency.
    Propagated,
    /// From target to source of an edge onto a node the target links (the constrainers of
    /// the specs a task links; `via` holds that node).
    Linked,
    /// From target to source of a forward edge onto a start node: the node links to it
    /// (related material, "links to ADR-0008").
    Backlink,
}

impl Direction {
    /// The name used in JSON.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Direction::Forward => "forward",
            Direction::Inverse => "inverse",
            Direction::Propagated => "propagated",
            Direction::Linked => "linked",
            Direction::Backlink => "backlink",
        }
    }
}

/// Why a node is in a context.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// It is the target.
    Target,
    /// It is the project identity, always included.
    Identity,
    /// An edge brought it. For the always-on rules `from` is the target and `via` lists the
    /// nodes in between (the constrained ancestor, the path to a layer); for forward edges
    /// `from` is the node the edge leaves.
    Edge {
        /// The edge's relation.
        relation: Relation,
        /// Which way it was walked.
        direction: Direction,
        /// Where the walk along it started.
        from: NodeIx,
        /// The nodes between `from` and this one, in order.
        via: Vec<NodeIx>,
    },
    /// It applies to `to`, a start node, without a link: an agent file in its folder, a rule
    /// whose glob covers one of its files, an always-on rule.
    Applies {
        /// The start node it applies to.
        to: NodeIx,
        /// How it reached that node (always, a glob, words).
        scope: Scope,
    },
    /// Related material: its words match the query, with this share of the best hit's
    /// score (in ten-thousandths, so the reason stays exact and ordered).
    Words {
        /// The share, in ten-thousandths.
        share: u16,
    },
    /// Related material: one of the project's decisions, which a context in words adds, all
    /// of them, when the project has few (`of`).
    Log {
        /// How many the project has.
        of: u16,
    },
}

impl Reason {
    /// Whether this reason makes a node a section of a long rule that a task in words is
    /// about ([`Scope::Section`]).
    pub(crate) fn is_rule_section(&self) -> bool {
        matches!(
            self,
            Reason::Applies {
                scope: Scope::Section { .. },
                ..
            }
        )
    }

    /// Whether this reason makes a node related material only (ranked after everything the
    /// links and rules select).
    pub(crate) fn is_related(&self) -> bool {
        matches!(
            self,
            Reason::Words { .. }
                | Reason::Log { .. }
                | Reason::Edge {
                    direction: Direction::Backlink,
                    ..
                }
        )
    }
}

/// A node in the selection.
#[derive(Debug, Clone, PartialEq)]
pub struct Reached {
    /// The node.
    pub node: NodeIx,
    /// Hops from the target (0 for the target and the identity; 1 for guidance).
    pub distance: u32,
    /// Sorted, without duplicates.
    pub reasons: Vec<Reason>,
}

/// The result of a traversal, sorted by node index (i.e. by id).
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// The start node.
    pub target: NodeIx,
    /// Every node selected, by node index.
    pub reached: Vec<Reached>,
    /// Forward links out of selected nodes whose target does not exist: context they would
    /// have brought is missing.
    pub dangling: Vec<Dangling>,
    /// Fan-outs that were sampled.
    pub truncated: Vec<Truncation>,
}

/// Traversal settings.
#[derive(Debug, Clone, Copy)]
pub struct TraverseOptions {
    /// How many hops to walk.
    pub depth: Depth,
    /// Include the project identity node, if there is one.
    pub identity: bool,
    /// The relation families to explore (a lens); constrainers are always included.
    pub follow: Follow,
    /// Most neighbours followed over one relation of one node; the rest are left out and
    /// the truncation is reported.
    pub fanout: usize,
}

/// The default fan-out limit.
pub(crate) const DEFAULT_FANOUT: usize = 200;

impl TraverseOptions {
    /// The defaults of docs/traversal.md at a depth (what the ranking tests start from).
    #[cfg(test)]
    pub(crate) fn at(depth: Depth) -> TraverseOptions {
        TraverseOptions {
            depth,
            identity: true,
            follow: Follow::DEFAULT,
            fanout: DEFAULT_FANOUT,
        }
    }
}

/// A node whose neighbours over one relation were too many to follow all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncation {
    /// The node whose neighbours were sampled.
    pub node: NodeIx,
    /// The relation over which they were.
    pub relation: Relation,
    /// How many neighbours it has over it.
    pub total: usize,
    /// How many were followed.
    pub kept: usize,
}

/// Accumulates reached nodes: smallest distance kept, every reason kept.
#[derive(Default)]
struct Acc {
    nodes: HashMap<NodeIx, (u32, BTreeSet<Reason>)>,
}

impl Acc {
    /// The selection: nodes and each node's reasons ordered by id, whatever the indices are,
    /// and the forward links of selected nodes that lead nowhere.
    fn finish(
        self,
        graph: &dyn GraphView,
        target: NodeIx,
        truncated: Vec<Truncation>,
    ) -> Result<Selection, StoreError> {
        let mut this = self;
        this.drop_covered_sections(graph, target)?;
        let id_key = |ix: &NodeIx| graph.id_of(*ix);
        let mut reached: Vec<(String, Reached)> = Vec::with_capacity(this.nodes.len());
        for (node, (distance, reasons)) in this.nodes {
            let mut reasons: Vec<(ReasonKey, Reason)> = reasons
                .into_iter()
                .map(|r| Ok((reason_key(&r, &id_key)?, r)))
                .collect::<Result<_, StoreError>>()?;
            reasons.sort_by(|a, b| a.0.cmp(&b.0));
            let reached_node = Reached {
                node,
                distance,
                reasons: reasons.into_iter().map(|(_, r)| r).collect(),
            };
            reached.push((graph.id_of(node)?, reached_node));
        }
        reached.sort_by(|a, b| a.0.cmp(&b.0));
        let reached: Vec<Reached> = reached.into_iter().map(|(_, r)| r).collect();
        let mut dangling = Vec::new();
        for r in &reached {
            dangling.extend(
                graph
                    .dangling_from(r.node)?
                    .into_iter()
                    .filter(|d| d.relation.is_forward()),
            );
        }
        Ok(Selection {
            target,
            reached,
            dangling,
            truncated,
        })
    }

    /// Drops the sections whose page (or enclosing section) is itself in the selection: the
    /// page's text holds theirs. A section of the target's own namespace is kept (a section
    /// target's page is there only as its namespace), and the target always is.
    fn drop_covered_sections(
        &mut self,
        graph: &dyn GraphView,
        target: NodeIx,
    ) -> Result<(), StoreError> {
        let namespace: BTreeSet<NodeIx> = graph
            .reach_in(target, &Relation::Contains)?
            .into_iter()
            .filter(|&n| n != target)
            .collect();
        let mut covered = BTreeSet::new();
        for &node in self.nodes.keys() {
            if node == target || graph.kind_of(node)? != Kind::Section {
                continue;
            }
            let ancestors = graph.reach_in(node, &Relation::Contains)?;
            let is_covered = ancestors
                .iter()
                .any(|a| *a != node && self.nodes.contains_key(a) && !namespace.contains(a));
            if is_covered {
                covered.insert(node);
            }
        }
        if covered.is_empty() {
            return Ok(());
        }
        self.nodes.retain(|node, _| !covered.contains(node));
        for (_, reasons) in self.nodes.values_mut() {
            let kept: BTreeSet<Reason> = reasons
                .iter()
                .filter(|r| !matches!(r, Reason::Edge { from, .. } if covered.contains(from)))
                .cloned()
                .collect();
            if !kept.is_empty() {
                *reasons = kept;
            }
        }
        Ok(())
    }

    fn add(&mut self, node: NodeIx, distance: u32, reason: Reason) {
        let entry = self
            .nodes
            .entry(node)
            .or_insert_with(|| (distance, BTreeSet::new()));
        entry.0 = entry.0.min(distance);
        entry.1.insert(reason);
    }
}

/// Selects the nodes of the context for `target`.
pub(crate) fn traverse(
    graph: &dyn GraphView,
    target: NodeIx,
    options: TraverseOptions,
) -> Result<Selection, StoreError> {
    let mut acc = Acc::default();
    acc.add(target, 0, Reason::Target);
    if options.identity {
        if let Some(identity) = graph.identity()? {
            if identity != target {
                acc.add(identity, 0, Reason::Identity);
            }
        }
    }

    // Rule 2: namespace. BFS up `contains`, remembering the path for `via`. Constrainers of
    // ancestors apply whatever the lens; showing the ancestors is the lens's choice.
    let ancestors = ancestors(graph, target)?;
    for (&ancestor, (hops, path)) in ancestors.iter().filter(|_| options.follow.parent) {
        acc.add(
            ancestor,
            *hops,
            edge_reason(Relation::Contains, Direction::Inverse, target, path.clone()),
        );
    }

    // Rule 3: constrainers of the target and of every ancestor.
    let mut guidance: BTreeSet<NodeIx> = BTreeSet::new();
    let ancestry = std::iter::once((target, Vec::new())).chain(
        ancestors
            .iter()
            .map(|(&a, (_, path))| (a, path.iter().copied().chain([a]).collect::<Vec<_>>())),
    );
    for (constrained, via) in ancestry {
        for edge in graph.edges_in_of(constrained, &Relation::Constrains)? {
            if edge.from != target {
                acc.add(
                    edge.from,
                    1,
                    edge_reason(
                        Relation::Constrains,
                        Direction::Inverse,
                        target,
                        via.clone(),
                    ),
                );
                guidance.insert(edge.from);
            }
        }
    }

    // Rule 3b (artifact tasks): a task changes the specs it links, so what constrains those
    // specs constrains the task. Only a task's own direct links count; a spec's dependencies
    // keep their constraints to themselves, as in rule 5.
    if graph.kind_of(target)? == Kind::Task {
        let linked: BTreeSet<NodeIx> = graph
            .edges_out(target)?
            .iter()
            .filter(|edge| edge.relation.is_forward())
            .map(|edge| edge.to)
            .collect();
        for spec in linked {
            for edge in graph.edges_in_of(spec, &Relation::Constrains)? {
                if edge.from != target {
                    acc.add(
                        edge.from,
                        1,
                        edge_reason(Relation::Constrains, Direction::Linked, target, vec![spec]),
                    );
                    guidance.insert(edge.from);
                }
            }
        }
    }

    // Rule 4: layer guidance.
    for (node, reasons) in layer_guidance(graph, target)? {
        for reason in reasons {
            acc.add(node, 1, reason);
        }
        guidance.insert(node);
    }

    // Rule 5: forward relations from the target (distance 0) and guidance (distance 1).
    let truncated = forward(graph, target, &guidance, &options, &mut acc)?;

    acc.finish(graph, target, truncated)
}

/// Rule 5: walks forward relations breadth first from the target (distance 0) and the
/// guidance (distance 1) up to the depth, adding what it reaches to `acc`; returns the fan-outs
/// it sampled.
fn forward(
    graph: &dyn GraphView,
    target: NodeIx,
    guidance: &BTreeSet<NodeIx>,
    options: &TraverseOptions,
    acc: &mut Acc,
) -> Result<Vec<Truncation>, StoreError> {
    let mut truncated: Vec<Truncation> = Vec::new();
    let mut best: HashMap<NodeIx, u32> = HashMap::new();
    let mut queue: VecDeque<(NodeIx, u32)> = VecDeque::new();
    best.insert(target, 0);
    queue.push_back((target, 0));
    for &node in guidance {
        if best.insert(node, 1).is_none() {
            queue.push_back((node, 1));
        }
    }
    while let Some((node, distance)) = queue.pop_front() {
        if best.get(&node) != Some(&distance) {
            continue;
        }
        let next = distance + 1;
        if !options.depth.allows(next) {
            continue;
        }
        for edge in sample(
            graph,
            node,
            graph.edges_out(node)?,
            options,
            acc,
            &mut truncated,
        )? {
            if edge.to == target {
                continue;
            }
            acc.add(
                edge.to,
                next,
                edge_reason(edge.relation.clone(), Direction::Forward, node, Vec::new()),
            );
            if best.get(&edge.to).is_none_or(|&d| d > next) {
                best.insert(edge.to, next);
                queue.push_back((edge.to, next));
            }
        }
    }
    Ok(truncated)
}

/// Whether rule 5 follows `relation` forward under a lens's families (`contains` only when
/// the lens walks children; `constrains` and `supersedes` never).
pub(crate) fn follows_forward(follow: Follow, relation: &Relation) -> bool {
    match relation {
        Relation::Contains => follow.child,
        // `field:` keys parse as `Relation::Field` now; either spelling is a field link.
        Relation::Field(_) => follow.field,
        Relation::Link(key) if key.starts_with("field:") => follow.field,
        other => other.is_forward() && follow.reference,
    }
}

/// The edges of `node` to follow: the families the lens follows, each relation capped at
/// the fan-out limit. Over the limit, nodes already in the context come first, then
/// normative kinds (policies, norms, decisions), then the rest, each by id.
fn sample(
    graph: &dyn GraphView,
    node: NodeIx,
    edges: Vec<Edge>,
    options: &TraverseOptions,
    acc: &Acc,
    truncated: &mut Vec<Truncation>,
) -> Result<Vec<Edge>, StoreError> {
    let followed = |r: &Relation| follows_forward(options.follow, r);
    let mut by_relation: Vec<(Relation, Vec<Edge>)> = Vec::new();
    for edge in edges.into_iter().filter(|e| followed(&e.relation)) {
        match by_relation.iter_mut().find(|(r, _)| *r == edge.relation) {
            Some((_, list)) => list.push(edge),
            None => by_relation.push((edge.relation.clone(), vec![edge])),
        }
    }
    let mut kept = Vec::new();
    for (relation, mut list) in by_relation {
        let total = list.len();
        if total > options.fanout {
            let mut keyed = Vec::with_capacity(list.len());
            for e in list {
                let kind = graph.kind_of(e.to)?;
                let normative = matches!(kind, Kind::Policy | Kind::Norm | Kind::Decision);
                let key = (
                    !acc.nodes.contains_key(&e.to),
                    !normative,
                    graph.id_of(e.to)?,
                );
                keyed.push((key, e));
            }
            keyed.sort_by(|a, b| a.0.cmp(&b.0));
            list = keyed.into_iter().map(|(_, e)| e).collect();
            list.truncate(options.fanout);
            truncated.push(Truncation {
                node,
                relation,
                total,
                kept: options.fanout,
            });
        }
        kept.extend(list);
    }
    Ok(kept)
}

/// Selects the nodes of a context that starts from several nodes (search hits): the union
/// of their selections, each node once with the smallest distance and every reason. The
/// first seed is the target.
pub(crate) fn traverse_many(
    graph: &dyn GraphView,
    seeds: &[NodeIx],
    options: TraverseOptions,
) -> Result<Selection, StoreError> {
    let mut merged: Option<Selection> = None;
    for &seed in seeds {
        let selection = traverse(graph, seed, options)?;
        merged = Some(match merged {
            None => selection,
            Some(mut acc) => {
                for reached in selection.reached {
                    match acc.reached.iter_mut().find(|r| r.node == reached.node) {
                        Some(existing) => {
                            existing.distance = existing.distance.min(reached.distance);
                            for reason in reached.reasons {
                                if !existing.reasons.contains(&reason) {
                                    existing.reasons.push(reason);
                                }
                            }
                        }
                        None => acc.reached.push(reached),
                    }
                }
                for d in selection.dangling {
                    if !acc.dangling.contains(&d) {
                        acc.dangling.push(d);
                    }
                }
                for t in selection.truncated {
                    if !acc.truncated.contains(&t) {
                        acc.truncated.push(t);
                    }
                }
                acc
            }
        });
    }
    let mut selection = merged.unwrap_or(Selection {
        target: 0,
        reached: Vec::new(),
        dangling: Vec::new(),
        truncated: Vec::new(),
    });
    let id = |ix: &NodeIx| graph.id_of(*ix);
    for reached in &mut selection.reached {
        let mut keyed = Vec::with_capacity(reached.reasons.len());
        for r in reached.reasons.drain(..) {
            keyed.push((reason_key(&r, &id)?, r));
        }
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        reached.reasons = keyed.into_iter().map(|(_, r)| r).collect();
    }
    let mut keyed = Vec::with_capacity(selection.reached.len());
    for r in selection.reached.drain(..) {
        keyed.push((graph.id_of(r.node)?, r));
    }
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    selection.reached = keyed.into_iter().map(|(_, r)| r).collect();
    Ok(selection)
}

/// A sort key for reasons that orders by ids, not indices.
pub(crate) type ReasonKey = (u8, String, Direction, String, Vec<String>);

/// The key reasons are sorted by in a selection.
pub(crate) fn reason_key(
    reason: &Reason,
    id: &dyn Fn(&NodeIx) -> Result<String, StoreError>,
) -> Result<ReasonKey, StoreError> {
    Ok(match reason {
        Reason::Target => (
            0,
            String::new(),
            Direction::Forward,
            String::new(),
            Vec::new(),
        ),
        Reason::Identity => (
            1,
            String::new(),
            Direction::Forward,
            String::new(),
            Vec::new(),
        ),
        Reason::Edge {
            relation,
            direction,
            from,
            via,
        } => (
            2,
            relation.name().to_string(),
            *direction,
            id(from)?,
            via.iter().map(id).collect::<Result<_, _>>()?,
        ),
        Reason::Applies { to, scope } => (
            3,
            match scope {
                Scope::Always => String::new(),
                Scope::Glob { glob, file } => format!("{glob}\u{0}{file}"),
                Scope::Words { share } | Scope::Section { share } => format!("{share:05}"),
                Scope::Named { folder, word } => format!("{folder}\u{0}{word}"),
            },
            Direction::Forward,
            id(to)?,
            Vec::new(),
        ),
        Reason::Words { share } => (
            4,
            format!("{:05}", 10_000u16.saturating_sub(*share)),
            Direction::Forward,
            String::new(),
            Vec::new(),
        ),
        Reason::Log { of } => (
            5,
            format!("{of:05}"),
            Direction::Forward,
            String::new(),
            Vec::new(),
        ),
    })
}

pub(crate) fn edge_reason(
    relation: Relation,
    direction: Direction,
    from: NodeIx,
    via: Vec<NodeIx>,
) -> Reason {
    Reason::Edge {
        relation,
        direction,
        from,
        via,
    }
}

/// Rule 1b, for every start node of a selection (Tana walks included): what applies to the
/// start's files without a link — agent files, rules with globs, always-on rules — unless it
/// is no longer current. Added at distance 1, reasons merged, the selection kept in id order.
pub(crate) fn add_applying(
    graph: &dyn GraphView,
    selection: &mut Selection,
    seeds: &[NodeIx],
) -> Result<(), StoreError> {
    let mut found = Vec::new();
    for &seed in seeds {
        for (node, scope) in applying(graph, seed)? {
            found.push((node, Reason::Applies { to: seed, scope }));
        }
    }
    add_reasons(graph, selection, found)
}

/// A share of the best hit (0–1) in ten-thousandths, as reasons keep it (exact and ordered).
pub(crate) fn ten_thousandths(share: f64) -> u16 {
    (share.clamp(0.0, 1.0) * 10_000.0).round() as u16
}

/// Adds what a target in words brings as hard constraints of the first start node, each with
/// the scope that brought it: rules found by their own words ([`Scope::Words`]), rules whose
/// folder the task names ([`Scope::Named`]), sections of long rules the words match
/// ([`Scope::Section`], see [`crate::sections`]). The first start node itself and a node that
/// is not current are left out.
pub(crate) fn add_found(
    graph: &dyn GraphView,
    selection: &mut Selection,
    first: NodeIx,
    found: Vec<(NodeIx, Scope)>,
) -> Result<(), StoreError> {
    let mut kept = Vec::with_capacity(found.len());
    for (node, scope) in found {
        if node == first || !graph.lifecycle_of(node)?.is_current() {
            continue;
        }
        kept.push((node, Reason::Applies { to: first, scope }));
    }
    add_reasons(graph, selection, kept)
}

/// A rule covering part of the tree that a target in words names by the folder it governs
/// (`docs/traversal.md`, "Targets in words").
#[derive(Debug, Clone, PartialEq)]
pub struct NamedRule {
    /// The rule.
    pub node: NodeIx,
    /// The folder it governs, relative to the root (`src/billing`).
    pub folder: String,
    /// The task's word that names the folder, as written.
    pub word: String,
}

/// Gives each node its reason: a reason more for a node already reached (at distance 1 at
/// most), a new node at distance 1 otherwise; reasons and nodes stay in their stable order.
fn add_reasons(
    graph: &dyn GraphView,
    selection: &mut Selection,
    found: Vec<(NodeIx, Reason)>,
) -> Result<(), StoreError> {
    let mut added = false;
    for (node, reason) in found {
        match selection.reached.iter_mut().find(|r| r.node == node) {
            Some(reached) => {
                if !reached.reasons.contains(&reason) {
                    reached.reasons.push(reason);
                    reached.distance = reached.distance.min(1);
                }
            }
            None => {
                added = true;
                selection.reached.push(Reached {
                    node,
                    distance: 1,
                    reasons: vec![reason],
                });
            }
        }
    }
    let id = |ix: &NodeIx| graph.id_of(*ix);
    for reached in &mut selection.reached {
        let mut keyed = Vec::with_capacity(reached.reasons.len());
        for r in reached.reasons.drain(..) {
            keyed.push((reason_key(&r, &id)?, r));
        }
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        keyed.dedup_by(|a, b| a.1 == b.1);
        reached.reasons = keyed.into_iter().map(|(_, r)| r).collect();
    }
    if added {
        let mut keyed = Vec::with_capacity(selection.reached.len());
        for r in selection.reached.drain(..) {
            keyed.push((graph.id_of(r.node)?, r));
        }
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        selection.reached = keyed.into_iter().map(|(_, r)| r).collect();
    }
    Ok(())
}

/// Rule 1b for one start node: the nodes that apply to it without a link, and how.
pub(crate) fn applying(
    graph: &dyn GraphView,
    target: NodeIx,
) -> Result<Vec<(NodeIx, Scope)>, StoreError> {
    let scoped = graph.scoped()?;
    if scoped.is_empty() {
        return Ok(Vec::new());
    }
    let files = graph.files_of(target)?;
    let mut out = Vec::new();
    for (node, applies) in scoped {
        if node == target {
            continue;
        }
        if let Some(scope) = applies.reaches(&files) {
            if graph.lifecycle_of(node)?.is_current() {
                out.push((node, scope));
            }
        }
    }
    Ok(out)
}

/// Transitive `contains` ancestors of `node`: hops and the path of ancestors in between.
pub(crate) fn ancestors(
    graph: &dyn GraphView,
    node: NodeIx,
) -> Result<BTreeMap<NodeIx, (u32, Vec<NodeIx>)>, StoreError> {
    let mut found: BTreeMap<NodeIx, (u32, Vec<NodeIx>)> = BTreeMap::new();
    let mut queue = VecDeque::from([(node, 0u32, Vec::new())]);
    while let Some((current, hops, path)) = queue.pop_front() {
        for edge in graph.edges_in_of(current, &Relation::Contains)? {
            if edge.from == node {
                continue;
            }
            if found.contains_key(&edge.from) {
                continue;
            }
            found.insert(edge.from, (hops + 1, path.clone()));
            let mut next_path = path.clone();
            next_path.push(edge.from);
            queue.push_back((edge.from, hops + 1, next_path));
        }
    }
    Ok(found)
}

/// Rule 4: the decisions and constrainers that layers reached from `target` propagate,
/// after supersedes pruning, each with its reasons.
fn layer_guidance(
    graph: &dyn GraphView,
    target: NodeIx,
) -> Result<BTreeMap<NodeIx, Vec<Reason>>, StoreError> {
    let candidates = guidance_candidates(graph, target)?;
    let superseded = superseded_among(graph, &candidates)?;
    Ok(candidates
        .into_iter()
        .filter(|(node, _)| !superseded.contains_key(node))
        .map(|(node, reasons)| (node, reasons.into_iter().collect()))
        .collect())
}

/// Rule 4 before supersedes pruning: the decisions and constrainers of every layer the
/// target's layer walk reaches, each with its reasons.
fn guidance_candidates(
    graph: &dyn GraphView,
    target: NodeIx,
) -> Result<BTreeMap<NodeIx, BTreeSet<Reason>>, StoreError> {
    let walk = LayerWalk::new(graph, target)?;
    let mut candidates: BTreeMap<NodeIx, BTreeSet<Reason>> = BTreeMap::new();
    for &(_, _, layer) in &walk.layers {
        let path = walk.path(layer);
        let guides = match graph.layer_guides(layer)? {
            Some(guides) => guides,
            None => brief_model::layer_guides(graph, layer)?,
        };
        for guide in guides {
            if let Some(reason) = walk.reason(layer, &path, &guide) {
                candidates.entry(guide.node).or_default().insert(reason);
            }
        }
    }
    Ok(candidates)
}

/// Rule 4's layer discovery from a target: a breadth-first walk over `depends_on` targets
/// and feature/layer `contains` parents, neighbours in id order so the first path found to a
/// layer is always the same. The target itself is never one of the layers.
pub(crate) struct LayerWalk {
    target: NodeIx,
    /// The layers reached, by (distance, id).
    pub layers: Vec<(u32, String, NodeIx)>,
    previous: IxMap<NodeIx>,
}

/// A node's neighbours in layer walks, in id order: each neighbour's id, index, and whether
/// it is a layer.
pub(crate) type WalkStep = Vec<(String, NodeIx, bool)>;

/// The neighbours of `at` in a layer walk: its `depends_on` targets and its `contains` parents
/// that are features or layers.
pub(crate) fn walk_step(graph: &dyn GraphView, at: NodeIx) -> Result<WalkStep, StoreError> {
    let mut adjacent: Vec<NodeIx> = graph
        .edges_out_of(at, &Relation::DependsOn)?
        .into_iter()
        .map(|e| e.to)
        .collect();
    for e in graph.edges_in_of(at, &Relation::Contains)? {
        if graph.kind_of(e.from)?.is_grouping() {
            adjacent.push(e.from);
        }
    }
    let mut step: WalkStep = Vec::with_capacity(adjacent.len());
    for ix in adjacent {
        step.push((graph.id_of(ix)?, ix, graph.kind_of(ix)? == Kind::Layer));
    }
    step.sort();
    step.dedup();
    Ok(step)
}

impl LayerWalk {
    /// Walks from `target`.
    pub(crate) fn new(graph: &dyn GraphView, target: NodeIx) -> Result<LayerWalk, StoreError> {
        LayerWalk::with_steps(target, |at| walk_step(graph, at).map(std::rc::Rc::new))
    }

    /// Walks from `target` with each node's step from `step` (which may remember them: the
    /// inverse walks from thousands of targets over the same features and layers).
    pub(crate) fn with_steps(
        target: NodeIx,
        mut step: impl FnMut(NodeIx) -> Result<std::rc::Rc<WalkStep>, StoreError>,
    ) -> Result<LayerWalk, StoreError> {
        let mut distance: IxMap<u32> = IxMap::default();
        distance.insert(target, 0);
        let mut previous: IxMap<NodeIx> = IxMap::default();
        let mut queue = VecDeque::from([target]);
        let mut layers: Vec<(u32, String, NodeIx)> = Vec::new();
        while let Some(current) = queue.pop_front() {
            let d = distance[&current];
            for (id, next, layer) in step(current)?.iter() {
                if distance.contains_key(next) {
                    continue;
                }
                distance.insert(*next, d + 1);
                previous.insert(*next, current);
                if *layer {
                    layers.push((d + 1, id.clone(), *next));
                }
                queue.push_back(*next);
            }
        }
        layers.sort();
        Ok(LayerWalk {
            target,
            layers,
            previous,
        })
    }

    /// The path from the target to a reached `layer`, without the target.
    pub(crate) fn path(&self, layer: NodeIx) -> Vec<NodeIx> {
        let mut path = vec![layer];
        let mut at = layer;
        while let Some(&prev) = self.previous.get(&at) {
            if prev == self.target {
                break;
            }
            path.push(prev);
            at = prev;
        }
        path.reverse();
        path
    }

    /// The reason `guide` of `layer` (reached over `path`) gives its node, or `None` when the
    /// guide is the target itself.
    pub(crate) fn reason(
        &self,
        layer: NodeIx,
        path: &[NodeIx],
        guide: &brief_model::LayerGuide,
    ) -> Option<Reason> {
        if guide.node == self.target {
            return None;
        }
        match guide.relation {
            Relation::Contains => Some(edge_reason(
                Relation::Contains,
                Direction::Propagated,
                self.target,
                path.to_vec(),
            )),
            Relation::Constrains => {
                let mut via = path.to_vec();
                if guide.member != layer {
                    via.push(guide.member);
                }
                Some(edge_reason(
                    Relation::Constrains,
                    Direction::Propagated,
                    self.target,
                    via,
                ))
            }
            _ => None,
        }
    }
}

/// Supersedes pruning among propagated candidates only: each dropped candidate and the
/// first candidate (by index) that supersedes it.
fn superseded_among(
    graph: &dyn GraphView,
    candidates: &BTreeMap<NodeIx, BTreeSet<Reason>>,
) -> Result<BTreeMap<NodeIx, NodeIx>, StoreError> {
    let mut superseded: BTreeMap<NodeIx, NodeIx> = BTreeMap::new();
    for &candidate in candidates.keys() {
        for other in supersedes_closure(graph, candidate)? {
            if other != candidate && candidates.contains_key(&other) {
                superseded.entry(other).or_insert(candidate);
            }
        }
    }
    Ok(superseded)
}

/// Rule 4's dropped candidates for `target`: each layer-guidance candidate another candidate
/// supersedes, with one that does (what `explain` reports).
pub(crate) fn superseded_guidance(
    graph: &dyn GraphView,
    target: NodeIx,
) -> Result<BTreeMap<NodeIx, NodeIx>, StoreError> {
    superseded_among(graph, &guidance_candidates(graph, target)?)
}

/// Everything `node` transitively `supersedes`.
fn supersedes_closure(graph: &dyn GraphView, node: NodeIx) -> Result<BTreeSet<NodeIx>, StoreError> {
    let mut set = follow(graph, node, &Relation::Supersedes)?;
    set.remove(&node);
    Ok(set)
}

fn follow(
    graph: &dyn GraphView,
    start: NodeIx,
    relation: &Relation,
) -> Result<BTreeSet<NodeIx>, StoreError> {
    let mut seen = BTreeSet::from([start]);
    let mut stack = vec![start];
    while let Some(node) = stack.pop() {
        // All of the node's out-edges, not just this relation's: they are cached, and the
        // walk of rule 5 reads the same nodes' out-edges again.
        for edge in graph.edges_out(node)? {
            if &edge.relation == relation && seen.insert(edge.to) {
                stack.push(edge.to);
            }
        }
    }
    Ok(seen)
}

#[cfg(test)]
mod tests;
