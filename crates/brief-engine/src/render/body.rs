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

/// The first section of the body: the text before the first heading, or else the first
/// heading and everything up to the next heading of the same or a higher level.
pub(crate) fn first_section(body: &str) -> String {
    let (rest, hs) = without_title(body);
    let cut = match hs.first() {
        None => rest.len(),
        Some(first) if !rest[..first.start].trim().is_empty() => first.start,
        Some(first) => hs
            .iter()
            .skip(1)
            .find(|h| h.level <= first.level)
            .map(|h| h.start)
            .unwrap_or(rest.len()),
    };
    let kept: Vec<Heading> = hs.into_iter().filter(|h| h.end <= cut).collect();
    demote(&rest[..cut], &kept)
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
