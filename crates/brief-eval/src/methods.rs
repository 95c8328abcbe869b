//! The three ways to fill a token budget that the evaluation compares, each held to the same
//! exact budget under the same tokenizer:
//!
//! - **brief**: `brief context TARGET --budget B --encoding E` (the library call behind it);
//! - **BM25 top-k**: the node texts ranked by BM25 with the target's own text as the query,
//!   concatenated best first while they fit, the next one cut to fill the budget — the
//!   retrieval step of the usual RAG pipeline, with k as large as the budget allows;
//! - **dump**: every file of the project in path order, each wrapped as
//!   `<file path="…">…</file>` the way Repomix packs a repository, cut at the budget.
//!
//! Each gives an [`Outcome`]: the nodes a reader of the document sees, and the tokens spent
//! on each.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use brief::{Encoding, Format};
use brief_corpus::{Labels, LABELS_FILE};
use brief_engine::{assemble, ContextError, ContextRequest};
use brief_model::{Detail, Graph};
use brief_project::{Defaults, Project};
use serde_json::Value;

use crate::bm25::Bm25;

/// What one method put in one document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// The exact token count of the document.
    pub used: usize,
    /// The nodes the document shows (brief: at any detail; the others: at least the start of
    /// their text, with their id), and the tokens spent on each.
    pub shown: BTreeMap<String, usize>,
    /// The shown nodes whose text the document has, not only a line naming them (brief:
    /// summary or full, cut or not; the others: every shown node).
    pub with_text: BTreeSet<String>,
}

/// A loaded project with its labels, its node texts and its dump.
pub struct EvalProject {
    /// The project's name in reports.
    pub name: String,
    /// Its folder.
    pub root: PathBuf,
    /// Its loaded graph.
    pub graph: Graph,
    /// Its `brief.toml` defaults.
    pub defaults: Defaults,
    /// What each target must see.
    pub labels: Labels,
    /// Node ids in graph order, with the text BM25 indexes and returns (the node's full card,
    /// as `brief show ID` prints it).
    ids: Vec<String>,
    texts: Vec<String>,
    index: Bm25,
    dump: Dump,
}

/// Every file of a project in path order, and where each node sits in it.
struct Dump {
    text: String,
    /// Per node: (start of its span, end of the part that names it, end of its span).
    spans: BTreeMap<String, (usize, usize, usize)>,
}

impl EvalProject {
    /// Loads the project at `root` with the labels in `labels`.
    pub fn open(name: &str, root: &Path, labels: Labels) -> Result<EvalProject, String> {
        let project = Project::at(root).map_err(|e| e.to_string())?;
        let loaded = project.load();
        if let Some(problem) = loaded.errors().next() {
            return Err(format!("{}: {problem}", root.display()));
        }
        let graph = loaded.graph;
        let mut ids = Vec::with_capacity(graph.len());
        let mut texts = Vec::with_capacity(graph.len());
        for node in graph.nodes() {
            let text = brief_engine::show(
                &graph,
                &node.id,
                Detail::Full,
                Format::Markdown,
                Encoding::Cl100k,
            )
            .map_err(|e| e.to_string())?;
            ids.push(node.id.clone());
            texts.push(text);
        }
        for target in &labels.targets {
            for id in target
                .hard
                .iter()
                .chain(&target.direct)
                .chain(&target.noise)
                .chain([&target.target])
            {
                if graph.lookup(id).is_none() {
                    return Err(format!("{name}: labelled node {id} is not in the project"));
                }
            }
        }
        let index = Bm25::new(texts.iter().map(String::as_str));
        let dump = dump(root, &graph)?;
        Ok(EvalProject {
            name: name.to_string(),
            root: root.to_path_buf(),
            defaults: project.defaults.clone(),
            graph,
            labels,
            ids,
            texts,
            index,
            dump,
        })
    }

    /// brief's context at `detail` (the JSON audit, read back), and every node its traversal
    /// selected (shown or omitted).
    pub fn brief(
        &self,
        target: &str,
        encoding: Encoding,
        budget: usize,
        detail: Detail,
    ) -> Result<(Outcome, BTreeSet<String>), String> {
        let request = ContextRequest {
            target: target.to_string(),
            budget: Some(budget),
            encoding: Some(encoding),
            detail: Some(detail),
            format: Format::Json,
            ..ContextRequest::default()
        };
        let out = match assemble(&self.graph, &self.defaults, &request) {
            Ok(out) => out,
            // Not even the target fits: an empty document.
            Err(ContextError::TooSmall(_)) => return Ok((Outcome::default(), BTreeSet::new())),
            Err(other) => return Err(format!("{}: {target}: {other}", self.name)),
        };
        let json: Value = serde_json::from_str(&out.text).map_err(|e| e.to_string())?;
        let mut outcome = Outcome {
            used: out.used,
            ..Outcome::default()
        };
        let mut selected = BTreeSet::new();
        for node in json["nodes"].as_array().into_iter().flatten() {
            let id = node["id"].as_str().unwrap_or_default().to_string();
            let tokens = node["tokens"].as_u64().unwrap_or(0) as usize;
            selected.insert(id.clone());
            if node["detail"] != "meta" {
                outcome.with_text.insert(id.clone());
            }
            outcome.shown.insert(id, tokens);
        }
        for node in json["omitted"].as_array().into_iter().flatten() {
            selected.insert(node["id"].as_str().unwrap_or_default().to_string());
        }
        Ok((outcome, selected))
    }

    /// BM25 top-k: node texts by BM25 score for the target's text, whole while they fit, the
    /// next one cut at the budget.
    pub fn bm25(&self, target: &str, encoding: Encoding, budget: usize) -> Outcome {
        let Some(query) = self.ids.iter().position(|id| id == target) else {
            return Outcome::default();
        };
        let mut document = String::new();
        let mut outcome = Outcome::default();
        for doc in self.index.rank(&self.texts[query]) {
            let piece = &self.texts[doc];
            let sep = if document.is_empty() { "" } else { "\n\n" };
            let candidate = format!("{document}{sep}{piece}");
            if encoding.count(&candidate) <= budget {
                outcome
                    .shown
                    .insert(self.ids[doc].clone(), encoding.count(piece));
                document = candidate;
                continue;
            }
            // The next text, cut to fill the budget; it counts as shown when its heading
            // (id and title) made it in.
            let cut = encoding.prefix_within(&candidate, budget);
            let start = (document.len() + sep.len()).min(cut.len());
            let part = &cut[start..];
            let heading = piece.lines().next().unwrap_or_default();
            if !part.is_empty() && part.len() >= heading.len() {
                outcome
                    .shown
                    .insert(self.ids[doc].clone(), encoding.count(part));
            }
            document = cut.to_string();
            break;
        }
        outcome.used = encoding.count(&document);
        outcome.with_text = outcome.shown.keys().cloned().collect();
        outcome
    }

    /// The dump cut at the budget.
    pub fn dump(&self, encoding: Encoding, budget: usize) -> Outcome {
        let text = &self.dump.text;
        // Count only a stretch that is surely longer than the budget, not the whole dump.
        let mut end = (budget * 8).min(text.len());
        loop {
            while !text.is_char_boundary(end) {
                end += 1;
            }
            if end >= text.len() || encoding.count(&text[..end]) > budget {
                break;
            }
            end = (end * 2).min(text.len());
        }
        let prefix = encoding.prefix_within(&text[..end], budget);
        let mut outcome = Outcome {
            used: encoding.count(prefix),
            ..Outcome::default()
        };
        for (id, &(start, named, stop)) in &self.dump.spans {
            if named <= prefix.len() {
                let part = &prefix[start..stop.min(prefix.len())];
                outcome.shown.insert(id.clone(), encoding.count(part));
            }
        }
        outcome.with_text = outcome.shown.keys().cloned().collect();
        outcome
    }
}

/// Reads labels from a file.
pub fn read_labels(path: &Path) -> Result<Labels, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Labels::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Every file under `root` (relative paths, `/`-separated, sorted), except brief's own
/// `.brief/` folder, version-control folders and the labels file.
fn files(root: &Path) -> Result<Vec<String>, String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), String> {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| e.to_string())?;
            let name = entry.file_name().to_string_lossy().to_string();
            let path = entry.path();
            let kind = entry.file_type().map_err(|e| e.to_string())?;
            if kind.is_dir() {
                if name != ".brief" && name != ".git" {
                    walk(root, &path, out)?;
                }
            } else if kind.is_file() && !(dir == root && name == LABELS_FILE) {
                let rel = path.strip_prefix(root).map_err(|e| e.to_string())?;
                let rel: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().to_string())
                    .collect();
                out.push(rel.join("/"));
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(root, root, &mut out)?;
    out.sort();
    Ok(out)
}

fn dump(root: &Path, graph: &Graph) -> Result<Dump, String> {
    let mut by_file: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for node in graph.nodes() {
        by_file
            .entry(node.location.path.as_str())
            .or_default()
            .push(node.id.as_str());
    }
    let mut text = String::new();
    let mut spans = BTreeMap::new();
    for path in files(root)? {
        let Ok(content) = std::fs::read_to_string(root.join(&path)) else {
            continue; // not text: Repomix leaves binary files out too
        };
        let start = text.len();
        let header = format!("<file path=\"{path}\">\n");
        text.push_str(&header);
        let body = text.len();
        text.push_str(&content);
        text.push_str("\n</file>\n\n");
        let end = text.len();
        let nodes = by_file.get(path.as_str()).map(Vec::as_slice).unwrap_or(&[]);
        if let [id] = nodes {
            // One node per file: the whole file is its text; it is named once its id is in.
            let named = content.find(*id).map_or(body, |at| body + at + id.len());
            spans.insert(id.to_string(), (start, named, end));
        } else {
            // Several nodes per file (a Tana export): each node's object, from its `"id"`.
            for id in nodes {
                let Some(at) = [format!("\"id\":\"{id}\""), format!("\"id\": \"{id}\"")]
                    .iter()
                    .find_map(|key| content.find(key.as_str()).map(|at| (at, key.len())))
                    .map(|(at, len)| (body + at, body + at + len))
                else {
                    continue;
                };
                let line_start = text[..at.0].rfind('\n').map_or(body, |n| n + 1);
                let line_end = text[at.0..end].find('\n').map_or(end, |n| at.0 + n + 1);
                spans.insert(id.to_string(), (line_start, at.1, line_end));
            }
        }
    }
    Ok(Dump { text, spans })
}
