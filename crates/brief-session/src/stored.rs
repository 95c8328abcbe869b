//! The records the store keeps and hands back, shared by both backends and the modules that
//! give them meaning ([`crate::packages`], [`crate::patterns`]).

use serde::Serialize;

/// Days a pattern lives after it was last seen.
pub(crate) const DEFAULT_TTL_DAYS: i64 = 90;

/// A stored package.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Package {
    /// Its id, unique in the store.
    pub id: i64,
    /// Its session.
    pub session: String,
    /// Its group; `None`: global.
    pub group: Option<String>,
    /// Its package type's name.
    #[serde(rename = "type")]
    pub kind: String,
    /// The file it points at, relative to the project root.
    pub file_path: String,
    /// The agent type that wrote it.
    pub producer: String,
    /// Its priority's name.
    pub priority: String,
    /// What it says.
    pub summary: String,
    /// Unix seconds.
    pub created: i64,
    /// The earlier package of the session it replaces.
    pub supersedes: Option<i64>,
    /// The agent types it is meant for.
    pub consumers: Vec<String>,
    /// The ranking score for the request that listed it.
    pub score: f64,
}

/// A stored pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pattern {
    /// The project it belongs to.
    pub project: String,
    /// The hash of its signature, its key within the project.
    pub hash: String,
    /// The error message in normalized form (`signature::normalize`).
    pub signature: String,
    /// What solved it.
    pub solution: String,
    /// 0.0–1.0 in steps of 0.01.
    pub confidence: f64,
    /// How many times it was recorded.
    pub occurrences: i64,
    /// The language or tool it came from, if known.
    pub lang: Option<String>,
    /// Unix seconds.
    pub created: i64,
    /// When it was last recorded (Unix seconds).
    pub last_seen: i64,
    /// Days it lives after `last_seen` before a prune removes it.
    pub ttl_days: i64,
}

/// The result of [`prune`](crate::prune): what it deleted.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Pruned {
    pub packages: usize,
    pub sessions: usize,
    pub error_patterns: usize,
}
