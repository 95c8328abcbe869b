//! The context-quality evaluation: brief against the alternatives people use, at exactly the
//! same token budget, on projects whose must-see nodes are labelled.
//!
//! Projects: the two shipped examples with hand labels (`labels/*.json`) and one generated
//! project of each source kind with the generator's labels (`brief_corpus::generate_labelled`).
//! For every labelled target, both encodings and every budget of [`BUDGETS`], each method of
//! [`methods`] fills the budget, and [`Score`] measures the document:
//!
//! - **must-see recall**: the share of the target's must-see nodes (hard constraints and
//!   direct links) the document shows;
//! - **hard-constraint recall**: the same for hard constraints alone;
//! - **hard constraints with text**: the share of hard constraints whose text the document
//!   has (brief shows some as one meta line — id, kind, title, why — when the budget is
//!   tight; the other methods show text or nothing);
//! - **must-see share**: the share of the document's tokens spent on the target's own text
//!   and its must-see nodes (the rest goes to other nodes, headings, or unrelated files).
//!
//! Means are taken per target (every target weighs the same); a target without hard
//! constraints does not count towards hard-constraint recall.
//!
//! [`words`] is the other evaluation: tasks written in words, as tickets are, on real
//! repositories fetched at pinned commits (and on this crate's fixtures in CI).

pub mod bm25;
pub mod methods;
pub mod words;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use brief::Encoding;
use brief_corpus::{generate_labelled, Shape, TargetLabels};
use brief_model::Detail;

pub use methods::{read_labels, EvalProject, Outcome};

/// The budgets measured, in tokens.
pub const BUDGETS: [usize; 5] = [500, 1000, 2000, 4000, 8000];

/// The encodings measured.
pub const ENCODINGS: [Encoding; 2] = [Encoding::Cl100k, Encoding::O200k];

/// The compared ways to fill a budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Method {
    /// brief's own context.
    Brief,
    /// BM25 top-k: node texts by BM25 score for the target's text, until the budget is full.
    Bm25,
    /// Every file of the project in path order, cut at the budget.
    Dump,
}

impl Method {
    /// Every method, in the order reports show them.
    pub const ALL: [Method; 3] = [Method::Brief, Method::Bm25, Method::Dump];

    /// The method's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Method::Brief => "brief",
            Method::Bm25 => "BM25 top-k",
            Method::Dump => "whole-files dump",
        }
    }
}

/// How good one document is for one target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// Share of the must-see nodes (hard constraints and direct links) the document shows; `None`
    /// when the target has none.
    pub must_recall: Option<f64>,
    /// Share of the hard constraints it shows.
    pub hard_recall: Option<f64>,
    /// Share of the hard constraints it shows with their text (not only a meta line).
    pub hard_text: Option<f64>,
    /// Share of the document's tokens spent on the target and its must-see nodes.
    pub must_share: f64,
}

/// Scores `outcome` against a target's labels.
pub fn score(outcome: &Outcome, labels: &TargetLabels) -> Score {
    let share = |ids: &[&String], has: &dyn Fn(&str) -> bool| {
        if ids.is_empty() {
            None
        } else {
            let shown = ids.iter().filter(|id| has(id.as_str())).count();
            Some(shown as f64 / ids.len() as f64)
        }
    };
    let shown = |id: &str| outcome.shown.contains_key(id);
    let with_text = |id: &str| outcome.with_text.contains(id);
    let recall = |ids: &[&String]| share(ids, &shown);
    let must: Vec<&String> = labels.hard.iter().chain(&labels.direct).collect();
    let hard: Vec<&String> = labels.hard.iter().collect();
    let material: usize = outcome
        .shown
        .iter()
        .filter(|(id, _)| **id == labels.target || must.contains(id))
        .map(|(_, tokens)| tokens)
        .sum();
    Score {
        must_recall: recall(&must),
        hard_recall: recall(&hard),
        hard_text: share(&hard, &with_text),
        must_share: if outcome.used == 0 {
            0.0
        } else {
            (material as f64 / outcome.used as f64).min(1.0)
        },
    }
}

/// One measurement.
#[derive(Debug, Clone)]
pub struct Row {
    /// The project's name.
    pub project: String,
    /// The target's id.
    pub target: String,
    /// How the budget was filled.
    pub method: Method,
    /// The tokenizer the budget was counted in.
    pub encoding: Encoding,
    /// The budget.
    pub budget: usize,
    /// Tokens the document used.
    pub used: usize,
    /// How good the document is.
    pub score: Score,
}

/// Everything one run measured.
#[derive(Debug, Default)]
pub struct Report {
    /// (project name, source kind, labelled targets, where the labels come from)
    pub projects: Vec<(String, String, usize, String)>,
    /// Every measurement.
    pub rows: Vec<Row>,
    /// Cases where every labelled hard constraint brief selects fits at meta: how many, and
    /// in how many brief's document (at the requested detail) left one out.
    pub fits_at_meta: usize,
    /// Each time brief left out a hard constraint that would have fit at meta, described.
    pub violations: Vec<String>,
}

/// Measures one project into `report`.
pub fn measure(
    project: &EvalProject,
    report: &mut Report,
    budgets: &[usize],
) -> Result<(), String> {
    for labels in &project.labels.targets {
        for encoding in ENCODINGS {
            for &budget in budgets {
                let target = &labels.target;
                let (brief, selected) = project.brief(target, encoding, budget, Detail::Full)?;
                let outcomes = [
                    (Method::Brief, brief.clone()),
                    (Method::Bm25, project.bm25(target, encoding, budget)),
                    (Method::Dump, project.dump(encoding, budget)),
                ];
                for (method, outcome) in outcomes {
                    if outcome.used > budget {
                        return Err(format!(
                            "{} {target} {encoding} {budget}: {} used {}",
                            project.name,
                            method.name(),
                            outcome.used
                        ));
                    }
                    report.rows.push(Row {
                        project: project.name.clone(),
                        target: target.clone(),
                        method,
                        encoding,
                        budget,
                        used: outcome.used,
                        score: score(&outcome, labels),
                    });
                }
                // The acceptance: whenever the hard constraints brief selects all fit at meta
                // (the meta-only context shows them), the context shows them all.
                let hard: BTreeSet<&String> = labels
                    .hard
                    .iter()
                    .filter(|h| selected.contains(*h))
                    .collect();
                if hard.is_empty() {
                    continue;
                }
                let (meta, _) = project.brief(target, encoding, budget, Detail::Meta)?;
                if hard.iter().all(|h| meta.shown.contains_key(*h)) {
                    report.fits_at_meta += 1;
                    let missing: Vec<&&String> = hard
                        .iter()
                        .filter(|h| !brief.shown.contains_key(**h))
                        .collect();
                    if !missing.is_empty() {
                        report.violations.push(format!(
                            "{} {target} {encoding} {budget}: {missing:?} omitted although they fit at meta",
                            project.name
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Sizes of the generated projects.
pub(crate) const GENERATED: [(Shape, usize); 3] = [
    (Shape::SpecGraph, 2000),
    (Shape::Artifacts, 600),
    (Shape::Tana, 3000),
];

/// Targets labelled per generated project.
pub(crate) const GENERATED_TARGETS: usize = 10;

/// The seed of the generated projects.
pub(crate) const SEED: u64 = 7;

/// Runs the whole evaluation: the examples under `examples` with the hand labels under
/// `labels`, and generated projects written under `scratch` (created and removed).
pub fn run(
    examples: &Path,
    labels: &Path,
    scratch: &Path,
    budgets: &[usize],
) -> Result<Report, String> {
    let mut report = Report::default();
    for (name, kind) in [
        ("payments", "Spec Graph"),
        ("notes-app", "Contextia artifacts"),
    ] {
        let labelled = read_labels(&labels.join(format!("{name}.json")))?;
        let project = EvalProject::open(name, &examples.join(name), labelled)?;
        report.projects.push((
            name.to_string(),
            kind.to_string(),
            project.labels.targets.len(),
            "hand".to_string(),
        ));
        measure(&project, &mut report, budgets)?;
    }
    let _ = std::fs::remove_dir_all(scratch);
    for (shape, nodes) in GENERATED {
        let root: PathBuf = scratch.join(shape.name());
        let (written, labelled) = generate_labelled(shape, nodes, &root, SEED, GENERATED_TARGETS)?;
        let name = format!("generated {} ({written} nodes)", shape.name());
        let project = EvalProject::open(&name, &root, labelled)?;
        let kind = match shape {
            Shape::SpecGraph => "Spec Graph",
            Shape::Artifacts => "Contextia artifacts",
            Shape::Tana => "Tana export",
            Shape::Notes => "Markdown knowledge base",
            Shape::Layered => "layer-heavy Spec Graph",
            Shape::Dense => "dense random artifacts",
            Shape::SpecKit => "Spec Kit",
        };
        report.projects.push((
            name,
            kind.to_string(),
            project.labels.targets.len(),
            "generator".to_string(),
        ));
        measure(&project, &mut report, budgets)?;
    }
    let _ = std::fs::remove_dir_all(scratch);
    Ok(report)
}

/// One metric of a [`Score`] (`None` where it does not apply).
pub type Metric = fn(&Score) -> Option<f64>;

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

fn pct(value: Option<f64>) -> String {
    value.map_or("–".to_string(), |v| format!("{:.0} %", 100.0 * v))
}

impl Report {
    fn select<'a>(
        &'a self,
        project: Option<&'a str>,
        method: Method,
        encoding: Option<Encoding>,
        budget: usize,
    ) -> impl Iterator<Item = &'a Row> + 'a {
        self.rows.iter().filter(move |r| {
            r.method == method
                && r.budget == budget
                && encoding.is_none_or(|e| r.encoding == e)
                && project.is_none_or(|p| r.project == p)
        })
    }

    /// The mean of one metric.
    pub fn metric(
        &self,
        project: Option<&str>,
        method: Method,
        encoding: Option<Encoding>,
        budget: usize,
        metric: Metric,
    ) -> Option<f64> {
        mean(
            self.select(project, method, encoding, budget)
                .filter_map(|r| metric(&r.score)),
        )
    }

    /// The headline sentence: hard-constraint recall at 2,000 tokens, both encodings.
    pub(crate) fn headline(&self) -> String {
        let hard = |m| self.metric(None, m, None, 2000, |s| s.hard_recall);
        format!(
            "At 2,000 tokens brief keeps {} of hard constraints, BM25 top-k {} (a whole-files dump {}).",
            pct(hard(Method::Brief)),
            pct(hard(Method::Bm25)),
            pct(hard(Method::Dump))
        )
    }

    /// The report as Markdown tables.
    pub fn markdown(&self, budgets: &[usize]) -> String {
        let mut out = String::new();
        let targets: usize = self.projects.iter().map(|p| p.2).sum();
        let _ = writeln!(out, "Projects ({targets} labelled targets):\n");
        let _ = writeln!(out, "| project | source | targets | labels |");
        let _ = writeln!(out, "|---|---|---|---|");
        for (name, kind, n, by) in &self.projects {
            let _ = writeln!(out, "| {name} | {kind} | {n} | {by} |");
        }
        let metrics: [(&str, Metric); 4] = [
            ("must-see recall", |s| s.must_recall),
            ("hard-constraint recall", |s| s.hard_recall),
            ("hard constraints with text", |s| s.hard_text),
            ("must-see share of tokens", |s| Some(s.must_share)),
        ];
        let _ = writeln!(
            out,
            "\nAll projects, mean per target; each cell is brief / BM25 top-k / whole-files dump:\n"
        );
        let _ = write!(out, "| budget | encoding |");
        for (name, _) in &metrics {
            let _ = write!(out, " {name} |");
        }
        let _ = writeln!(out, "\n|---|---|{}", "---|".repeat(metrics.len()));
        for &budget in budgets {
            for encoding in ENCODINGS {
                let _ = write!(out, "| {budget} | {} |", encoding.name());
                for (_, metric) in &metrics {
                    let cells: Vec<String> = Method::ALL
                        .iter()
                        .map(|&m| pct(self.metric(None, m, Some(encoding), budget, *metric)))
                        .collect();
                    let _ = write!(out, " {} |", cells.join(" / "));
                }
                let _ = writeln!(out);
            }
        }
        let _ = writeln!(
            out,
            "\nPer project at 2,000 tokens, both encodings; brief / BM25 top-k / whole-files dump:\n"
        );
        let _ = write!(out, "| project |");
        for (name, _) in &metrics {
            let _ = write!(out, " {name} |");
        }
        let _ = writeln!(out, "\n|---|{}", "---|".repeat(metrics.len()));
        for (name, ..) in &self.projects {
            let _ = write!(out, "| {name} |");
            for (_, metric) in &metrics {
                let cells: Vec<String> = Method::ALL
                    .iter()
                    .map(|&m| pct(self.metric(Some(name), m, None, 2000, *metric)))
                    .collect();
                let _ = write!(out, " {} |", cells.join(" / "));
            }
            let _ = writeln!(out);
        }
        let _ = writeln!(
            out,
            "\nHard constraints kept whenever they fit at meta: brief kept every selected hard constraint in {} of {} cases where they all fit at meta detail.",
            self.fits_at_meta - self.violations.len(),
            self.fits_at_meta
        );
        let _ = writeln!(out, "\n{}", self.headline());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn labels() -> TargetLabels {
        TargetLabels {
            target: "T".into(),
            hard: vec!["H1".into(), "H2".into()],
            direct: vec!["D1".into()],
            noise: vec!["N1".into()],
        }
    }

    #[test]
    fn score_counts_shown_labelled_nodes_and_their_tokens() {
        let outcome = Outcome {
            used: 200,
            shown: BTreeMap::from([
                ("T".to_string(), 50),
                ("H1".to_string(), 30),
                ("H2".to_string(), 10),
                ("D1".to_string(), 20),
                ("N1".to_string(), 60),
            ]),
            with_text: ["T", "H1", "D1"].iter().map(|s| s.to_string()).collect(),
        };
        let s = score(&outcome, &labels());
        assert_eq!(s.must_recall, Some(1.0));
        assert_eq!(s.hard_recall, Some(1.0));
        assert_eq!(s.hard_text, Some(0.5));
        assert_eq!(s.must_share, 0.55);
        let partial = Outcome {
            shown: BTreeMap::from([("H1".to_string(), 30), ("N1".to_string(), 60)]),
            used: 100,
            ..Outcome::default()
        };
        let s = score(&partial, &labels());
        assert_eq!(s.must_recall, Some(1.0 / 3.0));
        assert_eq!(s.hard_recall, Some(0.5));
        assert_eq!(s.must_share, 0.3);
        let empty = score(&Outcome::default(), &labels());
        assert_eq!(empty.must_recall, Some(0.0));
        assert_eq!(empty.must_share, 0.0);
        let no_hard = TargetLabels {
            hard: Vec::new(),
            ..labels()
        };
        assert_eq!(score(&outcome, &no_hard).hard_recall, None);
    }
}
