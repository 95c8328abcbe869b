//! The PostgreSQL backend: one database shared by agents on many machines.
//!
//! tokio-postgres is driven on a private current-thread runtime, so every call here is
//! synchronous like SQLite's and each one is bounded in time: connecting by the URL's
//! `connect_timeout` (10 s by default), each statement by the server's `statement_timeout`
//! (30 s unless the URL's `options` set another) with the client's own limit a little
//! beyond it, and a dead peer by TCP keepalives and `TCP_USER_TIMEOUT`.
//!
//! Faults: an unreachable server is an error naming the host (never the password). A
//! connection lost mid-command is reconnected for up to [`RECONNECT_FOR`]: a read is run
//! again; a write whose transaction had not reached `COMMIT` is run again (the server rolled
//! it back); a write lost during its `COMMIT` is looked up by its transaction id
//! (`txid_status`) — committed, it stands and its answer is returned; aborted, it is run
//! again; unknown, the error says the write may have happened. A server that restarted in
//! between may have handed the id out again (an id whose transaction left nothing durable
//! before a crash is reused), so there "committed" is unknown too. Serialization failures,
//! deadlocks and a foreign key that a concurrent prune removed roll the transaction back and
//! run it again.

mod queries;
mod schema;
#[cfg(test)]
mod tests;
mod tls;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use tokio::runtime::Runtime;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, NoTls, Row, Statement};

use super::pgurl::PgTarget;
use super::{Kind, Mode};
use crate::SessionError;

/// How long a lost connection is tried again before a command gives up (a server restart
/// takes a few seconds).
pub(crate) const RECONNECT_FOR: Duration = Duration::from_secs(30);

/// The server's statement limit unless the URL's `options` set `statement_timeout`.
const STATEMENT_TIMEOUT: Duration = Duration::from_secs(30);

/// What the client waits beyond the server's statement limit before it drops a connection
/// that gives no answer at all.
const CLIENT_MARGIN: Duration = Duration::from_secs(10);

/// How often a transaction that failed on a conflict with another writer is run again.
const CONFLICT_RETRIES: usize = 20;

/// An open connection and its prepared statements.
pub(crate) struct Conn {
    client: Client,
    statements: HashMap<&'static str, Statement>,
}

impl Conn {
    /// The statement for `sql`, prepared once per connection.
    pub(crate) async fn prepared(&mut self, sql: &'static str) -> Result<Statement, Fail> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql).await?;
        self.statements.insert(sql, s.clone());
        Ok(s)
    }

    /// Runs a prepared statement and returns its rows.
    pub(crate) async fn rows(
        &mut self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, Fail> {
        let s = self.prepared(sql).await?;
        Ok(self.client.query(&s, params).await?)
    }

    /// Runs a prepared statement and returns the number of rows it changed.
    pub(crate) async fn execute(
        &mut self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, Fail> {
        let s = self.prepared(sql).await?;
        Ok(self.client.execute(&s, params).await?)
    }

    pub(crate) fn client(&mut self) -> &mut Client {
        &mut self.client
    }
}

/// Why one attempt failed.
#[derive(Debug)]
pub(crate) enum Fail {
    /// The connection is gone (or the server is shutting down): nothing more can be learned
    /// on it.
    Lost(tokio_postgres::Error),
    /// The server refused a statement; the transaction is rolled back.
    Sql(tokio_postgres::Error),
    /// A failure of brief's own (a schema it will not touch).
    Store(SessionError),
    /// A row another writer changed between two statements: run the whole attempt again.
    Conflict,
}

impl From<tokio_postgres::Error> for Fail {
    fn from(e: tokio_postgres::Error) -> Fail {
        let lost = match e.code() {
            None => true, // I/O, a closed connection, a protocol failure
            Some(code) => {
                code.code().starts_with("08")
                    || [
                        SqlState::ADMIN_SHUTDOWN,
                        SqlState::CRASH_SHUTDOWN,
                        SqlState::CANNOT_CONNECT_NOW,
                    ]
                    .contains(code)
            }
        };
        if lost {
            Fail::Lost(e)
        } else {
            Fail::Sql(e)
        }
    }
}

/// A transaction that failed on another writer: rolled back, safe to run again.
fn is_conflict(e: &tokio_postgres::Error) -> bool {
    e.code().is_some_and(|c| {
        [
            SqlState::T_R_SERIALIZATION_FAILURE,
            SqlState::T_R_DEADLOCK_DETECTED,
            SqlState::FOREIGN_KEY_VIOLATION,
        ]
        .contains(c)
    })
}

/// A connection to the session store on PostgreSQL.
pub(crate) struct Postgres {
    target: PgTarget,
    shown: String,
    runtime: Runtime,
    conn: Option<Conn>,
    /// What the client waits for one statement's answer.
    patience: Duration,
    /// Inside a transaction that spans calls (a copy): a lost connection cannot be run
    /// again, only reported.
    pinned: bool,
}

/// A transaction's fate learned after its connection was lost during `COMMIT`.
enum Outcome {
    Committed,
    Aborted,
    Unknown,
    /// The server restarted since the transaction began: "committed" may be another's.
    Restarted,
}

impl Postgres {
    /// Connects and, for writers, creates or migrates the schema; readers are refused a
    /// database without brief's tables ([`SessionError::Missing`]).
    pub(crate) fn connect(target: &PgTarget, mode: Mode) -> Result<Postgres, SessionError> {
        let shown = target.shown();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| SessionError::Store {
                path: shown.clone(),
                message: format!("cannot start the connection's runtime: {e}"),
            })?;
        let patience = statement_timeout(target.options.as_deref()) + CLIENT_MARGIN;
        let mut store = Postgres {
            target: target.clone(),
            shown,
            runtime,
            conn: None,
            patience,
            pinned: false,
        };
        // At start an unreachable server is reported at once (a session context falls back
        // to the graph part); a server starting up or shutting down is waited for.
        store.reconnect(Instant::now() + RECONNECT_FOR, Start::Fresh)?;
        store.ensure_schema(mode)?;
        Ok(store)
    }

    pub(crate) fn shown(&self) -> &str {
        &self.shown
    }

    pub(crate) fn kind(&self) -> Kind {
        Kind::Postgres
    }

    /// Opens a new connection, trying again until `deadline` while the server cannot take
    /// one (starting up, shutting down, restarting after a lost connection).
    fn reconnect(&mut self, deadline: Instant, start: Start) -> Result<(), SessionError> {
        self.conn = None;
        let mut pause = Duration::from_millis(50);
        loop {
            let attempt = self.runtime.block_on(open(&self.target));
            match attempt {
                Ok(conn) => {
                    self.conn = Some(conn);
                    return Ok(());
                }
                Err(e) => {
                    let waiting = start == Start::Again || server_not_ready(&e);
                    if !waiting || Instant::now() + pause >= deadline {
                        return Err(self.unreachable(&e));
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_secs(1));
                }
            }
        }
    }

    /// The error for a server that could not be reached.
    fn unreachable(&self, e: &ConnectError) -> SessionError {
        SessionError::Store {
            path: self.shown.clone(),
            message: format!(
                "cannot connect to the PostgreSQL server at {} ({e}); check that it runs and accepts connections, and the URL in {}",
                self.target.hosts_shown(),
                match self.target.origin {
                    super::Origin::BriefToml => "brief.toml's [session] url",
                    super::Origin::Environment => "BRIEF_SESSION_URL",
                    super::Origin::CommandLine => "the command line",
                }
            ),
        }
    }

    /// A statement failure as the user reads it.
    pub(crate) fn failure(&self, e: Fail) -> SessionError {
        match e {
            Fail::Store(e) => e,
            Fail::Lost(e) => SessionError::Store {
                path: self.shown.clone(),
                message: format!(
                    "lost the connection to {} ({e}) and could not get it back within {} s{}",
                    self.target.hosts_shown(),
                    RECONNECT_FOR.as_secs(),
                    if self.pinned {
                        "; the copy's transaction was rolled back, nothing was written"
                    } else {
                        "; nothing was written"
                    }
                ),
            },
            Fail::Conflict => SessionError::Store {
                path: self.shown.clone(),
                message: format!(
                    "other writers kept changing the same rows ({CONFLICT_RETRIES} tries); nothing was written, retry"
                ),
            },
            Fail::Sql(e) => {
                let detail = e
                    .as_db_error()
                    .map_or_else(|| e.to_string(), |d| d.message().to_string());
                let hint = match e.code() {
                    Some(c) if *c == SqlState::QUERY_CANCELED => {
                        "took longer than the statement time-out; nothing was written (raise statement_timeout in the URL's options if the store is very large)"
                    }
                    Some(c) if *c == SqlState::INSUFFICIENT_PRIVILEGE => {
                        "refused: the database user lacks a permission brief needs (see docs/session.md)"
                    }
                    Some(c) if *c == SqlState::DISK_FULL => {
                        "cannot be written: the server's disk is full (the store is unchanged)"
                    }
                    Some(c) if *c == SqlState::READ_ONLY_SQL_TRANSACTION => {
                        "cannot be written: the server is read-only (a standby?); point the URL at the primary"
                    }
                    _ => "refused a statement; nothing was written",
                };
                SessionError::Store {
                    path: self.shown.clone(),
                    message: format!("{hint} ({detail})"),
                }
            }
        }
    }

    /// The error for a write whose server restarted before it could say what became of it.
    fn restarted(&self) -> SessionError {
        SessionError::Store {
            path: self.shown.clone(),
            message: format!(
                "{} restarted before it confirmed the write; the write may or may not have happened: check (e.g. with `package list`) before running it again",
                self.target.hosts_shown(),
            ),
        }
    }

    /// The error for a command that ran out of time.
    fn timed_out(&self, written: Written) -> SessionError {
        SessionError::Store {
            path: self.shown.clone(),
            message: format!(
                "{} gave no answer for {} s; {}",
                self.target.hosts_shown(),
                self.patience.as_secs(),
                match written {
                    Written::No => "nothing was written (the transaction had not committed)",
                    Written::Maybe => "the write may or may not have happened: check (e.g. with `package list`) before running it again",
                }
            ),
        }
    }

    /// Runs `op` on the connection, reconnecting and running it again after a lost
    /// connection (it only reads, so running it twice is harmless).
    pub(crate) fn read<T>(
        &mut self,
        mut op: impl AsyncFnMut(&mut Conn) -> Result<T, Fail>,
    ) -> Result<T, SessionError> {
        let deadline = Instant::now() + RECONNECT_FOR;
        let mut conflicts = 0;
        loop {
            if self.conn.is_none() {
                self.reconnect(deadline, Start::Again)?;
            }
            let Some(conn) = self.conn.as_mut() else {
                continue;
            };
            let result = bounded(&self.runtime, self.patience, op(conn));
            match result {
                Ok(Ok(value)) => return Ok(value),
                Ok(Err(Fail::Lost(e))) => {
                    self.conn = None;
                    if self.pinned || Instant::now() >= deadline {
                        return Err(self.failure(Fail::Lost(e)));
                    }
                }
                Ok(Err(Fail::Conflict)) if !self.pinned && conflicts < CONFLICT_RETRIES => {
                    conflicts += 1;
                }
                Ok(Err(e)) => return Err(self.failure(e)),
                Err(_) => {
                    self.conn = None;
                    return Err(self.timed_out(Written::No));
                }
            }
        }
    }

    /// Runs `op` in one transaction and commits it, exactly once: see the module's faults.
    pub(crate) fn write<T>(
        &mut self,
        mut op: impl AsyncFnMut(&mut Conn) -> Result<T, Fail>,
    ) -> Result<T, SessionError> {
        let deadline = Instant::now() + RECONNECT_FOR;
        let mut conflicts = 0;
        loop {
            if self.conn.is_none() {
                self.reconnect(deadline, Start::Again)?;
            }
            let step = match self.conn.as_mut() {
                Some(conn) => {
                    let body = bounded(&self.runtime, self.patience, async {
                        let began = begin(conn).await?;
                        let value = op(conn).await?;
                        Ok::<_, Fail>((began, value))
                    });
                    match body {
                        Ok(Ok((began, value))) => {
                            let commit = bounded(
                                &self.runtime,
                                self.patience,
                                conn.client.batch_execute("COMMIT"),
                            );
                            match commit {
                                Ok(Ok(())) => return Ok(value),
                                Ok(Err(e)) => match Fail::from(e) {
                                    Fail::Lost(_) => Step::CommitLost(began, value),
                                    other => Step::Refused(other),
                                },
                                Err(_) => Step::CommitLost(began, value),
                            }
                        }
                        Ok(Err(Fail::Lost(e))) => Step::Lost(e),
                        Ok(Err(other)) => {
                            rollback(&self.runtime, conn);
                            Step::Refused(other)
                        }
                        Err(_) => Step::TimedOut,
                    }
                }
                None => continue,
            };
            match step {
                Step::CommitLost(began, value) => {
                    self.conn = None;
                    match self.outcome(&began, deadline) {
                        Outcome::Committed => return Ok(value),
                        Outcome::Aborted => {}
                        Outcome::Unknown => return Err(self.timed_out(Written::Maybe)),
                        Outcome::Restarted => return Err(self.restarted()),
                    }
                }
                Step::Lost(e) => {
                    // Lost before COMMIT: the server rolls the transaction back.
                    self.conn = None;
                    if Instant::now() >= deadline {
                        return Err(self.failure(Fail::Lost(e)));
                    }
                }
                Step::Refused(Fail::Sql(e)) if is_conflict(&e) => {
                    conflicts += 1;
                    if conflicts > CONFLICT_RETRIES {
                        return Err(self.failure(Fail::Sql(e)));
                    }
                }
                Step::Refused(Fail::Conflict) if conflicts < CONFLICT_RETRIES => {
                    conflicts += 1;
                }
                Step::Refused(e) => return Err(self.failure(e)),
                Step::TimedOut => {
                    self.conn = None;
                    return Err(self.timed_out(Written::No));
                }
            }
        }
    }

    /// Starts a transaction that spans calls (`BEGIN …` in `sql`).
    pub(crate) fn pin(&mut self, sql: &'static str) -> Result<(), SessionError> {
        self.read(async |conn| Ok(conn.client.batch_execute(sql).await?))?;
        self.pinned = true;
        Ok(())
    }

    /// Ends the spanning transaction (`COMMIT` or `ROLLBACK`).
    pub(crate) fn unpin(&mut self, sql: &'static str) -> Result<(), SessionError> {
        let done = self.read(async |conn| Ok(conn.client.batch_execute(sql).await?));
        self.pinned = false;
        done
    }

    /// What became of the transaction whose `COMMIT` got no answer: asked on a new
    /// connection, waiting while it is still in progress.
    fn outcome(&mut self, began: &Began, deadline: Instant) -> Outcome {
        loop {
            if self.conn.is_none() && self.reconnect(deadline, Start::Again).is_err() {
                return Outcome::Unknown;
            }
            let Some(conn) = self.conn.as_mut() else {
                return Outcome::Unknown;
            };
            let status = bounded(
                &self.runtime,
                self.patience,
                conn.client.query_one(
                    "SELECT txid_status($1::bigint), pg_postmaster_start_time()::text",
                    &[&began.xid],
                ),
            );
            match status {
                Ok(Ok(row)) => match row.get::<_, Option<String>>(0).as_deref() {
                    Some("committed") if row.get::<_, String>(1) == began.server_start => {
                        return Outcome::Committed
                    }
                    Some("committed") => return Outcome::Restarted,
                    Some("aborted") => return Outcome::Aborted,
                    Some(_) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(100))
                    }
                    _ => return Outcome::Unknown,
                },
                Ok(Err(_)) | Err(_) => {
                    self.conn = None;
                    if Instant::now() >= deadline {
                        return Outcome::Unknown;
                    }
                }
            }
        }
    }
}

/// A transaction as it began: its id and when the server it runs on started.
struct Began {
    xid: i64,
    server_start: String,
}

/// Where one attempt of a write ended, when it did not simply commit.
enum Step<T> {
    /// `COMMIT` was sent and no answer came.
    CommitLost(Began, T),
    /// Lost before `COMMIT`.
    Lost(tokio_postgres::Error),
    /// Refused by the server (rolled back).
    Refused(Fail),
    TimedOut,
}

/// Runs `work` on the runtime for at most `limit` (the timer is made inside the runtime).
fn bounded<F: std::future::Future>(
    runtime: &Runtime,
    limit: Duration,
    work: F,
) -> Result<F::Output, tokio::time::error::Elapsed> {
    runtime.block_on(async move { tokio::time::timeout(limit, work).await })
}

/// Starts a transaction and returns its id and the server's start time (one round trip).
async fn begin(conn: &mut Conn) -> Result<Began, Fail> {
    let messages = conn
        .client
        .simple_query("BEGIN; SELECT txid_current(), pg_postmaster_start_time()::text")
        .await?;
    messages
        .iter()
        .find_map(|m| match m {
            tokio_postgres::SimpleQueryMessage::Row(row) => Some(Began {
                xid: row.get(0)?.parse().ok()?,
                server_start: row.get(1)?.to_string(),
            }),
            _ => None,
        })
        .ok_or_else(|| Fail::Store(SessionError::Usage("txid_current() gave no id".into())))
}

/// Ends a refused transaction; a connection that cannot is dropped by its next failure.
fn rollback(runtime: &Runtime, conn: &mut Conn) {
    let _ = bounded(
        runtime,
        Duration::from_secs(5),
        conn.client.batch_execute("ROLLBACK"),
    );
}

/// Why a connection could not be opened.
#[derive(Debug)]
enum ConnectError {
    Setup(String),
    Server(tokio_postgres::Error),
    TimedOut(Duration),
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectError::Setup(s) => f.write_str(s),
            ConnectError::Server(e) => match e.as_db_error() {
                Some(db) => f.write_str(db.message()),
                None => {
                    let mut text = e.to_string();
                    let mut source = std::error::Error::source(e);
                    while let Some(s) = source {
                        text = format!("{text}: {s}");
                        source = s.source();
                    }
                    f.write_str(&text)
                }
            },
            ConnectError::TimedOut(d) => write!(f, "no answer within {} s", d.as_secs()),
        }
    }
}

/// Whether the server answered that it cannot take connections yet (starting up, shutting
/// down, in recovery): worth waiting for.
fn server_not_ready(e: &ConnectError) -> bool {
    matches!(e, ConnectError::Server(e) if e.code() == Some(&SqlState::CANNOT_CONNECT_NOW))
}

/// Runs `sql` (one or more statements) on its own connection to `target`: for tests that
/// create and drop databases.
#[cfg(any(test, feature = "testing"))]
pub(crate) fn execute_once(target: &PgTarget, sql: &str) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let conn = open(target).await.map_err(|e| e.to_string())?;
        conn.client
            .batch_execute(sql)
            .await
            .map_err(|e| ConnectError::Server(e).to_string())
    })
}

/// Opens one connection to the target.
async fn open(target: &PgTarget) -> Result<Conn, ConnectError> {
    let mut config = tokio_postgres::Config::new();
    for (host, port) in &target.hosts {
        config.host(host).port(*port);
    }
    config
        .user(&target.user)
        .dbname(&target.dbname)
        .application_name(&target.application_name)
        .connect_timeout(target.connect_timeout)
        .keepalives_idle(Duration::from_secs(10))
        .keepalives_interval(Duration::from_secs(5))
        .keepalives_retries(3)
        .tcp_user_timeout(Duration::from_secs(30))
        .options(server_options(target.options.as_deref()));
    if let Some(password) = &target.password {
        config.password(password.expose());
    }
    let tls = tls::connector(target).map_err(ConnectError::Setup)?;
    config.ssl_mode(match (target.sslmode, &tls) {
        (_, None) => tokio_postgres::config::SslMode::Disable,
        (super::pgurl::SslMode::Prefer, Some(_)) => tokio_postgres::config::SslMode::Prefer,
        (_, Some(_)) => tokio_postgres::config::SslMode::Require,
    });
    let limit = target.connect_timeout * target.hosts.len().max(1) as u32 + Duration::from_secs(1);
    let connected = tokio::time::timeout(limit, async {
        match tls {
            Some(tls) => {
                let (client, connection) = config.connect(tls).await?;
                tokio::spawn(connection);
                Ok(client)
            }
            None => {
                let (client, connection) = config.connect(NoTls).await?;
                tokio::spawn(connection);
                Ok(client)
            }
        }
    })
    .await;
    match connected {
        Ok(Ok(client)) => Ok(Conn {
            client,
            statements: HashMap::new(),
        }),
        Ok(Err(e)) => Err(ConnectError::Server(e)),
        Err(_) => Err(ConnectError::TimedOut(limit)),
    }
}

/// The server options: brief's statement time-out first, so the URL's own `options` (read
/// later by the server) may raise it.
fn server_options(given: Option<&str>) -> String {
    let ours = format!("-c statement_timeout={}", STATEMENT_TIMEOUT.as_millis());
    match given {
        Some(options) if !options.trim().is_empty() => format!("{ours} {options}"),
        _ => ours,
    }
}

/// The statement time-out in force: the URL's `-c statement_timeout=…` when it sets one
/// (a number of milliseconds, or with `ms`, `s`, `min` or `h`), else brief's.
fn statement_timeout(options: Option<&str>) -> Duration {
    let Some(value) = options.and_then(|o| {
        o.split_whitespace()
            .rev()
            .find_map(|w| w.strip_prefix("statement_timeout="))
    }) else {
        return STATEMENT_TIMEOUT;
    };
    let digits: String = value.chars().take_while(char::is_ascii_digit).collect();
    let Ok(n) = digits.parse::<u64>() else {
        return STATEMENT_TIMEOUT;
    };
    match &value[digits.len()..] {
        "" | "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "min" => Duration::from_secs(n * 60),
        "h" => Duration::from_secs(n * 3600),
        _ => STATEMENT_TIMEOUT,
    }
    .max(Duration::from_millis(1))
}

/// How a connection attempt starts: a command's first (a refused connection is reported at
/// once) or after a lost one (tried again until the deadline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    Fresh,
    Again,
}

/// Whether a write may have reached the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    No,
    Maybe,
}
