//! reStructuredText pages (`.rst`): Sphinx documentation, and the ADRs Open edX projects and
//! others keep in `docs/decisions/`. A page is read as the Markdown page it says the same
//! as, line for line, then parsed by the Markdown parser, so titles, sections, ADR status
//! (`Status` as a section or a `:Status:` field), links and their warnings are the Markdown
//! pages' own; a warning's column is taken back to the page as written.
//!
//! What each line is comes first ([`blocks`]: titles, code, directives, comments), then each
//! line's inline markup is rewritten ([`inline`]: references, roles, literals). What is read:
//! - section titles: a line of text under a line of one punctuation character (and over
//!   one, for an overlined title). Levels follow the order the styles first appear, as
//!   docutils orders them; when the first title's style comes back later (an ADR whose
//!   title and sections are all underlined alike), the first title is the page's and the
//!   later ones its sections, as Sphinx shows the page;
//! - the fields `:Status:`, `:Date:` and `:Tags:` as metadata lines; other fields before
//!   the first title (`:orphan:`) are the builder's and left out;
//! - links: `` `text <url>`_ ``, `` `text`_ `` and `name_` with their `.. _text: url`
//!   target anywhere in the page, `:doc:` roles (from the page's folder, or from the folders
//!   above it with a leading `/`), and `toctree` entries, one link each;
//! - roles as their text (`:class:`~pkg.Widget`` as `` `Widget` ``, `:ref:` by its title),
//!   inline literals (``` ``x`` ```) as Markdown code;
//! - directives: an admonition's content as text after its name (`Note:`, `Deprecated since
//!   version 3.2:`), other directives' argument and content as text; code directives and
//!   literal blocks (after `::`) as fenced code; images, figures, raw, includes,
//!   substitution definitions, comments, targets and directive options are left out.
//!
//! Text keeps at most three spaces of indentation (in Markdown four would make it code), a
//! `#` that starts it is escaped (it would be a heading), and `<!--` is broken (it would
//! open an HTML comment: reStructuredText has none). Each line is read once, and a line's
//! inline markup in one pass.

mod blocks;
mod inline;

use std::collections::HashMap;

use super::rewrite::Translated;
use super::{PageFormat, Survey};
use crate::kb::Catalog;
use crate::markdown::Parsed;
use blocks::{Read, Style};

/// The reStructuredText format.
pub(super) struct Rst;

/// Where Sphinx projects keep their sources, besides the layout's ADR folders.
const CONVENTIONAL_DIRS: [&str; 5] = ["docs", "doc", "docs/source", "doc/source", "Doc"];

impl PageFormat for Rst {
    fn name(&self) -> &'static str {
        "rst"
    }

    fn title(&self) -> &'static str {
        "reStructuredText"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[".rst"]
    }

    fn has_labels(&self) -> bool {
        true
    }

    fn labels(&self, text: &str) -> Vec<String> {
        inline::labels(text)
    }

    fn discover(&self, survey: &Survey<'_>) -> bool {
        survey.pages_in(&CONVENTIONAL_DIRS, self.extensions()) || sphinx_source(survey)
    }

    fn parse(&self, rel: &str, text: &str, catalog: &Catalog) -> Parsed {
        translate(text, Some(catalog)).parse(rel, catalog)
    }
}

/// Whether the root is a Sphinx project's source folder: its `conf.py` beside `.rst` pages
/// (a guide kept as a repository of its own). Not a folder under the root: a folder that
/// holds repositories would be a project whenever one of them is a Sphinx guide. A page
/// alone is not enough either: brief run from inside a folder of pages would stop there.
fn sphinx_source(survey: &Survey<'_>) -> bool {
    let root = survey.root();
    root.is_file(&root.path().join("conf.py")) && survey.holds_pages("", &[".rst"])
}

/// Translates a page (linear in its length); `:ref:` labels are looked up in `catalog`.
fn translate(text: &str, catalog: Option<&Catalog>) -> Translated {
    let lines: Vec<&str> = text
        .split_inclusive('\n')
        .map(|l| l.trim_end_matches(['\n', '\r']))
        .collect();
    let refs = inline::Refs {
        targets: inline::targets(&lines),
        catalog,
    };
    let (reads, headed) = blocks::read(&lines);
    let (levels, page_titled) = levels(&reads, headed);
    // With the page's own title, the first title is level 1 whatever its style's level.
    let mut first_title = page_titled && !headed;
    let mut out = Translated::default();
    for (k, read) in reads.iter().enumerate() {
        // A fence closing a block at the end of the page is a line after it.
        let line = lines.get(k).copied().unwrap_or_default();
        let (markdown, shifts) = match read {
            Read::Blank => (String::new(), Vec::new()),
            Read::Code(code) => (code.clone(), Vec::new()),
            Read::Markdown { lead, text, from } => {
                let rewritten = inline::rewrite(text, &refs);
                moved(lead, rewritten, *from)
            }
            Read::Text => {
                let (lead, at) = text_lead(line);
                let rewritten = inline::rewrite(&line[at..], &refs);
                moved(&lead, rewritten, line[..at].chars().count() as u32 + 1)
            }
            Read::Title(style) => {
                let level = if std::mem::take(&mut first_title) {
                    1
                } else {
                    levels.get(style).copied().unwrap_or(6)
                };
                let at = blocks::indentation(line);
                let lead = format!("{} ", "#".repeat(level));
                let rewritten = inline::rewrite(line.trim(), &refs);
                moved(&lead, rewritten, line[..at].chars().count() as u32 + 1)
            }
        };
        out.push(&no_html_comment(markdown), shifts);
    }
    out
}

/// What a line of text keeps before its text, and where its text starts: its indentation,
/// at most three columns (a tab is eight), and `\` before the `#` of what Markdown would
/// read as a heading (`# drop the table`).
fn text_lead(line: &str) -> (String, usize) {
    let at = blocks::indentation(line);
    let width: usize = line[..at]
        .chars()
        .map(|c| if c == '\t' { 8 } else { 1 })
        .sum();
    let mut lead = " ".repeat(width.min(3));
    let text = &line[at..];
    let marks = text.bytes().take_while(|&b| b == b'#').count();
    let heading =
        (1..=6).contains(&marks) && text[marks..].chars().next().is_none_or(char::is_whitespace);
    if heading {
        lead.push('\\');
    }
    (lead, at)
}

/// A line without the `<!--` that would open an HTML comment in Markdown (`<\!--` reads
/// the same).
fn no_html_comment(line: String) -> String {
    if line.contains("<!--") {
        line.replace("<!--", "<\\!--")
    } else {
        line
    }
}

/// `lead` (Markdown of brief's own) then a rewritten text that stands for the page from
/// column `src`: the line, and its shifts moved there with one at the text's start.
fn moved(
    lead: &str,
    (text, shifts): (String, Vec<(u32, u32)>),
    src: u32,
) -> (String, Vec<(u32, u32)>) {
    let md = lead.chars().count() as u32 + 1;
    let mut all = Vec::with_capacity(shifts.len() + 1);
    all.push((md, src));
    all.extend(shifts.into_iter().map(|(m, s)| (m + md - 1, s + src - 1)));
    (format!("{lead}{text}"), all)
}

/// The Markdown level of each title style, in the order styles first appear, and whether
/// the first title is the page's own: when its style comes again, the first title is the
/// page's (level 1) and every other title one level deeper. Under a page title from a
/// header block (`headed`), every title is one level deeper.
fn levels(reads: &[Read], headed: bool) -> (HashMap<Style, usize>, bool) {
    let mut order: Vec<Style> = Vec::new();
    let mut first_again = false;
    for read in reads {
        if let Read::Title(style) = read {
            if let Some(k) = order.iter().position(|s| s == style) {
                first_again |= k == 0;
            } else {
                order.push(*style);
            }
        }
    }
    let shift = usize::from(first_again || headed);
    let levels = order
        .iter()
        .enumerate()
        .map(|(k, style)| (*style, (k + 1 + shift).min(6)))
        .collect();
    (levels, first_again)
}

#[cfg(test)]
mod tests;
