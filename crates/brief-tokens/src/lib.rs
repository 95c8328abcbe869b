//! Exact token counts for OpenAI's `cl100k_base` and `o200k_base`, equal to tiktoken's
//! `encode_ordinary(text).len()` on any text, with no start-up cost: the vocabularies are hash
//! tables built by the build script and read in place from the binary's static data.
//!
//! Each thread that counts keeps a small memo of recent pieces and their counts (see
//! [`clear_thread_memo`]), so text that repeats its words is counted mostly without touching the
//! vocabularies.
//!
//! A pre-token is merged by rank as tiktoken does; a very long one (an unbroken word of
//! megabytes) is counted instead by backtracking over valid token pairs, in time linear in its
//! length, with tables built from the vocabulary the first time such a piece is counted (about
//! 4 MB for cl100k, 8 MB for o200k, once per process).
//!
//! Each encoding is a cargo feature (`cl100k`, `o200k`, both on by default); `parallel` (on by
//! default) lets [`Encoding::count_parallel`] use rayon.

#[cfg(not(any(feature = "cl100k", feature = "o200k")))]
compile_error!("brief-tokens needs at least one of the features `cl100k` and `o200k`");

mod backtrack;
mod cache;
mod chars;
mod class;
mod hash;
mod merge;
mod pieces;
mod slot;
mod vocab;

use std::fmt;
use std::str::FromStr;

use pieces::Split;
use vocab::Vocab;

/// A tokenizer encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// `cl100k_base` (GPT-4, GPT-3.5): the default.
    #[cfg(feature = "cl100k")]
    Cl100k,
    /// `o200k_base` (GPT-4o and later).
    #[cfg(feature = "o200k")]
    O200k,
}

#[allow(clippy::derivable_impls)] // the default depends on the features
impl Default for Encoding {
    fn default() -> Self {
        #[cfg(feature = "cl100k")]
        return Encoding::Cl100k;
        #[cfg(not(feature = "cl100k"))]
        return Encoding::O200k;
    }
}

/// Counts `text` with pre-tokenizer `S` over `vocab` (encoding number `index`), stopping once
/// the count passes `limit`.
#[inline(always)]
fn count_with<S: Split>(vocab: &Vocab, index: usize, text: &str, limit: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    cache::with_memo(index, |memo| {
        let mut count = 0;
        let mut i = 0;
        while i < bytes.len() {
            let end = S::end(bytes, i);
            // A token is at most `max_len` bytes, so a piece longer than the rest of the
            // limit allows is over it without merging (a megabyte-long word costs a scan).
            if end - i > (limit - count).saturating_mul(vocab.max_len) {
                return None;
            }
            count += memo.count(vocab, bytes, i, end);
            if count > limit {
                return None;
            }
            i = end;
        }
        Some(count)
    })
}

impl Encoding {
    /// The encodings this build holds.
    pub const ALL: &'static [Encoding] = &[
        #[cfg(feature = "cl100k")]
        Encoding::Cl100k,
        #[cfg(feature = "o200k")]
        Encoding::O200k,
    ];

    /// The encoding's full name, as in JSON output (`cl100k_base`).
    pub fn name(self) -> &'static str {
        match self {
            #[cfg(feature = "cl100k")]
            Encoding::Cl100k => "cl100k_base",
            #[cfg(feature = "o200k")]
            Encoding::O200k => "o200k_base",
        }
    }

    /// The exact number of tokens of `text` under this encoding.
    pub fn count(self, text: &str) -> usize {
        // No count exceeds the text's length in bytes, so the limit never stops it.
        self.count_till_limit(text, usize::MAX)
            .unwrap_or(usize::MAX)
    }

    /// The exact number of tokens of `text` if it is at most `limit`, else `None`; stops
    /// counting as soon as the count passes `limit`.
    pub fn count_till_limit(self, text: &str, limit: usize) -> Option<usize> {
        match self {
            #[cfg(feature = "cl100k")]
            Encoding::Cl100k => count_with::<pieces::Cl100k>(&vocab::cl100k::VOCAB, 0, text, limit),
            #[cfg(feature = "o200k")]
            Encoding::O200k => count_with::<pieces::O200k>(&vocab::o200k::VOCAB, 1, text, limit),
        }
    }

    /// [`Encoding::count`] with every piece merged by rank as tiktoken does, none counted by
    /// backtracking (nor remembered): what the `count` bench times backtracking against. Not
    /// for use beyond that.
    #[doc(hidden)]
    pub fn count_by_merging(self, text: &str) -> usize {
        self.count_pieces(text, merge::LongPieces::Merge)
    }

    /// [`Encoding::count`] with every piece of more than 64 bytes counted by backtracking,
    /// whatever its length (nor remembered): for the `count` bench. Not for use beyond that.
    #[doc(hidden)]
    pub fn count_by_backtracking(self, text: &str) -> usize {
        self.count_pieces(text, merge::LongPieces::Backtrack)
    }

    /// The count of `text`, piece by piece, long pieces counted as `long` says.
    fn count_pieces(self, text: &str, long: merge::LongPieces) -> usize {
        let vocab: &Vocab = match self {
            #[cfg(feature = "cl100k")]
            Encoding::Cl100k => &vocab::cl100k::VOCAB,
            #[cfg(feature = "o200k")]
            Encoding::O200k => &vocab::o200k::VOCAB,
        };
        self.pre_tokens(text)
            .map(|piece| {
                let bytes = piece.as_bytes();
                merge::count_piece_with(vocab, bytes, hash::hash(bytes), long)
            })
            .sum()
    }

    /// The pre-tokens of `text` in order (the pieces the encoding's regex cuts it into before
    /// byte-pair merging); they tile the text.
    pub fn pre_tokens(self, text: &str) -> PreTokens<'_> {
        PreTokens {
            text,
            at: 0,
            encoding: self,
        }
    }

    /// The exact number of tokens of `text`, counted in parallel chunks for long texts (with
    /// the `parallel` feature; sequentially otherwise).
    ///
    /// Both encodings' pre-tokenizers always split right after a newline that is followed by
    /// a character that is neither whitespace nor `/` (no pre-token pattern continues past
    /// such a newline; o200k's punctuation pattern may swallow `/`). BPE merges never cross a
    /// pre-token, so the count of the text is the sum of the counts of chunks cut there.
    pub fn count_parallel(self, text: &str) -> usize {
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            // Counting runs at hundreds of MB/s: below this, handing chunks to the pool
            // costs more than it saves.
            const CHUNK: usize = 64 * 1024;
            if text.len() < 2 * CHUNK {
                return self.count(text);
            }
            let chunks = chunks(text, CHUNK);
            chunks.par_iter().map(|chunk| self.count(chunk)).sum()
        }
        #[cfg(not(feature = "parallel"))]
        self.count(text)
    }

    /// The longest prefix of `text` (cut at a char boundary) whose count is at most `limit`.
    ///
    /// Searches char boundaries by bisection as if counts grew with the prefix (they nearly
    /// do), then steps back until the count fits; every count is exact. Counts of prefixes
    /// restart from the last split point (see [`Encoding::count_parallel`]) before the cut,
    /// whose offset in the text was counted once.
    pub fn prefix_within(self, text: &str, limit: usize) -> &str {
        if self.count_till_limit(text, limit).is_some() {
            return text;
        }
        let prefixes = Prefixes::new(self, text, limit);
        let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        let (mut lo, mut hi) = (0usize, bounds.len());
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if prefixes.fits(bounds[mid.min(bounds.len() - 1)]) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let mut end = bounds.get(lo).copied().unwrap_or(text.len());
        while end > 0 && !prefixes.fits(end) {
            end = text[..end]
                .char_indices()
                .last()
                .map(|(i, _)| i)
                .unwrap_or(0);
        }
        &text[..end]
    }
}

/// `text` cut at split points into chunks of at least `size` bytes (the last may be shorter).
#[cfg(feature = "parallel")]
fn chunks(text: &str, size: usize) -> Vec<&str> {
    let mut chunks = Vec::with_capacity(text.len() / size + 1);
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while end < text.len() && !is_split_point(text, end) {
            end += 1;
        }
        chunks.push(&text[start..end]);
        start = end;
    }
    chunks
}

/// Exact counts of the prefixes of one text against one limit: the split points of the text
/// with the count of the text before each, as far as that count stays within the limit.
struct Prefixes<'t> {
    encoding: Encoding,
    text: &'t str,
    limit: usize,
    /// `(split point, count of text[..split point])`, ascending, starting with `(0, 0)`.
    marks: Vec<(usize, usize)>,
    /// The first split point before which the text counts more than the limit.
    over: Option<usize>,
}

impl<'t> Prefixes<'t> {
    fn new(encoding: Encoding, text: &'t str, limit: usize) -> Self {
        let mut marks = vec![(0, 0)];
        let mut over = None;
        let (mut start, mut total) = (0, 0);
        for (newline, _) in text.match_indices('\n') {
            let at = newline + 1;
            if !is_split_point(text, at) {
                continue;
            }
            match encoding.count_till_limit(&text[start..at], limit - total) {
                Some(n) => total += n,
                None => {
                    over = Some(at);
                    break;
                }
            }
            marks.push((at, total));
            start = at;
        }
        Prefixes {
            encoding,
            text,
            limit,
            marks,
            over,
        }
    }

    /// Whether `text[..end]` counts at most the limit.
    fn fits(&self, end: usize) -> bool {
        // A split point of the text before `end` is one of `text[..end]` too, so the count
        // of `text[..end]` is the count before it plus the count from it.
        if self.over.is_some_and(|over| end >= over) {
            return false;
        }
        let k = self.marks.partition_point(|&(at, _)| at < end);
        let (at, before) = self.marks[k.saturating_sub(1)];
        self.encoding
            .count_till_limit(&self.text[at..end], self.limit - before)
            .is_some()
    }
}

/// The pre-tokens of a text (see [`Encoding::pre_tokens`]).
pub struct PreTokens<'t> {
    text: &'t str,
    at: usize,
    encoding: Encoding,
}

impl<'t> Iterator for PreTokens<'t> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        if self.at >= self.text.len() {
            return None;
        }
        let bytes = self.text.as_bytes();
        let end = match self.encoding {
            #[cfg(feature = "cl100k")]
            Encoding::Cl100k => pieces::Cl100k::end(bytes, self.at),
            #[cfg(feature = "o200k")]
            Encoding::O200k => pieces::O200k::end(bytes, self.at),
        };
        let piece = &self.text[self.at..end];
        self.at = end;
        Some(piece)
    }
}

/// Drops the calling thread's memo of recent pieces and their counts (about 100 KB per
/// encoding it counted with); the next count on this thread starts with an empty memo. Counts
/// are the same either way.
pub fn clear_thread_memo() {
    cache::clear();
}

/// True when a pre-token always starts at byte `at` of `text` (see
/// [`Encoding::count_parallel`]).
pub fn is_split_point(text: &str, at: usize) -> bool {
    let bytes = text.as_bytes();
    at > 0
        && at < bytes.len()
        && bytes[at - 1] == b'\n'
        && bytes[at] != b'/'
        && chars::at(bytes, at).0 & class::SPACE == 0
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why `name` is not an encoding of this build: unknown, or left out by its feature.
fn unknown_encoding(name: &str) -> String {
    let known = Encoding::ALL
        .iter()
        .map(|e| format!("{} ({})", e.name().trim_end_matches("_base"), e.name()))
        .collect::<Vec<_>>()
        .join(" or ");
    if ["cl100k", "cl100k_base", "o200k", "o200k_base"].contains(&name) {
        format!("encoding `{name}` is not in this build: use {known}")
    } else {
        format!("unknown encoding `{name}`: use {known}")
    }
}

/// Parses `cl100k`, `cl100k_base`, `o200k` or `o200k_base`; the error is the message to show
/// (a `String`, as brief's other option parsers return).
impl FromStr for Encoding {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            #[cfg(feature = "cl100k")]
            "cl100k" | "cl100k_base" => Ok(Encoding::Cl100k),
            #[cfg(feature = "o200k")]
            "o200k" | "o200k_base" => Ok(Encoding::O200k),
            other => Err(unknown_encoding(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_display() {
        for &encoding in Encoding::ALL {
            assert_eq!(encoding.name().parse::<Encoding>(), Ok(encoding));
            assert_eq!(encoding.to_string(), encoding.name());
            let short = encoding.name().trim_end_matches("_base");
            assert_eq!(short.parse::<Encoding>(), Ok(encoding));
        }
        assert_eq!(Encoding::default(), Encoding::ALL[0]);
    }

    #[cfg(all(feature = "cl100k", feature = "o200k"))]
    #[test]
    fn unknown_names_are_refused_as_before() {
        assert_eq!(Encoding::default(), Encoding::Cl100k);
        let error = "p50k".parse::<Encoding>().unwrap_err();
        assert_eq!(
            error,
            "unknown encoding `p50k`: use cl100k (cl100k_base) or o200k (o200k_base)"
        );
    }

    #[cfg(not(all(feature = "cl100k", feature = "o200k")))]
    #[test]
    fn an_encoding_left_out_of_the_build_is_named_so() {
        let (missing, present) = if cfg!(feature = "cl100k") {
            ("o200k", "cl100k (cl100k_base)")
        } else {
            ("cl100k", "o200k (o200k_base)")
        };
        let error = missing.parse::<Encoding>().unwrap_err();
        assert_eq!(
            error,
            format!("encoding `{missing}` is not in this build: use {present}")
        );
    }

    #[test]
    fn pre_tokens_tile_the_text() {
        let text = "Hello  world's\n\n  fn x() {}\n/path 123456 日本 🚀";
        for &encoding in Encoding::ALL {
            assert_eq!(encoding.pre_tokens(text).collect::<String>(), text);
            assert!(encoding.pre_tokens(text).all(|piece| !piece.is_empty()));
        }
    }

    /// Trailing whitespace with a newline: cl100k's `\s++$` comes before `\s*[\r\n]`, o200k
    /// has no `$` alternative and cuts after the newline.
    #[cfg(all(feature = "cl100k", feature = "o200k"))]
    #[test]
    fn trailing_whitespace_differs_between_encodings() {
        let cl100k: Vec<&str> = Encoding::Cl100k.pre_tokens("x\n  ").collect();
        let o200k: Vec<&str> = Encoding::O200k.pre_tokens("x\n  ").collect();
        assert_eq!(cl100k, ["x", "\n  "]);
        assert_eq!(o200k, ["x", "\n", "  "]);
        // o200k keeps contractions with their word and case runs apart.
        let o200k: Vec<&str> = Encoding::O200k
            .pre_tokens("don't HELLOworld HeLLo")
            .collect();
        assert_eq!(o200k, ["don't", " HELLOworld", " He", "LLo"]);
        let cl100k: Vec<&str> = Encoding::Cl100k.pre_tokens("don't").collect();
        assert_eq!(cl100k, ["don", "'t"]);
    }

    #[test]
    fn split_points() {
        let text = "a\nb\n c\n/d\n\ne";
        let points: Vec<usize> = (0..=text.len())
            .filter(|&at| is_split_point(text, at))
            .collect();
        // After "a\n" (b), not before " c" or "/d", after "\n\n" (e); never at 0 or the end.
        assert_eq!(points, [2, 11]);
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn chunks_cut_at_split_points_and_add_up() {
        let mut text = String::new();
        for i in 0..400 {
            text.push_str(&format!("line {i}: some words, café 日本 🚀\n"));
            if i % 7 == 0 {
                text.push_str("  indented\n\n/path/after/newline\n'quoted\n");
            }
        }
        let pieces = chunks(&text, 64);
        assert!(pieces.len() > 100);
        assert_eq!(pieces.concat(), text);
        for &encoding in Encoding::ALL {
            let sum: usize = pieces.iter().map(|chunk| encoding.count(chunk)).sum();
            assert_eq!(sum, encoding.count(&text));
        }
        // Long enough for the pool.
        let long = text.repeat(8);
        assert!(long.len() > 2 * 64 * 1024);
        for &encoding in Encoding::ALL {
            assert_eq!(encoding.count_parallel(&long), encoding.count(&long));
        }
    }

    #[test]
    fn count_till_limit_stops_at_the_limit() {
        for &encoding in Encoding::ALL {
            let text = "one two three four five";
            let n = encoding.count(text);
            assert_eq!(encoding.count_till_limit(text, n), Some(n));
            assert_eq!(encoding.count_till_limit(text, n - 1), None);
            assert_eq!(encoding.count_till_limit("", 0), Some(0));
        }
    }

    #[test]
    fn prefix_within_respects_the_limit() {
        let text = "The quick brown fox jumps over the lazy dog.\n".repeat(20);
        for &encoding in Encoding::ALL {
            for limit in [0, 1, 5, 17, 100] {
                let prefix = encoding.prefix_within(&text, limit);
                assert!(encoding.count(prefix) <= limit);
                assert!(text.starts_with(prefix));
            }
            assert_eq!(encoding.prefix_within("héllo wörld", 100), "héllo wörld");
        }
    }

    /// One unbroken word is cut like any text: the prefix plain bisection over the whole word
    /// finds, though the search now stays within the reach of the limit's longest tokens.
    #[test]
    fn an_unbroken_word_is_cut_within_the_limit() {
        let word = "é".repeat(300) + &"a".repeat(20_000);
        let bounds: Vec<usize> = word.char_indices().map(|(i, _)| i).collect();
        for &encoding in Encoding::ALL {
            let whole = encoding.count(&word);
            assert_eq!(encoding.count_till_limit(&word, whole), Some(whole));
            assert_eq!(encoding.count_till_limit(&word, whole - 1), None);
            assert_eq!(encoding.count_till_limit(&word, 10), None);
            for limit in [1, 7, 40] {
                let (mut lo, mut hi) = (0usize, bounds.len());
                while lo < hi {
                    let mid = (lo + hi).div_ceil(2);
                    let end = bounds.get(mid).copied().unwrap_or(word.len());
                    if encoding.count(&word[..end]) <= limit {
                        lo = mid;
                    } else {
                        hi = mid - 1;
                    }
                }
                let plain = &word[..bounds.get(lo).copied().unwrap_or(word.len())];
                let prefix = encoding.prefix_within(&word, limit);
                assert!(encoding.count(prefix) <= limit);
                assert_eq!(prefix.len(), plain.len(), "{limit}");
            }
        }
    }
}
