//! A vocabulary read in place from static tables: the token bytes end to end (the blob) and an
//! open-addressing hash table of slots (`slot`) built by the build script. Nothing is parsed or
//! allocated when a process starts counting.

use crate::hash::hash;
use crate::slot;

/// One encoding's byte-string → rank map.
pub(crate) struct Vocab {
    /// Little-endian `u64` slots; the last is empty, so every probe ends inside.
    pub(crate) table: &'static [u8],
    /// The token bytes by rank, end to end.
    pub(crate) blob: &'static [u8],
    /// The number of home slots (probes continue past them, never wrap).
    pub(crate) home_slots: usize,
    /// The longest token, in bytes.
    pub(crate) max_len: usize,
    /// The encoding's number (0 for cl100k, 1 for o200k), which indexes per-encoding state
    /// kept elsewhere.
    pub(crate) index: usize,
}

impl Vocab {
    #[inline(always)]
    fn slot(&self, at: usize) -> u64 {
        let mut word = [0u8; 8];
        word.copy_from_slice(&self.table[at * 8..at * 8 + 8]);
        u64::from_le_bytes(word)
    }

    /// The rank of the token whose bytes are `piece`, if there is one.
    #[inline]
    pub(crate) fn rank(&self, piece: &[u8]) -> Option<u32> {
        if piece.len() > self.max_len {
            return None;
        }
        self.rank_hashed(piece, hash(piece))
    }

    /// [`Vocab::rank`] with the piece's hash already computed.
    #[inline]
    pub(crate) fn rank_hashed(&self, piece: &[u8], h: u64) -> Option<u32> {
        if piece.len() > self.max_len {
            return None;
        }
        let tag = slot::tag(h);
        let mut at = slot::home(h, self.home_slots);
        loop {
            let s = self.slot(at);
            if s == 0 {
                return None;
            }
            if slot::slot_tag(s) == tag && slot::slot_len(s) == piece.len() {
                let offset = slot::slot_offset(s);
                if same(&self.blob[offset..offset + piece.len()], piece) {
                    return Some(slot::slot_rank(s));
                }
            }
            at += 1;
        }
    }
}

/// Whether two byte strings of the same length are equal; short ones are compared as one or two
/// overlapping words, which beats a call to `memcmp` for the few bytes of a typical token.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    let len = a.len();
    debug_assert_eq!(len, b.len());
    if len >= 8 {
        if len > 16 {
            return a == b;
        }
        let word = |s: &[u8], at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&s[at..at + 8]);
            u64::from_ne_bytes(w)
        };
        word(a, 0) == word(b, 0) && word(a, len - 8) == word(b, len - 8)
    } else if len >= 4 {
        let half = |s: &[u8], at: usize| {
            let mut w = [0u8; 4];
            w.copy_from_slice(&s[at..at + 4]);
            u32::from_ne_bytes(w)
        };
        half(a, 0) == half(b, 0) && half(a, len - 4) == half(b, len - 4)
    } else {
        a.iter().zip(b).all(|(x, y)| x == y)
    }
}

#[cfg(feature = "cl100k")]
pub(crate) mod cl100k {
    include!(concat!(env!("OUT_DIR"), "/cl100k.rs"));

    /// cl100k_base's 100,256 ordinary tokens.
    pub(crate) static VOCAB: super::Vocab = super::Vocab {
        table: include_bytes!(concat!(env!("OUT_DIR"), "/cl100k.table")),
        blob: include_bytes!(concat!(env!("OUT_DIR"), "/cl100k.blob")),
        home_slots: HOME_SLOTS,
        max_len: MAX_LEN,
        index: 0,
    };
}

#[cfg(feature = "o200k")]
pub(crate) mod o200k {
    include!(concat!(env!("OUT_DIR"), "/o200k.rs"));

    /// o200k_base's 199,998 ordinary tokens.
    pub(crate) static VOCAB: super::Vocab = super::Vocab {
        table: include_bytes!(concat!(env!("OUT_DIR"), "/o200k.table")),
        blob: include_bytes!(concat!(env!("OUT_DIR"), "/o200k.blob")),
        home_slots: HOME_SLOTS,
        max_len: MAX_LEN,
        index: 1,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocabularies() -> Vec<(&'static str, &'static Vocab, usize)> {
        vec![
            #[cfg(feature = "cl100k")]
            ("cl100k", &cl100k::VOCAB, 100_256),
            #[cfg(feature = "o200k")]
            ("o200k", &o200k::VOCAB, 199_998),
        ]
    }

    /// Every slot's token is found again, under its own rank, and ranks are dense.
    #[test]
    fn every_token_is_found_under_its_rank() {
        for (name, vocab, tokens) in vocabularies() {
            let mut seen = vec![false; tokens];
            for at in 0..vocab.table.len() / 8 {
                let s = vocab.slot(at);
                if s == 0 {
                    continue;
                }
                let offset = slot::slot_offset(s);
                let bytes = &vocab.blob[offset..offset + slot::slot_len(s)];
                let rank = slot::slot_rank(s);
                assert_eq!(vocab.rank(bytes), Some(rank), "{name}: {bytes:?}");
                assert!(!seen[rank as usize], "{name}: rank {rank} twice");
                seen[rank as usize] = true;
            }
            assert!(seen.iter().all(|&s| s), "{name}: every rank has a slot");
            assert_eq!(vocab.table.len() % 8, 0);
            assert_eq!(
                vocab.slot(vocab.table.len() / 8 - 1),
                0,
                "{name}: ends empty"
            );
        }
    }

    #[test]
    fn strings_that_are_not_tokens_are_not_found() {
        for (name, vocab, _) in vocabularies() {
            for missing in [
                &b""[..],
                b"qzxqzxqzx",
                b"hello world, how are you",
                &[0xff; 300],
            ] {
                assert_eq!(vocab.rank(missing), None, "{name}: {missing:?}");
            }
            assert!(vocab.rank(b" the").is_some(), "{name}");
        }
    }
}
