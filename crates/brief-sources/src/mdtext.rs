//! Scanning Markdown text for the knowledge-base reader: links and wikilinks (outside code
//! spans), `@imports`, inline tags, raw HTML, percent escapes, GitHub anchors and dates.
//!
//! Every scanner here is linear in its input: a search for a closing mark (`]]`, `](`, `)`,
//! `-->`) is remembered by [`Next`], so text that opens a thousand marks and closes none is
//! still read once.

use std::borrow::Cow;

/// A link found in a line: its byte span, target, alias, and whether it is a wikilink/embed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found {
    /// Byte offset of the link's first character (`!` of an embed, else `[`).
    pub start: usize,
    /// Byte offset just past the link.
    pub end: usize,
    /// The target as written (a wikilink's note name or a link's URL), trimmed.
    pub target: String,
    /// The shown text: a Markdown link's label, a wikilink's alias after `|`.
    pub label: String,
    pub wiki: bool,
    pub embed: bool,
}

/// The next occurrence of a pattern at or after a position, remembered: the positions asked
/// only grow while a line is scanned, so every byte is searched at most once.
struct Next<'p> {
    pattern: &'p str,
    /// The last answer: the occurrence found (or `None`: no occurrence at or after `from`).
    found: Option<usize>,
    from: usize,
    searched: bool,
}

impl<'p> Next<'p> {
    fn new(pattern: &'p str) -> Next<'p> {
        Next {
            pattern,
            found: None,
            from: 0,
            searched: false,
        }
    }

    /// The first occurrence of the pattern in `text` at or after `at`.
    fn at(&mut self, text: &str, at: usize) -> Option<usize> {
        if self.searched && at >= self.from {
            match self.found {
                None => return None,
                Some(found) if found >= at => return Some(found),
                Some(_) => {}
            }
        }
        self.searched = true;
        self.from = at;
        self.found = text
            .get(at..)
            .and_then(|rest| rest.find(self.pattern))
            .map(|i| at + i);
        self.found
    }
}

/// Every link and wikilink of a line, outside code spans, in order.
pub(crate) fn inline_links(text: &str) -> Vec<Found> {
    if !text.contains('[') {
        return Vec::new();
    }
    let text = blank_code(text);
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut wiki_close, mut label_close, mut paren_close) =
        (Next::new("]]"), Next::new("]"), Next::new(")"));
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'[' || (i > 0 && bytes[i - 1] == b'\\') {
            i += 1;
            continue;
        }
        let embed = i > 0 && bytes[i - 1] == b'!';
        if bytes.get(i + 1) == Some(&b'[') {
            if let Some(close) = wiki_close.at(&text, i + 2) {
                out.push(wikilink(&text[i + 2..close], i, close + 2, embed));
                i = close + 2;
                continue;
            }
        }
        // A link's text ends at the first `]`, which `(` must follow.
        let close = label_close.at(&text, i + 1);
        if let Some(close) = close.filter(|&c| bytes.get(c + 1) == Some(&b'(')) {
            let open = close + 2;
            if let Some(end) = paren_close.at(&text, open) {
                if !embed {
                    out.push(markdown_link(
                        &text[i + 1..close],
                        &text[open..end],
                        i,
                        end + 1,
                    ));
                }
                i = end + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// `[[Note#Heading|alias]]` (the pipe may be escaped as `\|` inside a table).
fn wikilink(inner: &str, start: usize, end: usize, embed: bool) -> Found {
    let (target, label) = match inner.split_once('|') {
        Some((target, alias)) => (target.strip_suffix('\\').unwrap_or(target), alias),
        None => (inner, inner),
    };
    Found {
        start: if embed { start - 1 } else { start },
        end,
        target: target.trim().to_string(),
        label: label.trim().to_string(),
        wiki: true,
        embed,
    }
}

/// `[label](target "title")` or `[label](<target>)`.
fn markdown_link(label: &str, raw: &str, start: usize, end: usize) -> Found {
    let raw = raw.trim();
    let raw = raw.split(" \"").next().unwrap_or(raw);
    Found {
        start,
        end,
        target: raw.trim_matches(['<', '>']).to_string(),
        label: label.to_string(),
        wiki: false,
        embed: false,
    }
}

/// The text with inline code spans replaced by spaces (byte positions kept).
pub(crate) fn blank_code(text: &str) -> Cow<'_, str> {
    if !text.contains('`') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for c in text.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else if in_code {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A GitHub anchor as the heading it names (`provider-calls` → `Provider calls`); a heading
/// written out (a wikilink's) stays as written.
pub(crate) fn deslug(anchor: &str) -> String {
    if anchor.starts_with('^') || anchor.contains(' ') || anchor.chars().any(char::is_uppercase) {
        return anchor.to_string();
    }
    let text = anchor.replace('-', " ");
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => text,
    }
}

pub(crate) use brief_model::anchor as slug;

/// The anchors of a page's headings in order, numbered as GitHub numbers repeats (`setup`,
/// `setup-1`, `setup-2`).
#[derive(Default)]
pub struct Slugs {
    seen: std::collections::HashMap<String, usize>,
}

impl Slugs {
    /// The anchor of the next heading with this plain text (github-slugger's rule).
    pub fn next(&mut self, heading: &str) -> String {
        let original = slug(heading);
        let mut result = original.clone();
        while self.seen.contains_key(&result) {
            let count = self.seen.entry(original.clone()).or_insert(0);
            *count += 1;
            result = format!("{original}-{count}");
        }
        self.seen.insert(result.clone(), 0);
        result
    }
}

pub(crate) fn percent_decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() && text.is_char_boundary(i + 3) {
            if let Ok(b) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// `@path` imports (Claude Code): a word starting with `@` that names a file.
pub(crate) fn imports(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    if !text.contains('@') {
        return out;
    }
    let blanked = blank_code(text);
    for (at, _) in blanked.match_indices('@') {
        if at > 0 && !blanked.as_bytes()[at - 1].is_ascii_whitespace() {
            continue;
        }
        let word = &blanked[at + 1..];
        let end = word
            .find(|c: char| c.is_whitespace() || c == ')' || c == ',')
            .unwrap_or(word.len());
        let word = word[..end].trim_end_matches('.');
        if !word.is_empty() {
            out.push((at, &text[at + 1..at + 1 + word.len()]));
        }
    }
    out
}

/// Inline `#tag` / `#tag/sub`: not digits only, not in code, links or URLs (an in-page anchor
/// `[x](#cache-dir)` is a link, not a tag).
pub(crate) fn inline_tags(text: &str) -> Vec<String> {
    if !text.contains('#') {
        return Vec::new();
    }
    let mut clean = blank_code(text).into_owned().into_bytes();
    for found in inline_links(text) {
        clean[found.start..found.end].fill(b' ');
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < clean.len() {
        if clean[i] != b'#'
            || (i > 0 && !clean[i - 1].is_ascii_whitespace() && clean[i - 1] != b'(')
        {
            i += 1;
            continue;
        }
        // The word is read from the original text (only ASCII spaces were written over it).
        let rest = &text[i + 1..];
        let len = rest
            .char_indices()
            .find(|&(k, c)| {
                !(c.is_alphanumeric() || matches!(c, '_' | '-' | '/')) || clean[i + 1 + k] == b' '
            })
            .map_or(rest.len(), |(k, _)| k);
        let word = rest[..len].trim_end_matches(['/', '-']);
        if !word.is_empty() && !word.chars().all(|c| c.is_ascii_digit()) {
            out.push(word.to_string());
        }
        i += 1 + len;
    }
    out
}

/// The newest date in a text: ISO `YYYY-MM-DD`, or `dd/mm/yyyy` (early adr-tools).
pub(crate) fn newest_date(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let digits = |from: usize, to: usize| b[from..to].iter().all(u8::is_ascii_digit);
    let mut best: Option<String> = None;
    for i in 0..b.len().saturating_sub(9) {
        let date = if b[i + 4] == b'-' && b[i + 7] == b'-' && digits(i, i + 4) {
            (digits(i + 5, i + 7) && digits(i + 8, i + 10)).then(|| text[i..i + 10].to_string())
        } else if b[i + 2] == b'/' && b[i + 5] == b'/' && digits(i, i + 2) {
            (digits(i + 3, i + 5) && digits(i + 6, i + 10)).then(|| {
                format!(
                    "{}-{}-{}",
                    &text[i + 6..i + 10],
                    &text[i + 3..i + 5],
                    &text[i..i + 2]
                )
            })
        } else {
            None
        };
        if let Some(date) = date {
            if best.as_ref().is_none_or(|b| &date > b) {
                best = Some(date);
            }
        }
    }
    best
}

/// Raw HTML removed from a text, outside code spans: comments dropped, tags dropped, their
/// text kept (`<summary>Why</summary>` → `Why`). Autolinks (`<https://…>`) are not tags.
pub(crate) fn strip_html(text: &str) -> Cow<'_, str> {
    if !text.contains('<') {
        return Cow::Borrowed(text);
    }
    let code = blank_code(text);
    let code = code.as_bytes();
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut comment_end, mut tag_end) = (Next::new("-->"), Next::new(">"));
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'<' || code[i] != b'<' {
            i += 1;
            continue;
        }
        let end = if text[i..].starts_with("<!--") {
            comment_end.at(text, i + 4).map(|e| e + 3)
        } else if is_tag_start(&bytes[i + 1..]) {
            tag_end.at(text, i + 1).map(|e| e + 1)
        } else {
            None
        };
        match end {
            Some(end) => {
                out.push_str(&text[copied..i]);
                copied = end;
                i = end;
            }
            None => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Whether the bytes after a `<` open an HTML tag: `/`? a letter, then letters, digits or
/// `-`, then a space, `/`, `>` or the end of the line.
fn is_tag_start(rest: &[u8]) -> bool {
    let rest = rest.strip_prefix(b"/").unwrap_or(rest);
    if !rest.first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    let name = rest
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'-'))
        .unwrap_or(rest.len());
    matches!(
        rest.get(name),
        None | Some(b' ' | b'\t' | b'/' | b'>' | b'\n' | b'\r')
    )
}

/// A heading or title as plain text: links reduced to their text, emphasis, code marks and
/// raw HTML removed (`` `brief check` **rules** `` → `brief check rules`).
pub(crate) fn plain(text: &str) -> String {
    let text = strip_html(text);
    let links = inline_links(&text);
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for found in &links {
        out.push_str(&text[copied..found.start]);
        let shown = if found.wiki && found.label == found.target {
            found.target.split('#').next().unwrap_or("")
        } else {
            found.label.as_str()
        };
        out.push_str(shown);
        copied = found.end;
    }
    out.push_str(&text[copied..]);
    let mut plain = String::with_capacity(out.len());
    let chars: Vec<char> = out.chars().collect();
    for (k, &c) in chars.iter().enumerate() {
        let emphasis = match c {
            '*' | '`' | '~' => true,
            // `_` marks emphasis only at a word's edge (`snake_case` keeps it).
            '_' => {
                let before = k.checked_sub(1).map(|p| chars[p]);
                let after = chars.get(k + 1).copied();
                !(before.is_some_and(char::is_alphanumeric)
                    && after.is_some_and(char::is_alphanumeric))
            }
            _ => false,
        };
        if !emphasis {
            plain.push(c);
        }
    }
    plain.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(text: &str) -> Vec<String> {
        inline_links(text).into_iter().map(|f| f.target).collect()
    }

    #[test]
    fn links_wikilinks_and_embeds_with_their_spans() {
        let found = inline_links("See [the budget](docs/b.md) and ![[Flow#Step|s]] or `[[code]]`.");
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].start, found[0].end), (4, 27));
        assert_eq!(found[0].label, "the budget");
        assert_eq!(found[1].target, "Flow#Step");
        assert!(found[1].embed && found[1].wiki);
        assert_eq!(found[1].label, "s");
    }

    #[test]
    fn an_escaped_pipe_in_a_table_separates_the_alias() {
        let found = inline_links("| [[Retry budget\\|budget]] | ok |");
        assert_eq!(found[0].target, "Retry budget");
        assert_eq!(found[0].label, "budget");
    }

    #[test]
    fn escaped_brackets_open_nothing() {
        assert!(targets("\\[[not a link]] and \\[x](y)").is_empty());
    }

    #[test]
    fn unclosed_marks_are_read_in_one_pass() {
        for unit in [
            "[[", "[", "![[", "[[a#", "[[a|", "\\[[", "- [[", "[x](", "<", "<!--",
        ] {
            let text = unit.repeat(100_000 / unit.len());
            // Nothing closes, so nothing is found; the point is that this returns at once.
            assert!(targets(&text).is_empty(), "{unit}");
            assert!(inline_tags(&text).is_empty(), "{unit}");
            assert_eq!(strip_html(&text), text, "{unit}");
        }
        let many = "[[a]] ".repeat(50_000);
        assert_eq!(inline_links(&many).len(), 50_000);
    }

    #[test]
    fn in_page_anchors_and_link_fragments_are_not_tags() {
        assert!(inline_tags("See [the cache](#cache-dir) and [x](a.md#b).").is_empty());
        assert_eq!(
            inline_tags("#moc and #project/checkout, not #482"),
            ["moc", "project/checkout"]
        );
    }

    #[test]
    fn github_anchors_number_repeats() {
        let mut slugs = Slugs::default();
        let got: Vec<String> = [
            "Setup",
            "Cache directory (v2)!",
            "Setup",
            "Setup",
            "setup-1",
        ]
        .into_iter()
        .map(|h| slugs.next(h))
        .collect();
        assert_eq!(
            got,
            [
                "setup",
                "cache-directory-v2",
                "setup-1",
                "setup-2",
                "setup-1-1"
            ]
        );
        assert_eq!(slug("Über `brief` — née"), "über-brief--née");
    }

    #[test]
    fn raw_html_is_dropped_but_its_text_kept_and_code_untouched() {
        assert_eq!(
            strip_html("<details><summary>Why</summary> because</details> <!-- no -->"),
            "Why because "
        );
        assert_eq!(
            strip_html("a <https://x.y> b `<br>` c"),
            "a <https://x.y> b `<br>` c"
        );
        assert_eq!(strip_html("1 < 2 and 3 > 2"), "1 < 2 and 3 > 2");
    }

    #[test]
    fn plain_text_of_a_heading() {
        assert_eq!(
            plain("`brief check` **rules** for [ADRs](docs/adr.md)"),
            "brief check rules for ADRs"
        );
        assert_eq!(
            plain("The <em>snake_case</em> _name_"),
            "The snake_case name"
        );
        assert_eq!(
            plain("See [[Retry budget]] and [[Note|alias]]"),
            "See Retry budget and alias"
        );
    }

    #[test]
    fn dates_on_a_line() {
        assert_eq!(
            newest_date("Date: 2021-05-17, updated 2022-01-02").as_deref(),
            Some("2022-01-02")
        );
        assert_eq!(newest_date("14/01/2019").as_deref(), Some("2019-01-14"));
        assert_eq!(newest_date("2021-5-17"), None);
        assert_eq!(newest_date(&"9".repeat(1_000_000)), None);
    }
}
