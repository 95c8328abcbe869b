//! Markdown artifact sources: the `.contextia/` layout and any folder of Markdown files with
//! YAML frontmatter (`.brief/`, or folders named in `brief.toml`).
//!
//! Link keys: `specs`, `decisions`, `norms`, `tasks`, `links` (a flat list, or a map of kind
//! to ids), and the seven Spec Graph relation names, which keep their Spec Graph meaning.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::frontmatter::{self, one_line, scalar};
use super::specgraph::string_list;
use super::{
    folder_stamp, markdown_listing, read_text, rel_path, FolderStamp, Problem, ProblemKind,
    SourceOutput,
};
use brief_model::{ArtifactFields, Content, Kind, Link, Location, Node, Origin, Relation};
use brief_root::Root;

/// The id every project's identity document gets.
pub const IDENTITY_ID: &str = "IDENTITY";

/// Frontmatter keys whose values are links to other artifacts, besides the Spec Graph relation
/// names (`Relation::SPEC_GRAPH`), which keep their meaning.
const OWN_LINK_KEYS: [&str; 5] = ["specs", "decisions", "norms", "tasks", "links"];

/// Every link key, in the order links are read: ours, then the Spec Graph relations.
fn link_keys() -> impl Iterator<Item = &'static str> {
    OWN_LINK_KEYS.into_iter().chain(
        Relation::SPEC_GRAPH
            .into_iter()
            .filter_map(|r| r.spec_graph_name()),
    )
}

/// Frontmatter keys that become node fields rather than `extra` lines.
const FIELD_KEYS: [&str; 10] = [
    "id",
    "title",
    "status",
    "type",
    "description",
    "tags",
    "paths",
    "scope",
    "updated",
    "date",
];

/// The `.contextia/` folders and the kind each one holds.
const CONTEXTIA_FOLDERS: [(&str, Kind); 4] = [
    ("system/specs", Kind::Spec),
    ("system/rationale", Kind::Decision),
    ("system/norms", Kind::Norm),
    ("work/tasks", Kind::Task),
];

/// The artifact files of a source, and every folder looked at to find them (stamped before
/// it was listed, for the index's quick check).
#[derive(Debug, Default)]
pub struct Listing {
    pub files: Vec<(PathBuf, Placement)>,
    pub folders: Vec<FolderStamp>,
    /// Folders that exist but could not be listed (errors).
    pub problems: Vec<Problem>,
}

/// The artifact files of a `.contextia/` tree: `system/identity.md` and the four artifact
/// folders. Other files (session logs, proposals, caches) are not artifacts.
pub fn contextia_files(root: &Root, dir: &Path) -> Vec<(PathBuf, Placement)> {
    contextia_listing(root, dir).files
}

/// [`contextia_files`], with the folders looked at.
pub fn contextia_listing(root: &Root, dir: &Path) -> Listing {
    let mut listing = Listing::default();
    for folder in ["", "system", "work"] {
        listing.folders.push(folder_stamp(&dir.join(folder)));
    }
    let identity = dir.join("system").join("identity.md");
    // Listed unless missing: one that cannot be read is reported when it is read.
    if !root.kind(&identity).is_err_and(|e| e.is_missing()) {
        listing.files.push((identity, Placement::Identity));
    }
    for (folder, kind) in CONTEXTIA_FOLDERS {
        let walk = markdown_listing(root, &dir.join(folder), &[]);
        listing.folders.extend(walk.folders);
        listing.problems.extend(walk.problems);
        for file in walk.files {
            listing.files.push((file, Placement::Folder(kind.clone())));
        }
    }
    listing
}

/// The Markdown files under `dir` (a `.brief/` folder or a folder from `brief.toml`). Files
/// without frontmatter there are documentation, not artifacts.
pub fn folder_files(root: &Root, dir: &Path) -> Vec<(PathBuf, Placement)> {
    folder_listing(root, dir).files
}

/// [`folder_files`], with the folders looked at.
pub fn folder_listing(root: &Root, dir: &Path) -> Listing {
    let walk = markdown_listing(root, dir, &["cache"]);
    Listing {
        files: walk
            .files
            .into_iter()
            .map(|file| (file, Placement::Loose))
            .collect(),
        folders: walk.folders,
        problems: walk.problems,
    }
}

/// Loads a `.contextia/` tree.
pub fn load_contextia(root: &Root, dir: &Path) -> SourceOutput {
    load_files(root, contextia_files(root, dir))
}

/// Loads every Markdown file with frontmatter under `dir`.
pub fn load_folder(root: &Root, dir: &Path) -> SourceOutput {
    load_files(root, folder_files(root, dir))
}

/// Where a file sits, which decides its kind and whether frontmatter is required.
#[derive(Debug, Clone, PartialEq)]
pub enum Placement {
    /// `.contextia/system/identity.md`.
    Identity,
    /// A folder that holds one kind.
    Folder(Kind),
    /// A loose folder: kind from `type:`/`kind:` or the id prefix.
    Loose,
}

fn load_files(root: &Root, files: Vec<(PathBuf, Placement)>) -> SourceOutput {
    use rayon::prelude::*;
    let results: Vec<Result<Option<Node>, Problem>> = files
        .par_iter()
        .map(|(file, placement)| load_file(root, file, placement))
        .collect();
    let mut out = SourceOutput::default();
    for result in results {
        match result {
            Ok(Some(node)) => out.nodes.push(node),
            Ok(None) => {}
            Err(problem) => out.problems.push(problem),
        }
    }
    out
}

/// Reads and parses one artifact file (`None` for a loose file without frontmatter).
pub fn load_file(root: &Root, file: &Path, placement: &Placement) -> Result<Option<Node>, Problem> {
    let text = read_text(root, file)?;
    parse_artifact(&rel_path(root.path(), file), &text, placement)
}

/// Parses the text of one artifact file; `path` is relative to the root.
pub fn parse_artifact(
    path: &str,
    text: &str,
    placement: &Placement,
) -> Result<Option<Node>, Problem> {
    let split = frontmatter::split(path, text)?;
    let map = match split.yaml {
        Some(yaml) => frontmatter::parse(path, yaml, split.yaml_line)?,
        None => match placement {
            Placement::Identity => Map::new(),
            Placement::Loose => return Ok(None),
            Placement::Folder(kind) => {
                return Err(Problem::error(ProblemKind::Syntax,
                    Location::file(path),
                    format!(
                        "missing frontmatter: a {kind} starts with `---`, then `id:` and `title:` lines, then `---`"
                    ),
                ))
            }
        },
    };
    let fm_location = Location {
        path: path.to_string(),
        line: split.yaml_line,
        col: 1,
    };
    let id = match (map.get("id"), placement) {
        (Some(value), _) => match scalar(value) {
            Some(id) if !id.trim().is_empty() => id.trim().to_string(),
            _ => {
                return Err(Problem::error(
                    ProblemKind::MissingField,
                    key_location(path, text, "id"),
                    "`id` must be a non-empty string",
                ))
            }
        },
        (None, Placement::Identity) => IDENTITY_ID.to_string(),
        (None, _) => {
            return Err(Problem::error(
                ProblemKind::MissingField,
                fm_location,
                "missing `id` in frontmatter (e.g. `id: SPEC-AUTH-001`)",
            ))
        }
    };
    let kind = match placement {
        Placement::Identity => Kind::Identity,
        Placement::Folder(kind) => kind.clone(),
        Placement::Loose => map
            .get("type")
            .or_else(|| map.get("kind"))
            .and_then(Value::as_str)
            .map(Kind::parse)
            .unwrap_or_else(|| kind_from_id(&id)),
    };
    let title = map
        .get("title")
        .and_then(scalar)
        .or_else(|| map.get("project").and_then(scalar))
        .or_else(|| first_h1(split.body))
        .unwrap_or_else(|| id.clone());
    let links = links(path, text, &map)?;
    let mut fields = ArtifactFields {
        description: map.get("description").and_then(scalar),
        tags: string_list(map.get("tags")),
        paths: string_list(map.get("paths")),
        scope: string_list(map.get("scope")),
        body: split.body.to_string(),
        body_line: split.body_line,
        ..ArtifactFields::default()
    };
    for (key, value) in &map {
        let is_kind_key = key == "kind" && matches!(placement, Placement::Loose);
        if FIELD_KEYS.contains(&key.as_str()) || link_keys().any(|k| k == key) || is_kind_key {
            continue;
        }
        if let Some(line) = one_line(value) {
            fields.extra.push((key.clone(), line));
        }
    }
    let date = ["updated", "date", "created"]
        .iter()
        .filter_map(|key| map.get(*key).and_then(scalar))
        .find(|value| looks_like_date(value));
    Ok(Some(Node {
        id,
        kind,
        title,
        status: map.get("status").and_then(scalar),
        origin: Origin::Artifact,
        content: Content::Artifact(fields),
        links,
        date,
        location: Location::file(path),
    }))
}

/// The links of a frontmatter's link keys: an id, a list of ids, or a map of relation to ids
/// each; any other value is refused at its key.
fn links(path: &str, text: &str, map: &Map<String, Value>) -> Result<Vec<Link>, Problem> {
    let mut links = Vec::new();
    for key in link_keys() {
        // A link value of the wrong type is refused, never dropped: `check` and `context`
        // then agree on the file (both report it).
        let wrong = |what: String| {
            Problem::error(
                ProblemKind::Invalid,
                key_location(path, text, key),
                format!("`{key}` {what}: give an id, a list of ids, or a map of relation to ids"),
            )
        };
        match map.get(key) {
            Some(Value::Object(by_kind)) => {
                for (sub_key, targets) in by_kind {
                    let relation = Relation::from_key(sub_key);
                    let targets = link_targets(targets)
                        .map_err(|what| wrong(format!("has `{sub_key}` {what}")))?;
                    for target in targets {
                        links.push(Link {
                            relation: relation.clone(),
                            target,
                        });
                    }
                }
            }
            Some(targets) => {
                let relation = Relation::from_key(key);
                for target in link_targets(targets).map_err(|what| wrong(format!("is {what}")))? {
                    links.push(Link {
                        relation: relation.clone(),
                        target,
                    });
                }
            }
            None => {}
        }
    }
    Ok(links)
}

/// The kind an id's prefix suggests (`SPEC-…`, `DEC-…`, `NORM-…`, `TASK-…`), else `note`.
fn kind_from_id(id: &str) -> Kind {
    let prefix = id
        .split(['-', '_'])
        .next()
        .unwrap_or("")
        .to_ascii_uppercase();
    match prefix.as_str() {
        "SPEC" => Kind::Spec,
        "DEC" | "ADR" => Kind::Decision,
        "NORM" => Kind::Norm,
        "TASK" => Kind::Task,
        "POL" => Kind::Policy,
        _ => Kind::parse("note"),
    }
}

/// The ids a link value names: one id, a list of ids (numbers as written), or nothing for an
/// empty value; otherwise what the value is, for the message.
fn link_targets(value: &Value) -> Result<Vec<String>, String> {
    let id = |item: &Value| match item {
        Value::String(text) => Ok(text.clone()),
        Value::Number(n) => Ok(n.to_string()),
        other => Err(format!("a list holding {}", value_kind(other))),
    };
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items.iter().filter(|i| !i.is_null()).map(id).collect(),
        Value::String(_) | Value::Number(_) => id(value).map(|one| vec![one]),
        other => Err(value_kind(other).to_string()),
    }
}

/// What a frontmatter value is, as a message names it.
fn value_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

fn looks_like_date(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.len() >= 10
        && bytes[..4].iter().all(u8::is_ascii_digit)
        && bytes[4] == b'-'
        && bytes[7] == b'-'
}

fn first_h1(body: &str) -> Option<String> {
    body.lines()
        .find_map(|line| line.strip_prefix("# "))
        .map(|title| title.trim().to_string())
        .filter(|title| !title.is_empty())
}

fn key_location(path: &str, text: &str, key: &str) -> Location {
    let needle = format!("\n{key}:");
    let line = text
        .find(&needle)
        .map(|at| text[..at].matches('\n').count() as u32 + 2)
        .unwrap_or(1);
    Location {
        path: path.to_string(),
        line,
        col: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, placement: Placement) -> Result<Option<Node>, Problem> {
        parse_artifact("x.md", text, &placement)
    }

    #[test]
    fn task_links_and_fields() {
        let text = "---\nid: TASK-007\ntitle: OAuth login\nkind: feature\nstatus: active\nspecs:\n  - SPEC-AUTH-001\ncreated: 2026-03-02\n---\n# OAuth login\n\n## Objective\nDo it.\n";
        let node = parse(text, Placement::Folder(Kind::Task)).unwrap().unwrap();
        assert_eq!(node.kind, Kind::Task);
        assert_eq!(node.links[0].relation.name(), "specs");
        assert_eq!(node.date.as_deref(), Some("2026-03-02"));
        let fields = node.artifact().unwrap();
        assert!(fields.extra.contains(&("kind".into(), "feature".into())));
        assert_eq!(fields.body_line, 10);
    }

    #[test]
    fn link_map_and_relation_keys() {
        let text = "---\nid: NORM-SEC-001\ntitle: No secrets in logs\nlinks:\n  specs: [SPEC-A]\n  decisions: [DEC-1]\nconstrains: [SPEC-B]\nscope: \"src/**/*.ts\"\n---\nBody\n";
        let node = parse(text, Placement::Loose).unwrap().unwrap();
        assert_eq!(node.kind, Kind::Norm);
        let rels: Vec<_> = node
            .links
            .iter()
            .map(|l| (l.relation.name().to_string(), l.target.clone()))
            .collect();
        assert!(rels.contains(&("specs".into(), "SPEC-A".into())));
        assert!(rels.contains(&("decisions".into(), "DEC-1".into())));
        assert!(rels.contains(&("constrains".into(), "SPEC-B".into())));
        assert_eq!(node.artifact().unwrap().scope, vec!["src/**/*.ts"]);
    }

    #[test]
    fn identity_needs_no_id() {
        let node = parse(
            "---\ntype: identity\nproject: notes\n---\n# Notes\n",
            Placement::Identity,
        )
        .unwrap()
        .unwrap();
        assert_eq!(node.id, IDENTITY_ID);
        assert_eq!(node.title, "notes");
    }

    #[test]
    fn missing_id_points_at_the_frontmatter() {
        let err = parse("---\ntitle: T\n---\n", Placement::Folder(Kind::Spec)).unwrap_err();
        assert_eq!(err.location.line, 2);
        assert!(err.message.contains("missing `id`"));
    }

    #[test]
    fn each_problem_says_its_kind() {
        let spec = || Placement::Folder(Kind::Spec);
        let kind = |text: &str| parse(text, spec()).unwrap_err().kind;
        assert_eq!(kind("---\ntitle: T\n---\n"), ProblemKind::MissingField);
        assert_eq!(kind("---\nid: [A, B]\n---\n"), ProblemKind::MissingField);
        assert_eq!(kind("---\nid: \"  \"\n---\n"), ProblemKind::MissingField);
        assert_eq!(kind("# no frontmatter\n"), ProblemKind::Syntax);
        assert_eq!(kind("---\nid: A\n"), ProblemKind::Syntax);
        assert_eq!(kind("---\nid: A\n  bad: [\n---\n"), ProblemKind::Syntax);
        assert_eq!(
            kind("---\nid: A\nspecs: {x: {y: 1}}\n---\n"),
            ProblemKind::Invalid
        );
    }

    #[test]
    fn loose_files_without_frontmatter_are_skipped() {
        assert!(parse("# README\n", Placement::Loose).unwrap().is_none());
        assert!(parse("# README\n", Placement::Folder(Kind::Spec)).is_err());
    }
}
