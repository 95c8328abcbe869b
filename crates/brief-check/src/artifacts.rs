//! Artifact rules: required frontmatter fields, `paths` globs that match nothing, orphan specs,
//! norms without a scope and an oversized identity. (Broken references are found with the
//! other dangling links in `graph`.)

use std::collections::{HashMap, HashSet};

use globset::{Glob, GlobSetBuilder};

use super::annotations::Tree;
#[cfg(test)]
use super::paths::PathSet;
use super::paths::{pattern, Pattern};
use super::{frontmatter_end, Anchor, CheckConfig, Input, Pending, Settings, Sink};
use brief_count::Encoding;
use brief_model::{Kind, Location, Node, Shape};
use brief_project::Project;

/// A top-level frontmatter key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FrontKey {
    pub name: String,
    /// True when the key has no value (`title:` alone, `~`, `null`, `""`).
    pub empty: bool,
}

/// The top-level keys of a file's YAML frontmatter, in order, read line by line (block
/// mappings; a flow mapping `{…}` gives none).
pub(super) fn front_keys(text: &str) -> Vec<FrontKey> {
    let end = frontmatter_end(text);
    if end == 0 {
        return Vec::new();
    }
    let lines: Vec<&str> = text[..end].lines().skip(1).collect();
    let mut keys = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_end();
        if trimmed == "---" || trimmed == "..." {
            break;
        }
        if line.is_empty() || line.starts_with([' ', '\t', '#', '-', '[', '{']) {
            continue;
        }
        let (name, rest) = match line.chars().next() {
            Some(q @ ('"' | '\'')) => match line[1..].find(q) {
                Some(close) => (&line[1..1 + close], &line[close + 2..]),
                None => continue,
            },
            _ => match line.find(':') {
                Some(colon) => (line[..colon].trim_end(), &line[colon..]),
                None => continue,
            },
        };
        let Some(value) = rest.trim_start().strip_prefix(':') else {
            continue;
        };
        if !(value.is_empty() || value.starts_with([' ', '\t'])) {
            continue;
        }
        let value = match value.find(" #") {
            Some(cut) => &value[..cut],
            None => value,
        }
        .trim();
        let continues = lines
            .get(i + 1)
            .is_some_and(|next| next.starts_with([' ', '\t', '-']));
        let empty = matches!(value, "~" | "null" | "Null" | "NULL" | "\"\"" | "''")
            || (value.is_empty() && !continues);
        keys.push(FrontKey {
            name: name.to_string(),
            empty,
        });
    }
    keys
}

/// Missing or empty required fields of one artifact file.
pub(super) fn required_fields(
    path: &str,
    kind: &Kind,
    identity: bool,
    keys: &[FrontKey],
    config: &CheckConfig,
) -> Vec<Pending> {
    let mut required: Vec<&str> = Vec::new();
    if !identity {
        required.extend(["id", "title"]);
        if *kind == Kind::Spec {
            required.push("status");
        }
    }
    let kind_name = if identity { "identity" } else { kind.name() };
    if let Some(extra) = config.required_fields.get(kind_name) {
        required.extend(extra.iter().map(String::as_str));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for field in required {
        if !seen.insert(field) {
            continue;
        }
        let message = match keys.iter().find(|k| k.name == field) {
            None => format!(
                "missing required field `{field}` in the {kind_name}'s frontmatter: add `{field}: …` to it"
            ),
            Some(key) if key.empty => {
                format!("required field `{field}` is empty: give it a value")
            }
            Some(_) => continue,
        };
        let anchor = Anchor::Front {
            key: field.to_string(),
            token: None,
        };
        out.push(Pending::anchored(
            "missing-required-field",
            path,
            anchor,
            message,
        ));
    }
    out
}

/// The identity's size against `identity_max_tokens`.
pub(super) fn identity_size(
    path: &str,
    text: &str,
    node: &Node,
    settings: &Settings,
) -> Option<Pending> {
    // cl100k, or the one encoding of a build without it.
    let tokens = Encoding::default().count(text);
    let limit = settings.identity_max_tokens;
    (tokens > limit).then(|| {
        Pending::at(
            "oversized-identity",
            &Location::file(path),
            format!(
                "the identity is {tokens} tokens, over the {limit}-token limit (identity_max_tokens): it goes into every context, so keep it to the essentials and move detail into specs or decisions"
            ),
        )
        .node(&node.id)
    })
}

/// For each distinct pattern, whether it matches no file or folder of the tree (`Some(why)`).
fn unmatched(patterns: &[&str], tree: &Tree) -> HashMap<String, String> {
    let files: HashSet<&str> = tree.files.iter().map(String::as_str).collect();
    let mut out = HashMap::new();
    let mut globs: Vec<(String, Glob)> = Vec::new();
    for &p in patterns {
        if out.contains_key(p) || globs.iter().any(|(q, _)| q == p) {
            continue;
        }
        match pattern(p) {
            Pattern::Exact(x) => {
                let found = if x.is_empty() {
                    !tree.files.is_empty()
                } else {
                    files.contains(x.as_str()) || tree.dirs.contains(&x)
                };
                if !found {
                    out.insert(p.to_string(), "matches no file".to_string());
                }
            }
            Pattern::Glob(glob) => globs.push((p.to_string(), glob)),
            Pattern::Invalid(why) => {
                out.insert(p.to_string(), format!("is not a valid glob ({why})"));
            }
        }
    }
    if !globs.is_empty() {
        let mut builder = GlobSetBuilder::new();
        for (_, glob) in &globs {
            builder.add(glob.clone());
        }
        let mut hit = vec![false; globs.len()];
        if let Ok(set) = builder.build() {
            let mut matches = Vec::new();
            for candidate in tree.files.iter().chain(tree.dirs.iter()) {
                set.matches_into(candidate, &mut matches);
                for &m in &matches {
                    hit[m] = true;
                }
            }
        }
        for ((p, _), hit) in globs.into_iter().zip(hit) {
            if !hit {
                out.insert(p, "matches no file".to_string());
            }
        }
    }
    out
}

pub(super) fn check(
    _project: &Project,
    input: &Input,
    tree: &Tree,
    _settings: &Settings,
    sink: &mut Sink,
) {
    let graph = &input.graph;
    // Spec-driven nodes are not artifacts with frontmatter: a task's paths name files it will
    // create, and a story is no spec waiting for a task.
    let artifacts: Vec<&Node> = graph
        .nodes()
        .iter()
        .filter(|n| n.origin.shape() == Shape::Documents)
        .filter(|n| !super::specs::is_spec_node(input, n))
        .collect();
    if sink.on("broken-path") {
        let patterns: Vec<&str> = artifacts
            .iter()
            .filter_map(|n| n.artifact())
            .flat_map(|a| a.paths.iter().map(String::as_str))
            .collect();
        let bad = unmatched(&patterns, tree);
        for node in &artifacts {
            let Some(fields) = node.artifact() else {
                continue;
            };
            for p in &fields.paths {
                if let Some(why) = bad.get(p.as_str()) {
                    sink.push(
                        Pending::anchored(
                            "broken-path",
                            &node.location.path,
                            Anchor::Front {
                                key: "paths".into(),
                                token: Some(p.clone()),
                            },
                            format!(
                                "{} lists path `{p}`, which {why}: fix the glob or remove it (paths are relative to the project root)",
                                node.id
                            ),
                        )
                        .node(&node.id),
                    );
                }
            }
        }
    }
    if sink.on("orphan-spec") {
        let annotated: HashSet<&str> = tree
            .annotations
            .iter()
            .filter_map(|a| tree.resolve(input, a))
            .collect();
        for node in artifacts.iter().filter(|n| n.kind == Kind::Spec) {
            let Some(ix) = graph.lookup(&node.id) else {
                continue;
            };
            let from_task = graph
                .incoming(ix)
                .any(|e| graph.node(e.from).kind == Kind::Task);
            if from_task || annotated.contains(node.id.as_str()) {
                continue;
            }
            sink.push(
                Pending::anchored(
                    "orphan-spec",
                    &node.location.path,
                    Anchor::Front {
                        key: "id".into(),
                        token: None,
                    },
                    format!(
                        "spec {} is linked from no task and named by no code annotation: link it from a task (`specs: [{}]`), annotate the code that implements it (`@spec {}`), or retire it",
                        node.id, node.id, node.id
                    ),
                )
                .node(&node.id),
            );
        }
    }
    if sink.on("empty-scope") {
        // A rule file says when it applies in its own way (`applies`), not with `scope`.
        let rule_file = |n: &Node| brief_sources::RuleFile::of(&n.location.path).is_some();
        for node in artifacts
            .iter()
            .filter(|n| n.kind == Kind::Norm && !rule_file(n))
        {
            if node.artifact().is_some_and(|a| a.scope.is_empty()) {
                sink.push(
                    Pending::anchored(
                        "empty-scope",
                        &node.location.path,
                        Anchor::Front {
                            key: "scope".into(),
                            token: None,
                        },
                        format!(
                            "norm {} has no `scope`: add the globs of the files it applies to (e.g. `scope: [\"src/**/*.ts\"]`)",
                            node.id
                        ),
                    )
                    .node(&node.id),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_keys_read_block_mappings() {
        let text = "---\nid: SPEC-1\ntitle:\nstatus: ~\n# comment\ntags:\n  - a\n\"quoted key\": 1\nurl: http://x\nlinks: []\n---\nbody: no\n";
        let keys = front_keys(text);
        let names: Vec<(&str, bool)> = keys.iter().map(|k| (k.name.as_str(), k.empty)).collect();
        assert_eq!(
            names,
            vec![
                ("id", false),
                ("title", true),
                ("status", true),
                ("tags", false),
                ("quoted key", false),
                ("url", false),
                ("links", false)
            ]
        );
        assert!(front_keys("no frontmatter: here\n").is_empty());
    }

    #[test]
    fn required_fields_per_kind() {
        let keys = front_keys("---\nid: SPEC-1\ntitle: T\n---\n");
        let config = CheckConfig::default();
        let found = required_fields("s.md", &Kind::Spec, false, &keys, &config);
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("`status`"));
        assert!(required_fields("t.md", &Kind::Task, false, &keys, &config).is_empty());
        assert!(required_fields("i.md", &Kind::Identity, true, &[], &config).is_empty());
        let mut config = CheckConfig::default();
        config
            .required_fields
            .insert("task".into(), vec!["kind".into()]);
        assert_eq!(
            required_fields("t.md", &Kind::Task, false, &keys, &config).len(),
            1
        );
    }

    #[test]
    fn path_sets_cover_folders_files_and_globs() {
        let set = PathSet::new(&[
            "src/web/sync/**".to_string(),
            "./src/server/".to_string(),
            "src/*.py".to_string(),
            "lib/*".to_string(),
        ]);
        assert!(set.contains("src/web/sync/outbox.ts"));
        assert!(set.contains("src/server/auth/session.rs"));
        assert!(set.contains("src/index.py"));
        assert!(!set.contains("src/search/indexer.py"));
        assert!(!set.contains("src/web/store/db.ts"));
        assert!(
            set.contains("lib/x/y.rs"),
            "a glob naming a folder covers its files"
        );
    }

    #[test]
    fn unmatched_patterns() {
        let tree = Tree {
            files: vec!["src/a/b.rs".into(), "README.md".into()],
            dirs: ["src".to_string(), "src/a".to_string()]
                .into_iter()
                .collect(),
            annotations: Vec::new(),
        };
        let bad = unmatched(
            &[
                "src/a/**",
                "src/**/*.rs",
                "src/*.rs",
                "docs/",
                "README.md",
                "src/[",
                "src/a",
            ],
            &tree,
        );
        let mut keys: Vec<&str> = bad.keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, vec!["docs/", "src/*.rs", "src/["]);
    }
}
