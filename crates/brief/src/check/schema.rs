//! The Spec Graph JSON schema (`graph.schema.json`, `node.schema.json`; reference §1.2–1.3),
//! checked on the raw JSON the model does not keep: which fields are present, their JSON
//! types, lengths, enums, and the per-type conditionals.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::{Anchor, Pending, Sink};
use crate::sources::jsonpos::Seg;

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

const RELATIONS: [&str; 7] = [
    "contains",
    "depends_on",
    "constrains",
    "implements",
    "derived_from",
    "verified_by",
    "supersedes",
];

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
    sink.extend(out.findings);
    facts
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

/// Checks one node file (a JSON object).
pub(super) fn node(rel: &str, map: &Map<String, Value>) -> Vec<Pending> {
    let mut out = Out {
        path: rel,
        node: map.get("id").and_then(Value::as_str).map(str::to_string),
        findings: Vec::new(),
    };
    let kind = match map.get("type") {
        None => {
            out.push(
                "schema",
                path(&["id"]),
                format!("missing required field `type`: one of {}", TYPES.join(", ")),
            );
            None
        }
        Some(Value::String(t)) if TYPES.contains(&t.as_str()) => Some(t.as_str()),
        Some(other) => {
            out.push(
                "schema",
                path(&["type"]),
                format!(
                    "unknown type {}: use one of {}",
                    short_value(other),
                    TYPES.join(", ")
                ),
            );
            None
        }
    };
    let grouping = matches!(kind, Some("feature" | "layer"));
    match map.get("id") {
        None => out.push(
            "schema",
            path(&["type"]),
            "missing required field `id` (e.g. \"AUTH-01\")".into(),
        ),
        Some(Value::String(id)) => {
            let max = if grouping { 20 } else { 80 };
            if !valid_id(id, max) {
                out.push(
                    "id-pattern",
                    path(&["id"]),
                    if grouping {
                        format!("{} id `{id}` must be an upper-case letter followed by up to 19 upper-case letters, digits or `-` (at most 20 characters)", kind.unwrap_or("feature"))
                    } else {
                        format!("id `{id}` must be an upper-case letter followed by up to 79 upper-case letters, digits or `-` (e.g. AUTH-01)")
                    },
                );
            }
        }
        Some(other) => out.push(
            "schema",
            path(&["id"]),
            format!("`id` must be a string, not {}", json_type(other)),
        ),
    }
    let Some(kind) = kind else {
        return out.findings;
    };
    let (allowed, title_max): (&[&str], usize) = match kind {
        "feature" | "layer" => (&GROUPING_KEYS, 100),
        "behavior" => (&BEHAVIOR_KEYS, 100),
        _ => (&CONTRACT_KEYS, 140),
    };
    for key in map.keys() {
        if allowed.contains(&key.as_str()) {
            continue;
        }
        let message = match key.as_str() {
            "category" => {
                format!("`category` is only allowed on decisions, not on a {kind}: remove it")
            }
            "severity" => {
                format!("`severity` is only allowed on policies, not on a {kind}: remove it")
            }
            "artifact" => {
                format!("`artifact` is only allowed on artifact nodes, not on a {kind}: remove it")
            }
            _ => format!(
                "unknown field `{key}` on a {kind}: the schema allows only {}",
                allowed.join(", ")
            ),
        };
        out.push("schema", path(&[key]), message);
    }
    string_field(&mut out, map, "$schema", false, 0, None);
    string_field(&mut out, map, "title", true, 3, Some(title_max));
    match kind {
        "feature" | "layer" => {
            string_field(&mut out, map, "description", true, 1, None);
        }
        "behavior" => {
            string_field(&mut out, map, "expectation", true, 10, None);
            match map.get("verification") {
                Some(Value::Array(_)) => out.push(
                    "schema",
                    path(&["verification"]),
                    "a behavior's `verification` is one command string (at least 5 characters), not a list".into(),
                ),
                _ => string_field(&mut out, map, "verification", true, 5, None),
            }
            constraints(&mut out, map);
        }
        _ => {
            string_field(&mut out, map, "statement", true, 1, None);
            verification(&mut out, map);
            constraints(&mut out, map);
            contract_conditionals(&mut out, map, kind);
        }
    }
    links(&mut out, map);
    metadata(&mut out, map, kind);
    out.findings
}

/// A string field: presence, type and length in characters.
fn string_field(
    out: &mut Out,
    map: &Map<String, Value>,
    key: &str,
    required: bool,
    min: usize,
    max: Option<usize>,
) {
    match map.get(key) {
        None if required => out.push(
            "schema",
            path(&["type"]),
            format!("missing required field `{key}`{}", length_hint(min, max)),
        ),
        None => {}
        Some(Value::String(text)) => {
            let n = text.chars().count();
            if n < min || max.is_some_and(|max| n > max) {
                out.push(
                    "schema",
                    path(&[key]),
                    format!(
                        "`{key}` has {n} characters; it needs{}",
                        length_hint(min, max)
                    ),
                );
            }
        }
        Some(other) => out.push(
            "schema",
            path(&[key]),
            format!("`{key}` must be a string, not {}", json_type(other)),
        ),
    }
}

fn length_hint(min: usize, max: Option<usize>) -> String {
    match (min, max) {
        (0, None) => String::new(),
        (min, None) => format!(" (at least {min} characters)"),
        (min, Some(max)) => format!(" ({min} to {max} characters)"),
    }
}

fn constraints(out: &mut Out, map: &Map<String, Value>) {
    match map.get("constraints") {
        None => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if !item.is_string() {
                    out.push(
                        "schema",
                        vec![Seg::key("constraints"), Seg::Index(i)],
                        format!("constraints[{i}] must be a string, not {}", json_type(item)),
                    );
                }
            }
        }
        Some(other) => out.push(
            "schema",
            path(&["constraints"]),
            format!(
                "`constraints` must be a list of strings (use [] for none), not {}",
                json_type(other)
            ),
        ),
    }
}

fn contract_conditionals(out: &mut Out, map: &Map<String, Value>, kind: &str) {
    for (key, owner, owners) in [
        ("category", "decision", "decisions"),
        ("severity", "policy", "policies"),
        ("artifact", "artifact", "artifact nodes"),
    ] {
        if kind != owner && map.contains_key(key) {
            out.push(
                "schema",
                path(&[key]),
                format!("`{key}` is only allowed on {owners}, not on a {kind}: remove it"),
            );
        }
    }
    match (kind, map.get("category")) {
        ("decision", None) => out.push(
            "schema",
            path(&["type"]),
            format!(
                "a decision needs a `category`: one of {}",
                CATEGORIES.join(", ")
            ),
        ),
        ("decision", Some(Value::String(c))) if CATEGORIES.contains(&c.as_str()) => {}
        ("decision", Some(other)) => out.push(
            "schema",
            path(&["category"]),
            format!(
                "decision category {} is not one of {}",
                short_value(other),
                CATEGORIES.join(", ")
            ),
        ),
        _ => {}
    }
    match (kind, map.get("severity")) {
        ("policy", None) => out.push(
            "schema",
            path(&["type"]),
            "a policy needs a `severity`: \"hard\" or \"soft\"".into(),
        ),
        ("policy", Some(Value::String(s))) if s == "hard" || s == "soft" => {}
        ("policy", Some(other)) => out.push(
            "schema",
            path(&["severity"]),
            format!(
                "policy severity {} must be \"hard\" or \"soft\"",
                short_value(other)
            ),
        ),
        _ => {}
    }
    match (kind, map.get("artifact")) {
        ("artifact", None) => out.push(
            "schema",
            path(&["type"]),
            "an artifact node needs an `artifact` object with the source's `sha256`".into(),
        ),
        ("artifact", Some(Value::Object(info))) => {
            for key in info.keys() {
                if !["sha256", "source", "format"].contains(&key.as_str()) {
                    out.push(
                        "schema",
                        path(&["artifact", key]),
                        format!("unknown field `{key}` in `artifact`: it has only sha256, source and format"),
                    );
                }
            }
            match info.get("sha256") {
                Some(Value::String(hash)) if is_sha256(hash) => {}
                None => out.push(
                    "schema",
                    path(&["artifact"]),
                    "`artifact` needs a `sha256` (64 hex digits) of its source".into(),
                ),
                Some(other) => out.push(
                    "schema",
                    path(&["artifact", "sha256"]),
                    format!(
                        "artifact.sha256 must be 64 hex digits, not {}",
                        short_value(other)
                    ),
                ),
            }
            for key in ["source", "format"] {
                if let Some(value) = info.get(key).filter(|v| !v.is_string()) {
                    out.push(
                        "schema",
                        path(&["artifact", key]),
                        format!("artifact.{key} must be a string, not {}", json_type(value)),
                    );
                }
            }
        }
        ("artifact", Some(other)) => out.push(
            "schema",
            path(&["artifact"]),
            format!("`artifact` must be an object, not {}", json_type(other)),
        ),
        _ => {}
    }
    match map.get("pins") {
        None => {}
        Some(Value::Array(pins)) => {
            for (i, pin) in pins.iter().enumerate() {
                let at = vec![Seg::key("pins"), Seg::Index(i)];
                let Value::Object(pin) = pin else {
                    out.push(
                        "schema",
                        at,
                        format!("pins[{i}] must be an object {{\"id\", \"sha256\"}}"),
                    );
                    continue;
                };
                for key in pin.keys() {
                    if key != "id" && key != "sha256" {
                        out.push(
                            "schema",
                            with(&at, Seg::key(key)),
                            format!(
                                "unknown field `{key}` in pins[{i}]: a pin has only id and sha256"
                            ),
                        );
                    }
                }
                match pin.get("id") {
                    Some(Value::String(id)) if valid_id(id, 80) => {}
                    Some(Value::String(id)) => out.push(
                        "id-pattern",
                        with(&at, Seg::key("id")),
                        format!("pins[{i}].id `{id}` is not a valid node id"),
                    ),
                    _ => out.push(
                        "schema",
                        at.clone(),
                        format!("pins[{i}] needs an `id` string"),
                    ),
                }
                match pin.get("sha256") {
                    Some(Value::String(hash)) if is_sha256(hash) => {}
                    _ => out.push(
                        "schema",
                        with(&at, Seg::key("sha256")),
                        format!("pins[{i}] needs a `sha256` of 64 hex digits"),
                    ),
                }
            }
        }
        Some(other) => out.push(
            "schema",
            path(&["pins"]),
            format!(
                "`pins` must be a list of {{\"id\", \"sha256\"}}, not {}",
                json_type(other)
            ),
        ),
    }
}

/// A contract's `verification`: a non-empty list of strings or typed entries.
fn verification(out: &mut Out, map: &Map<String, Value>) {
    let items = match map.get("verification") {
        None => {
            out.push(
                "schema",
                path(&["type"]),
                "missing required field `verification`: a list of at least one check (a command string or {\"kind\": …})".into(),
            );
            return;
        }
        Some(Value::Array(items)) if !items.is_empty() => items,
        Some(Value::Array(_)) => {
            out.push(
                "schema",
                path(&["verification"]),
                "`verification` is empty: list at least one check".into(),
            );
            return;
        }
        Some(other) => {
            out.push(
                "schema",
                path(&["verification"]),
                format!(
                    "`verification` must be a list of checks, not {} (only behaviors take a single string)",
                    json_type(other)
                ),
            );
            return;
        }
    };
    for (i, item) in items.iter().enumerate() {
        let at = vec![Seg::key("verification"), Seg::Index(i)];
        match item {
            Value::String(text) if !text.is_empty() => {}
            Value::String(_) => out.push(
                "verification-entry",
                at,
                format!("verification[{i}] is an empty string"),
            ),
            Value::Object(entry) => verification_entry(out, &at, i, entry),
            other => out.push(
                "verification-entry",
                at,
                format!(
                    "verification[{i}] must be a string or an object with a `kind`, not {}",
                    json_type(other)
                ),
            ),
        }
    }
}

fn verification_entry(out: &mut Out, at: &[Seg], i: usize, entry: &Map<String, Value>) {
    let field = |key: &str| with(at, Seg::key(key));
    for key in entry.keys() {
        if !VERIFICATION_FIELDS.contains(&key.as_str()) {
            out.push(
                "verification-entry",
                field(key),
                format!(
                    "unknown field `{key}` in verification[{i}]: entries have only {}",
                    VERIFICATION_FIELDS.join(", ")
                ),
            );
        }
    }
    let kind = match entry.get("kind") {
        None => {
            out.push(
                "verification-entry",
                at.to_vec(),
                format!(
                    "verification[{i}] has no `kind`: one of {}",
                    VERIFICATION_KINDS.join(", ")
                ),
            );
            None
        }
        Some(Value::String(k)) if VERIFICATION_KINDS.contains(&k.as_str()) => Some(k.as_str()),
        Some(other) => {
            out.push(
                "verification-entry",
                field("kind"),
                format!(
                    "verification[{i}].kind {} is not one of {}",
                    short_value(other),
                    VERIFICATION_KINDS.join(", ")
                ),
            );
            None
        }
    };
    let required: &[&str] = match kind {
        Some("command") => &["command"],
        Some("http") => &["method", "url", "expectStatus"],
        Some("manual") => &["steps"],
        Some("observation") => &["description"],
        Some("policy") => &["ruleId"],
        _ => &[],
    };
    for key in required {
        if !entry.contains_key(*key) {
            out.push(
                "verification-entry",
                at.to_vec(),
                format!(
                    "verification[{i}] of kind `{}` needs `{key}`",
                    kind.unwrap_or_default()
                ),
            );
        }
    }
    for (key, value) in entry {
        let problem = match key.as_str() {
            "command" | "cwd" | "url" | "expected" | "description" | "ruleId" => {
                (!value.is_string()).then(|| "must be a string".to_string())
            }
            "env" => match value {
                Value::Object(vars) if vars.values().all(Value::is_string) => None,
                _ => Some("must be an object of string values".into()),
            },
            "timeoutSeconds" => match value.as_u64() {
                Some(n) if (1..=3600).contains(&n) => None,
                _ => Some("must be a whole number of seconds from 1 to 3600".into()),
            },
            "expectStatus" => match value.as_u64() {
                Some(n) if (100..=599).contains(&n) => None,
                _ => Some("must be an HTTP status from 100 to 599".into()),
            },
            "method" => match value.as_str() {
                Some(m) if METHODS.contains(&m) => None,
                _ => Some(format!("must be one of {}", METHODS.join(", "))),
            },
            "steps" => match value {
                Value::Array(steps) if !steps.is_empty() && steps.iter().all(Value::is_string) => {
                    None
                }
                _ => Some("must be a non-empty list of strings".into()),
            },
            _ => None,
        };
        if let Some(problem) = problem {
            out.push(
                "verification-entry",
                field(key),
                format!("verification[{i}].{key} {problem}"),
            );
        }
    }
}

fn links(out: &mut Out, map: &Map<String, Value>) {
    let links = match map.get("links") {
        None => return,
        Some(Value::Object(links)) => links,
        Some(other) => {
            out.push(
                "schema",
                path(&["links"]),
                format!(
                    "`links` must be an object like {{\"depends_on\": [\"ID\"]}}, not {}",
                    json_type(other)
                ),
            );
            return;
        }
    };
    for (key, targets) in links {
        if !RELATIONS.contains(&key.as_str()) {
            out.push(
                "schema",
                path(&["links", key]),
                format!(
                    "unknown relation `{key}` in links: use {}",
                    RELATIONS.join(", ")
                ),
            );
            continue;
        }
        let Value::Array(targets) = targets else {
            out.push(
                "schema",
                path(&["links", key]),
                format!(
                    "links.{key} must be a list of ids, not {}",
                    json_type(targets)
                ),
            );
            continue;
        };
        for (i, target) in targets.iter().enumerate() {
            let at = vec![Seg::key("links"), Seg::key(key), Seg::Index(i)];
            match target {
                Value::String(id) if valid_id(id, 80) => {}
                Value::String(id) => out.push(
                    "id-pattern",
                    at,
                    format!("links.{key} target `{id}` is not a valid node id (upper-case letters, digits and `-`)"),
                ),
                other => out.push(
                    "schema",
                    at,
                    format!("links.{key}[{i}] must be an id string, not {}", json_type(other)),
                ),
            }
        }
    }
}

fn metadata(out: &mut Out, map: &Map<String, Value>, kind: &str) {
    let meta = match map.get("metadata") {
        None => {
            if kind == "decision" {
                out.push(
                    "schema",
                    path(&["type"]),
                    "a decision needs `metadata.rationale` (at least 10 characters): why this was chosen".into(),
                );
            }
            return;
        }
        Some(Value::Object(meta)) => meta,
        Some(other) => {
            out.push(
                "schema",
                path(&["metadata"]),
                format!("`metadata` must be an object, not {}", json_type(other)),
            );
            return;
        }
    };
    match meta.get("rationale") {
        None if kind == "decision" => out.push(
            "schema",
            path(&["metadata"]),
            "a decision needs `metadata.rationale` (at least 10 characters): why this was chosen"
                .into(),
        ),
        None => {}
        Some(Value::String(text)) if kind == "decision" && text.chars().count() < 10 => out.push(
            "schema",
            path(&["metadata", "rationale"]),
            format!(
                "metadata.rationale has {} characters; a decision's rationale needs at least 10",
                text.chars().count()
            ),
        ),
        Some(Value::String(_)) => {}
        Some(other) => out.push(
            "schema",
            path(&["metadata", "rationale"]),
            format!(
                "metadata.rationale must be a string, not {}",
                json_type(other)
            ),
        ),
    }
    if let Some(tags) = meta.get("tags") {
        if !matches!(tags, Value::Array(items) if items.iter().all(Value::is_string)) {
            out.push(
                "schema",
                path(&["metadata", "tags"]),
                "metadata.tags must be a list of strings".into(),
            );
        }
    }
    match meta.get("rejected_alternatives") {
        None => {}
        Some(Value::Array(alternatives)) => {
            for (i, alt) in alternatives.iter().enumerate() {
                let at = vec![
                    Seg::key("metadata"),
                    Seg::key("rejected_alternatives"),
                    Seg::Index(i),
                ];
                let Value::Object(alt) = alt else {
                    out.push(
                        "schema",
                        at,
                        format!("rejected_alternatives[{i}] must be {{\"title\", \"reason\"}}"),
                    );
                    continue;
                };
                for key in alt.keys() {
                    if key != "title" && key != "reason" {
                        out.push(
                            "schema",
                            with(&at, Seg::key(key)),
                            format!("unknown field `{key}` in rejected_alternatives[{i}]: it has only title and reason"),
                        );
                    }
                }
                for (key, min) in [("title", 3), ("reason", 10)] {
                    let ok = alt
                        .get(key)
                        .and_then(Value::as_str)
                        .is_some_and(|t| t.chars().count() >= min);
                    if !ok {
                        out.push(
                            "schema",
                            with(&at, Seg::key(key)),
                            format!("rejected_alternatives[{i}].{key} must be a string of at least {min} characters"),
                        );
                    }
                }
            }
        }
        Some(other) => out.push(
            "schema",
            path(&["metadata", "rejected_alternatives"]),
            format!(
                "metadata.rejected_alternatives must be a list, not {}",
                json_type(other)
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> Vec<(&'static str, String)> {
        let value: Value = serde_json::from_str(text).unwrap();
        node("n.json", value.as_object().unwrap())
            .into_iter()
            .map(|p| (p.rule, p.message))
            .collect()
    }

    #[test]
    fn a_valid_decision_passes() {
        let found = rules(
            r#"{"id":"DEC-1","type":"decision","category":"stack","title":"Use Postgres",
            "statement":"We use Postgres.","verification":["psql --version",{"kind":"manual","steps":["Look"]}],
            "links":{"constrains":["AUTH-01"]},"metadata":{"rationale":"Team knows it well."}}"#,
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn decision_conditionals() {
        let found = rules(
            r#"{"id":"DEC-1","type":"decision","title":"Use Postgres","statement":"x",
            "verification":["ok"],"severity":"hard","metadata":{"rationale":"short"}}"#,
        );
        let messages: Vec<&str> = found.iter().map(|(_, m)| m.as_str()).collect();
        assert!(
            messages.iter().any(|m| m.contains("needs a `category`")),
            "{messages:?}"
        );
        assert!(messages
            .iter()
            .any(|m| m.contains("`severity` is only allowed on policies")));
        assert!(messages
            .iter()
            .any(|m| m.contains("rationale has 5 characters")));
    }

    #[test]
    fn behavior_shapes_and_ids() {
        let found = rules(
            r#"{"id":"auth-1","type":"behavior","title":"Go","expectation":"short",
            "verification":["npm test"],"status":"draft","links":{"uses":["X"],"depends_on":["bad id"]}}"#,
        );
        let got: Vec<&str> = found.iter().map(|(r, _)| *r).collect();
        assert_eq!(
            got.iter().filter(|r| **r == "id-pattern").count(),
            2,
            "{found:?}"
        );
        let messages: Vec<&str> = found.iter().map(|(_, m)| m.as_str()).collect();
        assert!(messages
            .iter()
            .any(|m| m.contains("unknown field `status`")));
        assert!(messages
            .iter()
            .any(|m| m.contains("`title` has 2 characters")));
        assert!(messages.iter().any(|m| m.contains("expectation")));
        assert!(messages.iter().any(|m| m.contains("one command string")));
        assert!(messages
            .iter()
            .any(|m| m.contains("unknown relation `uses`")));
    }

    #[test]
    fn verification_entries_need_their_fields() {
        let found = rules(
            r#"{"id":"POL-1","type":"policy","severity":"soft","title":"Fast pages","statement":"x",
            "verification":[{"kind":"http","url":"http://x"},{"kind":"shell"},{"kind":"command","command":"x","timeoutSeconds":0}]}"#,
        );
        let entries: Vec<&str> = found
            .iter()
            .filter(|(r, _)| *r == "verification-entry")
            .map(|(_, m)| m.as_str())
            .collect();
        assert!(
            entries.iter().any(|m| m.contains("needs `method`")),
            "{entries:?}"
        );
        assert!(entries.iter().any(|m| m.contains("needs `expectStatus`")));
        assert!(entries.iter().any(|m| m.contains("\"shell\"")));
        assert!(entries.iter().any(|m| m.contains("timeoutSeconds")));
    }

    #[test]
    fn feature_ids_are_at_most_20_characters() {
        let found = rules(
            r#"{"id":"A-VERY-LONG-FEATURE-NAME","type":"feature","title":"Long","description":"d"}"#,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "id-pattern");
    }

    #[test]
    fn artifact_nodes_need_artifact_info() {
        let found = rules(
            r#"{"id":"ART-1","type":"artifact","title":"Export","statement":"x","verification":["ok"]}"#,
        );
        assert!(found[0].1.contains("`artifact` object"), "{found:?}");
    }

    #[test]
    fn versions_and_paths() {
        assert!(is_semver("1.0.0") && is_semver("1.2.3-rc.1"));
        assert!(!is_semver("1.0") && !is_semver("v1.0.0") && !is_semver("1.0.0-"));
        assert!(is_node_path("nodes/features/A.json"));
        assert!(
            !is_node_path("/abs.json") && !is_node_path("../x.json") && !is_node_path("a b.json")
        );
    }
}
