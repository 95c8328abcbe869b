//! The Markdown knowledge base: which files of a repository are read (ADRs, docs, agent
//! instruction files, Obsidian notes) and the [`Catalog`] that turns a path or a wikilink
//! into a node id. Parsing one file is `markdown.rs`.
//!
//! Ids come from the path alone (an ADR's number, else the path), so a link resolves
//! without reading its target, and a file's parse depends only on its text and the set of
//! files listed.

use std::collections::BTreeMap;
use std::path::Path;

use super::{folder_stamp, markdown_listing, rel_path, Walk};
use brief_root::{EntryKind, Root};

/// Folders holding ADRs when nothing names them (`.adr-dir`, `.log4brains.yml`).
pub const CONVENTIONAL_ADR_DIRS: [&str; 6] = [
    "doc/adr",
    "docs/adr",
    "doc/architecture/decisions",
    "docs/architecture/decisions",
    "docs/decisions",
    "adr",
];

/// Folders never walked: dependencies and build output.
const SKIPPED_DIRS: [&str; 4] = ["node_modules", "vendor", "target", "dist"];

/// What a project's layout says about its knowledge base.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    /// ADR folders, relative to the root, sorted.
    pub adr_dirs: Vec<String>,
    /// Where each ADR folder was found (`.adr-dir`, `.log4brains.yml`, `conventional`).
    pub adr_origins: Vec<(String, &'static str)>,
    /// The Obsidian template folder (`.obsidian/templates.json`), never read.
    pub template_dir: Option<String>,
    /// `.obsidian/` at the root.
    pub vault: bool,
    /// Agent instruction files found at the root (`AGENTS.md`, `CLAUDE.md`, …).
    pub agent_files: Vec<String>,
    /// ADR numbers two files of one folder share (`0009-a.md`, `0009-b.md`): those records
    /// keep their paths as ids, since the number names neither alone.
    pub shared_numbers: std::collections::BTreeSet<(String, u32)>,
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
        for name in [
            "AGENTS.md",
            "CLAUDE.md",
            ".github/copilot-instructions.md",
            ".github/instructions",
            ".cursor/rules",
        ] {
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

    /// Whether `rel` is an ADR: directly in an ADR folder, named `<number>-….md`, and not a
    /// template.
    pub fn is_adr(&self, rel: &str) -> bool {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        self.adr_dirs.iter().any(|d| d == dir)
            && name.len() > 3
            && name.as_bytes()[0].is_ascii_digit()
            && name
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .starts_with('-')
            && name.to_ascii_lowercase().ends_with(".md")
    }

    /// Templates are never read: ADR tools' `template.md` / `adr-template*.md` (and
    /// adr-tools' `templates/`), and the vault's template folder.
    fn is_template(&self, rel: &str) -> bool {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        let in_adr = |d: &str| self.adr_dirs.iter().any(|a| a == d);
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
pub fn id_for(layout: &Layout, rel: &str) -> String {
    match adr_number(layout, rel) {
        Some(key) if !layout.shared_numbers.contains(&key) => format!("ADR-{:04}", key.1),
        _ => rel.to_string(),
    }
}

/// An ADR's folder and number, when it is an ADR whose number has at most four digits.
fn adr_number(layout: &Layout, rel: &str) -> Option<(String, u32)> {
    if !layout.is_adr(rel) {
        return None;
    }
    let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
    let digits: String = name.chars().take_while(char::is_ascii_digit).collect();
    if digits.len() > 4 {
        return None;
    }
    Some((dir.to_string(), digits.parse().unwrap_or(0)))
}

/// The Markdown files of the knowledge base, sorted, with every folder walked (stamped
/// before it was listed). Hidden folders are skipped except the agent-file locations
/// (`.github/copilot-instructions.md`, `.github/instructions/*.instructions.md`,
/// `.cursor/rules/*.mdc`); so are dependencies, build output and templates.
pub fn listing(root: &Root, layout: &Layout) -> Walk {
    let base = root.path().to_path_buf();
    let mut walk = markdown_listing(root, &base, &SKIPPED_DIRS);
    let extra = [
        (".github", Some("copilot-instructions.md"), ".md"),
        (".github/instructions", None, ".instructions.md"),
        (".cursor/rules", None, ".mdc"),
    ];
    for (dir, only, suffix) in extra {
        let dir_path = base.join(dir);
        if !root.is_dir(&dir_path) {
            continue;
        }
        walk.folders.push(folder_stamp(&dir_path));
        let Some(entries) = walk.list(root, &dir_path) else {
            continue;
        };
        for entry in entries {
            let name = entry.name.to_string_lossy();
            let wanted = match only {
                Some(only) => name == only,
                None => name.ends_with(suffix),
            };
            if wanted && !matches!(entry.kind, EntryKind::Dir) {
                walk.files.push(dir_path.join(&entry.name));
            }
        }
    }
    walk.files
        .retain(|path| !layout.is_template(&rel_path(&base, path)));
    walk.files.sort();
    walk
}

/// Turns link targets into node ids: every knowledge-base file by path and by base name
/// (for wikilinks), and the node files of other sources by path.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub layout: Layout,
    /// Knowledge-base files (relative paths) and their ids.
    files: BTreeMap<String, String>,
    /// Lower-cased base name (without `.md`) → paths, in path order.
    by_name: BTreeMap<String, Vec<String>>,
    /// Lower-cased path without `.md` → path, for wikilinks with a folder.
    by_path: BTreeMap<String, String>,
    /// Files of other sources (a Spec Graph node file, an artifact) and their ids.
    others: BTreeMap<String, String>,
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
            if let Some(key) = adr_number(&catalog.layout, rel) {
                if !seen.insert(key.clone()) {
                    catalog.layout.shared_numbers.insert(key);
                }
            }
        }
        for rel in files {
            let id = id_for(&catalog.layout, &rel);
            let stem = rel.rsplit('/').next().unwrap_or(&rel);
            let stem = strip_md(stem).to_lowercase();
            catalog.by_name.entry(stem).or_default().push(rel.clone());
            catalog
                .by_path
                .insert(strip_md(&rel).to_lowercase(), rel.clone());
            catalog.files.insert(rel, id);
        }
        for paths in catalog.by_name.values_mut() {
            paths.sort();
        }
        catalog
    }

    /// Records a node file of another source.
    pub fn add_other(&mut self, rel: String, id: String) {
        self.others.insert(rel, id);
    }

    /// The id of the node a file (relative path) holds, if it is a node.
    pub fn id_of_path(&self, rel: &str) -> Option<&str> {
        self.files
            .get(rel)
            .or_else(|| self.others.get(rel))
            .map(String::as_str)
    }

    /// The file a wikilink names, seen from `from`: by path when it has a folder, else by
    /// base name, case-insensitively; of several, the one sharing most folders with `from`.
    pub fn wikilink(&self, from: &str, target: &str) -> Option<&str> {
        let key = strip_md(target.trim()).to_lowercase();
        if key.contains('/') {
            return self.by_path.get(&key).map(String::as_str);
        }
        let paths = self.by_name.get(&key)?;
        let shared = |p: &str| {
            p.split('/')
                .zip(from.split('/'))
                .take_while(|(a, b)| a == b)
                .count()
        };
        paths
            .iter()
            .max_by(|a, b| shared(a).cmp(&shared(b)).then_with(|| b.cmp(a)))
            .map(String::as_str)
    }

    /// A digest of everything a parse reads from the catalogue: a file's parse is redone
    /// when it changes (a note added can resolve a wikilink elsewhere).
    pub fn fingerprint(&self) -> String {
        let mut text = String::new();
        for dir in &self.layout.adr_dirs {
            text.push_str(dir);
            text.push('\n');
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

fn strip_md(name: &str) -> &str {
    name.strip_suffix(".md")
        .or_else(|| name.strip_suffix(".MD"))
        .unwrap_or(name)
}

/// The relative path of a file under the root, for the catalogue.
pub fn rel(root: &Path, path: &Path) -> String {
    rel_path(root, path)
}
