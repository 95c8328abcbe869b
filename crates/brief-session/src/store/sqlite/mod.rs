//! The SQLite backend: `.brief/sessions.db`. Unlike the index under `.brief/cache/`, this is
//! user data: brief never deletes, resets or rebuilds it. The schema version lives in
//! `PRAGMA user_version`; older stores are migrated forward in place, under the write lock,
//! and a store from a newer brief or another program is refused untouched (checked before
//! anything is written). Readers open it read-only.
//!
//! A store is proven before it is used: a file that is not SQLite's (down to one byte) is
//! refused rather than replaced, and a store of up to [`CHECK_UP_TO`] bytes passes
//! `PRAGMA quick_check` on every open, so a damaged one is refused with advice before
//! anything is read from it or written into it.

mod queries;

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use super::{Kind, Mode, SCHEMA_VERSION};
use crate::similar;
use crate::SessionError;
use brief_root::{EntryKind, OpenError, Root};

/// Where the store lives, relative to the project root.
pub(crate) const STORE_PATH: &str = ".brief/sessions.db";

/// How long a writer waits for another one before giving up (BAZINGA waits 30 s too).
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Stores up to this size (file and write-ahead log) are checked with `quick_check` on
/// every open: about 2 ms per MiB, so at most ~70 ms (BENCHMARKS.md). Larger ones are
/// checked by SQLite as pages are read.
pub(crate) const CHECK_UP_TO: u64 = 32 << 20;

/// What every SQLite file starts with.
const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Schema migrations; `MIGRATIONS[n]` takes `user_version` n to n + 1. Append only: a
/// released step is never edited, since stores in the field already ran it.
const MIGRATIONS: &[&str] = &[
    // 1: sessions, packages with their designated consumers and per-iteration consumption,
    // error patterns with full-text search over their signatures.
    "
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        created INTEGER NOT NULL
    );
    CREATE TABLE packages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        group_id TEXT,
        type TEXT NOT NULL CHECK (type IN ('research','failures','decisions','handoff','investigation')),
        file_path TEXT NOT NULL,
        producer TEXT NOT NULL,
        priority TEXT NOT NULL CHECK (priority IN ('low','medium','high','critical')),
        summary TEXT NOT NULL,
        created INTEGER NOT NULL,
        supersedes INTEGER REFERENCES packages(id) ON DELETE SET NULL
    );
    -- Covers the ranking query: a session's candidates come from the index alone.
    CREATE INDEX packages_session ON packages(session_id, group_id, priority, created);
    CREATE INDEX packages_supersedes ON packages(supersedes) WHERE supersedes IS NOT NULL;
    CREATE INDEX packages_created ON packages(created);
    CREATE TABLE consumers (
        package_id INTEGER NOT NULL REFERENCES packages(id) ON DELETE CASCADE,
        agent TEXT NOT NULL,
        PRIMARY KEY (package_id, agent)
    ) WITHOUT ROWID;
    CREATE TABLE consumptions (
        package_id INTEGER NOT NULL REFERENCES packages(id) ON DELETE CASCADE,
        agent TEXT NOT NULL,
        iteration INTEGER NOT NULL CHECK (iteration >= 0),
        consumed_at INTEGER NOT NULL,
        PRIMARY KEY (package_id, agent, iteration)
    ) WITHOUT ROWID;
    CREATE TABLE error_patterns (
        id INTEGER PRIMARY KEY,
        project TEXT NOT NULL,
        hash TEXT NOT NULL,
        signature TEXT NOT NULL,
        solution TEXT NOT NULL,
        confidence INTEGER NOT NULL DEFAULT 50 CHECK (confidence BETWEEN 0 AND 100),
        occurrences INTEGER NOT NULL DEFAULT 1 CHECK (occurrences >= 1),
        lang TEXT,
        created INTEGER NOT NULL,
        last_seen INTEGER NOT NULL,
        ttl_days INTEGER NOT NULL DEFAULT 90 CHECK (ttl_days > 0),
        UNIQUE (project, hash)
    );
    CREATE INDEX error_patterns_seen ON error_patterns(last_seen);
    CREATE VIRTUAL TABLE error_search USING fts5(
        signature, content='error_patterns', content_rowid='id', tokenize='unicode61'
    );
    CREATE TRIGGER error_patterns_ai AFTER INSERT ON error_patterns BEGIN
        INSERT INTO error_search(rowid, signature) VALUES (new.id, new.signature);
    END;
    CREATE TRIGGER error_patterns_ad AFTER DELETE ON error_patterns BEGIN
        INSERT INTO error_search(error_search, rowid, signature) VALUES ('delete', old.id, old.signature);
    END;
    CREATE TRIGGER error_patterns_au AFTER UPDATE OF signature ON error_patterns BEGIN
        INSERT INTO error_search(error_search, rowid, signature) VALUES ('delete', old.id, old.signature);
        INSERT INTO error_search(rowid, signature) VALUES (new.id, new.signature);
    END;
    ",
    // 2: similar patterns ranked from word postings both backends keep alike (the postings
    // of existing patterns are filled in by `backfill_terms`); the FTS5 index, derived
    // data, goes.
    "
    ALTER TABLE error_patterns ADD COLUMN words INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE error_terms (
        project TEXT NOT NULL,
        term TEXT NOT NULL,
        pattern_id INTEGER NOT NULL REFERENCES error_patterns(id) ON DELETE CASCADE,
        tf INTEGER NOT NULL,
        PRIMARY KEY (project, term, pattern_id)
    ) WITHOUT ROWID;
    CREATE INDEX error_terms_pattern ON error_terms(pattern_id);
    DROP TRIGGER error_patterns_ai;
    DROP TRIGGER error_patterns_ad;
    DROP TRIGGER error_patterns_au;
    DROP TABLE error_search;
    ",
];

const _: () = assert!(MIGRATIONS.len() as i64 == SCHEMA_VERSION);

/// An open SQLite store.
pub(crate) struct Sqlite {
    conn: Connection,
    /// The store's path as shown in messages.
    shown: String,
}

impl Sqlite {
    /// Opens the store of the project at `root` through a plain `.brief` folder beneath it.
    pub(crate) fn open(root: &Path, mode: Mode) -> Result<Sqlite, SessionError> {
        let path = root.join(STORE_PATH);
        let shown = path.display().to_string();
        let refuse = |message: String| SessionError::Store {
            path: shown.clone(),
            message,
        };
        let guard =
            Root::open(root).map_err(|e| refuse(format!("cannot open the project folder: {e}")))?;
        let brief = Path::new(STORE_PATH)
            .parent()
            .unwrap_or(Path::new(".brief"));
        let exists = std::fs::symlink_metadata(guard.real().join(brief)).is_ok();
        if mode != Mode::Create && !exists {
            return Err(SessionError::Missing(shown));
        }
        let dir = guard.private_dir(brief).map_err(|e| match e {
            OpenError::Symlink | OpenError::Outside => refuse(format!(
                "{} is a symbolic link; brief keeps the session store inside the project and \
                 never follows one (replace it with a folder)",
                root.join(brief).display()
            )),
            e => refuse(format!("cannot use {}: {e}", root.join(brief).display())),
        })?;
        let name = Path::new(STORE_PATH)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("sessions.db");
        match dir.entry(name) {
            None if mode != Mode::Create => return Err(SessionError::Missing(shown)),
            None | Some(EntryKind::File) => {}
            Some(EntryKind::Symlink) => {
                return Err(refuse(
                    "is a symbolic link; brief opens its session store only inside the project \
                     (replace it with the file)"
                        .into(),
                ))
            }
            Some(_) => return Err(refuse("is not a regular file".into())),
        }
        Sqlite::open_file(&dir.real_path(name), shown, mode)
    }

    /// Opens the store at `path`.
    pub(crate) fn open_path(path: &Path, mode: Mode) -> Result<Sqlite, SessionError> {
        let shown = path.display().to_string();
        if mode != Mode::Create && !path.is_file() {
            return Err(SessionError::Missing(shown));
        }
        if mode == Mode::Create {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| SessionError::Store {
                    path: shown.clone(),
                    message: format!("cannot create {}: {e}", dir.display()),
                })?;
            }
        }
        Sqlite::open_file(path, shown, mode)
    }

    /// Opens the file at `path` (a symlink is refused by SQLite itself).
    fn open_file(path: &Path, shown: String, mode: Mode) -> Result<Sqlite, SessionError> {
        refuse_non_sqlite(path, &shown)?;
        if mode == Mode::Read {
            return Sqlite::open_read_only(path, shown);
        }
        let flags = match mode {
            Mode::Create => OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
            _ => OpenFlags::SQLITE_OPEN_READ_WRITE,
        } | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let damaged = |e: rusqlite::Error| store_error(&shown, e);
        let conn = Connection::open_with_flags(path, flags).map_err(damaged)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(damaged)?;
        conn.set_prepared_statement_cache_capacity(32);
        let mut store = Sqlite { conn, shown };
        // SQLite skips the busy handler in a few lock states that concurrent first opens hit
        // (switching a fresh file to WAL, WAL recovery): retry those here, with backoff, for
        // as long as a writer would wait.
        let deadline = Instant::now() + BUSY_TIMEOUT;
        let mut pause = Duration::from_millis(2);
        loop {
            match store.setup(path) {
                Err(Setup::Busy(e)) => {
                    if Instant::now() >= deadline {
                        return Err(store_error(&store.shown, e));
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(100));
                }
                Err(Setup::Failed(e)) => return Err(e),
                Ok(()) => return Ok(store),
            }
        }
    }

    /// A reader's store: opened read-only, never switched to WAL or migrated. A store in
    /// WAL mode whose folder cannot be written (no `-shm` can be made) is read as an
    /// immutable file. A store of an older schema is migrated by opening it for writing.
    fn open_read_only(path: &Path, shown: String) -> Result<Sqlite, SessionError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let damaged = |e: rusqlite::Error| store_error(&shown, e);
        let open = |immutable: bool| -> rusqlite::Result<(Connection, i64)> {
            let conn = if immutable {
                Connection::open_with_flags(
                    immutable_uri(path),
                    flags | OpenFlags::SQLITE_OPEN_URI,
                )?
            } else {
                Connection::open_with_flags(path, flags)?
            };
            conn.busy_timeout(BUSY_TIMEOUT)?;
            let version = version(&conn)?;
            Ok((conn, version))
        };
        let (conn, version) = match open(false) {
            Ok(opened) => opened,
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(
                        rusqlite::ErrorCode::CannotOpen
                            | rusqlite::ErrorCode::ReadOnly
                            | rusqlite::ErrorCode::PermissionDenied
                    )
                ) =>
            {
                open(true).map_err(damaged)?
            }
            Err(e) => return Err(damaged(e)),
        };
        conn.set_prepared_statement_cache_capacity(32);
        let store = Sqlite { conn, shown };
        store.refuse_foreign().map_err(|e| match e {
            Setup::Busy(e) => store_error(&store.shown, e),
            Setup::Failed(e) => e,
        })?;
        if version == 0 {
            // An empty file: nothing stored yet.
            return Err(SessionError::Missing(store.shown));
        }
        if version < SCHEMA_VERSION {
            let shown = store.shown.clone();
            drop(store);
            return Sqlite::open_file(path, shown, Mode::Existing);
        }
        store.prove(path)?;
        Ok(store)
    }

    /// Refuses, before anything is written, a store from a newer brief and a file with
    /// tables but no schema version (another program's database). The version and the
    /// tables are read in one statement, so one snapshot: read apart, a store that another
    /// process creates in between (tables and version in one commit) looks foreign.
    fn refuse_foreign(&self) -> Result<(), Setup> {
        let shown = self.shown.clone();
        let (version, tables): (i64, i64) = self
            .conn
            .query_row(
                "SELECT user_version, (SELECT count(*) FROM sqlite_master \
                 WHERE name NOT LIKE 'sqlite_%') FROM pragma_user_version",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| setup_error(&shown, e))?;
        if version > SCHEMA_VERSION {
            return Err(Setup::Failed(SessionError::Newer {
                path: shown,
                version,
                supported: SCHEMA_VERSION,
            }));
        }
        if version == 0 && tables > 0 {
            return Err(Setup::Failed(foreign(shown)));
        }
        Ok(())
    }

    /// `PRAGMA quick_check` for a store small enough to check on every open.
    fn prove(&self, path: &Path) -> Result<(), SessionError> {
        let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        if size(path) + size(Path::new(&wal)) > CHECK_UP_TO {
            return Ok(());
        }
        let verdict: String = self
            .conn
            .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
            .map_err(|e| store_error(&self.shown, e))?;
        if verdict == "ok" {
            Ok(())
        } else {
            Err(SessionError::Store {
                path: self.shown.clone(),
                message: format!("{DAMAGED} (quick_check: {verdict})"),
            })
        }
    }

    fn setup(&mut self, path: &Path) -> Result<(), Setup> {
        let shown = self.shown.clone();
        let fail = |e: rusqlite::Error| setup_error(&shown, e);
        // A foreign or newer file is refused before the WAL switch: it is left untouched.
        self.refuse_foreign()?;
        self.prove(path).map_err(Setup::Failed)?;
        self.conn
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(fail)?;
        self.conn
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(fail)?;
        self.conn
            .pragma_update(None, "foreign_keys", "ON")
            .map_err(fail)?;
        self.conn
            .pragma_update(None, "cell_size_check", "ON")
            .map_err(fail)?;
        self.migrate(&fail)
    }

    /// Brings the schema to [`SCHEMA_VERSION`] in place.
    fn migrate(&mut self, damaged: &dyn Fn(rusqlite::Error) -> Setup) -> Result<(), Setup> {
        let shown = self.shown.clone();
        let current = version(&self.conn).map_err(damaged)?;
        if current == SCHEMA_VERSION {
            return Ok(());
        }
        if current > SCHEMA_VERSION {
            return Err(Setup::Failed(SessionError::Newer {
                path: shown,
                version: current,
                supported: SCHEMA_VERSION,
            }));
        }
        // Under the write lock, so concurrent first writers never both run a step.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(damaged)?;
        let mut at = version(&tx).map_err(damaged)?;
        if at == 0 {
            // A version-0 file with tables of its own is not ours: refuse rather than mix.
            let tables: i64 = tx
                .query_row(
                    "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'",
                    [],
                    |r| r.get(0),
                )
                .map_err(damaged)?;
            if tables > 0 {
                return Err(Setup::Failed(foreign(shown)));
            }
        }
        while at < SCHEMA_VERSION {
            tx.execute_batch(MIGRATIONS[at as usize]).map_err(damaged)?;
            if at == 1 {
                backfill_terms(&tx).map_err(damaged)?;
            }
            at += 1;
            tx.pragma_update(None, "user_version", at)
                .map_err(damaged)?;
        }
        tx.commit().map_err(damaged)?;
        Ok(())
    }

    pub(crate) fn kind(&self) -> Kind {
        Kind::Sqlite
    }

    pub(crate) fn shown(&self) -> &str {
        &self.shown
    }

    /// Maps a failure of a statement to what the user should do.
    fn fail(&self, e: rusqlite::Error) -> SessionError {
        store_error(&self.shown, e)
    }
}

/// Migration 2's data step: the word postings of the patterns stored before it.
fn backfill_terms(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let rows: Vec<(i64, String, String)> = tx
        .prepare("SELECT id, project, signature FROM error_patterns ORDER BY id")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let mut words = tx.prepare("UPDATE error_patterns SET words = ?2 WHERE id = ?1")?;
    let mut insert = tx.prepare(
        "INSERT INTO error_terms (project, term, pattern_id, tf) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (id, project, signature) in rows {
        let (terms, total) = similar::terms(&signature);
        words.execute(rusqlite::params![id, total])?;
        for (term, tf) in terms {
            insert.execute(rusqlite::params![project, term, id, tf])?;
        }
    }
    Ok(())
}

fn version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// Refuses a file that is not empty and does not start as every SQLite file does (SQLite
/// itself would take a file shorter than its header for an empty one and write over it).
fn refuse_non_sqlite(path: &Path, shown: &str) -> Result<(), SessionError> {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else {
        return Ok(()); // missing (created next) or unreadable (SQLite says why)
    };
    let mut head = Vec::with_capacity(MAGIC.len());
    if let Err(e) = file
        .by_ref()
        .take(MAGIC.len() as u64)
        .read_to_end(&mut head)
    {
        return Err(SessionError::Store {
            path: shown.to_string(),
            message: format!("cannot be read: {e}"),
        });
    }
    if head.is_empty() || head == MAGIC {
        return Ok(());
    }
    Err(SessionError::Store {
        path: shown.to_string(),
        message: format!(
            "{DAMAGED} (its {} first byte{} are not a SQLite header)",
            head.len(),
            if head.len() == 1 { "" } else { "s" }
        ),
    })
}

/// What a damaged store's message says to do.
const DAMAGED: &str =
    "is damaged or not a SQLite database; move it aside (brief never deletes it) and brief starts a new one";

fn foreign(path: String) -> SessionError {
    SessionError::Store {
        path,
        message: "is not a brief session store (it has tables but no schema version); move it aside or point --root elsewhere".into(),
    }
}

/// A failed statement as the user should read it: what happened and what to do.
pub(crate) fn store_error(shown: &str, e: rusqlite::Error) -> SessionError {
    use rusqlite::ErrorCode as C;
    let detail = e.to_string();
    let hint = match e.sqlite_error_code() {
        Some(C::NotADatabase | C::DatabaseCorrupt) => DAMAGED,
        Some(C::DatabaseBusy | C::DatabaseLocked) => {
            "is locked by another writer for too long; retry"
        }
        Some(C::ReadOnly | C::PermissionDenied | C::CannotOpen) => {
            "cannot be opened for writing; check its permissions and those of .brief/"
        }
        Some(C::DiskFull) => {
            "cannot be written: the disk is full; free some space and retry (the store is unchanged)"
        }
        Some(C::SystemIoFailure) => {
            "could not be read or written (an I/O error); check the disk and retry (the store is unchanged)"
        }
        _ => "could not be used; retry",
    };
    SessionError::Store {
        path: shown.to_string(),
        message: format!("{hint} ({detail})"),
    }
}

/// Why opening did not finish: a lock to wait for, or a real failure.
enum Setup {
    Busy(rusqlite::Error),
    Failed(SessionError),
}

/// A failure while opening: a lock to wait for, or a real one.
fn setup_error(shown: &str, e: rusqlite::Error) -> Setup {
    if is_busy(&e) {
        Setup::Busy(e)
    } else {
        Setup::Failed(store_error(shown, e))
    }
}

/// An SQLite URI that opens `path` as an immutable file (no locks, no `-shm`), for reading
/// a store whose folder cannot be written.
fn immutable_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for byte in path.to_string_lossy().bytes() {
        match byte {
            b'%' | b'?' | b'#' | 0x80.. => uri.push_str(&format!("%{byte:02X}")),
            _ => uri.push(byte as char),
        }
    }
    uri.push_str("?immutable=1");
    uri
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store_path(root: &Path) -> std::path::PathBuf {
        root.join(STORE_PATH)
    }

    #[test]
    fn creates_migrates_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            Sqlite::open(dir.path(), Mode::Existing),
            Err(SessionError::Missing(_))
        ));
        let store = Sqlite::open(dir.path(), Mode::Create).unwrap();
        assert_eq!(version(&store.conn).unwrap(), SCHEMA_VERSION);
        drop(store);
        let store = Sqlite::open(dir.path(), Mode::Existing).unwrap();
        let fk: i64 = store
            .conn
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap();
        let mode: String = store
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!((fk, mode.as_str()), (1, "wal"));
    }

    #[test]
    fn a_version_1_store_is_migrated_with_its_patterns_postings() {
        let dir = tempfile::tempdir().unwrap();
        let path = store_path(dir.path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(MIGRATIONS[0]).unwrap();
            conn.execute(
                "INSERT INTO error_patterns (project, hash, signature, solution, created, last_seen)
                 VALUES ('notes', 'abcd', 'database is locked database', 'WAL', 1, 1)",
                [],
            )
            .unwrap();
            conn.pragma_update(None, "user_version", 1).unwrap();
        }
        // A reader migrates too (by reopening for writing).
        let store = Sqlite::open(dir.path(), Mode::Read).unwrap();
        assert_eq!(version(&store.conn).unwrap(), SCHEMA_VERSION);
        let terms: Vec<(String, i64)> = store
            .conn
            .prepare("SELECT term, tf FROM error_terms ORDER BY term")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            terms,
            [("database".to_string(), 2), ("locked".to_string(), 1)]
        );
        let words: i64 = store
            .conn
            .query_row("SELECT words FROM error_patterns", [], |r| r.get(0))
            .unwrap();
        assert_eq!(words, 3);
    }

    #[test]
    fn refuses_newer_foreign_and_corrupt_files_without_touching_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = store_path(dir.path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        {
            let conn = Connection::open(&path).unwrap();
            conn.pragma_update(None, "user_version", 99).unwrap();
        }
        let err = Sqlite::open(dir.path(), Mode::Create).err().unwrap();
        assert!(
            matches!(err, SessionError::Newer { version: 99, .. }),
            "{err}"
        );

        std::fs::remove_file(&path).unwrap();
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch("CREATE TABLE notes (x)").unwrap();
        }
        let err = Sqlite::open(dir.path(), Mode::Create).err().unwrap();
        assert!(
            err.to_string().contains("not a brief session store"),
            "{err}"
        );

        std::fs::remove_file(&path).unwrap();
        let junk = b"this is not a database at all, just text that must survive".repeat(100);
        std::fs::write(&path, &junk).unwrap();
        let err = Sqlite::open(dir.path(), Mode::Existing).err().unwrap();
        assert!(err.to_string().contains("move it aside"), "{err}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            junk,
            "a damaged store is never rewritten"
        );
    }

    #[test]
    fn a_full_disk_is_not_called_damage() {
        let full = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
            None,
        );
        let message = store_error("s.db", full).to_string();
        assert!(message.contains("the disk is full"), "{message}");
        assert!(!message.contains("move it aside"), "{message}");
        let io = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_IOERR),
            None,
        );
        assert!(!store_error("s.db", io)
            .to_string()
            .contains("move it aside"));
    }
}
