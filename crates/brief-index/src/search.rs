//! What search scores mean and how a word becomes an FTS5 term: kept apart from the index's
//! storage so the rules are unit-tested in one place (`docs/cli.md`, "Search").

use super::Hit;

/// Words shorter than this are matched whole: as a prefix they would match almost anything.
const MIN_PREFIX_CHARS: usize = 3;

/// The FTS5 term for one lower-cased query word: quoted (no operator leaks in) and, when long
/// enough, a prefix too. The index's tokenizer (porter over unicode61, diacritics removed)
/// stems and folds the word the same way it did the text.
pub(crate) fn fts_term(word: &str) -> String {
    let quoted = format!("\"{}\"", word.replace('"', "\"\""));
    if word.chars().count() >= MIN_PREFIX_CHARS {
        format!("{quoted}*")
    } else {
        quoted
    }
}

/// Scales BM25 relevances (higher is better, best first) so the best hit scores 1 and the
/// others their share of it, to two significant digits. A word found in most nodes has a
/// BM25 weight near zero, yet its best hit still scores 1: scores compare hits of one
/// query, never across queries.
pub(crate) fn normalise(hits: &mut [Hit]) {
    let best = hits.iter().map(|h| h.score).fold(0.0_f64, f64::max);
    for hit in hits.iter_mut() {
        hit.score = if best > 0.0 && hit.score > 0.0 {
            significant(hit.score / best)
        } else {
            // SQLite clamps a term's weight above zero; a non-positive score means a
            // degenerate ranking, where every hit is as good as the best.
            1.0
        };
    }
}

/// `x` (> 0) rounded to two significant digits; never rounds to zero.
pub fn significant(x: f64) -> f64 {
    let scale = 10f64.powi(1 - x.log10().floor() as i32);
    (x * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(score: f64) -> Hit {
        Hit {
            id: "X".into(),
            kind: "spec".into(),
            title: String::new(),
            score,
        }
    }

    #[test]
    fn scores_are_shares_of_the_best_in_two_digits() {
        let mut hits = vec![hit(2.5), hit(1.234), hit(0.0000031)];
        normalise(&mut hits);
        let scores: Vec<f64> = hits.iter().map(|h| h.score).collect();
        assert_eq!(scores, vec![1.0, 0.49, 0.0000012]);
    }

    #[test]
    fn tiny_weights_still_rank_from_one() {
        // A word in every node: SQLite's BM25 weights are around 1e-6.
        let mut hits = vec![hit(3e-6), hit(2e-6), hit(1e-6)];
        normalise(&mut hits);
        let scores: Vec<f64> = hits.iter().map(|h| h.score).collect();
        assert_eq!(scores, vec![1.0, 0.67, 0.33]);
    }

    #[test]
    fn long_words_are_prefixes_and_quotes_are_escaped() {
        assert_eq!(fts_term("refund"), "\"refund\"*");
        assert_eq!(fts_term("ab"), "\"ab\"");
        assert_eq!(fts_term("a\"b"), "\"a\"\"b\"*");
    }
}
