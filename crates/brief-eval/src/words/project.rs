//! One project of the evaluation, opened once: the files brief reads, each as the retrieval
//! methods show it, the BM25 index over them, the map from brief's node ids to those files,
//! and an open engine for brief's own answers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use brief::command::{self, Command, FrontEnd, Host};
use brief::{Encoding, Format};
use brief_engine::ContextRequest;
use brief_engine::Engine;
use brief_engine::Semantic;
use brief_model::GraphView;
use brief_project::Project;

use crate::bm25::Bm25;

/// The tokenizer of the evaluation.
pub(crate) const ENCODING: Encoding = Encoding::Cl100k;

/// Search hits asked for per file wanted in [`WordProject::search_order`].
const SEARCH_HITS_PER_FILE: usize = 4;

/// A project folder ready to be asked.
pub struct WordProject {
    root: PathBuf,
    /// Every file brief reads, relative to the root, `/`-separated, sorted.
    files: Vec<String>,
    /// Each file as retrieval shows it: `<file path="…">`, its text, `</file>`.
    pieces: Vec<String>,
    bm25: Bm25,
    /// Node id → index in `files`.
    node_files: BTreeMap<String, usize>,
    /// Per file: the title brief gives its node (empty for a file without one).
    titles: Vec<String>,
    /// The engine the command API runs on, embeddings off; `None` when it would not open
    /// (each request then opens the folder, so the failure reads as the CLI's).
    engine: Option<Engine>,
    /// The engine with embeddings as configured (the environment, `brief.toml`).
    meaning: Option<Engine>,
}

/// Whether brief answers with embeddings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meaning {
    /// Embeddings off (`Engine::embeddings_off`): the graph and words alone.
    Off,
    /// Embeddings as configured.
    On,
}

/// How much of a file a document shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Presence {
    /// Only named: brief's one meta line (id, kind, title, why).
    Named,
    /// Some of its text (whole, a summary, or cut).
    Text,
}

/// brief's answer to one request, read back from its JSON audit.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct BriefAnswer {
    /// The exact token count of the document (`budget.used`).
    pub used: usize,
    /// JSON `target`: the first seed.
    pub target: Option<String>,
    /// JSON `seeds` when the audit lists them (ids, in order).
    pub seeds: Vec<String>,
    /// Every shown node: id, how much of it is shown (its text at summary or full, cut or
    /// not, or only a meta line naming it), and its tokens.
    pub nodes: Vec<(String, Presence, usize)>,
    /// The selected nodes the budget left out (JSON `omitted` with the reason `budget`).
    pub left_out: Vec<String>,
    /// Why there is no document: the exit code and the first line brief said.
    pub failure: Option<(u8, String)>,
}

impl WordProject {
    /// Opens the project at `root`: lists and reads the files brief reads, loads the graph
    /// for the node → file map, builds the BM25 index and opens the engine.
    pub(crate) fn open(root: &Path) -> Result<WordProject, String> {
        let project = Project::at(root).map_err(|e| format!("{}: {e}", root.display()))?;
        let listing = brief_sources::list(&project.guard, root, &project.sources);
        let mut files: Vec<String> = listing.files.into_iter().map(|f| f.rel).collect();
        files.sort();
        files.dedup();
        let pieces: Vec<String> = files
            .iter()
            .map(|rel| {
                let bytes = std::fs::read(root.join(rel)).unwrap_or_default();
                piece(rel, &String::from_utf8_lossy(&bytes))
            })
            .collect();
        let bm25 = Bm25::new(pieces.iter().map(String::as_str));
        let graph = project.load().graph;
        let mut node_files = BTreeMap::new();
        let mut titles = vec![String::new(); files.len()];
        for node in graph.nodes() {
            let path = node.location.path.replace('\\', "/");
            let rel = Path::new(&path)
                .strip_prefix(root)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or(path);
            if let Ok(at) = files.binary_search(&rel) {
                node_files.insert(node.id.clone(), at);
                if titles[at].is_empty() {
                    titles[at] = node.title.clone();
                }
            }
        }
        let meaning = Engine::open(Some(root), root).ok();
        let engine = Engine::open(Some(root), root).ok().map(|mut engine| {
            engine.embeddings_off();
            engine
        });
        Ok(WordProject {
            root: root.to_path_buf(),
            files,
            pieces,
            bm25,
            node_files,
            titles,
            engine,
            meaning,
        })
    }

    /// Every file brief reads, sorted.
    pub(crate) fn files(&self) -> &[String] {
        &self.files
    }

    /// The index of `path` among [`WordProject::files`].
    pub(crate) fn file_index(&self, path: &str) -> Option<usize> {
        self.files.binary_search_by(|f| f.as_str().cmp(path)).ok()
    }

    /// The file a node of brief's shows: the node's own location; a section id
    /// (`path#slug`, `ADR-0007#context`) counts for its page; an id that is a path is the file.
    pub(crate) fn file_of(&self, id: &str) -> Option<usize> {
        let page = id.split_once('#').map_or(id, |(page, _)| page);
        [id, page].into_iter().find_map(|key| {
            self.node_files
                .get(key)
                .copied()
                .or_else(|| self.file_index(key))
        })
    }

    /// The title brief gives the node of file `file` (empty when none).
    pub(crate) fn title(&self, file: usize) -> &str {
        self.titles.get(file).map_or("", String::as_str)
    }

    /// Each file as retrieval shows it.
    pub(crate) fn pieces(&self) -> &[String] {
        &self.pieces
    }

    /// The files by BM25 score for `query`, best first; ties in path order.
    pub(crate) fn bm25_order(&self, query: &str) -> Vec<usize> {
        self.bm25.rank(query)
    }

    /// Embeds every node that has no vector yet (what dense retrieval compares with), with
    /// the endpoint the environment or `brief.toml` configures; how many texts were sent.
    pub(crate) fn embed_all(&mut self) -> Result<usize, String> {
        let engine = self
            .meaning
            .as_mut()
            .ok_or("the project did not open, so nothing could be embedded")?;
        engine
            .refresh(None, &mut |_| {})
            .map_err(|e| e.to_string())?;
        let done = engine
            .embed(&mut |_| {})
            .map_err(|e| e.to_string())?
            .ok_or(
            "dense retrieval needs embeddings: set BRIEF_EMBEDDINGS_URL and BRIEF_EMBEDDINGS_MODEL",
        )??;
        match done.failure {
            Some(failure) => Err(format!("embedding the nodes failed: {failure}")),
            None => Ok(done.embedded),
        }
    }

    /// The files by the best similarity of any of their nodes to `task`, best first (ties by
    /// node id, then path order); files with no embedded node last, in path order.
    pub(crate) fn dense_order(&self, task: &str) -> Result<Vec<usize>, String> {
        let engine = self.meaning.as_ref().ok_or("the project did not open")?;
        let similar = match engine
            .similar(task, usize::MAX)
            .map_err(|e| e.to_string())?
        {
            Semantic::Hits(similar) => similar,
            Semantic::Off => return Err("embeddings are not configured".into()),
            Semantic::Unavailable(why) => return Err(format!("embeddings unavailable: {why}")),
        };
        let mut seen = vec![false; self.files.len()];
        let mut order = Vec::with_capacity(self.files.len());
        for &(node, _) in &similar.hits {
            let id = GraphView::id_of(engine.index(), node).map_err(|e| e.to_string())?;
            if let Some(file) = self.file_of(&id) {
                if !std::mem::replace(&mut seen[file], true) {
                    order.push(file);
                }
            }
        }
        order.extend((0..self.files.len()).filter(|&f| !seen[f]));
        Ok(order)
    }

    /// Where a command runs: the open engine, embeddings off or on; the folder when the
    /// engine did not open (each request then opens it, so the failure reads as the CLI's).
    fn host(&mut self, meaning: Meaning) -> Host<'_> {
        let engine = match meaning {
            Meaning::Off => self.engine.as_mut(),
            Meaning::On => self.meaning.as_mut(),
        };
        match engine {
            Some(engine) => Host::Engine(engine),
            None => Host::Folder {
                root: Some(&self.root),
                cwd: &self.root,
            },
        }
    }

    /// The first `depth` files of brief's search for `task` (`brief search "<task>"` through
    /// the command API, embeddings off or on), each file once, in the order of its best hit:
    /// the ranking a context's seeds are taken from. Empty when the search fails.
    pub(crate) fn search_order(
        &mut self,
        task: &str,
        depth: usize,
        meaning: Meaning,
    ) -> Vec<usize> {
        // Sections and pages of one file are separate hits: ask for more hits than files.
        let command = Command::Search {
            query: task.to_string(),
            limit: depth.saturating_mul(SEARCH_HITS_PER_FILE),
            kind: None,
            format: Format::Json,
        };
        let outcome = command::run(&command, self.host(meaning), FrontEnd::Cli);
        if outcome.exit != 0 {
            return Vec::new();
        }
        let hits: Vec<String> = serde_json::from_str::<serde_json::Value>(&outcome.text)
            .ok()
            .and_then(|json| json.as_array().cloned())
            .into_iter()
            .flatten()
            .filter_map(|hit| hit["id"].as_str().map(str::to_string))
            .collect();
        let mut order: Vec<usize> = Vec::with_capacity(depth);
        for file in hits.iter().filter_map(|id| self.file_of(id)) {
            if order.len() == depth {
                break;
            }
            if !order.contains(&file) {
                order.push(file);
            }
        }
        order
    }

    /// brief's context for `task` at `budget` through the command API, as an agent asks:
    /// the task text as the target, JSON format; with embeddings or without.
    pub(crate) fn brief(
        &mut self,
        task: &str,
        budget: usize,
        seeds: Option<usize>,
        meaning: Meaning,
    ) -> BriefAnswer {
        let request = ContextRequest {
            target: task.to_string(),
            budget: Some(budget),
            encoding: Some(ENCODING),
            format: Format::Json,
            seeds,
            ..ContextRequest::default()
        };
        let command = Command::Context {
            request,
            session: None,
        };
        let outcome = command::run(&command, self.host(meaning), FrontEnd::Cli);
        if outcome.exit != 0 {
            // Paths relative to the project, as the table must not depend on where it ran.
            let root = format!("{}/", self.root.display());
            let line = outcome
                .notes
                .first()
                .map_or(String::new(), |l| l.replace(&root, ""));
            return BriefAnswer {
                failure: Some((outcome.exit, line)),
                ..BriefAnswer::default()
            };
        }
        read_audit(&outcome.text)
    }
}

/// A file as the retrieval methods show it, Repomix style.
pub(super) fn piece(path: &str, text: &str) -> String {
    format!("<file path=\"{path}\">\n{text}\n</file>\n")
}

/// The length of a piece's header (`<file path="…">\n`): a piece cut inside it shows no text.
pub(crate) fn header_len(path: &str) -> usize {
    "<file path=\"\">\n".len() + path.len()
}

/// Reads brief's JSON audit (`docs/json.md`): a node at `meta` is named, at `summary` or
/// `full` (cut or not) its text is shown.
fn read_audit(text: &str) -> BriefAnswer {
    let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
        return BriefAnswer {
            failure: Some((0, "the JSON audit did not parse".into())),
            ..BriefAnswer::default()
        };
    };
    let string = |v: &serde_json::Value| v.as_str().map(str::to_string);
    let seeds = json["seeds"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|seed| string(seed).or_else(|| string(&seed["id"])))
        .collect();
    let nodes = json["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|node| {
            let id = string(&node["id"]).unwrap_or_default();
            let presence = match node["detail"].as_str() {
                Some("meta") | None => Presence::Named,
                Some(_) => Presence::Text,
            };
            let tokens = node["tokens"].as_u64().unwrap_or(0) as usize;
            (id, presence, tokens)
        })
        .collect();
    let left_out = json["omitted"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|node| node["reason"] == "budget")
        .filter_map(|node| string(&node["id"]))
        .collect();
    BriefAnswer {
        used: json["budget"]["used"].as_u64().unwrap_or(0) as usize,
        target: string(&json["target"]),
        seeds,
        nodes,
        left_out,
        failure: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_audit_gives_target_seeds_and_details() {
        let audit = r#"{"target": "ADR-0002", "seeds": ["ADR-0002", {"id": "b.md"}],
            "budget": {"limit": 100, "used": 90},
            "nodes": [{"id": "ADR-0002", "detail": "full", "tokens": 50, "cut": true},
                      {"id": "b.md", "detail": "meta", "tokens": 9}],
            "omitted": [{"id": "c.md", "reason": "budget"}, {"id": "d.md", "reason": "lens"}]}"#;
        let answer = read_audit(audit);
        assert_eq!(answer.used, 90);
        assert_eq!(answer.target.as_deref(), Some("ADR-0002"));
        assert_eq!(answer.seeds, ["ADR-0002", "b.md"]);
        assert_eq!(
            answer.nodes,
            [
                ("ADR-0002".into(), Presence::Text, 50),
                ("b.md".into(), Presence::Named, 9)
            ]
        );
        // Only what the budget left out counts as selected but left out for room.
        assert_eq!(answer.left_out, ["c.md"]);
        assert!(read_audit("not json").failure.is_some());
    }

    #[test]
    fn a_piece_starts_with_its_header() {
        let p = piece("a/b.md", "text");
        assert_eq!(&p[..header_len("a/b.md")], "<file path=\"a/b.md\">\n");
    }
}
