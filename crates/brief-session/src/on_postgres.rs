//! The session store on a real PostgreSQL server, through the public commands: TLS, a
//! server down or restarted, concurrent writers, schemas, lost connections, pruning beside
//! writers. Skipped without a server (see `testing`), mandatory in CI.

use std::sync::Arc;

use crate::packages::{
    package_add, package_consume, package_list, ConsumeRequest, ListRequest, NewPackage,
};
use crate::patterns::{error_feedback, error_record, prune, ErrorRecord};
use crate::store::{Location, Mode, Table};
use crate::testing::{self, Cluster, Database, Durability};
use crate::{PackageType, Priority, SessionConfig, SessionError, Store};

const NOW: i64 = 1_760_000_000;

fn package(session: &str, i: usize) -> NewPackage {
    NewPackage {
        session: session.into(),
        group: None,
        kind: PackageType::Research,
        file: format!("notes/{i}.md"),
        producer: "developer".into(),
        consumers: vec!["qa_expert".into()],
        priority: Priority::Medium,
        summary: format!("Finding {i}"),
        supersedes: None,
    }
}

fn record(message: &str) -> ErrorRecord {
    ErrorRecord {
        project: "notes".into(),
        message: message.into(),
        solution: "Use WAL".into(),
        lang: None,
    }
}

fn connect(url: &str, mode: Mode) -> Result<Store, SessionError> {
    Store::connect(&Location::named(url)?, mode)
}

/// `url` with `sslmode` and `sslrootcert` set.
fn with_tls(cluster: &Cluster, host: &str, query: &str) -> String {
    format!(
        "postgres://brief@{host}:{}/postgres?{query}",
        cluster.port()
    )
}

#[test]
fn tls_when_the_url_asks_for_it() {
    let Some(bin) = Cluster::binaries() else {
        return;
    };
    let cluster = Cluster::start_tls(&bin);
    let ca = cluster.ca();
    let ca = ca.to_str().unwrap();
    // The server takes TLS only: a plain connection is refused by it.
    let e = connect(
        &with_tls(&cluster, "127.0.0.1", "sslmode=disable"),
        Mode::Create,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("cannot connect to the PostgreSQL server at 127.0.0.1"),
        "{e}"
    );
    // Encrypted without checks (prefer, require), with the chain checked (verify-ca, or
    // require given a root), refused when the name does not match (verify-full).
    for query in [
        "sslmode=prefer".to_string(),
        "sslmode=require".to_string(),
        format!("sslmode=require&sslrootcert={ca}"),
        format!("sslmode=verify-ca&sslrootcert={ca}"),
    ] {
        let mut store = connect(&with_tls(&cluster, "127.0.0.1", &query), Mode::Create)
            .unwrap_or_else(|e| panic!("{query}: {e}"));
        package_add(&mut store, &package("tls", 1), NOW).unwrap();
    }
    let e = connect(
        &with_tls(
            &cluster,
            "127.0.0.1",
            &format!("sslmode=verify-full&sslrootcert={ca}"),
        ),
        Mode::Create,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("certificate"), "{e}");
    // A root the server's certificate does not chain to is refused.
    let other = Cluster::start_tls(&bin);
    let e = connect(
        &with_tls(
            &cluster,
            "127.0.0.1",
            &format!("sslmode=verify-ca&sslrootcert={}", other.ca().display()),
        ),
        Mode::Create,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("certificate"), "{e}");
}

#[test]
fn a_server_that_is_down_is_named_without_its_password() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://agent:pa55word@127.0.0.1:{port}/brief?connect_timeout=2");
    for mode in [Mode::Create, Mode::Read] {
        let e = connect(&url, mode).unwrap_err();
        assert!(e.is_store_problem(), "{e}");
        let text = e.to_string();
        assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
        assert!(!text.contains("pa55word"), "{text}");
        assert_eq!(e.exit_code(), 2);
    }
}

#[test]
fn reads_and_writes_survive_a_server_restart() {
    let Some(bin) = Cluster::binaries() else {
        return;
    };
    let cluster = Cluster::start(&bin, Durability::Durable);
    let url = cluster.url();
    let mut store = connect(&url, Mode::Create).unwrap();
    package_add(&mut store, &package("s", 1), NOW).unwrap();
    // The connection dies under the open store; the next read and write reconnect.
    cluster.restart_hard();
    let request = ListRequest {
        session: "s".into(),
        agent: "qa_expert".into(),
        ..ListRequest::default()
    };
    let listed = package_list(&mut store, &request, &SessionConfig::default(), NOW).unwrap();
    assert_eq!(listed.total_available, 1);
    cluster.restart_hard();
    let added = package_add(&mut store, &package("s", 2), NOW).unwrap();
    // A crash lets PostgreSQL's id sequence skip numbers (it logs 32 ahead): unique and
    // increasing, not dense.
    assert!(added.id >= 2, "{}", added.id);
    // A server that stays down: the error says nothing was written.
    cluster.stop();
    let e = package_add(&mut store, &package("s", 3), NOW)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("nothing was written") || e.contains("cannot connect"),
        "{e}"
    );
    cluster.start_again();
    let listed = package_list(&mut store, &request, &SessionConfig::default(), NOW).unwrap();
    assert_eq!(listed.total_available, 2);
}

#[test]
fn concurrent_writers_count_exactly() {
    let Some(server) = testing::server() else {
        return;
    };
    let database = Arc::new(Database::create(server));
    connect(&database.url, Mode::Create).unwrap();
    const THREADS: usize = 8;
    const EACH: usize = 15;
    std::thread::scope(|scope| {
        for t in 0..THREADS {
            let url = database.url.clone();
            scope.spawn(move || {
                let mut store = connect(&url, Mode::Create).unwrap();
                for i in 0..EACH {
                    let added =
                        package_add(&mut store, &package("race", t * EACH + i), NOW).unwrap();
                    // Every thread consumes every package it sees, twice: once counts.
                    for _ in 0..2 {
                        package_consume(
                            &mut store,
                            &ConsumeRequest {
                                session: "race".into(),
                                agent: "qa_expert".into(),
                                id: added.id,
                                iteration: Some(1),
                            },
                            NOW,
                        )
                        .unwrap();
                    }
                    error_record(
                        &mut store,
                        &record("database is locked at /x/y.py line 3"),
                        NOW,
                    )
                    .unwrap();
                    // Four helped (+0.1) and two not (−0.2): never clamped, whatever the order.
                    if i == 0 && (t % 2 == 0 || t < 4) {
                        let hash = crate::signature_hash(&crate::normalize_signature(
                            "database is locked at /x/y.py line 3",
                        ));
                        error_feedback(&mut store, "notes", &hash, t % 2 == 0, NOW).unwrap();
                    }
                    // Pruning nothing old, beside the writers.
                    prune(&mut store, 30, NOW).unwrap();
                }
            });
        }
    });
    let mut store = connect(&database.url, Mode::Read).unwrap();
    let counts = store.backend().counts().unwrap();
    assert_eq!(counts.packages, (THREADS * EACH) as i64);
    assert_eq!(counts.consumptions, (THREADS * EACH) as i64);
    assert_eq!(counts.error_patterns, 1);
    let rows = testing::rows(&mut store, Table::ErrorPatterns);
    // Confidence 50 + 4 × 10 − 2 × 20 = 50 whatever the order; occurrences THREADS × EACH.
    assert!(
        rows[0].contains(&format!("Int(50), Int({})", THREADS * EACH)),
        "{rows:?}"
    );
}

#[test]
fn newer_and_foreign_schemas_are_refused_untouched() {
    let Some(server) = testing::server() else {
        return;
    };
    let database = Database::create(server);
    connect(&database.url, Mode::Create).unwrap();
    testing::execute(
        &database.url,
        "UPDATE brief.schema_version SET version = 99",
    );
    for mode in [Mode::Create, Mode::Read, Mode::Existing] {
        let e = connect(&database.url, mode).unwrap_err();
        assert!(matches!(e, SessionError::Newer { version: 99, .. }), "{e}");
    }
    let foreign = Database::create(server);
    testing::execute(
        &foreign.url,
        "CREATE SCHEMA brief; CREATE TABLE brief.notes (x int)",
    );
    let e = connect(&foreign.url, Mode::Create).unwrap_err().to_string();
    assert!(e.contains("not a brief session store"), "{e}");
    let empty = Database::create(server);
    assert!(matches!(
        connect(&empty.url, Mode::Read),
        Err(SessionError::Missing(_))
    ));
    assert!(matches!(
        connect(&empty.url, Mode::Existing),
        Err(SessionError::Missing(_))
    ));
}

/// What the proxy does to the one message it waits for.
#[derive(Clone, Copy)]
enum Cut {
    /// Drops the connection instead of passing the message on.
    Before(&'static str),
    /// Passes `COMMIT` on, hides the server's answer and drops the connection.
    AfterCommit,
}

/// A TCP proxy to the server that cuts the first connection that sends the message `cut`
/// waits for (a simple or extended query holding its text), once.
struct Proxy {
    port: u16,
    armed: Arc<std::sync::atomic::AtomicBool>,
}

/// What the proxy runs at the cut, before it drops the connection (the client still waits).
type Hook = Arc<dyn Fn() + Send + Sync>;

impl Proxy {
    fn start(server_port: u16, cut: Cut) -> Proxy {
        Proxy::start_with(server_port, cut, None)
    }

    fn start_with(server_port: u16, cut: Cut, hook: Option<Hook>) -> Proxy {
        use std::net::{TcpListener, TcpStream};
        use std::sync::atomic::{AtomicBool, Ordering};
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let armed = Arc::new(AtomicBool::new(true));
        let handle = armed.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                // A server down for a restart: the client sees its connection refused.
                let Ok(server) = TcpStream::connect(("127.0.0.1", server_port)) else {
                    continue;
                };
                let muted = Arc::new(AtomicBool::new(false));
                let (mut from_server, mut to_client) =
                    (server.try_clone().unwrap(), client.try_clone().unwrap());
                let hush = muted.clone();
                std::thread::spawn(move || {
                    use std::io::{Read, Write};
                    let mut buf = [0u8; 16384];
                    while let Ok(n) = from_server.read(&mut buf) {
                        if n == 0
                            || (!hush.load(Ordering::SeqCst)
                                && to_client.write_all(&buf[..n]).is_err())
                        {
                            break;
                        }
                    }
                    // A muted connection is ended by the cut, not by the server going away.
                    if !hush.load(Ordering::SeqCst) {
                        let _ = to_client.shutdown(std::net::Shutdown::Both);
                    }
                });
                let (armed, hook) = (armed.clone(), hook.clone());
                std::thread::spawn(move || forward(client, server, cut, &armed, &muted, hook));
            }
        });
        Proxy {
            port,
            armed: handle,
        }
    }

    /// Whether the cut happened.
    fn fired(&self) -> bool {
        !self.armed.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn url(&self) -> String {
        format!(
            "postgres://brief@127.0.0.1:{}/postgres?sslmode=disable",
            self.port
        )
    }
}

/// Passes the client's messages to the server, cutting at the one `cut` waits for.
fn forward(
    mut client: std::net::TcpStream,
    mut server: std::net::TcpStream,
    cut: Cut,
    armed: &std::sync::atomic::AtomicBool,
    muted: &std::sync::atomic::AtomicBool,
    hook: Option<Hook>,
) {
    use std::io::{Read, Write};
    use std::sync::atomic::Ordering;
    let read_exact = |s: &mut std::net::TcpStream, n: usize| -> Option<Vec<u8>> {
        let mut v = vec![0u8; n];
        s.read_exact(&mut v).ok().map(|_| v)
    };
    // The startup message has no type byte.
    let Some(len) = read_exact(&mut client, 4) else {
        return;
    };
    let n = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
    let Some(body) = read_exact(&mut client, n - 4) else {
        return;
    };
    if server.write_all(&[len, body].concat()).is_err() {
        return;
    }
    while let Some(head) = read_exact(&mut client, 5) {
        let n = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let Some(body) = read_exact(&mut client, n - 4) else {
            break;
        };
        let text = String::from_utf8_lossy(&body);
        let query = matches!(head[0], b'Q' | b'P');
        let hit = query
            && match cut {
                Cut::Before(sql) => text.contains(sql),
                Cut::AfterCommit => head[0] == b'Q' && text.starts_with("COMMIT"),
            };
        if hit && armed.swap(false, Ordering::SeqCst) {
            if let Cut::AfterCommit = cut {
                muted.store(true, Ordering::SeqCst);
                let _ = server.write_all(&[head, body].concat());
                // Let the server commit, then vanish.
                std::thread::sleep(std::time::Duration::from_millis(300));
            }
            if let Some(hook) = &hook {
                muted.store(true, Ordering::SeqCst);
                hook();
            }
            let _ = client.shutdown(std::net::Shutdown::Both);
            let _ = server.shutdown(std::net::Shutdown::Both);
            return;
        }
        if server.write_all(&[head, body].concat()).is_err() {
            break;
        }
    }
}

#[test]
fn a_connection_lost_mid_command_is_run_again_or_looked_up() {
    let Some(bin) = Cluster::binaries() else {
        return;
    };
    let cluster = Cluster::start(&bin, Durability::Fast);
    let direct = cluster.url();
    connect(&direct, Mode::Create).unwrap();
    let count = |table: Table| {
        let mut store = connect(&direct, Mode::Read).unwrap();
        testing::rows(&mut store, table).len()
    };
    // Lost before COMMIT: rolled back by the server, run again: one package.
    let proxy = Proxy::start(cluster.port(), Cut::Before("INSERT INTO brief.packages"));
    let mut store = connect(&proxy.url(), Mode::Create).unwrap();
    let added = package_add(&mut store, &package("lost", 1), NOW).unwrap();
    assert!(proxy.fired());
    assert_eq!(count(Table::Packages), 1);
    // Lost during a read: read again.
    let proxy = Proxy::start(
        cluster.port(),
        Cut::Before("NOT EXISTS (SELECT 1 FROM brief.consumptions"),
    );
    let mut store = connect(&proxy.url(), Mode::Create).unwrap();
    let request = ListRequest {
        session: "lost".into(),
        agent: "qa_expert".into(),
        ..ListRequest::default()
    };
    let listed = package_list(&mut store, &request, &SessionConfig::default(), NOW).unwrap();
    assert!(proxy.fired());
    assert_eq!(listed.packages[0].id, added.id);
    // Lost during COMMIT: the transaction committed, so the answer stands and it is not run
    // again — one more package, one occurrence, not two.
    let proxy = Proxy::start(cluster.port(), Cut::AfterCommit);
    let mut store = connect(&proxy.url(), Mode::Create).unwrap();
    let second = package_add(&mut store, &package("lost", 2), NOW).unwrap();
    assert!(proxy.fired());
    assert_eq!(count(Table::Packages), 2);
    assert!(second.id > added.id);
    let proxy = Proxy::start(cluster.port(), Cut::AfterCommit);
    let mut store = connect(&proxy.url(), Mode::Create).unwrap();
    let recorded = error_record(
        &mut store,
        &record("database is locked at /q.py line 1"),
        NOW,
    )
    .unwrap();
    assert_eq!(
        (recorded.operation, recorded.pattern.occurrences),
        ("created", 1)
    );
    let mut check = connect(&direct, Mode::Read).unwrap();
    let rows = testing::rows(&mut check, Table::ErrorPatterns);
    assert_eq!(rows.len(), 1);
    assert!(rows[0].contains("Int(50), Int(1),"), "{rows:?}");
}

#[test]
fn pruning_beside_writers_of_the_same_session_loses_no_new_package() {
    let Some(server) = testing::server() else {
        return;
    };
    let database = Database::create(server);
    let mut store = connect(&database.url, Mode::Create).unwrap();
    const OLD: usize = 40;
    for i in 0..OLD {
        package_add(&mut store, &package("shared", i), NOW - 40 * 86_400).unwrap();
    }
    const WRITERS: usize = 4;
    const EACH: usize = 20;
    std::thread::scope(|scope| {
        let url = &database.url;
        scope.spawn(move || {
            let mut store = connect(url, Mode::Create).unwrap();
            for _ in 0..30 {
                prune(&mut store, 30, NOW).unwrap();
            }
        });
        for w in 0..WRITERS {
            scope.spawn(move || {
                let mut store = connect(url, Mode::Create).unwrap();
                for i in 0..EACH {
                    package_add(&mut store, &package("shared", 1000 + w * EACH + i), NOW).unwrap();
                }
            });
        }
    });
    prune(&mut store, 30, NOW).unwrap();
    let listed = package_list(
        &mut store,
        &ListRequest {
            session: "shared".into(),
            agent: "qa_expert".into(),
            limit: Some(1000),
            ..ListRequest::default()
        },
        &SessionConfig::default(),
        NOW,
    )
    .unwrap();
    assert_eq!(
        listed.total_available,
        WRITERS * EACH,
        "new packages lost or old ones kept"
    );
}

/// `url` with its user replaced by `user`.
fn as_user(url: &str, user: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap();
    let (_, host) = rest.split_once('@').unwrap();
    format!("{scheme}://{user}@{host}")
}

/// The database `url` names.
fn database_name(url: &str) -> &str {
    let path = url.split_once('?').map_or(url, |(base, _)| base);
    path.rsplit_once('/').unwrap().1
}

/// What docs/session.md says roles other than the owner need is enough: a writer with
/// `CONNECT`, `USAGE` and `SELECT, INSERT, UPDATE, DELETE` runs every session write, and a
/// reader with `USAGE` and `SELECT` every read but no write.
#[test]
fn the_documented_grants_are_enough_for_writers_and_readers() {
    let Some(server) = testing::server() else {
        return;
    };
    let database = Database::create(server);
    let mut owner = connect(&database.url, Mode::Create).unwrap();
    let first = package_add(&mut owner, &package("grants", 1), NOW).unwrap();
    drop(owner);
    let (writer, reader) = (
        format!("brief_writer_{}", std::process::id()),
        format!("brief_reader_{}", std::process::id()),
    );
    let name = database_name(&database.url);
    testing::execute(
        &database.url,
        &format!(
            "CREATE ROLE {writer} LOGIN; CREATE ROLE {reader} LOGIN;
             REVOKE ALL ON DATABASE {name} FROM PUBLIC;
             GRANT CONNECT ON DATABASE {name} TO {writer}, {reader};
             GRANT USAGE ON SCHEMA brief TO {writer}, {reader};
             GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA brief TO {writer};
             GRANT SELECT ON ALL TABLES IN SCHEMA brief TO {reader};"
        ),
    );
    let outcome = std::panic::catch_unwind(|| {
        let config = SessionConfig::default();
        let request = ListRequest {
            session: "grants".into(),
            agent: "qa_expert".into(),
            ..ListRequest::default()
        };
        let mut store = connect(&as_user(&database.url, &writer), Mode::Create).unwrap();
        let added = package_add(&mut store, &package("grants", 2), NOW).unwrap();
        assert!(added.id > first.id);
        let consume = ConsumeRequest {
            session: "grants".into(),
            agent: "qa_expert".into(),
            id: added.id,
            iteration: Some(1),
        };
        assert!(package_consume(&mut store, &consume, NOW).unwrap().newly);
        let message = "database is locked at /g.py line 2";
        let hash = error_record(&mut store, &record(message), NOW)
            .unwrap()
            .pattern
            .hash;
        error_record(&mut store, &record(message), NOW).unwrap();
        error_feedback(&mut store, "notes", &hash, true, NOW).unwrap();
        let listed = package_list(&mut store, &request, &config, NOW).unwrap();
        assert_eq!(listed.total_available, 1);
        let pruned = prune(&mut store, 0, NOW + 86_400).unwrap();
        assert_eq!((pruned.packages, pruned.error_patterns), (2, 1));
        package_add(&mut store, &package("grants", 3), NOW).unwrap();
        error_record(&mut store, &record(message), NOW).unwrap();
        drop(store);
        let mut store = connect(&as_user(&database.url, &reader), Mode::Read).unwrap();
        let listed = package_list(&mut store, &request, &config, NOW).unwrap();
        assert_eq!(listed.total_available, 1);
        let found = crate::patterns::error_match(&mut store, "notes", message, 3, NOW).unwrap();
        assert_eq!(found.len(), 1);
        let mut store = connect(&as_user(&database.url, &reader), Mode::Create).unwrap();
        let e = package_add(&mut store, &package("grants", 4), NOW).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("lacks a permission brief needs") && text.contains(&reader),
            "{text}"
        );
    });
    let admin = server.admin.clone();
    drop(database);
    testing::execute(&admin, &format!("DROP ROLE {writer}; DROP ROLE {reader}"));
    outcome.unwrap_or_else(|p| std::panic::resume_unwind(p));
}

/// A `COMMIT` that never reached a server which then crashed: its transaction left nothing
/// durable, so after the restart its id is handed out again and a later transaction commits
/// under it. The lookup must not take that for this write having happened.
#[test]
fn a_transaction_id_reused_after_a_crash_is_not_taken_for_a_commit() {
    let Some(bin) = Cluster::binaries() else {
        return;
    };
    let cluster = Arc::new(Cluster::start(&bin, Durability::Fast));
    let direct = cluster.url();
    connect(&direct, Mode::Create).unwrap();
    let crash = cluster.clone();
    let hook: Hook = Arc::new(move || {
        crash.restart_hard();
        // Hand out and commit enough ids to pass the lost one.
        testing::execute(
            &crash.url(),
            "DO $$ BEGIN FOR i IN 1..50 LOOP PERFORM txid_current(); COMMIT; END LOOP; END $$",
        );
    });
    let proxy = Proxy::start_with(cluster.port(), Cut::Before("COMMIT"), Some(hook));
    let mut store = connect(&proxy.url(), Mode::Create).unwrap();
    let outcome = package_add(&mut store, &package("reused", 1), NOW);
    assert!(proxy.fired());
    let mut check = connect(&direct, Mode::Read).unwrap();
    let stored = testing::rows(&mut check, Table::Packages);
    match outcome {
        Ok(added) => assert!(
            stored
                .iter()
                .any(|r| r.starts_with(&format!("[Int({}),", added.id))),
            "package {} acknowledged but not stored: {stored:?}",
            added.id
        ),
        Err(e) => {
            let text = e.to_string();
            assert!(
                text.contains("restarted before it confirmed the write")
                    && text.contains("may or may not"),
                "{text}"
            );
        }
    }
}

/// Both ways between SQLite and PostgreSQL: the same rows, ids continuing after the copy.
#[test]
fn copies_go_both_ways_with_the_same_rows() {
    let Some(server) = testing::server() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut sqlite = Store::open(dir.path(), Mode::Create).unwrap();
    for i in 0..30 {
        package_add(
            &mut sqlite,
            &package(&format!("s{}", i % 4), i),
            NOW + i as i64,
        )
        .unwrap();
    }
    error_record(
        &mut sqlite,
        &record("database is locked at /a/b.py line 9"),
        NOW,
    )
    .unwrap();
    drop(sqlite);
    let database = Database::create(server);
    let from = Location::Project(dir.path().to_path_buf());
    let to = database.location();
    let there = crate::copy_store(&from, &to).unwrap();
    assert_eq!(there.counts.packages, 30);
    // New ids continue after the copied ones.
    let mut store = Store::connect(&to, Mode::Create).unwrap();
    assert_eq!(
        package_add(&mut store, &package("s0", 99), NOW).unwrap().id,
        31
    );
    drop(store);
    let back = Location::File(dir.path().join("back.db"));
    let copied = crate::copy_store(&to, &back).unwrap();
    assert_eq!(copied.counts.packages, 31);
    let mut a = Store::connect(&to, Mode::Read).unwrap();
    let mut b = Store::connect(&back, Mode::Read).unwrap();
    for table in Table::ALL {
        assert_eq!(
            testing::rows(&mut a, table),
            testing::rows(&mut b, table),
            "{table:?}"
        );
    }
}
