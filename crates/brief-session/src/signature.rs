//! Error signatures: a message with everything that varies between occurrences of the same
//! error blanked (paths, line and column numbers, quoted values, addresses) and its secrets
//! redacted, so that one failure seen in two checkouts or on two lines shares one hash.

use sha2::{Digest, Sha256};

/// The longest signature kept (characters); longer messages are cut, as the tail of a long
/// message is usually a payload, not the error.
pub(crate) const MAX_SIGNATURE: usize = 500;

/// The normalized form of `message`.
pub fn normalize_signature(message: &str) -> String {
    let redacted = super::redact::redact_str(message);
    let unquoted = blank_quotes(&redacted);
    let mut words: Vec<String> = Vec::new();
    let mut previous = String::new();
    for word in unquoted.split_whitespace() {
        let normalized = normalize_word(word, &previous);
        previous = word
            .trim_matches(|c: char| !c.is_ascii_alphanumeric())
            .to_ascii_lowercase();
        words.push(normalized);
    }
    let joined = words.join(" ");
    match joined.char_indices().nth(MAX_SIGNATURE) {
        Some((cut, _)) => joined[..cut].to_string(),
        None => joined,
    }
}

/// The hash that identifies a signature: the first 16 hex digits of its SHA-256.
pub fn signature_hash(signature: &str) -> String {
    let digest = Sha256::digest(signature.as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Replaces `'…'`, `"…"` and `` `…` `` spans (up to 200 characters on one line) with an
/// empty placeholder. A quote right after a letter is an apostrophe (`can't`), not an opening.
fn blank_quotes(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let opens = matches!(c, '\'' | '"' | '`') && !(i > 0 && chars[i - 1].is_alphanumeric());
        if opens {
            let close = chars[i + 1..]
                .iter()
                .take(201)
                .position(|&d| d == c || d == '\n');
            if let Some(len) = close {
                if chars[i + 1 + len] == c && len > 0 {
                    out.push(c);
                    out.push_str("<v>");
                    out.push(c);
                    i += len + 2;
                    continue;
                }
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Words after which a number is a position, not part of the message.
const POSITION_WORDS: &[&str] = &["line", "lines", "ln", "col", "column", "row", "offset"];

fn normalize_word(word: &str, previous: &str) -> String {
    let start = word
        .find(|c: char| !matches!(c, '(' | '[' | '{' | '<' | ',' | ';'))
        .unwrap_or(word.len());
    let end = word
        .rfind(|c: char| !matches!(c, ')' | ']' | '}' | '>' | ',' | ';' | '.' | ':'))
        .map(|i| i + word[i..].chars().next().map_or(1, char::len_utf8))
        .unwrap_or(start)
        .max(start);
    let (lead, core, trail) = (&word[..start], &word[start..end], &word[end..]);
    if core.is_empty() || core == "<v>" || core.contains("<v>") && !core.contains(['/', '\\']) {
        return word.to_string();
    }
    let blanked = if is_path(core) {
        "<path>".to_string()
    } else if let Some(hex) = core.strip_prefix("0x") {
        if hex.len() >= 4 && hex.chars().all(|c| c.is_ascii_hexdigit()) {
            "0x<hex>".to_string()
        } else {
            core.to_string()
        }
    } else if POSITION_WORDS.contains(&previous)
        && core
            .chars()
            .all(|c| c.is_ascii_digit() || c == ':' || c == '-')
        && core.chars().any(|c| c.is_ascii_digit())
    {
        "<n>".to_string()
    } else if core.contains(':')
        && core
            .split(':')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
    {
        // A bare `12:5` position.
        "<n>".to_string()
    } else {
        core.to_string()
    };
    format!("{lead}{blanked}{trail}")
}

/// A path: has a separator (`src/app.ts`, `C:\\x\\y.py`, `./a`), or is a file name with a line
/// number attached (`main.rs:12:5`, `app.py:7`).
fn is_path(core: &str) -> bool {
    let stem = core.trim_end_matches(|c: char| c.is_ascii_digit() || c == ':');
    let has_position = stem.len() < core.len() && core[stem.len()..].starts_with(':');
    if core.len() > 1 && (core.contains('/') || core.contains('\\')) {
        return true;
    }
    if has_position {
        if let Some((name, ext)) = stem.rsplit_once('.') {
            return !name.is_empty()
                && (1..=6).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric());
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &str, b: &str) {
        assert_eq!(normalize_signature(a), normalize_signature(b), "\n{a}\n{b}");
        assert_eq!(
            signature_hash(&normalize_signature(a)),
            signature_hash(&normalize_signature(b))
        );
    }

    #[test]
    fn paths_and_line_numbers_do_not_change_the_hash() {
        same(
            "TypeError: Cannot read properties of undefined (reading 'id') at /home/ana/notes/src/web/sync/queue.ts:88:17",
            "TypeError: Cannot read properties of undefined (reading 'userId') at /srv/ci/build-1142/src/web/store/notes.ts:12:3",
        );
        same(
            "File \"/app/src/search/indexer.py\", line 142, in rebuild\nKeyError: 'note_id'",
            "File \"/tmp/x/indexer.py\", line 7, in rebuild KeyError: 'title'",
        );
        same(
            "error[E0502]: cannot borrow `self.cache` as mutable --> crates/brief/src/index.rs:412:9",
            "error[E0502]: cannot borrow `entries` as mutable --> src/lib.rs:3:5",
        );
        same(
            "Cannot find module '@/utils' from 'src\\server\\auth\\session.ts'",
            "Cannot find module '@/lib/db' from 'C:\\work\\notes\\src\\auth.ts'",
        );
        same(
            "panicked at main.rs:12:5: index out of bounds",
            "panicked at lib.rs:301:22: index out of bounds",
        );
        same("segfault at 0x7ffd4a2b1c00", "segfault at 0x00005581aa10");
    }

    #[test]
    fn different_errors_differ() {
        assert_ne!(
            normalize_signature("TypeError: x is not a function"),
            normalize_signature("TypeError: x is undefined")
        );
        assert_ne!(
            normalize_signature("expected 3 arguments, found 2"),
            normalize_signature("expected 1 argument, found 2")
        );
    }

    #[test]
    fn shape_of_a_signature() {
        assert_eq!(
            normalize_signature(
                "  ModuleNotFoundError: No module named 'pydantic_settings'\n  at  line 4 "
            ),
            "ModuleNotFoundError: No module named '<v>' at line <n>"
        );
        assert_eq!(
            normalize_signature("can't open /etc/app.conf"),
            "can't open <path>"
        );
        assert_eq!(signature_hash("x").len(), 16);
    }

    #[test]
    fn secrets_never_reach_a_signature() {
        let s = normalize_signature("auth failed for postgres://notes:Hunter2Secret@db:5432/notes with key AKIAIOSFODNN7EXAMPLE");
        assert!(!s.contains("Hunter2Secret") && !s.contains("AKIA"), "{s}");
        let long = "x ".repeat(400);
        assert_eq!(normalize_signature(&long).chars().count(), MAX_SIGNATURE);
    }

    proptest::proptest! {
        /// Glued secret prefixes, quotes and paths: what redaction and normalising meet in
        /// real error messages (this lived in the redaction tests, which made `redact` depend
        /// on `signature`).
        #[test]
        fn never_panics_on_glued_fragments(
            text in "(sk-|sk-ant-|AKIA|ghp_|eyJ|Bearer |password=|-----BEGIN RSA PRIVATE KEY-----|\"|'|/|\\.|:|[a-z0-9]{1,6}| ){0,16}"
        ) {
            let once = normalize_signature(&text);
            let _ = signature_hash(&once);
        }

        #[test]
        fn never_panics_on_any_text(text in proptest::prelude::any::<String>()) {
            let _ = normalize_signature(&text);
        }
    }
}
