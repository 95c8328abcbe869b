//! Okapi BM25 over node texts: the retrieval step of the usual RAG pipeline.
//!
//! Terms are lower-cased runs of letters and digits (ids such as `SPEC-SYNC-001` give `spec`,
//! `sync` and `001`). The score of a document for a query is
//! `Σ idf(t) · f(t, d) · (k1 + 1) / (f(t, d) + k1 · (1 − b + b · |d| / avgdl))` over the
//! distinct query terms, with `idf(t) = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))`, k1 = 1.2 and
//! b = 0.75 (the defaults of Lucene and most libraries).

use std::collections::HashMap;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// The terms of a text, in order.
pub fn terms(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
}

/// An index of documents, each a bag of terms.
pub struct Bm25 {
    /// Per document: term frequencies and length in terms.
    docs: Vec<(HashMap<String, u32>, usize)>,
    /// Documents containing each term.
    df: HashMap<String, u32>,
    avgdl: f64,
}

impl Bm25 {
    /// Indexes `texts`; documents are numbered in this order.
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> Bm25 {
        let mut docs = Vec::new();
        let mut df: HashMap<String, u32> = HashMap::new();
        for text in texts {
            let mut tf: HashMap<String, u32> = HashMap::new();
            let mut len = 0;
            for term in terms(text) {
                *tf.entry(term).or_default() += 1;
                len += 1;
            }
            for term in tf.keys() {
                *df.entry(term.clone()).or_default() += 1;
            }
            docs.push((tf, len));
        }
        let total: usize = docs.iter().map(|(_, len)| len).sum();
        let avgdl = if docs.is_empty() {
            0.0
        } else {
            total as f64 / docs.len() as f64
        };
        Bm25 { docs, df, avgdl }
    }

    /// The score of every document for `query`.
    pub fn scores(&self, query: &str) -> Vec<f64> {
        let mut unique: Vec<String> = terms(query).collect();
        unique.sort();
        unique.dedup();
        let n = self.docs.len() as f64;
        let idf: Vec<(String, f64)> = unique
            .into_iter()
            .filter_map(|t| {
                let nt = f64::from(*self.df.get(&t)?);
                Some((t, (1.0 + (n - nt + 0.5) / (nt + 0.5)).ln()))
            })
            .collect();
        self.docs
            .iter()
            .map(|(tf, len)| {
                let norm = K1 * (1.0 - B + B * *len as f64 / self.avgdl.max(1e-9));
                idf.iter()
                    .map(|(t, idf)| match tf.get(t) {
                        Some(&f) => {
                            let f = f64::from(f);
                            idf * f * (K1 + 1.0) / (f + norm)
                        }
                        None => 0.0,
                    })
                    .sum()
            })
            .collect()
    }

    /// Document numbers by score for `query`, best first; ties by number.
    pub fn rank(&self, query: &str) -> Vec<usize> {
        let scores = self.scores(query);
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_split_ids_and_lower_case() {
        let t: Vec<String> = terms("SPEC-SYNC-001: Offline edits, replayed!").collect();
        assert_eq!(t, ["spec", "sync", "001", "offline", "edits", "replayed"]);
    }

    #[test]
    fn scores_match_the_formula() {
        let index = Bm25::new(["apple banana apple", "banana cherry", "cherry cherry date"]);
        // N = 3, avgdl = 8/3; "apple" is in one doc, "banana" in two.
        let scores = index.scores("apple banana");
        let avgdl = 8.0 / 3.0;
        let idf = |n: f64| (1.0f64 + (3.0 - n + 0.5) / (n + 0.5)).ln();
        let part = |f: f64, len: f64| f * 2.2 / (f + 1.2 * (0.25 + 0.75 * len / avgdl));
        let first = idf(1.0) * part(2.0, 3.0) + idf(2.0) * part(1.0, 3.0);
        let second = idf(2.0) * part(1.0, 2.0);
        assert!((scores[0] - first).abs() < 1e-12, "{scores:?}");
        assert!((scores[1] - second).abs() < 1e-12, "{scores:?}");
        assert_eq!(scores[2], 0.0);
        assert_eq!(index.rank("apple banana"), vec![0, 1, 2]);
    }

    #[test]
    fn repeated_query_terms_count_once_and_ties_keep_order() {
        let index = Bm25::new(["x y", "x y"]);
        assert_eq!(index.scores("x x x"), index.scores("x"));
        assert_eq!(index.rank("x"), vec![0, 1]);
    }
}
