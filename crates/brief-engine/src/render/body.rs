//! Markdown bodies of artifacts: the leading `# Title` dropped (the card has the title), the
//! first section cut out for `summary`, and headings pushed below the document's own.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use brief_model::{Lifecycle, NodeIx};
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// The deepest level the document itself uses (`###` for a node); body headings go below.
const BODY_MIN_LEVEL: usize = 4;

/// Most bytes of a summary's text (about 75 tokens, two or three sentences): the opening of
/// the first section. A first section can run to thousands of tokens, and a summary that long
/// is no summary: with words as the target every selected node gets its summary before any
/// gets its full text, so a short one lets more of them say what they are.
const SUMMARY_BYTES: usize = 300;

/// An ATX or setext heading of a body: its level and its byte range.
#[derive(Debug, Clone, Copy)]
struct Heading {
    level: usize,
    start: usize,
    end: usize,
}

/// An artifact's body as its card reads it: the text and its headings.
pub(crate) struct Body<'a> {
    text: &'a str,
    headings: Rc<[Heading]>,
}

impl<'a> Body<'a> {
    /// Reads `text`'s headings.
    pub(crate) fn of(text: &'a str) -> Body<'a> {
        Body {
            text,
            headings: headings(text).into(),
        }
    }
}

/// Artifacts' bodies as their cards read them, each body's headings found once however many
/// of its levels are rendered: the fit renders a candidate at several, and finding headings
/// means parsing the whole body.
#[derive(Default)]
pub(crate) struct Bodies(RefCell<HashMap<NodeIx, Rc<[Heading]>>>);

impl Bodies {
    /// The body `text` of node `ix`.
    pub(crate) fn read<'a>(&self, ix: NodeIx, text: &'a str) -> Body<'a> {
        if let Some(headings) = self.0.borrow().get(&ix) {
            return Body {
                text,
                headings: Rc::clone(headings),
            };
        }
        let body = Body::of(text);
        self.0.borrow_mut().insert(ix, Rc::clone(&body.headings));
        body
    }
}

fn headings(body: &str) -> Vec<Heading> {
    let mut found = Vec::new();
    let mut open: Option<(usize, usize)> = None;
    for (event, range) in Parser::new(body).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                open = Some((level_num(level), range.start))
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, start)) = open.take() {
                    found.push(Heading {
                        level,
                        start,
                        end: range.end,
                    });
                }
            }
            _ => {}
        }
    }
    found
}

/// Whether a heading of `body` (ATX or setext, never a line of a code block) is at `anchor`
/// (any case) as GitHub numbers it (github-slugger, [`brief_sources::Slugs`]): a repeated
/// heading's second occurrence is `notes-1`, unless a heading `Notes 1` took that.
pub(crate) fn has_heading_at(body: &str, anchor: &str) -> bool {
    let wanted = anchor.to_lowercase();
    let mut slugs = brief_sources::Slugs::default();
    let mut text: Option<String> = None;
    for event in Parser::new(body) {
        match event {
            Event::Start(Tag::Heading { .. }) => text = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(text) = &mut text {
                    text.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let Some(text) = text.take() else { continue };
                if slugs.next(&text) == wanted {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

fn level_num(level: HeadingLevel) -> usize {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// The body without a leading H1, trimmed, with headings demoted.
pub(super) fn full(body: &Body<'_>) -> String {
    let (rest, offset_headings) = without_title(body);
    demote(rest, &offset_headings)
}

/// A summary: the opening of [`first_section`], at most about [`SUMMARY_BYTES`] ([`opening`]).
pub(crate) fn summary(body: &Body<'_>) -> String {
    opening(&first_section(body), SUMMARY_BYTES)
}

/// The headings that open what a decision record decided, lower-cased: Nygard's `Decision`,
/// MADR's `Decision Outcome`, and the common variants.
const DECISION_HEADINGS: &[&str] = &[
    "decision",
    "decision outcome",
    "the decision",
    "decision and rationale",
    "decisions",
];

/// A decision record's summary: the opening of its decision section's own text (without its
/// subsections), at most about [`SUMMARY_BYTES`]; `None` when it has no such section or the
/// section holds no text of its own.
pub(crate) fn decision_summary(body: &Body<'_>) -> Option<String> {
    let (rest, hs) = without_title(body);
    let at = hs.iter().position(|h| {
        let title = heading_title(&rest[h.start..h.end]).to_lowercase();
        DECISION_HEADINGS.contains(&title.as_str())
    })?;
    let heading = hs[at];
    // The section's own text: its subsections (MADR's consequences) come with the full text.
    let end = hs.get(at + 1).map_or(rest.len(), |o| o.start);
    if rest[heading.end..end].trim().is_empty() {
        return None;
    }
    let kept: Vec<Heading> = hs[at..]
        .iter()
        .filter(|h| h.end <= end)
        .map(|h| Heading {
            level: h.level,
            start: h.start - heading.start,
            end: h.end - heading.start,
        })
        .collect();
    Some(opening(
        &demote(&rest[heading.start..end], &kept),
        SUMMARY_BYTES,
    ))
}

/// Most bytes of a status note ([`status_note`]).
const STATUS_NOTE_BYTES: usize = 240;

/// What a record's `Status` section says beyond its status line, as one line of plain text of
/// at most about [`STATUS_NOTE_BYTES`] (`Use the container image instead.`): the line of a
/// retired record carries it. The section's first paragraph is left out when it is only a
/// status line that says `lifecycle`, six words at most (`Superseded by [ADR-0004](…)`,
/// `Reverted by discussion 12.`): the line says its status and names its successor already.
/// `None` without such a section, or when what is left holds three words or fewer.
pub(crate) fn status_note(body: &Body<'_>, lifecycle: Lifecycle) -> Option<String> {
    let (hs, body) = (&body.headings, body.text);
    let at = hs
        .iter()
        .position(|h| heading_title(&body[h.start..h.end]).eq_ignore_ascii_case("status"))?;
    let end = hs.get(at + 1).map_or(body.len(), |next| next.start);
    let section = body.get(hs[at].end..end)?;
    // Its blocks (paragraphs, list items, code) as plain text.
    let mut blocks = vec![String::new()];
    for event in Parser::new(section) {
        match event {
            Event::Text(text) | Event::Code(text) => {
                if let Some(block) = blocks.last_mut() {
                    block.push_str(&text);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(block) = blocks.last_mut() {
                    block.push(' ');
                }
            }
            Event::End(TagEnd::Paragraph | TagEnd::Item | TagEnd::CodeBlock) => {
                blocks.push(String::new())
            }
            _ => {}
        }
    }
    let first = blocks.first().map(String::as_str).unwrap_or_default();
    let says_status =
        first.split_whitespace().count() <= 6 && Lifecycle::parse(first) == Some(lifecycle);
    let rest = if says_status {
        &blocks[1..]
    } else {
        &blocks[..]
    };
    let words: Vec<&str> = rest.iter().flat_map(|b| b.split_whitespace()).collect();
    if words.len() <= 3 {
        return None;
    }
    let line = words.join(" ");
    if line.len() <= STATUS_NOTE_BYTES {
        return Some(line);
    }
    let mut cut = STATUS_NOTE_BYTES;
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    let kept = line[..cut]
        .rsplit_once(' ')
        .map_or(&line[..cut], |(head, _)| head);
    Some(format!("{kept} …"))
}

/// Where the section that opens what a decision record decided starts in `text` (a
/// rendered body): the byte offset of its heading, if it has one.
pub(crate) fn decision_at(text: &str) -> Option<usize> {
    headings(text)
        .into_iter()
        .find(|h| {
            let title = heading_title(&text[h.start..h.end]).to_lowercase();
            DECISION_HEADINGS.contains(&title.as_str())
        })
        .map(|h| h.start)
}

/// A heading line's text: without its `#` marks (both ends), a setext underline or a
/// leading number (`2. Decision`).
fn heading_title(line: &str) -> &str {
    let first = line.lines().next().unwrap_or_default();
    first
        .trim()
        .trim_start_matches('#')
        .trim_end_matches('#')
        .trim()
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
        .trim()
}

/// The opening of `text` in about `most` bytes: whole top-level blocks (a heading, a
/// paragraph, a list, a code block, a table), then as many sentences of a paragraph or items
/// of a list that does not fit whole; `…` says more follows. A first table or fenced code
/// block is cut between rows or lines ([`overflow`]); another block that cannot be cut is
/// kept whole when even the first block does not fit. A text within `most` is kept as it is.
fn opening(text: &str, most: usize) -> String {
    if text.len() <= most {
        return text.to_string();
    }
    let mut most = most;
    while !text.is_char_boundary(most) {
        most -= 1;
    }
    let cut = opening_cut(text, most);
    let kept = text[..cut.at].trim_end();
    if cut.at >= text.len() || kept.is_empty() {
        return text.to_string();
    }
    match cut.within {
        Within::Paragraph => format!("{kept} …"),
        Within::Blocks => format!("{kept}\n\n…"),
        Within::Fence(fence) => format!("{kept}\n{fence}\n\n…"),
    }
}

/// Where an opening ends, and whether inside a paragraph.
struct Cut {
    at: usize,
    within: Within,
}

/// What an opening's end cuts.
enum Within {
    /// Between blocks, list items or table rows.
    Blocks,
    /// Inside a paragraph, after a sentence or a word.
    Paragraph,
    /// Inside a fenced code block, after a line: the fence (` ``` `) closes it again.
    Fence(String),
}

/// The top-level block that does not fit: what it is, where it starts and ends, where its
/// last list item or table row within the limit ends, and where its first table row ends
/// (0: none).
struct Overflow<'a> {
    tag: Option<Tag<'a>>,
    start: usize,
    end: usize,
    item_end: usize,
    first_row_end: usize,
}

/// What an opening has kept before the block that does not fit.
#[derive(Clone, Copy)]
struct Kept {
    /// Where the last whole block ends.
    end: usize,
    /// Whether a block other than a heading is among them (a heading alone says nothing).
    says: bool,
}

/// The options the body is read with: tables are blocks of their own.
fn options() -> Options {
    Options::ENABLE_TABLES
}

/// Finds the end of [`opening`] (`most` is a character boundary): after the last top-level
/// block ending within `most`, or inside the first one that does not fit.
fn opening_cut(text: &str, most: usize) -> Cut {
    let mut kept = Kept {
        end: 0,
        says: false,
    };
    let mut depth = 0usize;
    let mut open: Option<(Tag<'_>, usize)> = None;
    let mut item_end = 0;
    let mut first_row_end = 0;
    for (event, range) in Parser::new_ext(text, options()).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    open = Some((tag, range.start));
                    item_end = 0;
                    first_row_end = 0;
                }
                depth += 1;
            }
            Event::End(end) => {
                depth = depth.saturating_sub(1);
                // A table's head is no cut: its rows follow the separator line.
                if depth == 1 && matches!(end, TagEnd::Item | TagEnd::TableRow) && range.end <= most
                {
                    item_end = range.end;
                }
                if depth == 1 && matches!(end, TagEnd::TableRow) && first_row_end == 0 {
                    first_row_end = range.end;
                }
                if depth > 0 {
                    continue;
                }
                let (tag, start) = match open.take() {
                    Some((tag, start)) => (Some(tag), start),
                    None => (None, range.start),
                };
                if range.end <= most {
                    kept.end = range.end;
                    kept.says |= !matches!(tag, Some(Tag::Heading { .. }));
                    continue;
                }
                let block = Overflow {
                    tag,
                    start,
                    end: range.end,
                    item_end,
                    first_row_end,
                };
                return overflow(text, most, kept, block);
            }
            _ if depth == 0 => {
                if range.end <= most {
                    kept.end = range.end;
                    kept.says = true;
                } else {
                    let block = Overflow {
                        tag: None,
                        start: range.start,
                        end: range.end,
                        item_end: 0,
                        first_row_end: 0,
                    };
                    return overflow(text, most, kept, block);
                }
            }
            _ => {}
        }
    }
    Cut {
        at: text.len(),
        within: Within::Blocks,
    }
}

/// The cut inside `block`, the first top-level block that does not fit, after the blocks
/// that do (`kept`). A list is cut between its items; a paragraph, a quote or a list's first
/// item after a sentence, or — when nothing but headings is kept — after a word. A table or
/// a fenced code block is left out after blocks that say something; when it comes first, a
/// table is cut between its rows and a fenced code block between its lines (and closed
/// again), so a summary is never a page-long table or listing. Raw HTML and an indented code
/// block are never cut: left out after blocks that say something, kept whole otherwise.
fn overflow(text: &str, most: usize, kept: Kept, block: Overflow<'_>) -> Cut {
    let blocks = |at| Cut {
        at,
        within: Within::Blocks,
    };
    match block.tag {
        Some(Tag::List(_)) if block.item_end > 0 => blocks(block.item_end),
        // A table whose first row alone is over the limit keeps its head and that row.
        Some(Tag::Table(_)) if !kept.says && block.item_end > 0 => blocks(block.item_end),
        Some(Tag::Table(_)) if !kept.says && block.first_row_end > 0 => blocks(block.first_row_end),
        Some(Tag::CodeBlock(CodeBlockKind::Fenced(_))) if !kept.says => {
            match fenced_cut(
                &text[block.start..block.end],
                most.saturating_sub(block.start),
            ) {
                Some((at, fence)) => Cut {
                    at: block.start + at,
                    within: Within::Fence(fence),
                },
                None => blocks(block.end),
            }
        }
        Some(Tag::Paragraph | Tag::BlockQuote(_) | Tag::List(_)) if block.start < most => {
            let inside = &text[block.start..most];
            match sentence_end(inside) {
                Some(end) => Cut {
                    at: block.start + end,
                    within: Within::Paragraph,
                },
                None if kept.says => blocks(kept.end),
                None => Cut {
                    at: block.start + word_end(inside),
                    within: Within::Paragraph,
                },
            }
        }
        _ if kept.says => blocks(kept.end),
        _ => blocks(block.end),
    }
}

/// Where to cut a fenced code block `code` within `most` bytes, and its fence: after the
/// last whole line that fits, once a line that is not blank is kept, or else after the first
/// such line (over the limit: a summary shows some code rather than a page of it). `None`
/// when the block has no such line, when the cut would keep every line (the block is then
/// kept whole), or when the fence is not a run of three or more backticks or tildes.
fn fenced_cut(code: &str, most: usize) -> Option<(usize, String)> {
    let first = code.find('\n')?;
    let opener = code[..first].trim_start();
    let mark = opener.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let fence: String = opener.chars().take_while(|c| *c == mark).collect();
    if fence.len() < 3 {
        return None;
    }
    // Each line of code (the closing fence aside): where it ends and whether it says anything.
    let mut lines = Vec::new();
    let mut at = first + 1;
    for line in code[first + 1..].split_inclusive('\n') {
        let text = line.trim();
        if text.len() >= fence.len() && text.chars().all(|c| c == mark) {
            break;
        }
        lines.push((at + line.trim_end().len(), !text.is_empty()));
        at += line.len();
    }
    let said = lines.iter().position(|&(_, says)| says)?;
    let within = lines[said..].iter().rposition(|&(end, _)| end <= most);
    let kept = said + within.unwrap_or(0);
    (kept + 1 < lines.len()).then(|| (lines[kept].0, fence))
}

/// Just after the last sentence end in `text`, if any: `.`, `!` or `?` before a space or a
/// line break, or a full-width `。`, `！` or `？`.
fn sentence_end(text: &str) -> Option<usize> {
    let mut last = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let after = i + c.len_utf8();
        let ends = match c {
            '.' | '!' | '?' => chars.peek().is_some_and(|(_, next)| next.is_whitespace()),
            '。' | '！' | '？' => true,
            _ => false,
        };
        if ends {
            last = Some(after);
        }
    }
    last
}

/// Just before the last whitespace of `text`, or all of it when it has none (at a character
/// boundary).
fn word_end(text: &str) -> usize {
    match text.rfind(char::is_whitespace) {
        Some(i) if i > 0 => i,
        _ => text.len(),
    }
}

/// The first section of the body that says something: the text before the first heading,
/// or else the first heading and everything up to the next heading of the same or a higher
/// level — passing over sections that hold only metadata (an ADR's `Date: …` lines, its
/// `## Status` section), which the card's facts already give.
fn first_section(body: &Body<'_>) -> String {
    let (rest, hs) = without_title(body);
    let mut start = 0;
    let mut next = 0;
    let mut first = None;
    loop {
        let (range, after) = section_at(rest, &hs, start, next);
        first.get_or_insert(range.clone());
        if range.is_empty() {
            break;
        }
        if !is_metadata(rest, &hs, range.clone()) {
            first = Some(range);
            break;
        }
        start = range.end;
        next = after;
    }
    let range = first.unwrap_or(0..0);
    let kept: Vec<Heading> = hs
        .iter()
        .filter(|h| h.start >= range.start && h.end <= range.end)
        .map(|h| Heading {
            level: h.level,
            start: h.start - range.start,
            end: h.end - range.start,
        })
        .collect();
    demote(&rest[range], &kept)
}

/// The section starting at byte `start` of `rest`, whose first heading at or after it is
/// `hs[next]`: the text up to that heading when there is any, else that heading's section.
/// Also the index of the first heading after the section.
fn section_at(
    rest: &str,
    hs: &[Heading],
    start: usize,
    next: usize,
) -> (std::ops::Range<usize>, usize) {
    match hs.get(next) {
        None => (start..rest.len(), hs.len()),
        Some(h) if !rest[start..h.start].trim().is_empty() => (start..h.start, next),
        Some(h) => {
            let end = hs[next + 1..]
                .iter()
                .position(|o| o.level <= h.level)
                .map_or(hs.len(), |k| next + 1 + k);
            let cut = hs.get(end).map_or(rest.len(), |o| o.start);
            (h.start..cut, end)
        }
    }
}

/// Headings of sections that hold an ADR's metadata, lower-cased.
const METADATA_HEADINGS: &[&str] = &[
    "status",
    "date",
    "dates",
    "deciders",
    "decision-makers",
    "decision makers",
    "authors",
    "author",
    "metadata",
    "tags",
];

/// Whether a section holds only metadata: every line of its text is a metadata line
/// (`Date: …`, `| Status | Accepted |`), or its heading names metadata and a few short lines
/// follow it.
fn is_metadata(rest: &str, hs: &[Heading], range: std::ops::Range<usize>) -> bool {
    let heading = hs.iter().find(|h| h.start == range.start);
    let text_start = heading.map_or(range.start, |h| h.end.min(range.end));
    let lines: Vec<&str> = rest[text_start..range.end]
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let named = heading.is_some_and(|h| {
        let title = heading_title(&rest[h.start..h.end]);
        METADATA_HEADINGS.contains(&title.to_lowercase().as_str())
    });
    if named {
        return lines.len() <= 3 && lines.iter().all(|l| l.len() <= 200);
    }
    !lines.is_empty()
        && lines.len() <= 12
        && lines.iter().all(|l| brief_sources::is_metadata_line(l))
}

/// Drops a leading H1 (only blank lines before it) and returns the rest with its headings,
/// offsets relative to the rest.
fn without_title<'a>(body: &Body<'a>) -> (&'a str, Vec<Heading>) {
    let (hs, body) = (&body.headings, body.text);
    let (rest_start, skip) = match hs.first() {
        Some(h) if h.level == 1 && body[..h.start].trim().is_empty() => (h.end, 1),
        _ => (0, 0),
    };
    let rest = &body[rest_start..];
    let shifted = hs
        .iter()
        .skip(skip)
        .map(|h| Heading {
            level: h.level,
            start: h.start - rest_start,
            end: h.end - rest_start,
        })
        .collect();
    (rest, shifted)
}

/// Trims the text and adds `#` to ATX headings so the shallowest becomes level 4 (at most 6).
fn demote(text: &str, hs: &[Heading]) -> String {
    let shift = hs
        .iter()
        .map(|h| h.level)
        .min()
        .map(|min| BODY_MIN_LEVEL.saturating_sub(min))
        .unwrap_or(0);
    let mut out = String::with_capacity(text.len() + hs.len() * shift);
    let mut at = 0;
    for h in hs {
        if h.start > text.len() {
            break;
        }
        out.push_str(&text[at..h.start]);
        let line = &text[h.start..h.end.min(text.len())];
        let hashes = line.bytes().take_while(|&b| b == b'#').count();
        if shift > 0 && hashes > 0 {
            let new_level = (hashes + shift).min(6);
            out.push_str(&"#".repeat(new_level));
            out.push_str(&line[hashes..]);
        } else {
            out.push_str(line);
        }
        at = h.end.min(text.len());
    }
    out.push_str(&text[at..]);
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use brief_model::Retired;

    #[test]
    fn a_heading_is_at_its_github_anchor_and_a_code_line_is_no_heading() {
        let body = "Storage\n=======\n\nIntro.\n\nCache directory\n---------------\n\n\
                    ## Notes\n\nA.\n\n## Notes\n\nB.\n\n```sh\n# install deps\n```\n\n\
                    ### `brief` and *you*\n\n## Setup\n\n## Setup 1\n\n## Setup\n";
        for anchor in [
            "storage",
            "cache-directory",
            "Notes",
            "notes-1",
            "brief-and-you",
            "setup-1",
            "setup-2",
        ] {
            assert!(has_heading_at(body, anchor), "{anchor}");
        }
        for anchor in ["notes-2", "install-deps", "intro", "setup-3"] {
            assert!(!has_heading_at(body, anchor), "{anchor}");
        }
    }

    // What the cards call, on a body read afresh.
    fn full(text: &str) -> String {
        super::full(&Body::of(text))
    }
    fn summary(text: &str) -> String {
        super::summary(&Body::of(text))
    }
    fn first_section(text: &str) -> String {
        super::first_section(&Body::of(text))
    }
    fn decision_summary(text: &str) -> Option<String> {
        super::decision_summary(&Body::of(text))
    }
    fn status_note(text: &str, lifecycle: Lifecycle) -> Option<String> {
        super::status_note(&Body::of(text), lifecycle)
    }

    const BODY: &str = "\n# OAuth login\n\n## Overview\nLets users sign in.\n\n### Detail\nMore.\n\n## Plan\n1. Do it.\n\n```sh\n# not a heading\n```\n";

    #[test]
    fn a_status_note_is_what_the_status_section_says_beyond_its_word() {
        let withdrawn = Lifecycle::NotCurrent(Retired::Withdrawn);
        let body = "# 2. Old way\n\n## Status\n\nReverted by [discussion 7](https://x.org/7).\n\n\
                    - Use `new-way` for every new install.\n\n## Context\n\nWhy.\n";
        assert_eq!(
            status_note(body, withdrawn).as_deref(),
            Some("Use new-way for every new install.")
        );
        // A first paragraph that is more than a status line is kept.
        let said = "## Status\n\nReverted in 2024, when the old installer stopped working.\n";
        assert_eq!(
            status_note(said, withdrawn).as_deref(),
            Some("Reverted in 2024, when the old installer stopped working.")
        );
        let superseded = Lifecycle::NotCurrent(Retired::Superseded);
        for terse in [
            "## Status\n\nSuperseded by [ADR-0004](0004-x.md)\n",
            "## Status\n\nSuperceded by [72. Decide reporting 72](0072-x.md)\n",
            "## Status\n\nAccepted\n\n## Decision\n\nWe do it.\n",
            "## Context\n\nNo status section.\n",
        ] {
            assert_eq!(status_note(terse, superseded), None, "{terse}");
        }
        let obsolete = Lifecycle::NotCurrent(Retired::Obsolete);
        let long = format!(
            "## Status\n\nObsolete.\n\n{}\n",
            "Words that go on. ".repeat(40)
        );
        let note = status_note(&long, obsolete).unwrap();
        assert!(
            note.ends_with(" …") && note.len() <= STATUS_NOTE_BYTES + 4,
            "{note}"
        );
    }

    #[test]
    fn full_drops_the_title_and_demotes() {
        let text = full(BODY);
        assert!(text.starts_with("#### Overview"), "{text}");
        assert!(text.contains("##### Detail"));
        assert!(text.contains("#### Plan"));
        assert!(
            text.contains("# not a heading"),
            "code blocks are untouched"
        );
        assert!(!text.contains("OAuth login"));
    }

    #[test]
    fn an_opening_keeps_whole_blocks_then_sentences() {
        let short = "One short paragraph.";
        assert_eq!(opening(short, 600), short);
        let text = "First paragraph here.\n\nSecond one. It goes on and on.\n";
        assert_eq!(opening(text, 40), "First paragraph here.\n\nSecond one. …");
        assert_eq!(opening(text, 25), "First paragraph here.\n\n…");
        // A paragraph with no sentence end is cut after a word.
        assert_eq!(opening("alpha beta gamma delta", 12), "alpha beta …");
        // A list is cut between its items.
        let list = "- one item\n- two item\n- three item\n";
        assert_eq!(opening(list, 22), "- one item\n- two item\n\n…");
        // A fenced code block that comes first is cut between its lines and closed again;
        // after a block that says something it is left out.
        let code = "```rust\nlet a = 1;\nlet b = 2;\n```\n\nAfter.\n";
        assert_eq!(opening(code, 20), "```rust\nlet a = 1;\n```\n\n…");
        let tildes = "~~~~\nlet a = 1;\nlet b = 2;\n~~~~\n";
        assert_eq!(opening(tildes, 18), "~~~~\nlet a = 1;\n~~~~\n\n…");
        // Not even one line fits: the first line of code is kept, blank lines passed over.
        assert_eq!(opening(code, 10), "```rust\nlet a = 1;\n```\n\n…");
        let blank = "```\n\n\nlet a = 1;\nlet b = 2;\n```\n";
        assert_eq!(opening(blank, 6), "```\n\n\nlet a = 1;\n```\n\n…");
        // A block whose every line fits but its closing fence is kept whole.
        let two = "```\nlet a = 1;\nlet b = 2;\n```\nAfter.";
        assert_eq!(opening(two, 26), "```\nlet a = 1;\nlet b = 2;\n```\n\n…");
        let later = "Intro.\n\n```\nlet a = 1;\nlet b = 2;\n```\n";
        assert_eq!(opening(later, 12), "Intro.\n\n…");
        // An indented code block is never cut.
        let indented = "    let a = 1;\n    let b = 2;\n\nAfter.\n";
        assert_eq!(opening(indented, 16), "    let a = 1;\n    let b = 2;\n\n…");
    }

    #[test]
    fn an_opening_says_something_whatever_the_block() {
        // A heading alone is not an opening: the paragraph after it is cut inside.
        let cjk = format!("## 背景\n\n{}", "这是一个很长的句子。".repeat(40));
        let opened = opening(&cjk, 100);
        assert!(
            opened.starts_with("## 背景\n\n这是") && opened.ends_with("。 …"),
            "{opened}"
        );
        let run_on = format!("## Context\n\n{}", "word ".repeat(100));
        let opened = opening(&run_on, 60);
        assert!(
            opened.starts_with("## Context\n\nword") && opened.ends_with("word …"),
            "{opened}"
        );
        // A list whose first item is longer than the limit is cut inside that item.
        let list = format!("- {}\n- short\n", "An item. ".repeat(100));
        assert!(opening(&list, 100).len() < 110, "{}", opening(&list, 100));
        // A table that comes first is cut between its rows, its head kept; after a block
        // that says something it is left out.
        let table = format!(
            "| a | b |\n|---|---|\n{}",
            "| one. two | three. |\n".repeat(40)
        );
        assert_eq!(
            opening(&table, 100),
            "| a | b |\n|---|---|\n| one. two | three. |\n| one. two | three. |\n| one. two | three. |\n\n…"
        );
        let after = format!("Intro.\n\n{table}");
        assert_eq!(opening(&after, 100), "Intro.\n\n…");
        // Not even its first row fits: the head and that row are kept.
        assert_eq!(
            opening(&table, 30),
            "| a | b |\n|---|---|\n| one. two | three. |\n\n…"
        );
        // A quote is cut like a paragraph.
        let quote = format!("> {}", "Quoted sentence. ".repeat(40));
        assert!(
            opening(&quote, 100).ends_with("sentence. …"),
            "{}",
            opening(&quote, 100)
        );
    }

    #[test]
    fn a_summary_is_the_opening_of_the_first_section() {
        let long = format!(
            "# T\n\n{}\n\n## Next\n\nx\n",
            "A sentence here. ".repeat(60)
        );
        let short = summary(&long);
        assert!(short.len() <= SUMMARY_BYTES + 4, "{}", short.len());
        assert!(short.ends_with(". …"), "{short}");
        assert_eq!(summary(NYGARD), first_section(NYGARD));
    }

    #[test]
    fn first_section_is_the_first_heading_and_its_subsections() {
        let text = first_section(BODY);
        assert_eq!(
            text,
            "#### Overview\nLets users sign in.\n\n##### Detail\nMore."
        );
    }

    #[test]
    fn intro_text_is_the_first_section() {
        assert_eq!(first_section("Intro line.\n\n## Next\nx\n"), "Intro line.");
        assert_eq!(first_section("Only text."), "Only text.");
        assert_eq!(first_section(""), "");
    }

    #[test]
    fn a_decision_record_is_summed_up_by_its_decision() {
        assert_eq!(
            decision_summary(NYGARD).as_deref(),
            Some("#### Decision\n\nWrite YYYY-MM-DD.")
        );
        let madr = "# Use X\n\n## Context and Problem Statement\n\nWe need Y.\n\n## Decision Outcome\n\nChosen option: \"X\", because it is simple.\n\n### Consequences\n\n* Good, because fast.\n\n## Pros and Cons of the Options\n\nMore.\n";
        assert_eq!(
            decision_summary(madr).as_deref(),
            Some("#### Decision Outcome\n\nChosen option: \"X\", because it is simple.")
        );
        let numbered = "## 2. Decision ##\n\nUse Z.\n";
        assert_eq!(
            decision_summary(numbered).as_deref(),
            Some("#### 2. Decision ##\n\nUse Z.")
        );
        // No decision section, or one with nothing under it: the first section serves.
        assert_eq!(decision_summary("## Context\n\nWhy.\n"), None);
        assert_eq!(
            decision_summary("## Decision\n\n## Consequences\n\nSome.\n"),
            None
        );
        assert_eq!(
            decision_summary("## Decision\n\n### Details\n\nSome.\n"),
            None
        );
        // A long decision is cut like any opening.
        let long = format!(
            "## Decision\n\n{}\n",
            "We use the ledger for every posting. ".repeat(40)
        );
        let short = decision_summary(&long).unwrap();
        assert!(short.len() < 700 && short.ends_with('…'), "{short}");
    }

    const NYGARD: &str = "# 8. Use ISO dates\n\nDate: 2016-02-12\n\n## Status\n\nAccepted\n\n## Context\n\nDates were ambiguous.\n\n## Decision\n\nWrite YYYY-MM-DD.\n\n### Details\n\nEverywhere.\n\n## Consequences\n\nNone.\n";

    #[test]
    fn a_summary_passes_over_metadata_to_the_first_prose() {
        assert_eq!(
            first_section(NYGARD),
            "#### Context\n\nDates were ambiguous."
        );
        let table = "| Status | Accepted |\n|---|---|\n| Date | 2024-01-05 |\n\nThe point.\n";
        // A paragraph of prose after the metadata table is part of the same text.
        assert_eq!(first_section(table), table.trim());
        let bullets = "- Status: accepted\n- Deciders: Ana, Bo\n\n## Context\n\nWhy.\n";
        assert_eq!(first_section(bullets), "#### Context\n\nWhy.");
        // Nothing but metadata: the metadata is what there is.
        assert_eq!(first_section("Date: 2020-01-01\n"), "Date: 2020-01-01");
    }
}

#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Slicing any Markdown never panics, and the summary never exceeds the full body.
        #[test]
        fn slicing_never_panics(lines in proptest::collection::vec("(#{0,7} ?)(\\PC{0,20})|```|(=+)|(-+)|\\s*", 0..20)) {
            let body = lines.join("\n");
            let body = super::Body::of(&body);
            let full = super::full(&body);
            let summary = super::first_section(&body);
            prop_assert!(summary.len() <= full.len() + 8);
        }

        /// An opening is the text itself, or a prefix of it followed by the mark that more
        /// follows (a code block cut inside is closed by its fence first); never longer than
        /// the text but for that fence.
        #[test]
        fn an_opening_is_a_prefix_of_the_text(
            lines in proptest::collection::vec("(#{0,3} ?)(\\PC{0,60})|```|- \\PC{0,30}|\\s*|[A-Za-z ]{0,80}\\. [A-Za-z ]{0,40}", 0..30),
            most in 0usize..400,
        ) {
            let text = lines.join("\n");
            let opening = super::opening(&text, most);
            let kept = opening
                .strip_suffix(" …")
                .or_else(|| opening.strip_suffix("\n\n…"))
                .unwrap_or(&opening);
            let (kept, fence) = match kept.rsplit_once('\n') {
                Some((code, fence)) if !text.starts_with(kept) && fence.starts_with("```") => {
                    (code, fence.len() + 1)
                }
                _ => (kept, 0),
            };
            prop_assert!(text.starts_with(kept), "{opening:?} of {text:?}");
            prop_assert!(opening.len() <= text.len() + 5 + fence);
        }
    }
}
