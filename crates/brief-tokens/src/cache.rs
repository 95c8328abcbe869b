//! A per-thread memo of recent pieces and their token counts. Text repeats its words, and a
//! piece found here costs one access to a small table instead of a probe into the multi-megabyte
//! vocabulary (and, for pieces that are not tokens, a whole merge). Entries hold the piece's
//! bytes, so a hit is exact.

use std::cell::RefCell;

use crate::hash::hash;
use crate::merge;
use crate::vocab::Vocab;

/// Pieces longer than this are not remembered (they are rare).
const LONGEST: usize = 16;
const SLOTS: usize = 4096;

/// A remembered piece: its bytes as two little-endian words, zero-padded, its length (0 for an
/// empty entry) and its token count.
#[derive(Clone, Copy)]
struct Entry {
    lo: u64,
    hi: u64,
    len: u32,
    count: u32,
}

const EMPTY: Entry = Entry {
    lo: 0,
    hi: 0,
    len: 0,
    count: 0,
};

/// One encoding's memo.
pub(crate) struct Memo {
    entries: Box<[Entry]>,
}

#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(w)
}

/// The low `n` bytes (0 ≤ n ≤ 8) of a little-endian word.
#[inline(always)]
fn low_bytes(n: usize) -> u64 {
    if n >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * n)) - 1
    }
}

impl Memo {
    fn new() -> Self {
        Memo {
            entries: vec![EMPTY; SLOTS].into_boxed_slice(),
        }
    }

    /// The number of tokens of the piece `text[start..end]` (non-empty) under `vocab`.
    #[inline(always)]
    pub(crate) fn count(&mut self, vocab: &Vocab, text: &[u8], start: usize, end: usize) -> usize {
        let len = end - start;
        let piece = &text[start..end];
        if len == 1 {
            return 1;
        }
        if len > LONGEST {
            return merge::count_piece(vocab, piece, hash(piece));
        }
        // The piece as two zero-padded words, read in place unless it is too near the end.
        let (lo, hi) = if start + LONGEST <= text.len() {
            (word(text, start), word(text, start + 8))
        } else {
            let mut padded = [0u8; LONGEST];
            padded[..len].copy_from_slice(piece);
            (word(&padded, 0), word(&padded, 8))
        };
        let (lo, hi) = if len >= 8 {
            (lo, hi & low_bytes(len - 8))
        } else {
            (lo & low_bytes(len), 0)
        };
        let mix = (lo ^ hi.rotate_left(29) ^ len as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let entry = &mut self.entries[(mix >> (64 - SLOTS.trailing_zeros())) as usize];
        if entry.lo == lo && entry.hi == hi && entry.len as usize == len {
            return entry.count as usize;
        }
        let count = merge::count_piece(vocab, piece, hash(piece));
        *entry = Entry {
            lo,
            hi,
            len: len as u32,
            count: count as u32,
        };
        count
    }
}

thread_local! {
    /// One memo per encoding, indexed by encoding number.
    static MEMOS: RefCell<[Option<Memo>; 2]> = const { RefCell::new([None, None]) };
}

/// Runs `f` with this thread's memo for encoding number `index`.
#[inline(always)]
pub(crate) fn with_memo<R>(index: usize, f: impl FnOnce(&mut Memo) -> R) -> R {
    MEMOS.with_borrow_mut(|memos| f(memos[index].get_or_insert_with(Memo::new)))
}

/// Drops this thread's memos.
pub(crate) fn clear() {
    MEMOS.with_borrow_mut(|memos| *memos = [None, None]);
}
