//! Where sessions are kept: one [`Store`] handle over one of two backends, behind the
//! [`Backend`] trait.
//!
//! - [`sqlite`] — `.brief/sessions.db` beside the project (the default).
//! - `postgres` — a PostgreSQL database shared by agents on many machines (`[session] url`
//!   or `BRIEF_SESSION_URL`; cargo feature `postgres`).
//!
//! The backends store and fetch rows; every rule about what a row means — validation,
//! redaction, the ranking, the confidence steps, the similarity of error messages — lives
//! in the modules that call them, once, so both give the same answers byte for byte. Both
//! keep the same tables under the same schema version, migrated forward in a transaction and
//! never dropped; a store of a newer schema is refused untouched.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::stored::{Package, Pattern, Pruned};
use super::{SessionConfig, SessionError};

pub(crate) mod pgurl;
#[cfg(feature = "postgres")]
pub(crate) mod postgres;
mod sqlite;

pub(crate) use pgurl::Origin;
pub(crate) use pgurl::PgTarget;
pub(crate) use sqlite::STORE_PATH;

/// The schema version this brief writes (the same number on both backends).
pub(crate) const SCHEMA_VERSION: i64 = 2;

/// The environment variable that names a PostgreSQL store (it wins over brief.toml).
pub(crate) const URL_VARIABLE: &str = "BRIEF_SESSION_URL";

/// Whether opening may create or write the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Writers: create the store (its file, or its tables) when missing.
    Create,
    /// Writers of an existing store: a missing store is [`SessionError::Missing`], never
    /// created.
    Existing,
    /// Readers (`package list`, `error match`, a zone document): a missing store is
    /// [`SessionError::Missing`]; a SQLite store is opened read-only, so a read-only
    /// checkout works.
    Read,
}

/// Which store a project (or a command line) names.
#[derive(Debug, Clone)]
pub enum Location {
    /// `.brief/sessions.db` beneath this project root.
    Project(PathBuf),
    /// A SQLite file named directly (`brief session migrate --from FILE`).
    File(PathBuf),
    /// A PostgreSQL database.
    Postgres(Box<PgTarget>),
}

impl Location {
    /// The store of the project at `root`: `BRIEF_SESSION_URL` when set, else brief.toml's
    /// `[session] url`, else `.brief/sessions.db`. A URL in brief.toml that holds a password
    /// is refused (brief.toml is shared with everyone who reads the repository).
    pub(crate) fn for_project(
        root: &Path,
        config: &SessionConfig,
    ) -> Result<Location, SessionError> {
        if let Some(url) = std::env::var(URL_VARIABLE)
            .ok()
            .filter(|u| !u.trim().is_empty())
        {
            return Ok(Location::Postgres(Box::new(PgTarget::parse(
                &url,
                Origin::Environment,
            )?)));
        }
        match config.url.as_deref().map(str::trim) {
            Some(url) if !url.is_empty() => Ok(Location::Postgres(Box::new(PgTarget::parse(
                url,
                Origin::BriefToml,
            )?))),
            _ => Ok(Location::Project(root.to_path_buf())),
        }
    }

    /// A store named on the command line: a `postgres://` or `postgresql://` URL, else a
    /// SQLite file.
    pub fn named(text: &str) -> Result<Location, SessionError> {
        if pgurl::is_url(text) {
            Ok(Location::Postgres(Box::new(PgTarget::parse(
                text,
                Origin::CommandLine,
            )?)))
        } else {
            Ok(Location::File(PathBuf::from(text)))
        }
    }

    /// How the store is named in messages (a URL without its password).
    pub fn shown(&self) -> String {
        match self {
            Location::Project(root) => root.join(STORE_PATH).display().to_string(),
            Location::File(path) => path.display().to_string(),
            Location::Postgres(target) => target.shown(),
        }
    }
}

/// An open session store.
pub struct Store {
    backend: Box<dyn Backend>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Store({})", self.backend.shown())
    }
}

impl Store {
    /// Opens the SQLite store of the project at `root` (`.brief/sessions.db`). The store is
    /// reached only through a plain `.brief` folder beneath the root: a `.brief` or
    /// `sessions.db` that is a symlink is refused, never followed.
    pub fn open(root: &Path, mode: Mode) -> Result<Store, SessionError> {
        Ok(Store {
            backend: Box::new(sqlite::Sqlite::open(root, mode)?),
        })
    }

    /// Opens the SQLite store at `path` (migration, tests and benchmarks).
    pub(crate) fn open_path(path: &Path, mode: Mode) -> Result<Store, SessionError> {
        Ok(Store {
            backend: Box::new(sqlite::Sqlite::open_path(path, mode)?),
        })
    }

    /// Opens the store at `location`: a SQLite file, or a connection to PostgreSQL (with the
    /// schema created or migrated when `mode` writes).
    pub fn connect(location: &Location, mode: Mode) -> Result<Store, SessionError> {
        match location {
            Location::Project(root) => Store::open(root, mode),
            Location::File(path) => Store::open_path(path, mode),
            Location::Postgres(target) => Store::postgres(target, mode),
        }
    }

    #[cfg(feature = "postgres")]
    fn postgres(target: &PgTarget, mode: Mode) -> Result<Store, SessionError> {
        Ok(Store {
            backend: Box::new(postgres::Postgres::connect(target, mode)?),
        })
    }

    #[cfg(not(feature = "postgres"))]
    fn postgres(target: &PgTarget, _mode: Mode) -> Result<Store, SessionError> {
        Err(SessionError::Store {
            path: target.shown(),
            message: "this brief was built without PostgreSQL support (cargo feature `postgres`): use a build with it, or remove [session] url and BRIEF_SESSION_URL to use .brief/sessions.db".into(),
        })
    }

    /// The store as shown in messages: a path, or a URL without its password.
    pub fn location(&self) -> &str {
        self.backend.shown()
    }

    /// Which backend holds the store.
    pub fn kind(&self) -> Kind {
        self.backend.kind()
    }

    pub(crate) fn backend(&mut self) -> &mut dyn Backend {
        self.backend.as_mut()
    }
}

/// The two backends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `.brief/sessions.db`.
    Sqlite,
    /// A PostgreSQL database.
    Postgres,
}

/// A validated package, ready to store (text already redacted).
#[derive(Debug)]
pub(crate) struct PackageRow<'a> {
    pub session: &'a str,
    pub group: Option<&'a str>,
    pub kind: &'static str,
    pub file: &'a str,
    pub producer: &'a str,
    pub priority: &'static str,
    pub summary: &'a str,
    pub created: i64,
    pub supersedes: Option<i64>,
    /// Sorted, distinct.
    pub consumers: &'a [String],
}

/// Whose packages a listing ranks.
#[derive(Debug)]
pub(crate) struct CandidateQuery<'a> {
    pub session: &'a str,
    pub agent: &'a str,
    /// This group's packages and the global ones; `None`: the whole session.
    pub group: Option<&'a str>,
    pub iteration: i64,
}

/// What the ranking reads of one package.
#[derive(Debug, Clone)]
pub(crate) struct CandidateRow {
    pub id: i64,
    pub priority: String,
    pub group: Option<String>,
    pub created: i64,
    pub designated: bool,
}

/// A consumption to record.
#[derive(Debug)]
pub(crate) struct ConsumptionRow<'a> {
    pub session: &'a str,
    pub agent: &'a str,
    pub package: i64,
    pub iteration: i64,
    pub at: i64,
}

/// A recorded consumption: whether it is new, and whether the agent was designated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ConsumptionDone {
    pub newly: bool,
    pub designated: bool,
}

/// An error pattern to record (text already normalized and redacted).
#[derive(Debug)]
pub(crate) struct PatternRow<'a> {
    pub project: &'a str,
    pub hash: &'a str,
    pub signature: &'a str,
    pub solution: &'a str,
    pub lang: Option<&'a str>,
    pub now: i64,
    /// The signature's words with their counts, for similarity search.
    pub terms: &'a [(String, i64)],
    /// The signature's word count.
    pub words: i64,
}

/// Whether recording created a pattern or counted one more occurrence of a known one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recording {
    Created,
    Updated,
}

/// The outcome of a confidence step asked for by hash prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Adjusted {
    /// One pattern matched; its confidence (hundredths) before and after.
    Done {
        hash: String,
        previous: i64,
        next: i64,
    },
    NotFound,
    /// Two (or more) patterns share the prefix: the first two hashes.
    Ambiguous(String, String),
}

/// What scoring a similar pattern needs, for a live pattern of the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PatternStat {
    pub id: i64,
    pub hash: String,
    pub confidence: i64,
    pub words: i64,
}

/// Row counts of every table, to verify a migration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Sessions.
    pub sessions: i64,
    /// Context packages.
    pub packages: i64,
    /// Designated consumers (package, agent).
    pub consumers: i64,
    /// Consumptions (package, agent, iteration).
    pub consumptions: i64,
    /// Error patterns.
    pub error_patterns: i64,
    /// Word postings of the patterns' signatures.
    pub error_terms: i64,
}

impl Counts {
    /// The count of `table`.
    pub(crate) fn of(&self, table: Table) -> i64 {
        match table {
            Table::Sessions => self.sessions,
            Table::Packages => self.packages,
            Table::Consumers => self.consumers,
            Table::Consumptions => self.consumptions,
            Table::ErrorPatterns => self.error_patterns,
            Table::ErrorTerms => self.error_terms,
        }
    }

    pub(crate) fn set(&mut self, table: Table, n: i64) {
        match table {
            Table::Sessions => self.sessions = n,
            Table::Packages => self.packages = n,
            Table::Consumers => self.consumers = n,
            Table::Consumptions => self.consumptions = n,
            Table::ErrorPatterns => self.error_patterns = n,
            Table::ErrorTerms => self.error_terms = n,
        }
    }

    /// Whether every table is empty.
    pub(crate) fn is_empty(&self) -> bool {
        Table::ALL.iter().all(|&t| self.of(t) == 0)
    }
}

/// Why a copy refuses its target: it already holds rows.
pub(crate) fn not_empty(shown: &str, counts: &Counts) -> SessionError {
    SessionError::Usage(format!(
        "{shown} already holds {} packages and {} error patterns: brief copies a store only into an empty one (a new file, or a database without brief's tables)",
        counts.packages, counts.error_patterns
    ).into())
}

/// The store's tables, in an order where every row's references come before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// `sessions`: id, created.
    Sessions,
    /// `packages`.
    Packages,
    /// `consumers`: a package's designated agent types.
    Consumers,
    /// `consumptions`: who read a package in which iteration.
    Consumptions,
    /// `error_patterns`.
    ErrorPatterns,
    /// `error_terms`: the word postings of signatures.
    ErrorTerms,
}

impl Table {
    /// Every table, referenced ones first.
    pub const ALL: [Table; 6] = [
        Table::Sessions,
        Table::Packages,
        Table::Consumers,
        Table::Consumptions,
        Table::ErrorPatterns,
        Table::ErrorTerms,
    ];

    /// The table's name.
    pub fn name(self) -> &'static str {
        match self {
            Table::Sessions => "sessions",
            Table::Packages => "packages",
            Table::Consumers => "consumers",
            Table::Consumptions => "consumptions",
            Table::ErrorPatterns => "error_patterns",
            Table::ErrorTerms => "error_terms",
        }
    }

    /// Its columns with their types, in the order rows carry them.
    pub(crate) fn columns(self) -> &'static [(&'static str, Column)] {
        use Column::{Int, OptInt, OptText, Text};
        match self {
            Table::Sessions => &[("id", Text), ("created", Int)],
            Table::Packages => &[
                ("id", Int),
                ("session_id", Text),
                ("group_id", OptText),
                ("type", Text),
                ("file_path", Text),
                ("producer", Text),
                ("priority", Text),
                ("summary", Text),
                ("created", Int),
                ("supersedes", OptInt),
            ],
            Table::Consumers => &[("package_id", Int), ("agent", Text)],
            Table::Consumptions => &[
                ("package_id", Int),
                ("agent", Text),
                ("iteration", Int),
                ("consumed_at", Int),
            ],
            Table::ErrorPatterns => &[
                ("id", Int),
                ("project", Text),
                ("hash", Text),
                ("signature", Text),
                ("solution", Text),
                ("confidence", Int),
                ("occurrences", Int),
                ("lang", OptText),
                ("created", Int),
                ("last_seen", Int),
                ("ttl_days", Int),
                ("words", Int),
            ],
            Table::ErrorTerms => &[
                ("project", Text),
                ("term", Text),
                ("pattern_id", Int),
                ("tf", Int),
            ],
        }
    }

    /// How many leading columns form the primary key (rows are read in its order).
    pub(crate) fn key_len(self) -> usize {
        match self {
            Table::Sessions | Table::Packages | Table::ErrorPatterns => 1,
            Table::Consumers => 2,
            Table::Consumptions => 3,
            Table::ErrorTerms => 3,
        }
    }

    /// The table whose integer id is given explicitly on import and whose id sequence must
    /// then move past it.
    #[cfg(feature = "postgres")]
    pub(crate) fn has_id_sequence(self) -> bool {
        matches!(self, Table::Packages | Table::ErrorPatterns)
    }
}

/// A column's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Column {
    Int,
    OptInt,
    Text,
    OptText,
}

/// One value of a copied row.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Value {
    Null,
    Int(i64),
    Text(String),
}

/// One copied row, its values in [`Table::columns`] order.
pub(crate) type Row = Vec<Value>;

/// What a backend does. Reads take `&mut self` because a connection is stateful (a
/// statement cache, a reconnect). Every write is one transaction, atomic under concurrent
/// writers on any number of machines.
pub(crate) trait Backend: Send {
    /// The store as shown in messages.
    fn shown(&self) -> &str;
    fn kind(&self) -> Kind;

    /// Stores a package (and its session on first use) with its consumers; `None` when
    /// `supersedes` names no package of the session.
    fn insert_package(&mut self, row: &PackageRow<'_>) -> Result<Option<i64>, SessionError>;
    /// The packages a listing ranks: of the session, in the group or global, not
    /// superseded, not consumed by the agent in the iteration.
    fn candidates(&mut self, query: &CandidateQuery<'_>)
        -> Result<Vec<CandidateRow>, SessionError>;
    /// How many of the listing's packages the agent consumed in the iteration.
    fn consumed(&mut self, query: &CandidateQuery<'_>) -> Result<usize, SessionError>;
    /// Packages with their consumers, in the order of `ids`; one deleted meanwhile (a
    /// concurrent prune) is left out.
    fn packages(&mut self, ids: &[i64]) -> Result<Vec<Package>, SessionError>;
    /// Records a consumption (once per package, agent and iteration); `None` when the
    /// package is not one of the session's.
    fn consume(
        &mut self,
        row: &ConsumptionRow<'_>,
    ) -> Result<Option<ConsumptionDone>, SessionError>;

    /// Creates a pattern at the initial confidence, or counts one more occurrence of the
    /// pattern with the same project and hash (a new solution replaces the old one and
    /// resets the confidence to `initial`).
    fn record_pattern(
        &mut self,
        row: &PatternRow<'_>,
        initial: i64,
    ) -> Result<(Recording, Pattern), SessionError>;
    /// Moves the confidence of the one pattern whose hash starts with `prefix` by `step`
    /// (previous → next, hundredths), atomically.
    fn adjust_confidence(
        &mut self,
        project: &str,
        prefix: &str,
        now: i64,
        step: &dyn Fn(i64) -> i64,
    ) -> Result<Adjusted, SessionError>;
    /// The live pattern of the project with this hash.
    fn pattern_by_hash(
        &mut self,
        project: &str,
        hash: &str,
        now: i64,
    ) -> Result<Option<Pattern>, SessionError>;
    /// For each term, up to `cap + 1` (pattern id, count) postings in the project, ordered
    /// by pattern id; more than `cap` means the term is too common to tell patterns apart.
    fn postings(
        &mut self,
        project: &str,
        terms: &[String],
        cap: usize,
    ) -> Result<Vec<Vec<(i64, i64)>>, SessionError>;
    /// Scoring data of those of `ids` that are live patterns of the project.
    fn pattern_stats(
        &mut self,
        project: &str,
        ids: &[i64],
        now: i64,
    ) -> Result<Vec<PatternStat>, SessionError>;
    /// Patterns by id, in the order of `ids`; one deleted meanwhile is left out.
    fn patterns(&mut self, ids: &[i64]) -> Result<Vec<Pattern>, SessionError>;
    /// Live patterns above a confidence, best first (confidence, occurrences, hash, project).
    fn injectable(
        &mut self,
        project: Option<&str>,
        above: i64,
        limit: usize,
        now: i64,
    ) -> Result<Vec<Pattern>, SessionError>;
    /// Deletes packages created before `cutoff`, sessions as old left empty, and patterns
    /// last seen before it or expired at `now`.
    fn prune(&mut self, cutoff: i64, now: i64) -> Result<Pruned, SessionError>;

    /// Row counts of every table.
    fn counts(&mut self) -> Result<Counts, SessionError>;
    /// Up to `limit` rows of `table` after the key `after` (the first `key_len` values of
    /// the last row read), in key order.
    fn read_rows(
        &mut self,
        table: Table,
        after: Option<&[Value]>,
        limit: usize,
    ) -> Result<Vec<Row>, SessionError>;
    /// Starts a read transaction: what is read until [`Backend::end_read`] is one snapshot.
    fn begin_read(&mut self) -> Result<(), SessionError>;
    fn end_read(&mut self) -> Result<(), SessionError>;
    /// Starts one transaction that takes a whole copy (and refuses a store that holds rows).
    fn begin_import(&mut self) -> Result<(), SessionError>;
    /// Writes rows of `table` inside the import transaction, ids as given.
    fn write_rows(&mut self, table: Table, rows: &[Row]) -> Result<(), SessionError>;
    /// Commits the copy (moving id sequences past the ids written).
    fn finish_import(&mut self) -> Result<(), SessionError>;
}
