//! The redaction corpus (`tests/redaction/`): every secret kind in `secrets.toml` is removed
//! and every text in `ordinary.toml` is left byte for byte. Prints its figures; run with
//! `cargo test -p brief-session --test redaction -- --nocapture` to see them (they are quoted in
//! `docs/redaction.md`).

// Test code: a failed unwrap is the failure report (clippy.toml's test allowances do not
// reach an integration-test crate).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use brief_session::{redact, redact_str};
use serde::Deserialize;

#[derive(Deserialize)]
struct Corpus {
    #[serde(default)]
    secret: Vec<Secret>,
    #[serde(default)]
    ordinary: Vec<Ordinary>,
}

/// A secret in the context it is found in, and the text that must not survive.
#[derive(Deserialize)]
struct Secret {
    kind: String,
    text: String,
    leaks: Vec<String>,
}

/// Text that holds no secret.
#[derive(Deserialize)]
struct Ordinary {
    name: String,
    text: String,
}

fn corpus(file: &str) -> Corpus {
    let path = format!("{}/tests/redaction/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The shortest piece of a secret that counts as a leak: every window of this many characters
/// (or the whole secret when shorter) must be gone.
const WINDOW: usize = 8;

/// The first window of `secret` that survives in `out`.
fn leaked<'a>(secret: &'a str, out: &str) -> Option<&'a str> {
    let chars: Vec<(usize, char)> = secret.char_indices().collect();
    if chars.len() <= WINDOW {
        return out.contains(secret).then_some(secret);
    }
    (0..=chars.len() - WINDOW).find_map(|i| {
        let start = chars[i].0;
        let end = chars.get(i + WINDOW).map_or(secret.len(), |c| c.0);
        let window = &secret[start..end];
        out.contains(window).then_some(window)
    })
}

#[test]
fn corpus_has_no_leaks_and_no_false_positives() {
    let secrets = corpus("secrets.toml").secret;
    let ordinary = corpus("ordinary.toml").ordinary;
    let kinds: BTreeSet<&str> = secrets.iter().map(|s| s.kind.as_str()).collect();
    assert_eq!(kinds.len(), secrets.len(), "one entry per secret kind");
    assert!(kinds.len() >= 120, "{} secret kinds", kinds.len());
    assert!(ordinary.len() >= 60, "{} ordinary texts", ordinary.len());
    let names: BTreeSet<&str> = ordinary.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names.len(),
        ordinary.len(),
        "one entry per ordinary text name"
    );
    for secret in &secrets {
        assert!(
            !secret.leaks.is_empty()
                && secret
                    .leaks
                    .iter()
                    .all(|l| secret.text.contains(l.as_str()) && !l.is_empty()),
            "{}: every leak is a non-empty part of the text",
            secret.kind
        );
    }

    let mut leaks = Vec::new();
    for secret in &secrets {
        let out = redact(&secret.text);
        let mut why = Vec::new();
        if !out.changed() {
            why.push("nothing redacted".to_string());
        }
        for value in &secret.leaks {
            if let Some(window) = leaked(value, &out.text) {
                why.push(format!("`{window}` survived"));
            }
        }
        if !why.is_empty() {
            leaks.push(format!(
                "{}: {}\n    → {}",
                secret.kind,
                why.join(", "),
                out.text
            ));
        }
    }
    let mut altered = Vec::new();
    for text in &ordinary {
        let out = redact(&text.text);
        if out.text != text.text || out.changed() {
            altered.push(format!(
                "{}:\n    {}\n    → {}",
                text.name, text.text, out.text
            ));
        }
    }
    println!(
        "redaction corpus: {}/{} secret kinds caught, {} leaked; {}/{} ordinary texts altered (false positives)",
        secrets.len() - leaks.len(),
        secrets.len(),
        leaks.len(),
        altered.len(),
        ordinary.len()
    );
    assert!(
        leaks.is_empty() && altered.is_empty(),
        "leaks:\n{}\nfalse positives:\n{}",
        leaks.join("\n"),
        altered.join("\n")
    );
}

#[test]
fn redacting_the_corpus_twice_changes_nothing() {
    let secrets = corpus("secrets.toml").secret;
    let ordinary = corpus("ordinary.toml").ordinary;
    let texts = secrets
        .iter()
        .map(|s| &s.text)
        .chain(ordinary.iter().map(|o| &o.text));
    for text in texts {
        let once = redact_str(text);
        assert_eq!(redact_str(&once), once, "{text}");
    }
}
