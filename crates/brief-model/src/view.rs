//! The read access traversal, ranking and rendering take: [`GraphView`], [`NodeStore`] and
//! [`Corpus`], their errors ([`StoreError`], classified by [`Fault`]), and their
//! implementation by the in-memory [`Graph`].

use std::collections::BTreeSet;

use super::{Applies, Dangling, Edge, Graph, IxMap, Kind, Lifecycle, Node, NodeIx, Relation};

/// How a store failed, which decides what the caller does about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// What was read is damaged (corrupt, not a database, a checksum or a decoding that
    /// failed): the store should be rebuilt.
    Damaged,
    /// Another process holds the store (busy or locked): trying again later may work.
    Busy,
    /// The store cannot be written (a read-only file, folder or file system).
    ReadOnly,
    /// Anything else (it cannot be opened, an I/O error, …).
    Other,
}

/// A graph or node read that failed: where, what, and its [`Fault`]. The in-memory
/// [`Graph`] never fails; the SQLite index does.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{store}: {message}")]
pub struct StoreError {
    /// The store that failed (`index .brief/cache/index.db`).
    pub store: String,
    /// What went wrong, in words for the user.
    pub message: String,
    /// The class of the failure, which decides how the caller recovers.
    pub fault: Fault,
}

impl StoreError {
    /// Whether the store is damaged (and should be deleted and rebuilt).
    pub fn is_damage(&self) -> bool {
        self.fault == Fault::Damaged
    }
}

/// Read access to a graph's structure, which is all traversal needs. Implemented by the
/// in-memory [`Graph`] (which never fails) and by the on-disk index, which answers from
/// SQLite without loading the whole graph and returns its storage errors.
///
/// Node indices are opaque: anything whose order reaches output is ordered by id. Edge lists
/// come sorted by the other end's id, then by relation.
pub trait GraphView {
    /// The index of the node with this exact id.
    fn lookup(&self, id: &str) -> Result<Option<NodeIx>, StoreError>;
    /// A node's id.
    fn id_of(&self, ix: NodeIx) -> Result<String, StoreError>;
    /// A node's kind.
    fn kind_of(&self, ix: NodeIx) -> Result<Kind, StoreError>;
    /// Edges leaving a node, sorted by (target id, relation).
    fn edges_out(&self, ix: NodeIx) -> Result<Vec<Edge>, StoreError>;
    /// Edges arriving at a node, sorted by (source id, relation).
    fn edges_in(&self, ix: NodeIx) -> Result<Vec<Edge>, StoreError>;
    /// The edges leaving a node with one relation, sorted by target id. A view with an index
    /// answers without reading the node's other edges (a layer has thousands).
    fn edges_out_of(&self, ix: NodeIx, relation: &Relation) -> Result<Vec<Edge>, StoreError> {
        let mut edges = self.edges_out(ix)?;
        edges.retain(|e| &e.relation == relation);
        Ok(edges)
    }
    /// The edges arriving at a node with one relation, sorted by source id.
    fn edges_in_of(&self, ix: NodeIx, relation: &Relation) -> Result<Vec<Edge>, StoreError> {
        let mut edges = self.edges_in(ix)?;
        edges.retain(|e| &e.relation == relation);
        Ok(edges)
    }
    /// `start` and everything it reaches over edges of `relation` (`contains`: everything it
    /// transitively contains).
    fn reach_out(
        &self,
        start: NodeIx,
        relation: &Relation,
    ) -> Result<BTreeSet<NodeIx>, StoreError> {
        reach(start, |at| {
            Ok(self
                .edges_out_of(at, relation)?
                .into_iter()
                .map(|e| e.to)
                .collect())
        })
    }
    /// `start` and everything that reaches it over edges of `relation` (`contains`: everything
    /// that transitively contains it).
    fn reach_in(&self, start: NodeIx, relation: &Relation) -> Result<BTreeSet<NodeIx>, StoreError> {
        reach(start, |at| {
            Ok(self
                .edges_in_of(at, relation)?
                .into_iter()
                .map(|e| e.from)
                .collect())
        })
    }
    /// The project identity node, if there is one.
    fn identity(&self) -> Result<Option<NodeIx>, StoreError>;
    /// The nodes that apply to targets without a link (agent files, rules with globs,
    /// steering) and how, sorted by node index: a short list every context reads.
    fn scoped(&self) -> Result<Vec<(NodeIx, Applies)>, StoreError>;
    /// Where a node stands in its lifecycle (current unless its status says otherwise).
    fn lifecycle_of(&self, ix: NodeIx) -> Result<Lifecycle, StoreError>;
    /// The files a node is about: its own source file, then the code paths it names (a
    /// spec's `paths`, a task's files), root-relative.
    fn files_of(&self, ix: NodeIx) -> Result<Vec<String>, StoreError>;
    /// Links out of a node whose target does not exist.
    fn dangling_from(&self, ix: NodeIx) -> Result<Vec<Dangling>, StoreError>;
    /// Every id, sorted (for suggestions; may be slow on large graphs).
    fn all_ids(&self) -> Result<Vec<String>, StoreError>;
    /// Every edge of `relation` as `(from, to)` in one read, for walks that cover most of a
    /// large graph; `None` when this view is read node by node only.
    fn relation_pairs(
        &self,
        _relation: &Relation,
    ) -> Result<Option<Vec<(NodeIx, NodeIx)>>, StoreError> {
        Ok(None)
    }
    /// Every node of `kind` in one read; `None` as for [`GraphView::relation_pairs`].
    fn nodes_of_kind(&self, _kind: &Kind) -> Result<Option<Vec<NodeIx>>, StoreError> {
        Ok(None)
    }
    /// The nodes of `kind`, at most `most + 1` of them (more than `most` says "many" without
    /// reading them all); `None` as for [`GraphView::relation_pairs`].
    fn nodes_of_kind_upto(
        &self,
        kind: &Kind,
        most: usize,
    ) -> Result<Option<Vec<NodeIx>>, StoreError> {
        Ok(self.nodes_of_kind(kind)?.map(|mut nodes| {
            nodes.truncate(most.saturating_add(1));
            nodes
        }))
    }
    /// What a layer propagates, when this view keeps it precomputed (the index does);
    /// `None` makes the caller compute it with [`crate::layer_guides`].
    fn layer_guides(&self, _layer: NodeIx) -> Result<Option<Vec<LayerGuide>>, StoreError> {
        Ok(None)
    }
}

/// `start` and every node `next` leads to, transitively.
fn reach(
    start: NodeIx,
    mut next: impl FnMut(NodeIx) -> Result<Vec<NodeIx>, StoreError>,
) -> Result<BTreeSet<NodeIx>, StoreError> {
    let mut seen = BTreeSet::from([start]);
    let mut stack = vec![start];
    while let Some(at) = stack.pop() {
        for other in next(at)? {
            if seen.insert(other) {
                stack.push(other);
            }
        }
    }
    Ok(seen)
}

/// Whole nodes by index, which is what ranking and rendering need. A store is what
/// [`Corpus::store`] loaded, held in memory: loading is where reading can fail, so asking a
/// store for a node it holds cannot.
pub trait NodeStore {
    /// The node at an index (it must be one the store was made with).
    fn node(&self, ix: NodeIx) -> &Node;
    /// The newest `date` in the whole graph: the reference point for recency.
    fn newest_date(&self) -> Option<&str>;
}

impl<T: NodeStore + ?Sized> NodeStore for &T {
    fn node(&self, ix: NodeIx) -> &Node {
        (**self).node(ix)
    }

    fn newest_date(&self) -> Option<&str> {
        (**self).newest_date()
    }
}

/// A graph a context can be assembled from: its structure, and the whole nodes a selection
/// needs.
pub trait Corpus: GraphView {
    /// The nodes with these indices (and the graph's newest date), every one of them read
    /// or an error: never a partial store.
    fn store(&self, needed: &[NodeIx]) -> Result<Box<dyn NodeStore + '_>, StoreError>;
    /// A persistent token-count cache, if the corpus has one.
    fn counts(&self) -> Option<&dyn brief_count::CountStore> {
        None
    }
}

impl Corpus for Graph {
    fn store(&self, _needed: &[NodeIx]) -> Result<Box<dyn NodeStore + '_>, StoreError> {
        Ok(Box::new(self))
    }
}

/// The nodes a context needs, taken out of a larger graph (see [`GraphView`]).
#[derive(Debug, Default)]
pub struct Subgraph {
    /// The nodes, by their index in the larger graph.
    pub nodes: IxMap<Node>,
    /// The newest date of the whole graph (recency is relative to it, not to the subset).
    pub newest_date: Option<String>,
}

impl NodeStore for Subgraph {
    fn node(&self, ix: NodeIx) -> &Node {
        &self.nodes[&ix]
    }

    fn newest_date(&self) -> Option<&str> {
        self.newest_date.as_deref()
    }
}

// The in-memory graph cannot fail: its inherent methods answer, the view wraps them.
impl GraphView for Graph {
    fn lookup(&self, id: &str) -> Result<Option<NodeIx>, StoreError> {
        Ok(Graph::lookup(self, id))
    }

    fn id_of(&self, ix: NodeIx) -> Result<String, StoreError> {
        Ok(Graph::id_of(self, ix))
    }

    fn kind_of(&self, ix: NodeIx) -> Result<Kind, StoreError> {
        Ok(Graph::kind_of(self, ix))
    }

    fn edges_out(&self, ix: NodeIx) -> Result<Vec<Edge>, StoreError> {
        Ok(Graph::edges_out(self, ix))
    }

    fn edges_in(&self, ix: NodeIx) -> Result<Vec<Edge>, StoreError> {
        Ok(Graph::edges_in(self, ix))
    }

    fn identity(&self) -> Result<Option<NodeIx>, StoreError> {
        Ok(Graph::identity(self))
    }

    fn lifecycle_of(&self, ix: NodeIx) -> Result<Lifecycle, StoreError> {
        Ok(self.node(ix).lifecycle())
    }

    fn files_of(&self, ix: NodeIx) -> Result<Vec<String>, StoreError> {
        Ok(self.node(ix).files())
    }

    fn scoped(&self) -> Result<Vec<(NodeIx, Applies)>, StoreError> {
        Ok(self
            .nodes()
            .iter()
            .enumerate()
            .filter(|(_, node)| !node.applies().is_linked())
            .map(|(ix, node)| (ix as NodeIx, node.applies().clone()))
            .collect())
    }

    fn all_ids(&self) -> Result<Vec<String>, StoreError> {
        Ok(Graph::all_ids(self))
    }

    fn dangling_from(&self, ix: NodeIx) -> Result<Vec<Dangling>, StoreError> {
        Ok(Graph::dangling_from(self, ix))
    }

    fn relation_pairs(
        &self,
        relation: &Relation,
    ) -> Result<Option<Vec<(NodeIx, NodeIx)>>, StoreError> {
        let mut pairs = Vec::new();
        for from in 0..self.len() as NodeIx {
            for edge in Graph::edges_out(self, from) {
                if &edge.relation == relation {
                    pairs.push((from, edge.to));
                }
            }
        }
        Ok(Some(pairs))
    }

    fn nodes_of_kind(&self, kind: &Kind) -> Result<Option<Vec<NodeIx>>, StoreError> {
        Ok(Some(
            (0..self.len() as NodeIx)
                .filter(|&ix| &Graph::kind_of(self, ix) == kind)
                .collect(),
        ))
    }
}

impl NodeStore for Graph {
    fn node(&self, ix: NodeIx) -> &Node {
        Graph::node(self, ix)
    }

    fn newest_date(&self) -> Option<&str> {
        Graph::newest_date(self)
    }
}

/// One thing a layer propagates.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LayerGuide {
    /// The guidance node (a decision, or a node that constrains `member`).
    pub node: NodeIx,
    /// The member of the layer's `contains` closure it comes through (for a decision in the
    /// closure, the decision itself; the layer for its own constrainers).
    pub member: NodeIx,
    /// `Contains` for a decision in the closure, `Constrains` for a constrainer of `member`.
    pub relation: Relation,
}
