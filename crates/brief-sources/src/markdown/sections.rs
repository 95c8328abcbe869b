//! Long pages as sections: a knowledge-base page (not an ADR) whose body is at least
//! [`SECTION_MIN_BYTES`] and that has two or more headings at its section level (the
//! shallowest level below the title) gets one node per such heading, contained by the page;
//! a section as long, with two or more sub-headings, is split the same way.
//!
//! A section's id is `{page id}#{anchor}`, the anchor GitHub gives the heading (numbered over
//! every heading of the page, so anchors match the rendered page).

use std::ops::Range;

use super::lines::{clean, Lines};
use super::links::Placed;
use crate::mdtext::Slugs;
use brief_model::{ArtifactFields, Content, Kind, Link, Location, Node, Origin, Relation};

/// The body size, in bytes, from which a page (or a section) is split into sections.
pub(crate) const SECTION_MIN_BYTES: usize = 4_000;

/// What a section inherits from its page.
pub(super) struct Page<'p> {
    pub id: &'p str,
    pub rel: &'p str,
    pub status: Option<&'p str>,
    pub date: Option<&'p str>,
    /// Every link of the page, with its line, in line order.
    pub links: &'p [Placed],
}

/// The section nodes of a page (in document order, parents before their sections) and the
/// `contains` links of the page to its top-level sections.
pub(super) fn split(page: &Page, lines: &Lines) -> (Vec<Node>, Vec<Link>) {
    let anchors = anchors(lines);
    // The title heading is the page's, not a section.
    let first = match lines.headings.first() {
        Some(h) if h.level == 1 => 1,
        _ => 0,
    };
    let splitter = Splitter {
        page,
        lines,
        anchors: &anchors,
    };
    let mut nodes = Vec::new();
    let body = lines.raw(0..lines.lines.len()).len();
    let contains = splitter.split(first..lines.headings.len(), body, &mut nodes);
    (nodes, contains)
}

/// The anchor of every heading, in order.
fn anchors(lines: &Lines) -> Vec<String> {
    let mut slugs = Slugs::default();
    lines.headings.iter().map(|h| slugs.next(&h.text)).collect()
}

struct Splitter<'s, 'p> {
    page: &'s Page<'p>,
    lines: &'s Lines<'s>,
    anchors: &'s [String],
}

impl Splitter<'_, '_> {
    /// Splits the headings `range` (the content of a page or a section of `size` bytes) at
    /// their shallowest level; pushes the sections and returns the parent's `contains` links.
    fn split(&self, range: Range<usize>, size: usize, out: &mut Vec<Node>) -> Vec<Link> {
        let headings = &self.lines.headings[range.clone()];
        let Some(level) = headings.iter().map(|h| h.level).min() else {
            return Vec::new();
        };
        let at_level: Vec<usize> = range
            .filter(|&h| self.lines.headings[h].level == level)
            .collect();
        if size < SECTION_MIN_BYTES || at_level.len() < 2 {
            return Vec::new();
        }
        let mut contains = Vec::new();
        for h in at_level {
            let id = format!("{}#{}", self.page.id, self.anchors[h]);
            contains.push(Link {
                relation: Relation::Contains,
                target: id.clone(),
            });
            self.section(h, id, out);
        }
        contains
    }

    /// The node of heading `h` and, when it is long, its own sections.
    fn section(&self, h: usize, id: String, out: &mut Vec<Node>) {
        let heading = &self.lines.headings[h];
        let extent = self.lines.extent(h);
        let size = self.lines.raw(extent.clone()).len();
        // The page's links are in line order: the section's are one run of them.
        let all = self.page.links;
        let from = all.partition_point(|p| p.line < extent.start);
        let to = all.partition_point(|p| p.line < extent.end);
        let mut links: Vec<Link> = all[from..to.max(from)]
            .iter()
            .filter(|p| p.link.target != id)
            .map(|p| p.link.clone())
            .collect();
        let slot = out.len();
        out.push(Node {
            id: id.clone(),
            kind: Kind::Section,
            title: heading.text.clone(),
            status: self.page.status.map(str::to_string),
            origin: Origin::Markdown,
            content: Content::Artifact(ArtifactFields {
                body: clean(&self.lines.lines[extent.clone()]),
                body_line: self.lines.lines[heading.line].number,
                ..ArtifactFields::default()
            }),
            links: Vec::new(),
            date: self.page.date.map(str::to_string),
            location: Location {
                path: self.page.rel.to_string(),
                line: self.lines.lines[heading.line].number,
                col: 1,
            },
        });
        // The sub-headings: every heading inside the extent.
        let inner_start = h + 1;
        let inner_end = inner_start
            + self.lines.headings[inner_start..].partition_point(|next| next.line < extent.end);
        links.extend(self.split(inner_start..inner_end, size, out));
        out[slot].links = links;
    }
}
