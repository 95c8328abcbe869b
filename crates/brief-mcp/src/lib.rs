//! The long-running brief processes: `brief serve`, the brief engine as an MCP server over
//! stdio or streamable HTTP, and `brief watch`, which keeps a project's index current and
//! vouches for it to every other brief command (`brief::watched`).
//!
//! The only crate with async code. Tools, resources and the prompt are thin adapters over
//! the `brief` library — the calls the CLI makes — so a tool returns the bytes the CLI
//! prints for the same arguments.

mod http;
pub mod params;
mod schema;
mod served;
pub mod server;
mod shared;
pub mod stdio;
pub mod tools;
mod watch;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;

pub use served::Served;
pub use server::BriefServer;
pub use shared::{Shared, MAX_ENGINES};

/// How long one tool call may run by default before it is answered with a tool error that
/// says what to narrow (below the 60 s most clients wait).
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(30);

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// `--root`, if given.
    pub root: Option<PathBuf>,
    /// Where the project is discovered from otherwise.
    pub cwd: PathBuf,
    /// Serve streamable HTTP on this address instead of stdio.
    pub http: Option<SocketAddr>,
    /// Allow a non-loopback `http` address.
    pub allow_remote: bool,
    /// Browser origins allowed besides loopback ones (`http://localhost:*` and the like).
    pub allowed_origins: Vec<String>,
    /// Watch the files and refresh on change (otherwise every request checks the files).
    pub watch: bool,
    /// How long one tool call may run (`None`: no limit).
    pub time_limit: Option<Duration>,
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Engine(#[from] brief::EngineError),
    #[error("{0} is not a loopback address: pass --allow-remote to serve other machines (anyone who can reach it can read the project)")]
    NotLoopback(SocketAddr),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("MCP session failed: {0}")]
    Session(String),
    /// An option that cannot be used as given (what is wrong, and what to give instead).
    #[error("{0}")]
    Usage(String),
    /// `brief watch` cannot do its job (why, and what to do).
    #[error("{0}")]
    Watch(String),
}

/// Runs the server until the client disconnects (stdio) or the process is stopped (HTTP).
/// A server that finds no project still starts, and answers every call with a tool error
/// that says how to point it at one.
pub fn serve(options: ServeOptions) -> Result<(), ServeError> {
    if let Some(addr) = options.http {
        if !addr.ip().is_loopback() && !options.allow_remote {
            return Err(ServeError::NotLoopback(addr));
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    let served = Arc::new(Served::start(&options));
    runtime.block_on(async move {
        if options.http.is_some() {
            return http::serve(&options, served).await;
        }
        let service = BriefServer::new(served)
            .serve(stdio::stdio())
            .await
            .map_err(|e| ServeError::Session(e.to_string()))?;
        service
            .waiting()
            .await
            .map_err(|e| ServeError::Session(e.to_string()))?;
        Ok(())
    })
}

/// What `brief watch` watches.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// `--root`, if given.
    pub root: Option<PathBuf>,
    /// Where the project is discovered from otherwise.
    pub cwd: PathBuf,
}

/// Where `brief watch` tells what it does: one line at a time, from any thread.
pub type Say = Arc<dyn Fn(String) + Send + Sync>;

/// How long `brief watch` lets a burst of changes settle before it refreshes.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(30);
/// How long `brief watch` waits after a failed refresh before the next one.
const RETRY: std::time::Duration = std::time::Duration::from_secs(2);

/// `brief watch`: refreshes the index after every change and vouches for it to other brief
/// commands, which then skip their check of every file. Runs until the process is stopped;
/// returns only when it cannot do its job.
#[cfg(unix)]
pub fn watch(options: WatchOptions, say: Say) -> Result<(), ServeError> {
    let shared = Arc::new(Shared::open(options.root, options.cwd)?);
    let root = shared.root();
    let shown = root.canonicalize().unwrap_or_else(|_| root.clone());
    let notices = shared.with_engine(|e| Ok(e.notices())).unwrap_or_default();
    let vouch = match watch::claim(&shared) {
        Ok(vouch) => vouch,
        Err(watch::ClaimError::Vouch(brief::watched::VouchError::Taken)) => {
            return Err(ServeError::Watch(format!(
                "another brief process (watch or serve) already keeps {} current; nothing to do",
                shown.display()
            )))
        }
        Err(watch::ClaimError::NoCache) => {
            return Err(ServeError::Watch(format!(
                "cannot vouch for an index kept in memory: {}",
                notices
                    .first()
                    .map(String::as_str)
                    .unwrap_or("no .brief/cache")
            )))
        }
        Err(e) => {
            return Err(ServeError::Watch(format!(
                "cannot vouch for the index: {e}"
            )))
        }
    };
    let cookies = vouch.cookies();
    let Some(_watcher) = watch::start(root, Arc::clone(&shared), Some(cookies), &*say) else {
        return Err(ServeError::Watch(
            "cannot watch the files (see above); other brief commands keep checking them".into(),
        ));
    };
    // Every refresh, whoever asks for it, says what it changed; a failure is said once
    // until it changes or a refresh succeeds.
    let refresh = {
        let shared = Arc::clone(&shared);
        let say = Arc::clone(&say);
        let last_failure = Arc::new(std::sync::Mutex::new(None::<String>));
        move || match watch::refresh_marked(&shared) {
            Ok((Some(done), took)) if done.parsed + done.removed > 0 => {
                *last_failure.lock().unwrap_or_else(|p| p.into_inner()) = None;
                say(format!(
                    "index updated: {} file{} read again, {} removed ({} ms)",
                    done.parsed,
                    if done.parsed == 1 { "" } else { "s" },
                    done.removed,
                    took.as_millis()
                ));
                Ok(())
            }
            Ok(_) => {
                *last_failure.lock().unwrap_or_else(|p| p.into_inner()) = None;
                Ok(())
            }
            Err(lines) => {
                let failure = lines.join("; ");
                let mut last = last_failure.lock().unwrap_or_else(|p| p.into_inner());
                if last.as_deref() != Some(failure.as_str()) {
                    for line in &lines {
                        say(line.clone());
                    }
                    *last = Some(failure.clone());
                }
                Err(failure)
            }
        }
    };
    // Answering first: a command that asks during the first refresh hears at once and waits
    // for that refresh, instead of taking a silent watcher for a stopped one.
    let Some(answering) = watch::answer(vouch, refresh.clone(), &*say) else {
        return Err(ServeError::Watch(
            "the watcher does not see .brief/cache change, so it cannot vouch for the index".into(),
        ));
    };
    let _ = refresh();
    let files = shared
        .with_engine(|e| Ok(e.index().file_count()))
        .unwrap_or(0);
    say(format!(
        "watching {} ({files} source file{}); other brief commands in this project now skip \
         their check of every file. Stop with Ctrl-C.",
        shown.display(),
        if files == 1 { "" } else { "s" }
    ));
    loop {
        if !answering.still_listening() {
            return Err(ServeError::Watch(
                "stopped: its socket in .brief/cache is gone (was the folder removed?); start \
                 brief watch again"
                    .into(),
            ));
        }
        if shared.changes.wait(std::time::Duration::from_secs(5)) {
            std::thread::sleep(SETTLE);
            let refreshed = refresh();
            if !shared.watching.load(std::sync::atomic::Ordering::SeqCst) {
                // Said by `refresh`; other commands check the files themselves from now on.
                return Err(ServeError::Watch(
                    "stopped: the file watcher failed (see above)".into(),
                ));
            }
            // A failed refresh marks the changes again: try again after a pause, not at once.
            if refreshed.is_err() {
                std::thread::sleep(RETRY);
            }
        }
    }
}

/// `brief watch` where there are no Unix sockets: nothing could ask it.
#[cfg(not(unix))]
pub fn watch(_options: WatchOptions, _say: Say) -> Result<(), ServeError> {
    Err(ServeError::Watch(
        "brief watch needs Unix sockets; on this system every command checks the files itself"
            .into(),
    ))
}
