//! Files as targets: what governs a root-relative path, existing or not.
//!
//! A target that is no id and reads as a path (`src/billing/invoice.ts`) starts its context
//! from every node that governs the file, in this order: the nodes its code annotations name
//! (`@spec 003-payments/FR-003`), the tasks and specs whose `paths` name or cover it (a
//! task's file mentions, a spec's globs, a folder), the rules whose globs match it (Cursor,
//! Copilot, Claude Code, Kiro `fileMatch`, a nested `AGENTS.md`'s folder), then the rules that
//! apply everywhere (a root `AGENTS.md`, `alwaysApply`, `inclusion: always`) — current rules
//! only, matched as rule 1b matches them ([`Applies::reaches`]); each group by id, but the
//! rules whose globs match by the depth of the folder the matching glob is rooted in, deepest
//! first (a file's own folder's agent file before those above it). A folder as the target is
//! governed as a file placed in it would be, whatever its name. The usual traversal runs from
//! those. When nothing governs a file, the target is read as before (an id, or words); a
//! folder starts from its own index page first (`Engine::file_start`), and one with neither
//! index page nor anything governing it is an error that says what it holds.

use std::cmp::Reverse;

use brief_model::{Applies, Corpus, Kind, NodeIx, StoreError};
use brief_root::{EntryKind, Root};
use brief_sources::{glob_folder, glob_names_its_last_folder, FileMatcher};

/// Why a node governs a file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Governs {
    /// An annotation in the file names it (`@spec`, `@decision`, `@norm`, `@test`).
    Annotated,
    /// Its `paths` name the file or cover it (a task's mention, a spec's glob, a folder).
    Names,
    /// Its globs match the file (a rule with globs, a nested agent file's folder).
    Glob,
    /// It applies everywhere (a root agent file, `alwaysApply`, `inclusion: always`).
    Always,
}

/// The kinds whose nodes name files (`paths`): tasks and specs.
const CANDIDATE_KINDS: [Kind; 2] = [Kind::Task, Kind::Spec];

/// Annotation keywords read in a file.
const ANNOTATIONS: [&str; 4] = ["@spec", "@decision", "@norm", "@test"];

/// What a path target names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    /// A file, existing or not.
    File,
    /// A folder of the project (`""` the root).
    Folder,
}

/// A path a target names: root-relative, and what is there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathTarget {
    /// Root-relative, `/`-separated (`""` the root).
    pub(crate) rel: String,
    /// A file or a folder.
    pub(crate) entry: Entry,
}

/// The root-relative path a target names, when it reads as one: no whitespace, beneath the
/// root, and either present in the project or shaped like a file (a folder and a name with an
/// extension). `None` for anything else, which stays an id or words.
pub(crate) fn path_target(root: &Root, target: &str) -> Option<PathTarget> {
    let target = target.trim();
    if target.is_empty() || target.contains(char::is_whitespace) || target.contains("://") {
        return None;
    }
    let rel = normalize(target)?;
    let kind = root.kind(&root.path().join(&rel));
    // A bare word naming a folder (`billing`) is a topic; a folder is named as a path
    // (`billing/`, `src/billing`, `.`).
    if !target.contains('/') && !rel.is_empty() && matches!(kind, Ok(EntryKind::Dir)) {
        return None;
    }
    let entry = match kind {
        Ok(EntryKind::Dir) => Entry::Folder,
        _ => Entry::File,
    };
    let exists = kind.is_ok();
    let name = rel.rsplit('/').next().unwrap_or(&rel);
    let file_shaped = rel.contains('/')
        && name.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty() && !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric())
        });
    (exists || file_shaped).then_some(PathTarget { rel, entry })
}

/// `./a/b/../c` → `a/c`, `.` → `` (the root); `None` for a path that leaves the root or is
/// absolute.
fn normalize(target: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    if target.starts_with('/') {
        return None;
    }
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

/// The root-relative path of `name` in `folder` (`""`: the root).
pub(crate) fn child(folder: &str, name: &str) -> String {
    if folder.is_empty() {
        name.to_string()
    } else {
        format!("{folder}/{name}")
    }
}

/// The nodes that govern `path` (a file, or a folder as any file in it), in the order of
/// [`Governs`], each group by id, the rules matching by globs deepest scope first.
pub(crate) fn governing(
    corpus: &dyn Corpus,
    root: &Root,
    path: &str,
    entry: Entry,
) -> Result<Vec<(NodeIx, Governs)>, StoreError> {
    // Each group by id, but a rule by its scope first: the deepest folder its matching glob
    // is rooted in (the agent file of the file's own folder before those above it).
    let mut found: Vec<(Governs, Reverse<usize>, String, NodeIx)> = Vec::new();
    for id in annotated_ids(root, path) {
        if let Some(ix) = corpus.lookup(&id)? {
            found.push((Governs::Annotated, Reverse(0), id, ix));
        }
    }
    let reach = Reach::new(path, entry);
    // Rules: the scoped nodes the index keeps (no node loaded), current ones only.
    for (ix, applies) in corpus.scoped()? {
        let Some((why, depth)) = reach.rule(&applies) else {
            continue;
        };
        if corpus.lifecycle_of(ix)?.is_current() {
            found.push((why, Reverse(depth), corpus.id_of(ix)?, ix));
        }
    }
    // Tasks and specs whose `paths` name or cover the file.
    let mut candidates: Vec<NodeIx> = Vec::new();
    for kind in &CANDIDATE_KINDS {
        match corpus.nodes_of_kind(kind)? {
            Some(nodes) => candidates.extend(nodes),
            None => {
                for id in corpus.all_ids()? {
                    if let Some(ix) = corpus.lookup(&id)? {
                        if corpus.kind_of(ix)? == *kind {
                            candidates.push(ix);
                        }
                    }
                }
            }
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
    let store = corpus.store(&candidates)?;
    for ix in candidates {
        let node = store.node(ix);
        let named = node
            .artifact()
            .is_some_and(|a| !a.paths.is_empty() && reach.named_by(&FileMatcher::new(&a.paths)));
        if named {
            found.push((Governs::Names, Reverse(0), node.id.clone(), ix));
        }
    }
    found.sort();
    let mut seen = std::collections::HashSet::new();
    Ok(found
        .into_iter()
        .filter(|(_, _, _, ix)| seen.insert(*ix))
        .map(|(why, _, _, ix)| (ix, why))
        .collect())
}

/// A file name no glob names by its letters: a glob that matches it in a folder matches
/// every file placed there (`src/providers/**` does, `src/providers/*.py` and
/// `src/providers/?` do not).
const ANY_NAME: &str =
    "\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}";

/// A path as globs and `paths` reach it: a file by its own path; a folder by any file
/// placed in it ([`ANY_NAME`]), and by a glob whose last component names the folder letter
/// by letter (`**/migrations`, not `src/*`).
struct Reach {
    path: String,
    /// For a folder: a file in it.
    inside: Option<String>,
}

impl Reach {
    fn new(path: &str, entry: Entry) -> Reach {
        Reach {
            path: path.to_string(),
            inside: (entry == Entry::Folder).then(|| child(path, ANY_NAME)),
        }
    }

    /// How a rule reaches the path, and the depth of the deepest folder a glob of it that
    /// reaches the path is rooted in; `None` when it does not.
    fn rule(&self, applies: &Applies) -> Option<(Governs, usize)> {
        match applies {
            Applies::Always => Some((Governs::Always, 0)),
            Applies::Files(globs) => globs
                .iter()
                .filter(|glob| self.reached_by(glob))
                .map(|glob| folder_depth(glob))
                .max()
                .map(|depth| (Governs::Glob, depth)),
            Applies::Linked => None,
        }
    }

    fn reached_by(&self, glob: &str) -> bool {
        let one = Applies::Files(vec![glob.to_string()]);
        let reaches = |file: &str| one.reaches(&[file.to_string()]).is_some();
        match &self.inside {
            None => reaches(&self.path),
            Some(inside) => {
                let names_it = glob_names_its_last_folder(glob);
                reaches(inside) || (names_it && !self.path.is_empty() && reaches(&self.path))
            }
        }
    }

    /// Whether a task's or spec's `paths` name or cover the path.
    fn named_by(&self, paths: &FileMatcher) -> bool {
        paths.is_match(self.inside.as_deref().unwrap_or(&self.path))
    }
}

/// How many folders deep the folder a glob is rooted in lies (`src/api/**/*.ts` → 2); 0 for
/// a glob rooted nowhere (`**/*.sql`).
fn folder_depth(glob: &str) -> usize {
    glob_folder(glob).map_or(0, |folder| folder.split('/').count())
}

/// What governs any of `paths` (the files `--changed` lists): each file's governing nodes
/// in turn, every node once, at the first (best) place it is met.
pub(crate) fn governing_all(
    corpus: &dyn Corpus,
    root: &Root,
    paths: &[String],
) -> Result<Vec<(NodeIx, Governs)>, StoreError> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for path in paths {
        for (ix, why) in governing(corpus, root, path, Entry::File)? {
            if seen.insert(ix) {
                out.push((ix, why));
            }
        }
    }
    Ok(out)
}

/// The ids the file's annotations name (`@spec ID`), in file order; none when the file does
/// not exist or cannot be read as text.
fn annotated_ids(root: &Root, path: &str) -> Vec<String> {
    let Ok(text) = brief_sources::read_text(root, &root.path().join(path)) else {
        return Vec::new();
    };
    let mut ids = Vec::new();
    for line in text.lines() {
        for keyword in ANNOTATIONS {
            let mut rest = line;
            while let Some(at) = rest.find(keyword) {
                let after = &rest[at + keyword.len()..];
                let id: String = after
                    .trim_start_matches([' ', ':'])
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '#'))
                    .collect();
                let id = id.trim_end_matches(['.', '/']).to_string();
                if !id.is_empty() && !ids.contains(&id) {
                    ids.push(id);
                }
                rest = after;
            }
        }
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;
    use brief_model::{ArtifactFields, Content, Graph, Location, Node, Origin};

    fn node(id: &str, kind: Kind, paths: &[&str], applies: Applies) -> Node {
        Node {
            id: id.into(),
            kind,
            title: id.into(),
            status: None,
            origin: Origin::Markdown,
            content: Content::Artifact(ArtifactFields {
                paths: paths.iter().map(|p| p.to_string()).collect(),
                applies,
                ..ArtifactFields::default()
            }),
            links: Vec::new(),
            date: None,
            location: Location::file(id),
        }
    }

    #[test]
    fn paths_are_told_from_ids_and_words() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/api")).unwrap();
        std::fs::write(dir.path().join("Makefile"), "all:\n").unwrap();
        let root = Root::open(dir.path()).unwrap();
        let rel = |target: &str| path_target(&root, target).map(|t| t.rel);
        assert_eq!(rel("src/api/new.ts").as_deref(), Some("src/api/new.ts"));
        assert_eq!(
            path_target(&root, "./src/api/"),
            Some(PathTarget {
                rel: "src/api".into(),
                entry: Entry::Folder
            })
        );
        assert_eq!(rel("src"), None, "a bare word naming a folder stays words");
        assert_eq!(
            path_target(&root, "Makefile"),
            Some(PathTarget {
                rel: "Makefile".into(),
                entry: Entry::File
            })
        );
        assert_eq!(rel("003-payments/T014"), None, "an id shape, not a file");
        assert_eq!(rel("retry budget"), None);
        assert_eq!(rel("../outside/a.ts"), None);
        assert_eq!(rel(".").as_deref(), Some(""), "the root");
        assert_eq!(rel("src/..").as_deref(), Some(""));
        assert_eq!(rel("/etc/passwd"), None);
        assert_eq!(rel("https://x.io/a.ts"), None);
    }

    #[test]
    fn what_governs_a_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/api")).unwrap();
        std::fs::write(
            dir.path().join("src/api/pay.ts"),
            "// @spec SPEC-PAY\n// @decision: DEC-1.\n",
        )
        .unwrap();
        let root = Root::open(dir.path()).unwrap();
        let files = |g: &[&str]| Applies::Files(g.iter().map(|s| s.to_string()).collect());
        let (graph, _) = Graph::build(vec![
            node("SPEC-PAY", Kind::Spec, &[], Applies::Linked),
            node("DEC-1", Kind::Decision, &[], Applies::Linked),
            node("T2", Kind::Task, &["src/api/pay.ts"], Applies::Linked),
            node("T1", Kind::Task, &["src/api/"], Applies::Linked),
            node("T3", Kind::Task, &["src/web/app.ts"], Applies::Linked),
            node("R-API", Kind::Norm, &[], files(&["src/api/**"])),
            node("R-WEB", Kind::Norm, &[], files(&["src/web/**"])),
            node("AGENTS.md", Kind::Norm, &[], Applies::Always),
            node("R-LINKED", Kind::Norm, &[], Applies::Linked),
        ]);
        let found: Vec<(String, Governs)> = governing(&graph, &root, "src/api/pay.ts", Entry::File)
            .unwrap()
            .into_iter()
            .map(|(ix, why)| (graph.node(ix).id.clone(), why))
            .collect();
        assert_eq!(
            found,
            [
                ("DEC-1".to_string(), Governs::Annotated),
                ("SPEC-PAY".to_string(), Governs::Annotated),
                ("T1".to_string(), Governs::Names),
                ("T2".to_string(), Governs::Names),
                ("R-API".to_string(), Governs::Glob),
                ("AGENTS.md".to_string(), Governs::Always),
            ]
        );
        // A file that does not exist yet is governed by globs and mentions alike.
        let new: Vec<String> = governing(&graph, &root, "src/web/app.ts", Entry::File)
            .unwrap()
            .into_iter()
            .map(|(ix, _)| graph.node(ix).id.clone())
            .collect();
        assert_eq!(new, ["T3", "R-WEB", "AGENTS.md"]);
        // Two files at once: the union, each node once, in the order first met.
        let both: Vec<String> = governing_all(
            &graph,
            &root,
            &["src/web/app.ts".into(), "src/api/pay.ts".into()],
        )
        .unwrap()
        .into_iter()
        .map(|(ix, _)| graph.node(ix).id.clone())
        .collect();
        assert_eq!(
            both,
            [
                "T3",
                "R-WEB",
                "AGENTS.md",
                "DEC-1",
                "SPEC-PAY",
                "T1",
                "T2",
                "R-API"
            ]
        );
    }

    #[cfg(feature = "git")]
    #[test]
    fn the_files_changed_against_a_revision() {
        use std::process::Command;
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            let out = Command::new("git")
                .args(args)
                .current_dir(dir.path())
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@example.com")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@example.com")
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("HOME", dir.path())
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let project = dir.path().join("app");
        std::fs::create_dir_all(project.join("src")).unwrap();
        for name in ["a.ts", "b.ts", "c.ts"] {
            std::fs::write(project.join("src").join(name), name).unwrap();
        }
        std::fs::write(dir.path().join("outside.txt"), "x").unwrap();
        git(&["init", "-q"]);
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "one"]);
        std::fs::write(project.join("src/a.ts"), "edited").unwrap();
        std::fs::remove_file(project.join("src/c.ts")).unwrap();
        std::fs::write(project.join("src/new.ts"), "untracked").unwrap();
        std::fs::write(dir.path().join("outside.txt"), "edited").unwrap();
        let changed = crate::revision::changed(&project, "HEAD").unwrap();
        assert_eq!(changed, ["src/a.ts", "src/c.ts"]);
        assert!(crate::revision::changed(&project, "no-such-rev").is_err());
    }
}
