//! Refreshing the index: which files to look at (`plan`), reading and parsing them on the
//! rayon pool (`read`), and writing the differences in one transaction (`write`). `listing`
//! holds the listing of sources and the choice of parser.

mod listing;
mod plan;
mod read;
mod write;

use std::collections::BTreeSet;

use super::*;

/// Up to this many changed files a refresh rebuilds only the guides of the layers they can
/// move; above it, the whole table (one query is cheaper than many).
const FEW_FILES: usize = 256;
/// ... and up to this many nodes in them.
const FEW_NODES: usize = 4096;

pub(super) use listing::*;
pub(super) use plan::*;
pub(super) use read::*;
pub(super) use write::*;

/// Files read and parsed per step of a refresh's pipeline.
pub(crate) const PARSE_CHUNK: usize = 2048;

/// A source file found while listing the project.
#[derive(Clone)]
pub(crate) struct Listed {
    pub(crate) path: PathBuf,
    pub(crate) rel: String,
    pub(crate) parser: Parser,
    /// What the index knows of it, when the listing came from the index.
    pub(crate) known: Option<Known>,
}

/// A candidate file after reading.
pub(crate) struct Read {
    /// Its position in the listing.
    pub(crate) at: usize,
    /// The content hash (zero when it could not be read).
    pub(crate) hash: [u8; 32],
    /// The stamp taken as it was read, and when.
    pub(crate) stamp: Option<(Stamp, i64)>,
    /// The parse result (the file's nodes: none, one, or a page and its sections), `None`
    /// when the content had not changed.
    pub(crate) parsed: Option<Result<Vec<Prepared>, Problem>>,
}

/// A Tana export after reading: like [`Read`], with the text kept (`None`: same hash as
/// indexed) because exports are parsed inside the write transaction.
pub(crate) struct TanaRead {
    pub(crate) at: usize,
    pub(crate) hash: [u8; 32],
    pub(crate) stamp: Option<(Stamp, i64)>,
    pub(crate) text: Result<Option<String>, Problem>,
}

/// The [`Stamp`] of a file or folder (following symlinks: what it names is what is read).
pub(crate) fn stat(path: &Path) -> Option<Stamp> {
    stamp(&std::fs::metadata(path).ok()?)
}

/// The stamps of many files, named relative to `root`, in the order given: stat'ed in path
/// order (each folder opened once, see [`brief_root::stat_files`]), in chunks on rayon's pool
/// when there is more than one chunk (a context's few files are stat'ed on this thread). The
/// same stamps as [`stat`] of each joined path.
pub(crate) fn stat_all(root: &Path, rels: &[&str]) -> Vec<Option<Stamp>> {
    use rayon::prelude::*;
    use std::ffi::OsStr;
    /// Files per task: enough to amortise a task, few enough to spread over the cores.
    const CHUNK: usize = 512;
    let mut order: Vec<usize> = (0..rels.len()).collect();
    order.sort_unstable_by(|&a, &b| rels[a].cmp(rels[b]));
    let stat_chunk = |chunk: &[usize]| {
        // The folder of each file, joined to the root once per run of the same folder.
        let mut dirs: Vec<(&Path, PathBuf)> = Vec::new();
        let mut files: Vec<(usize, &OsStr)> = Vec::with_capacity(chunk.len());
        for &i in chunk {
            let rel = Path::new(rels[i]);
            let (folder, name) = match (rel.parent(), rel.file_name()) {
                (Some(folder), Some(name)) => (folder, name),
                _ => (rel, OsStr::new(".")),
            };
            if dirs.last().is_none_or(|(d, _)| *d != folder) {
                dirs.push((folder, root.join(folder)));
            }
            files.push((dirs.len() - 1, name));
        }
        brief_root::stat_files(files.iter().map(|&(d, name)| (dirs[d].1.as_path(), name)))
            .into_iter()
            .map(|s| s.as_ref().and_then(brief_sources::stamp_of))
            .collect::<Vec<_>>()
    };
    // One chunk is stat'ed here: handing it to the pool would cost more (starting the pool,
    // the first time) than it saves.
    let stamps: Vec<Option<Stamp>> = if order.len() <= CHUNK {
        stat_chunk(&order)
    } else {
        order.par_chunks(CHUNK).flat_map_iter(stat_chunk).collect()
    };
    let mut out = vec![None; rels.len()];
    for (stamp, &i) in stamps.into_iter().zip(&order) {
        out[i] = stamp;
    }
    out
}

/// The stamp to record for a file and whether it is racy: the one taken as it was read, or
/// (not read: no change found) the stat that found it unchanged.
pub(crate) fn recorded(read: Option<(Stamp, i64)>, stat: Option<Stamp>) -> (Stamp, bool) {
    match (read, stat) {
        (Some((stamp, taken)), _) => (stamp, stamp.racy(taken)),
        (None, Some(stamp)) => (stamp, stamp.racy(now_ns())),
        // Unreadable: recorded with a problem, so read again on every refresh.
        (None, None) => (
            Stamp {
                size: -1,
                mtime: -1,
                ctime: -1,
                inode: -1,
                device: -1,
            },
            false,
        ),
    }
}

impl Index {
    /// Brings the index up to date with the sources. `progress` is called with (done, total)
    /// while files are parsed.
    pub fn refresh(
        &mut self,
        project: &Project,
        verify: Verify,
        progress: &mut dyn FnMut(Step),
    ) -> Result<Refresh, IndexError> {
        self.start_build(project)?;
        let result = self.refresh_started(project, verify, progress);
        // A build that failed is dropped, with its lock: nobody waits on it.
        if result.is_err() {
            if let Some(publish) = self.publish.take() {
                self.abandon_build(project, publish);
            }
        }
        result
    }

    pub(crate) fn refresh_started(
        &mut self,
        project: &Project,
        verify: Verify,
        progress: &mut dyn FnMut(Step),
    ) -> Result<Refresh, IndexError> {
        let created = std::mem::take(&mut self.created);
        if verify == Verify::Quick && !created && self.watches_unchanged()? {
            return Ok(Refresh {
                files: self.file_count(),
                ..Refresh::default()
            });
        }
        // Refreshes of one index file take turns (`refresh.lock`), so readers that all find
        // the same change do not keep making each other start over. A process without the
        // lock (a foreign writer) may still commit meanwhile: an attempt whose view of the
        // index went stale before it took the write lock starts over (it then finds the work
        // done).
        let _turn = self.writer_turn();
        for _ in 0..8 {
            let version = self.data_version()?;
            // Unchanged manifests and folders list the same files: take the list from the
            // index and only stat them.
            if !created && self.watches_unchanged()? {
                // The common case, checked without building a listing: nothing moved.
                if let Some(files) = self.files_unchanged()? {
                    return Ok(Refresh {
                        files,
                        ..Refresh::default()
                    });
                }
                let listed = self.listed_from_index()?;
                match self.apply(listed, None, Scope::All, version, progress)? {
                    Some(refresh) => return Ok(Refresh { created, ..refresh }),
                    None => continue,
                }
            }
            // Manifests and folders are stamped before they are read: one that changes while
            // it is read shows a new stamp at the next refresh, which lists it again.
            let (listed, manifest_problems, watches) = list(project);
            match self.apply(
                listed,
                Some((manifest_problems, watches)),
                Scope::All,
                version,
                progress,
            )? {
                Some(mut refresh) => {
                    self.publish(project)?;
                    refresh.created = created;
                    return Ok(refresh);
                }
                None => continue,
            }
        }
        Err(IndexError {
            path: self.location.clone(),
            message: "other processes kept changing the index; try again".into(),
            damaged: false,
        })
    }

    /// Waits for this process's turn to refresh the index file (the lock is released when
    /// the file handle is dropped). `None` when there is nothing to share (an index in
    /// memory or still being built under its own lock) or the lock cannot be had: the
    /// refresh then relies on its stale-view check alone.
    pub(crate) fn writer_turn(&self) -> Option<std::fs::File> {
        if self.publish.is_some() || self.unbuilt.is_some() {
            return None;
        }
        turn(self.cache.as_ref()?)
    }

    /// SQLite's counter of commits made by other connections.
    pub(crate) fn data_version(&self) -> Result<i64, IndexError> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Refreshes just these files (paths relative to the root), as a file watcher or a
    /// hook that knows what changed would: each is read again whatever its stamp says (and
    /// parsed when its content changed). A file the index does not know yet, or one that is
    /// gone, makes it a full refresh (the listing changed).
    pub fn refresh_paths(
        &mut self,
        project: &Project,
        files: &[String],
    ) -> Result<Refresh, IndexError> {
        self.start_build(project)?;
        let turn = self.writer_turn();
        for _ in 0..8 {
            // Taken before the files are looked up: a listing another process changes
            // meanwhile makes this attempt start over rather than write a stale entry.
            let version = self.data_version()?;
            let mut listed = Vec::new();
            for rel in files {
                let rel = rel.trim_start_matches("./").to_string();
                let parser: Option<String> = row(
                    &self.conn,
                    "SELECT parser FROM files WHERE path = ?1",
                    [&rel],
                    |r| r.get(0),
                )
                .optional()
                .map_err(|e| self.err(e))?;
                let path = self.root.join(&rel);
                match parser.as_deref().and_then(decode_parser) {
                    Some(parser) if path.exists() => listed.push(Listed {
                        path,
                        rel,
                        parser,
                        known: None,
                    }),
                    _ => {
                        // The full refresh takes its own turn.
                        drop(turn);
                        return self.refresh(project, Verify::Full, &mut |_| {});
                    }
                }
            }
            if let Some(refresh) = self.apply(listed, None, Scope::Named, version, &mut |_| {})? {
                return Ok(refresh);
            }
        }
        Err(IndexError {
            path: self.location.clone(),
            message: "other processes kept changing the index; try again".into(),
            damaged: false,
        })
    }

    /// Re-reads the given files if they changed since they were indexed (or were indexed
    /// too soon after a change to tell). Returns true when what is indexed changed (the
    /// caller assembles again).
    pub fn refresh_files(
        &mut self,
        project: &Project,
        files: &[String],
    ) -> Result<bool, IndexError> {
        let known = self.known_among(files)?;
        let rels: Vec<&str> = files.iter().map(String::as_str).collect();
        let now = stat_all(&project.root, &rels);
        let changed: Vec<String> = files
            .iter()
            .zip(known.into_iter().zip(&now))
            .filter(|(_, (known, now))| !known.as_ref().is_some_and(|k| k.unchanged(now.as_ref())))
            .map(|(rel, _)| rel.clone())
            .collect();
        if changed.is_empty() {
            return Ok(false);
        }
        let refresh = self.refresh_paths(project, &changed)?;
        Ok(refresh.parsed > 0 || refresh.removed > 0 || refresh.created)
    }

    /// Those of `paths` (relative to the root) that are indexed source files.
    pub fn indexed_among(&self, paths: &[String]) -> Result<Vec<String>, IndexError> {
        let mut indexed = Vec::new();
        for rel in paths {
            if self.known(rel)?.is_some() {
                indexed.push(rel.clone());
            }
        }
        Ok(indexed)
    }

    /// What the index knows of each file, in the order given: one query for all of them.
    fn known_among(&self, rels: &[String]) -> Result<Vec<Option<Known>>, IndexError> {
        let list = serde_json::to_string(rels).map_err(|e| IndexError {
            path: self.location.clone(),
            message: format!("cannot list the files to check: {e}"),
            damaged: false,
        })?;
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT path, size, mtime, ctime, ino, dev, racy, problem, parser FROM files
                 WHERE path IN (SELECT value FROM json_each(?1))",
            )
            .map_err(|e| self.err(e))?;
        let found: HashMap<String, Known> = stmt
            .query_map([list], |r| Ok((r.get(0)?, known_row_at(r, 1)?)))
            .map_err(|e| self.err(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.err(e))?;
        Ok(rels.iter().map(|rel| found.get(rel).cloned()).collect())
    }

    /// What the index knows of one file.
    pub(crate) fn known(&self, rel: &str) -> Result<Option<Known>, IndexError> {
        row(
            &self.conn,
            "SELECT size, mtime, ctime, ino, dev, racy, problem, parser FROM files WHERE path = ?1",
            [rel],
            known_row,
        )
        .optional()
        .map_err(|e| self.err(e))
    }

    /// Compares the listed files with the indexed ones and applies the differences. With a
    /// fresh `listing` (the manifests' own problems and the stamped manifests and folders),
    /// it is recorded in the same transaction, so the stamps always describe the listing
    /// they came with.
    pub(crate) fn apply(
        &mut self,
        listed: Vec<Listed>,
        listing: Option<(Vec<Problem>, Vec<FolderStamp>)>,
        scope: Scope,
        version: i64,
        progress: &mut dyn FnMut(Step),
    ) -> Result<Option<Refresh>, IndexError> {
        let location = self.location.clone();
        let e = |x: rusqlite::Error| err(&location, x);
        let mut listed = listed;
        let catalog = self.markdown_catalog(&mut listed, scope)?;
        let (manifest_problems, watches) = listing.unzip();
        let Plan {
            known,
            stats,
            todo,
            hashes,
            removed,
        } = self.plan(&listed, scope)?;
        // Tana exports are read and hashed here, and parsed inside the write transaction,
        // where their nodes stream into the index chunk by chunk.
        let (tana_todo, mut todo): (Vec<usize>, Vec<usize>) = todo
            .into_iter()
            .partition(|&i| listed[i].parser == Parser::Tana);
        let tana_reads: Vec<TanaRead> = tana_todo
            .iter()
            .map(|&at| read_tana(&self.guard, &listed[at], at, &hashes))
            .collect();
        // Read, hash and parse the candidates on all cores, a chunk at a time in path order,
        // while this thread writes the chunks before: on two cores parsing and SQLite inserts
        // overlap instead of running one after the other.
        let root = self.guard.clone();
        todo.sort_by(|&a, &b| listed[a].rel.cmp(&listed[b].rel));
        let places = brief_sources::Places::default();
        let read_one = |at: usize| read_file(&root, &listed[at], at, &hashes, &catalog, &places);
        std::thread::scope(|threads| {
            let (sender, receiver) = std::sync::mpsc::sync_channel::<Vec<Read>>(2);
            let (todo, read_one) = (&todo, &read_one);
            threads.spawn(move || read_chunks(todo, read_one, &sender));
            let mut refresh = Refresh {
                files: listed.len(),
                removed: removed.len(),
                ..Refresh::default()
            };
            let tx = self
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(e)?;
            let now: i64 = tx
                .query_row("PRAGMA data_version", [], |r| r.get(0))
                .map_err(e)?;
            if now != version {
                return Ok(None);
            }
            let changes = Changes {
                listed: &listed,
                stats: &stats,
                todo,
                removed: &removed,
                fresh: known.is_empty(),
            };
            let mode = Mode::begin(&tx, &changes, &tana_reads).map_err(e)?;
            let watch = crate::holders::watch(&tx, mode.bulk).map_err(e)?;
            let guides = Guides::before(&tx, &changes, tana_reads.is_empty()).map_err(e)?;
            for path in &removed {
                remove_file(&tx, path).map_err(e)?;
            }
            if let Some(problems) = &manifest_problems {
                write_listing_problems(&tx, problems).map_err(e)?;
            }
            // Exports first, so links from other sources to Tana nodes resolve below.
            write_tana_reads(&tx, &changes, tana_reads, &mut refresh, progress).map_err(e)?;
            let (touched, done) =
                write_reads(&tx, &changes, receiver, &mut refresh, progress).map_err(e)?;
            // The reader ends early only if it died (a bug): never commit half a refresh.
            if done != todo.len() {
                return Err(IndexError {
                    path: location.clone(),
                    message: format!("reading files stopped after {done} of {}", todo.len()),
                    damaged: false,
                });
            }
            write_links(&tx, &touched, changes.fresh).map_err(e)?;
            if changes.fresh {
                tx.execute_batch(CREATE_SECONDARY).map_err(e)?;
            }
            // What layers propagate, kept for queries (`guidance`): any change may move it.
            if refresh.parsed > 0 || refresh.removed > 0 {
                guides.after(&tx, &touched).map_err(e)?;
            }
            if mode.bulk {
                end_bulk_fts(&tx).map_err(e)?;
            }
            let (files, writes) = write_meta(&tx, &self.root, watches.as_deref()).map_err(e)?;
            crate::holders::after_write(&tx, watch, writes).map_err(e)?;
            tx.commit().map_err(e)?;
            self.checkpoint();
            // Every refresh that writes runs in its turn (or without one, when the lock
            // cannot be had at all).
            self.seal_written(Held::Yes);
            if scope == Scope::All {
                refresh.files = files as usize;
            }
            self.forget();
            self.cache_version.set(None);
            Ok(Some(refresh))
        })
    }
}

/// What one refresh writes: the listing, each file's stamp, the files to read and to remove.
struct Changes<'a> {
    listed: &'a [Listed],
    stats: &'a [Option<Stamp>],
    /// The listed files read again (not Tana exports), in path order.
    todo: &'a [usize],
    removed: &'a [String],
    /// Whether the index was empty: then nothing needs looking up by file or resolving later.
    fresh: bool,
}

/// How the write transaction treats its indexes.
struct Mode {
    /// A bulk load merges the full-text index once at the end, not while inserting.
    bulk: bool,
}

impl Mode {
    /// Drops the secondary indexes into an empty index (cheaper built once at the end than
    /// kept up per insert) and starts a bulk full-text load for a large one.
    fn begin(tx: &Connection, changes: &Changes<'_>, tana: &[TanaRead]) -> rusqlite::Result<Mode> {
        let bulk = changes.todo.len() > 10_000
            || tana
                .iter()
                .any(|read| matches!(&read.text, Ok(Some(t)) if t.len() > 4 << 20));
        if changes.fresh {
            tx.execute_batch(DROP_SECONDARY)?;
        }
        if bulk {
            start_bulk_fts(tx)?;
        }
        Ok(Mode { bulk })
    }
}

/// Which layer guides a refresh rebuilds. A refresh of a few files rebuilds the guides of the
/// layers those files' nodes can move, asked before the writes (old closures) and after (new
/// ones); an export or many files rebuild the whole table.
enum Guides {
    /// The whole table.
    All,
    /// The layers above the changed nodes, and those nodes' shapes before the writes.
    Few {
        moved: BTreeSet<i64>,
        old_shapes: guides::Shapes,
    },
}

impl Guides {
    fn before(
        tx: &Connection,
        changes: &Changes<'_>,
        no_exports: bool,
    ) -> rusqlite::Result<Guides> {
        let few =
            !changes.fresh && no_exports && changes.todo.len() + changes.removed.len() <= FEW_FILES;
        if !few {
            return Ok(Guides::All);
        }
        let mut old_nodes: Vec<i64> = Vec::new();
        let mut of_file = tx.prepare_cached("SELECT ix FROM nodes WHERE file = ?1")?;
        let paths = changes.todo.iter().map(|&i| changes.listed[i].rel.as_str());
        for path in paths.chain(changes.removed.iter().map(|p| p.as_str())) {
            for ix in of_file.query_map([path], |r| r.get(0))? {
                old_nodes.push(ix?);
            }
        }
        drop(of_file);
        // A removed Tana export is one file of a million nodes: rebuild whole.
        if old_nodes.len() > FEW_NODES {
            return Ok(Guides::All);
        }
        Ok(Guides::Few {
            old_shapes: guides::shapes(tx, &old_nodes)?,
            moved: guides::layers_above(tx, &old_nodes)?,
        })
    }

    /// Rebuilds the guides the written nodes may have moved.
    fn after(self, tx: &Connection, touched: &[Written]) -> rusqlite::Result<()> {
        match self {
            Guides::All => guides::rebuild(tx),
            Guides::Few {
                mut moved,
                old_shapes,
            } => {
                let new_nodes: Vec<i64> = touched.iter().map(|w| i64::from(w.ix)).collect();
                // Unchanged shapes (the same nodes, kinds and edges): nothing moved.
                if guides::shapes(tx, &new_nodes)? != old_shapes {
                    moved.extend(guides::layers_above(tx, &new_nodes)?);
                    guides::rebuild_layers(tx, &moved)?;
                }
                Ok(())
            }
        }
    }
}

/// The listing's problems (manifests, folders that cannot be listed) are rewritten every time
/// the sources are listed: they are the problems of paths that are not source files, so a
/// folder readable again loses its warning.
fn write_listing_problems(tx: &Connection, problems: &[Problem]) -> rusqlite::Result<()> {
    run(
        tx,
        "DELETE FROM problems WHERE file NOT IN (SELECT path FROM files)",
        [],
    )?;
    for problem in problems {
        insert_problem(tx, &problem.location.path, problem)?;
    }
    Ok(())
}

/// Writes each Tana export read (its nodes, or its problem) and its file row. An export's
/// problems stay recorded with it; they never force a re-parse (only a changed export is
/// parsed again).
fn write_tana_reads(
    tx: &Connection,
    changes: &Changes<'_>,
    reads: Vec<TanaRead>,
    refresh: &mut Refresh,
    progress: &mut dyn FnMut(Step),
) -> rusqlite::Result<()> {
    for read in reads {
        let file = &changes.listed[read.at];
        let (stamp, racy) = recorded(read.stamp, changes.stats[read.at]);
        match read.text {
            Ok(None) => refresh.unchanged_content += 1,
            Ok(Some(text)) => {
                refresh.parsed += 1;
                refresh.tana_nodes += write_tana(tx, &file.rel, &text, progress)?;
            }
            Err(problem) => {
                refresh.parsed += 1;
                remove_file_nodes_bulk(tx, &file.rel)?;
                run(tx, "DELETE FROM problems WHERE file = ?1", [&file.rel])?;
                insert_problem(tx, &file.rel, &problem)?;
            }
        }
        write_file_row(tx, file, (stamp, racy), &read.hash, false)?;
    }
    Ok(())
}

/// A file's row: its stamp (and whether the stamp is racy), its content hash, whether it
/// gave a problem, and its parser.
fn write_file_row(
    tx: &Connection,
    file: &Listed,
    (stamp, racy): (Stamp, bool),
    hash: &[u8],
    problem: bool,
) -> rusqlite::Result<()> {
    let mut insert = tx.prepare_cached(
        "INSERT OR REPLACE INTO files(path, size, mtime, ctime, ino, dev, racy, hash,
                                      problem, parser)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    insert.execute(params![
        file.rel,
        stamp.size,
        stamp.mtime,
        stamp.ctime,
        stamp.inode,
        stamp.device,
        racy as i64,
        hash,
        problem as i64,
        encode_parser(&file.parser)
    ])?;
    Ok(())
}

/// Writes the files the reader thread sends, in path order (the first path wins a duplicate
/// id): their nodes or problem, and their file rows. Returns the nodes written and how many
/// files arrived.
fn write_reads(
    tx: &Connection,
    changes: &Changes<'_>,
    receiver: std::sync::mpsc::Receiver<Vec<Read>>,
    refresh: &mut Refresh,
    progress: &mut dyn FnMut(Step),
) -> rusqlite::Result<(Vec<Written>, usize)> {
    let total = changes.todo.len();
    let mut touched: Vec<Written> = Vec::new();
    let mut done = 0;
    for read in receiver.iter().flat_map(|reads| {
        done += reads.len();
        progress(Step {
            done,
            total,
            unit: Unit::Files,
        });
        reads
    }) {
        let file = &changes.listed[read.at];
        let (stamp, racy) = recorded(read.stamp, changes.stats[read.at]);
        let problem = match read.parsed {
            None => {
                refresh.unchanged_content += 1;
                false
            }
            Some(result) => {
                refresh.parsed += 1;
                write_parsed(tx, &file.rel, result, changes.fresh, &mut touched)?
            }
        };
        write_file_row(tx, file, (stamp, racy), &read.hash, problem)?;
    }
    Ok((touched, done))
}

/// Writes one parsed file's nodes (or its problem) in place of its old ones; whether a
/// problem is recorded for it.
fn write_parsed(
    tx: &Connection,
    rel: &str,
    result: Result<Vec<Prepared>, Problem>,
    fresh: bool,
    touched: &mut Vec<Written>,
) -> rusqlite::Result<bool> {
    // Into an empty index only manifests have problems recorded.
    if !fresh {
        run(tx, "DELETE FROM problems WHERE file = ?1", [rel])?;
    }
    let mut problem = false;
    match result {
        Ok(prepared) if prepared.is_empty() => remove_file_nodes(tx, rel)?,
        Ok(prepared) => {
            for written in upsert_nodes(tx, rel, prepared, fresh)? {
                match written {
                    Ok(written) => touched.push(written),
                    Err(dup) => {
                        problem = true;
                        insert_problem(tx, rel, &dup)?;
                    }
                }
            }
        }
        Err(p) => {
            problem = true;
            remove_file_nodes(tx, rel)?;
            insert_problem(tx, rel, &p)?;
        }
    }
    Ok(problem)
}

/// Records the number of indexed files and nodes, a new write version and, with a fresh
/// listing, the stamps of the manifests and folders it came from; returns the number of files
/// and the version.
fn write_meta(
    tx: &Connection,
    root: &Path,
    watches: Option<&[FolderStamp]>,
) -> rusqlite::Result<(i64, i64)> {
    let files: i64 = tx.query_row("SELECT count(*) FROM files", [], |r| r.get(0))?;
    let nodes: i64 = tx.query_row("SELECT count(*) FROM nodes", [], |r| r.get(0))?;
    // Every write starts a new version of what the search table holds: word counts kept
    // for an older one are never read again (see `lexicon`), so they go.
    let writes: i64 = tx.query_row(
        "SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'writes'), 0) + 1",
        [],
        |r| r.get(0),
    )?;
    crate::lexicon::forget_word_counts(tx)?;
    crate::lexicon::keep_node_total(tx, nodes)?;
    crate::lexicon::bound_token_counts(tx, writes, nodes)?;
    for (key, value) in [("files", files), ("writes", writes)] {
        run(
            tx,
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)",
            [key, &value.to_string()],
        )?;
    }
    if let Some(watches) = watches {
        run(tx, "DELETE FROM watches", [])?;
        for (path, stamp) in watches {
            let Some((stamp, taken)) = stamp else {
                continue;
            };
            run(
                tx,
                "INSERT OR REPLACE INTO watches(path, size, mtime, ctime, ino, dev, racy)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    rel_path(root, path),
                    stamp.size,
                    stamp.mtime,
                    stamp.ctime,
                    stamp.inode,
                    stamp.device,
                    stamp.racy(*taken) as i64
                ],
            )?;
        }
    }
    Ok((files, writes))
}
