//! The hash of a byte string that places tokens in the vocabulary tables. The build script
//! includes this file too, so the tables it writes and the lookups here agree by construction.

const K0: u64 = 0x9e37_79b9_7f4a_7c15;
const K1: u64 = 0xc2b2_ae3d_27d4_eb4f;

/// Multiplies in 128 bits and folds the halves: a cheap, well-mixing step.
#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let full = (a as u128).wrapping_mul(b as u128);
    (full as u64) ^ ((full >> 64) as u64)
}

#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(w)
}

#[inline(always)]
fn half(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(w) as u64
}

/// The 64-bit hash of `bytes`. Short strings are read as at most two overlapping words, which is
/// safe because the length is mixed in.
#[inline(always)]
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    let (a, b) = if len >= 16 {
        let mut h = K1;
        let mut at = 0;
        while at + 8 < len {
            h = fold(h ^ word(bytes, at), K0);
            at += 8;
        }
        (h, word(bytes, len - 8))
    } else if len >= 8 {
        (word(bytes, 0), word(bytes, len - 8))
    } else if len >= 4 {
        (half(bytes, 0), half(bytes, len - 4))
    } else if len > 0 {
        let first = bytes[0] as u64;
        let middle = bytes[len / 2] as u64;
        let last = bytes[len - 1] as u64;
        (first | (middle << 8), last)
    } else {
        (0, 0)
    };
    fold(a ^ K0 ^ ((len as u64) << 56), b ^ K1)
}
