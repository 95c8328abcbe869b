//! Writes the static tables the tokenizer reads in place, into `OUT_DIR`:
//!
//! - `classes.bin`: the character classes the pre-tokenizers test, per code point, taken from
//!   regex-syntax's Unicode tables (the ones tiktoken-rs's regex engine uses);
//! - `<encoding>.table`, `<encoding>.blob`, `<encoding>.rs` for each enabled encoding: an
//!   open-addressing hash table (see `src/slot.rs`) over the token bytes, and its constants.
//!
//! The vocabularies come from tiktoken-rs, whose crate embeds OpenAI's `.tiktoken` files;
//! nothing is downloaded.

// A build script that cannot write its tables must stop the build, and its panic message is
// the build error: unwrap/expect are the reporting here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};

#[allow(dead_code)]
#[path = "src/class.rs"]
mod class;
#[allow(dead_code)]
#[path = "src/hash.rs"]
mod hash;
#[allow(dead_code)]
#[path = "src/slot.rs"]
mod slot;

use regex_syntax::hir::{Class, HirKind};

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/hash.rs");
    println!("cargo::rerun-if-changed=src/slot.rs");
    println!("cargo::rerun-if-changed=src/class.rs");
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));

    write_classes(&out);
    check_case_folding();

    if env::var_os("CARGO_FEATURE_CL100K").is_some() {
        let bpe = tiktoken_rs::cl100k_base().expect("tiktoken-rs builds cl100k_base");
        write_vocabulary(&out, "cl100k", &ordinary_tokens(&bpe), 100_256);
    }
    if env::var_os("CARGO_FEATURE_O200K").is_some() {
        let bpe = tiktoken_rs::o200k_base().expect("tiktoken-rs builds o200k_base");
        write_vocabulary(&out, "o200k", &ordinary_tokens(&bpe), 199_998);
    }
}

/// The code point ranges of a one-class pattern such as `\p{Lu}`.
fn ranges(pattern: &str) -> Vec<(u32, u32)> {
    let hir = regex_syntax::parse(pattern).expect("a valid class pattern");
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .iter()
            .map(|r| (r.start() as u32, r.end() as u32))
            .collect(),
        other => panic!("{pattern} is not a Unicode class: {other:?}"),
    }
}

/// One flag byte per code point (`src/class.rs`), stored as 256-code-point blocks: an index of
/// `u16` block numbers (0x1100 of them) followed by the distinct blocks.
fn write_classes(out: &Path) {
    let mut flags = vec![0u8; 0x11_0000];
    let mut mark = |pattern: &str, bits: u8| {
        for (start, end) in ranges(pattern) {
            for cp in start..=end {
                flags[cp as usize] |= bits;
            }
        }
    };
    mark(r"\p{Lu}", class::LETTER | class::UPPER);
    mark(r"\p{Lt}", class::LETTER | class::UPPER);
    mark(r"\p{Ll}", class::LETTER | class::LOWER);
    mark(r"\p{Lm}", class::LETTER | class::UPPER | class::LOWER);
    mark(r"\p{Lo}", class::LETTER | class::UPPER | class::LOWER);
    mark(r"\p{M}", class::UPPER | class::LOWER);
    mark(r"\p{N}", class::NUMBER);
    mark(r"\s", class::SPACE);
    flags[b'\r' as usize] |= class::NEWLINE;
    flags[b'\n' as usize] |= class::NEWLINE;

    // The pre-tokenizers rely on these sets being disjoint and on \p{L} being the five
    // letter categories; check rather than assume.
    let mut letters = vec![false; 0x11_0000];
    for (start, end) in ranges(r"\p{L}") {
        for cp in start..=end {
            letters[cp as usize] = true;
        }
    }
    for (cp, &f) in flags.iter().enumerate() {
        assert_eq!(
            letters[cp],
            f & class::LETTER != 0,
            "\\p{{L}} differs at U+{cp:04X}"
        );
        let kinds = [
            f & class::LETTER != 0,
            f & class::NUMBER != 0,
            f & class::SPACE != 0,
            f & (class::UPPER | class::LOWER) == class::UPPER | class::LOWER
                && f & class::LETTER == 0,
        ];
        assert!(
            kinds.iter().filter(|&&k| k).count() <= 1,
            "U+{cp:04X} is in two classes"
        );
    }

    let mut blocks: Vec<&[u8]> = Vec::new();
    let mut index = Vec::with_capacity(0x1100 * 2);
    for chunk in flags.chunks(256) {
        let number = match blocks.iter().position(|b| *b == chunk) {
            Some(n) => n,
            None => {
                blocks.push(chunk);
                blocks.len() - 1
            }
        };
        index.extend_from_slice(&(number as u16).to_le_bytes());
    }
    let mut bytes = index;
    for block in blocks {
        bytes.extend_from_slice(block);
    }
    fs::write(out.join("classes.bin"), bytes).expect("OUT_DIR is writable");
}

/// The contraction matchers assume that, case-insensitively, the letters of `'s 't 're 've 'm
/// 'll 'd` match their two ASCII cases only, except `s`, which also matches `ſ` (U+017F).
fn check_case_folding() {
    for letter in ['s', 't', 'r', 'e', 'v', 'm', 'l', 'd'] {
        let hir = regex_syntax::parse(&format!("(?i){letter}")).expect("a valid pattern");
        let mut chars: Vec<char> = match hir.kind() {
            HirKind::Class(Class::Unicode(class)) => class
                .ranges()
                .iter()
                .flat_map(|r| r.start()..=r.end())
                .collect(),
            other => panic!("(?i){letter} is not a class: {other:?}"),
        };
        chars.sort_unstable();
        let mut expected = vec![letter, letter.to_ascii_uppercase()];
        if letter == 's' {
            expected.push('\u{17f}');
        }
        expected.sort_unstable();
        assert_eq!(chars, expected, "case folding of {letter}");
    }
}

/// The ordinary (non-special) tokens by rank: ranks are dense from 0, and the first rank that
/// does not decode ends them (special tokens sit after a gap).
fn ordinary_tokens(bpe: &tiktoken_rs::CoreBPE) -> Vec<Vec<u8>> {
    let mut tokens = Vec::new();
    while let Ok(bytes) = bpe.decode_bytes(&[tokens.len() as u32]) {
        tokens.push(bytes);
    }
    tokens
}

fn write_vocabulary(out: &Path, name: &str, tokens: &[Vec<u8>], expected: usize) {
    assert_eq!(tokens.len(), expected, "{name}: number of ordinary tokens");
    let distinct: HashSet<&[u8]> = tokens.iter().map(|t| t.as_slice()).collect();
    assert_eq!(distinct.len(), tokens.len(), "{name}: tokens are distinct");
    for byte in 0..=255u8 {
        assert!(
            distinct.contains(&[byte][..]),
            "{name}: every byte is a token"
        );
    }

    let mut blob = Vec::new();
    let mut offsets = Vec::with_capacity(tokens.len());
    for token in tokens {
        offsets.push(blob.len());
        blob.extend_from_slice(token);
    }
    assert!(blob.len() <= slot::MAX_BLOB, "{name}: blob too large");
    let max_len = tokens.iter().map(Vec::len).max().unwrap_or(0);
    assert!(max_len <= slot::MAX_TOKEN_LEN, "{name}: token too long");

    // Linear probing at a load of 0.6 with no wrap-around: slots past `home_slots` take the
    // overflow of the last homes, so a probe never needs a bounds wrap.
    let home_slots = tokens.len() * 5 / 3;
    let mut table = vec![0u64; home_slots];
    let mut longest_probe = 0;
    for (rank, token) in tokens.iter().enumerate() {
        let h = hash::hash(token);
        let mut at = slot::home(h, home_slots);
        let start = at;
        loop {
            if at == table.len() {
                table.push(0);
            }
            if table[at] == 0 {
                table[at] = slot::pack(h, rank as u32, token.len(), offsets[rank]);
                break;
            }
            at += 1;
        }
        longest_probe = longest_probe.max(at - start + 1);
    }
    // An empty slot after the last entry ends every probe inside the table.
    table.push(0);

    let mut bytes = Vec::with_capacity(table.len() * 8);
    for entry in &table {
        bytes.extend_from_slice(&entry.to_le_bytes());
    }
    fs::write(out.join(format!("{name}.table")), bytes).expect("OUT_DIR is writable");
    fs::write(out.join(format!("{name}.blob")), &blob).expect("OUT_DIR is writable");
    let constants = format!(
        "// Generated by build.rs from tiktoken-rs's {name}_base: {} tokens, longest probe {}.\n\
         pub(crate) const HOME_SLOTS: usize = {home_slots};\n\
         pub(crate) const MAX_LEN: usize = {max_len};\n",
        tokens.len(),
        longest_probe,
    );
    fs::write(out.join(format!("{name}.rs")), constants).expect("OUT_DIR is writable");
}
