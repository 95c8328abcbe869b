//! The ways to fill a budget for a task in words, each held to the same exact budget under
//! the same tokenizer, each giving a [`Shown`]: which files the document shows, how, and
//! the file it starts from.
//!
//! A new method is one more variant of [`Method`], its name, and its arm in
//! [`Method::fill`]: a ranking method hands its order of the files to [`fill_ranked`], as
//! BM25 and dense retrieval do.

use std::collections::BTreeMap;

use super::project::{header_len, Meaning, Presence, WordProject, ENCODING};

/// A way to fill a budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    /// `brief context "<task>" --format json` through the command API, embeddings off.
    Brief,
    /// The same with embeddings on (the endpoint the environment or `brief.toml`
    /// configures): the words fused with the task's similarity to the nodes.
    BriefEmbeddings,
    /// The files brief reads, whole, by BM25 score for the task text, best first; the next
    /// one cut to fill the budget.
    Bm25,
    /// The same files in path order (Repomix style), cut at the budget.
    Dump,
    /// The same files by the best cosine similarity of any of their nodes to the task (the
    /// vectors brief stores, the task embedded by the configured endpoint), best first; the
    /// next one cut to fill the budget. Needs embeddings configured (`BRIEF_EMBEDDINGS_*`).
    Dense,
}

impl Method {
    /// Every method that needs nothing but the repositories, in the order of the tables.
    pub const ALL: [Method; 3] = [Method::Brief, Method::Bm25, Method::Dump];

    /// [`Method::ALL`] and dense retrieval (`words --dense`).
    pub const WITH_DENSE: [Method; 4] = [Method::Brief, Method::Bm25, Method::Dense, Method::Dump];

    /// Every method, brief with and without embeddings (`words --embeddings`).
    pub const WITH_EMBEDDINGS: [Method; 5] = [
        Method::Brief,
        Method::BriefEmbeddings,
        Method::Bm25,
        Method::Dense,
        Method::Dump,
    ];

    /// Whether the method compares with the stored vectors (every node is embedded first).
    pub(crate) fn needs_vectors(self) -> bool {
        matches!(self, Method::BriefEmbeddings | Method::Dense)
    }

    /// The name in the tables.
    pub fn name(self) -> &'static str {
        match self {
            Method::Brief => "brief",
            Method::BriefEmbeddings => "brief + embeddings",
            Method::Bm25 => "BM25 top-k",
            Method::Dump => "whole-files dump",
            Method::Dense => "dense retrieval",
        }
    }

    /// Whether the method has a start document (a dump starts wherever path order does).
    pub(crate) fn has_start(self) -> bool {
        !matches!(self, Method::Dump)
    }

    /// The first `depth` files `self` ranks for `task`, best first: brief's search (the
    /// order its seeds come from), BM25's or dense retrieval's order. `None` for a method
    /// without a ranking (the dump) or whose ranking failed.
    pub(crate) fn ranking(
        self,
        project: &mut WordProject,
        task: &str,
        depth: usize,
    ) -> Option<Vec<usize>> {
        let mut order = match self {
            Method::Brief => project.search_order(task, depth, Meaning::Off),
            Method::BriefEmbeddings => project.search_order(task, depth, Meaning::On),
            Method::Bm25 => project.bm25_order(task),
            Method::Dense => project.dense_order(task).ok()?,
            Method::Dump => return None,
        };
        order.truncate(depth);
        Some(order)
    }

    /// Fills `budget` for `task` on `project`.
    pub fn fill(
        self,
        project: &mut WordProject,
        task: &str,
        budget: usize,
        seeds: Option<usize>,
    ) -> Shown {
        match self {
            Method::Brief => brief(project, task, budget, seeds, Meaning::Off),
            Method::BriefEmbeddings => brief(project, task, budget, seeds, Meaning::On),
            Method::Bm25 => {
                let order = project.bm25_order(task);
                fill_ranked(project.pieces(), project.files(), &order, budget)
            }
            Method::Dump => {
                let order: Vec<usize> = (0..project.files().len()).collect();
                let mut shown = fill_ranked(project.pieces(), project.files(), &order, budget);
                shown.start = None;
                shown
            }
            Method::Dense => match project.dense_order(task) {
                Ok(order) => fill_ranked(project.pieces(), project.files(), &order, budget),
                Err(why) => Shown {
                    failure: Some((0, why)),
                    ..Shown::default()
                },
            },
        }
    }
}

/// One file in a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileShown {
    /// The exact tokens spent on it (for brief, its nodes' blocks).
    pub tokens: usize,
    /// The most the document shows of it.
    pub presence: Presence,
}

/// What one method put in one document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shown {
    /// The exact token count of the document.
    pub used: usize,
    /// Per file (index in the project's files): what the document shows of it.
    pub files: BTreeMap<usize, FileShown>,
    /// The file the document starts from: brief's target's, a ranking's best file.
    pub start: Option<usize>,
    /// brief: its first seed's id (the JSON `target`) and the seeds the audit lists.
    pub target: Option<String>,
    /// brief: the seeds the JSON audit lists, when it lists them.
    pub seeds: Vec<String>,
    /// brief: shown nodes that map to no file brief lists (and their tokens).
    pub unmapped: Vec<(String, usize)>,
    /// brief: the files of selected nodes the budget left out.
    pub left_out: std::collections::BTreeSet<usize>,
    /// brief: why there is no document (exit code, first line).
    pub failure: Option<(u8, String)>,
}

impl Shown {
    fn add(&mut self, file: usize, tokens: usize, presence: Presence) {
        let entry = self.files.entry(file).or_insert(FileShown {
            tokens: 0,
            presence,
        });
        entry.tokens += tokens;
        entry.presence = entry.presence.max(presence);
    }
}

fn brief(
    project: &mut WordProject,
    task: &str,
    budget: usize,
    seeds: Option<usize>,
    meaning: Meaning,
) -> Shown {
    let answer = project.brief(task, budget, seeds, meaning);
    let mut shown = Shown {
        used: answer.used,
        start: answer.target.as_deref().and_then(|t| project.file_of(t)),
        target: answer.target,
        seeds: answer.seeds,
        failure: answer.failure,
        ..Shown::default()
    };
    shown.left_out = answer
        .left_out
        .iter()
        .filter_map(|id| project.file_of(id))
        .collect();
    for (id, presence, tokens) in answer.nodes {
        match project.file_of(&id) {
            Some(file) => shown.add(file, tokens, presence),
            None => shown.unmapped.push((id, tokens)),
        }
    }
    shown
}

/// Concatenates the `pieces` (the files at `paths`, as [`piece`](super::project::piece)
/// wraps them) in `order`, whole while the document stays within `budget`; the next one is
/// cut to fill the budget exactly (it counts when some of its text, past its header, made it
/// in).
pub(crate) fn fill_ranked(
    pieces: &[String],
    paths: &[String],
    order: &[usize],
    budget: usize,
) -> Shown {
    let mut document = String::new();
    let mut counted = 0;
    let mut shown = Shown {
        start: order.first().copied(),
        ..Shown::default()
    };
    for &file in order {
        let piece = &pieces[file];
        let candidate = format!("{document}{piece}");
        if let Some(count) = ENCODING.count_till_limit(&candidate, budget) {
            shown.add(file, count.saturating_sub(counted), Presence::Text);
            counted = count;
            document = candidate;
            continue;
        }
        let cut = ENCODING.prefix_within(&candidate, budget);
        let part = &cut[document.len().min(cut.len())..];
        if part.len() > header_len(&paths[file]) {
            shown.add(file, ENCODING.count(part), Presence::Text);
        }
        document = cut.to_string();
        break;
    }
    shown.used = ENCODING.count(&document);
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::project::piece;

    fn corpus() -> (Vec<String>, Vec<String>) {
        let paths: Vec<String> = ["a.md", "b.md", "c.md"].map(String::from).to_vec();
        let texts = [
            "alpha ".repeat(40),
            "bravo ".repeat(40),
            "charlie ".repeat(400),
        ];
        let pieces = paths.iter().zip(&texts).map(|(p, t)| piece(p, t)).collect();
        (pieces, paths)
    }

    #[test]
    fn a_ranking_fills_the_budget_exactly_and_cuts_the_next_file() {
        let (pieces, paths) = corpus();
        let shown = fill_ranked(&pieces, &paths, &[1, 0, 2], 200);
        assert_eq!(shown.used, 200);
        assert_eq!(shown.start, Some(1));
        assert_eq!(shown.files.keys().copied().collect::<Vec<_>>(), [0, 1, 2]);
        let whole = ENCODING.count(&pieces[1]) + ENCODING.count(&pieces[0]);
        assert!(whole < 200, "{whole}");
        let tokens: usize = shown.files.values().map(|f| f.tokens).sum();
        assert!(tokens.abs_diff(200) <= 2, "{tokens}");
    }

    #[test]
    fn a_file_cut_inside_its_header_does_not_count() {
        let (pieces, paths) = corpus();
        let first = ENCODING.count(&pieces[0]);
        // Room for the first file and less than the second one's header.
        let shown = fill_ranked(&pieces, &paths, &[0, 1], first + 2);
        assert_eq!(shown.files.keys().copied().collect::<Vec<_>>(), [0]);
        assert!(shown.used <= first + 2);
        let none = fill_ranked(&pieces, &paths, &[], 100);
        assert_eq!((none.used, none.start, none.files.len()), (0, None, 0));
    }
}
