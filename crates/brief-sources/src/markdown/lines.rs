//! A body's lines with their file line numbers, code fences and HTML comments blanked (so
//! nothing inside them is a link, a tag or a heading), and its headings, ATX (`## Status`)
//! and setext (`Status` over `------`).

use std::borrow::Cow;

use crate::mdtext::{plain, strip_html};
use brief_model::Location;

/// One line of the body.
#[derive(Debug, Clone)]
pub(crate) struct Line<'t> {
    /// 1-based line in the file.
    pub number: u32,
    /// Byte offset of the line in the body.
    pub start: usize,
    /// The line as written.
    pub raw: &'t str,
    /// The text to scan: empty inside a fence or a comment block, comments blanked elsewhere.
    pub text: Cow<'t, str>,
    /// Inside a fenced code block (the fence lines included).
    pub fenced: bool,
    /// The line starts inside an HTML comment opened on an earlier line.
    in_comment: bool,
}

impl Line<'_> {
    /// A cursor that turns increasing byte offsets of this line into locations, counting
    /// each character once however many offsets are asked.
    pub(super) fn columns(&self) -> Columns<'_> {
        Columns {
            text: &self.text,
            number: self.number,
            byte: 0,
            col: 1,
        }
    }

    /// The location of one byte offset.
    pub(super) fn at(&self, byte: usize) -> Location {
        self.columns().at(byte)
    }
}

/// See [`Line::columns`].
pub(crate) struct Columns<'l> {
    text: &'l str,
    number: u32,
    byte: usize,
    col: u32,
}

impl Columns<'_> {
    /// The location of a byte offset (an offset before the last one asked restarts).
    pub(super) fn at(&mut self, byte: usize) -> Location {
        let mut byte = byte.min(self.text.len());
        while !self.text.is_char_boundary(byte) {
            byte -= 1;
        }
        if byte < self.byte {
            (self.byte, self.col) = (0, 1);
        }
        self.col += self.text[self.byte..byte].chars().count() as u32;
        self.byte = byte;
        Location {
            path: String::new(),
            line: self.number,
            col: self.col,
        }
    }
}

/// A heading of the body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Heading {
    /// 1 to 6 (setext: 1 for `===`, 2 for `---`).
    pub level: u8,
    /// The heading as plain text (inline Markdown and HTML removed).
    pub text: String,
    /// Index of the heading's first line.
    pub line: usize,
    /// Index of the first line after the heading (after a setext underline).
    pub after: usize,
}

/// The body's lines and headings.
pub(crate) struct Lines<'t> {
    pub lines: Vec<Line<'t>>,
    pub headings: Vec<Heading>,
    /// Whether each line belongs to a heading.
    heading_line: Vec<bool>,
    body: &'t str,
}

/// Where the scan is between lines.
#[derive(Clone, Copy, PartialEq)]
enum Block {
    Text,
    /// A fenced code block opened by this character repeated this many times.
    Fence(u8, usize),
    /// An HTML comment not closed yet.
    Comment,
}

impl<'t> Lines<'t> {
    /// Splits a body that starts on file line `first`.
    pub(super) fn new(body: &'t str, first: u32) -> Lines<'t> {
        let mut lines = Vec::new();
        let mut block = Block::Text;
        let mut start = 0;
        for (i, raw) in body.split_inclusive('\n').enumerate() {
            let line = raw.trim_end_matches(['\n', '\r']);
            let in_comment = block == Block::Comment;
            let (text, fenced, next) = scan_line(line, block);
            block = next;
            lines.push(Line {
                number: first + i as u32,
                start,
                raw: line,
                text,
                fenced,
                in_comment,
            });
            start += raw.len();
        }
        let headings = headings(&lines);
        let mut heading_line = vec![false; lines.len()];
        for h in &headings {
            heading_line[h.line..h.after].fill(true);
        }
        Lines {
            lines,
            headings,
            heading_line,
            body,
        }
    }

    /// The plain text of the first level-1 heading.
    pub(super) fn title(&self) -> Option<&str> {
        self.headings
            .iter()
            .find(|h| h.level == 1)
            .map(|h| h.text.as_str())
    }

    /// Whether line `i` belongs to a heading.
    pub(crate) fn is_heading(&self, i: usize) -> bool {
        self.heading_line.get(i).copied().unwrap_or(false)
    }

    /// The lines before the first heading below the title (metadata lives there).
    pub(crate) fn preamble(&self) -> &[Line<'t>] {
        let end = self
            .headings
            .iter()
            .find(|h| h.level > 1)
            .map_or(self.lines.len(), |h| h.line);
        &self.lines[..end]
    }

    /// The index range of heading `h`'s content: after it, up to the next heading of the same
    /// or a shallower level.
    pub(crate) fn extent(&self, h: usize) -> std::ops::Range<usize> {
        let heading = &self.headings[h];
        let end = self.headings[h + 1..]
            .iter()
            .find(|next| next.level <= heading.level)
            .map_or(self.lines.len(), |next| next.line);
        heading.after..end
    }

    /// The lines of the first section below the title whose heading is one of these names
    /// (lower case).
    pub(super) fn section(&self, names: &[&str]) -> &[Line<'t>] {
        let found = self
            .headings
            .iter()
            .position(|h| h.level > 1 && names.contains(&h.text.to_lowercase().as_str()));
        match found {
            Some(h) => &self.lines[self.extent(h)],
            None => &[],
        }
    }

    /// [`Lines::section`]'s text, trimmed, HTML removed; `None` when there is no such section.
    pub(crate) fn section_text(&self, names: &[&str]) -> Option<String> {
        let lines = self.section(names);
        (!lines.is_empty()).then(|| clean(lines).trim().to_string())
    }

    /// The body text of a range of lines as written (raw, code included).
    pub(super) fn raw(&self, range: std::ops::Range<usize>) -> &'t str {
        let start = self
            .lines
            .get(range.start)
            .map_or(self.body.len(), |l| l.start);
        let end = self
            .lines
            .get(range.end)
            .map_or(self.body.len(), |l| l.start);
        &self.body[start..end.max(start)]
    }
}

/// Lines as stored text: code kept as written, HTML comments and tags removed elsewhere (a
/// line emptied by that is dropped when the line before is blank too).
pub(crate) fn clean(lines: &[Line]) -> String {
    let mut out = String::new();
    let mut blank_before = true;
    for line in lines {
        let kept: Cow<str> = if line.fenced || line.text == line.raw && !line.raw.contains('<') {
            Cow::Borrowed(line.raw)
        } else {
            let uncommented = uncommented(line);
            let stripped = strip_html(&uncommented).trim_end().to_string();
            Cow::Owned(stripped)
        };
        let blank = kept.trim().is_empty();
        let emptied = blank && !line.raw.trim().is_empty();
        if emptied && blank_before {
            continue;
        }
        out.push_str(&kept);
        out.push('\n');
        blank_before = blank;
    }
    out
}

/// The line as written without its comments.
fn uncommented<'l>(line: &'l Line) -> Cow<'l, str> {
    if line.text == line.raw || line.text.is_empty() {
        return Cow::Borrowed(if line.text.is_empty() { "" } else { line.raw });
    }
    let mut out = String::with_capacity(line.raw.len());
    let mut at = 0;
    if line.in_comment {
        match line.raw.find("-->") {
            Some(end) => at = end + 3,
            None => return Cow::Borrowed(""),
        }
    }
    while let Some(open) = line.raw[at..].find("<!--").map(|i| at + i) {
        out.push_str(&line.raw[at..open]);
        match line.raw[open + 4..].find("-->") {
            Some(end) => at = open + 4 + end + 3,
            None => return Cow::Owned(out),
        }
    }
    out.push_str(&line.raw[at..]);
    Cow::Owned(out)
}

/// One line's scan text and whether it is fenced, given the block it starts in.
fn scan_line(line: &str, block: Block) -> (Cow<'_, str>, bool, Block) {
    match block {
        Block::Fence(mark, len) => {
            let closes = fence_mark(line)
                .is_some_and(|(m, l, rest)| m == mark && l >= len && rest.trim().is_empty());
            let next = if closes { Block::Text } else { block };
            (Cow::Borrowed(""), true, next)
        }
        Block::Comment => match line.find("-->") {
            Some(end) => {
                let (text, next) = blank_comments(line, end + 3);
                (text, false, next)
            }
            None => (Cow::Borrowed(""), false, Block::Comment),
        },
        Block::Text => {
            if let Some((mark, len, _)) = fence_mark(line) {
                return (Cow::Borrowed(""), true, Block::Fence(mark, len));
            }
            if line.contains("<!--") {
                let (text, next) = blank_comments(line, 0);
                return (text, false, next);
            }
            (Cow::Borrowed(line), false, Block::Text)
        }
    }
}

/// The line with every comment blanked from `from` on (bytes before `from` close a comment
/// opened on an earlier line and are blanked too), and whether a comment stays open.
fn blank_comments(line: &str, from: usize) -> (Cow<'_, str>, Block) {
    let mut bytes = line.as_bytes().to_vec();
    bytes[..from].fill(b' ');
    let mut at = from;
    let mut block = Block::Text;
    while let Some(open) = line[at..].find("<!--").map(|i| at + i) {
        match line[open + 4..].find("-->").map(|i| open + 4 + i + 3) {
            Some(end) => {
                bytes[open..end].fill(b' ');
                at = end;
            }
            None => {
                bytes[open..].fill(b' ');
                block = Block::Comment;
                break;
            }
        }
    }
    // Whole ASCII spans were blanked (they start at `<` and end at `>`): still UTF-8.
    let text = String::from_utf8(bytes).unwrap_or_default();
    (Cow::Owned(text), block)
}

/// A fence opening or closing: at most three spaces, then three or more backticks or tildes.
pub(crate) fn fence_mark(line: &str) -> Option<(u8, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let mark = *rest.as_bytes().first()?;
    if mark != b'`' && mark != b'~' {
        return None;
    }
    let len = rest.bytes().take_while(|&b| b == mark).count();
    (len >= 3).then(|| (mark, len, &rest[len..]))
}

/// ATX and setext headings, in order.
fn headings(lines: &[Line]) -> Vec<Heading> {
    let mut out = Vec::new();
    // The first line of the paragraph the current line continues, if any.
    let mut paragraph: Option<usize> = None;
    for (i, line) in lines.iter().enumerate() {
        let text = line.text.as_ref();
        if line.fenced || text.trim().is_empty() {
            paragraph = None;
            continue;
        }
        if let Some((level, heading)) = atx(text) {
            out.push(Heading {
                level,
                text: plain(heading),
                line: i,
                after: i + 1,
            });
            paragraph = None;
            continue;
        }
        if let (Some(first), Some(level)) = (paragraph, setext_underline(text)) {
            let joined: Vec<&str> = lines[first..i].iter().map(|l| l.text.trim()).collect();
            out.push(Heading {
                level,
                text: plain(&joined.join(" ")),
                line: first,
                after: i + 1,
            });
            paragraph = None;
            continue;
        }
        paragraph = match paragraph {
            Some(first) => Some(first),
            None if starts_paragraph(text) => Some(i),
            None => None,
        };
    }
    out
}

/// `## Heading ##` → (2, `Heading`).
fn atx(text: &str) -> Option<(u8, &str)> {
    let indent = text.len() - text.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &text[indent..];
    let level = rest.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &rest[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let rest = rest.trim();
    // A closing run of `#` after a space is not part of the heading.
    let closed = rest.trim_end_matches('#');
    let rest = if closed.is_empty() || closed.ends_with([' ', '\t']) {
        closed.trim_end()
    } else {
        rest
    };
    Some((level as u8, rest))
}

/// `===` → 1, `---` → 2 (at most three spaces before, spaces after).
fn setext_underline(text: &str) -> Option<u8> {
    let indent = text.len() - text.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = text.trim();
    if !t.is_empty() && t.bytes().all(|b| b == b'=') {
        Some(1)
    } else if !t.is_empty() && t.bytes().all(|b| b == b'-') {
        Some(2)
    } else {
        None
    }
}

/// Whether a line can start a paragraph (a setext heading's text): not a list item, quote,
/// table row, thematic break or indented code.
fn starts_paragraph(text: &str) -> bool {
    let indent = text.len() - text.trim_start_matches(' ').len();
    if indent > 3 {
        return false;
    }
    let t = text.trim();
    let bullet = ["- ", "* ", "+ "].iter().any(|b| t.starts_with(b)) || t == "-" || t == "*";
    let numbered = {
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && matches!(t.as_bytes().get(digits), Some(b'.' | b')'))
    };
    let rule = t.len() >= 3
        && [b'-', b'*', b'_']
            .iter()
            .any(|&m| t.bytes().all(|b| b == m || b == b' '));
    !(bullet || numbered || rule || t.starts_with(['>', '|', '<']))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headings_of(body: &str) -> Vec<(u8, String, usize)> {
        Lines::new(body, 1)
            .headings
            .into_iter()
            .map(|h| (h.level, h.text, h.line))
            .collect()
    }

    #[test]
    fn atx_and_setext_headings_outside_code() {
        let body = "Title\n=====\n\nIntro.\n\nSub part\n--------\n\n```\n# not a heading\n```\n\n## Third ##\n\n- item\n---\n";
        assert_eq!(
            headings_of(body),
            vec![
                (1, "Title".into(), 0),
                (2, "Sub part".into(), 5),
                (2, "Third".into(), 12),
            ],
            "a thematic break after a list item is no heading"
        );
    }

    #[test]
    fn a_rule_after_a_blank_line_is_no_heading() {
        assert!(headings_of("Text\n\n---\n\nMore\n").is_empty());
        assert_eq!(
            headings_of("#Not\n#\n# `Code` *title*\n")[1],
            (1, "Code title".into(), 2)
        );
    }

    #[test]
    fn comments_hide_their_lines_and_are_dropped_from_text() {
        let lines = Lines::new(
            "Before <!-- a [x](y.md) --> after\n<!--\n## Hidden\n[z](w.md)\n-->\nEnd\n",
            3,
        );
        assert!(lines.headings.is_empty());
        assert_eq!(
            lines.lines[0].text.trim_end(),
            "Before                      after"
        );
        assert_eq!(lines.lines[3].text, "");
        assert_eq!(lines.lines[5].number, 8);
        assert_eq!(clean(&lines.lines), "Before  after\n\nEnd\n");
    }

    #[test]
    fn columns_count_characters_once() {
        let lines = Lines::new("é [[a]] é [[b]]", 1);
        let mut cols = lines.lines[0].columns();
        assert_eq!(cols.at(3).col, 3);
        assert_eq!(cols.at(12).col, 11);
        assert_eq!(cols.at(3).col, 3, "an earlier offset restarts");
    }

    #[test]
    fn sections_end_at_the_next_heading_of_the_same_level() {
        let lines = Lines::new(
            "# T\n\n## Status\n\nAccepted\n\n### Note\n\nx\n\n## Context\n\ny\n",
            1,
        );
        let status: Vec<&str> = lines.section(&["status"]).iter().map(|l| l.raw).collect();
        assert_eq!(status, ["", "Accepted", "", "### Note", "", "x", ""]);
        assert_eq!(lines.section_text(&["context"]).as_deref(), Some("y"));
        assert_eq!(lines.preamble().len(), 2);
    }
}
