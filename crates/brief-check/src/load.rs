//! Reading every source once, with the loaders' own parsers, and turning what they refuse into
//! findings. Each file's text is read once and serves both the loader (→ `Node`) and the raw
//! checks that need what the model drops (the JSON schema, frontmatter keys and lines).
//!
//! This is [`brief_sources::load`] step by step: the same functions (`read_manifest`,
//! `parse_node`, `contextia_listing`, `folder_listing`, `parse_artifact`, `Graph::build`), run so
//! that every problem can be given its rule and nothing is read twice.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use rayon::prelude::*;
use serde_json::Value;

use super::specs::SpecFile;
use super::{artifacts, knowledge, schema, Anchor, Input, Pending, Settings, Sink};
use brief_model::{Graph, Kind, Location, Node};
use brief_project::{Project, Source};
use brief_root::Root;
use brief_sources::{
    contextia_listing, folder_listing, list, load_kb_warnings, merge_listed, parse_artifact,
    parse_frontmatter, parse_node, read_manifest, read_source, read_text, rel_path,
    split_frontmatter, Entry, Mismatch, Parser, Placement, Problem, ProblemKind, Seg, Severity,
};

/// Reads files that must lie inside the root: [`read_text`] beneath the project's
/// [`Root`].
pub(super) struct Reader {
    root: Root,
}

impl Reader {
    pub(crate) fn new(root: &Root) -> Reader {
        Reader { root: root.clone() }
    }

    /// The project root.
    pub(crate) fn root(&self) -> &Path {
        self.root.path()
    }

    /// The project root as a boundary.
    pub(crate) fn guard(&self) -> &Root {
        &self.root
    }

    pub(crate) fn read(&self, path: &Path) -> Result<String, Problem> {
        read_text(&self.root, path)
    }
}

/// What reading one file gave.
#[derive(Default)]
struct FileResult {
    node: Option<Node>,
    findings: Vec<Pending>,
    /// An artifact's frontmatter text (to locate findings without reading the file again).
    front: Option<(String, String)>,
    /// The ids a manifest listed for a node that could not be loaded.
    unloadable: Vec<String>,
}

/// Reads every source of the project.
pub(super) fn load(
    project: &Project,
    reader: &Reader,
    settings: &Settings,
    sink: &mut Sink,
) -> Input {
    let root = &project.guard;
    let mut nodes = Vec::new();
    let mut unloadable = BTreeSet::new();
    let mut roots = Vec::new();
    let mut fronts = HashMap::new();
    for source in &project.sources {
        let results: Vec<FileResult> = match source {
            Source::SpecGraph { manifest } => {
                let Some((entries, hashes)) = manifest_entries(root, manifest, &mut roots, sink)
                else {
                    continue;
                };
                // A file several entries name is read once, against all of them.
                merge_listed(entries)
                    .par_iter()
                    .map(|listed| load_listed(reader, listed, &hashes))
                    .collect()
            }
            Source::Contextia { dir } | Source::Folder { dir } => {
                let listing = match source {
                    Source::Contextia { .. } => contextia_listing(root, dir),
                    _ => folder_listing(root, dir),
                };
                // A folder that cannot be listed is reported like a file that cannot be read.
                for problem in &listing.problems {
                    sink.push(problem_finding(problem));
                }
                load_artifacts(reader, listing.files, settings, sink)
            }
            // One export, many nodes: the loader's problems already name their JSON paths.
            Source::Tana { .. } => {
                let out = read_source(root, &project.sources, source);
                nodes.extend(out.nodes);
                for problem in &out.problems {
                    sink.push(problem_finding(problem));
                }
                Vec::new()
            }
            Source::Markdown { .. } | Source::Pages { .. } => {
                let out = load_kb_warnings(root, &project.sources, source);
                nodes.extend(out.nodes);
                for problem in &out.problems {
                    sink.push(problem_finding(problem));
                }
                sink.extend(knowledge::findings(root, out.warnings));
                Vec::new()
            }
            // Their warnings are the spec rules' (`specs.rs`), read from the files again.
            Source::SpecKit { .. } | Source::Kiro { .. } => {
                let out = read_source(root, &project.sources, source);
                nodes.extend(out.nodes);
                for problem in out
                    .problems
                    .iter()
                    .filter(|p| p.severity == Severity::Error)
                {
                    sink.push(problem_finding(problem));
                }
                Vec::new()
            }
        };
        for result in results {
            nodes.extend(result.node);
            sink.extend(result.findings);
            unloadable.extend(result.unloadable);
            fronts.extend(result.front);
        }
    }
    let (graph, duplicates) = Graph::build(nodes);
    for dup in duplicates {
        if dup.first.path == dup.second.path {
            // One file listed twice in graph.json: the manifest's duplicate entry says so.
            continue;
        }
        sink.push(
            Pending::anchored(
                "duplicate-id",
                &dup.second.path,
                id_anchor(&dup.second.path),
                format!(
                    "duplicate id `{}`: {} already defines it; rename one of them (and the links to it)",
                    dup.id, dup.first.path
                ),
            )
            .node(&dup.id),
        );
    }
    // A node that failed to load but whose id another node took is not unloadable.
    unloadable.retain(|id| graph.lookup(id).is_none());
    Input {
        graph,
        unloadable,
        roots,
        fronts,
        spec_files: spec_files(project),
    }
}

/// The files the spec-driven sources read, and which source reads each.
fn spec_files(project: &Project) -> std::collections::BTreeMap<String, SpecFile> {
    let spec_sources: Vec<Source> = project
        .sources
        .iter()
        .filter(|s| matches!(s, Source::SpecKit { .. } | Source::Kiro { .. }))
        .cloned()
        .collect();
    list(&project.guard, &project.root, &spec_sources)
        .files
        .into_iter()
        .filter_map(|f| match f.parser {
            Parser::SpecKit(_) => Some((f.rel, SpecFile::SpecKit)),
            Parser::Kiro(_) => Some((f.rel, SpecFile::Kiro)),
            _ => None,
        })
        .collect()
}

/// Where a node's id sits in its file.
fn id_anchor(path: &str) -> Anchor {
    if path.ends_with(".json") {
        Anchor::Json(vec![Seg::key("id")])
    } else {
        Anchor::Front {
            key: "id".into(),
            token: None,
        }
    }
}

/// Reads a graph.json: schema findings, its entries and the sha256 each entry declares.
fn manifest_entries(
    root: &Root,
    manifest: &Path,
    roots: &mut Vec<(String, String)>,
    sink: &mut Sink,
) -> Option<(Vec<Entry>, HashMap<String, String>)> {
    let rel = rel_path(root.path(), manifest);
    let text = match read_text(root, manifest) {
        Ok(text) => text,
        Err(problem) => {
            sink.push(problem_finding(&problem));
            return None;
        }
    };
    let raw: Value = match serde_json::from_str(&text) {
        Ok(raw) => raw,
        Err(err) => {
            sink.push(json_error(&rel, &err));
            return None;
        }
    };
    let facts = schema::manifest(&rel, &raw, sink);
    if let Some(id) = facts.root {
        roots.push((rel.clone(), id));
    }
    // The loader's own reading gives the entries; its complaints about the manifest are the
    // schema findings above, which say more.
    let (entries, _) = read_manifest(root, manifest);
    Some((entries, facts.hashes))
}

/// Reads one node file, listed in a manifest by `listed` and the entries in its `also`: read,
/// parsed and hashed once, then checked against each entry (a file named by thousands of
/// entries costs one read, not one per entry).
fn load_listed(reader: &Reader, listed: &Entry, hashes: &HashMap<String, String>) -> FileResult {
    let root = reader.root();
    let mut out = FileResult::default();
    let rel = rel_path(root, &listed.file);
    let ids = || listed.listings().map(|e| e.id.clone());
    let first = listed.id.clone();
    let text = match reader.read(&listed.file) {
        Ok(text) => text,
        Err(problem) => {
            out.unloadable.extend(ids());
            if listed.file.symlink_metadata().is_err() {
                for entry in listed.listings() {
                    out.findings.push(missing_file(entry, &rel));
                }
            } else {
                out.findings.push(problem_finding(&problem).node(&first));
            }
            return out;
        }
    };
    let raw: Value = match serde_json::from_str(&text) {
        Ok(raw) => raw,
        Err(err) => {
            out.unloadable.extend(ids());
            out.findings.push(json_error(&rel, &err).node(&first));
            return out;
        }
    };
    let Value::Object(map) = &raw else {
        out.unloadable.extend(ids());
        out.findings.push(
            Pending::at(
                "parse-error",
                &Location::file(&rel),
                "a node file must hold one JSON object ({\"id\": …, \"type\": …, …})",
            )
            .node(&first),
        );
        return out;
    };
    out.findings.extend(schema::node(&rel, map));
    out.findings
        .extend(hash_findings(reader, listed, &rel, hashes));
    let node = match parse_node(&rel, &text) {
        Ok(node) => node,
        Err(problem) => {
            out.unloadable.extend(ids());
            // A missing or empty id or type: the schema findings say so.
            if problem.kind != ProblemKind::MissingField {
                out.findings.push(problem_finding(&problem).node(&first));
            }
            return out;
        }
    };
    for entry in listed.listings() {
        match entry.mismatch(&node) {
            None => out.node = Some(node.clone()),
            Some(mismatch) => {
                out.unloadable.push(entry.id.clone());
                out.findings
                    .push(mismatch_finding(entry, &node, &rel, mismatch));
            }
        }
    }
    out
}

/// A node file that does not exist, at the manifest entry that names it.
fn missing_file(entry: &Entry, rel: &str) -> Pending {
    Pending::anchored(
        "missing-file",
        &entry.manifest,
        entry_anchor(entry, "path"),
        format!(
            "{} lists {} at {rel}, which does not exist: create the node file or fix the `path`",
            entry.manifest, entry.id
        ),
    )
    .node(&entry.id)
}

/// The member `key` of `entry` in its manifest.
fn entry_anchor(entry: &Entry, key: &str) -> Anchor {
    Anchor::Json(vec![
        Seg::key("nodes"),
        Seg::ObjWith("id".into(), entry.id.clone()),
        Seg::key(key),
    ])
}

/// A file whose SHA-256 differs from what an entry records for it (hashed once).
fn hash_findings(
    reader: &Reader,
    listed: &Entry,
    rel: &str,
    hashes: &HashMap<String, String>,
) -> Vec<Pending> {
    let mut findings = Vec::new();
    let mut actual: Option<Option<String>> = None;
    for entry in listed.listings() {
        let Some(declared) = hashes.get(&entry.id) else {
            continue;
        };
        let actual = actual.get_or_insert_with(|| file_sha256(reader.guard(), &listed.file));
        if actual.as_deref() != Some(declared.to_ascii_lowercase().as_str()) {
            findings.push(
                Pending::anchored(
                    "file-hash-mismatch",
                    &entry.manifest,
                    entry_anchor(entry, "sha256"),
                    format!(
                        "{} records sha256 {} for {rel} but the file's SHA-256 is {}: review the change, then update the hash",
                        entry.manifest,
                        short(declared),
                        actual.as_deref().map(short).unwrap_or("unreadable")
                    ),
                )
                .node(&entry.id),
            );
        }
    }
    findings
}

/// A node file whose id or type differs from what an entry that lists it says, at the file's
/// `id` or `type`.
fn mismatch_finding(entry: &Entry, node: &Node, rel: &str, mismatch: Mismatch) -> Pending {
    let (rule, key, advice) = match mismatch {
        Mismatch::Id => (
            "id-mismatch",
            "id",
            "make the file's id and the graph.json entry agree",
        ),
        Mismatch::Type => (
            "type-mismatch",
            "type",
            "fix the `type` or the entry's `expectedType`",
        ),
    };
    let mut pending = Pending::at(
        rule,
        &Location::file(rel),
        format!("{}: {advice}", entry.mismatch_message(node, mismatch)),
    );
    pending.anchor = Anchor::Json(vec![Seg::key(key)]);
    pending.node(&entry.id)
}

/// Reads the artifact files of one source.
fn load_artifacts(
    reader: &Reader,
    files: Vec<(std::path::PathBuf, Placement)>,
    settings: &Settings,
    sink: &Sink,
) -> Vec<FileResult> {
    let root = reader.root();
    let identity_rule = sink.on("oversized-identity");
    files
        .par_iter()
        .map(|(file, placement)| {
            let mut out = FileResult::default();
            let rel = rel_path(root, file);
            let text = match reader.read(file) {
                Ok(text) => text,
                Err(problem) => {
                    out.findings.push(problem_finding(&problem));
                    return out;
                }
            };
            let keys = artifacts::front_keys(&text);
            out.front = Some((
                rel.clone(),
                text[..super::frontmatter_end(&text)].to_string(),
            ));
            match parse_artifact(&rel, &text, placement) {
                Ok(None) => {}
                Ok(Some(node)) => {
                    let identity = *placement == Placement::Identity || node.kind == Kind::Identity;
                    out.findings.extend(
                        artifacts::required_fields(
                            &rel,
                            &node.kind,
                            identity,
                            &keys,
                            settings.config,
                        )
                        .into_iter()
                        .map(|p| p.node(&node.id)),
                    );
                    if identity && identity_rule {
                        out.findings
                            .extend(artifacts::identity_size(&rel, &text, &node, settings));
                    }
                    out.node = Some(node);
                }
                Err(problem) => {
                    // Valid frontmatter whose id is missing or empty: a missing field, reported
                    // with any other; anything else is malformed frontmatter.
                    let missing = (problem.kind == ProblemKind::MissingField)
                        .then(|| frontmatter_map(&rel, &text))
                        .flatten();
                    match missing {
                        Some(map) => {
                            let kind = match placement {
                                Placement::Folder(kind) => kind.clone(),
                                _ => map
                                    .get("type")
                                    .or_else(|| map.get("kind"))
                                    .and_then(Value::as_str)
                                    .map(Kind::parse)
                                    .unwrap_or_else(|| Kind::parse("artifact")),
                            };
                            let required = artifacts::required_fields(
                                &rel,
                                &kind,
                                *placement == Placement::Identity,
                                &keys,
                                settings.config,
                            );
                            // The loader refused this file (so `context` refuses the project):
                            // when no required-field finding says why (an `id` that is a list
                            // or a map), its own message does.
                            let explained = required.iter().any(
                                |p| matches!(&p.anchor, Anchor::Front { key, .. } if key == "id"),
                            );
                            if !explained {
                                out.findings.push(artifact_finding(&problem));
                            }
                            out.findings.extend(required);
                        }
                        None => out.findings.push(artifact_finding(&problem)),
                    }
                }
            }
            out
        })
        .collect()
}

/// The frontmatter map of a file, when its frontmatter parses.
fn frontmatter_map(rel: &str, text: &str) -> Option<serde_json::Map<String, Value>> {
    let split = split_frontmatter(rel, text).ok()?;
    parse_frontmatter(rel, split.yaml?, split.yaml_line).ok()
}

/// A loader problem as a finding: a file that does not load is a `parse-error`, whatever
/// the loader found wrong in it.
fn problem_finding(problem: &Problem) -> Pending {
    Pending::at("parse-error", &problem.location, problem.message.clone())
}

/// An artifact loader's problem as a finding, by its kind: an unreadable file is a
/// `parse-error`, a missing `id` a `missing-required-field`, anything else in the
/// frontmatter `malformed-frontmatter`.
fn artifact_finding(problem: &Problem) -> Pending {
    let rule = match problem.kind {
        ProblemKind::Unreadable => "parse-error",
        ProblemKind::MissingField => "missing-required-field",
        ProblemKind::Syntax
        | ProblemKind::Invalid
        | ProblemKind::DuplicateId
        | ProblemKind::Content => "malformed-frontmatter",
    };
    Pending::at(rule, &problem.location, problem.message.clone())
}

/// A JSON syntax error as a `parse-error` finding.
fn json_error(rel: &str, err: &serde_json::Error) -> Pending {
    let message = err.to_string();
    let message = match message.rfind(" at line ") {
        Some(cut) => message[..cut].to_string(),
        None => message,
    };
    Pending::at(
        "parse-error",
        &Location {
            path: rel.to_string(),
            line: err.line() as u32,
            col: err.column() as u32,
        },
        format!("invalid JSON: {message}"),
    )
}

/// The SHA-256 of a file's bytes (beneath the root), lower-case hex.
pub(super) fn file_sha256(root: &Root, path: &Path) -> Option<String> {
    use sha2::{Digest, Sha256};
    let (bytes, _) = root.read(path).ok()?;
    let digest = Sha256::digest(&bytes);
    Some(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// The first 12 hex digits of a hash, for messages.
pub(super) fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}
