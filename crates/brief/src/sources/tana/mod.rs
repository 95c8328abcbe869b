//! Tana workspace exports (`tana = "export.json"` in `brief.toml`): one JSON file that
//! becomes many nodes.
//!
//! The export is `{formatVersion, docs: [...], editors, workspaces, …}`, possibly wrapped
//! as `{storeData: {…}}` (supertag.md §2). Every doc is `{id, props, children, modifiedTs}`;
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

use super::{read_text, rel_path, Problem, Severity, SourceOutput};
use crate::model::{Content, Kind, Link, Location, Node, Origin, Relation, TanaField, TanaFields};
use crate::root::Root;

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
pub const UNTAGGED: &str = "node";

mod lenient;
mod rich;
#[cfg(test)]
mod tests;

use lenient::*;
use rich::*;

// ---------------------------------------------------------------------------------------
// Parsing and the workspace model.

/// An id's position among an export's content nodes (sorted by id), if it is one.
pub type Lookup<'l> = &'l (dyn Fn(&str) -> Option<usize> + Sync);

/// Receives the built nodes of an export chunk by chunk: the position of the chunk's first
/// node, the nodes, and the lookup of any id's position.
pub type ChunkSink<'s, E> = dyn FnMut(usize, Vec<Node>, Lookup<'_>) -> Result<(), E> + 's;

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
        location: Location {
            path: rel.to_string(),
            line,
            col,
        },
        message: format!("{}: {message}", show_path(path)),
    }
}

/// What a doc is to the loader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// A content node: becomes a [`Node`].
    Content,
    /// A system doc (tuple, metanode, tagDef, …).
    System,
    /// A workspace container.
    Container,
    /// In the trash, a field value owned by a tuple, or under such a doc: not content.
    Hidden,
    /// A content doc without a name or children (an empty bullet): left out.
    Empty,
}

/// The resolved workspace: roles, supertags, fields, and the content nodes sorted by id.
struct Workspace<'e, 'a> {
    docs: &'e [Doc<'a>],
    by_id: HashMap<&'e str, u32>,
    role: Vec<Role>,
    /// Supertag names by tagDef doc, and the names each one extends (transitively).
    tags: HashMap<u32, (String, Vec<String>)>,
    /// Field names by attrDef doc.
    fields: HashMap<u32, String>,
    /// Metanode of a doc that has no `_metaNodeId` (found by the metanode's owner).
    metanodes: HashMap<u32, u32>,
    /// Owned children missing from their owner's `children` list.
    unlisted: HashMap<u32, Vec<u32>>,
    /// Docs in the trash (at any depth).
    trashed: Vec<bool>,
    /// Content docs sorted by id; a node's position here is its stable place in the export.
    content: Vec<u32>,
    /// Position in `content` by doc (`u32::MAX` when not content).
    position: Vec<u32>,
}

impl<'a> Export<'a> {
    /// Every doc, content or not.
    pub fn doc_count(&self) -> usize {
        self.docs.len()
    }

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
            sink(first, nodes, &lookup)?;
            first = end;
        }
        Ok(problems(&rel, text, found))
    }
}

/// Values shared by every node of one export (one allocation, not one per node).
struct Shared {
    location: Location,
    untagged: Kind,
    relations: std::sync::Mutex<HashMap<String, Relation>>,
}

impl Shared {
    fn new(location: &Location) -> Shared {
        Shared {
            location: location.clone(),
            untagged: Kind::Other(Arc::from(UNTAGGED)),
            relations: std::sync::Mutex::new(HashMap::new()),
        }
    }

    /// The `field:<name>` relation, one `Arc` per field name.
    fn field(&self, name: &str) -> Relation {
        let mut map = self.relations.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(name.to_string())
            .or_insert_with(|| Relation::Field(Arc::from(format!("field:{name}"))))
            .clone()
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

impl<'e, 'a> Workspace<'e, 'a> {
    fn new(docs: &'e [Doc<'a>], found: &mut Vec<Found>, prefix: &[Seg]) -> Workspace<'e, 'a> {
        let mut by_id: HashMap<&'e str, u32> = HashMap::with_capacity(docs.len());
        for (i, doc) in docs.iter().enumerate() {
            if let Some(&first) = by_id.get(doc.id.as_ref()) {
                let mut path = prefix.to_vec();
                path.extend([Seg::Key("docs"), Seg::Index(i), Seg::Key("id")]);
                found.push(Found {
                    severity: Severity::Warning,
                    path,
                    message: format!(
                        "duplicate id `{}` (first at docs[{first}]); the first is kept",
                        doc.id
                    ),
                });
                continue;
            }
            by_id.insert(doc.id.as_ref(), i as u32);
        }
        let owner_of = |i: usize| -> Option<u32> {
            docs[i]
                .owner
                .as_deref()
                .and_then(|o| by_id.get(o).copied())
                .filter(|&o| o as usize != i)
        };
        // Hidden: in the trash (at any depth: 4), or owned at any depth by a system doc (2).
        // Memoized walk up the owner chain; a cycle counts as not hidden.
        // 0 unknown, 1 visible, 2 under a system doc, 3 on the stack, 4 trashed.
        let mut hidden: Vec<u8> = vec![0; docs.len()];
        let mut stack: Vec<usize> = Vec::new();
        for start in 0..docs.len() {
            let mut at = start;
            let verdict = loop {
                match hidden[at] {
                    0 => {}
                    3 => {
                        // Back at a doc of this walk: an ownership cycle. Its docs stay (as
                        // content, children of each other); the export is said to be wrong.
                        let from = stack.iter().position(|&s| s == at).unwrap_or(0);
                        let chain: Vec<&str> = stack[from..]
                            .iter()
                            .chain(std::iter::once(&at))
                            .map(|&d| docs[d].id.as_ref())
                            .collect();
                        let mut path = prefix.to_vec();
                        path.extend([
                            Seg::Key("docs"),
                            Seg::Index(at),
                            Seg::Key("props"),
                            Seg::Key("_ownerId"),
                        ]);
                        found.push(Found {
                            severity: Severity::Warning,
                            path,
                            message: format!(
                                "ownership cycle: {} (each `_ownerId` names the next); the nodes \
                                 are kept as children of each other",
                                chain.join(" → ")
                            ),
                        });
                        break 1;
                    }
                    known => break known,
                }
                hidden[at] = 3;
                stack.push(at);
                match owner_of(at) {
                    None => break 1,
                    Some(o) => {
                        let owner = &docs[o as usize];
                        if is_trash(&owner.id) {
                            break 4;
                        }
                        if is_system(owner.doc_type.as_deref()) && hidden[o as usize] != 4 {
                            // Still trashed if the system doc is: keep walking for that.
                            let mut up = o as usize;
                            let mut steps = 0;
                            let trashed = loop {
                                if hidden[up] == 4 {
                                    break true;
                                }
                                match owner_of(up) {
                                    Some(next) if steps < 64 => {
                                        if is_trash(&docs[next as usize].id) {
                                            break true;
                                        }
                                        up = next as usize;
                                        steps += 1;
                                    }
                                    _ => break false,
                                }
                            };
                            break if trashed { 4 } else { 2 };
                        }
                        at = o as usize;
                    }
                }
            };
            for i in stack.drain(..) {
                hidden[i] = verdict;
            }
        }
        let trashed: Vec<bool> = hidden.iter().map(|&h| h == 4).collect();
        let role: Vec<Role> = docs
            .iter()
            .enumerate()
            .map(|(i, doc)| {
                if by_id.get(doc.id.as_ref()) != Some(&(i as u32)) {
                    Role::Hidden
                } else if is_container(&doc.id) {
                    Role::Container
                } else if hidden[i] == 2 || hidden[i] == 4 {
                    Role::Hidden
                } else if is_system(doc.doc_type.as_deref()) {
                    Role::System
                } else if doc.name.trim().is_empty() && doc.children.is_empty() {
                    Role::Empty
                } else {
                    Role::Content
                }
            })
            .collect();
        drop(hidden);

        let mut metanodes = HashMap::new();
        for (i, doc) in docs.iter().enumerate() {
            if doc.doc_type.as_deref() == Some("metanode") {
                if let Some(o) = owner_of(i) {
                    metanodes.entry(o).or_insert(i as u32);
                }
            }
        }
        let mut ws = Workspace {
            docs,
            by_id,
            role,
            tags: HashMap::new(),
            fields: HashMap::new(),
            metanodes,
            unlisted: HashMap::new(),
            trashed,
            content: Vec::new(),
            position: Vec::new(),
        };

        // Supertags and fields from their definitions.
        let mut parents: HashMap<u32, Vec<u32>> = HashMap::new();
        for (i, doc) in docs.iter().enumerate() {
            if ws.trashed[i] {
                continue;
            }
            let mut tag = doc.doc_type.as_deref() == Some("tagDef");
            let mut field = doc.doc_type.as_deref() == Some("attrDef");
            let mut supers = Vec::new();
            for tuple in ws.meta_tuples(i as u32) {
                let ids = &docs[tuple as usize].children;
                if ids.first().map(|c| c.as_ref()) != Some("SYS_A13") {
                    continue;
                }
                if ids.iter().any(|c| c == "SYS_T01") {
                    tag = true;
                    supers.extend(
                        ids.iter()
                            .filter(|c| !c.starts_with("SYS_"))
                            .filter_map(|c| ws.by_id.get(c.as_ref()).copied()),
                    );
                }
                if ids.iter().any(|c| c == "SYS_T02") {
                    field = true;
                }
            }
            let name = plain(&doc.name).trim().to_string();
            if name.is_empty() {
                continue;
            }
            if tag {
                ws.tags.insert(i as u32, (name, Vec::new()));
                parents.insert(i as u32, supers);
            } else if field {
                ws.fields.insert(i as u32, name);
            }
        }
        let tag_ids: Vec<u32> = ws.tags.keys().copied().collect();
        for tag in tag_ids {
            // Transitive parents, cycles cut by the visited set.
            let mut seen = BTreeSet::from([tag]);
            let mut todo = parents.get(&tag).cloned().unwrap_or_default();
            let mut names = BTreeSet::new();
            while let Some(p) = todo.pop() {
                if !seen.insert(p) {
                    continue;
                }
                if let Some((name, _)) = ws.tags.get(&p) {
                    names.insert(name.clone());
                    todo.extend(parents.get(&p).into_iter().flatten());
                }
            }
            if let Some(entry) = ws.tags.get_mut(&tag) {
                names.remove(&entry.0);
                entry.1 = names.into_iter().collect();
            }
        }

        // Owned children their owner does not list.
        let mut listed = vec![false; docs.len()];
        for (i, doc) in docs.iter().enumerate() {
            for child in &doc.children {
                if let Some(&c) = ws.by_id.get(child.as_ref()) {
                    if ws.owner(c) == Some(i as u32) {
                        listed[c as usize] = true;
                    }
                }
            }
        }
        for (i, &is_listed) in listed.iter().enumerate() {
            if !is_listed && ws.role[i] == Role::Content {
                if let Some(o) = ws.owner(i as u32) {
                    if ws.role[o as usize] == Role::Content {
                        ws.unlisted.entry(o).or_default().push(i as u32);
                    }
                }
            }
        }
        for list in ws.unlisted.values_mut() {
            list.sort_by(|a, b| docs[*a as usize].id.cmp(&docs[*b as usize].id));
        }

        let mut content: Vec<u32> = (0..docs.len() as u32)
            .filter(|&i| ws.role[i as usize] == Role::Content)
            .collect();
        content.par_sort_unstable_by(|a, b| docs[*a as usize].id.cmp(&docs[*b as usize].id));
        let mut position = vec![u32::MAX; docs.len()];
        for (p, &d) in content.iter().enumerate() {
            position[d as usize] = p as u32;
        }
        ws.content = content;
        ws.position = position;
        ws
    }

    fn get(&self, id: &str) -> Option<u32> {
        self.by_id.get(id).copied()
    }

    fn owner(&self, doc: u32) -> Option<u32> {
        self.docs[doc as usize]
            .owner
            .as_deref()
            .and_then(|o| self.get(o))
            .filter(|&o| o != doc)
    }

    fn is_content(&self, doc: u32) -> bool {
        self.role[doc as usize] == Role::Content
    }

    /// The tuples of a doc's metanode.
    fn meta_tuples(&self, doc: u32) -> impl Iterator<Item = u32> + '_ {
        let meta = self.docs[doc as usize]
            .meta
            .as_deref()
            .and_then(|m| self.get(m))
            .filter(|&m| self.docs[m as usize].doc_type.as_deref() == Some("metanode"))
            .or_else(|| self.metanodes.get(&doc).copied());
        meta.into_iter().flat_map(move |m| {
            self.docs[m as usize]
                .children
                .iter()
                .filter_map(|c| self.get(c))
                .filter(|&t| self.docs[t as usize].doc_type.as_deref() == Some("tuple"))
        })
    }

    /// The name of a doc with its spans resolved one level deep.
    fn name(&self, doc: u32) -> (String, Vec<u32>) {
        resolve(&self.docs[doc as usize].name, &|id| {
            self.get(id)
                .map(|d| (d, ref_name(&self.docs[d as usize].name)))
        })
    }

    fn node(&self, d: u32, shared: &Shared) -> Node {
        let doc = &self.docs[d as usize];
        let mut links: Vec<Link> = Vec::new();
        let link = |links: &mut Vec<Link>, relation: Relation, target: u32| {
            if self.is_content(target) && target != d {
                links.push(Link {
                    relation,
                    target: self.docs[target as usize].id.to_string(),
                });
            }
        };
        let (title, refs) = self.name(d);
        for r in refs {
            link(&mut links, Relation::Reference, r);
        }
        let description = doc.description.as_deref().map(|text| {
            let (text, refs) = resolve(text, &|id| {
                self.get(id)
                    .map(|t| (t, ref_name(&self.docs[t as usize].name)))
            });
            for r in refs {
                link(&mut links, Relation::Reference, r);
            }
            text
        });

        // Applied supertags, then what they extend.
        let mut tags: Vec<String> = Vec::new();
        let mut inherited: BTreeSet<String> = BTreeSet::new();
        for tuple in self.meta_tuples(d) {
            let ids = &self.docs[tuple as usize].children;
            if ids.first().map(|c| c.as_ref()) != Some("SYS_A13")
                || ids.iter().any(|c| c == "SYS_T01" || c == "SYS_T02")
            {
                continue;
            }
            for id in ids.iter().skip(1) {
                if let Some((name, supers)) = self.get(id).and_then(|t| self.tags.get(&t)) {
                    if !tags.contains(name) {
                        tags.push(name.clone());
                    }
                    inherited.extend(supers.iter().cloned());
                }
            }
        }
        inherited.retain(|t| !tags.contains(t));

        // Fields (tuple children) and the outline (content children).
        let mut fields: Vec<TanaField> = Vec::new();
        let mut outline: Vec<String> = Vec::new();
        let mut child_count = 0;
        let mut seen_children: Vec<u32> = Vec::new();
        for child in &doc.children {
            let Some(c) = self.get(child) else { continue };
            let cdoc = &self.docs[c as usize];
            if cdoc.doc_type.as_deref() == Some("tuple") {
                self.field(d, c, &mut fields, &mut links, shared);
                continue;
            }
            if !self.is_content(c) || c == d || seen_children.contains(&c) {
                continue;
            }
            seen_children.push(c);
            child_count += 1;
            let owned = self.owner(c) == Some(d);
            if outline.len() < TanaFields::OUTLINE_KEPT {
                let name = self.name(c).0;
                outline.push(if owned { name } else { format!("[[{name}]]") });
            }
            link(
                &mut links,
                if owned {
                    Relation::Child
                } else {
                    Relation::Reference
                },
                c,
            );
        }
        for &c in self.unlisted.get(&d).into_iter().flatten() {
            child_count += 1;
            if outline.len() < TanaFields::OUTLINE_KEPT {
                outline.push(self.name(c).0);
            }
            link(&mut links, Relation::Child, c);
        }

        let kind = match tags.first() {
            Some(tag) => Kind::parse(tag),
            None => shared.untagged.clone(),
        };
        let created = doc.created.map(iso_time);
        let modified = doc.modified.or(doc.created).map(iso_time);
        let date = modified.as_ref().map(|t| t[..10].to_string());
        let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
        Node {
            id: doc.id.to_string(),
            kind,
            title: if title.is_empty() {
                "(untitled)".to_string()
            } else {
                title
            },
            status: None,
            origin: Origin::Tana,
            content: Content::Tana(TanaFields {
                tags,
                inherited: inherited.into_iter().collect(),
                fields,
                description: description.filter(|d| !d.trim().is_empty()),
                children: outline,
                child_count,
                created,
                modified,
            }),
            links,
            date,
            location: shared.location.clone(),
        }
    }

    /// Reads a field tuple `[label, value…]` of node `d`.
    fn field(
        &self,
        d: u32,
        tuple: u32,
        fields: &mut Vec<TanaField>,
        links: &mut Vec<Link>,
        shared: &Shared,
    ) {
        let ids = &self.docs[tuple as usize].children;
        if ids.len() < 2 || ids.len() >= MAX_FIELD_TUPLE {
            return;
        }
        let label = ids[0].as_ref();
        let name = match BUILTIN_FIELDS.iter().find(|(id, _)| *id == label) {
            Some((_, name)) => name.to_string(),
            None => match self.get(label).and_then(|l| self.fields.get(&l)) {
                Some(name) => name.clone(),
                None => return,
            },
        };
        let mut values = Vec::new();
        let mut targets: Vec<u32> = Vec::new();
        for id in &ids[1..] {
            let Some(v) = self.get(id) else { continue };
            if self.trashed[v as usize] {
                continue;
            }
            let (text, refs) = self.name(v);
            let text = text.trim().to_string();
            if self.owner(v) == Some(tuple) || !self.is_content(v) {
                // An owned value is text; references inside it still link the node.
                if !text.is_empty() {
                    values.push(text);
                }
                targets.extend(refs);
            } else {
                values.push(format!("[[{text}]]"));
                targets.push(v);
            }
        }
        if values.is_empty() {
            return;
        }
        let relation = shared.field(&name);
        for t in targets {
            if self.is_content(t) && t != d {
                links.push(Link {
                    relation: relation.clone(),
                    target: self.docs[t as usize].id.to_string(),
                });
            }
        }
        match fields.iter_mut().find(|f| f.name == name) {
            Some(existing) => existing.values.extend(values),
            None => fields.push(TanaField { name, values }),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Entry points.

/// Loads an export into nodes (for `check` and the in-memory graph).
pub fn load(root: &Root, export: &Path) -> SourceOutput {
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
pub fn load_text(rel: &str, text: &str) -> SourceOutput {
    match parse(rel, text) {
        Err(problem) => SourceOutput {
            nodes: Vec::new(),
            problems: vec![problem],
        },
        Ok(export) => {
            let mut nodes = Vec::new();
            let problems = export
                .build::<std::convert::Infallible>(usize::MAX, &mut |_, chunk, _| {
                    nodes.extend(chunk);
                    Ok(())
                })
                .unwrap_or_else(|never| match never {});
            SourceOutput { nodes, problems }
        }
    }
}
