//! A PostgreSQL store's address: `postgres://user@host:port/dbname?sslmode=…`, read the way
//! libpq reads it — the URL first, then a `pg_service.conf` service, then the `PG…`
//! environment variables, then the defaults — and its password from the URL (not in
//! brief.toml), `PGPASSWORD`, the service file or `~/.pgpass`. The password is never shown:
//! messages name the store by [`PgTarget::shown`].
//!
//! Pure parsing, linear in its input; compiled with or without the `postgres` feature so a
//! build without it can still say what the URL asks for.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::SessionError;

/// Where a URL came from: it decides whether it may hold a password.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// `[session] url` in brief.toml, which is shared with the repository: no password.
    BriefToml,
    /// `BRIEF_SESSION_URL`.
    Environment,
    /// A command-line argument (`brief session migrate --to URL`).
    CommandLine,
}

/// How far the connection is encrypted and the server's certificate checked (libpq's
/// `sslmode`, with its meanings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// Never TLS.
    Disable,
    /// TLS when the server offers it (libpq's `allow` and `prefer`); the certificate is not
    /// checked.
    Prefer,
    /// TLS or no connection; the certificate is checked only against a root certificate
    /// given with `sslrootcert` (or found at `~/.postgresql/root.crt`).
    Require,
    /// TLS with the certificate chain checked.
    VerifyCa,
    /// TLS with the chain and the host name checked.
    VerifyFull,
}

impl SslMode {
    fn parse(text: &str) -> Result<SslMode, String> {
        Ok(match text {
            "disable" => SslMode::Disable,
            "allow" | "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            other => {
                return Err(format!(
                    "sslmode `{other}` is not one of disable, allow, prefer, require, verify-ca, verify-full"
                ))
            }
        })
    }
}

/// A password, never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// The password itself, for the connection only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// A PostgreSQL database to keep sessions in, every setting resolved.
#[derive(Debug, Clone)]
pub struct PgTarget {
    /// Host names, addresses or socket folders (a path starting with `/`), with their ports;
    /// tried in order.
    pub hosts: Vec<(String, u16)>,
    /// The user to connect as.
    pub user: String,
    /// The database.
    pub dbname: String,
    /// The password, when one was given (never shown).
    pub password: Option<Secret>,
    /// How far the connection is encrypted and checked.
    pub sslmode: SslMode,
    /// A PEM file of root certificates the server's certificate must chain to.
    pub sslrootcert: Option<PathBuf>,
    /// How long one connection attempt may take [default: 10 s].
    pub connect_timeout: Duration,
    /// The name the server shows for the connection [default: brief].
    pub application_name: String,
    /// Server options (`-c name=value …`).
    pub options: Option<String>,
    /// Where the URL came from.
    pub origin: Origin,
}

/// The default time one connection attempt may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The URL's parameters brief understands (libpq's names).
const PARAMETERS: &[&str] = &[
    "host",
    "port",
    "user",
    "password",
    "dbname",
    "sslmode",
    "sslrootcert",
    "connect_timeout",
    "application_name",
    "options",
    "service",
];

/// Whether `text` is a PostgreSQL URL.
pub fn is_url(text: &str) -> bool {
    scheme_len(text).is_some()
}

fn scheme_len(text: &str) -> Option<usize> {
    ["postgresql://", "postgres://"].iter().find_map(|scheme| {
        text.get(..scheme.len())
            .filter(|head| head.eq_ignore_ascii_case(scheme))
            .map(|_| scheme.len())
    })
}

/// The settings a URL, a service or the environment give, before defaults.
#[derive(Debug, Default, Clone)]
struct Settings {
    hosts: Option<Vec<String>>,
    ports: Option<Vec<String>>,
    user: Option<String>,
    password: Option<String>,
    dbname: Option<String>,
    sslmode: Option<String>,
    sslrootcert: Option<String>,
    connect_timeout: Option<String>,
    application_name: Option<String>,
    options: Option<String>,
    service: Option<String>,
}

impl Settings {
    fn set(&mut self, key: &str, value: String) -> Result<(), String> {
        let list = |v: &str| v.split(',').map(str::to_string).collect::<Vec<_>>();
        match key {
            "host" => self.hosts = Some(list(&value)),
            "port" => self.ports = Some(list(&value)),
            "user" => self.user = Some(value),
            "password" => self.password = Some(value),
            "dbname" => self.dbname = Some(value),
            "sslmode" => self.sslmode = Some(value),
            "sslrootcert" => self.sslrootcert = Some(value),
            "connect_timeout" => self.connect_timeout = Some(value),
            "application_name" => self.application_name = Some(value),
            "options" => self.options = Some(value),
            "service" => self.service = Some(value),
            other => {
                return Err(format!(
                    "unknown parameter `{other}`: brief reads {}",
                    PARAMETERS.join(", ")
                ))
            }
        }
        Ok(())
    }

    /// Fills what `self` leaves unset from `other`.
    fn or(mut self, other: Settings) -> Settings {
        macro_rules! fill {
            ($($f:ident),*) => { $( if self.$f.is_none() { self.$f = other.$f; } )* };
        }
        fill!(
            hosts,
            ports,
            user,
            password,
            dbname,
            sslmode,
            sslrootcert,
            connect_timeout,
            application_name,
            options,
            service
        );
        self
    }
}

/// Reads one environment variable (a parameter so tests need not touch the process's).
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

impl PgTarget {
    /// Reads a URL with this process's environment and files.
    pub fn parse(url: &str, origin: Origin) -> Result<PgTarget, SessionError> {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        PgTarget::parse_with(url, origin, &env)
    }

    /// Reads a URL, taking environment variables from `env`.
    pub fn parse_with(url: &str, origin: Origin, env: Env<'_>) -> Result<PgTarget, SessionError> {
        let refuse =
            |message: String| SessionError::Usage(format!("{}: {message}", origin.what()).into());
        let given = parse_url(url).map_err(refuse)?;
        if origin == Origin::BriefToml && given.password.is_some() {
            return Err(SessionError::Usage(
                "brief.toml: [session] url holds a password, and brief.toml is read by everyone who reads the repository: \
                 take the password out of the URL and give it in PGPASSWORD, a ~/.pgpass file (PGPASSFILE) or a \
                 pg_service.conf service (or set the whole URL in BRIEF_SESSION_URL)"
                    .into(),
            ));
        }
        let service_name = given.service.clone().or_else(|| env("PGSERVICE"));
        let service = match &service_name {
            Some(name) => service(name, env).map_err(refuse)?,
            None => Settings::default(),
        };
        let settings = given.or(service).or(environment(env));
        resolve(settings, origin, env).map_err(refuse)
    }

    /// The store as shown in messages: `postgres://user@host:port/dbname`, no password.
    pub fn shown(&self) -> String {
        let hosts: Vec<String> = self
            .hosts
            .iter()
            .map(|(h, p)| {
                if h.contains(':') && !h.starts_with('/') {
                    format!("[{h}]:{p}")
                } else {
                    format!("{h}:{p}")
                }
            })
            .collect();
        format!(
            "postgres://{}@{}/{}",
            self.user,
            hosts.join(","),
            self.dbname
        )
    }

    /// The hosts as shown in a connection error: `host:port`, comma-separated.
    pub fn hosts_shown(&self) -> String {
        self.hosts
            .iter()
            .map(|(h, p)| format!("{h}:{p}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Origin {
    fn what(self) -> &'static str {
        match self {
            Origin::BriefToml => "brief.toml: [session] url",
            Origin::Environment => "BRIEF_SESSION_URL",
            Origin::CommandLine => "the PostgreSQL URL",
        }
    }
}

/// The settings the URL itself gives.
fn parse_url(url: &str) -> Result<Settings, String> {
    let url = url.trim();
    let start = scheme_len(url).ok_or_else(|| {
        "must start with postgres:// or postgresql:// (e.g. postgres://agent@db.example:5432/brief)"
            .to_string()
    })?;
    let rest = &url[start..];
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let mut s = Settings::default();
    let hostlist = match authority.rsplit_once('@') {
        Some((userinfo, hosts)) => {
            let (user, password) = match userinfo.split_once(':') {
                Some((u, p)) => (u, Some(p)),
                None => (userinfo, None),
            };
            if !user.is_empty() {
                s.user = Some(decode(user)?);
            }
            if let Some(p) = password {
                s.password = Some(decode(p)?);
            }
            hosts
        }
        None => authority,
    };
    if !hostlist.is_empty() {
        let mut hosts = Vec::new();
        let mut ports = Vec::new();
        for part in hostlist.split(',') {
            let (host, port) = split_host_port(part)?;
            hosts.push(decode(host)?);
            ports.push(port.map(decode).transpose()?.unwrap_or_default());
        }
        s.hosts = Some(hosts);
        if ports.iter().any(|p| !p.is_empty()) {
            s.ports = Some(ports);
        }
    }
    if !path.is_empty() {
        s.dbname = Some(decode(path)?);
    }
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("parameter `{pair}` has no `=value`"))?;
        s.set(&decode(key)?, decode(value)?)?;
    }
    Ok(s)
}

/// `host`, `host:port`, `[v6]` or `[v6]:port`.
fn split_host_port(part: &str) -> Result<(&str, Option<&str>), String> {
    if let Some(inner) = part.strip_prefix('[') {
        let (host, after) = inner
            .split_once(']')
            .ok_or_else(|| format!("host `{part}` opens `[` without closing it"))?;
        return match after {
            "" => Ok((host, None)),
            _ => after
                .strip_prefix(':')
                .map(|p| (host, Some(p)))
                .ok_or_else(|| format!("unexpected `{after}` after host `[{host}]`")),
        };
    }
    Ok(match part.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (part, None),
    })
}

/// Percent-decoding (`%2F` → `/`); the result must be UTF-8.
fn decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| "has a `%` not followed by two hex digits".to_string())?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "decodes to text that is not UTF-8".to_string())
}

/// What the `PG…` environment variables give.
fn environment(env: Env<'_>) -> Settings {
    let list = |v: String| v.split(',').map(str::to_string).collect::<Vec<_>>();
    Settings {
        hosts: env("PGHOST").map(list),
        ports: env("PGPORT").map(list),
        user: env("PGUSER"),
        password: env("PGPASSWORD"),
        dbname: env("PGDATABASE"),
        sslmode: env("PGSSLMODE"),
        sslrootcert: env("PGSSLROOTCERT"),
        connect_timeout: env("PGCONNECT_TIMEOUT"),
        application_name: env("PGAPPNAME"),
        options: env("PGOPTIONS"),
        service: None,
    }
}

/// The home folder, for `~/.pgpass`, `~/.pg_service.conf` and `~/.postgresql/`.
fn home(env: Env<'_>) -> Option<PathBuf> {
    env("HOME").map(PathBuf::from)
}

/// The named section of the service files (`PGSERVICEFILE` or `~/.pg_service.conf`, then
/// `PGSYSCONFDIR/pg_service.conf`).
fn service(name: &str, env: Env<'_>) -> Result<Settings, String> {
    let mut files = Vec::new();
    match env("PGSERVICEFILE") {
        Some(f) => files.push(PathBuf::from(f)),
        None => files.extend(home(env).map(|h| h.join(".pg_service.conf"))),
    }
    files.push(
        env("PGSYSCONFDIR")
            .map_or_else(|| PathBuf::from("/etc/postgresql-common"), PathBuf::from)
            .join("pg_service.conf"),
    );
    for file in files {
        let Some(text) = read_small(&file) else {
            continue;
        };
        if let Some(found) = service_section(&text, name, &file)? {
            return Ok(found);
        }
    }
    Err(format!(
        "service `{name}` is in no service file (PGSERVICEFILE, ~/.pg_service.conf or PGSYSCONFDIR/pg_service.conf)"
    ))
}

/// The settings of section `[name]` of a service file, if it has one.
fn service_section(text: &str, name: &str, file: &Path) -> Result<Option<Settings>, String> {
    let mut inside = false;
    let mut found: Option<Settings> = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if found.is_some() {
                break;
            }
            inside = section == name;
            if inside {
                found = Some(Settings::default());
            }
            continue;
        }
        if let (true, Some(settings)) = (inside, found.as_mut()) {
            let (key, value) = line
                .split_once('=')
                .ok_or_else(|| format!("{}:{}: expected `key=value`", file.display(), n + 1))?;
            settings
                .set(key.trim(), value.trim().to_string())
                .map_err(|e| format!("{}:{}: {e}", file.display(), n + 1))?;
        }
    }
    Ok(found)
}

/// A small configuration file, or `None` when it is missing, not a regular file or huge.
fn read_small(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > 1 << 20 {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// Applies the defaults and finds the password.
fn resolve(s: Settings, origin: Origin, env: Env<'_>) -> Result<PgTarget, String> {
    let user = s
        .user
        .or_else(|| env("USER"))
        .or_else(|| env("LOGNAME"))
        .unwrap_or_else(|| "postgres".into());
    let dbname = s.dbname.unwrap_or_else(|| user.clone());
    let hosts = s.hosts.unwrap_or_else(|| vec!["localhost".into()]);
    let ports = s.ports.unwrap_or_default();
    if ports.len() > 1 && ports.len() != hosts.len() {
        return Err(format!(
            "gives {} ports for {} hosts: give one port, or one per host",
            ports.len(),
            hosts.len()
        ));
    }
    let mut pairs = Vec::with_capacity(hosts.len());
    for (i, host) in hosts.into_iter().enumerate() {
        let port = ports
            .get(if ports.len() == 1 { 0 } else { i })
            .filter(|p| !p.is_empty());
        let port = match port {
            Some(p) => p
                .parse::<u16>()
                .ok()
                .filter(|&p| p > 0)
                .ok_or_else(|| format!("port `{p}` is not a port number"))?,
            None => 5432,
        };
        let host = if host.is_empty() {
            "localhost".to_string()
        } else {
            host
        };
        pairs.push((host, port));
    }
    let sslmode = match s.sslmode.as_deref() {
        Some(m) => SslMode::parse(m)?,
        None => SslMode::Prefer,
    };
    let connect_timeout = match s.connect_timeout.as_deref() {
        Some(t) => match t.trim().parse::<u64>() {
            Ok(0) | Err(_) => {
                return Err(format!(
                    "connect_timeout `{t}` must be a whole number of seconds, at least 1"
                ))
            }
            Ok(secs) => Duration::from_secs(secs),
        },
        None => CONNECT_TIMEOUT,
    };
    let sslrootcert = s.sslrootcert.map(PathBuf::from).or_else(|| {
        home(env)
            .map(|h| h.join(".postgresql/root.crt"))
            .filter(|p| p.is_file())
    });
    let password = s
        .password
        .or_else(|| pgpass(&pairs, &dbname, &user, env))
        .map(Secret);
    Ok(PgTarget {
        hosts: pairs,
        user,
        dbname,
        password,
        sslmode,
        sslrootcert,
        connect_timeout,
        application_name: s.application_name.unwrap_or_else(|| "brief".into()),
        options: s.options,
        origin,
    })
}

/// The password `~/.pgpass` (or `PGPASSFILE`) gives for the first host, as libpq looks it
/// up: the first line `host:port:database:user:password` that matches (`*` matches
/// anything). A file others may read is ignored, as libpq ignores it.
fn pgpass(hosts: &[(String, u16)], dbname: &str, user: &str, env: Env<'_>) -> Option<String> {
    let file = env("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| home(env).map(|h| h.join(".pgpass")))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).ok()?.permissions().mode();
        if mode & 0o077 != 0 {
            return None;
        }
    }
    let text = read_small(&file)?;
    let (host, port) = hosts.first()?;
    let host = if host.starts_with('/') {
        "localhost"
    } else {
        host
    };
    let port = port.to_string();
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .find_map(|line| {
            let fields = pgpass_fields(line);
            let [h, p, d, u, password] = fields.as_slice() else {
                return None;
            };
            let fits = |field: &str, value: &str| field == "*" || field == value;
            (fits(h, host) && fits(p, &port) && fits(d, dbname) && fits(u, user))
                .then(|| password.clone())
        })
}

/// A `.pgpass` line's fields: `:` separates, `\:` and `\\` escape.
fn pgpass_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let (Some(next), Some(f)) = (chars.next(), fields.last_mut()) {
                    f.push(next);
                }
            }
            ':' if fields.len() < 5 => fields.push(String::new()),
            _ => {
                if let Some(f) = fields.last_mut() {
                    f.push(c)
                }
            }
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn urls_are_read_as_libpq_reads_them() {
        let env = with(&[("USER", "ana")]);
        let t = PgTarget::parse_with(
            "postgresql://agent@db.example:6543/team%20store?sslmode=verify-full&connect_timeout=3",
            Origin::Environment,
            &env,
        )
        .unwrap();
        assert_eq!(t.hosts, [("db.example".to_string(), 6543)]);
        assert_eq!(
            (t.user.as_str(), t.dbname.as_str()),
            ("agent", "team store")
        );
        assert_eq!(t.sslmode, SslMode::VerifyFull);
        assert_eq!(t.connect_timeout, Duration::from_secs(3));
        assert_eq!(t.shown(), "postgres://agent@db.example:6543/team store");

        let t = PgTarget::parse_with("postgres://", Origin::Environment, &env).unwrap();
        assert_eq!(t.shown(), "postgres://ana@localhost:5432/ana");
        assert_eq!(t.sslmode, SslMode::Prefer);

        let t = PgTarget::parse_with(
            "postgres://u@/db?host=%2Fvar%2Frun%2Fpostgresql&port=5433",
            Origin::Environment,
            &env,
        )
        .unwrap();
        assert_eq!(t.hosts, [("/var/run/postgresql".to_string(), 5433)]);
        let t = PgTarget::parse_with("postgres://u@[::1]:5433,h2:7/db", Origin::Environment, &env)
            .unwrap();
        assert_eq!(t.hosts, [("::1".to_string(), 5433), ("h2".to_string(), 7)]);
        assert_eq!(t.shown(), "postgres://u@[::1]:5433,h2:7/db");
    }

    #[test]
    fn bad_urls_say_what_to_write() {
        let env = with(&[]);
        for (url, says) in [
            ("mysql://x", "must start with postgres://"),
            ("postgres://h/db?sslmode=sometimes", "sslmode `sometimes`"),
            ("postgres://h/db?pool=3", "unknown parameter `pool`"),
            ("postgres://h:port/db", "port `port`"),
            ("postgres://h/db?connect_timeout=0", "connect_timeout"),
            ("postgres://h/d%zzb", "`%`"),
            ("postgres://[::1/db", "without closing"),
        ] {
            let e = PgTarget::parse_with(url, Origin::Environment, &env)
                .unwrap_err()
                .to_string();
            assert!(e.contains(says), "{url}: {e}");
            assert!(e.starts_with("BRIEF_SESSION_URL: "), "{e}");
        }
    }

    #[test]
    fn a_password_in_brief_toml_is_refused_and_never_shown() {
        let env = with(&[]);
        for url in [
            "postgres://u:hunter2@h/db",
            "postgres://u@h/db?password=hunter2",
        ] {
            let e = PgTarget::parse_with(url, Origin::BriefToml, &env)
                .unwrap_err()
                .to_string();
            assert!(e.contains("PGPASSWORD"), "{e}");
            assert!(!e.contains("hunter2"), "{e}");
        }
        let t = PgTarget::parse_with("postgres://u:hun%40ter2@h/db", Origin::Environment, &env)
            .unwrap();
        assert_eq!(t.password.as_ref().map(Secret::expose), Some("hun@ter2"));
        assert!(!t.shown().contains("hun"), "{}", t.shown());
        assert!(!format!("{t:?}").contains("hunter"), "{t:?}");
    }

    #[test]
    fn passwords_from_the_environment_pgpass_and_services() {
        let dir = tempfile::tempdir().unwrap();
        let pgpass = dir.path().join("pgpass");
        std::fs::write(
            &pgpass,
            "# comment\nother:*:*:*:no\ndb.example:5432:brief:agent:pa\\:ss\n*:*:*:*:fallback\n",
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let file = pgpass.to_str().unwrap();
        let env = with(&[("PGPASSFILE", file)]);
        let t = PgTarget::parse_with("postgres://agent@db.example/brief", Origin::BriefToml, &env)
            .unwrap();
        assert_eq!(t.password.as_ref().map(Secret::expose), Some("pa:ss"));
        let t = PgTarget::parse_with("postgres://x@elsewhere/db", Origin::BriefToml, &env).unwrap();
        assert_eq!(t.password.as_ref().map(Secret::expose), Some("fallback"));
        let env = with(&[("PGPASSFILE", file), ("PGPASSWORD", "fromenv")]);
        let t = PgTarget::parse_with("postgres://agent@db.example/brief", Origin::BriefToml, &env)
            .unwrap();
        assert_eq!(t.password.as_ref().map(Secret::expose), Some("fromenv"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o644)).unwrap();
            let env = with(&[("PGPASSFILE", file)]);
            let t =
                PgTarget::parse_with("postgres://agent@db.example/brief", Origin::BriefToml, &env)
                    .unwrap();
            assert!(t.password.is_none(), "a pgpass others can read is ignored");
        }

        let services = dir.path().join("services.conf");
        std::fs::write(
            &services,
            "[other]\nhost=wrong\n\n[team]\n# the shared store\nhost=pg.internal\nport=6000\nuser=agents\npassword=s3cret\ndbname=brief\nsslmode=require\n",
        )
        .unwrap();
        let env = with(&[("PGSERVICEFILE", services.to_str().unwrap())]);
        let t = PgTarget::parse_with("postgres:///other_db?service=team", Origin::BriefToml, &env)
            .unwrap();
        assert_eq!(t.shown(), "postgres://agents@pg.internal:6000/other_db");
        assert_eq!(t.password.as_ref().map(Secret::expose), Some("s3cret"));
        assert_eq!(t.sslmode, SslMode::Require);
        let e = PgTarget::parse_with("postgres://?service=none", Origin::BriefToml, &env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("service `none`"), "{e}");
    }
}
