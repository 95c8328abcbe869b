//! Throw-away stores for tests: a SQLite file in a temporary folder, and a database on a
//! real PostgreSQL server (feature `testing`; never in a shipped build).
//!
//! The server is `BRIEF_TEST_POSTGRES_URL` when set (an address whose user may create
//! databases; `.ci/run` starts one), else one this process starts with the PostgreSQL
//! binaries it finds (`initdb`, `pg_ctl` on `PATH` or under `/usr/lib/postgresql/*/bin`),
//! as `nobody` when run as root, on a free loopback port under a temporary folder, stopped
//! when the process ends. Without binaries the PostgreSQL half of a test is skipped with a
//! loud message — unless `BRIEF_TEST_POSTGRES_REQUIRED` is set, as `.ci/run` sets it, and
//! then it fails.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use crate::store::pgurl::{Origin, PgTarget};
use crate::store::postgres::execute_once;
use crate::store::{Location, Mode, Table};
use crate::Store;

/// The variable naming a server the tests may create databases on.
pub const SERVER_VARIABLE: &str = "BRIEF_TEST_POSTGRES_URL";
/// Set (to anything) where the PostgreSQL tests must run: no server is a failure.
pub const REQUIRED_VARIABLE: &str = "BRIEF_TEST_POSTGRES_REQUIRED";

/// A PostgreSQL server the tests use.
#[derive(Debug)]
pub struct Server {
    /// A URL whose user may create databases (its database is `postgres`).
    pub admin: String,
    /// The cluster's folder when this process started it.
    pub data: Option<PathBuf>,
}

static SERVER: OnceLock<Option<Server>> = OnceLock::new();
static DATABASES: AtomicUsize = AtomicUsize::new(0);

/// The test server, or `None` (after a loud message) where no PostgreSQL is installed.
///
/// # Panics
/// When a server cannot be had although `BRIEF_TEST_POSTGRES_REQUIRED` is set, or binaries
/// exist and starting them fails.
pub fn server() -> Option<&'static Server> {
    SERVER
        .get_or_init(|| {
            if let Ok(url) = std::env::var(SERVER_VARIABLE) {
                if !url.trim().is_empty() {
                    return Some(Server {
                        admin: url,
                        data: None,
                    });
                }
            }
            match Cluster::binaries() {
                Some(bin) => Some(Cluster::start(&bin, Durability::Fast).into_server()),
                None if std::env::var_os(REQUIRED_VARIABLE).is_some() => panic!(
                    "{REQUIRED_VARIABLE} is set but there is no PostgreSQL server: set {SERVER_VARIABLE} or install PostgreSQL (initdb, pg_ctl)"
                ),
                None => {
                    eprintln!(
                        "\n!!!!!!!! SKIPPED: no PostgreSQL binaries (initdb, pg_ctl) and no {SERVER_VARIABLE}: \
                         the PostgreSQL half of the session tests did not run !!!!!!!!\n"
                    );
                    None
                }
            }
        })
        .as_ref()
}

/// A fresh, empty database on the test server, dropped when this value is.
#[derive(Debug)]
pub struct Database {
    admin: String,
    name: String,
    /// Its URL (no password: the test servers trust loopback).
    pub url: String,
}

impl Database {
    /// Creates a database on `server`.
    ///
    /// # Panics
    /// When the server refuses.
    pub fn create(server: &Server) -> Database {
        let n = DATABASES.fetch_add(1, Ordering::SeqCst);
        let name = format!("brief_t{}_{n}", std::process::id());
        let admin = target(&server.admin);
        if let Err(e) = execute_once(&admin, &format!("CREATE DATABASE {name}")) {
            panic!(
                "cannot create test database {name} on {}: {e}",
                admin.shown()
            );
        }
        let url = with_database(&server.admin, &name);
        Database {
            admin: server.admin.clone(),
            name,
            url,
        }
    }

    /// The location of this database.
    pub fn location(&self) -> Location {
        Location::Postgres(Box::new(target(&self.url)))
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        let _ = execute_once(
            &target(&self.admin),
            &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
        );
    }
}

fn target(url: &str) -> PgTarget {
    match PgTarget::parse(url, Origin::Environment) {
        Ok(t) => t,
        Err(e) => panic!("{SERVER_VARIABLE}: {e}"),
    }
}

/// `url` with its database replaced by `name`.
pub fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let path_at = base[scheme_end..]
        .find('/')
        .map_or(base.len(), |i| scheme_end + i);
    let mut out = format!("{}/{name}", &base[..path_at]);
    if !query.is_empty() {
        out.push('?');
        out.push_str(query);
    }
    out
}

/// Runs `sql` on the database at `url`.
///
/// # Panics
/// When the server refuses it.
pub fn execute(url: &str, sql: &str) {
    if let Err(e) = execute_once(&target(url), sql) {
        panic!("{e}\n{sql}");
    }
}

/// Every row of `table`, each as its values' debug text, in key order.
///
/// # Panics
/// When the store cannot be read.
pub fn rows(store: &mut Store, table: Table) -> Vec<String> {
    match store.backend().read_rows(table, None, usize::MAX >> 2) {
        Ok(rows) => rows.iter().map(|r| format!("{r:?}")).collect(),
        Err(e) => panic!("{e}"),
    }
}

/// One store per backend for the same test: a SQLite store in a temporary folder, and a
/// fresh PostgreSQL database when a server is here. Each comes with its label.
pub struct Stores {
    /// Keeps the SQLite folder.
    pub dir: tempfile::TempDir,
    /// Keeps the PostgreSQL database.
    pub database: Option<Database>,
}

impl Stores {
    /// Makes both.
    ///
    /// # Panics
    /// When a temporary folder or the test database cannot be made.
    pub fn new() -> Stores {
        let dir = match tempfile::tempdir() {
            Ok(d) => d,
            Err(e) => panic!("cannot make a temporary folder: {e}"),
        };
        Stores {
            dir,
            database: server().map(Database::create),
        }
    }

    /// The locations: SQLite first.
    pub fn locations(&self) -> Vec<(&'static str, Location)> {
        let mut out = vec![("sqlite", Location::Project(self.dir.path().to_path_buf()))];
        if let Some(db) = &self.database {
            out.push(("postgres", db.location()));
        }
        out
    }

    /// Each store opened for writing, with its label.
    ///
    /// # Panics
    /// When a store cannot be opened.
    pub fn open(&self) -> Vec<(&'static str, Store)> {
        self.locations()
            .into_iter()
            .map(
                |(label, location)| match Store::connect(&location, Mode::Create) {
                    Ok(store) => (label, store),
                    Err(e) => panic!("{label}: {e}"),
                },
            )
            .collect()
    }
}

impl Default for Stores {
    fn default() -> Stores {
        Stores::new()
    }
}

/// Runs `test` on a fresh store of each backend (SQLite, then PostgreSQL when a server is
/// here), naming the backend of a failure.
///
/// # Panics
/// When `test` does, or a store cannot be made.
pub fn each_store(test: impl Fn(&mut Store)) {
    let stores = Stores::new();
    for (label, mut store) in stores.open() {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| test(&mut store)));
        if let Err(panic) = outcome {
            eprintln!("the test failed on the {label} store");
            std::panic::resume_unwind(panic);
        }
    }
}

/// How a cluster writes: fast (no fsync: shared test server) or as in production (the
/// crash tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// No fsync: for the shared test server.
    Fast,
    /// As in production: for the crash tests.
    Durable,
}

/// Whether a cluster takes plain connections or only TLS ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encryption {
    None,
    Required,
}

/// A PostgreSQL cluster this process started in a temporary folder.
#[derive(Debug)]
pub struct Cluster {
    bin: PathBuf,
    root: PathBuf,
    port: u16,
    /// The user the server runs as when this process is root.
    user: Option<String>,
}

impl Cluster {
    /// The folder holding `initdb`, `pg_ctl` and `postgres`, if PostgreSQL is installed.
    pub fn binaries() -> Option<PathBuf> {
        let has = |dir: &Path| {
            ["initdb", "pg_ctl", "postgres"]
                .iter()
                .all(|b| dir.join(b).is_file())
        };
        let mut candidates: Vec<PathBuf> = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default();
        if let Ok(entries) = std::fs::read_dir("/usr/lib/postgresql") {
            let mut versions: Vec<PathBuf> =
                entries.flatten().map(|e| e.path().join("bin")).collect();
            versions.sort();
            candidates.extend(versions.into_iter().rev());
        }
        candidates.into_iter().find(|d| has(d))
    }

    /// Starts a cluster on a free loopback port, stopped when this process ends.
    ///
    /// # Panics
    /// When `initdb` or `pg_ctl` fails (the panic holds their output).
    pub fn start(bin: &Path, durability: Durability) -> Cluster {
        Cluster::start_as(bin, durability, Encryption::None)
    }

    /// Starts a cluster that takes only TLS connections over TCP, its certificate (for the
    /// name `brief-test.invalid` only) signed by a CA of its own ([`Cluster::ca`]).
    ///
    /// # Panics
    /// When `openssl`, `initdb` or `pg_ctl` fails.
    pub fn start_tls(bin: &Path) -> Cluster {
        Cluster::start_as(bin, Durability::Fast, Encryption::Required)
    }

    /// The PEM file of the CA that signed a TLS cluster's certificate.
    pub fn ca(&self) -> PathBuf {
        self.root.join("ca.pem")
    }

    fn start_as(bin: &Path, durability: Durability, encryption: Encryption) -> Cluster {
        let root = std::env::temp_dir().join(format!(
            "brief-pg-{}-{}",
            std::process::id(),
            DATABASES.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&root);
        if let Err(e) = std::fs::create_dir_all(&root) {
            panic!("cannot create {}: {e}", root.display());
        }
        let user = is_root().then(|| "nobody".to_string());
        if let Some(user) = &user {
            run(
                Command::new("chown").arg(format!("{user}:")).arg(&root),
                "chown",
            );
        }
        let port = free_port();
        let cluster = Cluster {
            bin: bin.to_path_buf(),
            root,
            port,
            user,
        };
        let data = cluster.root.join("data");
        let mut initdb = cluster.command("initdb");
        initdb.arg("-D").arg(&data).args([
            "-U",
            "brief",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ]);
        run(&mut initdb, "initdb");
        let fsync = match durability {
            Durability::Fast => "off",
            Durability::Durable => "on",
        };
        let mut conf = format!(
            "port = {port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{}'\nfsync = {fsync}\nmax_connections = 300\n",
            cluster.root.display()
        );
        if encryption == Encryption::Required {
            cluster.certificates(&data);
            conf.push_str("ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n");
            let hba = "local all all trust\nhostssl all all 127.0.0.1/32 trust\n";
            if let Err(e) = std::fs::write(data.join("pg_hba.conf"), hba) {
                panic!("cannot write pg_hba.conf: {e}");
            }
        }
        let append = std::fs::OpenOptions::new()
            .append(true)
            .open(data.join("postgresql.conf"))
            .and_then(|mut f| std::io::Write::write_all(&mut f, conf.as_bytes()));
        if let Err(e) = append {
            panic!("cannot configure the test cluster: {e}");
        }
        cluster.pg_ctl(&["start", "-w", "-t", "60"]);
        cluster.stop_with_this_process();
        cluster
    }

    /// A CA and a server certificate for `brief-test.invalid` in the data folder.
    fn certificates(&self, data: &Path) {
        let dir = &self.root;
        let openssl = |args: &[&str]| {
            run(
                Command::new("openssl").args(args).current_dir(dir),
                "openssl",
            )
        };
        openssl(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=brief test CA",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
        ]);
        openssl(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=brief-test.invalid",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
        ]);
        if let Err(e) = std::fs::write(
            dir.join("san.cnf"),
            "subjectAltName=DNS:brief-test.invalid\n",
        ) {
            panic!("cannot write san.cnf: {e}");
        }
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "san.cnf",
            "-out",
            "server.crt",
        ]);
        for file in ["server.crt", "server.key"] {
            if let Err(e) = std::fs::copy(dir.join(file), data.join(file)) {
                panic!("cannot copy {file}: {e}");
            }
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(
                data.join("server.key"),
                std::fs::Permissions::from_mode(0o600),
            );
        }
        if let Some(user) = &self.user {
            run(
                Command::new("chown")
                    .arg(format!("{user}:"))
                    .arg(data.join("server.crt"))
                    .arg(data.join("server.key")),
                "chown",
            );
        }
    }

    /// The admin URL (database `postgres`).
    pub fn url(&self) -> String {
        format!(
            "postgres://brief@127.0.0.1:{}/postgres?sslmode=disable",
            self.port
        )
    }

    /// The server's loopback port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops the server as a crash would (`-m immediate`) and starts it again.
    pub fn restart_hard(&self) {
        self.pg_ctl(&["stop", "-m", "immediate", "-w"]);
        self.pg_ctl(&["start", "-w", "-t", "60"]);
    }

    /// Stops the server (`-m fast`).
    pub fn stop(&self) {
        self.pg_ctl(&["stop", "-m", "fast", "-w"]);
    }

    /// Starts a stopped server.
    pub fn start_again(&self) {
        self.pg_ctl(&["start", "-w", "-t", "60"]);
    }

    /// The shared server: it runs until the process ends (its watcher stops it).
    fn into_server(self) -> Server {
        let server = Server {
            admin: self.url(),
            data: Some(self.root.clone()),
        };
        std::mem::forget(self);
        server
    }

    fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        match &self.user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(path);
                c
            }
            None => Command::new(path),
        }
    }

    fn pg_ctl(&self, args: &[&str]) {
        let mut c = self.command("pg_ctl");
        c.arg("-D")
            .arg(self.root.join("data"))
            .arg("-l")
            .arg(self.root.join("log"))
            .args(args);
        run(&mut c, "pg_ctl");
    }

    /// A watcher that stops the server and removes its folder once this process is gone.
    fn stop_with_this_process(&self) {
        let pg_ctl = self.bin.join("pg_ctl");
        let as_user = self
            .user
            .as_ref()
            .map(|u| format!("runuser -u {u} -- "))
            .unwrap_or_default();
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {as_user}'{pg_ctl}' -D '{data}' -m immediate -w stop >/dev/null 2>&1; rm -rf '{root}'",
            pid = std::process::id(),
            pg_ctl = pg_ctl.display(),
            data = self.root.join("data").display(),
            root = self.root.display(),
        );
        // In a session of its own, so a signal to this process's group (a test runner's
        // time-out) does not take the watcher with it.
        let mut watcher = if Path::new("/usr/bin/setsid").is_file() {
            let mut c = Command::new("/usr/bin/setsid");
            c.arg("sh");
            c
        } else {
            Command::new("sh")
        };
        let spawned = watcher
            .args(["-c", &script])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if let Err(e) = spawned {
            panic!("cannot start the test server's watcher: {e}");
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // A cluster of one test (not the shared server): stop it now; the watcher removes
        // the folder when the process ends.
        let mut c = self.command("pg_ctl");
        let _ = c
            .arg("-D")
            .arg(self.root.join("data"))
            .args(["stop", "-m", "immediate", "-w"])
            .output();
    }
}

fn run(command: &mut Command, what: &str) {
    match command.output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "{what} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!("cannot run {what}: {e}"),
    }
}

#[cfg(unix)]
fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

#[cfg(not(unix))]
fn is_root() -> bool {
    false
}

/// A loopback port nobody listens on now.
fn free_port() -> u16 {
    match std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()) {
        Ok(addr) => addr.port(),
        Err(e) => panic!("cannot find a free port: {e}"),
    }
}
