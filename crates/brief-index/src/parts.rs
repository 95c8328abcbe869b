//! Each word's own BM25 relevance for the nodes a combined match finds.
//!
//! SQLite's `bm25()` gives a row one sum over the phrases of the query. The auxiliary function
//! registered here, `brief_parts`, gives the summands instead, one per phrase, computed as
//! `bm25()` computes them (the same k1 and b, the same IDF with its floor, the same column
//! weights): a node that `a AND b` finds gets the relevance the query `a` alone and the query
//! `b` alone would give it. That is what lets a word held by a large share of the nodes be
//! scored only where it can matter, instead of over every node that holds it.
//!
//! Its arguments are the column weights ([`COLUMNS`] of them); how many of the best rows are
//! wanted (0 for every row); then, for each phrase of the query in order, the number of nodes
//! holding it (the IDF's count, which the caller already read from the index's vocabulary);
//! then, for each phrase, the weight of its word. It returns a blob of little-endian `f64`,
//! one per phrase, or NULL for a row that cannot be among the best wanted.
//!
//! A row's *score* is what the query model ranks candidates by: the sum of each phrase's
//! weight times its relevance, times the number of phrases with a relevance. With the best
//! `n` wanted, the `n` best scores seen so far are kept; a row whose score cannot reach the
//! least of them even at the shortest length it can have (each column at least as long as
//! its last instance's position plus one) is not among the best `n`, and its length, a
//! lookup in another table, is never read. Which rows are skipped depends on the order rows
//! come in; the scores of the rows that are not skipped do not.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ffi::{c_int, c_void, CStr};
use std::ptr::null_mut;

use rusqlite::{ffi, Connection};

/// The name of the auxiliary function in SQL.
pub(crate) const NAME: &CStr = c"brief_parts";

/// The search table's columns (id, title, body, fields), each with a weight argument.
pub(crate) const COLUMNS: usize = 4;

/// BM25's constants, as SQLite's `bm25()` has them.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// How much a row's highest possible score must fall short of the least kept score for the
/// row to be skipped: the caller sums the same parts in its own order, so the two sums may
/// differ in their last bits.
const MARGIN: f64 = 1e-9;

/// The name of the auxiliary function that lists how a row holds a one-token query (see
/// [`holding`]).
pub(crate) const HOLDING: &CStr = c"brief_holding";

/// What [`HOLDING`] returns for a row, as little-endian `i64`s: the query's instances in each
/// column, the row's length in tokens, then the table's row count and its total length.
pub(crate) const HOLDING_VALUES: usize = COLUMNS + 3;

/// An auxiliary function as FTS5 calls it.
type Auxiliary = unsafe extern "C" fn(
    *const ffi::Fts5ExtensionApi,
    *mut ffi::Fts5Context,
    *mut ffi::sqlite3_context,
    c_int,
    *mut *mut ffi::sqlite3_value,
);

/// Registers `brief_parts` and `brief_holding` on this connection (again, harmlessly, when
/// they are there).
pub(crate) fn register(conn: &Connection) -> rusqlite::Result<()> {
    let api = crate::fts5::api(conn)?;
    let functions: [(&CStr, Auxiliary); 2] = [(NAME, parts), (HOLDING, holding)];
    for (name, function) in functions {
        // SAFETY: `api` is the connection's FTS5 API object, valid while the connection is
        // open; the name is NUL-terminated and copied by SQLite; the function has the
        // signature FTS5 expects.
        let rc = unsafe {
            match (*api).xCreateFunction {
                Some(create) => create(api, name.as_ptr(), null_mut(), Some(function), None),
                None => ffi::SQLITE_MISUSE,
            }
        };
        if rc != ffi::SQLITE_OK {
            return Err(rusqlite::Error::SqliteFailure(ffi::Error::new(rc), None));
        }
    }
    Ok(())
}

/// How a row holds the query's one phrase: [`HOLDING_VALUES`] little-endian `i64`s (its
/// instances per column, its length, the table's rows and total length). What a kept list of
/// a word's holders is made of (`holders.rs`).
unsafe extern "C" fn holding(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    _n_values: c_int,
    _values: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5 passes its API and the row's context.
    let computed = std::panic::catch_unwind(|| unsafe { row_holding(&*api, fts) });
    match computed {
        // SAFETY: SQLite copies the bytes (SQLITE_TRANSIENT) before `bytes` is dropped.
        Ok(Ok(bytes)) => unsafe {
            ffi::sqlite3_result_blob(
                ctx,
                bytes.as_ptr().cast(),
                (bytes.len()) as c_int,
                ffi::SQLITE_TRANSIENT(),
            );
        },
        Ok(Err(rc)) => unsafe { ffi::sqlite3_result_error_code(ctx, rc) },
        Err(_) => unsafe { ffi::sqlite3_result_error_code(ctx, ffi::SQLITE_INTERNAL) },
    }
}

/// One row's [`HOLDING_VALUES`], as bytes.
///
/// # Safety
/// `api` and `fts` as FTS5 passes them to an auxiliary function.
unsafe fn row_holding(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
) -> Result<[u8; 8 * HOLDING_VALUES], c_int> {
    let missing = ffi::SQLITE_MISUSE;
    if unsafe { api.xPhraseCount.ok_or(missing)?(fts) } != 1 {
        return Err(missing);
    }
    let mut values = [0i64; HOLDING_VALUES];
    let first = api.xPhraseFirst.ok_or(missing)?;
    let next = api.xPhraseNext.ok_or(missing)?;
    // SAFETY: as in `row_parts`.
    let mut iter: ffi::Fts5PhraseIter = unsafe { std::mem::zeroed() };
    let (mut column, mut offset): (c_int, c_int) = (0, 0);
    ok(unsafe { first(fts, 0, &mut iter, &mut column, &mut offset) })?;
    while column >= 0 {
        let c = usize::try_from(column)
            .ok()
            .filter(|&c| c < COLUMNS)
            .ok_or(ffi::SQLITE_CORRUPT)?;
        values[c] += 1;
        unsafe { next(fts, &mut iter, &mut column, &mut offset) };
    }
    let mut length: c_int = 0;
    ok(unsafe { api.xColumnSize.ok_or(missing)?(fts, -1, &mut length) })?;
    values[COLUMNS] = i64::from(length);
    ok(unsafe { api.xRowCount.ok_or(missing)?(fts, &mut values[COLUMNS + 1]) })?;
    ok(unsafe { api.xColumnTotalSize.ok_or(missing)?(fts, -1, &mut values[COLUMNS + 2]) })?;
    let mut bytes = [0u8; 8 * HOLDING_VALUES];
    for (chunk, value) in bytes.chunks_exact_mut(8).zip(values) {
        chunk.copy_from_slice(&value.to_le_bytes());
    }
    Ok(bytes)
}

/// The auxiliary function. A failure of the FTS5 API is returned to SQL as its error code;
/// nothing here unwinds into SQLite.
unsafe extern "C" fn parts(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_values: c_int,
    values: *mut *mut ffi::sqlite3_value,
) {
    let computed = std::panic::catch_unwind(|| {
        // SAFETY: FTS5 passes its API, the row's context and `n_values` argument values.
        unsafe { row_parts(&*api, fts, n_values, values) }
    });
    match computed {
        // SAFETY: SQLite copies the bytes (SQLITE_TRANSIENT) before the query's state, which
        // holds them, changes.
        Ok(Ok(Some((bytes, len)))) => unsafe {
            ffi::sqlite3_result_blob(ctx, bytes.cast(), len, ffi::SQLITE_TRANSIENT());
        },
        Ok(Ok(None)) => unsafe { ffi::sqlite3_result_null(ctx) },
        Ok(Err(rc)) => unsafe { ffi::sqlite3_result_error_code(ctx, rc) },
        Err(_) => unsafe { ffi::sqlite3_result_error_code(ctx, ffi::SQLITE_INTERNAL) },
    }
}

/// What one query's rows share, computed at its first row and kept as the query's auxiliary
/// data: the column weights, each phrase's IDF and word weight, the average row length, the
/// best scores so far, and buffers.
struct Query {
    weights: [f64; COLUMNS],
    idf: Vec<f64>,
    /// Each phrase's word weight in a row's score.
    words: Vec<f64>,
    avgdl: f64,
    /// How many of the best rows are wanted; 0 for every row.
    wanted: usize,
    /// The best scores so far (at most `wanted`), least on top; non-negative, so their bits
    /// order as they do.
    best: BinaryHeap<Reverse<u64>>,
    freq: Vec<f64>,
    /// Each column's length as far as the row's instances show it (its last instance's
    /// position, plus one).
    seen: [i64; COLUMNS],
    parts: Vec<f64>,
    out: Vec<u8>,
}

impl Query {
    /// The row's parts for a length of `length` tokens.
    fn parts_at(&mut self, length: f64) {
        let norm = norm(length, self.avgdl);
        self.parts.clear();
        for (&idf, &f) in self.idf.iter().zip(&self.freq) {
            self.parts.push(part(idf, f, norm));
        }
    }

    /// The score of the parts last computed.
    fn score(&self) -> f64 {
        let sum: f64 = self.words.iter().zip(&self.parts).map(|(w, p)| w * p).sum();
        let held = self.parts.iter().filter(|p| **p > 0.0).count();
        sum * held as f64
    }

    /// The least score a row must reach to be among the best wanted, once that many are kept.
    fn floor(&self) -> Option<f64> {
        let full = self.wanted > 0 && self.best.len() >= self.wanted;
        full.then(|| self.best.peek().map(|least| f64::from_bits(least.0)))
            .flatten()
    }

    /// Keeps `score` among the best when it is.
    fn keep(&mut self, score: f64) {
        // A NaN or negative score (−0 included) is never kept: bits order as values only
        // from +0 up.
        if self.wanted == 0 || score.is_nan() || score.is_sign_negative() {
            return;
        }
        if self.best.len() < self.wanted {
            self.best.push(Reverse(score.to_bits()));
        } else if self.floor().is_some_and(|floor| score > floor) {
            self.best.pop();
            self.best.push(Reverse(score.to_bits()));
        }
    }
}

unsafe extern "C" fn drop_query(query: *mut c_void) {
    // SAFETY: the pointer is the `Box<Query>` leaked in `query_of`, dropped once by FTS5.
    drop(unsafe { Box::from_raw(query.cast::<Query>()) });
}

/// The query's shared state, made at its first row.
///
/// # Safety
/// `api`, `fts` and `values` as FTS5 passes them to an auxiliary function.
unsafe fn query_of<'a>(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    n_values: c_int,
    values: *mut *mut ffi::sqlite3_value,
) -> Result<&'a mut Query, c_int> {
    let missing = ffi::SQLITE_MISUSE;
    let kept = unsafe { api.xGetAuxdata.ok_or(missing)?(fts, 0) };
    if !kept.is_null() {
        // SAFETY: the only auxiliary data this function sets is a `Query`.
        return Ok(unsafe { &mut *kept.cast::<Query>() });
    }
    let phrases =
        usize::try_from(unsafe { api.xPhraseCount.ok_or(missing)?(fts) }).map_err(|_| missing)?;
    let args: &[*mut ffi::sqlite3_value] = match usize::try_from(n_values) {
        Ok(n) if n > 0 && !values.is_null() => unsafe { std::slice::from_raw_parts(values, n) },
        _ => &[],
    };
    if args.len() != COLUMNS + 1 + 2 * phrases {
        return Err(missing);
    }
    let mut weights = [1.0; COLUMNS];
    for (weight, value) in weights.iter_mut().zip(args) {
        *weight = unsafe { ffi::sqlite3_value_double(*value) };
    }
    let wanted = usize::try_from(unsafe { ffi::sqlite3_value_int64(args[COLUMNS]) }).unwrap_or(0);
    let (counts, words) = args[COLUMNS + 1..].split_at(phrases);
    let (mut rows, mut tokens) = (0i64, 0i64);
    ok(unsafe { api.xRowCount.ok_or(missing)?(fts, &mut rows) })?;
    ok(unsafe { api.xColumnTotalSize.ok_or(missing)?(fts, -1, &mut tokens) })?;
    let idf = counts
        .iter()
        .map(|value| idf(rows, unsafe { ffi::sqlite3_value_int64(*value) }))
        .collect();
    let words: Vec<f64> = words
        .iter()
        .map(|value| unsafe { ffi::sqlite3_value_double(*value) })
        .collect();
    // A score is only bounded from above by its shortest length when no weight is negative
    // (nor −0, whose scores' bits would order wrongly).
    let usable = words.iter().all(|w| *w >= 0.0 && w.is_sign_positive());
    let wanted = if usable { wanted } else { 0 };
    let query = Box::new(Query {
        weights,
        idf,
        words,
        avgdl: tokens as f64 / rows as f64,
        wanted,
        best: BinaryHeap::with_capacity(wanted.min(1 << 16)),
        freq: vec![0.0; phrases],
        seen: [0; COLUMNS],
        parts: Vec::with_capacity(phrases),
        out: Vec::with_capacity(phrases * 8),
    });
    let query = Box::into_raw(query);
    let rc = unsafe { api.xSetAuxdata.ok_or(missing)?(fts, query.cast(), Some(drop_query)) };
    // On failure FTS5 has already called `drop_query`.
    ok(rc)?;
    Ok(unsafe { &mut *query })
}

/// A phrase's IDF over `rows` rows when `hits` of them hold it, as `bm25()` computes it (with
/// its floor).
pub(crate) fn idf(rows: i64, hits: i64) -> f64 {
    // A count over the rows (a caller's mistake) must not make the IDF NaN.
    let hits = hits.clamp(0, rows);
    let idf = (((rows - hits) as f64 + 0.5) / (hits as f64 + 0.5)).ln();
    if idf > 0.0 {
        idf
    } else {
        1e-6
    }
}

/// The length normalisation of a row `length` tokens long, where rows average `avgdl`.
pub(crate) fn norm(length: f64, avgdl: f64) -> f64 {
    K1 * (1.0 - B + B * length / avgdl)
}

/// A phrase's relevance in a row: `idf × f(k1+1) / (f + norm)`, `f` its weighted count there.
pub(crate) fn part(idf: f64, f: f64, norm: f64) -> f64 {
    idf * ((f * (K1 + 1.0)) / (f + norm))
}

fn ok(rc: c_int) -> Result<(), c_int> {
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(rc)
    }
}

/// One row's parts as little-endian bytes: for each phrase,
/// `idf × f(k1+1) / (f + k1(1 − b + b·D/avgdl))`, where `f` is the phrase's weighted count in
/// the row and `D` the row's length in tokens. None when the row cannot be among the best
/// wanted.
///
/// # Safety
/// `api`, `fts` and `values` as FTS5 passes them to an auxiliary function.
unsafe fn row_parts(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    n_values: c_int,
    values: *mut *mut ffi::sqlite3_value,
) -> Result<Option<(*const u8, c_int)>, c_int> {
    let missing = ffi::SQLITE_MISUSE;
    let query = unsafe { query_of(api, fts, n_values, values)? };
    query.freq.iter_mut().for_each(|f| *f = 0.0);
    query.seen = [0; COLUMNS];
    // Each phrase's own instances, phrase by phrase: the same instances `xInst` lists, but
    // `xInst` first merges every phrase's positions into one sorted array, which the sums do
    // not need. FTS5 clamps a damaged column number here where `xInst` would report it; the
    // search index is not checksummed either way (docs/security.md).
    let first = api.xPhraseFirst.ok_or(missing)?;
    let next = api.xPhraseNext.ok_or(missing)?;
    for (phrase, f) in query.freq.iter_mut().enumerate() {
        let phrase = c_int::try_from(phrase).map_err(|_| missing)?;
        // SAFETY: an all-zero iterator is what `xPhraseFirst` initialises.
        let mut iter: ffi::Fts5PhraseIter = unsafe { std::mem::zeroed() };
        let (mut column, mut offset): (c_int, c_int) = (0, 0);
        // SAFETY: `fts` is the row's context; the out pointers are valid for writes, and the
        // iterator is only advanced by `xPhraseNext` within this row.
        ok(unsafe { first(fts, phrase, &mut iter, &mut column, &mut offset) })?;
        while column >= 0 {
            let c = usize::try_from(column)
                .ok()
                .filter(|&c| c < COLUMNS)
                .ok_or(ffi::SQLITE_CORRUPT)?;
            *f += query.weights[c];
            query.seen[c] = query.seen[c].max(i64::from(offset) + 1);
            // SAFETY: as above; a column below zero ends the phrase's instances.
            unsafe { next(fts, &mut iter, &mut column, &mut offset) };
        }
    }
    if let Some(floor) = query.floor() {
        let shortest: i64 = query.seen.iter().sum();
        query.parts_at(shortest as f64);
        if query.score() * (1.0 + MARGIN) < floor {
            return Ok(None);
        }
    }
    let mut length: c_int = 0;
    ok(unsafe { api.xColumnSize.ok_or(missing)?(fts, -1, &mut length) })?;
    query.parts_at(f64::from(length));
    let score = query.score();
    query.keep(score);
    query.out.clear();
    for part in &query.parts {
        query.out.extend_from_slice(&part.to_le_bytes());
    }
    let len = c_int::try_from(query.out.len()).map_err(|_| ffi::SQLITE_TOOBIG)?;
    Ok(Some((query.out.as_ptr(), len)))
}
