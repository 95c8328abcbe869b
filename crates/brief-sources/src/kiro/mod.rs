//! Kiro: the specs of a `.kiro/` workspace (`specs/<name>/{requirements,design,tasks}.md`)
//! and its steering files (`steering/*.md`), at the root or in a subfolder.
//!
//! Ids are scoped by the spec folder (prefixed by the workspace's folder when the `.kiro/`
//! is not at the root): `user-auth` is the spec, `user-auth/R2` its requirement 2,
//! `user-auth/R2.1` that requirement's acceptance criterion 1, `user-auth/2.1` task 2.1,
//! `user-auth/design#architecture` a design section, `user-auth/requirements`,
//! `user-auth/design` and `user-auth/tasks` the pages. A steering file's id is its path, like
//! every rule file; [`crate::rules`] says when it applies.

mod kept;
mod requirements;
mod tasks;

pub use kept::kiro_workspaces_kept;

use std::path::Path;

use super::{folder_stamp, frontmatter, rules, specdoc, Problem, ProblemKind, Stamp, Walk};
use brief_model::{Kind, Node, Relation};
use brief_root::{EntryKind, Root};

/// The design documents of a spec, in the order that picks which one holds the spec node.
const DOCUMENTS: [&str; 4] = ["requirements.md", "bugfix.md", "design.md", "tasks.md"];
/// Folders never searched for nested workspaces.
const SKIPPED: [&str; 6] = ["node_modules", "vendor", "target", "dist", "build", "out"];
/// How deep below the root a nested `.kiro/` is looked for.
const NESTED_DEPTH: usize = 3;

/// How one Kiro file is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// A file of a spec folder.
    Spec {
        /// The workspace's folder, root-relative (`""` for a `.kiro/` at the root).
        base: String,
        /// The spec folder's name.
        name: String,
        /// The spec's design documents present, sorted.
        files: Vec<String>,
    },
    /// A steering file of the workspace at `base`.
    Steering {
        /// The workspace's folder, root-relative (`""` = the root).
        base: String,
    },
}

/// What a walk for workspaces found, and the folders whose entries decided it.
pub(crate) struct WorkspaceWalk {
    /// The `.kiro/` folders found, sorted.
    pub(crate) found: Vec<String>,
    /// Every folder walked (root-relative, `""` the root), stamped before it was read or
    /// asked, with the time of the stamp; `None` when a folder could not be stamped, or a
    /// `.kiro` was a symlink (whose target may change with no folder changing): then the
    /// answer cannot be kept.
    pub(crate) trail: Option<Vec<(String, Stamp, i64)>>,
}

/// The `.kiro/` folders under the root: the root's, and nested ones up to three folders deep
/// (not inside hidden folders, dependencies or build output), sorted, and the trail that
/// decided it.
///
/// Only folders above the deepest level are read for their subfolders (none when the link
/// count says there are none): this runs before every request, and a project's folders of
/// thousands of files (`specgraph/nodes/behaviors`, a vault's topic folders) are not listed.
/// A folder read without a `.kiro` entry is not asked for one by name.
pub(crate) fn walk_workspaces(root: &Root) -> WorkspaceWalk {
    let mut walker = Walker {
        root,
        found: Vec::new(),
        trail: Some(Vec::new()),
    };
    let mut stack: Vec<(String, usize)> = vec![(String::new(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        walker.stamp(&dir);
        let entries = if depth == NESTED_DEPTH {
            None
        } else {
            walker.entries(&dir)
        };
        walker.look_for_kiro(&dir, entries.as_deref());
        for rel in walkable(&dir, entries.as_deref().unwrap_or_default()) {
            stack.push((rel, depth + 1));
        }
    }
    walker.found.sort();
    WorkspaceWalk {
        found: walker.found,
        trail: walker.trail,
    }
}

/// A walk for workspaces under way.
struct Walker<'r> {
    root: &'r Root,
    found: Vec<String>,
    trail: Option<Vec<(String, Stamp, i64)>>,
}

impl Walker<'_> {
    /// Stamps `dir` before it is read or asked, so a change made meanwhile shows later.
    fn stamp(&mut self, dir: &str) {
        let (_, stamped) = folder_stamp(&self.root.path().join(dir));
        match (stamped, self.trail.as_mut()) {
            (Some((stamp, taken)), Some(trail)) => trail.push((dir.to_string(), stamp, taken)),
            _ => self.trail = None,
        }
    }

    /// The entries of `dir` when it may have subfolders. A folder that cannot be read may
    /// still be passed through to its `.kiro/`; what it holds then depends on who asks, so
    /// the walk is not kept.
    fn entries(&mut self, dir: &str) -> Option<Vec<brief_root::DirEntry>> {
        match self.root.entries_if_subfolders(&self.root.path().join(dir)) {
            Ok(entries) => entries,
            Err(_) => {
                self.trail = None;
                None
            }
        }
    }

    /// Whether `dir` holds a `.kiro/`. A folder read without a `.kiro` entry has none;
    /// otherwise the lookup by name says (it follows a symlink, needs the folder searchable,
    /// and matches `.Kiro` where the file system ignores case). A lookup that fails for
    /// another reason than a missing name, or a `.kiro` that is a symlink (whose target may
    /// change while no folder does), leaves the walk unkept.
    fn look_for_kiro(&mut self, dir: &str, entries: Option<&[brief_root::DirEntry]>) {
        let named: Vec<EntryKind> = entries
            .unwrap_or_default()
            .iter()
            .filter(|entry| entry.name.to_string_lossy().eq_ignore_ascii_case(".kiro"))
            .map(|entry| entry.kind)
            .collect();
        if entries.is_some() && named.is_empty() {
            return;
        }
        let kiro = child(dir, ".kiro");
        let path = self.root.path().join(&kiro);
        match self.root.kind(&path) {
            Ok(EntryKind::Dir) => self.found.push(kiro),
            Ok(_) => {}
            Err(e) if e.is_missing() => {}
            Err(_) => self.trail = None,
        }
        let symlink = named.contains(&EntryKind::Symlink)
            || std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.file_type().is_symlink());
        if symlink {
            self.trail = None;
        }
    }
}

/// The subfolders of `dir` a walk goes into: not hidden, not dependencies or build output.
fn walkable<'e>(
    dir: &'e str,
    entries: &'e [brief_root::DirEntry],
) -> impl Iterator<Item = String> + 'e {
    entries
        .iter()
        .filter(|entry| entry.kind == EntryKind::Dir)
        .map(|entry| entry.name.to_string_lossy())
        .filter(|name| walkable_name(name))
        .map(move |name| child(dir, &name))
}

/// The root-relative path of `name` in `dir` (`""` the root).
fn child(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// Whether a walk goes into a folder of this name.
fn walkable_name(name: &str) -> bool {
    !name.starts_with('.') && !SKIPPED.contains(&name) && !name.contains(['\t', '\n'])
}

/// The workspace folder a `.kiro/` path belongs to (`apps/web/.kiro` → `apps/web`).
pub(crate) fn base_of(kiro_dir: &str) -> String {
    kiro_dir
        .strip_suffix(".kiro")
        .unwrap_or(kiro_dir)
        .trim_end_matches('/')
        .to_string()
}

/// The files of one `.kiro/` folder (root-relative `kiro_dir`) with their roles.
pub(crate) fn listing(root: &Root, kiro_dir: &Path) -> (Vec<(std::path::PathBuf, Role)>, Walk) {
    let mut walk = Walk::default();
    let mut files = Vec::new();
    let rel = crate::rel_path(root.path(), kiro_dir);
    let base = base_of(&rel);
    let specs = kiro_dir.join("specs");
    walk.folders.push(folder_stamp(kiro_dir));
    walk.folders.push(folder_stamp(&specs));
    for entry in walk.list(root, &specs).unwrap_or_default() {
        let name = entry.name.to_string_lossy().to_string();
        if !matches!(entry.kind, EntryKind::Dir)
            || name.starts_with('.')
            || name.contains(['\t', '\n'])
        {
            continue;
        }
        let dir = specs.join(&name);
        walk.folders.push(folder_stamp(&dir));
        let mut present: Vec<String> = walk
            .list(root, &dir)
            .unwrap_or_default()
            .iter()
            .filter(|e| !matches!(e.kind, EntryKind::Dir))
            .map(|e| e.name.to_string_lossy().to_string())
            .filter(|f| DOCUMENTS.contains(&f.as_str()))
            .collect();
        present.sort();
        for file in &present {
            files.push((
                dir.join(file),
                Role::Spec {
                    base: base.clone(),
                    name: name.clone(),
                    files: present.clone(),
                },
            ));
        }
    }
    let steering = kiro_dir.join("steering");
    walk.folders.push(folder_stamp(&steering));
    for entry in walk.list(root, &steering).unwrap_or_default() {
        let name = entry.name.to_string_lossy();
        if !matches!(entry.kind, EntryKind::Dir) && name.to_ascii_lowercase().ends_with(".md") {
            files.push((steering.join(&*name), Role::Steering { base: base.clone() }));
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    (files, walk)
}

/// The nodes of one Kiro file and the warnings met.
pub(crate) fn parse(rel: &str, text: &str, role: &Role) -> (Vec<Node>, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut nodes = match role {
        Role::Steering { base } => vec![steering(rel, text, base, &mut problems)],
        Role::Spec { base, name, files } => {
            let spec = SpecRef::new(base, name, files);
            let file = rel.rsplit('/').next().unwrap_or(rel);
            let mut nodes = match file {
                "requirements.md" | "bugfix.md" => requirements::parse(rel, text, &spec),
                "tasks.md" => tasks::parse(rel, text, &spec),
                _ => design(rel, text, &spec),
            };
            if spec.owner() == Some(file) {
                let intro = nodes
                    .iter()
                    .find(|n| n.id == spec.page_id(file))
                    .and_then(|page| page.artifact().map(|a| a.body.clone()));
                nodes.push(spec_node(rel, &spec, intro.unwrap_or_default()));
            }
            nodes
        }
    };
    let mut seen = std::collections::BTreeMap::<String, u32>::new();
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
    (nodes, problems)
}

/// Every task number of a Kiro `tasks.md`, in file order (duplicates included).
pub fn kiro_task_ids(text: &str) -> Vec<crate::speckit::TaskId> {
    let (doc, _) = body("tasks.md", text);
    let mut out = Vec::new();
    for line in doc.lines.iter().filter(|l| !l.code && l.heading.is_none()) {
        let Some(task) = specdoc::list_item(line.text).and_then(tasks::task_line) else {
            continue;
        };
        let col = line
            .text
            .find(&format!(" {}", task.number))
            .map_or(1, |at| line.text[..at].chars().count() as u32 + 2);
        out.push(crate::speckit::TaskId {
            id: task.number.to_string(),
            line: line.no,
            col,
        });
    }
    out
}

/// The spec a file belongs to.
pub(crate) struct SpecRef<'a> {
    pub key: String,
    pub files: &'a [String],
}

impl<'a> SpecRef<'a> {
    fn new(base: &str, name: &str, files: &'a [String]) -> SpecRef<'a> {
        let key = child(base, name);
        SpecRef { key, files }
    }

    /// `key/local`.
    pub(crate) fn id(&self, local: &str) -> String {
        format!("{}/{local}", self.key)
    }

    /// `requirements.md` → `key/requirements`.
    pub(crate) fn page_id(&self, file: &str) -> String {
        self.id(file.trim_end_matches(".md"))
    }

    fn owner(&self) -> Option<&str> {
        DOCUMENTS
            .iter()
            .find(|d| self.files.iter().any(|f| f == *d))
            .copied()
    }

    /// The ids a requirement reference names: `1.1` a criterion (`R1.1`), `1` a
    /// requirement (`R1`), `5.2-5.5` each criterion of the range, `All` the requirements
    /// page. Anything else is prose and names nothing.
    pub(crate) fn requirement_refs(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for item in text.split([',', ';']) {
            let item = item.trim().trim_matches(['_', '*', '.', ' ']);
            if item.eq_ignore_ascii_case("all") {
                out.push(self.page_id("requirements.md"));
                continue;
            }
            if let Some((from, to)) = item.split_once(['-', '–']) {
                if let (Some(a), Some(b)) = (number(from.trim()), number(to.trim())) {
                    if a.0 == b.0 && a.1 <= b.1 && b.1 - a.1 < 100 {
                        for m in a.1..=b.1 {
                            out.push(self.id(&format!("R{}.{m}", a.0)));
                        }
                        continue;
                    }
                }
            }
            let word = item
                .trim_start_matches("Requirement")
                .trim_start_matches("requirement")
                .trim();
            if word.bytes().all(|b| b.is_ascii_digit() || b == b'.') && !word.is_empty() {
                let word = word.trim_end_matches('.');
                if !word.is_empty() && !word.starts_with('.') {
                    out.push(self.id(&format!("R{word}")));
                }
            }
        }
        out
    }
}

/// `5.2` → `(5, 2)`.
fn number(text: &str) -> Option<(u32, u32)> {
    let (a, b) = text.split_once('.')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The spec node: it contains its pages; its text is the requirements' introduction.
fn spec_node(rel: &str, spec: &SpecRef, body: String) -> Node {
    let title = spec.key.rsplit('/').next().unwrap_or(&spec.key).to_string();
    let mut node = specdoc::node(rel, 1, spec.key.clone(), Kind::Feature, title, body);
    for file in spec.files {
        specdoc::link(&mut node, Relation::Contains, spec.page_id(file));
    }
    node
}

/// `design.md`: a node per `##` section (`key/design#architecture`); a section's
/// `Validates: Requirements 1.2` and `_Requirements: 1.1_` lines link it to the criteria.
fn design(rel: &str, text: &str, spec: &SpecRef) -> Vec<Node> {
    let (doc, _) = body(rel, text);
    let mut used = vec![false; doc.lines.len()];
    let page_id = spec.page_id(rel.rsplit('/').next().unwrap_or("design.md"));
    let mut nodes = Vec::new();
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for (i, line) in doc.lines.iter().enumerate() {
        let Some(h) = line.heading.filter(|h| h.level == 2) else {
            continue;
        };
        let end = doc.end(i);
        let mut slug = specdoc::slug(h.text);
        let n = seen.entry(slug.clone()).or_default();
        if *n > 0 {
            slug = format!("{slug}-{n}");
        }
        *n += 1;
        let body = doc.text(i + 1, end);
        let mut node = specdoc::node(
            rel,
            line.no,
            format!("{page_id}#{slug}"),
            Kind::Section,
            specdoc::plain(h.text),
            body.clone(),
        );
        for target in validated(&body, spec) {
            specdoc::link(&mut node, Relation::Link("checks".into()), target);
        }
        used[i..end].iter_mut().for_each(|u| *u = true);
        nodes.push(node);
    }
    let title = match doc.title() {
        Some((i, t)) => {
            used[i] = true;
            specdoc::plain(t)
        }
        None => "Design".into(),
    };
    let mut page = specdoc::node(
        rel,
        1,
        page_id,
        Kind::parse("design"),
        title,
        doc.rest(&used),
    );
    specdoc::link_all(
        &mut page,
        Relation::Contains,
        nodes.iter().map(|n| n.id.clone()),
    );
    // The page first, then its sections (the index moves heading links by that order).
    nodes.insert(0, page);
    nodes
}

/// The criteria a text validates or implements: `Validates: Requirements 1.2, 3.1` and
/// `_Requirements: 1.1_` lines.
pub(crate) fn validated(text: &str, spec: &SpecRef) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(list) = requirements_line(line) {
            for id in spec.requirement_refs(list) {
                if !out.contains(&id) {
                    out.push(id);
                }
            }
        }
    }
    out
}

/// The list of a `_Requirements: 1.1, 2.3_`, `**Validates: Requirements 1.2**` or
/// `Requirements: 4` line.
pub(crate) fn requirements_line(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let t = specdoc::list_item(t).unwrap_or(t);
    let t = t.trim_start_matches(['_', '*', ' ']);
    let rest = t
        .strip_prefix("Requirements:")
        .or_else(|| t.strip_prefix("Requirement:"))
        .or_else(|| t.strip_prefix("Validates: Requirements"))
        .or_else(|| t.strip_prefix("Validates: Requirement"))
        .or_else(|| t.strip_prefix("Validates:"))?;
    Some(rest.trim().trim_end_matches(['_', '*', ' ']))
}

/// A file's body after its frontmatter, and the frontmatter as a map (lenient when it is not
/// YAML).
pub(crate) fn body<'t>(
    rel: &str,
    text: &'t str,
) -> (specdoc::Doc<'t>, serde_json::Map<String, serde_json::Value>) {
    match frontmatter::split(rel, text) {
        Ok(split) => {
            let map = match split.yaml {
                Some(yaml) => frontmatter::parse(rel, yaml, split.yaml_line)
                    .unwrap_or_else(|_| rules::lenient_front(yaml)),
                None => serde_json::Map::new(),
            };
            (specdoc::Doc::new(split.body, split.body_line), map)
        }
        Err(_) => (specdoc::Doc::new(text, 1), serde_json::Map::new()),
    }
}

/// A steering file: a norm whose [`brief_model::Applies`] its `inclusion` decides.
fn steering(rel: &str, text: &str, base: &str, problems: &mut Vec<Problem>) -> Node {
    let (doc, map) = body(rel, text);
    if let Ok(split) = frontmatter::split(rel, text) {
        if let Some(yaml) = split.yaml {
            if let Err(problem) = frontmatter::parse(rel, yaml, split.yaml_line) {
                problems.push(Problem::warning(
                    ProblemKind::Syntax,
                    problem.location,
                    format!("frontmatter read line by line: {}", problem.message),
                ));
            }
        }
    }
    let stem = rel
        .rsplit('/')
        .next()
        .unwrap_or(rel)
        .trim_end_matches(".md");
    let title = doc
        .title()
        .map(|(_, t)| specdoc::plain(t))
        .or_else(|| map.get("name").and_then(|v| v.as_str()).map(str::to_string))
        .unwrap_or_else(|| stem.to_string());
    let first = doc.lines.first().map_or(1, |l| l.no);
    let mut node = specdoc::node(
        rel,
        1,
        rel.to_string(),
        Kind::Norm,
        title,
        doc.text(0, doc.lines.len()),
    );
    let rule = rules::RuleFile::Steering {
        base: base.to_string(),
    };
    let fields = specdoc::fields(&mut node);
    fields.body_line = first;
    fields.applies = rule.applies(&map);
    fields.scope = rule.written_globs(&map);
    fields.description = map
        .get("description")
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .filter(|d| !d.is_empty());
    if let Some(inclusion) = map.get("inclusion").and_then(|v| v.as_str()) {
        specdoc::extra(&mut node, "inclusion", inclusion);
    }
    node
}

#[cfg(test)]
mod tests;
