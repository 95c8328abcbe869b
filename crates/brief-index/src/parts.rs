//! Each word's own BM25 relevance for the nodes a combined match finds.
//!
//! SQLite's `bm25()` gives a row one sum over the phrases of the query. The auxiliary function
//! registered here, `brief_parts`, gives the summands instead, one per phrase, computed as
//! `bm25()` computes them (the same k1 and b, the same IDF with its floor, the same column
//! weights): a node that `a AND b` finds gets the relevance the query `a` alone and the query
//! `b` alone would give it. That is what lets a word held by a large share of the nodes be
//! scored only where it can matter, instead of over every node that holds it.
//!
//! Its arguments are the column weights ([`COLUMNS`] of them) and then, for each phrase of the
//! query in order, the number of nodes holding it (the IDF's count, which the caller already
//! read from the index's vocabulary). It returns a blob of little-endian `f64`, one per phrase.

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

/// Registers `brief_parts` on this connection (again, harmlessly, when it is there).
pub(crate) fn register(conn: &Connection) -> rusqlite::Result<()> {
    let api = crate::fts5::api(conn)?;
    // SAFETY: `api` is the connection's FTS5 API object, valid while the connection is open;
    // the name is NUL-terminated and copied by SQLite; `parts` has the signature FTS5 expects.
    let rc = unsafe {
        match (*api).xCreateFunction {
            Some(create) => create(api, NAME.as_ptr(), null_mut(), Some(parts), None),
            None => ffi::SQLITE_MISUSE,
        }
    };
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(rusqlite::Error::SqliteFailure(ffi::Error::new(rc), None))
    }
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
        Ok(Ok((bytes, len))) => unsafe {
            ffi::sqlite3_result_blob(ctx, bytes.cast(), len, ffi::SQLITE_TRANSIENT());
        },
        Ok(Err(rc)) => unsafe { ffi::sqlite3_result_error_code(ctx, rc) },
        Err(_) => unsafe { ffi::sqlite3_result_error_code(ctx, ffi::SQLITE_INTERNAL) },
    }
}

/// What one query's rows share, computed at its first row and kept as the query's auxiliary
/// data: the column weights, each phrase's IDF, the average row length, and buffers.
struct Query {
    weights: [f64; COLUMNS],
    idf: Vec<f64>,
    avgdl: f64,
    freq: Vec<f64>,
    out: Vec<u8>,
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
    if args.len() != COLUMNS + phrases {
        return Err(missing);
    }
    let mut weights = [1.0; COLUMNS];
    for (weight, value) in weights.iter_mut().zip(args) {
        *weight = unsafe { ffi::sqlite3_value_double(*value) };
    }
    let (mut rows, mut tokens) = (0i64, 0i64);
    ok(unsafe { api.xRowCount.ok_or(missing)?(fts, &mut rows) })?;
    ok(unsafe { api.xColumnTotalSize.ok_or(missing)?(fts, -1, &mut tokens) })?;
    let idf = args[COLUMNS..]
        .iter()
        .map(|value| {
            // A count over the rows (a caller's mistake) must not make the IDF NaN.
            let hits = unsafe { ffi::sqlite3_value_int64(*value) }.clamp(0, rows);
            let idf = (((rows - hits) as f64 + 0.5) / (hits as f64 + 0.5)).ln();
            if idf > 0.0 {
                idf
            } else {
                1e-6
            }
        })
        .collect();
    let query = Box::new(Query {
        weights,
        idf,
        avgdl: tokens as f64 / rows as f64,
        freq: vec![0.0; phrases],
        out: Vec::with_capacity(phrases * 8),
    });
    let query = Box::into_raw(query);
    let rc = unsafe { api.xSetAuxdata.ok_or(missing)?(fts, query.cast(), Some(drop_query)) };
    // On failure FTS5 has already called `drop_query`.
    ok(rc)?;
    Ok(unsafe { &mut *query })
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
/// the row and `D` the row's length in tokens.
///
/// # Safety
/// `api`, `fts` and `values` as FTS5 passes them to an auxiliary function.
unsafe fn row_parts(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    n_values: c_int,
    values: *mut *mut ffi::sqlite3_value,
) -> Result<(*const u8, c_int), c_int> {
    let missing = ffi::SQLITE_MISUSE;
    let query = unsafe { query_of(api, fts, n_values, values)? };
    query.freq.iter_mut().for_each(|f| *f = 0.0);
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
            *f += usize::try_from(column)
                .ok()
                .and_then(|c| query.weights.get(c))
                .copied()
                .ok_or(ffi::SQLITE_CORRUPT)?;
            // SAFETY: as above; a column below zero ends the phrase's instances.
            unsafe { next(fts, &mut iter, &mut column, &mut offset) };
        }
    }
    let mut length: c_int = 0;
    ok(unsafe { api.xColumnSize.ok_or(missing)?(fts, -1, &mut length) })?;
    let norm = K1 * (1.0 - B + B * f64::from(length) / query.avgdl);
    query.out.clear();
    for (idf, &f) in query.idf.iter().zip(&query.freq) {
        let part = idf * ((f * (K1 + 1.0)) / (f + norm));
        query.out.extend_from_slice(&part.to_le_bytes());
    }
    let len = c_int::try_from(query.out.len()).map_err(|_| ffi::SQLITE_TOOBIG)?;
    Ok((query.out.as_ptr(), len))
}
