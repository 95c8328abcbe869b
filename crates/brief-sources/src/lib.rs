//! Loading: every source of a project becomes [`Node`]s of the one [`Graph`].
//!
//! Loaders never stop at the first bad file: each returns the nodes it could read and a
//! [`Problem`] per file it could not, so `check` can report everything at once while
//! `context` refuses to work on a graph with errors.

mod artifacts;
mod catalogue;
mod formats;
mod frontmatter;
mod globs;
mod jsonpos;
mod kb;
mod kiro;
mod markdown;
mod mdtext;
mod rules;
mod specdoc;
mod specgraph;
mod speckit;
mod tana;
mod text;

use std::fmt;
use std::path::{Path, PathBuf};

use brief_model::{DuplicateId, Graph, Location, Node};
use brief_root::{DirEntry, EntryKind, OpenError, Root};

pub use artifacts::{contextia_listing, folder_listing, parse_artifact, Placement};
pub use catalogue::{
    kb_layout, list, load, load_kb_warnings, parse as parse_file, read_source, CatalogueFile,
    KbOutput, Parser, Source,
};
pub use formats::{add_labels, Format, PageFormat, Survey};
pub use frontmatter::{
    end as frontmatter_end, parse as parse_frontmatter, split as split_frontmatter,
};
pub use globs::{
    applies_to, glob_folder, glob_names_its_last_folder, invalid as invalid_glob,
    scoped as scoped_glob, FileMatcher,
};
pub use jsonpos::{locate, Locator, Seg};
pub use kb::{listing as kb_listing, Catalog, Layout, Repository, TEST_DATA_DIRS, TEST_DIRS};
pub use kiro::{kiro_task_ids, kiro_workspaces_kept, Role as KiroRole};
pub use markdown::{
    is_metadata_line, parse as parse_markdown, without_fence_labels, without_opening_metadata,
    Concern, Parsed, Warning,
};
pub use mdtext::Slugs;
pub use rules::RuleFile;
pub use specgraph::{
    discover as discover_specgraph, merge_listed, parse_node, read_manifest, Entry, Mismatch,
    Places,
};
pub use speckit::{
    detect as detect_speckit, is_archived, speckit_task_ids, Role as SpecKitRole, TaskId,
};
pub use tana::{parse as parse_tana, Export};
pub use text::{line_col, line_cols};

/// How bad a load problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Worth fixing, but the graph is still fit for context assembly.
    Warning,
    /// The graph is unfit for context assembly until it is fixed (a file that cannot be read or
    /// parsed, a duplicate id).
    Error,
}

/// A problem found while loading, located in a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// Whether it stops a context (an error) or is only said (a warning).
    pub severity: Severity,
    /// What is wrong, as the loader knows it: `check` gives each kind its rule.
    pub kind: ProblemKind,
    /// Where: `path:line:col`.
    pub location: Location,
    /// What is wrong and what to do, for the user.
    pub message: String,
}

/// What kind of problem a loader found. The loader that finds one says which; readers of
/// problems (`check`'s rules) decide by it, never by the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProblemKind {
    /// The file or folder could not be read: not a regular file, not UTF-8, an I/O error.
    Unreadable,
    /// The text is not valid in its format: JSON, YAML, frontmatter fences or the shape the
    /// file must have at its top.
    Syntax,
    /// A field every node needs is missing, empty or not text (`id`, `type`).
    MissingField,
    /// A value of the wrong type or form (a link, a listed path, a node that does not match
    /// its listing).
    Invalid,
    /// A second node with an id already defined.
    DuplicateId,
    /// Something in the content worth a word, read anyway.
    Content,
}

impl ProblemKind {
    /// Every kind, in order.
    pub const ALL: [ProblemKind; 6] = [
        ProblemKind::Unreadable,
        ProblemKind::Syntax,
        ProblemKind::MissingField,
        ProblemKind::Invalid,
        ProblemKind::DuplicateId,
        ProblemKind::Content,
    ];

    /// The kind's name, as the index stores it.
    pub fn name(self) -> &'static str {
        match self {
            ProblemKind::Unreadable => "unreadable",
            ProblemKind::Syntax => "syntax",
            ProblemKind::MissingField => "missing-field",
            ProblemKind::Invalid => "invalid",
            ProblemKind::DuplicateId => "duplicate-id",
            ProblemKind::Content => "content",
        }
    }

    /// The kind a [`ProblemKind::name`] names.
    pub fn from_name(name: &str) -> Option<ProblemKind> {
        ProblemKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl Problem {
    /// An error of `kind` at a location.
    pub fn error(kind: ProblemKind, location: Location, message: impl Into<String>) -> Problem {
        Problem {
            severity: Severity::Error,
            kind,
            location,
            message: message.into(),
        }
    }

    /// A warning of `kind` at a location.
    pub(crate) fn warning(
        kind: ProblemKind,
        location: Location,
        message: impl Into<String>,
    ) -> Problem {
        Problem {
            severity: Severity::Warning,
            kind,
            location,
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// What one loader produced.
#[derive(Debug, Default)]
pub struct SourceOutput {
    /// The nodes, in the order the loader made them.
    pub nodes: Vec<Node>,
    /// Everything the loader could not use.
    pub problems: Vec<Problem>,
}

/// The loaded project: its graph and every problem met on the way, sorted by location.
#[derive(Debug)]
pub struct Loaded {
    /// Every node of every source, built into one graph.
    pub graph: Graph,
    /// Every load problem and every duplicate id.
    pub problems: Vec<Problem>,
}

impl Loaded {
    /// The problems that make the graph unfit for context assembly.
    pub fn errors(&self) -> impl Iterator<Item = &Problem> {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
    }
}

pub(crate) fn duplicate_problem(dup: DuplicateId) -> Problem {
    Problem::error(
        ProblemKind::DuplicateId,
        dup.second,
        format!("duplicate id `{}` (first defined at {})", dup.id, dup.first),
    )
}

/// A path relative to the root, with `/` separators, for messages and output.
pub fn rel_path(root: &Path, path: &Path) -> String {
    // Most paths need no normalizing: a plain `root/a/b` is sliced, not rebuilt.
    #[cfg(unix)]
    if let (Some(root), Some(path)) = (root.to_str(), path.to_str()) {
        let rest = path.strip_prefix(root).and_then(|rest| {
            rest.strip_prefix('/')
                .or(root.ends_with('/').then_some(rest))
        });
        if let Some(rest) = rest {
            if rest
                .split('/')
                .all(|part| !part.is_empty() && part != "." && part != "..")
            {
                return rest.to_string();
            }
        }
    }
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Reads a UTF-8 file that must lie inside the root (opened beneath it: see [`Root`]).
pub fn read_text(root: &Root, path: &Path) -> Result<String, Problem> {
    read_stamped(root, path).map(|(text, _)| text)
}

/// What tells a file's content changed without reading it, as git's index does: size,
/// modification and change times (nanoseconds since the epoch), inode and device. The change
/// time cannot be set back (`touch -d` and checkouts move it), and a replaced file has a new
/// inode. Folders have size 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Size in bytes.
    pub size: i64,
    /// Modification time.
    pub mtime: i64,
    /// Status change time.
    pub ctime: i64,
    /// Inode number.
    pub inode: i64,
    /// Device number.
    pub device: i64,
}

/// How long after a change a file system's timestamps may still read the same after a
/// second change: the kernel stamps files from a clock that ticks every few milliseconds.
const RACY_FINE_NS: i64 = 50_000_000;
/// The same for file systems that keep whole seconds (FAT keeps two).
const RACY_COARSE_NS: i64 = 2_000_000_000;

impl Stamp {
    /// Whether a change made just after this stamp was taken, at `taken` (nanoseconds since
    /// the epoch), could leave the stamp as it is: the file changed too recently for its
    /// timestamps to tell. Such a file is "racily clean" (git's term) and is hashed again on
    /// the next refresh instead of being trusted.
    pub fn racy(&self, taken: i64) -> bool {
        let whole_seconds = self.mtime % 1_000_000_000 == 0 && self.ctime % 1_000_000_000 == 0;
        let window = if whole_seconds {
            RACY_COARSE_NS
        } else {
            RACY_FINE_NS
        };
        self.mtime.max(self.ctime).saturating_add(window) > taken
    }
}

/// Now, in nanoseconds since the epoch (the reference for [`Stamp::racy`]).
pub fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// The [`Stamp`] of a file stat'ed with [`brief_root::stat_files`] (or of its metadata,
/// [`stamp`]).
pub fn stamp_of(stat: &brief_root::FileStat) -> Option<Stamp> {
    Some(Stamp {
        size: if stat.is_dir { 0 } else { stat.size as i64 },
        mtime: stat.modified_ns?,
        ctime: stat.changed_ns,
        inode: stat.inode as i64,
        device: stat.device as i64,
    })
}

/// The [`Stamp`] of a file's metadata.
pub fn stamp(meta: &std::fs::Metadata) -> Option<Stamp> {
    stamp_of(&brief_root::FileStat::from_metadata(meta))
}

/// [`read_text`], with the file's [`Stamp`] taken after opening and before reading (as a
/// separate stat before the read would be): an edit made while the file is read does not
/// show in the stamp returned, so a later stat that sees it reads the file again. The stamp
/// comes with the time it was taken, for [`Stamp::racy`].
///
/// Only a regular file beneath the root is read, and opening never blocks (a FIFO is
/// refused); see [`Root::open_file`].
pub fn read_stamped(root: &Root, path: &Path) -> Result<(String, Option<(Stamp, i64)>), Problem> {
    let problem = |message: String| {
        Problem::error(
            ProblemKind::Unreadable,
            Location::file(rel_path(root.path(), path)),
            message,
        )
    };
    let (bytes, meta) = root.read(path).map_err(|err| match err {
        OpenError::Io(_) => problem(format!("cannot read file: {err}")),
        other => problem(format!("file {other}")),
    })?;
    let taken = now_ns();
    let mut text = String::from_utf8(bytes).map_err(|err| {
        let offset = err.utf8_error().valid_up_to();
        let before = &err.as_bytes()[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        let col = before.iter().rev().take_while(|&&b| b != b'\n').count() as u32 + 1;
        Problem::error(
            ProblemKind::Unreadable,
            Location {
                path: rel_path(root.path(), path),
                line,
                col,
            },
            "file is not valid UTF-8",
        )
    })?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok((text, stamp(&meta).map(|s| (s, taken))))
}

/// Every `*.md` file under `dir`, sorted by path, skipping hidden folders, `skip`-named
/// folders (`cache/` inside `.brief/`), and symlinked folders. Folders are listed beneath the
/// root (a folder swapped for a link to the outside is not listed).
pub fn markdown_files(root: &Root, dir: &Path, skip: &[&str]) -> Vec<PathBuf> {
    markdown_listing(root, dir, skip).files
}

/// A folder and its [`Stamp`] (with the time it was taken), stamped *before* it was listed:
/// a file added while the folder is listed changes the folder after the stamp, so the next
/// refresh lists it again.
pub type FolderStamp = (PathBuf, Option<(Stamp, i64)>);

/// What a walk of folders found: the files, every folder walked (stamped before it was
/// listed) and the folders that could not be listed.
#[derive(Debug, Default)]
pub struct Walk {
    /// The files found, sorted.
    pub files: Vec<PathBuf>,
    /// Every folder walked, stamped before it was listed.
    pub folders: Vec<FolderStamp>,
    /// An error per folder that exists but could not be listed: like a file that cannot be
    /// read, it stops a context (its files would be missing without a word).
    pub problems: Vec<Problem>,
}

impl Walk {
    /// Lists `path`, or records why it could not be listed (a missing folder is no problem:
    /// most folders of a layout are optional).
    pub(crate) fn list(&mut self, root: &Root, path: &Path) -> Option<Vec<DirEntry>> {
        match root.list_dir(path) {
            Ok(entries) => Some(entries),
            Err(err) if err.is_missing() => None,
            Err(err) => {
                self.problems.push(Problem::error(
                    ProblemKind::Unreadable,
                    Location::file(rel_path(root.path(), path)),
                    format!("cannot list this folder ({err}): the files in it would be left out"),
                ));
                None
            }
        }
    }
}

/// [`markdown_files`], with the stamp of every folder walked and the folders that could not be
/// listed.
pub(crate) fn markdown_listing(root: &Root, dir: &Path, skip: &[&str]) -> Walk {
    walk_markdown(root, dir, skip, &mut |_, _| {})
}

/// [`markdown_listing`], telling `hidden` of every hidden folder met (its path and name),
/// which the walk does not enter.
pub(crate) fn walk_markdown(
    root: &Root,
    dir: &Path,
    skip: &[&str],
    hidden: &mut dyn FnMut(&Path, &str),
) -> Walk {
    walk_files(root, dir, skip, hidden, &|name| {
        name.to_ascii_lowercase().ends_with(".md")
    })
}

/// [`walk_markdown`] for the files whose names `wanted` accepts.
pub(crate) fn walk_files(
    root: &Root,
    dir: &Path,
    skip: &[&str],
    hidden: &mut dyn FnMut(&Path, &str),
    wanted: &dyn Fn(&str) -> bool,
) -> Walk {
    let mut walk = Walk::default();
    let mut links = Vec::new();
    // Each folder with whether a folder of tests holds it.
    let mut stack = vec![(dir.to_path_buf(), false)];
    while let Some((current, in_tests)) = stack.pop() {
        // Stamped all the same: a marker added or removed there is noticed.
        walk.folders.push(folder_stamp(&current));
        let Some(entries) = walk.list(root, &current) else {
            continue;
        };
        if in_tests && is_project(&entries) {
            continue;
        }
        // Any case: `Tests/` in Swift and .NET projects, as `brief check` reads it.
        let holds_tests = in_tests
            || current.file_name().is_some_and(|name| {
                let name = name.to_string_lossy().to_ascii_lowercase();
                current != dir && kb::TEST_DIRS.contains(&name.as_str())
            });
        for entry in entries {
            let name = entry.name.to_string_lossy();
            let path = current.join(&entry.name);
            match entry.kind {
                EntryKind::Dir => {
                    if name.starts_with('.') {
                        hidden(&path, &name);
                    } else if !skip.contains(&name.as_ref()) {
                        stack.push((path, holds_tests));
                    }
                }
                EntryKind::Symlink if wanted(&name) => links.push(path),
                // A FIFO or device named `*.md` is listed too: reading it reports it.
                EntryKind::File | EntryKind::Other if wanted(&name) => walk.files.push(path),
                EntryKind::File | EntryKind::Symlink | EntryKind::Other => {}
            }
        }
    }
    add_links(&mut walk.files, links);
    walk
}

/// Whether a folder's entries hold a project marker ([`kb::PROJECT_MARKERS`]).
fn is_project(entries: &[DirEntry]) -> bool {
    entries
        .iter()
        .any(|entry| kb::PROJECT_MARKERS.contains(&entry.name.to_string_lossy().as_ref()))
}

/// Adds the symlinks `links` to `files` (left sorted), except those whose target is one of
/// `files`: a file served under two names (`CLAUDE.md -> AGENTS.md`) is read once.
pub(crate) fn add_links(files: &mut Vec<PathBuf>, links: Vec<PathBuf>) {
    files.sort();
    let aliases: Vec<bool> = links
        .iter()
        .map(|link| link_target(link).is_some_and(|target| files.binary_search(&target).is_ok()))
        .collect();
    files.extend(
        links
            .into_iter()
            .zip(aliases)
            .filter(|(_, alias)| !alias)
            .map(|(link, _)| link),
    );
    files.sort();
}

/// Where a symlink points, as a path beside it (`..` and `.` resolved by name): `None` for
/// an absolute target or one that cannot be read. A symlink to a file the walk lists
/// (`CLAUDE.md -> AGENTS.md`) is that file under a second name: it is read once, as its
/// target.
pub(crate) fn link_target(link: &Path) -> Option<PathBuf> {
    let target = std::fs::read_link(link).ok()?;
    if target.is_absolute() {
        return None;
    }
    let mut out = link.parent()?.to_path_buf();
    for part in target.components() {
        match part {
            std::path::Component::ParentDir if !out.pop() => return None,
            std::path::Component::Normal(name) => out.push(name),
            _ => {}
        }
    }
    Some(out)
}

/// A path's stamp now (following symlinks), with the time it was taken.
pub(crate) fn folder_stamp(path: &Path) -> FolderStamp {
    let taken = now_ns();
    (
        path.to_path_buf(),
        std::fs::metadata(path)
            .ok()
            .and_then(|meta| stamp(&meta))
            .map(|s| (s, taken)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slow, always-right way `rel_path` takes when the quick one does not apply.
    fn by_components(root: &Path, path: &Path) -> String {
        let rel = path.strip_prefix(root).unwrap_or(path);
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    }

    #[test]
    fn rel_path_slices_plain_paths_and_normalizes_the_rest() {
        let cases = [
            ("/p", "/p/specgraph/nodes/a.json"),
            ("/p/", "/p/specgraph/a.json"),
            ("/", "/a/b.md"),
            ("/p", "/p"),
            ("/p", "/pq/a.md"),
            ("/p", "/p/./a.md"),
            ("/p", "/p/a//b.md"),
            ("/p", "/p/a/../b.md"),
            ("/p", "/p/a/"),
            ("examples/auth", "examples/auth/contextia/system/specs/a.md"),
            (".", "./a.md"),
            ("/p", "/elsewhere/a.md"),
        ];
        for (root, path) in cases {
            let (root, path) = (Path::new(root), Path::new(path));
            assert_eq!(
                rel_path(root, path),
                by_components(root, path),
                "{root:?} {path:?}"
            );
        }
        assert_eq!(rel_path(Path::new("/p"), Path::new("/p/a/b.md")), "a/b.md");
    }

    #[test]
    fn read_stamped_reads_strips_a_bom_and_stamps_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.md");
        std::fs::write(&file, "\u{feff}# Title\n").unwrap();
        let root = Root::open(dir.path()).unwrap();
        let (text, stamp) = read_stamped(&root, &file).unwrap();
        assert_eq!(text, "# Title\n");
        let meta = std::fs::metadata(&file).unwrap();
        let (stamp, _) = stamp.unwrap();
        assert_eq!(Some(stamp), super::stamp(&meta));
        assert_eq!(stamp.size, 11, "the size on disk, BOM included");

        let missing = read_stamped(&root, &dir.path().join("gone.md")).unwrap_err();
        assert_eq!(missing.message, "cannot read file: no such file");
        assert_eq!(missing.location.path, "gone.md");

        std::fs::write(&file, b"ok\n\xff").unwrap();
        let bad = read_stamped(&root, &file).unwrap_err();
        assert_eq!((bad.location.line, bad.location.col), (2, 1));
    }

    #[test]
    fn stamps_are_racy_while_the_clock_has_not_moved_past_the_change() {
        let at = 1_700_000_000_123_456_789;
        let stamp = Stamp {
            size: 3,
            mtime: at,
            ctime: at,
            inode: 1,
            device: 1,
        };
        assert!(stamp.racy(at));
        assert!(stamp.racy(at + RACY_FINE_NS - 1));
        assert!(!stamp.racy(at + RACY_FINE_NS));
        // A file system that keeps whole seconds gets a wider window.
        let coarse = Stamp {
            mtime: 1_700_000_000_000_000_000,
            ctime: 1_700_000_000_000_000_000,
            ..stamp
        };
        assert!(coarse.racy(coarse.mtime + RACY_COARSE_NS - 1));
        assert!(!coarse.racy(coarse.mtime + RACY_COARSE_NS));
        // A change time in the future (another machine's clock) stays racy.
        assert!(Stamp {
            ctime: at + 10 * RACY_COARSE_NS,
            ..stamp
        }
        .racy(at + RACY_COARSE_NS));
    }

    #[cfg(unix)]
    #[test]
    fn read_stamped_follows_symlinks_only_inside_the_root() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "secret").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("real.md"), "real").unwrap();
        // Relative links that stay beneath the root are followed; absolute ones never are
        // (the kernel's RESOLVE_BENEATH), even when they point inside.
        std::os::unix::fs::symlink("real.md", dir.path().join("alias.md")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("real.md"), dir.path().join("absolute.md"))
            .unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), dir.path().join("leak.md"))
            .unwrap();
        let root = Root::open(dir.path()).unwrap();
        let (text, _) = read_stamped(&root, &dir.path().join("alias.md")).unwrap();
        assert_eq!(text, "real");
        for refused in ["leak.md", "absolute.md"] {
            let refused = read_stamped(&root, &dir.path().join(refused)).unwrap_err();
            assert_eq!(
                refused.message,
                "file resolves outside the project root (symlink or `..`?); not read"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_to_a_listed_file_is_read_once_as_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        std::fs::create_dir_all(docs.join("deep")).unwrap();
        std::fs::write(dir.path().join("AGENTS.md"), "# Rules").unwrap();
        std::fs::write(docs.join("deep/page.md"), "# Page").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not listed").unwrap();
        std::os::unix::fs::symlink("AGENTS.md", dir.path().join("CLAUDE.md")).unwrap();
        std::os::unix::fs::symlink("../AGENTS.md", docs.join("CLAUDE.md")).unwrap();
        std::os::unix::fs::symlink("./deep/../deep/page.md", docs.join("same.md")).unwrap();
        // A symlink to a file the walk does not list is a file of its own.
        std::os::unix::fs::symlink("../notes.txt", docs.join("notes.md")).unwrap();
        std::os::unix::fs::symlink("missing.md", docs.join("dangling.md")).unwrap();
        let root = Root::open(dir.path()).unwrap();
        let walk = markdown_listing(&root, dir.path(), &[]);
        let rel: Vec<String> = walk.files.iter().map(|p| rel_path(dir.path(), p)).collect();
        assert_eq!(
            rel,
            [
                "AGENTS.md",
                "docs/dangling.md",
                "docs/deep/page.md",
                "docs/notes.md"
            ]
        );
    }
}
