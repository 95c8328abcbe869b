//! A count linear in the length of one long pre-token, equal to the rank-ordered merge's.
//!
//! The merge of a piece ends in the one sequence of tokens in which every token is *reachable*
//! (its own bytes merge back into it) and every adjacent pair is *valid* (the bytes of the two,
//! merged by the rank rule, give back exactly the two). So instead of merging, the piece is read
//! left to right: at each position the longest reachable token that matches is taken if it pairs
//! validly with the token before it, else the next shorter one; when none is left, the position
//! is dead (no encoding passes through it) and the token before is taken back. Each position
//! dies at most once and is tried with at most the tokens that end within the longest token's
//! reach, so the work is linear in the piece's length.
//!
//! The tables this needs (each token's split, a trie of the tokens, a filter of which tokens a
//! byte extends) are built from the vocabulary the first time a long piece is counted, once per
//! process and encoding; a vocabulary they do not describe faithfully is refused when they are
//! built (see [`Backtrack::build`]), and its pieces keep the merge.

use std::sync::OnceLock;

use crate::vocab::Vocab;

const NONE: u32 = u32::MAX;

/// Each encoding's tables (by [`Vocab::index`]), built on first use; `None` for a vocabulary
/// this method does not count exactly.
static TABLES: [OnceLock<Option<Backtrack>>; 2] = [const { OnceLock::new() }; 2];

/// One encoding's tables for the backtracking count.
pub(crate) struct Backtrack {
    /// Where each token's bytes start in the vocabulary's blob, by rank; one more entry at the
    /// end.
    start: Vec<u32>,
    /// The two tokens whose merge last builds each token when its own bytes are merged;
    /// `[NONE, NONE]` for a single byte (built by no merge) and for an unreachable token.
    split: Vec<[u32; 2]>,
    /// The longest reachable token that is a proper prefix of each reachable token, or `NONE`.
    shorter: Vec<u32>,
    trie: Trie,
    /// A filter of the pairs (token, byte) that begin a longer token: a bit per hash of the
    /// pair, clear if none does, so most concatenations that are not tokens are known without
    /// a lookup.
    extends: Vec<u64>,
}

/// The tokens as a trie; node 0 is the root, the children of a node are consecutive
/// and ordered by their byte.
struct Trie {
    /// The first child of each node.
    first: Vec<u32>,
    /// The number of children of each node.
    degree: Vec<u16>,
    /// The byte that leads to each node from its parent (0 for the root).
    label: Vec<u8>,
    /// The reachable token spelled by the path to each node, or `NONE`.
    token: Vec<u32>,
}

/// Bits of the hash of a (token, byte) pair that pick its bit in [`Backtrack::extends`].
const EXTENDS_BITS: u32 = 21;

/// The bit of `(token, byte)` in [`Backtrack::extends`].
#[inline(always)]
fn extends_bit(token: u32, byte: u8) -> usize {
    let key = (u64::from(token) << 8) | u64::from(byte);
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - EXTENDS_BITS)) as usize
}

impl Backtrack {
    /// `vocab`'s tables, built now if they are not yet.
    pub(crate) fn of(vocab: &Vocab) -> Option<&'static Backtrack> {
        TABLES
            .get(vocab.index)?
            .get_or_init(|| Backtrack::build(vocab))
            .as_ref()
    }

    /// `vocab`'s tables if they are built already.
    pub(crate) fn if_built(vocab: &Vocab) -> Option<&'static Backtrack> {
        TABLES.get(vocab.index)?.get().and_then(Option::as_ref)
    }

    /// The tables for `vocab`, or `None` when the vocabulary is not one this method counts
    /// exactly: a token built from parts of higher rank than its own (merges would then not come
    /// in rank order), or a token whose own split the validity test would refuse.
    pub(crate) fn build(vocab: &Vocab) -> Option<Backtrack> {
        let start = token_starts(vocab)?;
        let tokens = start.len() - 1;
        let mut split = vec![[NONE; 2]; tokens];
        let mut reachable = vec![false; tokens];
        for rank in 0..tokens {
            let bytes = &vocab.blob[start[rank] as usize..start[rank + 1] as usize];
            if bytes.len() == 1 {
                reachable[rank] = true;
            } else if let Some(parts) = last_merge(vocab, bytes) {
                split[rank] = parts;
                reachable[rank] = true;
            }
        }
        let (trie, shorter, extends) = Trie::build(vocab, &start, &reachable);
        // Every byte is a reachable token (the root's children, in byte order), so a longest
        // match always exists.
        let bytes_are_tokens = trie.degree.first() == Some(&256)
            && trie.token[1..257].iter().all(|&token| token != NONE);
        if !bytes_are_tokens {
            return None;
        }
        let tables = Backtrack {
            start,
            split,
            shorter,
            trie,
            extends,
        };
        tables.is_faithful(vocab).then_some(tables)
    }

    /// Whether every reachable token's parts have lower ranks than the token (so merges happen
    /// in rank order) and pair validly up to the token's own merge.
    fn is_faithful(&self, vocab: &Vocab) -> bool {
        (0..self.split.len() as u32).all(|token| {
            let [left, right] = self.split[token as usize];
            if left == NONE {
                return true;
            }
            let ordered = |part: u32| self.len(part) == 1 || (!self.is_leaf(part) && part < token);
            let bytes = self.bytes(vocab, token);
            ordered(left)
                && ordered(right)
                && self.pairs_below(vocab, bytes, self.len(left), [left, right], token)
        })
    }

    /// The number of tokens of `piece`, or `None` if no sequence of reachable tokens in valid
    /// pairs spells it (the caller then merges; not seen with either vocabulary).
    pub(crate) fn count(&self, vocab: &Vocab, piece: &[u8]) -> Option<usize> {
        let n = piece.len();
        let mut dead = vec![0u64; n / 64 + 1];
        let is_dead = |dead: &[u64], at: usize| (dead[at / 64] >> (at % 64)) & 1 == 1;
        let mut tokens: Vec<u32> = Vec::with_capacity(n / 4);
        let mut known = KnownPairs::new();
        let mut pos = 0;
        let mut next = self.longest(piece, 0);
        while pos < n {
            let end = pos + self.len(next);
            let fits = end == n || !is_dead(&dead, end);
            if fits
                && tokens.last().is_none_or(|&last| {
                    known.pairs(last, next, || self.pairs(vocab, piece, pos, last, next))
                })
            {
                tokens.push(next);
                pos = end;
                if pos < n {
                    next = self.longest(piece, pos);
                }
            } else if self.shorter[next as usize] != NONE {
                next = self.shorter[next as usize];
            } else {
                dead[pos / 64] |= 1 << (pos % 64);
                let last = tokens.pop()?;
                pos -= self.len(last);
                // Tried again at its own start: its end is now dead, so a shorter one follows.
                next = last;
            }
        }
        Some(tokens.len())
    }

    /// The longest reachable token that `piece[pos..]` starts with (every byte is one).
    #[inline]
    fn longest(&self, piece: &[u8], pos: usize) -> u32 {
        let trie = &self.trie;
        let mut node = 0usize;
        let mut best = NONE;
        for &byte in &piece[pos..] {
            let first = trie.first[node] as usize;
            let labels = &trie.label[first..first + trie.degree[node] as usize];
            // The root has a child for every byte, in byte order.
            let at = if labels.len() == 256 {
                byte as usize
            } else {
                match labels.binary_search(&byte) {
                    Ok(at) => at,
                    Err(_) => break,
                }
            };
            node = first + at;
            if trie.token[node] != NONE {
                best = trie.token[node];
            }
        }
        best
    }

    /// Whether `left` then `right`, meeting at byte `at` of `piece`, is a valid pair.
    #[inline]
    fn pairs(&self, vocab: &Vocab, piece: &[u8], at: usize, left: u32, right: u32) -> bool {
        self.pairs_below(vocab, piece, at, [left, right], NONE)
    }

    /// Whether merging the bytes of `left` then `right` (meeting at byte `at` of `piece`) by
    /// the rank rule keeps them apart until a merge of rank `limit` changes either side.
    ///
    /// Without a merge across the boundary, each side is built as on its own, by its split
    /// tree, in rank order. Walking back from the last merge, the two parts touching the
    /// boundary stay as they are until the next merge that builds one of them, of rank `limit`;
    /// their concatenation, if a token of lower rank, would have merged first (of equal rank
    /// too when that merge lies to its right: the leftmost of equals goes first).
    fn pairs_below(
        &self,
        vocab: &Vocab,
        piece: &[u8],
        at: usize,
        [mut left, mut right]: [u32; 2],
        mut limit: u32,
    ) -> bool {
        loop {
            if self.may_extend(left, piece[at]) {
                let span = &piece[at - self.len(left)..at + self.len(right)];
                if vocab.rank(span).is_some_and(|rank| rank < limit) {
                    return false;
                }
            }
            let right_later = !self.is_leaf(right) && (self.is_leaf(left) || right >= left);
            if right_later {
                limit = right.saturating_add(1);
                right = self.split[right as usize][0];
            } else if !self.is_leaf(left) {
                limit = left;
                left = self.split[left as usize][1];
            } else {
                return true;
            }
        }
    }

    /// False when no token begins with `token`'s bytes followed by `byte`.
    #[inline(always)]
    fn may_extend(&self, token: u32, byte: u8) -> bool {
        let bit = extends_bit(token, byte);
        (self.extends[bit / 64] >> (bit % 64)) & 1 == 1
    }

    fn is_leaf(&self, token: u32) -> bool {
        self.split[token as usize][0] == NONE
    }

    #[inline(always)]
    fn len(&self, token: u32) -> usize {
        (self.start[token as usize + 1] - self.start[token as usize]) as usize
    }

    fn bytes<'v>(&self, vocab: &'v Vocab, token: u32) -> &'v [u8] {
        let start = self.start[token as usize] as usize;
        &vocab.blob[start..start + self.len(token)]
    }

    /// The bytes the tables take, for the benchmark's figures.
    #[cfg(test)]
    pub(crate) fn heap_bytes(&self) -> usize {
        self.start.len() * 4
            + self.split.len() * 8
            + self.shorter.len() * 4
            + self.trie.first.len() * 4
            + self.trie.degree.len() * 2
            + self.trie.label.len()
            + self.trie.token.len() * 4
            + self.extends.len() * 8
    }
}

/// Whether recent pairs of tokens were valid: a long piece of few characters repeats its pairs,
/// and a hit saves the walk down both tokens' splits. Direct-mapped and small enough to stay
/// in the first-level cache (a larger one costs random text more than it saves); an entry is
/// the pair shifted past two bits, a bit that marks it taken and the answer (zero is empty).
struct KnownPairs {
    entries: Vec<u64>,
}

impl KnownPairs {
    const BITS: u32 = 8;

    fn new() -> Self {
        KnownPairs {
            entries: vec![0; 1 << Self::BITS],
        }
    }

    /// Whether `left` then `right` is a valid pair, from memory or by `decide`.
    #[inline]
    fn pairs(&mut self, left: u32, right: u32, decide: impl FnOnce() -> bool) -> bool {
        // Ranks take 18 bits, so the pair takes 50 and the entry 52.
        let key = (u64::from(left) << 32) | u64::from(right);
        let at = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - Self::BITS)) as usize;
        let entry = self.entries[at];
        if entry >> 2 == key && entry & 2 != 0 {
            return entry & 1 == 1;
        }
        let valid = decide();
        self.entries[at] = (key << 2) | 2 | u64::from(valid);
        valid
    }
}

/// Where each token's bytes start in the blob (tokens lie there end to end by rank), plus the
/// end of the last; `None` if the table does not cover the blob so.
fn token_starts(vocab: &Vocab) -> Option<Vec<u32>> {
    use crate::slot;
    let mut lens: Vec<(u32, u32)> = Vec::new();
    for word in vocab.table.chunks_exact(8) {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        let s = u64::from_le_bytes(bytes);
        if s != 0 {
            lens.push((slot::slot_rank(s), slot::slot_offset(s) as u32));
        }
    }
    lens.sort_unstable();
    let mut start: Vec<u32> = lens.iter().map(|&(_, offset)| offset).collect();
    start.push(vocab.blob.len() as u32);
    let dense = lens
        .iter()
        .enumerate()
        .all(|(k, &(rank, _))| rank as usize == k);
    (dense && start.windows(2).all(|w| w[0] < w[1])).then_some(start)
}

/// The two tokens that the rank-ordered merge of `bytes` (a token of two bytes or more) joins
/// last, or `None` if the merge stops before one part is left (the token is unreachable).
fn last_merge(vocab: &Vocab, bytes: &[u8]) -> Option<[u32; 2]> {
    // Part k spans starts[k]..starts[k + 1]; ranks[k] is the rank of parts k and k + 1 joined.
    let mut starts: Vec<usize> = (0..=bytes.len()).collect();
    let pair = |starts: &[usize], k: usize| vocab.rank(&bytes[starts[k]..starts[k + 2]]);
    let mut ranks: Vec<u32> = (0..bytes.len() - 1)
        .map(|k| pair(&starts, k).unwrap_or(NONE))
        .collect();
    while ranks.len() > 1 {
        let (at, &best) = ranks
            .iter()
            .enumerate()
            .min_by_key(|&(k, &rank)| (rank, k))?;
        if best == NONE {
            return None;
        }
        starts.remove(at + 1);
        ranks.remove(at);
        if at < ranks.len() {
            ranks[at] = pair(&starts, at).unwrap_or(NONE);
        }
        if at > 0 {
            ranks[at - 1] = pair(&starts, at - 1).unwrap_or(NONE);
        }
    }
    let cut = starts[1];
    Some([vocab.rank(&bytes[..cut])?, vocab.rank(&bytes[cut..])?])
}

/// A trie node still to be laid out: the sorted tokens `lo..hi` all begin with the node's
/// `depth` bytes; `above` is the longest token on the path to the node, excluding its own.
/// (`u32`s: a queue entry per node, and o200k's trie has about 420,000.)
struct Pending {
    lo: u32,
    hi: u32,
    depth: u32,
    above: u32,
}

impl Trie {
    /// The trie of the tokens, laid out breadth first (so each node's children are
    /// consecutive), for each token the longest reachable token that is a proper prefix, and
    /// the filter [`Backtrack::extends`].
    fn build(vocab: &Vocab, start: &[u32], reachable: &[bool]) -> (Trie, Vec<u32>, Vec<u64>) {
        let bytes = |token: u32| {
            &vocab.blob[start[token as usize] as usize..start[token as usize + 1] as usize]
        };
        let mut order: Vec<u32> = (0..reachable.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| bytes(a).cmp(bytes(b)));
        let mut shorter = vec![NONE; reachable.len()];
        let mut extends = vec![0u64; 1 << (EXTENDS_BITS - 6)];
        let mut trie = Trie {
            first: Vec::new(),
            degree: Vec::new(),
            label: vec![0],
            token: Vec::new(),
        };
        let mut queue = vec![Pending {
            lo: 0,
            hi: order.len() as u32,
            depth: 0,
            above: NONE,
        }];
        let mut head = 0;
        while let Some(&Pending {
            lo,
            hi,
            depth,
            above,
        }) = queue.get(head)
        {
            head += 1;
            let (lo, hi, depth) = (lo as usize, hi as usize, depth as usize);
            // The token ending here, if any, sorts first among those below the node.
            let own = order
                .get(lo)
                .copied()
                .filter(|&t| lo < hi && bytes(t).len() == depth);
            let usable = own.filter(|&token| reachable[token as usize]);
            if let Some(token) = usable {
                shorter[token as usize] = above;
            }
            trie.token.push(usable.unwrap_or(NONE));
            trie.first.push(queue.len() as u32);
            let below = usable.unwrap_or(above);
            let mut k = lo + usize::from(own.is_some());
            while k < hi {
                let byte = bytes(order[k])[depth];
                let mut end = k + 1;
                while end < hi && bytes(order[end])[depth] == byte {
                    end += 1;
                }
                trie.label.push(byte);
                if let Some(token) = own {
                    let bit = extends_bit(token, byte);
                    extends[bit / 64] |= 1 << (bit % 64);
                }
                queue.push(Pending {
                    lo: k as u32,
                    hi: end as u32,
                    depth: depth as u32 + 1,
                    above: below,
                });
                k = end;
            }
            trie.degree
                .push((queue.len() - *trie.first.last().unwrap_or(&0) as usize) as u16);
        }
        (trie, shorter, extends)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both vocabularies pass the build's own checks (a token's parts rank below it, its split
    /// pairs validly); the comparisons with the merge are `merge`'s tests.
    #[test]
    fn both_vocabularies_are_counted_by_backtracking() {
        let vocabularies = [
            #[cfg(feature = "cl100k")]
            ("cl100k", &crate::vocab::cl100k::VOCAB),
            #[cfg(feature = "o200k")]
            ("o200k", &crate::vocab::o200k::VOCAB),
        ];
        for (name, vocab) in vocabularies {
            let tables = Backtrack::of(vocab);
            assert!(tables.is_some(), "{name}");
            if let Some(tables) = tables {
                let unreachable = (0..tables.split.len() as u32)
                    .filter(|&t| tables.len(t) > 1 && tables.is_leaf(t))
                    .count();
                println!(
                    "{name}: {} trie nodes, {} bytes of tables, {unreachable} unreachable tokens",
                    tables.trie.token.len(),
                    tables.heap_bytes()
                );
                // A single byte counts as one token.
                assert_eq!(tables.count(vocab, b"a"), Some(1));
                assert_eq!(tables.count(vocab, b""), Some(0));
            }
        }
    }
}
