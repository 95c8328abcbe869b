//! The error classes of SQLite failures, on real files.

use super::*;

/// A database of `rows` rows of 200 bytes in `dir`, closed (no journal beside it).
fn database(dir: &Path, rows: usize) -> PathBuf {
    let path = dir.join("index.db");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch("CREATE TABLE t(v TEXT NOT NULL); BEGIN")
        .unwrap();
    for n in 0..rows {
        conn.execute("INSERT INTO t(v) VALUES (?1)", [format!("{n:0200}")])
            .unwrap();
    }
    conn.execute_batch("COMMIT").unwrap();
    drop(conn);
    path
}

fn scan(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("SELECT sum(length(v)) FROM t", [], |r| r.get(0))
}

#[test]
fn a_zeroed_page_is_damage() {
    let dir = tempfile::tempdir().unwrap();
    let path = database(dir.path(), 500);
    let mut bytes = std::fs::read(&path).unwrap();
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    assert!(bytes.len() / page > 4, "the table spans pages");
    // The table's root page is page 2: zero it and the scan cannot read the tree.
    bytes[page..2 * page].fill(0);
    std::fs::write(&path, &bytes).unwrap();
    let conn = Connection::open(&path).unwrap();
    let e = scan(&conn).unwrap_err();
    assert_eq!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt),
        "{e}"
    );
    assert_eq!(fault(&e), Fault::Damaged);
    assert!(is_damage(&e));
}

#[test]
fn a_file_that_is_not_a_database_is_damage() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    std::fs::write(
        &path,
        "# notes\n\nnot a database, but long enough to have a header\n".repeat(20),
    )
    .unwrap();
    let conn = Connection::open(&path).unwrap();
    let e = scan(&conn).unwrap_err();
    assert_eq!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase),
        "{e}"
    );
    assert_eq!(fault(&e), Fault::Damaged);
}

#[test]
fn a_table_missing_from_our_schema_is_damage() {
    let dir = tempfile::tempdir().unwrap();
    let path = database(dir.path(), 1);
    let conn = Connection::open(&path).unwrap();
    let e = conn
        .query_row("SELECT ix FROM nodes WHERE id = 'A'", [], |r| {
            r.get::<_, i64>(0)
        })
        .unwrap_err();
    assert_eq!(fault(&e), Fault::Damaged, "{e}");
    // A row of our schema that must exist and does not is damage too.
    let e = conn
        .query_row("SELECT v FROM t WHERE v = 'none'", [], |r| {
            r.get::<_, String>(0)
        })
        .unwrap_err();
    assert_eq!(fault(&e), Fault::Damaged, "{e}");
}

#[test]
fn a_write_through_a_read_only_connection_is_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = database(dir.path(), 1);
    let conn =
        Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    assert!(scan(&conn).is_ok(), "reading works");
    let e = conn
        .execute("INSERT INTO t(v) VALUES ('x')", [])
        .unwrap_err();
    assert_eq!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::ReadOnly),
        "{e}"
    );
    assert_eq!(fault(&e), Fault::ReadOnly);
    assert!(is_read_only(&e));
    assert!(!is_damage(&e));
}

#[test]
fn a_file_that_cannot_be_created_is_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let e = open_sqlite(&dir.path().join("missing/index.db"), Create::Yes).unwrap_err();
    assert_eq!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::CannotOpen),
        "{e}"
    );
    assert_eq!(fault(&e), Fault::ReadOnly);
}

#[cfg(unix)]
#[test]
fn a_symlink_refused_is_neither_damage_nor_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = database(dir.path(), 1);
    let link = dir.path().join("link.db");
    std::os::unix::fs::symlink(&path, &link).unwrap();
    let e = open_sqlite(&link, Create::No).unwrap_err();
    assert_eq!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::CannotOpen),
        "{e}"
    );
    assert_eq!(fault(&e), Fault::Other);
    assert!(!is_read_only(&e) && !is_damage(&e));
}

#[test]
fn a_database_another_connection_holds_is_busy() {
    let dir = tempfile::tempdir().unwrap();
    let path = database(dir.path(), 1);
    let holder = Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let waiter = Connection::open(&path).unwrap();
    waiter.busy_timeout(std::time::Duration::ZERO).unwrap();
    let e = scan(&waiter).unwrap_err();
    assert_eq!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy),
        "{e}"
    );
    assert_eq!(fault(&e), Fault::Busy);
    assert!(!is_damage(&e), "a busy file is never deleted");
    holder.execute_batch("COMMIT").unwrap();
    assert!(scan(&waiter).is_ok());
}

#[test]
fn a_view_error_keeps_its_class_as_an_index_error() {
    let damaged = IndexError::from(StoreError {
        store: "index .brief/cache/index.db".into(),
        message: "node 3: checksum mismatch".into(),
        fault: Fault::Damaged,
    });
    assert!(damaged.is_corruption());
    assert_eq!(
        damaged.to_string(),
        "index .brief/cache/index.db: node 3: checksum mismatch"
    );
    let busy = IndexError::from(StoreError {
        store: "index .brief/cache/index.db".into(),
        message: "database is locked".into(),
        fault: Fault::Busy,
    });
    assert!(!busy.is_corruption());
}

/// The size of the index's write-ahead log (0 when it is empty or absent).
fn log_size(root: &std::path::Path) -> u64 {
    std::fs::metadata(root.join(".brief/cache/index.db-wal")).map_or(0, |m| m.len())
}

#[test]
fn a_refresh_leaves_an_empty_log_unless_a_reader_holds_an_older_state() {
    let dir = kit::payments();
    let (project, mut index) = kit::built(dir.path());
    kit::settle();
    let edit = |n: usize| {
        kit::write(
            dir.path(),
            "specs/SPEC-PAY-002.md",
            &kit::spec(
                "SPEC-PAY-002",
                "Refunds",
                &["NORM-SEC-001"],
                &"Refunds. ".repeat(n),
            ),
        );
        kit::settle();
    };
    edit(2);
    let done = index.refresh(&project, Verify::Full, &mut |_| {}).unwrap();
    assert_eq!(done.parsed, 1);
    // Every process that opens the index reads its whole log first: none is left.
    assert_eq!(log_size(dir.path()), 0);

    // A reader in the middle of a snapshot: the refresh neither waits for it nor fails, and
    // the log stays for it.
    let reader = Connection::open(dir.path().join(".brief/cache/index.db")).unwrap();
    reader.execute_batch("BEGIN").unwrap();
    let _: i64 = reader
        .query_row("SELECT count(*) FROM nodes", [], |r| r.get(0))
        .unwrap();
    edit(3);
    let done = index.refresh(&project, Verify::Full, &mut |_| {}).unwrap();
    assert_eq!(done.parsed, 1);
    assert!(log_size(dir.path()) > 0);
    reader.execute_batch("COMMIT").unwrap();
    drop(reader);
    // The next write empties it.
    edit(4);
    index.refresh(&project, Verify::Full, &mut |_| {}).unwrap();
    assert_eq!(log_size(dir.path()), 0);
}

/// Counts kept by a read (token counts, word counts) are a write too: each leaves the log
/// empty, or every later process would read a log that grows with each new context.
#[test]
fn kept_counts_leave_an_empty_log() {
    use brief_count::CountStore;
    let dir = kit::payments();
    let (_project, index) = kit::built(dir.path());
    assert_eq!(log_size(dir.path()), 0);
    for round in 0..3u32 {
        let entries: Vec<(Vec<u8>, usize)> = (0..200u32)
            .map(|k| (format!("text {round} {k}").into_bytes(), k as usize))
            .collect();
        index.put(&entries);
        assert_eq!(log_size(dir.path()), 0, "after round {round}");
        // Kept inside a read, they are written when it ends.
        index.reading(|| index.put(&entries[..10])).unwrap();
        assert_eq!(log_size(dir.path()), 0, "after the read of round {round}");
    }
    assert_eq!(index.get(b"text 2 7"), Some(7));
}
