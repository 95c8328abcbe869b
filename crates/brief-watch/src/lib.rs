//! The file watcher that keeps a project's index current, in one place: the pool of engines
//! it refreshes ([`Shared`]), the file events that mark its change signal and the vouch that
//! answers other brief processes ([`keep`], for `brief serve`), and `brief watch` itself
//! ([`watch`]). No async code: `brief watch` needs neither the MCP server nor tokio.

#![warn(missing_docs, unreachable_pub)]

mod events;
mod shared;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use brief_engine::EngineError;

#[cfg(unix)]
use brief_engine::{Answering, VouchError};

pub use events::{keep, Kept};
pub use shared::Shared;

/// Why a call failed, in the lines the CLI would print on stderr.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure(pub Vec<String>);

impl Failure {
    /// A failure of one line.
    pub fn line(line: impl Into<String>) -> Failure {
        Failure(vec![line.into()])
    }
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

/// Why `brief watch` cannot do its job (each says why, and what to do).
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The project does not open.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// Another process answers for this project already.
    #[error("another brief process (watch or serve) already keeps {} current; nothing to do", .0.display())]
    Taken(PathBuf),
    /// The index lives in memory (why, as the engine noted it).
    #[error("cannot vouch for an index kept in memory: {0}")]
    InMemory(String),
    /// The vouch could not be claimed.
    #[error("cannot vouch for the index: {0}")]
    Vouch(String),
    /// The platform refuses to watch the files.
    #[error("cannot watch the files (see above); other brief commands keep checking them")]
    CannotWatch,
    /// The watcher does not report the cookies written in `.brief/cache`.
    #[error("the watcher does not see .brief/cache change, so it cannot vouch for the index")]
    CacheUnseen,
    /// The socket other commands ask was removed.
    #[error("stopped: its socket in .brief/cache is gone (was the folder removed?); start brief watch again")]
    SocketGone,
    /// The file watcher itself failed.
    #[error("stopped: the file watcher failed (see above)")]
    WatcherFailed,
    /// No Unix sockets on this system: nothing could ask a watcher.
    #[error(
        "brief watch needs Unix sockets; on this system every command checks the files itself"
    )]
    NoSockets,
}

/// How long `brief watch` lets a burst of changes settle before it refreshes.
const SETTLE: Duration = Duration::from_millis(30);
/// How long `brief watch` waits after a failed refresh before the next one.
const RETRY: Duration = Duration::from_secs(2);

/// `brief watch`: refreshes the index after every change and vouches for it to other brief
/// commands, which then skip their check of every file. Runs until the process is stopped;
/// returns only when it cannot do its job.
#[cfg(unix)]
pub fn watch(options: WatchOptions, say: Say) -> Result<(), WatchError> {
    let shared = Arc::new(Shared::open(options.root, options.cwd)?);
    let vouch = claim(&shared)?;
    let cookies = vouch.cookies();
    let Some(_watcher) = events::start(shared.root(), Arc::clone(&shared), Some(cookies), &*say)
    else {
        return Err(WatchError::CannotWatch);
    };
    let refresh = refresher(Arc::clone(&shared), Arc::clone(&say));
    // Answering first: a command that asks during the first refresh hears at once and waits
    // for that refresh, instead of taking a silent watcher for a stopped one.
    let Some(answering) = events::answer(vouch, refresh.clone(), &*say) else {
        return Err(WatchError::CacheUnseen);
    };
    let _ = refresh();
    say_watching(&shared, &*say);
    keep_refreshing(&shared, &answering, refresh)
}

/// `brief watch` where there are no Unix sockets: nothing could ask it.
#[cfg(not(unix))]
pub fn watch(_options: WatchOptions, _say: Say) -> Result<(), WatchError> {
    Err(WatchError::NoSockets)
}

/// The right to answer for the project's index, or why `brief watch` has nothing to do.
#[cfg(unix)]
fn claim(shared: &Arc<Shared>) -> Result<brief_engine::Vouch, WatchError> {
    let notices = shared.with_engine(|e| Ok(e.notices())).unwrap_or_default();
    match events::claim(shared) {
        Ok(vouch) => Ok(vouch),
        Err(events::ClaimError::Vouch(VouchError::Taken)) => {
            let root = shared.root();
            Err(WatchError::Taken(root.canonicalize().unwrap_or(root)))
        }
        Err(events::ClaimError::NoCache) => Err(WatchError::InMemory(
            notices
                .first()
                .cloned()
                .unwrap_or_else(|| "no .brief/cache".into()),
        )),
        Err(e) => Err(WatchError::Vouch(e.to_string())),
    }
}

/// The refresh every change, and every question from another command, runs: it says what it
/// changed, and says a failure once until it changes or a refresh succeeds.
#[cfg(unix)]
fn refresher(
    shared: Arc<Shared>,
    say: Say,
) -> impl Fn() -> Result<(), String> + Clone + Send + Sync + 'static {
    let last_failure = Arc::new(Mutex::new(None::<String>));
    move || match events::refresh_marked(&shared) {
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
}

/// The line that says the watcher is up, and how many files it keeps current.
#[cfg(unix)]
fn say_watching(shared: &Shared, say: &dyn Fn(String)) {
    let root = shared.root();
    let shown = root.canonicalize().unwrap_or_else(|_| root.clone());
    let files = shared
        .with_engine(|e| Ok(e.index().file_count()))
        .unwrap_or(0);
    say(format!(
        "watching {} ({files} source file{}); other brief commands in this project now skip \
         their check of every file. Stop with Ctrl-C.",
        shown.display(),
        if files == 1 { "" } else { "s" }
    ));
}

/// Refreshes after every settled burst of changes until the watcher or its socket fails.
#[cfg(unix)]
fn keep_refreshing(
    shared: &Shared,
    answering: &Answering,
    refresh: impl Fn() -> Result<(), String>,
) -> Result<(), WatchError> {
    loop {
        if !answering.still_listening() {
            return Err(WatchError::SocketGone);
        }
        if shared.changes.wait(Duration::from_secs(5)) {
            std::thread::sleep(SETTLE);
            let refreshed = refresh();
            if !shared.watching.load(std::sync::atomic::Ordering::SeqCst) {
                // Said by `refresh`; other commands check the files themselves from now on.
                return Err(WatchError::WatcherFailed);
            }
            // A failed refresh marks the changes again: try again after a pause, not at once.
            if refreshed.is_err() {
                std::thread::sleep(RETRY);
            }
        }
    }
}
