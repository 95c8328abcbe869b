//! What differs between the styles a document is written in. Each style is one [`Writer`];
//! the layout and the fit never ask which style they write, so a new style is one module that
//! implements it plus its line in [`Style::writer`].

use super::card::Card;
use super::Style;
use brief_model::{Detail, Kind};

/// The header of a context found by words.
pub(crate) struct QueryHead<'a> {
    /// The words the context started from.
    pub(crate) query: &'a str,
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
    /// A block cut to `kept`, with the mark that says so (`id` is the node's).
    fn cut_mark(&self, kept: &str, id: &str, detail: Detail) -> String;
    /// A section's heading, if the style writes one.
    fn section_heading(&self, title: &str) -> Option<String>;
    /// The heading of a closing list (verification, code paths, truncated, omitted).
    fn list_heading(&self, title: &str) -> String;
    /// One line of a closing list.
    fn list_item(&self, line: &str) -> String {
        format!("- {line}\n")
    }
    /// The opening of the omitted list, for `count` omitted nodes.
    fn omitted_heading(&self, count: usize) -> String;
    /// One omitted node's line.
    fn omitted_line(&self, id: &str, kind: &str, title: &str) -> String {
        format!("- {id} ({kind}): {title}\n")
    }
    /// The line that counts the omitted nodes not listed.
    fn more_omitted(&self, count: usize) -> String {
        format!("- … and {count} more (see `--format json`)\n")
    }
    /// A successor named in the superseded banner.
    fn successor(&self, id: &str, title: &str) -> String;
    /// The superseded banner: what happened, and the context to ask for instead.
    fn superseded(&self, what: &str, next: Option<&str>) -> String;
}

impl Style {
    /// The writer of this style.
    pub(crate) fn writer(self) -> &'static dyn Writer {
        match self {
            Style::Markdown => &super::markdown::Markdown,
            Style::Text => &super::text::Text,
        }
    }
}
