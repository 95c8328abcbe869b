//! Loading: every source of a project becomes [`Node`]s of the one [`Graph`].
//!
//! Loaders never stop at the first bad file: each returns the nodes it could read and a
//! [`Problem`] per file it could not, so `check` can report everything at once while
//! `context` refuses to work on a graph with errors.

pub mod artifacts;
pub mod frontmatter;
pub mod specgraph;
pub mod tana;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::model::{DuplicateId, Graph, Location, Node};
use crate::project::{Project, Source};

/// How bad a load problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

/// A problem found while loading, located in a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub severity: Severity,
    pub location: Location,
    pub message: String,
}

impl Problem {
    /// An error at a location.
    pub fn error(location: Location, message: impl Into<String>) -> Problem {
        Problem {
            severity: Severity::Error,
            location,
            message: message.into(),
        }
    }

    /// A warning at a location.
    pub fn warning(location: Location, message: impl Into<String>) -> Problem {
        Problem {
            severity: Severity::Warning,
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
    pub nodes: Vec<Node>,
    pub problems: Vec<Problem>,
}

/// The loaded project: its graph and every problem met on the way, sorted by location.
#[derive(Debug)]
pub struct Loaded {
    pub graph: Graph,
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

/// Loads every source the project declares or was discovered with.
pub fn load(project: &Project) -> Loaded {
    let mut nodes = Vec::new();
    let mut problems = Vec::new();
    for source in &project.sources {
        let out = match source {
            Source::SpecGraph { manifest } => specgraph::load(&project.root, manifest),
            Source::Contextia { dir } => artifacts::load_contextia(&project.root, dir),
            Source::Folder { dir } => artifacts::load_folder(&project.root, dir),
            Source::Tana { export } => tana::load(&project.root, export),
        };
        nodes.extend(out.nodes);
        problems.extend(out.problems);
    }
    let (graph, duplicates) = Graph::build(nodes);
    problems.extend(duplicates.into_iter().map(duplicate_problem));
    problems.sort_by(|a, b| {
        a.location
            .cmp(&b.location)
            .then_with(|| a.message.cmp(&b.message))
    });
    Loaded { graph, problems }
}

fn duplicate_problem(dup: DuplicateId) -> Problem {
    Problem::error(
        dup.second,
        format!("duplicate id `{}` (first defined at {})", dup.id, dup.first),
    )
}

/// A path relative to the root, with `/` separators, for messages and output.
pub(crate) fn rel_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Reads a UTF-8 file that must lie inside the root (symlinks are resolved first).
pub fn read_text(root: &Path, path: &Path) -> Result<String, Problem> {
    let rel = rel_path(root, path);
    let inside = match std::fs::symlink_metadata(path) {
        Err(err) => {
            return Err(Problem::error(
                Location::file(&rel),
                format!("cannot read file: {}", io_message(&err)),
            ))
        }
        // A symlinked file is checked where it points; otherwise its folder is.
        Ok(meta) if meta.file_type().is_symlink() => resolves_inside(root, path),
        Ok(_) => path.parent().is_none_or(|dir| resolves_inside(root, dir)),
    };
    if !inside {
        return Err(Problem::error(
            Location::file(&rel),
            "file resolves outside the project root (symlink?); not read",
        ));
    }
    let bytes = std::fs::read(path).map_err(|err| {
        Problem::error(
            Location::file(&rel),
            format!("cannot read file: {}", io_message(&err)),
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|err| {
        let offset = err.utf8_error().valid_up_to();
        let before = &err.as_bytes()[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        let col = before.iter().rev().take_while(|&&b| b != b'\n').count() as u32 + 1;
        Problem::error(
            Location {
                path: rel.clone(),
                line,
                col,
            },
            "file is not valid UTF-8",
        )
    })?;
    Ok(text
        .strip_prefix('\u{feff}')
        .map(str::to_string)
        .unwrap_or(text))
}

/// Whether `path` resolves (through symlinks) to somewhere under `root`. Folder answers are
/// remembered: a large project has a few folders and a hundred thousand files.
fn resolves_inside(root: &Path, path: &Path) -> bool {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static SEEN: OnceLock<Mutex<HashMap<(PathBuf, PathBuf), bool>>> = OnceLock::new();
    let key = (root.to_path_buf(), path.to_path_buf());
    let seen = SEEN.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(&known) = seen.lock().ok().and_then(|m| m.get(&key).copied()).as_ref() {
        return known;
    }
    let inside = match (path.canonicalize(), root.canonicalize()) {
        (Ok(real), Ok(real_root)) => real.starts_with(real_root),
        (Err(_), _) => false,
        (_, Err(_)) => true,
    };
    if path.is_dir() {
        if let Ok(mut map) = seen.lock() {
            map.insert(key, inside);
        }
    }
    inside
}

fn io_message(err: &std::io::Error) -> String {
    match err.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => err.to_string(),
    }
}

/// Every `*.md` file under `dir`, sorted by path, skipping hidden folders, `cache/` inside
/// `.brief/`, and symlinked folders (which could lead outside the root).
pub fn markdown_files(dir: &Path, skip: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name().to_string_lossy().to_string();
            if file_type.is_dir() {
                if !name.starts_with('.') && !skip.contains(&name.as_str()) {
                    stack.push(path);
                }
            } else if (file_type.is_file() || file_type.is_symlink())
                && name.to_ascii_lowercase().ends_with(".md")
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}
