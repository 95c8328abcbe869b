//! The PostgreSQL backend's statements. Each write is one transaction (see `write`) whose
//! read-modify-writes are atomic under any number of writers: an upsert counts occurrences
//! (`INSERT … ON CONFLICT DO NOTHING`, then `occurrences = occurrences + 1`), a confidence
//! step locks its row (`FOR UPDATE`), a consumption is one row per package, agent and
//! iteration (`ON CONFLICT DO NOTHING`).

use std::collections::HashMap;

use tokio_postgres::types::ToSql;
use tokio_postgres::Row as PgRow;

use super::{Conn, Fail, Postgres};
use crate::store::{
    Adjusted, Backend, CandidateQuery, CandidateRow, Column, ConsumptionDone, ConsumptionRow,
    Counts, Kind, PackageRow, PatternRow, PatternStat, Recording, Row, Table, Value,
};
use crate::stored::Package;
use crate::stored::{Pattern, Pruned, DEFAULT_TTL_DAYS};
use crate::SessionError;

/// A pattern from its ten columns starting at `at` (project, hash, signature, solution,
/// confidence, occurrences, lang, created, last_seen, ttl_days).
fn pattern(r: &PgRow, at: usize) -> Pattern {
    Pattern {
        project: r.get(at),
        hash: r.get(at + 1),
        signature: r.get(at + 2),
        solution: r.get(at + 3),
        confidence: r.get::<_, i64>(at + 4) as f64 / 100.0,
        occurrences: r.get(at + 5),
        lang: r.get(at + 6),
        created: r.get(at + 7),
        last_seen: r.get(at + 8),
        ttl_days: r.get(at + 9),
    }
}

const INSERT_PACKAGE: &str = "
    WITH allowed AS (
        SELECT 1 WHERE $9::bigint IS NULL
            OR EXISTS (SELECT 1 FROM brief.packages WHERE id = $9 AND session_id = $1)
    ), s AS (
        INSERT INTO brief.sessions (id, created) SELECT $1, $8 FROM allowed
        ON CONFLICT (id) DO NOTHING
    ), p AS (
        INSERT INTO brief.packages
            (session_id, group_id, type, file_path, producer, priority, summary, created, supersedes)
        SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 FROM allowed
        RETURNING id
    ), c AS (
        INSERT INTO brief.consumers (package_id, agent) SELECT p.id, unnest($10::text[]) FROM p
    )
    SELECT id FROM p";

const CANDIDATES: &str = "
    SELECT p.id, p.priority, p.group_id, p.created,
           EXISTS (SELECT 1 FROM brief.consumers c WHERE c.package_id = p.id AND c.agent = $2)
    FROM brief.packages p
    WHERE p.session_id = $1
      AND ($3::text IS NULL OR p.group_id = $3 OR p.group_id IS NULL)
      AND NOT EXISTS (SELECT 1 FROM brief.packages s WHERE s.supersedes = p.id)
      AND NOT EXISTS (SELECT 1 FROM brief.consumptions k
                      WHERE k.package_id = p.id AND k.agent = $2 AND k.iteration = $4)";

const CONSUMED: &str = "
    SELECT count(*) FROM brief.packages p JOIN brief.consumptions k ON k.package_id = p.id
    WHERE p.session_id = $1 AND k.agent = $2 AND k.iteration = $4
      AND ($3::text IS NULL OR p.group_id = $3 OR p.group_id IS NULL)
      AND NOT EXISTS (SELECT 1 FROM brief.packages s WHERE s.supersedes = p.id)";

const PACKAGES: &str = "
    SELECT id, session_id, group_id, type, file_path, producer, priority, summary, created, supersedes
    FROM brief.packages WHERE id = ANY($1)";

const CONSUMERS: &str =
    "SELECT package_id, agent FROM brief.consumers WHERE package_id = ANY($1) ORDER BY package_id, agent";

const CONSUME: &str = "
    WITH p AS (SELECT id FROM brief.packages WHERE id = $1 AND session_id = $2),
    ins AS (
        INSERT INTO brief.consumptions (package_id, agent, iteration, consumed_at)
        SELECT id, $3, $4, $5 FROM p
        ON CONFLICT DO NOTHING RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM p),
           EXISTS (SELECT 1 FROM brief.consumers WHERE package_id = $1 AND agent = $3),
           EXISTS (SELECT 1 FROM ins)";

const RECORD_NEW: &str = "
    INSERT INTO brief.error_patterns
        (project, hash, signature, solution, confidence, occurrences, lang, created, last_seen, ttl_days, words)
    VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $7, $8, $9)
    ON CONFLICT (project, hash) DO NOTHING
    RETURNING id, project, hash, signature, solution, confidence, occurrences, lang, created, last_seen, ttl_days";

const RECORD_TERMS: &str = "
    INSERT INTO brief.error_terms (project, term, pattern_id, tf)
    SELECT $1, t, $2, f FROM unnest($3::text[], $4::bigint[]) AS x(t, f)";

const RECORD_AGAIN: &str = "
    UPDATE brief.error_patterns SET occurrences = occurrences + 1, last_seen = $3,
        lang = coalesce($5, lang),
        confidence = CASE WHEN solution <> $4 THEN $6 ELSE confidence END,
        solution = $4
    WHERE project = $1 AND hash = $2
    RETURNING id, project, hash, signature, solution, confidence, occurrences, lang, created, last_seen, ttl_days";

const BY_PREFIX: &str = "
    SELECT id, hash, confidence FROM brief.error_patterns
    WHERE project = $1 AND hash LIKE $2 || '%' ORDER BY hash LIMIT 2 FOR UPDATE";

const SET_CONFIDENCE: &str =
    "UPDATE brief.error_patterns SET confidence = $2, last_seen = $3 WHERE id = $1";

const BY_HASH: &str = "
    SELECT 0, project, hash, signature, solution, confidence, occurrences, lang, created, last_seen, ttl_days
    FROM brief.error_patterns
    WHERE project = $1 AND hash = $2 AND last_seen + ttl_days * 86400 >= $3";

const POSTINGS: &str = "
    SELECT t.i, e.pattern_id, e.tf
    FROM unnest($2::text[]) WITH ORDINALITY AS t(term, i)
    CROSS JOIN LATERAL (
        SELECT pattern_id, tf FROM brief.error_terms
        WHERE project = $1 AND term = t.term ORDER BY pattern_id LIMIT $3
    ) e";

const STATS: &str = "
    SELECT id, hash, confidence, words FROM brief.error_patterns
    WHERE id = ANY($1) AND project = $2 AND last_seen + ttl_days * 86400 >= $3 ORDER BY id";

const PATTERNS: &str = "
    SELECT id, project, hash, signature, solution, confidence, occurrences, lang, created, last_seen, ttl_days
    FROM brief.error_patterns WHERE id = ANY($1)";

const INJECTABLE: &str = "
    SELECT 0, project, hash, signature, solution, confidence, occurrences, lang, created, last_seen, ttl_days
    FROM brief.error_patterns
    WHERE ($1::text IS NULL OR project = $1) AND confidence > $2 AND last_seen + ttl_days * 86400 >= $3
    ORDER BY confidence DESC, occurrences DESC, hash, project LIMIT $4";

const PRUNE_PACKAGES: &str = "DELETE FROM brief.packages WHERE created < $1";
const PRUNE_SESSIONS: &str = "
    DELETE FROM brief.sessions s WHERE created < $1
      AND NOT EXISTS (SELECT 1 FROM brief.packages p WHERE p.session_id = s.id)";
const PRUNE_PATTERNS: &str =
    "DELETE FROM brief.error_patterns WHERE last_seen < $1 OR last_seen + ttl_days * 86400 < $2";

const COUNTS: &str = "
    SELECT (SELECT count(*) FROM brief.sessions), (SELECT count(*) FROM brief.packages),
           (SELECT count(*) FROM brief.consumers), (SELECT count(*) FROM brief.consumptions),
           (SELECT count(*) FROM brief.error_patterns), (SELECT count(*) FROM brief.error_terms)";

/// Rows in the order of `ids`; an id with no row (deleted since it was found, by a
/// concurrent prune) is left out.
fn in_order<T>(ids: &[i64], mut rows: HashMap<i64, T>) -> Vec<T> {
    ids.iter().filter_map(|id| rows.remove(id)).collect()
}

async fn insert_package(conn: &mut Conn, row: &PackageRow<'_>) -> Result<Option<i64>, Fail> {
    let consumers: Vec<&str> = row.consumers.iter().map(String::as_str).collect();
    let rows = conn
        .rows(
            INSERT_PACKAGE,
            &[
                &row.session,
                &row.group,
                &row.kind,
                &row.file,
                &row.producer,
                &row.priority,
                &row.summary,
                &row.created,
                &row.supersedes,
                &consumers,
            ],
        )
        .await?;
    Ok(rows.first().map(|r| r.get(0)))
}

async fn packages(conn: &mut Conn, ids: &[i64]) -> Result<Vec<Package>, Fail> {
    let list = ids.to_vec();
    let mut found: HashMap<i64, Package> = HashMap::new();
    for r in conn.rows(PACKAGES, &[&list]).await? {
        let p = Package {
            id: r.get(0),
            session: r.get(1),
            group: r.get(2),
            kind: r.get(3),
            file_path: r.get(4),
            producer: r.get(5),
            priority: r.get(6),
            summary: r.get(7),
            created: r.get(8),
            supersedes: r.get(9),
            consumers: Vec::new(),
            score: 0.0,
        };
        found.insert(p.id, p);
    }
    for r in conn.rows(CONSUMERS, &[&list]).await? {
        let id: i64 = r.get(0);
        if let Some(p) = found.get_mut(&id) {
            p.consumers.push(r.get(1));
        }
    }
    Ok(in_order(ids, found))
}

async fn record(
    conn: &mut Conn,
    row: &PatternRow<'_>,
    initial: i64,
) -> Result<(Recording, Pattern), Fail> {
    let created = conn
        .rows(
            RECORD_NEW,
            &[
                &row.project,
                &row.hash,
                &row.signature,
                &row.solution,
                &initial,
                &row.lang,
                &row.now,
                &DEFAULT_TTL_DAYS,
                &row.words,
            ],
        )
        .await?;
    if let Some(r) = created.first() {
        let id: i64 = r.get(0);
        let terms: Vec<&str> = row.terms.iter().map(|(t, _)| t.as_str()).collect();
        let counts: Vec<i64> = row.terms.iter().map(|(_, n)| *n).collect();
        conn.execute(RECORD_TERMS, &[&row.project, &id, &terms, &counts])
            .await?;
        return Ok((Recording::Created, pattern(r, 1)));
    }
    let updated = conn
        .rows(
            RECORD_AGAIN,
            &[
                &row.project,
                &row.hash,
                &row.now,
                &row.solution,
                &row.lang,
                &initial,
            ],
        )
        .await?;
    match updated.first() {
        Some(r) => Ok((Recording::Updated, pattern(r, 1))),
        // Pruned between the two statements: run the transaction again.
        None => Err(Fail::Conflict),
    }
}

async fn adjust(
    conn: &mut Conn,
    project: &str,
    prefix: &str,
    now: i64,
    step: &dyn Fn(i64) -> i64,
) -> Result<Adjusted, Fail> {
    let found = conn.rows(BY_PREFIX, &[&project, &prefix]).await?;
    let (id, hash, previous): (i64, String, i64) = match found.as_slice() {
        [one] => (one.get(0), one.get(1), one.get(2)),
        [] => return Ok(Adjusted::NotFound),
        [a, b, ..] => return Ok(Adjusted::Ambiguous(a.get(1), b.get(1))),
    };
    let next = step(previous);
    conn.execute(SET_CONFIDENCE, &[&id, &next, &now]).await?;
    Ok(Adjusted::Done {
        hash,
        previous,
        next,
    })
}

/// A column of values as one typed array parameter, for `unnest`.
fn column(rows: &[Row], i: usize, kind: Column) -> Box<dyn ToSql + Sync> {
    let int = |v: &Value| match v {
        Value::Int(n) => Some(*n),
        _ => None,
    };
    let text = |v: &Value| match v {
        Value::Text(s) => Some(s.clone()),
        _ => None,
    };
    match kind {
        Column::Int | Column::OptInt => Box::new(
            rows.iter()
                .map(|r| int(&r[i]))
                .collect::<Vec<Option<i64>>>(),
        ),
        Column::Text | Column::OptText => Box::new(
            rows.iter()
                .map(|r| text(&r[i]))
                .collect::<Vec<Option<String>>>(),
        ),
    }
}

/// One value as a parameter of its column's type.
fn param(value: &Value, kind: Column) -> Box<dyn ToSql + Sync> {
    match (value, kind) {
        (Value::Int(n), _) => Box::new(*n),
        (Value::Text(s), _) => Box::new(s.clone()),
        (Value::Null, Column::Int | Column::OptInt) => Box::new(None::<i64>),
        (Value::Null, Column::Text | Column::OptText) => Box::new(None::<String>),
    }
}

fn cell(r: &PgRow, i: usize, kind: Column) -> Value {
    match kind {
        Column::Int => Value::Int(r.get(i)),
        Column::Text => Value::Text(r.get(i)),
        Column::OptInt => r.get::<_, Option<i64>>(i).map_or(Value::Null, Value::Int),
        Column::OptText => r
            .get::<_, Option<String>>(i)
            .map_or(Value::Null, Value::Text),
    }
}

fn sql_type(kind: Column) -> &'static str {
    match kind {
        Column::Int | Column::OptInt => "bigint",
        Column::Text | Column::OptText => "text",
    }
}

async fn read_rows(
    conn: &mut Conn,
    table: Table,
    after: Option<&[Value]>,
    limit: usize,
) -> Result<Vec<Row>, Fail> {
    let columns = table.columns();
    let names: Vec<&str> = columns.iter().map(|(n, _)| *n).collect();
    let key = &names[..table.key_len()];
    let mut params: Vec<Box<dyn ToSql + Sync>> = Vec::new();
    let mut condition = String::new();
    if let Some(values) = after {
        let marks: Vec<String> = values
            .iter()
            .zip(columns)
            .enumerate()
            .map(|(i, (v, &(_, kind)))| {
                params.push(param(v, kind));
                format!("${}::{}", i + 1, sql_type(kind))
            })
            .collect();
        condition = format!("WHERE ({}) > ({})", key.join(", "), marks.join(", "));
    }
    params.push(Box::new(limit as i64));
    let sql = format!(
        "SELECT {} FROM brief.{} {condition} ORDER BY {} LIMIT ${}",
        names.join(", "),
        table.name(),
        key.join(", "),
        params.len()
    );
    let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p.as_ref()).collect();
    let rows = conn.client().query(&sql, &refs).await?;
    Ok(rows
        .iter()
        .map(|r| {
            columns
                .iter()
                .enumerate()
                .map(|(i, &(_, kind))| cell(r, i, kind))
                .collect()
        })
        .collect())
}

async fn write_rows(conn: &mut Conn, table: Table, rows: &[Row]) -> Result<(), Fail> {
    let columns = table.columns();
    let names: Vec<&str> = columns.iter().map(|(n, _)| *n).collect();
    let arrays: Vec<Box<dyn ToSql + Sync>> = columns
        .iter()
        .enumerate()
        .map(|(i, &(_, kind))| column(rows, i, kind))
        .collect();
    let marks: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(i, &(_, kind))| format!("${}::{}[]", i + 1, sql_type(kind)))
        .collect();
    let sql = format!(
        "INSERT INTO brief.{} ({}) SELECT * FROM unnest({})",
        table.name(),
        names.join(", "),
        marks.join(", ")
    );
    let refs: Vec<&(dyn ToSql + Sync)> = arrays.iter().map(|p| p.as_ref()).collect();
    conn.client().execute(&sql, &refs).await?;
    Ok(())
}

impl Backend for Postgres {
    fn shown(&self) -> &str {
        Postgres::shown(self)
    }

    fn kind(&self) -> Kind {
        Postgres::kind(self)
    }

    fn insert_package(&mut self, row: &PackageRow<'_>) -> Result<Option<i64>, SessionError> {
        self.write(async |conn| insert_package(conn, row).await)
    }

    fn candidates(
        &mut self,
        query: &CandidateQuery<'_>,
    ) -> Result<Vec<CandidateRow>, SessionError> {
        self.read(async |conn| {
            let rows = conn
                .rows(
                    CANDIDATES,
                    &[&query.session, &query.agent, &query.group, &query.iteration],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| CandidateRow {
                    id: r.get(0),
                    priority: r.get(1),
                    group: r.get(2),
                    created: r.get(3),
                    designated: r.get(4),
                })
                .collect())
        })
    }

    fn consumed(&mut self, query: &CandidateQuery<'_>) -> Result<usize, SessionError> {
        self.read(async |conn| {
            let rows = conn
                .rows(
                    CONSUMED,
                    &[&query.session, &query.agent, &query.group, &query.iteration],
                )
                .await?;
            Ok(rows.first().map_or(0, |r| r.get::<_, i64>(0)) as usize)
        })
    }

    fn packages(&mut self, ids: &[i64]) -> Result<Vec<Package>, SessionError> {
        self.read(async |conn| packages(conn, ids).await)
    }

    fn consume(
        &mut self,
        row: &ConsumptionRow<'_>,
    ) -> Result<Option<ConsumptionDone>, SessionError> {
        self.write(async |conn| {
            let rows = conn
                .rows(
                    CONSUME,
                    &[
                        &row.package,
                        &row.session,
                        &row.agent,
                        &row.iteration,
                        &row.at,
                    ],
                )
                .await?;
            let Some(r) = rows.first() else {
                return Ok(None);
            };
            let (exists, designated, newly): (bool, bool, bool) = (r.get(0), r.get(1), r.get(2));
            Ok(exists.then_some(ConsumptionDone { newly, designated }))
        })
    }

    fn record_pattern(
        &mut self,
        row: &PatternRow<'_>,
        initial: i64,
    ) -> Result<(Recording, Pattern), SessionError> {
        self.write(async |conn| record(conn, row, initial).await)
    }

    fn adjust_confidence(
        &mut self,
        project: &str,
        prefix: &str,
        now: i64,
        step: &dyn Fn(i64) -> i64,
    ) -> Result<Adjusted, SessionError> {
        self.write(async |conn| adjust(conn, project, prefix, now, step).await)
    }

    fn pattern_by_hash(
        &mut self,
        project: &str,
        hash: &str,
        now: i64,
    ) -> Result<Option<Pattern>, SessionError> {
        self.read(async |conn| {
            let rows = conn.rows(BY_HASH, &[&project, &hash, &now]).await?;
            Ok(rows.first().map(|r| pattern(r, 1)))
        })
    }

    fn postings(
        &mut self,
        project: &str,
        terms: &[String],
        cap: usize,
    ) -> Result<Vec<Vec<(i64, i64)>>, SessionError> {
        let list: Vec<&str> = terms.iter().map(String::as_str).collect();
        let limit = cap as i64 + 1;
        self.read(async |conn| {
            let rows = conn.rows(POSTINGS, &[&project, &list, &limit]).await?;
            let mut out = vec![Vec::new(); terms.len()];
            for r in rows {
                let i: i64 = r.get(0);
                if let Some(list) = out.get_mut((i - 1) as usize) {
                    list.push((r.get(1), r.get(2)));
                }
            }
            for list in &mut out {
                list.sort_unstable();
            }
            Ok(out)
        })
    }

    fn pattern_stats(
        &mut self,
        project: &str,
        ids: &[i64],
        now: i64,
    ) -> Result<Vec<PatternStat>, SessionError> {
        let list = ids.to_vec();
        self.read(async |conn| {
            let rows = conn.rows(STATS, &[&list, &project, &now]).await?;
            Ok(rows
                .iter()
                .map(|r| PatternStat {
                    id: r.get(0),
                    hash: r.get(1),
                    confidence: r.get(2),
                    words: r.get(3),
                })
                .collect())
        })
    }

    fn patterns(&mut self, ids: &[i64]) -> Result<Vec<Pattern>, SessionError> {
        let list = ids.to_vec();
        self.read(async |conn| {
            let rows = conn.rows(PATTERNS, &[&list]).await?;
            let found = rows.iter().map(|r| (r.get(0), pattern(r, 1))).collect();
            Ok(in_order(ids, found))
        })
    }

    fn injectable(
        &mut self,
        project: Option<&str>,
        above: i64,
        limit: usize,
        now: i64,
    ) -> Result<Vec<Pattern>, SessionError> {
        let limit = limit as i64;
        self.read(async |conn| {
            let rows = conn
                .rows(INJECTABLE, &[&project, &above, &now, &limit])
                .await?;
            Ok(rows.iter().map(|r| pattern(r, 1)).collect())
        })
    }

    fn prune(&mut self, cutoff: i64, now: i64) -> Result<Pruned, SessionError> {
        self.write(async |conn| {
            let packages = conn.execute(PRUNE_PACKAGES, &[&cutoff]).await? as usize;
            let sessions = conn.execute(PRUNE_SESSIONS, &[&cutoff]).await? as usize;
            let error_patterns = conn.execute(PRUNE_PATTERNS, &[&cutoff, &now]).await? as usize;
            Ok(Pruned {
                packages,
                sessions,
                error_patterns,
            })
        })
    }

    fn counts(&mut self) -> Result<Counts, SessionError> {
        self.read(async |conn| {
            let rows = conn.rows(COUNTS, &[]).await?;
            let mut counts = Counts::default();
            if let Some(r) = rows.first() {
                for (i, table) in Table::ALL.into_iter().enumerate() {
                    counts.set(table, r.get(i));
                }
            }
            Ok(counts)
        })
    }

    fn read_rows(
        &mut self,
        table: Table,
        after: Option<&[Value]>,
        limit: usize,
    ) -> Result<Vec<Row>, SessionError> {
        self.read(async |conn| read_rows(conn, table, after, limit).await)
    }

    fn begin_read(&mut self) -> Result<(), SessionError> {
        self.pin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    }

    fn end_read(&mut self) -> Result<(), SessionError> {
        self.unpin("COMMIT")
    }

    fn begin_import(&mut self) -> Result<(), SessionError> {
        self.pin("BEGIN; LOCK TABLE brief.sessions, brief.packages, brief.error_patterns IN EXCLUSIVE MODE")?;
        let counts = self.counts()?;
        if counts.is_empty() {
            return Ok(());
        }
        let _ = self.unpin("ROLLBACK");
        Err(crate::store::not_empty(self.shown(), &counts))
    }

    fn write_rows(&mut self, table: Table, rows: &[Row]) -> Result<(), SessionError> {
        self.read(async |conn| write_rows(conn, table, rows).await)
    }

    fn finish_import(&mut self) -> Result<(), SessionError> {
        self.read(async |conn| {
            for table in Table::ALL.into_iter().filter(|t| t.has_id_sequence()) {
                let sql = format!(
                    "SELECT setval(pg_get_serial_sequence('brief.{0}', 'id'), max(id)) FROM brief.{0} HAVING max(id) IS NOT NULL",
                    table.name()
                );
                conn.client().query(&sql, &[]).await?;
            }
            Ok(())
        })?;
        self.unpin("COMMIT")
    }
}
