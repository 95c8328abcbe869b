//! Tana workspace exports (`tana = "export.json"` in `brief.toml`): one JSON file that
//! becomes many nodes.
//!
//! The export is `{formatVersion, docs: [...], editors, workspaces, …}`, possibly wrapped
//! as `{storeData: {…}}` (`docs/sources.md`, "Tana"). Every doc is `{id, props, children, modifiedTs}`;
//! what a doc *is* comes from `props._docType` and the tuples around it:
//!
//! - Content nodes (no `_docType`, or one that is not a system type) become [`Node`]s with
//!   Tana's id, their name as title (inline-reference spans resolved to `[[name]]`, date
//!   spans to the date), supertags as kind and tags, fields, created/modified times.
//! - System docs (tuples, metanodes, `tagDef`, `attrDef`, `viewDef`, …) are never nodes;
//!   they define supertags (`tagDef` + metanode tuple `[SYS_A13, SYS_T01, parents…]`), fields
//!   (`attrDef`, or a metanode tuple `[SYS_A13, SYS_T02]`), tag applications (a metanode
//!   tuple `[SYS_A13, tag…]`) and field values (a tuple child `[label, value…]`).
//! - Anything under a `…_TRASH` container (at any depth) is dropped.
//! - Ownership (`_ownerId`) gives `child` edges; a `children` entry owned elsewhere and an
//!   inline reference give `reference` edges; a field value that is a node gives a
//!   `field:<name>` edge.
//!
//! Parsing deserializes straight into compact borrowed structs (no `serde_json::Value`
//! tree): a 1M-doc export must index in seconds. Every value the loader reads is accepted in
//! any JSON type and checked afterwards, so a wrong type is a problem naming its JSON path
//! (`docs[12].children[3]: expected a string id`), never a panic or a silent skip. Unknown
//! `_docType`s are tolerated: they are treated as content.

use super::text::line_col;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::{read_text, rel_path, Problem, ProblemKind, Severity, SourceOutput};
use brief_model::{Content, Kind, Link, Location, Node, Origin, Relation, TanaField, TanaFields};
use brief_root::Root;

/// `_docType`s that are structure, not content: they are read to build tags and fields.
const SYSTEM_TYPES: &[&str] = &[
    "tuple",
    "metanode",
    "tagDef",
    "attrDef",
    "viewDef",
    "associatedData",
    "settings",
    "workspace",
    "command",
    "syntax",
    "placeholder",
    "chatbot",
];

/// Workspace containers (`<ws>_SCHEMA`, `<ws>_STASH`, …): folders, not content.
const CONTAINERS: &[&str] = &[
    "_SCHEMA",
    "_TRASH",
    "_STASH",
    "_WORKSPACE",
    "_USERS",
    "_SIDEBAR_AREAS",
    "_SEARCHES",
    "_CAPTURE_INBOX",
    "_QUICK_ADD",
    "_MOVETO",
    "_AVATARS",
    "_PINS",
    "_CHATDRAFTS",
    "_TRAILING_SIDEBAR",
    "_SETTINGS",
];

/// Built-in field labels (`SYS_A*` ids are referenced but never exported).
const BUILTIN_FIELDS: &[(&str, &str)] = &[
    ("SYS_A61", "Due date"),
    ("SYS_A90", "Date"),
    ("SYS_A142", "Attendees"),
    ("SYS_A199", "Transcript"),
];

/// Tuples this large are blobs (daily briefings), not fields (supertag skips them too).
const MAX_FIELD_TUPLE: usize = 50;

/// At most this many problems are listed one by one; the rest are counted.
const MAX_PROBLEMS: usize = 100;

/// The kind of untagged content nodes.
pub(crate) const UNTAGGED: &str = "node";

mod lenient;
mod rich;
#[cfg(test)]
mod tests;
mod workspace;

use lenient::*;
use rich::*;
use workspace::*;

// ---------------------------------------------------------------------------------------
// Parsing and the workspace model.

/// An id's position among an export's content nodes (sorted by id), if it is one.
pub(crate) type Lookup<'l> = &'l (dyn Fn(&str) -> Option<usize> + Sync);

/// Receives the built nodes of an export chunk by chunk: the position of the chunk's first
/// node, the number of content nodes in the whole export (for progress), the nodes, and the
/// lookup of any id's position.
pub(crate) type ChunkSink<'s, E> =
    dyn FnMut(usize, usize, Vec<Node>, Lookup<'_>) -> Result<(), E> + 's;

/// A parsed export: its docs, and the problems met reading them.
pub struct Export<'a> {
    rel: String,
    text: &'a str,
    docs: Vec<Doc<'a>>,
    found: Vec<Found>,
    prefix: Vec<Seg>,
}

/// Parses an export's text. Fails (with one problem) only when the text is not JSON or has
/// no `docs` array; anything wrong inside a doc is a problem of [`Export::problems`].
pub fn parse<'a>(rel: &str, text: &'a str) -> Result<Export<'a>, Problem> {
    let at = Cell::new(None);
    let found = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let seed = TopSeed {
        at: &at,
        found: &found,
        prefix: Vec::new(),
    };
    let result = seed
        .deserialize(&mut de)
        .and_then(|top| de.end().map(|_| top));
    let (top, prefix) = match result {
        Ok(top) => top,
        Err(err) => {
            let mut message = err.to_string();
            if let Some(cut) = message.rfind(" at line ") {
                message.truncate(cut);
            }
            let place = match at.get() {
                Some(i) => format!("docs[{i}]: "),
                None => String::new(),
            };
            return Err(Problem::error(
                ProblemKind::Syntax,
                Location {
                    path: rel.to_string(),
                    line: err.line().max(1) as u32,
                    col: err.column().max(1) as u32,
                },
                format!("{place}invalid JSON: {message}"),
            ));
        }
    };
    let docs =
        match top {
            Top::Docs(Ok(docs)) => docs,
            Top::Docs(Err(what)) => {
                let mut path = prefix.clone();
                path.push(Seg::Key("docs"));
                return Err(problem_at(
                    rel,
                    text,
                    &path,
                    Severity::Error,
                    &format!("expected an array of docs, found {what}"),
                ));
            }
            Top::NoDocs => return Err(problem_at(
                rel,
                text,
                &prefix,
                Severity::Error,
                "not a Tana export: expected an object with a `docs` array (or `storeData.docs`)",
            )),
            Top::NotObject(what) => {
                return Err(problem_at(
                    rel,
                    text,
                    &[],
                    Severity::Error,
                    &format!("not a Tana export: expected a JSON object, found {what}"),
                ))
            }
        };
    Ok(Export {
        rel: rel.to_string(),
        text,
        docs,
        found: found.into_inner(),
        prefix,
    })
}

/// A problem at a JSON path, with the line and column of that path in the text.
fn problem_at(rel: &str, text: &str, path: &[Seg], severity: Severity, message: &str) -> Problem {
    let segs: Vec<super::jsonpos::Seg> = path
        .iter()
        .map(|s| match s {
            Seg::Key(k) => super::jsonpos::Seg::key(k),
            Seg::Index(i) => super::jsonpos::Seg::Index(*i),
        })
        .collect();
    let (line, col) = super::jsonpos::locate(text, &segs)
        .map(|offset| line_col(text, offset))
        .unwrap_or((1, 1));
    Problem {
        severity,
        kind: ProblemKind::Invalid,
        location: Location {
            path: rel.to_string(),
            line,
            col,
        },
        message: format!("{}: {message}", show_path(path)),
    }
}

impl<'a> Export<'a> {
    /// Builds the nodes in chunks of `chunk` (in id order, built on all cores) and hands each
    /// to `sink` with the position of its first node and a lookup from an id to its position
    /// among all content nodes. Returns the problems, sorted by location.
    pub fn build<E>(self, chunk: usize, sink: &mut ChunkSink<'_, E>) -> Result<Vec<Problem>, E> {
        let Export {
            rel,
            text,
            docs,
            mut found,
            prefix,
        } = self;
        let ws = Workspace::new(&docs, &mut found, &prefix);
        let location = Location::file(rel.clone());
        let lookup = |id: &str| -> Option<usize> {
            ws.by_id
                .get(id)
                .map(|&d| ws.position[d as usize])
                .filter(|&p| p != u32::MAX)
                .map(|p| p as usize)
        };
        let shared = Shared::new(&location);
        let mut first = 0;
        while first < ws.content.len() {
            let end = (first + chunk.max(1)).min(ws.content.len());
            let nodes: Vec<Node> = ws.content[first..end]
                .par_iter()
                .map(|&d| ws.node(d, &shared))
                .collect();
            sink(first, ws.content.len(), nodes, &lookup)?;
            first = end;
        }
        Ok(problems(&rel, text, found))
    }
}

/// Sorts, caps and locates the problems.
fn problems(rel: &str, text: &str, mut found: Vec<Found>) -> Vec<Problem> {
    let total = found.len();
    found.truncate(MAX_PROBLEMS);
    // Locating walks the text from the start: affordable for a few problems, not thousands
    // in a huge file, where the JSON path in the message still says where.
    let locate = found.len() <= 20 && text.len() <= 64 << 20;
    let mut out: Vec<Problem> = found
        .iter()
        .map(|f| {
            if locate {
                problem_at(rel, text, &f.path, f.severity, &f.message)
            } else {
                Problem {
                    severity: f.severity,
                    kind: ProblemKind::Invalid,
                    location: Location::file(rel),
                    message: format!("{}: {}", show_path(&f.path), f.message),
                }
            }
        })
        .collect();
    if total > MAX_PROBLEMS {
        let severity = found
            .iter()
            .map(|f| f.severity)
            .max()
            .unwrap_or(Severity::Warning);
        out.push(Problem {
            severity,
            kind: ProblemKind::Invalid,
            location: Location::file(rel),
            message: format!(
                "… and {} more problems in this export",
                total - MAX_PROBLEMS
            ),
        });
    }
    out.sort_by(|a, b| {
        a.location
            .cmp(&b.location)
            .then_with(|| a.message.cmp(&b.message))
    });
    out
}

fn is_system(doc_type: Option<&str>) -> bool {
    doc_type.is_some_and(|t| SYSTEM_TYPES.contains(&t))
}

fn is_container(id: &str) -> bool {
    CONTAINERS.iter().any(|suffix| id.ends_with(suffix))
}

fn is_trash(id: &str) -> bool {
    id.contains("_TRASH")
}

// ---------------------------------------------------------------------------------------
// Entry points.

/// Loads an export into nodes (for `check` and the in-memory graph).
pub(crate) fn load(root: &Root, export: &Path) -> SourceOutput {
    let rel = rel_path(root.path(), export);
    let text = match read_text(root, export) {
        Ok(text) => text,
        Err(problem) => {
            return SourceOutput {
                nodes: Vec::new(),
                problems: vec![problem],
            }
        }
    };
    load_text(&rel, &text)
}

/// Loads an export from its text.
pub(crate) fn load_text(rel: &str, text: &str) -> SourceOutput {
    match parse(rel, text) {
        Err(problem) => SourceOutput {
            nodes: Vec::new(),
            problems: vec![problem],
        },
        Ok(export) => {
            let mut nodes = Vec::new();
            let problems = export
                .build::<std::convert::Infallible>(usize::MAX, &mut |_, _, chunk, _| {
                    nodes.extend(chunk);
                    Ok(())
                })
                .unwrap_or_else(|never| match never {});
            SourceOutput { nodes, problems }
        }
    }
}
