//! brief-tokens against tiktoken-rs, the reference: token counts equal
//! `CoreBPE::encode_ordinary(text).len()`, and pre-tokens equal the matches of the encoding's
//! regex under fancy-regex (the engine tiktoken-rs uses), on arbitrary Unicode, code and prose,
//! whitespace runs, digits, contractions, mixed scripts, emoji, CJK, combining marks, long
//! pieces and the texts in `examples/`.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use brief_tokens::{is_split_point, Encoding};
use fancy_regex::Regex;
use proptest::prelude::*;
use tiktoken_rs::CoreBPE;

/// cl100k_base's pattern, as tiktoken defines it.
#[cfg(feature = "cl100k")]
const CL100K_PATTERN: &str = r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s";

fn reference(encoding: Encoding) -> &'static CoreBPE {
    match encoding {
        #[cfg(feature = "cl100k")]
        Encoding::Cl100k => tiktoken_rs::cl100k_base_singleton(),
        #[cfg(feature = "o200k")]
        Encoding::O200k => tiktoken_rs::o200k_base_singleton(),
    }
}

fn pattern(encoding: Encoding) -> &'static Regex {
    #[cfg(feature = "cl100k")]
    static CL100K: OnceLock<Regex> = OnceLock::new();
    #[cfg(feature = "o200k")]
    static O200K: OnceLock<Regex> = OnceLock::new();
    match encoding {
        #[cfg(feature = "cl100k")]
        Encoding::Cl100k => CL100K.get_or_init(|| Regex::new(CL100K_PATTERN).unwrap()),
        #[cfg(feature = "o200k")]
        Encoding::O200k => {
            O200K.get_or_init(|| Regex::new(tiktoken_rs::O200K_BASE_PAT_STR).unwrap())
        }
    }
}

/// The regex's matches, as tiktoken-rs iterates them.
fn regex_pieces(encoding: Encoding, text: &str) -> Vec<String> {
    pattern(encoding)
        .find_iter(text)
        .map(|m| m.unwrap().as_str().to_string())
        .collect()
}

fn our_pieces(encoding: Encoding, text: &str) -> Vec<String> {
    encoding.pre_tokens(text).map(str::to_string).collect()
}

/// Pre-tokens and count both agree with the reference.
fn check(text: &str) -> Result<(), TestCaseError> {
    for &encoding in Encoding::ALL {
        prop_assert_eq!(
            our_pieces(encoding, text),
            regex_pieces(encoding, text),
            "{} pre-tokens of {:?}",
            encoding,
            text
        );
        prop_assert_eq!(
            encoding.count(text),
            reference(encoding).encode_ordinary(text).len(),
            "{} count of {:?}",
            encoding,
            text
        );
    }
    Ok(())
}

/// One character of each class the patterns tell apart, with the letters of contractions and
/// the characters Unicode case folding relates to them (ſ folds to s; the Kelvin sign to k).
const TRICKY: &[&str] = &[
    " ",
    " ",
    " ",
    " ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "\u{b}",
    "\u{c}",
    "\u{85}",
    "\u{a0}",
    "\u{1680}",
    "\u{2007}",
    "\u{2028}",
    "\u{2029}",
    "\u{202f}",
    "\u{3000}",
    "'",
    "'",
    "'",
    "s",
    "S",
    "t",
    "T",
    "d",
    "D",
    "m",
    "M",
    "l",
    "L",
    "ll",
    "LL",
    "ve",
    "VE",
    "re",
    "Re",
    "ſ",
    "\u{212a}",
    "k",
    "a",
    "z",
    "A",
    "Z",
    "É",
    "é",
    "ß",
    "ǅ",
    "ǈ",
    "ʰ",
    "ꜝ",
    "々",
    "日",
    "本",
    "א",
    "ب",
    "ก",
    "\u{301}",
    "\u{308}",
    "\u{903}",
    "\u{20dd}",
    "\u{200d}",
    "\u{fe0f}",
    "0",
    "7",
    "٣",
    "Ⅻ",
    "½",
    "²",
    ".",
    ",",
    "!",
    "?",
    "-",
    "_",
    "/",
    "//",
    "\\",
    "\"",
    "`",
    "(",
    ")",
    "{",
    "}",
    "=",
    "#",
    "@",
    "$",
    "%",
    "€",
    "—",
    "“",
    "”",
    "…",
    "🚀",
    "👍",
    "🏽",
    "😀",
    "\u{10ffff}",
    "\u{e000}",
    "\u{1f1fa}\u{1f1f8}",
    "\u{378}",
];

fn tricky_text(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(TRICKY), 0..max).prop_map(|v| v.concat())
}

const WORDS: &[&str] = &[
    "the",
    "The",
    "THE",
    "payment",
    "Payment",
    "service",
    "retry",
    "idempotent",
    "ledger",
    "don't",
    "it's",
    "we'll",
    "I'm",
    "you're",
    "they've",
    "he'd",
    "DON'T",
    "It'S",
    "WE'LL",
    "fn",
    "let",
    "mut",
    "self",
    "Result<Receipt,",
    "PaymentError>",
    "&order",
    "=>",
    "->",
    "::",
    "{",
    "}",
    "();",
    "//",
    "/*",
    "*/",
    "#[derive(Debug)]",
    "0x1f",
    "42",
    "3.14159",
    "1e-9",
    "1234567890",
    "https://api.example.com/v1/charges?id=7",
    "snake_case",
    "camelCase",
    "PascalCase",
    "SCREAMING_CASE",
    "kebab-case",
    "naïve",
    "café",
    "Straße",
    "Платёж",
    "결제",
    "支付服务",
    "日本語の説明文",
    "🚀",
    "👍🏽",
    "€42,00",
    "“quoted”",
    "—",
    "½",
    "e\u{301}",
];

const SEPARATORS: &[&str] = &[
    " ", " ", " ", " ", "  ", "   ", "    ", "\n", "\n", "\n\n", "\n    ", "\n\t", "\t", ", ",
    ". ", ".\n", ":\n", " \n", "\r\n", "\n/", "\n\n\n", "",
];

fn prose_and_code(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(
        (
            proptest::sample::select(WORDS),
            proptest::sample::select(SEPARATORS),
        ),
        0..max,
    )
    .prop_map(|parts| {
        let mut text = String::new();
        for (word, separator) in parts {
            text.push_str(word);
            text.push_str(separator);
        }
        text
    })
}

// 256 cases each by default; set PROPTEST_CASES for a longer run.
proptest! {
    /// Arbitrary Unicode strings (any code point, mostly outside the BMP's common blocks).
    #[test]
    fn arbitrary_unicode(text in any::<String>()) {
        check(&text)?;
    }

    /// Strings drawn from one representative of every class the patterns distinguish.
    #[test]
    fn tricky_characters(text in tricky_text(40)) {
        check(&text)?;
    }

    /// ASCII-heavy prose and code with contractions, mixed scripts and emoji.
    #[test]
    fn prose_and_code_texts(text in prose_and_code(120)) {
        check(&text)?;
    }

    /// Whitespace runs of every kind between and around words, and at the end.
    #[test]
    fn whitespace_runs(text in "([ \\t\\n\\r\u{a0}\u{3000}\u{85}]{0,6}[a-zA-Z0-9.'/]{0,3}){0,12}") {
        check(&text)?;
    }

    /// Digit runs of every length, with letters and separators in between.
    #[test]
    fn digits(text in "([0-9٣Ⅻ½]{0,9}[ a-z.,_-]{0,2}){0,10}") {
        check(&text)?;
    }

    /// Contractions in any case, after letters, marks, spaces, digits and punctuation.
    #[test]
    fn contractions(text in "([a-zA-Z\u{301}ǅ 0-9.]{0,3}'([sStTmMdDſ]|[lL]{2}|[vVrR][eE]|[a-z])?){0,10}") {
        check(&text)?;
    }

    /// Combining marks before, inside and after letters, spaces and punctuation.
    #[test]
    fn combining_marks(text in "([a-zA-Zé日 .'\\n]{0,3}[\u{300}-\u{36f}\u{903}\u{20dd}]{0,3}){0,10}") {
        check(&text)?;
    }

    /// NUL bytes and short pieces at the very end of a text: the memo of piece counts pads
    /// pieces with zero bytes, so `a` and `a\0`, or a piece read in place and one copied from
    /// the end of a text, must never be confused.
    #[test]
    fn nul_bytes_and_text_ends(texts in proptest::collection::vec("[a\u{0}b \n]{0,20}", 1..8)) {
        for text in &texts {
            check(text)?;
        }
        check(&texts.concat())?;
    }

    /// Long pieces: merges beyond the in-place merge's 64 bytes and tiktoken's 100.
    #[test]
    fn long_pieces(
        letters in "[a-z]{50,400}",
        mixed in "[a-zA-Z]{50,300}",
        punct in "[-=*#.!/]{50,300}",
        spaces in " {50,300}",
        cjk in "[日本語の説明文支付服务]{20,120}",
    ) {
        for text in [&letters, &mixed, &punct, &spaces, &cjk] {
            check(text)?;
            check(&format!(" {text}x"))?;
        }
    }

    /// Cutting at the split points never changes the count (the claim behind
    /// `count_parallel`), and every split point starts a pre-token.
    #[test]
    fn split_points_preserve_counts(lines in proptest::collection::vec(
        "[ \\t/'#a-zA-Z0-9é日🚀.,:\u{301}\u{a0}\u{3000}-]{0,12}", 0..60
    )) {
        let text = lines.join("\n");
        for &encoding in Encoding::ALL {
            let starts: Vec<usize> = encoding
                .pre_tokens(&text)
                .scan(0, |at, piece| { let start = *at; *at += piece.len(); Some(start) })
                .collect();
            for at in (0..=text.len()).filter(|&at| is_split_point(&text, at)) {
                prop_assert!(starts.contains(&at), "{} split point {} of {:?}", encoding, at, text);
                prop_assert_eq!(
                    encoding.count(&text[..at]) + encoding.count(&text[at..]),
                    encoding.count(&text),
                    "{} cut at {} of {:?}", encoding, at, text
                );
            }
            prop_assert_eq!(encoding.count_parallel(&text), encoding.count(&text));
        }
    }

    /// The linear count of long pieces (backtracking over valid token pairs, which `count`
    /// uses from 16 KiB) forced onto every piece over 64 bytes: long words, case runs,
    /// punctuation and emoji runs, CJK, and arbitrary text.
    #[test]
    fn backtracking_counts_as_tiktoken(
        letters in "[a-z]{65,1500}",
        few in "[ab]{65,1500}",
        mixed in "[a-zA-Z]{65,800}",
        punct in "[-=*#.!/🚀👍🏽]{20,400}",
        cjk in "[日本語の説明文支付服务]{25,300}",
        text in "\\PC{65,400}",
    ) {
        for text in [&letters, &few, &mixed, &punct, &cjk, &text] {
            for &encoding in Encoding::ALL {
                prop_assert_eq!(
                    encoding.count_by_backtracking(text),
                    reference(encoding).encode_ordinary(text).len(),
                    "{} count of {:?}",
                    encoding,
                    text
                );
            }
        }
    }

    /// `count_till_limit` is the count when it fits, `None` when it does not.
    #[test]
    fn count_till_limit_agrees(text in prose_and_code(40), limit in 0usize..200) {
        for &encoding in Encoding::ALL {
            let count = encoding.count(&text);
            let expected = (count <= limit).then_some(count);
            prop_assert_eq!(encoding.count_till_limit(&text, limit), expected);
        }
    }

    /// `prefix_within` fits the limit and is exactly what bisection over plain counts picks.
    #[test]
    fn prefix_within_matches_plain_bisection(text in prose_and_code(60), limit in 0usize..150) {
        for &encoding in Encoding::ALL {
            let prefix = encoding.prefix_within(&text, limit);
            prop_assert!(text.starts_with(prefix));
            prop_assert!(encoding.count(prefix) <= limit);
            prop_assert_eq!(prefix, plain_prefix_within(encoding, &text, limit));
        }
    }
}

/// `prefix_within` as brief computed it before, with a full count at every step.
fn plain_prefix_within(encoding: Encoding, text: &str, limit: usize) -> &str {
    if encoding.count(text) <= limit {
        return text;
    }
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    let (mut lo, mut hi) = (0usize, bounds.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if encoding.count(&text[..bounds[mid.min(bounds.len() - 1)]]) <= limit {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let mut end = bounds.get(lo).copied().unwrap_or(text.len());
    while end > 0 && encoding.count(&text[..end]) > limit {
        end = text[..end]
            .char_indices()
            .last()
            .map(|(i, _)| i)
            .unwrap_or(0);
    }
    &text[..end]
}

fn examples_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn text_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            text_files(&path, out);
        } else if std::fs::read_to_string(&path).is_ok() {
            out.push(path);
        }
    }
}

/// Every text file of the examples, alone and all together.
#[test]
fn example_texts() {
    let mut files = Vec::new();
    text_files(&examples_root(), &mut files);
    assert!(files.len() > 20, "examples/ holds the example projects");
    let mut all = String::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        check(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        all.push_str(&text);
    }
    check(&all).unwrap();
    for &encoding in Encoding::ALL {
        assert_eq!(encoding.count_parallel(&all), encoding.count(&all));
    }
}

/// A word past 16 KiB, counted by `count` with the backtracking tables built, is counted as
/// tiktoken-rs counts it (whose own merge is quadratic in the piece, hence one such word).
#[test]
fn a_long_word_counts_as_tiktoken() {
    let mut state: u64 = 0x0bac_7ac4_5eed_0002;
    let word: String = (0..17_000)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            char::from(b'a' + ((state >> 33) % 26) as u8)
        })
        .collect();
    for &encoding in Encoding::ALL {
        let expected = reference(encoding).encode_ordinary(&word).len();
        assert_eq!(encoding.count_by_backtracking(&word), expected);
        assert_eq!(encoding.count(&word), expected, "{encoding}");
        assert_eq!(encoding.count_by_merging(&word), expected, "{encoding}");
    }
}

/// Counts do not depend on what the memo of piece counts holds.
#[test]
fn counts_are_the_same_with_a_cleared_memo() {
    let text =
        "The payment service retries idempotent requests; it's the ledger's job.\n".repeat(50);
    for &encoding in Encoding::ALL {
        let warm = encoding.count(&text);
        brief_tokens::clear_thread_memo();
        assert_eq!(encoding.count(&text), warm);
        assert_eq!(warm, reference(encoding).encode_ordinary(&text).len());
    }
}

/// Known counts, independent of the reference.
#[cfg(all(feature = "cl100k", feature = "o200k"))]
#[test]
fn known_counts() {
    assert_eq!(Encoding::Cl100k.count(""), 0);
    assert_eq!(Encoding::Cl100k.count("hello world"), 2);
    assert_eq!(Encoding::O200k.count("hello world"), 2);
    // The special tokens are ordinary text here, as in `encode_ordinary`.
    let special = "<|endoftext|>";
    assert!(Encoding::Cl100k.count(special) > 1);
    assert_eq!(
        Encoding::Cl100k.count(special),
        reference(Encoding::Cl100k).encode_ordinary(special).len()
    );
}
