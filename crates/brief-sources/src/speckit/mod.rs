//! GitHub Spec Kit: `.specify/memory/constitution.md` and the feature folders under `specs/`
//! (or `.specify/specs/`), each file read into the nodes agents work with.
//!
//! Ids are scoped by the feature folder's name (its path under `specs/`): `003-payments` is
//! the feature, `003-payments/T014` a task, `003-payments/FR-007` a requirement,
//! `003-payments/US2` a story, `003-payments/SC-001` a success criterion,
//! `003-payments/entity/Invoice` an entity, `003-payments/plan#technical-context` a plan
//! section, `003-payments/TD-001` (or `…/research#topic`) a research decision. The
//! constitution is `constitution`, its principles `constitution/IV` (by numeral) or
//! `constitution/<slug>`. Folders under `specs/_archived/` keep that prefix and are archived.
//!
//! A file's nodes depend on its text and its [`Role`] only (the feature's list of files, the
//! constitution's list of features), so the index re-reads a file when either changes.

mod constitution;
mod pages;
mod research;
mod spec;
mod tasks;

use std::path::PathBuf;

use super::{folder_stamp, specdoc, Problem, ProblemKind, Walk};
use brief_model::{Node, Relation};
use brief_root::{EntryKind, Root};

/// Where Spec Kit keeps the features, tried in order.
pub(crate) const SPEC_ROOTS: [&str; 2] = ["specs", ".specify/specs"];
/// Where the constitution is, tried in order (`memory/` is Spec Kit's first layout).
pub(crate) const CONSTITUTIONS: [&str; 2] =
    [".specify/memory/constitution.md", "memory/constitution.md"];
/// Folders of retired features inside a spec root; their features are archived.
const ARCHIVES: [&str; 4] = ["_archived", "_archive", "archived", "archive"];
/// The design documents of a feature, in the order that picks which one holds the feature
/// node (the first present).
const DOCUMENTS: [&str; 6] = [
    "spec.md",
    "plan.md",
    "tasks.md",
    "research.md",
    "data-model.md",
    "quickstart.md",
];
/// Contract files read as text.
const CONTRACT_EXTENSIONS: [&str; 13] = [
    "md", "yaml", "yml", "json", "graphql", "gql", "proto", "ts", "txt", "py", "sql", "avsc",
    "http",
];

/// How one Spec Kit file is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// The constitution, with the keys of every feature its principles constrain.
    Constitution {
        /// The feature keys, sorted.
        features: Vec<String>,
    },
    /// A file of a feature folder.
    Feature {
        /// The folder, root-relative (`specs/003-payments`).
        dir: String,
        /// The id prefix (`003-payments`, `_archived/001-old`).
        key: String,
        /// Every file of the folder Spec Kit reads, relative to it, sorted.
        files: Vec<String>,
    },
}

/// Whether a feature key (`_archived/000-prototype`) lies under an archive folder.
pub fn is_archived(key: &str) -> bool {
    key.split_once('/')
        .is_some_and(|(first, _)| ARCHIVES.contains(&first))
}

/// A feature folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Feature {
    /// The folder, root-relative (`specs/003-payments`).
    pub dir: String,
    /// The id prefix (`003-payments`, `_archived/001-old`).
    pub key: String,
    /// Every file of the folder Spec Kit reads, relative to it, sorted.
    pub files: Vec<String>,
}

/// What Spec Kit files a project has.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The constitution, root-relative.
    pub constitution: Option<String>,
    /// Feature folders, by key.
    pub features: Vec<Feature>,
}

impl Layout {
    /// Every file the layout reads, root-relative, with its role.
    pub(crate) fn files(&self) -> Vec<(String, Role)> {
        let mut out = Vec::new();
        if let Some(rel) = &self.constitution {
            out.push((
                rel.clone(),
                Role::Constitution {
                    features: self.features.iter().map(|f| f.key.clone()).collect(),
                },
            ));
        }
        for feature in &self.features {
            for file in &feature.files {
                out.push((
                    format!("{}/{file}", feature.dir),
                    Role::Feature {
                        dir: feature.dir.clone(),
                        key: feature.key.clone(),
                        files: feature.files.clone(),
                    },
                ));
            }
        }
        out
    }

    /// Every file's root-relative path and the node that stands for the file as a whole
    /// (the feature for its spec.md, the page for the others), for links into them.
    pub(crate) fn page_ids(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if let Some(rel) = &self.constitution {
            out.push((rel.clone(), constitution::ID.to_string()));
        }
        for feature in &self.features {
            let r = FeatureRef {
                key: &feature.key,
                files: &feature.files,
            };
            for file in &feature.files {
                let id = r.page_id(file).unwrap_or_else(|| feature.key.clone());
                out.push((format!("{}/{file}", feature.dir), id));
            }
        }
        out
    }
}

/// Whether the root looks like a Spec Kit project: a `.specify/` folder, or a numbered
/// feature folder (`specs/001-x/`) holding a spec, plan or tasks file.
pub fn detect(root: &Root) -> bool {
    let base = root.path();
    if root.is_dir(&base.join(".specify")) {
        return true;
    }
    let Ok(entries) = root.list_dir(&base.join("specs")) else {
        return false;
    };
    entries.iter().any(|entry| {
        let name = entry.name.to_string_lossy();
        matches!(entry.kind, EntryKind::Dir)
            && name.starts_with(|c: char| c.is_ascii_digit())
            && ["spec.md", "plan.md", "tasks.md"]
                .iter()
                .any(|f| root.is_file(&base.join("specs").join(&*name).join(f)))
    })
}

/// Lists the Spec Kit files of the project, stamping every folder looked at.
pub(crate) fn listing(root: &Root) -> (Layout, Walk) {
    let base = root.path().to_path_buf();
    let mut walk = Walk::default();
    let mut layout = Layout::default();
    for rel in CONSTITUTIONS {
        let path = base.join(rel);
        if let Some((dir, _)) = rel.rsplit_once('/') {
            walk.folders.push(folder_stamp(&base.join(dir)));
        }
        if root.is_file(&path) {
            layout.constitution = Some(rel.to_string());
            break;
        }
    }
    for spec_root in SPEC_ROOTS {
        let dir = base.join(spec_root);
        walk.folders.push(folder_stamp(&dir));
        let Some(entries) = walk.list(root, &dir) else {
            continue;
        };
        for entry in entries.iter().filter(|e| matches!(e.kind, EntryKind::Dir)) {
            let name = entry.name.to_string_lossy().to_string();
            if usable(&name) && ARCHIVES.contains(&name.as_str()) {
                let archive = dir.join(&name);
                walk.folders.push(folder_stamp(&archive));
                for inner in walk.list(root, &archive).unwrap_or_default() {
                    let inner_name = inner.name.to_string_lossy().to_string();
                    if matches!(inner.kind, EntryKind::Dir) && usable(&inner_name) {
                        let key = format!("{name}/{inner_name}");
                        feature(root, &mut walk, spec_root, &key, &mut layout);
                    }
                }
            } else if usable(&name) && !name.starts_with('.') {
                feature(root, &mut walk, spec_root, &name, &mut layout);
            }
        }
    }
    // A feature found under both roots is read from the first.
    let mut seen = std::collections::BTreeSet::new();
    layout.features.retain(|f| seen.insert(f.key.clone()));
    (layout, walk)
}

/// A name that can be part of an id and of the index's parser record.
fn usable(name: &str) -> bool {
    !name.is_empty() && !name.contains(['\t', '\n', '\r'])
}

/// Adds the feature folder `spec_root/key` when it holds a design document.
fn feature(root: &Root, walk: &mut Walk, spec_root: &str, key: &str, layout: &mut Layout) {
    let dir_rel = format!("{spec_root}/{key}");
    let dir = root.path().join(&dir_rel);
    walk.folders.push(folder_stamp(&dir));
    let Some(entries) = walk.list(root, &dir) else {
        return;
    };
    let mut files = Vec::new();
    for entry in &entries {
        let name = entry.name.to_string_lossy().to_string();
        match entry.kind {
            EntryKind::Dir if name == "contracts" || name == "checklists" => {
                let wanted: &[&str] = if name == "contracts" {
                    &CONTRACT_EXTENSIONS
                } else {
                    &["md"]
                };
                files_under(root, walk, &dir.join(&name), &name, wanted, &mut files);
            }
            EntryKind::Dir => {}
            _ if DOCUMENTS.contains(&name.as_str()) => files.push(name),
            _ => {}
        }
    }
    if files.iter().any(|f| DOCUMENTS.contains(&f.as_str())) {
        files.sort();
        layout.features.push(Feature {
            dir: dir_rel,
            key: key.to_string(),
            files,
        });
    }
}

/// Files under `dir` (named `prefix/…` in `out`) with one of the extensions, at any depth.
fn files_under(
    root: &Root,
    walk: &mut Walk,
    dir: &std::path::Path,
    prefix: &str,
    extensions: &[&str],
    out: &mut Vec<String>,
) {
    let mut stack: Vec<(PathBuf, String)> = vec![(dir.to_path_buf(), prefix.to_string())];
    while let Some((dir, prefix)) = stack.pop() {
        walk.folders.push(folder_stamp(&dir));
        for entry in walk.list(root, &dir).unwrap_or_default() {
            let name = entry.name.to_string_lossy().to_string();
            if !usable(&name) || name.starts_with('.') {
                continue;
            }
            let rel = format!("{prefix}/{name}");
            match entry.kind {
                EntryKind::Dir => stack.push((dir.join(&name), rel)),
                _ => {
                    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
                    if ext.is_some_and(|e| extensions.contains(&e.as_str())) {
                        out.push(rel);
                    }
                }
            }
        }
    }
}

/// The nodes of one Spec Kit file and the warnings met (duplicate ids in it, references
/// that do not parse). Never fails: a file Spec Kit did not write reads as a page.
pub(crate) fn parse(rel: &str, text: &str, role: &Role) -> (Vec<Node>, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut nodes = match role {
        Role::Constitution { features } => constitution::parse(rel, text, features),
        Role::Feature { dir, key, files } => {
            let file = rel
                .strip_prefix(dir.as_str())
                .and_then(|r| r.strip_prefix('/'))
                .unwrap_or(rel);
            let feature = FeatureRef { key, files };
            let mut nodes = match file {
                "spec.md" => spec::parse(rel, text, &feature),
                "tasks.md" => tasks::parse(rel, text, &feature),
                "research.md" => research::parse(rel, text, &feature),
                _ => pages::parse(rel, file, text, &feature),
            };
            if feature.owner() == Some(file) && file != "spec.md" {
                nodes.push(feature_node(rel, &feature, None));
            }
            if feature.archived() {
                for node in &mut nodes {
                    node.status.get_or_insert_with(|| "archived".into());
                }
            }
            nodes
        }
    };
    dedup(&mut nodes, &mut problems);
    (nodes, problems)
}

/// A task id as written in a tasks file, with its 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskId {
    /// The id (`T001`).
    pub id: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// Every task id of a Spec Kit `tasks.md`, in file order (duplicates included).
pub fn speckit_task_ids(text: &str) -> Vec<TaskId> {
    let (doc, _) = spec::body_doc("tasks.md", text);
    let mut out = Vec::new();
    for line in &doc.lines {
        let found = match line.heading {
            _ if line.code => None,
            Some(h) => tasks::task_line(h.text),
            None => specdoc::list_item(line.text).and_then(tasks::task_line),
        };
        if let Some(task) = found {
            let col = line
                .text
                .find(task.id)
                .map_or(1, |at| line.text[..at].chars().count() as u32 + 1);
            out.push(TaskId {
                id: task.id.to_string(),
                line: line.no,
                col,
            });
        }
    }
    out
}

/// Keeps the first node of an id written twice in one file, and warns about the others.
fn dedup(nodes: &mut Vec<Node>, problems: &mut Vec<Problem>) {
    let mut seen: std::collections::BTreeMap<String, u32> = std::collections::BTreeMap::new();
    nodes.retain(|node| match seen.get(&node.id) {
        Some(&first) => {
            problems.push(Problem::warning(
                ProblemKind::DuplicateId,
                node.location.clone(),
                format!(
                    "duplicate id `{}` in this file (first at line {first}): this one is not read",
                    node.id
                ),
            ));
            false
        }
        None => {
            seen.insert(node.id.clone(), node.location.line);
            true
        }
    });
}

/// The feature a file belongs to.
pub(crate) struct FeatureRef<'a> {
    pub key: &'a str,
    pub files: &'a [String],
}

impl FeatureRef<'_> {
    /// `key/local`.
    pub(crate) fn id(&self, local: &str) -> String {
        format!("{}/{local}", self.key)
    }

    /// Whether the folder holds this file.
    pub(crate) fn has(&self, file: &str) -> bool {
        self.files.iter().any(|f| f == file)
    }

    /// The file that holds the feature node: `spec.md`, else the first design document.
    pub(crate) fn owner(&self) -> Option<&str> {
        DOCUMENTS
            .iter()
            .find(|d| self.has(d))
            .copied()
            .or_else(|| self.files.first().map(String::as_str))
    }

    /// Under an archive folder.
    pub(crate) fn archived(&self) -> bool {
        is_archived(self.key)
    }

    /// The page node id of a file of the feature (`plan.md` → `key/plan`); `None` for the
    /// spec, which is the feature node itself.
    pub(crate) fn page_id(&self, file: &str) -> Option<String> {
        if file == "spec.md" {
            return None;
        }
        let stem = file
            .strip_suffix(".md")
            .filter(|_| !file.starts_with("contracts/"))
            .unwrap_or(file);
        Some(self.id(stem))
    }

    /// The design pages a task needs before it starts (tasks.md's `Prerequisites`, else every
    /// design document present): the plan, research, data model and contracts.
    pub(crate) fn design_pages(&self) -> Vec<String> {
        ["plan.md", "research.md", "data-model.md"]
            .iter()
            .filter(|f| self.has(f))
            .filter_map(|f| self.page_id(f))
            .collect()
    }
}

/// The feature node: `spec` is the spec's title, status, date and overview when spec.md
/// holds it. It contains every page of the folder.
pub(crate) fn feature_node(rel: &str, feature: &FeatureRef, spec: Option<SpecHead>) -> Node {
    let head = spec.unwrap_or_else(|| SpecHead {
        title: feature
            .key
            .rsplit('/')
            .next()
            .unwrap_or(feature.key)
            .to_string(),
        line: 1,
        ..SpecHead::default()
    });
    let mut node = specdoc::node(
        rel,
        head.line,
        feature.key.to_string(),
        brief_model::Kind::Feature,
        head.title,
        head.body,
    );
    node.status = head.status;
    node.date = head.date;
    for file in feature.files {
        if let Some(page) = feature.page_id(file) {
            specdoc::link(&mut node, Relation::Contains, page);
        }
    }
    node
}

/// What spec.md says about the feature itself.
#[derive(Debug, Default)]
pub(crate) struct SpecHead {
    pub title: String,
    pub line: u32,
    pub status: Option<String>,
    pub date: Option<String>,
    pub body: String,
}

/// A page's own status: a `**Status**: …` line before its first section, or a line there
/// that calls the file stale or outdated (`> ⚠️ STALE: …`).
pub(crate) fn page_status(doc: &specdoc::Doc) -> Option<String> {
    for line in &doc.lines {
        if matches!(line.heading, Some(h) if h.level >= 2) {
            break;
        }
        if let Some((name, value)) = specdoc::label(line.text.trim_start_matches(['>', ' '])) {
            if name.eq_ignore_ascii_case("status") && !value.is_empty() {
                return Some(specdoc::plain(value).to_lowercase());
            }
        }
        let lower = line.text.to_lowercase();
        let marked = line.text.trim_start().starts_with(['>', '*', '⚠', '!']);
        for word in ["stale", "outdated", "obsolete"] {
            if marked
                && lower
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|w| w == word)
            {
                return Some(word.to_string());
            }
        }
    }
    None
}

/// The ids a text mentions in the feature: stories (`US2`, `[US2]`, `User Story 2`),
/// requirements and criteria (`FR-007`, `SC-001`), and principles (`Principle IV`,
/// `Constitution IV`, `Article 4`).
pub(crate) fn mentions(text: &str, feature: &FeatureRef) -> Vec<(Mention, String)> {
    let mut out: Vec<(Mention, String)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut push = |kind: Mention, id: String| {
        if seen.insert(id.clone()) {
            out.push((kind, id));
        }
    };
    let mut previous = "";
    let mut before_previous = "";
    for word in specdoc::words(text) {
        if let Some(story) = specdoc::story_id(word) {
            push(Mention::Story, feature.id(&story));
        } else if specdoc::is_item_id(word) {
            let kind = if word.starts_with("SC-") {
                Mention::Criterion
            } else if word.starts_with("US-") {
                Mention::Story
            } else {
                Mention::Requirement
            };
            let id = match kind {
                Mention::Story => specdoc::story_id(word).unwrap_or_else(|| word.to_string()),
                _ => word.to_string(),
            };
            push(kind, feature.id(&id));
        } else if let Some(n) = word.parse::<u32>().ok().filter(|n| *n < 100) {
            if previous.eq_ignore_ascii_case("story")
                && before_previous.eq_ignore_ascii_case("user")
            {
                push(Mention::Story, feature.id(&format!("US{n}")));
            }
        }
        if let Some(principle) = principle_ref(previous, word) {
            push(Mention::Principle, principle);
        }
        before_previous = previous;
        previous = word;
    }
    out
}

/// `Principle IV`, `Constitution IV`, `Article 4`: the principle id.
fn principle_ref(previous: &str, word: &str) -> Option<String> {
    let lead = previous.to_ascii_lowercase();
    if !matches!(lead.as_str(), "principle" | "constitution" | "article") {
        return None;
    }
    let numeral = match word.parse::<u32>() {
        Ok(n) => specdoc::roman(n)?,
        Err(_) => specdoc::from_roman(word).map(|_| word.to_string())?,
    };
    Some(format!("constitution/{numeral}"))
}

/// What a mention names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mention {
    Story,
    Requirement,
    Criterion,
    Principle,
}

impl Mention {
    /// The link key a node uses for a mention of this kind.
    pub(crate) fn relation(self) -> Relation {
        Relation::Link(
            match self {
                Mention::Story => "story",
                Mention::Requirement => "requirements",
                Mention::Criterion => "criteria",
                Mention::Principle => "principles",
            }
            .into(),
        )
    }
}

/// Links to the feature's documents a text names by file name (`research.md`,
/// `data-model.md`, `contracts/payments-api.yaml`).
pub(crate) fn link_pages(node: &mut Node, text: &str, feature: &FeatureRef) {
    for file in feature.files {
        if file != "spec.md" && text.contains(file.as_str()) {
            if let Some(page) = feature.page_id(file) {
                specdoc::link(node, Relation::Link("links".into()), page);
            }
        }
    }
}

/// Links a node to everything its text mentions (never to itself).
pub(crate) fn link_mentions(node: &mut Node, text: &str, feature: &FeatureRef) {
    let found = mentions(text, feature);
    for kind in [
        Mention::Story,
        Mention::Requirement,
        Mention::Criterion,
        Mention::Principle,
    ] {
        let ids = found
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, id)| id.clone());
        specdoc::link_all(node, kind.relation(), ids);
    }
}

#[cfg(test)]
mod tests;
