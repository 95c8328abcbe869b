//! brief-index's integration tests as one test binary. Run one part with
//! `cargo test -p brief-index --test it specs::`.

// Test code: a failed unwrap is the failure report (clippy.toml's test allowances do not
// reach this crate).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod specs;
