//! Similar error messages: the words of a signature, and the score that ranks the patterns
//! sharing words with a message when none has its hash.
//!
//! The score is BM25 over the project's patterns, computed here from integer counts that
//! both backends store alike (the postings of each word), so SQLite and PostgreSQL rank
//! the same patterns in the same order:
//!
//! `score = Σ idf(w) · tf·(k1 + 1) / (tf + k1·(1 − b + b·len/12))`, with
//! `idf(w) = ln(1 + (1000 − df + 0.5) / (df + 0.5))`, k1 = 1.2, b = 0.75,
//!
//! where `df` is the number of the project's patterns with the word, `tf` its count in the
//! pattern, `len` the pattern's word count and 12 a typical signature length. A word in more
//! than [`COMMON`] patterns tells none apart and is left out (this bounds the work of a match
//! whatever the store's size). Scores are rounded to millionths before they decide; ties go
//! to the higher confidence, then the smaller hash.

use std::collections::BTreeMap;

/// A word found in more patterns of a project than this is too common to rank by.
pub(crate) const COMMON: usize = 1000;

/// The most words of a message a match looks up (the first ones, where an error's kind is).
pub(crate) const MAX_QUERY_TERMS: usize = 32;

/// Words shorter than this (in characters) are not indexed.
const MIN_WORD: usize = 3;

/// Placeholder words that [`crate::signature::normalize`] writes for what it blanked.
const PLACEHOLDERS: &[&str] = &["path", "hex"];

const K1: f64 = 1.2;
const B: f64 = 0.75;
const TYPICAL_LENGTH: f64 = 12.0;

/// The indexed words of `signature` (letters, digits and `_`, lower-cased, at least three
/// characters, placeholders left out) in their first-seen order.
fn words(signature: &str) -> impl Iterator<Item = String> + '_ {
    signature
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| w.chars().count() >= MIN_WORD)
        .map(str::to_lowercase)
        .filter(|w| !PLACEHOLDERS.contains(&w.as_str()))
}

/// The distinct words of a signature with their counts (sorted by word), and its word count.
pub(crate) fn terms(signature: &str) -> (Vec<(String, i64)>, i64) {
    let mut counts: BTreeMap<String, i64> = BTreeMap::new();
    let mut total = 0;
    for w in words(signature) {
        *counts.entry(w).or_default() += 1;
        total += 1;
    }
    (counts.into_iter().collect(), total)
}

/// The distinct words a match looks up, in first-seen order, at most [`MAX_QUERY_TERMS`].
pub(crate) fn query_terms(signature: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in words(signature) {
        if out.len() == MAX_QUERY_TERMS {
            break;
        }
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The inverse document frequency of a word found in `df` patterns (`df ≤ COMMON`).
fn idf(df: usize) -> f64 {
    let df = df as f64;
    (1.0 + (COMMON as f64 - df + 0.5) / (df + 0.5)).ln()
}

/// The score, in millionths, of a pattern of `length` words holding the looked-up words with
/// these (document frequency, count in the pattern) pairs.
pub(crate) fn score(matched: &[(usize, i64)], length: i64) -> i64 {
    let norm = K1 * (1.0 - B + B * length.max(1) as f64 / TYPICAL_LENGTH);
    let sum: f64 = matched
        .iter()
        .map(|&(df, tf)| {
            let tf = tf as f64;
            idf(df) * tf * (K1 + 1.0) / (tf + norm)
        })
        .sum();
    (sum * 1_000_000.0).round() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lower_cased_and_placeholders_left_out() {
        let (terms, total) = terms("TypeError: Cannot read <path> of 0x<hex> at <n> cannot db");
        assert_eq!(
            terms,
            [
                ("cannot".to_string(), 2),
                ("read".to_string(), 1),
                ("typeerror".to_string(), 1)
            ]
        );
        assert_eq!(total, 4);
        assert_eq!(
            query_terms("b_c Ab_c ZZZ zzz"),
            ["b_c", "ab_c", "zzz"].map(String::from)
        );
        let long: String = (0..40).map(|i| format!("word{i} ")).collect();
        assert_eq!(query_terms(&long).len(), MAX_QUERY_TERMS);
    }

    #[test]
    fn rarer_words_and_shorter_patterns_score_higher() {
        assert!(score(&[(1, 1)], 10) > score(&[(500, 1)], 10));
        assert!(score(&[(5, 1)], 6) > score(&[(5, 1)], 30));
        assert!(score(&[(5, 1), (9, 1)], 10) > score(&[(5, 1)], 10));
        assert!(score(&[(COMMON, 1)], 10) > 0);
        assert_eq!(score(&[], 10), 0);
    }
}
