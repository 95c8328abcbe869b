//! The catalogue: which file is read by which parser. Every loader is reached from here, so
//! loading a project, refreshing its index and checking it agree on what a source holds.
//!
//! Sources are plain descriptors ([`Source`]); `project` maps `brief.toml` and discovery to
//! them, and nothing here sees the project's configuration.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::artifacts::Placement;
use super::specgraph::Entry;
use super::{
    artifacts, duplicate_problem, folder_stamp, formats, kb, kiro, markdown, read_text, rel_path,
    specgraph, speckit, tana, FolderStamp, Format, Loaded, Problem, SourceOutput,
};
use brief_model::{Graph, Node};
use brief_root::Root;

/// One source of nodes, as the project found or declared it.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A Spec Graph, by its `graph.json`.
    SpecGraph {
        /// The `graph.json` file.
        manifest: PathBuf,
    },
    /// A `.contextia/` tree.
    Contextia {
        /// The `.contextia/` folder.
        dir: PathBuf,
    },
    /// A folder of Markdown artifacts (`.brief/` or one named in `brief.toml`).
    Folder {
        /// The folder.
        dir: PathBuf,
    },
    /// A Tana workspace export (`tana = "export.json"`): one file, many nodes.
    Tana {
        /// The export's JSON file.
        export: PathBuf,
    },
    /// The Markdown knowledge base under the root: ADRs, docs, agent files, notes
    /// (`markdown = true` in `brief.toml`, or found by its layout).
    Markdown {
        /// The folder the knowledge base is listed from (the root).
        dir: PathBuf,
    },
    /// GitHub Spec Kit under the root: the constitution and the feature folders of `specs/`
    /// (`speckit = true`, or found by `.specify/` or a numbered feature folder).
    SpecKit {
        /// The folder Spec Kit's files are found in (the root).
        dir: PathBuf,
    },
    /// One Kiro workspace: a `.kiro/` folder (its specs and steering), at the root or nested.
    Kiro {
        /// The `.kiro/` folder.
        dir: PathBuf,
    },
    /// The knowledge pages of a registered [`Format`] under the root (`formats = [NAME]` in
    /// `brief.toml`, or found by its own discovery).
    Pages {
        /// The format.
        format: Format,
        /// The folder its pages are listed from (the root).
        dir: PathBuf,
    },
}

impl Source {
    /// The origin of every node this source loads.
    pub fn origin(&self) -> brief_model::Origin {
        use brief_model::Origin;
        match self {
            Source::SpecGraph { .. } => Origin::SpecGraph,
            Source::Contextia { .. } | Source::Folder { .. } => Origin::Artifact,
            Source::Tana { .. } => Origin::Tana,
            Source::Markdown { .. }
            | Source::SpecKit { .. }
            | Source::Kiro { .. }
            | Source::Pages { .. } => Origin::Markdown,
        }
    }
}

/// Loads every source into one graph, with every problem sorted by location: the files of
/// [`list`] (the same listing the index refreshes from), each read with its parser on all cores.
pub fn load(guard: &Root, sources: &[Source]) -> Loaded {
    let listing = list(guard, guard.path(), sources);
    let mut problems = listing.problems;
    // The knowledge base's links resolve against every page of it (and the Spec Graph's).
    let catalog = sources
        .iter()
        .any(|s| matches!(s, Source::Markdown { .. } | Source::Pages { .. }))
        .then(|| {
            let files: Vec<String> = listing
                .files
                .iter()
                .filter(|f| f.parser.is_page())
                .map(|f| f.rel.clone())
                .collect();
            kb_catalog(guard, sources, &files)
        });
    let places = specgraph::Places::default();
    let outputs: Vec<SourceOutput> = listing
        .files
        .par_iter()
        .map(|file| read(guard, file, catalog.as_ref(), &places))
        .collect();
    let mut nodes = Vec::new();
    for out in outputs {
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

/// Reads one listed file with its parser: its node (a Tana export: its nodes) and problems,
/// warnings included. `catalog` is the knowledge base's, when the project has one; `places`
/// says where the manifest entry of a node file that does not exist is.
pub(crate) fn read(
    guard: &Root,
    file: &CatalogueFile,
    catalog: Option<&kb::Catalog>,
    places: &specgraph::Places,
) -> SourceOutput {
    let one = |result: Result<Option<Node>, Problem>| match result {
        Ok(node) => SourceOutput {
            nodes: node.into_iter().collect(),
            problems: Vec::new(),
        },
        Err(problem) => SourceOutput {
            nodes: Vec::new(),
            problems: vec![problem],
        },
    };
    match &file.parser {
        Parser::Spec(entry) => {
            one(specgraph::load_entry(guard, entry)
                .map(Some)
                .map_err(|mut problem| {
                    places.relocate(guard, entry, &file.path, &mut problem);
                    problem
                }))
        }
        Parser::SpecKit(role) => match read_text(guard, &file.path) {
            Ok(text) => {
                let (nodes, problems) = speckit::parse(&file.rel, &text, role);
                SourceOutput { nodes, problems }
            }
            Err(problem) => one(Err(problem)),
        },
        Parser::Kiro(role) => match read_text(guard, &file.path) {
            Ok(text) => {
                let (nodes, problems) = kiro::parse(&file.rel, &text, role);
                SourceOutput { nodes, problems }
            }
            Err(problem) => one(Err(problem)),
        },
        Parser::Artifact(placement) => one(artifacts::load_file(guard, &file.path, placement)),
        Parser::Tana => tana::load(guard, &file.path),
        Parser::Markdown(_) => match (read_text(guard, &file.path), catalog) {
            (Ok(text), Some(catalog)) => {
                let parsed = markdown::parse(&file.rel, &text, catalog);
                SourceOutput {
                    problems: parsed.problems().cloned().collect(),
                    nodes: parsed.nodes,
                }
            }
            (Err(problem), _) => one(Err(problem)),
            // Listed as knowledge base only when the project has one, which builds the catalog.
            (Ok(_), None) => SourceOutput::default(),
        },
        Parser::Pages { format, .. } => match (read_text(guard, &file.path), catalog) {
            (Ok(text), Some(catalog)) => {
                let parsed = format.parse(&file.rel, &text, catalog);
                SourceOutput {
                    problems: parsed.problems().cloned().collect(),
                    nodes: parsed.nodes,
                }
            }
            (Err(problem), _) => one(Err(problem)),
            (Ok(_), None) => SourceOutput::default(),
        },
    }
}

/// The nodes and problems of one source (`all` is every source of the project: the knowledge
/// base links to Spec Graph node files).
pub fn read_source(guard: &Root, all: &[Source], source: &Source) -> SourceOutput {
    match source {
        Source::SpecGraph { manifest } => specgraph::load(guard, manifest),
        Source::Contextia { dir } => artifacts::load_contextia(guard, dir),
        Source::Folder { dir } => artifacts::load_folder(guard, dir),
        Source::Tana { export } => tana::load(guard, export),
        Source::Markdown { .. } | Source::Pages { .. } => load_kb(guard, all, source),
        Source::SpecKit { .. } | Source::Kiro { .. } => {
            let listing = list(guard, guard.path(), std::slice::from_ref(source));
            let mut out = SourceOutput {
                problems: listing.problems,
                ..SourceOutput::default()
            };
            let outputs: Vec<SourceOutput> = listing
                .files
                .par_iter()
                .map(|file| read(guard, file, None, &specgraph::Places::default()))
                .collect();
            for one in outputs {
                out.nodes.extend(one.nodes);
                out.problems.extend(one.problems);
            }
            out
        }
    }
}

/// The knowledge-base catalogue of a project: its knowledge-base files (relative paths), the
/// node files of its Spec Graph manifests and the pages of its Spec Kit features.
pub(crate) fn kb_catalog(guard: &Root, sources: &[Source], files: &[String]) -> kb::Catalog {
    let layout = kb_layout(guard, sources);
    let mut catalog = kb::Catalog::new(layout, files.iter().cloned());
    catalog.set_repository(kb::Repository::detect(guard));
    let formats: Vec<formats::Format> = sources
        .iter()
        .filter_map(|s| match s {
            Source::Pages { format, .. } => Some(*format),
            _ => None,
        })
        .collect();
    let pages = files.iter().filter_map(|rel| {
        let format = formats.iter().find(|f| f.reads(rel))?;
        Some((rel.as_str(), *format))
    });
    formats::add_labels(&mut catalog, guard, pages);
    for source in sources {
        match source {
            Source::SpecGraph { manifest } => {
                let (entries, _) = specgraph::read_manifest(guard, manifest);
                for entry in entries {
                    catalog.add_other(rel_path(guard.path(), &entry.file), entry.id);
                }
            }
            Source::SpecKit { .. } => {
                for (rel, id) in speckit::listing(guard).0.page_ids() {
                    catalog.add_other(rel, id);
                }
            }
            _ => {}
        }
    }
    catalog
}

/// The knowledge base's layout, with the files the project's Spec Kit source reads claimed
/// (so a feature's spec.md is one node, the feature, and not also a note).
pub fn kb_layout(guard: &Root, sources: &[Source]) -> kb::Layout {
    let mut layout = kb::Layout::detect(guard);
    for source in sources {
        if let Source::Pages { format, .. } = source {
            layout.page_extensions.extend(format.extensions());
        }
    }
    layout.page_extensions.sort_unstable();
    layout.page_extensions.dedup();
    if sources.iter().any(|s| matches!(s, Source::SpecKit { .. })) {
        let mut claimed: Vec<String> = speckit::listing(guard)
            .0
            .files()
            .into_iter()
            .map(|(rel, _)| rel)
            .collect();
        claimed.sort();
        layout.claimed = claimed;
    }
    layout
}

/// Loads the pages of one knowledge-base source under the root (every file, in parallel).
pub(crate) fn load_kb(guard: &Root, sources: &[Source], source: &Source) -> SourceOutput {
    let kb = load_kb_warnings(guard, sources, source);
    SourceOutput {
        nodes: kb.nodes,
        problems: kb
            .problems
            .into_iter()
            .chain(kb.warnings.into_iter().map(|w| w.problem))
            .collect(),
    }
}

/// The knowledge base as [`load_kb`] reads it, its warnings kept apart with what each is
/// about (`brief check` gives each its rule).
#[derive(Debug, Default)]
pub struct KbOutput {
    /// The pages and sections of every file that parsed.
    pub nodes: Vec<Node>,
    /// Files and folders that could not be read.
    pub problems: Vec<Problem>,
    /// The parse warnings, each with its concern.
    pub warnings: Vec<markdown::Warning>,
}

/// [`load_kb`] with its warnings typed: the pages of `source` (the Markdown knowledge base,
/// or the pages of a [`Format`]), their links resolved against the pages of every
/// knowledge-base source of the project.
pub fn load_kb_warnings(guard: &Root, sources: &[Source], source: &Source) -> KbOutput {
    let layout = kb_layout(guard, sources);
    let mut rels = Vec::new();
    let mut mine = None;
    for each in sources
        .iter()
        .filter(|s| matches!(s, Source::Markdown { .. } | Source::Pages { .. }))
    {
        let walk = match each {
            Source::Pages { format, .. } => formats::listing(guard, &layout, *format),
            _ => kb::listing(guard, &layout),
        };
        rels.extend(walk.files.iter().map(|p| rel_path(guard.path(), p)));
        if each == source {
            mine = Some(walk);
        }
    }
    rels.sort();
    rels.dedup();
    let walk = mine.unwrap_or_default();
    let mut out = KbOutput {
        problems: walk.problems,
        ..KbOutput::default()
    };
    let paths = walk.files;
    let catalog = kb_catalog(guard, sources, &rels);
    let parse = |rel: &str, text: &str| match source {
        Source::Pages { format, .. } => format.parse(rel, text, &catalog),
        _ => markdown::parse(rel, text, &catalog),
    };
    let results: Vec<_> = paths
        .par_iter()
        .map(|path| {
            let rel = rel_path(guard.path(), path);
            read_text(guard, path).map(|text| parse(&rel, &text))
        })
        .collect();
    for result in results {
        match result {
            Ok(parsed) => {
                out.nodes.extend(parsed.nodes);
                out.warnings.extend(parsed.warnings);
            }
            Err(problem) => out.problems.push(problem),
        }
    }
    out
}

/// Which parser reads a file.
#[derive(Debug, Clone, PartialEq)]
pub enum Parser {
    /// A Spec Graph node file, as its manifest lists it.
    Spec(Entry),
    /// A Markdown artifact, by where it sits.
    Artifact(Placement),
    /// A Tana workspace export: one file, many nodes.
    Tana,
    /// A knowledge-base Markdown file, with the fingerprint of the catalogue it was parsed
    /// against (a file added elsewhere can change what its links resolve to; empty until a
    /// caller that keeps parsed files sets it).
    Markdown(String),
    /// A Spec Kit file, many nodes.
    SpecKit(speckit::Role),
    /// A Kiro spec or steering file.
    Kiro(kiro::Role),
    /// A page of a registered [`Format`].
    Pages {
        /// The format that parses it.
        format: Format,
        /// The fingerprint of the catalogue it was parsed against, as for
        /// [`Parser::Markdown`].
        fingerprint: String,
    },
}

impl Parser {
    /// How much a parser's claim on a file weighs when two sources list it: the
    /// spec-driven sources read their files before the knowledge base would.
    fn precedence(&self) -> u8 {
        match self {
            Parser::Markdown(_) | Parser::Pages { .. } => 1,
            _ => 0,
        }
    }

    /// Whether the file is a knowledge-base page: in the catalogue links resolve against.
    pub fn is_page(&self) -> bool {
        matches!(self, Parser::Markdown(_) | Parser::Pages { .. })
    }

    /// The format of a page that is not Markdown.
    pub fn format(&self) -> Option<Format> {
        match self {
            Parser::Pages { format, .. } => Some(*format),
            _ => None,
        }
    }

    /// A page's catalogue fingerprint, to set once the catalogue is known (its parse is
    /// redone when the catalogue changes).
    pub fn fingerprint_mut(&mut self) -> Option<&mut String> {
        match self {
            Parser::Markdown(print)
            | Parser::Pages {
                fingerprint: print, ..
            } => Some(print),
            _ => None,
        }
    }
}

/// One source file and the parser that reads it.
#[derive(Debug, Clone)]
pub struct CatalogueFile {
    /// The file's path as opened (beneath the root).
    pub path: PathBuf,
    /// Relative to the root, `/`-separated.
    pub rel: String,
    /// The parser that reads it, whose name the index stores with the file.
    pub parser: Parser,
}

/// Every source file of a project, sorted by relative path (a file listed twice is read once).
#[derive(Debug, Default)]
pub struct Listing {
    /// Every source file, sorted by `rel`.
    pub files: Vec<CatalogueFile>,
    /// The manifests' own problems (entries that name no file, bad JSON) and the folders that
    /// could not be listed.
    pub problems: Vec<Problem>,
    /// The manifests and folders whose stamps tell that the listing may have changed, each
    /// stamped before it was read.
    pub watches: Vec<FolderStamp>,
}

/// Lists every source file with its parser. `root` is the root as given (relative paths stay
/// relative in `rel`); files are opened through `guard`.
pub fn list(guard: &Root, root: &Path, sources: &[Source]) -> Listing {
    let mut listing = Listing::default();
    for source in sources {
        list_source(guard, root, sources, source, &mut listing);
    }
    listing.files.sort_by(|a, b| {
        a.rel
            .cmp(&b.rel)
            .then(a.parser.precedence().cmp(&b.parser.precedence()))
    });
    // A node file several entries name is read once, against all of them.
    listing.files.dedup_by(|later, first| {
        if later.rel != first.rel {
            return false;
        }
        if let (Parser::Spec(later), Parser::Spec(first)) = (&mut later.parser, &mut first.parser) {
            let mut entry = std::mem::take(later);
            first.also.append(&mut entry.also);
            first.also.push(entry);
        }
        true
    });
    // The first stamp of a path is the one taken before it was read.
    listing.watches.sort_by(|a, b| a.0.cmp(&b.0));
    listing.watches.dedup_by(|a, b| a.0 == b.0);
    listing
}

/// Adds the files of one source (with their parsers), its problems and what to watch.
fn list_source(
    guard: &Root,
    root: &Path,
    sources: &[Source],
    source: &Source,
    listing: &mut Listing,
) {
    let push = |files: &mut Vec<CatalogueFile>, path: PathBuf, parser: Parser| {
        files.push(CatalogueFile {
            rel: rel_path(root, &path),
            path,
            parser,
        });
    };
    match source {
        Source::Tana { export } => {
            listing.watches.push(folder_stamp(export));
            push(&mut listing.files, export.clone(), Parser::Tana);
        }
        Source::SpecGraph { manifest } => {
            listing.watches.push(folder_stamp(manifest));
            let (entries, problems) = specgraph::read_manifest(guard, manifest);
            listing.problems.extend(problems);
            for entry in entries {
                push(&mut listing.files, entry.file.clone(), Parser::Spec(entry));
            }
        }
        Source::Markdown { .. } => {
            let layout = kb_layout(guard, sources);
            let walk = kb::listing(guard, &layout);
            listing.watches.extend(walk.folders);
            listing.problems.extend(walk.problems);
            // The files whose presence changes the layout itself.
            for path in [
                ".adr-dir",
                ".log4brains.yml",
                ".obsidian/templates.json",
                ".git/config",
            ] {
                listing.watches.push(folder_stamp(&root.join(path)));
            }
            for path in walk.files {
                push(&mut listing.files, path, Parser::Markdown(String::new()));
            }
        }
        Source::Pages { format, .. } => {
            let walk = formats::listing(guard, &kb_layout(guard, sources), *format);
            listing.watches.extend(walk.folders);
            listing.problems.extend(walk.problems);
            for path in walk.files {
                let parser = Parser::Pages {
                    format: *format,
                    fingerprint: String::new(),
                };
                push(&mut listing.files, path, parser);
            }
        }
        Source::SpecKit { .. } => {
            let (layout, walk) = speckit::listing(guard);
            listing.watches.extend(walk.folders);
            listing.problems.extend(walk.problems);
            for (rel, role) in layout.files() {
                push(&mut listing.files, root.join(&rel), Parser::SpecKit(role));
            }
        }
        Source::Kiro { dir } => {
            let (files, walk) = kiro::listing(guard, dir);
            listing.watches.extend(walk.folders);
            listing.problems.extend(walk.problems);
            for (path, role) in files {
                push(&mut listing.files, path, Parser::Kiro(role));
            }
        }
        Source::Contextia { dir } | Source::Folder { dir } => {
            let found = match source {
                Source::Contextia { .. } => artifacts::contextia_listing(guard, dir),
                _ => artifacts::folder_listing(guard, dir),
            };
            listing.watches.extend(found.folders);
            listing.problems.extend(found.problems);
            for (path, placement) in found.files {
                push(&mut listing.files, path, Parser::Artifact(placement));
            }
        }
    }
}

/// Parses one file's text with its parser: the nodes it holds (a knowledge-base page and its
/// sections, a Spec Kit or Kiro file's items; none for a Tana export, which is read whole
/// with [`tana::parse`], or for a file that holds no node), or the problem that stops it.
/// Warnings (a knowledge-base file's broken links, a Spec Kit file's duplicate ids) are
/// `brief check`'s to report; the nodes are whole.
pub fn parse(
    rel: &str,
    text: &str,
    parser: &Parser,
    catalog: &kb::Catalog,
) -> Result<Vec<Node>, Problem> {
    match parser {
        Parser::Markdown(_) => Ok(markdown::parse(rel, text, catalog).nodes),
        Parser::Pages { format, .. } => Ok(format.parse(rel, text, catalog).nodes),
        Parser::Spec(entry) => specgraph::parse_entry(entry, rel, text).map(|n| vec![n]),
        Parser::Artifact(placement) => {
            artifacts::parse_artifact(rel, text, placement).map(|n| n.into_iter().collect())
        }
        Parser::SpecKit(role) => Ok(speckit::parse(rel, text, role).0),
        Parser::Kiro(role) => Ok(kiro::parse(rel, text, role).0),
        Parser::Tana => Ok(Vec::new()),
    }
}
