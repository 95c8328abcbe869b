//! What each layer propagates (rule 4 of `docs/traversal.md`), as a table.
//!
//! A layer hands down the decisions it transitively `contains` and the constrainers of
//! everything it transitively contains (itself included). Computing that at query time
//! costs work proportional to the layer's size — thousands of members on a large graph,
//! each with its incoming edges. The index therefore keeps the answer per layer
//! ([`rebuild`], run by every refresh that changed something), and a query reads a few rows
//! per layer it reaches. [`compute`] is the same table from the rules, edge by edge: what
//! an in-memory graph uses, and what the index's table is tested against.
//!
//! The table holds no target-dependent part: excluding the target itself, the `via` path to
//! the layer and supersedes pruning stay in the traversal. `impact` (the inverse traversal)
//! can read [`GraphView::layer_guides`] the same way.

use std::collections::BTreeSet;

use rusqlite::Connection;

use crate::model::{GraphView, Kind, NodeIx, Relation, StoreError};

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

/// The guides of `layer` from the rules: a walk of its `contains` closure. Sorted.
pub fn compute(graph: &dyn GraphView, layer: NodeIx) -> Result<Vec<LayerGuide>, StoreError> {
    let mut guides = Vec::new();
    for member in contains_closure(graph, layer)? {
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

/// `node` and everything it transitively `contains`.
fn contains_closure(graph: &dyn GraphView, node: NodeIx) -> Result<BTreeSet<NodeIx>, StoreError> {
    let mut seen = BTreeSet::from([node]);
    let mut stack = vec![node];
    while let Some(at) = stack.pop() {
        for edge in graph.edges_out(at)? {
            if edge.relation == Relation::Contains && seen.insert(edge.to) {
                stack.push(edge.to);
            }
        }
    }
    Ok(seen)
}

/// The index's table of guides, one row per (layer, guide).
pub(crate) const CREATE: &str = "
CREATE TABLE guides(layer INTEGER NOT NULL, node INTEGER NOT NULL, member INTEGER NOT NULL,
                    rel TEXT NOT NULL, PRIMARY KEY(layer, node, member, rel)) WITHOUT ROWID;
";

/// Replaces the whole table from the nodes and edges in `tx`. One recursive query per
/// refresh that changed something: its cost is the layers' total size, paid at write time.
pub(crate) fn rebuild(tx: &Connection) -> rusqlite::Result<()> {
    tx.execute("DELETE FROM guides", [])?;
    // UNION (not UNION ALL) makes the closure a set, so `contains` cycles end.
    tx.execute(
        "INSERT OR IGNORE INTO guides(layer, node, member, rel)
         WITH RECURSIVE closure(layer, member) AS (
             SELECT ix, ix FROM nodes WHERE kind = 'layer'
             UNION
             SELECT c.layer, e.dst FROM closure c
             JOIN edges e ON e.src = c.member AND e.rel = 'contains'
         )
         SELECT c.layer, c.member, c.member, 'contains' FROM closure c
         JOIN nodes n ON n.ix = c.member WHERE n.kind = 'decision'
         UNION ALL
         SELECT c.layer, e.src, c.member, 'constrains' FROM closure c
         JOIN edges e ON e.dst = c.member AND e.rel = 'constrains'",
        [],
    )?;
    Ok(())
}

/// The guides of `layer` as the index holds them. Sorted like [`compute`].
pub(crate) fn read(conn: &Connection, layer: NodeIx) -> rusqlite::Result<Vec<LayerGuide>> {
    let mut stmt = conn.prepare_cached(
        "SELECT node, member, rel FROM guides WHERE layer = ?1 ORDER BY node, member, rel",
    )?;
    let rows = stmt.query_map([layer], |r| {
        let rel: String = r.get(2)?;
        Ok(LayerGuide {
            node: r.get(0)?,
            member: r.get(1)?,
            relation: if rel == "contains" {
                Relation::Contains
            } else {
                Relation::Constrains
            },
        })
    })?;
    let mut guides: Vec<LayerGuide> = rows.collect::<rusqlite::Result<_>>()?;
    // The SQL order sorts `rel` as text; sort as `compute` does.
    guides.sort();
    Ok(guides)
}
