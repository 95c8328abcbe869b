//! What differs between the styles a document is written in. Each style is one [`Writer`];
//! the layout and the fit never ask which style they write, so a new style is one module that
//! implements it plus its line in [`super::Style::writer`].

use super::card::Card;
use brief_model::{Detail, Kind};

/// The header of a context found by words.
pub(crate) struct QueryHead<'a> {
    /// The words the context started from.
    pub(crate) query: &'a str,
    /// How the start nodes were found (`found by words`).
    pub(crate) found: &'a str,
    /// The target's id.
    pub(crate) id: &'a str,
    /// The target's title on one line.
    pub(crate) title: &'a str,
    /// The match's confidence, by name.
    pub(crate) confidence: &'a str,
    /// A warning after the confidence, starting with `; `, or empty.
    pub(crate) trust: &'a str,
    /// The start nodes with their shares, joined.
    pub(crate) seeds: &'a str,
}

/// How one style writes each part of a document. Every text it returns that the layout
/// makes a unit starts with a non-whitespace character and ends with a newline (see
/// [`super::Layout::units`]).
pub(crate) trait Writer: Sync {
    /// The document's opening for a target named by id.
    fn header(&self, id: &str, title: &str) -> String;
    /// The document's opening for a target found by words.
    fn query_header(&self, head: &QueryHead<'_>) -> String;
    /// One card's block. `bare` cards (the target of a Spec Graph context, the identity) sit
    /// under a section heading of their own.
    fn block(&self, card: &Card, kind: &Kind, detail: Detail, bare: bool) -> String;
    /// Where the part of a meta block that names the node (id, kind, title) ends.
    fn meta_head(&self, block: &str) -> usize;
    /// Where the text of a block longer than a meta line starts, past its heading and facts
    /// (a block of prose: its first blank line).
    fn body_at(&self, block: &str) -> usize {
        block.find("\n\n").map_or(block.len(), |at| at + 2)
    }
    /// Where the text of a block ends: before what closes it (the XML element's end tag).
    fn body_end(&self, block: &str) -> usize {
        block.len()
    }
    /// How much of a block at `detail` a cut must keep past, so the cut says more than the
    /// level below: a meta line its head, a longer block its heading and facts and 20 bytes
    /// of its text.
    fn head(&self, block: &str, detail: Detail) -> usize {
        match detail {
            Detail::Meta => self.meta_head(block),
            _ => self.body_at(block) + 20,
        }
    }
    /// The block `full` cut to about its first `keep` bytes, with the mark that says so
    /// (`id` is the node's). It is still a unit (see [`super::Layout::units`]).
    fn cut(&self, full: &str, keep: usize, id: &str, detail: Detail) -> String;
    /// A section's heading, if the style writes one.
    fn section_heading(&self, title: &str) -> Option<String>;
    /// A closing list (verification, code paths, truncated) with its title.
    fn list(&self, title: &str, lines: &[String]) -> String;
    /// The opening of the omitted list, for `count` omitted nodes.
    fn omitted_heading(&self, count: usize) -> String;
    /// One omitted node's line.
    fn omitted_line(&self, id: &str, kind: &str, title: &str) -> String {
        format!("- {id} ({kind}): {title}\n")
    }
    /// The omitted part when the budget left room to list none of the `count` omitted nodes:
    /// where to find them instead of an empty list.
    fn omitted_unlisted(&self, count: usize) -> String;
    /// The line that counts the omitted nodes not listed.
    fn more_omitted(&self, count: usize) -> String {
        format!("- … and {count} more (see `--format json`)\n")
    }
    /// A successor named in the superseded banner.
    fn successor(&self, id: &str, title: &str) -> String;
    /// The superseded banner: what happened, and the context to ask for instead.
    fn superseded(&self, what: &str, next: Option<&str>) -> String;
    /// What closes the document, if anything.
    fn footer(&self) -> Option<String> {
        None
    }
}

/// The first `keep` bytes of `full` (at a char boundary), trimmed, with an ellipsis; a cut
/// inside a fenced code block closes the fence, so the rest stays prose. The cut of the
/// styles whose blocks are prose.
pub(crate) fn prose_prefix(full: &str, keep: usize) -> String {
    let mut end = keep.min(full.len());
    while !full.is_char_boundary(end) {
        end -= 1;
    }
    let mut kept = full[..end].trim_end().to_string();
    let fences = kept
        .lines()
        .filter(|line| line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~"))
        .count();
    if fences % 2 == 1 {
        kept.push_str("\n```\n…");
    } else {
        kept.push_str(" …");
    }
    kept
}

/// `lines` under a heading, one `- ` item each, and a blank line.
pub(crate) fn bullet_list(heading: String, lines: &[String]) -> String {
    let mut out = heading;
    for line in lines {
        out.push_str("- ");
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    out
}
