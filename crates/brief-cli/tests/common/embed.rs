//! Helpers of the embeddings tests: the stub server (`brief_embed::stub`), the environment
//! that points brief at it, and `brief` run under a given environment and timed.

use std::net::TcpListener;
use std::process::Command;
use std::time::{Duration, Instant};

pub(crate) use brief_embed::stub::{Answer, Stub};

/// The Nygard ADR fixture.
pub(crate) const ADR_TOOLS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/kb/adr-tools/repo"
);

/// The time-out the failure tests configure, in milliseconds.
pub(crate) const TIMEOUT_MS: u64 = 300;

/// A task in words asked of the fixture.
pub(crate) const WORDS: &str = "where do the shipping labels live";

/// A stub answering `answer`.
pub(crate) fn stub(answer: Answer) -> Stub {
    Stub::start(answer).unwrap()
}

/// The environment that points brief at `stub`.
pub(crate) fn env_of(stub: &Stub) -> Vec<(&'static str, String)> {
    env_for(stub.url())
}

/// The environment that points brief at `url` (model `stub-model`, [`TIMEOUT_MS`], batch 4).
pub(crate) fn env_for(url: &str) -> Vec<(&'static str, String)> {
    vec![
        ("BRIEF_EMBEDDINGS_URL", url.to_string()),
        ("BRIEF_EMBEDDINGS_MODEL", "stub-model".to_string()),
        ("BRIEF_EMBEDDINGS_TIMEOUT_MS", TIMEOUT_MS.to_string()),
        ("BRIEF_EMBEDDINGS_BATCH", "4".to_string()),
    ]
}

/// Runs `brief` with `args` under the environment `env` (and no embeddings settings of the
/// caller's); returns (exit code, stdout, stderr, wall time).
pub(crate) fn brief_with(args: &[&str], env: &[(&str, String)]) -> (i32, String, String, Duration) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_brief"));
    command.args(args).env("NO_COLOR", "1");
    for (key, _) in std::env::vars() {
        if key.starts_with("BRIEF_EMBEDDINGS") {
            command.env_remove(key);
        }
    }
    for (key, value) in env {
        command.env(key, value);
    }
    let start = Instant::now();
    let out = command.output().expect("failed to start the brief binary");
    let took = start.elapsed();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        !stderr.contains("panicked"),
        "brief {args:?} panicked:\n{stderr}"
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        stderr,
        took,
    )
}

/// A URL where nobody listens (a port bound, then closed).
pub(crate) fn closed_port() -> String {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("http://127.0.0.1:{port}/v1")
}

/// `brief context WORDS --root ROOT --format json`.
pub(crate) fn context_args(root: &str) -> Vec<&str> {
    vec!["context", WORDS, "--root", root, "--format", "json"]
}

/// The `warning: embeddings unavailable` lines of `stderr`.
pub(crate) fn warnings(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("warning: embeddings unavailable"))
        .collect()
}

/// The ways an endpoint fails, each with a phrase its warning holds: `None` is a port
/// where nobody listens, the others are what the stub answers.
pub(crate) fn failures() -> Vec<(&'static str, Option<Answer>, &'static str)> {
    let oom = r#"{"error":{"message":"the model ran out of memory","type":"server_error"}}"#;
    vec![
        ("refused", None, "cannot reach"),
        ("stalled", Some(Answer::Stall), "no answer"),
        (
            "HTTP 500",
            Some(Answer::Status(500, oom.into())),
            "ran out of memory",
        ),
        ("partial batch", Some(Answer::Partial), "0 of 1 vectors"),
        (
            "wrong dimensions",
            Some(Answer::Vectors(12)),
            "12 dimensions",
        ),
        ("not HTTP", Some(Answer::Garbage), ""),
    ]
}
