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

/// Reads and hashes a Tana export (parsed later, inside the write transaction); its text is
/// kept only when its hash differs from the indexed one.
pub(in crate::index) fn read_tana(
    root: &Root,
    file: &Listed,
    at: usize,
    hashes: &HashMap<String, Vec<u8>>,
) -> TanaRead {
    match read_stamped(root, &file.path) {
        Ok((text, stamp)) => {
            let hash = *blake3::hash(text.as_bytes()).as_bytes();
            let same = hashes
                .get(file.rel.as_str())
                .is_some_and(|old| old.as_slice() == hash);
            TanaRead {
                at,
                hash,
                stamp,
                text: Ok((!same).then_some(text)),
            }
        }
        Err(problem) => TanaRead {
            at,
            hash: [0; 32],
            stamp: None,
            text: Err(problem),
        },
    }
}

/// Reads, hashes and (when its hash changed) parses one file; a file that cannot be read or
/// parsed becomes its problem.
pub(in crate::index) fn read_file(
    root: &Root,
    file: &Listed,
    at: usize,
    hashes: &HashMap<String, Vec<u8>>,
    catalog: &kb::Catalog,
) -> Read {
    match read_stamped(root, &file.path) {
        Ok((text, stamp)) => {
            let hash = *blake3::hash(text.as_bytes()).as_bytes();
            let same = hashes
                .get(file.rel.as_str())
                .is_some_and(|old| old.as_slice() == hash);
            let parsed = (!same).then(|| {
                parse(&file.rel, &text, &file.parser, catalog)
                    .and_then(|node| node.map(prepare).transpose())
            });
            Read {
                at,
                hash,
                stamp,
                parsed,
            }
        }
        Err(problem) => Read {
            at,
            hash: [0; 32],
            stamp: None,
            parsed: Some(Err(problem)),
        },
    }
}

/// The reader thread's loop: `todo` a chunk at a time, each chunk on all cores, sent in
/// order to the writer. Stops when the writer hangs up (an error, or another process
/// changed the index).
pub(in crate::index) fn read_chunks(
    todo: &[usize],
    read_one: &(dyn Fn(usize) -> Read + Sync),
    sender: &std::sync::mpsc::SyncSender<Vec<Read>>,
) {
    use rayon::prelude::*;
    for chunk in todo.chunks(PARSE_CHUNK) {
        let reads: Vec<Read> = chunk.par_iter().map(|&i| read_one(i)).collect();
        if sender.send(reads).is_err() {
            break;
        }
    }
}
