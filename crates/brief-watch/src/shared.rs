//! One project as the server holds it: a pool of [`Engine`]s over its one index file, the
//! change signal its file watcher marks, and the state the watcher keeps.
//!
//! Each request leases an engine of its own for as long as it runs, so a slow request never
//! holds up another: the engines share the index file (SQLite in WAL mode: readers never
//! wait for each other), not a lock. Refreshes take turns ([`Shared::refresh_turn`]), so a
//! request that starts while another refreshes waits for that refresh instead of reading
//! the index before it. An index kept in memory (a read-only `.brief/cache`) cannot be
//! shared: the pool then holds one engine.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use brief_engine::EngineError;
use brief_engine::{Cancel, ChangeSignal, Engine};

use crate::Failure;

/// The most engines (SQLite connections) one project keeps open: requests beyond that many
/// at once wait for one to be free.
pub(crate) const MAX_ENGINES: usize = 8;

/// How often a request waiting for a free engine looks at its cancellation.
const WAIT_STEP: Duration = Duration::from_millis(50);

/// A project, its engines and what tells them files changed.
pub struct Shared {
    root: Option<PathBuf>,
    cwd: PathBuf,
    /// The project root, as the first engine found it.
    project_root: PathBuf,
    pool: Mutex<Pool>,
    freed: Condvar,
    refreshing: Mutex<()>,
    /// Marked by the watcher on any change under the root.
    pub changes: ChangeSignal,
    /// Marked when `brief.toml` changed: the project is opened again.
    pub config_changed: AtomicBool,
    /// Whether a file watcher marks `changes`; without one every request checks the files.
    pub watching: AtomicBool,
    /// Why the watcher stopped seeing every change (it could not watch a new folder), if it
    /// did: from then on every request checks the files and no other process is vouched for.
    pub lost_track: Mutex<Option<String>>,
    /// An index file another brief put in place that this one cannot use: not adopted, and
    /// not rebuilt either. Held open, so that its inode cannot be reused by a new index file
    /// that would then look like it.
    foreign_index: Mutex<Option<(std::fs::File, (u64, u64))>>,
    /// Folders created in the last few seconds, which the watcher may not watch yet.
    pub recent_folders: Mutex<Vec<(Instant, String)>>,
}

/// The engines not in use, and how many are open in all.
struct Pool {
    idle: Vec<Engine>,
    open: usize,
    /// The most engines: 1 when the index lives in memory (each engine would hold its own).
    most: usize,
    /// Bumped when the project is opened again (`brief.toml` changed): engines of an older
    /// generation are closed when they come back.
    generation: u64,
}

/// An engine leased to one request; it goes back to the pool when dropped.
pub(crate) struct Lease<'a> {
    shared: &'a Shared,
    engine: Option<Engine>,
    generation: u64,
}

impl Lease<'_> {
    /// The leased engine.
    pub(crate) fn engine(&mut self) -> Result<&mut Engine, Failure> {
        self.engine
            .as_mut()
            .ok_or_else(|| Failure::line("error: the project is not open"))
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(mut engine) = self.engine.take() {
            engine.set_cancel(None);
            self.shared.give_back(engine, self.generation);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic in an earlier request poisons the lock; what it guards is still whole (every
    // write to an engine is a SQLite transaction), so keep serving.
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    /// Opens the project once, so a server pointed at the wrong place learns it at once.
    pub fn open(root: Option<PathBuf>, cwd: PathBuf) -> Result<Shared, EngineError> {
        let changes = ChangeSignal::default();
        let mut engine = Engine::open(root.as_deref(), &cwd)?;
        engine.refresh_on(changes.clone());
        let most = if engine.index().cache_dir().is_some() {
            MAX_ENGINES
        } else {
            1
        };
        Ok(Shared {
            project_root: engine.project.root.clone(),
            root,
            cwd,
            pool: Mutex::new(Pool {
                idle: vec![engine],
                open: 1,
                most,
                generation: 0,
            }),
            freed: Condvar::new(),
            refreshing: Mutex::new(()),
            changes,
            config_changed: AtomicBool::new(false),
            watching: AtomicBool::new(false),
            lost_track: Mutex::new(None),
            foreign_index: Mutex::new(None),
            recent_folders: Mutex::new(Vec::new()),
        })
    }

    /// The project root.
    pub fn root(&self) -> PathBuf {
        self.project_root.clone()
    }

    /// How many engines are open now (idle or leased): what the pool's tests watch.
    #[cfg(test)]
    pub(crate) fn engines_open(&self) -> usize {
        lock(&self.pool).open
    }

    /// Runs `op` on an engine of its own.
    pub fn with_engine<T>(
        &self,
        op: impl FnOnce(&mut Engine) -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        let mut lease = self.lease(None)?;
        op(lease.engine()?)
    }

    /// Runs `op` on an engine of its own that gives up at its next stage once `cancel` is
    /// cancelled.
    pub fn with_cancel<T>(
        &self,
        cancel: &Cancel,
        op: impl FnOnce(&mut Engine) -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        let mut lease = self.lease(Some(cancel))?;
        let engine = lease.engine()?;
        engine.set_cancel(Some(cancel.clone()));
        op(engine)
    }

    /// The turn to refresh: held while a request brings the index up to date, so that a
    /// request starting meanwhile waits for that refresh instead of reading before it.
    pub fn refresh_turn(&self) -> MutexGuard<'_, ()> {
        lock(&self.refreshing)
    }

    /// An engine for one request: an idle one, or a new one while fewer than the most are
    /// open, or the next one given back.
    pub(crate) fn lease(&self, cancel: Option<&Cancel>) -> Result<Lease<'_>, Failure> {
        if !self.watching.load(Ordering::SeqCst) {
            self.changes.mark();
        }
        if self.config_changed.swap(false, Ordering::SeqCst) {
            let mut pool = lock(&self.pool);
            pool.generation += 1;
            pool.open -= pool.idle.len();
            pool.idle.clear();
            // A new engine knows nothing of the changes the old ones saw: check every file.
            self.changes.mark_lost();
        }
        let (idle, generation) = self.take_or_reserve(cancel)?;
        let engine = match idle {
            Some(engine) => engine,
            None => match self.open_engine() {
                Ok(engine) => engine,
                Err(failure) => {
                    // Nothing was opened: free the place reserved for it.
                    lock(&self.pool).open -= 1;
                    self.freed.notify_one();
                    return Err(failure);
                }
            },
        };
        let mut lease = Lease {
            shared: self,
            engine: Some(engine),
            generation,
        };
        if let Some(engine) = lease.engine.as_mut() {
            self.reopen_if_replaced(engine);
        }
        Ok(lease)
    }

    /// An idle engine, or the right to open one (`None`), and the generation it belongs to.
    fn take_or_reserve(&self, cancel: Option<&Cancel>) -> Result<(Option<Engine>, u64), Failure> {
        let mut pool = lock(&self.pool);
        loop {
            if let Some(engine) = pool.idle.pop() {
                return Ok((Some(engine), pool.generation));
            }
            if pool.open < pool.most {
                pool.open += 1;
                return Ok((None, pool.generation));
            }
            if cancel.is_some_and(Cancel::is_cancelled) {
                return Err(Failure::line(
                    "error: the request was cancelled before it started",
                ));
            }
            pool = self
                .freed
                .wait_timeout(pool, WAIT_STEP)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// A new engine over the project, told of the watcher's changes.
    fn open_engine(&self) -> Result<Engine, Failure> {
        let mut engine = Engine::open(self.root.as_deref(), &self.cwd).map_err(|e| {
            // Try again at the next request (the configuration may be mended by then).
            Failure(e.describe(self.root.as_deref().unwrap_or(&self.cwd)))
        })?;
        engine.refresh_on(self.changes.clone());
        Ok(engine)
    }

    fn give_back(&self, engine: Engine, generation: u64) {
        let mut pool = lock(&self.pool);
        if generation == pool.generation {
            pool.idle.push(engine);
        } else {
            pool.open -= 1;
        }
        drop(pool);
        self.freed.notify_one();
    }

    /// Another process rebuilt the index file (a reset, new sources, another version): this
    /// engine's connection still reads the old one, so it opens the project again — unless
    /// the new file is one this brief cannot use (another brief's schema), which is left
    /// alone: rebuilding it would make the other brief rebuild ours, back and forth. The old
    /// connection then keeps serving this process; it vouches for no one.
    fn reopen_if_replaced(&self, engine: &mut Engine) {
        let now = engine.index().file_now();
        let foreign = lock(&self.foreign_index).as_ref().map(|(_, id)| *id);
        if !(engine.index().was_replaced() && (now.is_none() || now != foreign)) {
            return;
        }
        let Ok(candidate) = Engine::open(self.root.as_deref(), &self.cwd) else {
            return;
        };
        let held = candidate.index().cache_dir().and_then(|cache| {
            let file = std::fs::File::open(cache.real_path("index.db")).ok()?;
            // The file opened must be the one identified (it may have moved on).
            (identity_of(&file) == now).then_some(file)
        });
        if let (Some(now), Some(file), true) = (now, held, candidate.index().is_unbuilt()) {
            *lock(&self.foreign_index) = Some((file, now));
        } else {
            self.changes.mark_lost();
            *engine = candidate;
            engine.refresh_on(self.changes.clone());
        }
    }
}

/// Device and inode of an open file, as `PrivateDir::identity` gives them.
fn identity_of(file: &std::fs::File) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        file.metadata().ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        file.metadata().ok().map(|_| (0, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".brief/decisions")).unwrap();
        std::fs::write(
            dir.path().join(".brief/decisions/DEC-1.md"),
            "---\nid: DEC-1\nkind: decision\ntitle: Use queues\n---\nBody.\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn leases_are_engines_of_their_own_given_back_when_done() {
        let dir = project();
        let shared = Shared::open(Some(dir.path().into()), dir.path().into()).unwrap();
        let mut first = shared.lease(None).unwrap();
        let mut second = shared.lease(None).unwrap();
        assert_eq!(shared.engines_open(), 2);
        for lease in [&mut first, &mut second] {
            let found = lease.engine().unwrap().search("queues", 5, None).unwrap();
            assert_eq!(found.hits.len(), 1);
        }
        drop(first);
        drop(second);
        // Both idle now: a third request reuses one instead of opening a third.
        let _third = shared.lease(None).unwrap();
        assert_eq!(shared.engines_open(), 2);
    }

    #[test]
    fn a_full_pool_makes_a_request_wait_until_cancelled() {
        let dir = project();
        let shared = Shared::open(Some(dir.path().into()), dir.path().into()).unwrap();
        let held: Vec<Lease> = (0..MAX_ENGINES)
            .map(|_| shared.lease(None).unwrap())
            .collect();
        let cancel = Cancel::default();
        cancel.cancel();
        let refused = shared.lease(Some(&cancel)).err().unwrap();
        assert!(refused.0[0].contains("cancelled"), "{refused:?}");
        drop(held);
        assert!(shared.lease(Some(&Cancel::default())).is_ok());
    }

    #[test]
    fn a_changed_configuration_closes_the_old_engines() {
        let dir = project();
        let shared = Shared::open(Some(dir.path().into()), dir.path().into()).unwrap();
        let old = shared.lease(None).unwrap();
        shared.config_changed.store(true, Ordering::SeqCst);
        let new = shared.lease(None).unwrap();
        assert_eq!(shared.engines_open(), 2);
        drop(old);
        assert_eq!(
            shared.engines_open(),
            1,
            "the old generation's engine is closed"
        );
        drop(new);
        assert_eq!(shared.engines_open(), 1);
    }
}
