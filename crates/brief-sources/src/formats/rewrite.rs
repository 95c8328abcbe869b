//! A page of another format rewritten as Markdown line for line, and where its columns
//! moved: a format rewrites a line with [`Rewrite`] (a reference as a Markdown link), the
//! page is a [`Translated`], and a warning the Markdown parser gives is moved back to the
//! place in the page as written ([`Translated::relocate`]), so `path:line:col` is the file's.

use crate::kb::Catalog;
use crate::markdown::{self, Parsed};
use brief_model::Location;

/// A page as Markdown: one line per line of the page, and where columns moved.
#[derive(Debug, Default)]
pub(super) struct Translated {
    pub(super) markdown: String,
    /// Per line, the points where a rewritten part starts or ends: (Markdown column, source
    /// column), both counted in characters from 1.
    shifts: Vec<Vec<(u32, u32)>>,
}

impl Translated {
    /// Adds the next line (without its newline) and its shifts.
    pub(super) fn push(&mut self, markdown: &str, shifts: Vec<(u32, u32)>) {
        self.markdown.push_str(markdown);
        self.markdown.push('\n');
        self.shifts.push(shifts);
    }

    /// The page parsed as the Markdown it became, its warnings at the page's own columns.
    pub(super) fn parse(&self, rel: &str, catalog: &Catalog) -> Parsed {
        let mut parsed = markdown::parse(rel, &self.markdown, catalog);
        for warning in &mut parsed.warnings {
            self.relocate(&mut warning.problem.location);
        }
        parsed
    }

    /// Moves a location in the Markdown text to the same place in the page as written.
    pub(super) fn relocate(&self, location: &mut Location) {
        let Some(shifts) = (location.line as usize)
            .checked_sub(1)
            .and_then(|i| self.shifts.get(i))
        else {
            return;
        };
        if let Some(&(md, src)) = shifts.iter().rev().find(|(md, _)| *md <= location.col) {
            location.col = src + (location.col - md);
        }
    }

    /// The page's own column of column `col` of line `line` of the Markdown (what the tests
    /// of each format ask of [`Translated::relocate`]).
    #[cfg(test)]
    pub(super) fn column_of(&self, line: u32, col: u32) -> u32 {
        let mut at = Location {
            path: String::new(),
            line,
            col,
        };
        self.relocate(&mut at);
        at.col
    }
}

/// One line being rewritten: what is written, where the reading is, and the columns.
/// Every step consumes what it read, so a line is read once.
pub(super) struct Rewrite<'l> {
    /// The line as written.
    pub(super) line: &'l str,
    /// The byte offset read up to.
    pub(super) at: usize,
    text: String,
    md_col: u32,
    src_col: u32,
    shifts: Vec<(u32, u32)>,
}

impl<'l> Rewrite<'l> {
    pub(super) fn new(line: &'l str) -> Rewrite<'l> {
        Rewrite {
            line,
            at: 0,
            text: String::with_capacity(line.len()),
            md_col: 1,
            src_col: 1,
            shifts: Vec::new(),
        }
    }

    /// What is left to read.
    pub(super) fn rest(&self) -> &'l str {
        &self.line[self.at..]
    }

    /// Whether the whole line is read.
    pub(super) fn done(&self) -> bool {
        self.at >= self.line.len()
    }

    /// Copies the next character as it is.
    pub(super) fn copy_char(&mut self) {
        if let Some(c) = self.rest().chars().next() {
            self.text.push(c);
            self.at += c.len_utf8();
            self.md_col += 1;
            self.src_col += 1;
        }
    }

    /// Copies `len` bytes as they are (a scanned region that is no reference).
    pub(super) fn copy(&mut self, len: usize) -> bool {
        let part = &self.line[self.at..self.at + len];
        self.text.push_str(part);
        let chars = part.chars().count() as u32;
        self.md_col += chars;
        self.src_col += chars;
        self.at += len;
        true
    }

    /// Writes `markdown` in place of the next `len` source bytes, marking both ends.
    pub(super) fn replace(&mut self, len: usize, markdown: &str) -> bool {
        self.shifts.push((self.md_col, self.src_col));
        self.text.push_str(markdown);
        self.md_col += markdown.chars().count() as u32;
        self.src_col += self.line[self.at..self.at + len].chars().count() as u32;
        self.at += len;
        self.shifts.push((self.md_col, self.src_col));
        true
    }

    /// The rewritten line and its shifts.
    pub(super) fn finish(self) -> (String, Vec<(u32, u32)>) {
        (self.text, self.shifts)
    }

    /// Rewrites `line` in one pass: at each place, `step` rewrites what starts there (and
    /// says so), else the character is copied.
    pub(super) fn each(
        line: &'l str,
        mut step: impl FnMut(&mut Rewrite<'l>) -> bool,
    ) -> (String, Vec<(u32, u32)>) {
        let mut out = Rewrite::new(line);
        while !out.done() {
            if !step(&mut out) {
                out.copy_char();
            }
        }
        out.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_after_a_rewritten_part_moves_back_by_its_change_in_length() {
        let mut out = Rewrite::new("ab `x <y>`_ cd");
        out.copy(3);
        out.replace(8, "[x](y)");
        while !out.done() {
            out.copy_char();
        }
        let (text, shifts) = out.finish();
        assert_eq!(text, "ab [x](y) cd");
        let mut page = Translated::default();
        page.push(&text, shifts);
        assert_eq!(page.column_of(1, 11), 13, "the `c` after the reference");
        // A column before the rewritten part, and a line without shifts, stay.
        assert_eq!(page.column_of(1, 2), 2);
        assert_eq!(page.column_of(2, 5), 5);
    }
}
