//! The catalogue: which file is read by which parser. Every loader is reached from here, so
//! loading a project, refreshing its index and checking it agree on what a source holds.
//!
//! Sources are plain descriptors ([`Source`]); `project` maps `brief.toml` and discovery to
//! them, and nothing here sees the project's configuration.

use std::path::PathBuf;

use rayon::prelude::*;

use super::{
    artifacts, duplicate_problem, kb, markdown, read_text, rel_path, specgraph, tana, Loaded,
    SourceOutput,
};
use crate::model::Graph;
use crate::root::Root;

/// One source of nodes, as the project found or declared it.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A Spec Graph, by its `graph.json`.
    SpecGraph { manifest: PathBuf },
    /// A `.contextia/` tree.
    Contextia { dir: PathBuf },
    /// A folder of Markdown artifacts (`.brief/` or one named in `brief.toml`).
    Folder { dir: PathBuf },
    /// A Tana workspace export (`tana = "export.json"`): one file, many nodes.
    Tana { export: PathBuf },
    /// The Markdown knowledge base under the root: ADRs, docs, agent files, notes
    /// (`markdown = true` in `brief.toml`, or found by its layout).
    Markdown { dir: PathBuf },
}

/// Loads every source (in order) into one graph, with every problem sorted by location.
pub fn load(guard: &Root, sources: &[Source]) -> Loaded {
    let mut nodes = Vec::new();
    let mut problems = Vec::new();
    for source in sources {
        let out = read_source(guard, sources, source);
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

/// The nodes and problems of one source (`all` is every source of the project: the knowledge
/// base links to Spec Graph node files).
pub fn read_source(guard: &Root, all: &[Source], source: &Source) -> SourceOutput {
    match source {
        Source::SpecGraph { manifest } => specgraph::load(guard, manifest),
        Source::Contextia { dir } => artifacts::load_contextia(guard, dir),
        Source::Folder { dir } => artifacts::load_folder(guard, dir),
        Source::Tana { export } => tana::load(guard, export),
        Source::Markdown { .. } => load_kb(guard, all),
    }
}

/// The knowledge-base catalogue of a project: its knowledge-base files (relative paths) and the
/// node files of its Spec Graph manifests.
pub fn kb_catalog(guard: &Root, sources: &[Source], files: &[String]) -> kb::Catalog {
    let layout = kb::Layout::detect(guard);
    let mut catalog = kb::Catalog::new(layout, files.iter().cloned());
    for source in sources {
        if let Source::SpecGraph { manifest } = source {
            let (entries, _) = specgraph::read_manifest(guard, manifest);
            for entry in entries {
                catalog.add_other(rel_path(guard.path(), &entry.file), entry.id);
            }
        }
    }
    catalog
}

/// Loads the knowledge base under the root (every file, in parallel).
pub fn load_kb(guard: &Root, sources: &[Source]) -> SourceOutput {
    let layout = kb::Layout::detect(guard);
    let (paths, _) = kb::listing(guard, &layout);
    let base = guard.path();
    let rels: Vec<String> = paths.iter().map(|p| rel_path(base, p)).collect();
    let catalog = kb_catalog(guard, sources, &rels);
    let results: Vec<_> = paths
        .par_iter()
        .zip(&rels)
        .map(|(path, rel)| read_text(guard, path).map(|text| markdown::parse(rel, &text, &catalog)))
        .collect();
    let mut out = SourceOutput::default();
    for result in results {
        match result {
            Ok((node, problems)) => {
                out.nodes.push(node);
                out.problems.extend(problems);
            }
            Err(problem) => out.problems.push(problem),
        }
    }
    out
}
