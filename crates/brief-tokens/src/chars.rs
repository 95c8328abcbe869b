//! Decoding one character of a `str`'s bytes and looking up its class flags (see `class`) in
//! the table the build script wrote from regex-syntax's Unicode data.

use crate::class;

/// Two-level table: 0x1100 little-endian `u16` block numbers, then 256-byte blocks of flags.
const CLASSES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/classes.bin"));
const BLOCKS_AT: usize = 0x1100 * 2;

/// The flags of code point `cp`.
#[inline(always)]
fn flags_of(cp: u32) -> u8 {
    let at = 2 * (cp >> 8) as usize;
    let block = u16::from_le_bytes([CLASSES[at], CLASSES[at + 1]]) as usize;
    CLASSES[BLOCKS_AT + block * 256 + (cp & 0xff) as usize]
}

/// The flags of the ASCII characters (the first block of the table).
const ASCII: [u8; 128] = {
    let mut ascii = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        ascii[b] = CLASSES[BLOCKS_AT + b];
        b += 1;
    }
    ascii
};

/// The flags and byte length of the character starting at `at`, which must be a character
/// boundary before the end of `bytes` (valid UTF-8).
#[inline(always)]
pub(crate) fn at(bytes: &[u8], at: usize) -> (u8, usize) {
    let b0 = bytes[at];
    if b0 < 0x80 {
        return (ASCII[b0 as usize], 1);
    }
    let cont = |k: usize| (bytes[at + k] & 0x3f) as u32;
    if b0 < 0xe0 {
        (flags_of(((b0 & 0x1f) as u32) << 6 | cont(1)), 2)
    } else if b0 < 0xf0 {
        (
            flags_of(((b0 & 0x0f) as u32) << 12 | cont(1) << 6 | cont(2)),
            3,
        )
    } else {
        (
            flags_of(((b0 & 0x07) as u32) << 18 | cont(1) << 12 | cont(2) << 6 | cont(3)),
            4,
        )
    }
}

/// The end of the run of characters from `from` that have any of `flags`.
#[inline(always)]
pub(crate) fn run(bytes: &[u8], mut from: usize, flags: u8) -> usize {
    while from < bytes.len() {
        let (f, len) = at(bytes, from);
        if f & flags == 0 {
            break;
        }
        from += len;
    }
    from
}

/// The end of the run of punctuation (`[^\s\p{L}\p{N}]`) from `from`.
#[inline(always)]
pub(crate) fn run_punct(bytes: &[u8], mut from: usize) -> usize {
    while from < bytes.len() {
        let (f, len) = at(bytes, from);
        if !class::is_punct(f) {
            break;
        }
        from += len;
    }
    from
}

/// The end of the run of bytes from `from` that satisfy `keep` (ASCII bytes only).
#[inline(always)]
pub(crate) fn run_bytes(bytes: &[u8], mut from: usize, keep: impl Fn(u8) -> bool) -> usize {
    while from < bytes.len() && keep(bytes[from]) {
        from += 1;
    }
    from
}
