//! The FTS5 C API of a connection: its API object (for the auxiliary function `parts`
//! registers) and the search table's tokenizer, run directly: a query's words are read by the
//! same code with the same arguments as the indexed text, at no cost but the call (a table
//! to tokenize through would have to be created by every process). Tokens over 32 KiB, which
//! FTS5 cuts when it indexes, cannot occur: a query is at most 8 KiB.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr::null_mut;

use rusqlite::{ffi, Connection};

/// The FTS5 API object of a connection, from `SELECT fts5(?1)` with a pointer bound.
pub(crate) fn api(conn: &Connection) -> rusqlite::Result<*mut ffi::fts5_api> {
    const POINTER_TYPE: &CStr = c"fts5_api_ptr";
    let mut api: *mut ffi::fts5_api = null_mut();
    // SAFETY: the statement is prepared, bound, stepped and finalized on this connection's
    // handle within this block; the bound pointer outlives the statement.
    let rc = unsafe {
        let db = conn.handle();
        let mut stmt: *mut ffi::sqlite3_stmt = null_mut();
        let mut rc =
            ffi::sqlite3_prepare_v2(db, c"SELECT fts5(?1)".as_ptr(), -1, &mut stmt, null_mut());
        if rc == ffi::SQLITE_OK {
            let out: *mut *mut ffi::fts5_api = &mut api;
            rc = ffi::sqlite3_bind_pointer(
                stmt,
                1,
                out.cast::<c_void>(),
                POINTER_TYPE.as_ptr(),
                None,
            );
            if rc == ffi::SQLITE_OK {
                rc = ffi::sqlite3_step(stmt);
                if rc == ffi::SQLITE_ROW {
                    rc = ffi::SQLITE_OK;
                }
            }
        }
        ffi::sqlite3_finalize(stmt);
        rc
    };
    if rc != ffi::SQLITE_OK || api.is_null() {
        let rc = if rc == ffi::SQLITE_OK {
            ffi::SQLITE_ERROR
        } else {
            rc
        };
        return Err(rusqlite::Error::SqliteFailure(
            ffi::Error::new(rc),
            Some("this SQLite has no FTS5 API".into()),
        ));
    }
    Ok(api)
}

/// The tokens of each text, in order, as the tokenizer `spec` (an FTS5 `tokenize` option:
/// the tokenizer's name and its arguments, such as `porter unicode61 remove_diacritics 2`)
/// reads a document.
pub(crate) fn tokenize(
    conn: &Connection,
    spec: &str,
    texts: &[String],
) -> rusqlite::Result<Vec<Vec<String>>> {
    let api = api(conn)?;
    let mut parts = spec.split_whitespace();
    let name = CString::new(parts.next().unwrap_or_default()).map_err(misuse)?;
    let args: Vec<CString> = parts
        .map(CString::new)
        .collect::<Result<_, _>>()
        .map_err(misuse)?;
    let mut arg_ptrs: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
    let n_args = c_int::try_from(arg_ptrs.len()).map_err(misuse)?;
    let mut user: *mut c_void = null_mut();
    // SAFETY: an all-null table of function pointers is a valid `fts5_tokenizer` to fill.
    let mut methods: ffi::fts5_tokenizer = unsafe { std::mem::zeroed() };
    // SAFETY: `api` is the connection's FTS5 API object; the name is NUL-terminated; the out
    // pointers are valid for writes.
    let rc = unsafe {
        match (*api).xFindTokenizer {
            Some(find) => find(api, name.as_ptr(), &mut user, &mut methods),
            None => ffi::SQLITE_MISUSE,
        }
    };
    ok(rc)?;
    let (Some(create), Some(delete), Some(run)) =
        (methods.xCreate, methods.xDelete, methods.xTokenize)
    else {
        return Err(failure(ffi::SQLITE_MISUSE));
    };
    let mut tokenizer: *mut ffi::Fts5Tokenizer = null_mut();
    // SAFETY: `user` is what FTS5 registered with the tokenizer; the arguments outlive the call.
    ok(unsafe { create(user, arg_ptrs.as_mut_ptr(), n_args, &mut tokenizer) })?;
    let made = Made { tokenizer, delete };
    let mut out = Vec::with_capacity(texts.len());
    for text in texts {
        let mut tokens: Vec<String> = Vec::new();
        let len = c_int::try_from(text.len()).map_err(|_| failure(ffi::SQLITE_TOOBIG))?;
        // SAFETY: the tokenizer was created above and is deleted after this loop; `tokens`
        // outlives the call and is what `collect` is given as its context.
        let rc = unsafe {
            run(
                made.tokenizer,
                (&mut tokens as *mut Vec<String>).cast(),
                ffi::FTS5_TOKENIZE_DOCUMENT,
                text.as_ptr().cast(),
                len,
                Some(collect),
            )
        };
        ok(rc)?;
        out.push(tokens);
    }
    Ok(out)
}

/// A tokenizer instance, deleted when dropped.
struct Made {
    tokenizer: *mut ffi::Fts5Tokenizer,
    delete: unsafe extern "C" fn(*mut ffi::Fts5Tokenizer),
}

impl Drop for Made {
    fn drop(&mut self) {
        // SAFETY: made by the same tokenizer module's `xCreate`, deleted once.
        unsafe { (self.delete)(self.tokenizer) }
    }
}

/// The tokenizer's callback: one token, appended to the `Vec<String>` the context points at.
unsafe extern "C" fn collect(
    context: *mut c_void,
    _flags: c_int,
    token: *const c_char,
    len: c_int,
    _start: c_int,
    _end: c_int,
) -> c_int {
    let pushed = std::panic::catch_unwind(|| {
        let Ok(len) = usize::try_from(len) else {
            return ffi::SQLITE_ERROR;
        };
        if token.is_null() || context.is_null() {
            return if len == 0 {
                ffi::SQLITE_OK
            } else {
                ffi::SQLITE_ERROR
            };
        }
        // SAFETY: FTS5 passes the context given to `xTokenize` (a `Vec<String>`) and a token
        // of `len` bytes that stays valid during the call.
        let (tokens, bytes) = unsafe {
            (
                &mut *context.cast::<Vec<String>>(),
                std::slice::from_raw_parts(token.cast::<u8>(), len),
            )
        };
        tokens.push(String::from_utf8_lossy(bytes).into_owned());
        ffi::SQLITE_OK
    });
    pushed.unwrap_or(ffi::SQLITE_ERROR)
}

fn ok(rc: c_int) -> rusqlite::Result<()> {
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(failure(rc))
    }
}

fn failure(rc: c_int) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(ffi::Error::new(rc), None)
}

fn misuse<E>(_: E) -> rusqlite::Error {
    failure(ffi::SQLITE_MISUSE)
}
