//! The records the store keeps and hands back, shared by both backends and the modules that
//! give them meaning ([`crate::packages`], [`crate::patterns`]).

use serde::Serialize;

/// Days a pattern lives after it was last seen.
pub const DEFAULT_TTL_DAYS: i64 = 90;

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

/// The result of [`prune`](crate::prune): what it deleted.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Pruned {
    pub packages: usize,
    pub sessions: usize,
    pub error_patterns: usize,
}
