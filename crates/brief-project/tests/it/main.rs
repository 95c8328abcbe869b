//! brief-project's integration tests as one test binary: every source kind loaded through
//! `Project::load` on the fixtures of the real layouts (`brief-cli/tests/fixtures/`). Run one
//! part with `cargo test -p brief-project --test it kb::`.

// Test code: a failed unwrap is the failure report (clippy.toml's test allowances do not
// reach this crate).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod kb;
mod specs;
