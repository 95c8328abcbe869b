//! The engine: a project, its index kept fresh, and the requests the CLI and the MCP server
//! make of it. Both front ends hold an `Engine` and print what it returns, byte for byte.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};

use crate::context::{
    assemble_from, show, ContextError, ContextOutput, ContextRequest, Found, Start,
};
use crate::files::{Entry, PathTarget};
use crate::find::{choose, find, fuse, Match, DEFAULT_SEEDS, SIMILAR_POOL};
use crate::named::named_rules;
use crate::render::Format;
use crate::resolve::UnknownTarget;
use crate::resolve::{
    has_id_shape, id_shapes, looks_like_an_id, resolve, Confidence, Scored, Verdict, Weakness,
};
use crate::semantic::{self, Embedder, Embeddings, Semantic};
use crate::usage::{FrontEnd, Param, Said};
use brief_count::Encoding;
use brief_index::{
    check_query, Embedded, Hit, Index, IndexError, QueryError, Refresh, Until, Verify,
    FULL_CHECK_LIMIT,
};
use brief_model::{Detail, GraphView, NodeIx, StoreError};
use brief_project::{Project, ProjectError};
use brief_sources::{Problem, Severity};

/// Why a request failed, with the exit code the CLI maps it to.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The project could not be found or its `brief.toml` read.
    #[error(transparent)]
    Project(#[from] ProjectError),
    /// The project names no source of nodes (its root, as shown).
    #[error("{0} has no sources: add specgraph/graph.json, a .contextia/ tree or a .brief/ folder of Markdown artifacts, or name the sources in brief.toml (specgraph = \"specgraph\", contextia = \".contextia\", artifacts = [\"docs/decisions\"], tana = \"export.json\", markdown = true); `brief init` proposes one")]
    NoSources(String),
    /// The index could not be opened or refreshed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// The index could not be read mid-request; nothing was answered.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Files that could not be loaded; nothing was assembled.
    #[error("{} file problem(s); fix them first (nothing was assembled)", .0.len())]
    Load(Vec<Problem>),
    /// The context could not be assembled.
    #[error(transparent)]
    Context(#[from] ContextError),
    /// The target is no node and matched nothing.
    #[error(transparent)]
    Unknown(#[from] UnknownTarget),
    /// A query (or a target) over the input limits; nothing was searched.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// A request that cannot be answered as asked (an empty target, `--seeds` with an id,
    /// a kind no node has): the user must change it.
    #[error("{0}")]
    Usage(Said),
    /// An old revision could not be read (`diff`, `impact --since`).
    #[error(transparent)]
    Revision(#[from] crate::revision::RevisionError),
    /// The caller gave up on the request (a client's cancellation, a time limit); nothing
    /// was answered.
    #[error("the request was cancelled before it finished")]
    Cancelled,
}

impl EngineError {
    /// Whether the index was found damaged (the engine then deletes, rebuilds and asks
    /// again), wherever in the request that was noticed.
    pub fn is_damage(&self) -> bool {
        match self {
            EngineError::Index(e) => e.is_corruption(),
            EngineError::Store(e) | EngineError::Context(ContextError::Store(e)) => e.is_damage(),
            _ => false,
        }
    }

    /// The exit code of `docs/cli.md`: 1 nothing found, 2 bad usage or unreadable input.
    pub fn exit_code(&self) -> u8 {
        match self {
            EngineError::Context(ContextError::UnknownTarget(_)) | EngineError::Unknown(_) => 1,
            _ => 2,
        }
    }

    /// The lines a user sees for this error — `path:line:col: message` for each file problem
    /// (paths as given by `root`), then one `error: …` line that says what to do. The CLI
    /// prints them on stderr and the MCP server returns them as the tool error.
    pub fn describe(&self, root: &Path) -> Vec<String> {
        self.describe_to(root, FrontEnd::Cli)
    }

    /// [`EngineError::describe`], naming parameters as `front_end` does.
    pub fn describe_to(&self, root: &Path, front_end: FrontEnd) -> Vec<String> {
        match self {
            EngineError::Load(problems) => {
                let count = problems.len();
                let mut lines: Vec<String> = problems
                    .iter()
                    .map(|p| format!("{}: {}", located(root, &p.location.to_string()), p.message))
                    .collect();
                lines.push(format!(
                    "error: {count} file problem{} in {}; fix {} first (nothing was assembled)",
                    if count == 1 { "" } else { "s" },
                    root.display(),
                    if count == 1 { "it" } else { "them" }
                ));
                lines
            }
            EngineError::Context(ContextError::TooSmall(e)) => {
                vec![format!(
                    "error: {e} (use {} {})",
                    Param::Budget.named(front_end),
                    e.minimum
                )]
            }
            EngineError::Usage(said) => vec![format!("error: {}", said.to(front_end))],
            EngineError::Context(ContextError::Limit(limit)) => {
                vec![format!("error: {}", limit.said().to(front_end))]
            }
            other => vec![format!("error: {other}")],
        }
    }
}

/// A root-relative `path:line:col` as the user can open it from where they ran brief.
pub fn located(root: &Path, location: &str) -> String {
    if root == Path::new(".") {
        location.to_string()
    } else {
        format!(
            "{}/{location}",
            root.display().to_string().trim_end_matches('/')
        )
    }
}

/// Asks an [`Engine`] to give up on the request it runs: checked between the stages of a
/// request (before and after its refresh, between assemblies), so a request stops at the
/// next boundary with [`EngineError::Cancelled`]. Cheap to clone; every clone is the same flag.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<std::sync::atomic::AtomicBool>);

impl Cancel {
    /// Asks the request to stop.
    pub fn cancel(&self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether [`Cancel::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Tells an [`Engine`] that files may have changed. A long-lived caller with a file watcher
/// (`brief serve`, `brief watch`) marks it on every change, and the engine then refreshes the
/// index only before the next request after a mark instead of checking every file on every
/// request.
#[derive(Debug, Clone)]
pub struct ChangeSignal(Arc<(Mutex<Option<Pending>>, Condvar)>);

/// The changes marked since the last refresh.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Pending {
    /// Check every file, whatever the project's size: events were lost, named no path under
    /// the root, or named more files than [`MAX_NAMED_CHANGES`].
    pub lost: bool,
    /// The files the watcher named (root-relative); `None` when a mark named none.
    pub paths: Option<BTreeSet<String>>,
}

/// The most changed paths a [`ChangeSignal`] remembers; more mean "check every file".
pub const MAX_NAMED_CHANGES: usize = 4096;

impl Default for ChangeSignal {
    /// A new signal starts marked: nothing is known about the files yet.
    fn default() -> ChangeSignal {
        let signal = ChangeSignal(Arc::default());
        signal.mark();
        signal
    }
}

impl ChangeSignal {
    fn pending(&self) -> std::sync::MutexGuard<'_, Option<Pending>> {
        self.0 .0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn update(&self, f: impl FnOnce(&mut Pending)) {
        let mut slot = self.pending();
        // The first mark since the last refresh starts an empty list of named files.
        let pending = slot.get_or_insert_with(|| Pending {
            lost: false,
            paths: Some(BTreeSet::new()),
        });
        f(pending);
        if pending
            .paths
            .as_ref()
            .is_some_and(|p| p.len() > MAX_NAMED_CHANGES)
        {
            pending.paths = None;
            pending.lost = true;
        }
        self.0 .1.notify_all();
    }

    /// Something under the root may have changed; a request checks the files as it would
    /// without a watcher.
    pub fn mark(&self) {
        self.update(|p| p.paths = None);
    }

    /// These files (root-relative) changed: created, written, removed or renamed.
    pub fn mark_paths(&self, paths: impl IntoIterator<Item = String>) {
        self.update(|p| {
            if let Some(known) = &mut p.paths {
                known.extend(paths);
            }
        });
    }

    /// Changes may have been missed (the watcher's queue overflowed, it just started, or an
    /// event named no path under the root): check every file.
    pub fn mark_lost(&self) {
        self.update(|p| {
            p.paths = None;
            p.lost = true;
        });
    }

    /// Marks again what a failed refresh took: nothing it named is forgotten.
    pub fn restore(&self, taken: Pending) {
        self.update(|p| {
            p.lost |= taken.lost;
            match (&mut p.paths, taken.paths) {
                (Some(known), Some(taken)) => known.extend(taken),
                (paths, _) => *paths = None,
            }
        });
    }

    /// Waits up to `timeout` for a mark; whether there is one.
    pub fn wait(&self, timeout: std::time::Duration) -> bool {
        let slot = self.pending();
        if slot.is_some() {
            return true;
        }
        let (slot, _) = self
            .0
             .1
            .wait_timeout(slot, timeout)
            .unwrap_or_else(|p| p.into_inner());
        slot.is_some()
    }

    /// What changed since the last call (`None`: nothing); clears the mark.
    pub fn take(&self) -> Option<Pending> {
        self.pending().take()
    }
}

/// What `brief index FILE…` named: root-relative paths, and the ones that do not exist.
#[derive(Debug, Default)]
pub struct NamedPaths {
    /// The named files that exist, root-relative.
    pub files: Vec<String>,
    /// The named paths that do not exist, as given.
    pub missing: Vec<String>,
}

/// A relative path with `.` and `..` resolved lexically, as a `/`-separated string; `None`
/// when it climbs out of where it starts or is empty.
fn beneath(path: &Path) -> Option<String> {
    use std::path::Component;
    let mut parts: Vec<String> = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?.to_string()),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// How many search hits an unknown target's error names.
const HITS_NAMED: usize = 3;

/// The largest search limit taken as given: more hits than any index holds, and far from
/// where SQLite's signed `LIMIT` would wrap (a limit of 2^64−1 once asked for none).
pub(crate) const MAX_SEARCH_LIMIT: usize = u32::MAX as usize;

/// The names of a folder's own index page, in the order one is taken.
const INDEX_PAGES: [&str; 8] = [
    "README.md",
    "index.md",
    "_index.md",
    "README.adoc",
    "index.adoc",
    "README.rst",
    "index.rst",
    "index.mdx",
];

/// How the index was made current for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Current {
    /// Not yet: the request refreshes it.
    Unknown,
    /// This process refreshed it.
    Refreshed,
    /// A file watcher vouched that it holds every change made before the request.
    Vouched,
}

/// What a target of a page and an anchor names ([`Engine::page_part`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PagePart {
    /// What the target names: the page's own section with that anchor, or the page for an
    /// empty anchor (`page.md#`).
    Named(NodeIx),
    /// The page: it has no section of its own with that anchor.
    Page(NodeIx),
}

impl PagePart {
    fn node(self) -> NodeIx {
        match self {
            PagePart::Named(ix) | PagePart::Page(ix) => ix,
        }
    }
}

/// A project with its index.
pub struct Engine {
    /// The project the engine serves (its root, sources and settings).
    pub project: Project,
    index: Index,
    /// When set, requests refresh only after a change was signalled.
    changes: Option<ChangeSignal>,
    /// Whether a request first asks a file watcher to vouch for the index (`brief watch`).
    consult_watcher: bool,
    /// Why a watcher that exists did not vouch, said once as a notice.
    watcher_declined: Option<String>,
    /// How the index was made current for the next request already ([`Engine::refresh_ahead`]).
    ahead: Current,
    /// Up to this many files a refresh stats every file ([`FULL_CHECK_LIMIT`]).
    full_check_limit: usize,
    /// The current request's cancellation, if its caller can cancel it.
    cancel: Option<Cancel>,
    /// The embeddings endpoint and its client (`None`: embeddings are off).
    embedder: Option<Embedder>,
}

impl Engine {
    /// Opens the project at `root` (or discovered from `cwd`) and its index.
    pub fn open(root: Option<&Path>, cwd: &Path) -> Result<Engine, EngineError> {
        let project = Project::open(root, cwd)?;
        if project.sources.is_empty() {
            return Err(EngineError::NoSources(project.root.display().to_string()));
        }
        let index = Index::open(&project)?;
        Ok(Engine {
            index,
            changes: None,
            consult_watcher: false,
            watcher_declined: None,
            ahead: Current::Unknown,
            full_check_limit: FULL_CHECK_LIMIT,
            cancel: None,
            embedder: project.embeddings.as_ref().map(Embedder::new),
            project,
        })
    }

    /// The cancellation the next requests check between their stages (`None`: they run to
    /// the end). A server sets one per request.
    pub fn set_cancel(&mut self, cancel: Option<Cancel>) {
        self.cancel = cancel;
    }

    /// Turns embeddings off for this engine whatever the project configures: its contexts are
    /// made from the graph and words alone (an evaluation compares both on one project).
    pub fn embeddings_off(&mut self) {
        self.embedder = None;
    }

    /// Fails with [`EngineError::Cancelled`] once the request was cancelled.
    fn go_on(&self) -> Result<(), EngineError> {
        match &self.cancel {
            Some(cancel) if cancel.is_cancelled() => Err(EngineError::Cancelled),
            _ => Ok(()),
        }
    }

    /// The index (for search and statistics).
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// One line per thing the user should know about this run that is not an error (the
    /// index kept in memory because `.brief/cache` cannot be written, or is a link).
    pub fn notices(&self) -> Vec<String> {
        let declined = self.watcher_declined.as_ref().map(|why| {
            format!("the file watcher of this project did not vouch for the index, so the files were checked instead: {why}")
        });
        self.index
            .notice()
            .map(str::to_string)
            .into_iter()
            .chain(declined)
            .collect()
    }

    /// Lowers the number of files up to which a refresh stats every file (tests of the
    /// large-project path on small projects).
    #[doc(hidden)]
    pub fn set_full_check_limit(&mut self, files: usize) {
        self.full_check_limit = files;
    }

    /// Brings the index up to date. `None` checks every file on projects of up to
    /// [`FULL_CHECK_LIMIT`] files and only folders and manifests above that.
    pub fn refresh(
        &mut self,
        verify: Option<Verify>,
        progress: &mut dyn FnMut(brief_index::Step),
    ) -> Result<Refresh, EngineError> {
        match self.refresh_once(verify, progress) {
            Err(EngineError::Index(e)) if e.is_corruption() => {
                self.index.rebuild(&self.project)?;
                self.refresh_once(verify, progress)
            }
            other => other,
        }
    }

    fn refresh_once(
        &mut self,
        verify: Option<Verify>,
        progress: &mut dyn FnMut(brief_index::Step),
    ) -> Result<Refresh, EngineError> {
        let verify = verify.unwrap_or(if self.index.file_count() <= self.full_check_limit {
            Verify::Full
        } else {
            Verify::Quick
        });
        Ok(self.index.refresh(&self.project, verify, progress)?)
    }

    /// From now on, refresh before a request only when `signal` was marked since the last
    /// refresh (the caller watches the files). Without a signal every request checks them.
    pub fn refresh_on(&mut self, signal: ChangeSignal) {
        self.changes = Some(signal);
    }

    /// From now on, a request first asks the project's file watcher (`brief watch`, `brief
    /// serve`; see `watched.rs`) to vouch for the index, and checks the files itself
    /// only when no watcher does. For processes without a watcher of their own.
    pub fn consult_watcher(&mut self) {
        self.consult_watcher = true;
    }

    /// Whether a watcher vouched for the index just now.
    fn vouched_for(&mut self) -> bool {
        if !self.consult_watcher || self.changes.is_some() || self.index.is_unbuilt() {
            return false;
        }
        let Some(cache) = self.index.cache_dir() else {
            return false;
        };
        match crate::watched::ask(&cache.real_path(""), crate::watched::ANSWER_WAIT) {
            // The watcher vouched for the file now at `.brief/cache/index.db`: only good
            // for this request if that is still the file this engine reads.
            crate::watched::Answer::Fresh => self.index.is_the_index_file(),
            crate::watched::Answer::Absent => false,
            crate::watched::Answer::Declined(why) => {
                self.watcher_declined = Some(why);
                false
            }
        }
    }

    /// The refresh a request starts with: always, only after a signalled change, or never
    /// when a file watcher vouches for the index (or [`Engine::refresh_ahead`] just ran).
    fn refresh_for_request(&mut self) -> Result<Current, EngineError> {
        self.go_on()?;
        let ahead = std::mem::replace(&mut self.ahead, Current::Unknown);
        let current = match ahead {
            // An index found damaged and rebuilt since the refresh ahead is empty again.
            Current::Refreshed | Current::Vouched if !self.index.is_unbuilt() => ahead,
            _ if self.vouched_for() => Current::Vouched,
            _ => {
                self.refresh_pending()?;
                Current::Refreshed
            }
        };
        self.go_on()?;
        Ok(current)
    }

    /// Runs the refresh the next request would start with, reporting its `progress`; that
    /// request then starts without one. For a process of one command, so the first request
    /// in a large project shows that it is indexing it. A failed refresh is left to the
    /// request, which meets it again and reports it its own way.
    pub fn refresh_ahead(&mut self, progress: &mut dyn FnMut(brief_index::Step)) {
        self.ahead = if self.vouched_for() {
            Current::Vouched
        } else if self.refresh_pending_with(progress).is_ok() {
            Current::Refreshed
        } else {
            Current::Unknown
        };
    }

    /// Brings the index up to date with what the change signal marked (everything, without
    /// a signal); `None` when nothing was marked. What a watcher runs after changes.
    pub fn refresh_pending(&mut self) -> Result<Option<Refresh>, EngineError> {
        self.refresh_pending_with(&mut |_| {})
    }

    fn refresh_pending_with(
        &mut self,
        progress: &mut dyn FnMut(brief_index::Step),
    ) -> Result<Option<Refresh>, EngineError> {
        let signal = self.changes.clone();
        let pending = match &signal {
            // An index that is not built yet (a rebuild after damage) is refreshed whatever
            // the signal says: no change since the last refresh does not make it current.
            Some(signal) => match signal.take() {
                Some(pending) => pending,
                None if self.index.is_unbuilt() => Pending::default(),
                None => return Ok(None),
            },
            None => Pending::default(),
        };
        let result = self.refresh_marked(&pending, progress);
        if result.is_err() {
            // Try again on the next request rather than trusting a half-done refresh.
            if let Some(signal) = &signal {
                signal.restore(pending);
            }
        }
        result.map(Some)
    }

    /// A refresh after `pending` changes. Lost changes get a check of every file. Named ones
    /// too up to the full-check limit; above it only folders and manifests are stat'ed
    /// (which catch added, removed and renamed files) and the named files are read by name,
    /// so an edit in place is seen at any size. Unnamed changes get the usual refresh.
    fn refresh_marked(
        &mut self,
        pending: &Pending,
        progress: &mut dyn FnMut(brief_index::Step),
    ) -> Result<Refresh, EngineError> {
        let large = self.index.file_count() > self.full_check_limit;
        // Up to the limit the usual refresh checks every file anyway.
        let named = pending.paths.as_ref().filter(|_| !pending.lost && large);
        let verify = if pending.lost {
            Some(Verify::Full)
        } else if named.is_some() {
            Some(Verify::Quick)
        } else {
            None
        };
        let refresh = self.refresh(verify, progress)?;
        let Some(paths) = named else {
            return Ok(refresh);
        };
        let paths: Vec<String> = paths.iter().cloned().collect();
        // After the listing's refresh: a removed file has left the index by now.
        let named = self.index.indexed_among(&paths)?;
        if named.is_empty() {
            return Ok(refresh);
        }
        let by_name = self.refresh_paths(&named)?;
        Ok(Refresh {
            parsed: refresh.parsed + by_name.parsed,
            unchanged_content: refresh.unchanged_content + by_name.unchanged_content,
            removed: refresh.removed + by_name.removed,
            ..refresh
        })
    }

    /// Refreshes just these files (relative to the root), e.g. from a file watcher.
    pub fn refresh_paths(&mut self, files: &[String]) -> Result<Refresh, EngineError> {
        Ok(self.index.refresh_paths(&self.project, files)?)
    }

    /// The files `brief index FILE…` names, relative to the root, and those of them that do
    /// not exist; a path that leaves the root (absolute elsewhere, or through `..`) is a
    /// usage error, since nothing outside the root is ever read.
    pub fn named_paths(&self, files: &[String]) -> Result<NamedPaths, EngineError> {
        let root = &self.project.root;
        let canonical_root = root.canonicalize().unwrap_or_else(|_| root.clone());
        let mut named = NamedPaths::default();
        for file in files {
            let given = Path::new(file);
            let relative = if given.is_absolute() {
                given
                    .strip_prefix(root)
                    .or_else(|_| given.strip_prefix(&canonical_root))
                    .ok()
                    .map(Path::to_path_buf)
            } else {
                Some(given.to_path_buf())
            };
            let inside = relative.as_deref().and_then(beneath);
            let Some(rel) = inside else {
                return Err(EngineError::Usage(
                    format!(
                    "{file} lies outside the project root {}; brief indexes only files beneath it",
                    root.display()
                )
                    .into(),
                ));
            };
            if root.join(&rel).is_file() {
                named.files.push(rel);
            } else {
                named.missing.push(file.clone());
                // Still named: a file that was indexed and is gone now leaves the index.
                named.files.push(rel);
            }
        }
        Ok(named)
    }

    /// Fails with every load error, if there are any (`path:line:col` per problem in
    /// [`EngineError::describe`]); what every command that reads the graph checks first.
    pub fn ensure_loadable(&self) -> Result<(), EngineError> {
        let errors: Vec<Problem> = self
            .index
            .problems()?
            .into_iter()
            .filter(|p| p.severity == Severity::Error)
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(EngineError::Load(errors))
        }
    }

    /// Runs `op`; when the index turns out to be damaged, deletes and rebuilds it, then runs
    /// `op` once more.
    fn healing<T>(
        &mut self,
        op: impl Fn(&mut Engine) -> Result<T, EngineError>,
    ) -> Result<T, EngineError> {
        self.go_on()?;
        // Changed by something other than brief since it was opened (a long-lived engine):
        // opened again, which verifies the whole file before it is read.
        if !self.index.is_sealed() {
            self.index = Index::open(&self.project)?;
        }
        match op(self) {
            Err(e) if e.is_damage() => {
                self.index.rebuild(&self.project)?;
                op(self)
            }
            other => other,
        }
    }

    /// Assembles a context on a fresh index.
    pub fn context(&mut self, request: &ContextRequest) -> Result<ContextOutput, EngineError> {
        // A target is an id or a query: either way one over the limits is refused first.
        check_query(&request.target)?;
        if request.target.trim().is_empty() && request.changed.is_none() {
            return Err(EngineError::Usage(
                "the target is empty: name a node id, a path, or words to search for".into(),
            ));
        }
        if request.seeds == Some(0) {
            return Err(EngineError::Usage(Said::new().param(Param::Seeds).text(
                " must be at least 1 (how many search hits start the context)",
            )));
        }
        let out = self.healing(|engine| engine.context_once(request));
        if let Some(embedder) = &self.embedder {
            embedder.end();
        }
        out
    }

    fn context_once(&mut self, request: &ContextRequest) -> Result<ContextOutput, EngineError> {
        let mut out = self.context_read(request)?;
        out.notes
            .extend(self.embeddings_notes().into_iter().map(Said::from));
        if let Some(note) = self.page_part_note(&request.target)? {
            out.notes.push(note);
        }
        if request.seeds.is_some() && out.confidence == Confidence::Exact {
            out.notes
                .push(Said::new().text("note: ").param(Param::Seeds).text(format!(
                " applies to targets in words; `{}` is an id, so its context starts from it alone",
                request.target.trim()
            )));
        }
        Ok(out)
    }

    fn context_read(&mut self, request: &ContextRequest) -> Result<ContextOutput, EngineError> {
        let current = self.refresh_for_request()?;
        self.prepare_semantic(&request.target)?;
        for _ in 0..3 {
            self.go_on()?;
            self.ensure_loadable()?;
            let out = self.index.reading(|| {
                let mut start = self.start(request)?;
                start.embeddings = self.embeddings_state();
                Ok::<_, EngineError>(assemble_from(
                    &self.index,
                    &self.project.defaults,
                    request,
                    &start,
                )?)
            })??;
            // On large projects only folders were checked: make sure the files this context
            // is made of are the ones indexed, or refresh and assemble again. A watcher's word
            // covers them already: it heard of every change made before the request.
            if current == Current::Vouched
                || !self.index.refresh_files(&self.project, &out.files)?
            {
                return Ok(out);
            }
        }
        // Files kept changing under three assemblies: the last one, from one snapshot.
        self.ensure_loadable()?;
        self.index.reading(|| {
            let mut start = self.start(request)?;
            start.embeddings = self.embeddings_state();
            Ok(assemble_from(
                &self.index,
                &self.project.defaults,
                request,
                &start,
            )?)
        })?
    }

    /// Where a context starts: the node with the target's id or, when there is none, the
    /// nodes its words match best (`find`). A target is an id when it equals one in any case
    /// or reads as one ([`reads_as_id`]); anything else is words. An id-shaped target that
    /// is no id, and words that match nothing well, are errors with suggestions.
    fn start(&self, request: &ContextRequest) -> Result<Start, EngineError> {
        if let Some(rev) = &request.changed {
            return self.changed_start(rev);
        }
        let target = request.target.trim();
        if let Some(ix) = self.index.lookup_any_case(target)? {
            return Ok(Start {
                seeds: vec![ix],
                ..Start::default()
            });
        }
        // A bare local id of a spec-driven source (`T014`): the current feature's.
        if let Some(ix) = self.scoped_target(target)? {
            return Ok(Start {
                seeds: vec![ix],
                ..Start::default()
            });
        }
        // A path (`src/billing/invoice.ts`, existing or not) starts from what governs the file.
        if let Some(start) = self.file_start(request)? {
            return Ok(start);
        }
        if let Some(part) = self.page_part(target)? {
            return Ok(Start {
                seeds: vec![part.node()],
                ..Start::default()
            });
        }
        // Tana ids are opaque (`kHc9_xN2pQ`) and Tana users ask by topic: with a Tana source
        // any target that is not an id is searched for, whatever its shape.
        let tana = self
            .project
            .sources
            .iter()
            .any(|s| matches!(s, brief_project::Source::Tana { .. }));
        if !tana && self.reads_as_id(target)? {
            return Err(self.unknown_id(target)?);
        }
        match find(&self.index, target, 0)? {
            Verdict::Nothing(weakness) => Err(self.no_match(target, weakness)?),
            Verdict::Found { hits, confidence } => {
                let (hits, similarity) = self.with_meaning(target, hits)?;
                let cap = request
                    .seeds
                    .or(self.project.defaults.seeds)
                    .unwrap_or(DEFAULT_SEEDS);
                let chosen = choose(&self.index, &hits, confidence, cap)?;
                let mut start = start_of(request, &hits, chosen);
                start.similarity = similarity;
                self.name_rules(target, &mut start)?;
                Ok(start)
            }
        }
    }

    /// The rules a target in words names by their folder ([`named_rules`]) join the start
    /// as hard constraints, each as relevant as the best hit, and leave its related
    /// material.
    fn name_rules(&self, target: &str, start: &mut Start) -> Result<(), EngineError> {
        let taken: BTreeSet<NodeIx> = start
            .seeds
            .iter()
            .chain(start.rules.iter().map(|(node, _)| node))
            .copied()
            .collect();
        let named = named_rules(&self.index, target, &start.seeds, &taken, &start.relevance)?;
        start
            .related
            .retain(|(node, _)| !named.iter().any(|rule| rule.node == *node));
        // A rule the task names is as relevant to it as the best hit (the start may be a
        // part of it, with a lower share): among the hard constraints it comes before a rule
        // that merely shares a word or two with the task.
        for rule in &named {
            start.relevance.insert(rule.node, 1.0);
        }
        start.named = named;
        Ok(())
    }

    /// The hits of a target in words fused with the query's similarity to the nodes
    /// ([`fuse`]), and each similar node's cosine for the audit, when embeddings are on and
    /// usable; the hits as they are otherwise.
    fn with_meaning(
        &self,
        target: &str,
        hits: Vec<Scored>,
    ) -> Result<(Vec<Scored>, HashMap<NodeIx, f64>), EngineError> {
        match self.similar(target, SIMILAR_POOL)? {
            Semantic::Hits(similar) => {
                let script =
                    crate::resolve::Script::of(target).unwrap_or(crate::resolve::Script::Latin);
                let cosines = similar
                    .hits
                    .iter()
                    .map(|&(node, cosine)| {
                        (node, (f64::from(cosine) * 10_000.0).round() / 10_000.0)
                    })
                    .collect();
                Ok((fuse(&self.index, hits, &similar.hits, script)?, cosines))
            }
            Semantic::Off | Semantic::Unavailable(_) => Ok((hits, HashMap::new())),
        }
    }

    /// Whether a target that is no node's id reads as one: a single token in the shape of
    /// this project's ids (`CHECKOUT-99`, shapes learned from the ids present), or in upper
    /// case with separators (`NO-SUCH-NODE-XYZ`). Words with spaces never do.
    fn reads_as_id(&self, target: &str) -> Result<bool, EngineError> {
        if target.contains(char::is_whitespace) {
            return Ok(false);
        }
        if looks_like_an_id(target) {
            return Ok(true);
        }
        if !target.contains(['-', '_', '.']) && !target.contains(|c: char| c.is_ascii_digit()) {
            return Ok(false);
        }
        Ok(has_id_shape(target, &id_shapes(&self.index.all_ids()?)))
    }

    /// A part of a page named by the page's id or path and an anchor (`AGENTS.md#testing`,
    /// `src/adr/0044-….md#decision`, as links write them): the section of the page's own
    /// with that anchor, else the page, for the anchor is a heading inside one of its parts
    /// or is stale (a browser opens the page then too). `None` when the part before the `#`
    /// names no page.
    fn page_part(&self, target: &str) -> Result<Option<PagePart>, EngineError> {
        let Some((page, anchor)) = target.split_once('#') else {
            return Ok(None);
        };
        if page.is_empty() || target.contains(char::is_whitespace) {
            return Ok(None);
        }
        let page = match self.index.lookup_any_case(page)? {
            Some(ix) => Some(ix),
            None => match crate::files::path_target(&self.project.guard, page) {
                Some(path) => self.index.node_of_file(&path.rel)?,
                None => None,
            },
        };
        let Some(page) = page else {
            return Ok(None);
        };
        if anchor.is_empty() {
            return Ok(Some(PagePart::Named(page)));
        }
        let section = format!("{}#{anchor}", self.index.id_of(page)?);
        Ok(Some(match self.index.lookup_any_case(&section)? {
            Some(ix) => PagePart::Named(ix),
            None => PagePart::Page(page),
        }))
    }

    /// The note for a target of a page and an anchor that no heading of the page has (an
    /// anchor that is gone): what `context` and `show` say on standard error, since they read
    /// the whole page instead. `None` for any other target.
    pub fn page_part_note(&self, target: &str) -> Result<Option<Said>, EngineError> {
        let target = target.trim();
        // A target with no `#` is answered without a query: this runs after every context.
        let Some(PagePart::Page(page)) = self.page_part(target)? else {
            return Ok(None);
        };
        if self.index.lookup_any_case(target)?.is_some() {
            return Ok(None);
        }
        let anchor = target.split_once('#').map_or("", |(_, a)| a);
        let id = self.index.id_of(page)?;
        if self.page_has_heading(&id, page, anchor)? {
            return Ok(None);
        }
        Ok(Some(Said::from(format!(
            "note: {id} has no heading `#{anchor}`; the context starts from the whole page"
        ))))
    }

    /// Whether a heading of the page `id` (`page`), in its own text or a part's, is at
    /// `anchor` ([`crate::render::has_heading_at`]): a link to it lands on the page or that
    /// part.
    fn page_has_heading(&self, id: &str, page: NodeIx, anchor: &str) -> Result<bool, EngineError> {
        let prefix = format!("{id}#");
        let mut nodes = vec![page];
        for part in self
            .index
            .all_ids()?
            .iter()
            .filter(|p| p.starts_with(&prefix))
        {
            nodes.extend(self.index.lookup(part)?);
        }
        let store = brief_model::Corpus::store(&self.index, &nodes)?;
        Ok(nodes.iter().any(|&ix| {
            store
                .node(ix)
                .artifact()
                .is_some_and(|a| crate::render::has_heading_at(&a.body, anchor))
        }))
    }

    /// The error for an id-shaped target that names no node: the closest ids and the best
    /// search hits.
    fn unknown_id(&self, target: &str) -> Result<EngineError, EngineError> {
        let mut unknown = match resolve(&self.index, target)? {
            Ok(ix) => UnknownTarget::id(&self.index.id_of(ix)?, Vec::new()),
            Err(unknown) => unknown,
        };
        unknown.hits = self.hit_ids(target)?;
        Ok(EngineError::Unknown(unknown))
    }

    /// The error for words that match nothing well enough: why, and the closest hits.
    fn no_match(
        &self,
        target: &str,
        weakness: crate::resolve::Weakness,
    ) -> Result<EngineError, EngineError> {
        let mut unknown = match resolve(&self.index, target)? {
            Ok(_) => UnknownTarget::id(target, Vec::new()),
            Err(unknown) => unknown,
        };
        unknown.searched = true;
        unknown.weakness = Some(weakness);
        unknown.hits = self.hit_ids(target)?;
        Ok(EngineError::Unknown(unknown))
    }

    /// The ids of the best plain search hits for `text` (what `brief search` would list).
    fn hit_ids(&self, text: &str) -> Result<Vec<String>, EngineError> {
        Ok(self
            .index
            .search(text, HITS_NAMED, None)?
            .into_iter()
            .map(|h| h.id)
            .collect())
    }

    /// A bare local id (`T014`, `2.1`) in a project with Spec Kit or Kiro sources: the node
    /// of that local id in the current feature (`SPECIFY_FEATURE`, else the git branch), or
    /// in the only feature that has it; several and none current is an unknown target that
    /// lists them.
    fn scoped_target(&self, target: &str) -> Result<Option<NodeIx>, EngineError> {
        let spec_driven = self.project.sources.iter().any(|s| {
            matches!(
                s,
                brief_project::Source::SpecKit { .. } | brief_project::Source::Kiro { .. }
            )
        });
        let local_shaped = target.len() <= 24
            && target.bytes().any(|b| b.is_ascii_digit())
            && target
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
        if !spec_driven || !local_shaped {
            return Ok(None);
        }
        let specify = std::env::var("SPECIFY_FEATURE").ok();
        let current = crate::scoped::current_feature(&self.project.guard, specify.as_deref());
        let ids = self.index.all_ids()?;
        match crate::scoped::resolve_local(&self.index, &ids, target, current.as_deref())? {
            crate::scoped::Scoped::None => Ok(None),
            crate::scoped::Scoped::One(ix) => Ok(Some(ix)),
            crate::scoped::Scoped::Ambiguous(choices) => {
                Err(EngineError::Unknown(UnknownTarget::id(target, choices)))
            }
        }
    }

    /// The start of a context whose target is a file path: every node that governs the file
    /// (`files::governing`), the path as the query the header names; `None` when the target
    /// is no path or nothing governs it.
    fn file_start(&self, request: &ContextRequest) -> Result<Option<Start>, EngineError> {
        let Some(PathTarget { rel: path, entry }) =
            crate::files::path_target(&self.project.guard, &request.target)
        else {
            return Ok(None);
        };
        // A page of the knowledge (`docs/adr/0002-….md`) starts from itself, then what
        // governs it; a folder from its index page, if it has one.
        let folder = entry == Entry::Folder;
        let own = if folder {
            self.index_page(&path)?
        } else {
            self.index.node_of_file(&path)?
        };
        let governing = crate::files::governing(&self.index, &self.project.guard, &path, entry)?;
        let mut seeds: Vec<NodeIx> = own.into_iter().collect();
        seeds.extend(
            governing
                .into_iter()
                .map(|(ix, _)| ix)
                .filter(|ix| Some(*ix) != own),
        );
        if seeds.is_empty() {
            // A file's name still says what it is about; a folder's words find any page in
            // it, so what it holds is said instead.
            return if folder {
                Err(self.ungoverned_folder(&path)?)
            } else {
                Ok(None)
            };
        }
        let found = match (own.is_some(), folder) {
            (true, _) => Found::Page,
            (false, true) => Found::Folder,
            (false, false) => Found::File,
        };
        Ok(Some(Start {
            seeds,
            query: Some(if path.is_empty() {
                ".".to_string()
            } else {
                path
            }),
            found,
            ..Start::default()
        }))
    }

    /// A folder's own index page, when it is a page of the knowledge (`README.md`,
    /// `index.md`, … directly in it, in [`INDEX_PAGES`] order).
    fn index_page(&self, folder: &str) -> Result<Option<NodeIx>, EngineError> {
        for name in INDEX_PAGES {
            if let Some(page) = self
                .index
                .node_of_file(&crate::files::child(folder, name))?
            {
                return Ok(Some(page));
            }
        }
        Ok(None)
    }

    /// The error for a folder nothing governs: what it holds, and what to name instead.
    fn ungoverned_folder(&self, folder: &str) -> Result<EngineError, EngineError> {
        let (count, first) = self.index.nodes_under(folder, 3)?;
        let holds = match count {
            0 => "it holds no node of the knowledge".to_string(),
            1 => format!("it holds one node of the knowledge, {}", first.join(", ")),
            n => format!(
                "it holds {n} nodes of the knowledge ({}{})",
                first.join(", "),
                if n > first.len() { ", …" } else { "" }
            ),
        };
        let named = if folder.is_empty() {
            "the project's root folder".to_string()
        } else {
            format!("the folder {folder}")
        };
        Ok(EngineError::Usage(
            format!(
                "nothing governs {named}: no rule, agent file, task or spec covers it, no index \
                 page of it (README.md, index.md, …) is a page of the knowledge, and {holds}; \
                 name a node, a page or a file, or say the work in words"
            )
            .into(),
        ))
    }

    /// The start of `--changed REV`: what governs any file changed against `rev`, each
    /// node once, the first file's first.
    fn changed_start(&self, rev: &str) -> Result<Start, EngineError> {
        let files = crate::revision::changed(&self.project.root, rev)?;
        if files.is_empty() {
            return Err(EngineError::Usage(
                format!(
                    "no file changed against {rev}: name a file or an id as the target instead"
                )
                .into(),
            ));
        }
        let governing = crate::files::governing_all(&self.index, &self.project.guard, &files)?;
        if governing.is_empty() {
            return Err(EngineError::Usage(format!(
                "nothing governs the {} file{} changed against {rev} ({}): no task, spec, rule or annotation names or covers them",
                files.len(),
                if files.len() == 1 { "" } else { "s" },
                shorten_list(&files)
            ).into()));
        }
        Ok(Start {
            seeds: governing.into_iter().map(|(ix, _)| ix).collect(),
            query: Some(format!(
                "files changed against {rev}: {}",
                shorten_list(&files)
            )),
            found: Found::Changed,
            ..Start::default()
        })
    }

    /// `brief impact`: the targets whose context (with `request`'s depth, lens and identity)
    /// holds any of `ids`, in `request.format` (JSON, or text for Markdown and text).
    pub fn impact(
        &mut self,
        ids: &[String],
        request: &ContextRequest,
    ) -> Result<String, EngineError> {
        for id in ids {
            check_query(id)?;
        }
        self.healing(|engine| {
            engine.refresh_for_request()?;
            engine.ensure_loadable()?;
            let plans = crate::impact::Plans::new(&engine.project.defaults, request)
                .map_err(EngineError::Context)?
                .only(engine.project.sources.iter().map(|s| s.origin()));
            engine.go_on()?;
            let impact = engine.index.reading(|| {
                let mut nodes = Vec::new();
                for id in ids {
                    nodes.push(resolve(&engine.index, id)??);
                }
                Ok::<_, EngineError>(crate::impact::impact(&engine.index, &plans, &nodes)?)
            })??;
            Ok(match request.format.document() {
                None => crate::impact::render_json(&impact),
                Some(_) => crate::impact::impact_text(&impact),
            })
        })
    }

    /// `brief explain`: why `id` is (or is not) in the context `request` asks for, and the
    /// detail the budget left it at.
    pub fn explain(&mut self, id: &str, request: &ContextRequest) -> Result<String, EngineError> {
        check_query(id)?;
        check_query(&request.target)?;
        let assembly = ContextRequest {
            format: Format::Markdown,
            ..request.clone()
        };
        let explanation = self.healing(|engine| {
            engine.refresh_for_request()?;
            // Words are found as `context` finds them, meaning included when it is on.
            engine.prepare_semantic(&request.target)?;
            engine.ensure_loadable()?;
            engine.index.reading(|| {
                let node = resolve(&engine.index, id)??;
                // The target is read as `brief context` reads it: an id, a file or words.
                let start = engine.start(request)?;
                let target = start.seeds.first().copied().ok_or_else(|| {
                    EngineError::Unknown(UnknownTarget::id(&request.target, Vec::new()))
                })?;
                let plan = crate::context::plan_from(
                    &engine.index,
                    &engine.project.defaults,
                    request,
                    &start,
                    target,
                )?;
                let mut explanation = crate::explain::explain(&engine.index, &plan, &start, node)?;
                // Words, a file or a local id: say so, and where the context started.
                let asked = request.target.trim();
                if !explanation.target.eq_ignore_ascii_case(asked) || request.changed.is_some() {
                    explanation.target = asked.to_string();
                    explanation.starts = start
                        .seeds
                        .iter()
                        .map(|&seed| engine.index.id_of(seed))
                        .collect::<Result<_, _>>()?;
                }
                if explanation.included {
                    // The detail comes from the very assembly `brief context` makes, from
                    // the same start.
                    let defaults = &engine.project.defaults;
                    let out = assemble_from(&engine.index, defaults, &assembly, &start)?;
                    let detail = out
                        .placed
                        .iter()
                        .find(|(placed, _)| *placed == explanation.node)
                        .and_then(|(_, d)| *d);
                    explanation.detail = Some(crate::explain::detail_name(detail));
                }
                Ok::<_, EngineError>(explanation)
            })?
        });
        if let Some(embedder) = &self.embedder {
            embedder.end();
        }
        let explanation = explanation?;
        Ok(match request.format.document() {
            None => crate::explain::render_json(&explanation),
            Some(_) => crate::explain::explanation_text(&explanation),
        })
    }

    /// The two sides of a comparison: `from` read from git, `to` from git or (`None`) the
    /// working tree as the loaders read it.
    fn sides(
        &self,
        from: &str,
        to: Option<&str>,
    ) -> Result<(crate::revision::Revision, Working), EngineError> {
        self.go_on()?;
        let old = crate::revision::load(&self.project.root, from)?;
        self.go_on()?;
        let new = match to {
            Some(rev) => Working::Revision(crate::revision::load(&self.project.root, rev)?),
            None => {
                let loaded = self.project.load();
                let errors: Vec<Problem> = loaded.errors().cloned().collect();
                if !errors.is_empty() {
                    return Err(EngineError::Load(errors));
                }
                Working::Tree(loaded.graph, self.project.defaults.clone())
            }
        };
        Ok((old, new))
    }

    /// `brief diff`: how the context of `request.target` changes from `from` to `to` (the
    /// working tree when `None`).
    pub fn diff(
        &mut self,
        request: &ContextRequest,
        from: &str,
        to: Option<&str>,
    ) -> Result<String, EngineError> {
        check_query(&request.target)?;
        let (old, new) = self.sides(from, to)?;
        self.go_on()?;
        let (graph, defaults) = new.parts();
        let named = [&old.graph, graph]
            .iter()
            .any(|g| g.lookup(&request.target).is_some());
        let (target, query) = if named {
            (request.target.clone(), None)
        } else {
            self.diff_target(request)?
        };
        let request = &ContextRequest {
            target,
            ..request.clone()
        };
        let mut out = crate::diff::diff(
            &crate::diff::Side {
                name: from,
                graph: &old.graph,
                defaults: &old.defaults,
            },
            &crate::diff::Side {
                name: to.unwrap_or("working tree"),
                graph,
                defaults,
            },
            request,
        )?;
        out.query = query;
        Ok(crate::diff::render_diff(&out, request.format))
    }

    /// The node `brief diff` compares when the target is no id at either side: the best
    /// hit of its words in the working tree's index, with the words.
    fn diff_target(
        &mut self,
        request: &ContextRequest,
    ) -> Result<(String, Option<String>), EngineError> {
        self.refresh_for_request()?;
        let found = self.index.reading(|| {
            let start = self.start(request)?;
            let best = match (&start.query, start.seeds.first()) {
                (Some(query), Some(ix)) => Some((self.index.id_of(*ix)?, query.clone())),
                _ => None,
            };
            Ok::<_, EngineError>(best)
        })?;
        Ok(match found {
            Ok(Some((id, query))) => (id, Some(query)),
            // An id, or words nothing matches now: compared as given (the error, if there
            // is one, comes from the revisions).
            _ => (request.target.clone(), None),
        })
    }

    /// `brief impact --since`: every target whose context changes from `from` to the working
    /// tree.
    pub fn since(&mut self, request: &ContextRequest, from: &str) -> Result<String, EngineError> {
        let (old, new) = self.sides(from, None)?;
        self.go_on()?;
        let (graph, defaults) = new.parts();
        let out = crate::diff::since(
            &crate::diff::Side {
                name: from,
                graph: &old.graph,
                defaults: &old.defaults,
            },
            &crate::diff::Side {
                name: "working tree",
                graph,
                defaults,
            },
            request,
        )?;
        Ok(crate::diff::render_since(&out, request.format))
    }

    /// One node at a detail level.
    pub fn show(
        &mut self,
        id: &str,
        detail: Detail,
        format: Format,
        encoding: Option<Encoding>,
    ) -> Result<String, EngineError> {
        self.healing(|engine| {
            engine.refresh_for_request()?;
            engine.ensure_loadable()?;
            let encoding = encoding
                .or(engine.project.defaults.encoding)
                .unwrap_or_default();
            let id = engine.page_id(id)?.unwrap_or_else(|| id.to_string());
            Ok(show(&engine.index, &id, detail, format, encoding)?)
        })
    }

    /// The id of the page a path names (`docs/adr/0002-….md` is `ADR-0002`), or of the part a
    /// page and an anchor name ([`Engine::page_part`]), when `target` is no id itself.
    fn page_id(&self, target: &str) -> Result<Option<String>, EngineError> {
        if self.index.lookup_any_case(target.trim())?.is_some() {
            return Ok(None);
        }
        if let Some(part) = self.page_part(target.trim())? {
            return Ok(Some(GraphView::id_of(&self.index, part.node())?));
        }
        let Some(path) = crate::files::path_target(&self.project.guard, target) else {
            return Ok(None);
        };
        match self.index.node_of_file(&path.rel)? {
            Some(ix) => Ok(Some(GraphView::id_of(&self.index, ix)?)),
            None => Ok(None),
        }
    }

    /// Full-text search: at most `limit` hits (any limit above [`MAX_SEARCH_LIMIT`] means
    /// every hit), and why none were found when none were.
    pub fn search(
        &mut self,
        query: &str,
        limit: usize,
        kind: Option<&str>,
    ) -> Result<Searched, EngineError> {
        check_query(query)?;
        if limit == 0 {
            return Err(EngineError::Usage(
                Said::new()
                    .param(Param::Limit)
                    .text(" must be at least 1 (the most hits to print)"),
            ));
        }
        // A larger limit means "every hit" and would overflow SQLite's signed LIMIT.
        let limit = limit.min(MAX_SEARCH_LIMIT);
        self.healing(|engine| {
            engine.refresh_for_request()?;
            engine.ensure_loadable()?;
            if let Some(kind) = kind {
                let kinds = engine.index.kinds()?;
                if !kinds.iter().any(|k| k == kind) {
                    return Err(EngineError::Usage(
                        format!(
                            "no node has kind `{kind}`; the kinds in this project: {}",
                            kinds.join(", ")
                        )
                        .into(),
                    ));
                }
            }
            engine
                .index
                .reading(|| engine.ranked_hits(query, limit, kind))?
        })
    }

    /// Search hits in the query model's order (`find`): an exact id first, then every node
    /// the words match, as shares of the best to two significant digits.
    fn ranked_hits(
        &self,
        query: &str,
        limit: usize,
        kind: Option<&str>,
    ) -> Result<Searched, EngineError> {
        let mut hits: Vec<Hit> = Vec::new();
        let exact = self.index.lookup_any_case(query.trim())?;
        let mut push = |engine: &Engine, node: NodeIx, score: f64| -> Result<(), EngineError> {
            let found = engine.index.candidates(&[node])?;
            if let Some(row) = found.into_iter().next() {
                if kind.is_none_or(|k| row.kind == k) && hits.len() < limit {
                    hits.push(Hit {
                        id: row.id,
                        kind: row.kind,
                        title: row.title,
                        score,
                    });
                }
            }
            Ok(())
        };
        if let Some(node) = exact {
            push(self, node, 1.0)?;
        }
        let miss = match find(&self.index, query, limit)? {
            Verdict::Found { hits: scored, .. } => {
                let best = scored.first().map_or(1.0, |s| s.score);
                for s in scored.iter().filter(|s| Some(s.node) != exact) {
                    let share = if best > 0.0 { s.score / best } else { 1.0 };
                    push(self, s.node, brief_index::significant(share))?;
                }
                None
            }
            Verdict::Nothing(weakness) => Some(weakness),
        };
        Ok(Searched { hits, miss })
    }

    /// Every node as `ID<TAB>kind<TAB>title` lines, sorted by id (the MCP node index).
    pub fn catalog(&mut self) -> Result<String, EngineError> {
        self.healing(|engine| {
            engine.refresh_for_request()?;
            Ok(crate::render::search::catalog(&engine.index.catalog()?))
        })
    }

    /// The id of the project identity node, if the project has one.
    pub fn identity_id(&mut self) -> Result<Option<String>, EngineError> {
        self.healing(|engine| {
            engine.refresh_for_request()?;
            let id = engine.index.reading(|| {
                engine
                    .index
                    .identity()?
                    .map(|ix| engine.index.id_of(ix))
                    .transpose()
            })??;
            Ok(id)
        })
    }
}

/// Semantic similarity: the query embedded by the configured endpoint, compared with the
/// vectors the index keeps (`docs/embeddings.md`).
impl Engine {
    /// How `query` compares with every node that has a vector: the best `k` (similarity
    /// descending, ties by id) and any node's similarity ([`semantic::Similar::of`]). The
    /// query is embedded once per text for the engine's life, within the request's time-out;
    /// call it inside the request's read of the index. Never an error for the endpoint's
    /// sake: `Unavailable` says why there is nothing (and the request says so once).
    pub fn similar(&self, query: &str, k: usize) -> Result<Semantic, StoreError> {
        let Some(embedder) = &self.embedder else {
            return Ok(Semantic::Off);
        };
        let vector = match embedder.query(query.trim()) {
            Ok(vector) => vector,
            Err(why) => return Ok(Semantic::Unavailable(why)),
        };
        self.compare(embedder, &vector, k)
    }

    /// How node `node`'s own stored vector compares with every other node's (what is
    /// related to it), with no request to the endpoint; `Unavailable` when it has none.
    pub fn similar_to(&self, node: NodeIx, k: usize) -> Result<Semantic, StoreError> {
        let Some(embedder) = &self.embedder else {
            return Ok(Semantic::Off);
        };
        let Some(matrix) = self.stored_vectors(embedder)? else {
            return Ok(Semantic::Unavailable(no_vectors()));
        };
        let vector = match matrix.keys().binary_search(&node) {
            Ok(at) => matrix.vector(at),
            Err(_) => None,
        };
        match vector {
            Some(vector) => self.compare(embedder, &vector, k),
            None => Ok(Semantic::Unavailable(format!(
                "{} has no vector yet; `brief index` embeds it",
                self.index.id_of(node)?
            ))),
        }
    }

    /// Compares a unit vector with the stored ones.
    fn compare(
        &self,
        embedder: &Embedder,
        vector: &[f32],
        k: usize,
    ) -> Result<Semantic, StoreError> {
        let Some(matrix) = self.stored_vectors(embedder)? else {
            let why = no_vectors();
            embedder.fail(why.clone());
            return Ok(Semantic::Unavailable(why));
        };
        Ok(match semantic::rank(&self.index, matrix, vector, k)? {
            Ok(similar) => Semantic::Hits(similar),
            Err(why) => {
                embedder.fail(why.clone());
                Semantic::Unavailable(why)
            }
        })
    }

    /// The index's vectors for the endpoint's model key.
    fn stored_vectors(
        &self,
        embedder: &Embedder,
    ) -> Result<Option<std::sync::Arc<brief_embed::Matrix>>, StoreError> {
        match embedder.client() {
            Ok(client) => self.index.vectors(&client.endpoint().vector_key()),
            Err(_) => Ok(None),
        }
    }

    /// Whether semantic similarity took part in the current request, for the JSON audit:
    /// `None` when embeddings are off.
    pub(crate) fn embeddings_state(&self) -> Option<Embeddings> {
        let embedder = self.embedder.as_ref()?;
        Some(match embedder.trouble() {
            None => Embeddings::On,
            Some(why) => Embeddings::Unavailable(why),
        })
    }

    /// The lines the current request adds to its output on stderr: the one warning when
    /// embeddings were configured but could not be used, and a note when nodes still wait
    /// for their vectors.
    pub fn embeddings_notes(&self) -> Vec<String> {
        let Some(embedder) = &self.embedder else {
            return Vec::new();
        };
        let mut lines = Vec::new();
        if let Some(why) = embedder.trouble() {
            lines.push(format!(
                "warning: embeddings unavailable: {why}; the context was made from the graph and words"
            ));
            return lines;
        }
        let (pending, down) = embedder.pending();
        if pending > 0 {
            let why = down.unwrap_or_else(|| "the embeddings time-out ran out".into());
            lines.push(format!(
                "note: {pending} node{} no vector yet ({why}); `brief index` embeds {}",
                if pending == 1 { " has" } else { "s have" },
                if pending == 1 { "it" } else { "them" }
            ));
        }
        lines
    }

    /// Before a request reads the index: embeds a word target (within the time-out, so the
    /// read need not wait), then, with what is left of it, the nodes that changed since
    /// their vectors were made. A failure is remembered for the request, never an error.
    fn prepare_semantic(&mut self, target: &str) -> Result<(), EngineError> {
        let Some(embedder) = &self.embedder else {
            return Ok(());
        };
        embedder.begin();
        let client = match embedder.client() {
            Ok(client) => client,
            Err(_) => return Ok(()),
        };
        let is_id = self
            .index
            .reading(|| self.index.lookup_any_case(target.trim()))??
            .is_some();
        let query = if is_id {
            None
        } else {
            match embedder.query(target.trim()) {
                Ok(vector) => Some(vector),
                Err(_) => return Ok(()),
            }
        };
        let until = Until::Deadline(embedder.deadline());
        let done = self.index.embed(client, until, &mut |_| {})?;
        embedder.passed(done.missing, done.failure.map(|f| f.to_string()));
        // Whether the query can be compared with what is stored, known before the read.
        let key = client.endpoint().vector_key();
        match (self.index.vector_dims(&key)?, query) {
            (None, _) => embedder.fail(embedder.pending().1.unwrap_or_else(no_vectors)),
            (Some(stored), Some(query)) if stored != query.len() => {
                embedder.fail(semantic::other_lengths(query.len(), stored))
            }
            _ => {}
        }
        Ok(())
    }

    /// Embeds every node that has no vector for the configured model (`brief index`), in
    /// batches, reporting progress; `None` when embeddings are off. An endpoint that fails
    /// ends the pass with what was stored ([`Embedded::failure`]); the next one goes on.
    pub fn embed(
        &mut self,
        progress: &mut dyn FnMut(brief_index::Step),
    ) -> Result<Option<Result<Embedded, String>>, EngineError> {
        let Some(embedder) = &self.embedder else {
            return Ok(None);
        };
        let client = match embedder.client() {
            Ok(client) => client,
            Err(why) => return Ok(Some(Err(why))),
        };
        Ok(Some(Ok(self.index.embed(client, Until::Done, progress)?)))
    }
}

/// What a search found.
#[derive(Debug, Clone, PartialEq)]
pub struct Searched {
    /// The hits, best first (an exact id first of all).
    pub hits: Vec<Hit>,
    /// Why no node's words matched well enough (`None` when they did, although the hits may
    /// be empty: none of the kind asked for).
    pub miss: Option<Weakness>,
}

/// Why there is nothing to compare with.
fn no_vectors() -> String {
    "no node has a vector yet; `brief index` embeds them".into()
}

/// The start of a context in words: its seeds and related hits, and every hit's share of
/// the best as its query relevance.
fn start_of(request: &ContextRequest, hits: &[Scored], chosen: Match) -> Start {
    let best = hits.first().map_or(1.0, |h| h.score);
    let relevance = hits
        .iter()
        .map(|h| {
            let share = if best > 0.0 { h.score / best } else { 1.0 };
            (h.node, (share * 10_000.0).round() / 10_000.0)
        })
        .collect();
    Start {
        seeds: chosen.seeds.iter().map(|(node, _)| *node).collect(),
        shares: chosen.seeds.iter().map(|(_, share)| *share).collect(),
        query: Some(request.target.clone()),
        relevance,
        confidence: chosen.confidence,
        rules: chosen.rules,
        related: chosen.related,
        named: Vec::new(),
        embeddings: None,
        similarity: HashMap::new(),
        found: Found::Words,
    }
}

/// The newer side of a comparison.
enum Working {
    Revision(crate::revision::Revision),
    Tree(brief_model::Graph, brief_project::Defaults),
}

impl Working {
    fn parts(&self) -> (&brief_model::Graph, &brief_project::Defaults) {
        match self {
            Working::Revision(r) => (&r.graph, &r.defaults),
            Working::Tree(g, d) => (g, d),
        }
    }
}

/// Up to five items joined by ", ", then how many more.
fn shorten_list(items: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = items
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        text.push_str(&format!(" and {} more", items.len() - SHOWN));
    }
    text
}
