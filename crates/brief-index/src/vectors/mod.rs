//! Vectors in the index: the text each node is embedded from (`passages`, written with the
//! node), vectors keyed by what they were made from (the passage's hash under one model key,
//! so an unchanged node is never embedded again and another model embeds afresh), and the
//! vectors of every 256 nodes in one block (`vector_blocks`), so a query scans a few large
//! rows instead of a row per node.
//!
//! `pass` embeds what has no vector yet (`Index::embed`); `read` gives the blocks back as one
//! [`Matrix`] (`Index::vectors`). The write hooks below keep `passages` and the blocks true to
//! the nodes inside every refresh's transaction.

mod pass;
mod read;

use super::*;

pub use pass::{Embedded, Until};

/// The tables. A block's `data` is a run of records: the node's index (`u32`,
/// little-endian), then its stored vector ([`brief_embed::Quantized::to_bytes`]).
pub(crate) const CREATE: &str = "
CREATE TABLE passages(ix INTEGER PRIMARY KEY, hash BLOB NOT NULL);
CREATE INDEX passages_hash ON passages(hash);
-- One row per model key (`Endpoint::vector_key`): its vector length once known, and whether
-- every passage has its vector and every block is built.
CREATE TABLE embed_models(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, dims INTEGER,
                          complete INTEGER NOT NULL DEFAULT 0);
CREATE TABLE vectors(model INTEGER NOT NULL, hash BLOB NOT NULL, data BLOB NOT NULL,
                     sum INTEGER NOT NULL, PRIMARY KEY(model, hash)) WITHOUT ROWID;
CREATE TABLE vector_blocks(block INTEGER NOT NULL, model INTEGER NOT NULL, data BLOB NOT NULL,
                           sum INTEGER NOT NULL, PRIMARY KEY(block, model)) WITHOUT ROWID;
";

/// Nodes per block, as a shift of the node index.
const BLOCK_SHIFT: u32 = 8;

/// The most characters of a node's body embedded after its title.
pub(crate) const PASSAGE_CHARS: usize = 1000;

/// The text a node is embedded from: its title, then the first [`PASSAGE_CHARS`] characters
/// of its body (what search reads as the body: an artifact's Markdown, a spec's statement,
/// expectation, description and rationale, a Tana node's description), every run of white
/// space made one space, cut at a word boundary. The passage prefix is the client's.
pub(crate) fn passage(node: &Node) -> String {
    let (body, _) = refresh::search_text(node);
    let title = if node.title.trim().is_empty() {
        node.id.as_str()
    } else {
        node.title.trim()
    };
    let mut text = String::with_capacity(title.len() + PASSAGE_CHARS + 1);
    text.push_str(title);
    let mut chars = 0;
    for word in body.split_whitespace() {
        let len = word.chars().count();
        if chars + len + 1 > PASSAGE_CHARS {
            // A first word longer than the limit is cut rather than dropped whole.
            if chars == 0 {
                text.push('\n');
                text.extend(word.chars().take(PASSAGE_CHARS));
            }
            break;
        }
        text.push(if chars == 0 { '\n' } else { ' ' });
        text.push_str(word);
        chars += len + 1;
    }
    text
}

/// The hash a node's passage is stored and looked up by.
pub(crate) fn passage_hash(node: &Node) -> [u8; 32] {
    *blake3::hash(passage(node).as_bytes()).as_bytes()
}

/// The block of a node.
fn block_of(ix: i64) -> i64 {
    ix >> BLOCK_SHIFT
}

/// Records that node `ix` is now embedded from the passage of `hash`; when that changed, its
/// block is built again and no model is complete any more.
pub(crate) fn written(tx: &Connection, ix: i64, hash: &[u8; 32]) -> rusqlite::Result<()> {
    let changed = run(
        tx,
        "INSERT INTO passages(ix, hash) VALUES (?1, ?2)
         ON CONFLICT(ix) DO UPDATE SET hash = excluded.hash WHERE hash <> excluded.hash",
        params![ix, &hash[..]],
    )?;
    if changed > 0 {
        stale(tx, ix)?;
    }
    Ok(())
}

/// Node `ix` left the index.
pub(crate) fn removed(tx: &Connection, ix: i64) -> rusqlite::Result<()> {
    if run(tx, "DELETE FROM passages WHERE ix = ?1", [ix])? > 0 {
        stale(tx, ix)?;
    }
    Ok(())
}

/// Every node of `file` is about to leave the index (before its `nodes` rows go).
pub(crate) fn removing_file(tx: &Connection, file: &str) -> rusqlite::Result<()> {
    run(
        tx,
        "DELETE FROM vector_blocks WHERE block IN
           (SELECT DISTINCT ix >> 8 FROM nodes WHERE file = ?1)",
        [file],
    )?;
    run(
        tx,
        "DELETE FROM passages WHERE ix IN (SELECT ix FROM nodes WHERE file = ?1)",
        [file],
    )?;
    run(
        tx,
        "UPDATE embed_models SET complete = 0 WHERE complete = 1",
        [],
    )?;
    Ok(())
}

/// The vectors of node `ix`'s block are out of date, for every model.
fn stale(tx: &Connection, ix: i64) -> rusqlite::Result<()> {
    run(
        tx,
        "DELETE FROM vector_blocks WHERE block = ?1",
        [block_of(ix)],
    )?;
    run(
        tx,
        "UPDATE embed_models SET complete = 0 WHERE complete = 1",
        [],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests;
