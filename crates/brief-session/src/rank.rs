//! The package score (BAZINGA's documented heuristic, which it never coded):
//!
//! `score = 4 × priority weight (low 1 … critical 4) + 2 × same group + 1.5 × designated
//! consumer + 1 / (age in days + 1)`
//!
//! Best first; equal scores (packages created in the same second with the same traits)
//! order by id, oldest first. Priority does not strictly dominate: a fresh, same-group
//! package designated for the agent (up to 4.5 extra) can pass one of the next priority up.

use super::Priority;

/// What the score reads of a package.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Candidate {
    /// The package's id (the last tie-breaker).
    pub id: i64,
    /// Its priority.
    pub priority: Priority,
    /// Its group (a bonus when it is the agent's).
    pub group: Option<String>,
    /// Unix seconds.
    pub created: i64,
    /// The requesting agent type is one of the package's designated consumers.
    pub designated: bool,
}

/// The score of `c` for a request in `group` at `now` (Unix seconds).
pub(crate) fn score(c: &Candidate, group: Option<&str>, now: i64) -> f64 {
    let same_group = group.is_some() && c.group.as_deref() == group;
    let age_days = now.saturating_sub(c.created).max(0) as f64 / 86_400.0;
    4.0 * c.priority.weight() as f64
        + if same_group { 2.0 } else { 0.0 }
        + if c.designated { 1.5 } else { 0.0 }
        + 1.0 / (age_days + 1.0)
}

/// Sorts candidates best first and returns them with their scores.
pub(crate) fn rank(
    candidates: Vec<Candidate>,
    group: Option<&str>,
    now: i64,
) -> Vec<(Candidate, f64)> {
    let mut scored: Vec<(Candidate, f64)> = candidates
        .into_iter()
        .map(|c| {
            let s = score(&c, group, now);
            (c, s)
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.id.cmp(&b.0.id)));
    scored
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;
    const NOW: i64 = 1_760_000_000;

    fn c(
        id: i64,
        priority: Priority,
        group: Option<&str>,
        age_days: i64,
        designated: bool,
    ) -> Candidate {
        Candidate {
            id,
            priority,
            group: group.map(str::to_string),
            created: NOW - age_days * DAY,
            designated,
        }
    }

    fn order(cands: Vec<Candidate>, group: Option<&str>) -> Vec<i64> {
        rank(cands, group, NOW)
            .into_iter()
            .map(|(c, _)| c.id)
            .collect()
    }

    #[test]
    fn each_factor_counts() {
        use Priority::*;
        // Priority.
        assert_eq!(
            order(
                vec![c(1, Low, None, 0, false), c(2, High, None, 0, false)],
                None
            ),
            [2, 1]
        );
        // Same group.
        assert_eq!(
            order(
                vec![
                    c(1, Medium, None, 0, false),
                    c(2, Medium, Some("g"), 0, false)
                ],
                Some("g")
            ),
            [2, 1]
        );
        // Designated consumer.
        assert_eq!(
            order(
                vec![c(1, Medium, None, 0, false), c(2, Medium, None, 0, true)],
                None
            ),
            [2, 1]
        );
        // Recency.
        assert_eq!(
            order(
                vec![c(1, Medium, None, 9, false), c(2, Medium, None, 1, false)],
                None
            ),
            [2, 1]
        );
        // Ties by id.
        assert_eq!(
            order(
                vec![c(7, Medium, None, 2, true), c(3, Medium, None, 2, true)],
                None
            ),
            [3, 7]
        );
    }

    #[test]
    fn a_relevant_fresh_package_can_pass_the_next_priority() {
        use Priority::*;
        let fresh_medium = c(1, Medium, Some("g"), 0, true); // 8 + 2 + 1.5 + 1 = 12.5
        let old_high = c(2, High, None, 99, false); // 12 + 0.01
        assert_eq!(order(vec![old_high, fresh_medium], Some("g")), [1, 2]);
        assert!((score(&c(1, Critical, Some("g"), 0, true), Some("g"), NOW) - 20.5).abs() < 1e-12);
    }
}
