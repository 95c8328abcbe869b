//! Secret redaction, applied when text is stored and again when it is rendered.
//!
//! A rule table in the style of gitleaks and secretlint (`rules.rs`): each rule is a regex
//! with keywords that must occur for it to run, a check that confirms a candidate (entropy
//! thresholds, allow-lists for code and placeholders, known hash formats) and a marker. One
//! pass runs every rule whose keywords occur (one Aho-Corasick scan finds them), confirms
//! the candidates, and replaces the union of the confirmed secrets, leftmost first; where
//! the secrets of several rules overlap, the first rule in the table names the marker.
//! Markers (`[REDACTED:aws-key]`, `[REDACTED]`) are never matched again, and passes repeat
//! until nothing changes, so redacting twice changes nothing. See `docs/redaction.md`.

mod checks;
mod rules;

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::bytes::{Regex, RegexBuilder};

use checks::Strength;
use rules::{
    Check, Marker, Rule, KNOWN_HASH, KNOWN_HASH_REACH, PASSWORD_NAMES, PUBLIC_BLOCK, RULES,
};

/// Redacted text and the kinds of secret that were found (sorted, once each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted {
    pub text: String,
    pub kinds: Vec<&'static str>,
}

impl Redacted {
    /// True when anything was replaced.
    pub fn changed(&self) -> bool {
        !self.kinds.is_empty()
    }
}

/// Removes every secret the rules recognise from `text`.
pub fn redact(text: &str) -> Redacted {
    let table = &*TABLE;
    let mut kinds: Vec<&'static str> = Vec::new();
    let mut current = std::borrow::Cow::Borrowed(text);
    // A replacement can change what a rule sees next to it (a word boundary becomes a
    // bracket), so passes repeat until one changes nothing. Each changing pass replaces
    // text outside markers, so this ends; the bound only guards against a pathological
    // input ping-ponging, and in practice a second pass confirms the first.
    // Later passes reuse the first pass's rules: replacing text only removes keywords (markers
    // are not searched for them, and no keyword holds a bracket to span a marker's edge).
    let mut active = None;
    for _ in 0..MAX_PASSES {
        match table.pass(&current, &mut active) {
            Some((next, found)) => {
                kinds.extend(found);
                current = std::borrow::Cow::Owned(next);
            }
            None => break,
        }
    }
    kinds.sort_unstable();
    kinds.dedup();
    Redacted {
        text: current.into_owned(),
        kinds,
    }
}

/// `redact(text).text`, for rendering.
pub fn redact_str(text: &str) -> String {
    redact(text).text
}

/// The most passes over one text.
const MAX_PASSES: usize = 4;

/// The compiled table.
struct Table {
    rules: Vec<Compiled>,
    /// Every rule's keywords; pattern `i` belongs to rule `keyword_rule[i]`.
    keywords: AhoCorasick,
    keyword_rule: Vec<usize>,
    known_hash: Regex,
    public_block: Regex,
    marker: Regex,
}

struct Compiled {
    rule: &'static Rule,
    regex: Regex,
    /// The index of the `s` group, if the pattern has one.
    secret: Option<usize>,
    name: Option<usize>,
    text: String,
}

static TABLE: LazyLock<Table> = LazyLock::new(Table::compile);

fn compile(pattern: &str) -> Regex {
    RegexBuilder::new(pattern)
        .unicode(false)
        .build()
        // The table is static; `every_rule_compiles` runs each pattern in the tests.
        .unwrap_or_else(|e| panic!("redaction pattern {pattern:?}: {e}"))
}

impl Table {
    fn compile() -> Table {
        let mut patterns = Vec::new();
        let mut keyword_rule = Vec::new();
        let rules: Vec<Compiled> = RULES
            .iter()
            .enumerate()
            .map(|(i, rule)| {
                for &k in rule.keywords {
                    patterns.push(k);
                    keyword_rule.push(i);
                }
                let regex = compile(rule.pattern);
                let group = |name| regex.capture_names().position(|n| n == Some(name));
                Compiled {
                    secret: group("s"),
                    name: group("name"),
                    text: match rule.marker {
                        Marker::Kind => format!("[REDACTED:{}]", rule.kind),
                        Marker::Bare => "[REDACTED]".to_string(),
                    },
                    regex,
                    rule,
                }
            })
            .collect();
        let keywords = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&patterns)
            .unwrap_or_else(|e| panic!("redaction keywords: {e}"));
        Table {
            rules,
            keywords,
            keyword_rule,
            known_hash: compile(KNOWN_HASH),
            public_block: compile(PUBLIC_BLOCK),
            marker: compile(r"\[REDACTED(?::[a-z0-9-]{1,40})?\]"),
        }
    }

    /// One pass: the new text and the kinds replaced, or `None` when nothing was.
    fn pass(
        &self,
        text: &str,
        active: &mut Option<Vec<bool>>,
    ) -> Option<(String, Vec<&'static str>)> {
        let bytes = text.as_bytes();
        let markers: Vec<Span> = self
            .marker
            .find_iter(bytes)
            .map(|m| Span {
                start: m.start(),
                end: m.end(),
                rule: usize::MAX,
            })
            .collect();
        let active = active.get_or_insert_with(|| self.active(bytes, &markers));
        // Public armored blocks, found only when the catch-all has a candidate in a text that
        // has one.
        let blocks = std::cell::OnceCell::new();
        let known = |start: usize, end: usize| -> bool {
            let from = start.saturating_sub(KNOWN_HASH_REACH);
            let hash = self
                .known_hash
                .find(&bytes[from..end])
                .is_some_and(|m| from + m.start() <= start);
            hash || blocks
                .get_or_init(|| {
                    let armored = text.contains("-----BEGIN ");
                    let found = self
                        .public_block
                        .find_iter(if armored { bytes } else { b"" })
                        .map(|m| (m.start(), m.end()));
                    Cover::new(found)
                })
                .contains(start, end)
        };
        let mut found: Vec<Span> = Vec::new();
        for (ix, rule) in self.rules.iter().enumerate() {
            if !active[ix] {
                continue;
            }
            if rule.rule.check == Check::HighEntropy {
                // The catch-all matches nearly every long token, so its pattern is run as a
                // byte scan (`tokens`, equal to the regex: see the tests).
                let covered = Cover::new(found.iter().map(|s| (s.start, s.end)));
                for (start, end) in tokens(bytes) {
                    // A token another rule already replaces needs no second opinion.
                    if covered.contains(start, end) {
                        continue;
                    }
                    if let Some(span) = confirm(rule, text, start, start..end, None, &known) {
                        found.push(Span { rule: ix, ..span });
                    }
                }
                continue;
            }
            let mut at = 0;
            let groups = rule.secret.is_some() || rule.name.is_some();
            // Reused across the rule's matches (no allocation per match).
            let mut caps = rule.regex.capture_locations();
            while at <= bytes.len() {
                // Groups cost a second search over the match: only rules that have them
                // ask for them.
                let (whole, secret, name) = if groups {
                    let Some(m) = rule.regex.captures_read_at(&mut caps, bytes, at) else {
                        break;
                    };
                    let whole = m.range();
                    let group = |g: Option<usize>| g.and_then(|g| caps.get(g)).map(|(s, e)| s..e);
                    let secret = group(rule.secret).unwrap_or(whole.clone());
                    let name = group(rule.name);
                    (whole, secret, name)
                } else {
                    let Some(m) = rule.regex.find_at(bytes, at) else {
                        break;
                    };
                    (m.range(), m.range(), None)
                };
                // Resume after the secret (never before `at + 1`), so a rejected candidate is
                // not found again.
                at = secret.end.max(whole.start + 1);
                if let Some(span) = confirm(rule, text, whole.start, secret, name, &known) {
                    found.push(Span { rule: ix, ..span });
                }
            }
        }
        self.replace(text, found, &markers)
    }

    /// Which rules run on `bytes`: those without keywords, and those with a keyword outside
    /// the `markers`.
    fn active(&self, bytes: &[u8], markers: &[Span]) -> Vec<bool> {
        let mut active: Vec<bool> = self
            .rules
            .iter()
            .map(|r| r.rule.keywords.is_empty())
            .collect();
        let mut waiting = active.iter().filter(|on| !**on).count();
        // Overlapping search, so a keyword inside another (`pass` in `-pass`) still counts;
        // words inside markers (`[REDACTED:github-token]`) do not. It stops once every rule
        // is on.
        let mut next_marker = 0;
        for m in self.keywords.find_overlapping_iter(bytes) {
            while markers.get(next_marker).is_some_and(|k| k.end <= m.start()) {
                next_marker += 1;
            }
            if markers
                .get(next_marker)
                .is_some_and(|k| k.start <= m.start())
            {
                continue;
            }
            let rule = self.keyword_rule[m.pattern().as_usize()];
            if !std::mem::replace(&mut active[rule], true) {
                waiting -= 1;
                if waiting == 0 {
                    break;
                }
            }
        }
        active
    }

    /// Replaces the union of `found`, keeping markers as they are.
    fn replace(
        &self,
        text: &str,
        mut found: Vec<Span>,
        markers: &[Span],
    ) -> Option<(String, Vec<&'static str>)> {
        // A secret inside a marker is the marker's text: nothing to do.
        let in_marker = Cover::new(markers.iter().map(|m| (m.start, m.end)));
        found.retain(|s| !in_marker.contains(s.start, s.end));
        if found.is_empty() {
            return None;
        }
        // Merge overlapping or touching secrets (markers they touch included, so a secret
        // glued to a marker is replaced together with it).
        found.extend(markers.iter().copied());
        found.sort_unstable_by_key(|s| (s.start, s.end));
        let mut merged: Vec<Span> = Vec::new();
        for span in found {
            match merged.last_mut() {
                Some(last) if span.start <= last.end => {
                    last.end = last.end.max(span.end);
                    last.rule = last.rule.min(span.rule);
                }
                _ => merged.push(span),
            }
        }
        let mut out = String::with_capacity(text.len());
        let mut kinds = Vec::new();
        let mut copied = 0;
        for span in merged {
            if span.rule == usize::MAX {
                // A marker alone.
                continue;
            }
            let rule = &self.rules[span.rule];
            out.push_str(&text[copied..span.start]);
            out.push_str(&rule.text);
            kinds.push(rule.rule.kind);
            copied = span.end;
        }
        out.push_str(&text[copied..]);
        (out != text).then_some((out, kinds))
    }
}

/// The catch-all's matches, `[A-Za-z0-9+/_-]{24,}={0,2}` found leftmost first without
/// overlaps, as a scan over the bytes.
fn tokens(bytes: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let token = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'_' | b'-');
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            if !token(bytes[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && token(bytes[i]) {
                i += 1;
            }
            if i - start >= 24 {
                let padding = bytes[i..]
                    .iter()
                    .take(2)
                    .take_while(|&&b| b == b'=')
                    .count();
                i += padding;
                return Some((start, i));
            }
        }
        None
    })
}

/// Spans sorted by start with the furthest end reached so far, so "does one of them hold
/// `start..end`" is a binary search (a text with many secrets and many tokens stays linear
/// in practice rather than quadratic).
struct Cover {
    /// (start, the largest end among spans starting at or before it).
    spans: Vec<(usize, usize)>,
}

impl Cover {
    fn new(spans: impl Iterator<Item = (usize, usize)>) -> Cover {
        let mut spans: Vec<(usize, usize)> = spans.collect();
        spans.sort_unstable();
        let mut furthest = 0;
        for span in &mut spans {
            furthest = furthest.max(span.1);
            span.1 = furthest;
        }
        Cover { spans }
    }

    /// Whether some span starts at or before `start` and ends at or after `end`.
    fn contains(&self, start: usize, end: usize) -> bool {
        let before = self.spans.partition_point(|&(s, _)| s <= start);
        before > 0 && self.spans[before - 1].1 >= end
    }
}

/// A secret to replace: bytes `start..end` of the text, found by rule `rule`.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    rule: usize,
}

/// The secret's span when the rule's check confirms the candidate.
fn confirm(
    rule: &Compiled,
    text: &str,
    match_start: usize,
    secret: std::ops::Range<usize>,
    name: Option<std::ops::Range<usize>>,
    known_hash: &dyn Fn(usize, usize) -> bool,
) -> Option<Span> {
    let bytes = text.as_bytes();
    let (mut start, mut end) = (secret.start, secret.end);
    if start >= end || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
        return None;
    }
    let value = &bytes[start..end];
    match rule.rule.check {
        Check::Format => {}
        Check::Random(min) => {
            if !(checks::entropy(value) >= min && value.iter().any(u8::is_ascii_digit)) {
                return None;
            }
        }
        Check::HighEntropy => {
            // A token starts after a non-token character (the regex has no look-behind).
            let token = |b: u8| b.is_ascii_alphanumeric() || b"+/_-".contains(&b);
            if start > 0 && (token(bytes[start - 1]) || bytes[start - 1] == b'=') {
                return None;
            }
            if !checks::high_entropy(value) || checks::base64_of_words(value) {
                return None;
            }
            if known_hash(start, end) {
                return None;
            }
        }
        Check::Value | Check::Flag | Check::Password | Check::Token => {
            // The whole name: the matched word and the name characters before it.
            let name = name.map(|word| {
                let mut from = word.start;
                while from > 0 && name_byte(bytes[from - 1]) {
                    from -= 1;
                }
                (from..word.end, &text[word])
            });
            let strength = match rule.rule.check {
                Check::Password => Strength::Password,
                Check::Token => Strength::Token,
                _ => {
                    let word = name.as_ref().map_or("", |n| n.1).to_ascii_lowercase();
                    if PASSWORD_NAMES.iter().any(|w| word.ends_with(w)) {
                        Strength::Password
                    } else {
                        Strength::Token
                    }
                }
            };
            let name = name.map(|n| n.0);
            let context_ok = match rule.rule.check {
                Check::Value => assignment_context(text, name.as_ref(), start),
                Check::Flag => flag_context(text, name.as_ref()),
                _ => true,
            };
            if !context_ok {
                return None;
            }
            let (inner_start, mut inner_end, quoted) = unquote(bytes, start, end);
            let operator = operator(text, match_start, name.as_ref(), start);
            // In a URL query, a bare value ends at the next parameter.
            let in_query = name
                .as_ref()
                .is_some_and(|n| n.start > 0 && matches!(bytes[n.start - 1], b'?' | b'&'));
            if !quoted && in_query {
                if let Some(amp) = text[inner_start..inner_end].find(['&', '#']) {
                    inner_end = inner_start + amp;
                }
            }
            if inner_start >= inner_end {
                return None;
            }
            let value = &text[inner_start..inner_end];
            if !checks::secret_value(value, quoted, operator, &text[inner_end..], strength) {
                return None;
            }
            (start, end) = (inner_start, inner_end);
        }
    }
    Some(Span {
        start,
        end,
        rule: 0,
    })
}

/// A byte of a key's name (`DB_PASSWORD`, `spring.datasource.password`, `X-Api-Key`).
fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

/// Whether the name is a command-line flag: `-password`, `--db-password`, after a blank,
/// a quote or a bracket (not the end of a word in prose).
fn flag_context(text: &str, name: Option<&std::ops::Range<usize>>) -> bool {
    let Some(name) = name else { return false };
    let flag = &text[name.clone()];
    let dashes = flag.len() - flag.trim_start_matches('-').len();
    let before = name.start.checked_sub(1).map(|i| text.as_bytes()[i]);
    (1..=2).contains(&dashes)
        && before.is_none_or(|b| b.is_ascii_whitespace() || b"\"'([=".contains(&b))
}

/// The secret without its quotes, and whether it had any.
fn unquote(bytes: &[u8], start: usize, end: usize) -> (usize, usize, bool) {
    let quote = bytes[start];
    if end - start >= 2 && matches!(quote, b'"' | b'\'' | b'`') && bytes[end - 1] == quote {
        (start + 1, end - 1, true)
    } else {
        (start, end, false)
    }
}

/// The operator between the name and the value (`=`, `:`, `=>`, …; a blank for a flag).
fn operator<'a>(
    text: &'a str,
    match_start: usize,
    name: Option<&std::ops::Range<usize>>,
    value_start: usize,
) -> &'a str {
    let from = name.map_or(match_start, |n| n.end);
    let between = text[from..value_start].trim_matches(|c: char| c == '"' || c == '\'' || c == '`');
    let op = between.trim();
    if op.is_empty() {
        " "
    } else {
        op
    }
}

/// Whether a `name = value` match is an assignment rather than text that happens to look
/// like one: not a variable being read (`$PWD`), not a comparison (`==`), not a path
/// (`Token::Eof`), and not inside a string whose quote the value would close
/// (`"Password: " + x`).
fn assignment_context(
    text: &str,
    name: Option<&std::ops::Range<usize>>,
    value_start: usize,
) -> bool {
    let bytes = text.as_bytes();
    let Some(name) = name else { return true };
    let before = name.start.checked_sub(1).map(|i| bytes[i]);
    if matches!(before, Some(b'$' | b'%' | b'@')) {
        return false;
    }
    if matches!(bytes.get(value_start), Some(b'=' | b':')) {
        return false;
    }
    if let Some(q @ (b'"' | b'\'' | b'`')) = before {
        let closed_before_operator = bytes.get(name.end) == Some(&q);
        if !closed_before_operator && bytes.get(value_start) == Some(&q) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests;
