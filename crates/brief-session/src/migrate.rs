//! `brief session migrate`: copies every row of one store into another, empty one — SQLite
//! to PostgreSQL when agents outgrow one machine, and back — and verifies the copy by the
//! row counts of every table.
//!
//! The source is read in one snapshot (a read transaction), in key order, in batches; the
//! target is written in one transaction, so a failed copy leaves it as empty as it was. Ids
//! are kept, so packages keep their numbers and references.

use brief_engine::{Param, Said};
use serde::Serialize;

use super::store::{Counts, Location, Mode, Table, Value};
use super::{SessionError, Store};

/// Rows read and written at a time.
const BATCH: usize = 2_000;

/// A finished copy.
#[derive(Debug, Clone, Serialize)]
pub struct Copied {
    /// The source, as shown (a path, or a URL without its password).
    pub from: String,
    /// The target, as shown.
    pub to: String,
    /// Rows per table, equal in both stores.
    pub counts: Counts,
}

/// Copies `from` into `to` (created when it is a new SQLite file or a database without
/// brief's tables; refused when it holds rows).
pub fn copy_store(from: &Location, to: &Location) -> Result<Copied, SessionError> {
    if from.shown() == to.shown() {
        return Err(SessionError::Usage(
            Said::new()
                .param(Param::From)
                .text(" and ")
                .param(Param::To)
                .text(format!(
                    " both name {}: name the store to copy and a new, empty one",
                    from.shown()
                )),
        ));
    }
    let mut source = Store::connect(from, Mode::Read)?;
    let mut target = Store::connect(to, Mode::Create)?;
    source.backend().begin_read()?;
    let expected = source.backend().counts()?;
    target.backend().begin_import()?;
    for table in Table::ALL {
        copy_table(&mut source, &mut target, table)?;
    }
    target.backend().finish_import()?;
    source.backend().end_read()?;
    let found = target.backend().counts()?;
    if found != expected {
        return Err(SessionError::Store {
            path: target.location().to_string(),
            message: format!(
                "holds other counts than {} after the copy ({found:?} against {expected:?}); it was written in one transaction, so check for another writer and copy again into an empty store",
                source.location()
            ),
        });
    }
    Ok(Copied {
        from: source.location().to_string(),
        to: target.location().to_string(),
        counts: found,
    })
}

/// Copies one table in key order, a batch at a time.
fn copy_table(source: &mut Store, target: &mut Store, table: Table) -> Result<(), SessionError> {
    let mut after: Option<Vec<Value>> = None;
    loop {
        let rows = source.backend().read_rows(table, after.as_deref(), BATCH)?;
        if rows.is_empty() {
            return Ok(());
        }
        target.backend().write_rows(table, &rows)?;
        if rows.len() < BATCH {
            return Ok(());
        }
        after = rows.last().map(|r| r[..table.key_len()].to_vec());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packages::{package_add, package_consume, ConsumeRequest, NewPackage};
    use crate::patterns::{error_record, ErrorRecord};
    use crate::{PackageType, Priority};

    #[test]
    fn a_sqlite_store_copies_into_a_new_file_with_its_ids() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), Mode::Create).unwrap();
        for i in 0..(BATCH + 5) {
            let added = package_add(
                &mut store,
                &NewPackage {
                    session: format!("s{}", i % 3),
                    group: None,
                    kind: PackageType::Research,
                    file: format!("notes/{i}.md"),
                    producer: "developer".into(),
                    consumers: vec!["qa_expert".into(), "tech_lead".into()],
                    priority: Priority::High,
                    summary: format!("Finding {i}\n\twith  its whitespace"),
                    supersedes: None,
                },
                1_760_000_000 + i as i64,
            )
            .unwrap();
            if i % 7 == 0 {
                package_consume(
                    &mut store,
                    &ConsumeRequest {
                        session: format!("s{}", i % 3),
                        agent: "qa_expert".into(),
                        id: added.id,
                        iteration: Some(2),
                    },
                    1_760_000_000,
                )
                .unwrap();
            }
        }
        error_record(
            &mut store,
            &ErrorRecord {
                project: "notes".into(),
                message: "database is locked at /srv/app/db.py line 4".into(),
                solution: "Use WAL".into(),
                lang: None,
            },
            1_760_000_000,
        )
        .unwrap();
        drop(store);
        let from = Location::Project(dir.path().to_path_buf());
        let to = Location::File(dir.path().join("copy/sessions.db"));
        let copied = copy_store(&from, &to).unwrap();
        assert_eq!(copied.counts.packages, BATCH as i64 + 5);
        assert_eq!(copied.counts.consumers, 2 * (BATCH as i64 + 5));
        assert_eq!(copied.counts.error_terms, 3);
        let mut a = Store::connect(&from, Mode::Read).unwrap();
        let mut b = Store::connect(&to, Mode::Read).unwrap();
        for table in Table::ALL {
            assert_eq!(
                a.backend().read_rows(table, None, 10_000).unwrap(),
                b.backend().read_rows(table, None, 10_000).unwrap(),
                "{table:?}"
            );
        }
        // A store with rows is never a target; the same store is no target either.
        let e = copy_store(&from, &to).unwrap_err().to_string();
        assert!(e.contains("already holds"), "{e}");
        let e = copy_store(&from, &from).unwrap_err().to_string();
        assert!(e.contains("both name"), "{e}");
    }
}
