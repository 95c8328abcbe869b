//! Secret redaction, applied when text is stored and again when it is rendered.
//!
//! A rule table in the style of gitleaks and secretlint (`rules.rs`): each rule is a regex
//! with keywords that must occur for it to run, a check that confirms a candidate (entropy
//! thresholds, allow-lists for code and placeholders, known public formats) and a marker. One
//! pass runs every rule whose keywords occur (one Aho-Corasick scan finds them), confirms
//! the candidates, and replaces the union of the confirmed secrets, leftmost first; where
//! the secrets of several rules overlap, the first rule in the table names the marker.
//! Markers (`[REDACTED:aws-key]`, `[REDACTED]`) are never matched again, and passes repeat
//! until nothing changes, so redacting twice changes nothing. See `docs/redaction.md`.
//!
//! Every search is linear in the text: regexes run leftmost-first and resume after each
//! candidate, and an armored block's end is looked for only up to the next block's first
//! line.

mod checks;
mod rules;
mod values;

use std::cell::OnceCell;
use std::ops::Range;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::bytes::{Regex, RegexBuilder};

use rules::{
    Check, Marker, Reach, Rule, BLOCK_END, KNOWN_PUBLIC, KNOWN_PUBLIC_REACH, PUBLIC_BLOCK, RULES,
};

/// Redacted text and the kinds of secret that were found (sorted, once each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted {
    /// The text with every secret replaced by its marker.
    pub text: String,
    /// The kinds of secret replaced (`github-token`, `secret-assignment`, …), sorted, once
    /// each.
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

/// What rendering does with stored text: the second pass of docs/redaction.md, which
/// `--no-redact` / `no_redact` turns off. Storing always redacts, whatever this says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Secrets {
    /// Secrets are replaced by their markers (the default).
    #[default]
    Redact,
    /// The text is printed as stored (`--no-redact`).
    Show,
}

impl Secrets {
    /// The setting a front end's `--no-redact` / `no_redact` flag asks for.
    pub fn from_no_redact(no_redact: bool) -> Secrets {
        if no_redact {
            Secrets::Show
        } else {
            Secrets::Redact
        }
    }

    /// `text` as printed under this setting.
    pub fn apply(self, text: &str) -> String {
        match self {
            Secrets::Redact => redact_str(text),
            Secrets::Show => text.to_string(),
        }
    }
}

/// The most passes over one text.
const MAX_PASSES: usize = 4;

/// The compiled table.
struct Table {
    rules: Vec<Compiled>,
    /// Every rule's keywords; pattern `i` belongs to rule `keyword_rule[i]`.
    keywords: AhoCorasick,
    keyword_rule: Vec<usize>,
    known_public: Regex,
    public_block: Regex,
    block_end: Regex,
    marker: Regex,
}

/// One rule, compiled.
struct Compiled {
    rule: &'static Rule,
    regex: Regex,
    /// The index of the `s` group, if the pattern has one.
    secret: Option<usize>,
    /// The index of the `name` group, if the pattern has one.
    name: Option<usize>,
    /// A block rule's end and tail patterns.
    block: Option<(Regex, Regex)>,
    /// The marker that replaces this rule's secrets.
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

impl Compiled {
    fn new(rule: &'static Rule) -> Compiled {
        let regex = compile(rule.pattern);
        let group = |name| regex.capture_names().position(|n| n == Some(name));
        Compiled {
            secret: group("s"),
            name: group("name"),
            block: match rule.reach {
                Reach::Match => None,
                Reach::Block { end, tail } => Some((compile(end), compile(tail))),
            },
            text: match rule.marker {
                Marker::Kind => format!("[REDACTED:{}]", rule.kind),
                Marker::Bare => "[REDACTED]".to_string(),
            },
            regex,
            rule,
        }
    }
}

/// What the checks may look at besides the candidate: the whole text, and whether a span of
/// it is a known public format (computed lazily, only for the catch-all's candidates).
struct Context<'t> {
    text: &'t str,
    table: &'t Table,
    public_blocks: OnceCell<Cover>,
}

impl Context<'_> {
    /// Whether `start..end` is a known public format or lies inside a public armored block.
    /// The format may also be the last segment of a path whose other segments read as no
    /// secret (`ipfs://Qm…`, `/tcp/4001/p2p/12D3KooW…`).
    fn known_public(&self, start: usize, end: usize) -> bool {
        let bytes = self.text.as_bytes();
        let from = start.saturating_sub(KNOWN_PUBLIC_REACH);
        let known = self
            .table
            .known_public
            .find(&bytes[from..end])
            .is_some_and(|m| {
                let at = from + m.start();
                at <= start || bytes[at - 1] == b'/' && !checks::high_entropy(&bytes[start..at])
            });
        known
            || self
                .public_blocks
                .get_or_init(|| {
                    let armored = self.text.contains("-----BEGIN ");
                    let text = if armored { bytes } else { b"" };
                    let blocks =
                        blocks(&self.table.public_block, &self.table.block_end, None, text);
                    Cover::new(blocks.into_iter().map(|b| (b.whole.start, b.whole.end)))
                })
                .contains(start, end)
    }
}

impl Table {
    fn compile() -> Table {
        let mut patterns = Vec::new();
        let mut keyword_rule = Vec::new();
        for (i, rule) in RULES.iter().enumerate() {
            for &k in rule.keywords {
                patterns.push(k);
                keyword_rule.push(i);
            }
        }
        let keywords = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&patterns)
            .unwrap_or_else(|e| panic!("redaction keywords: {e}"));
        Table {
            rules: RULES.iter().map(Compiled::new).collect(),
            keywords,
            keyword_rule,
            known_public: compile(KNOWN_PUBLIC),
            public_block: compile(PUBLIC_BLOCK),
            block_end: compile(BLOCK_END),
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
        let context = Context {
            text,
            table: self,
            public_blocks: OnceCell::new(),
        };
        let mut found: Vec<Span> = Vec::new();
        for (ix, rule) in self.rules.iter().enumerate() {
            if !active[ix] {
                continue;
            }
            let spans = match (&rule.block, rule.rule.check) {
                (Some((end, tail)), _) => blocks(&rule.regex, end, Some(tail), bytes),
                // The catch-all matches nearly every long token, so its pattern is run as a
                // byte scan (`tokens`, equal to the regex: see the tests), and a token another
                // rule already replaces needs no second opinion.
                (None, Check::HighEntropy) => {
                    let covered = Cover::new(found.iter().map(|s| (s.start, s.end)));
                    let candidates = tokens(bytes).filter(|&(s, e)| !covered.contains(s, e));
                    candidates.map(|(s, e)| Candidate::whole(s..e)).collect()
                }
                (None, _) => matches(rule, bytes),
            };
            let confirmed = spans
                .into_iter()
                .filter_map(|candidate| confirm(rule, &context, candidate));
            found.extend(confirmed.map(|secret| Span {
                start: secret.start,
                end: secret.end,
                rule: ix,
            }));
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
        // glued to a marker is replaced together with it), each widened to whole characters:
        // a byte pattern may start or end inside one.
        found.extend(markers.iter().copied());
        for span in &mut found {
            (span.start, span.end) = whole_chars(text, span.start, span.end);
        }
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

/// `start..end` widened to the characters of `text` it touches.
fn whole_chars(text: &str, mut start: usize, mut end: usize) -> (usize, usize) {
    end = end.min(text.len());
    start = start.min(end);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    (start, end)
}

/// Where a rule's pattern matched: the whole match, the secret (group `s`, or the match) and
/// the name (group `name`).
#[derive(Debug, Clone)]
struct Candidate {
    whole: Range<usize>,
    secret: Range<usize>,
    name: Option<Range<usize>>,
}

impl Candidate {
    fn whole(range: Range<usize>) -> Candidate {
        Candidate {
            whole: range.clone(),
            secret: range,
            name: None,
        }
    }
}

/// Every match of a rule's pattern, leftmost first, each search resuming after the previous
/// candidate's secret (never before its start + 1), so a rejected candidate is not found
/// again.
fn matches(rule: &Compiled, bytes: &[u8]) -> Vec<Candidate> {
    let mut found = Vec::new();
    let mut at = 0;
    let groups = rule.secret.is_some() || rule.name.is_some();
    // Reused across the rule's matches (no allocation per match).
    let mut caps = rule.regex.capture_locations();
    while at <= bytes.len() {
        // Groups cost a second search over the match: only rules that have them ask for them.
        let candidate = if groups {
            let Some(m) = rule.regex.captures_read_at(&mut caps, bytes, at) else {
                break;
            };
            let whole = m.range();
            let group = |g: Option<usize>| g.and_then(|g| caps.get(g)).map(|(s, e)| s..e);
            Candidate {
                secret: group(rule.secret).unwrap_or(whole.clone()),
                name: group(rule.name),
                whole,
            }
        } else {
            let Some(m) = rule.regex.find_at(bytes, at) else {
                break;
            };
            Candidate::whole(m.range())
        };
        at = candidate.secret.end.max(candidate.whole.start + 1);
        found.push(candidate);
    }
    found
}

/// Armored blocks: each match of `first` runs through the first match of `end` before the
/// next match of `first`, or, without one, over what `tail` matches right after it (nothing
/// when there is no `tail`, and then the block is not reported). Each `end` search stops at
/// the next block, so the whole costs one pass over `bytes`.
fn blocks(first: &Regex, end: &Regex, tail: Option<&Regex>, bytes: &[u8]) -> Vec<Candidate> {
    let starts: Vec<Range<usize>> = first.find_iter(bytes).map(|m| m.range()).collect();
    let mut found = Vec::new();
    for (i, line) in starts.iter().enumerate() {
        let limit = starts.get(i + 1).map_or(bytes.len(), |next| next.start);
        let body = &bytes[line.end..limit];
        let reach = match end.find(body) {
            Some(m) => m.end(),
            None => match tail {
                Some(tail) => tail.find(body).map_or(0, |m| m.end()),
                None => continue,
            },
        };
        found.push(Candidate::whole(line.start..line.end + reach));
    }
    found
}

/// The catch-all's matches, `[A-Za-z0-9+/_~-]{24,}={0,2}` found leftmost first without
/// overlaps, as a scan over the bytes.
fn tokens(bytes: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            if !token_byte(bytes[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && token_byte(bytes[i]) {
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

/// A byte of the catch-all's tokens: base64, base64url and `~` (OAuth tokens, Azure secrets).
fn token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'_' | b'-' | b'~')
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

/// The secret's bytes when the rule's check confirms the candidate.
fn confirm(rule: &Compiled, context: &Context<'_>, candidate: Candidate) -> Option<Range<usize>> {
    let text = context.text;
    let secret = candidate.secret.clone();
    if secret.is_empty()
        || !text.is_char_boundary(secret.start)
        || !text.is_char_boundary(secret.end)
    {
        return None;
    }
    let value = &text.as_bytes()[secret.clone()];
    let confirmed = match rule.rule.check {
        Check::Format => true,
        Check::Random(min) => checks::entropy(value) >= min && value.iter().any(u8::is_ascii_digit),
        Check::EncodedKey => checks::encoded_pem_label(value)
            .is_some_and(|label| label.windows(7).any(|w| w == b"PRIVATE")),
        Check::HighEntropy => high_entropy(context, secret.clone()),
        Check::Value
        | Check::Flag
        | Check::Literal
        | Check::Password
        | Check::Token
        | Check::Credential => return values::confirm(rule.rule.check, text, &candidate),
    };
    confirmed.then_some(secret)
}

/// The catch-all's check: a token that reads as random and is no known public format.
fn high_entropy(context: &Context<'_>, token: Range<usize>) -> bool {
    let value = &context.text.as_bytes()[token.clone()];
    checks::high_entropy(value)
        && !checks::base64_of_words(value)
        && !checks::encoded_pem_label(value).is_some_and(|label| checks::public_label(&label))
        && !context.known_public(token.start, token.end)
}

#[cfg(test)]
mod tests;
