//! The derived index: every loaded node in SQLite (`.brief/cache/index.db`), refreshed
//! incrementally, so a context on a large project touches only the nodes it needs.
//!
//! - Files whose size and mtime are unchanged are not read; files whose blake3 hash is
//!   unchanged are not parsed. Deleted files leave the index.
//! - A foreign, corrupt or outdated index file is deleted and rebuilt, never trusted.
//! - WAL mode and a busy timeout let several readers work while one refresh writes.
//! - It also holds full-text search (FTS5, BM25) and the token-count cache, keyed by the
//!   blake3 hash of the counted text, so a warm context never builds the tokenizer.
//!
//! When `.brief/cache/` cannot be written the index lives in memory for the run.

//!
//! The parts: `schema` (tables, version, checksums), `build` (a new file under the build
//! lock), `refresh` (plan → read → write, and the listing of sources), `queries` (lookups,
//! edges, search, problems) and `view` (the `GraphView`/`Corpus`/`CountStore` impls); this
//! file holds the `Index` type, opening, publishing and the error classes.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::{params, Connection, OptionalExtension};

use brief_count::CountStore;
use brief_model::{
    Applies, Content, Corpus, Dangling, Edge, Fault, GraphView, Kind, Lifecycle, Link, Location,
    Node, NodeIx, NodeStore, Relation, StoreError, Subgraph,
};
use brief_project::{Project, Source};
use brief_root::{EntryKind, OpenError, PrivateDir, Root};
use brief_sources::{
    now_ns, read_stamped, rel_path, stamp, FolderStamp, Problem, ProblemKind, Severity, Stamp,
};
use brief_sources::{Entry, Placement};

mod build;
mod fts5;
mod guides;
mod holders;
mod lexicon;
mod parts;
mod queries;
mod refresh;
mod schema;
mod seal;
mod search;
mod vectors;
mod view;

use build::*;
use schema::*;

pub use lexicon::{Candidate, Holders, Term, TermHit, TermParts};
pub use queries::{check_query, QueryError};
pub use search::significant;
pub use vectors::{Embedded, Until};

#[cfg(test)]
mod kit;

/// Up to this many source files a context checks every file for changes; above it only the
/// folders (added, removed or renamed files) and the files of the nodes it uses.
pub const FULL_CHECK_LIMIT: usize = 20_000;

/// Which files a refresh compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// Every listed file, trusting the unchanged ones (and removing the unlisted).
    All,
    /// Only the named files, each read again whatever its stamp.
    Named,
}

/// How thoroughly a refresh looks for changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verify {
    /// Stat every source file (and hash the ones whose size or mtime changed).
    Full,
    /// Stat the folders and manifests only; a change there triggers a full refresh.
    Quick,
}

/// How far a refresh has come, for a progress bar: `done` of `total` files parsed, or, inside
/// one Tana export (a single file of up to millions of nodes), `done` of `total` nodes written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// How many are done.
    pub done: usize,
    /// How many there are in all.
    pub total: usize,
    /// What is counted.
    pub unit: Unit,
}

/// What a [`Step`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Source files parsed.
    Files,
    /// The nodes of the Tana export being written.
    Nodes,
    /// Passages embedded (an embedding pass after the refresh, `Index::embed`).
    Vectors,
}

/// What a refresh did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Refresh {
    /// Source files known after the refresh.
    pub files: usize,
    /// Files read and parsed again.
    pub parsed: usize,
    /// Files read whose content hash had not changed (only their mtime did).
    pub unchanged_content: usize,
    /// Files that left the index.
    pub removed: usize,
    /// Whether the index file was (re)created.
    pub created: bool,
    /// Nodes written from Tana exports that were parsed again (each changed export
    /// replaces all its nodes).
    pub tana_nodes: usize,
}

/// An index failure.
#[derive(Debug, thiserror::Error)]
#[error("index {path}: {message}")]
pub struct IndexError {
    /// The index file's path, as the message shows it.
    pub path: String,
    /// What failed, in SQLite's or the decoder's words.
    pub message: String,
    /// The file is damaged: SQLite said so, or what was read did not decode or did not match
    /// its checksum. The index is then deleted and rebuilt.
    pub damaged: bool,
}

impl IndexError {
    /// Whether the file is damaged (and should be deleted and rebuilt).
    pub fn is_corruption(&self) -> bool {
        self.damaged
    }
}

impl From<StoreError> for IndexError {
    fn from(e: StoreError) -> IndexError {
        let damaged = e.is_damage();
        IndexError {
            // The view names the store as `index PATH`; the index error adds that word itself.
            path: e
                .store
                .strip_prefix("index ")
                .unwrap_or(&e.store)
                .to_string(),
            message: e.message,
            damaged,
        }
    }
}

/// A search hit.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Hit {
    /// The node's id.
    pub id: String,
    /// Its kind's name.
    pub kind: String,
    /// Its title.
    pub title: String,
    /// Relevance as a share of the query's best hit (1), two significant digits; an exact
    /// id match ranks first with 1.
    pub score: f64,
}

/// One node as the node index lists it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CatalogEntry {
    /// The node's id.
    pub id: String,
    /// Its kind's name.
    pub kind: String,
    /// Its title.
    pub title: String,
}

/// The SQLite index of one project.
pub struct Index {
    conn: Connection,
    root: PathBuf,
    /// The project root as a boundary: source files are opened beneath it.
    guard: Root,
    location: String,
    /// `.brief/cache`, held open: index files are created, renamed and deleted in it
    /// (`None`: the index lives in memory).
    cache: Option<Arc<PrivateDir>>,
    /// Why the index lives in memory when the project has a cache folder it cannot use.
    notice: Option<String>,
    ids: RefCell<HashMap<NodeIx, String>>,
    kinds: RefCell<HashMap<NodeIx, Kind>>,
    /// Edge lists already read, by (node, outgoing, the one relation asked or `None` for
    /// all): traversals revisit nodes (supersedes chains, layer closures, and `impact`'s
    /// thousands of selections), and the graph does not change between refreshes.
    edge_cache: RefCell<HashMap<EdgeKey, Vec<Edge>>>,
    /// Nodes read for a question about them (`files_of`) within the current `reading`: the
    /// context's store takes them from here instead of decoding them again. Emptied when
    /// each `reading` ends, so a long-lived holder keeps none.
    nodes_read: RefCell<HashMap<NodeIx, Node>>,
    /// Word and token counts made within the current `reading`, kept once it ends: writing
    /// them during it would hold the write lock for the rest of the request.
    counts_to_keep: RefCell<Vec<(Vec<u8>, usize)>>,
    /// Lists of a common word's holders made within the current `reading`, kept once it ends
    /// (`holders.rs`).
    lists_to_keep: RefCell<Vec<(String, i64, Vec<u8>)>>,
    /// Lists of common words' holders already decoded, by token, with the write version each
    /// is of (`holders.rs`).
    lists_held: RefCell<HashMap<String, (i64, Arc<holders::List>)>>,
    /// Whether this connection's vocabulary table (`temp.search_terms`) is made.
    vocabulary: Cell<bool>,
    /// The vectors of one model key, read once (`Index::vectors`).
    vector_cache: RefCell<Option<(String, std::sync::Arc<brief_embed::Matrix>)>>,
    /// The `data_version` the caches above were read at: another process's commit empties
    /// them before the next read.
    cache_version: Cell<Option<i64>>,
    created: bool,
    /// The index file to build, while there is no usable one: the first refresh builds it.
    unbuilt: Option<Unbuilt>,
    /// Set while that file is built under another name.
    publish: Option<Publish>,
    /// Device and inode of the index file this connection opened (`None`: in memory or not
    /// built yet): tells whether `.brief/cache/index.db` is still that file.
    file: Option<(u64, u64)>,
    /// Whether [`Index::term_parts`] can be asked: its SQL function is registered on this
    /// connection at the first word query (`None` until then), not at every open.
    parts: Cell<Option<bool>>,
}

/// The name of the index file in `.brief/cache`.
const INDEX_FILE: &str = "index.db";

/// A build's private name, renamed to [`INDEX_FILE`] when whole.
const BUILD_FILE: &str = "index.db.build";

/// The lock a build holds.
const LOCK_FILE: &str = "build.lock";

/// The lock a refresh of a published index file holds while it writes.
const REFRESH_LOCK_FILE: &str = "refresh.lock";

/// Whether the caller holds the refresh lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    Yes,
    No,
}

/// Waits for the refresh lock of `cache` (released when the handle is dropped): refreshes,
/// seals and verifications of one index file take turns. `None` when the lock cannot be had
/// (a read-only folder; then there are no writers to wait for).
fn turn(cache: &PrivateDir) -> Option<std::fs::File> {
    let lock = cache.open_lock(REFRESH_LOCK_FILE).ok()?;
    let start = std::time::Instant::now();
    loop {
        match lock.try_lock() {
            Ok(()) => return Some(lock),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < BUILD_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            Err(_) => return None,
        }
    }
}

/// An index file still to be (re)built.
struct Unbuilt {
    /// The identity of the file SQLite found damaged, if that is why: deleted only while
    /// it is still that file.
    damaged: Option<FileIdentity>,
}

/// A new index file being built under a private name, given its real name by the first
/// refresh that completes.
struct Publish {
    /// Locked from the start of the build until it is published, so other processes wait
    /// for this build instead of starting their own.
    _lock: std::fs::File,
}

/// Why an index file was not used.
enum Unusable {
    /// There is none yet: built.
    Missing,
    /// Another schema version or set of sources: rebuilt.
    Outdated,
    /// SQLite, or a verification of the whole file, found it damaged: rebuilt (deleted only
    /// while it is still this file).
    Damaged(Option<FileIdentity>),
    /// A symlink where the index file should be: replaced (the link, never its target).
    Link,
    /// It cannot be written (a read-only file or folder): the run keeps its index in memory.
    ReadOnly(rusqlite::Error),
    /// Anything else (permissions, a busy writer, a folder in its place): reported, never
    /// deleted.
    Other(rusqlite::Error),
}

/// How far an index file is trusted when it is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trust {
    /// Found in the cache: verified whole first unless it is as brief sealed it.
    Found,
    /// This process has just built it: sealed as it is.
    Built,
}

/// Executes a statement through the statement cache (refreshes run the same few statements
/// hundreds of thousands of times).
fn run<P: rusqlite::Params>(conn: &Connection, sql: &str, params: P) -> rusqlite::Result<usize> {
    conn.prepare_cached(sql)?.execute(params)
}

/// One row through the statement cache.
fn row<P: rusqlite::Params, T>(
    conn: &Connection,
    sql: &str,
    params: P,
    f: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.prepare_cached(sql)?.query_row(params, f)
}

/// `.brief/cache` (and `.brief/.gitignore`), created as plain folders under the root; the
/// one-line notice why the index must live in memory otherwise.
fn cache_dir(project: &Project) -> Result<PrivateDir, String> {
    let why = |e: OpenError| match e {
        OpenError::Symlink => format!(
            "{} or its cache folder is a symbolic link; brief writes nothing through links, \
             so the index is kept in memory for this run",
            project.root.join(".brief").display()
        ),
        e if e.is_read_only() => read_only_notice(
            &project
                .root
                .join(".brief")
                .join("cache")
                .display()
                .to_string(),
            &e.to_string(),
        ),
        e => format!(
            "cannot use {} ({e}); the index is kept in memory for this run",
            project.root.join(".brief").join("cache").display()
        ),
    };
    let brief = project
        .guard
        .private_dir(Path::new(".brief"))
        .map_err(why)?;
    let cache = project
        .guard
        .private_dir(Path::new(".brief/cache"))
        .map_err(why)?;
    brief
        .create_new(".gitignore", b"cache/\n.gitignore\n")
        .map_err(why)?;
    Ok(cache)
}

/// The notice for an index that cannot be written.
fn read_only_notice(shown: &str, why: &str) -> String {
    format!("{shown} cannot be written ({why}); the index is kept in memory for this run")
}

/// How long a connection waits for another process's write before it gives up.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Opens an SQLite file by its real path, refusing a symlink anywhere on it.
fn open_sqlite(path: &Path, create: Create) -> rusqlite::Result<Connection> {
    use rusqlite::OpenFlags;
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    if create == Create::Yes {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    Connection::open_with_flags(path, flags)
}

/// What tells one index file from its replacement (device and inode: a build renames a new
/// file into place).
type FileIdentity = (u64, u64);

/// What kind of failure a SQLite error is, by its result code (never by its message).
fn fault(e: &rusqlite::Error) -> Fault {
    use rusqlite::Error as E;
    use rusqlite::ErrorCode as C;
    let failure = match e {
        // Rows that must exist, and values of the wrong type, in a file of our own schema.
        E::QueryReturnedNoRows
        | E::InvalidColumnType(..)
        | E::FromSqlConversionFailure(..)
        | E::IntegralValueOutOfRange(..)
        | E::Utf8Error(..) => return Fault::Damaged,
        E::SqliteFailure(failure, _) => failure,
        E::SqlInputError { error, .. } => error,
        _ => return Fault::Other,
    };
    match failure.code {
        C::DatabaseCorrupt | C::NotADatabase => Fault::Damaged,
        C::DatabaseBusy | C::DatabaseLocked => Fault::Busy,
        // SQLite refuses a symlink on the path with its own extended code: not a permission.
        C::CannotOpen if failure.extended_code == rusqlite::ffi::SQLITE_CANTOPEN_SYMLINK => {
            Fault::Other
        }
        C::ReadOnly | C::CannotOpen | C::PermissionDenied => Fault::ReadOnly,
        // A plain SQL error (`SQLITE_ERROR`) from our own fixed statements, asked of a file
        // that says it has our schema: the file is not what it says (a table, a column or an
        // FTS configuration page missing or damaged). Search words are always quoted, so no
        // user input reaches SQLite as syntax.
        _ if failure.extended_code & 0xff == rusqlite::ffi::SQLITE_ERROR => Fault::Damaged,
        _ => Fault::Other,
    }
}

/// Whether SQLite found the file damaged or not a database at all, or what it returned did
/// not decode.
fn is_damage(e: &rusqlite::Error) -> bool {
    fault(e) == Fault::Damaged
}

/// Whether SQLite could not write (a read-only file, folder or file system).
fn is_read_only(e: &rusqlite::Error) -> bool {
    fault(e) == Fault::ReadOnly
}

/// Deletes an index file and its side files (never what a symlink points to).
fn remove_index_file(cache: &PrivateDir, name: &str) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = cache.remove(&format!("{name}{suffix}"));
    }
}

/// A damaged-file error of our own (a checksum or decoding that failed).
fn damage(path: &str, message: impl Into<String>) -> IndexError {
    IndexError {
        path: path.to_string(),
        message: message.into(),
        damaged: true,
    }
}

/// A cached edge list: (node, outgoing, the one relation asked or `None` for all).
type EdgeKey = (NodeIx, Side, Option<Relation>);

/// Which edges of a node: those leaving it or those arriving at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Side {
    /// The node is the edge's source.
    Out,
    /// The node is the edge's target.
    In,
}

/// Whether opening an SQLite file may create it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Create {
    /// A new file is made when none exists.
    Yes,
    /// Only an existing file opens.
    No,
}

fn err(path: &str, e: rusqlite::Error) -> IndexError {
    IndexError {
        path: path.to_string(),
        damaged: is_damage(&e),
        message: e.to_string(),
    }
}

impl Index {
    /// Opens the project's index, creating or rebuilding it as needed; in memory when
    /// `.brief/cache/` cannot be written (with a [`notice`](Index::notice) saying why).
    ///
    /// A missing, outdated or damaged index file is replaced by the first refresh, which
    /// builds the new one under a private name and a lock, in SQLite's rollback mode (each
    /// page written once, where WAL writes it twice), and publishes it whole: no process ever
    /// opens half an index, and one that needs it meanwhile waits for that build instead of
    /// starting another.
    ///
    /// Nothing is written outside the root: `.brief` and `.brief/cache` must be plain
    /// folders (a symlink is refused, not followed), every index file is created, renamed and
    /// deleted relative to the open cache folder, and SQLite opens the file with
    /// `SQLITE_OPEN_NOFOLLOW` (a symlink anywhere on the path is refused).
    pub fn open(project: &Project) -> Result<Index, IndexError> {
        let cache = match cache_dir(project) {
            Ok(cache) => Arc::new(cache),
            Err(notice) => {
                let mut index = Index::in_memory(project, ":memory:".into())?;
                index.notice = Some(notice);
                return Ok(index);
            }
        };
        let shown = cache.shown().join(INDEX_FILE).display().to_string();
        match Index::open_file(project, &cache, Trust::Found) {
            Ok(index) => Ok(index),
            Err(Unusable::ReadOnly(e)) => {
                let mut index = Index::in_memory(project, ":memory:".into())?;
                index.notice = Some(read_only_notice(&shown, &e.to_string()));
                Ok(index)
            }
            // Outdated, foreign, missing or damaged: the first refresh decides under the
            // build lock (only there may a file be deleted or created).
            Err(unusable) => {
                let damaged = match unusable {
                    Unusable::Damaged(file) => file,
                    _ => None,
                };
                let mut index = Index::in_memory(project, shown)?;
                index.cache = Some(cache);
                index.unbuilt = Some(Unbuilt { damaged });
                Ok(index)
            }
        }
    }

    /// Why the index lives in memory for this run, when the project's cache folder could not
    /// be used (one line for the user).
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// An empty index in memory, shown as `location`.
    fn in_memory(project: &Project, location: String) -> Result<Index, IndexError> {
        let conn = Connection::open_in_memory().map_err(|e| err(":memory:", e))?;
        let _ = conn.pragma_update(None, "page_size", PAGE_SIZE);
        create(&conn, project).map_err(|e| err(":memory:", e))?;
        Ok(Index::with(project, conn, location, true))
    }

    /// Keeps this run's index in memory from now on, saying why.
    fn keep_in_memory(&mut self, project: &Project, notice: String) -> Result<(), IndexError> {
        *self = Index::in_memory(project, ":memory:".into())?;
        self.notice = Some(notice);
        Ok(())
    }

    /// Gives a completed build its real name and reopens it there in WAL mode.
    fn publish(&mut self, project: &Project) -> Result<(), IndexError> {
        let Some(publish) = self.publish.take() else {
            return Ok(());
        };
        let Some(cache) = self.cache.clone() else {
            return Ok(());
        };
        let shown = self.location.clone();
        // Renamed while still in rollback mode, which has no side files named after it.
        if let Err(e) = cache.rename(BUILD_FILE, INDEX_FILE) {
            self.abandon_build(project, publish);
            return Err(IndexError {
                path: shown,
                message: format!("cannot move the new index into place: {e}"),
                damaged: false,
            });
        }
        // The lock is held until the file is open again.
        let _publish = publish;
        match Index::open_file(project, &cache, Trust::Built) {
            Ok(published) => {
                *self = published;
                Ok(())
            }
            Err(Unusable::ReadOnly(e)) | Err(Unusable::Other(e)) => Err(err(&shown, e)),
            // Kept working on the renamed file (SQLite moves to WAL when another opens it).
            Err(_) => Err(IndexError {
                path: shown,
                message: "the new index changed while it was reopened; run again".into(),
                damaged: false,
            }),
        }
    }

    /// Opens the existing index file of `cache` (never creates one: that is a build's job).
    /// A file found there that is not as brief sealed it is verified whole first.
    fn open_file(
        project: &Project,
        cache: &Arc<PrivateDir>,
        trust: Trust,
    ) -> Result<Index, Unusable> {
        let path = cache.real_path(INDEX_FILE);
        let shown = cache.shown().join(INDEX_FILE).display().to_string();
        match cache.entry(INDEX_FILE) {
            None => return Err(Unusable::Missing),
            Some(EntryKind::Symlink) => return Err(Unusable::Link),
            Some(_) => {}
        }
        let file = cache.identity(INDEX_FILE);
        let unusable = |e: rusqlite::Error| match cache.entry(INDEX_FILE) {
            None => Unusable::Missing,
            Some(EntryKind::Symlink) => Unusable::Link,
            Some(_) if is_damage(&e) => Unusable::Damaged(file),
            Some(EntryKind::File) if is_read_only(&e) => Unusable::ReadOnly(e),
            Some(_) => Unusable::Other(e),
        };
        let conn = open_sqlite(&path, Create::No).map_err(unusable)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(unusable)?;
        // Readers never write the file: the log is checkpointed by writers only, so the
        // seal moves only when brief writes.
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )
        .map_err(unusable)?;
        // SQLite falls back to reading a file it may not write: the run keeps its index in
        // memory then, as when the file cannot be opened at all.
        if conn.is_readonly(rusqlite::MAIN_DB).map_err(unusable)? {
            return Err(Unusable::ReadOnly(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_READONLY),
                Some("the file is read-only".into()),
            )));
        }
        if !Index::is_current(&conn, project).map_err(unusable)? {
            return Err(Unusable::Outdated);
        }
        // Verified under the refresh lock, so that no write of brief's lands between the
        // check and the seal that vouches for it.
        let turn = match trust {
            Trust::Built => Some(turn(cache)),
            Trust::Found if seal::holds(cache) => None,
            Trust::Found => {
                let turn = turn(cache);
                // A writer may have sealed it while this process waited for its turn.
                if !seal::holds(cache) && seal::verify(&conn).map_err(unusable)?.is_some() {
                    return Err(Unusable::Damaged(file));
                }
                Some(turn)
            }
        };
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(unusable)?;
        conn.pragma_update(None, "synchronous", "OFF")
            .map_err(unusable)?;
        if turn.is_some() {
            // After a first read, which creates the log beside the file.
            conn.query_row("SELECT count(*) FROM meta", [], |r| r.get::<_, i64>(0))
                .map_err(unusable)?;
            let _ = seal::Seal::now(cache).write(cache);
        }
        let mut index = Index::with(project, conn, shown, false);
        index.cache = Some(Arc::clone(cache));
        index.file = file;
        Ok(index)
    }

    /// Whether the file has our meta table, schema and sources. Asked before anything is
    /// written (the switch to WAL writes the header): a file of another schema or program is
    /// not ours to change.
    fn is_current(conn: &Connection, project: &Project) -> rusqlite::Result<bool> {
        let has_meta: bool = conn.query_row(
            "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
            [],
            |r| r.get(0),
        )?;
        let meta = |key: &str| -> rusqlite::Result<Option<String>> {
            row(conn, "SELECT value FROM meta WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()
        };
        Ok(has_meta
            && meta("schema")?.as_deref() == Some(SCHEMA)
            && meta("sources")?.as_deref() == Some(sources_key(project).as_str()))
    }

    /// Whether the index can be read as it is: it lives in memory or waits for its build, or
    /// its file is still as brief sealed it. A long-lived holder asks before each request and
    /// opens the index again (which verifies it) when not.
    pub fn is_sealed(&self) -> bool {
        match (&self.cache, self.file) {
            (Some(cache), Some(_)) => seal::holds(cache),
            _ => true,
        }
    }

    /// Copies what the last write put in the log into the file and empties the log. Each
    /// process that opens the index first reads its whole log to find the pages in it: a
    /// refresh's 1,300 frames left there cost every later command 4 ms, and the counts a
    /// context keeps (a hundred pages for a new target) would grow it with every context.
    /// SQLite's own checkpoint copies only past 1,000 frames and never empties the log; and
    /// what it copied is forgotten by the next process, which reads the log from its start.
    /// Nothing is waited for: with no busy timeout, a reader still on an older state (or
    /// another process's write) leaves the log as long as it must be, after SQLite has copied
    /// what it safely could; the next write tries again. The file is not synced
    /// (`synchronous = OFF`).
    fn checkpoint(&self) {
        if self.file.is_none() {
            return;
        }
        let _ = self.conn.busy_timeout(std::time::Duration::ZERO);
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        let _ = self.conn.busy_timeout(BUSY_TIMEOUT);
    }

    /// Seals the file after a write of this connection. The caller holds the refresh lock
    /// (a refresh), or it is tried here: a process holding it seals after its own write,
    /// which comes after this one.
    fn seal_written(&self, held: Held) {
        let (Some(cache), Some(_)) = (&self.cache, self.file) else {
            return;
        };
        let lock = match held {
            Held::Yes => None,
            Held::No => match cache.open_lock(REFRESH_LOCK_FILE) {
                Ok(lock) if lock.try_lock().is_ok() => Some(lock),
                _ => return,
            },
        };
        let _ = seal::Seal::now(cache).write(cache);
        drop(lock);
    }

    /// Replaces the index after SQLite reported it damaged: the next refresh deletes it under
    /// the build lock (unless another process has replaced it by then) and builds it again.
    pub fn rebuild(&mut self, project: &Project) -> Result<(), IndexError> {
        if let Some(publish) = self.publish.take() {
            self.abandon_build(project, publish);
            return Ok(());
        }
        let Some(cache) = self.cache.clone() else {
            let notice = self.notice.take();
            *self = Index::in_memory(project, ":memory:".into())?;
            self.notice = notice;
            return Ok(());
        };
        let damaged = cache.identity(INDEX_FILE);
        *self = Index::in_memory(project, self.location.clone())?;
        self.cache = Some(cache);
        self.unbuilt = Some(Unbuilt { damaged });
        Ok(())
    }

    fn with(project: &Project, conn: Connection, location: String, created: bool) -> Index {
        // Refreshes cycle through a few dozen statements; keep them all prepared.
        conn.set_prepared_statement_cache_capacity(64);
        let _ = conn.pragma_update(None, "cache_size", -65536);
        // Read pages straight from the OS page cache instead of copying them into ours.
        let _ = conn.pragma_update(None, "mmap_size", 1i64 << 30);
        Index {
            conn,
            root: project.root.clone(),
            guard: project.guard.clone(),
            location,
            cache: None,
            notice: None,
            ids: RefCell::new(HashMap::new()),
            kinds: RefCell::new(HashMap::new()),
            edge_cache: RefCell::new(HashMap::new()),
            nodes_read: RefCell::new(HashMap::new()),
            counts_to_keep: RefCell::new(Vec::new()),
            lists_to_keep: RefCell::new(Vec::new()),
            lists_held: RefCell::new(HashMap::new()),
            vocabulary: Cell::new(false),
            vector_cache: RefCell::new(None),
            cache_version: Cell::new(None),
            created,
            unbuilt: None,
            publish: None,
            file: None,
            parts: Cell::new(None),
        }
    }

    /// Where the index lives (a path, or `:memory:`).
    pub fn location(&self) -> &str {
        &self.location
    }

    /// Number of source files the index knows (kept in `meta`: counting 100k rows would
    /// cost a context several milliseconds).
    pub fn file_count(&self) -> usize {
        row(
            &self.conn,
            "SELECT value FROM meta WHERE key = 'files'",
            [],
            |r| r.get::<_, String>(0),
        )
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
    }

    /// Runs `f` inside one read transaction: one snapshot for a whole context, and one lock
    /// instead of one per query. Ids, kinds and edges remembered from an earlier snapshot are
    /// forgotten when another process has committed since.
    /// Fails when the snapshot cannot be started (the file is unreadable or damaged).
    pub fn reading<T>(&self, f: impl FnOnce() -> T) -> Result<T, StoreError> {
        let own = self.conn.is_autocommit() && self.conn.execute_batch("BEGIN").is_ok();
        // The first read starts the snapshot; the version is that snapshot's.
        let version = self
            .conn
            .query_row("SELECT count(*) FROM meta", [], |r| r.get::<_, i64>(0))
            .and_then(|_| self.conn.query_row("PRAGMA data_version", [], |r| r.get(0)));
        let result = match version {
            Ok(version) => {
                if self.cache_version.replace(Some(version)) != Some(version) {
                    self.forget();
                }
                Ok(f())
            }
            Err(e) => {
                self.forget();
                Err(self.fail(e))
            }
        };
        self.nodes_read.borrow_mut().clear();
        if own && self.conn.execute_batch("COMMIT").is_err() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        if own {
            let kept = self.counts_to_keep.take();
            self.put(&kept);
            self.keep_lists();
        }
        result
    }

    /// Empties the caches of ids, kinds, edges and vectors.
    fn forget(&self) {
        self.nodes_read.borrow_mut().clear();
        self.ids.borrow_mut().clear();
        self.kinds.borrow_mut().clear();
        self.edge_cache.borrow_mut().clear();
        self.vector_cache.borrow_mut().take();
        self.forget_lists_held();
    }

    /// Whether this index waits for its first refresh to build (no usable file was found, or
    /// the file was found damaged).
    pub fn is_unbuilt(&self) -> bool {
        self.unbuilt.is_some()
    }

    /// Whether this connection's file is the one at `.brief/cache/index.db` now: not when
    /// the index lives in memory, is being built, or was replaced or deleted since it was
    /// opened (another process rebuilt it).
    pub fn is_the_index_file(&self) -> bool {
        match (&self.cache, self.file) {
            (Some(cache), Some(file)) => cache.identity(INDEX_FILE) == Some(file),
            _ => false,
        }
    }

    /// Device and inode of the file at `.brief/cache/index.db` now (`None`: none, or the
    /// index lives in memory).
    pub fn file_now(&self) -> Option<(u64, u64)> {
        self.cache.as_ref()?.identity(INDEX_FILE)
    }

    /// Whether the index file this connection opened has since been replaced or deleted
    /// (another process rebuilt it): a long-lived holder should open the index again.
    pub fn was_replaced(&self) -> bool {
        self.file.is_some() && !self.is_the_index_file()
    }

    /// `.brief/cache`, when the index lives there (not in memory): where a file watcher
    /// answers for it.
    pub fn cache_dir(&self) -> Option<Arc<PrivateDir>> {
        self.cache.clone()
    }

    fn err(&self, e: rusqlite::Error) -> IndexError {
        err(&self.location, e)
    }

    /// A failed read as the views report it.
    fn fail(&self, e: rusqlite::Error) -> StoreError {
        StoreError {
            store: format!("index {}", self.location),
            message: e.to_string(),
            fault: fault(&e),
        }
    }

    /// What was read does not match what was written (a damaged file).
    fn damaged(&self, message: String) -> StoreError {
        StoreError {
            store: format!("index {}", self.location),
            message,
            fault: Fault::Damaged,
        }
    }
}

#[cfg(test)]
mod tests;
