//! The Markdown knowledge base: which files of a repository are read (ADRs, docs, agent
//! instruction files, Obsidian notes) and the [`Catalog`] that turns a path or a wikilink
//! into a node id. Parsing one file is `markdown.rs`.
//!
//! Ids come from the path alone (an ADR's number, else the path), so a link resolves
//! without reading its target, and a file's parse depends only on its text and the set of
//! files listed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::rules::{RuleFile, AGENT_MARKERS, RULE_FOLDERS};
use super::{folder_stamp, rel_path, Walk};
use brief_root::{EntryKind, Root};

/// Folders holding ADRs when nothing names them (`.adr-dir`, `.log4brains.yml`). All but
/// the last are ADR folders below the root too ([`Layout::nested_adr_dirs`]).
pub(crate) const CONVENTIONAL_ADR_DIRS: [&str; 6] = [
    "doc/adr",
    "docs/adr",
    "doc/architecture/decisions",
    "docs/architecture/decisions",
    "docs/decisions",
    "adr",
];

/// Folders holding the data of tests: a fixture's ADR or page is an example of the format,
/// not a decision or a page of the project, so they are never walked.
pub const TEST_DATA_DIRS: [&str; 6] = [
    "fixtures",
    "__fixtures__",
    "testdata",
    "test-data",
    "test_data",
    "__snapshots__",
];

/// Folders of tests. A project kept below one, a folder holding its own
/// [`PROJECT_MARKERS`], is a sample the tests run against (its records are examples of the
/// format), so nothing in it is read; the test folders' own pages are.
pub const TEST_DIRS: [&str; 8] = [
    "test",
    "tests",
    "__tests__",
    "integration-tests",
    "integration_tests",
    "e2e",
    "e2e-tests",
    "e2e_tests",
];

/// Files and folders that say a knowledge project is rooted where they are.
pub(crate) const PROJECT_MARKERS: [&str; 5] = [
    "brief.toml",
    ".adr-dir",
    ".log4brains.yml",
    ".obsidian",
    ".contextia",
];

/// Folders never walked: dependencies, build output and [`TEST_DATA_DIRS`].
pub(crate) const SKIPPED_DIRS: [&str; 10] = {
    let built = ["node_modules", "vendor", "target", "dist"];
    let mut all = [""; 10];
    let mut i = 0;
    while i < built.len() {
        all[i] = built[i];
        i += 1;
    }
    while i < all.len() {
        all[i] = TEST_DATA_DIRS[i - built.len()];
        i += 1;
    }
    all
};

/// What a project's layout says about its knowledge base.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    /// ADR folders, relative to the root, sorted.
    pub adr_dirs: Vec<String>,
    /// Where each ADR folder was found (`.adr-dir`, `.log4brains.yml`, `conventional`).
    pub adr_origins: Vec<(String, &'static str)>,
    /// No marker names the ADR folders, so a folder with a conventional name of more than
    /// one part below the root is one too (`lms/grades/docs/decisions`): a monorepo keeps
    /// one per package.
    pub nested_adr_dirs: bool,
    /// The Obsidian template folder (`.obsidian/templates.json`), never read.
    pub template_dir: Option<String>,
    /// `.obsidian/` at the root.
    pub vault: bool,
    /// Agent instruction files found at the root (`AGENTS.md`, `CLAUDE.md`, …).
    pub agent_files: Vec<String>,
    /// Files another source reads (Spec Kit's), root-relative, sorted: never listed here.
    pub claimed: Vec<String>,
    /// ADR numbers two records share (`0009-a.md`, `0009-b.md`, in one ADR folder or in two:
    /// an ADR's id is the project's `ADR-0009`): those records keep their paths as ids, since
    /// the number names neither alone.
    pub shared_numbers: std::collections::BTreeSet<u32>,
    /// The file endings of the project's pages in other formats than Markdown (`.adoc`),
    /// lower-case: set by whoever knows the project's sources (`catalogue::kb_layout`).
    pub page_extensions: Vec<&'static str>,
}

impl Layout {
    /// Reads the layout markers at the root.
    pub fn detect(root: &Root) -> Layout {
        let base = root.path();
        let mut layout = Layout::default();
        let read = |name: &str| -> Option<String> {
            let (bytes, _) = root.read(&base.join(name)).ok()?;
            String::from_utf8(bytes).ok()
        };
        if let Some(dir) = read(".adr-dir") {
            let dir = clean_dir(dir.lines().next().unwrap_or(""));
            if !dir.is_empty() {
                layout.adr_origins.push((dir, ".adr-dir"));
            }
        }
        if let Some(yaml) = read(".log4brains.yml") {
            // `adrFolder: ./docs/adr` under `project:` and under each package.
            for line in yaml.lines() {
                if let Some(value) = line.trim().strip_prefix("adrFolder:") {
                    let dir = clean_dir(value.trim().trim_matches(['"', '\'']));
                    if !dir.is_empty() {
                        layout.adr_origins.push((dir, ".log4brains.yml"));
                    }
                }
            }
        }
        if layout.adr_origins.is_empty() {
            layout.nested_adr_dirs = true;
            for dir in CONVENTIONAL_ADR_DIRS {
                if root.is_dir(&base.join(dir)) {
                    layout.adr_origins.push((dir.to_string(), "conventional"));
                }
            }
        }
        layout.adr_dirs = layout.adr_origins.iter().map(|(d, _)| d.clone()).collect();
        layout.adr_dirs.sort();
        layout.adr_dirs.dedup();
        layout.vault = root.is_dir(&base.join(".obsidian"));
        if layout.vault {
            if let Some(json) = read(".obsidian/templates.json") {
                layout.template_dir = serde_json::from_str::<serde_json::Value>(&json)
                    .ok()
                    .and_then(|v| v.get("folder")?.as_str().map(clean_dir))
                    .filter(|d| !d.is_empty());
            }
        }
        for name in AGENT_MARKERS {
            if root.kind(&base.join(name)).is_ok() {
                layout.agent_files.push(name.to_string());
            }
        }
        layout
    }

    /// Whether the layout marks a knowledge base: zero-configuration discovery adds the
    /// Markdown source only then, so a project of other sources keeps its node set.
    pub fn found(&self) -> bool {
        !self.adr_dirs.is_empty() || self.vault || !self.agent_files.is_empty()
    }

    /// Whether `rel` is an ADR: in an ADR folder or a folder beneath it, named
    /// `<number>-….md`, and not a template.
    pub fn is_adr(&self, rel: &str) -> bool {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        self.in_adr_folder(dir)
            && name.len() > 3
            && name.as_bytes()[0].is_ascii_digit()
            && name
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .starts_with('-')
            && self.is_page(name)
    }

    /// Whether `dir` is an ADR folder or lies in one: records are kept directly in it or in
    /// folders of their own beneath it (`decisions/records/`, one folder per area).
    fn in_adr_folder(&self, dir: &str) -> bool {
        let under = |home: &str, at: usize| {
            let rest = &dir[at + home.len()..];
            rest.is_empty() || rest.starts_with('/')
        };
        self.adr_dirs
            .iter()
            .any(|home| dir.starts_with(home.as_str()) && under(home, 0))
            || self.nested_adr_home(dir, under)
    }

    /// Whether `dir` is or lies in a conventional ADR folder below the root, when those
    /// count ([`Layout::nested_adr_dirs`]); `tail` says whether what follows a match at a
    /// byte offset ends the folder's name.
    fn nested_adr_home(&self, dir: &str, tail: impl Fn(&str, usize) -> bool) -> bool {
        if !self.nested_adr_dirs {
            return false;
        }
        let nested = &CONVENTIONAL_ADR_DIRS[..CONVENTIONAL_ADR_DIRS.len() - 1];
        nested.iter().any(|home| {
            dir.match_indices(home)
                .any(|(at, _)| (at == 0 || dir[..at].ends_with('/')) && tail(home, at))
        })
    }

    /// Whether `dir` is itself an ADR folder (not one beneath it).
    fn is_adr_home(&self, dir: &str) -> bool {
        self.adr_dirs.iter().any(|a| a == dir)
            || self.nested_adr_home(dir, |home, at| at + home.len() == dir.len())
    }

    /// Whether a file name (any case) is a Markdown page or a page of another format the
    /// project reads.
    pub(crate) fn is_page(&self, name: &str) -> bool {
        let lower = name.to_ascii_lowercase();
        lower.ends_with(".md") || self.page_extensions.iter().any(|e| lower.ends_with(e))
    }

    /// A page's name without its ending (`.md`, or another format's), for matching names.
    fn page_stem<'n>(&self, name: &'n str) -> &'n str {
        if let Some(stem) = name
            .strip_suffix(".md")
            .or_else(|| name.strip_suffix(".MD"))
        {
            return stem;
        }
        let lower = name.to_ascii_lowercase();
        self.page_extensions
            .iter()
            .find(|ext| lower.ends_with(*ext))
            .map_or(name, |ext| &name[..name.len() - ext.len()])
    }

    /// Templates are never read: ADR tools' `template.md` / `adr-template*.md` (and
    /// adr-tools' `templates/`), and the vault's template folder.
    pub(crate) fn is_template(&self, rel: &str) -> bool {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        let in_adr = |d: &str| self.is_adr_home(d);
        let lower = name.to_ascii_lowercase();
        if (lower == "template.md" || lower.starts_with("adr-template")) && in_adr(dir) {
            return true;
        }
        if let Some(parent) = dir.strip_suffix("/templates") {
            if in_adr(parent) {
                return true;
            }
        }
        self.template_dir
            .as_ref()
            .is_some_and(|t| rel.starts_with(&format!("{t}/")))
    }
}

fn clean_dir(dir: &str) -> String {
    dir.trim()
        .trim_start_matches("./")
        .trim_end_matches('/')
        .to_string()
}

/// The id of a knowledge-base file from its path: `ADR-` and the number padded to four
/// digits for an ADR whose number has at most four digits, else the path itself.
pub(crate) fn id_for(layout: &Layout, rel: &str) -> String {
    match adr_number(layout, rel) {
        Some(number) if !layout.shared_numbers.contains(&number) => format!("ADR-{number:04}"),
        _ => rel.to_string(),
    }
}

/// An ADR's number, when it is an ADR whose number has at most four digits.
fn adr_number(layout: &Layout, rel: &str) -> Option<u32> {
    if !layout.is_adr(rel) {
        return None;
    }
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let digits: String = name.chars().take_while(char::is_ascii_digit).collect();
    if digits.len() > 4 {
        return None;
    }
    Some(digits.parse().unwrap_or(0))
}

/// The Markdown files of the knowledge base, sorted, with every folder walked (stamped
/// before it was listed). Hidden folders are skipped except where rule files live:
/// `.github/copilot-instructions.md`, `.github/instructions/**/*.instructions.md`, agent
/// files anywhere under `.github/`, and at any depth the rule folders of [`RULE_FOLDERS`]
/// (`.cursor/rules/**/*.mdc`, `.claude/CLAUDE.md`, `.claude/rules/**/*.md`,
/// `.claude/skills/*/SKILL.md`, …); dependencies, build output, templates and the files
/// another source claims are skipped.
pub fn listing(root: &Root, layout: &Layout) -> Walk {
    let base = root.path().to_path_buf();
    let github = base.join(".github");
    let mut hidden = Vec::new();
    // Only a real `.github` folder is walked whole (one linked elsewhere in the tree would
    // read that part again).
    let mut own_github = false;
    let mut walk = super::walk_markdown(root, &base, &SKIPPED_DIRS, &mut |path, name| {
        if let Some(folder) = RULE_FOLDERS.iter().find(|f| f.hidden == name) {
            hidden.push((path.to_path_buf(), folder));
        }
        own_github |= path == github;
    });
    if root.is_file(&base.join(".cursorrules")) {
        walk.files.push(base.join(".cursorrules"));
    }
    if root.is_file(&github.join("copilot-instructions.md")) {
        walk.folders.push(folder_stamp(&github));
        walk.files.push(github.join("copilot-instructions.md"));
    }
    let mut links = Vec::new();
    if own_github {
        // One walk for its agent files and its Copilot instructions; only rule files stay.
        rule_files(root, &mut walk, &mut links, &github, &|name| {
            name == "AGENTS.md" || name == "CLAUDE.md" || name.ends_with(".instructions.md")
        });
    } else {
        rule_files(
            root,
            &mut walk,
            &mut links,
            &github.join("instructions"),
            &|name| name.ends_with(".instructions.md"),
        );
    }
    for (dir, folder) in hidden {
        if let Some(name) = folder.file {
            walk.folders.push(folder_stamp(&dir));
            if root.is_file(&dir.join(name)) {
                walk.files.push(dir.join(name));
            }
        }
        rule_files(root, &mut walk, &mut links, &dir.join("rules"), &|name| {
            name.ends_with(folder.suffix)
        });
        if let Some(skill) = folder.skill {
            skill_files(root, &mut walk, &dir.join("skills"), skill);
        }
    }
    // A rule that links to another rule is that rule under a second name (read once); one
    // that links to an ordinary page is a rule of its own.
    let (aliases, own): (Vec<PathBuf>, Vec<PathBuf>) = links.into_iter().partition(|link| {
        super::link_target(link)
            .is_some_and(|target| RuleFile::of(&rel_path(&base, &target)).is_some())
    });
    walk.files.extend(own);
    super::add_links(&mut walk.files, aliases);
    walk.files.retain(|path| {
        let rel = rel_path(&base, path);
        !layout.is_template(&rel)
            && layout.claimed.binary_search(&rel).is_err()
            && (!rel.starts_with(".github/") || RuleFile::of(&rel).is_some())
    });
    walk.files.sort();
    walk.files.dedup();
    walk
}

/// The files under `dir` (at any depth, hidden folders skipped) whose names `wanted` takes;
/// symlinks among them go to `links` (see [`super::add_links`]).
fn rule_files(
    root: &Root,
    walk: &mut Walk,
    links: &mut Vec<PathBuf>,
    dir: &Path,
    wanted: &dyn Fn(&str) -> bool,
) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        if !root.is_dir(&current) {
            continue;
        }
        walk.folders.push(folder_stamp(&current));
        let Some(entries) = walk.list(root, &current) else {
            continue;
        };
        for entry in entries {
            let name = entry.name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            match entry.kind {
                EntryKind::Dir if SKIPPED_DIRS.contains(&name.as_ref()) => {}
                EntryKind::Dir => stack.push(current.join(&entry.name)),
                EntryKind::Symlink if wanted(&name) => links.push(current.join(&entry.name)),
                _ if wanted(&name) => walk.files.push(current.join(&entry.name)),
                _ => {}
            }
        }
    }
}

/// The file `name` in each folder directly under `dir` (`skills/<skill>/SKILL.md`).
fn skill_files(root: &Root, walk: &mut Walk, dir: &Path, name: &str) {
    if !root.is_dir(dir) {
        return;
    }
    walk.folders.push(folder_stamp(dir));
    let Some(entries) = walk.list(root, dir) else {
        return;
    };
    for entry in entries {
        let skill = dir.join(&entry.name);
        if entry.kind != EntryKind::Dir || entry.name.to_string_lossy().starts_with('.') {
            continue;
        }
        walk.folders.push(folder_stamp(&skill));
        if root.is_file(&skill.join(name)) {
            walk.files.push(skill.join(name));
        }
    }
}

/// Turns link targets into node ids: every knowledge-base file by path and by base name
/// (for wikilinks), and the node files of other sources by path.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// Where the knowledge base's parts are (ADR folders, templates, files Spec Kit claims).
    pub layout: Layout,
    /// Knowledge-base files (relative paths) and their ids.
    files: BTreeMap<String, String>,
    /// Lower-cased base name (without `.md`) → paths, in path order.
    by_name: BTreeMap<String, Vec<String>>,
    /// Lower-cased path without `.md` → path, for wikilinks with a folder.
    by_path: BTreeMap<String, String>,
    /// Files of other sources (a Spec Graph node file, an artifact) and their ids.
    others: BTreeMap<String, String>,
    /// Every id above.
    ids: std::collections::BTreeSet<String>,
    /// The repository the project is a clone of (its `origin`), whose own URLs are links
    /// inside the project.
    repository: Option<Repository>,
    /// Names pages of other formats define for cross-references (Sphinx's `.. _label:`),
    /// as the format writes them for lookup → the page's path; the first page in path order
    /// that defines one has it.
    labels: BTreeMap<String, String>,
}

/// A repository as its remote URL names it: host and `owner/name`, lower-cased.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repository {
    /// `github.com`, `gitlab.example.org`.
    pub host: String,
    /// `owner/name` (GitLab groups: `group/sub/name`).
    pub path: String,
}

impl Repository {
    /// Reads a remote URL: `https://host/owner/name(.git)`, `git@host:owner/name.git`,
    /// `ssh://git@host/owner/name.git`.
    pub fn parse(url: &str) -> Option<Repository> {
        let url = url.trim();
        let rest = match url.split_once("://") {
            Some((_, rest)) => rest.to_string(),
            // scp-like: `git@host:owner/name.git`.
            None => url.replacen(':', "/", 1),
        };
        let rest = rest.rsplit_once('@').map_or(rest.as_str(), |(_, r)| r);
        let (host, path) = rest.split_once('/')?;
        let host = host.split(':').next().unwrap_or(host);
        let path = path.trim_end_matches('/');
        let path = path.strip_suffix(".git").unwrap_or(path);
        (!host.is_empty() && path.contains('/')).then(|| Repository {
            host: host.to_ascii_lowercase(),
            path: path.to_ascii_lowercase(),
        })
    }

    /// The `origin` of the clone at the root (`.git/config`), if it names one.
    pub fn detect(root: &Root) -> Option<Repository> {
        let (bytes, _) = root.read(&root.path().join(".git/config")).ok()?;
        let config = String::from_utf8(bytes).ok()?;
        let mut in_origin = false;
        for line in config.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                in_origin = line.replace(' ', "") == "[remote\"origin\"]";
            } else if let Some(value) = line.strip_prefix("url").filter(|_| in_origin) {
                return Repository::parse(value.trim_start().strip_prefix('=')?);
            }
        }
        None
    }
}

impl Catalog {
    /// A catalogue of these knowledge-base files (relative paths).
    pub fn new(layout: Layout, files: impl IntoIterator<Item = String>) -> Catalog {
        let mut catalog = Catalog {
            layout,
            ..Catalog::default()
        };
        let files: Vec<String> = files.into_iter().collect();
        let mut seen = std::collections::BTreeSet::new();
        for rel in &files {
            if let Some(number) = adr_number(&catalog.layout, rel) {
                if !seen.insert(number) {
                    catalog.layout.shared_numbers.insert(number);
                }
            }
        }
        for rel in files {
            let id = id_for(&catalog.layout, &rel);
            let stem = rel.rsplit('/').next().unwrap_or(&rel);
            let stem = strip_md(&catalog.layout, stem).to_lowercase();
            catalog.by_name.entry(stem).or_default().push(rel.clone());
            catalog
                .by_path
                .insert(strip_md(&catalog.layout, &rel).to_lowercase(), rel.clone());
            catalog.ids.insert(id.clone());
            catalog.files.insert(rel, id);
        }
        for paths in catalog.by_name.values_mut() {
            paths.sort();
        }
        catalog
    }

    /// Records a node file of another source.
    pub fn add_other(&mut self, rel: String, id: String) {
        self.ids.insert(id.clone());
        self.others.insert(rel, id);
    }

    /// Sets the repository whose own URLs are links inside the project.
    pub fn set_repository(&mut self, repository: Option<Repository>) {
        self.repository = repository;
    }

    /// Whether a node of the knowledge base (or a file of another source) has this id.
    pub(crate) fn has_id(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    /// The root-relative path (and `#anchor`) a URL names when it is a file of this
    /// repository: `https://HOST/OWNER/NAME/blob/REF/PATH` (also `/tree/`, `/raw/`, GitLab's
    /// `/-/blob/`) and `https://raw.githubusercontent.com/OWNER/NAME/REF/PATH`. With no
    /// `origin` known, such a URL is the project's when its path is a knowledge-base file.
    pub(crate) fn own_path(&self, url: &str) -> Option<String> {
        let (_, rest) = url.split_once("://")?;
        let rest = rest.split(['?']).next().unwrap_or(rest);
        let (host, path) = rest.split_once('/')?;
        let host = host.to_ascii_lowercase();
        let host = host.strip_prefix("www.").unwrap_or(&host);
        let parts: Vec<&str> = path.split('/').collect();
        let (repo, file, github) = if host == "raw.githubusercontent.com" {
            // OWNER/NAME/REF/PATH…
            (parts.get(..2)?.join("/"), parts.get(3..)?.join("/"), true)
        } else {
            let at = parts
                .iter()
                .position(|p| matches!(*p, "blob" | "tree" | "raw"))?;
            let repo_end = if at > 0 && parts[at - 1] == "-" {
                at - 1
            } else {
                at
            };
            (
                parts.get(..repo_end)?.join("/"),
                parts.get(at + 2..)?.join("/"),
                false,
            )
        };
        let repo = repo.to_ascii_lowercase();
        let ours = match &self.repository {
            Some(own) => {
                repo == own.path && (host == own.host || (github && own.host == "github.com"))
            }
            None => {
                let bare = file.split('#').next().unwrap_or(&file);
                self.files
                    .contains_key(&crate::mdtext::percent_decode(bare))
            }
        };
        (ours && !file.is_empty()).then_some(file)
    }

    /// The id of the node a file (relative path) holds, if it is a node.
    pub(crate) fn id_of_path(&self, rel: &str) -> Option<&str> {
        self.files
            .get(rel)
            .or_else(|| self.others.get(rel))
            .map(String::as_str)
    }

    /// The file a wikilink names, seen from `from`: by path when it has a folder, else by
    /// base name, case-insensitively; of several, the one sharing most folders with `from`.
    pub(crate) fn wikilink(&self, from: &str, target: &str) -> Option<&str> {
        let key = strip_md(&self.layout, target.trim()).to_lowercase();
        if let Some(key) = key.strip_prefix('/').or(key.contains('/').then_some(&key)) {
            // From the root, else from each folder above the note: a vault kept in a
            // subfolder writes its links from its own root.
            if let Some(path) = self.by_path.get(key) {
                return Some(path);
            }
            let lower = from.to_lowercase();
            let mut dir = lower.as_str();
            while let Some((parent, _)) = dir.rsplit_once('/') {
                if let Some(path) = self.by_path.get(&format!("{parent}/{key}")) {
                    return Some(path);
                }
                dir = parent;
            }
            // Then, as Obsidian does, any note whose path ends with the link's.
            let name = key.rsplit('/').next().unwrap_or(key);
            let suffix = format!("/{key}");
            let ends = |p: &&String| strip_md(&self.layout, p).to_lowercase().ends_with(&suffix);
            let found: Vec<&String> = self.by_name.get(name)?.iter().filter(ends).collect();
            return nearest(&found, from);
        }
        let paths: Vec<&String> = self.by_name.get(&key)?.iter().collect();
        nearest(&paths, from)
    }

    /// Records that the page `rel` defines `label` (as its format writes labels for lookup),
    /// unless a page before it in path order does.
    pub(crate) fn add_label(&mut self, label: String, rel: &str) {
        self.labels.entry(label).or_insert_with(|| rel.to_string());
    }

    /// The page that defines `label`.
    pub(crate) fn labelled(&self, label: &str) -> Option<&str> {
        self.labels.get(label).map(String::as_str)
    }

    /// A digest of everything a parse reads from the catalogue: a file's parse is redone
    /// when it changes (a note added can resolve a wikilink elsewhere).
    pub fn fingerprint(&self) -> String {
        let mut text = String::new();
        for dir in &self.layout.adr_dirs {
            text.push_str(dir);
            text.push('\n');
        }
        if self.layout.nested_adr_dirs {
            text.push_str("nested ADR folders\n");
        }
        for (label, rel) in &self.labels {
            text.push_str(&format!("label {label}\t{rel}\n"));
        }
        if let Some(repository) = &self.repository {
            text.push_str(&format!("origin {}/{}\n", repository.host, repository.path));
        }
        for map in [&self.files, &self.others] {
            for (rel, id) in map {
                text.push_str(rel);
                text.push('\t');
                text.push_str(id);
                text.push('\n');
            }
        }
        blake3::hash(text.as_bytes()).to_hex()[..16].to_string()
    }
}

/// Of several paths, the one sharing most folders with `from` (the first in path order on a
/// tie).
fn nearest<'p>(paths: &[&'p String], from: &str) -> Option<&'p str> {
    let shared = |p: &str| {
        p.split('/')
            .zip(from.split('/'))
            .take_while(|(a, b)| a == b)
            .count()
    };
    paths
        .iter()
        .max_by(|a, b| shared(a).cmp(&shared(b)).then_with(|| b.cmp(a)))
        .map(|p| p.as_str())
}

fn strip_md<'n>(layout: &Layout, name: &'n str) -> &'n str {
    layout.page_stem(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_in_folders_beneath_an_adr_folder_are_adrs_and_a_shared_number_names_none() {
        let layout = Layout {
            adr_dirs: vec!["docs/architecture-decisions".into()],
            ..Layout::default()
        };
        let files = [
            "docs/architecture-decisions/index.md",
            "docs/architecture-decisions/records/003-role-based-access.md",
            "docs/architecture-decisions/records/010-use-pytest.md",
            "docs/architecture-decisions/web/0001-react.md",
            "docs/architecture-decisions/api/0001-rest.md",
            "docs/architecture-decisions-old/0002-old.md",
        ];
        let catalog = Catalog::new(layout, files.iter().map(|f| f.to_string()));
        let id = |rel: &str| catalog.id_of_path(rel).unwrap_or_default().to_string();
        assert_eq!(id(files[1]), "ADR-0003");
        assert_eq!(id(files[2]), "ADR-0010");
        // Two areas' first records share a number: the number names neither alone.
        assert_eq!(id(files[3]), files[3]);
        assert_eq!(id(files[4]), files[4]);
        assert!(catalog.layout.is_adr(files[3]));
        // Not a record: no number; a folder whose name only begins like the ADR folder's.
        assert!(!catalog.layout.is_adr(files[0]));
        assert!(!catalog.layout.is_adr(files[5]));
        assert_eq!(id(files[5]), files[5]);
        // Two ADR folders: an ADR's id is the project's, so a number both use names neither.
        let layout = Layout {
            adr_dirs: vec!["docs/adr".into(), "packages/x/adr".into()],
            ..Layout::default()
        };
        let files = [
            "docs/adr/0001-a.md",
            "packages/x/adr/0001-b.md",
            "packages/x/adr/0002-c.md",
        ];
        let catalog = Catalog::new(layout, files.iter().map(|f| f.to_string()));
        let id = |rel: &str| catalog.id_of_path(rel).unwrap_or_default().to_string();
        assert_eq!(id(files[0]), files[0]);
        assert_eq!(id(files[1]), files[1]);
        assert_eq!(id(files[2]), "ADR-0002");
    }

    #[test]
    fn a_conventional_adr_folder_below_the_root_holds_adrs_unless_a_marker_names_the_folders() {
        let files = [
            "docs/decisions/0001-record.rst",
            "lms/djangoapps/grades/docs/decisions/0001-use-celery.rst",
            "cms/docs/decisions/0002-course-import.md",
            "cms/docs/decisions/template.md",
            "packages/ui/docs/adr/areas/0003-theme.md",
            "tools/adr/0004-not-nested.md",
            "lms/docs/decisions-old/0005-old.md",
            "lms/mydocs/decisions/0006-other.md",
        ];
        let layout = Layout {
            adr_dirs: vec!["docs/decisions".into()],
            nested_adr_dirs: true,
            page_extensions: vec![".rst"],
            ..Layout::default()
        };
        for (rel, adr) in files
            .iter()
            .zip([true, true, true, false, true, false, false, false])
        {
            assert_eq!(layout.is_adr(rel), adr, "{rel}");
        }
        assert!(layout.is_template(files[3]));
        let catalog = Catalog::new(layout.clone(), files.iter().map(|f| f.to_string()));
        let id = |rel: &str| catalog.id_of_path(rel).unwrap_or_default().to_string();
        // Packages number their records alike: a shared number names neither.
        assert_eq!(id(files[1]), files[1]);
        assert_eq!(id(files[2]), "ADR-0002");
        // A marker names the folders: only those.
        let marked = Layout {
            nested_adr_dirs: false,
            ..layout
        };
        assert!(!marked.is_adr(files[1]));
        assert!(marked.is_adr(files[0]));
    }
}
