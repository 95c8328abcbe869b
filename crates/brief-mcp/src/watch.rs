//! Watches the project's files and marks the engine's change signal, so requests refresh
//! the index only after something changed.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use notify::{RecursiveMode, Watcher};

use crate::server::Shared;

/// Whether a change at `path` may change what brief serves. brief's own writes (the index
/// cache, the session store) and version-control internals do not.
pub fn relevant(root: &Path, path: &Path) -> bool {
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

/// Starts watching `root`; the watcher lives as long as the returned value. `None` when the
/// platform refuses (e.g. out of inotify watches): then every request checks the files.
pub fn start(root: PathBuf, shared: Arc<Shared>) -> Option<notify::RecommendedWatcher> {
    let watched_root = root.clone();
    let shared_flag = Arc::clone(&shared);
    let handler = move |event: notify::Result<notify::Event>| match event {
        Ok(event) => {
            let relevant_paths: Vec<&PathBuf> = event
                .paths
                .iter()
                .filter(|p| relevant(&watched_root, p))
                .collect();
            if relevant_paths.is_empty() {
                return;
            }
            if relevant_paths
                .iter()
                .any(|p| p.file_name().is_some_and(|n| n == "brief.toml"))
            {
                shared.config_changed.store(true, Ordering::SeqCst);
            }
            shared.changes.mark();
        }
        // A lost event (queue overflow) means anything may have changed.
        Err(_) => shared.changes.mark(),
    };
    let mut watcher = match notify::recommended_watcher(handler) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("brief serve: cannot watch files ({e}); every request will check them");
            return None;
        }
    };
    if let Err(e) = watcher.watch(&root, RecursiveMode::Recursive) {
        eprintln!(
            "brief serve: cannot watch {} ({e}); every request will check the files",
            root.display()
        );
        return None;
    }
    shared_flag.watching.store(true, Ordering::SeqCst);
    Some(watcher)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
