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

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::{params, Connection, OptionalExtension};

use crate::guidance;
use crate::model::{
    Content, Corpus, Dangling, Edge, GraphView, Kind, Link, Location, Node, NodeIx, NodeStore,
    Relation, Subgraph,
};
use crate::project::{Project, Source};
use crate::root::{EntryKind, OpenError, PrivateDir, Root};
use crate::sources::artifacts::Placement;
use crate::sources::specgraph::Entry;
use crate::sources::{catalogue, kb};
use crate::sources::{
    now_ns, read_stamped, rel_path, stamp, FolderStamp, Problem, Severity, Stamp,
};
use crate::tokens::CountStore;

/// Bumped whenever the schema or what is stored changes: older files are rebuilt.
const SCHEMA: &str = "brief-index-8";

// A file's stamp is (size, mtime, ctime, ino, dev) — see `sources::Stamp`; `racy` marks a
// stamp taken too soon after the file changed to be trusted (hashed again next time).
const CREATE: &str = "
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL,
                   ctime INTEGER NOT NULL, ino INTEGER NOT NULL, dev INTEGER NOT NULL,
                   racy INTEGER NOT NULL, hash BLOB NOT NULL, problem INTEGER NOT NULL,
                   parser TEXT NOT NULL);
CREATE TABLE watches(path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL,
                     ctime INTEGER NOT NULL, ino INTEGER NOT NULL, dev INTEGER NOT NULL,
                     racy INTEGER NOT NULL);
-- `sum` columns are checksums of what a row holds, checked when it is read: a damaged page
-- that still decodes never turns into a wrong answer.
CREATE TABLE nodes(ix INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
                   file TEXT NOT NULL, date TEXT, title TEXT NOT NULL, sum INTEGER NOT NULL);
-- The stored node (JSON) apart from the columns queries filter on: building or scanning
-- the indexes of `nodes` then never reads through the bulk of the data.
CREATE TABLE node_data(ix INTEGER PRIMARY KEY, data TEXT NOT NULL, sum INTEGER NOT NULL);

CREATE TABLE edges(src INTEGER NOT NULL, dst INTEGER NOT NULL, rel TEXT NOT NULL,
                   PRIMARY KEY(src, dst, rel)) WITHOUT ROWID;
CREATE TABLE dangling(src INTEGER NOT NULL, rel TEXT NOT NULL, target TEXT NOT NULL);
CREATE TABLE problems(file TEXT NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL,
                      severity INTEGER NOT NULL, message TEXT NOT NULL);
CREATE VIRTUAL TABLE search USING fts5(id, title, body, fields, content='',
                                       contentless_delete=1,
                                       tokenize='porter unicode61 remove_diacritics 2');
CREATE TABLE counts(key BLOB PRIMARY KEY, n INTEGER NOT NULL, sum INTEGER NOT NULL) WITHOUT ROWID;
";

/// Index files up to this size are checked whole (`PRAGMA quick_check`) when opened; larger
/// ones rely on SQLite's own checks and the row checksums.
const QUICK_CHECK_MAX_BYTES: u64 = 8 << 20;

/// Page size of a new index file.
const PAGE_SIZE: i64 = 16384;

/// Bytes of full-text terms a bulk load keeps in memory before writing a segment.
const BULK_FTS_MEMORY: i64 = 64 << 20;

/// Files read and parsed per step of a refresh's pipeline.
const PARSE_CHUNK: usize = 2048;

/// Indexes that only speed up lookups; a build into an empty index drops and re-creates them.
const CREATE_SECONDARY: &str = "
CREATE INDEX IF NOT EXISTS nodes_file ON nodes(file);
CREATE INDEX IF NOT EXISTS nodes_id_nocase ON nodes(id COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS nodes_kind ON nodes(kind);
CREATE INDEX IF NOT EXISTS nodes_date ON nodes(date);
CREATE INDEX IF NOT EXISTS edges_dst ON edges(dst);
CREATE INDEX IF NOT EXISTS dangling_src ON dangling(src);
CREATE INDEX IF NOT EXISTS dangling_target ON dangling(target);
CREATE INDEX IF NOT EXISTS problems_file ON problems(file);
";

const DROP_SECONDARY: &str = "
DROP INDEX IF EXISTS nodes_file; DROP INDEX IF EXISTS nodes_id_nocase; DROP INDEX IF EXISTS nodes_kind; DROP INDEX IF EXISTS nodes_date;
DROP INDEX IF EXISTS edges_dst; DROP INDEX IF EXISTS dangling_src;
DROP INDEX IF EXISTS dangling_target; DROP INDEX IF EXISTS problems_file;
";

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
    pub path: String,
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

/// A search hit.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Hit {
    pub id: String,
    pub kind: String,
    pub title: String,
    /// Relevance as a share of the query's best hit (1), two significant digits; an exact
    /// id match ranks first with 1.
    pub score: f64,
}

/// One node as the node index lists it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CatalogEntry {
    pub id: String,
    pub kind: String,
    pub title: String,
}

/// How a file is parsed: the sources' catalogue decides.
use crate::sources::catalogue::Parser;

/// A source file found while listing the project.
#[derive(Clone)]
struct Listed {
    path: PathBuf,
    rel: String,
    parser: Parser,
    /// What the index knows of it, when the listing came from the index.
    known: Option<Known>,
}

/// What the index knows of a file.
#[derive(Clone, Debug)]
struct Known {
    stamp: Stamp,
    /// Stamped too soon after a change to be trusted: hashed again.
    racy: bool,
    /// It had a load problem: read again on every refresh.
    problem: bool,
    /// How it was parsed (a manifest entry's id and expected type, a placement): a change
    /// there parses it again even when its content is the same.
    parser: String,
}

impl Known {
    /// Whether the file can be trusted unchanged when it now stats as `now`.
    fn unchanged(&self, now: Option<&Stamp>) -> bool {
        !self.problem && !self.racy && now == Some(&self.stamp)
    }
}

/// A candidate file after reading.
struct Read {
    /// Its position in the listing.
    at: usize,
    /// The content hash (zero when it could not be read).
    hash: [u8; 32],
    /// The stamp taken as it was read, and when.
    stamp: Option<(Stamp, i64)>,
    /// The parse result, `None` when the content had not changed.
    parsed: Option<Result<Option<Prepared>, Problem>>,
}

/// A Tana export after reading: like [`Read`], with the text kept (`None`: same hash as
/// indexed) because exports are parsed inside the write transaction.
struct TanaRead {
    at: usize,
    hash: [u8; 32],
    stamp: Option<(Stamp, i64)>,
    text: Result<Option<String>, Problem>,
}

/// What the index stores of a parsed node, made on the parallel side of a refresh (the
/// rest of the node is dropped there too, not on the writing thread).
struct Prepared {
    id: String,
    kind: Kind,
    title: String,
    date: Option<String>,
    location: Location,
    links: Vec<Link>,
    data: String,
    /// [`row_sum`] of the node's row and [`data_sum`] of its data.
    sums: (i64, i64),
    body: String,
    fields: String,
}

/// The first eight bytes of a blake3 hash over length-prefixed parts.
fn sum_of(parts: &[&[u8]]) -> i64 {
    let mut hasher = blake3::Hasher::new();
    for part in parts {
        hasher.update(&(part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    i64::from_le_bytes(
        hasher.finalize().as_bytes()[..8]
            .try_into()
            .unwrap_or([0; 8]),
    )
}

/// The checksum of a node's row (what search and the catalog show without its data).
fn row_sum(id: &str, kind: &str, date: Option<&str>, title: &str) -> i64 {
    let date: &[u8] = date.map(str::as_bytes).unwrap_or(b"\xff");
    sum_of(&[id.as_bytes(), kind.as_bytes(), date, title.as_bytes()])
}

/// The checksum of a node's data.
fn data_sum(data: &str) -> i64 {
    sum_of(&[data.as_bytes()])
}

/// The checksum stored with a token count.
fn count_sum(key: &[u8], n: i64) -> i64 {
    sum_of(&[key, &n.to_le_bytes()])
}

fn prepare(node: Node) -> Result<Prepared, Problem> {
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

/// A node written by a refresh, with the links still to be turned into edges.
struct Written {
    ix: NodeIx,
    id: String,
    links: Vec<Link>,
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
    /// Edge lists already read, by (node, outgoing): traversals revisit nodes (supersedes
    /// chains, layer closures), and the graph does not change between refreshes.
    edge_cache: RefCell<HashMap<(NodeIx, bool), Vec<Edge>>>,
    /// The `data_version` the caches above were read at: another process's commit empties
    /// them before the next read.
    cache_version: Cell<Option<i64>>,
    /// The first SQLite error met by an infallible [`GraphView`] call, and whether it says
    /// the file is damaged.
    error: RefCell<Option<(String, bool)>>,
    created: bool,
    /// The index file to build, while there is no usable one: the first refresh builds it.
    unbuilt: Option<Unbuilt>,
    /// Set while that file is built under another name.
    publish: Option<Publish>,
}

/// The name of the index file in `.brief/cache`.
const INDEX_FILE: &str = "index.db";
/// A build's private name, renamed to [`INDEX_FILE`] when whole.
const BUILD_FILE: &str = "index.db.build";
/// The lock a build holds.
const LOCK_FILE: &str = "build.lock";
/// The lock a refresh of a published index file holds while it writes.
const REFRESH_LOCK_FILE: &str = "refresh.lock";

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
    /// SQLite (or `quick_check`) found it damaged: rebuilt.
    Damaged,
    /// A symlink where the index file should be: replaced (the link, never its target).
    Link,
    /// It cannot be written (a read-only file or folder): the run keeps its index in memory.
    ReadOnly(rusqlite::Error),
    /// Anything else (permissions, a busy writer, a folder in its place): reported, never
    /// deleted.
    Other(rusqlite::Error),
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
        match Index::open_file(project, &cache) {
            Ok(index) => Ok(index),
            Err(Unusable::ReadOnly(e)) => {
                let mut index = Index::in_memory(project, ":memory:".into())?;
                index.notice = Some(read_only_notice(&shown, &e.to_string()));
                Ok(index)
            }
            // Outdated, foreign, missing or damaged: the first refresh decides under the
            // build lock (only there may a file be deleted or created).
            Err(_) => {
                let mut index = Index::in_memory(project, shown)?;
                index.cache = Some(cache);
                index.unbuilt = Some(Unbuilt { damaged: None });
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

    /// Called by the first refresh of an index opened without a usable file: waits for the
    /// build lock, then opens the file another process published meanwhile, or starts
    /// building it. Builds in memory for this run when the lock or the build file cannot be
    /// had.
    fn start_build(&mut self, project: &Project) -> Result<(), IndexError> {
        let Some(Unbuilt { damaged }) = self.unbuilt.take() else {
            return Ok(());
        };
        let Some(cache) = self.cache.clone() else {
            return Ok(());
        };
        let shown = cache.shown().join(INDEX_FILE).display().to_string();
        let lock = match build_lock(&cache) {
            Ok(lock) => lock,
            Err(notice) => return self.keep_in_memory(project, notice),
        };
        let replaced = damaged.is_some() && cache.identity(INDEX_FILE) != damaged;
        if damaged.is_none() || replaced {
            match Index::open_file(project, &cache) {
                Ok(published) => {
                    *self = published;
                    return Ok(());
                }
                Err(Unusable::ReadOnly(e)) => {
                    return self.keep_in_memory(project, read_only_notice(&shown, &e.to_string()))
                }
                Err(Unusable::Other(e)) if cache.entry(INDEX_FILE).is_some() => {
                    // Neither missing nor damaged (permissions, a busy writer, …): say so,
                    // never delete.
                    self.unbuilt = Some(Unbuilt { damaged });
                    return Err(IndexError {
                        path: shown,
                        message: if matches!(
                            e.sqlite_error_code(),
                            Some(rusqlite::ErrorCode::DatabaseBusy)
                        ) {
                            format!("{e}: another process is writing it; try again")
                        } else {
                            format!(
                                "{e}; brief only replaces an index file that is missing or \
                                 damaged, so fix this or move the file aside"
                            )
                        },
                        damaged: false,
                    });
                }
                Err(_) => {}
            }
        }
        remove_index_file(&cache, INDEX_FILE);
        // Left by a build that was killed: under the lock nobody else is writing it.
        remove_index_file(&cache, BUILD_FILE);
        let conn = open_sqlite(&cache.real_path(BUILD_FILE), true).and_then(|conn| {
            conn.pragma_update(None, "page_size", PAGE_SIZE)?;
            conn.pragma_update(None, "journal_mode", "MEMORY")?;
            conn.pragma_update(None, "synchronous", "OFF")?;
            create(&conn, project)?;
            Ok(conn)
        });
        let conn = match conn {
            Ok(conn) => conn,
            Err(e) => {
                remove_index_file(&cache, BUILD_FILE);
                let notice = if is_read_only(&e) {
                    read_only_notice(&shown, &e.to_string())
                } else {
                    format!("cannot build {shown} ({e}); the index is kept in memory for this run")
                };
                return self.keep_in_memory(project, notice);
            }
        };
        *self = Index::with(project, conn, shown, true);
        self.cache = Some(cache);
        self.publish = Some(Publish { _lock: lock });
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
        match Index::open_file(project, &cache) {
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

    /// Drops a build that failed (releasing the lock and deleting its file): the next
    /// refresh starts over.
    fn abandon_build(&mut self, project: &Project, publish: Publish) {
        let cache = self.cache.clone();
        let location = self.location.clone();
        drop(publish);
        if let Ok(empty) = Index::in_memory(project, location) {
            *self = empty;
        }
        if let Some(cache) = cache {
            remove_index_file(&cache, BUILD_FILE);
            self.cache = Some(cache);
            self.unbuilt = Some(Unbuilt { damaged: None });
        }
    }

    /// Opens the existing index file of `cache` (never creates one: that is a build's job).
    fn open_file(project: &Project, cache: &Arc<PrivateDir>) -> Result<Index, Unusable> {
        let path = cache.real_path(INDEX_FILE);
        let shown = cache.shown().join(INDEX_FILE).display().to_string();
        let unusable = |e: rusqlite::Error| match cache.entry(INDEX_FILE) {
            None => Unusable::Missing,
            Some(EntryKind::Symlink) => Unusable::Link,
            Some(_) if is_damage(&e) => Unusable::Damaged,
            Some(EntryKind::File) if is_read_only(&e) => Unusable::ReadOnly(e),
            Some(_) => Unusable::Other(e),
        };
        match cache.entry(INDEX_FILE) {
            None => return Err(Unusable::Missing),
            Some(EntryKind::Symlink) => return Err(Unusable::Link),
            Some(_) => {}
        }
        let conn = open_sqlite(&path, false).map_err(unusable)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(unusable)?;
        // Before anything is written (the switch to WAL writes the header): a file without
        // our meta table, schema and sources is not ours to change.
        let has_meta: bool = conn
            .query_row(
                "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
                [],
                |r| r.get(0),
            )
            .map_err(unusable)?;
        let meta = |key: &str| -> rusqlite::Result<Option<String>> {
            row(&conn, "SELECT value FROM meta WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()
        };
        let current = has_meta
            && meta("schema").map_err(unusable)?.as_deref() == Some(SCHEMA)
            && meta("sources").map_err(unusable)?.as_deref() == Some(sources_key(project).as_str());
        if !current {
            return Err(Unusable::Outdated);
        }
        if std::fs::metadata(&path).is_ok_and(|m| m.len() <= QUICK_CHECK_MAX_BYTES) {
            let verdict: String = conn
                .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
                .map_err(unusable)?;
            if verdict != "ok" {
                return Err(Unusable::Damaged);
            }
        }
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(unusable)?;
        conn.pragma_update(None, "synchronous", "OFF")
            .map_err(unusable)?;
        let mut index = Index::with(project, conn, shown, false);
        index.cache = Some(Arc::clone(cache));
        Ok(index)
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
            cache_version: Cell::new(None),
            error: RefCell::new(None),
            created,
            unbuilt: None,
            publish: None,
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

    /// Brings the index up to date with the sources. `progress` is called with (done, total)
    /// while files are parsed.
    pub fn refresh(
        &mut self,
        project: &Project,
        verify: Verify,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Refresh, IndexError> {
        self.start_build(project)?;
        let result = self.refresh_started(project, verify, progress);
        // A build that failed is dropped, with its lock: nobody waits on it.
        if result.is_err() {
            if let Some(publish) = self.publish.take() {
                self.abandon_build(project, publish);
            }
        }
        result
    }

    fn refresh_started(
        &mut self,
        project: &Project,
        verify: Verify,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Refresh, IndexError> {
        let created = std::mem::take(&mut self.created);
        if verify == Verify::Quick && !created && self.watches_unchanged()? {
            return Ok(Refresh {
                files: self.file_count(),
                ..Refresh::default()
            });
        }
        // Refreshes of one index file take turns (`refresh.lock`), so readers that all find
        // the same change do not keep making each other start over. A process without the
        // lock (a foreign writer) may still commit meanwhile: an attempt whose view of the
        // index went stale before it took the write lock starts over (it then finds the work
        // done).
        let _turn = self.writer_turn();
        for _ in 0..8 {
            let version = self.data_version()?;
            // Unchanged manifests and folders list the same files: take the list from the
            // index and only stat them.
            if !created && self.watches_unchanged()? {
                // The common case, checked without building a listing: nothing moved.
                if let Some(files) = self.files_unchanged()? {
                    return Ok(Refresh {
                        files,
                        ..Refresh::default()
                    });
                }
                let listed = self.listed_from_index()?;
                match self.apply(listed, None, Scope::All, version, progress)? {
                    Some(refresh) => return Ok(Refresh { created, ..refresh }),
                    None => continue,
                }
            }
            // Manifests and folders are stamped before they are read: one that changes while
            // it is read shows a new stamp at the next refresh, which lists it again.
            let (listed, manifest_problems, watches) = list(project);
            match self.apply(
                listed,
                Some((manifest_problems, watches)),
                Scope::All,
                version,
                progress,
            )? {
                Some(mut refresh) => {
                    self.publish(project)?;
                    refresh.created = created;
                    return Ok(refresh);
                }
                None => continue,
            }
        }
        Err(IndexError {
            path: self.location.clone(),
            message: "other processes kept changing the index; try again".into(),
            damaged: false,
        })
    }

    /// Waits for this process's turn to refresh the index file (the lock is released when
    /// the file handle is dropped). `None` when there is nothing to share (an index in
    /// memory or still being built under its own lock) or the lock cannot be had: the
    /// refresh then relies on its stale-view check alone.
    fn writer_turn(&self) -> Option<std::fs::File> {
        if self.publish.is_some() || self.unbuilt.is_some() {
            return None;
        }
        let lock = self.cache.as_ref()?.open_lock(REFRESH_LOCK_FILE).ok()?;
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

    /// SQLite's counter of commits made by other connections.
    fn data_version(&self) -> Result<i64, IndexError> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Refreshes just these files (paths relative to the root), as a file watcher or a
    /// hook that knows what changed would: each is read again whatever its stamp says (and
    /// parsed when its content changed). A file the index does not know yet, or one that is
    /// gone, makes it a full refresh (the listing changed).
    pub fn refresh_paths(
        &mut self,
        project: &Project,
        files: &[String],
    ) -> Result<Refresh, IndexError> {
        self.start_build(project)?;
        let turn = self.writer_turn();
        for _ in 0..8 {
            // Taken before the files are looked up: a listing another process changes
            // meanwhile makes this attempt start over rather than write a stale entry.
            let version = self.data_version()?;
            let mut listed = Vec::new();
            for rel in files {
                let rel = rel.trim_start_matches("./").to_string();
                let parser: Option<String> = row(
                    &self.conn,
                    "SELECT parser FROM files WHERE path = ?1",
                    [&rel],
                    |r| r.get(0),
                )
                .optional()
                .map_err(|e| self.err(e))?;
                let path = self.root.join(&rel);
                match parser.as_deref().and_then(decode_parser) {
                    Some(parser) if path.exists() => listed.push(Listed {
                        path,
                        rel,
                        parser,
                        known: None,
                    }),
                    _ => {
                        // The full refresh takes its own turn.
                        drop(turn);
                        return self.refresh(project, Verify::Full, &mut |_, _| {});
                    }
                }
            }
            if let Some(refresh) =
                self.apply(listed, None, Scope::Named, version, &mut |_, _| {})?
            {
                return Ok(refresh);
            }
        }
        Err(IndexError {
            path: self.location.clone(),
            message: "other processes kept changing the index; try again".into(),
            damaged: false,
        })
    }

    /// Re-reads the given files if they changed since they were indexed (or were indexed
    /// too soon after a change to tell). Returns true when what is indexed changed (the
    /// caller assembles again).
    pub fn refresh_files(
        &mut self,
        project: &Project,
        files: &[String],
    ) -> Result<bool, IndexError> {
        let mut changed = Vec::new();
        for rel in files {
            let known = self.known(rel)?;
            let now = stat(&project.root.join(rel));
            if !known.is_some_and(|k| k.unchanged(now.as_ref())) {
                changed.push(rel.clone());
            }
        }
        if changed.is_empty() {
            return Ok(false);
        }
        let refresh = self.refresh_paths(project, &changed)?;
        Ok(refresh.parsed > 0 || refresh.removed > 0 || refresh.created)
    }

    /// What the index knows of one file.
    fn known(&self, rel: &str) -> Result<Option<Known>, IndexError> {
        row(
            &self.conn,
            "SELECT size, mtime, ctime, ino, dev, racy, problem, parser FROM files WHERE path = ?1",
            [rel],
            known_row,
        )
        .optional()
        .map_err(|e| self.err(e))
    }

    /// Every load problem recorded for the indexed files, sorted by location.
    pub fn problems(&self) -> Result<Vec<Problem>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT file, line, col, severity, message FROM problems
                 ORDER BY file, line, col, message",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(Problem {
                    severity: if r.get::<_, i64>(3)? == 1 {
                        Severity::Error
                    } else {
                        Severity::Warning
                    },
                    location: crate::model::Location {
                        path: r.get(0)?,
                        line: r.get::<_, i64>(1)? as u32,
                        col: r.get::<_, i64>(2)? as u32,
                    },
                    message: r.get(4)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    /// Runs `f` inside one read transaction: one snapshot for a whole context, and one lock
    /// instead of one per query. Ids, kinds and edges remembered from an earlier snapshot are
    /// forgotten when another process has committed since.
    pub fn reading<T>(&self, f: impl FnOnce() -> T) -> T {
        let own = self.conn.is_autocommit() && self.conn.execute_batch("BEGIN").is_ok();
        // The first read starts the snapshot; the version is that snapshot's.
        match self
            .conn
            .query_row("SELECT count(*) FROM meta", [], |r| r.get::<_, i64>(0))
            .and_then(|_| self.conn.query_row("PRAGMA data_version", [], |r| r.get(0)))
        {
            Ok(version) => {
                if self.cache_version.replace(Some(version)) != Some(version) {
                    self.forget();
                }
            }
            Err(e) => {
                self.forget();
                self.note(e);
            }
        }
        let result = f();
        if own && self.conn.execute_batch("COMMIT").is_err() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        result
    }

    /// Empties the caches of ids, kinds and edges.
    fn forget(&self) {
        self.ids.borrow_mut().clear();
        self.kinds.borrow_mut().clear();
        self.edge_cache.borrow_mut().clear();
    }

    /// The first storage error met while answering graph queries, if any.
    pub fn take_error(&self) -> Option<IndexError> {
        self.error
            .borrow_mut()
            .take()
            .map(|(message, damaged)| IndexError {
                path: self.location.clone(),
                message,
                damaged,
            })
    }

    /// Whether this index waits for its first refresh to build (no usable file was found, or
    /// the file was found damaged).
    pub fn is_unbuilt(&self) -> bool {
        self.unbuilt.is_some()
    }

    /// The kinds of the indexed nodes, sorted (what `--kind` may name).
    pub fn kinds(&self) -> Result<Vec<String>, IndexError> {
        let result = (|| -> Result<Vec<String>, rusqlite::Error> {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT DISTINCT kind FROM nodes ORDER BY kind")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            rows.collect()
        })();
        result.map_err(|e| self.err(e))
    }

    /// Every node's id, kind and title, sorted by id.
    pub fn catalog(&self) -> Result<Vec<CatalogEntry>, IndexError> {
        let result = (|| -> Result<Vec<(CatalogEntry, bool)>, rusqlite::Error> {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT id, kind, title, date, sum FROM nodes ORDER BY id")?;
            let rows = stmt.query_map([], |r| {
                let entry = CatalogEntry {
                    id: r.get(0)?,
                    kind: r.get(1)?,
                    title: r.get(2)?,
                };
                let intact = row_sum(
                    &entry.id,
                    &entry.kind,
                    r.get::<_, Option<String>>(3)?.as_deref(),
                    &entry.title,
                ) == r.get::<_, i64>(4)?;
                Ok((entry, intact))
            })?;
            rows.collect::<Result<Vec<_>, _>>()
        })();
        let rows = result.map_err(|e| self.err(e))?;
        if rows.iter().any(|(_, intact)| !intact) {
            return Err(damage(
                &self.location,
                "a node row does not match its checksum",
            ));
        }
        Ok(rows.into_iter().map(|(entry, _)| entry).collect())
    }

    /// Full-text search over id, title, body and fields, BM25-ranked, an exact id first.
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        kind: Option<&str>,
    ) -> Result<Vec<Hit>, IndexError> {
        let mut hits = Vec::new();
        // The engine refuses longer queries with a message; here they are cut, so no caller
        // can make a search unbounded.
        let mut cut = query.len().min(MAX_QUERY_BYTES);
        while !query.is_char_boundary(cut) {
            cut -= 1;
        }
        let query = &query[..cut];
        let exact = self.lookup_any_case(query.trim());
        if let Some(ix) = exact {
            let node = self.load_node(ix)?;
            if kind.is_none_or(|k| node.kind.name() == k) {
                hits.push(Hit {
                    id: node.id.clone(),
                    kind: node.kind.name().to_string(),
                    title: node.title.clone(),
                    score: f64::INFINITY,
                });
            }
        }
        let Some(fts) = fts_query(query) else {
            return Ok(hits);
        };
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT n.ix, n.id, n.kind, n.title, bm25(search, 10.0, 4.0, 1.0, 2.0) AS score,
                        n.date, n.sum
                 FROM search JOIN nodes n ON n.ix = search.rowid
                 WHERE search MATCH ?1 AND (?2 IS NULL OR n.kind = ?2)
                 ORDER BY score, n.id LIMIT ?3",
            )
            .map_err(|e| self.err(e))?;
        // One more than asked for, so the exact match can be set aside (any `limit` fits).
        let sql_limit = i64::try_from(limit).unwrap_or(i64::MAX).saturating_add(1);
        let rows = stmt
            .query_map(params![fts, kind, sql_limit], |r| {
                Ok((
                    r.get::<_, i64>(0)? as NodeIx,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, f64>(4)?,
                    r.get::<_, Option<String>>(5)?,
                    r.get::<_, i64>(6)?,
                ))
            })
            .map_err(|e| self.err(e))?;
        // BM25 relevance (SQLite's `bm25` is its negation), normalised below by the best.
        let mut text_hits = Vec::new();
        for row in rows {
            let (ix, id, kind, title, score, date, sum) = row.map_err(|e| self.err(e))?;
            if row_sum(&id, &kind, date.as_deref(), &title) != sum {
                return Err(damage(
                    &self.location,
                    format!("node {ix}: checksum mismatch"),
                ));
            }
            if Some(ix) == exact {
                continue;
            }
            text_hits.push(Hit {
                id,
                kind,
                title,
                score: -score,
            });
        }
        crate::search::normalise(&mut text_hits);
        // The exact id match ranks first, as relevant as the best text match.
        if let Some(first) = hits.first_mut() {
            first.score = 1.0;
        }
        hits.extend(text_hits);
        hits.truncate(limit);
        Ok(hits)
    }

    /// The node whose id equals `id` ignoring ASCII case (the exact id first).
    pub fn lookup_any_case(&self, id: &str) -> Option<NodeIx> {
        if let Some(ix) = self.lookup(id) {
            return Some(ix);
        }
        self.conn
            .query_row(
                "SELECT ix FROM nodes WHERE id = ?1 COLLATE NOCASE ORDER BY id LIMIT 1",
                [id],
                |r| r.get::<_, i64>(0),
            )
            .optional()
            .ok()
            .flatten()
            .map(|ix| ix as NodeIx)
    }

    fn err(&self, e: rusqlite::Error) -> IndexError {
        err(&self.location, e)
    }

    fn note(&self, e: rusqlite::Error) {
        let mut slot = self.error.borrow_mut();
        if slot.is_none() {
            *slot = Some((e.to_string(), is_damage(&e)));
        }
    }

    /// Records that what was read does not match what was written (a damaged file).
    fn note_damage(&self, message: String) {
        let mut slot = self.error.borrow_mut();
        if slot.is_none() {
            *slot = Some((message, true));
        }
    }

    fn watches_unchanged(&self) -> Result<bool, IndexError> {
        let mut stmt = self
            .conn
            .prepare("SELECT path, size, mtime, ctime, ino, dev, racy FROM watches")
            .map_err(|e| self.err(e))?;
        let rows: Vec<(String, Stamp, bool)> = stmt
            .query_map([], |r| {
                Ok((r.get(0)?, stamp_row(r, 1)?, r.get::<_, i64>(6)? != 0))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.err(e))?;
        if rows.is_empty() {
            return Ok(false);
        }
        Ok(rows.iter().all(|(path, stamp, racy)| {
            !racy && stat(&self.root.join(path)).as_ref() == Some(stamp)
        }))
    }

    /// `Some(number of files)` when every indexed file still has its indexed stamp, none had
    /// a problem and none was stamped too soon after a change: then a refresh has nothing
    /// to do.
    fn files_unchanged(&self) -> Result<Option<usize>, IndexError> {
        use rayon::prelude::*;
        let mut stmt = self
            .conn
            .prepare("SELECT path, size, mtime, ctime, ino, dev, racy, problem, parser FROM files")
            .map_err(|e| self.err(e))?;
        let rows: Vec<(String, Known)> = stmt
            .query_map([], |r| Ok((r.get(0)?, known_row_at(r, 1)?)))
            .map_err(|e| self.err(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.err(e))?;
        let root = self.root.as_path();
        let unchanged = rows
            .par_iter()
            .all(|(rel, known)| known.unchanged(stat(&root.join(rel)).as_ref()));
        Ok(unchanged.then_some(rows.len()))
    }

    /// The catalogue knowledge-base links resolve against, and each Markdown file's parser
    /// set to its fingerprint. A full refresh has the whole listing; a refresh of named
    /// files takes the other files from the index.
    fn markdown_catalog(
        &self,
        listed: &mut [Listed],
        partial: bool,
    ) -> Result<kb::Catalog, IndexError> {
        if !listed
            .iter()
            .any(|f| matches!(f.parser, Parser::Markdown(_)))
        {
            return Ok(kb::Catalog::default());
        }
        let mut files: Vec<(String, Parser)> = listed
            .iter()
            .map(|f| (f.rel.clone(), f.parser.clone()))
            .collect();
        if partial {
            let mut stmt = self
                .conn
                .prepare("SELECT path, parser FROM files")
                .map_err(|e| self.err(e))?;
            let rows = stmt
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
                .map_err(|e| self.err(e))?;
            for row in rows {
                let (rel, parser) = row.map_err(|e| self.err(e))?;
                if let Some(parser) = decode_parser(&parser) {
                    files.push((rel, parser));
                }
            }
            files.sort_by(|a, b| a.0.cmp(&b.0));
            files.dedup_by(|a, b| a.0 == b.0);
        }
        let layout = kb::Layout::detect(&self.guard);
        let markdown = files
            .iter()
            .filter(|(_, p)| matches!(p, Parser::Markdown(_)))
            .map(|(rel, _)| rel.clone());
        let mut catalog = kb::Catalog::new(layout, markdown);
        for (rel, parser) in &files {
            if let Parser::Spec(entry) = parser {
                catalog.add_other(rel.clone(), entry.id.clone());
            }
        }
        let fingerprint = catalog.fingerprint();
        for file in listed.iter_mut() {
            if let Parser::Markdown(print) = &mut file.parser {
                print.clone_from(&fingerprint);
            }
        }
        Ok(catalog)
    }

    /// The files of the last listing, from the index.
    fn listed_from_index(&self) -> Result<Vec<Listed>, IndexError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT path, size, mtime, ctime, ino, dev, racy, problem, parser FROM files
                 ORDER BY path",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, known_row_at(r, 1)?)))
            .map_err(|e| self.err(e))?;
        let mut listed = Vec::new();
        for row in rows {
            let (rel, known) = row.map_err(|e| self.err(e))?;
            if let Some(parser) = decode_parser(&known.parser) {
                listed.push(Listed {
                    path: self.root.join(&rel),
                    rel,
                    parser,
                    known: Some(known),
                });
            }
        }
        Ok(listed)
    }

    /// Compares the listed files with the indexed ones and applies the differences. With a
    /// fresh `listing` (the manifests' own problems and the stamped manifests and folders),
    /// it is recorded in the same transaction, so the stamps always describe the listing
    /// they came with.
    fn apply(
        &mut self,
        listed: Vec<Listed>,
        listing: Option<(Vec<Problem>, Vec<FolderStamp>)>,
        scope: Scope,
        version: i64,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Option<Refresh>, IndexError> {
        use rayon::prelude::*;
        let location = self.location.clone();
        let e = |x: rusqlite::Error| err(&location, x);
        let partial = scope == Scope::Named;
        let mut listed = listed;
        let catalog = self.markdown_catalog(&mut listed, partial)?;
        let (manifest_problems, watches) = match listing {
            Some((problems, watches)) => (Some(problems), Some(watches)),
            None => (None, None),
        };
        // What the index knows of each listed file (read in one pass unless the listing
        // came from the index and carries it already).
        let from_index = !listed.is_empty() && listed.iter().all(|f| f.known.is_some());
        let known: HashMap<String, Known> = if from_index {
            listed
                .iter()
                .filter_map(|f| f.known.clone().map(|k| (f.rel.clone(), k)))
                .collect()
        } else if partial {
            let mut known = HashMap::new();
            for file in &listed {
                if let Some(k) = self.known(&file.rel)? {
                    known.insert(file.rel.clone(), k);
                }
            }
            known
        } else {
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT path, size, mtime, ctime, ino, dev, racy, problem, parser FROM files",
                )
                .map_err(e)?;
            let rows = stmt
                .query_map([], |r| Ok((r.get::<_, String>(0)?, known_row_at(r, 1)?)))
                .map_err(e)?;
            rows.collect::<Result<_, _>>().map_err(e)?
        };
        // Into an empty index every file is read, and stamped as it is read: no stat first.
        let stats: Vec<Option<Stamp>> = if known.is_empty() || partial {
            vec![None; listed.len()]
        } else {
            listed.par_iter().map(|f| stat(&f.path)).collect()
        };
        let mut todo: Vec<usize> = Vec::new();
        for (i, file) in listed.iter().enumerate() {
            let trusted = !partial
                && known.get(&file.rel).is_some_and(|k| {
                    k.unchanged(stats[i].as_ref()) && k.parser == encode_parser(&file.parser)
                });
            if !trusted {
                todo.push(i);
            }
        }
        // Hashes for the files read again whose parser is the same: an unchanged hash then
        // means nothing to parse (a changed parser — a manifest entry's id or expected type —
        // parses the file again whatever its content).
        let mut hashes: HashMap<&str, Vec<u8>> = HashMap::new();
        for &i in &todo {
            let rel = listed[i].rel.as_str();
            if known
                .get(rel)
                .is_some_and(|k| !k.problem && k.parser == encode_parser(&listed[i].parser))
            {
                let hash: Vec<u8> = row(
                    &self.conn,
                    "SELECT hash FROM files WHERE path = ?1",
                    [rel],
                    |r| r.get(0),
                )
                .map_err(e)?;
                hashes.insert(rel, hash);
            }
        }
        let removed: Vec<String> = if partial || known.is_empty() {
            Vec::new()
        } else {
            let seen: HashSet<&str> = listed.iter().map(|f| f.rel.as_str()).collect();
            known
                .keys()
                .filter(|path| !seen.contains(path.as_str()))
                .cloned()
                .collect()
        };

        // Tana exports are read and hashed here, and parsed inside the write transaction,
        // where their nodes stream into the index chunk by chunk.
        let (tana_todo, todo): (Vec<usize>, Vec<usize>) = todo
            .into_iter()
            .partition(|&i| listed[i].parser == Parser::Tana);
        let mut tana_reads: Vec<TanaRead> = Vec::new();
        for &at in &tana_todo {
            let file = &listed[at];
            tana_reads.push(match read_stamped(&self.guard, &file.path) {
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
            });
        }

        // Read, hash and parse the candidates on all cores, a chunk at a time in path order,
        // while this thread writes the chunks before: on two cores parsing and SQLite inserts
        // overlap instead of running one after the other.
        let total = todo.len();
        let root = self.guard.clone();
        let mut todo = todo;
        todo.sort_by(|&a, &b| listed[a].rel.cmp(&listed[b].rel));
        let read_one = |at: usize| -> Read {
            let file = &listed[at];
            match read_stamped(&root, &file.path) {
                Ok((text, stamp)) => {
                    let hash = *blake3::hash(text.as_bytes()).as_bytes();
                    let same = hashes
                        .get(file.rel.as_str())
                        .is_some_and(|old| old.as_slice() == hash);
                    let parsed = (!same).then(|| {
                        parse(&file.rel, &text, &file.parser, &catalog)
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
        };
        std::thread::scope(|scope| {
            let (sender, receiver) = std::sync::mpsc::sync_channel::<Vec<Read>>(2);
            let (todo, read_one) = (&todo, &read_one);
            scope.spawn(move || {
                for chunk in todo.chunks(PARSE_CHUNK) {
                    let reads: Vec<Read> = chunk.par_iter().map(|&i| read_one(i)).collect();
                    // The writer gave up (an error, or another process changed the index).
                    if sender.send(reads).is_err() {
                        break;
                    }
                }
            });
            let mut refresh = Refresh {
                files: listed.len(),
                removed: removed.len(),
                ..Refresh::default()
            };
            let tx = self
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(e)?;
            let now: i64 = tx
                .query_row("PRAGMA data_version", [], |r| r.get(0))
                .map_err(e)?;
            if now != version {
                return Ok(None);
            }
            // A bulk load merges the full-text index once at the end, not while inserting.
            let bulk = todo.len() > 10_000
                || tana_reads
                    .iter()
                    .any(|read| matches!(&read.text, Ok(Some(t)) if t.len() > 4 << 20));
            // Into an empty index nothing needs looking up by file or resolving later, and the
            // secondary indexes are cheaper built once at the end than kept up per insert.
            let fresh = known.is_empty();
            if fresh {
                tx.execute_batch(DROP_SECONDARY).map_err(e)?;
            }
            if bulk {
                run(
                    &tx,
                    "INSERT INTO search(search, rank) VALUES ('automerge', 0)",
                    [],
                )
                .map_err(e)?;
                // Terms wait in memory longer (SQLite's default is 1 MiB), so a bulk load
                // writes a few large segments instead of many small ones merged again and again.
                run(
                    &tx,
                    "INSERT INTO search(search, rank) VALUES ('hashsize', ?1)",
                    [BULK_FTS_MEMORY],
                )
                .map_err(e)?;
            }
            for path in &removed {
                remove_file_nodes_bulk(&tx, path).map_err(e)?;
                run(&tx, "DELETE FROM problems WHERE file = ?1", [path]).map_err(e)?;
                run(&tx, "DELETE FROM files WHERE path = ?1", [path]).map_err(e)?;
            }
            // Manifest problems are rewritten every time the manifests are read.
            if let Some(manifest_problems) = &manifest_problems {
                let manifests: HashSet<String> = manifest_problems
                    .iter()
                    .map(|p| p.location.path.clone())
                    .chain(listed.iter().filter_map(|f| match &f.parser {
                        Parser::Spec(entry) => Some(entry.manifest.clone()),
                        Parser::Artifact(_) | Parser::Tana | Parser::Markdown(_) => None,
                    }))
                    .collect();
                for manifest in &manifests {
                    run(&tx, "DELETE FROM problems WHERE file = ?1", [manifest]).map_err(e)?;
                }
                for problem in manifest_problems {
                    insert_problem(&tx, &problem.location.path, problem).map_err(e)?;
                }
            }
            // Exports first, so links from other sources to Tana nodes resolve below.
            for read in tana_reads {
                let file = &listed[read.at];
                let (stamp, racy) = recorded(read.stamp, stats[read.at]);
                match read.text {
                    Ok(None) => refresh.unchanged_content += 1,
                    Ok(Some(text)) => {
                        refresh.parsed += 1;
                        refresh.tana_nodes += write_tana(&tx, &file.rel, &text).map_err(e)?;
                    }
                    Err(problem) => {
                        refresh.parsed += 1;
                        remove_file_nodes_bulk(&tx, &file.rel).map_err(e)?;
                        run(&tx, "DELETE FROM problems WHERE file = ?1", [&file.rel]).map_err(e)?;
                        insert_problem(&tx, &file.rel, &problem).map_err(e)?;
                    }
                }
                // An export's problems stay recorded with it; they never force a re-parse (only a
                // changed export is parsed again).
                run(
                    &tx,
                    "INSERT OR REPLACE INTO files(path, size, mtime, ctime, ino, dev, racy, hash,
                                                  problem, parser)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, ?9)",
                    params![
                        file.rel,
                        stamp.size,
                        stamp.mtime,
                        stamp.ctime,
                        stamp.inode,
                        stamp.device,
                        racy as i64,
                        &read.hash[..],
                        encode_parser(&file.parser)
                    ],
                )
                .map_err(e)?;
            }
            let mut touched: Vec<Written> = Vec::new();
            let mut insert_file = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO files(path, size, mtime, ctime, ino, dev, racy, hash,
                                                  problem, parser)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                )
                .map_err(e)?;
            // Applied in path order: the first path wins a duplicate id.
            let mut done = 0;
            for read in receiver.iter().flat_map(|reads| {
                done += reads.len();
                progress(done, total);
                reads
            }) {
                let file = &listed[read.at];
                let (stamp, racy) = recorded(read.stamp, stats[read.at]);
                let mut problem = false;
                match read.parsed {
                    None => refresh.unchanged_content += 1,
                    Some(result) => {
                        refresh.parsed += 1;
                        // Into an empty index only manifests have problems recorded.
                        if !fresh {
                            run(&tx, "DELETE FROM problems WHERE file = ?1", [&file.rel])
                                .map_err(e)?;
                        }
                        match result {
                            Ok(Some(prepared)) => {
                                match upsert_node(&tx, &file.rel, prepared, fresh).map_err(e)? {
                                    Ok(written) => touched.push(written),
                                    Err(dup) => {
                                        problem = true;
                                        insert_problem(&tx, &file.rel, &dup).map_err(e)?;
                                    }
                                }
                            }
                            Ok(None) => remove_file_nodes(&tx, &file.rel).map_err(e)?,
                            Err(p) => {
                                problem = true;
                                remove_file_nodes(&tx, &file.rel).map_err(e)?;
                                insert_problem(&tx, &file.rel, &p).map_err(e)?;
                            }
                        }
                    }
                }
                insert_file
                    .execute(params![
                        file.rel,
                        stamp.size,
                        stamp.mtime,
                        stamp.ctime,
                        stamp.inode,
                        stamp.device,
                        racy as i64,
                        &read.hash[..],
                        problem as i64,
                        encode_parser(&file.parser)
                    ])
                    .map_err(e)?;
            }
            drop(insert_file);
            // The reader ends early only if it died (a bug): never commit half a refresh.
            if done != total {
                return Err(IndexError {
                    path: location.clone(),
                    message: format!("reading files stopped after {done} of {total}"),
                    damaged: false,
                });
            }
            // Links of the nodes (re)written; links of others that now resolve.
            // Into an empty index every node is in `touched`: resolve links from memory.
            let fresh_ids: HashMap<&str, NodeIx> = if fresh {
                touched.iter().map(|w| (w.id.as_str(), w.ix)).collect()
            } else {
                HashMap::new()
            };
            let mut insert_edge = tx
                .prepare_cached("INSERT OR IGNORE INTO edges(src, dst, rel) VALUES (?1, ?2, ?3)")
                .map_err(e)?;
            let mut insert_dangling = tx
                .prepare_cached("INSERT INTO dangling(src, rel, target) VALUES (?1, ?2, ?3)")
                .map_err(e)?;
            let mut lookup = tx
                .prepare_cached("SELECT ix FROM nodes WHERE id = ?1")
                .map_err(e)?;
            for written in &touched {
                let ix = written.ix;
                if !fresh {
                    run(&tx, "DELETE FROM edges WHERE src = ?1", [ix]).map_err(e)?;
                    run(&tx, "DELETE FROM dangling WHERE src = ?1", [ix]).map_err(e)?;
                }
                for link in &written.links {
                    // A miss may still be a node written another way (a Tana export's).
                    let known = fresh_ids.get(link.target.as_str()).map(|&t| i64::from(t));
                    let target: Option<i64> = if known.is_some() {
                        known
                    } else {
                        lookup
                            .query_row([&link.target], |r| r.get(0))
                            .optional()
                            .map_err(e)?
                    };
                    match target {
                        Some(dst) => insert_edge.execute(params![ix, dst, link.relation.name()]),
                        None => {
                            insert_dangling.execute(params![ix, link.relation.name(), link.target])
                        }
                    }
                    .map_err(e)?;
                }
            }
            drop((insert_edge, insert_dangling, lookup));
            for written in touched.iter().filter(|_| !fresh) {
                run(
                    &tx,
                    "INSERT OR IGNORE INTO edges(src, dst, rel)
                 SELECT src, ?1, rel FROM dangling WHERE target = ?2",
                    params![written.ix, written.id],
                )
                .map_err(e)?;
                run(&tx, "DELETE FROM dangling WHERE target = ?1", [&written.id]).map_err(e)?;
            }
            if fresh {
                tx.execute_batch(CREATE_SECONDARY).map_err(e)?;
            }
            // What layers propagate, kept for queries (`guidance`): any change may move it.
            if refresh.parsed > 0 || refresh.removed > 0 {
                guidance::rebuild(&tx).map_err(e)?;
            }
            if bulk {
                // One segment to search; then SQLite's defaults again for the incremental
                // refreshes that follow.
                run(&tx, "INSERT INTO search(search) VALUES ('optimize')", []).map_err(e)?;
                run(
                    &tx,
                    "INSERT INTO search(search, rank) VALUES ('automerge', 4)",
                    [],
                )
                .map_err(e)?;
                run(
                    &tx,
                    "INSERT INTO search(search, rank) VALUES ('hashsize', 1048576)",
                    [],
                )
                .map_err(e)?;
            }
            let files: i64 = tx
                .query_row("SELECT count(*) FROM files", [], |r| r.get(0))
                .map_err(e)?;
            run(
                &tx,
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('files', ?1)",
                [files.to_string()],
            )
            .map_err(e)?;
            if let Some(watches) = &watches {
                run(&tx, "DELETE FROM watches", []).map_err(e)?;
                for (path, stamp) in watches {
                    let Some((stamp, taken)) = stamp else {
                        continue;
                    };
                    run(
                        &tx,
                        "INSERT OR REPLACE INTO watches(path, size, mtime, ctime, ino, dev, racy)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                        params![
                            rel_path(&self.root, path),
                            stamp.size,
                            stamp.mtime,
                            stamp.ctime,
                            stamp.inode,
                            stamp.device,
                            stamp.racy(*taken) as i64
                        ],
                    )
                    .map_err(e)?;
                }
            }
            tx.commit().map_err(e)?;
            if !partial {
                refresh.files = files as usize;
            }
            self.forget();
            self.cache_version.set(None);
            Ok(Some(refresh))
        })
    }

    /// A whole node, checked against its checksum and its row (a mismatch is damage).
    fn load_node(&self, ix: NodeIx) -> Result<Node, IndexError> {
        type Stored = (String, String, Option<String>, String, i64, String, i64);
        let (id, kind, date, title, row, data, sum): Stored = self
            .conn
            .prepare_cached(
                "SELECT n.id, n.kind, n.date, n.title, n.sum, d.data, d.sum
                 FROM nodes n JOIN node_data d ON d.ix = n.ix WHERE n.ix = CAST(?1 AS INTEGER)",
            )
            .and_then(|mut s| {
                s.query_row([ix], |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                    ))
                })
            })
            .map_err(|e| self.err(e))?;
        let damaged = |what: &str| damage(&self.location, format!("node {ix}: {what}"));
        if row_sum(&id, &kind, date.as_deref(), &title) != row || data_sum(&data) != sum {
            return Err(damaged("checksum mismatch"));
        }
        let node: Node = serde_json::from_str(&data)
            .map_err(|e| damaged(&format!("data does not decode ({e})")))?;
        if node.id != id || node.kind.name() != kind || node.title != title || node.date != date {
            return Err(damaged("data differs from its row"));
        }
        Ok(node)
    }

    /// Records an error met where the caller cannot return one.
    fn record(&self, e: IndexError) {
        let mut slot = self.error.borrow_mut();
        if slot.is_none() {
            *slot = Some((e.message, e.damaged));
        }
    }

    fn edges(&self, ix: NodeIx, out: bool) -> Vec<Edge> {
        if let Some(edges) = self.edge_cache.borrow().get(&(ix, out)) {
            return edges.clone();
        }
        let edges = self.read_edges(ix, out);
        self.edge_cache
            .borrow_mut()
            .insert((ix, out), edges.clone());
        edges
    }

    fn read_edges(&self, ix: NodeIx, out: bool) -> Vec<Edge> {
        // `CAST(?1 …)`, not a bare `?1`: SQLite built with STAT4 re-plans a statement whose
        // plan may depend on a bound value on every run, which cost more than the query.
        let sql = if out {
            "SELECT e.dst, e.rel, n.id, n.kind FROM edges e JOIN nodes n ON n.ix = e.dst
             WHERE e.src = CAST(?1 AS INTEGER) ORDER BY n.id, e.rel"
        } else {
            "SELECT e.src, e.rel, n.id, n.kind FROM edges e JOIN nodes n ON n.ix = e.src
             WHERE e.dst = CAST(?1 AS INTEGER) ORDER BY n.id, e.rel"
        };
        let result = (|| -> Result<Vec<Edge>, rusqlite::Error> {
            let mut stmt = self.conn.prepare_cached(sql)?;
            let rows = stmt.query_map([ix], |r| {
                Ok((
                    r.get::<_, i64>(0)? as NodeIx,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })?;
            let mut edges = Vec::new();
            for row in rows {
                let (other, rel, id, kind) = row?;
                self.ids.borrow_mut().insert(other, id);
                self.kinds.borrow_mut().insert(other, Kind::parse(&kind));
                let relation = Relation::from_key(&rel);
                edges.push(if out {
                    Edge {
                        from: ix,
                        to: other,
                        relation,
                    }
                } else {
                    Edge {
                        from: other,
                        to: ix,
                        relation,
                    }
                });
            }
            Ok(edges)
        })();
        result.unwrap_or_else(|e| {
            self.note(e);
            Vec::new()
        })
    }
}

impl GraphView for Index {
    fn lookup(&self, id: &str) -> Option<NodeIx> {
        let result = self
            .conn
            .prepare_cached("SELECT ix FROM nodes WHERE id = ?1")
            .and_then(|mut s| s.query_row([id], |r| r.get::<_, i64>(0)).optional());
        match result {
            Ok(ix) => ix.map(|ix| ix as NodeIx),
            Err(e) => {
                self.note(e);
                None
            }
        }
    }

    fn id_of(&self, ix: NodeIx) -> String {
        if let Some(id) = self.ids.borrow().get(&ix) {
            return id.clone();
        }
        let id: String = self
            .conn
            .prepare_cached("SELECT id FROM nodes WHERE ix = ?1")
            .and_then(|mut s| s.query_row([ix], |r| r.get(0)))
            .unwrap_or_else(|e| {
                self.note(e);
                String::new()
            });
        self.ids.borrow_mut().insert(ix, id.clone());
        id
    }

    fn kind_of(&self, ix: NodeIx) -> Kind {
        if let Some(kind) = self.kinds.borrow().get(&ix) {
            return kind.clone();
        }
        let kind: String = self
            .conn
            .prepare_cached("SELECT kind FROM nodes WHERE ix = ?1")
            .and_then(|mut s| s.query_row([ix], |r| r.get(0)))
            .unwrap_or_else(|e| {
                self.note(e);
                String::new()
            });
        let kind = Kind::parse(&kind);
        self.kinds.borrow_mut().insert(ix, kind.clone());
        kind
    }

    fn edges_out(&self, ix: NodeIx) -> Vec<Edge> {
        self.edges(ix, true)
    }

    fn edges_in(&self, ix: NodeIx) -> Vec<Edge> {
        self.edges(ix, false)
    }

    fn identity(&self) -> Option<NodeIx> {
        self.conn
            .prepare_cached("SELECT ix FROM nodes WHERE kind = 'identity' ORDER BY id LIMIT 1")
            .and_then(|mut s| s.query_row([], |r| r.get::<_, i64>(0)).optional())
            .unwrap_or_else(|e| {
                self.note(e);
                None
            })
            .map(|ix| ix as NodeIx)
    }

    fn dangling_from(&self, ix: NodeIx) -> Vec<Dangling> {
        let result = (|| -> Result<Vec<Dangling>, rusqlite::Error> {
            let mut stmt = self.conn.prepare_cached(
                "SELECT rel, target FROM dangling WHERE src = CAST(?1 AS INTEGER) ORDER BY rel, target",
            )?;
            let rows = stmt.query_map([ix], |r| {
                Ok(Dangling {
                    from: ix,
                    relation: Relation::from_key(&r.get::<_, String>(0)?),
                    target: r.get(1)?,
                })
            })?;
            rows.collect()
        })();
        let mut found = result.unwrap_or_else(|e| {
            self.note(e);
            Vec::new()
        });
        found.dedup();
        found
    }

    fn all_ids(&self) -> Vec<String> {
        let result = (|| -> Result<Vec<String>, rusqlite::Error> {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT id FROM nodes ORDER BY id")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            rows.collect()
        })();
        result.unwrap_or_else(|e| {
            self.note(e);
            Vec::new()
        })
    }

    fn layer_guides(&self, layer: NodeIx) -> Option<Vec<guidance::LayerGuide>> {
        match guidance::read(&self.conn, layer) {
            Ok(guides) => Some(guides),
            Err(e) => {
                self.note(e);
                None
            }
        }
    }
}

impl Corpus for Index {
    fn store(&self, needed: &[NodeIx]) -> Box<dyn NodeStore + '_> {
        let mut sub = Subgraph::default();
        for &ix in needed {
            let node = match self.load_node(ix) {
                Ok(node) => {
                    // What traversal was told about the node must be what is stored.
                    let id_differs = self.ids.borrow().get(&ix).is_some_and(|id| *id != node.id);
                    let kind_differs = self
                        .kinds
                        .borrow()
                        .get(&ix)
                        .is_some_and(|kind| *kind != node.kind);
                    if id_differs || kind_differs {
                        self.note_damage(format!("node {ix}: its row and its edges disagree"));
                    }
                    node
                }
                Err(e) => {
                    // The caller finds the error and discards what was assembled; a stand-in
                    // keeps the assembly from failing on a missing node meanwhile.
                    self.record(e);
                    stand_in(ix)
                }
            };
            sub.nodes.insert(ix, node);
        }
        sub.newest_date = self
            .conn
            .query_row("SELECT max(date) FROM nodes", [], |r| {
                r.get::<_, Option<String>>(0)
            })
            .unwrap_or_else(|e| {
                self.note(e);
                None
            });
        Box::new(sub)
    }

    fn counts(&self) -> Option<&dyn CountStore> {
        Some(self)
    }
}

/// An empty node standing in for one that could not be read (never shown: the read error
/// fails the request).
fn stand_in(ix: NodeIx) -> Node {
    Node {
        id: format!("#{ix}"),
        kind: Kind::parse("note"),
        title: String::new(),
        status: None,
        origin: crate::model::Origin::Artifact,
        content: Content::Artifact(crate::model::ArtifactFields::default()),
        links: Vec::new(),
        date: None,
        location: Location::file(""),
    }
}

impl CountStore for Index {
    fn get(&self, key: &[u8]) -> Option<usize> {
        let (n, sum) = self
            .conn
            .prepare_cached("SELECT n, sum FROM counts WHERE key = ?1")
            .and_then(|mut s| {
                s.query_row([key], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
                    .optional()
            })
            .ok()
            .flatten()?;
        if count_sum(key, n) != sum || n < 0 {
            self.note_damage("a token count does not match its checksum".into());
            return None;
        }
        Some(n as usize)
    }

    fn put(&self, entries: &[(Vec<u8>, usize)]) {
        if entries.is_empty() {
            return;
        }
        // Best effort: a read-only or busy database only costs a recount next time.
        let own = self.conn.is_autocommit();
        let _ = (|| -> Result<(), rusqlite::Error> {
            if own {
                self.conn.execute_batch("BEGIN")?;
            }
            {
                let mut stmt = self.conn.prepare_cached(
                    "INSERT OR IGNORE INTO counts(key, n, sum) VALUES (?1, ?2, ?3)",
                )?;
                for (key, n) in entries {
                    let n = *n as i64;
                    stmt.execute(params![key, n, count_sum(key, n)])?;
                }
            }
            if own {
                self.conn.execute_batch("COMMIT")?;
            }
            Ok(())
        })()
        .map_err(|_| {
            if own {
                let _ = self.conn.execute_batch("ROLLBACK");
            }
        });
    }
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

fn create(conn: &Connection, project: &Project) -> rusqlite::Result<()> {
    conn.execute_batch(CREATE)?;
    conn.execute_batch(guidance::CREATE)?;
    conn.execute_batch(CREATE_SECONDARY)?;
    conn.execute(
        "INSERT INTO meta(key, value) VALUES ('schema', ?1), ('sources', ?2)",
        params![SCHEMA, sources_key(project)],
    )?;
    Ok(())
}

/// How long a refresh waits for another process's build before building in memory.
const BUILD_WAIT: std::time::Duration = std::time::Duration::from_secs(300);

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

/// Opens an SQLite file by its real path, refusing a symlink anywhere on it.
fn open_sqlite(path: &Path, create: bool) -> rusqlite::Result<Connection> {
    use rusqlite::OpenFlags;
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    Connection::open_with_flags(path, flags)
}

/// The build lock of the cache folder, once no other process holds it; the notice why the
/// run builds in memory otherwise.
fn build_lock(cache: &PrivateDir) -> Result<std::fs::File, String> {
    let shown = cache.shown().join(LOCK_FILE).display().to_string();
    let lock = cache.open_lock(LOCK_FILE).map_err(|e| {
        if e.is_read_only() {
            read_only_notice(&shown, &e.to_string())
        } else {
            format!("cannot use {shown} ({e}); the index is kept in memory for this run")
        }
    })?;
    let start = std::time::Instant::now();
    loop {
        match lock.try_lock() {
            Ok(()) => return Ok(lock),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < BUILD_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => {
                return Err(format!(
                    "{shown} could not be taken ({e}); the index is kept in memory for this run"
                ))
            }
        }
    }
}

/// What tells one index file from its replacement (device and inode: a build renames a new
/// file into place).
type FileIdentity = (u64, u64);

/// Whether SQLite found the file damaged or not a database at all, or what it returned did
/// not decode.
fn is_damage(e: &rusqlite::Error) -> bool {
    use rusqlite::Error as E;
    // A damaged schema or FTS configuration page surfaces as a plain error in a file that
    // says it has our schema.
    let schema_damage = |message: &str| {
        message.contains("malformed")
            || message.contains("vtable constructor failed")
            || message.starts_with("no such table")
            || message.starts_with("no such column")
    };
    match e {
        E::SqliteFailure(failure, message) => match failure.code {
            rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase => true,
            rusqlite::ErrorCode::Unknown => message.as_deref().is_some_and(schema_damage),
            _ => false,
        },
        E::SqlInputError { error, msg, .. } => {
            matches!(
                error.code,
                rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase
            ) || schema_damage(msg)
        }
        // Rows that must exist, and values of the wrong type, in a file of our own schema.
        E::QueryReturnedNoRows
        | E::InvalidColumnType(..)
        | E::FromSqlConversionFailure(..)
        | E::IntegralValueOutOfRange(..)
        | E::Utf8Error(..) => true,
        _ => false,
    }
}

/// Whether SQLite could not write (a read-only file, folder or file system).
fn is_read_only(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(
            rusqlite::ErrorCode::ReadOnly
                | rusqlite::ErrorCode::CannotOpen
                | rusqlite::ErrorCode::PermissionDenied
        )
    ) && !matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.extended_code == rusqlite::ffi::SQLITE_CANTOPEN_SYMLINK)
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

fn err(path: &str, e: rusqlite::Error) -> IndexError {
    IndexError {
        path: path.to_string(),
        damaged: is_damage(&e),
        message: e.to_string(),
    }
}

/// Identifies the set of sources an index was built for.
fn sources_key(project: &Project) -> String {
    project
        .sources
        .iter()
        .map(|s| match s {
            Source::SpecGraph { manifest } => {
                format!("specgraph:{}", rel_path(&project.root, manifest))
            }
            Source::Contextia { dir } => format!("contextia:{}", rel_path(&project.root, dir)),
            Source::Folder { dir } => format!("folder:{}", rel_path(&project.root, dir)),
            Source::Tana { export } => format!("tana:{}", rel_path(&project.root, export)),
            Source::Markdown { dir } => format!("markdown:{}", rel_path(&project.root, dir)),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The [`Stamp`] of a file or folder (following symlinks: what it names is what is read).
fn stat(path: &Path) -> Option<Stamp> {
    stamp(&std::fs::metadata(path).ok()?)
}

/// The stamp to record for a file and whether it is racy: the one taken as it was read, or
/// (not read: no change found) the stat that found it unchanged.
fn recorded(read: Option<(Stamp, i64)>, stat: Option<Stamp>) -> (Stamp, bool) {
    match (read, stat) {
        (Some((stamp, taken)), _) => (stamp, stamp.racy(taken)),
        (None, Some(stamp)) => (stamp, stamp.racy(now_ns())),
        // Unreadable: recorded with a problem, so read again on every refresh.
        (None, None) => (
            Stamp {
                size: -1,
                mtime: -1,
                ctime: -1,
                inode: -1,
                device: -1,
            },
            false,
        ),
    }
}

/// A [`Stamp`] from five columns starting at `at` (size, mtime, ctime, ino, dev).
fn stamp_row(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Stamp> {
    Ok(Stamp {
        size: r.get(at)?,
        mtime: r.get(at + 1)?,
        ctime: r.get(at + 2)?,
        inode: r.get(at + 3)?,
        device: r.get(at + 4)?,
    })
}

/// A [`Known`] from `size, mtime, ctime, ino, dev, racy, problem, parser` at `at`.
fn known_row_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Known> {
    Ok(Known {
        stamp: stamp_row(r, at)?,
        racy: r.get::<_, i64>(at + 5)? != 0,
        problem: r.get::<_, i64>(at + 6)? != 0,
        parser: r.get(at + 7)?,
    })
}

fn known_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Known> {
    known_row_at(r, 0)
}

/// Every source file of the project (the sources' catalogue), the manifests' own problems,
/// and the manifests and folders to watch for a quick check, each stamped before it was read.
fn list(project: &Project) -> (Vec<Listed>, Vec<Problem>, Vec<FolderStamp>) {
    let listing = catalogue::list(&project.guard, &project.root, &project.sources);
    let listed = listing
        .files
        .into_iter()
        .map(|f| Listed {
            path: f.path,
            rel: f.rel,
            parser: f.parser,
            known: None,
        })
        .collect();
    (listed, listing.problems, listing.watches)
}

/// A parser as stored with its file: `s`, manifest, id, expected type; or `a` and a
/// placement (`identity`, `loose`, or the kind of a folder).
fn encode_parser(parser: &Parser) -> String {
    match parser {
        Parser::Spec(entry) => format!(
            "s\t{}\t{}\t{}",
            entry.manifest,
            entry.id,
            entry.expected.as_deref().unwrap_or("")
        ),
        Parser::Artifact(Placement::Identity) => "a\tidentity".into(),
        Parser::Artifact(Placement::Loose) => "a\tloose".into(),
        Parser::Artifact(Placement::Folder(kind)) => format!("a\tfolder\t{kind}"),
        Parser::Tana => "t".into(),
        Parser::Markdown(fingerprint) => format!("m\t{fingerprint}"),
    }
}

fn decode_parser(text: &str) -> Option<Parser> {
    let parts: Vec<&str> = text.split('\t').collect();
    match parts.as_slice() {
        ["s", manifest, id, expected] => Some(Parser::Spec(Entry {
            id: id.to_string(),
            file: PathBuf::new(),
            expected: (!expected.is_empty()).then(|| expected.to_string()),
            manifest: manifest.to_string(),
        })),
        ["a", "identity"] => Some(Parser::Artifact(Placement::Identity)),
        ["a", "loose"] => Some(Parser::Artifact(Placement::Loose)),
        ["a", "folder", kind] => Some(Parser::Artifact(Placement::Folder(Kind::parse(kind)))),
        ["t"] => Some(Parser::Tana),
        ["m", fingerprint] => Some(Parser::Markdown(fingerprint.to_string())),
        _ => None,
    }
}

/// Exports are written by `write_tana`, inside the refresh's transaction.
use crate::sources::catalogue::parse;

fn insert_problem(tx: &Connection, file: &str, problem: &Problem) -> rusqlite::Result<()> {
    run(
        tx,
        "INSERT INTO problems(file, line, col, severity, message) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            file,
            problem.location.line,
            problem.location.col,
            (problem.severity == Severity::Error) as i64,
            problem.message
        ],
    )?;
    // A problem located in another file (a manifest entry) is also found by that file.
    if problem.location.path != file {
        run(
            tx,
            "UPDATE problems SET file = ?1 WHERE rowid = last_insert_rowid()",
            [&problem.location.path],
        )?;
    }
    Ok(())
}

/// Removes the nodes of a file in a few set-wide statements (an export has a million);
/// links from other files that pointed at them become dangling.
fn remove_file_nodes_bulk(tx: &Connection, file: &str) -> rusqlite::Result<()> {
    run(
        tx,
        "INSERT INTO dangling(src, rel, target)
         SELECT e.src, e.rel, n.id FROM edges e JOIN nodes n ON n.ix = e.dst
         WHERE n.file = ?1 AND e.src NOT IN (SELECT ix FROM nodes WHERE file = ?1)",
        [file],
    )?;
    for sql in [
        "DELETE FROM edges WHERE src IN (SELECT ix FROM nodes WHERE file = ?1)",
        "DELETE FROM edges WHERE dst IN (SELECT ix FROM nodes WHERE file = ?1)",
        "DELETE FROM dangling WHERE src IN (SELECT ix FROM nodes WHERE file = ?1)",
        "DELETE FROM search WHERE rowid IN (SELECT ix FROM nodes WHERE file = ?1)",
        "DELETE FROM node_data WHERE ix IN (SELECT ix FROM nodes WHERE file = ?1)",
        "DELETE FROM nodes WHERE file = ?1",
    ] {
        run(tx, sql, [file])?;
    }
    Ok(())
}

/// Nodes built and stored per round: big enough to keep all cores busy, small enough that a
/// million-node export never holds more than this many built nodes at once.
const TANA_CHUNK: usize = 32_768;

/// Replaces every node of a Tana export with what its text holds now; returns how many were
/// written. Runs inside the refresh's write transaction, so readers see the old export or
/// the new one, never a mix.
fn write_tana(tx: &Connection, rel: &str, text: &str) -> rusqlite::Result<usize> {
    use rayon::prelude::*;
    remove_file_nodes_bulk(tx, rel)?;
    run(tx, "DELETE FROM problems WHERE file = ?1", [rel])?;
    let export = match crate::sources::tana::parse(rel, text) {
        Ok(export) => export,
        Err(problem) => {
            insert_problem(tx, rel, &problem)?;
            return Ok(0);
        }
    };
    // Node i of the export (in id order) gets index base + i, so edges are written without
    // looking their targets up.
    let base: i64 = tx.query_row("SELECT coalesce(max(ix), 0) + 1 FROM nodes", [], |r| {
        r.get(0)
    })?;
    let mut written = 0;
    let mut skipped: Vec<i64> = Vec::new();
    let mut duplicates: Vec<Problem> = Vec::new();
    let problems = export.build::<rusqlite::Error>(TANA_CHUNK, &mut |first, nodes, lookup| {
        let prepared: Vec<Result<Prepared, Problem>> = nodes.into_par_iter().map(prepare).collect();
        let mut insert_node = tx.prepare_cached(
            "INSERT OR IGNORE INTO nodes(ix, id, kind, file, date, title, sum)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        let mut insert_data =
            tx.prepare_cached("INSERT INTO node_data(ix, data, sum) VALUES (?1, ?2, ?3)")?;
        let mut insert_search = tx.prepare_cached(
            "INSERT INTO search(rowid, id, title, body, fields) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        let mut insert_edge =
            tx.prepare_cached("INSERT OR IGNORE INTO edges(src, dst, rel) VALUES (?1, ?2, ?3)")?;
        for (k, prepared) in prepared.into_iter().enumerate() {
            let ix = base + (first + k) as i64;
            let prepared = match prepared {
                Ok(prepared) => prepared,
                Err(problem) => {
                    skipped.push(ix);
                    duplicates.push(problem);
                    continue;
                }
            };
            let node = &prepared;
            if insert_node.execute(params![
                ix,
                node.id,
                node.kind.name(),
                rel,
                node.date,
                node.title,
                node.sums.0
            ])? == 0
            {
                // Another source has this id: the first one indexed keeps it.
                skipped.push(ix);
                duplicates.push(Problem::error(
                    node.location.clone(),
                    format!(
                        "duplicate id `{}` (already defined by another source)",
                        node.id
                    ),
                ));
                continue;
            }
            insert_data.execute(params![ix, node.data, node.sums.1])?;
            insert_search.execute(params![ix, node.id, node.title, node.body, node.fields])?;
            for link in &node.links {
                if let Some(p) = lookup(&link.target) {
                    insert_edge.execute(params![ix, base + p as i64, link.relation.name()])?;
                }
            }
            written += 1;
        }
        Ok(())
    })?;
    for ix in skipped {
        run(tx, "DELETE FROM edges WHERE dst = ?1", [ix])?;
    }
    // Links from other sources to ids this export now defines.
    run(
        tx,
        "INSERT OR IGNORE INTO edges(src, dst, rel)
         SELECT d.src, n.ix, d.rel FROM dangling d JOIN nodes n ON n.id = d.target WHERE n.file = ?1",
        [rel],
    )?;
    run(
        tx,
        "DELETE FROM dangling WHERE target IN (SELECT id FROM nodes WHERE file = ?1)",
        [rel],
    )?;
    for problem in problems.iter().chain(&duplicates) {
        insert_problem(tx, rel, problem)?;
    }
    Ok(written)
}

/// Removes the nodes of a file; links that pointed at them become dangling.
fn remove_file_nodes(tx: &Connection, file: &str) -> rusqlite::Result<()> {
    let nodes: Vec<(i64, String)> = {
        let mut stmt = tx.prepare_cached("SELECT ix, id FROM nodes WHERE file = ?1")?;
        let rows = stmt.query_map([file], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    for (ix, id) in nodes {
        remove_node(tx, ix, &id)?;
    }
    Ok(())
}

fn remove_node(tx: &Connection, ix: i64, id: &str) -> rusqlite::Result<()> {
    run(tx,
        "INSERT INTO dangling(src, rel, target) SELECT src, rel, ?2 FROM edges WHERE dst = ?1 AND src <> ?1",
        params![ix, id],
    )?;
    run(tx, "DELETE FROM edges WHERE src = ?1 OR dst = ?1", [ix])?;
    run(tx, "DELETE FROM dangling WHERE src = ?1", [ix])?;
    run(tx, "DELETE FROM search WHERE rowid = ?1", [ix])?;
    run(tx, "DELETE FROM node_data WHERE ix = ?1", [ix])?;
    run(tx, "DELETE FROM nodes WHERE ix = ?1", [ix])?;
    Ok(())
}

/// Writes a node, keeping its index when the file still holds the same id (so links to it
/// stay valid). A duplicate id comes back as a problem.
fn upsert_node(
    tx: &Connection,
    file: &str,
    prepared: Prepared,
    fresh: bool,
) -> rusqlite::Result<Result<Written, Problem>> {
    let Prepared {
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
    } = prepared;
    let existing: Vec<(i64, String)> = if fresh {
        Vec::new()
    } else {
        let mut stmt = tx.prepare_cached("SELECT ix, id FROM nodes WHERE file = ?1")?;
        let rows = stmt.query_map([file], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let mut keep: Option<i64> = None;
    for (ix, old) in existing {
        if old == id {
            keep = Some(ix);
        } else {
            remove_node(tx, ix, &old)?;
        }
    }

    let ix = match keep {
        Some(ix) => {
            run(
                tx,
                "UPDATE nodes SET kind = ?2, date = ?3, title = ?4, sum = ?5 WHERE ix = ?1",
                params![ix, kind.name(), date, title, sums.0],
            )?;
            run(
                tx,
                "UPDATE node_data SET data = ?2, sum = ?3 WHERE ix = ?1",
                params![ix, data, sums.1],
            )?;
            run(tx, "DELETE FROM search WHERE rowid = ?1", [ix])?;
            ix
        }
        None => {
            // Into an empty index the unique constraint finds a duplicate without a lookup.
            let inserted = run(
                tx,
                "INSERT OR IGNORE INTO nodes(id, kind, file, date, title, sum)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![id, kind.name(), file, date, title, sums.0],
            )?;
            if inserted == 0 {
                let first: String = row(tx, "SELECT file FROM nodes WHERE id = ?1", [&id], |r| {
                    r.get(0)
                })?;
                return Ok(Err(Problem::error(
                    location,
                    format!("duplicate id `{id}` (first defined in {first})"),
                )));
            }
            let ix = tx.last_insert_rowid();
            run(
                tx,
                "INSERT INTO node_data(ix, data, sum) VALUES (?1, ?2, ?3)",
                params![ix, data, sums.1],
            )?;
            ix
        }
    };
    run(
        tx,
        "INSERT INTO search(rowid, id, title, body, fields) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![ix, id, title, body, fields],
    )?;
    Ok(Ok(Written {
        ix: ix as NodeIx,
        id,
        links,
    }))
}

/// The searchable body and fields of a node.
fn search_text(node: &Node) -> (String, String) {
    let mut body = String::new();
    let mut fields = vec![node.kind.name().to_string()];
    fields.extend(node.status.clone());
    match &node.content {
        Content::Spec(spec) => {
            for text in [
                &spec.expectation,
                &spec.statement,
                &spec.description,
                &spec.rationale,
            ]
            .into_iter()
            .flatten()
            {
                body.push_str(text);
                body.push('\n');
            }
            for text in &spec.constraints {
                body.push_str(text);
                body.push('\n');
            }
            for alt in &spec.rejected_alternatives {
                body.push_str(&format!("{}: {}\n", alt.title, alt.reason));
            }
            fields.extend(spec.category.clone());
            fields.extend(spec.severity.clone());
            for (key, value) in spec.metadata.iter().chain(&spec.extra) {
                fields.push(format!("{key} {value}"));
            }
        }
        Content::Tana(tana) => {
            if let Some(description) = &tana.description {
                body.push_str(description);
                body.push('\n');
            }
            fields.extend(tana.all_tags().map(str::to_string));
            for field in &tana.fields {
                fields.push(format!("{} {}", field.name, field.values.join(", ")));
            }
        }
        Content::Artifact(fields_of) => {
            body.push_str(&fields_of.body);
            fields.extend(fields_of.description.clone());
            fields.extend(fields_of.tags.iter().cloned());
            fields.extend(fields_of.paths.iter().cloned());
            for (key, value) in &fields_of.extra {
                fields.push(format!("{key} {value}"));
            }
        }
    }
    (body, fields.join("\n"))
}

/// The longest query brief searches, in bytes (a search, or a context target that is not an
/// id): a longer one is refused before anything runs.
pub const MAX_QUERY_BYTES: usize = 8192;

/// The most distinct words a query may hold (a word repeated counts once).
pub const MAX_QUERY_WORDS: usize = 256;

/// A query over the limits.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error("the query is {bytes} bytes long; brief searches at most {max} bytes (ask with fewer words)", max = MAX_QUERY_BYTES)]
    TooLong { bytes: usize },
    #[error("the query has {words} distinct words; brief searches at most {max} (ask with fewer words)", max = MAX_QUERY_WORDS)]
    TooManyWords { words: usize },
}

/// Refuses a query over [`MAX_QUERY_BYTES`] or [`MAX_QUERY_WORDS`].
pub fn check_query(query: &str) -> Result<(), QueryError> {
    if query.len() > MAX_QUERY_BYTES {
        return Err(QueryError::TooLong { bytes: query.len() });
    }
    let words = query_words(query).len();
    if words > MAX_QUERY_WORDS {
        return Err(QueryError::TooManyWords { words });
    }
    Ok(())
}

/// A query's distinct words, lower-cased, in the order they first appear.
fn query_words(query: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// An FTS5 query for free text: every distinct word quoted (no operators leak in), any may
/// match, words of three characters or more also as a prefix (`idempot` finds `idempotent`).
/// A word repeated is searched once (FTS5 is quadratic in repeated terms).
fn fts_query(query: &str) -> Option<String> {
    let words: Vec<String> = query_words(query)
        .into_iter()
        .map(|w| crate::search::fts_term(&w))
        .collect();
    (!words.is_empty()).then(|| words.join(" OR "))
}
