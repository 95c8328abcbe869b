//! Resolving what the user typed to a start node: an exact id, an id in another case, or an
//! error that names the closest ids.

use crate::model::{GraphView, NodeIx};

/// Most suggestions offered for an unknown target.
const SUGGESTIONS: usize = 3;

/// The target is not a node id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no node with id `{target}`{}", suggestion_text(.suggestions))]
pub struct UnknownTarget {
    pub target: String,
    /// The closest ids, best first.
    pub suggestions: Vec<String>,
}

fn suggestion_text(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", suggestions.join(", "))
    }
}

/// Resolves an id exactly, then ignoring case.
pub fn resolve(graph: &dyn GraphView, target: &str) -> Result<NodeIx, UnknownTarget> {
    let wanted = target.trim();
    if let Some(ix) = graph.lookup(wanted) {
        return Ok(ix);
    }
    let upper = wanted.to_uppercase();
    if let Some(ix) = graph.lookup(&upper) {
        return Ok(ix);
    }
    let ids = graph.all_ids();
    if let Some(ix) = ids
        .iter()
        .find(|id| id.eq_ignore_ascii_case(wanted))
        .and_then(|id| graph.lookup(id))
    {
        return Ok(ix);
    }
    Err(UnknownTarget {
        target: wanted.to_string(),
        suggestions: closest(&ids, &upper),
    })
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
                edit_distance(&id, wanted)
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

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = if ca == cb {
                previous
            } else {
                1 + previous.min(current).min(row[j])
            };
            previous = current;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::node;
    use crate::model::{Graph, Kind};

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
        assert_eq!(resolve(&g, "AUTH-01"), Ok(0));
        assert_eq!(resolve(&g, "auth-02"), Ok(1));
    }

    #[test]
    fn unknown_targets_suggest_the_closest_ids() {
        let err = resolve(&graph(), "AUTH-1").unwrap_err();
        assert_eq!(err.suggestions[0], "AUTH-01");
        assert!(err.to_string().contains("did you mean AUTH-01"));
        assert!(resolve(&graph(), "ZZZZZZZZZZ")
            .unwrap_err()
            .suggestions
            .is_empty());
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
                        edit_distance(id, &wanted)
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
    fn edit_distance_is_levenshtein() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
