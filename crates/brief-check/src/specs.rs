//! Rules on the spec-driven sources and rules with globs: references from Spec Kit and Kiro
//! files that name nothing (a story, a requirement, a `_Requirements:` number, a task, a
//! constitution principle), task ids written twice in one file, and rule globs that match no
//! file of the project. Each finding points at the reference as written (`path:line:col`).
//!
//! The loaders keep such references as dangling links (a context then names them too); this
//! module says which kind each one is and where it was written.

use std::collections::{BTreeSet, HashMap};

use brief_model::{Applies, Location, Node};
use brief_project::Project;
use brief_sources::line_col;
use brief_sources::{
    invalid_glob, kiro_task_ids, read_text, scoped_glob, speckit_task_ids, RuleFile,
};

use super::annotations::Tree;
use super::{Input, Pending, Sink};

/// What a dangling link of a spec-driven file names, by the shape of its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Missing {
    Story,
    Requirement,
    KiroRequirement,
    Task,
    Principle,
}

impl Missing {
    fn rule(self) -> &'static str {
        match self {
            Missing::Story => "spec-unknown-story",
            Missing::Requirement => "spec-unknown-requirement",
            Missing::KiroRequirement => "kiro-unknown-requirement",
            Missing::Task => "spec-unknown-task",
            Missing::Principle => "unknown-principle",
        }
    }
}

/// The kind of a missing target and the token to look for in the file (`US9`, `FR-099`,
/// `9.9`, `T077`, `VII`).
fn classify(target: &str, kiro_file: bool) -> Option<(Missing, String)> {
    if let Some(numeral) = target.strip_prefix("constitution/") {
        return Some((Missing::Principle, numeral.to_string()));
    }
    let (_, local) = target.rsplit_once('/')?;
    if kiro_file {
        let number = local.strip_prefix('R')?;
        return number
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.')
            .then(|| (Missing::KiroRequirement, number.to_string()));
    }
    if local.starts_with("US") {
        return Some((Missing::Story, local.to_string()));
    }
    if local.starts_with('T') && local[1..].starts_with(|c: char| c.is_ascii_digit()) {
        return Some((Missing::Task, local.to_string()));
    }
    local
        .contains('-')
        .then(|| (Missing::Requirement, local.to_string()))
}

/// Runs the spec rules.
pub(super) fn check(project: &Project, input: &Input, tree: &Tree, sink: &mut Sink) {
    let mut texts = Texts::new(project);
    dangling(input, &mut texts, sink);
    if sink.on("duplicate-task-id") {
        duplicate_tasks(input, &mut texts, sink);
    }
    if sink.on("rule-glob-no-match") {
        rule_globs(input, tree, &mut texts, sink);
    }
}

/// The text of the project's files, read once each.
struct Texts<'p> {
    project: &'p Project,
    read: HashMap<String, Option<String>>,
}

impl<'p> Texts<'p> {
    fn new(project: &'p Project) -> Texts<'p> {
        Texts {
            project,
            read: HashMap::new(),
        }
    }

    fn get(&mut self, rel: &str) -> Option<&str> {
        let project = self.project;
        self.read
            .entry(rel.to_string())
            .or_insert_with(|| read_text(&project.guard, &project.guard.path().join(rel)).ok())
            .as_deref()
    }

    /// Where `token` is first written (as a whole word) on or after `from`'s line; `from`
    /// itself when it is not found.
    fn locate(&mut self, from: &Location, token: &str) -> Location {
        let Some(text) = self.get(&from.path) else {
            return from.clone();
        };
        let start: usize = text
            .split_inclusive('\n')
            .take(from.line.saturating_sub(1) as usize)
            .map(str::len)
            .sum();
        let found = word_at(&text[start.min(text.len())..], token).map(|at| start + at);
        match found {
            Some(offset) => {
                let (line, col) = line_col(text, offset);
                Location {
                    path: from.path.clone(),
                    line,
                    col,
                }
            }
            None => from.clone(),
        }
    }
}

/// The offset of the first whole-word `token` in `text`.
fn word_at(text: &str, token: &str) -> Option<usize> {
    let word = |c: char| c.is_ascii_alphanumeric();
    let mut from = 0;
    while let Some(at) = text[from..].find(token) {
        let start = from + at;
        let end = start + token.len();
        let before = text[..start].chars().next_back().is_none_or(|c| !word(c));
        let after = text[end..].chars().next().is_none_or(|c| {
            !(word(c) || (c == '.' && text[end + 1..].starts_with(|d: char| d.is_ascii_digit())))
        });
        if before && after {
            return Some(start);
        }
        from = end;
    }
    None
}

/// Dangling links of spec-driven nodes, each reported as what it names.
fn dangling(input: &Input, texts: &mut Texts, sink: &mut Sink) {
    let graph = &input.graph;
    let mut seen = BTreeSet::new();
    // A Kiro criterion that is missing implies its requirement link dangles too: one finding.
    let targets: BTreeSet<(u32, &str)> = graph
        .dangling()
        .iter()
        .map(|d| (d.from, d.target.as_str()))
        .collect();
    let implied = |from: u32, target: &str| {
        targets
            .range((from, target)..)
            .take_while(|(f, t)| *f == from && t.starts_with(target))
            .any(|(_, t)| t[target.len()..].starts_with('.'))
    };
    for d in graph.dangling() {
        if implied(d.from, &d.target) {
            continue;
        }
        let node = graph.node(d.from);
        let Some(source) = input.spec_files.get(&node.location.path) else {
            continue;
        };
        let Some((missing, token)) = classify(&d.target, *source == SpecFile::Kiro) else {
            continue;
        };
        if !sink.on(missing.rule()) || !seen.insert((node.id.clone(), d.target.clone())) {
            continue;
        }
        let written = match missing {
            Missing::Principle => format!("Principle {token}"),
            _ => token.clone(),
        };
        let at = texts.locate(&node.location, &token);
        let message = match missing {
            Missing::Story => format!(
                "{} names story {written}, which its feature does not have: fix the marker or add the story to spec.md",
                node.id
            ),
            Missing::Requirement => format!(
                "{} names {written}, which its feature's spec.md does not define: fix the id or add the requirement",
                node.id
            ),
            Missing::KiroRequirement => format!(
                "{} lists requirement {written}, which is no requirement or acceptance criterion of requirements.md: fix the number",
                node.id
            ),
            Missing::Task => format!(
                "{} names task {written}, which is not in its feature's tasks.md: fix the id",
                node.id
            ),
            Missing::Principle => format!(
                "{} cites {written}, which the constitution does not have: fix the numeral or amend the constitution",
                node.id
            ),
        };
        sink.push(Pending::at(missing.rule(), &at, message).node(&node.id));
    }
}

/// Task ids written twice in one tasks.md (the second is not read).
fn duplicate_tasks(input: &Input, texts: &mut Texts, sink: &mut Sink) {
    let tasks_files: Vec<(&String, &SpecFile)> = input
        .spec_files
        .iter()
        .filter(|(path, _)| path.ends_with("/tasks.md"))
        .collect();
    for (path, source) in tasks_files {
        let Some(text) = texts.get(path) else {
            continue;
        };
        let ids = match source {
            SpecFile::SpecKit => speckit_task_ids(text),
            SpecFile::Kiro => kiro_task_ids(text),
        };
        let mut first: HashMap<&str, u32> = HashMap::new();
        for task in &ids {
            match first.get(task.id.as_str()) {
                Some(line) => sink.push(Pending::at(
                    "duplicate-task-id",
                    &Location {
                        path: path.to_string(),
                        line: task.line,
                        col: task.col,
                    },
                    format!(
                        "task {} is written twice in this file (first at line {line}); the second is not read: renumber it",
                        task.id
                    ),
                )),
                None => {
                    first.insert(&task.id, task.line);
                }
            }
        }
    }
}

/// Globs of rule files (Cursor `globs`, Copilot `applyTo`, Claude Code `paths`, Kiro
/// `fileMatchPattern`) that match no file of the project, or do not compile.
fn rule_globs(input: &Input, tree: &Tree, texts: &mut Texts, sink: &mut Sink) {
    for node in input.graph.nodes() {
        let Some(rule) = RuleFile::of(&node.location.path) else {
            continue;
        };
        let Applies::Files(scoped) = node.applies() else {
            continue;
        };
        let written = node.artifact().map(|a| a.scope.clone()).unwrap_or_default();
        for pattern in &written {
            let full = scoped_glob(rule.base(), pattern);
            if !scoped.contains(&full) {
                continue;
            }
            let why = match invalid_glob(&full) {
                Some(why) => format!("is not a valid glob ({why})"),
                None if !matches_any(&full, tree) => "matches no file of the project".to_string(),
                None => continue,
            };
            let at = texts.locate(&Location::file(node.location.path.clone()), pattern);
            sink.push(
                Pending::at(
                    "rule-glob-no-match",
                    &at,
                    format!(
                        "{}: glob `{pattern}` {why}, so the rule never applies: fix the glob or remove the rule",
                        node.id
                    ),
                )
                .node(&node.id),
            );
        }
    }
}

/// Whether a rule's glob reaches any file of the walked tree, by the engine's own rule
/// ([`Applies::reaches`]).
fn matches_any(glob: &str, tree: &Tree) -> bool {
    Applies::Files(vec![glob.to_string()])
        .reaches(&tree.files)
        .is_some()
}

/// Which spec-driven source read a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpecFile {
    SpecKit,
    Kiro,
}

/// Whether a node came from a spec-driven source's file.
pub(crate) fn is_spec_node(input: &Input, node: &Node) -> bool {
    input.spec_files.contains_key(&node.location.path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dangling_targets_by_shape() {
        assert_eq!(
            classify("003-payments/US9", false),
            Some((Missing::Story, "US9".into()))
        );
        assert_eq!(
            classify("003-payments/FR-099", false),
            Some((Missing::Requirement, "FR-099".into()))
        );
        assert_eq!(
            classify("003-payments/T077", false),
            Some((Missing::Task, "T077".into()))
        );
        assert_eq!(
            classify("constitution/VII", false),
            Some((Missing::Principle, "VII".into()))
        );
        assert_eq!(
            classify("user-auth/R9.9", true),
            Some((Missing::KiroRequirement, "9.9".into()))
        );
        assert_eq!(classify("003-payments/plan", false), None);
    }

    #[test]
    fn whole_words_only() {
        assert_eq!(word_at("US10 and US1.", "US1"), Some(9));
        assert_eq!(word_at("1.12, 9.9_", "9.9"), Some(6));
        assert_eq!(word_at("9.91", "9.9"), None);
        assert_eq!(word_at("Principle VII", "VII"), Some(10));
    }
}
