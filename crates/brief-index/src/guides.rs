//! The index's table of layer guides: what each layer propagates (traversal rule 4),
//! rebuilt by every refresh that changes something, so a context reads a layer's guides in
//! one query instead of walking the layer.

use rusqlite::Connection;

use brief_model::{LayerGuide, NodeIx, Relation};

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

/// The guides of `layer` as the index holds them. Sorted like [`brief_model::guidance::compute`].
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
