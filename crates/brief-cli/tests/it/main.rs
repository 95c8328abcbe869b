//! brief-cli's integration tests as one test binary: each module drives the real `brief`
//! binary. One binary instead of one per file saves a link of every dev-dependency per file
//! (most of a cold `cargo test`'s time on two cores). Run one part with
//! `cargo test -p brief-cli --test it search::`.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;

#[cfg(feature = "mcp")]
mod both_ways;
mod budget;
mod check;
mod cli;
mod diff;
#[cfg(feature = "embeddings")]
mod embeddings;
mod errors;
mod hardening;
mod hook;
mod impact;
mod kb;
#[cfg(feature = "mcp")]
mod mcp;
mod quality;
mod search;
#[cfg(feature = "mcp")]
mod serve;
// Both session stores side by side: the PostgreSQL half needs its harness.
#[cfg(feature = "postgres")]
mod session;
mod specs;
mod tana;
mod traversal;
#[cfg(unix)]
mod watch;
