//! Markdown bodies of artifacts: the leading `# Title` dropped (the card has the title), the
//! first section cut out for `summary`, and headings pushed below the document's own.

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};

/// The deepest level the document itself uses (`###` for a node); body headings go below.
const BODY_MIN_LEVEL: usize = 4;

/// An ATX or setext heading of a body: its level and its byte range.
#[derive(Debug, Clone, Copy)]
struct Heading {
    level: usize,
    start: usize,
    end: usize,
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
pub(super) fn full(body: &str) -> String {
    let (rest, offset_headings) = without_title(body);
    demote(rest, &offset_headings)
}

/// The first section of the body that says something: the text before the first heading,
/// or else the first heading and everything up to the next heading of the same or a higher
/// level — passing over sections that hold only metadata (an ADR's `Date: …` lines, its
/// `## Status` section), which the card's facts already give.
pub(crate) fn first_section(body: &str) -> String {
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
        let title = rest[h.start..h.end].trim().trim_start_matches('#').trim();
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
fn without_title(body: &str) -> (&str, Vec<Heading>) {
    let hs = headings(body);
    let (rest_start, skip) = match hs.first() {
        Some(h) if h.level == 1 && body[..h.start].trim().is_empty() => (h.end, 1),
        _ => (0, 0),
    };
    let rest = &body[rest_start..];
    let shifted = hs
        .into_iter()
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

    const BODY: &str = "\n# OAuth login\n\n## Overview\nLets users sign in.\n\n### Detail\nMore.\n\n## Plan\n1. Do it.\n\n```sh\n# not a heading\n```\n";

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
            let full = super::full(&body);
            let summary = super::first_section(&body);
            prop_assert!(summary.len() <= full.len() + 8);
        }
    }
}
