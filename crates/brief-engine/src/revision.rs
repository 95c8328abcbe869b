//! Old revisions of a project, read from git's object database with gix (never by running
//! git, never touching the working tree or the index): the files of the project's folder at a
//! revision are written into a private temporary folder, which the ordinary loaders then read
//! as a project (`docs/impact.md`). gix is compiled in only with the `git` feature; without
//! it every revision is [`RevisionError::NotBuilt`].

use std::path::Path;
#[cfg(feature = "git")]
use std::path::PathBuf;

use brief_model::Graph;
use brief_project::Defaults;

/// What git (gix) or the file system said, kept as the error it was.
pub type Cause = Box<dyn std::error::Error + Send + Sync>;

/// Why a revision could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RevisionError {
    /// The project's folder is in no git repository.
    #[error("{root}: not inside a git repository ({source})")]
    NoRepository { root: String, source: Cause },
    /// The repository has no working tree to compare with.
    #[error("{0}: the repository has no working tree")]
    Bare(String),
    /// `rev` names nothing in the repository.
    #[error("unknown revision `{rev}`: {source}")]
    Unknown { rev: String, source: Cause },
    /// The revision's objects, or the files written from them, could not be read.
    #[error("revision `{rev}`: {source}")]
    Read { rev: String, source: Cause },
    /// The project at the revision does not open.
    #[error("revision `{rev}` does not load: {source}")]
    Project {
        rev: String,
        source: brief_project::ProjectError,
    },
    /// A file of the project at the revision does not load.
    #[error("revision `{rev}` does not load: {problem}")]
    Problem {
        rev: String,
        problem: brief_sources::Problem,
    },
    #[error("this brief was built without git history (cargo feature `git`): build it with that feature to compare revisions")]
    NotBuilt,
}

/// A project as it was at a revision: its graph and defaults. The temporary folder holding its
/// files lives as long as this.
pub struct Revision {
    pub graph: Graph,
    pub defaults: Defaults,
    #[cfg(feature = "git")]
    _files: tempfile::TempDir,
}

/// The project at `root` as of `rev`: never, without the `git` feature.
#[cfg(not(feature = "git"))]
pub fn load(_root: &Path, _rev: &str) -> Result<Revision, RevisionError> {
    Err(RevisionError::NotBuilt)
}

/// The files changed since `rev`: never known, without the `git` feature.
#[cfg(not(feature = "git"))]
pub fn changed(_root: &Path, _rev: &str) -> Result<Vec<String>, RevisionError> {
    Err(RevisionError::NotBuilt)
}

/// A revision's tree: the repository, the project's folder within it (`/` separators) and
/// every entry of the tree.
#[cfg(feature = "git")]
struct Tree {
    repo: gix::Repository,
    prefix: String,
    records: Vec<gix::traverse::tree::recorder::Entry>,
}

/// The tree of `rev` in the repository that holds `root`.
#[cfg(feature = "git")]
fn tree(root: &Path, rev: &str) -> Result<Tree, RevisionError> {
    let shown = root.display().to_string();
    let repo = gix::discover(root).map_err(|e| RevisionError::NoRepository {
        root: shown.clone(),
        source: e.into(),
    })?;
    let workdir = repo
        .workdir()
        .ok_or_else(|| RevisionError::Bare(shown.clone()))?;
    let read = |e: Cause| RevisionError::Read {
        rev: rev.to_string(),
        source: e,
    };
    let top = workdir.canonicalize().map_err(|e| read(e.into()))?;
    let here = root.canonicalize().map_err(|e| read(e.into()))?;
    let prefix: String = here
        .strip_prefix(&top)
        .map_err(|e| read(e.into()))?
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    let tree = repo
        .rev_parse_single(rev)
        .map_err(|e| RevisionError::Unknown {
            rev: rev.to_string(),
            source: e.into(),
        })?
        .object()
        .map_err(|e| read(e.into()))?
        .peel_to_tree()
        .map_err(|e| read(e.into()))?;
    let mut recorder = gix::traverse::tree::Recorder::default();
    tree.traverse()
        .breadthfirst(&mut recorder)
        .map_err(|e| read(e.into()))?;
    drop(tree);
    Ok(Tree {
        repo,
        prefix,
        records: recorder.records,
    })
}

/// The project at `root` as of `rev` (anything `git rev-parse` accepts).
#[cfg(feature = "git")]
pub fn load(root: &Path, rev: &str) -> Result<Revision, RevisionError> {
    let read = |e: Cause| RevisionError::Read {
        rev: rev.to_string(),
        source: e,
    };
    let Tree {
        repo,
        prefix,
        records,
    } = tree(root, rev)?;
    let files = tempfile::Builder::new()
        .prefix("brief-rev-")
        .tempdir()
        .map_err(|e| read(e.into()))?;
    for entry in &records {
        if !entry.mode.is_blob() {
            continue;
        }
        let path = String::from_utf8_lossy(entry.filepath.as_ref()).into_owned();
        let Some(relative) = beneath(&path, &prefix) else {
            continue;
        };
        // The derived cache is never part of a revision's sources.
        if relative.starts_with(".brief/cache/") {
            continue;
        }
        let out = safe_join(files.path(), relative)
            .ok_or_else(|| read("a path leaves the tree".into()))?;
        if let Some(parent) = out.parent() {
            std::fs::create_dir_all(parent).map_err(|e| read(e.into()))?;
        }
        let object = repo.find_object(entry.oid).map_err(|e| read(e.into()))?;
        std::fs::write(&out, &object.data).map_err(|e| read(e.into()))?;
    }
    let project = brief_project::Project::at(files.path()).map_err(|e| RevisionError::Project {
        rev: rev.to_string(),
        source: e,
    })?;
    let loaded = project.load();
    if let Some(problem) = loaded.errors().next() {
        return Err(RevisionError::Problem {
            rev: rev.to_string(),
            problem: problem.clone(),
        });
    }
    Ok(Revision {
        graph: loaded.graph,
        defaults: project.defaults.clone(),
        _files: files,
    })
}

/// The files of the project at `root` whose content in the working tree differs from `rev`
/// (anything `git rev-parse` accepts), root-relative and sorted: files changed, and files
/// deleted since. Files git does not track are not listed (as `git diff REV` does not), and
/// content is compared as stored (no line-ending or LFS filters). `brief context --changed`
/// takes them as its targets.
#[cfg(feature = "git")]
pub fn changed(root: &Path, rev: &str) -> Result<Vec<String>, RevisionError> {
    let read = |e: Cause| RevisionError::Read {
        rev: rev.to_string(),
        source: e,
    };
    let Tree {
        repo,
        prefix,
        records,
    } = tree(root, rev)?;
    let guard = brief_root::Root::open(root).map_err(|e| read(e.into()))?;
    let kind = repo.object_hash();
    let mut out = Vec::new();
    for entry in &records {
        if !entry.mode.is_blob() {
            continue;
        }
        let path = String::from_utf8_lossy(entry.filepath.as_ref()).into_owned();
        let Some(relative) = beneath(&path, &prefix) else {
            continue;
        };
        let Some(file) = safe_join(root, relative) else {
            continue;
        };
        let same = match guard.read(&file) {
            Ok((bytes, _)) => gix::objs::compute_hash(kind, gix::objs::Kind::Blob, &bytes)
                .is_ok_and(|id| id == entry.oid),
            // Gone, or no longer a file brief may read: changed either way.
            Err(_) => false,
        };
        if !same {
            out.push(relative.to_string());
        }
    }
    out.sort();
    Ok(out)
}

/// `path` relative to `prefix` (a folder), if it lies beneath it.
#[cfg(feature = "git")]
fn beneath<'a>(path: &'a str, prefix: &str) -> Option<&'a str> {
    if prefix.is_empty() {
        return Some(path);
    }
    path.strip_prefix(prefix)?.strip_prefix('/')
}

/// `base/relative`, refusing `..`, absolute and empty components (a tree entry is a name, but
/// a hostile repository is still input).
#[cfg(feature = "git")]
fn safe_join(base: &Path, relative: &str) -> Option<PathBuf> {
    let mut out = base.to_path_buf();
    for part in relative.split('/') {
        if part.is_empty() || part == "." || part == ".." || part.contains('\\') {
            return None;
        }
        out.push(part);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    /// Without gix, a revision is refused with what to do, never read some other way.
    #[cfg(not(feature = "git"))]
    #[test]
    fn without_git_every_revision_says_how_to_get_it() {
        let dir = tempfile::tempdir().unwrap();
        let loaded = super::load(dir.path(), "HEAD");
        assert!(matches!(loaded, Err(super::RevisionError::NotBuilt)));
        let changed = super::changed(dir.path(), "HEAD").unwrap_err();
        assert!(changed.to_string().contains("cargo feature `git`"));
    }

    #[cfg(feature = "git")]
    #[test]
    fn outside_a_repository_is_no_repository() {
        let dir = tempfile::tempdir().unwrap();
        let loaded = super::load(dir.path(), "HEAD");
        assert!(matches!(
            loaded,
            Err(super::RevisionError::NoRepository { .. })
        ));
    }
}
