//! Error patterns: a normalized error message, the solution that fixed it, and how far that
//! solution can be trusted. Confidence starts at 0.5, rises 0.1 each time the solution
//! helped (to 1.0) and falls 0.2 each time it did not (to 0.1); it is kept in whole
//! hundredths so thresholds such as "above 0.7" are exact. A pattern unseen for its TTL
//! (90 days) expires: it stops matching and `prune` deletes it.

use rusqlite::{params, OptionalExtension, Row, TransactionBehavior};
use serde::Serialize;

use super::redact::redact;
use super::signature::{hash, normalize};
use super::{id_text, SessionError, Store};

/// Confidence of a new pattern, in hundredths.
pub const INITIAL_CONFIDENCE: i64 = 50;
/// Days a pattern lives after it was last seen.
pub const DEFAULT_TTL_DAYS: i64 = 90;
/// Confidence (hundredths) a pattern must exceed to be offered unasked in a zone document.
pub const INJECT_ABOVE: i64 = 70;

/// An error and its solution to record.
#[derive(Debug, Clone, Default)]
pub struct ErrorRecord {
    pub project: String,
    pub message: String,
    pub solution: String,
    pub lang: Option<String>,
}

/// A stored pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pattern {
    pub project: String,
    pub hash: String,
    pub signature: String,
    pub solution: String,
    /// 0.0–1.0 in steps of 0.01.
    pub confidence: f64,
    pub occurrences: i64,
    pub lang: Option<String>,
    /// Unix seconds.
    pub created: i64,
    pub last_seen: i64,
    pub ttl_days: i64,
}

/// The result of [`error_record`].
#[derive(Debug, Clone, Serialize)]
pub struct Recorded {
    /// `created`, or `updated` when the signature was known.
    pub operation: &'static str,
    pub pattern: Pattern,
    /// Kinds of secret removed from the message or solution.
    pub redacted: Vec<&'static str>,
}

/// The result of [`error_feedback`].
#[derive(Debug, Clone, Serialize)]
pub struct Feedback {
    pub hash: String,
    pub previous_confidence: f64,
    pub confidence: f64,
    /// Above the threshold for zone documents.
    pub injectable: bool,
}

/// One answer of [`error_match`].
#[derive(Debug, Clone, Serialize)]
pub struct ErrorMatch {
    /// True when the signature hash matched; false for a full-text neighbour.
    pub exact: bool,
    pub pattern: Pattern,
}

/// The result of [`prune`].
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Pruned {
    pub packages: usize,
    pub sessions: usize,
    pub error_patterns: usize,
}

const COLUMNS: &str =
    "project, hash, signature, solution, confidence, occurrences, lang, created, last_seen, ttl_days";

fn pattern(r: &Row<'_>) -> rusqlite::Result<Pattern> {
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

/// The SQL condition "not expired at ?now" for a pattern row.
const ALIVE: &str = "last_seen + ttl_days * 86400 >= ?now";

fn non_empty(what: &str, text: &str) -> Result<String, SessionError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(SessionError::Usage(format!("{what} is empty")));
    }
    Ok(t.to_string())
}

/// Records an error and its solution: a new signature is created at confidence 0.5; a
/// known one counts one more occurrence, and a different solution replaces the old one and
/// resets its confidence to 0.5 (trust belongs to a solution, not to the error).
pub fn error_record(
    store: &mut Store,
    record: &ErrorRecord,
    now: i64,
) -> Result<Recorded, SessionError> {
    let project = id_text("project", &record.project)?;
    let message = non_empty("--message", &record.message)?;
    let solution = redact(&non_empty("--solution", &record.solution)?);
    let lang = record
        .lang
        .as_deref()
        .map(|l| l.trim().to_ascii_lowercase())
        .filter(|l| !l.is_empty());
    let mut redacted = redact(&message).kinds;
    redacted.extend(solution.kinds.iter().copied());
    redacted.sort_unstable();
    redacted.dedup();
    let signature = normalize(&message);
    let h = hash(&signature);

    let tx = store
        .conn
        .transaction_with_behavior(TransactionBehavior::Immediate)?;
    let existing: Option<(i64, String)> = tx
        .query_row(
            "SELECT id, solution FROM error_patterns WHERE project = ?1 AND hash = ?2",
            params![project, h],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let operation = match existing {
        Some((id, old)) => {
            let reset = old != solution.text;
            tx.execute(
                "UPDATE error_patterns SET occurrences = occurrences + 1, last_seen = ?2,
                   solution = ?3, lang = coalesce(?4, lang),
                   confidence = CASE WHEN ?5 THEN ?6 ELSE confidence END
                 WHERE id = ?1",
                params![id, now, solution.text, lang, reset, INITIAL_CONFIDENCE],
            )?;
            "updated"
        }
        None => {
            tx.execute(
                "INSERT INTO error_patterns (project, hash, signature, solution, confidence, occurrences, lang, created, last_seen, ttl_days)
                 VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?7, ?7, ?8)",
                params![project, h, signature, solution.text, INITIAL_CONFIDENCE, lang, now, DEFAULT_TTL_DAYS],
            )?;
            "created"
        }
    };
    let pattern = tx.query_row(
        &format!("SELECT {COLUMNS} FROM error_patterns WHERE project = ?1 AND hash = ?2"),
        params![project, h],
        pattern,
    )?;
    tx.commit()?;
    Ok(Recorded {
        operation,
        pattern,
        redacted,
    })
}

/// Reports whether a pattern's solution helped: +0.1 (at most 1.0) or −0.2 (at least 0.1).
/// `hash` may be a unique prefix of at least 4 characters.
pub fn error_feedback(
    store: &mut Store,
    project: &str,
    hash_or_prefix: &str,
    helped: bool,
    now: i64,
) -> Result<Feedback, SessionError> {
    let project = id_text("project", project)?;
    let wanted = hash_or_prefix.trim().to_ascii_lowercase();
    if wanted.len() < 4 || !wanted.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(SessionError::Usage(format!(
            "--hash `{hash_or_prefix}` must be the pattern's hex hash (or at least its first 4 digits), as printed by `brief session error record` or `match`"
        )));
    }
    let tx = store
        .conn
        .transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found: Vec<(i64, String, i64)> = {
        let mut stmt = tx.prepare_cached(
            "SELECT id, hash, confidence FROM error_patterns
             WHERE project = ?1 AND substr(hash, 1, length(?2)) = ?2 ORDER BY hash LIMIT 2",
        )?;
        let rows = stmt.query_map(params![project, wanted], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?;
        rows.collect::<Result<_, _>>()?
    };
    let (id, full, previous) = match found.as_slice() {
        [one] => one.clone(),
        [] => {
            return Err(SessionError::NotFound(format!(
                "no error pattern {wanted} in project {project} (see `brief session error match`)"
            )))
        }
        _ => {
            return Err(SessionError::Usage(format!(
                "--hash {wanted} matches several patterns ({} and {}); give more digits",
                found[0].1, found[1].1
            )))
        }
    };
    let next = if helped {
        (previous + 10).min(100)
    } else {
        (previous - 20).max(10)
    };
    tx.execute(
        "UPDATE error_patterns SET confidence = ?2, last_seen = ?3 WHERE id = ?1",
        params![id, next, now],
    )?;
    tx.commit()?;
    Ok(Feedback {
        hash: full,
        previous_confidence: previous as f64 / 100.0,
        confidence: next as f64 / 100.0,
        injectable: next > INJECT_ABOVE,
    })
}

/// The pattern whose signature equals `message`'s, or, when there is none, up to `limit`
/// live patterns of the project whose signatures share the most words with it (FTS5, BM25).
pub fn error_match(
    store: &Store,
    project: &str,
    message: &str,
    limit: usize,
    now: i64,
) -> Result<Vec<ErrorMatch>, SessionError> {
    let project = id_text("project", project)?;
    let signature = normalize(&non_empty("--message", message)?);
    let h = hash(&signature);
    let exact = store
        .conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM error_patterns WHERE project = ?1 AND hash = ?2 AND {}",
            ALIVE.replace("?now", "?3")
        ))?
        .query_row(params![project, h, now], pattern)
        .optional()?;
    if let Some(p) = exact {
        return Ok(vec![ErrorMatch {
            exact: true,
            pattern: p,
        }]);
    }
    let query = fts_query(&signature);
    if query.is_empty() {
        return Ok(Vec::new());
    }
    let mut stmt = store.conn.prepare_cached(&format!(
        "SELECT {} FROM error_search s JOIN error_patterns e ON e.id = s.rowid
         WHERE error_search MATCH ?1 AND e.project = ?2 AND {}
         ORDER BY bm25(error_search), e.confidence DESC, e.hash LIMIT ?4",
        COLUMNS
            .split(", ")
            .map(|c| format!("e.{c}"))
            .collect::<Vec<_>>()
            .join(", "),
        ALIVE
            .replace("last_seen", "e.last_seen")
            .replace("ttl_days", "e.ttl_days")
            .replace("?now", "?3")
    ))?;
    let rows = stmt.query_map(params![query, project, now, limit as i64], pattern)?;
    let mut out = Vec::new();
    for p in rows {
        out.push(ErrorMatch {
            exact: false,
            pattern: p?,
        });
    }
    Ok(out)
}

/// The words of a signature as an FTS5 `OR` query (placeholders and short words left out).
fn fts_query(signature: &str) -> String {
    let mut words: Vec<String> = signature
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| w.chars().count() >= 3 && !matches!(*w, "path" | "hex"))
        .map(|w| format!("\"{}\"", w.to_lowercase()))
        .collect();
    words.sort();
    words.dedup();
    words.join(" OR ")
}

/// Patterns for a zone document: live, confidence above 0.7, best first.
pub fn injectable(
    store: &Store,
    project: Option<&str>,
    limit: usize,
    now: i64,
) -> Result<Vec<Pattern>, SessionError> {
    let mut stmt = store.conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM error_patterns
         WHERE (?1 IS NULL OR project = ?1) AND confidence > ?2 AND {}
         ORDER BY confidence DESC, occurrences DESC, hash, project LIMIT ?4",
        ALIVE.replace("?now", "?3")
    ))?;
    let rows = stmt.query_map(params![project, INJECT_ABOVE, now, limit as i64], pattern)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Deletes packages created more than `days` days ago (with their consumer records),
/// sessions left empty that are as old, and error patterns last seen that long ago or past
/// their TTL.
pub fn prune(store: &mut Store, days: i64, now: i64) -> Result<Pruned, SessionError> {
    if days < 0 {
        return Err(SessionError::Usage(
            "--older-than must be 0 days or more".into(),
        ));
    }
    let cutoff = now.saturating_sub(days.saturating_mul(86_400));
    let tx = store
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
        &format!(
            "DELETE FROM error_patterns WHERE last_seen < ?1 OR NOT ({})",
            ALIVE.replace("?now", "?2")
        ),
        params![cutoff, now],
    )?;
    tx.commit()?;
    Ok(Pruned {
        packages,
        sessions,
        error_patterns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Mode;

    const NOW: i64 = 1_760_000_000;

    fn rec(project: &str, message: &str, solution: &str) -> ErrorRecord {
        ErrorRecord {
            project: project.into(),
            message: message.into(),
            solution: solution.into(),
            lang: Some("TypeScript".into()),
        }
    }

    #[test]
    fn record_upsert_feedback_and_threshold() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), Mode::Create).unwrap();
        let first = error_record(
            &mut store,
            &rec(
                "notes",
                "Cannot find module '@/utils' from /home/ana/notes/src/web/app.ts:3:1",
                "Set baseUrl and paths in tsconfig.json",
            ),
            NOW,
        )
        .unwrap();
        assert_eq!(
            (
                first.operation,
                first.pattern.confidence,
                first.pattern.occurrences
            ),
            ("created", 0.5, 1)
        );
        assert_eq!(first.pattern.lang.as_deref(), Some("typescript"));
        let again = error_record(
            &mut store,
            &rec(
                "notes",
                "Cannot find module '@/lib' from /srv/ci/src/web/sync.ts:40:9",
                "Set baseUrl and paths in tsconfig.json",
            ),
            NOW + 60,
        )
        .unwrap();
        assert_eq!((again.operation, again.pattern.occurrences), ("updated", 2));
        assert_eq!(again.pattern.hash, first.pattern.hash);
        let h = first.pattern.hash.clone();
        // 0.5 → 0.6 → 0.7 (not above 0.7) → 0.8 → 0.9 → 1.0 → 1.0.
        let mut seen = Vec::new();
        for _ in 0..6 {
            let f = error_feedback(&mut store, "notes", &h, true, NOW).unwrap();
            seen.push((f.confidence, f.injectable));
        }
        assert_eq!(
            seen,
            [
                (0.6, false),
                (0.7, false),
                (0.8, true),
                (0.9, true),
                (1.0, true),
                (1.0, true)
            ]
        );
        assert_eq!(injectable(&store, Some("notes"), 3, NOW).unwrap().len(), 1);
        // Down by 0.2 to a floor of 0.1; a prefix works.
        let mut down = Vec::new();
        for _ in 0..6 {
            down.push(
                error_feedback(&mut store, "notes", &h[..6], false, NOW)
                    .unwrap()
                    .confidence,
            );
        }
        assert_eq!(down, [0.8, 0.6, 0.4, 0.2, 0.1, 0.1]);
        assert!(injectable(&store, Some("notes"), 3, NOW)
            .unwrap()
            .is_empty());
        // A new solution resets the confidence.
        error_feedback(&mut store, "notes", &h, true, NOW).unwrap();
        let changed = error_record(
            &mut store,
            &rec(
                "notes",
                "Cannot find module '@/x' from a/b.ts:1:1",
                "Install the missing package",
            ),
            NOW,
        )
        .unwrap();
        assert_eq!(
            (changed.pattern.confidence, changed.pattern.occurrences),
            (0.5, 3)
        );
        // Unknown hashes and other projects are not found.
        assert_eq!(
            error_feedback(&mut store, "notes", "ffffffff", true, NOW)
                .unwrap_err()
                .exit_code(),
            1
        );
        assert_eq!(
            error_feedback(&mut store, "other", &h, true, NOW)
                .unwrap_err()
                .exit_code(),
            1
        );
        assert_eq!(
            error_feedback(&mut store, "notes", "zz", true, NOW)
                .unwrap_err()
                .exit_code(),
            2
        );
    }

    #[test]
    fn match_exact_then_full_text_and_expiry() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), Mode::Create).unwrap();
        error_record(&mut store, &rec("notes", "sqlite3.OperationalError: database is locked at /app/src/search/indexer.py line 142", "Open the index with WAL and a busy timeout"), NOW).unwrap();
        error_record(
            &mut store,
            &rec(
                "notes",
                "TypeError: Cannot read properties of undefined (reading 'id')",
                "Guard the optional note before reading id",
            ),
            NOW,
        )
        .unwrap();
        let exact = error_match(
            &store,
            "notes",
            "sqlite3.OperationalError: database is locked at /srv/x/indexer.py line 7",
            3,
            NOW,
        )
        .unwrap();
        assert!(exact.len() == 1 && exact[0].exact);
        let near = error_match(
            &store,
            "notes",
            "OperationalError: database is locked while vacuuming",
            3,
            NOW,
        )
        .unwrap();
        assert!(!near.is_empty() && !near[0].exact, "{near:?}");
        assert!(near[0].pattern.solution.contains("WAL"));
        assert!(error_match(&store, "notes", "segmentation fault", 3, NOW)
            .unwrap()
            .is_empty());
        assert!(error_match(
            &store,
            "other",
            "TypeError: Cannot read properties of undefined (reading 'x')",
            3,
            NOW
        )
        .unwrap()
        .is_empty());
        // Expired after 90 idle days: no match; prune deletes it.
        let later = NOW + 91 * 86_400;
        assert!(error_match(
            &store,
            "notes",
            "TypeError: Cannot read properties of undefined (reading 'x')",
            3,
            later
        )
        .unwrap()
        .is_empty());
        let pruned = prune(&mut store, 365, later).unwrap();
        assert_eq!(pruned.error_patterns, 2);
    }

    #[test]
    fn prune_by_age() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path(), Mode::Create).unwrap();
        use crate::packages::{package_add, NewPackage};
        use crate::{PackageType, Priority};
        let new = |session: &str| NewPackage {
            session: session.into(),
            group: None,
            kind: PackageType::Handoff,
            file: "handoff.md".into(),
            producer: "developer".into(),
            consumers: vec!["qa_expert".into()],
            priority: Priority::Medium,
            summary: "Ready for QA".into(),
            supersedes: None,
        };
        package_add(&mut store, &new("old"), NOW - 40 * 86_400).unwrap();
        package_add(&mut store, &new("new"), NOW - 86_400).unwrap();
        let p = prune(&mut store, 30, NOW).unwrap();
        assert_eq!(
            p,
            Pruned {
                packages: 1,
                sessions: 1,
                error_patterns: 0
            }
        );
        assert_eq!(
            prune(&mut store, 30, NOW).unwrap(),
            Pruned {
                packages: 0,
                sessions: 0,
                error_patterns: 0
            }
        );
    }
}
