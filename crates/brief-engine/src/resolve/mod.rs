//! Resolving what the user typed to a start node: an exact id, an id in another case, or an
//! error that names the closest ids; and telling an id from words (`has_id_shape`).

mod words;

pub use words::Confidence;
pub use words::Weakness;
pub(crate) use words::{
    is_aggregate, judge_in, may_be_translation, significant, standing, translations, Counted,
    Evidence, Languages, Script,
};
pub(crate) use words::{words, Role, Scored, Verdict};

use std::collections::BTreeSet;

use brief_model::{GraphView, NodeIx, StoreError};

/// Most suggestions offered for an unknown target.
const SUGGESTIONS: usize = 3;

/// The target is not a node id (and, when it was searched for, matched no text either).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", describe(self))]
pub struct UnknownTarget {
    /// The target as the user gave it.
    pub target: String,
    /// The closest ids, best first.
    pub suggestions: Vec<String>,
    /// The best search hits for the target as words, best first.
    pub hits: Vec<String>,
    /// Whether the target was searched for as words (it was not taken for an id).
    pub searched: bool,
    /// When it was searched for: why no node matched well enough (`None`: nothing at all).
    pub weakness: Option<Weakness>,
}

impl UnknownTarget {
    /// An id that is not there, with the closest ids.
    pub(crate) fn id(target: &str, suggestions: Vec<String>) -> UnknownTarget {
        UnknownTarget {
            target: target.to_string(),
            suggestions,
            hits: Vec::new(),
            searched: false,
            weakness: None,
        }
    }
}

/// Most characters of a target an error repeats: a pasted ticket is named by its start.
const SHOWN_CHARS: usize = 80;

/// The target as an error repeats it, quoted: on one line, and cut to its first
/// [`SHOWN_CHARS`] characters (saying after the quote how long it was) when it is longer.
/// Other control characters stay: the command line writes them out (`\x1b`) as it does in
/// every message.
fn shown(target: &str) -> String {
    let flat: String = target
        .chars()
        .map(|c| {
            if matches!(c, '\n' | '\r' | '\t') {
                ' '
            } else {
                c
            }
        })
        .collect();
    let count = flat.chars().count();
    if count <= SHOWN_CHARS {
        return format!("`{flat}`");
    }
    let head: String = flat.chars().take(SHOWN_CHARS).collect();
    format!("`{}…` ({count} characters)", head.trim_end())
}

fn describe(unknown: &UnknownTarget) -> String {
    let target = &shown(&unknown.target);
    let mut text = if unknown.searched {
        let why = unknown.weakness.unwrap_or(Weakness::NoWord).describe();
        format!("nothing matches {target} well: no node has that id, and {why}")
    } else {
        format!("no node with id {target}")
    };
    if !unknown.suggestions.is_empty() {
        let lead = if unknown.searched {
            "closest ids"
        } else {
            "did you mean"
        };
        text.push_str(&format!("; {lead} {}?", unknown.suggestions.join(", ")));
    }
    if !unknown.hits.is_empty() {
        text.push_str(&format!("; best search hits: {}", unknown.hits.join(", ")));
    }
    if unknown.searched || *target != format!("`{}`", unknown.target) {
        text.push_str("; `brief search WORDS` lists what other words find");
    } else {
        text.push_str(&format!(
            "; `brief search \"{}\"` searches titles and bodies for it",
            unknown.target
        ));
    }
    text
}

/// The shapes of a project's ids that set them apart from words: letters, digits and
/// separators with runs collapsed (`DEC-PAY-01` → `a-a-9`, `TASK_7` → `a_9`). A plain word
/// (`CHECKOUT`) has no such shape: a word target is searched unless it is an id exactly.
pub(crate) fn id_shapes(ids: &[String]) -> BTreeSet<String> {
    ids.iter()
        .filter_map(|id| shape(id))
        .filter(|s| s.contains(['9', '-', '_', '.']))
        .collect()
}

/// Whether `target` reads as an id whatever the project: one token of upper-case letters and
/// digits joined by `-`, `_` or `.`, with at least one letter (`NO-SUCH-NODE-XYZ`,
/// `POL_7`), not a version or a date.
pub(crate) fn looks_like_an_id(target: &str) -> bool {
    let parts: Vec<&str> = target.split(['-', '_', '.']).collect();
    parts.len() >= 2
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        })
        && target.chars().any(|c| c.is_ascii_uppercase())
}

/// Whether `target` reads as an id of this project: it has one of `shapes` (any case).
pub(crate) fn has_id_shape(target: &str, shapes: &BTreeSet<String>) -> bool {
    shape(target.trim()).is_some_and(|s| shapes.contains(&s))
}

/// The shape of one token made of ASCII letters, digits, `-`, `_` and `.`; `None` otherwise.
fn shape(token: &str) -> Option<String> {
    if token.is_empty() {
        return None;
    }
    let mut out = String::new();
    for c in token.chars() {
        let class = match c {
            c if c.is_ascii_alphabetic() => 'a',
            c if c.is_ascii_digit() => '9',
            '-' | '_' | '.' => c,
            _ => return None,
        };
        if !(out.ends_with(class) && matches!(class, 'a' | '9')) {
            out.push(class);
        }
    }
    Some(out)
}

/// Resolves an id exactly, then ignoring case. The outer error is the graph's (it could
/// not be read), the inner one the user's (no such node).
pub(crate) fn resolve(
    graph: &dyn GraphView,
    target: &str,
) -> Result<Result<NodeIx, UnknownTarget>, StoreError> {
    let wanted = target.trim();
    if let Some(ix) = graph.lookup(wanted)? {
        return Ok(Ok(ix));
    }
    let upper = wanted.to_uppercase();
    if let Some(ix) = graph.lookup(&upper)? {
        return Ok(Ok(ix));
    }
    let ids = graph.all_ids()?;
    if let Some(id) = ids.iter().find(|id| id.eq_ignore_ascii_case(wanted)) {
        if let Some(ix) = graph.lookup(id)? {
            return Ok(Ok(ix));
        }
    }
    Ok(Err(UnknownTarget::id(wanted, closest(&ids, &upper))))
}

/// Ids close to `wanted` by edit distance, or containing it, best first.
fn closest(ids: &[String], wanted: &str) -> Vec<String> {
    let wanted_chars = wanted.chars().count();
    let limit = (wanted_chars / 3).max(2);
    let mut scored: Vec<(usize, &str)> = ids
        .iter()
        .filter_map(|original| {
            let id = original.to_uppercase();
            let distance = if id.contains(wanted) || (!id.is_empty() && wanted.contains(&id)) {
                id.len().abs_diff(wanted.len()).min(limit)
            } else if id.chars().count().abs_diff(wanted_chars) > limit {
                // The length difference bounds the edit distance from below: no need to
                // compute it (a target thousands of characters long against every id would
                // cost their product).
                return None;
            } else {
                strsim::levenshtein(&id, wanted)
            };
            (distance <= limit).then_some((distance, original.as_str()))
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(SUGGESTIONS)
        .map(|(_, id)| id.to_string())
        .collect()
}

/// How a context's start nodes were found, as its header says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Found {
    /// By the words of the target.
    #[default]
    Words,
    /// From a page of the knowledge the target names by its path: the page, then what
    /// governs it.
    Page,
    /// From a file the target names: what governs it.
    File,
    /// From a folder the target names: what governs the files in it.
    Folder,
    /// From the files changed against a revision: what governs them.
    Changed,
}

impl Found {
    /// The header's words for it.
    pub(crate) fn phrase(self) -> &'static str {
        match self {
            Found::Words => "found by words",
            Found::Page => "the page and what governs it",
            Found::File => "what governs the file",
            Found::Folder => "what governs the folder",
            Found::Changed => "what governs the changed files",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brief_model::testing::node;
    use brief_model::{Graph, Kind};

    fn graph() -> Graph {
        Graph::build(vec![
            node("AUTH-01", Kind::Behavior, &[]),
            node("AUTH-02", Kind::Behavior, &[]),
            node("DEC-AUTH-01", Kind::Decision, &[]),
            node("POL-PERF-01", Kind::Policy, &[]),
        ])
        .0
    }

    #[test]
    fn exact_and_case_insensitive() {
        let g = graph();
        assert_eq!(resolve(&g, "AUTH-01").unwrap(), Ok(0));
        assert_eq!(resolve(&g, "auth-02").unwrap(), Ok(1));
    }

    #[test]
    fn unknown_targets_suggest_the_closest_ids() {
        let err = resolve(&graph(), "AUTH-1").unwrap().unwrap_err();
        assert_eq!(err.suggestions[0], "AUTH-01");
        assert!(err.to_string().contains("did you mean AUTH-01"));
        assert!(resolve(&graph(), "ZZZZZZZZZZ")
            .unwrap()
            .unwrap_err()
            .suggestions
            .is_empty());
    }

    #[test]
    fn a_long_target_is_repeated_by_its_start_on_one_line() {
        let ticket = format!("make the export\nfaster {}", "and safer ".repeat(200));
        let err = UnknownTarget {
            target: ticket.clone(),
            suggestions: Vec::new(),
            hits: Vec::new(),
            searched: true,
            weakness: Some(Weakness::NoWord),
        };
        let text = err.to_string();
        assert!(
            text.starts_with("nothing matches `make the export faster and safer"),
            "{text}"
        );
        let length = ticket.chars().count();
        assert!(
            text.contains(&format!("…` ({length} characters) well")),
            "{text}"
        );
        assert!(!text.contains('\n'));
        assert!(text.len() < 400, "{text}");
        // A short target is repeated whole.
        let short = UnknownTarget::id("NO-SUCH-NODE", Vec::new()).to_string();
        assert!(short.contains("`brief search \"NO-SUCH-NODE\"`"), "{short}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// Skipping ids whose length alone puts them over the limit suggests what computing
        /// every edit distance suggests.
        #[test]
        fn the_length_bound_changes_no_suggestion(
            ids in proptest::collection::vec("[A-C]{0,9}(-[0-9]{1,2})?", 1..30),
            wanted in "[A-C]{0,12}(-[0-9])?",
        ) {
            let limit = (wanted.chars().count() / 3).max(2);
            let mut every: Vec<(usize, &str)> = ids
                .iter()
                .filter_map(|id| {
                    let d = if id.contains(&wanted) || (!id.is_empty() && wanted.contains(id.as_str())) {
                        id.len().abs_diff(wanted.len()).min(limit)
                    } else {
                        strsim::levenshtein(id, &wanted)
                    };
                    (d <= limit).then_some((d, id.as_str()))
                })
                .collect();
            every.sort();
            let every: Vec<String> =
                every.into_iter().take(SUGGESTIONS).map(|(_, id)| id.to_string()).collect();
            proptest::prop_assert_eq!(closest(&ids, &wanted), every);
        }
    }

    #[test]
    fn upper_case_tokens_with_separators_read_as_ids() {
        for id in ["NO-SUCH-NODE-XYZ", "POL_7", "ADR-0042", "A.B"] {
            assert!(looks_like_an_id(id), "{id}");
        }
        for words in [
            "rate-limit",
            "Python-3.8",
            "3.8",
            "2026-01-01",
            "PSP",
            "no such",
            "A-",
            "-A",
        ] {
            assert!(!looks_like_an_id(words), "{words}");
        }
    }

    #[test]
    fn id_shapes_are_learned_from_the_ids() {
        let ids: Vec<String> = ["DEC-PAY-01", "CHECKOUT", "TASK_7", "REFUNDS-01"]
            .map(String::from)
            .to_vec();
        let shapes = id_shapes(&ids);
        assert_eq!(shapes.iter().collect::<Vec<_>>(), ["a-9", "a-a-9", "a_9"]);
        assert!(has_id_shape("REFUNDS-09", &shapes));
        assert!(has_id_shape("auth-1", &shapes));
        assert!(has_id_shape("DEC-XYZ-7", &shapes));
        // Words, even upper-case ones, and shapes the project does not use are searched.
        for words in ["PSP", "adyen", "xyzzy plugh", "refund-policy", "ÉTÉ-1", ""] {
            assert!(!has_id_shape(words, &shapes), "{words}");
        }
    }
}
