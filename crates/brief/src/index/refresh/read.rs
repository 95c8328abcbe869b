//! The parallel side of a refresh: a parsed node made ready for writing.

use super::*;

/// What the index stores of a parsed node, made on the parallel side of a refresh (the
/// rest of the node is dropped there too, not on the writing thread).
pub(in crate::index) struct Prepared {
    pub(in crate::index) id: String,
    pub(in crate::index) kind: Kind,
    pub(in crate::index) title: String,
    pub(in crate::index) date: Option<String>,
    pub(in crate::index) location: Location,
    pub(in crate::index) links: Vec<Link>,
    pub(in crate::index) data: String,
    /// [`row_sum`] of the node's row and [`data_sum`] of its data.
    pub(in crate::index) sums: (i64, i64),
    pub(in crate::index) body: String,
    pub(in crate::index) fields: String,
}

pub(in crate::index) fn prepare(node: Node) -> Result<Prepared, Problem> {
    let data = serde_json::to_string(&node)
        .map_err(|e| Problem::error(node.location.clone(), format!("cannot store node: {e}")))?;
    let sums = (
        row_sum(
            &node.id,
            node.kind.name(),
            node.date.as_deref(),
            &node.title,
        ),
        data_sum(&data),
    );
    let (body, fields) = search_text(&node);
    let Node {
        id,
        kind,
        title,
        date,
        location,
        links,
        ..
    } = node;
    Ok(Prepared {
        id,
        kind,
        title,
        date,
        location,
        links,
        data,
        sums,
        body,
        fields,
    })
}
