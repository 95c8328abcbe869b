//! Context packages: what one agent leaves for others (research notes, failure analyses,
//! decisions, handoffs), ranked for the agent that asks.

use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::Serialize;

use super::rank::{rank, Candidate};
use super::redact::redact;
use super::{
    agent_name, group_name, id_text, PackageType, Priority, SessionConfig, SessionError, Store,
};

/// The longest summary accepted (characters): a summary is a pointer, the file holds detail.
pub const MAX_SUMMARY: usize = 2000;

/// A package to add.
#[derive(Debug, Clone)]
pub struct NewPackage {
    pub session: String,
    pub group: Option<String>,
    pub kind: PackageType,
    /// Relative to the project root.
    pub file: String,
    pub producer: String,
    /// Agent types the package is meant for (at least one).
    pub consumers: Vec<String>,
    pub priority: Priority,
    pub summary: String,
    /// An earlier package of the same session that this one replaces.
    pub supersedes: Option<i64>,
}

/// The result of [`package_add`].
#[derive(Debug, Clone, Serialize)]
pub struct Added {
    pub id: i64,
    pub session: String,
    pub consumers: Vec<String>,
    /// Kinds of secret removed from the summary or path before storing.
    pub redacted: Vec<&'static str>,
}

/// A stored package.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Package {
    pub id: i64,
    pub session: String,
    pub group: Option<String>,
    #[serde(rename = "type")]
    pub kind: String,
    pub file_path: String,
    pub producer: String,
    pub priority: String,
    pub summary: String,
    /// Unix seconds.
    pub created: i64,
    pub supersedes: Option<i64>,
    pub consumers: Vec<String>,
    /// The ranking score for the request that listed it.
    pub score: f64,
}

/// What [`package_list`] returns for.
#[derive(Debug, Clone, Default)]
pub struct ListRequest {
    pub session: String,
    pub agent: String,
    /// Packages of this group and global ones (no group); `None`: the whole session.
    pub group: Option<String>,
    /// Most packages returned [default: the agent type's retrieval limit].
    pub limit: Option<usize>,
    /// Packages the agent consumed in this iteration are left out [default: 1].
    pub iteration: Option<i64>,
    /// Only packages of this priority or higher.
    pub min_priority: Option<Priority>,
}

/// Ranked packages and what did not make the limit.
#[derive(Debug, Clone, Serialize)]
pub struct Listing {
    pub session: String,
    pub agent: String,
    pub group: Option<String>,
    pub limit: usize,
    /// Every package that matched, before the limit.
    pub total_available: usize,
    /// `total_available - packages.len()`.
    pub overflow: usize,
    pub packages: Vec<Package>,
}

/// A consumption to record.
#[derive(Debug, Clone)]
pub struct ConsumeRequest {
    pub session: String,
    pub agent: String,
    pub id: i64,
    /// [default: 1]
    pub iteration: Option<i64>,
}

/// The result of [`package_consume`].
#[derive(Debug, Clone, Serialize)]
pub struct Consumed {
    pub id: i64,
    pub agent: String,
    pub iteration: i64,
    /// False when it had already been consumed by this agent in this iteration.
    pub newly: bool,
    /// Whether the agent type was one of the package's designated consumers.
    pub designated: bool,
}

fn clean_summary(raw: &str) -> Result<String, SessionError> {
    let flat = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.is_empty() {
        return Err(SessionError::Usage(
            "--summary is empty: say in one or two sentences what the file holds".into(),
        ));
    }
    let n = flat.chars().count();
    if n > MAX_SUMMARY {
        return Err(SessionError::Usage(format!(
            "--summary is {n} characters; keep it under {MAX_SUMMARY} and put the detail in the file"
        )));
    }
    Ok(flat)
}

fn clean_path(raw: &str) -> Result<String, SessionError> {
    let p = raw.trim().replace('\\', "/");
    let absolute = p.starts_with('/') || p.as_bytes().get(1) == Some(&b':');
    if p.is_empty() || absolute || p.split('/').any(|c| c == "..") {
        return Err(SessionError::Usage(format!(
            "--file `{raw}` must be a path relative to the project root, without `..` (e.g. bazinga/artifacts/S/research.md)"
        )));
    }
    Ok(p.trim_start_matches("./").to_string())
}

/// Adds a package (creating its session on first use) in one transaction.
pub fn package_add(store: &mut Store, new: &NewPackage, now: i64) -> Result<Added, SessionError> {
    let session = id_text("session", &new.session)?;
    let group = new.group.as_deref().map(group_name).transpose()?;
    let producer = agent_name(&new.producer)?;
    let mut consumers = Vec::new();
    for c in &new.consumers {
        let c = agent_name(c)?;
        if !consumers.contains(&c) {
            consumers.push(c);
        }
    }
    if consumers.is_empty() {
        return Err(SessionError::Usage(
            "--consumers needs at least one agent type (e.g. --consumers developer,qa_expert)"
                .into(),
        ));
    }
    consumers.sort();
    let summary = redact(&clean_summary(&new.summary)?);
    let file = redact(&clean_path(&new.file)?);
    let mut redacted = summary.kinds.clone();
    redacted.extend(file.kinds.iter().copied());
    redacted.sort_unstable();
    redacted.dedup();

    let tx = store
        .conn
        .transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute(
        "INSERT OR IGNORE INTO sessions (id, created) VALUES (?1, ?2)",
        params![session, now],
    )?;
    if let Some(old) = new.supersedes {
        let owner: Option<String> = tx
            .query_row(
                "SELECT session_id FROM packages WHERE id = ?1",
                [old],
                |r| r.get(0),
            )
            .optional()?;
        if owner.as_deref() != Some(session.as_str()) {
            return Err(SessionError::NotFound(format!(
                "--supersedes {old}: no such package in session {session} (see `brief session package list`)"
            )));
        }
    }
    tx.execute(
        "INSERT INTO packages (session_id, group_id, type, file_path, producer, priority, summary, created, supersedes)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            session,
            group,
            new.kind.as_str(),
            file.text,
            producer,
            new.priority.as_str(),
            summary.text,
            now,
            new.supersedes
        ],
    )?;
    let id = tx.last_insert_rowid();
    {
        let mut stmt =
            tx.prepare_cached("INSERT INTO consumers (package_id, agent) VALUES (?1, ?2)")?;
        for c in &consumers {
            stmt.execute(params![id, c])?;
        }
    }
    tx.commit()?;
    Ok(Added {
        id,
        session,
        consumers,
        redacted,
    })
}

/// The ranked packages of a session for an agent: not superseded, not yet consumed by that
/// agent in this iteration, in the group or global.
pub fn package_list(
    store: &Store,
    request: &ListRequest,
    config: &SessionConfig,
    now: i64,
) -> Result<Listing, SessionError> {
    let session = id_text("session", &request.session)?;
    let agent = agent_name(&request.agent)?;
    let group = request.group.as_deref().map(group_name).transpose()?;
    let limit = request.limit.unwrap_or_else(|| config.limit_for(&agent));
    if limit == 0 {
        return Err(SessionError::Usage("--limit must be at least 1".into()));
    }
    let iteration = request.iteration.unwrap_or(1);
    let min_weight = request.min_priority.map_or(0, |p| p.weight());
    let mut stmt = store.conn.prepare_cached(
        "SELECT p.id, p.priority, p.group_id, p.created,
                EXISTS (SELECT 1 FROM consumers c WHERE c.package_id = p.id AND c.agent = ?2)
         FROM packages p
         WHERE p.session_id = ?1
           AND (?3 IS NULL OR p.group_id = ?3 OR p.group_id IS NULL)
           AND NOT EXISTS (SELECT 1 FROM packages s WHERE s.supersedes = p.id)
           AND NOT EXISTS (SELECT 1 FROM consumptions k
                           WHERE k.package_id = p.id AND k.agent = ?2 AND k.iteration = ?4)",
    )?;
    let rows = stmt.query_map(params![session, agent, group, iteration], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
            r.get::<_, i64>(3)?,
            r.get::<_, bool>(4)?,
        ))
    })?;
    let mut candidates = Vec::new();
    for row in rows {
        let (id, priority, group_id, created, designated) = row?;
        // The CHECK constraint keeps priorities valid; a foreign value ranks lowest.
        let priority = priority.parse().unwrap_or(Priority::Low);
        if priority.weight() < min_weight {
            continue;
        }
        candidates.push(Candidate {
            id,
            priority,
            group: group_id,
            created,
            designated,
        });
    }
    let total = candidates.len();
    let ranked = rank(candidates, group.as_deref(), now);
    let mut packages = Vec::with_capacity(limit.min(total));
    for (candidate, score) in ranked.into_iter().take(limit) {
        let mut p = load(store, candidate.id)?;
        p.score = (score * 10_000.0).round() / 10_000.0;
        packages.push(p);
    }
    Ok(Listing {
        session,
        agent,
        group,
        limit,
        total_available: total,
        overflow: total - packages.len(),
        packages,
    })
}

/// One package with its consumers.
fn load(store: &Store, id: i64) -> Result<Package, SessionError> {
    let mut p = store.conn.prepare_cached(
        "SELECT id, session_id, group_id, type, file_path, producer, priority, summary, created, supersedes
         FROM packages WHERE id = ?1",
    )?
    .query_row([id], |r| {
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
    })?;
    let mut stmt = store
        .conn
        .prepare_cached("SELECT agent FROM consumers WHERE package_id = ?1 ORDER BY agent")?;
    p.consumers = stmt
        .query_map([id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(p)
}

/// Records that `agent` consumed package `id` in an iteration (idempotent).
pub fn package_consume(
    store: &mut Store,
    request: &ConsumeRequest,
    now: i64,
) -> Result<Consumed, SessionError> {
    let session = id_text("session", &request.session)?;
    let agent = agent_name(&request.agent)?;
    let iteration = request.iteration.unwrap_or(1);
    if iteration < 0 {
        return Err(SessionError::Usage("--iteration must be 0 or more".into()));
    }
    let tx = store
        .conn
        .transaction_with_behavior(TransactionBehavior::Immediate)?;
    let owner: Option<String> = tx
        .query_row(
            "SELECT session_id FROM packages WHERE id = ?1",
            [request.id],
            |r| r.get(0),
        )
        .optional()?;
    if owner.as_deref() != Some(session.as_str()) {
        return Err(SessionError::NotFound(format!(
            "no package {} in session {session} (see `brief session package list --session {session} --agent {agent}`)",
            request.id
        )));
    }
    let designated: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM consumers WHERE package_id = ?1 AND agent = ?2)",
        params![request.id, agent],
        |r| r.get(0),
    )?;
    let inserted = tx.execute(
        "INSERT OR IGNORE INTO consumptions (package_id, agent, iteration, consumed_at) VALUES (?1, ?2, ?3, ?4)",
        params![request.id, agent, iteration, now],
    )?;
    tx.commit()?;
    Ok(Consumed {
        id: request.id,
        agent,
        iteration,
        newly: inserted == 1,
        designated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Mode;

    pub(crate) fn pkg(
        session: &str,
        group: Option<&str>,
        priority: Priority,
        consumers: &[&str],
        summary: &str,
    ) -> NewPackage {
        NewPackage {
            session: session.into(),
            group: group.map(str::to_string),
            kind: PackageType::Research,
            file: format!("bazinga/artifacts/{session}/notes.md"),
            producer: "requirements_engineer".into(),
            consumers: consumers.iter().map(|s| s.to_string()).collect(),
            priority,
            summary: summary.into(),
            supersedes: None,
        }
    }

    #[test]
    fn add_list_consume_supersede() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), Mode::Create).unwrap();
        let cfg = SessionConfig::default();
        let now = 1_760_000_000;
        let a = package_add(
            &mut store,
            &pkg(
                "s1",
                Some("group_a"),
                Priority::High,
                &["developer"],
                "JWT refresh flow",
            ),
            now,
        )
        .unwrap();
        let b = package_add(
            &mut store,
            &pkg(
                "s1",
                None,
                Priority::Medium,
                &["qa_expert"],
                "Global API style",
            ),
            now,
        )
        .unwrap();
        let c = package_add(
            &mut store,
            &pkg(
                "s1",
                Some("group_b"),
                Priority::Critical,
                &["developer"],
                "Other group",
            ),
            now,
        )
        .unwrap();
        let req = ListRequest {
            session: "s1".into(),
            agent: "developer".into(),
            group: Some("group_a".into()),
            ..Default::default()
        };
        let l = package_list(&store, &req, &cfg, now).unwrap();
        assert_eq!(
            l.packages.iter().map(|p| p.id).collect::<Vec<_>>(),
            [a.id, b.id]
        );
        assert_eq!((l.total_available, l.overflow, l.limit), (2, 0, 3));
        // Whole session, limit 1: overflow counts the rest.
        let all = ListRequest {
            group: None,
            limit: Some(1),
            ..req.clone()
        };
        let l = package_list(&store, &all, &cfg, now).unwrap();
        assert_eq!(l.packages[0].id, c.id);
        assert_eq!((l.total_available, l.overflow), (3, 2));
        // Consumed in iteration 1: gone for iteration 1, back for iteration 2.
        let done = package_consume(
            &mut store,
            &ConsumeRequest {
                session: "s1".into(),
                agent: "developer".into(),
                id: a.id,
                iteration: None,
            },
            now,
        )
        .unwrap();
        assert!(done.newly && done.designated);
        let again = package_consume(
            &mut store,
            &ConsumeRequest {
                session: "s1".into(),
                agent: "developer".into(),
                id: a.id,
                iteration: None,
            },
            now,
        )
        .unwrap();
        assert!(!again.newly);
        let l = package_list(&store, &req, &cfg, now).unwrap();
        assert_eq!(l.packages.iter().map(|p| p.id).collect::<Vec<_>>(), [b.id]);
        let l = package_list(
            &store,
            &ListRequest {
                iteration: Some(2),
                ..req.clone()
            },
            &cfg,
            now,
        )
        .unwrap();
        assert_eq!(l.total_available, 2);
        // Superseded packages drop out.
        let mut newer = pkg("s1", None, Priority::Low, &["developer"], "API style v2");
        newer.supersedes = Some(b.id);
        let d = package_add(&mut store, &newer, now).unwrap();
        let l = package_list(&store, &req, &cfg, now).unwrap();
        assert_eq!(l.packages.iter().map(|p| p.id).collect::<Vec<_>>(), [d.id]);
        // Unknown ids are "not found"; bad input is usage.
        let err = package_consume(
            &mut store,
            &ConsumeRequest {
                session: "s2".into(),
                agent: "developer".into(),
                id: a.id,
                iteration: None,
            },
            now,
        )
        .unwrap_err();
        assert_eq!(err.exit_code(), 1);
        let mut bad = pkg("s1", None, Priority::Low, &["developer"], "x");
        bad.file = "/etc/passwd".into();
        assert_eq!(
            package_add(&mut store, &bad, now).unwrap_err().exit_code(),
            2
        );
    }

    #[test]
    fn secrets_are_redacted_before_storing() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), Mode::Create).unwrap();
        let added = package_add(&mut store, &pkg("s1", None, Priority::High, &["developer"], "Staging DB at postgres://notes:Pa55word@db.staging:5432/notes, key AKIAIOSFODNN7EXAMPLE"), 0).unwrap();
        assert_eq!(added.redacted, vec!["aws-key", "connection-credentials"]);
        let stored: String = store
            .conn
            .query_row("SELECT summary FROM packages", [], |r| r.get(0))
            .unwrap();
        assert!(
            !stored.contains("Pa55word") && !stored.contains("AKIA"),
            "{stored}"
        );
    }
}
