//! Exact token counting with OpenAI's encodings. [`Encoding`] and [`is_split_point`] come from
//! brief-tokens (counts equal to tiktoken's, from static tables compiled into the binary: no
//! start-up cost, nothing downloaded). A [`Counter`] caches counts by content so a context
//! never re-tokenizes a block it has already counted.

use std::cell::RefCell;
use std::collections::HashMap;

/// True when a pre-token always starts at byte `at` of a text, so counts of the text cut there
/// add up (see [`Encoding::count_parallel`]).
pub use brief_tokens::is_split_point;
/// A tokenizer encoding (`cl100k_base` by default, or `o200k_base`): `count`,
/// `count_parallel`, `prefix_within`, `name`; parses from `cl100k`/`o200k` with or without
/// `_base`.
pub use brief_tokens::Encoding;

/// A persistent cache of token counts, keyed by [`count_key`].
pub trait CountStore {
    /// The count stored under `key`.
    fn get(&self, key: &[u8]) -> Option<usize>;
    /// The counts stored under each key, in order (a store that can look many up at once
    /// does it in one go).
    fn get_many(&self, keys: &[&[u8]]) -> Vec<Option<usize>> {
        keys.iter().map(|key| self.get(key)).collect()
    }
    /// Stores counts (best effort).
    fn put(&self, entries: &[(Vec<u8>, usize)]);
}

/// The cache key of a count: the encoding and the first 16 bytes of the text's blake3 hash.
pub fn count_key(encoding: Encoding, text: &str) -> [u8; 17] {
    let mut key = [0u8; 17];
    key[0] = match encoding {
        #[cfg(feature = "cl100k")]
        Encoding::Cl100k => 1,
        #[cfg(feature = "o200k")]
        Encoding::O200k => 2,
    };
    key[1..].copy_from_slice(&blake3::hash(text.as_bytes()).as_bytes()[..16]);
    key
}

/// Counts tokens under one encoding, remembering the count of every distinct text it saw,
/// and consulting a persistent [`CountStore`] first when it has one, so a context whose
/// texts were all counted before never tokenizes anything.
pub struct Counter<'s> {
    encoding: Encoding,
    cache: RefCell<HashMap<[u8; 17], usize>>,
    store: Option<&'s dyn CountStore>,
    fresh: RefCell<Vec<([u8; 17], usize)>>,
}

impl<'s> Counter<'s> {
    /// A counter with an empty cache.
    pub fn new(encoding: Encoding) -> Counter<'static> {
        Counter {
            encoding,
            cache: RefCell::new(HashMap::new()),
            store: None,
            fresh: RefCell::new(Vec::new()),
        }
    }

    /// A counter backed by a persistent store.
    pub fn with_store(encoding: Encoding, store: Option<&'s dyn CountStore>) -> Counter<'s> {
        Counter {
            encoding,
            cache: RefCell::new(HashMap::new()),
            store,
            fresh: RefCell::new(Vec::new()),
        }
    }

    /// The encoding this counter uses.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    fn cached(&self, key: &[u8; 17]) -> Option<usize> {
        if let Some(&n) = self.cache.borrow().get(key) {
            return Some(n);
        }
        let n = self.store?.get(key)?;
        self.cache.borrow_mut().insert(*key, n);
        Some(n)
    }

    /// The exact count of `text`, from a cache when this text was counted before.
    pub fn count(&self, text: &str) -> usize {
        let key = count_key(self.encoding, text);
        if let Some(n) = self.cached(&key) {
            return n;
        }
        let n = self.encoding.count(text);
        self.cache.borrow_mut().insert(key, n);
        self.fresh.borrow_mut().push((key, n));
        n
    }

    /// Counts every text not yet counted, in parallel, so later [`Counter::count`] calls hit
    /// the cache.
    pub fn prime(&self, texts: &[&str]) {
        self.count_all(texts);
    }

    /// The exact count of each text, in order: each hashed once, those not counted before
    /// tokenized in parallel.
    pub fn count_all(&self, texts: &[&str]) -> Vec<usize> {
        use rayon::prelude::*;
        let keys: Vec<[u8; 17]> = texts
            .iter()
            .map(|text| count_key(self.encoding, text))
            .collect();
        let mut counts: Vec<Option<usize>> = keys
            .iter()
            .map(|key| self.cache.borrow().get(key).copied())
            .collect();
        if let Some(store) = self.store {
            let asked: Vec<usize> = (0..keys.len()).filter(|&i| counts[i].is_none()).collect();
            let wanted: Vec<&[u8]> = asked.iter().map(|&i| keys[i].as_slice()).collect();
            let mut cache = self.cache.borrow_mut();
            for (&i, stored) in asked.iter().zip(store.get_many(&wanted)) {
                if let Some(n) = stored {
                    cache.insert(keys[i], n);
                    counts[i] = Some(n);
                }
            }
        }
        let missing: Vec<usize> = (0..texts.len()).filter(|&i| counts[i].is_none()).collect();
        if !missing.is_empty() {
            let encoding = self.encoding;
            let counted: Vec<usize> = missing
                .par_iter()
                .map(|&i| encoding.count(texts[i]))
                .collect();
            let mut cache = self.cache.borrow_mut();
            let mut fresh = self.fresh.borrow_mut();
            for (&i, n) in missing.iter().zip(counted) {
                // The same text twice among the missing is counted once in the store.
                if cache.insert(keys[i], n).is_none() {
                    fresh.push((keys[i], n));
                }
                counts[i] = Some(n);
            }
        }
        counts.into_iter().map(|n| n.unwrap_or(0)).collect()
    }

    /// Writes the counts made by this counter to its store.
    pub fn persist(&self) {
        if let Some(store) = self.store {
            let fresh: Vec<(Vec<u8>, usize)> = self
                .fresh
                .borrow_mut()
                .drain(..)
                .map(|(key, n)| (key.to_vec(), n))
                .collect();
            store.put(&fresh);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_known_strings() {
        assert_eq!(Encoding::Cl100k.count(""), 0);
        assert_eq!(Encoding::Cl100k.count("hello world"), 2);
        assert_eq!(Encoding::O200k.count("hello world"), 2);
    }

    #[test]
    fn cached_count_equals_fresh_count() {
        let counter = Counter::new(Encoding::Cl100k);
        let text = "Login page renders email and password input fields.";
        let first = counter.count(text);
        assert_eq!(first, counter.count(text));
        assert_eq!(first, Encoding::Cl100k.count(text));
    }

    #[test]
    fn prefix_within_respects_the_limit() {
        let text = "The quick brown fox jumps over the lazy dog. ".repeat(20);
        for limit in [0, 1, 5, 17, 100] {
            let prefix = Encoding::Cl100k.prefix_within(&text, limit);
            assert!(Encoding::Cl100k.count(prefix) <= limit);
            assert!(text.starts_with(prefix));
        }
        assert_eq!(
            Encoding::O200k.prefix_within("héllo wörld", 100),
            "héllo wörld"
        );
    }

    #[test]
    fn parallel_count_equals_whole_count() {
        let mut text = String::new();
        for i in 0..2000 {
            text.push_str(&format!("line {i}: some words, café 日本 🚀\n"));
            if i % 7 == 0 {
                text.push_str("  indented\n\n/path/after/newline\n'quoted\n");
            }
        }
        for encoding in [Encoding::Cl100k, Encoding::O200k] {
            assert_eq!(encoding.count_parallel(&text), encoding.count(&text));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Cutting at the split points never changes the count, whatever the lines hold.
        #[test]
        fn split_points_preserve_counts(lines in proptest::collection::vec("[ \\t/'#a-z0-9é日🚀.,:-]{0,12}", 0..1500)) {
            let text = lines.join("\n");
            for encoding in [Encoding::Cl100k, Encoding::O200k] {
                proptest::prop_assert_eq!(encoding.count_parallel(&text), encoding.count(&text));
            }
        }
    }

    #[test]
    fn parses_encoding_names() {
        assert_eq!("o200k".parse::<Encoding>().unwrap(), Encoding::O200k);
        assert_eq!("cl100k_base".parse::<Encoding>().unwrap(), Encoding::Cl100k);
        assert!("p50k".parse::<Encoding>().is_err());
    }
}
