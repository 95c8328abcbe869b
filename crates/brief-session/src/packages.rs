//! Context packages: what one agent leaves for others (research notes, failure analyses,
//! decisions, handoffs), ranked for the agent that asks.

use brief_engine::{Param, Said};
use std::path::Path;

use serde::Serialize;

use super::rank::{rank, Candidate};
use super::redact::{redact, Redacted};
use super::store::{CandidateQuery, ConsumptionRow, PackageRow};
pub use super::stored::Package;
use super::{
    agent_name, group_name, id_text, PackageType, Priority, SessionConfig, SessionError, Store,
};
use brief_root::{EntryKind, OpenError, Root};

/// The longest summary accepted (characters): a summary is a pointer, the file holds detail.
pub(crate) const MAX_SUMMARY: usize = 2000;

/// A package to add.
#[derive(Debug, Clone)]
pub struct NewPackage {
    /// The session it belongs to.
    pub session: String,
    /// The group it is for; `None`: global to the session.
    pub group: Option<String>,
    /// What it holds.
    pub kind: PackageType,
    /// Relative to the project root.
    pub file: String,
    /// The agent type that wrote it.
    pub producer: String,
    /// Agent types the package is meant for (at least one).
    pub consumers: Vec<String>,
    /// How much it matters (enters the score).
    pub priority: Priority,
    /// What it says, in at most 2,000 characters.
    pub summary: String,
    /// An earlier package of the same session that this one replaces.
    pub supersedes: Option<i64>,
}

/// The result of [`package_add`].
#[derive(Debug, Clone, Serialize)]
pub struct Added {
    /// The new package's id.
    pub id: i64,
    /// Its session.
    pub session: String,
    /// The agent types it is meant for.
    pub consumers: Vec<String>,
    /// Kinds of secret removed from the summary or path before storing.
    pub redacted: Vec<&'static str>,
}

/// What [`package_list`] returns for.
#[derive(Debug, Clone, Default)]
pub struct ListRequest {
    /// The session whose packages are listed.
    pub session: String,
    /// The agent type asking: packages meant for it.
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
    /// The session asked about.
    pub session: String,
    /// The agent type asking.
    pub agent: String,
    /// The group asked about, if any.
    pub group: Option<String>,
    /// The limit applied.
    pub limit: usize,
    /// Every package that matched, before the limit.
    pub total_available: usize,
    /// `total_available - packages.len()`.
    pub overflow: usize,
    /// The packages within the limit, best first.
    pub packages: Vec<Package>,
    /// The iteration asked about.
    #[serde(skip)]
    pub iteration: i64,
    /// When none is left: how many of the session's packages for the agent it consumed in
    /// this iteration (0 otherwise), so "none yet" and "all read" read differently.
    #[serde(skip)]
    pub consumed: usize,
}

/// A consumption to record.
#[derive(Debug, Clone)]
pub struct ConsumeRequest {
    /// The package's session.
    pub session: String,
    /// The agent type that read it.
    pub agent: String,
    /// The package's id.
    pub id: i64,
    /// [default: 1]
    pub iteration: Option<i64>,
}

/// The result of [`package_consume`].
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Consumed {
    /// The package's id.
    pub id: i64,
    /// The agent type that read it.
    pub agent: String,
    /// The iteration it was read in.
    pub iteration: i64,
    /// False when it had already been consumed by this agent in this iteration.
    pub newly: bool,
    /// Whether the agent type was one of the package's designated consumers.
    pub designated: bool,
}

/// The summary as given, byte for byte (its whitespace is the author's), if it has text and
/// is not too long.
fn check_summary(raw: &str) -> Result<&str, SessionError> {
    if raw.trim().is_empty() {
        return Err(SessionError::Usage(Said::new().param(Param::Summary).text(
            " is empty: say in one or two sentences what the file holds",
        )));
    }
    let n = raw.chars().count();
    if n > MAX_SUMMARY {
        return Err(SessionError::Usage(Said::new().param(Param::Summary).text(
            format!(
                " is {n} characters; keep it under {MAX_SUMMARY} and put the detail in the file"
            ),
        )));
    }
    Ok(raw)
}

fn clean_path(raw: &str) -> Result<String, SessionError> {
    let p = raw.trim().replace('\\', "/");
    let absolute = p.starts_with('/') || p.as_bytes().get(1) == Some(&b':');
    if p.is_empty() || absolute || p.split('/').any(|c| c == "..") {
        return Err(SessionError::Usage(Said::new().param(Param::File).text(format!(
            " `{raw}` must be a path relative to the project root, without `..` (e.g. bazinga/artifacts/S/research.md)"
        ))));
    }
    Ok(p.trim_start_matches("./").to_string())
}

/// A package checked and redacted, ready to store.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    session: String,
    group: Option<String>,
    kind: PackageType,
    /// The path as given (cleaned), before redaction: the file to check.
    file: String,
    stored_file: String,
    producer: String,
    consumers: Vec<String>,
    priority: Priority,
    summary: String,
    supersedes: Option<i64>,
    redacted: Vec<&'static str>,
}

impl Prepared {
    /// Checks names, the path and the summary, and redacts secrets from the text stored.
    pub(crate) fn new(new: &NewPackage) -> Result<Prepared, SessionError> {
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
                Said::new()
                    .param(Param::Consumers)
                    .text(" needs at least one agent type (e.g. ")
                    .param(Param::Consumers)
                    .text(" developer,qa_expert)"),
            ));
        }
        consumers.sort();
        let summary: Redacted = redact(check_summary(&new.summary)?);
        let file = clean_path(&new.file)?;
        let stored_file = redact(&file);
        let mut redacted = summary.kinds.clone();
        redacted.extend(stored_file.kinds.iter().copied());
        redacted.sort_unstable();
        redacted.dedup();
        Ok(Prepared {
            session,
            group,
            kind: new.kind,
            file,
            stored_file: stored_file.text,
            producer,
            consumers,
            priority: new.priority,
            summary: summary.text,
            supersedes: new.supersedes,
            redacted,
        })
    }

    /// The package's file, relative to the project root.
    pub(crate) fn file(&self) -> &str {
        &self.file
    }

    /// Stores the package (creating its session on first use) in one transaction.
    pub(crate) fn store(&self, store: &mut Store, now: i64) -> Result<Added, SessionError> {
        let row = PackageRow {
            session: &self.session,
            group: self.group.as_deref(),
            kind: self.kind.as_str(),
            file: &self.stored_file,
            producer: &self.producer,
            priority: self.priority.as_str(),
            summary: &self.summary,
            created: now,
            supersedes: self.supersedes,
            consumers: &self.consumers,
        };
        let Some(id) = store.backend().insert_package(&row)? else {
            return Err(SessionError::NotFound(
                Said::new().param(Param::Supersedes).text(format!(
                    " {}: no such package in session {} (see `brief session package list`)",
                    self.supersedes.unwrap_or_default(),
                    self.session
                )),
            ));
        };
        Ok(Added {
            id,
            session: self.session.clone(),
            consumers: self.consumers.clone(),
            redacted: self.redacted.clone(),
        })
    }
}

/// Refuses a package file that is not a regular file beneath the project root: a package
/// points other agents at a file, so the file must be there to read.
pub(crate) fn check_file(root: &Path, file: &str) -> Result<(), SessionError> {
    let usage = |why: &str| {
        SessionError::Usage(
            Said::new()
                .param(Param::File)
                .text(format!(" `{file}` {why}")),
        )
    };
    let guard = Root::open(root).map_err(|e| {
        SessionError::Usage(
            format!("cannot open the project folder {}: {e}", root.display()).into(),
        )
    })?;
    match guard.kind(&root.join(file)) {
        Ok(EntryKind::File) => Ok(()),
        Ok(_) | Err(OpenError::NotRegular(_)) => Err(usage(
            "is not a regular file: a package names the file that holds its detail",
        )),
        Err(OpenError::Outside | OpenError::Symlink) => Err(usage(
            "leads outside the project (through a symbolic link): name a file inside it",
        )),
        Err(e) if e.is_missing() => Err(usage(
            "does not exist beneath the project root: write the package's file first, then add the package",
        )),
        Err(OpenError::Io(e)) => Err(usage(&format!("cannot be read: {e}"))),
    }
}

/// Adds a package (creating its session on first use) in one transaction.
pub fn package_add(store: &mut Store, new: &NewPackage, now: i64) -> Result<Added, SessionError> {
    Prepared::new(new)?.store(store, now)
}

/// The ranked packages of a session for an agent: not superseded, not yet consumed by that
/// agent in this iteration, in the group or global.
pub fn package_list(
    store: &mut Store,
    request: &ListRequest,
    config: &SessionConfig,
    now: i64,
) -> Result<Listing, SessionError> {
    let session = id_text("session", &request.session)?;
    let agent = agent_name(&request.agent)?;
    let group = request.group.as_deref().map(group_name).transpose()?;
    let limit = request.limit.unwrap_or_else(|| config.limit_for(&agent));
    if limit == 0 {
        return Err(SessionError::Usage(
            Said::new().param(Param::Limit).text(" must be at least 1"),
        ));
    }
    let iteration = request.iteration.unwrap_or(1);
    let min_weight = request.min_priority.map_or(0, |p| p.weight());
    let query = CandidateQuery {
        session: &session,
        agent: &agent,
        group: group.as_deref(),
        iteration,
    };
    let rows = store.backend().candidates(&query)?;
    let mut candidates = Vec::with_capacity(rows.len());
    for row in rows {
        // The CHECK constraint keeps priorities valid; a foreign value ranks lowest.
        let priority = row.priority.parse().unwrap_or(Priority::Low);
        if priority.weight() < min_weight {
            continue;
        }
        candidates.push(Candidate {
            id: row.id,
            priority,
            group: row.group,
            created: row.created,
            designated: row.designated,
        });
    }
    let total = candidates.len();
    let consumed = if total == 0 {
        store.backend().consumed(&query)?
    } else {
        0
    };
    let ranked: Vec<(Candidate, f64)> = rank(candidates, group.as_deref(), now)
        .into_iter()
        .take(limit)
        .collect();
    let ids: Vec<i64> = ranked.iter().map(|(c, _)| c.id).collect();
    // A package pruned since the candidates were read is left out (the backend skips it).
    let mut packages = store.backend().packages(&ids)?;
    for p in &mut packages {
        if let Some((_, score)) = ranked.iter().find(|(c, _)| c.id == p.id) {
            p.score = (score * 10_000.0).round() / 10_000.0;
        }
    }
    Ok(Listing {
        session,
        agent,
        group,
        limit,
        total_available: total,
        overflow: total - packages.len(),
        packages,
        iteration,
        consumed,
    })
}

/// Records that `agent` consumed package `id` in an iteration (idempotent).
pub(crate) fn package_consume(
    store: &mut Store,
    request: &ConsumeRequest,
    now: i64,
) -> Result<Consumed, SessionError> {
    let session = id_text("session", &request.session)?;
    let agent = agent_name(&request.agent)?;
    let iteration = request.iteration.unwrap_or(1);
    if iteration < 0 {
        return Err(SessionError::Usage(
            Said::new()
                .param(Param::Iteration)
                .text(" must be 0 or more"),
        ));
    }
    let row = ConsumptionRow {
        session: &session,
        agent: &agent,
        package: request.id,
        iteration,
        at: now,
    };
    let Some(done) = store.backend().consume(&row)? else {
        return Err(SessionError::NotFound(format!(
            "no package {} in session {session} (see `brief session package list --session {session} --agent {agent}`)",
            request.id
        ).into()));
    };
    Ok(Consumed {
        id: request.id,
        agent,
        iteration,
        newly: done.newly,
        designated: done.designated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        crate::testing::each_store(add_list_consume_supersede_on);
    }

    fn add_list_consume_supersede_on(store: &mut Store) {
        let cfg = SessionConfig::default();
        let now = 1_760_000_000;
        let a = package_add(
            store,
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
            store,
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
            store,
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
        let l = package_list(store, &req, &cfg, now).unwrap();
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
        let l = package_list(store, &all, &cfg, now).unwrap();
        assert_eq!(l.packages[0].id, c.id);
        assert_eq!((l.total_available, l.overflow), (3, 2));
        // Consumed in iteration 1: gone for iteration 1, back for iteration 2.
        let done = package_consume(
            store,
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
            store,
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
        let l = package_list(store, &req, &cfg, now).unwrap();
        assert_eq!(l.packages.iter().map(|p| p.id).collect::<Vec<_>>(), [b.id]);
        let l = package_list(
            store,
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
        let d = package_add(store, &newer, now).unwrap();
        let l = package_list(store, &req, &cfg, now).unwrap();
        assert_eq!(l.packages.iter().map(|p| p.id).collect::<Vec<_>>(), [d.id]);
        // Unknown ids are "not found"; bad input is usage.
        let err = package_consume(
            store,
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
        assert_eq!(package_add(store, &bad, now).unwrap_err().exit_code(), 2);
    }

    #[test]
    fn secrets_are_redacted_before_storing() {
        let stores = crate::testing::Stores::new();
        for (_, mut store) in stores.open() {
            let added = package_add(&mut store, &pkg("s1", None, Priority::High, &["developer"], "Staging DB at postgres://notes:Pa55word@db.staging:5432/notes, key AKIAIOSFODNN7EXAMPLE"), 0).unwrap();
            assert_eq!(added.redacted, vec!["aws-key", "connection-credentials"]);
            let rows = store
                .backend()
                .read_rows(crate::store::Table::Packages, None, 10)
                .unwrap();
            let crate::store::Value::Text(stored) = &rows[0][7] else {
                panic!("{rows:?}")
            };
            assert!(
                !stored.contains("Pa55word") && !stored.contains("AKIA"),
                "{stored}"
            );
        }
    }
}
