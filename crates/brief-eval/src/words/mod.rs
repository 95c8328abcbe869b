//! The evaluation of tasks in words: tickets such as "drop support for Python 3.8" asked of
//! real repositories (and of this crate's fixtures in the same shapes), with the documents an
//! agent must see labelled by reading the repositories.
//!
//! For every task and budget, each [`Method`] fills the budget and the document is scored
//! against the labels ([`score`]): start hit, must recall (with text, and for brief also
//! named at any detail), never-documents included, and the must documents' share of the
//! tokens. [`WordReport::markdown`] prints the tables.
//!
//! The repositories are not part of this project: the task files (`words/*.json`) name each
//! one and its commit, [`materialise`] writes the commits from local git mirrors, and
//! [`evaluate`] reads the folder they were written to.

mod labels;
mod materialise;
mod methods;
mod project;
mod report;
mod score;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(crate) use labels::Label;
pub use labels::{read, read_dir, Task, TaskFile};
pub use materialise::{git_dir, materialise, Written};
pub use methods::{Method, Shown};
pub use project::Meaning;
pub(crate) use project::WordProject;
pub(crate) use report::RepoLine;
pub use report::{metric, Row, WordReport};
pub use score::{score, Resolved};

/// The budgets measured, in tokens.
pub const BUDGETS: [usize; 4] = [1000, 2000, 4000, 8000];

/// How many of each method's best files are searched for the labelled start: what a
/// re-ranking of that many could at best put first.
pub const RANKED: usize = 20;

/// What to measure.
#[derive(Debug, Clone)]
pub struct Options {
    /// The budgets, in tokens.
    pub budgets: Vec<usize>,
    /// The methods compared.
    pub methods: Vec<Method>,
    /// brief's `--seeds` (`None`: its default).
    pub seeds: Option<usize>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            budgets: BUDGETS.to_vec(),
            methods: Method::ALL.to_vec(),
            seeds: None,
        }
    }
}

/// Measures every task of `files` on the checkouts under `repos` (`repos/owner+name`).
/// `progress` hears one line per project opened.
pub fn evaluate(
    repos: &Path,
    files: &[TaskFile],
    options: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<WordReport, String> {
    let mut report = WordReport::default();
    for file in files {
        let checkout = repos.join(file.folder());
        if !checkout.is_dir() {
            return Err(format!(
                "{} is missing: materialise {} at {} there first (`brief-eval words fetch`)",
                checkout.display(),
                file.repo,
                file.commit.as_deref().unwrap_or("its commit")
            ));
        }
        measure_file(&checkout, file, options, progress, &mut report)?;
    }
    Ok(report)
}

fn measure_file(
    checkout: &Path,
    file: &TaskFile,
    options: &Options,
    progress: &mut dyn FnMut(&str),
    report: &mut WordReport,
) -> Result<(), String> {
    let mut projects: BTreeMap<PathBuf, WordProject> = BTreeMap::new();
    for task in &file.tasks {
        let root = file.root_of(checkout, task);
        if !projects.contains_key(&root) {
            progress(&format!("{}: opening {}", file.repo, root.display()));
            let mut project = WordProject::open(&root)?;
            if options.methods.iter().any(|m| m.needs_vectors()) {
                let sent = project
                    .embed_all()
                    .map_err(|e| format!("{}: {e}", root.display()))?;
                progress(&format!("{}: {sent} texts embedded", file.repo));
            }
            projects.insert(root.clone(), project);
        }
        let Some(project) = projects.get_mut(&root) else {
            continue;
        };
        let resolved = resolve(project, &root, task, file, report)?;
        report
            .wording
            .push(title_share(&task.task, project, &resolved));
        for &method in &options.methods {
            if let Some(order) = method.ranking(project, &task.task, RANKED) {
                let rank = order
                    .iter()
                    .position(|file| resolved.start.contains(&Some(*file)));
                let key = (file.name().to_string(), task.id.clone());
                report
                    .start_ranks
                    .entry(method)
                    .or_default()
                    .insert(key, rank);
            }
        }
        for &budget in &options.budgets {
            for &method in &options.methods {
                let shown = method.fill(project, &task.task, budget, options.seeds);
                if shown.used > budget {
                    return Err(format!(
                        "{} {} at {budget}: {} used {} tokens",
                        file.repo,
                        task.id,
                        method.name(),
                        shown.used
                    ));
                }
                report.push(file, task, method, budget, project, &resolved, &shown);
            }
        }
    }
    let files = projects.values().map(|p| p.files().len()).sum();
    report.repos.push(RepoLine {
        name: file.name().to_string(),
        repo: file.repo.clone(),
        commit: file.commit.clone(),
        shape: file.shape.clone(),
        tasks: file.tasks.len(),
        files,
    });
    Ok(())
}

/// Words that name no topic, left out when comparing a task's words with titles.
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "from", "with", "into", "that", "this", "their", "its", "our", "your",
    "when", "each", "every", "all", "new", "can", "how", "what", "who", "are", "was", "not",
];

/// The share of the task's words (three letters or more, stop words aside) found in the
/// titles brief gives its start documents: how much a task reuses the words of the document
/// it should start from.
fn title_share(task: &str, project: &WordProject, labels: &Resolved) -> f64 {
    let words = |text: &str| -> std::collections::BTreeSet<String> {
        crate::bm25::terms(text)
            .filter(|t| t.chars().count() >= 3 && !STOP_WORDS.contains(&t.as_str()))
            .collect()
    };
    let asked = words(task);
    let titles: std::collections::BTreeSet<String> = labels
        .start
        .iter()
        .flatten()
        .flat_map(|&file| words(project.title(file)))
        .collect();
    if asked.is_empty() {
        return 0.0;
    }
    asked.intersection(&titles).count() as f64 / asked.len() as f64
}

/// The task's labels as files of `project`. A labelled path that is no file of the checkout
/// is an error (the label is wrong); one brief does not read is noted in the report.
fn resolve(
    project: &WordProject,
    root: &Path,
    task: &Task,
    file: &TaskFile,
    report: &mut WordReport,
) -> Result<Resolved, String> {
    let mut one = |label: &Label| -> Result<Option<usize>, String> {
        if !root.join(&label.path).is_file() {
            return Err(format!(
                "{} {}: the labelled file {} is not in {}",
                file.repo,
                task.id,
                label.path,
                root.display()
            ));
        }
        let found = project.file_index(&label.path);
        if found.is_none() {
            let line = format!("{} {}: {}", file.name(), task.id, label.path);
            if !report.unread.contains(&line) {
                report.unread.push(line);
            }
        }
        Ok(found)
    };
    let mut all = |labels: &[Label]| labels.iter().map(&mut one).collect::<Result<Vec<_>, _>>();
    Ok(Resolved {
        start: all(&task.start)?,
        must: all(&task.must)?,
        never: all(&task.never)?,
    })
}
