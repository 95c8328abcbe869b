//! Spec Graph source: `graph.json` (the manifest) and the node files it lists.
//!
//! The path in `graph.json` is canonical; files it does not list are not loaded. Every field
//! of a node file is kept (unknown top-level keys land in `SpecFields::extra`).

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{read_text, rel_path, Problem, ProblemKind, SourceOutput};
use crate::jsonpos::Seg;
use brief_model::{
    Content, Kind, Link, Location, Node, Origin, Pin, RejectedAlternative, Relation, SpecFields,
    Verification,
};
use brief_root::Root;

/// Finds the Spec Graph manifest of a project: `graph.json` at the root (when it carries
/// `specgraphVersion`) or `specgraph/graph.json`.
pub fn discover(root: &Root) -> Option<std::path::PathBuf> {
    let nested = root.path().join("specgraph").join("graph.json");
    // Anything there (a FIFO, a folder) is the manifest, refused when read at its path,
    // rather than a project said to have no sources.
    if root.kind(&nested).is_ok() {
        return Some(nested);
    }
    let top = root.path().join("graph.json");
    let (bytes, _) = root.read(&top).ok()?;
    // `specgraphVersion` comes first in a manifest; a huge unrelated file is not read whole.
    memfind(&bytes, b"\"specgraphVersion\"").then_some(top)
}

fn memfind(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// A node file listed in a manifest.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entry {
    /// The id the manifest gives.
    pub id: String,
    /// The node file (under the root).
    pub file: PathBuf,
    /// The manifest's `expectedType`, if any.
    pub expected: Option<String>,
    /// The manifest, relative to the root (for messages).
    pub manifest: String,
    /// The other entries that name the same file, in the order listed (a file listed twice
    /// is read once): its node must match each of them too.
    pub also: Vec<Entry>,
}

/// How a node file differs from an entry that lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mismatch {
    /// The file's id is not the entry's.
    Id,
    /// The file's type is not the entry's `expectedType`.
    Type,
}

impl Entry {
    /// How `node` (this entry's file) differs from what this entry says, if it does.
    pub fn mismatch(&self, node: &Node) -> Option<Mismatch> {
        if node.id != self.id {
            return Some(Mismatch::Id);
        }
        match &self.expected {
            Some(expected) if Kind::parse(expected) != node.kind => Some(Mismatch::Type),
            _ => None,
        }
    }

    /// The message for a [`Mismatch`] of `node`.
    pub fn mismatch_message(&self, node: &Node, mismatch: Mismatch) -> String {
        let (id, manifest) = (&self.id, &self.manifest);
        match mismatch {
            Mismatch::Id => format!(
                "node id `{}` differs from `{id}` listed in {manifest}",
                node.id
            ),
            Mismatch::Type => format!(
                "node {id} has type `{}` but {manifest} expects `{}`",
                node.kind,
                self.expected.as_deref().unwrap_or_default()
            ),
        }
    }

    /// This entry and every other that names its file.
    pub fn listings(&self) -> impl Iterator<Item = &Entry> {
        std::iter::once(self).chain(&self.also)
    }
}

/// `entries` with those that name a file already named merged into the first that does
/// (`also`), in the order listed: each file is read once.
pub fn merge_listed(entries: Vec<Entry>) -> Vec<Entry> {
    let mut first: HashMap<PathBuf, usize> = HashMap::new();
    let mut merged: Vec<Entry> = Vec::with_capacity(entries.len());
    for entry in entries {
        match first.get(&entry.file) {
            Some(&at) => merged[at].also.push(entry),
            None => {
                first.insert(entry.file.clone(), merged.len());
                merged.push(entry);
            }
        }
    }
    merged
}

/// Reads a manifest: the node files it lists, and the problems of the manifest itself.
pub fn read_manifest(root: &Root, manifest: &Path) -> (Vec<Entry>, Vec<Problem>) {
    let mut problems = Vec::new();
    let manifest_rel = rel_path(root.path(), manifest);
    let text = match read_text(root, manifest) {
        Ok(text) => text,
        Err(problem) => return (Vec::new(), vec![problem]),
    };
    let base = manifest.parent().unwrap_or(root.path());
    // The common case, a well-formed manifest, is read without building a JSON tree;
    // anything unusual goes the careful way below, which says what is wrong and where.
    if let Ok(manifest) = serde_json::from_str::<WellFormed>(&text) {
        if manifest
            .nodes
            .iter()
            .all(|entry| path_stays_inside(&entry.path))
        {
            let entries = manifest
                .nodes
                .into_iter()
                .map(|entry| Entry {
                    id: entry.id.into_owned(),
                    file: base.join(&*entry.path),
                    expected: entry.expected.map(Cow::into_owned),
                    manifest: manifest_rel.clone(),
                    also: Vec::new(),
                })
                .collect();
            return (entries, problems);
        }
    }
    let value: Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(err) => return (Vec::new(), vec![json_problem(&manifest_rel, &err)]),
    };
    // Problems are placed where `check` places them; the text is walked once, and only
    // when there is one.
    let locator = std::cell::OnceCell::new();
    let at = |path: &[Seg]| -> Location {
        let locator = locator.get_or_init(|| crate::jsonpos::Locator::new(&text));
        let offset = locator.locate(path).unwrap_or(0);
        let (line, col) = crate::text::line_col(&text, offset);
        Location {
            path: manifest_rel.clone(),
            line,
            col,
        }
    };
    let Some(listed) = value.get("nodes").and_then(Value::as_array) else {
        problems.push(Problem::error(
            ProblemKind::Invalid,
            at(&[Seg::key("nodes")]),
            "graph.json has no `nodes` array: it must list every node as {\"id\", \"path\"}",
        ));
        return (Vec::new(), problems);
    };
    if value
        .get("specgraphVersion")
        .and_then(Value::as_str)
        .is_none()
    {
        problems.push(Problem::error(
            ProblemKind::MissingField,
            at(&[Seg::key("specgraphVersion")]),
            "graph.json has no `specgraphVersion` string (e.g. \"1.0.0\")",
        ));
    }
    let mut entries = Vec::with_capacity(listed.len());
    for (i, entry) in listed.iter().enumerate() {
        let member = |key: &str| [Seg::key("nodes"), Seg::Index(i), Seg::key(key)];
        let (id, path) = (entry_id(entry), entry.get("path").and_then(Value::as_str));
        let (Some(id), Some(path)) = (id, path) else {
            // Where check says what is wrong: the entry, or its member of the wrong type.
            let place = match (entry.get("id"), id, entry.get("path")) {
                (Some(_), None, _) => at(&member("id")),
                (Some(_), Some(_), Some(_)) => at(&member("path")),
                _ => at(&[Seg::key("nodes"), Seg::Index(i)]),
            };
            problems.push(Problem::error(
                ProblemKind::MissingField,
                place,
                format!("nodes[{i}] needs a string `id` and a string `path`"),
            ));
            continue;
        };
        if !path_stays_inside(path) {
            problems.push(Problem::error(ProblemKind::Invalid,
                at(&member("path")),
                format!("nodes[{i}] ({id}): path `{path}` must be relative and stay inside the graph folder"),
            ));
            continue;
        }
        entries.push(Entry {
            id: id.to_string(),
            file: base.join(path),
            expected: entry
                .get("expectedType")
                .and_then(Value::as_str)
                .map(str::to_string),
            manifest: manifest_rel.clone(),
            also: Vec::new(),
        });
    }
    (entries, problems)
}

/// Parses the node file of a manifest entry and checks it against the entry and every other
/// entry that names the same file ([`Entry::also`]).
pub(crate) fn parse_entry(entry: &Entry, file_rel: &str, text: &str) -> Result<Node, Problem> {
    let node = parse_node(file_rel, text)?;
    for listed in entry.listings() {
        if let Some(mismatch) = listed.mismatch(&node) {
            let key = match mismatch {
                Mismatch::Id => "id",
                Mismatch::Type => "type",
            };
            return Err(Problem::error(
                ProblemKind::Invalid,
                key_location(file_rel, text, key),
                listed.mismatch_message(&node, mismatch),
            ));
        }
    }
    Ok(node)
}

/// Reads and parses the node file of an entry.
pub(crate) fn load_entry(root: &Root, entry: &Entry) -> Result<Node, Problem> {
    let file_rel = rel_path(root.path(), &entry.file);
    let text = read_text(root, &entry.file).map_err(|mut problem| {
        problem.message = format!(
            "{} (listed in {} as {})",
            problem.message, entry.manifest, entry.id
        );
        problem
    })?;
    parse_entry(entry, &file_rel, &text)
}

/// Loads the graph whose manifest is `manifest` (a path under `root`), parsing node files
/// on all cores.
pub(crate) fn load(root: &Root, manifest: &Path) -> SourceOutput {
    use rayon::prelude::*;
    let (entries, mut problems) = read_manifest(root, manifest);
    let entries = merge_listed(entries);
    let mut results: Vec<Result<Node, Problem>> = entries
        .par_iter()
        .map(|entry| load_entry(root, entry))
        .collect();
    let missing: Vec<(usize, &str)> = entries
        .iter()
        .enumerate()
        .filter(|&(i, entry)| results[i].is_err() && is_missing(entry))
        .map(|(i, entry)| (i, entry.id.as_str()))
        .collect();
    if !missing.is_empty() {
        let places = entry_places(root, manifest);
        for (i, id) in missing {
            if let (Err(problem), Some(at)) = (&mut results[i], places.get(id)) {
                problem.location = at.clone();
            }
        }
    }
    let mut nodes = Vec::with_capacity(results.len());
    for result in results {
        match result {
            Ok(node) => nodes.push(node),
            Err(problem) => problems.push(problem),
        }
    }
    SourceOutput { nodes, problems }
}

/// Whether the node file an entry names does not exist (not even as a link).
pub(crate) fn is_missing(entry: &Entry) -> bool {
    entry.file.symlink_metadata().is_err()
}

/// [`entry_places`] of each manifest, read when first asked and kept for one run (a
/// refresh's reads ask from many threads).
#[derive(Debug, Default)]
pub struct Places(std::sync::Mutex<HashMap<String, std::sync::Arc<HashMap<String, Location>>>>);

impl Places {
    /// Where `entry` names its file in its manifest.
    pub fn of(&self, root: &Root, entry: &Entry) -> Option<Location> {
        let mut known = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let places = known
            .entry(entry.manifest.clone())
            .or_insert_with(|| {
                std::sync::Arc::new(entry_places(root, &root.path().join(&entry.manifest)))
            })
            .clone();
        drop(known);
        places.get(&entry.id).cloned()
    }

    /// Puts the problem of a node file that does not exist (`file`, as listed by `entry`)
    /// where `check` reports it: at the manifest entry that names it.
    pub fn relocate(&self, root: &Root, entry: &Entry, file: &Path, problem: &mut Problem) {
        if file.symlink_metadata().is_err() {
            if let Some(at) = self.of(root, entry) {
                problem.location = at;
            }
        }
    }
}

/// Where each entry of a manifest names its file (the `path` member of the first entry with
/// each id): where a node file that does not exist is reported, as `check` reports it. The
/// manifest is read and walked once, for the problems of a run.
pub(crate) fn entry_places(root: &Root, manifest: &Path) -> HashMap<String, Location> {
    let Ok(text) = read_text(root, manifest) else {
        return HashMap::new();
    };
    let manifest_rel = rel_path(root.path(), manifest);
    let ids: Vec<String> = match serde_json::from_str::<Value>(&text) {
        Ok(value) => value
            .get("nodes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|entry| entry_id(entry).map(str::to_string))
            .collect(),
        Err(_) => return HashMap::new(),
    };
    let locator = crate::jsonpos::Locator::new(&text);
    let offsets: Vec<Option<usize>> = ids
        .iter()
        .map(|id| {
            locator.locate(&[
                crate::jsonpos::Seg::key("nodes"),
                crate::jsonpos::Seg::ObjWith("id".into(), id.clone()),
                crate::jsonpos::Seg::key("path"),
            ])
        })
        .collect();
    let positions = crate::text::line_cols(&text, &offsets);
    let mut places = HashMap::new();
    for (id, position) in ids.into_iter().zip(positions) {
        if let Some((line, col)) = position {
            places.entry(id).or_insert(Location {
                path: manifest_rel.clone(),
                line,
                col,
            });
        }
    }
    places
}

/// A manifest with nothing to report, as [`read_manifest`] reads it first. Deserialized
/// by hand because derived structs would also accept JSON arrays in place of objects.
struct WellFormed<'a> {
    nodes: Vec<WellFormedEntry<'a>>,
}

struct WellFormedEntry<'a> {
    id: Cow<'a, str>,
    path: Cow<'a, str>,
    expected: Option<Cow<'a, str>>,
}

/// A JSON string, borrowed from the manifest's text unless it has escapes.
struct Text<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Text<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(Visit)
    }
}

impl<'de> serde::Deserialize<'de> for WellFormed<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = WellFormed<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a manifest object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Self::Value, M::Error> {
                let (mut version, mut nodes) = (false, None);
                while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                    match &*key {
                        "specgraphVersion" => {
                            map.next_value::<Text<'de>>()?;
                            version = true;
                        }
                        "nodes" => nodes = Some(map.next_value::<Vec<WellFormedEntry<'de>>>()?),
                        _ => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                match (version, nodes) {
                    (true, Some(nodes)) => Ok(WellFormed { nodes }),
                    _ => Err(serde::de::Error::custom("not a well-formed manifest")),
                }
            }
        }
        d.deserialize_map(Visit)
    }
}

impl<'de> serde::Deserialize<'de> for WellFormedEntry<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = WellFormedEntry<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a manifest entry object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Self::Value, M::Error> {
                let (mut id, mut path, mut expected) = (None, None, None);
                while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                    let slot = match &*key {
                        "id" => &mut id,
                        "path" => &mut path,
                        "expectedType" => {
                            expected = map.next_value::<Option<Text<'de>>>()?.map(|t| t.0);
                            continue;
                        }
                        _ => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                            continue;
                        }
                    };
                    // A repeated key: the careful reading decides which one counts.
                    if slot.is_some() {
                        return Err(serde::de::Error::custom("repeated key"));
                    }
                    *slot = Some(map.next_value::<Text<'de>>()?.0);
                }
                match (id, path) {
                    (Some(id), Some(path)) => Ok(WellFormedEntry { id, path, expected }),
                    _ => Err(serde::de::Error::custom("an entry needs `id` and `path`")),
                }
            }
        }
        d.deserialize_map(Visit)
    }
}

/// Whether a manifest's node path is relative and never climbs out of the graph folder.
fn path_stays_inside(path: &str) -> bool {
    !(path.starts_with('/') || path.split('/').any(|part| part == ".."))
}

fn entry_id(entry: &Value) -> Option<&str> {
    entry.get("id").and_then(Value::as_str)
}

/// Parses one Spec Graph node file.
pub fn parse_node(path: &str, text: &str) -> Result<Node, Problem> {
    let value: Value = serde_json::from_str(text).map_err(|err| json_problem(path, &err))?;
    let Value::Object(map) = value else {
        return Err(Problem::error(
            ProblemKind::Syntax,
            Location::file(path),
            "a node file must hold one JSON object",
        ));
    };
    let id = match map.get("id") {
        Some(Value::String(id)) if !id.trim().is_empty() => id.trim().to_string(),
        Some(_) => {
            return Err(Problem::error(
                ProblemKind::MissingField,
                key_location(path, text, "id"),
                "`id` must be a non-empty string",
            ))
        }
        None => {
            // Where `check` says so too: beside the `type`, where the id belongs.
            return Err(Problem::error(
                ProblemKind::MissingField,
                key_location(path, text, "type"),
                "missing `id`: every node needs an id like \"AUTH-01\"",
            ));
        }
    };
    let kind = match map.get("type").and_then(Value::as_str) {
        Some(kind) => Kind::parse(kind),
        None => {
            // At the `type` when it is not a string, else beside the `id`, as `check` says.
            let beside = if map.contains_key("type") {
                "type"
            } else {
                "id"
            };
            return Err(Problem::error(
                ProblemKind::MissingField,
                key_location(path, text, beside),
                format!("node {id} has no `type` (feature, layer, behavior, decision, …)"),
            ));
        }
    };
    let title = string(&map, "title").unwrap_or_else(|| id.clone());
    let mut links = Vec::new();
    if let Some(Value::Object(link_map)) = map.get("links") {
        for (key, targets) in link_map {
            let relation = Relation::from_key(key);
            for target in string_list(Some(targets)) {
                links.push(Link {
                    relation: relation.clone(),
                    target,
                });
            }
        }
    }
    let fields = spec_fields(&map);
    Ok(Node {
        id,
        kind,
        title,
        status: string(&map, "status"),
        origin: Origin::SpecGraph,
        content: Content::Spec(fields),
        links,
        date: None,
        location: Location::file(path),
    })
}

/// The fields of a node's object besides its id, type, title, links and status: the known
/// ones by name, `metadata`, `pins` and `artifact` unpacked, the rest kept as they are.
fn spec_fields(map: &Map<String, Value>) -> SpecFields {
    let mut fields = SpecFields {
        description: string(map, "description"),
        expectation: string(map, "expectation"),
        statement: string(map, "statement"),
        constraints: string_list(map.get("constraints")),
        verification: verification(map.get("verification")),
        category: string(map, "category"),
        severity: string(map, "severity"),
        ..SpecFields::default()
    };
    if let Some(Value::Object(meta)) = map.get("metadata") {
        for (key, value) in meta {
            match key.as_str() {
                "rationale" => fields.rationale = value.as_str().map(str::to_string),
                "rejected_alternatives" => {
                    fields.rejected_alternatives = value
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|alt| RejectedAlternative {
                            title: alt
                                .get("title")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string(),
                            reason: alt
                                .get("reason")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string(),
                        })
                        .collect()
                }
                _ => fields.metadata.push((key.clone(), value.clone())),
            }
        }
    }
    if let Some(Value::Array(pins)) = map.get("pins") {
        fields.pins = pins
            .iter()
            .map(|pin| Pin {
                id: pin
                    .get("id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                sha256: pin
                    .get("sha256")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
            })
            .collect();
    }
    if let Some(Value::Object(info)) = map.get("artifact") {
        fields.artifact = info.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    }
    const KNOWN: [&str; 16] = [
        "$schema",
        "id",
        "type",
        "title",
        "links",
        "description",
        "expectation",
        "statement",
        "constraints",
        "verification",
        "category",
        "severity",
        "metadata",
        "pins",
        "artifact",
        "status",
    ];
    fields.extra = map
        .iter()
        .filter(|(key, _)| !KNOWN.contains(&key.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    fields
}

fn verification(value: Option<&Value>) -> Vec<Verification> {
    let entry = |value: &Value| match value {
        Value::String(text) => Some(Verification::Text(text.clone())),
        Value::Object(map) => Some(Verification::Entry {
            kind: map
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_string(),
            fields: map
                .iter()
                .filter(|(key, _)| key.as_str() != "kind")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }),
        _ => None,
    };
    match value {
        Some(Value::Array(items)) => items.iter().filter_map(entry).collect(),
        Some(other) => entry(other).into_iter().collect(),
        None => Vec::new(),
    }
}

fn string(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_string)
}

/// A string or a list of strings; anything else yields nothing (check reports it).
pub(crate) fn string_list(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::String(text)) => vec![text.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|item| match item {
                Value::String(text) => Some(text.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn json_problem(path: &str, err: &serde_json::Error) -> Problem {
    let message = err.to_string();
    // serde_json appends " at line L column C"; the location already says it.
    let message = match message.rfind(" at line ") {
        Some(cut) => message[..cut].to_string(),
        None => message,
    };
    Problem::error(
        ProblemKind::Syntax,
        Location {
            path: path.to_string(),
            line: err.line().max(1) as u32,
            col: err.column().max(1) as u32,
        },
        format!("invalid JSON: {message}"),
    )
}

/// Where the member `key` of a node file's object is (its key), as `check` places findings
/// about it; the object's start when there is no such member.
fn key_location(path: &str, text: &str, key: &str) -> Location {
    let offset = crate::jsonpos::locate(text, &[crate::jsonpos::Seg::key(key)]).unwrap_or(0);
    let (line, col) = crate::text::line_col(text, offset);
    Location {
        path: path.to_string(),
        line,
        col,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_field_of_a_decision() {
        let text = r#"{
  "id": "DEC-PAY-01", "type": "decision", "category": "architecture",
  "title": "Ledger first", "statement": "Every payment writes a ledger entry first.",
  "constraints": ["Entries are immutable"],
  "verification": ["cargo test ledger", {"kind": "manual", "steps": ["Inspect the ledger"]}],
  "links": {"depends_on": ["DEC-PAY-02"], "constrains": ["PAY-01"]},
  "metadata": {"rationale": "Auditors need a trail.", "owner": "payments",
    "rejected_alternatives": [{"title": "Event log only", "reason": "Hard to reconcile daily."}]},
  "x-custom": 3
}"#;
        let node = parse_node("nodes/decisions/DEC-PAY-01.json", text).unwrap();
        assert_eq!(node.kind, Kind::Decision);
        let spec = node.spec().unwrap();
        assert_eq!(spec.category.as_deref(), Some("architecture"));
        assert_eq!(spec.verification.len(), 2);
        assert_eq!(spec.rationale.as_deref(), Some("Auditors need a trail."));
        assert_eq!(spec.rejected_alternatives[0].title, "Event log only");
        assert_eq!(spec.metadata[0].0, "owner");
        assert_eq!(spec.extra[0].0, "x-custom");
        assert_eq!(node.links.len(), 2);
    }

    #[test]
    fn behavior_verification_is_a_single_string() {
        let text = r#"{"id":"PAY-01","type":"behavior","title":"Pay","expectation":"It pays.","verification":"npm test"}"#;
        let node = parse_node("b.json", text).unwrap();
        assert_eq!(
            node.spec().unwrap().verification,
            vec![Verification::Text("npm test".into())]
        );
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let problem = parse_node("x.json", "{\n  \"id\": \"A\",\n  \"type\": }").unwrap_err();
        assert_eq!(problem.location.line, 3);
        assert!(problem.location.col > 1);
        assert!(problem.message.starts_with("invalid JSON"));
    }

    #[test]
    fn a_file_named_by_several_entries_is_checked_against_each() {
        let entry = |id: &str, file: &str| Entry {
            id: id.into(),
            file: PathBuf::from(file),
            expected: Some("behavior".into()),
            manifest: "specgraph/graph.json".into(),
            also: Vec::new(),
        };
        let merged = merge_listed(vec![
            entry("A", "a.json"),
            entry("B", "b.json"),
            entry("OTHER", "a.json"),
            entry("A", "a.json"),
        ]);
        assert_eq!(merged.len(), 2);
        let ids: Vec<&str> = merged[0].listings().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["A", "OTHER", "A"]);
        // The file says A: the entry that lists it as OTHER is the mismatch, located at the
        // file's `id` key as `check` locates it (line 2, column 3).
        let text = "{\n  \"id\": \"A\", \"type\": \"behavior\", \"title\": \"A\"\n}";
        let problem = parse_entry(&merged[0], "a.json", text).unwrap_err();
        assert!(problem.message.contains("`OTHER`"), "{}", problem.message);
        assert_eq!((problem.location.line, problem.location.col), (2, 3));
        assert!(parse_entry(&merged[1], "a.json", text).is_err());
        let alone = entry("A", "a.json");
        assert!(parse_entry(&alone, "a.json", text).is_ok());
        // A type the entry does not expect, located at the `type` key.
        let task = text.replace("behavior", "task");
        let problem = parse_entry(&alone, "a.json", &task).unwrap_err();
        assert_eq!((problem.location.line, problem.location.col), (2, 14));
    }

    #[test]
    fn a_missing_node_file_is_placed_at_its_entry() {
        let dir = tempfile::tempdir().unwrap();
        let graph = dir.path().join("specgraph");
        std::fs::create_dir_all(&graph).unwrap();
        std::fs::write(
            graph.join("graph.json"),
            "{\"specgraphVersion\": \"1.0.0\", \"nodes\": [\n  {\"id\": \"A\", \"path\": \"a.json\"}\n]}",
        )
        .unwrap();
        let root = Root::open(dir.path()).unwrap();
        let out = load(&root, &graph.join("graph.json"));
        assert_eq!(out.problems.len(), 1, "{:?}", out.problems);
        let at = &out.problems[0].location;
        assert_eq!(
            (at.path.as_str(), at.line, at.col),
            ("specgraph/graph.json", 2, 15)
        );
    }

    #[test]
    fn missing_id_is_an_error() {
        let problem = parse_node("x.json", r#"{"type":"behavior"}"#).unwrap_err();
        assert!(problem.message.contains("missing `id`"));
    }

    fn manifest(text: &str) -> (Vec<Entry>, Vec<Problem>) {
        let dir = tempfile::tempdir().unwrap();
        let graph = dir.path().join("specgraph");
        std::fs::create_dir_all(&graph).unwrap();
        std::fs::write(graph.join("graph.json"), text).unwrap();
        read_manifest(&Root::open(dir.path()).unwrap(), &graph.join("graph.json"))
    }

    /// What the entries say, without the temporary folder they live in.
    fn listed(entries: &[Entry]) -> Vec<(String, String, Option<String>, String)> {
        entries
            .iter()
            .map(|e| {
                let file = e.file.to_string_lossy();
                let at = file.find("specgraph/").unwrap();
                (
                    e.id.clone(),
                    file[at..].to_string(),
                    e.expected.clone(),
                    e.manifest.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn a_well_formed_manifest_lists_every_entry() {
        // Escapes, a null and unknown fields: the quick reading takes them as the careful one.
        let (entries, problems) = manifest(
            r#"{"specgraphVersion": "1.0.0", "x-tool": {"a": 1}, "nodes": [
                {"id": "A-1", "path": "nodes\/a.json", "expectedType": "decision"},
                {"id": "B-2", "path": "nodes/b.json", "expectedType": null, "note": 3}
            ]}"#,
        );
        assert!(problems.is_empty(), "{problems:?}");
        let m = "specgraph/graph.json".to_string();
        assert_eq!(
            listed(&entries),
            vec![
                (
                    "A-1".into(),
                    "specgraph/nodes/a.json".into(),
                    Some("decision".into()),
                    m.clone()
                ),
                ("B-2".into(), "specgraph/nodes/b.json".into(), None, m),
            ]
        );
    }

    #[test]
    fn a_flawed_manifest_reports_each_flaw_and_keeps_the_rest() {
        let (entries, problems) = manifest(
            r#"{"nodes": [
                {"id": "A-1", "path": "nodes/a.json"},
                {"id": 7, "path": "nodes/seven.json"},
                {"id": "C-3", "path": "../outside.json"},
                {"id": "D-4", "path": "nodes/d.json", "expectedType": 5}
            ]}"#,
        );
        let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["A-1", "D-4"]);
        assert_eq!(entries[1].expected, None);
        let messages: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(messages[0].contains("specgraphVersion"), "{messages:?}");
        assert!(
            messages[1].contains("nodes[1] needs a string `id`"),
            "{messages:?}"
        );
        assert!(messages[2].contains("must be relative"), "{messages:?}");
        assert!(problems
            .iter()
            .all(|p| p.location.path == "specgraph/graph.json"));
    }

    #[test]
    fn arrays_in_place_of_objects_are_not_a_manifest() {
        let (entries, problems) = manifest(r#"["1.0.0", [["A-1", "nodes/a.json", null]]]"#);
        assert!(entries.is_empty());
        assert!(
            problems[0].message.contains("no `nodes` array"),
            "{problems:?}"
        );
        let (entries, problems) =
            manifest(r#"{"specgraphVersion": "1.0.0", "nodes": [["A-1", "nodes/a.json"]]}"#);
        assert!(entries.is_empty());
        assert!(
            problems[0].message.contains("nodes[0] needs a string `id`"),
            "{problems:?}"
        );
    }
}

#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any bytes, parsed as a node file, give a node or a located problem — never a panic.
        #[test]
        fn parse_node_never_panics(text in "\\PC{0,200}") {
            let _ = super::parse_node("x.json", &text);
        }

        /// Near-valid JSON (the shapes nodes have, with random values) never panics either.
        #[test]
        fn parse_node_on_json_shapes(
            id in proptest::option::of("[A-Z]{1,4}"),
            kind in "[a-z_]{0,12}",
            value in prop_oneof![Just("null".to_string()), Just("[]".to_string()), Just("{}".to_string()), "\"[^\"\\\\]{0,10}\"", "-?[0-9]{1,5}"],
        ) {
            let id = id.map(|id| format!("\"id\": \"{id}\",")).unwrap_or_default();
            let text = format!(
                "{{{id} \"type\": \"{kind}\", \"title\": {value}, \"links\": {value}, \"verification\": {value}, \"metadata\": {value}, \"pins\": {value}, \"constraints\": {value}}}"
            );
            let _ = super::parse_node("x.json", &text);
        }
    }
}
