//! The task files: one JSON file per repository, naming the repository, the commit measured
//! and the tasks written for it, each with its labelled documents.
//!
//! ```json
//! {
//!   "repo": "npryce/adr-tools",
//!   "commit": "b3279baf9be2207d1a4f4bbd608fd0b591c72aee",
//!   "shape": "Nygard ADRs in doc/adr (adr-tools)",
//!   "note": "How the labels were chosen.",
//!   "tasks": [
//!     { "id": "adr-tools-01", "task": "write dates the international way",
//!       "start": [{ "path": "doc/adr/0008-….md", "why": "the decision on date formats" }],
//!       "must": [{ "path": "…", "why": "…" }],
//!       "never": [{ "path": "…", "why": "…" }] }
//!   ]
//! }
//! ```
//!
//! Paths are relative to the project root brief opens: the checkout's folder, or `root`
//! inside it (per file, or per task for a repository holding several projects).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One labelled document: a file of the repository and why it carries its label.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Label {
    /// Relative to the project root, `/`-separated.
    pub path: String,
    /// One line: why this document is labelled so.
    pub why: String,
}

/// One task, written the way a ticket is.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// Unique in its file; the table's per-task lines name it.
    pub id: String,
    /// The ticket text: brief's target and the other methods' query.
    pub task: String,
    /// The project root inside the checkout for this task, when it is not the file's.
    #[serde(default)]
    pub root: Option<String>,
    /// The documents an agent should start from.
    pub start: Vec<Label>,
    /// The documents an agent must see: the decisions, policies and agent-file rules that
    /// govern the work.
    pub must: Vec<Label>,
    /// Documents that would mislead: superseded or rejected decisions where a current one
    /// exists, unrelated hubs.
    #[serde(default)]
    pub never: Vec<Label>,
}

/// One repository's tasks.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct TaskFile {
    /// `owner/name` on GitHub (`fixture/name` for the fixtures of this crate); its checkout
    /// is the folder `owner+name` of the repositories' folder.
    pub repo: String,
    /// The commit measured (absent for fixtures, which live in this repository).
    #[serde(default)]
    pub commit: Option<String>,
    /// The repository's shape, for the table (`Nygard ADRs in doc/adr`, …).
    pub shape: String,
    /// The project root inside the checkout (default: the checkout itself).
    #[serde(default)]
    pub root: Option<String>,
    /// How the tasks and labels were written.
    pub note: String,
    /// The tasks.
    pub tasks: Vec<Task>,
}

impl TaskFile {
    /// The checkout's folder name: `owner+name`.
    pub fn folder(&self) -> String {
        self.repo.replace('/', "+")
    }

    /// The short name the table uses: the repository's name.
    pub fn name(&self) -> &str {
        self.repo.rsplit('/').next().unwrap_or(&self.repo)
    }

    /// The project root of `task` inside `checkout`.
    pub fn root_of(&self, checkout: &Path, task: &Task) -> PathBuf {
        match task.root.as_deref().or(self.root.as_deref()) {
            Some(sub) if !sub.is_empty() => checkout.join(sub),
            _ => checkout.to_path_buf(),
        }
    }

    /// Checks what needs no checkout: ids unique, texts and labels present, no path twice
    /// in one task, paths relative and `/`-separated.
    pub fn validate(&self) -> Result<(), String> {
        if !self.repo.contains('/') {
            return Err(format!("repo `{}` is not owner/name", self.repo));
        }
        if let Some(commit) = &self.commit {
            if commit.len() != 40 || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(format!("commit `{commit}` is not 40 hex digits"));
            }
        }
        let mut ids = BTreeSet::new();
        for task in &self.tasks {
            if !ids.insert(task.id.as_str()) {
                return Err(format!("task id `{}` is used twice", task.id));
            }
            validate_task(task).map_err(|e| format!("task `{}`: {e}", task.id))?;
        }
        Ok(())
    }
}

fn validate_task(task: &Task) -> Result<(), String> {
    if task.task.trim().is_empty() {
        return Err("the task text is empty".into());
    }
    if task.start.is_empty() || task.must.is_empty() {
        return Err("every task needs at least one `start` and one `must` document".into());
    }
    let mut seen = BTreeSet::new();
    for label in task.start.iter().chain(&task.must).chain(&task.never) {
        if label.why.trim().is_empty() {
            return Err(format!("`{}` has no reason", label.path));
        }
        let bad = label.path.is_empty()
            || label.path.starts_with('/')
            || label.path.contains('\\')
            || label
                .path
                .split('/')
                .any(|part| part == ".." || part == ".");
        if bad {
            return Err(format!(
                "`{}` is not a relative `/`-separated path",
                label.path
            ));
        }
        seen.insert(label.path.as_str());
    }
    // A start document may also be a must one; never-documents must be neither.
    for never in &task.never {
        let labelled = task
            .start
            .iter()
            .chain(&task.must)
            .any(|l| l.path == never.path);
        if labelled {
            return Err(format!(
                "`{}` is both labelled never and start/must",
                never.path
            ));
        }
    }
    let must: BTreeSet<&str> = task.must.iter().map(|l| l.path.as_str()).collect();
    if must.len() != task.must.len() {
        return Err("a must document is listed twice".into());
    }
    Ok(())
}

/// Reads every `*.json` task file directly in `dir`, in file-name order, each validated.
pub fn read_dir(dir: &Path) -> Result<Vec<TaskFile>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_file() && path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    paths.iter().map(|path| read(path)).collect()
}

/// Reads and validates one task file.
pub fn read(path: &Path) -> Result<TaskFile, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file: TaskFile = serde_json::from_str(&text)
        .map_err(|e| format!("{}:{}:{}: {e}", path.display(), e.line(), e.column()))?;
    file.validate()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(tasks: &str) -> Result<TaskFile, String> {
        let text = format!(r#"{{"repo": "o/n", "shape": "s", "note": "n", "tasks": [{tasks}]}}"#);
        let file: TaskFile = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        file.validate().map(|()| file)
    }

    const TASK: &str = r#"{"id": "t", "task": "do it",
        "start": [{"path": "a.md", "why": "w"}], "must": [{"path": "a.md", "why": "w"}]}"#;

    #[test]
    fn a_minimal_file_reads_and_names_its_folder() {
        let file = file(TASK).unwrap();
        assert_eq!(file.folder(), "o+n");
        assert_eq!(file.name(), "n");
        assert!(file.tasks[0].never.is_empty());
    }

    #[test]
    fn bad_labels_are_refused_with_the_reason() {
        let twice = format!("{TASK}, {TASK}");
        assert!(file(&twice).unwrap_err().contains("used twice"));
        let up = TASK.replace(
            "\"path\": \"a.md\", \"why\": \"w\"}]}",
            "\"path\": \"../a.md\", \"why\": \"w\"}]}",
        );
        assert!(file(&up).unwrap_err().contains("relative"));
        let never = TASK.replace(
            "}]}",
            "}], \"never\": [{\"path\": \"a.md\", \"why\": \"x\"}]}",
        );
        assert!(file(&never).unwrap_err().contains("both"));
        let unknown = TASK.replace("\"id\"", "\"extra\": 1, \"id\"");
        assert!(file(&unknown).unwrap_err().contains("unknown field"));
    }
}
