//! The index file's schema: its tables and version, the checksums stored with rows, and the
//! rows that describe a file.

use super::*;

/// Bumped whenever the schema, what is stored or which files are read changes: older files
/// are rebuilt (a listing kept from an older reading would keep files no longer read).
pub(super) const SCHEMA: &str = "brief-index-30";

// A file's stamp is (size, mtime, ctime, ino, dev) — see `sources::Stamp`; `racy` marks a
// stamp taken too soon after the file changed to be trusted (hashed again next time).
pub(super) const CREATE: &str = "
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL,
                   ctime INTEGER NOT NULL, ino INTEGER NOT NULL, dev INTEGER NOT NULL,
                   racy INTEGER NOT NULL, hash BLOB NOT NULL, problem INTEGER NOT NULL,
                   parser TEXT NOT NULL) WITHOUT ROWID;
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

-- What sets a few nodes apart, kept beside them so a context reads these short lists
-- instead of every node: how a node applies without a link (agent files, rules with globs,
-- steering; JSON) and a lifecycle other than current (`proposed`, `superseded`, …).
CREATE TABLE marks(ix INTEGER PRIMARY KEY, applies TEXT, lifecycle TEXT, sum INTEGER NOT NULL);
CREATE INDEX marks_applies ON marks(applies) WHERE applies IS NOT NULL;

-- Keyed by (src, rel, dst) and indexed by (dst, rel): the edges of one relation at a node
-- are one range, so a layer's one `depends_on` is read without its thousands of members.
CREATE TABLE edges(src INTEGER NOT NULL, dst INTEGER NOT NULL, rel TEXT NOT NULL,
                   PRIMARY KEY(src, rel, dst)) WITHOUT ROWID;
CREATE TABLE dangling(src INTEGER NOT NULL, rel TEXT NOT NULL, target TEXT NOT NULL,
                      sum INTEGER NOT NULL);
-- `file` is the file whose reading found the problem (reading it again replaces them);
-- `path` is where the problem is (a missing node file's is its manifest entry).
CREATE TABLE problems(file TEXT NOT NULL, path TEXT NOT NULL, line INTEGER NOT NULL,
                      col INTEGER NOT NULL, severity INTEGER NOT NULL, kind TEXT NOT NULL,
                      message TEXT NOT NULL, sum INTEGER NOT NULL);
CREATE VIRTUAL TABLE search USING fts5(id, title, body, fields, content='',
                                       contentless_delete=1,
                                       tokenize='porter unicode61 remove_diacritics 2');
CREATE TABLE counts(key BLOB PRIMARY KEY, n INTEGER NOT NULL, sum INTEGER NOT NULL) WITHOUT ROWID;
-- The holders of a word many nodes hold as of a write version, and the nodes written since
-- the oldest of them, with the version that wrote them (`holders.rs`).
CREATE TABLE holders(token TEXT PRIMARY KEY, version INTEGER NOT NULL, list BLOB NOT NULL,
                     sum INTEGER NOT NULL);
CREATE TABLE touched(ix INTEGER PRIMARY KEY, version INTEGER NOT NULL, sum INTEGER NOT NULL);
";

/// Page size of a new index file.
pub(super) const PAGE_SIZE: i64 = 16384;

/// Indexes that only speed up lookups; a build into an empty index drops and re-creates them.
pub(super) const CREATE_SECONDARY: &str = "
CREATE INDEX IF NOT EXISTS nodes_file ON nodes(file);
CREATE INDEX IF NOT EXISTS nodes_id_nocase ON nodes(id COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS nodes_kind ON nodes(kind);
CREATE INDEX IF NOT EXISTS nodes_date ON nodes(date);
CREATE INDEX IF NOT EXISTS edges_dst ON edges(dst, rel);
CREATE INDEX IF NOT EXISTS dangling_src ON dangling(src);
CREATE INDEX IF NOT EXISTS dangling_target ON dangling(target);
CREATE INDEX IF NOT EXISTS problems_file ON problems(file);
";

pub(super) const DROP_SECONDARY: &str = "
DROP INDEX IF EXISTS nodes_file; DROP INDEX IF EXISTS nodes_id_nocase; DROP INDEX IF EXISTS nodes_kind; DROP INDEX IF EXISTS nodes_date;
DROP INDEX IF EXISTS edges_dst; DROP INDEX IF EXISTS dangling_src;
DROP INDEX IF EXISTS dangling_target; DROP INDEX IF EXISTS problems_file;
";

/// The CRC-32 of length-prefixed parts. A checksum finds damage (every single-bit error and
/// every burst up to 32 bits, other damage but once in 2^32), not tampering: who can write the
/// file can write any checksum. CRC-32 runs at memory speed, and every node a context shows
/// is checked as it is read.
pub(super) fn sum_of(parts: &[&[u8]]) -> i64 {
    let mut hasher = crc32fast::Hasher::new();
    for part in parts {
        hasher.update(&(part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    i64::from(hasher.finalize())
}

/// The checksum of a node's row (what search and the catalog show without its data).
pub(super) fn row_sum(id: &str, kind: &str, date: Option<&str>, title: &str) -> i64 {
    let date: &[u8] = date.map(str::as_bytes).unwrap_or(b"\xff");
    sum_of(&[id.as_bytes(), kind.as_bytes(), date, title.as_bytes()])
}

/// The checksum of a node's data.
pub(super) fn data_sum(data: &str) -> i64 {
    sum_of(&[data.as_bytes()])
}

/// The checksum of a node's marks (its index included: a row moved to another node fails).
pub(super) fn marks_sum(ix: i64, applies: Option<&str>, lifecycle: Option<&str>) -> i64 {
    let none: &[u8] = b"\xff";
    sum_of(&[
        &ix.to_le_bytes(),
        applies.map(str::as_bytes).unwrap_or(none),
        lifecycle.map(str::as_bytes).unwrap_or(none),
    ])
}

/// The checksum of a link to a missing node.
pub(super) fn dangling_sum(src: i64, rel: &str, target: &str) -> i64 {
    sum_of(&[&src.to_le_bytes(), rel.as_bytes(), target.as_bytes()])
}

/// The checksum of a recorded load problem.
pub(super) fn problem_sum(
    file: &str,
    path: &str,
    line: i64,
    col: i64,
    severity: i64,
    kind: &str,
    message: &str,
) -> i64 {
    sum_of(&[
        file.as_bytes(),
        path.as_bytes(),
        &line.to_le_bytes(),
        &col.to_le_bytes(),
        &severity.to_le_bytes(),
        kind.as_bytes(),
        message.as_bytes(),
    ])
}

/// The checksum stored with a token count.
pub(super) fn count_sum(key: &[u8], n: i64) -> i64 {
    sum_of(&[key, &n.to_le_bytes()])
}

pub(super) fn create(conn: &Connection, project: &Project) -> rusqlite::Result<()> {
    conn.execute_batch(CREATE)?;
    conn.execute_batch(guides::CREATE)?;
    conn.execute_batch(vectors::CREATE)?;
    conn.execute_batch(CREATE_SECONDARY)?;
    conn.execute(
        "INSERT INTO meta(key, value) VALUES ('schema', ?1), ('sources', ?2)",
        params![SCHEMA, sources_key(project)],
    )?;
    Ok(())
}

/// Identifies the set of sources an index was built for.
pub(super) fn sources_key(project: &Project) -> String {
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
            Source::SpecKit { dir } => format!("speckit:{}", rel_path(&project.root, dir)),
            Source::Kiro { dir } => format!("kiro:{}", rel_path(&project.root, dir)),
            Source::Pages { format, dir } => {
                format!("{}:{}", format.name(), rel_path(&project.root, dir))
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the index knows of a file.
#[derive(Clone, Debug)]
pub(super) struct Known {
    pub(super) stamp: Stamp,
    /// Stamped too soon after a change to be trusted: hashed again.
    pub(super) racy: bool,
    /// It had a load problem: read again on every refresh.
    pub(super) problem: bool,
    /// How it was parsed (a manifest entry's id and expected type, a placement): a change
    /// there parses it again even when its content is the same.
    pub(super) parser: String,
}

impl Known {
    /// Whether the file can be trusted unchanged when it now stats as `now`.
    pub(super) fn unchanged(&self, now: Option<&Stamp>) -> bool {
        !self.problem && !self.racy && now == Some(&self.stamp)
    }
}

/// A [`Stamp`] from five columns starting at `at` (size, mtime, ctime, ino, dev).
pub(super) fn stamp_row(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Stamp> {
    Ok(Stamp {
        size: r.get(at)?,
        mtime: r.get(at + 1)?,
        ctime: r.get(at + 2)?,
        inode: r.get(at + 3)?,
        device: r.get(at + 4)?,
    })
}

/// A [`Known`] from `size, mtime, ctime, ino, dev, racy, problem, parser` at `at`.
pub(super) fn known_row_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Known> {
    Ok(Known {
        stamp: stamp_row(r, at)?,
        racy: r.get::<_, i64>(at + 5)? != 0,
        problem: r.get::<_, i64>(at + 6)? != 0,
        parser: r.get(at + 7)?,
    })
}

pub(super) fn known_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Known> {
    known_row_at(r, 0)
}

#[cfg(test)]
mod tests {
    use super::super::kit;
    use super::*;

    #[test]
    fn create_writes_every_table_and_the_version() {
        let dir = kit::payments();
        let project = Project::at(dir.path()).unwrap();
        let conn = Connection::open_in_memory().unwrap();
        create(&conn, &project).unwrap();
        let meta = |key: &str| -> String {
            conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(meta("schema"), SCHEMA);
        assert_eq!(meta("sources"), sources_key(&project));
        for table in [
            "files",
            "nodes",
            "node_data",
            "marks",
            "edges",
            "dangling",
            "problems",
            "counts",
            "holders",
            "touched",
            "watches",
            "search",
            "guides",
        ] {
            let n: i64 = conn
                .query_row(
                    "SELECT count(*) FROM sqlite_master WHERE name = ?1",
                    [table],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(n, 1, "table {table}");
        }
    }

    #[test]
    fn a_file_of_another_version_is_rebuilt_not_used() {
        let dir = kit::payments();
        let (project, index) = kit::built(dir.path());
        assert!(!index.is_unbuilt());
        index
            .conn
            .execute(
                "UPDATE meta SET value = 'brief-index-7' WHERE key = 'schema'",
                [],
            )
            .unwrap();
        drop(index);
        let index = Index::open(&project).unwrap();
        assert!(index.is_unbuilt(), "an outdated file waits for its rebuild");
    }

    #[test]
    fn checksums_cover_every_part() {
        let sum = row_sum("A", "spec", Some("2026-01-01"), "T");
        assert_ne!(sum, row_sum("A", "spec", None, "T"));
        assert_ne!(sum, row_sum("A", "norm", Some("2026-01-01"), "T"));
        // Parts are length-prefixed: moving a boundary changes the sum.
        assert_ne!(sum_of(&[b"ab", b"c"]), sum_of(&[b"a", b"bc"]));
        assert_ne!(count_sum(b"k", 1), count_sum(b"k", 2));
        assert_eq!(data_sum("{}"), data_sum("{}"));
    }
}
