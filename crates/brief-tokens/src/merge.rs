//! Byte-pair merging as tiktoken does it, counting the tokens of one pre-token: the whole piece
//! if it is a token, else repeatedly merge the adjacent pair whose concatenation has the lowest
//! rank (the leftmost of equal ranks) until no adjacent pair is a token. A very long piece is
//! counted by backtracking instead (`backtrack`), to the same count in linear time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::backtrack::Backtrack;
use crate::vocab::Vocab;

/// Pieces up to this length merge in place on the stack; longer ones use a heap (or
/// backtracking, see [`LONG`]).
const SMALL: usize = 64;
/// Pieces of at least this length are counted by backtracking (linear in the length) rather
/// than by the heap's `O(n log n)` merge once its tables are built: it is faster from about
/// here (BENCHMARKS.md, "One unbroken word, counted in linear time").
const LONG: usize = 16 * 1024;
/// The first piece of at least this length builds the backtracking tables, a one-off cost of
/// about what the heap spends on a piece this long.
const HUGE: usize = 256 * 1024;
const NONE: u32 = u32::MAX;

/// How pieces longer than [`SMALL`] bytes are counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum LongPieces {
    /// By backtracking from [`LONG`] bytes once the tables are built, and from [`HUGE`] bytes
    /// in any case; by the heap below.
    Auto,
    /// By backtracking over valid token pairs, linear in the piece's length (for the bench).
    Backtrack,
    /// By the heap's merge, `O(n log n)` (for the bench).
    Merge,
}

/// The number of tokens of `piece` (non-empty), whose hash is `hash`.
#[inline]
pub(crate) fn count_piece(vocab: &Vocab, piece: &[u8], hash: u64) -> usize {
    count_piece_with(vocab, piece, hash, LongPieces::Auto)
}

/// [`count_piece`], with long pieces counted as `long` says.
#[inline]
pub(crate) fn count_piece_with(vocab: &Vocab, piece: &[u8], hash: u64, long: LongPieces) -> usize {
    // Every single byte is a token (checked by the build script).
    if piece.len() == 1 || vocab.rank_hashed(piece, hash).is_some() {
        return 1;
    }
    if piece.len() <= SMALL {
        merge_small(vocab, piece)
    } else {
        count_long(vocab, piece, long)
    }
}

/// The count of a piece of more than [`SMALL`] bytes; kept out of line, off the path of
/// ordinary text's short pieces.
#[inline(never)]
fn count_long(vocab: &Vocab, piece: &[u8], long: LongPieces) -> usize {
    backtracking(vocab, piece.len(), long)
        .and_then(|tables| tables.count(vocab, piece))
        .unwrap_or_else(|| merge_large(vocab, piece))
}

/// The backtracking tables if a piece of `len` bytes (more than [`SMALL`]) is to be counted
/// with them.
fn backtracking(vocab: &Vocab, len: usize, long: LongPieces) -> Option<&Backtrack> {
    match long {
        LongPieces::Auto if len >= HUGE => Backtrack::of(vocab),
        LongPieces::Auto if len >= LONG => Backtrack::if_built(vocab),
        LongPieces::Auto | LongPieces::Merge => None,
        LongPieces::Backtrack => Backtrack::of(vocab),
    }
}

#[inline(always)]
fn rank_of(vocab: &Vocab, bytes: &[u8]) -> u32 {
    vocab.rank(bytes).unwrap_or(NONE)
}

/// Part `k` spans `starts[k]..starts[k + 1]`; `ranks[k]` is the rank of parts `k` and `k + 1`
/// merged. O(n²) in the worst case, fast for the short pieces of ordinary text.
fn merge_small(vocab: &Vocab, piece: &[u8]) -> usize {
    let n = piece.len();
    let mut starts = [0u8; SMALL + 1];
    let mut ranks = [NONE; SMALL];
    for (k, start) in starts.iter_mut().enumerate().take(n + 1) {
        *start = k as u8;
    }
    for k in 0..n - 1 {
        ranks[k] = rank_of(vocab, &piece[k..k + 2]);
    }
    let mut parts = n;
    loop {
        let mut best = NONE;
        let mut at = 0;
        for (k, &rank) in ranks[..parts - 1].iter().enumerate() {
            if rank < best {
                best = rank;
                at = k;
            }
        }
        if best == NONE {
            return parts;
        }
        // Merge parts `at` and `at + 1`: drop the start of `at + 1` and the pair rank that
        // began there, then re-rank the pairs on both sides of the merged part.
        starts.copy_within(at + 2..parts + 1, at + 1);
        ranks.copy_within((at + 2).min(parts - 1)..parts - 1, at + 1);
        parts -= 1;
        let span = |k: usize| &piece[starts[k] as usize..starts[k + 2] as usize];
        ranks[at] = if at + 1 < parts {
            rank_of(vocab, span(at))
        } else {
            NONE
        };
        if at > 0 {
            ranks[at - 1] = rank_of(vocab, span(at - 1));
        }
    }
}

/// The same merge order with a priority queue of `(rank, start)`, O(n log n): the part starting
/// at `s` ends at `end[s]`, `pair[s]` is the rank of it merged with its right neighbour (stale
/// queue entries are those whose rank no longer matches).
fn merge_large(vocab: &Vocab, piece: &[u8]) -> usize {
    if piece.len() > u32::MAX as usize {
        return merge_huge(vocab, piece);
    }
    // One `u64` per queue entry, rank above start, orders as `(rank, start)` and halves the
    // heap's memory traffic (a megabyte-long word queues millions of entries).
    merge_queued(
        vocab,
        piece,
        |rank, s| (u64::from(rank) << 32) | s as u64,
        |entry| ((entry >> 32) as u32, (entry & u64::from(u32::MAX)) as usize),
    )
}

/// [`merge_large`] for pieces of 4 GiB or more, whose starts do not fit its packed keys.
fn merge_huge(vocab: &Vocab, piece: &[u8]) -> usize {
    merge_queued(vocab, piece, |rank, s| (rank, s), |entry| entry)
}

/// The queued merge, with queue entries made by `pack` (ordered as `(rank, start)`) and read
/// back by `unpack`.
fn merge_queued<K: Ord + Copy>(
    vocab: &Vocab,
    piece: &[u8],
    pack: impl Fn(u32, usize) -> K,
    unpack: impl Fn(K) -> (u32, usize),
) -> usize {
    let n = piece.len();
    let mut end: Vec<usize> = (1..=n).collect();
    let mut prev: Vec<usize> = (0..n).map(|s| s.wrapping_sub(1)).collect();
    let mut pair = vec![NONE; n];
    let mut queue = BinaryHeap::with_capacity(n);
    for s in 0..n - 1 {
        let rank = rank_of(vocab, &piece[s..s + 2]);
        if rank != NONE {
            pair[s] = rank;
            queue.push(Reverse(pack(rank, s)));
        }
    }
    let mut parts = n;
    while let Some(Reverse(entry)) = queue.pop() {
        let (rank, s) = unpack(entry);
        if pair[s] != rank {
            continue;
        }
        let right = end[s];
        let new_end = end[right];
        end[s] = new_end;
        pair[right] = NONE;
        parts -= 1;
        pair[s] = NONE;
        if new_end < n {
            prev[new_end] = s;
            let rank = rank_of(vocab, &piece[s..end[new_end]]);
            if rank != NONE {
                pair[s] = rank;
                queue.push(Reverse(pack(rank, s)));
            }
        }
        if s > 0 {
            let p = prev[s];
            let rank = rank_of(vocab, &piece[p..new_end]);
            pair[p] = rank;
            if rank != NONE {
                queue.push(Reverse(pack(rank, p)));
            }
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn vocab() -> &'static Vocab {
        #[cfg(feature = "cl100k")]
        return &crate::vocab::cl100k::VOCAB;
        #[cfg(not(feature = "cl100k"))]
        return &crate::vocab::o200k::VOCAB;
    }

    /// Pieces long enough for backtracking count as the heap merges them, whether their
    /// length builds the tables or only uses them once built, for both encodings.
    #[test]
    fn long_pieces_are_counted_by_backtracking_as_merged() {
        let vocabularies = [
            #[cfg(feature = "cl100k")]
            &crate::vocab::cl100k::VOCAB,
            #[cfg(feature = "o200k")]
            &crate::vocab::o200k::VOCAB,
        ];
        let letters: Vec<u8> = (0..HUGE as u64 + 7)
            .map(|k| b'a' + (k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 59) as u8 % 26)
            .collect();
        for vocab in vocabularies {
            for piece in [&b"ab".repeat(HUGE / 2)[..], &letters, &letters[..LONG + 3]] {
                let hash = crate::hash::hash(piece);
                let merged = merge_large(vocab, piece);
                assert_eq!(count_piece(vocab, piece, hash), merged);
                assert_eq!(
                    count_piece_with(vocab, piece, hash, LongPieces::Backtrack),
                    merged
                );
            }
            assert!(Backtrack::if_built(vocab).is_some());
        }
    }

    proptest! {
        /// The in-place merge and the queue merge take the same steps (the oracle tests cover
        /// each only on one side of the 64-byte switch).
        #[test]
        fn small_and_large_merges_agree(piece in "[a-e ]{2,64}|[a-zA-Z]{2,64}|\\PC{1,16}") {
            let bytes = piece.as_bytes();
            prop_assume!(bytes.len() >= 2 && bytes.len() <= SMALL);
            prop_assert_eq!(merge_small(vocab(), bytes), merge_large(vocab(), bytes));
            prop_assert_eq!(merge_huge(vocab(), bytes), merge_large(vocab(), bytes));
        }
    }
}

/// The backtracking count against the heap merge, for both encodings.
#[cfg(test)]
mod backtracking_tests {
    use super::*;
    use crate::Encoding;
    use proptest::prelude::*;

    fn vocabularies() -> Vec<(&'static str, &'static Vocab)> {
        vec![
            #[cfg(feature = "cl100k")]
            ("cl100k", &crate::vocab::cl100k::VOCAB),
            #[cfg(feature = "o200k")]
            ("o200k", &crate::vocab::o200k::VOCAB),
        ]
    }

    fn tables(vocab: &Vocab) -> &'static Backtrack {
        Backtrack::of(vocab).expect("the vocabulary is counted by backtracking")
    }

    /// The heap merge's count (the reference here; the oracle tests tie it to tiktoken).
    fn merged(vocab: &Vocab, piece: &[u8]) -> usize {
        if piece.len() == 1 {
            1
        } else {
            merge_large(vocab, piece)
        }
    }

    fn agree(name: &str, vocab: &Vocab, piece: &[u8]) -> Result<(), TestCaseError> {
        prop_assert_eq!(
            tables(vocab).count(vocab, piece),
            Some(merged(vocab, piece)),
            "{}: {:?}",
            name,
            String::from_utf8_lossy(&piece[..piece.len().min(200)])
        );
        Ok(())
    }

    /// A fixed pseudo-random sequence (the same on every run).
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((self.0 >> 33) as usize) % n
        }

        fn text(&mut self, alphabet: &[&str], len: usize) -> String {
            let mut text = String::new();
            while text.len() < len {
                text.push_str(alphabet[self.below(alphabet.len())]);
            }
            text
        }
    }

    fn chars(s: &str) -> Vec<String> {
        s.chars().map(String::from).collect()
    }

    /// The alphabets of the long pieces below: letters, cases, base64, digits, CJK, emoji,
    /// punctuation, whitespace, accented and combining letters.
    fn alphabets() -> Vec<Vec<String>> {
        let base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";
        vec![
            chars("abcdefghijklmnopqrstuvwxyz"),
            chars("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
            chars("ab"),
            chars("a"),
            chars("eiaonrst"),
            chars(base64),
            chars("0123456789"),
            chars("日本語の説明文支付服务결제漢字中文"),
            chars("🚀👍🏽🎉😀❤️✨"),
            chars("-=*#.!/()[]{}<>_~^|\\\"'`:;,?@$%&+"),
            chars(" \t\n"),
            chars("éèàüöäßçñøåœ\u{301}\u{300}"),
            chars("Платёжабвгдеёжзийклмнопрстуфхцчшщъыьэюя"),
            vec!["ab".into(), "abc".into(), "aab".into(), "ba".into()],
            vec![
                "the".into(),
                "ing".into(),
                "tion".into(),
                "er".into(),
                "s".into(),
            ],
            vec!["\u{a0}".into(), " ".into(), "x".into()],
        ]
    }

    /// Every token's own bytes, and every token doubled, count as the merge counts them.
    #[test]
    fn every_token_and_every_token_doubled() {
        for (name, vocab) in vocabularies() {
            for word in vocab.table.chunks_exact(8) {
                let mut le = [0u8; 8];
                le.copy_from_slice(word);
                let s = u64::from_le_bytes(le);
                if s == 0 {
                    continue;
                }
                let offset = crate::slot::slot_offset(s);
                let bytes = &vocab.blob[offset..offset + crate::slot::slot_len(s)];
                agree(name, vocab, bytes).unwrap();
                agree(name, vocab, &bytes.repeat(2)).unwrap();
            }
        }
    }

    /// Long pieces of many shapes, raw and as the pre-tokenizer cuts them.
    #[test]
    fn long_pieces_count_as_merged() {
        let mut random = Lcg(0x5eed_0bac_7ac4_0001);
        for (name, vocab) in vocabularies() {
            let encoding: Encoding = name.parse().unwrap();
            for alphabet in alphabets() {
                let alphabet: Vec<&str> = alphabet.iter().map(String::as_str).collect();
                for len in [65, 300, 1_000, 5_000] {
                    let text = random.text(&alphabet, len);
                    agree(name, vocab, text.as_bytes()).unwrap();
                    let spaced = format!(" {text}");
                    for piece in encoding.pre_tokens(&spaced) {
                        agree(name, vocab, piece.as_bytes()).unwrap();
                    }
                }
            }
            // Arbitrary bytes, not even UTF-8.
            for len in [100, 3_000] {
                let bytes: Vec<u8> = (0..len).map(|_| random.below(256) as u8).collect();
                agree(name, vocab, &bytes).unwrap();
            }
        }
    }

    proptest! {
        /// Arbitrary text, and runs of one kind of character, count as merged.
        #[test]
        fn backtracking_counts_as_merged(
            text in "\\PC{2,300}",
            letters in "[a-zA-Z]{2,600}",
            few in "[ab ]{2,600}",
            symbols in "[-=*#.!/🚀日本é ]{2,400}",
        ) {
            for (name, vocab) in vocabularies() {
                for piece in [&text, &letters, &few, &symbols] {
                    agree(name, vocab, piece.as_bytes())?;
                }
            }
        }
    }
}
