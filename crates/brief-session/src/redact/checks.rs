//! What confirms a candidate: entropy and shape measures, and the allow-lists (code
//! references, placeholders, types, known hash formats, base64 of plain words).

/// How strong a value must be to count as a secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Strength {
    /// People choose passwords: any value of three characters or more.
    Password,
    /// Tokens are generated: at least eight characters that read as random.
    Token,
    /// An HTTP credential (`Authorization: Bearer …`): at least eight characters that are not
    /// a plain word or an identifier path.
    Credential,
}

/// How a value was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// Between quotes, or as the text of a markup element: a literal, never code.
    Literal,
    /// Bare: it may be code (`read_password()?`, `settings.API_KEY`, `password: String`).
    Unquoted,
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

/// Base64 whose decoded bytes are prose or JSON in any language (`echo … | base64 -d`, an
/// encoded config): encoded, not secret. Credentials (`user:password`) have no spaces and
/// are not let through.
pub(super) fn base64_of_words(word: &[u8]) -> bool {
    let Some(decoded) = decode_base64(word) else {
        return false;
    };
    let Ok(decoded) = std::str::from_utf8(&decoded) else {
        return false;
    };
    let chars = decoded.chars().count();
    if chars < 12
        || decoded
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r'))
    {
        return false;
    }
    let spaces = decoded.chars().filter(|&c| c == ' ').count();
    let letters = decoded
        .chars()
        .filter(|c| c.is_alphabetic() || *c == ' ')
        .count();
    let json = matches!(decoded.chars().next(), Some('{' | '['))
        && matches!(decoded.chars().last(), Some('}' | ']'));
    json || (spaces >= 2 && letters * 10 >= chars * 8)
}

/// The label of the PEM block that base64 `word` decodes to (`RSA PRIVATE KEY`,
/// `CERTIFICATE`), read from its first characters, so a cut-off value still tells.
pub(super) fn encoded_pem_label(word: &[u8]) -> Option<Vec<u8>> {
    const BEGIN: &[u8] = b"-----BEGIN ";
    // 96 base64 characters decode to 72 bytes: more than the longest first line.
    let head = &word[..word.len().min(96) / 4 * 4];
    let decoded = decode_base64(head)?;
    let rest = decoded.strip_prefix(BEGIN)?;
    let end = rest.windows(5).position(|w| w == b"-----")?;
    Some(rest[..end].to_vec())
}

/// Whether a PEM label names public material (a certificate, a public key, a signature).
pub(super) fn public_label(label: &[u8]) -> bool {
    super::rules::PUBLIC_LABELS
        .iter()
        .any(|l| l.as_bytes() == label)
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

/// Whether a value given to a secret-named key or flag is a secret. `form`: how it was
/// written; `operator`: `=`, `:`, … or ` ` for a flag; `after`: the text that follows it.
pub(super) fn secret_value(
    value: &str,
    form: Form,
    operator: &str,
    after: &str,
    strength: Strength,
) -> bool {
    let v = value.trim();
    if v.is_empty() || placeholder(v, form, after) {
        return false;
    }
    if strength == Strength::Credential {
        return credential(v);
    }
    if form == Form::Unquoted && code(v, operator, after) {
        return false;
    }
    match strength {
        Strength::Password => {
            v.chars().count() >= 3
                && !(form == Form::Unquoted && operator == ":" && prose(v, after))
        }
        Strength::Token | Strength::Credential => {
            v.len() >= 8 && reads_as_random(v.as_bytes(), 3.0)
        }
    }
}

/// An HTTP credential: eight characters or more that are not a lower-case word or name
/// (`authorization: required_for_requests`), a CamelCase name (`AuthorizationPolicy`) nor an
/// identifier path (`self.access_token`).
fn credential(v: &str) -> bool {
    let bytes = v.as_bytes();
    let has = |f: fn(&u8) -> bool| bytes.iter().any(f);
    let shaped = has(u8::is_ascii_digit)
        || has(u8::is_ascii_uppercase) && has(u8::is_ascii_lowercase)
        || v.contains(['~', '+', '/', '=', '%']);
    let camel_name = bytes.iter().all(u8::is_ascii_alphabetic) && word_capitals(bytes) >= 0.75;
    v.len() >= 8 && shaped && !camel_name && !identifier_path(v)
}

/// `password: must be at least 12 characters` is prose, not YAML: the value opens with a
/// function word, or is a lower-case word followed by words among which two are.
fn prose(v: &str, after: &str) -> bool {
    if stopword(v) {
        return true;
    }
    let following = line_words(after).take(8);
    let lower_word = v.bytes().all(|b| b.is_ascii_lowercase());
    lower_word && following.filter(|w| stopword(w)).count() >= 2
}

/// The words that follow on the same line, found lazily (a long line is not scanned to its
/// end for each value on it).
fn line_words(after: &str) -> impl Iterator<Item = &str> {
    after
        .split(' ')
        .map_while(|w| (!w.contains('\n')).then_some(w))
        .filter(|w| !w.is_empty())
}

/// Words that open or fill prose, never a password's first word in practice.
fn stopword(word: &str) -> bool {
    const WORDS: &[&str] = &[
        "a", "an", "the", "is", "are", "was", "were", "be", "been", "must", "should", "shall",
        "will", "would", "can", "cannot", "could", "may", "might", "not", "no", "too", "very",
        "at", "in", "on", "of", "to", "for", "with", "by", "from", "and", "or", "but", "if",
        "then", "than", "that", "this", "it", "its", "as", "has", "have", "had", "does", "do",
        "did", "needs", "need", "only", "least", "more", "less", "all", "any", "each", "every",
        "your", "our", "their", "his", "her", "my", "via", "per", "when", "where", "which", "who",
        "how", "what", "please", "same", "stored", "never", "always", "see", "ask", "use", "check",
        "below", "above", "given", "provided",
    ];
    let w = word.trim_matches(|c: char| !c.is_ascii_alphabetic());
    WORDS.iter().any(|s| w.eq_ignore_ascii_case(s))
}

/// Where a password given after a colon ends: its first word, and the words of letters that
/// follow it on the line (`Password: correct horse battery staple`), up to a function word,
/// a `key:` or `key=` of another field, a comment or anything that is not a plain word.
pub(super) fn passphrase_end(text: &str, end: usize) -> usize {
    let mut reached = end;
    // Words separated by one space each; the split is lazy, so this reads only the words it
    // takes and the one after.
    for piece in text[end..].split(' ').skip(1) {
        // The line's last word carries the line break.
        let word = piece.split(['\r', '\n']).next().unwrap_or("");
        let plain = !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphabetic());
        if !plain || stopword(word) {
            break;
        }
        reached += 1 + word.len();
        if word.len() < piece.len() {
            break;
        }
    }
    reached
}

/// Values that stand for a secret without being one: references, templates, placeholders,
/// literals of other types, and words that say what state a password is in.
fn placeholder(v: &str, form: Form, after: &str) -> bool {
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
        "invalid",
        "incorrect",
        "wrong",
        "expired",
        "hidden",
        "masked",
        "missing",
        "empty",
        "unset",
        "reset",
        "changed",
        "updated",
        "generated",
        "random",
        "default",
        "blank",
        "unknown",
        "encrypted",
        "hashed",
        "env",
        "file",
        "stdin",
        "prompt",
    ];
    // Uppercase words that read as a variable's name or a placeholder.
    const NAME_WORDS: &[&str] = &[
        "PASSWORD", "PASSWD", "SECRET", "TOKEN", "APIKEY", "REDACTED", "EXAMPLE",
    ];
    if reference(v, form, after) {
        return true;
    }
    // The same character over and over: `****`, `xxxxxxxx`, `........`.
    let first = v.chars().next().unwrap_or(' ');
    if v.chars().all(|c| c == first) {
        return true;
    }
    // `YOUR_TOKEN_HERE`, `API_KEY`, `PGPASSWORD`: an environment variable's name or a
    // placeholder (an upper-case word alone, `PURPLEMONKEY`, may be a password).
    if v.len() >= 3
        && v.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        && (v.contains('_') || NAME_WORDS.iter().any(|w| v.contains(w)))
    {
        return true;
    }
    WORDS.iter().any(|w| v.eq_ignore_ascii_case(w))
}

/// `$VAR`, `${VAR}`, `$(cmd)`, `%VAR%`, `{{ var }}`, `#{var}`, `<your key>`, `[REDACTED]`,
/// `@var`, `(hidden)`, a YAML tag (`!vault`, `!Ref`). A bare value stops at the first closing
/// bracket, so its opening is enough; a literal must have a reference's shape throughout, since
/// generated secrets start with any symbol (`'$x8(k…'`, `'@Kd!…'`).
fn reference(v: &str, form: Form, after: &str) -> bool {
    let bytes = v.as_bytes();
    let name =
        |s: &[u8]| !s.is_empty() && s.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_');
    let letters =
        |s: &[u8]| !s.is_empty() && s.iter().all(|b| b.is_ascii_alphabetic() || *b == b' ');
    let wrapped =
        |open: &str, close: char| v.len() >= 2 && v.starts_with(open) && v.ends_with(close);
    let inner = || &bytes[1..bytes.len() - 1];
    if v.starts_with("#{") || v.ends_with('>') && v.contains('<') {
        return true;
    }
    match form {
        Form::Unquoted => {
            v.starts_with(['$', '%', '<', '[', '{', '@'])
                || v.starts_with('(') && after.starts_with(')') && letters(&bytes[1..])
                || v.starts_with('!') && letters(&bytes[1..])
        }
        Form::Literal => {
            v.starts_with('$') && (name(&bytes[1..]) || wrapped("${", '}') || wrapped("$(", ')'))
                || v.starts_with('@') && name(&bytes[1..])
                || wrapped("%", '%') && name(inner())
                || wrapped("{", '}')
                || wrapped("[", ']')
                || wrapped("(", ')') && letters(inner())
        }
    }
}

/// Unquoted values that are code, not literals: a call or index (`read_password()?`,
/// `os.environ["X"]`), a path of identifiers (`settings.API_KEY`, `var.db_password`), a type
/// after a colon (`password: String`), a keyword (`await`), a file path.
fn code(v: &str, operator: &str, after: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "await", "new", "yield", "lambda", "function", "async", "typeof", "not", "this", "self",
        "try",
    ];
    const TYPES: &[&str] = &[
        "str",
        "string",
        "int",
        "integer",
        "bool",
        "boolean",
        "bytes",
        "number",
        "any",
        "object",
        "char",
        "float",
        "double",
        "long",
        "u8",
        "i32",
        "i64",
        "u32",
        "u64",
        "usize",
        "text",
        "vec",
        "hash",
        "blob",
        "buffer",
        "uuid",
        "url",
        "path",
        "credentials",
        "credential",
        "secretstr",
        "secretstring",
        "securestring",
        "auth",
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
    if file_path(v) {
        return true;
    }
    let segments: Vec<&str> = v.split('.').flat_map(|s| s.split("::")).collect();
    let path = segments.iter().all(|s| is_identifier(s));
    if path && segments.len() >= 2 {
        return true;
    }
    if path && after.starts_with(['(', '[', '.', '?', '!', '<']) {
        return true;
    }
    if operator == ":" && path && segments.len() == 1 {
        // A type after a colon: a known one, a name of several words (`SecretString`), or
        // any name that code punctuation follows (`password: Secret,`). One capitalised word
        // alone on its line (`Password: Sunflower`) is a password.
        let humps = v
            .as_bytes()
            .windows(2)
            .filter(|w| w[0].is_ascii_uppercase() && w[1].is_ascii_lowercase())
            .count();
        let lower = v.to_ascii_lowercase();
        if TYPES.contains(&lower.as_str())
            || humps >= 2 && v.bytes().all(|b| b.is_ascii_alphanumeric())
            || after.starts_with([',', ';', ')', '=', '|', '>', '{', '?', ']'])
            || after.trim_start().starts_with(['=', '|', '{'])
        {
            return true;
        }
    }
    false
}

/// A file path (`/run/secrets/db`, `~/.ssh/id_ed25519`, `./key.pem`): path characters only.
fn file_path(v: &str) -> bool {
    let rooted = v.starts_with('/') || ["~/", "./", "../"].iter().any(|p| v.starts_with(p));
    rooted
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-~".contains(&b))
}

/// An identifier path of two segments or more (`self.access_token`, `settings.API_KEY`).
fn identifier_path(v: &str) -> bool {
    let segments: Vec<&str> = v.split('.').flat_map(|s| s.split("::")).collect();
    segments.len() >= 2 && segments.iter().all(|s| is_identifier(s))
}

/// A name of letters and `_`, with digits only at its end (and `!` or `?` after them, as
/// Ruby, Elixir and Rust macros are named).
fn is_identifier(s: &str) -> bool {
    let s = s.strip_suffix(['!', '?']).unwrap_or(s);
    let letters = s.trim_end_matches(|c: char| c.is_ascii_digit());
    !letters.is_empty()
        && letters.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && letters
            .bytes()
            .all(|b| b.is_ascii_alphabetic() || b == b'_')
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
    fn base64_of_words_in_any_language() {
        // "Grüße aus München: der Build läuft wieder."
        assert!(base64_of_words(
            b"R3LDvMOfZSBhdXMgTcO8bmNoZW46IGRlciBCdWlsZCBsw6R1ZnQgd2llZGVyLg=="
        ));
        // Random bytes that happen to be valid UTF-8 are not words.
        assert!(!base64_of_words(b"kP9zQ2wX7vB4nM1rT8yL5cD3fG6hJ0"));
    }

    #[test]
    fn pem_labels_in_base64() {
        // "-----BEGIN RSA PRIVATE KEY-----\n…", cut short.
        let key = b"LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlF";
        assert_eq!(
            encoded_pem_label(key).as_deref(),
            Some(&b"RSA PRIVATE KEY"[..])
        );
        // "-----BEGIN CERTIFICATE-----\n…"
        let cert = b"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=";
        let label = encoded_pem_label(cert);
        assert_eq!(label.as_deref(), Some(&b"CERTIFICATE"[..]));
        assert!(label.is_some_and(|l| public_label(&l)));
        assert_eq!(encoded_pem_label(b"kP9zQ2wX7vB4nM1rT8yL5cD3fG6hJ0"), None);
    }

    #[test]
    fn passphrases_run_over_their_words() {
        let text = "Password: correct horse battery staple\nnext";
        let end = "Password: correct".len();
        assert_eq!(passphrase_end(text, end), text.find('\n').unwrap());
        // A function word, another field or a symbol ends it.
        for (text, word) in [
            ("Password: hunter2 was rejected", "Password: hunter2"),
            ("pass: alpha host: db", "pass: alpha"),
            ("pass: alpha (rotated)", "pass: alpha"),
        ] {
            assert_eq!(passphrase_end(text, word.len()), word.len(), "{text}");
        }
    }

    #[test]
    fn literals_that_open_with_a_symbol() {
        let literal = |v| secret_value(v, Form::Literal, "=", "", Strength::Password);
        for v in ["$x8(kd!e9q", "@Kd!x9-q", "(x8!kd)e", "!x9kQ2", "%x9kQ2"] {
            assert!(literal(v), "{v}");
        }
        for v in [
            "$DB_PASSWORD",
            "${DB_PASSWORD}",
            "$(pass show db)",
            "%DB_PASSWORD%",
            "@db_pw",
        ] {
            assert!(!literal(v), "{v}");
        }
    }

    #[test]
    fn credentials() {
        let bare = Form::Unquoted;
        let credential = |v| secret_value(v, bare, " ", "", Strength::Credential);
        for v in [
            "~Zq3Xk9Lm2Np",
            "aBcDeFgHiJkLm~nOpQ",
            "ZGVwbG95OnE4VyFl",
            "3f9a8b7c6d5e",
        ] {
            assert!(credential(v), "{v}");
        }
        for v in [
            "required_for_requests",
            "self.access_token",
            "${TOKEN}",
            "<token>",
            "undefined",
            "AuthorizationPolicy",
        ] {
            assert!(!credential(v), "{v}");
        }
    }

    #[test]
    fn values() {
        use Strength::*;
        let form = |quoted: bool| {
            if quoted {
                Form::Literal
            } else {
                Form::Unquoted
            }
        };
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
            ("SecretString", false, ":", ""),
            ("Secret", false, ":", ","),
            ("System.fetch_env!", false, "=", "(\"DB_PASSWORD\")"),
            ("PGPASSWORD", false, ":", ""),
            ("incorrect", false, ":", ""),
            ("(hidden", false, ":", ")"),
            ("!vault", false, ":", " |"),
            ("at", false, ":", " least 12 characters"),
            ("must", false, ":", " be at least 12 characters"),
            ("ask", false, ":", " Ana for it"),
        ] {
            assert!(!secret_value(v, form(quoted), op, after, Password), "{v}");
        }
        for (v, quoted, op, after) in [
            ("hunter22", false, "=", " psql"),
            ("s3cr3t!", true, ":", ""),
            ("correct horse battery staple", true, ":", ""),
            ("Tr0ub4dor&3x!", false, "=", ""),
            ("M9vq.x7Lr2", false, " ", ""),
            ("Sunflower", false, ":", ""),
            ("PURPLEMONKEY", false, ":", ""),
            ("correct", false, ":", " horse battery staple"),
            ("/Gr8!Escape", false, ":", ""),
        ] {
            assert!(secret_value(v, form(quoted), op, after, Password), "{v}");
        }
        let bare = Form::Unquoted;
        assert!(secret_value("Zm9vYmFyYmF6cXV4MTIz", bare, "=", "", Token));
        assert!(!secret_value("identifier", bare, ":", ",", Token));
        assert!(!secret_value("abc123", bare, "=", "", Token));
    }
}
