//! The index's table of layer guides: what each layer propagates (traversal rule 4),
//! rebuilt by every refresh that changes something, so a context reads a layer's guides in
//! one query instead of walking the layer.

use std::collections::BTreeSet;

use rusqlite::{Connection, OptionalExtension};

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
    insert(tx, "SELECT ix, ix FROM nodes WHERE kind = 'layer'", [])
}

/// Replaces the rows of `layers` only: after a refresh that changed a few files, the layers
/// whose closure held (before) or holds (after) a changed node or what it constrains.
pub(crate) fn rebuild_layers(tx: &Connection, layers: &BTreeSet<i64>) -> rusqlite::Result<()> {
    for &layer in layers {
        tx.execute("DELETE FROM guides WHERE layer = ?1", [layer])?;
        insert(
            tx,
            "SELECT ix, ix FROM nodes WHERE kind = 'layer' AND ix = ?1",
            [layer],
        )?;
    }
    Ok(())
}

/// Inserts the guides of the layers `seeds` selects (as `(layer, layer)` rows).
fn insert(tx: &Connection, seeds: &str, params: impl rusqlite::Params) -> rusqlite::Result<()> {
    tx.execute(
        &format!(
            "INSERT OR IGNORE INTO guides(layer, node, member, rel) {}",
            select(seeds)
        ),
        params,
    )?;
    Ok(())
}

/// The guides of the layers `seeds` selects, as rows of `(layer, node, member, rel)`.
fn select(seeds: &str) -> String {
    // UNION (not UNION ALL) makes the closure a set, so `contains` cycles end.
    format!(
        "WITH RECURSIVE closure(layer, member) AS (
             {seeds}
             UNION
             SELECT c.layer, e.dst FROM closure c
             JOIN edges e ON e.src = c.member AND e.rel = 'contains'
         )
         SELECT c.layer, c.member, c.member, 'contains' FROM closure c
         JOIN nodes n ON n.ix = c.member WHERE n.kind = 'decision'
         UNION ALL
         SELECT c.layer, e.src, c.member, 'constrains' FROM closure c
         JOIN edges e ON e.dst = c.member AND e.rel = 'constrains'"
    )
}

/// Whether the table holds exactly the guides the nodes and edges give now (a check of the
/// whole file, when it is verified).
pub(crate) fn intact(conn: &Connection) -> rusqlite::Result<bool> {
    let computed = select("SELECT ix, ix FROM nodes WHERE kind = 'layer'");
    let differences: i64 = conn.query_row(
        &format!(
            "WITH computed AS ({computed})
             SELECT (SELECT count(*) FROM (SELECT * FROM computed
                                           EXCEPT SELECT layer, node, member, rel FROM guides))
                  + (SELECT count(*) FROM (SELECT layer, node, member, rel FROM guides
                                           EXCEPT SELECT * FROM computed))"
        ),
        [],
        |r| r.get(0),
    )?;
    Ok(differences == 0)
}

/// What of `nodes` the guides read: each one's index, id, kind, and `contains` and
/// `constrains` edges. When a refresh leaves this unchanged (a title or a statement edited),
/// no layer's guides can move. The id is part of it because the edges *into* a node follow
/// its id, and a new node may be handed the index of one removed in the same refresh.
pub(crate) fn shapes(tx: &Connection, nodes: &[i64]) -> rusqlite::Result<Shapes> {
    let mut row = tx.prepare_cached("SELECT id, kind FROM nodes WHERE ix = ?1")?;
    let mut edges = tx.prepare_cached(
        "SELECT rel, dst FROM edges WHERE src = ?1 AND rel IN ('contains', 'constrains')
         ORDER BY rel, dst",
    )?;
    let mut shapes = Shapes::new();
    for &node in nodes {
        let Some((id, kind)) = row
            .query_row([node], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .optional()?
        else {
            continue;
        };
        let out = edges
            .query_map([node], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        shapes.insert((node, id, kind, out));
    }
    Ok(shapes)
}

/// Nodes as the guides see them (see [`shapes`]): index, id, kind, edges.
pub(crate) type Shapes = BTreeSet<(i64, String, String, Vec<(String, i64)>)>;

/// The layers whose closure holds one of `nodes` or something one of them constrains: the
/// only layers whose guides a change of those nodes can move. Read in the state of `tx`,
/// so a refresh asks before it writes (the old closures) and after (the new ones).
pub(crate) fn layers_above(tx: &Connection, nodes: &[i64]) -> rusqlite::Result<BTreeSet<i64>> {
    let mut constrained =
        tx.prepare_cached("SELECT dst FROM edges WHERE src = ?1 AND rel = 'constrains'")?;
    let mut parents = tx.prepare_cached(
        "SELECT src FROM edges WHERE dst = CAST(?1 AS INTEGER) AND rel = 'contains'",
    )?;
    let mut kind = tx.prepare_cached("SELECT kind FROM nodes WHERE ix = ?1")?;
    let mut seen: BTreeSet<i64> = BTreeSet::new();
    let mut stack: Vec<i64> = Vec::new();
    for &node in nodes {
        stack.push(node);
        let rows = constrained.query_map([node], |r| r.get::<_, i64>(0))?;
        for dst in rows {
            stack.push(dst?);
        }
    }
    let mut layers = BTreeSet::new();
    while let Some(at) = stack.pop() {
        if !seen.insert(at) {
            continue;
        }
        if let Some(k) = kind.query_row([at], |r| r.get::<_, String>(0)).optional()? {
            if k == "layer" {
                layers.insert(at);
            }
        }
        let rows = parents.query_map([at], |r| r.get::<_, i64>(0))?;
        for parent in rows {
            stack.push(parent?);
        }
    }
    Ok(layers)
}

/// The guides of `layer` as the index holds them. Sorted like [`brief_model::layer_guides`].
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
