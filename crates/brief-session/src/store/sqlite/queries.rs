//! The SQLite backend's statements. Every write is one IMMEDIATE transaction (a deferred
//! one could fail to upgrade its lock without waiting), so writers on one machine are
//! serialized by SQLite's lock and each read-modify-write is atomic.

use rusqlite::types::ToSqlOutput;
use rusqlite::{params, OptionalExtension, Row as SqlRow, ToSql, TransactionBehavior};

use super::Sqlite;
use crate::store::{
    Adjusted, Backend, CandidateQuery, CandidateRow, Column, ConsumptionDone, ConsumptionRow,
    Counts, Kind, PackageRow, PatternRow, PatternStat, Recording, Row, Table, Value,
};
use crate::stored::Package;
use crate::stored::{Pattern, Pruned};
use crate::SessionError;

/// The pattern columns [`pattern`] reads.
const PATTERN: &str =
    "project, hash, signature, solution, confidence, occurrences, lang, created, last_seen, ttl_days";

/// "Not expired at ?now" for a pattern row, `?now` being parameter 3 where it is used.
const ALIVE: &str = "last_seen + ttl_days * 86400 >= ?3";

fn pattern(r: &SqlRow<'_>) -> rusqlite::Result<Pattern> {
    Ok(Pattern {
        project: r.get(0)?,
        hash: r.get(1)?,
        signature: r.get(2)?,
        solution: r.get(3)?,
        confidence: r.get::<_, i64>(4)? as f64 / 100.0,
        occurrences: r.get(5)?,
        lang: r.get(6)?,
        created: r.get(7)?,
        last_seen: r.get(8)?,
        ttl_days: r.get(9)?,
    })
}

/// A list of ids as one JSON array parameter (read with `json_each`).
fn id_list(ids: &[i64]) -> String {
    let mut s = String::from("[");
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&id.to_string());
    }
    s.push(']');
    s
}

impl ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Value::Null => ToSqlOutput::from(rusqlite::types::Null),
            Value::Int(i) => ToSqlOutput::from(*i),
            Value::Text(s) => ToSqlOutput::from(s.as_str()),
        })
    }
}

fn value(r: &SqlRow<'_>, i: usize, column: Column) -> rusqlite::Result<Value> {
    Ok(match column {
        Column::Int => Value::Int(r.get(i)?),
        Column::Text => Value::Text(r.get(i)?),
        Column::OptInt => r.get::<_, Option<i64>>(i)?.map_or(Value::Null, Value::Int),
        Column::OptText => r
            .get::<_, Option<String>>(i)?
            .map_or(Value::Null, Value::Text),
    })
}

impl Sqlite {
    fn insert_package_tx(&mut self, row: &PackageRow<'_>) -> rusqlite::Result<Option<i64>> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT OR IGNORE INTO sessions (id, created) VALUES (?1, ?2)",
            params![row.session, row.created],
        )?;
        if let Some(old) = row.supersedes {
            let owner: Option<String> = tx
                .query_row(
                    "SELECT session_id FROM packages WHERE id = ?1",
                    [old],
                    |r| r.get(0),
                )
                .optional()?;
            if owner.as_deref() != Some(row.session) {
                return Ok(None);
            }
        }
        tx.execute(
            "INSERT INTO packages (session_id, group_id, type, file_path, producer, priority, summary, created, supersedes)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                row.session,
                row.group,
                row.kind,
                row.file,
                row.producer,
                row.priority,
                row.summary,
                row.created,
                row.supersedes
            ],
        )?;
        let id = tx.last_insert_rowid();
        {
            let mut stmt =
                tx.prepare_cached("INSERT INTO consumers (package_id, agent) VALUES (?1, ?2)")?;
            for c in row.consumers {
                stmt.execute(params![id, c])?;
            }
        }
        tx.commit()?;
        Ok(Some(id))
    }

    fn consume_tx(
        &mut self,
        row: &ConsumptionRow<'_>,
    ) -> rusqlite::Result<Option<ConsumptionDone>> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let owner: Option<String> = tx
            .query_row(
                "SELECT session_id FROM packages WHERE id = ?1",
                [row.package],
                |r| r.get(0),
            )
            .optional()?;
        if owner.as_deref() != Some(row.session) {
            return Ok(None);
        }
        let designated: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM consumers WHERE package_id = ?1 AND agent = ?2)",
            params![row.package, row.agent],
            |r| r.get(0),
        )?;
        let inserted = tx.execute(
            "INSERT OR IGNORE INTO consumptions (package_id, agent, iteration, consumed_at) VALUES (?1, ?2, ?3, ?4)",
            params![row.package, row.agent, row.iteration, row.at],
        )?;
        tx.commit()?;
        Ok(Some(ConsumptionDone {
            newly: inserted == 1,
            designated,
        }))
    }

    fn record_tx(
        &mut self,
        row: &PatternRow<'_>,
        initial: i64,
    ) -> rusqlite::Result<(Recording, Pattern)> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let inserted = tx.execute(
            "INSERT INTO error_patterns (project, hash, signature, solution, confidence, occurrences, lang, created, last_seen, ttl_days, words)
             VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?7, ?7, ?8, ?9)
             ON CONFLICT (project, hash) DO NOTHING",
            params![
                row.project,
                row.hash,
                row.signature,
                row.solution,
                initial,
                row.lang,
                row.now,
                crate::stored::DEFAULT_TTL_DAYS,
                row.words
            ],
        )?;
        let recording = if inserted == 1 {
            let id = tx.last_insert_rowid();
            let mut stmt = tx.prepare_cached(
                "INSERT INTO error_terms (project, term, pattern_id, tf) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (term, tf) in row.terms {
                stmt.execute(params![row.project, term, id, tf])?;
            }
            Recording::Created
        } else {
            tx.execute(
                "UPDATE error_patterns SET occurrences = occurrences + 1, last_seen = ?3,
                   lang = coalesce(?5, lang),
                   confidence = CASE WHEN solution <> ?4 THEN ?6 ELSE confidence END,
                   solution = ?4
                 WHERE project = ?1 AND hash = ?2",
                params![
                    row.project,
                    row.hash,
                    row.now,
                    row.solution,
                    row.lang,
                    initial
                ],
            )?;
            Recording::Updated
        };
        let stored = tx.query_row(
            &format!("SELECT {PATTERN} FROM error_patterns WHERE project = ?1 AND hash = ?2"),
            params![row.project, row.hash],
            pattern,
        )?;
        tx.commit()?;
        Ok((recording, stored))
    }

    fn adjust_tx(
        &mut self,
        project: &str,
        prefix: &str,
        now: i64,
        step: &dyn Fn(i64) -> i64,
    ) -> rusqlite::Result<Adjusted> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let found: Vec<(i64, String, i64)> = {
            let mut stmt = tx.prepare_cached(
                "SELECT id, hash, confidence FROM error_patterns
                 WHERE project = ?1 AND substr(hash, 1, length(?2)) = ?2 ORDER BY hash LIMIT 2",
            )?;
            let rows = stmt.query_map(params![project, prefix], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?;
            rows.collect::<Result<_, _>>()?
        };
        let (id, hash, previous) = match found.as_slice() {
            [one] => one.clone(),
            [] => return Ok(Adjusted::NotFound),
            [a, b, ..] => return Ok(Adjusted::Ambiguous(a.1.clone(), b.1.clone())),
        };
        let next = step(previous);
        tx.execute(
            "UPDATE error_patterns SET confidence = ?2, last_seen = ?3 WHERE id = ?1",
            params![id, next, now],
        )?;
        tx.commit()?;
        Ok(Adjusted::Done {
            hash,
            previous,
            next,
        })
    }

    fn prune_tx(&mut self, cutoff: i64, now: i64) -> rusqlite::Result<Pruned> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Newer packages that superseded a pruned one keep standing on their own.
        let packages = tx.execute("DELETE FROM packages WHERE created < ?1", [cutoff])?;
        let sessions = tx.execute(
            "DELETE FROM sessions WHERE created < ?1
               AND NOT EXISTS (SELECT 1 FROM packages p WHERE p.session_id = sessions.id)",
            [cutoff],
        )?;
        let error_patterns = tx.execute(
            "DELETE FROM error_patterns WHERE last_seen < ?1 OR last_seen + ttl_days * 86400 < ?2",
            params![cutoff, now],
        )?;
        tx.commit()?;
        Ok(Pruned {
            packages,
            sessions,
            error_patterns,
        })
    }

    fn packages_q(&mut self, ids: &[i64]) -> rusqlite::Result<Vec<Package>> {
        let mut out = Vec::with_capacity(ids.len());
        let mut one = self.conn.prepare_cached(
            "SELECT id, session_id, group_id, type, file_path, producer, priority, summary, created, supersedes
             FROM packages WHERE id = ?1",
        )?;
        let mut consumers = self
            .conn
            .prepare_cached("SELECT agent FROM consumers WHERE package_id = ?1 ORDER BY agent")?;
        for &id in ids {
            let found = one.query_row([id], |r| {
                Ok(Package {
                    id: r.get(0)?,
                    session: r.get(1)?,
                    group: r.get(2)?,
                    kind: r.get(3)?,
                    file_path: r.get(4)?,
                    producer: r.get(5)?,
                    priority: r.get(6)?,
                    summary: r.get(7)?,
                    created: r.get(8)?,
                    supersedes: r.get(9)?,
                    consumers: Vec::new(),
                    score: 0.0,
                })
            });
            // Deleted since it was found (a concurrent prune): left out.
            let Some(mut p) = found.optional()? else {
                continue;
            };
            p.consumers = consumers
                .query_map([id], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            out.push(p);
        }
        Ok(out)
    }

    fn candidates_q(&mut self, q: &CandidateQuery<'_>) -> rusqlite::Result<Vec<CandidateRow>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT p.id, p.priority, p.group_id, p.created,
                    EXISTS (SELECT 1 FROM consumers c WHERE c.package_id = p.id AND c.agent = ?2)
             FROM packages p
             WHERE p.session_id = ?1
               AND (?3 IS NULL OR p.group_id = ?3 OR p.group_id IS NULL)
               AND NOT EXISTS (SELECT 1 FROM packages s WHERE s.supersedes = p.id)
               AND NOT EXISTS (SELECT 1 FROM consumptions k
                               WHERE k.package_id = p.id AND k.agent = ?2 AND k.iteration = ?4)",
        )?;
        let rows = stmt.query_map(params![q.session, q.agent, q.group, q.iteration], |r| {
            Ok(CandidateRow {
                id: r.get(0)?,
                priority: r.get(1)?,
                group: r.get(2)?,
                created: r.get(3)?,
                designated: r.get(4)?,
            })
        })?;
        rows.collect()
    }

    fn consumed_q(&mut self, q: &CandidateQuery<'_>) -> rusqlite::Result<usize> {
        let n: i64 = self
            .conn
            .prepare_cached(
                "SELECT count(*) FROM packages p JOIN consumptions k ON k.package_id = p.id
             WHERE p.session_id = ?1 AND k.agent = ?2 AND k.iteration = ?4
               AND (?3 IS NULL OR p.group_id = ?3 OR p.group_id IS NULL)
               AND NOT EXISTS (SELECT 1 FROM packages s WHERE s.supersedes = p.id)",
            )?
            .query_row(params![q.session, q.agent, q.group, q.iteration], |r| {
                r.get(0)
            })?;
        Ok(n as usize)
    }

    fn postings_q(
        &mut self,
        project: &str,
        terms: &[String],
        cap: usize,
    ) -> rusqlite::Result<Vec<Vec<(i64, i64)>>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT pattern_id, tf FROM error_terms WHERE project = ?1 AND term = ?2
             ORDER BY pattern_id LIMIT ?3",
        )?;
        let mut out = Vec::with_capacity(terms.len());
        for term in terms {
            let rows = stmt.query_map(params![project, term, cap as i64 + 1], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?;
            out.push(rows.collect::<Result<_, _>>()?);
        }
        Ok(out)
    }

    fn stats_q(
        &mut self,
        project: &str,
        ids: &[i64],
        now: i64,
    ) -> rusqlite::Result<Vec<PatternStat>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT id, hash, confidence, words FROM error_patterns
             WHERE id IN (SELECT value FROM json_each(?1)) AND project = ?2 AND {ALIVE}
             ORDER BY id"
        ))?;
        let rows = stmt.query_map(params![id_list(ids), project, now], |r| {
            Ok(PatternStat {
                id: r.get(0)?,
                hash: r.get(1)?,
                confidence: r.get(2)?,
                words: r.get(3)?,
            })
        })?;
        rows.collect()
    }

    fn patterns_q(&mut self, ids: &[i64]) -> rusqlite::Result<Vec<Pattern>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {PATTERN} FROM error_patterns WHERE id = ?1"
        ))?;
        let mut out = Vec::with_capacity(ids.len());
        for &id in ids {
            // One deleted since it was found (a concurrent prune) is left out.
            if let Some(p) = stmt.query_row([id], pattern).optional()? {
                out.push(p);
            }
        }
        Ok(out)
    }

    fn injectable_q(
        &mut self,
        project: Option<&str>,
        above: i64,
        limit: usize,
        now: i64,
    ) -> rusqlite::Result<Vec<Pattern>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {PATTERN} FROM error_patterns
             WHERE (?1 IS NULL OR project = ?1) AND confidence > ?2 AND {ALIVE}
             ORDER BY confidence DESC, occurrences DESC, hash, project LIMIT ?4"
        ))?;
        let rows = stmt.query_map(params![project, above, now, limit as i64], pattern)?;
        rows.collect()
    }

    fn counts_q(&mut self) -> rusqlite::Result<Counts> {
        let mut counts = Counts::default();
        for table in Table::ALL {
            let n: i64 = self.conn.query_row(
                &format!("SELECT count(*) FROM {}", table.name()),
                [],
                |r| r.get(0),
            )?;
            counts.set(table, n);
        }
        Ok(counts)
    }

    fn read_rows_q(
        &mut self,
        table: Table,
        after: Option<&[Value]>,
        limit: usize,
    ) -> rusqlite::Result<Vec<Row>> {
        let columns = table.columns();
        let names: Vec<&str> = columns.iter().map(|(n, _)| *n).collect();
        let key = &names[..table.key_len()];
        let (condition, mut params): (String, Vec<&dyn ToSql>) = match after {
            Some(values) => (
                format!(
                    "WHERE ({}) > ({})",
                    key.join(", "),
                    (1..=key.len())
                        .map(|i| format!("?{i}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                values.iter().map(|v| v as &dyn ToSql).collect(),
            ),
            None => (String::new(), Vec::new()),
        };
        let limit = limit as i64;
        params.push(&limit);
        let sql = format!(
            "SELECT {} FROM {} {condition} ORDER BY {} LIMIT ?{}",
            names.join(", "),
            table.name(),
            key.join(", "),
            params.len()
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params.as_slice(), |r| {
            columns
                .iter()
                .enumerate()
                .map(|(i, &(_, c))| value(r, i, c))
                .collect::<rusqlite::Result<Row>>()
        })?;
        rows.collect()
    }

    fn write_rows_q(&mut self, table: Table, rows: &[Row]) -> rusqlite::Result<()> {
        let names: Vec<&str> = table.columns().iter().map(|(n, _)| *n).collect();
        let sql = format!(
            "INSERT INTO {} ({}) VALUES ({})",
            table.name(),
            names.join(", "),
            (1..=names.len())
                .map(|i| format!("?{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        for row in rows {
            stmt.execute(rusqlite::params_from_iter(row.iter()))?;
        }
        Ok(())
    }
}

impl Backend for Sqlite {
    fn shown(&self) -> &str {
        Sqlite::shown(self)
    }

    fn kind(&self) -> Kind {
        Sqlite::kind(self)
    }

    fn insert_package(&mut self, row: &PackageRow<'_>) -> Result<Option<i64>, SessionError> {
        self.insert_package_tx(row).map_err(|e| self.fail(e))
    }

    fn candidates(
        &mut self,
        query: &CandidateQuery<'_>,
    ) -> Result<Vec<CandidateRow>, SessionError> {
        self.candidates_q(query).map_err(|e| self.fail(e))
    }

    fn consumed(&mut self, query: &CandidateQuery<'_>) -> Result<usize, SessionError> {
        self.consumed_q(query).map_err(|e| self.fail(e))
    }

    fn packages(&mut self, ids: &[i64]) -> Result<Vec<Package>, SessionError> {
        self.packages_q(ids).map_err(|e| self.fail(e))
    }

    fn consume(
        &mut self,
        row: &ConsumptionRow<'_>,
    ) -> Result<Option<ConsumptionDone>, SessionError> {
        self.consume_tx(row).map_err(|e| self.fail(e))
    }

    fn record_pattern(
        &mut self,
        row: &PatternRow<'_>,
        initial: i64,
    ) -> Result<(Recording, Pattern), SessionError> {
        self.record_tx(row, initial).map_err(|e| self.fail(e))
    }

    fn adjust_confidence(
        &mut self,
        project: &str,
        prefix: &str,
        now: i64,
        step: &dyn Fn(i64) -> i64,
    ) -> Result<Adjusted, SessionError> {
        self.adjust_tx(project, prefix, now, step)
            .map_err(|e| self.fail(e))
    }

    fn pattern_by_hash(
        &mut self,
        project: &str,
        hash: &str,
        now: i64,
    ) -> Result<Option<Pattern>, SessionError> {
        let found = self
            .conn
            .prepare_cached(&format!(
                "SELECT {PATTERN} FROM error_patterns WHERE project = ?1 AND hash = ?2 AND {ALIVE}"
            ))
            .and_then(|mut s| s.query_row(params![project, hash, now], pattern).optional());
        found.map_err(|e| self.fail(e))
    }

    fn postings(
        &mut self,
        project: &str,
        terms: &[String],
        cap: usize,
    ) -> Result<Vec<Vec<(i64, i64)>>, SessionError> {
        self.postings_q(project, terms, cap)
            .map_err(|e| self.fail(e))
    }

    fn pattern_stats(
        &mut self,
        project: &str,
        ids: &[i64],
        now: i64,
    ) -> Result<Vec<PatternStat>, SessionError> {
        self.stats_q(project, ids, now).map_err(|e| self.fail(e))
    }

    fn patterns(&mut self, ids: &[i64]) -> Result<Vec<Pattern>, SessionError> {
        self.patterns_q(ids).map_err(|e| self.fail(e))
    }

    fn injectable(
        &mut self,
        project: Option<&str>,
        above: i64,
        limit: usize,
        now: i64,
    ) -> Result<Vec<Pattern>, SessionError> {
        self.injectable_q(project, above, limit, now)
            .map_err(|e| self.fail(e))
    }

    fn prune(&mut self, cutoff: i64, now: i64) -> Result<Pruned, SessionError> {
        self.prune_tx(cutoff, now).map_err(|e| self.fail(e))
    }

    fn counts(&mut self) -> Result<Counts, SessionError> {
        self.counts_q().map_err(|e| self.fail(e))
    }

    fn read_rows(
        &mut self,
        table: Table,
        after: Option<&[Value]>,
        limit: usize,
    ) -> Result<Vec<Row>, SessionError> {
        self.read_rows_q(table, after, limit)
            .map_err(|e| self.fail(e))
    }

    fn begin_read(&mut self) -> Result<(), SessionError> {
        self.conn.execute_batch("BEGIN").map_err(|e| self.fail(e))
    }

    fn end_read(&mut self) -> Result<(), SessionError> {
        self.conn.execute_batch("COMMIT").map_err(|e| self.fail(e))
    }

    fn begin_import(&mut self) -> Result<(), SessionError> {
        self.conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(|e| self.fail(e))?;
        let counts = self.counts_q().map_err(|e| self.fail(e))?;
        if counts.is_empty() {
            return Ok(());
        }
        // Nothing was written: the rollback only ends the transaction.
        let _ = self.conn.execute_batch("ROLLBACK");
        Err(crate::store::not_empty(self.shown(), &counts))
    }

    fn write_rows(&mut self, table: Table, rows: &[Row]) -> Result<(), SessionError> {
        self.write_rows_q(table, rows).map_err(|e| self.fail(e))
    }

    fn finish_import(&mut self) -> Result<(), SessionError> {
        // AUTOINCREMENT keeps its sequence in sqlite_sequence, which the inserts with explicit
        // ids already moved forward.
        self.conn.execute_batch("COMMIT").map_err(|e| self.fail(e))
    }
}
