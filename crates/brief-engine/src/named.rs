//! Rules covering part of the tree that a target in words names by the folder they govern
//! (`docs/traversal.md`, "Targets in words"): a nested agent file, or a rule with globs, is
//! a hard constraint of the task when a content word of the task names its folder
//! (`providers/` for "add a new model provider"). Names are compared as the index stems
//! words, so `providers` and "provider" are one name, and a word names `native_tools` when it
//! is half of it.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::resolve::{words, Role};
use crate::traverse::{applying, NamedRule};
use brief_index::Index;
use brief_model::{Applies, GraphView, NodeIx, StoreError};

/// Most rules a target in words brings in by the name of their folder: a broad task that
/// names many folders brings the best named of them, not every nested rule. (Chosen on the
/// evaluation of tasks in words: 2 held 3 points fewer must-see documents of the repository
/// with nested agent files at 2,000 to 8,000 tokens; 4 held no more.)
pub(crate) const NAMED_MAX: usize = 3;

/// A rule covering part of the tree and the folder it governs.
#[derive(Debug, Clone, PartialEq)]
struct Governed {
    node: NodeIx,
    id: String,
    /// The folder, relative to the root (`src/billing`).
    folder: String,
    /// The stems of the folder's own name (`billing`).
    name: Vec<String>,
    /// Its words' score as a share of the best hit's (0 when it is no hit).
    share: f64,
}

/// A content word of the task and its stems.
#[derive(Debug, Clone, PartialEq)]
struct Namer {
    word: String,
    stems: Vec<String>,
}

/// The rules covering part of the tree whose folder the task names (at most [`NAMED_MAX`],
/// best named first): not among `taken` (the seeds and the rules its words found), current,
/// and not already applying to a start by their globs. `relevance` holds each hit's share of
/// the best; `query` is the task as written.
pub(crate) fn named_rules(
    index: &Index,
    query: &str,
    seeds: &[NodeIx],
    taken: &BTreeSet<NodeIx>,
    relevance: &HashMap<NodeIx, f64>,
) -> Result<Vec<NamedRule>, StoreError> {
    let folders = governed_folders(index, seeds, taken)?;
    if folders.is_empty() {
        return Ok(Vec::new());
    }
    let task: Vec<String> = words(query)
        .into_iter()
        .filter(|w| w.role == Role::Content)
        .map(|w| w.text)
        .collect();
    // The task's words and the folders' names go through the index's tokenizer at once.
    let mut asked: Vec<String> = task.clone();
    asked.extend(
        folders
            .iter()
            .map(|(_, _, folder)| last(folder).to_string()),
    );
    asked.sort();
    asked.dedup();
    // Only the stems: counting each word's holders (what `terms` does) walks its list.
    let tokens = index.tokens(&asked)?;
    let stems: BTreeMap<&str, &[String]> = asked
        .iter()
        .zip(&tokens)
        .map(|(word, stems)| (word.as_str(), stems.as_slice()))
        .collect();
    let stems_of = |word: &str| stems.get(word).map_or_else(Vec::new, |s| s.to_vec());
    let namers: Vec<Namer> = task
        .iter()
        .map(|word| Namer {
            word: word.clone(),
            stems: stems_of(word),
        })
        .collect();
    let governed: Vec<Governed> = folders
        .into_iter()
        .map(|(node, id, folder)| Governed {
            node,
            id,
            name: stems_of(last(&folder)),
            share: relevance.get(&node).copied().unwrap_or(0.0),
            folder,
        })
        .collect();
    Ok(pick(governed, &namers, NAMED_MAX))
}

/// The current rules with globs that may be named, with their ids and folders: not taken,
/// and not reaching a start's files by their globs (those apply already).
fn governed_folders(
    graph: &dyn GraphView,
    seeds: &[NodeIx],
    taken: &BTreeSet<NodeIx>,
) -> Result<Vec<(NodeIx, String, String)>, StoreError> {
    let mut out = Vec::new();
    for (node, applies) in graph.scoped()? {
        let Applies::Files(globs) = applies else {
            continue;
        };
        if taken.contains(&node) {
            continue;
        }
        let Some(folder) = globs.iter().find_map(|g| brief_sources::glob_folder(g)) else {
            continue;
        };
        if graph.lifecycle_of(node)?.is_current() {
            out.push((node, graph.id_of(node)?, folder));
        }
    }
    if out.is_empty() {
        return Ok(out);
    }
    let mut applied = BTreeSet::new();
    for &seed in seeds {
        applied.extend(applying(graph, seed)?.into_iter().map(|(node, _)| node));
    }
    out.retain(|(node, _, _)| !applied.contains(node));
    Ok(out)
}

/// The named rules, best first, at most `max`: a rule is named by the first of the task's
/// words (in order) that holds at least half of its folder name's stems; the rules whose
/// names are held more fully come first, then the better matches of their own words, then
/// by id.
fn pick(rules: Vec<Governed>, namers: &[Namer], max: usize) -> Vec<NamedRule> {
    let mut named: Vec<(f64, Governed, &Namer)> = rules
        .into_iter()
        .filter_map(|rule| {
            let (held, namer) = namers
                .iter()
                .map(|namer| (held(&rule.name, &namer.stems), namer))
                .fold(
                    None,
                    |best: Option<(f64, &Namer)>, (held, namer)| match best {
                        Some((b, _)) if b >= held => best,
                        _ => Some((held, namer)),
                    },
                )?;
            (held >= 0.5).then_some((held, rule, namer))
        })
        .collect();
    named.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(b.1.share.total_cmp(&a.1.share))
            .then_with(|| a.1.id.cmp(&b.1.id))
    });
    named
        .into_iter()
        .take(max)
        .map(|(_, rule, namer)| NamedRule {
            node: rule.node,
            folder: rule.folder,
            word: namer.word.clone(),
        })
        .collect()
}

/// The share of `name`'s stems that `stems` holds (0 for an empty name).
fn held(name: &[String], stems: &[String]) -> f64 {
    if name.is_empty() {
        return 0.0;
    }
    let stems: BTreeSet<&String> = stems.iter().collect();
    let held = name.iter().filter(|s| stems.contains(s)).count();
    ((held as f64 / name.len() as f64) * 10_000.0).round() / 10_000.0
}

/// A folder's own name: its last component.
fn last(folder: &str) -> &str {
    folder.rsplit('/').next().unwrap_or(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(node: NodeIx, folder: &str, name: &[&str], share: f64) -> Governed {
        Governed {
            node,
            id: format!("{folder}/AGENTS.md"),
            folder: folder.into(),
            name: name.iter().map(|s| s.to_string()).collect(),
            share,
        }
    }

    fn word(text: &str, stems: &[&str]) -> Namer {
        Namer {
            word: text.into(),
            stems: stems.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn a_folders_name_is_its_last_component() {
        assert_eq!(last("pkg/durable_exec"), "durable_exec");
        assert_eq!(last("web"), "web");
    }

    #[test]
    fn a_folder_is_named_by_half_its_stems_and_the_best_named_come_first() {
        let rules = vec![
            rule(1, "pkg/providers", &["provid"], 0.1),
            rule(2, "pkg/native_tools", &["nativ", "tool"], 0.4),
            rule(3, "pkg/storage", &["storag"], 0.9),
            rule(4, "pkg/models", &["model"], 0.2),
            rule(5, "pkg/durable_exec", &["durabl", "exec"], 0.0),
        ];
        let namers = vec![
            word("model", &["model"]),
            word("provider's", &["provid", "s"]),
            word("tool", &["tool"]),
            word("temporal", &["tempor"]),
        ];
        let named = pick(rules.clone(), &namers, 3);
        let folders: Vec<(&str, &str)> = named
            .iter()
            .map(|n| (n.folder.as_str(), n.word.as_str()))
            .collect();
        // Wholly named first (the better word match first), then half named; storage and
        // durable_exec are not named at all, however well their words match.
        assert_eq!(
            folders,
            [
                ("pkg/models", "model"),
                ("pkg/providers", "provider's"),
                ("pkg/native_tools", "tool")
            ]
        );
        // The cap keeps the best named.
        assert_eq!(pick(rules, &namers, 1).len(), 1);
    }
}
