//! The SQLite store behind sessions: `.brief/sessions.db`. Unlike the index under
//! `.brief/cache/`, this is user data: brief never deletes, resets or rebuilds it. The schema
//! version lives in `PRAGMA user_version`; older stores are migrated forward in place, under
//! the write lock, and a store from a newer brief or another program is refused untouched
//! (checked before anything is written). Readers open it read-only.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use super::SessionError;
use brief_root::{EntryKind, OpenError, Root};

/// Where the store lives, relative to the project root.
pub const STORE_PATH: &str = ".brief/sessions.db";

/// How long a writer waits for another one before giving up (BAZINGA waits 30 s too).
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

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
];

/// The schema version this brief writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// An open session store.
pub struct Store {
    pub(crate) conn: Connection,
    /// The store's path as shown in messages.
    pub(crate) shown: String,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Store({})", self.shown)
    }
}

/// Whether opening may create or write the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Writers: create `.brief/sessions.db` when missing.
    Create,
    /// Writers of an existing store: a missing store is [`SessionError::Missing`], never
    /// created.
    Existing,
    /// Readers (`package list`, `error match`, a zone document): opened read-only, so a
    /// read-only checkout or store works; a missing store is [`SessionError::Missing`].
    Read,
}

impl Store {
    /// Opens the store of the project at `root`. The store is reached only through a plain
    /// `.brief` folder beneath the root: a `.brief` or `sessions.db` that is a symlink is
    /// refused, never followed (the store must not be read or written outside the project).
    pub fn open(root: &Path, mode: Mode) -> Result<Store, SessionError> {
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
                "{} is a symbolic link; brief keeps the session store inside the project and                  never follows one (replace it with a folder)",
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
                    "is a symbolic link; brief opens its session store only inside the project                      (replace it with the file)"
                        .into(),
                ))
            }
            Some(_) => return Err(refuse("is not a regular file".into())),
        }
        Store::open_file(&dir.real_path(name), shown, mode)
    }

    /// Opens the store at `path` (for tests and benchmarks).
    pub fn open_path(path: &Path, mode: Mode) -> Result<Store, SessionError> {
        let shown = path.display().to_string();
        if mode != Mode::Create && !path.is_file() {
            return Err(SessionError::Missing(shown));
        }
        if mode == Mode::Create {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| SessionError::Store {
                    path: shown.clone(),
                    message: format!("cannot create {}: {e}", dir.display()),
                })?;
            }
        }
        Store::open_file(path, shown, mode)
    }

    /// Opens the file at `path` (a symlink is refused by SQLite itself).
    fn open_file(path: &Path, shown: String, mode: Mode) -> Result<Store, SessionError> {
        if mode == Mode::Read {
            return Store::open_read_only(path, shown);
        }
        let flags = match mode {
            Mode::Create => OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
            _ => OpenFlags::SQLITE_OPEN_READ_WRITE,
        } | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let damaged = |e: rusqlite::Error| SessionError::damaged(&shown, e);
        let conn = Connection::open_with_flags(path, flags).map_err(damaged)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(damaged)?;
        conn.set_prepared_statement_cache_capacity(32);
        let mut store = Store { conn, shown };
        // SQLite skips the busy handler in a few lock states that concurrent first opens hit
        // (switching a fresh file to WAL, WAL recovery): retry those here, with backoff, for
        // as long as a writer would wait.
        let deadline = Instant::now() + BUSY_TIMEOUT;
        let mut pause = Duration::from_millis(2);
        loop {
            match store.setup() {
                Err(Setup::Busy(e)) => {
                    if Instant::now() >= deadline {
                        return Err(SessionError::damaged(&store.shown, e));
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
    fn open_read_only(path: &Path, shown: String) -> Result<Store, SessionError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let damaged = |e: rusqlite::Error| SessionError::damaged(&shown, e);
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
            let version = Store::version(&conn)?;
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
        let store = Store { conn, shown };
        store.refuse_foreign().map_err(|e| match e {
            Setup::Busy(e) => SessionError::damaged(&store.shown, e),
            Setup::Failed(e) => e,
        })?;
        if version == 0 {
            // An empty file: nothing stored yet.
            return Err(SessionError::Missing(store.shown));
        }
        if version < SCHEMA_VERSION {
            let shown = store.shown.clone();
            drop(store);
            return Store::open_file(path, shown, Mode::Existing);
        }
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
            return Err(Setup::Failed(SessionError::Store {
                path: shown,
                message: "is not a brief session store (it has tables but no schema version); move it aside or point --root elsewhere".into(),
            }));
        }
        Ok(())
    }

    fn setup(&mut self) -> Result<(), Setup> {
        let shown = self.shown.clone();
        let fail = |e: rusqlite::Error| setup_error(&shown, e);
        // A foreign or newer file is refused before the WAL switch: it is left untouched.
        self.refuse_foreign()?;
        self.conn
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(fail)?;
        self.conn
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(fail)?;
        self.conn
            .pragma_update(None, "foreign_keys", "ON")
            .map_err(fail)?;
        self.migrate(&fail)
    }

    fn version(conn: &Connection) -> rusqlite::Result<i64> {
        conn.query_row("PRAGMA user_version", [], |r| r.get(0))
    }

    /// Brings the schema to [`SCHEMA_VERSION`] in place.
    fn migrate(&mut self, damaged: &dyn Fn(rusqlite::Error) -> Setup) -> Result<(), Setup> {
        let shown = self.shown.clone();
        let version = Store::version(&self.conn).map_err(damaged)?;
        if version == SCHEMA_VERSION {
            return Ok(());
        }
        if version > SCHEMA_VERSION {
            return Err(Setup::Failed(SessionError::Newer {
                path: shown,
                version,
                supported: SCHEMA_VERSION,
            }));
        }
        // Under the write lock, so concurrent first writers never both run a step.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(damaged)?;
        let mut version = Store::version(&tx).map_err(damaged)?;
        if version == 0 {
            // A version-0 file with tables of its own is not ours: refuse rather than mix.
            let tables: i64 = tx
                .query_row(
                    "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'",
                    [],
                    |r| r.get(0),
                )
                .map_err(damaged)?;
            if tables > 0 {
                return Err(Setup::Failed(SessionError::Store {
                    path: shown,
                    message: "is not a brief session store (it has tables but no schema version); move it aside or point --root elsewhere".into(),
                }));
            }
        }
        while version < SCHEMA_VERSION {
            tx.execute_batch(MIGRATIONS[version as usize])
                .map_err(damaged)?;
            version += 1;
            tx.pragma_update(None, "user_version", version)
                .map_err(damaged)?;
        }
        tx.commit().map_err(damaged)?;
        Ok(())
    }

    /// The store's path as shown in messages.
    pub fn location(&self) -> &str {
        &self.shown
    }

    /// The schema version of an open store (always [`SCHEMA_VERSION`]).
    pub fn schema_version(&self) -> Result<i64, SessionError> {
        Ok(Store::version(&self.conn)?)
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
        Setup::Failed(SessionError::damaged(shown, e))
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

/// `path` relative to nothing: for tests that build stores in temporary folders.
pub fn store_path(root: &Path) -> PathBuf {
    root.join(STORE_PATH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_migrates_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            Store::open(dir.path(), Mode::Existing),
            Err(SessionError::Missing(_))
        ));
        let store = Store::open(dir.path(), Mode::Create).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        drop(store);
        let store = Store::open(dir.path(), Mode::Existing).unwrap();
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
    fn refuses_newer_foreign_and_corrupt_files_without_touching_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = store_path(dir.path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        {
            let conn = Connection::open(&path).unwrap();
            conn.pragma_update(None, "user_version", 99).unwrap();
        }
        let err = Store::open(dir.path(), Mode::Create).unwrap_err();
        assert!(
            matches!(err, SessionError::Newer { version: 99, .. }),
            "{err}"
        );

        std::fs::remove_file(&path).unwrap();
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch("CREATE TABLE notes (x)").unwrap();
        }
        let err = Store::open(dir.path(), Mode::Create).unwrap_err();
        assert!(
            err.to_string().contains("not a brief session store"),
            "{err}"
        );

        std::fs::remove_file(&path).unwrap();
        let junk = b"this is not a database at all, just text that must survive".repeat(100);
        std::fs::write(&path, &junk).unwrap();
        let err = Store::open(dir.path(), Mode::Existing).unwrap_err();
        assert!(err.to_string().contains("move it aside"), "{err}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            junk,
            "a damaged store is never rewritten"
        );
    }
}
