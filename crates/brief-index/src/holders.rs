//! Kept lists of the nodes holding a word that many nodes hold.
//!
//! A query of words many nodes hold asks which nodes hold several of them together. FTS5
//! answers by walking each word's whole list of positions, every time: on 100,000 nodes, five
//! words held by a third of them each cost about 5 ms of a 18 ms request. Here the first
//! such query keeps each word's holders (node, weighted count, length) as one compact row,
//! and the next ones intersect those rows in memory.
//!
//! A list is of one write version of the index. While lists are kept, a refresh that writes
//! records the nodes it writes (`touched`, through temporary triggers on `node_data`, which
//! every change of a node's search text goes with), and the next reader brings each list up
//! to date from them instead of making it again. A bulk write, or more changes than are worth
//! replaying, drops every list.
//!
//! The relevance computed from a list is `bm25()`'s, bit for bit: the same IDF, length
//! normalisation and column weights (`parts.rs`), from the same integers.

use std::sync::Arc;

use super::*;
use crate::lexicon::{Holders, Term, TermParts};
use crate::parts::{HOLDING, HOLDING_VALUES};
use crate::schema::sum_of;

/// A word is listed when at least this many nodes hold it: a rarer word's list is short,
/// and FTS5 walks it fast.
pub(crate) const LISTED_FROM: u64 = 1_024;

/// Most lists the index keeps; past them every list is dropped before more are written (each
/// is 3 to 4 bytes a holder, so a few megabytes on a large project).
const LISTS_KEPT_MOST: i64 = 64;

/// Most lists a connection keeps decoded in memory (a server's).
const LISTS_HELD_MOST: usize = 32;

/// The first byte of an encoded list: its form.
const FORM: u8 = 1;

/// The column weights of the search table as whole numbers: a word's weighted count in a
/// node is a sum of them, kept exactly as an integer. `lexicon::WEIGHTS` gives the same
/// weights to SQL (a test compares them).
pub(crate) const COLUMN_WEIGHTS: [u32; crate::parts::COLUMNS] = [10, 4, 1, 2];

/// A node holding a word: the node, the word's weighted count there and the node's length.
type Holder = (u32, u32, u32);

/// The search table's row count and total length in tokens.
type Totals = (i64, i64);

/// The nodes holding one word, ascending, with how each holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct List {
    /// The search table's row count when the list was made.
    rows: i64,
    /// The search table's total length in tokens then.
    tokens: i64,
    nodes: Vec<u32>,
    /// Each node's weighted count of the word ([`COLUMN_WEIGHTS`]).
    weighted: Packed,
    /// Each node's length in tokens.
    length: Packed,
}

/// Numbers in as few bytes each as the largest needs (1, 2 or 4), little-endian: most
/// weighted counts fit in one byte and most lengths in two, and a list is read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Packed {
    width: usize,
    bytes: Vec<u8>,
}

impl Packed {
    fn of(values: impl Iterator<Item = u32> + Clone) -> Packed {
        let most = values.clone().max().unwrap_or(0);
        let width = if most <= 0xff {
            1
        } else if most <= 0xffff {
            2
        } else {
            4
        };
        let mut bytes = Vec::new();
        for value in values {
            bytes.extend_from_slice(&value.to_le_bytes()[..width]);
        }
        Packed { width, bytes }
    }

    /// The number at `k` (0 past the end, which a decoded list never asks for).
    fn get(&self, k: usize) -> u32 {
        let at = k * self.width;
        match self.bytes.get(at..at + self.width) {
            Some(&[a]) => u32::from(a),
            Some(&[a, b]) => u32::from(u16::from_le_bytes([a, b])),
            Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
            _ => 0,
        }
    }

    /// `n` numbers of `width` bytes at the start of `bytes`, and the bytes after them.
    fn read(bytes: &[u8], width: u8, n: usize) -> Option<(Packed, &[u8])> {
        let width = usize::from(width);
        if !matches!(width, 1 | 2 | 4) {
            return None;
        }
        let size = n.checked_mul(width)?;
        (bytes.len() >= size).then(|| {
            let (packed, rest) = bytes.split_at(size);
            (
                Packed {
                    width,
                    bytes: packed.to_vec(),
                },
                rest,
            )
        })
    }
}

impl List {
    /// A list of holders (node, weighted count, length), ascending by node.
    fn of(rows: i64, tokens: i64, holders: &[Holder]) -> List {
        List {
            rows,
            tokens,
            nodes: holders.iter().map(|h| h.0).collect(),
            weighted: Packed::of(holders.iter().map(|h| h.1)),
            length: Packed::of(holders.iter().map(|h| h.2)),
        }
    }

    /// The list as it is kept: form, rows, tokens, count, the two widths, weighted counts,
    /// lengths, then the nodes as ascending gaps (LEB128).
    fn encode(&self) -> Vec<u8> {
        let n = self.nodes.len();
        let mut out =
            Vec::with_capacity(23 + self.weighted.bytes.len() + self.length.bytes.len() + 2 * n);
        out.push(FORM);
        out.extend_from_slice(&self.rows.to_le_bytes());
        out.extend_from_slice(&self.tokens.to_le_bytes());
        out.extend_from_slice(&(n as u32).to_le_bytes());
        out.extend([self.weighted.width as u8, self.length.width as u8]);
        out.extend_from_slice(&self.weighted.bytes);
        out.extend_from_slice(&self.length.bytes);
        let mut last = 0u32;
        for (k, &node) in self.nodes.iter().enumerate() {
            let mut gap = if k == 0 { node } else { node - last };
            last = node;
            while gap >= 0x80 {
                out.push((gap & 0x7f) as u8 | 0x80);
                gap >>= 7;
            }
            out.push(gap as u8);
        }
        out
    }

    /// A kept list, or `None` when the bytes are not one (then it is made again).
    fn decode(bytes: &[u8]) -> Option<List> {
        let (&form, rest) = bytes.split_first()?;
        if form != FORM || rest.len() < 22 {
            return None;
        }
        let rows = i64::from_le_bytes(rest[0..8].try_into().ok()?);
        let tokens = i64::from_le_bytes(rest[8..16].try_into().ok()?);
        let n = u32::from_le_bytes(rest[16..20].try_into().ok()?) as usize;
        if rows <= 0 || tokens < 0 {
            return None;
        }
        let widths = (rest[20], rest[21]);
        let (weighted, rest) = Packed::read(&rest[22..], widths.0, n)?;
        let (length, rest) = Packed::read(rest, widths.1, n)?;
        Some(List {
            rows,
            tokens,
            nodes: gaps(rest, n)?,
            weighted,
            length,
        })
    }

    /// Where `node` is in the list, searching from `from` on (the nodes asked for ascend),
    /// and the position to search from next: a few steps forward, then galloping.
    fn seek(&self, node: u32, from: usize) -> (Option<usize>, usize) {
        let mut at = from;
        for _ in 0..8 {
            match self.nodes.get(at) {
                Some(&here) if here < node => at += 1,
                Some(&here) if here == node => return (Some(at), at + 1),
                _ => return (None, at),
            }
        }
        let nodes = &self.nodes[at..];
        let mut step = 1;
        while step < nodes.len() && nodes[step - 1] < node {
            step *= 2;
        }
        let end = step.min(nodes.len());
        match nodes[..end].binary_search(&node) {
            Ok(k) => (Some(at + k), at + k + 1),
            Err(k) => (None, at + k),
        }
    }
}

/// `n` nodes from their ascending gaps, or `None` unless the bytes are exactly that.
fn gaps(bytes: &[u8], n: usize) -> Option<Vec<u32>> {
    let mut nodes = Vec::with_capacity(n);
    let mut bytes = bytes.iter();
    let mut last = 0u64;
    while let Some(&first) = bytes.next() {
        let mut value = u64::from(first);
        if first >= 0x80 {
            value &= 0x7f;
            let mut shift = 0;
            loop {
                let byte = *bytes.next()?;
                shift += 7;
                if shift > 28 {
                    return None;
                }
                value |= u64::from(byte & 0x7f) << shift;
                if byte < 0x80 {
                    break;
                }
            }
        }
        if value == 0 && !nodes.is_empty() {
            return None;
        }
        last += value;
        nodes.push(u32::try_from(last).ok()?);
    }
    (nodes.len() == n).then_some(nodes)
}

/// The checksum kept with a list: of its token, version and bytes.
fn list_sum(token: &str, version: i64, list: &[u8]) -> i64 {
    sum_of(&[token.as_bytes(), &version.to_le_bytes(), list])
}

/// How many holders a list must have per node written since its version for the list to be
/// brought up to date rather than made again: replaying a written node costs a lookup in the
/// search index (about 25 µs on 100,000 nodes), making a list about 0.6 µs a holder.
#[cfg(not(test))]
const HOLDERS_PER_REPLAY: usize = 40;
/// The unit tests' lists are short: each is brought up to date whenever it can be, which is
/// what they check.
#[cfg(test)]
const HOLDERS_PER_REPLAY: usize = 1;

/// Most nodes the kept record of changed nodes holds; past it every list is dropped.
const TOUCHED_MOST: i64 = 4_096;

/// The temporary triggers a writer adds while lists are kept: every node whose data (and so
/// its search text) is written is recorded in `touched`, with the version -1 until the write
/// version is known (then [`after_write`] gives each row its version and checksum).
const WATCH: &str = "
CREATE TEMP TRIGGER IF NOT EXISTS holders_watch_insert AFTER INSERT ON main.node_data
BEGIN INSERT OR REPLACE INTO main.touched(ix, version, sum) VALUES (new.ix, -1, 0); END;
CREATE TEMP TRIGGER IF NOT EXISTS holders_watch_update AFTER UPDATE ON main.node_data
BEGIN INSERT OR REPLACE INTO main.touched(ix, version, sum) VALUES (new.ix, -1, 0); END;
CREATE TEMP TRIGGER IF NOT EXISTS holders_watch_delete AFTER DELETE ON main.node_data
BEGIN INSERT OR REPLACE INTO main.touched(ix, version, sum) VALUES (old.ix, -1, 0); END;
";

/// The checksum of a row of `touched`: a row damaged into another node or version would let
/// a list be brought up to date wrongly.
fn touched_sum(ix: i64, version: i64) -> i64 {
    sum_of(&[&ix.to_le_bytes(), &version.to_le_bytes()])
}

const UNWATCH: &str = "
DROP TRIGGER IF EXISTS temp.holders_watch_insert;
DROP TRIGGER IF EXISTS temp.holders_watch_update;
DROP TRIGGER IF EXISTS temp.holders_watch_delete;
";

/// What a write does to the kept lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Watch {
    /// The nodes it writes are recorded, so each list can be brought up to date.
    Touched,
    /// Every list goes (a bulk write, or none is kept).
    Forget,
}

/// Starts a write: with lists kept and a write of a few files, records the nodes it
/// touches ([`Watch::Touched`]).
pub(crate) fn watch(tx: &Connection, bulk: bool) -> rusqlite::Result<Watch> {
    let kept: bool = tx.query_row("SELECT EXISTS (SELECT 1 FROM holders)", [], |r| r.get(0))?;
    if bulk || !kept {
        return Ok(Watch::Forget);
    }
    tx.execute_batch(WATCH)?;
    Ok(Watch::Touched)
}

/// Ends a write at version `writes`: the touched nodes take that version, and the record
/// keeps only what a kept list still needs; past [`TOUCHED_MOST`], or after a bulk write,
/// every list goes.
pub(crate) fn after_write(tx: &Connection, watch: Watch, writes: i64) -> rusqlite::Result<()> {
    if watch == Watch::Touched {
        tx.execute_batch(UNWATCH)?;
        // What no kept list needs goes first: only the rest counts against the most.
        tx.execute(
            "DELETE FROM touched WHERE version >= 0
                 AND version <= (SELECT min(version) FROM holders)",
            [],
        )?;
        let touched: i64 = tx.query_row("SELECT count(*) FROM touched", [], |r| r.get(0))?;
        if touched <= TOUCHED_MOST {
            let written: Vec<i64> = tx
                .prepare("SELECT ix FROM touched WHERE version < 0")?
                .query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            let mut stmt = tx.prepare("UPDATE touched SET version = ?2, sum = ?3 WHERE ix = ?1")?;
            for ix in written {
                stmt.execute(params![ix, writes, touched_sum(ix, writes)])?;
            }
            return Ok(());
        }
    }
    tx.execute_batch("DELETE FROM holders; DELETE FROM touched;")
}

/// Every kept list and every row of the record of writes matches its checksum (what the
/// seal's verification asks).
pub(crate) fn lists_intact(conn: &Connection) -> rusqlite::Result<bool> {
    let mut stmt = conn.prepare("SELECT token, version, list, sum FROM holders")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let (token, version) = (r.get_ref(0)?.as_str(), r.get_ref(1)?.as_i64());
        let (list, sum) = (r.get_ref(2)?.as_blob(), r.get_ref(3)?.as_i64());
        let (Ok(token), Ok(version), Ok(list), Ok(sum)) = (token, version, list, sum) else {
            return Ok(false);
        };
        if list_sum(token, version, list) != sum {
            return Ok(false);
        }
    }
    let mut stmt = conn.prepare("SELECT ix, version, sum FROM touched")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let (ix, version, sum) = (r.get_ref(0)?, r.get_ref(1)?, r.get_ref(2)?);
        let (Ok(ix), Ok(version), Ok(sum)) = (ix.as_i64(), version.as_i64(), sum.as_i64()) else {
            return Ok(false);
        };
        if touched_sum(ix, version) != sum {
            return Ok(false);
        }
    }
    Ok(true)
}

/// How one row holds a one-token query, from what [`HOLDING`] returns: (node, weighted count,
/// length) and the table's (rows, tokens). `None` when a count does not fit.
fn holding_of(node: i64, bytes: &[u8]) -> Option<(Holder, Totals)> {
    let values: Vec<i64> = bytes
        .chunks_exact(8)
        .map(|b| i64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
        .collect();
    if values.len() != HOLDING_VALUES {
        return None;
    }
    let weighted: i64 = COLUMN_WEIGHTS
        .iter()
        .zip(&values)
        .map(|(&w, &n)| i64::from(w).saturating_mul(n))
        .sum();
    let columns = crate::parts::COLUMNS;
    Some((
        (
            u32::try_from(node).ok()?,
            u32::try_from(weighted).ok()?,
            u32::try_from(values[columns]).ok()?,
        ),
        (values[columns + 1], values[columns + 2]),
    ))
}

impl Index {
    /// The nodes `holders` names, each with its relevance for each term read, by node index.
    /// Only those nodes are scored, not every holder of each term: the way to read a word
    /// that many nodes hold. Terms are single tokens, not prefixes (the count of nodes holding
    /// each is its IDF's count). Read from the kept lists where they can answer, else through
    /// FTS5: the same nodes and relevance either way.
    pub fn term_parts(&self, holders: Holders<'_>) -> Result<Vec<TermParts>, StoreError> {
        if !self.reads_term_parts() {
            // Not damage: nothing read was wrong, and a rebuild would not bring it back.
            return Err(StoreError {
                store: format!("index {}", self.location),
                message: format!(
                    "SQLite refused the {} function",
                    crate::parts::NAME.to_string_lossy()
                ),
                fault: brief_model::Fault::Other,
            });
        }
        let listed = self
            .listed_parts(holders, LISTED_FROM)
            .map_err(|e| self.fail(e))?;
        match listed {
            Some(listed) => Ok(listed),
            None => self.fts_parts(holders),
        }
    }

    /// Each node `holders` names with its relevance per term, from the kept lists, as
    /// [`Index::term_parts`] gives it through FTS5 (every node listed has its relevance).
    /// `None` when the lists cannot answer: a term is a phrase, a prefix or held by few nodes,
    /// or a list can neither be read nor kept (a read-only index).
    /// Only terms at least `from` nodes hold are listed ([`LISTED_FROM`]).
    pub(crate) fn listed_parts(
        &self,
        holders: Holders<'_>,
        from: u64,
    ) -> Result<Option<Vec<TermParts>>, rusqlite::Error> {
        let (found, terms) = match holders {
            Holders::All(terms) | Holders::Best { terms, .. } => (None, terms),
            Holders::Among { found, terms } => (Some(found), terms),
        };
        let listable = |t: &&Term| t.tokens.len() == 1 && !t.prefix && t.nodes >= from;
        if terms.is_empty() || !terms.iter().all(listable) {
            return Ok(None);
        }
        if matches!(found, Some([])) {
            return Ok(Some(Vec::new()));
        }
        let Some(version) = self.write_version()? else {
            return Ok(None);
        };
        let mut lists = Vec::with_capacity(terms.len());
        for term in terms {
            match self.list_of(term, version)? {
                Some(list) => lists.push(list),
                None => return Ok(None),
            }
        }
        let (rows, tokens) = (lists[0].rows, lists[0].tokens);
        if lists.iter().any(|l| l.rows != rows || l.tokens != tokens) {
            return Ok(None);
        }
        let idf: Vec<f64> = terms
            .iter()
            .map(|t| crate::parts::idf(rows, i64::try_from(t.nodes).unwrap_or(i64::MAX)))
            .collect();
        let weigh = Weigh {
            lists: &lists,
            idf: &idf,
            avgdl: tokens as f64 / rows as f64,
        };
        Ok(Some(match found {
            None => weigh.together(),
            Some(found) => weigh.among(&self.holders_of(found)?),
        }))
    }

    /// The nodes holding any of `found` (rare words: FTS5 walks their short lists), ascending.
    fn holders_of(&self, found: &[&Term]) -> rusqlite::Result<Vec<u32>> {
        if found.is_empty() {
            return Ok(Vec::new());
        }
        let expr: Vec<String> = found.iter().map(|t| t.fts()).collect();
        let mut stmt = self
            .conn
            .prepare_cached("SELECT rowid FROM search WHERE search MATCH ?1 ORDER BY rowid")?;
        let rows = stmt.query_map([expr.join(" OR ")], |r| r.get::<_, i64>(0))?;
        let mut nodes = Vec::new();
        for row in rows {
            if let Ok(node) = u32::try_from(row?) {
                nodes.push(node);
            }
        }
        Ok(nodes)
    }

    /// The kept list of `term`'s holders at `version`: held in memory, read from the index
    /// (brought up to date when kept at an earlier version), or made; kept once the reading
    /// ends. `None` when it cannot be kept.
    fn list_of(&self, term: &Term, version: i64) -> rusqlite::Result<Option<Arc<List>>> {
        let token = &term.tokens[0];
        if let Some((at, list)) = self.lists_held.borrow().get(token) {
            if *at == version {
                return Ok(Some(Arc::clone(list)));
            }
        }
        let kept = self.kept_list(token)?;
        let list = match kept {
            Some((at, list)) if at == version => list,
            _ if self.conn.is_readonly(rusqlite::MAIN_DB)? => return Ok(None),
            kept => {
                // A list brought up to date must hold as many nodes as the index's vocabulary
                // counts: one that does not (the record of writes damaged) is made again.
                let patched = match kept {
                    Some((at, list)) if at < version => self
                        .patch(term, list, at)?
                        .filter(|list| list.nodes.len() as u64 == term.nodes),
                    _ => None,
                };
                let Some(list) = patched.map_or_else(|| self.make_list(term), |l| Ok(Some(l)))?
                else {
                    return Ok(None);
                };
                self.lists_to_keep
                    .borrow_mut()
                    .push((token.clone(), version, list.encode()));
                if self.conn.is_autocommit() {
                    self.keep_lists();
                }
                list
            }
        };
        let list = Arc::new(list);
        let mut held = self.lists_held.borrow_mut();
        if held.len() >= LISTS_HELD_MOST {
            held.clear();
        }
        held.insert(token.clone(), (version, Arc::clone(&list)));
        Ok(Some(list))
    }

    /// The list kept for `token` and its version, when there is one that matches its
    /// checksum and decodes.
    fn kept_list(&self, token: &str) -> rusqlite::Result<Option<(i64, List)>> {
        // Read in place: a list is a hundred kilobytes or more.
        let list = self
            .conn
            .prepare_cached("SELECT version, list, sum FROM holders WHERE token = ?1")?
            .query_row([token], |r| {
                // A value of another type is damage too: a miss, made again.
                let (version, list) = (r.get_ref(0)?.as_i64(), r.get_ref(1)?.as_blob());
                let (Ok(version), Ok(list), Ok(sum)) = (version, list, r.get_ref(2)?.as_i64())
                else {
                    return Ok(None);
                };
                Ok((list_sum(token, version, list) == sum)
                    .then(|| List::decode(list).map(|list| (version, list)))
                    .flatten())
            })
            .optional()?;
        Ok(list.flatten())
    }

    /// `term`'s holders, read through FTS5 (`None` when a count does not fit).
    fn make_list(&self, term: &Term) -> rusqlite::Result<Option<List>> {
        let sql = format!(
            "SELECT rowid, {}(search) FROM search WHERE search MATCH ?1 ORDER BY rowid",
            HOLDING.to_string_lossy()
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut rows = stmt.query([term.fts()])?;
        let mut holders: Vec<Holder> = Vec::with_capacity(usize::try_from(term.nodes).unwrap_or(0));
        let mut table = (0, 0);
        while let Some(r) = rows.next()? {
            let Some((holder, totals)) = holding_of(r.get(0)?, r.get_ref(1)?.as_blob()?) else {
                return Ok(None);
            };
            if holders.last().is_some_and(|&(last, _, _)| last >= holder.0) {
                return Ok(None);
            }
            holders.push(holder);
            table = totals;
        }
        Ok((table.0 > 0 && !holders.is_empty()).then(|| List::of(table.0, table.1, &holders)))
    }

    /// `list`, kept at version `at`, brought up to date: the nodes written since leave it and
    /// come back as they hold the word now, read one by one through FTS5. `None` when so many
    /// changed that making it again costs less ([`HOLDERS_PER_REPLAY`]), or nothing is left to
    /// take the table's totals from.
    fn patch(&self, term: &Term, list: List, at: i64) -> rusqlite::Result<Option<List>> {
        let most = list.nodes.len() / HOLDERS_PER_REPLAY;
        let rows: Vec<(i64, i64, i64)> = {
            let mut stmt = self.conn.prepare_cached(
                "SELECT ix, version, sum FROM touched WHERE version > ?1 ORDER BY ix LIMIT ?2",
            )?;
            let limit = i64::try_from(most + 1).unwrap_or(i64::MAX);
            let rows = stmt.query_map(params![at, limit], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        // A row that fails its checksum could name the wrong node: the list is made again.
        let intact = rows
            .iter()
            .all(|&(ix, version, sum)| touched_sum(ix, version) == sum);
        let touched: Option<Vec<u32>> = rows
            .iter()
            .map(|&(ix, _, _)| u32::try_from(ix).ok())
            .collect();
        let Some(touched) = touched.filter(|t| intact && t.len() <= most) else {
            return Ok(None);
        };
        let sql = format!(
            "SELECT rowid, {}(search) FROM search WHERE search MATCH ?1 AND rowid = ?2",
            HOLDING.to_string_lossy()
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let fts = term.fts();
        let mut holding = |node: u32| -> rusqlite::Result<Option<Option<_>>> {
            stmt.query_row(params![fts, node], |r| {
                Ok(holding_of(r.get(0)?, r.get_ref(1)?.as_blob()?))
            })
            .optional()
        };
        let mut holders: Vec<Holder> = Vec::with_capacity(list.nodes.len());
        let mut table = None;
        for &node in &touched {
            match holding(node)? {
                Some(Some((holder, totals))) => {
                    holders.push(holder);
                    table = Some(totals);
                }
                Some(None) => return Ok(None),
                None => {}
            }
        }
        let mut written = touched.iter().peekable();
        for (k, &node) in list.nodes.iter().enumerate() {
            while written.next_if(|&&t| t < node).is_some() {}
            if written.peek() != Some(&&node) {
                holders.push((node, list.weighted.get(k), list.length.get(k)));
            }
        }
        holders.sort_unstable_by_key(|h| h.0);
        if table.is_none() {
            // The totals changed with the write: any holder's row gives them.
            let Some(&(node, _, _)) = holders.first() else {
                return Ok(None);
            };
            table = holding(node)?.flatten().map(|(_, totals)| totals);
        }
        Ok(table
            .filter(|&(rows, _)| rows > 0)
            .map(|(rows, tokens)| List::of(rows, tokens, &holders)))
    }

    /// Writes the lists made within a reading, once it ends. Best effort, as counts: a busy
    /// or read-only index makes them again next time.
    pub(crate) fn keep_lists(&self) {
        let lists = self.lists_to_keep.take();
        if lists.is_empty() {
            return;
        }
        self.keep_cached(|conn| {
            // A list of a version a writer has left since was made while no write recorded
            // what it touched: it could not be brought up to date, so it is not kept.
            let now = self.write_version()?;
            let mut lists: Vec<_> = lists.iter().filter(|l| Some(l.1) == now).collect();
            // A reading that made more than can be kept keeps its last ones.
            let most = usize::try_from(LISTS_KEPT_MOST).unwrap_or(usize::MAX);
            lists.drain(..lists.len().saturating_sub(most));
            // A list that replaces its token's older one takes no room of its own.
            let mut new = 0;
            for (token, _, _) in &lists {
                let kept: bool = conn.query_row(
                    "SELECT EXISTS (SELECT 1 FROM holders WHERE token = ?1)",
                    [token],
                    |r| r.get(0),
                )?;
                new += i64::from(!kept);
            }
            let kept: i64 = conn.query_row("SELECT count(*) FROM holders", [], |r| r.get(0))?;
            if kept + new > LISTS_KEPT_MOST {
                conn.execute_batch("DELETE FROM holders; DELETE FROM touched;")?;
            }
            let mut stmt = conn.prepare_cached(
                "INSERT OR REPLACE INTO holders(token, version, list, sum) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (token, version, list) in lists {
                let sum = list_sum(token, *version, list);
                stmt.execute(params![token, version, list, sum])?;
            }
            Ok(())
        });
    }

    /// Empties the lists held in memory (another process may have written since).
    pub(crate) fn forget_lists_held(&self) {
        self.lists_held.borrow_mut().clear();
    }
}

/// What weighing nodes from lists needs: the lists (one per term, in the terms' order), each
/// term's IDF, and the average node length.
struct Weigh<'a> {
    lists: &'a [Arc<List>],
    idf: &'a [f64],
    avgdl: f64,
}

impl Weigh<'_> {
    /// The nodes holding every term, ascending, each with its relevance per term.
    fn together(&self) -> Vec<TermParts> {
        let (nodes, at) = match self.counted() {
            Some(held) => held,
            None => self.sought(),
        };
        let width = self.lists.len().max(1);
        nodes
            .iter()
            .zip(at.chunks_exact(width))
            .map(|(&node, at)| {
                let positions: Vec<Option<usize>> = at.iter().map(|&p| Some(p)).collect();
                self.parts(node, &positions)
            })
            .collect()
    }

    /// The nodes every list holds, ascending, and their positions in each list (one row of
    /// `lists.len()` a node), by counting each node's lists in a table as long as the largest
    /// node: two passes over the lists. `None` when the nodes are too sparse for the table.
    fn counted(&self) -> Option<(Vec<u32>, Vec<usize>)> {
        let lists = self.lists.len();
        let entries: usize = self.lists.iter().map(|l| l.nodes.len()).sum();
        let top = self.lists.iter().filter_map(|l| l.nodes.last()).max()?;
        let size = usize::try_from(*top).ok()?.checked_add(1)?;
        let shortest = self.lists.iter().map(|l| l.nodes.len()).min()?;
        // Counting reads every holder of every list; seeking, the shortest list's holders
        // a few steps each: counting pays only when the lists are of like lengths.
        let alike = entries <= shortest.saturating_mul(lists).saturating_mul(4);
        if lists == 0 || lists > usize::from(u8::MAX) || size > entries.saturating_mul(16) || !alike
        {
            return None;
        }
        let mut held = vec![0u8; size];
        for list in self.lists {
            for &node in &list.nodes {
                held[node as usize] += 1;
            }
        }
        let all = lists as u8;
        let nodes: Vec<u32> = self.lists[0]
            .nodes
            .iter()
            .copied()
            .filter(|&node| held[node as usize] == all)
            .collect();
        let mut at = vec![0usize; nodes.len() * lists];
        for (k, list) in self.lists.iter().enumerate() {
            let positions = (0..list.nodes.len()).filter(|&p| held[list.nodes[p] as usize] == all);
            for (row, p) in positions.enumerate() {
                at[row * lists + k] = p;
            }
        }
        Some((nodes, at))
    }

    /// What [`Weigh::counted`] gives, by walking the shortest list and seeking each of its
    /// nodes in the others.
    fn sought(&self) -> (Vec<u32>, Vec<usize>) {
        let lists = self.lists.len();
        let shortest = (0..lists)
            .min_by_key(|&k| (self.lists[k].nodes.len(), k))
            .unwrap_or(0);
        let mut cursors = vec![0usize; lists];
        let mut row = vec![0usize; lists];
        let (mut nodes, mut at) = (Vec::new(), Vec::new());
        'nodes: for (position, &node) in self.lists[shortest].nodes.iter().enumerate() {
            for (k, list) in self.lists.iter().enumerate() {
                if k == shortest {
                    row[k] = position;
                    continue;
                }
                let (found, next) = list.seek(node, cursors[k]);
                cursors[k] = next;
                match found {
                    Some(position) => row[k] = position,
                    None => continue 'nodes,
                }
            }
            nodes.push(node);
            at.extend_from_slice(&row);
        }
        (nodes, at)
    }

    /// The nodes of `found` (ascending) holding at least one term, each with its relevance
    /// per term (0 for a term it does not hold).
    fn among(&self, found: &[u32]) -> Vec<TermParts> {
        let mut cursors = vec![0usize; self.lists.len()];
        let mut out = Vec::new();
        for &node in found {
            let positions: Vec<Option<usize>> = self
                .lists
                .iter()
                .zip(cursors.iter_mut())
                .map(|(list, cursor)| {
                    let (found, next) = list.seek(node, *cursor);
                    *cursor = next;
                    found
                })
                .collect();
            if positions.iter().any(Option::is_some) {
                out.push(self.parts(node, &positions));
            }
        }
        out
    }

    /// A node's relevance per term, from its place in each list (none: it does not hold the
    /// term). Its length is the same in every list.
    fn parts(&self, node: u32, positions: &[Option<usize>]) -> TermParts {
        let length = self
            .lists
            .iter()
            .zip(positions)
            .find_map(|(list, p)| p.map(|p| list.length.get(p)))
            .unwrap_or(0);
        let norm = crate::parts::norm(f64::from(length), self.avgdl);
        let relevance = self
            .lists
            .iter()
            .zip(positions)
            .zip(self.idf)
            .map(|((list, p), &idf)| match p {
                Some(p) => crate::parts::part(idf, f64::from(list.weighted.get(*p)), norm),
                None => 0.0,
            })
            .collect();
        TermParts {
            node: node as NodeIx,
            relevance,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kit::{built, norm, project, settle, spec, write};
    use crate::Verify;

    /// Forty rules and specs of many lengths, holding "ledger", "cache" and "storage" in
    /// their titles, bodies and fields, some more than once.
    fn varied() -> tempfile::TempDir {
        let mut files = Vec::new();
        for k in 0..40 {
            let filler = "padding words ".repeat(k % 13 * 4);
            let mut body = format!("{filler}The ledger is written first.");
            if k % 2 == 0 {
                body.push_str(" A cache sits in front of the cache layer.");
            }
            if k % 3 == 0 {
                body.push_str(" Storage holds the ledger.");
            }
            let text = if k % 4 == 0 {
                norm(
                    &format!("NORM-{k}"),
                    &format!("Ledger cache rule {k}"),
                    &body,
                )
            } else {
                spec(
                    &format!("SPEC-{k}"),
                    &format!("Storage spec {k}"),
                    &[],
                    &body,
                )
            };
            let dir = if k % 4 == 0 { "norms" } else { "specs" };
            files.push((format!("{dir}/{k}.md"), text));
        }
        let refs: Vec<(&str, String)> =
            files.iter().map(|(p, t)| (p.as_str(), t.clone())).collect();
        project(&refs)
    }

    fn terms_of(index: &Index, words: &[&str]) -> Vec<Term> {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        index.reading(|| index.terms(&words)).unwrap().unwrap().0
    }

    /// The varied project, built, with its word functions registered.
    fn varied_index() -> (tempfile::TempDir, Project, Index) {
        let dir = varied();
        let (project, index) = built(dir.path());
        assert!(index.reads_term_parts());
        (dir, project, index)
    }

    /// Writes `files` (after the stamps settle) and refreshes the index.
    fn edit<P: AsRef<str>>(
        dir: &tempfile::TempDir,
        project: &Project,
        index: &mut Index,
        files: impl IntoIterator<Item = (P, String)>,
    ) {
        settle();
        for (path, text) in files {
            write(dir.path(), path.as_ref(), &text);
        }
        index.refresh(project, Verify::Full, &mut |_| {}).unwrap();
    }

    /// How many rows `table` has.
    fn rows(index: &Index, table: &str) -> i64 {
        index
            .conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    }

    fn kept(index: &Index) -> i64 {
        rows(index, "holders")
    }

    fn touched(index: &Index) -> i64 {
        rows(index, "touched")
    }

    /// The lists give every node FTS5 gives, with the same relevance to the last bit.
    #[test]
    fn lists_weigh_nodes_as_fts5_does() {
        let (_dir, _project, index) = varied_index();
        let terms = terms_of(&index, &["ledger", "cache", "storage", "padding"]);
        let refs: Vec<&Term> = terms.iter().collect();
        let asked: Vec<Holders<'_>> = vec![
            Holders::All(&refs[..2]),
            Holders::All(&refs[..3]),
            Holders::All(&refs[1..]),
            Holders::Among {
                found: &refs[2..3],
                terms: &refs[..2],
            },
            Holders::Among {
                found: &refs[3..],
                terms: &refs[1..3],
            },
        ];
        for holders in asked {
            let listed = index
                .reading(|| index.listed_parts(holders, 1))
                .unwrap()
                .unwrap()
                .expect("single words are listed");
            let read = index.reading(|| index.fts_parts(holders)).unwrap().unwrap();
            assert!(!read.is_empty(), "{holders:?}");
            assert_eq!(listed, read, "{holders:?}");
        }
        assert_eq!(kept(&index), 4, "each word's list is kept once");
    }

    /// Asked for the best few, FTS5 leaves out the relevance of nodes that cannot be among
    /// them; the lists give every node's, the same where both give one.
    #[test]
    fn the_best_few_from_lists_agree_with_fts5() {
        let (_dir, _project, index) = varied_index();
        let terms = terms_of(&index, &["ledger", "cache"]);
        let refs: Vec<&Term> = terms.iter().collect();
        let holders = Holders::Best {
            terms: &refs,
            weights: &[1.0, 0.5],
            best: 3,
        };
        let listed = index
            .reading(|| index.listed_parts(holders, 1))
            .unwrap()
            .unwrap()
            .unwrap();
        let read = index.reading(|| index.fts_parts(holders)).unwrap().unwrap();
        assert_eq!(listed.len(), read.len());
        let mut compared = 0;
        for (listed, read) in listed.iter().zip(&read) {
            assert_eq!(listed.node, read.node);
            if !read.relevance.is_empty() {
                assert_eq!(listed.relevance, read.relevance);
                compared += 1;
            }
        }
        assert!(
            compared >= 3 && compared < read.len(),
            "{compared} of {}",
            read.len()
        );
    }

    #[test]
    fn words_few_nodes_hold_phrases_and_prefixes_are_not_listed() {
        let (_dir, _project, index) = varied_index();
        let terms = terms_of(&index, &["ledger", "writt", "3.8"]);
        let (ledger, prefix, phrase) = ([&terms[0]], [&terms[1]], [&terms[0], &terms[2]]);
        let listed = |holders: Holders<'_>, from| {
            index
                .reading(|| index.listed_parts(holders, from))
                .unwrap()
                .unwrap()
        };
        assert_eq!(
            listed(Holders::All(&ledger), 1_000),
            None,
            "held by 40 nodes"
        );
        assert!(terms[1].prefix);
        assert_eq!(listed(Holders::All(&prefix), 1), None);
        assert_eq!(terms[2].tokens.len(), 2);
        assert_eq!(listed(Holders::All(&phrase), 1), None);
        assert_eq!(kept(&index), 0);
    }

    /// What the lists and FTS5 give for `words` together and among the holders of `found`.
    fn both_ways(
        index: &Index,
        words: &[&str],
        found: &str,
    ) -> (Vec<Vec<TermParts>>, Vec<Vec<TermParts>>) {
        let terms = terms_of(index, words);
        let found = terms_of(index, &[found]);
        let refs: Vec<&Term> = terms.iter().collect();
        let found: Vec<&Term> = found.iter().collect();
        let asked = [
            Holders::All(&refs),
            Holders::Among {
                found: &found,
                terms: &refs,
            },
        ];
        let listed = asked
            .iter()
            .map(|&holders| {
                index
                    .reading(|| index.listed_parts(holders, 1))
                    .unwrap()
                    .unwrap()
                    .expect("listed")
            })
            .collect();
        let read = asked
            .iter()
            .map(|&holders| index.reading(|| index.fts_parts(holders)).unwrap().unwrap())
            .collect();
        (listed, read)
    }

    #[test]
    fn a_damaged_list_is_made_again() {
        let (_dir, _project, index) = varied_index();
        let (first, read) = both_ways(&index, &["ledger", "cache"], "storage");
        assert_eq!(first, read);
        assert_eq!(kept(&index), 2);
        // A list that fails its checksum or is not a list is made again, never read wrong.
        for damage in [
            "UPDATE holders SET sum = sum + 1",
            "UPDATE holders SET list = CAST(list AS TEXT)",
            "UPDATE holders SET list = x'01'",
        ] {
            index.conn.execute(damage, []).unwrap();
            index.forget_lists_held();
            assert_eq!(both_ways(&index, &["ledger", "cache"], "storage").0, first);
            assert!(lists_intact(&index.conn).unwrap(), "remade after {damage}");
        }
    }

    /// After refreshes that edit, add and remove nodes, each list is brought up to date
    /// from the nodes written, and weighs every node as FTS5 does.
    #[test]
    fn a_list_follows_the_writes_since_it_was_kept() {
        let (dir, project, mut index) = varied_index();
        let words = ["ledger", "cache"];
        let (listed, read) = both_ways(&index, &words, "storage");
        assert_eq!(listed, read);
        let edits: [(&str, Option<String>); 5] = [
            ("norms/0.md", Some(norm("NORM-0", "Rule 0", "Gone."))),
            (
                "specs/1.md",
                Some(spec("SPEC-1", "Ledger", &[], "A cache, a cache, a cache.")),
            ),
            ("specs/2.md", None),
            (
                "specs/new.md",
                Some(spec(
                    "SPEC-NEW",
                    "New",
                    &[],
                    "Storage for the ledger cache.",
                )),
            ),
            (
                "norms/4.md",
                Some(norm("NORM-4", "Ledger cache rule 4", &"long ".repeat(300))),
            ),
        ];
        for (k, (path, text)) in edits.into_iter().enumerate() {
            settle();
            let file = dir.path().join(".contextia/system").join(path);
            match text {
                Some(text) => write(dir.path(), path, &text),
                None => std::fs::remove_file(file).unwrap(),
            }
            index.refresh(&project, Verify::Full, &mut |_| {}).unwrap();
            assert_eq!(kept(&index), 2, "the lists stay after write {k}");
            assert!(touched(&index) >= 1);
            // Every other write is read at once; the rest pile up for the next reading.
            if k % 2 == 1 {
                continue;
            }
            index.forget_lists_held();
            let (listed, read) = both_ways(&index, &words, "storage");
            assert_eq!(listed, read, "after write {k}");
            let version = index.write_version().unwrap().unwrap();
            for term in terms_of(&index, &words) {
                let list = index.list_of(&term, version).unwrap().unwrap();
                assert_eq!(list.nodes.len() as u64, term.nodes, "{}", term.word);
            }
            let (made, _) = {
                index.conn.execute("DELETE FROM holders", []).unwrap();
                index.forget_lists_held();
                both_ways(&index, &words, "storage")
            };
            assert_eq!(
                made, listed,
                "a list brought up to date is the list made anew"
            );
        }
    }

    /// A record of writes that lost a node (damage that still decodes) cannot leave a list
    /// short: a list brought up to date is checked against the vocabulary's count.
    #[test]
    fn a_list_short_of_a_node_is_made_again() {
        let (dir, project, mut index) = varied_index();
        both_ways(&index, &["ledger", "cache"], "storage");
        edit(
            &dir,
            &project,
            &mut index,
            [(
                "specs/new.md",
                spec("SPEC-NEW", "New", &[], "A ledger cache."),
            )],
        );
        index.conn.execute("DELETE FROM touched", []).unwrap();
        index.forget_lists_held();
        let (listed, read) = both_ways(&index, &["ledger", "cache"], "storage");
        assert_eq!(listed, read);
    }

    #[test]
    fn a_list_is_brought_up_to_date_not_made_again() {
        let (dir, project, mut index) = varied_index();
        both_ways(&index, &["ledger"], "storage");
        let (at, kept) = index.kept_list("ledger").unwrap().unwrap();
        edit(
            &dir,
            &project,
            &mut index,
            [
                ("specs/1.md", spec("SPEC-1", "Other", &[], "Nothing.")),
                ("specs/new.md", spec("SPEC-NEW", "New", &[], "A ledger.")),
            ],
        );
        let term = terms_of(&index, &["ledger"]).remove(0);
        let patched = index.patch(&term, kept.clone(), at).unwrap().unwrap();
        assert_eq!(patched, index.make_list(&term).unwrap().unwrap());
        assert_eq!(patched.nodes.len(), kept.nodes.len());
        assert_ne!(patched.nodes, kept.nodes, "SPEC-1 left, SPEC-NEW came");
    }

    /// A row of the record of writes damaged into another node would bring a list up to date
    /// wrongly: it fails its checksum, the list is made again, and the verification says so.
    #[test]
    fn a_damaged_record_of_writes_makes_the_lists_again() {
        let (dir, project, mut index) = varied_index();
        both_ways(&index, &["ledger", "cache"], "storage");
        edit(
            &dir,
            &project,
            &mut index,
            [(
                "specs/3.md",
                spec("SPEC-3", "Three", &[], &"cache ".repeat(40)),
            )],
        );
        assert_eq!(touched(&index), 1);
        assert!(lists_intact(&index.conn).unwrap());
        index
            .conn
            .execute("UPDATE touched SET ix = ix + 1", [])
            .unwrap();
        assert!(!lists_intact(&index.conn).unwrap());
        index.forget_lists_held();
        let (listed, read) = both_ways(&index, &["ledger", "cache"], "storage");
        assert_eq!(listed, read);
    }

    /// At the most lists kept, a list that replaces its own older version leaves the others.
    #[test]
    fn a_list_kept_again_at_the_most_leaves_the_others() {
        let (dir, project, mut index) = varied_index();
        both_ways(&index, &["ledger", "cache"], "storage");
        let at = index.write_version().unwrap().unwrap();
        for k in 0..LISTS_KEPT_MOST - 2 {
            let (token, list) = (format!("filler{k}"), vec![1u8]);
            index
                .conn
                .execute(
                    "INSERT INTO holders(token, version, list, sum) VALUES (?1, ?2, ?3, ?4)",
                    params![token, at, list, list_sum(&token, at, &list)],
                )
                .unwrap();
        }
        assert_eq!(kept(&index), LISTS_KEPT_MOST);
        edit(
            &dir,
            &project,
            &mut index,
            [(
                "specs/new.md",
                spec("SPEC-NEW", "New", &[], "A ledger cache."),
            )],
        );
        index.forget_lists_held();
        let (listed, read) = both_ways(&index, &["ledger", "cache"], "storage");
        assert_eq!(listed, read);
        assert_eq!(kept(&index), LISTS_KEPT_MOST);
    }

    #[test]
    fn many_new_nodes_are_brought_into_the_lists() {
        let (dir, project, mut index) = varied_index();
        both_ways(&index, &["ledger", "cache"], "storage");
        let more = (0..40).map(|k| {
            let text = spec(&format!("SPEC-M{k}"), "More", &[], "Ledger cache.");
            (format!("specs/more-{k}.md"), text)
        });
        edit(&dir, &project, &mut index, more);
        assert_eq!((kept(&index), touched(&index)), (2, 40));
        let (listed, read) = both_ways(&index, &["ledger", "cache"], "storage");
        assert_eq!(listed, read);
        assert_eq!(listed[0].len(), 60, "20 before, 40 new");
    }

    #[test]
    fn a_write_of_many_nodes_or_a_bulk_one_drops_every_list() {
        let (_dir, _project, index) = varied_index();
        both_ways(&index, &["ledger", "cache"], "storage");
        let tx = &index.conn;
        tx.execute(
            "INSERT INTO touched(ix, version, sum) VALUES (1, -1, 0)",
            [],
        )
        .unwrap();
        after_write(tx, Watch::Touched, 7).unwrap();
        assert_eq!(
            (kept(&index), touched(&index)),
            (2, 1),
            "a few touched nodes are kept"
        );
        after_write(tx, Watch::Forget, 8).unwrap();
        assert_eq!((kept(&index), touched(&index)), (0, 0));
        both_ways(&index, &["ledger", "cache"], "storage");
        tx.execute(
            "WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < ?1)
             INSERT INTO touched(ix, version, sum) SELECT k, -1, 0 FROM n",
            [TOUCHED_MOST + 1],
        )
        .unwrap();
        after_write(tx, Watch::Touched, 9).unwrap();
        assert_eq!(
            (kept(&index), touched(&index)),
            (0, 0),
            "past the most, every list goes"
        );
        // Rows no kept list needs any more are not counted against the most.
        index.forget_lists_held();
        both_ways(&index, &["ledger", "cache"], "storage");
        let at = index.write_version().unwrap().unwrap();
        tx.execute(
            "WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < ?1)
             INSERT INTO touched(ix, version, sum) SELECT k, ?2, 0 FROM n",
            params![TOUCHED_MOST + 1, at],
        )
        .unwrap();
        tx.execute(
            "INSERT OR REPLACE INTO touched(ix, version, sum) VALUES (1, -1, 0)",
            [],
        )
        .unwrap();
        after_write(tx, Watch::Touched, at + 1).unwrap();
        assert_eq!((kept(&index), touched(&index)), (2, 1));
        assert!(lists_intact(tx).unwrap(), "the row written is checksummed");
    }

    /// A list made while another process writes a new version is not kept: nothing recorded
    /// what that write touched, so it could not be brought up to date.
    #[test]
    fn a_list_of_a_version_written_over_meanwhile_is_not_kept() {
        let (dir, project, index) = varied_index();
        let terms = terms_of(&index, &["ledger", "cache"]);
        let refs: Vec<&Term> = terms.iter().collect();
        index
            .reading(|| {
                index.listed_parts(Holders::All(&refs), 1).unwrap().unwrap();
                settle();
                write(
                    dir.path(),
                    "specs/1.md",
                    &spec("SPEC-1", "Other", &[], "Nothing."),
                );
                let mut writer = Index::open(&project).unwrap();
                writer.refresh(&project, Verify::Full, &mut |_| {}).unwrap();
            })
            .unwrap();
        assert_eq!(kept(&index), 0);
        let (listed, read) = both_ways(&index, &["ledger", "cache"], "storage");
        assert_eq!(listed, read);
        assert_eq!(kept(&index), 2);
    }

    #[test]
    fn the_column_weights_are_those_sql_is_given() {
        let sql: Vec<f64> = crate::lexicon::WEIGHTS
            .split(',')
            .map(|w| w.trim().parse().unwrap())
            .collect();
        let listed: Vec<f64> = COLUMN_WEIGHTS.iter().map(|&w| f64::from(w)).collect();
        assert_eq!(sql, listed);
    }

    fn list(nodes: &[u32]) -> List {
        let holders: Vec<Holder> = nodes.iter().map(|&n| (n, n % 7 + 1, n % 50 + 3)).collect();
        List::of(100, 2_000, &holders)
    }

    #[test]
    fn a_list_reads_back_as_it_was_kept() {
        for nodes in [vec![0], vec![1, 2, 3], vec![5, 130, 20_000, 3_000_000_000]] {
            let kept = list(&nodes);
            assert_eq!(List::decode(&kept.encode()), Some(kept));
        }
    }

    #[test]
    fn a_damaged_list_is_no_list() {
        let bytes = list(&[4, 9, 30]).encode();
        for cut in 0..bytes.len() {
            assert_eq!(List::decode(&bytes[..cut]), None, "cut at {cut}");
        }
        let mut repeated = bytes.clone();
        *repeated.last_mut().unwrap() = 0;
        assert_eq!(List::decode(&repeated), None, "a gap of 0 repeats a node");
        let mut other = bytes;
        other[0] = FORM + 1;
        assert_eq!(List::decode(&other), None);
    }

    #[test]
    fn counting_and_seeking_find_the_same_common_holders() {
        let lists: Vec<Arc<List>> = [
            (0..300).filter(|n| n % 2 == 0).collect::<Vec<u32>>(),
            (0..300).filter(|n| n % 3 == 0).collect(),
            (0..300).filter(|n| n % 5 != 1).collect(),
        ]
        .iter()
        .map(|nodes| Arc::new(list(nodes)))
        .collect();
        let weigh = Weigh {
            lists: &lists,
            idf: &[1.0, 2.0, 3.0],
            avgdl: 20.0,
        };
        let counted = weigh.counted().expect("dense nodes are counted");
        assert_eq!(counted, weigh.sought());
        let expected: Vec<u32> = (0..300).filter(|n| n % 6 == 0 && n % 5 != 1).collect();
        assert_eq!(counted.0, expected);
        for (row, &node) in counted.0.iter().enumerate() {
            for (k, list) in lists.iter().enumerate() {
                assert_eq!(list.nodes[counted.1[row * 3 + k]], node);
            }
        }
        let sparse = [
            Arc::new(list(&[1, 4_000_000])),
            Arc::new(list(&[4_000_000])),
        ];
        let weigh = Weigh {
            lists: &sparse,
            idf: &[1.0, 1.0],
            avgdl: 20.0,
        };
        assert_eq!(weigh.counted(), None, "too sparse to count");
        assert_eq!(weigh.sought(), (vec![4_000_000], vec![1, 0]));
    }

    #[test]
    fn seeking_finds_each_node_and_only_those() {
        let kept = list(&[2, 3, 5, 8, 13, 21, 34, 55, 89]);
        let mut cursor = 0;
        for node in 0..100 {
            let (found, next) = kept.seek(node, cursor);
            assert_eq!(
                found.map(|p| kept.nodes[p]),
                Some(node).filter(|n| kept.nodes.contains(n))
            );
            assert!(next >= cursor);
            cursor = next;
        }
    }
}
