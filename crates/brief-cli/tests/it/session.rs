//! The session store through the binary: every `brief session` command, the ranking order,
//! each token-zone boundary, signature normalization, confidence updates, each redaction
//! pattern, graceful degradation, exact budgets against tiktoken-rs, and concurrent writers.
//!
//! Time is pinned with `BRIEF_NOW` (Unix seconds) so scores and stored timestamps are
//! reproducible.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const NOTES_EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/notes-app");
/// 2025-10-09T08:53:20Z.
const NOW: i64 = 1_760_000_000;
const DAY: i64 = 86_400;

fn brief_at(now: i64, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_brief"))
        .args(args)
        .env("BRIEF_NOW", now.to_string())
        .env("NO_COLOR", "1")
        .output()
        .expect("failed to start the brief binary")
}

/// Runs brief at `now`; returns (exit code, stdout, stderr) and fails on a panic.
#[track_caller]
fn run_at(now: i64, args: &[&str]) -> (i32, String, String) {
    let out = brief_at(now, args);
    let code = out.status.code().unwrap_or(-1);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        !stderr.contains("panicked") && !stderr.contains("internal error"),
        "brief {args:?} panicked:\n{stderr}"
    );
    (code, stdout, stderr)
}

#[track_caller]
fn ok_at(now: i64, args: &[&str]) -> String {
    let (code, stdout, stderr) = run_at(now, args);
    assert_eq!(code, 0, "brief {args:?} exited {code}:\n{stderr}");
    stdout
}

#[track_caller]
fn ok(args: &[&str]) -> String {
    ok_at(NOW, args)
}

#[track_caller]
fn json(args: &[&str]) -> Value {
    let out = ok(args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}):\n{out}"))
}

/// A copy of the notes-app example (a project with TASK-002).
fn project() -> tempfile::TempDir {
    common::copy_fixture(NOTES_EXAMPLE)
}

fn root(dir: &tempfile::TempDir) -> &str {
    dir.path().to_str().unwrap()
}

struct Pkg<'a> {
    session: &'a str,
    group: Option<&'a str>,
    kind: &'a str,
    file: &'a str,
    producer: &'a str,
    consumers: &'a str,
    priority: &'a str,
    summary: &'a str,
}

#[track_caller]
fn add_at(root: &str, now: i64, p: &Pkg<'_>) -> i64 {
    let mut args = vec![
        "session",
        "package",
        "add",
        "--root",
        root,
        "--session",
        p.session,
        "--type",
        p.kind,
        "--file",
        p.file,
        "--producer",
        p.producer,
        "--consumers",
        p.consumers,
        "--priority",
        p.priority,
        "--summary",
        p.summary,
        "--format",
        "json",
    ];
    if let Some(g) = p.group {
        args.extend(["--group", g]);
    }
    let out = ok_at(now, &args);
    let v: Value = serde_json::from_str(&out).unwrap();
    v["id"].as_i64().unwrap()
}

/// `session package add` in session [`S`] from `developer` to `consumers`, summary "x", then
/// `rest`.
fn add_args<'a>(root: &'a str, consumers: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "session",
        "package",
        "add",
        "--root",
        root,
        "--session",
        S,
        "--producer",
        "developer",
        "--consumers",
        consumers,
        "--summary",
        "x",
    ];
    args.extend_from_slice(rest);
    args
}

/// The session used by most tests: five packages in two groups, created over five days.
fn seed(root: &str) -> Vec<i64> {
    let packages = [
        Pkg {
            session: "bazinga_20251009_085320",
            group: Some("group_a"),
            kind: "research",
            file: "bazinga/artifacts/bazinga_20251009_085320/offline-replay.md",
            producer: "requirements_engineer",
            consumers: "developer,qa_expert",
            priority: "high",
            summary: "Replay of offline edits is not idempotent: the web queue resends ops after reconnect without the server's ack ids. Proposed fix: dedupe by (client_id, op_seq) on the server.",
        },
        Pkg {
            session: "bazinga_20251009_085320",
            group: None,
            kind: "decisions",
            file: "bazinga/artifacts/bazinga_20251009_085320/sync-architecture.md",
            producer: "tech_lead",
            consumers: "developer,senior_software_engineer,qa_expert",
            priority: "critical",
            summary: "All note writes go through the op queue (DEC-SYNC-001); no component writes paragraphs directly to the store.",
        },
        Pkg {
            session: "bazinga_20251009_085320",
            group: Some("group_b"),
            kind: "failures",
            file: "bazinga/artifacts/bazinga_20251009_085320/search-flake.md",
            producer: "qa_expert",
            consumers: "developer",
            priority: "high",
            summary: "search/indexer.py rebuild races the sync worker: sqlite3.OperationalError database is locked under load.",
        },
        Pkg {
            session: "bazinga_20251009_085320",
            group: Some("group_a"),
            kind: "handoff",
            file: "bazinga/artifacts/bazinga_20251009_085320/handoff-dev-qa.md",
            producer: "developer",
            consumers: "qa_expert",
            priority: "medium",
            summary: "Dedupe implemented in src/server/sync/merge.ts; needs a reconnect-storm test with three tabs.",
        },
        Pkg {
            session: "bazinga_20251009_085320",
            group: Some("group_a"),
            kind: "investigation",
            file: "bazinga/artifacts/bazinga_20251009_085320/tab-state.md",
            producer: "investigator",
            consumers: "developer",
            priority: "medium",
            summary: "Hidden tabs keep a stale queue cursor; BroadcastChannel is not delivered to frozen tabs in Chrome.",
        },
    ];
    packages
        .iter()
        .enumerate()
        .map(|(i, p)| add_at(root, NOW - (5 - i as i64) * DAY, p))
        .collect()
}

const S: &str = "bazinga_20251009_085320";

fn ids(v: &Value) -> Vec<i64> {
    v["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_i64().unwrap())
        .collect()
}

#[test]
fn package_add_list_and_consume() {
    let dir = project();
    let r = root(&dir);
    let ids_added = seed(r);
    assert_eq!(ids_added, [1, 2, 3, 4, 5]);
    assert!(dir.path().join(".brief/sessions.db").is_file());

    let text = ok(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--group",
        "group_a",
    ]);
    assert!(text.starts_with("3 packages for developer in session bazinga_20251009_085320, group group_a: 3 of 4 (1 more beyond --limit 3)\n"), "{text}");
    assert!(
        text.contains("#2 [CRITICAL] decisions bazinga/artifacts/"),
        "{text}"
    );

    // Consumed in iteration 1: gone from iteration 1, back in iteration 2.
    let out = ok(&[
        "session",
        "package",
        "consume",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--id",
        "2",
    ]);
    assert_eq!(out, "package 2 consumed by developer in iteration 1\n");
    let out = ok(&[
        "session",
        "package",
        "consume",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--id",
        "2",
    ]);
    assert_eq!(
        out,
        "package 2 was already consumed by developer in iteration 1\n"
    );
    let v = json(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--group",
        "group_a",
        "--format",
        "json",
    ]);
    assert!(!ids(&v).contains(&2));
    assert_eq!(
        (v["total_available"].as_u64(), v["overflow"].as_u64()),
        (Some(3), Some(0))
    );
    let v = json(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--group",
        "group_a",
        "--iteration",
        "2",
        "--format",
        "json",
    ]);
    assert!(ids(&v).contains(&2));
    let consumed = json(&[
        "session",
        "package",
        "consume",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "tech_lead",
        "--id",
        "3",
        "--iteration",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(consumed["designated"], false);
    assert_eq!(consumed["iteration"], 2);

    // Not found → 1; bad usage → 2.
    let (code, _, err) = run_at(
        NOW,
        &[
            "session",
            "package",
            "consume",
            "--root",
            r,
            "--session",
            S,
            "--agent",
            "developer",
            "--id",
            "99",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no package 99 in session"), "{err}");
    let (code, _, err) = run_at(
        NOW,
        &[
            "session",
            "package",
            "list",
            "--root",
            r,
            "--session",
            "nope",
            "--agent",
            "developer",
        ],
    );
    assert_eq!(code, 1, "{err}");
    for bad in [
        vec!["--type", "notes", "--priority", "high", "--file", "a.md"],
        vec![
            "--type",
            "research",
            "--priority",
            "urgent",
            "--file",
            "a.md",
        ],
        vec![
            "--type",
            "research",
            "--priority",
            "high",
            "--file",
            "/etc/passwd",
        ],
        vec![
            "--type",
            "research",
            "--priority",
            "high",
            "--file",
            "../outside.md",
        ],
    ] {
        let args = add_args(r, "qa_expert", &bad);
        let (code, _, err) = run_at(NOW, &args);
        assert_eq!(code, 2, "{args:?}: {err}");
    }
    let (code, _, err) = run_at(
        NOW,
        &add_args(r, "qa expert", &["--type", "research", "--file", "a.md"]),
    );
    assert_eq!(code, 2);
    assert!(err.contains("agent type"), "{err}");
}

#[test]
fn ranking_order_limits_overflow_and_supersedes() {
    let dir = project();
    let r = root(&dir);
    seed(r);
    // developer in group_a: critical global #2 (16+1.5+1/5), high group_a #1 (12+2+1.5+1/6),
    // medium group_a #5 designated (8+2+1.5+1/2), medium group_a #4 not designated (8+2+1/3).
    let v = json(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--group",
        "group_a",
        "--limit",
        "10",
        "--format",
        "json",
    ]);
    assert_eq!(ids(&v), [2, 1, 5, 4]);
    let scores: Vec<f64> = v["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["score"].as_f64().unwrap())
        .collect();
    assert_eq!(scores, [17.7, 15.6667, 12.0, 10.3333]);
    assert_eq!(
        (
            v["total_available"].as_u64(),
            v["overflow"].as_u64(),
            v["limit"].as_u64()
        ),
        (Some(4), Some(0), Some(10))
    );
    // The whole session for qa_expert (limit 5): group_b's high package enters, no group boost.
    let v = json(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "qa_expert",
        "--format",
        "json",
    ]);
    assert_eq!(ids(&v), [2, 1, 3, 4, 5]);
    // Retrieval limits per agent type, and the overflow.
    let v = json(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--format",
        "json",
    ]);
    assert_eq!(
        (
            ids(&v).len(),
            v["total_available"].as_u64(),
            v["overflow"].as_u64()
        ),
        (3, Some(5), Some(2))
    );
    let v = json(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "tech_lead",
        "--format",
        "json",
    ]);
    assert_eq!(
        (v["limit"].as_u64(), v["overflow"].as_u64()),
        (Some(5), Some(0))
    );
    // brief.toml overrides a limit.
    std::fs::write(
        dir.path().join("brief.toml"),
        "contextia = \".contextia\"\n[session.limits]\ndeveloper = 1\n",
    )
    .unwrap();
    let v = json(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--format",
        "json",
    ]);
    assert_eq!((ids(&v), v["overflow"].as_u64()), (vec![2], Some(4)));
    std::fs::remove_file(dir.path().join("brief.toml")).unwrap();
    // Ties (same traits, same second) order by id.
    for _ in 0..2 {
        add_at(
            r,
            NOW,
            &Pkg {
                session: "tie",
                group: None,
                kind: "research",
                file: "t.md",
                producer: "developer",
                consumers: "qa_expert",
                priority: "low",
                summary: "same",
            },
        );
    }
    let v = json(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        "tie",
        "--agent",
        "qa_expert",
        "--format",
        "json",
    ]);
    assert_eq!(ids(&v), [6, 7]);
    // A superseding package hides the one it replaces.
    let out = ok(&[
        "session",
        "package",
        "add",
        "--root",
        r,
        "--session",
        S,
        "--type",
        "decisions",
        "--file",
        "sync-v2.md",
        "--producer",
        "tech_lead",
        "--consumers",
        "developer",
        "--priority",
        "critical",
        "--summary",
        "Op queue v2",
        "--supersedes",
        "2",
        "--format",
        "json",
    ]);
    let new_id = serde_json::from_str::<Value>(&out).unwrap()["id"]
        .as_i64()
        .unwrap();
    let v = json(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--limit",
        "10",
        "--format",
        "json",
    ]);
    assert!(!ids(&v).contains(&2) && ids(&v)[0] == new_id, "{v}");
}

#[test]
fn error_record_normalizes_and_confidence_moves() {
    let dir = project();
    let r = root(&dir);
    let rec = |message: &str, solution: &str| -> Value {
        json(&[
            "session",
            "error",
            "record",
            "--root",
            r,
            "--project",
            "notes",
            "--lang",
            "ts",
            "--message",
            message,
            "--solution",
            solution,
            "--format",
            "json",
        ])
    };
    let a = rec(
        "TypeError: Cannot read properties of undefined (reading 'cursor') at /home/ana/notes/src/web/sync/queue.ts:88:17",
        "Load the queue cursor before replaying; hidden tabs start without one",
    );
    let b = rec(
        "TypeError: Cannot read properties of undefined (reading 'cursor') at /srv/ci/build-1142/src/web/sync/queue.ts:91:5",
        "Load the queue cursor before replaying; hidden tabs start without one",
    );
    assert_eq!(a["operation"], "created");
    assert_eq!(b["operation"], "updated");
    assert_eq!(a["pattern"]["hash"], b["pattern"]["hash"]);
    assert_eq!(b["pattern"]["occurrences"], 2);
    assert_eq!(
        a["pattern"]["signature"],
        "TypeError: Cannot read properties of undefined (reading '<v>') at <path>"
    );
    let other = rec(
        "RangeError: Maximum call stack size exceeded in src/web/store/notes.ts:12:3",
        "Break the subscribe loop",
    );
    assert_ne!(other["pattern"]["hash"], a["pattern"]["hash"]);

    let hash = a["pattern"]["hash"].as_str().unwrap().to_string();
    let fb = |flag: &str| -> Value {
        json(&[
            "session",
            "error",
            "feedback",
            "--root",
            r,
            "--project",
            "notes",
            "--hash",
            &hash,
            flag,
            "--format",
            "json",
        ])
    };
    let confidences: Vec<f64> = (0..6)
        .map(|_| fb("--helped")["confidence"].as_f64().unwrap())
        .collect();
    assert_eq!(confidences, [0.6, 0.7, 0.8, 0.9, 1.0, 1.0]);
    let down: Vec<f64> = (0..6)
        .map(|_| fb("--did-not-help")["confidence"].as_f64().unwrap())
        .collect();
    assert_eq!(down, [0.8, 0.6, 0.4, 0.2, 0.1, 0.1]);
    let text = ok(&[
        "session",
        "error",
        "feedback",
        "--root",
        r,
        "--project",
        "notes",
        "--hash",
        &hash[..6],
        "--helped",
    ]);
    assert_eq!(text, format!("{hash}: confidence 0.10 -> 0.20\n"));
    let (code, _, _) = run_at(
        NOW,
        &[
            "session",
            "error",
            "feedback",
            "--root",
            r,
            "--project",
            "notes",
            "--hash",
            "abcdef12",
            "--helped",
        ],
    );
    assert_eq!(code, 1);
    let (code, _, err) = run_at(
        NOW,
        &[
            "session",
            "error",
            "feedback",
            "--root",
            r,
            "--project",
            "notes",
            "--hash",
            &hash,
        ],
    );
    assert_eq!(
        code, 2,
        "one of --helped / --did-not-help is required: {err}"
    );

    // match: exact on another path and line; similar by full text; nothing → 1.
    let m = json(&["session", "error", "match", "--root", r, "--project", "notes", "--message", "TypeError: Cannot read properties of undefined (reading 'cursor') at C:\\work\\notes\\queue.ts:1:1", "--format", "json"]);
    assert_eq!(m[0]["exact"], true);
    assert_eq!(m[0]["pattern"]["hash"], hash.as_str());
    let m = ok(&[
        "session",
        "error",
        "match",
        "--root",
        r,
        "--project",
        "notes",
        "--message",
        "Maximum call stack size exceeded while rendering",
    ]);
    assert!(m.starts_with("similar "), "{m}");
    assert!(m.contains("Break the subscribe loop"), "{m}");
    let (code, out, _) = run_at(
        NOW,
        &[
            "session",
            "error",
            "match",
            "--root",
            r,
            "--project",
            "notes",
            "--message",
            "segmentation fault",
            "--format",
            "json",
        ],
    );
    assert_eq!((code, out.as_str()), (1, "[]\n"));
    // 91 idle days later the patterns have expired: no match, and prune deletes them.
    let later = NOW + 91 * DAY;
    let (code, _, _) = run_at(
        later,
        &[
            "session",
            "error",
            "match",
            "--root",
            r,
            "--project",
            "notes",
            "--message",
            "Break loop Maximum call stack size exceeded",
        ],
    );
    assert_eq!(code, 1);
    let out = ok_at(
        later,
        &["session", "prune", "--root", r, "--older-than", "365"],
    );
    assert_eq!(
        out,
        "pruned 0 packages, 0 empty sessions and 2 error patterns\n"
    );
}

#[test]
fn prune_removes_old_packages() {
    let dir = project();
    let r = root(&dir);
    seed(r); // created 5, 4, 3, 2 and 1 days before NOW
    let p = json(&[
        "session",
        "prune",
        "--root",
        r,
        "--older-than",
        "3",
        "--format",
        "json",
    ]);
    assert_eq!(p["packages"], 2);
    let v = json(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "qa_expert",
        "--format",
        "json",
    ]);
    assert_eq!(v["total_available"], 3);
    let (code, _, _) = run_at(
        NOW,
        &["session", "prune", "--root", r, "--older-than", "-1"],
    );
    assert_eq!(code, 2);
}

/// Fake but pattern-valid secrets, one per rule, and what each must become.
const SECRETS: &[(&str, &str)] = &[
    (
        "OpenAI key sk-proj-4fGh7Jk2Lm9Np3Qr5St8Uv1Wx6Yz0AbCd",
        "[REDACTED:openai-key]",
    ),
    (
        "Anthropic key sk-ant-api03-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Ji0Hg",
        "[REDACTED:anthropic-key]",
    ),
    (
        "GitHub ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A",
        "[REDACTED:github-token]",
    ),
    (
        "Slack xoxb-2048-4096-AbCdEfGhIjKl",
        "[REDACTED:slack-token]",
    ),
    ("Stripe sk_live_51HxYzAbCdEf0123", "[REDACTED:stripe-key]"),
    ("AWS AKIAIOSFODNN7EXAMPLE", "[REDACTED:aws-key]"),
    (
        "PEM -----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEA7bq -----END RSA PRIVATE KEY-----",
        "[REDACTED:private-key]",
    ),
    (
        "header Authorization: Bearer 3f9a8b7c6d5e4f3a2b1c0d",
        "Bearer [REDACTED:bearer-token]",
    ),
    (
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1",
        "[REDACTED:jwt]",
    ),
    ("env DB_PASSWORD=hunter22", "DB_PASSWORD=[REDACTED]"),
    (
        "env refresh_token=Zm9vYmFyYmF6cXV4MTIz",
        "refresh_token=[REDACTED]",
    ),
    (
        "dsn postgres://notes:Sup3rS3cret@db.internal:5432/notes",
        "postgres://notes:[REDACTED]@db.internal",
    ),
    (
        "salt kP9zQ2wX7vB4nM1rT8yL5cD3fG6hJ0",
        "[REDACTED:high-entropy]",
    ),
];

const LEAKS: &[&str] = &[
    "4fGh7Jk2",
    "Zx8Yw7Vu",
    "aB3dE5fG",
    "AbCdEfGhIjKl",
    "51HxYz",
    "AKIAIOSF",
    "MIIEowIB",
    "3f9a8b7c",
    "eyJzdWIi",
    "hunter22",
    "Zm9vYmFy",
    "Sup3rS3cret",
    "kP9zQ2wX",
];

#[test]
fn every_redaction_pattern_on_store_and_render() {
    let dir = project();
    let r = root(&dir);
    for (i, (secret, marker)) in SECRETS.iter().enumerate() {
        let session = format!("redact-{i}");
        let (code, _, err) = run_at(
            NOW,
            &[
                "session",
                "package",
                "add",
                "--root",
                r,
                "--session",
                &session,
                "--type",
                "research",
                "--file",
                "notes/env.md",
                "--producer",
                "developer",
                "--consumers",
                "qa_expert",
                "--summary",
                &format!("Found {secret} in the staging config"),
            ],
        );
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("redacted before storing"), "{secret}: {err}");
        // Stored redacted: even --no-redact prints no secret.
        let out = ok(&[
            "session",
            "package",
            "list",
            "--root",
            r,
            "--session",
            &session,
            "--agent",
            "qa_expert",
            "--no-redact",
        ]);
        assert!(out.contains(marker), "{secret} → {out}");
        for leak in LEAKS {
            assert!(!out.contains(leak), "{leak} leaked: {out}");
        }
    }
    // Error messages and solutions too.
    let out = ok(&[
        "session",
        "error",
        "record",
        "--root",
        r,
        "--project",
        "notes",
        "--message",
        "auth failed for postgres://notes:Sup3rS3cret@db:5432/notes with AKIAIOSFODNN7EXAMPLE",
        "--solution",
        "rotate DB_PASSWORD=hunter22 and the key",
    ]);
    for leak in LEAKS {
        assert!(!out.contains(leak), "{leak} leaked: {out}");
    }
    let bytes = std::fs::read(dir.path().join(".brief/sessions.db")).unwrap();
    let wal = std::fs::read(dir.path().join(".brief/sessions.db-wal")).unwrap_or_default();
    for leak in LEAKS {
        let hit = |b: &[u8]| b.windows(leak.len()).any(|w| w == leak.as_bytes());
        assert!(!hit(&bytes) && !hit(&wal), "{leak} reached the store");
    }
}

/// Inserts a raw row as another tool (or an older version) might have, bypassing redaction.
fn insert_raw(root: &Path, session: &str, summary: &str) {
    let conn = rusqlite::Connection::open(root.join(".brief/sessions.db")).unwrap();
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .unwrap();
    conn.execute(
        "INSERT OR IGNORE INTO sessions (id, created) VALUES (?1, ?2)",
        rusqlite::params![session, NOW],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO packages (session_id, type, file_path, producer, priority, summary, created) VALUES (?1, 'research', 'raw.md', 'developer', 'critical', ?2, ?3)",
        rusqlite::params![session, summary, NOW],
    )
    .unwrap();
    let id = conn.last_insert_rowid();
    conn.execute(
        "INSERT INTO consumers (package_id, agent) VALUES (?1, 'developer')",
        [id],
    )
    .unwrap();
}

#[test]
fn output_redaction_and_no_redact() {
    let dir = project();
    let r = root(&dir);
    seed(r);
    insert_raw(
        dir.path(),
        "raw",
        "legacy row with ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A inside",
    );
    let out = ok(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        "raw",
        "--agent",
        "developer",
    ]);
    assert!(
        out.contains("[REDACTED:github-token]") && !out.contains("ghp_"),
        "{out}"
    );
    let out = ok(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        "raw",
        "--agent",
        "developer",
        "--no-redact",
    ]);
    assert!(out.contains("ghp_aB3dE5fG"), "{out}");
    let doc = ok(&[
        "context",
        "--root",
        r,
        "--session",
        "raw",
        "--agent",
        "developer",
    ]);
    assert!(
        doc.contains("[REDACTED:github-token]") && !doc.contains("ghp_"),
        "{doc}"
    );
    let doc = ok(&[
        "context",
        "--root",
        r,
        "--session",
        "raw",
        "--agent",
        "developer",
        "--no-redact",
    ]);
    assert!(doc.contains("ghp_aB3dE5fG"), "{doc}");
}

fn zone_doc(r: &str, window: &str, used: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "context",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--group",
        "group_a",
        "--task",
        "TASK-002",
        "--window",
        window,
        "--used-tokens",
        used,
        "--format",
        "json",
        "--project",
        "notes",
    ];
    args.extend_from_slice(extra);
    json(&args)
}

#[test]
fn each_zone_boundary_and_what_each_zone_holds() {
    let dir = project();
    let r = root(&dir);
    seed(r);
    let rec = json(&[
        "session",
        "error",
        "record",
        "--root",
        r,
        "--project",
        "notes",
        "--message",
        "sqlite3.OperationalError: database is locked at /app/src/search/indexer.py line 142",
        "--solution",
        "Open the index with WAL and a 5 s busy timeout",
        "--format",
        "json",
    ]);
    let hash = rec["pattern"]["hash"].as_str().unwrap().to_string();
    for _ in 0..3 {
        ok(&[
            "session",
            "error",
            "feedback",
            "--root",
            r,
            "--project",
            "notes",
            "--hash",
            &hash,
            "--helped",
        ]);
    }
    // Window 1000, margin 15 % → effective 850: 60 % = 510, 75 % = 637.5, 85 % = 722.5, 95 % = 807.5.
    for (used, zone) in [
        ("0", "normal"),
        ("509", "normal"),
        ("510", "soft-warning"),
        ("637", "soft-warning"),
        ("638", "conservative"),
        ("722", "conservative"),
        ("723", "wrap-up"),
        ("807", "wrap-up"),
        ("808", "emergency"),
        ("5000", "emergency"),
    ] {
        let v = zone_doc(r, "1000", used, &["--budget", "4000"]);
        assert_eq!(v["zone"], zone, "used {used}");
        assert_eq!(v["usage"]["effective"], 850);
    }
    // What each holds (the budget is capped at what is left of the window, at least 128).
    let normal = zone_doc(r, "1000", "0", &[]);
    let doc = normal["document"].as_str().unwrap();
    assert_eq!(normal["budget"]["limit"], 850);
    assert!(
        doc.contains("## Context packages (3 of 4)") && doc.contains("## Known error patterns (1)"),
        "{doc}"
    );
    assert!(doc.contains("# Context for TASK-002"), "{doc}");
    assert!(normal["graph"]["target"] == "TASK-002");

    // Window 100000 → effective 85000: 60 % = 51000, 75 % = 63750, 85 % = 72250.
    let soft = zone_doc(r, "100000", "51000", &[]);
    let doc = soft["document"].as_str().unwrap();
    assert!(doc.contains("Zone: Soft Warning (60.0%"), "{doc}");
    assert!(
        doc.contains("Context packages (summaries)") && !doc.contains("Known error patterns"),
        "{doc}"
    );
    assert!(doc.contains("# Context for TASK-002"), "{doc}");

    let cons = zone_doc(r, "100000", "63750", &[]);
    let doc = cons["document"].as_str().unwrap();
    assert!(
        doc.contains("## Critical packages only (1 of 1)") && doc.contains("#2 decisions"),
        "{doc}"
    );
    assert!(
        !doc.contains("TASK-002") && !doc.contains("#1 research"),
        "{doc}"
    );

    let wrap = zone_doc(r, "100000", "72250", &[]);
    let doc = wrap["document"].as_str().unwrap();
    assert!(
        doc.contains("Wrap up:") && doc.contains("4 packages waiting"),
        "{doc}"
    );
    assert!(!doc.contains("##"), "{doc}");

    let emergency = zone_doc(r, "1000", "808", &["--budget", "4000"]);
    let doc = emergency["document"].as_str().unwrap();
    assert!(doc.contains("Checkpoint now"), "{doc}");
    assert_eq!(emergency["budget"]["limit"], 128);
    assert!(emergency["budget"]["used"].as_u64().unwrap() <= 128);
}

fn oracle(encoding: &str, text: &str) -> usize {
    let bpe = match encoding {
        "cl100k_base" => tiktoken_rs::cl100k_base().unwrap(),
        _ => tiktoken_rs::o200k_base().unwrap(),
    };
    bpe.encode_ordinary(text).len()
}

#[test]
fn zone_documents_are_exact_and_the_graph_part_is_byte_identical() {
    let dir = project();
    let r = root(&dir);
    seed(r);
    for encoding in ["cl100k", "o200k"] {
        for budget in ["150", "300", "700", "1500", "4000"] {
            let v = json(&[
                "context",
                "--root",
                r,
                "--session",
                S,
                "--agent",
                "developer",
                "--group",
                "group_a",
                "--task",
                "TASK-002",
                "--budget",
                budget,
                "--encoding",
                encoding,
                "--format",
                "json",
            ]);
            let doc = v["document"].as_str().unwrap();
            let used = v["budget"]["used"].as_u64().unwrap() as usize;
            let limit: usize = budget.parse().unwrap();
            assert!(used <= limit, "{encoding} {budget}: {used}");
            assert_eq!(
                used,
                oracle(v["encoding"].as_str().unwrap(), doc),
                "{encoding} {budget}"
            );
            // The Markdown output is the audited document.
            let md = ok(&[
                "context",
                "--root",
                r,
                "--session",
                S,
                "--agent",
                "developer",
                "--group",
                "group_a",
                "--task",
                "TASK-002",
                "--budget",
                budget,
                "--encoding",
                encoding,
            ]);
            assert_eq!(md, doc);
            if v["graph"].is_null() {
                assert!(limit <= 300, "graph left out at {budget}: {doc}");
                continue;
            }
            // The graph part is exactly `brief context TASK-002 --budget <its budget>`.
            let graph_budget = v["graph"]["budget"].to_string();
            let graph = ok(&[
                "context",
                "TASK-002",
                "--root",
                r,
                "--budget",
                &graph_budget,
                "--encoding",
                encoding,
            ]);
            assert!(
                doc.ends_with(&graph),
                "{encoding} {budget}: graph part differs"
            );
            let session_part = &doc[..doc.len() - graph.len()];
            assert!(session_part.starts_with("# Session context for developer\n"));
            // With a task, packages take at most half the budget.
            let name = v["encoding"].as_str().unwrap();
            assert!(
                oracle(name, session_part) <= limit / 2,
                "{encoding} {budget}"
            );
            if limit >= 1500 {
                assert!(
                    used * 100 >= limit * 90,
                    "{encoding} {budget}: only {used} used"
                );
            }
        }
    }
    // Text format: the session part in plain text, then the graph's text format.
    let text = ok(&[
        "context",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--task",
        "TASK-002",
        "--format",
        "text",
    ]);
    assert!(
        text.starts_with("=== SESSION CONTEXT: developer ===\n"),
        "{text}"
    );
    assert!(text.contains("=== TASK: TASK-002 ==="), "{text}");
    // TARGET works as the task too.
    let a = ok(&[
        "context",
        "TASK-002",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
    ]);
    let b = ok(&[
        "context",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--task",
        "TASK-002",
    ]);
    assert_eq!(a, b);
}

#[test]
fn a_missing_or_corrupt_store_still_yields_the_graph_context() {
    let dir = project();
    let r = root(&dir);
    let (code, doc, err) = run_at(
        NOW,
        &[
            "context",
            "--root",
            r,
            "--session",
            S,
            "--agent",
            "developer",
            "--task",
            "TASK-002",
            "--budget",
            "3000",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("warning: session store unavailable"),
        "{err}"
    );
    assert!(doc.contains("Context packages unavailable"), "{doc}");
    assert!(doc.contains("# Context for TASK-002"));
    assert!(
        !dir.path().join(".brief/sessions.db").exists(),
        "readers never create the store"
    );
    // The graph part is what `brief context TASK-002` prints for the budget that was left.
    let v = json(&[
        "context",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--task",
        "TASK-002",
        "--budget",
        "3000",
        "--format",
        "json",
    ]);
    assert_eq!(v["warnings"].as_array().unwrap().len(), 1);
    let rest = v["graph"]["budget"].to_string();
    let graph = ok(&["context", "TASK-002", "--root", r, "--budget", &rest]);
    assert!(doc.ends_with(&graph), "{doc}");
    assert_eq!(v["document"].as_str().unwrap(), doc);

    let junk = b"SQLite format 2\0 definitely not a database ".repeat(50);
    std::fs::create_dir_all(dir.path().join(".brief")).unwrap();
    std::fs::write(dir.path().join(".brief/sessions.db"), &junk).unwrap();
    let (code, doc, err) = run_at(
        NOW,
        &[
            "context",
            "--root",
            r,
            "--session",
            S,
            "--agent",
            "developer",
            "--task",
            "TASK-002",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("move it aside"), "{err}");
    assert!(doc.contains("# Context for TASK-002"));
    assert_eq!(
        std::fs::read(dir.path().join(".brief/sessions.db")).unwrap(),
        junk,
        "never rewritten"
    );
    // Writers refuse it with exit 2 and a message saying what to do.
    let (code, _, err) = run_at(
        NOW,
        &add_args(r, "qa_expert", &["--type", "research", "--file", "a.md"]),
    );
    assert_eq!(code, 2);
    assert!(err.contains("move it aside"), "{err}");
}

#[test]
fn models_windows_and_help() {
    let dir = project();
    let r = root(&dir);
    seed(r);
    let v = json(&[
        "context",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--model",
        "gpt-4o-mini",
        "--used-tokens",
        "70000",
        "--format",
        "json",
    ]);
    assert_eq!(
        (v["usage"]["window"].as_u64(), v["zone"].as_str()),
        (Some(128_000), Some("soft-warning"))
    );
    let v = json(&[
        "context",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--model",
        "claude-sonnet-4-5",
        "--format",
        "json",
    ]);
    assert_eq!(v["usage"]["effective"], 170_000);
    let (code, _, err) = run_at(
        NOW,
        &[
            "context",
            "--root",
            r,
            "--session",
            S,
            "--agent",
            "developer",
            "--model",
            "mystery-7b",
        ],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown model `mystery-7b`")
            && err.contains("gpt-4.1")
            && err.contains("--window"),
        "{err}"
    );
    std::fs::write(
        dir.path().join("brief.toml"),
        "contextia = \".contextia\"\n[session.windows]\n\"mystery\" = 32000\n",
    )
    .unwrap();
    let v = json(&[
        "context",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
        "--model",
        "mystery-7b",
        "--format",
        "json",
    ]);
    assert_eq!(v["usage"]["window"], 32_000);
    std::fs::write(
        dir.path().join("brief.toml"),
        "contextia = \".contextia\"\n[session]\nwindows = 3\nlimits = {}\n",
    )
    .unwrap();
    let (code, _, err) = run_at(
        NOW,
        &[
            "session",
            "package",
            "list",
            "--root",
            r,
            "--session",
            S,
            "--agent",
            "developer",
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains("brief.toml:3:"), "{err}");
    std::fs::remove_file(dir.path().join("brief.toml")).unwrap();
    // --agent is required with --session; --session flags need --session.
    let (code, _, _) = run_at(NOW, &["context", "--root", r, "--session", S]);
    assert_eq!(code, 2);
    let (code, _, _) = run_at(
        NOW,
        &["context", "TASK-002", "--root", r, "--agent", "developer"],
    );
    assert_eq!(code, 2);

    let help = ok(&["context", "--help"]);
    for needle in [
        "Soft Warning",
        "60 to 75 %",
        "Emergency",
        "--used-tokens",
        "gpt-4.1 1047576",
        "Exit codes",
    ] {
        assert!(
            help.contains(needle),
            "context --help lacks {needle}:\n{help}"
        );
    }
    let help = ok(&["session", "--help"]);
    for needle in [
        "score = 4",
        "Examples:",
        "Exit codes: 0 ok, 1 nothing found",
        "BRIEF_NOW",
    ] {
        assert!(
            help.contains(needle),
            "session --help lacks {needle}:\n{help}"
        );
    }
}

#[test]
fn concurrent_writers_lose_nothing() {
    let dir = tempfile::tempdir().unwrap(); // no store yet: the first writers race to create it
    let r = dir.path().to_str().unwrap().to_string();
    const PROCESSES: usize = 12;
    const ROUNDS: usize = 3;
    for round in 0..ROUNDS {
        let children: Vec<_> = (0..PROCESSES)
            .map(|i| {
                Command::new(env!("CARGO_BIN_EXE_brief"))
                    .args([
                        "session",
                        "package",
                        "add",
                        "--root",
                        &r,
                        "--session",
                        "parallel",
                        "--group",
                        &format!("group_{}", i % 3),
                        "--type",
                        "research",
                        "--file",
                        &format!("notes/{round}-{i}.md"),
                        "--producer",
                        "developer",
                        "--consumers",
                        "qa_expert",
                        "--priority",
                        "medium",
                        "--summary",
                        &format!("Writer {i} of round {round}"),
                    ])
                    .env("BRIEF_NOW", NOW.to_string())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "a writer failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let v = json(&[
        "session",
        "package",
        "list",
        "--root",
        &r,
        "--session",
        "parallel",
        "--agent",
        "qa_expert",
        "--limit",
        "1000",
        "--format",
        "json",
    ]);
    let total = PROCESSES * ROUNDS;
    assert_eq!(v["total_available"].as_u64(), Some(total as u64));
    let mut files: Vec<String> = v["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["file_path"].as_str().unwrap().to_string())
        .collect();
    files.sort();
    files.dedup();
    assert_eq!(files.len(), total);
    let mut got = ids(&v);
    got.sort();
    assert_eq!(got, (1..=total as i64).collect::<Vec<_>>());
}

#[test]
fn without_a_store_reads_find_nothing_and_the_first_write_creates_it() {
    // A plain folder: no brief sources, no store. Session commands run from inside it.
    let dir = tempfile::tempdir().unwrap();
    let here = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_brief"))
            .args(args)
            .current_dir(dir.path())
            .env("BRIEF_NOW", NOW.to_string())
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    for args in [
        &[
            "session",
            "package",
            "list",
            "--session",
            S,
            "--agent",
            "developer",
        ][..],
        &[
            "session",
            "package",
            "consume",
            "--session",
            S,
            "--agent",
            "developer",
            "--id",
            "1",
        ],
        &[
            "session",
            "error",
            "match",
            "--project",
            "notes",
            "--message",
            "boom",
        ],
        &[
            "session",
            "error",
            "feedback",
            "--project",
            "notes",
            "--hash",
            "abcd1234",
            "--helped",
        ],
    ] {
        let (code, _, err) = here(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains("does not exist yet"), "{args:?}: {err}");
    }
    let (code, out, _) = here(&["session", "prune", "--older-than", "30"]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "pruned 0 packages, 0 empty sessions and 0 error patterns\n"
        )
    );
    assert!(
        !dir.path().join(".brief").exists(),
        "readers never create the store"
    );
    let (code, out, err) = here(&[
        "session",
        "package",
        "add",
        "--session",
        S,
        "--type",
        "handoff",
        "--file",
        "handoff.md",
        "--producer",
        "developer",
        "--consumers",
        "qa_expert",
        "--summary",
        "Ready for QA",
    ]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "added package 1 to session bazinga_20251009_085320 for qa_expert\n"
        ),
        "{err}"
    );
    assert!(dir.path().join(".brief/sessions.db").is_file());
    let (code, out, _) = here(&[
        "session",
        "package",
        "list",
        "--session",
        S,
        "--agent",
        "qa_expert",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("#1 [MEDIUM] handoff handoff.md"), "{out}");
}

/// Runs `brief session error record` for `message` in project `notes`.
#[track_caller]
fn record(root: &str, message: &str, solution: &str) {
    ok(&[
        "session",
        "error",
        "record",
        "--root",
        root,
        "--project",
        "notes",
        "--message",
        message,
        "--solution",
        solution,
    ]);
}

/// A store damaged past its first page (a b-tree page overwritten) is refused by writers and
/// readers alike, with advice, and left byte for byte as it was.
#[test]
fn a_store_damaged_inside_is_refused_for_writes_with_advice() {
    let dir = project();
    let r = root(&dir);
    seed(r);
    for i in 0..20 {
        record(
            r,
            &format!(
                "TypeError: cannot read properties of undefined (reading 'field{i}') in module{i}"
            ),
            &format!("Guard field {i} before reading it"),
        );
    }
    let path = dir.path().join(".brief/sessions.db");
    let mut bytes = std::fs::read(&path).unwrap();
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    assert!(bytes.len() >= 4 * page, "{} bytes", bytes.len());
    // Every page but the first two (header and schema) holds garbage from the middle on.
    for start in (2 * page..bytes.len()).step_by(page) {
        for b in &mut bytes[start + page / 2..start + page] {
            *b = 0xA5;
        }
    }
    std::fs::write(&path, &bytes).unwrap();
    let write = add_args(
        r,
        "qa_expert",
        &["--type", "research", "--file", "README.md"],
    );
    let feedback = [
        "session",
        "error",
        "feedback",
        "--root",
        r,
        "--project",
        "notes",
        "--hash",
        "abcd",
        "--helped",
    ];
    let list = [
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
    ];
    let matching = [
        "session",
        "error",
        "match",
        "--root",
        r,
        "--project",
        "notes",
        "--message",
        "TypeError: cannot read properties of null (reading 'x') in module7",
    ];
    let prune = ["session", "prune", "--root", r, "--older-than", "0"];
    for args in [&write[..], &feedback, &list, &matching, &prune] {
        let (code, _, err) = run_at(NOW, args);
        assert_eq!(code, 2, "{args:?} exited {code}: {err}");
        assert!(
            err.contains("is damaged") && err.contains("move it aside"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "never written into");
}

/// A store of one byte (or any file that is not SQLite's) is refused, never replaced by a
/// new store.
#[test]
fn a_one_byte_store_is_not_replaced() {
    let dir = project();
    let r = root(&dir);
    std::fs::create_dir_all(dir.path().join(".brief")).unwrap();
    let path = dir.path().join(".brief/sessions.db");
    for junk in [&b"x"[..], b"SQLite format 3", b"\0\0\0\0\0\0\0\0"] {
        std::fs::write(&path, junk).unwrap();
        let (code, _, err) = run_at(
            NOW,
            &add_args(
                r,
                "qa_expert",
                &["--type", "research", "--file", "README.md"],
            ),
        );
        assert_eq!(code, 2, "{junk:?}: {err}");
        assert!(err.contains("move it aside"), "{junk:?}: {err}");
        assert_eq!(std::fs::read(&path).unwrap(), junk, "the file was replaced");
    }
}

/// Summaries are stored and returned byte for byte: newlines, tabs and runs of spaces kept.
#[test]
fn summaries_keep_their_whitespace() {
    let dir = project();
    let r = root(&dir);
    let summary = "Two findings:\n\t- replay  is not idempotent\n\t- the cursor   goes stale\n\nSee the file.";
    let id = add_at(
        r,
        NOW,
        &Pkg {
            session: S,
            group: None,
            kind: "research",
            file: "README.md",
            producer: "developer",
            consumers: "qa_expert",
            priority: "high",
            summary,
        },
    );
    let v = json(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "qa_expert",
        "--format",
        "json",
    ]);
    assert_eq!(v["packages"][0]["id"], id);
    assert_eq!(v["packages"][0]["summary"].as_str(), Some(summary));
    // The text listing keeps every line under the package, indented.
    let text = ok(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "qa_expert",
    ]);
    assert!(
        text.ends_with("    Two findings:\n    \t- replay  is not idempotent\n    \t- the cursor   goes stale\n    \n    See the file.\n"),
        "{text}"
    );
    // Only whitespace is still an empty summary.
    let (code, _, err) = run_at(
        NOW,
        &[
            "session",
            "package",
            "add",
            "--root",
            r,
            "--session",
            S,
            "--type",
            "research",
            "--file",
            "README.md",
            "--producer",
            "developer",
            "--consumers",
            "qa_expert",
            "--summary",
            " \n\t ",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--summary is empty"), "{err}");
}

/// `--file` names a regular file that exists beneath the root.
#[test]
fn package_files_must_exist_beneath_the_root() {
    let dir = project();
    let r = root(&dir);
    std::fs::create_dir_all(dir.path().join("notes/folder")).unwrap();
    for (file, says) in [
        ("notes/missing.md", "does not exist"),
        ("notes/folder", "is not a regular file"),
    ] {
        let (code, _, err) = run_at(
            NOW,
            &add_args(r, "qa_expert", &["--type", "research", "--file", file]),
        );
        assert_eq!(code, 2, "{file}: {err}");
        assert!(err.contains(says), "{file}: {err}");
        assert!(err.contains(file), "{file}: {err}");
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc/hostname", dir.path().join("notes/out.md")).unwrap();
        let (code, _, err) = run_at(
            NOW,
            &add_args(
                r,
                "qa_expert",
                &["--type", "research", "--file", "notes/out.md"],
            ),
        );
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("outside the project"), "{err}");
    }
    assert!(
        !dir.path().join(".brief/sessions.db").exists(),
        "a refused package creates no store"
    );
}

/// Once the agent consumed every package in this iteration, the zone document says so (not
/// that there are none yet).
#[test]
fn after_consuming_everything_the_zone_document_says_so() {
    let dir = project();
    let r = root(&dir);
    seed(r);
    for id in ["1", "2", "3", "5"] {
        ok(&[
            "session",
            "package",
            "consume",
            "--root",
            r,
            "--session",
            S,
            "--agent",
            "developer",
            "--id",
            id,
        ]);
    }
    let doc = ok(&[
        "context",
        "--root",
        r,
        "--session",
        S,
        "--agent",
        "developer",
    ]);
    assert!(!doc.contains("No context packages"), "{doc}");
    assert!(
        doc.contains("All 4 packages for developer were consumed in iteration 1"),
        "{doc}"
    );
}
