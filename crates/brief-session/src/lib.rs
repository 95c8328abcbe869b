//! The agent-session store (docs/session.md): context packages that agents hand
//! each other, error patterns with their solutions, and the zone-aware session context that
//! `brief context --session` assembles around the graph context.
//!
//! Everything here takes a [`Store`] (or the project root) and a request struct and returns
//! plain data or the exact text to print, so the CLI and an MCP server are thin adapters.
//! "Now" is always a parameter (Unix seconds): nothing reads the clock, so output is
//! reproducible.
//!
//! The modules are private; the root re-exports what the front ends, the façade and the tests
//! name:
//! - `store` — the [`Store`] over its two backends: `.brief/sessions.db` (SQLite, the
//!   default) or a PostgreSQL database (`[session] url`, feature `postgres`).
//! - `packages` — add, list (ranked), consume; `rank` — the package score.
//! - `patterns` — error patterns: record, feedback, match, prune.
//! - `similar` — the words of a signature and the score of similar patterns.
//! - `signature` — error-message normalization and its hash ([`normalize_signature`],
//!   [`signature_hash`]).
//! - `migrate` — copying a store between backends, verified by counts ([`copy_store`]).
//! - `redact` — secret redaction (on store and on render; [`Secrets`] says which).
//! - `zone` — token zones; `context` — the zone document ([`zone_context`]).
//! - `render` — text and JSON for every result; `commands` — [`Command`] run by [`run`].
//! - `testing` (feature `testing`) — a PostgreSQL server for tests: the one public module,
//!   an extension point for the tests and benches of the crates above.

mod commands;
mod config;
mod context;
mod migrate;
#[cfg(test)]
#[cfg(feature = "postgres")]
mod on_postgres;
mod packages;
mod patterns;
mod rank;
mod redact;
mod render;
mod signature;
mod similar;
mod store;
mod stored;
// A harness of PostgreSQL servers: only where the PostgreSQL store is built (`testing` alone
// adds no driver, so a build without `postgres` pulls in no tokio through its tests).
#[cfg(all(feature = "postgres", any(test, feature = "testing")))]
pub mod testing;
mod zone;

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use brief_engine::Said;
pub use commands::{now, run, Command, Outcome};
pub use config::{
    SessionConfig, DEFAULT_LIMIT, DEFAULT_LIMITS, DEFAULT_MODEL, DEFAULT_SAFETY_MARGIN,
    DEFAULT_WINDOWS,
};
pub use context::{zone_context, SessionPart, ZoneRequest};
pub use migrate::{copy_store, Copied};
pub(crate) use packages::package_consume;
pub use packages::{
    package_add, package_list, Added, ConsumeRequest, ListRequest, Listing, NewPackage, Package,
};
pub(crate) use patterns::{error_feedback, Pruned};
pub use patterns::{error_match, error_record, prune, ErrorMatch, ErrorRecord, Feedback, Pattern};
pub use redact::{redact, redact_str, Redacted, Secrets};
pub use render::Output;
pub use signature::{normalize_signature, signature_hash};
pub use store::{Location, Mode, Store, Table};
pub use zone::{Usage, Zone};

/// Why a session operation failed; [`SessionError::exit_code`] maps it to the CLI's codes.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// Bad input: the message says what to pass instead.
    #[error("{0}")]
    Usage(Said),
    /// The package, pattern or session asked for does not exist.
    #[error("{0}")]
    NotFound(Said),
    /// No store yet (readers never create one).
    #[error("{0} does not exist yet: `brief session package add` or `brief session error record` creates it")]
    Missing(String),
    /// The store cannot be opened or read.
    #[error("{path}: {message}")]
    Store {
        /// The store, as shown (a path, or a URL without its password).
        path: String,
        /// What failed.
        message: String,
    },
    /// A store written by a newer brief.
    #[error("{path} has schema version {version}, newer than this brief understands ({supported}); upgrade brief (the store was left untouched)")]
    Newer {
        /// The store, as shown.
        path: String,
        /// Its schema version.
        version: i64,
        /// The newest version this brief reads.
        supported: i64,
    },
    /// The graph part of a zone document failed.
    #[error(transparent)]
    Engine(#[from] brief_engine::EngineError),
}

impl SessionError {
    /// 1 when something asked for was not found (including everything in a store that does
    /// not exist yet), 2 for bad usage or an unreadable store.
    pub fn exit_code(&self) -> u8 {
        match self {
            SessionError::NotFound(_) | SessionError::Missing(_) => 1,
            SessionError::Engine(e) => e.exit_code(),
            _ => 2,
        }
    }

    /// Whether the store itself is unusable (missing, damaged, too new), as opposed to a bad
    /// request: the cases a zone document degrades around.
    pub(crate) fn is_store_problem(&self) -> bool {
        matches!(
            self,
            SessionError::Missing(_) | SessionError::Store { .. } | SessionError::Newer { .. }
        )
    }
}

/// What a context package holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PackageType {
    /// Research findings (`research`).
    Research,
    /// Failures met, so others avoid them (`failures`).
    Failures,
    /// Decisions taken (`decisions`).
    Decisions,
    /// Work handed over to the next agent (`handoff`).
    Handoff,
    /// The findings of an investigation (`investigation`).
    Investigation,
}

impl PackageType {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            PackageType::Research => "research",
            PackageType::Failures => "failures",
            PackageType::Decisions => "decisions",
            PackageType::Handoff => "handoff",
            PackageType::Investigation => "investigation",
        }
    }
}

impl FromStr for PackageType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "research" => PackageType::Research,
            "failures" => PackageType::Failures,
            "decisions" => PackageType::Decisions,
            "handoff" => PackageType::Handoff,
            "investigation" => PackageType::Investigation,
            other => {
                return Err(format!(
                    "unknown package type `{other}`: use research, failures, decisions, handoff or investigation"
                ))
            }
        })
    }
}

/// How much a package matters; the weight enters the score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Weight 1.
    Low,
    /// Weight 2.
    Medium,
    /// Weight 3.
    High,
    /// Weight 4; the only packages shown in the Conservative zone.
    Critical,
}

impl Priority {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Low => "low",
            Priority::Medium => "medium",
            Priority::High => "high",
            Priority::Critical => "critical",
        }
    }

    /// 1 (low) to 4 (critical).
    pub fn weight(self) -> u8 {
        self as u8 + 1
    }
}

impl FromStr for Priority {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "low" => Priority::Low,
            "medium" => Priority::Medium,
            "high" => Priority::High,
            "critical" => Priority::Critical,
            other => {
                return Err(format!(
                    "unknown priority `{other}`: use low, medium, high or critical"
                ))
            }
        })
    }
}

impl fmt::Display for Priority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Checks an agent type name (`developer`, `qa_expert`) and returns it lower-cased.
pub(crate) fn agent_name(raw: &str) -> Result<String, SessionError> {
    let name = raw.trim().to_ascii_lowercase();
    if name.is_empty()
        || name.len() > 64
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(SessionError::Usage(format!(
            "agent type `{raw}` must be 1–64 letters, digits, `_` or `-` (e.g. developer, qa_expert, tech_lead)"
        ).into()));
    }
    Ok(name)
}

/// Checks a session or project id: 1–128 printable characters, no whitespace.
pub(crate) fn id_text(what: &str, raw: &str) -> Result<String, SessionError> {
    let id = raw.trim();
    if id.is_empty()
        || id.chars().count() > 128
        || id.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(SessionError::Usage(
            format!(
            "{what} `{raw}` must be 1–128 characters without spaces (e.g. bazinga_20250212_143530)"
        )
            .into(),
        ));
    }
    Ok(id.to_string())
}

/// Checks a group id: 1–64 letters, digits, `_`, `-` or `.`.
pub(crate) fn group_name(raw: &str) -> Result<String, SessionError> {
    let g = raw.trim();
    if g.is_empty()
        || g.len() > 64
        || !g
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Err(SessionError::Usage(
            format!("group `{raw}` must be 1–64 letters, digits, `_`, `-` or `.` (e.g. group_a)")
                .into(),
        ));
    }
    Ok(g.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(agent_name(" QA_Expert ").unwrap(), "qa_expert");
        assert!(agent_name("qa expert").is_err());
        assert!(group_name("group a").is_err());
        assert_eq!("Critical".parse::<Priority>().unwrap().weight(), 4);
        assert!("urgent".parse::<Priority>().is_err());
        assert!("notes".parse::<PackageType>().is_err());
    }
}
