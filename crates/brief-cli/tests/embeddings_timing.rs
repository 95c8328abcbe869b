//! The bound of docs/embeddings.md, "When the endpoint fails": whatever goes wrong with the
//! endpoint — refused, stalled, an HTTP error, a partial batch, wrong dimensions, bytes that
//! are not HTTP — `brief context "<words>"` answers within the time-out plus 50 ms of the
//! same command without embeddings, exit 0.
//!
//! In a test binary of its own, so that no other test of this crate runs beside it (libtest
//! runs one binary's tests in parallel; cargo runs the binaries one after another): the
//! bound is about brief, not about a machine busy with 200 other tests. Each side is the
//! best of three runs, since a loaded machine only ever adds time.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(feature = "embeddings")]

#[path = "common/mod.rs"]
mod common;

use std::time::Duration;

use common::copy_fixture;
use common::embed::*;

#[test]
fn a_failing_endpoint_costs_a_context_at_most_its_time_out() {
    let stub = stub(Answer::Vectors(8));
    let dir = copy_fixture(ADR_TOOLS);
    let root = dir.path().to_str().unwrap();
    let (code, _, err, _) = brief_with(&["index", "--root", root], &env_of(&stub));
    assert_eq!(code, 0, "{err}");
    let off = [("BRIEF_EMBEDDINGS", "off".to_string())];
    let best = |env: &[(&str, String)]| {
        (0..3)
            .map(|_| {
                let (code, _, err, took) = brief_with(&context_args(root), env);
                assert_eq!(code, 0, "{err}");
                took
            })
            .min()
            .unwrap()
    };
    let refused = closed_port();
    for (case, answer, _) in failures() {
        let env = match answer {
            Some(answer) => {
                stub.set(answer);
                env_of(&stub)
            }
            None => env_for(&refused),
        };
        let without = best(&off);
        let took = best(&env);
        let limit = without + Duration::from_millis(TIMEOUT_MS + 50);
        assert!(took <= limit, "{case}: took {took:?}, limit {limit:?}");
        eprintln!("{case}: {took:?} (without embeddings {without:?})");
    }
}
