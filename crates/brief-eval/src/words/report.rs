//! The measurements of a run and their Markdown tables: overall per budget, per repository,
//! and per task with `verbose`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::labels::{Task, TaskFile};
use super::methods::{Method, Shown};
use super::project::{Presence, WordProject};
use super::score::{score, Resolved, TaskScore};

/// One repository (its project roots together) of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoLine {
    /// The table's name for it.
    pub name: String,
    /// `owner/name`.
    pub repo: String,
    /// The commit measured.
    pub commit: Option<String>,
    /// Its shape.
    pub shape: String,
    /// Tasks measured.
    pub tasks: usize,
    /// Files brief reads in it.
    pub files: usize,
}

/// One measurement: one method's document for one task at one budget.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The repository's table name.
    pub repo: String,
    /// The task's id.
    pub task: String,
    /// The task's text.
    pub text: String,
    /// The method.
    pub method: Method,
    /// The budget.
    pub budget: usize,
    /// The metrics.
    pub score: TaskScore,
    /// How many must documents the task has.
    pub must: usize,
    /// The must documents not shown with text (paths).
    pub missed: Vec<String>,
    /// The never documents shown with text (paths).
    pub never: Vec<String>,
    /// Where the document starts: brief's target id, else the start file's path.
    pub start: Option<String>,
    /// brief: the seeds its JSON audit lists, when it lists them.
    pub seeds: Vec<String>,
    /// brief: why there is no document.
    pub failure: Option<(u8, String)>,
}

/// Everything one run measured.
#[derive(Debug, Default)]
pub struct WordReport {
    /// The repositories, in the order measured.
    pub repos: Vec<RepoLine>,
    /// The measurements.
    pub rows: Vec<Row>,
    /// Labelled files brief does not read (`repo task: path`): no method can show them.
    pub unread: Vec<String>,
    /// Per task: the share of its words found in its start documents' titles.
    pub wording: Vec<f64>,
    /// Per method with a ranking, per task (repository, task id): where the first labelled
    /// start file stands among the method's first [`super::RANKED`] files (0 is first;
    /// `None` when not among them).
    pub start_ranks: BTreeMap<Method, BTreeMap<(String, String), Option<usize>>>,
}

/// The depths the table of start ranks counts within.
const RANK_DEPTHS: [usize; 6] = [1, 2, 3, 5, 10, super::RANKED];

/// The metrics of the tables, each a function of a row's score.
pub mod metric {
    use super::TaskScore;

    /// One metric of a row (`None` where it does not apply).
    pub type Metric = fn(&TaskScore) -> Option<f64>;

    /// Start hit, 1 or 0 (`None` for a method without a start).
    pub const START: Metric = |s| s.start_hit.map(|hit| if hit { 1.0 } else { 0.0 });
    /// Must recall with text.
    pub const MUST_TEXT: Metric = |s| Some(s.must_text);
    /// Must recall at any detail.
    pub(crate) const MUST_NAMED: Metric = |s| Some(s.must_named);
    /// Never documents shown with text (`None` without never labels).
    pub const NEVER: Metric = |s| s.never_text;
    /// Must documents' share of the tokens.
    pub(crate) const SHARE: Metric = |s| Some(s.must_share);
}

use metric::{Metric, MUST_NAMED, MUST_TEXT, NEVER, SHARE, START};

fn pct(value: Option<f64>) -> String {
    value.map_or("–".to_string(), |v| format!("{:.0} %", 100.0 * v))
}

impl WordReport {
    /// Records one measurement.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push(
        &mut self,
        file: &TaskFile,
        task: &Task,
        method: Method,
        budget: usize,
        project: &WordProject,
        labels: &Resolved,
        shown: &Shown,
    ) {
        let with_text = |f: &Option<usize>| {
            f.and_then(|f| shown.files.get(&f))
                .is_some_and(|s| s.presence == Presence::Text)
        };
        let paths = |labels: &[super::Label], files: &[Option<usize>], want: bool| {
            labels
                .iter()
                .zip(files)
                .filter(|(_, f)| with_text(f) == want)
                .map(|(l, f)| match f {
                    Some(f) if !want && shown.left_out.contains(f) => {
                        format!("{} (selected, left out for room)", l.path)
                    }
                    _ => l.path.clone(),
                })
                .collect()
        };
        let start = shown
            .target
            .clone()
            .or_else(|| shown.start.and_then(|f| project.files().get(f).cloned()));
        self.rows.push(Row {
            repo: file.name().to_string(),
            task: task.id.clone(),
            text: task.task.clone(),
            method,
            budget,
            score: score(shown, labels, method.has_start()),
            must: labels.must.len(),
            missed: paths(&task.must, &labels.must, false),
            never: paths(&task.never, &labels.never, true),
            start,
            seeds: shown.seeds.clone(),
            failure: shown.failure.clone(),
        });
    }

    /// The mean of `metric` over the rows of `method` at `budget` (of `repo` when given).
    pub fn mean(
        &self,
        repo: Option<&str>,
        method: Method,
        budget: usize,
        metric: Metric,
    ) -> Option<f64> {
        let (sum, n) = self
            .rows
            .iter()
            .filter(|r| r.method == method && r.budget == budget)
            .filter(|r| repo.is_none_or(|name| r.repo == name))
            .filter_map(|r| metric(&r.score))
            .fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
        (n > 0).then(|| sum / n as f64)
    }

    /// The report as Markdown: the repositories, the overall table per budget, the table per
    /// repository, brief's runs without a document, unread labels, and with `verbose` a line
    /// per task and budget.
    pub fn markdown(&self, budgets: &[usize], methods: &[Method], verbose: bool) -> String {
        let mut out = String::new();
        self.repositories(&mut out);
        self.overall(&mut out, budgets, methods);
        self.per_repository(&mut out, budgets, methods);
        self.start_ranks(&mut out, methods);
        self.failures(&mut out);
        if !self.unread.is_empty() {
            let _ = writeln!(
                out,
                "\nLabelled files brief does not read ({}; no method can show them):\n",
                self.unread.len()
            );
            for line in &self.unread {
                let _ = writeln!(out, "- {line}");
            }
        }
        if verbose {
            self.per_task(&mut out, budgets, methods);
        }
        out
    }

    fn repositories(&self, out: &mut String) {
        let tasks: usize = self.repos.iter().map(|r| r.tasks).sum();
        let _ = writeln!(out, "Repositories ({tasks} tasks):\n");
        let _ = writeln!(
            out,
            "| repository | commit | shape | tasks | files brief reads |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|");
        for r in &self.repos {
            let commit = r.commit.as_deref().map_or("–", |c| &c[..c.len().min(12)]);
            let _ = writeln!(
                out,
                "| {} | `{commit}` | {} | {} | {} |",
                r.repo, r.shape, r.tasks, r.files
            );
        }
        if !self.wording.is_empty() {
            let mean = self.wording.iter().sum::<f64>() / self.wording.len() as f64;
            let half = self.wording.iter().filter(|&&w| w >= 0.5).count();
            let _ = writeln!(
                out,
                "\nTask wording: on average {} of a task's words (three letters or more, stop \
                 words aside) are in the titles of its start documents; {half} of {} tasks \
                 reuse half of their words or more.",
                pct(Some(mean)),
                self.wording.len()
            );
        }
    }

    fn overall(&self, out: &mut String, budgets: &[usize], methods: &[Method]) {
        let _ = writeln!(
            out,
            "\nAll tasks, mean per task (cl100k):\n\n\
             | budget | method | start hit | must recall (text) | must named (any detail) | never included | must share of tokens |\n\
             |---|---|---|---|---|---|---|"
        );
        for &budget in budgets {
            for &method in methods {
                let cell = |metric| pct(self.mean(None, method, budget, metric));
                let _ = writeln!(
                    out,
                    "| {budget} | {} | {} | {} | {} | {} | {} |",
                    method.name(),
                    cell(START),
                    cell(MUST_TEXT),
                    cell(MUST_NAMED),
                    cell(NEVER),
                    cell(SHARE)
                );
            }
        }
    }

    fn per_repository(&self, out: &mut String, budgets: &[usize], methods: &[Method]) {
        let names: Vec<&str> = methods.iter().map(|m| m.name()).collect();
        let _ = write!(
            out,
            "\nPer repository; each cell is {}. Must recall is with text; start hit and never \
             included at {}:\n\n| repository | tasks | start hit |",
            names.join(" / "),
            reference(budgets)
        );
        for budget in budgets {
            let _ = write!(out, " must recall {budget} |");
        }
        let _ = writeln!(
            out,
            " never included |\n|---|---|---|{}---|",
            "---|".repeat(budgets.len())
        );
        let at = reference(budgets);
        for repo in &self.repos {
            let cells = |budget, metric| {
                methods
                    .iter()
                    .map(|&m| pct(self.mean(Some(&repo.name), m, budget, metric)))
                    .collect::<Vec<_>>()
                    .join(" / ")
            };
            let _ = write!(
                out,
                "| {} | {} | {} |",
                repo.name,
                repo.tasks,
                cells(at, START)
            );
            for &budget in budgets {
                let _ = write!(out, " {} |", cells(budget, MUST_TEXT));
            }
            let _ = writeln!(out, " {} |", cells(at, NEVER));
        }
    }

    /// How many tasks have a labelled start among each method's first k files: the start
    /// hit a perfect re-ranking of those k files would reach, so what the words can give.
    fn start_ranks(&self, out: &mut String, methods: &[Method]) {
        if self.start_ranks.is_empty() {
            return;
        }
        let _ = write!(
            out,
            "\nWhere the labelled start stands among each method's best files (brief: the files \
             of its search hits, the order its seeds come from), share of tasks with a start \
             within the first k files:\n\n| method |"
        );
        for k in RANK_DEPTHS {
            let _ = write!(out, " k = {k} |");
        }
        let _ = writeln!(out, "\n|---|{}", "---|".repeat(RANK_DEPTHS.len()));
        for method in methods {
            let Some(ranks) = self.start_ranks.get(method) else {
                continue;
            };
            let _ = write!(out, "| {} |", method.name());
            for k in RANK_DEPTHS {
                let within = ranks.values().filter(|r| r.is_some_and(|r| r < k)).count();
                let share = (!ranks.is_empty()).then(|| within as f64 / ranks.len() as f64);
                let _ = write!(out, " {} |", pct(share));
            }
            let _ = writeln!(out);
        }
    }

    fn failures(&self, out: &mut String) {
        let runs = self.rows.iter().filter(|r| r.method == Method::Brief);
        let total = runs.clone().count();
        // The same failure on every run of a repository is said once, with its count.
        let mut failed: BTreeMap<(&str, u8, &str), usize> = BTreeMap::new();
        for row in runs {
            if let Some((exit, line)) = &row.failure {
                *failed.entry((&row.repo, *exit, line)).or_default() += 1;
            }
        }
        let without: usize = failed.values().sum();
        let _ = writeln!(
            out,
            "\nbrief gave a document in {} of {total} runs.",
            total - without
        );
        for ((repo, exit, line), runs) in failed {
            let _ = writeln!(out, "- {repo}: {runs} runs, exit {exit}: {line}");
        }
    }

    fn per_task(&self, out: &mut String, budgets: &[usize], methods: &[Method]) {
        let _ = writeln!(out, "\nPer task:");
        let mut last = None;
        for row in self.rows.iter().filter(|r| r.method == methods[0]) {
            if last != Some((&row.repo, &row.task)) {
                let _ = write!(out, "\n- **{} {}**: \"{}\"", row.repo, row.task, row.text);
                self.ranks_of(out, &row.repo, &row.task, methods);
                last = Some((&row.repo, &row.task));
            }
            if !budgets.contains(&row.budget) {
                continue;
            }
            let parts: Vec<String> = methods
                .iter()
                .filter_map(|&m| {
                    self.rows.iter().find(|r| {
                        r.method == m
                            && r.budget == row.budget
                            && r.repo == row.repo
                            && r.task == row.task
                    })
                })
                .map(describe)
                .collect();
            let _ = writeln!(out, "  - {}: {}", row.budget, parts.join("; "));
        }
    }

    /// Ends a task's line with where each ranking method put its labelled start.
    fn ranks_of(&self, out: &mut String, repo: &str, task: &str, methods: &[Method]) {
        let key = (repo.to_string(), task.to_string());
        let ranks: Vec<String> = methods
            .iter()
            .filter_map(|m| Some((m, self.start_ranks.get(m)?.get(&key)?)))
            .map(|(m, rank)| match rank {
                Some(r) => format!("{} #{}", m.name(), r + 1),
                None => format!("{} beyond #{}", m.name(), super::RANKED),
            })
            .collect();
        if !ranks.is_empty() {
            let _ = write!(out, " (labelled start's file ranked {})", ranks.join(", "));
        }
        let _ = writeln!(out);
    }
}

/// The budget the per-repository table gives start hit and never included at: 2,000 when
/// measured, else the first.
fn reference(budgets: &[usize]) -> usize {
    if budgets.contains(&2000) {
        2000
    } else {
        budgets.first().copied().unwrap_or(0)
    }
}

/// One method's document for one task, in a few words.
fn describe(row: &Row) -> String {
    let mut text = row.method.name().to_string();
    if let Some(hit) = row.score.start_hit {
        let mark = if hit { "start ✓" } else { "start ✗" };
        let from = row.start.as_deref().unwrap_or("nothing");
        let _ = write!(text, " {mark} ({from})");
    }
    if row.seeds.len() > 1 {
        let _ = write!(text, ", seeds {}", row.seeds.join(", "));
    }
    let shown = row.must - row.missed.len();
    let _ = write!(text, ", must {shown}/{}", row.must);
    if matches!(row.method, Method::Brief | Method::BriefEmbeddings) {
        let named = (row.score.must_named * row.must as f64).round() as usize;
        let _ = write!(text, " ({named} named)");
    }
    if !row.missed.is_empty() {
        let _ = write!(text, ", missed {}", row.missed.join(", "));
    }
    if !row.never.is_empty() {
        let _ = write!(text, ", never shown {}", row.never.join(", "));
    }
    if let Some((exit, _)) = &row.failure {
        let _ = write!(text, ", no document (exit {exit})");
    }
    text
}
