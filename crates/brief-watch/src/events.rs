//! Watches the project's files: marks the engine's change signal with the files that
//! changed, so requests refresh the index only after something changed, and reports cookie
//! files to the [`Vouch`] that answers other brief processes (see `brief_engine::watched`).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use notify::event::{AccessKind, EventKind};
use notify::{RecursiveMode, Watcher};

use crate::shared::Shared;

#[cfg(unix)]
use brief_engine::{Cookies, Vouch};

/// Stands in for the cookie handle where there are no Unix sockets (no watcher answers).
#[cfg(not(unix))]
#[derive(Clone)]
pub(crate) struct Cookies;

#[cfg(not(unix))]
impl Cookies {
    fn observe(&self, _path: &Path) -> bool {
        false
    }
}

/// Whether a change at `path` may change what brief serves. brief's own writes (the index
/// cache, the session store) and version-control internals do not.
pub(crate) fn relevant(root: &Path, path: &Path) -> bool {
    let Ok(relative) = path.strip_prefix(root) else {
        return true;
    };
    let mut parts = relative.components().map(|c| c.as_os_str());
    match (parts.next(), parts.next()) {
        (Some(first), _) if first == ".git" => false,
        (Some(first), Some(second)) if first == ".brief" => {
            second != "cache" && !second.to_string_lossy().starts_with("sessions.db")
        }
        _ => true,
    }
}

/// What one file event means for the index.
#[derive(Debug, PartialEq, Eq)]
enum Meaning {
    /// Nothing: a file opened, brief's own files, a cookie.
    Nothing,
    /// These root-relative files changed.
    Files(Vec<String>),
    /// Something changed, but not (only) at a path under the root.
    Unknown,
}

/// `path` relative to `root`, `/`-separated (`None`: not beneath it).
fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?.to_str()?;
    (!rel.is_empty()).then(|| rel.replace('\\', "/"))
}

/// Reads one event (a lost one is [`handle`]'s). `cookies` sees every path first: a cookie
/// is no change.
fn meaning(root: &Path, event: &notify::Event, cookies: Option<&Cookies>) -> Meaning {
    if matches!(event.kind, EventKind::Access(AccessKind::Open(_))) {
        return Meaning::Nothing;
    }
    let mut files = Vec::new();
    for path in &event.paths {
        if cookies.is_some_and(|c| c.observe(path)) || !relevant(root, path) {
            continue;
        }
        match relative(root, path) {
            Some(rel) => files.push(rel),
            None => return Meaning::Unknown,
        }
    }
    if files.is_empty() {
        Meaning::Nothing
    } else {
        Meaning::Files(files)
    }
}

/// What the watcher does with one event: marks the change signal (and the config flag), or
/// stops vouching when the watcher itself failed.
fn handle(
    shared: &Shared,
    root: &Path,
    cookies: Option<&Cookies>,
    event: notify::Result<notify::Event>,
) {
    // The watcher failed (most often: no inotify watch left for a new folder), or its queue
    // overflowed (notify does not watch the folders created meanwhile). What it no longer
    // watches it never reports, so it stops vouching for anything.
    let failure = match &event {
        Err(e) => Some(e.to_string()),
        Ok(e) if e.need_rescan() => Some(
            "the system's queue of file events overflowed, and folders created meanwhile \
             are not watched (fs.inotify.max_queued_events)"
                .to_string(),
        ),
        Ok(_) => None,
    };
    if let Some(why) = failure {
        shared.watching.store(false, Ordering::SeqCst);
        let mut lost = shared.lost_track.lock().unwrap_or_else(|p| p.into_inner());
        lost.get_or_insert(why);
        drop(lost);
        shared.changes.mark_lost();
        return;
    }
    let Ok(event) = event else { return };
    remember_new_folders(shared, root, &event);
    match meaning(root, &event, cookies) {
        Meaning::Nothing => {}
        Meaning::Files(files) => {
            if files.iter().any(|f| f == "brief.toml") {
                shared.config_changed.store(true, Ordering::SeqCst);
            }
            shared.changes.mark_paths(files);
        }
        Meaning::Unknown => shared.changes.mark_lost(),
    }
}

/// How long a new folder counts as new: notify adds its watch only after the batch of
/// events that created it, so a file written there meanwhile reports nothing.
const NEW_FOLDER_WINDOW: std::time::Duration = std::time::Duration::from_secs(5);

/// Notes folders created or moved in, so the refreshes of the next few seconds list them
/// again ([`refresh_marked`]).
fn remember_new_folders(shared: &Shared, root: &Path, event: &notify::Event) {
    use notify::event::{CreateKind, ModifyKind, RenameMode};
    let created = matches!(
        event.kind,
        EventKind::Create(CreateKind::Folder)
            | EventKind::Modify(ModifyKind::Name(RenameMode::To | RenameMode::Both))
    );
    if !created {
        return;
    }
    for path in &event.paths {
        let Some(rel) = relative(root, path) else {
            continue;
        };
        if relevant(root, path) && path.is_dir() {
            let mut recent = shared
                .recent_folders
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            recent.push((std::time::Instant::now(), rel));
        }
    }
}

/// The root as events name it: absolute and resolved. Events name paths by the folder
/// watched, so a root given as `.` would make every path look outside it (and every event,
/// brief's own writes included, a change).
fn watch_root(root: &Path) -> PathBuf {
    root.canonicalize()
        .or_else(|_| std::env::current_dir().map(|cwd| cwd.join(root)))
        .unwrap_or_else(|_| root.to_path_buf())
}

/// Starts watching `root`; the watcher lives as long as the returned value. `None` when the
/// platform refuses (e.g. out of inotify watches): then every request checks the files.
pub(crate) fn start(
    root: PathBuf,
    shared: Arc<Shared>,
    cookies: Option<Cookies>,
    say: &dyn Fn(String),
) -> Option<notify::RecommendedWatcher> {
    let root = watch_root(&root);
    let watched_root = root.clone();
    let shared_flag = Arc::clone(&shared);
    let handler = move |event: notify::Result<notify::Event>| {
        handle(&shared, &watched_root, cookies.as_ref(), event);
    };
    // Not through symlinks: a folder reached twice would have its events named after
    // whichever path was watched last, and a link may lead far outside the project.
    let config = notify::Config::default().with_follow_symlinks(false);
    let mut watcher = match notify::RecommendedWatcher::new(handler, config) {
        Ok(w) => w,
        Err(e) => {
            say(format!(
                "cannot watch files ({e}); every request will check them"
            ));
            return None;
        }
    };
    if let Err(e) = watcher.watch(&root, RecursiveMode::Recursive) {
        say(format!(
            "cannot watch {} ({e}); every request will check the files",
            root.display()
        ));
        return None;
    }
    shared_flag.watching.store(true, Ordering::SeqCst);
    // Whatever changed before the watch began was never reported: the first refresh checks
    // every file.
    shared_flag.changes.mark_lost();
    Some(watcher)
}

/// A project's file watcher and, where it can, the answers it gives other brief processes
/// about the index (`brief_engine::watched`). Both stop when this is dropped.
pub struct Kept {
    _watcher: notify::RecommendedWatcher,
    #[cfg(unix)]
    _answering: Option<brief_engine::Answering>,
}

/// Watches `shared`'s files for `brief serve`, and vouches for its index to the other brief
/// commands run beside it when no other process does. `None` when the files cannot be
/// watched: then every request checks them.
pub fn keep(shared: &Arc<Shared>, say: &dyn Fn(String)) -> Option<Kept> {
    #[cfg(unix)]
    let vouch = match claim(shared) {
        Ok(vouch) => Some(vouch),
        // Another process answers already, or the index lives in memory (said elsewhere).
        Err(ClaimError::Vouch(brief_engine::VouchError::Taken)) | Err(ClaimError::NoCache) => None,
        Err(e) => {
            say(format!(
                "other brief commands will check the files themselves: {e}"
            ));
            None
        }
    };
    #[cfg(unix)]
    let cookies = vouch.as_ref().map(|v| v.cookies());
    #[cfg(not(unix))]
    let cookies = None;
    let watcher = start(shared.root(), Arc::clone(shared), cookies, say)?;
    #[cfg(unix)]
    let answering = vouch.and_then(|vouch| {
        let current = Arc::clone(shared);
        let refresh = move || {
            refresh_marked(&current)
                .map(|_| ())
                .map_err(|lines| lines.join("; "))
        };
        answer(vouch, refresh, say)
    });
    Some(Kept {
        _watcher: watcher,
        #[cfg(unix)]
        _answering: answering,
    })
}

/// Claims the right to answer other brief processes for this project's index (see
/// `brief_engine::watched`).
#[cfg(unix)]
pub(crate) fn claim(shared: &Arc<Shared>) -> Result<Vouch, ClaimError> {
    let cache = shared
        .with_engine(|e| Ok(e.index().cache_dir()))
        .ok()
        .flatten()
        .ok_or(ClaimError::NoCache)?;
    Vouch::claim(cache).map_err(ClaimError::Vouch)
}

/// Why a watcher cannot answer for the index.
#[cfg(unix)]
#[derive(Debug, thiserror::Error)]
pub(crate) enum ClaimError {
    /// The index lives in memory: there is no file to vouch for.
    #[error("the index is not kept in .brief/cache")]
    NoCache,
    #[error(transparent)]
    Vouch(brief_engine::VouchError),
}

/// Starts answering, once the running watcher is seen to report cookies (a watcher that
/// does not see `.brief/cache` could never vouch, so it then does not listen). `current`
/// brings the index up to date with the changes seen so far. `None` when it does not answer.
#[cfg(unix)]
pub(crate) fn answer(
    vouch: Vouch,
    current: impl Fn() -> Result<(), String> + Send + Sync + 'static,
    say: &dyn Fn(String),
) -> Option<brief_engine::Answering> {
    if !vouch.sees_cookies() {
        say(
            "other brief commands will check the files themselves: the watcher does not see \
             .brief/cache change"
                .into(),
        );
        return None;
    }
    Some(vouch.answer(current))
}

/// Brings the shared engine's index up to date with the changes marked so far: what it did
/// and how long that took, or the lines that say why it failed.
pub(crate) fn refresh_marked(
    shared: &Shared,
) -> Result<(Option<brief_index::Refresh>, std::time::Duration), Vec<String>> {
    let started = std::time::Instant::now();
    // Folders created a moment ago are listed again: a file written there before notify
    // watched them was never reported.
    let recent: Vec<String> = {
        let mut recent = shared
            .recent_folders
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        recent.retain(|(at, _)| at.elapsed() < NEW_FOLDER_WINDOW);
        recent.iter().map(|(_, folder)| folder.clone()).collect()
    };
    if !recent.is_empty() {
        shared.changes.mark_paths(recent);
    }
    if let Some(why) = shared
        .lost_track
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
    {
        return Err(vec![format!(
            "the watcher no longer sees every change ({why}); restart it (on Linux, raise \
             fs.inotify.max_user_watches if it ran out of watches)"
        )]);
    }
    shared
        .with_engine(|engine| {
            let _turn = shared.refresh_turn();
            let done = engine
                .refresh_pending()
                .map_err(|e| crate::Failure(e.describe(&engine.project.root)))?;
            // Commands read `.brief/cache/index.db`: vouch only for that file.
            if !engine.index().is_the_index_file() {
                return Err(crate::Failure(vec![
                    "its index is not the one in .brief/cache (kept in memory, or replaced \
                     while it refreshed); ask again"
                        .into(),
                ]));
            }
            Ok(done)
        })
        .map(|done| (done, started.elapsed()))
        .map_err(|failure| failure.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{CreateKind, DataChange, ModifyKind};

    #[test]
    fn own_files_and_git_are_not_changes() {
        let root = Path::new("/p");
        assert!(!relevant(root, Path::new("/p/.brief/cache/index.db-wal")));
        assert!(!relevant(root, Path::new("/p/.brief/sessions.db-journal")));
        assert!(!relevant(root, Path::new("/p/.git/index")));
        assert!(relevant(root, Path::new("/p/.brief/notes/a.md")));
        assert!(relevant(root, Path::new("/p/specgraph/nodes/a.json")));
        assert!(relevant(root, Path::new("/p/brief.toml")));
    }

    fn event(kind: EventKind, paths: &[&str]) -> notify::Event {
        paths.iter().fold(notify::Event::new(kind), |e, p| {
            e.add_path(PathBuf::from(p))
        })
    }

    #[test]
    fn a_relative_root_is_watched_as_events_name_it() {
        // Events under a root given as `.` arrive as `/abs/./x`; stripped of `.` they all
        // looked outside the root, so brief's own index writes counted as changes.
        let cwd = std::env::current_dir().unwrap().canonicalize().unwrap();
        let root = watch_root(Path::new("."));
        assert_eq!(root, cwd);
        let own = event(
            EventKind::Access(AccessKind::Close(notify::event::AccessMode::Write)),
            &[cwd.join(".brief/cache/refresh.lock").to_str().unwrap()],
        );
        assert_eq!(meaning(&root, &own, None), Meaning::Nothing);
    }

    /// A project of one decision, its index built, as a running watcher holds it.
    fn watched_project() -> (tempfile::TempDir, PathBuf, Shared) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".brief/decisions")).unwrap();
        std::fs::write(
            dir.path().join(".brief/decisions/DEC-1.md"),
            "---\nid: DEC-1\nkind: decision\ntitle: Use queues\n---\nBody.\n",
        )
        .unwrap();
        let root = watch_root(dir.path());
        let shared = Shared::open(Some(root.clone()), root.clone()).unwrap();
        shared.watching.store(true, Ordering::SeqCst);
        assert!(refresh_marked(&shared).is_ok());
        (dir, root, shared)
    }

    #[test]
    fn a_failed_watcher_stops_vouching_and_every_request_checks() {
        let (_dir, root, shared) = watched_project();
        handle(
            &shared,
            &root,
            None,
            Err(notify::Error::generic("no inotify watches left")),
        );
        assert!(!shared.watching.load(Ordering::SeqCst));
        let refused = refresh_marked(&shared).unwrap_err().join("\n");
        assert!(refused.contains("no inotify watches left"), "{refused}");
        assert!(refused.contains("restart"), "{refused}");
        assert!(shared.changes.take().is_some_and(|p| p.lost));
    }

    #[test]
    fn an_overflow_stops_vouching_and_new_folders_are_listed_again() {
        let (_dir, root, shared) = watched_project();
        // A folder appears: the refreshes of the next seconds list it again, even when no
        // event marks anything.
        std::fs::create_dir(root.join(".brief/decisions/new")).unwrap();
        let created = event(
            EventKind::Create(CreateKind::Folder),
            &[root.join(".brief/decisions/new").to_str().unwrap()],
        );
        handle(&shared, &root, None, Ok(created));
        assert!(refresh_marked(&shared).is_ok());
        assert!(shared.changes.take().is_none());
        let before = shared.with_engine(|e| Ok(e.index().file_count())).unwrap();
        std::fs::write(
            root.join(".brief/decisions/new/DEC-2.md"),
            "---\nid: DEC-2\nkind: decision\ntitle: Use queues too\n---\nBody.\n",
        )
        .unwrap();
        assert!(refresh_marked(&shared).is_ok());
        let after = shared.with_engine(|e| Ok(e.index().file_count())).unwrap();
        assert_eq!(after, before + 1);
        // The queue overflowed: from now on the watcher vouches for nothing.
        let overflow = notify::Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan);
        handle(&shared, &root, None, Ok(overflow));
        assert!(!shared.watching.load(Ordering::SeqCst));
        let refused = refresh_marked(&shared).unwrap_err().join("\n");
        assert!(refused.contains("overflowed"), "{refused}");
    }

    #[test]
    fn an_index_file_this_brief_cannot_use_is_left_alone_and_not_vouched_for() {
        let (_dir, root, shared) = watched_project();
        // Another brief (another schema, say) puts a file this one cannot read in place.
        let cache = root.join(".brief/cache");
        for entry in std::fs::read_dir(&cache).unwrap().flatten() {
            if entry.file_name().to_string_lossy().starts_with("index.db") {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
        std::fs::write(cache.join("index.db"), b"another brief's index").unwrap();
        shared
            .changes
            .mark_paths([".brief/decisions/DEC-1.md".to_string()]);
        // Not rebuilt (the other brief would rebuild it back), and not vouched for.
        let refused = refresh_marked(&shared).unwrap_err().join("\n");
        assert!(refused.contains("not the one in .brief/cache"), "{refused}");
        assert!(refresh_marked(&shared).is_err());
        assert_eq!(
            std::fs::read(cache.join("index.db")).unwrap(),
            b"another brief's index"
        );
        // A file it can use appears (a command of this brief rebuilt it): adopted.
        let mut rebuilt = brief_engine::Engine::open(Some(&root), &root).unwrap();
        rebuilt.refresh(None, &mut |_| {}).unwrap();
        assert!(refresh_marked(&shared).is_ok());
    }

    #[test]
    fn events_name_the_files_that_changed() {
        let root = Path::new("/p");
        let none = None;
        let write = event(
            EventKind::Modify(ModifyKind::Data(DataChange::Any)),
            &["/p/docs/adr/0001-a.md"],
        );
        assert_eq!(
            meaning(root, &write, none),
            Meaning::Files(vec!["docs/adr/0001-a.md".into()])
        );
        let open = event(
            EventKind::Access(AccessKind::Open(notify::event::AccessMode::Any)),
            &["/p/docs/adr/0001-a.md"],
        );
        assert_eq!(meaning(root, &open, none), Meaning::Nothing);
        let own = event(
            EventKind::Create(CreateKind::File),
            &["/p/.brief/cache/index.db-wal"],
        );
        assert_eq!(meaning(root, &own, none), Meaning::Nothing);
        let elsewhere = event(EventKind::Create(CreateKind::File), &["/q/x.md"]);
        assert_eq!(meaning(root, &elsewhere, none), Meaning::Unknown);
    }

    #[cfg(unix)]
    #[test]
    fn a_cookie_is_reported_and_is_no_change() {
        let cookies = Cookies::new(Path::new("/p/.brief/cache"));
        let name = format!("/p/.brief/cache/watch-cookie-{}-1", std::process::id());
        let cookie = event(EventKind::Create(CreateKind::File), &[&name]);
        assert_eq!(
            meaning(Path::new("/p"), &cookie, Some(&cookies)),
            Meaning::Nothing
        );
    }
}
