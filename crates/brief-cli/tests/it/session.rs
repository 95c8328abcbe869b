//! The session store through the binary: every `brief session` command, the ranking order,
//! each token-zone boundary, signature normalization, confidence updates, each redaction
//! pattern, graceful degradation, exact budgets against tiktoken-rs, and concurrent writers.
//!
//! Time is pinned with `BRIEF_NOW` (Unix seconds) so scores and stored timestamps are
//! reproducible.
//!
//! The same tests run on both stores: as written on `.brief/sessions.db`, and again in
//! `on_postgres` with `BRIEF_SESSION_URL` naming a fresh database on a real PostgreSQL server
//! (`brief_session::testing`: `.ci/run` starts one; without PostgreSQL binaries that half is
//! skipped with a loud message).

use crate::common;

use std::cell::RefCell;
use std::path::Path;
use std::process::{Command, Output};

use brief_session::testing;
use brief_session::{Location, Mode, Table};
use brief_session::{SessionError, Store};
use serde_json::Value;

thread_local! {
    /// The PostgreSQL database this thread's test runs on (`None`: the SQLite store).
    static SESSION_URL: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The database the current test runs on, if PostgreSQL.
fn session_url() -> Option<String> {
    SESSION_URL.with(|u| u.borrow().clone())
}

/// `brief` pointed at the current test's store, at time `now`.
fn brief_command(now: i64) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_brief"));
    c.env("BRIEF_NOW", now.to_string()).env("NO_COLOR", "1");
    match session_url() {
        Some(url) => c.env("BRIEF_SESSION_URL", url),
        None => c.env_remove("BRIEF_SESSION_URL"),
    };
    c
}

/// Runs `test` with every session command on a fresh PostgreSQL database.
fn on_postgres(test: fn()) {
    let Some(server) = testing::server() else {
        return;
    };
    let database = testing::Database::create(server);
    SESSION_URL.with(|u| *u.borrow_mut() = Some(database.url.clone()));
    let outcome = std::panic::catch_unwind(test);
    SESSION_URL.with(|u| *u.borrow_mut() = None);
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// Whether the current test's store exists (the file, or brief's tables in the database).
fn store_exists(dir: &Path) -> bool {
    match session_url() {
        Some(url) => match Store::connect(&Location::named(&url).unwrap(), Mode::Read) {
            Ok(_) => true,
            Err(SessionError::Missing(_)) => false,
            Err(e) => panic!("{e}"),
        },
        None => dir.join(".brief/sessions.db").is_file(),
    }
}

/// Everything the current test's store holds, as bytes to search for leaks: the SQLite
/// file and its log, or every row of the database.
fn stored_bytes(dir: &Path) -> Vec<u8> {
    match session_url() {
        Some(url) => {
            let mut store = Store::connect(&Location::named(&url).unwrap(), Mode::Read).unwrap();
            let mut out = Vec::new();
            for table in Table::ALL {
                out.extend(format!("{:?}", testing::rows(&mut store, table)).into_bytes());
            }
            out
        }
        None => {
            let mut bytes = std::fs::read(dir.join(".brief/sessions.db")).unwrap();
            bytes.extend(std::fs::read(dir.join(".brief/sessions.db-wal")).unwrap_or_default());
            bytes
        }
    }
}

const NOTES_EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/notes-app");
/// 2025-10-09T08:53:20Z.
const NOW: i64 = 1_760_000_000;
const DAY: i64 = 86_400;

fn brief_at(now: i64, args: &[&str]) -> Output {
    brief_command(now)
        .args(args)
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

/// Writes a package's file (a package must name a file that exists beneath the root).
fn touch(root: &str, file: &str) {
    let path = Path::new(root).join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    if !path.exists() {
        std::fs::write(&path, "# Package\n").unwrap();
    }
}

#[track_caller]
fn add_at(root: &str, now: i64, p: &Pkg<'_>) -> i64 {
    touch(root, p.file);
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
    assert!(store_exists(dir.path()));

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
    touch(r, "sync-v2.md");
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
    touch(r, "notes/env.md");
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
    let bytes = stored_bytes(dir.path());
    for leak in LEAKS {
        let hit = |b: &[u8]| b.windows(leak.len()).any(|w| w == leak.as_bytes());
        assert!(!hit(&bytes), "{leak} reached the store");
    }
}

/// Inserts a raw row as another tool (or an older version) might have, bypassing redaction.
fn insert_raw(root: &Path, session: &str, summary: &str) {
    if let Some(url) = session_url() {
        testing::execute(
            &url,
            &format!(
                "INSERT INTO brief.sessions (id, created) VALUES ('{session}', {NOW}) ON CONFLICT DO NOTHING;
                 WITH p AS (INSERT INTO brief.packages (session_id, type, file_path, producer, priority, summary, created)
                     VALUES ('{session}', 'research', 'raw.md', 'developer', 'critical', '{summary}', {NOW}) RETURNING id)
                 INSERT INTO brief.consumers (package_id, agent) SELECT id, 'developer' FROM p;"
            ),
        );
        return;
    }
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
    touch(r, "a.md");
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
        for i in 0..PROCESSES {
            touch(&r, &format!("notes/{round}-{i}.md"));
        }
        let children: Vec<_> = (0..PROCESSES)
            .map(|i| {
                brief_command(NOW)
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
        let out = brief_command(NOW)
            .args(args)
            .current_dir(dir.path())
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
    touch(dir.path().to_str().unwrap(), "handoff.md");
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
    assert!(store_exists(dir.path()));
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
        !store_exists(dir.path()),
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
    for id in ["1", "2", "3", "4", "5"] {
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
        doc.contains("All 5 packages for developer were consumed in iteration 1"),
        "{doc}"
    );
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
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("no packages left for developer in session bazinga_20251009_085320: all 5 packages were consumed in iteration 1 (`--iteration 2` lists them again)"),
        "{err}"
    );
}

/// The tests above that hold for any store, run again on PostgreSQL.
mod on_postgres {
    macro_rules! again {
        ($($name:ident),* $(,)?) => {
            $( #[test] fn $name() { super::on_postgres(super::$name); } )*
        };
    }
    again!(
        package_add_list_and_consume,
        ranking_order_limits_overflow_and_supersedes,
        error_record_normalizes_and_confidence_moves,
        prune_removes_old_packages,
        every_redaction_pattern_on_store_and_render,
        output_redaction_and_no_redact,
        each_zone_boundary_and_what_each_zone_holds,
        zone_documents_are_exact_and_the_graph_part_is_byte_identical,
        models_windows_and_help,
        concurrent_writers_lose_nothing,
        without_a_store_reads_find_nothing_and_the_first_write_creates_it,
        summaries_keep_their_whitespace,
        package_files_must_exist_beneath_the_root,
        after_consuming_everything_the_zone_document_says_so,
    );
}

/// One step of the script both stores run: a command line at a time (`--root` is added).
struct Step(i64, Vec<&'static str>);

/// Every session command and tool, in an order that exercises each path: nothing stored,
/// adds, ranking, consumption, supersession, error patterns created, counted, reset,
/// stepped, matched exactly, by similarity and not at all, every zone, pruning.
fn script() -> Vec<Step> {
    let list = |extra: &[&'static str]| {
        let mut v = vec![
            "session",
            "package",
            "list",
            "--session",
            S,
            "--agent",
            "developer",
        ];
        v.extend_from_slice(extra);
        Step(NOW, v)
    };
    let zone = |window: &'static str, used: &'static str, extra: &[&'static str]| {
        let mut v = vec![
            "context",
            "--session",
            S,
            "--agent",
            "developer",
            "--group",
            "group_a",
            "--window",
            window,
            "--used-tokens",
            used,
            "--project",
            "notes",
        ];
        v.extend_from_slice(extra);
        Step(NOW, v)
    };
    let record = |now: i64, message: &'static str, solution: &'static str| {
        Step(
            now,
            vec![
                "session",
                "error",
                "record",
                "--project",
                "notes",
                "--lang",
                "python",
                "--message",
                message,
                "--solution",
                solution,
                "--format",
                "json",
            ],
        )
    };
    let feedback = |hash: &'static str, verdict: &'static str| {
        Step(
            NOW,
            vec![
                "session",
                "error",
                "feedback",
                "--project",
                "notes",
                "--hash",
                hash,
                verdict,
            ],
        )
    };
    let matching = |message: &'static str, extra: &[&'static str]| {
        let mut v = vec![
            "session",
            "error",
            "match",
            "--project",
            "notes",
            "--message",
            message,
        ];
        v.extend_from_slice(extra);
        Step(NOW, v)
    };
    let mut steps = vec![
        list(&[]),
        matching("database is locked", &[]),
        Step(NOW, vec!["session", "prune", "--older-than", "1"]),
        zone("200000", "1000", &[]),
    ];
    // Seeded packages come first (added by `seed`); then supersession and consumption.
    steps.extend([
        list(&["--group", "group_a"]),
        list(&["--format", "json", "--limit", "2"]),
        list(&["--iteration", "2", "--no-redact"]),
        list(&["--limit", "0"]),
        Step(
            NOW,
            vec![
                "session", "package", "add", "--session", S, "--type", "decisions", "--file",
                "sync-v2.md", "--producer", "tech_lead", "--consumers", "developer,qa_expert",
                "--priority", "critical", "--supersedes", "2", "--summary",
                "Writes go through the op queue v2;\n\tsee  DEC-SYNC-002. token=ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A",
                "--format", "json",
            ],
        ),
        Step(
            NOW,
            vec![
                "session", "package", "add", "--session", S, "--type", "research", "--file",
                "sync-v2.md", "--producer", "tech_lead", "--consumers", "developer",
                "--supersedes", "99", "--summary", "x",
            ],
        ),
        Step(
            NOW,
            vec!["session", "package", "consume", "--session", S, "--agent", "developer", "--id", "1"],
        ),
        Step(
            NOW,
            vec!["session", "package", "consume", "--session", S, "--agent", "developer", "--id", "1"],
        ),
        Step(
            NOW,
            vec![
                "session", "package", "consume", "--session", S, "--agent", "tech_lead", "--id",
                "3", "--iteration", "0", "--format", "json",
            ],
        ),
        Step(
            NOW,
            vec!["session", "package", "consume", "--session", S, "--agent", "developer", "--id", "42"],
        ),
        list(&["--group", "group_a", "--format", "json"]),
        record(NOW - 10 * DAY, "sqlite3.OperationalError: database is locked at /srv/app/search/indexer.py line 142", "Open the index with WAL and a busy timeout"),
        record(NOW - 9 * DAY, "sqlite3.OperationalError: database is locked at /home/ana/notes/search/indexer.py line 7", "Open the index with WAL and a busy timeout"),
        record(NOW - 8 * DAY, "TypeError: Cannot read properties of undefined (reading 'id') at src/web/note.ts:12:5", "Guard the optional note before reading id"),
        record(NOW - 7 * DAY, "TypeError: Cannot read properties of null (reading 'cursor') at src/web/tabs.ts:40:2", "Reset the tab cursor on visibility change"),
        record(NOW - 6 * DAY, "ECONNREFUSED 127.0.0.1:5432 while syncing notes", "Start the database before the sync worker"),
        record(NOW - 5 * DAY, "TypeError: Cannot read properties of undefined (reading 'id') at src/web/list.ts:3:1", "Check the note exists first"),
        feedback("89ab", "--helped"),
        Step(NOW, vec!["session", "error", "match", "--project", "notes", "--message", "database is locked", "--format", "json"]),
    ]);
    steps
}

/// Runs the script on the current store: every step's (what, exit code, stdout, stderr),
/// with the project's folder and the store's name written the same way on both.
fn run_script(dir: &tempfile::TempDir) -> Vec<(String, i32, String, String)> {
    let r = root(dir);
    let shown = match session_url() {
        Some(url) => Location::named(&url).unwrap().shown(),
        None => dir.path().join(".brief/sessions.db").display().to_string(),
    };
    let same = |s: String| s.replace(&shown, "<store>").replace(r, "<root>");
    let mut out = Vec::new();
    let mut steps = script().into_iter();
    // Before anything is stored.
    for step in steps.by_ref().take(4) {
        out.push(run_step(r, step, &same));
    }
    seed(r);
    touch(r, "sync-v2.md");
    for step in steps {
        out.push(run_step(r, step, &same));
    }
    // Hashes are the same on both stores: feedback and match by the hashes stored.
    let v = json(&[
        "session",
        "error",
        "match",
        "--root",
        r,
        "--project",
        "notes",
        "--message",
        "TypeError: Cannot read properties of undefined (reading 'x') at a.ts:1:1",
        "--format",
        "json",
    ]);
    let hash = v[0]["pattern"]["hash"].as_str().unwrap().to_string();
    for args in [
        vec![
            "session",
            "error",
            "feedback",
            "--project",
            "notes",
            "--hash",
            &hash,
            "--helped",
        ],
        vec![
            "session",
            "error",
            "feedback",
            "--project",
            "notes",
            "--hash",
            &hash,
            "--helped",
            "--format",
            "json",
        ],
        vec![
            "session",
            "error",
            "feedback",
            "--project",
            "notes",
            "--hash",
            &hash[..5],
            "--did-not-help",
        ],
        vec![
            "session",
            "error",
            "feedback",
            "--project",
            "notes",
            "--hash",
            &hash,
            "--helped",
        ],
        vec![
            "session",
            "error",
            "feedback",
            "--project",
            "notes",
            "--hash",
            &hash,
            "--helped",
        ],
        vec![
            "session",
            "error",
            "feedback",
            "--project",
            "notes",
            "--hash",
            &hash,
            "--helped",
        ],
        vec![
            "session",
            "error",
            "match",
            "--project",
            "notes",
            "--message",
            "TypeError: Cannot read properties of undefined (reading 'y') at b.ts:9:9",
        ],
        vec![
            "session",
            "error",
            "match",
            "--project",
            "notes",
            "--message",
            "Cannot read properties while syncing the database",
            "--limit",
            "5",
        ],
        vec![
            "session",
            "error",
            "match",
            "--project",
            "notes",
            "--message",
            "segmentation fault",
        ],
        vec![
            "session",
            "error",
            "match",
            "--project",
            "other",
            "--message",
            "database is locked",
        ],
    ] {
        let args: Vec<&str> = args.into_iter().collect();
        out.push(cli_step(r, NOW, &args, &same));
    }
    for (window, used, extra) in [
        (
            "200000",
            "1000",
            &["--task", "TASK-002", "--budget", "2500"][..],
        ),
        (
            "200000",
            "1000",
            &["--task", "TASK-002", "--format", "json"][..],
        ),
        ("200000", "1000", &["--format", "text"][..]),
        ("10000", "6500", &["--task", "TASK-002"][..]),
        ("10000", "7000", &[][..]),
        ("10000", "7500", &[][..]),
        ("10000", "8200", &[][..]),
        ("200000", "1000", &["--iteration", "2", "--no-redact"][..]),
    ] {
        let mut args = vec![
            "context",
            "--session",
            S,
            "--agent",
            "developer",
            "--group",
            "group_a",
            "--window",
            window,
            "--used-tokens",
            used,
            "--project",
            "notes",
        ];
        args.extend_from_slice(extra);
        out.push(cli_step(r, NOW, &args, &same));
    }
    #[cfg(feature = "mcp")]
    out.extend(run_tools(dir, &same));
    for days in ["3", "0"] {
        out.push(cli_step(
            r,
            NOW,
            &["session", "prune", "--older-than", days, "--format", "json"],
            &same,
        ));
        out.push(cli_step(
            r,
            NOW + 200 * DAY,
            &["session", "prune", "--older-than", days],
            &same,
        ));
    }
    out.push(cli_step(
        r,
        NOW,
        &[
            "session",
            "package",
            "list",
            "--session",
            S,
            "--agent",
            "developer",
        ],
        &same,
    ));
    out
}

fn run_step(r: &str, step: Step, same: &dyn Fn(String) -> String) -> (String, i32, String, String) {
    cli_step(r, step.0, &step.1, same)
}

fn cli_step(
    r: &str,
    now: i64,
    args: &[&str],
    same: &dyn Fn(String) -> String,
) -> (String, i32, String, String) {
    let mut full = args.to_vec();
    full.extend(["--root", r]);
    let (code, stdout, stderr) = run_at(now, &full);
    (args.join(" "), code, same(stdout), same(stderr))
}

/// The session tools through `brief serve` on the current store.
#[cfg(feature = "mcp")]
fn run_tools(
    dir: &tempfile::TempDir,
    same: &dyn Fn(String) -> String,
) -> Vec<(String, i32, String, String)> {
    use serde_json::json;
    let url = session_url();
    let now = NOW.to_string();
    let mut env = vec![("BRIEF_NOW", now.as_str())];
    if let Some(url) = &url {
        env.push(("BRIEF_SESSION_URL", url.as_str()));
    }
    touch(root(dir), "handoff/qa.md");
    let mut server = crate::mcp::Server::start_with(dir.path(), &env);
    let recorded = brief_session::signature_hash(&brief_session::normalize_signature(
        "KeyError: 'note_id' in sync/merge.py line 88",
    ));
    let calls = [
        (
            "session_package_add",
            json!({"session": S, "type": "handoff", "file": "handoff/qa.md", "producer": "developer",
            "consumers": ["qa_expert"], "priority": "critical", "summary": "Ready for QA:\n  three tabs", "format": "json"}),
        ),
        (
            "session_package_add",
            json!({"session": S, "type": "handoff", "file": "handoff/missing.md", "producer": "developer",
            "consumers": ["qa_expert"], "summary": "x"}),
        ),
        (
            "session_package_list",
            json!({"session": S, "agent": "qa_expert", "format": "json"}),
        ),
        (
            "session_package_list",
            json!({"session": S, "agent": "qa_expert", "group": "group_a", "limit": 2}),
        ),
        (
            "session_package_consume",
            json!({"session": S, "agent": "qa_expert", "id": 7}),
        ),
        (
            "session_package_consume",
            json!({"session": S, "agent": "qa_expert", "id": 7, "format": "json"}),
        ),
        (
            "session_error_record",
            json!({"project": "notes", "message": "KeyError: 'note_id' in sync/merge.py line 88", "solution": "Default the id", "lang": "python"}),
        ),
        (
            "session_error_feedback",
            json!({"project": "notes", "hash": "0000", "helped": true}),
        ),
        (
            "session_error_feedback",
            json!({"project": "notes", "hash": recorded, "helped": false, "format": "json"}),
        ),
        (
            "session_error_match",
            json!({"project": "notes", "message": "KeyError: 'other' in sync/merge.py line 3"}),
        ),
        (
            "session_error_match",
            json!({"project": "notes", "message": "merge KeyError", "format": "json", "limit": 2}),
        ),
        (
            "context",
            json!({"target": "TASK-002", "session": S, "agent": "qa_expert", "window": 200000, "used_tokens": 1000}),
        ),
    ];
    calls
        .into_iter()
        .enumerate()
        .map(|(n, (tool, arguments))| {
            let (failed, blocks) = server.call_blocks(500 + n as u64, tool, &arguments);
            (
                format!("{tool} {arguments}"),
                i32::from(failed),
                same(blocks.join("\n---\n")),
                String::new(),
            )
        })
        .collect()
}

/// Every session command and tool on the SQLite store and on PostgreSQL: the same bytes.
#[test]
fn both_stores_print_the_same_bytes() {
    let Some(server) = testing::server() else {
        return;
    };
    let sqlite = run_script(&project());
    let database = testing::Database::create(server);
    SESSION_URL.with(|u| *u.borrow_mut() = Some(database.url.clone()));
    let postgres = std::panic::catch_unwind(|| run_script(&project()));
    SESSION_URL.with(|u| *u.borrow_mut() = None);
    let postgres = postgres.unwrap_or_else(|p| std::panic::resume_unwind(p));
    assert_eq!(sqlite.len(), postgres.len());
    let mut exits = Vec::new();
    for (a, b) in sqlite.iter().zip(&postgres) {
        assert_eq!(a, b, "the stores differ on `{}`", a.0);
        exits.push(a.1);
    }
    // The script reaches successes and failures alike.
    assert!(
        exits.contains(&0) && exits.contains(&1) && exits.contains(&2),
        "{exits:?}"
    );
}

/// The words that tell the stress tests' error patterns apart.
const PATTERN_WORDS: [&str; 8] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
];

/// What one writer's acknowledged writes were.
#[derive(Default)]
struct Acknowledged {
    /// (package id, summary) of each package added.
    packages: Vec<(i64, String)>,
    /// Consumptions that were new.
    consumptions: usize,
    /// Records per pattern.
    records: [i64; 8],
    /// (helped, not) feedback per pattern.
    feedback: [(i64, i64); 8],
}

/// Feedback each pattern may still take so that no order of them hits the 0.1 or 1.0
/// bound (five helped and two not at most: 0.5 + 0.5 = 1.0, 0.5 − 0.4 = 0.1), which makes
/// the final confidence exact whatever the interleaving.
struct FeedbackBudget(std::sync::Mutex<[(i64, i64); 8]>);

impl FeedbackBudget {
    fn take(&self, pattern: usize, helped: bool) -> bool {
        let mut left = self.0.lock().unwrap();
        let slot = if helped {
            &mut left[pattern].0
        } else {
            &mut left[pattern].1
        };
        if *slot == 0 {
            return false;
        }
        *slot -= 1;
        true
    }
}

/// One writer: `writes` mixed commands against its copy of the project.
fn writer(w: usize, root: &str, writes: usize, budget: &FeedbackBudget) -> Acknowledged {
    let mut ack = Acknowledged::default();
    for k in 0..writes {
        let pattern = (w + k) % 8;
        let message = format!(
            "KeyError: missing field {} in the sync merge",
            PATTERN_WORDS[pattern]
        );
        let helped = !(w + k).is_multiple_of(3);
        let last = ack.packages.last().map(|p| p.0);
        match (k % 4, last) {
            (1, Some(id)) => {
                let id = id.to_string();
                let iteration = (w % 3).to_string();
                let out = run_at(
                    NOW,
                    &[
                        "session",
                        "package",
                        "consume",
                        "--root",
                        root,
                        "--session",
                        "stress",
                        "--agent",
                        "qa_expert",
                        "--id",
                        &id,
                        "--iteration",
                        &iteration,
                        "--format",
                        "json",
                    ],
                );
                assert_eq!(out.0, 0, "{}", out.2);
                let v: Value = serde_json::from_str(&out.1).unwrap();
                ack.consumptions += usize::from(v["newly"] == true);
            }
            (2, _) => {
                ok(&[
                    "session",
                    "error",
                    "record",
                    "--root",
                    root,
                    "--project",
                    "stress",
                    "--message",
                    &message,
                    "--solution",
                    PATTERN_WORDS[pattern],
                ]);
                ack.records[pattern] += 1;
            }
            (3, _) if budget.take(pattern, helped) => {
                let hash = hash_of(&message);
                let verdict = if helped { "--helped" } else { "--did-not-help" };
                let (code, _, err) = run_at(
                    NOW,
                    &[
                        "session",
                        "error",
                        "feedback",
                        "--root",
                        root,
                        "--project",
                        "stress",
                        "--hash",
                        &hash,
                        verdict,
                    ],
                );
                match code {
                    0 if helped => ack.feedback[pattern].0 += 1,
                    0 => ack.feedback[pattern].1 += 1,
                    // Not recorded yet by anyone: nothing was written.
                    1 => assert!(err.contains("no error pattern"), "{err}"),
                    _ => panic!("feedback failed: {err}"),
                }
            }
            _ => {
                let file = format!("stress/{w}-{k}.md");
                touch(root, &file);
                let summary = format!("writer {w} write {k}");
                let out = ok(&[
                    "session",
                    "package",
                    "add",
                    "--root",
                    root,
                    "--session",
                    "stress",
                    "--type",
                    "research",
                    "--file",
                    &file,
                    "--producer",
                    "developer",
                    "--consumers",
                    "qa_expert",
                    "--summary",
                    &summary,
                    "--format",
                    "json",
                ]);
                let v: Value = serde_json::from_str(&out).unwrap();
                ack.packages.push((v["id"].as_i64().unwrap(), summary));
            }
        }
    }
    ack
}

/// The hash `brief session error record` gives a message (read from a dry match).
fn hash_of(message: &str) -> String {
    use std::sync::OnceLock;
    static HASHES: OnceLock<std::sync::Mutex<std::collections::HashMap<String, String>>> =
        OnceLock::new();
    let map = HASHES.get_or_init(Default::default);
    if let Some(h) = map.lock().unwrap().get(message) {
        return h.clone();
    }
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().to_str().unwrap();
    let saved = session_url();
    SESSION_URL.with(|u| *u.borrow_mut() = None);
    let out = ok(&[
        "session",
        "error",
        "record",
        "--root",
        r,
        "--project",
        "p",
        "--message",
        message,
        "--solution",
        "x",
        "--format",
        "json",
    ]);
    SESSION_URL.with(|u| *u.borrow_mut() = saved);
    let v: Value = serde_json::from_str(&out).unwrap();
    let h = v["pattern"]["hash"].as_str().unwrap().to_string();
    map.lock().unwrap().insert(message.to_string(), h.clone());
    h
}

/// 16 writers × `BRIEF_STRESS_WRITES` mixed writes (default 8; the acceptance figure in
/// BENCHMARKS.md is 200) from two copies of the project against one PostgreSQL database:
/// every acknowledged package present with its text, consumptions, occurrences and
/// confidences exactly as the acknowledged operations imply.
#[test]
fn many_writers_on_two_copies_lose_nothing() {
    let Some(server) = testing::server() else {
        return;
    };
    const WRITERS: usize = 16;
    let writes: usize = std::env::var("BRIEF_STRESS_WRITES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let database = testing::Database::create(server);
    let copies = [project(), project()];
    let budget = FeedbackBudget(std::sync::Mutex::new([(5, 2); 8]));
    for m in PATTERN_WORDS {
        hash_of(&format!("KeyError: missing field {m} in the sync merge"));
    }
    let url = database.url.clone();
    let acks: Vec<Acknowledged> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (root, budget, url) = (root(&copies[w % 2]), &budget, url.clone());
                scope.spawn(move || {
                    SESSION_URL.with(|u| *u.borrow_mut() = Some(url));
                    writer(w, root, writes, budget)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    SESSION_URL.with(|u| *u.borrow_mut() = Some(database.url.clone()));
    let outcome = std::panic::catch_unwind(|| check_stress(&copies, &acks));
    SESSION_URL.with(|u| *u.borrow_mut() = None);
    outcome.unwrap_or_else(|p| std::panic::resume_unwind(p));
}

/// Checks what [`many_writers_on_two_copies_lose_nothing`] acknowledged against the store,
/// read through both copies.
fn check_stress(copies: &[tempfile::TempDir; 2], acks: &[Acknowledged]) {
    let added: Vec<&(i64, String)> = acks.iter().flat_map(|a| &a.packages).collect();
    eprintln!(
        "{} writers acknowledged {} package adds, {} new consumptions, {} error records, {} feedback",
        acks.len(),
        added.len(),
        acks.iter().map(|a| a.consumptions).sum::<usize>(),
        acks.iter().flat_map(|a| a.records).sum::<i64>(),
        acks.iter().flat_map(|a| a.feedback).map(|(h, n)| h + n).sum::<i64>()
    );
    for copy in copies {
        let v = json(&[
            "session",
            "package",
            "list",
            "--root",
            root(copy),
            "--session",
            "stress",
            "--agent",
            "developer",
            "--limit",
            "100000",
            "--format",
            "json",
        ]);
        assert_eq!(v["total_available"].as_u64(), Some(added.len() as u64));
        let stored: std::collections::HashMap<i64, String> = v["packages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["id"].as_i64().unwrap(),
                    p["summary"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        for (id, summary) in &added {
            assert_eq!(stored.get(id), Some(summary), "package {id}");
        }
    }
    let mut store = Store::connect(
        &Location::named(&session_url().unwrap()).unwrap(),
        Mode::Read,
    )
    .unwrap();
    let consumptions = testing::rows(&mut store, Table::Consumptions).len();
    assert_eq!(
        consumptions,
        acks.iter().map(|a| a.consumptions).sum::<usize>()
    );
    for (p, word) in PATTERN_WORDS.iter().enumerate() {
        let records: i64 = acks.iter().map(|a| a.records[p]).sum();
        let helped: i64 = acks.iter().map(|a| a.feedback[p].0).sum();
        let not: i64 = acks.iter().map(|a| a.feedback[p].1).sum();
        let (code, out, _) = run_at(
            NOW,
            &[
                "session",
                "error",
                "match",
                "--root",
                root(&copies[p % 2]),
                "--project",
                "stress",
                "--message",
                &format!("KeyError: missing field {word} in the sync merge"),
                "--format",
                "json",
            ],
        );
        if records == 0 {
            assert_eq!(code, 1, "{out}");
            continue;
        }
        let v: Value = serde_json::from_str(&out).unwrap();
        let pattern = &v[0]["pattern"];
        assert_eq!(v[0]["exact"], true);
        assert_eq!(pattern["occurrences"].as_i64(), Some(records), "{word}");
        let expected = (50 + 10 * helped - 20 * not) as f64 / 100.0;
        assert_eq!(
            pattern["confidence"].as_f64(),
            Some(expected),
            "{word}: +{helped} −{not}"
        );
    }
}

/// Counts a finished writer when dropped.
struct Finished<'a>(&'a std::sync::atomic::AtomicUsize);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A child process a killer thread may SIGKILL while its writer waits for it.
#[cfg(unix)]
type Slot = std::sync::Arc<std::sync::Mutex<Option<std::process::Child>>>;

#[cfg(unix)]
/// The error messages of the crash test: one word per pattern.
const CRASH_PATTERNS: [&str; 2] = ["alpha", "bravo"];

#[cfg(unix)]
fn crash_message(pattern: usize) -> String {
    format!(
        "OSError: disk quota exceeded in worker {}",
        CRASH_PATTERNS[pattern]
    )
}

#[cfg(unix)]
/// What one writer of the crash test knows of its writes.
#[derive(Default)]
struct CrashAcks {
    /// (package id, summary) of each acknowledged add.
    packages: Vec<(i64, String)>,
    /// Acknowledged records per pattern.
    records: [i64; 2],
    /// Records per pattern whose writer was killed or told the write may have happened.
    maybe: [i64; 2],
}

#[cfg(unix)]
/// How a command of the crash test ended.
enum Ended {
    /// Exit 0 with this stdout.
    Acknowledged(Vec<u8>),
    /// A clean failure that wrote nothing.
    NothingWritten,
    /// Killed, or the error says the write may or may not have happened.
    Unknown,
}

/// Runs `args` as a child in `slot` (where the killer finds it) and says how it ended.
#[cfg(unix)]
fn crash_step(slot: &Slot, url: &str, args: &[&str]) -> Ended {
    let child = brief_command(NOW)
        .env("BRIEF_SESSION_URL", url)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    *slot.lock().unwrap() = Some(child);
    let out = loop {
        let mut held = slot.lock().unwrap();
        if held.as_mut().unwrap().try_wait().unwrap().is_some() {
            break held.take().unwrap().wait_with_output().unwrap();
        }
        drop(held);
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    if out.status.success() {
        return Ended::Acknowledged(out.stdout);
    }
    if out.status.code().is_none() {
        return Ended::Unknown;
    }
    // Not killed: the server was down when the command started (refused at once: nothing
    // written), or the error says what became of the write.
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("may or may not") {
        return Ended::Unknown;
    }
    assert!(
        err.contains("cannot connect to the PostgreSQL server")
            || err.contains("nothing was written"),
        "{err}"
    );
    Ended::NothingWritten
}

/// One writer of the crash test: package adds, and every third write an error record.
#[cfg(unix)]
fn crash_writer(w: usize, each: usize, r: &str, url: &str, slot: &Slot) -> CrashAcks {
    let mut acks = CrashAcks::default();
    for k in 0..each {
        if k % 3 == 2 {
            let pattern = (w + k) % 2;
            let message = crash_message(pattern);
            let args = [
                "session",
                "error",
                "record",
                "--root",
                r,
                "--project",
                "crash",
                "--message",
                &message,
                "--solution",
                "Raise the quota",
            ];
            match crash_step(slot, url, &args) {
                Ended::Acknowledged(_) => acks.records[pattern] += 1,
                Ended::Unknown => acks.maybe[pattern] += 1,
                Ended::NothingWritten => {}
            }
            continue;
        }
        let file = format!("killed/{w}-{k}.md");
        touch(r, &file);
        let summary = format!("survivor {w}/{k}");
        let args = [
            "session",
            "package",
            "add",
            "--root",
            r,
            "--session",
            "crash",
            "--type",
            "handoff",
            "--file",
            &file,
            "--producer",
            "developer",
            "--consumers",
            "qa_expert",
            "--summary",
            &summary,
            "--format",
            "json",
        ];
        if let Ended::Acknowledged(stdout) = crash_step(slot, url, &args) {
            let v: Value = serde_json::from_slice(&stdout).unwrap();
            acks.packages.push((v["id"].as_i64().unwrap(), summary));
        }
    }
    acks
}

/// Kills a running writer now and then and restarts the server as a crash would, once,
/// until every writer is done.
#[cfg(unix)]
fn kill_and_restart(
    cluster: &testing::Cluster,
    slots: &[Slot],
    done: &std::sync::atomic::AtomicUsize,
) {
    let (mut killed, mut restarted, mut tick) = (0, false, 0usize);
    while done.load(std::sync::atomic::Ordering::SeqCst) < slots.len() {
        std::thread::sleep(std::time::Duration::from_millis(40));
        tick += 1;
        if tick.is_multiple_of(3) {
            if let Some(child) = slots[tick % slots.len()].lock().unwrap().as_mut() {
                if child.kill().is_ok() {
                    killed += 1;
                }
            }
        }
        if tick == 10 && !restarted {
            cluster.restart_hard();
            restarted = true;
        }
    }
    assert!(
        killed > 0 && restarted,
        "killed {killed}, restarted {restarted}"
    );
    eprintln!("{killed} writers killed mid-command; the server restarted once");
}

#[cfg(unix)]
/// The crash test's packages as `brief session package list` gives them: id → summary.
fn crash_packages(r: &str) -> std::collections::HashMap<i64, String> {
    let v = json(&[
        "session",
        "package",
        "list",
        "--root",
        r,
        "--session",
        "crash",
        "--agent",
        "qa_expert",
        "--limit",
        "100000",
        "--format",
        "json",
    ]);
    v["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_i64().unwrap(),
                p["summary"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[cfg(unix)]
/// The occurrences of a crash-test pattern (`None`: not stored).
fn crash_occurrences(r: &str, pattern: usize) -> Option<i64> {
    let message = crash_message(pattern);
    let (code, out, err) = run_at(
        NOW,
        &[
            "session",
            "error",
            "match",
            "--root",
            r,
            "--project",
            "crash",
            "--message",
            &message,
            "--format",
            "json",
        ],
    );
    if code == 1 {
        return None;
    }
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["exact"], true, "{out}");
    v[0]["pattern"]["occurrences"].as_i64()
}

#[cfg(unix)]
/// After the crash: every acknowledged package with its text, each pattern's occurrences
/// between what was acknowledged and what may have happened, and the next commands exact.
fn check_after_crash(r: &str, acks: &[CrashAcks], attempted: usize) {
    let stored = crash_packages(r);
    let all: Vec<&(i64, String)> = acks.iter().flat_map(|a| &a.packages).collect();
    assert!(!all.is_empty());
    eprintln!(
        "{} of {attempted} writes acknowledged as adds, {} as records; {} packages stored",
        all.len(),
        acks.iter().flat_map(|a| a.records).sum::<i64>(),
        stored.len()
    );
    for (id, summary) in &all {
        assert_eq!(
            stored.get(id),
            Some(summary),
            "acknowledged package {id} lost"
        );
    }
    for p in 0..CRASH_PATTERNS.len() {
        let acked: i64 = acks.iter().map(|a| a.records[p]).sum();
        let maybe: i64 = acks.iter().map(|a| a.maybe[p]).sum();
        let found = crash_occurrences(r, p).unwrap_or(0);
        eprintln!("pattern {p}: {found} occurrences, {acked} acknowledged, {maybe} unknown");
        assert!(
            (acked..=acked + maybe).contains(&found),
            "pattern {p}: {found} occurrences, {acked} acknowledged, {maybe} unknown"
        );
        // The next record counts exactly once.
        ok(&[
            "session",
            "error",
            "record",
            "--root",
            r,
            "--project",
            "crash",
            "--message",
            &crash_message(p),
            "--solution",
            "Raise the quota",
        ]);
        assert_eq!(crash_occurrences(r, p), Some(found + 1), "pattern {p}");
    }
    // The next add is one more package in the list.
    touch(r, "after.md");
    ok(&[
        "session",
        "package",
        "add",
        "--root",
        r,
        "--session",
        "crash",
        "--type",
        "handoff",
        "--file",
        "after.md",
        "--producer",
        "developer",
        "--consumers",
        "qa_expert",
        "--summary",
        "after the crash",
    ]);
    assert_eq!(crash_packages(r).len(), stored.len() + 1);
}

/// Writers killed with SIGKILL while a PostgreSQL server restarts as after a crash: every
/// acknowledged package is there, every error pattern counts each acknowledged record once
/// (and no write twice), and the next commands are right.
#[cfg(unix)]
#[test]
fn killed_writers_and_a_server_restart_lose_nothing_acknowledged() {
    let Some(bin) = testing::Cluster::binaries() else {
        return;
    };
    let cluster = testing::Cluster::start(&bin, testing::Durability::Durable);
    let url = cluster.url();
    let dir = project();
    let r = root(&dir).to_string();
    const WRITERS: usize = 6;
    const EACH: usize = 12;
    let slots: Vec<Slot> = (0..WRITERS).map(|_| Slot::default()).collect();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let acks: Vec<CrashAcks> = std::thread::scope(|scope| {
        let writers: Vec<_> = slots
            .iter()
            .enumerate()
            .map(|(w, slot)| {
                let (r, url, done) = (&r, &url, &done);
                scope.spawn(move || {
                    // Counted done however the thread ends, so the killer loop stops.
                    let _done = Finished(done);
                    crash_writer(w, EACH, r, url, slot)
                })
            })
            .collect();
        kill_and_restart(&cluster, &slots, &done);
        writers.into_iter().map(|h| h.join().unwrap()).collect()
    });
    SESSION_URL.with(|u| *u.borrow_mut() = Some(url.clone()));
    let check = std::panic::catch_unwind(|| check_after_crash(&r, &acks, WRITERS * EACH));
    SESSION_URL.with(|u| *u.borrow_mut() = None);
    check.unwrap_or_else(|p| std::panic::resume_unwind(p));
}

/// brief.toml may name the server but never hold its password; a server that is down is
/// named (without a password) and a session context still gives the graph part.
#[test]
fn postgres_urls_keep_passwords_out_and_a_down_server_degrades() {
    let dir = project();
    let r = root(&dir);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let toml = dir.path().join("brief.toml");
    let original = std::fs::read_to_string(&toml).unwrap_or_default();
    std::fs::write(
        &toml,
        format!(
            "{original}\n[session]\nurl = \"postgres://agent:hunter2@127.0.0.1:{port}/brief\"\n"
        ),
    )
    .unwrap();
    touch(r, "a.md");
    let add = add_args(r, "qa_expert", &["--type", "research", "--file", "a.md"]);
    let (code, _, err) = run_at(NOW, &add);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("holds a password") && err.contains("PGPASSWORD"),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
    // Without the password the URL is taken, and the server is down.
    std::fs::write(
        &toml,
        format!("{original}\n[session]\nurl = \"postgres://agent@127.0.0.1:{port}/brief?connect_timeout=2\"\n"),
    )
    .unwrap();
    let (code, _, err) = run_at(NOW, &add);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "cannot connect to the PostgreSQL server at 127.0.0.1:{port}"
        )),
        "{err}"
    );
    // The environment wins over brief.toml and may hold the password; it is never printed.
    let out = brief_command(NOW)
        .env(
            "BRIEF_SESSION_URL",
            format!("postgres://agent:s3cr3tpw@127.0.0.1:{port}/brief?connect_timeout=2"),
        )
        .args([
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
        ])
        .output()
        .unwrap();
    let (doc, err) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.starts_with("warning: session store unavailable"),
        "{err}"
    );
    assert!(
        err.contains(&format!("127.0.0.1:{port}")) && !err.contains("s3cr3tpw"),
        "{err}"
    );
    assert!(
        doc.contains("Context packages unavailable") && doc.contains("# Context for TASK-002"),
        "{doc}"
    );
}
