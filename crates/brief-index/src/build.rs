//! Building a new index file: under `.brief/cache/build.lock`, in rollback mode under a
//! private name, published whole by the first refresh that completes.

use super::*;

/// Bytes of full-text terms a bulk load keeps in memory before writing a segment.
pub(super) const BULK_FTS_MEMORY: i64 = 64 << 20;

/// How long a refresh waits for another process's build before building in memory.
pub(super) const BUILD_WAIT: std::time::Duration = std::time::Duration::from_secs(300);

/// The build lock of the cache folder, once no other process holds it; the notice why the
/// run builds in memory otherwise.
pub(super) fn build_lock(cache: &PrivateDir) -> Result<std::fs::File, String> {
    let shown = cache.shown().join(LOCK_FILE).display().to_string();
    let lock = cache.open_lock(LOCK_FILE).map_err(|e| {
        if e.is_read_only() {
            read_only_notice(&shown, &e.to_string())
        } else {
            format!("cannot use {shown} ({e}); the index is kept in memory for this run")
        }
    })?;
    let start = std::time::Instant::now();
    loop {
        match lock.try_lock() {
            Ok(()) => return Ok(lock),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < BUILD_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => {
                return Err(format!(
                    "{shown} could not be taken ({e}); the index is kept in memory for this run"
                ))
            }
        }
    }
}

impl Index {
    /// Called by the first refresh of an index opened without a usable file: waits for the
    /// build lock, then opens the file another process published meanwhile, or starts
    /// building it. Builds in memory for this run when the lock or the build file cannot be
    /// had.
    pub(super) fn start_build(&mut self, project: &Project) -> Result<(), IndexError> {
        let Some(Unbuilt { damaged }) = self.unbuilt.take() else {
            return Ok(());
        };
        let Some(cache) = self.cache.clone() else {
            return Ok(());
        };
        let shown = cache.shown().join(INDEX_FILE).display().to_string();
        let lock = match build_lock(&cache) {
            Ok(lock) => lock,
            Err(notice) => return self.keep_in_memory(project, notice),
        };
        let replaced = damaged.is_some() && cache.identity(INDEX_FILE) != damaged;
        if damaged.is_none() || replaced {
            match Index::open_file(project, &cache, Trust::Found) {
                Ok(published) => {
                    *self = published;
                    return Ok(());
                }
                Err(Unusable::ReadOnly(e)) => {
                    return self.keep_in_memory(project, read_only_notice(&shown, &e.to_string()))
                }
                Err(Unusable::Other(e)) if cache.entry(INDEX_FILE).is_some() => {
                    // Neither missing nor damaged (permissions, a busy writer, …): say so,
                    // never delete.
                    self.unbuilt = Some(Unbuilt { damaged });
                    return Err(IndexError {
                        path: shown,
                        message: if matches!(
                            e.sqlite_error_code(),
                            Some(rusqlite::ErrorCode::DatabaseBusy)
                        ) {
                            format!("{e}: another process is writing it; try again")
                        } else {
                            format!(
                                "{e}; brief only replaces an index file that is missing or \
                                 damaged, so fix this or move the file aside"
                            )
                        },
                        damaged: false,
                    });
                }
                Err(_) => {}
            }
        }
        remove_index_file(&cache, INDEX_FILE);
        // Left by a build that was killed: under the lock nobody else is writing it.
        remove_index_file(&cache, BUILD_FILE);
        let conn = open_sqlite(&cache.real_path(BUILD_FILE), Create::Yes).and_then(|conn| {
            conn.pragma_update(None, "page_size", PAGE_SIZE)?;
            conn.pragma_update(None, "journal_mode", "MEMORY")?;
            conn.pragma_update(None, "synchronous", "OFF")?;
            create(&conn, project)?;
            Ok(conn)
        });
        let conn = match conn {
            Ok(conn) => conn,
            Err(e) => {
                remove_index_file(&cache, BUILD_FILE);
                let notice = if is_read_only(&e) {
                    read_only_notice(&shown, &e.to_string())
                } else {
                    format!("cannot build {shown} ({e}); the index is kept in memory for this run")
                };
                return self.keep_in_memory(project, notice);
            }
        };
        *self = Index::with(project, conn, shown, true);
        self.cache = Some(cache);
        self.publish = Some(Publish { _lock: lock });
        Ok(())
    }

    /// Drops a build that failed (releasing the lock and deleting its file): the next
    /// refresh starts over.
    pub(super) fn abandon_build(&mut self, project: &Project, publish: Publish) {
        let cache = self.cache.clone();
        let location = self.location.clone();
        drop(publish);
        if let Ok(empty) = Index::in_memory(project, location) {
            *self = empty;
        }
        if let Some(cache) = cache {
            remove_index_file(&cache, BUILD_FILE);
            self.cache = Some(cache);
            self.unbuilt = Some(Unbuilt { damaged: None });
        }
    }
}
