//! The seal: how brief last left its index file. Every write of brief's own ends by sealing
//! (under the refresh lock); a file that is not as sealed — changed by another program, by a
//! failing disk, or left by a process or a machine that stopped in the middle of a write —
//! is verified whole ([`verify`]) before anything is read from it, and rebuilt when that
//! finds damage.
//!
//! What is sealed is what changes whenever a file's bytes do: size, modification and change
//! times in nanoseconds, inode and device of `index.db` and of its write-ahead log (but the
//! log's change time), and the machine's boot (a machine that crashed could have lost writes the times still claim).
//! A reader writes only the counts it caches, and seals after them; no connection checkpoints
//! as it closes, so only a write moves the seal.

use std::sync::OnceLock;

use brief_root::{FileStat, PrivateDir};
use rusqlite::Connection;

use super::schema::{count_sum, dangling_sum, data_sum, marks_sum, problem_sum, row_sum};
use super::{guides, INDEX_FILE};

/// The seal's file in `.brief/cache`.
pub(crate) const SEAL_FILE: &str = "index.seal";

/// The write-ahead log beside the index file.
const WAL_FILE: &str = "index.db-wal";

/// The first line of a seal (a seal of another form is no seal).
const HEADER: &str = "brief index seal 1";

/// How many bytes of a seal file are read (one is a few hundred).
const SEAL_LIMIT: u64 = 4096;

/// The index file and its log as a seal records them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seal {
    boot: Option<String>,
    index: Option<Mark>,
    wal: Option<Mark>,
}

/// What changes whenever a file's bytes do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mark {
    size: u64,
    modified: i64,
    changed: i64,
    inode: u64,
    device: u64,
}

impl From<FileStat> for Mark {
    fn from(stat: FileStat) -> Mark {
        Mark {
            size: stat.size,
            modified: stat.modified_ns.unwrap_or(-1),
            changed: stat.changed_ns,
            inode: stat.inode,
            device: stat.device,
        }
    }
}

impl Seal {
    /// The index file and its log as they are now.
    pub(crate) fn now(cache: &PrivateDir) -> Seal {
        Seal {
            boot: boot_id().map(str::to_string),
            index: cache.stat(INDEX_FILE).map(Mark::from),
            // Without its change time: SQLite running as root gives the log to the file's
            // owner whenever it opens it, which moves the change time of an unchanged log.
            wal: cache.stat(WAL_FILE).map(|stat| Mark {
                changed: 0,
                ..Mark::from(stat)
            }),
        }
    }

    /// The seal brief wrote last (`None`: none, or not one of this form).
    pub(crate) fn written(cache: &PrivateDir) -> Option<Seal> {
        let text = String::from_utf8(cache.read(SEAL_FILE, SEAL_LIMIT)?).ok()?;
        Seal::parse(&text)
    }

    /// Records this seal (replacing the last one whole).
    pub(crate) fn write(&self, cache: &PrivateDir) -> std::io::Result<()> {
        cache.replace(SEAL_FILE, self.text().as_bytes())
    }

    fn text(&self) -> String {
        let mark = |m: &Option<Mark>| match m {
            Some(m) => format!(
                "{} {} {} {} {}",
                m.size, m.modified, m.changed, m.inode, m.device
            ),
            None => "none".to_string(),
        };
        format!(
            "{HEADER}\nboot {}\nindex {}\nwal {}\n",
            self.boot.as_deref().unwrap_or("none"),
            mark(&self.index),
            mark(&self.wal)
        )
    }

    fn parse(text: &str) -> Option<Seal> {
        let mut lines = text.lines();
        if lines.next()? != HEADER {
            return None;
        }
        let mut field = |name: &str| -> Option<String> {
            let line = lines.next()?;
            let value = line.strip_prefix(name)?.strip_prefix(' ')?;
            Some(value.to_string())
        };
        let (boot, index, wal) = (field("boot")?, field("index")?, field("wal")?);
        let mark = |value: &str| -> Option<Option<Mark>> {
            if value == "none" {
                return Some(None);
            }
            let parts: Vec<&str> = value.split(' ').collect();
            let [size, modified, changed, inode, device] = parts.as_slice() else {
                return None;
            };
            Some(Some(Mark {
                size: size.parse().ok()?,
                modified: modified.parse().ok()?,
                changed: changed.parse().ok()?,
                inode: inode.parse().ok()?,
                device: device.parse().ok()?,
            }))
        };
        Some(Seal {
            boot: (boot != "none").then_some(boot),
            index: mark(&index)?,
            wal: mark(&wal)?,
        })
    }
}

/// Whether the index file is there and exactly as brief sealed it.
pub(crate) fn holds(cache: &PrivateDir) -> bool {
    let now = Seal::now(cache);
    now.index.is_some() && Seal::written(cache).as_ref() == Some(&now)
}

/// This boot of the machine (Linux), read once: a seal from another boot vouches for
/// nothing, since a crash of the machine can lose writes that the file times still claim.
fn boot_id() -> Option<&'static str> {
    static BOOT: OnceLock<Option<String>> = OnceLock::new();
    BOOT.get_or_init(|| {
        let bytes =
            brief_root::read_plain(std::path::Path::new("/proc/sys/kernel/random/boot_id"), 64)?;
        let text = String::from_utf8(bytes).ok()?;
        let id = text.trim();
        (!id.is_empty()).then(|| id.to_string())
    })
    .as_deref()
}

/// Reads the whole index and says what is wrong with it, if anything: SQLite's
/// `integrity_check` (every page, and every index against its table — what `quick_check`
/// leaves out), every row against its checksum, each node against its data, the layer
/// guides against the edges they are computed from, and the count of files.
pub(crate) fn verify(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let verdict: String = conn.query_row("PRAGMA integrity_check(1)", [], |r| r.get(0))?;
    if verdict != "ok" {
        return Ok(Some(format!("SQLite's integrity check: {verdict}")));
    }
    let checks: [(&str, Check); 6] = [
        ("a node row", nodes_intact),
        ("a node's data", data_intact),
        ("a token count", counts_intact),
        (
            "a kept list of a word's holders",
            crate::holders::lists_intact,
        ),
        ("a recorded problem, mark or missing link", notes_intact),
        ("the layer guides or the file or node count", derived_intact),
    ];
    for (what, intact) in checks {
        if !intact(conn)? {
            return Ok(Some(format!(
                "{what} does not match what it was written from"
            )));
        }
    }
    Ok(None)
}

/// One part of a verification: whether what it looks at is intact.
type Check = fn(&Connection) -> rusqlite::Result<bool>;

/// Every node row matches its checksum, and every node has its data.
fn nodes_intact(conn: &Connection) -> rusqlite::Result<bool> {
    let mut stmt = conn.prepare("SELECT id, kind, date, title, sum FROM nodes")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let (id, kind, title): (String, String, String) = (r.get(0)?, r.get(1)?, r.get(3)?);
        let date: Option<String> = r.get(2)?;
        if row_sum(&id, &kind, date.as_deref(), &title) != r.get::<_, i64>(4)? {
            return Ok(false);
        }
    }
    let counts: (i64, i64) = conn.query_row(
        "SELECT (SELECT count(*) FROM nodes), (SELECT count(*) FROM node_data)",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok(counts.0 == counts.1)
}

/// Every node's data matches its checksum.
fn data_intact(conn: &Connection) -> rusqlite::Result<bool> {
    let mut stmt = conn.prepare("SELECT data, sum FROM node_data")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let data: String = r.get(0)?;
        if data_sum(&data) != r.get::<_, i64>(1)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Every cached token count matches its checksum.
fn counts_intact(conn: &Connection) -> rusqlite::Result<bool> {
    let mut stmt = conn.prepare("SELECT key, n, sum FROM counts")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let key: Vec<u8> = r.get(0)?;
        if count_sum(&key, r.get(1)?) != r.get::<_, i64>(2)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Every recorded problem, node mark and missing link matches its checksum.
fn notes_intact(conn: &Connection) -> rusqlite::Result<bool> {
    let mut stmt =
        conn.prepare("SELECT file, path, line, col, severity, kind, message, sum FROM problems")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let (file, path, kind, message): (String, String, String, String) =
            (r.get(0)?, r.get(1)?, r.get(5)?, r.get(6)?);
        let sum = problem_sum(
            &file,
            &path,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            &kind,
            &message,
        );
        if sum != r.get::<_, i64>(7)? {
            return Ok(false);
        }
    }
    let mut stmt = conn.prepare("SELECT ix, applies, lifecycle, sum FROM marks")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let (applies, lifecycle): (Option<String>, Option<String>) = (r.get(1)?, r.get(2)?);
        let sum = marks_sum(r.get(0)?, applies.as_deref(), lifecycle.as_deref());
        if sum != r.get::<_, i64>(3)? {
            return Ok(false);
        }
    }
    let mut stmt = conn.prepare("SELECT src, rel, target, sum FROM dangling")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let (rel, target): (String, String) = (r.get(1)?, r.get(2)?);
        if dangling_sum(r.get(0)?, &rel, &target) != r.get::<_, i64>(3)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// What the index derives from other tables equals what they give now: the layer guides
/// (from nodes and edges) and the counts of files and nodes in `meta`.
fn derived_intact(conn: &Connection) -> rusqlite::Result<bool> {
    if !guides::intact(conn)? {
        return Ok(false);
    }
    let (recorded, files): (Option<String>, i64) = conn.query_row(
        "SELECT (SELECT value FROM meta WHERE key = 'files'), (SELECT count(*) FROM files)",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let nodes: i64 = conn.query_row("SELECT count(*) FROM nodes", [], |r| r.get(0))?;
    Ok(recorded.is_none_or(|n| n == files.to_string())
        && crate::lexicon::kept_node_total(conn)?.is_none_or(|n| n == nodes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_list_that_fails_its_checksum_fails_the_verification() {
        let dir = crate::kit::payments();
        let (_project, index) = crate::kit::built(dir.path());
        assert_eq!(verify(&index.conn).unwrap(), None);
        index
            .conn
            .execute(
                "INSERT INTO holders(token, version, list, sum) VALUES ('cach', 1, x'01', 0)",
                [],
            )
            .unwrap();
        let found = verify(&index.conn).unwrap();
        assert!(found.is_some_and(|what| what.contains("holders")));
        index
            .conn
            .execute("UPDATE holders SET list = 'text'", [])
            .unwrap();
        assert!(
            verify(&index.conn).unwrap().is_some(),
            "a list of another type"
        );
    }

    #[test]
    fn a_seal_reads_back_as_written() {
        let seal = Seal {
            boot: Some("b0".into()),
            index: Some(Mark {
                size: 1,
                modified: 2,
                changed: 3,
                inode: 4,
                device: 5,
            }),
            wal: None,
        };
        assert_eq!(Seal::parse(&seal.text()), Some(seal.clone()));
        let no_boot = Seal {
            boot: None,
            ..seal.clone()
        };
        assert_eq!(Seal::parse(&no_boot.text()), Some(no_boot));
        for bad in [
            "",
            "brief index seal 2\n",
            "brief index seal 1\nboot x\nindex 1 2\nwal none\n",
        ] {
            assert_eq!(Seal::parse(bad), None, "{bad:?}");
        }
    }
}
