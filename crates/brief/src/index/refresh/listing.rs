//! The listing of a project's sources and the parser each file is read with.

use super::*;

/// How a file is parsed: a Spec Graph manifest entry or an artifact placement.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::index) enum Parser {
    Spec(Entry),
    Artifact(Placement),
    /// A Tana workspace export: one file, many nodes.
    Tana,
    /// A knowledge-base Markdown file, with the fingerprint of the catalogue it was parsed
    /// against (a file added elsewhere can change what its links resolve to).
    Markdown(String),
}

/// Every source file of the project, the manifests' own problems, and the manifests and
/// folders to watch for a quick check, each stamped before it was read.
pub(in crate::index) fn list(project: &Project) -> (Vec<Listed>, Vec<Problem>, Vec<FolderStamp>) {
    let root = &project.root;
    let mut listed = Vec::new();
    let mut problems = Vec::new();
    let mut watches: Vec<FolderStamp> = Vec::new();
    for source in &project.sources {
        match source {
            Source::Tana { export } => {
                watches.push(folder_stamp(export));
                listed.push(Listed {
                    rel: rel_path(root, export),
                    path: export.clone(),
                    parser: Parser::Tana,
                    known: None,
                });
            }
            Source::SpecGraph { manifest } => {
                watches.push(folder_stamp(manifest));
                let (entries, manifest_problems) =
                    specgraph::read_manifest(&project.guard, manifest);
                problems.extend(manifest_problems);
                for entry in entries {
                    listed.push(Listed {
                        rel: rel_path(root, &entry.file),
                        path: entry.file.clone(),
                        parser: Parser::Spec(entry),
                        known: None,
                    });
                }
            }
            Source::Markdown { .. } => {
                let layout = kb::Layout::detect(&project.guard);
                let (files, folders) = kb::listing(&project.guard, &layout);
                watches.extend(folders);
                for path in [".adr-dir", ".log4brains.yml", ".obsidian/templates.json"] {
                    watches.push(folder_stamp(&root.join(path)));
                }
                for path in files {
                    listed.push(Listed {
                        rel: rel_path(root, &path),
                        path,
                        parser: Parser::Markdown(String::new()),
                        known: None,
                    });
                }
            }
            Source::Contextia { dir } | Source::Folder { dir } => {
                let listing = match source {
                    Source::Contextia { .. } => artifacts::contextia_listing(&project.guard, dir),
                    _ => artifacts::folder_listing(&project.guard, dir),
                };
                watches.extend(listing.folders);
                for (path, placement) in listing.files {
                    listed.push(Listed {
                        rel: rel_path(root, &path),
                        path,
                        parser: Parser::Artifact(placement),
                        known: None,
                    });
                }
            }
        }
    }
    listed.sort_by(|a, b| a.rel.cmp(&b.rel));
    listed.dedup_by(|a, b| a.rel == b.rel);
    // The first stamp of a path is the one taken before it was read.
    watches.sort_by(|a, b| a.0.cmp(&b.0));
    watches.dedup_by(|a, b| a.0 == b.0);
    (listed, problems, watches)
}

/// A parser as stored with its file: `s`, manifest, id, expected type; or `a` and a
/// placement (`identity`, `loose`, or the kind of a folder).
pub(in crate::index) fn encode_parser(parser: &Parser) -> String {
    match parser {
        Parser::Spec(entry) => format!(
            "s\t{}\t{}\t{}",
            entry.manifest,
            entry.id,
            entry.expected.as_deref().unwrap_or("")
        ),
        Parser::Artifact(Placement::Identity) => "a\tidentity".into(),
        Parser::Artifact(Placement::Loose) => "a\tloose".into(),
        Parser::Artifact(Placement::Folder(kind)) => format!("a\tfolder\t{kind}"),
        Parser::Tana => "t".into(),
        Parser::Markdown(fingerprint) => format!("m\t{fingerprint}"),
    }
}

pub(in crate::index) fn decode_parser(text: &str) -> Option<Parser> {
    let parts: Vec<&str> = text.split('\t').collect();
    match parts.as_slice() {
        ["s", manifest, id, expected] => Some(Parser::Spec(Entry {
            id: id.to_string(),
            file: PathBuf::new(),
            expected: (!expected.is_empty()).then(|| expected.to_string()),
            manifest: manifest.to_string(),
        })),
        ["a", "identity"] => Some(Parser::Artifact(Placement::Identity)),
        ["a", "loose"] => Some(Parser::Artifact(Placement::Loose)),
        ["a", "folder", kind] => Some(Parser::Artifact(Placement::Folder(Kind::parse(kind)))),
        ["t"] => Some(Parser::Tana),
        ["m", fingerprint] => Some(Parser::Markdown(fingerprint.to_string())),
        _ => None,
    }
}

pub(in crate::index) fn parse(
    rel: &str,
    text: &str,
    parser: &Parser,
    catalog: &kb::Catalog,
) -> Result<Option<Node>, Problem> {
    match parser {
        // Its warnings (broken links) are `brief check`'s to report; the node is whole.
        Parser::Markdown(_) => Ok(Some(markdown::parse(rel, text, catalog).0)),
        Parser::Spec(entry) => specgraph::parse_entry(entry, rel, text).map(Some),
        Parser::Artifact(placement) => artifacts::parse_artifact(rel, text, placement),
        // Exports are written by `write_tana`, inside the refresh's transaction.
        Parser::Tana => Ok(None),
    }
}
