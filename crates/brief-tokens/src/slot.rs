//! The layout of one vocabulary table slot, a little-endian `u64`, shared with the build script:
//! bits 0..14 a tag (low hash bits, to skip most mismatches without reading the token), 14..32
//! the token's rank, 32..40 its length in bytes, 40..64 its offset in the token-bytes blob.
//! Zero marks an empty slot (no token is empty).

/// Bits of the hash kept in a slot.
pub(crate) const TAG_BITS: u32 = 14;
/// Bits for a rank: enough for o200k's 199,998 tokens.
pub(crate) const RANK_BITS: u32 = 18;
/// Longest token the layout holds.
#[allow(dead_code)] // used by the build script
pub(crate) const MAX_TOKEN_LEN: usize = 255;
/// Largest token-bytes blob the layout holds.
#[allow(dead_code)] // used by the build script
pub(crate) const MAX_BLOB: usize = 1 << 24;

const TAG_MASK: u64 = (1 << TAG_BITS) - 1;
const RANK_MASK: u64 = (1 << RANK_BITS) - 1;

/// The tag of a hash.
#[inline(always)]
pub(crate) fn tag(hash: u64) -> u64 {
    hash & TAG_MASK
}

/// The home slot of a hash among `slots` slots (multiply-shift, no power of two needed).
#[inline(always)]
pub(crate) fn home(hash: u64, slots: usize) -> usize {
    (((hash >> 16) as u128 * slots as u128) >> 48) as usize
}

/// Packs a slot.
#[allow(dead_code)] // used by the build script
pub(crate) fn pack(hash: u64, rank: u32, len: usize, offset: usize) -> u64 {
    assert!((rank as u64) <= RANK_MASK && len > 0 && len <= MAX_TOKEN_LEN && offset < MAX_BLOB);
    tag(hash) | (rank as u64) << TAG_BITS | (len as u64) << 32 | (offset as u64) << 40
}

/// The tag of a slot.
#[inline(always)]
pub(crate) fn slot_tag(slot: u64) -> u64 {
    slot & TAG_MASK
}

/// The rank in a slot.
#[inline(always)]
pub(crate) fn slot_rank(slot: u64) -> u32 {
    ((slot >> TAG_BITS) & RANK_MASK) as u32
}

/// The token length in a slot.
#[inline(always)]
pub(crate) fn slot_len(slot: u64) -> usize {
    ((slot >> 32) & 0xff) as usize
}

/// The blob offset in a slot.
#[inline(always)]
pub(crate) fn slot_offset(slot: u64) -> usize {
    (slot >> 40) as usize
}
