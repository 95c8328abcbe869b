//! Hand-written pre-tokenizers, each equal to its encoding's regex under tiktoken's matching
//! (leftmost-first alternation with backtracking, as fancy-regex runs it). Given a character
//! boundary `i` before the end, each returns the end of the pre-token that starts there; every
//! character starts some alternative, so pre-tokens tile the text.
//!
//! cl100k_base:
//! `'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s`
//!
//! o200k_base (U = `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, W = `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`,
//! C = `(?i:'s|'t|'re|'ve|'m|'ll|'d)`):
//! `[^\r\n\p{L}\p{N}]?U*W+C?|[^\r\n\p{L}\p{N}]?U+W*C?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

use crate::chars::{at, run, run_bytes, run_punct};
#[cfg(feature = "cl100k")]
use crate::class::LETTER;
use crate::class::{is_prefix, is_punct, NEWLINE, NUMBER, SPACE};
#[cfg(feature = "o200k")]
use crate::class::{LOWER, UPPER};

/// A pre-tokenizer: the end of the pre-token starting at `i`.
pub(crate) trait Split {
    fn end(bytes: &[u8], i: usize) -> usize;
}

/// cl100k_base's pre-tokenizer.
#[cfg(feature = "cl100k")]
pub(crate) struct Cl100k;
/// o200k_base's pre-tokenizer.
#[cfg(feature = "o200k")]
pub(crate) struct O200k;

/// The length of a contraction (`'s 't 'm 'd 're 've 'll`, any case; `s` also matches `ſ`,
/// U+017F, under Unicode case folding) starting at `i`, or 0. Both encodings use the same set.
#[inline(always)]
fn contraction(b: &[u8], i: usize) -> usize {
    if b.get(i) != Some(&b'\'') {
        return 0;
    }
    match b.get(i + 1) {
        Some(b's' | b'S' | b't' | b'T' | b'm' | b'M' | b'd' | b'D') => 2,
        Some(0xc5) if b.get(i + 2) == Some(&0xbf) => 3,
        Some(b'r' | b'R' | b'v' | b'V') if matches!(b.get(i + 2), Some(b'e' | b'E')) => 3,
        Some(b'l' | b'L') if matches!(b.get(i + 2), Some(b'l' | b'L')) => 3,
        _ => 0,
    }
}

/// `\p{N}{1,3}` from a number that is `len` bytes long at `i`.
#[inline(always)]
fn numbers(b: &[u8], i: usize, len: usize) -> usize {
    let mut end = i + len;
    for _ in 0..2 {
        if end == b.len() {
            break;
        }
        let (f, len) = at(b, end);
        if f & NUMBER == 0 {
            break;
        }
        end += len;
    }
    end
}

/// What the whitespace alternatives need to know of the run of `\s` starting at `i`.
struct SpaceRun {
    /// Where the run ends.
    end: usize,
    /// Where its last character starts.
    last: usize,
    /// Just past its last `\r` or `\n`, if any.
    after_newline: Option<usize>,
    /// Whether it holds more than one character.
    several: bool,
}

#[inline(always)]
fn space_run(b: &[u8], i: usize) -> SpaceRun {
    let mut run = SpaceRun {
        end: i,
        last: i,
        after_newline: None,
        several: false,
    };
    while run.end < b.len() {
        let (f, len) = at(b, run.end);
        if f & SPACE == 0 {
            break;
        }
        run.several = run.end > i;
        run.last = run.end;
        run.end += len;
        if f & NEWLINE != 0 {
            run.after_newline = Some(run.end);
        }
    }
    run
}

#[cfg(feature = "cl100k")]
impl Split for Cl100k {
    #[inline(always)]
    fn end(b: &[u8], i: usize) -> usize {
        let (f, len) = at(b, i);
        // '(?i:[sdmt]|ll|ve|re)
        let c = contraction(b, i);
        if c > 0 {
            return i + c;
        }
        // [^\r\n\p{L}\p{N}]?+\p{L}++ (the optional character is possessive, but backing off
        // it could not help: a letter run cannot start with it).
        let j = if is_prefix(f) { i + len } else { i };
        if j < b.len() {
            let (g, len_j) = at(b, j);
            if g & LETTER != 0 {
                return run(b, j + len_j, LETTER);
            }
        }
        // \p{N}{1,3}+
        if f & NUMBER != 0 {
            return numbers(b, i, len);
        }
        // ' ?[^\s\p{L}\p{N}]++[\r\n]*+' (without the space, a space cannot start the run)
        let j = if b[i] == b' ' { i + 1 } else { i };
        if j < b.len() {
            let (g, len_j) = at(b, j);
            if is_punct(g) {
                let end = run_punct(b, j + len_j);
                return run_bytes(b, end, |c| c == b'\r' || c == b'\n');
            }
        }
        // What is left starts with whitespace.
        let run = space_run(b, i);
        if run.end == i {
            // Unreachable for valid input; advance anyway rather than loop.
            return i + len;
        }
        if run.end == b.len() {
            // \s++$
            run.end
        } else if let Some(after) = run.after_newline {
            // \s*[\r\n]: backtracks to the last newline of the run.
            after
        } else if run.several {
            // \s+(?!\S): backtracks one character, leaving it to prefix what follows.
            run.last
        } else {
            // \s
            run.end
        }
    }
}

/// Where a run of o200k's U characters stops.
#[cfg(feature = "o200k")]
struct UpperRun {
    /// The end of the run.
    end: usize,
    /// The flags of the character at `end` (0 at the end of the text).
    next: u8,
    /// Just past the run's last character that is also in W (Lm, Lo or a mark), if any.
    after_lower: Option<usize>,
}

#[cfg(feature = "o200k")]
#[inline(always)]
fn upper_run(b: &[u8], mut p: usize) -> UpperRun {
    let mut after_lower = None;
    while p < b.len() {
        let (g, len) = at(b, p);
        if g & UPPER == 0 {
            return UpperRun {
                end: p,
                next: g,
                after_lower,
            };
        }
        p += len;
        if g & LOWER != 0 {
            after_lower = Some(p);
        }
    }
    UpperRun {
        end: p,
        next: 0,
        after_lower,
    }
}

#[cfg(feature = "o200k")]
impl O200k {
    /// The two letter alternatives, `[^\r\n\p{L}\p{N}]?U*W+C?` (1) then
    /// `[^\r\n\p{L}\p{N}]?U+W*C?` (2), each tried with the optional character first, then
    /// without it. From one start, U* is greedy; W+ then starts where it stopped (a lowercase
    /// letter), or U* backs off to its last character that is also in W, which W+ takes alone
    /// (the characters after it in the run are Lu or Lt); failing that, (2) takes the U run.
    #[inline(always)]
    fn word(b: &[u8], i: usize, f: u8, len: usize) -> Option<usize> {
        let end = if is_prefix(f) {
            let upper = upper_run(b, i + len);
            if upper.next & LOWER != 0 {
                run(b, upper.end, LOWER)
            } else if let Some(end) = upper.after_lower {
                end
            } else if f & LOWER != 0 {
                // (1) without the optional character: only a mark (in U and W, not in
                // \p{L}) gets here, and W+ takes it alone; this comes before (2).
                i + len
            } else if upper.end > i + len {
                upper.end
            } else {
                return None;
            }
        } else {
            let upper = upper_run(b, i);
            if upper.next & LOWER != 0 {
                run(b, upper.end, LOWER)
            } else if let Some(end) = upper.after_lower {
                end
            } else if upper.end > i {
                upper.end
            } else {
                return None;
            }
        };
        Some(end + contraction(b, end))
    }
}

#[cfg(feature = "o200k")]
impl Split for O200k {
    #[inline(always)]
    fn end(b: &[u8], i: usize) -> usize {
        let (f, len) = at(b, i);
        if let Some(end) = O200k::word(b, i, f, len) {
            return end;
        }
        // \p{N}{1,3}
        if f & NUMBER != 0 {
            return numbers(b, i, len);
        }
        // ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
        let j = if b[i] == b' ' { i + 1 } else { i };
        if j < b.len() {
            let (g, len_j) = at(b, j);
            if is_punct(g) {
                let end = run_punct(b, j + len_j);
                return run_bytes(b, end, |c| matches!(c, b'\r' | b'\n' | b'/'));
            }
        }
        let run = space_run(b, i);
        if run.end == i {
            return i + len;
        }
        if let Some(after) = run.after_newline {
            // \s*[\r\n]+: backtracks to the last newline of the run.
            after
        } else if run.end == b.len() || !run.several {
            // \s+(?!\S) at the end of the text, else \s+ for a single character.
            run.end
        } else {
            // \s+(?!\S): backtracks one character.
            run.last
        }
    }
}
