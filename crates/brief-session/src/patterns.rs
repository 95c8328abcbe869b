//! Error patterns: a normalized error message, the solution that fixed it, and how far that
//! solution can be trusted. Confidence starts at 0.5, rises 0.1 each time the solution
//! helped (to 1.0) and falls 0.2 each time it did not (to 0.1); it is kept in whole
//! hundredths so thresholds such as "above 0.7" are exact. A pattern unseen for its TTL
//! (90 days) expires: it stops matching and `prune` deletes it.

use brief_engine::{Param, Said};
use std::collections::BTreeMap;

use serde::Serialize;

use super::redact::redact;
use super::signature::{normalize_signature, signature_hash};
use super::similar;
use super::store::{Adjusted, PatternRow, Recording};
pub use super::stored::Pattern;
pub(crate) use super::stored::Pruned;
use super::{id_text, SessionError, Store};

/// Confidence of a new pattern, in hundredths.
pub(crate) const INITIAL_CONFIDENCE: i64 = 50;
/// Confidence (hundredths) a pattern must exceed to be offered unasked in a zone document.
pub(crate) const INJECT_ABOVE: i64 = 70;

/// An error and its solution to record.
#[derive(Debug, Clone, Default)]
pub struct ErrorRecord {
    /// The project the error belongs to.
    pub project: String,
    /// The error message as met; its signature is computed from it.
    pub message: String,
    /// What solved it.
    pub solution: String,
    /// The language or tool it came from, if known.
    pub lang: Option<String>,
}

/// The result of [`error_record`].
#[derive(Debug, Clone, Serialize)]
pub struct Recorded {
    /// `created`, or `updated` when the signature was known.
    pub operation: &'static str,
    /// The pattern as stored now.
    pub pattern: Pattern,
    /// Kinds of secret removed from the message or solution.
    pub redacted: Vec<&'static str>,
}

/// The result of `brief session error feedback`.
#[derive(Debug, Clone, Serialize)]
pub struct Feedback {
    /// The pattern's signature hash.
    pub hash: String,
    /// Its confidence before the feedback.
    pub previous_confidence: f64,
    /// Its confidence after it.
    pub confidence: f64,
    /// Above the threshold for zone documents.
    pub injectable: bool,
}

/// One answer of [`error_match`].
#[derive(Debug, Clone, Serialize)]
pub struct ErrorMatch {
    /// True when the signature hash matched; false for a full-text neighbour.
    pub exact: bool,
    /// The stored pattern.
    pub pattern: Pattern,
}

fn non_empty(what: Param, text: &str) -> Result<String, SessionError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(SessionError::Usage(
            Said::new().param(what).text(" is empty"),
        ));
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
    let message = non_empty(Param::Message, &record.message)?;
    let solution = redact(&non_empty(Param::Solution, &record.solution)?);
    let lang = record
        .lang
        .as_deref()
        .map(|l| l.trim().to_ascii_lowercase())
        .filter(|l| !l.is_empty());
    let mut redacted = redact(&message).kinds;
    redacted.extend(solution.kinds.iter().copied());
    redacted.sort_unstable();
    redacted.dedup();
    let signature = normalize_signature(&message);
    let h = signature_hash(&signature);
    let (terms, words) = similar::terms(&signature);
    let row = PatternRow {
        project: &project,
        hash: &h,
        signature: &signature,
        solution: &solution.text,
        lang: lang.as_deref(),
        now,
        terms: &terms,
        words,
    };
    let (recording, pattern) = store.backend().record_pattern(&row, INITIAL_CONFIDENCE)?;
    Ok(Recorded {
        operation: match recording {
            Recording::Created => "created",
            Recording::Updated => "updated",
        },
        pattern,
        redacted,
    })
}

/// The confidence after feedback: +0.1 (at most 1.0) when the solution helped, −0.2 (at
/// least 0.1) when it did not, in hundredths.
fn step(previous: i64, helped: bool) -> i64 {
    if helped {
        (previous + 10).min(100)
    } else {
        (previous - 20).max(10)
    }
}

/// Reports whether a pattern's solution helped: +0.1 (at most 1.0) or −0.2 (at least 0.1).
/// `hash` may be a unique prefix of at least 4 characters.
pub(crate) fn error_feedback(
    store: &mut Store,
    project: &str,
    hash_or_prefix: &str,
    helped: bool,
    now: i64,
) -> Result<Feedback, SessionError> {
    let project = id_text("project", project)?;
    let wanted = hash_or_prefix.trim().to_ascii_lowercase();
    if wanted.len() < 4 || !wanted.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(SessionError::Usage(Said::new().param(Param::Hash).text(format!(
            " `{hash_or_prefix}` must be the pattern's hex hash (or at least its first 4 digits), as printed by `brief session error record` or `match`"
        ))));
    }
    let adjusted = store
        .backend()
        .adjust_confidence(&project, &wanted, now, &|previous| step(previous, helped))?;
    match adjusted {
        Adjusted::Done {
            hash,
            previous,
            next,
        } => Ok(Feedback {
            hash,
            previous_confidence: previous as f64 / 100.0,
            confidence: next as f64 / 100.0,
            injectable: next > INJECT_ABOVE,
        }),
        Adjusted::NotFound => Err(SessionError::NotFound(
            format!(
                "no error pattern {wanted} in project {project} (see `brief session error match`)"
            )
            .into(),
        )),
        Adjusted::Ambiguous(a, b) => Err(SessionError::Usage(Said::new().param(Param::Hash).text(
            format!(" {wanted} matches several patterns ({a} and {b}); give more digits"),
        ))),
    }
}

/// The pattern whose signature equals `message`'s, or, when there is none, up to `limit`
/// live patterns of the project whose signatures share the most telling words with it
/// (BM25, see `similar`).
pub fn error_match(
    store: &mut Store,
    project: &str,
    message: &str,
    limit: usize,
    now: i64,
) -> Result<Vec<ErrorMatch>, SessionError> {
    let project = id_text("project", project)?;
    let signature = normalize_signature(&non_empty(Param::Message, message)?);
    let h = signature_hash(&signature);
    if let Some(p) = store.backend().pattern_by_hash(&project, &h, now)? {
        return Ok(vec![ErrorMatch {
            exact: true,
            pattern: p,
        }]);
    }
    let terms = similar::query_terms(&signature);
    if terms.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let postings = store
        .backend()
        .postings(&project, &terms, similar::COMMON)?;
    // Per candidate pattern: (document frequency, count) of each word it shares.
    let mut shared: BTreeMap<i64, Vec<(usize, i64)>> = BTreeMap::new();
    for list in postings.iter().filter(|l| l.len() <= similar::COMMON) {
        for &(id, tf) in list {
            shared.entry(id).or_default().push((list.len(), tf));
        }
    }
    let ids: Vec<i64> = shared.keys().copied().collect();
    let mut scored: Vec<(i64, i64, String, i64)> = store
        .backend()
        .pattern_stats(&project, &ids, now)?
        .into_iter()
        .map(|s| {
            let score = similar::score(&shared[&s.id], s.words);
            (score, s.confidence, s.hash, s.id)
        })
        .collect();
    // Best score, then higher confidence, then the smaller hash (unique in a project).
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    scored.truncate(limit);
    let best: Vec<i64> = scored.iter().map(|s| s.3).collect();
    Ok(store
        .backend()
        .patterns(&best)?
        .into_iter()
        .map(|pattern| ErrorMatch {
            exact: false,
            pattern,
        })
        .collect())
}

/// Patterns for a zone document: live, confidence above 0.7, best first.
pub(crate) fn injectable(
    store: &mut Store,
    project: Option<&str>,
    limit: usize,
    now: i64,
) -> Result<Vec<Pattern>, SessionError> {
    store
        .backend()
        .injectable(project, INJECT_ABOVE, limit, now)
}

/// Deletes packages created more than `days` days ago (with their consumer records),
/// sessions left empty that are as old, and error patterns last seen that long ago or past
/// their TTL.
pub fn prune(store: &mut Store, days: i64, now: i64) -> Result<Pruned, SessionError> {
    if days < 0 {
        return Err(SessionError::Usage(
            Said::new()
                .param(Param::OlderThan)
                .text(" must be 0 days or more"),
        ));
    }
    let cutoff = now.saturating_sub(days.saturating_mul(86_400));
    store.backend().prune(cutoff, now)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        crate::testing::each_store(record_upsert_feedback_and_threshold_on);
    }

    fn record_upsert_feedback_and_threshold_on(store: &mut Store) {
        let first = error_record(
            store,
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
            store,
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
            let f = error_feedback(store, "notes", &h, true, NOW).unwrap();
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
        assert_eq!(injectable(store, Some("notes"), 3, NOW).unwrap().len(), 1);
        // Down by 0.2 to a floor of 0.1; a prefix works.
        let mut down = Vec::new();
        for _ in 0..6 {
            down.push(
                error_feedback(store, "notes", &h[..6], false, NOW)
                    .unwrap()
                    .confidence,
            );
        }
        assert_eq!(down, [0.8, 0.6, 0.4, 0.2, 0.1, 0.1]);
        assert!(injectable(store, Some("notes"), 3, NOW).unwrap().is_empty());
        // A new solution resets the confidence.
        error_feedback(store, "notes", &h, true, NOW).unwrap();
        let changed = error_record(
            store,
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
            error_feedback(store, "notes", "ffffffff", true, NOW)
                .unwrap_err()
                .exit_code(),
            1
        );
        assert_eq!(
            error_feedback(store, "other", &h, true, NOW)
                .unwrap_err()
                .exit_code(),
            1
        );
        assert_eq!(
            error_feedback(store, "notes", "zz", true, NOW)
                .unwrap_err()
                .exit_code(),
            2
        );
    }

    #[test]
    fn match_exact_then_full_text_and_expiry() {
        crate::testing::each_store(match_exact_then_full_text_and_expiry_on);
    }

    fn match_exact_then_full_text_and_expiry_on(store: &mut Store) {
        error_record(store, &rec("notes", "sqlite3.OperationalError: database is locked at /app/src/search/indexer.py line 142", "Open the index with WAL and a busy timeout"), NOW).unwrap();
        error_record(
            store,
            &rec(
                "notes",
                "TypeError: Cannot read properties of undefined (reading 'id')",
                "Guard the optional note before reading id",
            ),
            NOW,
        )
        .unwrap();
        let exact = error_match(
            store,
            "notes",
            "sqlite3.OperationalError: database is locked at /srv/x/indexer.py line 7",
            3,
            NOW,
        )
        .unwrap();
        assert!(exact.len() == 1 && exact[0].exact);
        let near = error_match(
            store,
            "notes",
            "OperationalError: database is locked while vacuuming",
            3,
            NOW,
        )
        .unwrap();
        assert!(!near.is_empty() && !near[0].exact, "{near:?}");
        assert!(near[0].pattern.solution.contains("WAL"));
        assert!(error_match(store, "notes", "segmentation fault", 3, NOW)
            .unwrap()
            .is_empty());
        assert!(error_match(
            store,
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
            store,
            "notes",
            "TypeError: Cannot read properties of undefined (reading 'x')",
            3,
            later
        )
        .unwrap()
        .is_empty());
        let pruned = prune(store, 365, later).unwrap();
        assert_eq!(pruned.error_patterns, 2);
    }

    #[test]
    fn prune_by_age() {
        crate::testing::each_store(prune_by_age_on);
    }

    fn prune_by_age_on(store: &mut Store) {
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
        package_add(store, &new("old"), NOW - 40 * 86_400).unwrap();
        package_add(store, &new("new"), NOW - 86_400).unwrap();
        let p = prune(store, 30, NOW).unwrap();
        assert_eq!(
            p,
            Pruned {
                packages: 1,
                sessions: 1,
                error_patterns: 0
            }
        );
        assert_eq!(
            prune(store, 30, NOW).unwrap(),
            Pruned {
                packages: 0,
                sessions: 0,
                error_patterns: 0
            }
        );
    }
}
