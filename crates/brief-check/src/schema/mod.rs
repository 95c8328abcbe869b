//! The Spec Graph JSON schema (`graph.schema.json`, `node.schema.json`; reference §1.2–1.3),
//! checked on the raw JSON the model does not keep: which fields are present, their JSON
//! types, lengths, enums, and the per-type conditionals.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::{Anchor, Pending, Sink};
use brief_sources::Seg;

mod node;
#[cfg(test)]
mod tests;

pub(super) use node::node;

/// The fourteen node types.
const TYPES: [&str; 14] = [
    "feature",
    "layer",
    "foundation",
    "behavior",
    "decision",
    "domain",
    "policy",
    "design_token",
    "ui_contract",
    "api_contract",
    "data_model",
    "artifact",
    "equivalence_contract",
    "pipeline",
];

/// The relation names a Spec Graph node's `links` may use.
fn relations() -> impl Iterator<Item = &'static str> {
    brief_model::Relation::SPEC_GRAPH
        .into_iter()
        .filter_map(|r| r.spec_graph_name())
}

const CATEGORIES: [&str; 4] = ["architecture", "stack", "pattern", "interface"];

const GROUPING_KEYS: [&str; 7] = [
    "$schema",
    "id",
    "type",
    "title",
    "description",
    "links",
    "metadata",
];
const BEHAVIOR_KEYS: [&str; 9] = [
    "$schema",
    "id",
    "type",
    "title",
    "expectation",
    "verification",
    "constraints",
    "links",
    "metadata",
];
const CONTRACT_KEYS: [&str; 13] = [
    "$schema",
    "id",
    "type",
    "title",
    "statement",
    "verification",
    "category",
    "severity",
    "pins",
    "artifact",
    "constraints",
    "links",
    "metadata",
];

const VERIFICATION_KINDS: [&str; 5] = ["command", "http", "manual", "observation", "policy"];
const VERIFICATION_FIELDS: [&str; 12] = [
    "kind",
    "command",
    "cwd",
    "env",
    "timeoutSeconds",
    "method",
    "url",
    "expectStatus",
    "steps",
    "expected",
    "description",
    "ruleId",
];
const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/// What the rest of check needs from a manifest.
#[derive(Debug, Default)]
pub(super) struct ManifestFacts {
    /// `root`, when it is a string.
    pub root: Option<String>,
    /// The `sha256` each entry declares, by id.
    pub hashes: HashMap<String, String>,
}

/// Findings about one file, anchored by JSON paths.
struct Out<'a> {
    path: &'a str,
    node: Option<String>,
    findings: Vec<Pending>,
}

impl Out<'_> {
    fn push(&mut self, rule: &'static str, at: Vec<Seg>, message: String) {
        let mut pending = Pending::anchored(rule, self.path, Anchor::Json(at), message);
        pending.node = self.node.clone();
        self.findings.push(pending);
    }
}

fn path(segs: &[&str]) -> Vec<Seg> {
    segs.iter().map(|s| Seg::key(s)).collect()
}

fn with(base: &[Seg], seg: Seg) -> Vec<Seg> {
    let mut out = base.to_vec();
    out.push(seg);
    out
}

/// `^[A-Z][A-Z0-9-]{0,max-1}$`.
pub(super) fn valid_id(id: &str, max: usize) -> bool {
    let bytes = id.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= max
        && bytes[0].is_ascii_uppercase()
        && bytes
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'-')
}

fn is_sha256(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

fn is_semver(text: &str) -> bool {
    let (core, pre) = match text.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (text, None),
    };
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        && pre.is_none_or(|pre| {
            !pre.is_empty()
                && pre
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
        })
}

fn is_node_path(text: &str) -> bool {
    !text.starts_with('/')
        && !text.contains("../")
        && text.len() > ".json".len()
        && text.ends_with(".json")
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-'))
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Checks graph.json.
pub(super) fn manifest(rel: &str, raw: &Value, sink: &mut Sink) -> ManifestFacts {
    let mut facts = ManifestFacts::default();
    let mut out = Out {
        path: rel,
        node: None,
        findings: Vec::new(),
    };
    let Value::Object(map) = raw else {
        out.push(
            "schema",
            Vec::new(),
            "graph.json must hold one object with `specgraphVersion` and `nodes`".into(),
        );
        sink.extend(out.findings);
        return facts;
    };
    top_level(&mut out, map, &mut facts);
    let nodes = match map.get("nodes") {
        Some(Value::Array(nodes)) if !nodes.is_empty() => nodes,
        Some(Value::Array(_)) => {
            out.push(
                "schema",
                path(&["nodes"]),
                "`nodes` is empty: list every node as {\"id\": …, \"path\": …}".into(),
            );
            sink.extend(out.findings);
            return facts;
        }
        Some(other) => {
            out.push(
                "schema",
                path(&["nodes"]),
                format!(
                    "`nodes` must be a list of {{\"id\", \"path\"}} entries, not {}",
                    json_type(other)
                ),
            );
            sink.extend(out.findings);
            return facts;
        }
        None => {
            out.push(
                "schema",
                Vec::new(),
                "graph.json has no `nodes`: list every node as {\"id\": …, \"path\": …}".into(),
            );
            sink.extend(out.findings);
            return facts;
        }
    };
    entries(&mut out, nodes, &mut facts);
    sink.extend(out.findings);
    facts
}

/// graph.json's top-level fields besides `nodes`: known keys, the version, `$schema`, `root`,
/// `nodeSearchPaths` and `defaults`.
fn top_level(out: &mut Out<'_>, map: &Map<String, Value>, facts: &mut ManifestFacts) {
    const KEYS: [&str; 6] = [
        "$schema",
        "specgraphVersion",
        "root",
        "nodeSearchPaths",
        "nodes",
        "defaults",
    ];
    for key in map.keys() {
        if !KEYS.contains(&key.as_str()) {
            out.push(
                "schema",
                path(&[key]),
                format!(
                    "unknown field `{key}` in graph.json: it allows only {}",
                    KEYS.join(", ")
                ),
            );
        }
    }
    match map.get("specgraphVersion") {
        None => out.push(
            "schema",
            Vec::new(),
            "graph.json has no `specgraphVersion`: add \"specgraphVersion\": \"1.0.0\"".into(),
        ),
        Some(Value::String(v)) if is_semver(v) => {}
        Some(other) => out.push(
            "schema",
            path(&["specgraphVersion"]),
            format!(
                "`specgraphVersion` must be a version string like \"1.0.0\", not {}",
                short_value(other)
            ),
        ),
    }
    match map.get("$schema") {
        None | Some(Value::String(_)) => {}
        Some(other) => out.push(
            "schema",
            path(&["$schema"]),
            format!("`$schema` must be a string, not {}", json_type(other)),
        ),
    }
    match map.get("root") {
        None => {}
        Some(Value::String(root)) if (1..=80).contains(&root.chars().count()) => {
            facts.root = Some(root.clone());
        }
        Some(other) => out.push(
            "schema",
            path(&["root"]),
            format!(
                "`root` must be a node id of 1 to 80 characters, not {}",
                short_value(other)
            ),
        ),
    }
    match map.get("nodeSearchPaths") {
        None => {}
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => {}
        Some(_) => out.push(
            "schema",
            path(&["nodeSearchPaths"]),
            "`nodeSearchPaths` must be a list of relative paths".into(),
        ),
    }
    match map.get("defaults") {
        None | Some(Value::Object(_)) => {}
        Some(other) => out.push(
            "schema",
            path(&["defaults"]),
            format!("`defaults` must be an object, not {}", json_type(other)),
        ),
    }
}

/// Every entry of graph.json's `nodes`: an object with a valid, unique id, a node path, and
/// optionally a hash and an expected type.
fn entries(out: &mut Out<'_>, nodes: &[Value], facts: &mut ManifestFacts) {
    let mut seen: HashSet<&str> = HashSet::new();
    for (i, entry) in nodes.iter().enumerate() {
        let at = vec![Seg::key("nodes"), Seg::Index(i)];
        let Value::Object(entry) = entry else {
            out.push(
                "schema",
                at,
                format!("nodes[{i}] must be an object {{\"id\": …, \"path\": …}}"),
            );
            continue;
        };
        let id = entry.get("id").and_then(Value::as_str);
        out.node = id.map(str::to_string);
        for key in entry.keys() {
            if !["id", "path", "sha256", "expectedType"].contains(&key.as_str()) {
                out.push(
                    "schema",
                    with(&at, Seg::key(key)),
                    format!("unknown field `{key}` in nodes[{i}]: an entry has only id, path, sha256 and expectedType"),
                );
            }
        }
        match (entry.get("id"), id) {
            (None, _) => out.push("schema", at.clone(), format!("nodes[{i}] has no `id`")),
            (Some(_), Some(id)) => {
                if !valid_id(id, 80) {
                    out.push(
                        "id-pattern",
                        with(&at, Seg::key("id")),
                        format!("id `{id}` must be an upper-case letter followed by up to 79 upper-case letters, digits or `-` (e.g. AUTH-01)"),
                    );
                }
                if !seen.insert(id) {
                    out.push(
                        "duplicate-id",
                        with(&at, Seg::key("id")),
                        format!("graph.json lists `{id}` more than once: keep one entry"),
                    );
                }
            }
            (Some(other), None) => out.push(
                "schema",
                with(&at, Seg::key("id")),
                format!("nodes[{i}].id must be a string, not {}", json_type(other)),
            ),
        }
        match entry.get("path") {
            None => out.push("schema", at.clone(), format!("nodes[{i}] has no `path`")),
            Some(Value::String(p)) if is_node_path(p) => {}
            Some(other) => out.push(
                "schema",
                with(&at, Seg::key("path")),
                format!(
                    "nodes[{i}].path {} must be a relative path ending in .json, inside the graph folder (no leading `/`, no `../`)",
                    short_value(other)
                ),
            ),
        }
        match entry.get("sha256") {
            None => {}
            Some(Value::String(hash)) if is_sha256(hash) => {
                if let Some(id) = id {
                    facts.hashes.insert(id.to_string(), hash.clone());
                }
            }
            Some(other) => out.push(
                "schema",
                with(&at, Seg::key("sha256")),
                format!(
                    "nodes[{i}].sha256 must be 64 hex digits, not {}",
                    short_value(other)
                ),
            ),
        }
        match entry.get("expectedType") {
            None => {}
            Some(Value::String(t)) if TYPES.contains(&t.as_str()) => {}
            Some(other) => out.push(
                "schema",
                with(&at, Seg::key("expectedType")),
                format!(
                    "nodes[{i}].expectedType {} is not a Spec Graph type ({})",
                    short_value(other),
                    TYPES.join(", ")
                ),
            ),
        }
    }
}

/// A value as quoted in messages, cut short.
fn short_value(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}
