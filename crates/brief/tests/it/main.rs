//! brief's integration tests as one test binary (one link of the library and its
//! dev-dependencies instead of one per file). Run one part with
//! `cargo test -p brief --test it index::`.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod budget_props;
mod cancel;
#[cfg(feature = "embeddings")]
mod embeddings;
mod fn_length;
mod fuzz;
mod guidance;
mod impact;
mod index;
mod index_damage;
mod layering;
mod pub_api;
mod quality;
mod store;
#[cfg(unix)]
mod watched;
