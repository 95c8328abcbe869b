//! The character classes the pre-tokenizers test, as bit flags (one byte per code point in the
//! generated table; shared with the build script). A code point is in at most one of letter,
//! number, space and mark.

/// `\p{L}`.
pub(crate) const LETTER: u8 = 1;
/// o200k's "upper" set `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`.
#[cfg_attr(not(feature = "o200k"), allow(dead_code))]
pub(crate) const UPPER: u8 = 2;
/// o200k's "lower" set `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`.
#[cfg_attr(not(feature = "o200k"), allow(dead_code))]
pub(crate) const LOWER: u8 = 4;
/// `\p{N}`.
pub(crate) const NUMBER: u8 = 8;
/// `\s` (Unicode White_Space).
pub(crate) const SPACE: u8 = 16;
/// `\r` or `\n`.
pub(crate) const NEWLINE: u8 = 32;

/// In `[^\r\n\p{L}\p{N}]`, the optional character before a letter run.
#[inline(always)]
pub(crate) fn is_prefix(flags: u8) -> bool {
    flags & (LETTER | NUMBER | NEWLINE) == 0
}

/// In `[^\s\p{L}\p{N}]`, punctuation and symbols (marks too).
#[inline(always)]
pub(crate) fn is_punct(flags: u8) -> bool {
    flags & (LETTER | NUMBER | SPACE) == 0
}
