//! What each layer propagates (rule 4 of `docs/traversal.md`), as a table.
//!
//! A layer hands down the decisions it transitively `contains` and the constrainers of
//! everything it transitively contains (itself included). Computing that at query time
//! costs work proportional to the layer's size — thousands of members on a large graph,
//! each with its incoming edges. The index therefore keeps the answer per layer
//! ([`rebuild`], run by every refresh that changed something), and a query reads a few rows
//! per layer it reaches. [`layer_guides`] is the same table from the rules, edge by edge: what
//! an in-memory graph uses, and what the index's table is tested against.
//!
//! The table holds no target-dependent part: excluding the target itself, the `via` path to
//! the layer and supersedes pruning stay in the traversal. `impact` (the inverse traversal)
//! can read [`GraphView::layer_guides`] the same way.

use crate::{GraphView, Kind, NodeIx, Relation, StoreError};

use crate::LayerGuide;

/// The guides of `layer` from the rules: a walk of its `contains` closure. Sorted.
pub fn layer_guides(graph: &dyn GraphView, layer: NodeIx) -> Result<Vec<LayerGuide>, StoreError> {
    let mut guides = Vec::new();
    for member in graph.reach_out(layer, &Relation::Contains)? {
        if graph.kind_of(member)? == Kind::Decision {
            guides.push(LayerGuide {
                node: member,
                member,
                relation: Relation::Contains,
            });
        }
        for edge in graph.edges_in(member)? {
            if edge.relation == Relation::Constrains {
                guides.push(LayerGuide {
                    node: edge.from,
                    member,
                    relation: Relation::Constrains,
                });
            }
        }
    }
    guides.sort();
    guides.dedup();
    Ok(guides)
}
