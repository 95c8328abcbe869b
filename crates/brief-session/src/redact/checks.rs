//! What confirms a candidate: entropy and shape measures, and the allow-lists (code
//! references, placeholders, types, known hash formats, base64 of plain words).

/// How strong a value must be to count as a secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Strength {
    /// People choose passwords: any value of three characters or more.
    Password,
    /// Tokens are generated: at least eight characters that read as random.
    Token,
}

/// Shannon entropy of `bytes`, in bits per byte.
pub(super) fn entropy(bytes: &[u8]) -> f64 {
    if bytes.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in bytes {
        counts[b as usize] += 1;
    }
    let n = bytes.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// The share of neighbouring alphanumerics whose class (upper, lower, digit) differs:
/// about 0.6 for random base62, about 0.1–0.4 for names.
pub(super) fn class_changes(word: &[u8]) -> f64 {
    let mut previous = None;
    let (mut pairs, mut changes) = (0usize, 0usize);
    for &b in word {
        let class = match b {
            b'A'..=b'Z' => 0u8,
            b'a'..=b'z' => 1,
            b'0'..=b'9' => 2,
            _ => continue,
        };
        if let Some(p) = previous {
            pairs += 1;
            changes += usize::from(p != class);
        }
        previous = Some(class);
    }
    if pairs == 0 {
        0.0
    } else {
        changes as f64 / pairs as f64
    }
}

/// The share of capitals followed by a lower-case letter: near 1 for CamelCase, about 0.4
/// for random text.
pub(super) fn word_capitals(word: &[u8]) -> f64 {
    let capitals = word.iter().filter(|b| b.is_ascii_uppercase()).count();
    if capitals == 0 {
        return 0.0;
    }
    let opening = word
        .windows(2)
        .filter(|w| w[0].is_ascii_uppercase() && w[1].is_ascii_lowercase())
        .count();
    opening as f64 / capitals as f64
}

/// A generated token rather than a word or an identifier: high entropy, and digits among
/// letters (or, for letters only, case changing at random rather than at word starts).
pub(super) fn reads_as_random(value: &[u8], min_entropy: f64) -> bool {
    if entropy(value) < min_entropy {
        return false;
    }
    let digits = value.iter().any(u8::is_ascii_digit);
    let letters = value.iter().any(u8::is_ascii_alphabetic);
    if digits && letters {
        return true;
    }
    if letters {
        return value.len() >= 16 && class_changes(value) >= 0.3 && word_capitals(value) < 0.75;
    }
    // Digits and symbols only (a PIN, a numeric id): not a generated token.
    false
}

/// The catch-all's shape test: upper, lower and digits, read as random, not a path, not a
/// CamelCase identifier.
pub(super) fn high_entropy(word: &[u8]) -> bool {
    let has = |f: fn(&u8) -> bool| word.iter().any(f);
    if !(has(u8::is_ascii_uppercase) && has(u8::is_ascii_lowercase) && has(u8::is_ascii_digit)) {
        return false;
    }
    // Cheapest first: the shape measures, then the entropy.
    if class_changes(word) < 0.3 || word_capitals(word) >= 0.75 {
        return false;
    }
    // Paths and URLs are not secrets even when long: words between slashes.
    if word.iter().filter(|&&b| b == b'/').count() > 2 && is_path(word) {
        return false;
    }
    entropy(word) >= 3.5
}

/// Slash-separated segments that are mostly lower-case words (`src/session/store.rs`).
fn is_path(word: &[u8]) -> bool {
    let segments: Vec<&[u8]> = word
        .split(|&b| b == b'/')
        .filter(|s| !s.is_empty())
        .collect();
    let wordy = segments
        .iter()
        .filter(|s| {
            let upper = s.iter().filter(|b| b.is_ascii_uppercase()).count();
            let digits = s.iter().filter(|b| b.is_ascii_digit()).count();
            upper * 4 <= s.len() && digits * 4 <= s.len()
        })
        .count();
    wordy * 2 > segments.len()
}

/// Base64 whose decoded bytes are prose or JSON (`echo … | base64 -d`, an encoded config):
/// encoded, not secret. Credentials (`user:password`) have no spaces and are not let through.
pub(super) fn base64_of_words(word: &[u8]) -> bool {
    let Some(decoded) = decode_base64(word) else {
        return false;
    };
    if decoded.len() < 12 {
        return false;
    }
    let printable = decoded
        .iter()
        .all(|&b| b == b'\n' || b == b'\t' || b == b'\r' || (0x20..0x7f).contains(&b));
    if !printable {
        return false;
    }
    let spaces = decoded.iter().filter(|&&b| b == b' ').count();
    let letters = decoded
        .iter()
        .filter(|b| b.is_ascii_alphabetic() || **b == b' ')
        .count();
    let json =
        matches!(decoded.first(), Some(b'{' | b'[')) && matches!(decoded.last(), Some(b'}' | b']'));
    json || (spaces >= 2 && letters * 10 >= decoded.len() * 8)
}

/// Standard or URL-safe base64, padded or not.
fn decode_base64(word: &[u8]) -> Option<Vec<u8>> {
    let body = word
        .strip_suffix(b"==")
        .or_else(|| word.strip_suffix(b"="))
        .unwrap_or(word);
    if body.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for &b in body {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Whether a value given to a secret-named key or flag is a secret. `quoted`: it was written
/// between quotes (a literal); `operator`: `=`, `:`, … or ` ` for a flag; `after`: the text
/// that follows it.
pub(super) fn secret_value(
    value: &str,
    quoted: bool,
    operator: &str,
    after: &str,
    strength: Strength,
) -> bool {
    let v = value.trim();
    if v.is_empty() || placeholder(v) {
        return false;
    }
    if !quoted && code(v, operator, after) {
        return false;
    }
    match strength {
        Strength::Password => {
            if v.chars().count() < 3 {
                return false;
            }
            // `password: must be at least 12 characters` is prose, not YAML.
            let prose = !quoted
                && operator == ":"
                && v.bytes().all(|b| b.is_ascii_alphabetic())
                && after.starts_with(' ')
                && after[1..].starts_with(|c: char| c.is_ascii_lowercase());
            !prose
        }
        Strength::Token => v.len() >= 8 && reads_as_random(v.as_bytes(), 3.0),
    }
}

/// Values that stand for a secret without being one: references, templates, placeholders,
/// literals of other types.
fn placeholder(v: &str) -> bool {
    const WORDS: &[&str] = &[
        "true",
        "false",
        "null",
        "nil",
        "none",
        "undefined",
        "yes",
        "no",
        "on",
        "off",
        "required",
        "optional",
        "redacted",
        "changeme",
        "secret",
        "password",
        "token",
    ];
    // `$VAR`, `${VAR}`, `$(cmd)`, `%VAR%`, `{{ var }}`, `#{var}`, `<your key>`, `[REDACTED]`.
    if v.starts_with(['$', '%', '<', '[', '{', '@'])
        || v.starts_with("#{")
        || v.ends_with('>') && v.contains('<')
    {
        return true;
    }
    // The same character over and over: `****`, `xxxxxxxx`, `........`.
    let first = v.chars().next().unwrap_or(' ');
    if v.chars().all(|c| c == first) {
        return true;
    }
    // `YOUR_TOKEN_HERE`, `API_KEY`: an environment variable's name or a placeholder.
    if v.len() >= 3
        && v.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        && v.bytes().filter(u8::is_ascii_uppercase).count() >= 3
    {
        return true;
    }
    WORDS.iter().any(|w| v.eq_ignore_ascii_case(w))
}

/// Unquoted values that are code, not literals: a call or index (`read_password()?`,
/// `os.environ["X"]`), a path of identifiers (`settings.API_KEY`, `var.db_password`), a type
/// after a colon (`password: String`), a keyword (`await`), a file path.
fn code(v: &str, operator: &str, after: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "await", "new", "yield", "lambda", "function", "async", "typeof", "not", "this", "self",
    ];
    const TYPES: &[&str] = &[
        "str", "string", "int", "integer", "bool", "boolean", "bytes", "number", "any", "object",
        "char", "float", "double", "long", "u8", "i32", "i64", "u32", "u64", "usize",
    ];
    if KEYWORDS.contains(&v) {
        return true;
    }
    // A borrowed type (`password: &str`, `key: &'static [u8]`).
    if operator == ":" && v.starts_with('&') {
        return true;
    }
    // A call or an index: the value runs into its parenthesis or bracket.
    if let Some(open) = v.find(['(', '[']) {
        return open > 0 && code(&v[..open], "=", &v[open..]);
    }
    if v.starts_with(['/', '~']) || v.starts_with("./") || v.starts_with("../") {
        return true;
    }
    let is_identifier = |s: &str| {
        let letters = s.trim_end_matches(|c: char| c.is_ascii_digit());
        !letters.is_empty()
            && letters.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && letters
                .bytes()
                .all(|b| b.is_ascii_alphabetic() || b == b'_')
    };
    let segments: Vec<&str> = v.split(['.']).flat_map(|s| s.split("::")).collect();
    let path = segments.iter().all(|s| is_identifier(s));
    if path && segments.len() >= 2 {
        return true;
    }
    if path && after.starts_with(['(', '[', '.', '?', '!', '<']) {
        return true;
    }
    if operator == ":" && path && segments.len() == 1 {
        let camel = v.starts_with(|c: char| c.is_ascii_uppercase())
            && v.bytes().all(|b| b.is_ascii_alphabetic())
            && v.bytes().skip(1).any(|b| b.is_ascii_lowercase());
        if camel || TYPES.contains(&v) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_and_shape() {
        assert_eq!(entropy(b"aaaa"), 0.0);
        assert!((entropy(b"abcd") - 2.0).abs() < 1e-9);
        assert!(reads_as_random(b"9f8e7d6c5b4a", 3.0));
        assert!(!reads_as_random(b"identifier", 3.0));
        assert!(!reads_as_random(b"12345678", 3.0));
        assert!(high_entropy(b"kP9zQ2wX7vB4nM1rT8yL5cD3fG6hJ0"));
        assert!(!high_entropy(b"AuthenticationProviderFactory2"));
    }

    #[test]
    fn base64_words_but_not_credentials() {
        // "The quick brown fox jumps over the lazy dog"
        assert!(base64_of_words(
            b"VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw=="
        ));
        // {"name":"checkout","private":true}
        assert!(base64_of_words(
            b"eyJuYW1lIjoiY2hlY2tvdXQiLCJwcml2YXRlIjp0cnVlfQ=="
        ));
        // deploy:q8W!e4R#t6
        assert!(!base64_of_words(b"ZGVwbG95OnE4VyFlNFIjdDY="));
        assert!(!base64_of_words(b"kP9zQ2wX7vB4nM1rT8yL5cD3fG6hJ0"));
    }

    #[test]
    fn values() {
        use Strength::*;
        for (v, quoted, op, after) in [
            ("read_password", false, "=", "()?;"),
            ("settings.API_KEY", false, "=", ""),
            ("os.environ", false, "=", "[\"X\"]"),
            ("String", false, ":", ","),
            ("&str", false, ":", ","),
            ("read_password()?", false, "=", ";"),
            ("getpass.getpass(", false, "=", "\"Password: \")"),
            ("str", false, ":", ")"),
            ("${DB_PASSWORD}", false, "=", ""),
            ("{{ vault_db_password }}", true, ":", ""),
            ("<your-key>", true, ":", ""),
            ("YOUR_TOKEN_HERE", false, " ", ""),
            ("true", false, ":", ""),
            ("must", false, ":", " be at least 12 characters"),
            ("/run/secrets/db", false, "=", ""),
        ] {
            assert!(!secret_value(v, quoted, op, after, Password), "{v}");
        }
        for (v, quoted, op, after) in [
            ("hunter22", false, "=", " psql"),
            ("s3cr3t!", true, ":", ""),
            ("correct horse battery staple", true, ":", ""),
            ("Tr0ub4dor&3x!", false, "=", ""),
            ("M9vq.x7Lr2", false, " ", ""),
        ] {
            assert!(secret_value(v, quoted, op, after, Password), "{v}");
        }
        assert!(secret_value("Zm9vYmFyYmF6cXV4MTIz", false, "=", "", Token));
        assert!(!secret_value("identifier", false, ":", ",", Token));
        assert!(!secret_value("abc123", false, "=", "", Token));
    }
}
