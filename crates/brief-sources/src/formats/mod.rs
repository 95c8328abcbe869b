//! The seam for formats of knowledge pages: a format says what it is about itself (its name,
//! the file endings it reads, where discovery finds it, how one page parses) by implementing
//! [`PageFormat`], and is registered by one row of [`FORMATS`]. Everything else goes through
//! that: the catalogue lists, reads and parses its files (`Source::Pages`, `Parser::Pages`),
//! the index stores its parser under its name, `brief.toml`'s `formats` and zero-configuration
//! discovery find it, `brief check` gives its warnings the knowledge base's rules.
//!
//! Its pages are knowledge-base pages: they join the knowledge base's catalogue (links from
//! and to them resolve like Markdown links), their ids come from their paths as Markdown
//! pages' do (`ADR-0001` for an ADR), and their nodes are [`markdown::Parsed`] nodes.

mod asciidoc;
mod mdx;
mod rewrite;
mod rst;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

use super::kb::{Catalog, Layout};
use super::markdown;
use brief_root::Root;

/// What a format of knowledge pages says about itself.
pub trait PageFormat: Sync {
    /// Its name: the value of `formats = [...]` in `brief.toml`, and the tag the index
    /// stores with each of its files.
    fn name(&self) -> &'static str;
    /// Its name as people write it, for messages (`reStructuredText`).
    fn title(&self) -> &'static str;
    /// The endings of the file names it reads, lower-case, dot included (`.adoc`).
    fn extensions(&self) -> &'static [&'static str];
    /// Whether zero-configuration discovery adds it: the project holds its pages where such
    /// pages conventionally live. Reads a few folders, never the whole tree; by default, a
    /// page directly in an ADR folder of the layout, in `docs/` or in `doc/`.
    fn discover(&self, survey: &Survey<'_>) -> bool {
        survey.pages_in(&["docs", "doc"], self.extensions())
    }
    /// Parses the text of one page (`rel` relative to the root) against the catalogue.
    fn parse(&self, rel: &str, text: &str, catalog: &Catalog) -> markdown::Parsed;
    /// Whether its pages define names other pages refer to them by (Sphinx's labels): only
    /// then are its pages read for [`PageFormat::labels`] before any page is parsed.
    fn has_labels(&self) -> bool {
        false
    }
    /// The names a page defines for cross-references, as the format looks them up.
    fn labels(&self, _text: &str) -> Vec<String> {
        Vec::new()
    }
}

/// Adds to `catalog` the labels its pages of labelled formats define (`pages`: each page's
/// root-relative path and format), read on all cores and recorded in path order.
pub fn add_labels<'p>(
    catalog: &mut Catalog,
    root: &Root,
    pages: impl Iterator<Item = (&'p str, Format)>,
) {
    use rayon::prelude::*;
    let mut labelled: Vec<(&str, Format)> = pages.filter(|(_, f)| f.has_labels()).collect();
    labelled.sort_by(|a, b| a.0.cmp(b.0));
    let found: Vec<Vec<String>> = labelled
        .par_iter()
        .map(|(rel, format)| {
            // A page that cannot be read defines nothing; its own read reports why.
            crate::read_text(root, &root.path().join(rel))
                .map(|text| format.labels(&text))
                .unwrap_or_default()
        })
        .collect();
    for ((rel, _), labels) in labelled.iter().zip(found) {
        for label in labels {
            catalog.add_label(label, rel);
        }
    }
}

/// A registered [`PageFormat`]: compared, printed and stored by its name.
#[derive(Clone, Copy)]
pub struct Format(&'static dyn PageFormat);

impl Format {
    /// The registered format of this name.
    pub fn named(name: &str) -> Option<Format> {
        FORMATS.iter().copied().find(|f| f.name() == name)
    }

    /// Every registered format, in registration order.
    pub fn all() -> &'static [Format] {
        FORMATS
    }

    /// Whether a root-relative path (any case) ends with one of its extensions.
    pub(crate) fn reads(&self, rel: &str) -> bool {
        let lower = rel.to_ascii_lowercase();
        self.extensions().iter().any(|ext| lower.ends_with(ext))
    }
}

impl std::ops::Deref for Format {
    type Target = dyn PageFormat;

    fn deref(&self) -> &Self::Target {
        self.0
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        self.name() == other.name()
    }
}

impl fmt::Debug for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The registered formats: a new format is its module and its row here.
const FORMATS: &[Format] = &[
    Format(&asciidoc::AsciiDoc),
    Format(&mdx::Mdx),
    Format(&rst::Rst),
];

/// The files of a format under the root, walked as the knowledge base is (hidden folders,
/// dependencies, build output and templates skipped), sorted.
pub(crate) fn listing(root: &Root, layout: &Layout, format: Format) -> super::Walk {
    let base = root.path();
    let mut walk = super::walk_files(
        root,
        base,
        &super::kb::SKIPPED_DIRS,
        &mut |_, _| {},
        &|name| format.reads(name),
    );
    walk.files
        .retain(|path| !layout.is_template(&super::rel_path(base, path)));
    walk
}

/// What zero-configuration discovery looks at to find the formats' pages: the root, its
/// layout, and the folders the formats look in, each listed once however many formats look
/// there (an ADR folder of hundreds of records is read once, not once a format).
pub struct Survey<'r> {
    root: &'r Root,
    layout: &'r Layout,
    /// Each folder looked in (root-relative) and the lower-case names of the files directly
    /// in it; none for a folder that cannot be listed.
    listed: RefCell<BTreeMap<String, Rc<[String]>>>,
}

impl<'r> Survey<'r> {
    /// A survey of the project at `root`, whose layout is `layout`.
    pub fn new(root: &'r Root, layout: &'r Layout) -> Survey<'r> {
        Survey {
            root,
            layout,
            listed: RefCell::default(),
        }
    }

    /// The project's root.
    pub(crate) fn root(&self) -> &Root {
        self.root
    }

    /// Whether a page (a file ending with one of `extensions`) sits directly in an ADR folder
    /// of the layout or in one of `dirs` (root-relative): where formats look for their pages.
    pub(crate) fn pages_in(&self, dirs: &[&str], extensions: &[&str]) -> bool {
        let adr_dirs = self.layout.adr_dirs.iter().map(String::as_str);
        adr_dirs
            .chain(dirs.iter().copied())
            .any(|dir| self.holds_pages(dir, extensions))
    }

    /// Whether any file directly in `dir` (root-relative) ends with one of `extensions`.
    pub(crate) fn holds_pages(&self, dir: &str, extensions: &[&str]) -> bool {
        self.files_in(dir)
            .iter()
            .any(|name| extensions.iter().any(|e| name.ends_with(e)))
    }

    fn files_in(&self, dir: &str) -> Rc<[String]> {
        if let Some(files) = self.listed.borrow().get(dir) {
            return Rc::clone(files);
        }
        let files: Rc<[String]> = match self.root.list_dir(&self.root.path().join(dir)) {
            Ok(entries) => entries
                .iter()
                .filter(|entry| entry.kind != brief_root::EntryKind::Dir)
                .map(|entry| entry.name.to_string_lossy().to_ascii_lowercase())
                .collect(),
            Err(_) => Rc::from([]),
        };
        self.listed
            .borrow_mut()
            .insert(dir.to_string(), Rc::clone(&files));
        files
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_survey_lists_a_folder_once_for_every_format_that_looks_there() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("docs/adr")).unwrap();
        std::fs::write(dir.path().join("docs/adr/0001-use-x.ADOC"), "= Use X\n").unwrap();
        std::fs::write(dir.path().join("docs/guide.rst"), "Guide\n=====\n").unwrap();
        let root = Root::open(dir.path()).unwrap();
        let layout = Layout::detect(&root);
        let survey = Survey::new(&root, &layout);
        assert!(survey.pages_in(&[], &[".adoc"]), "{:?}", layout.adr_dirs);
        assert!(survey.holds_pages("docs", &[".rst"]));
        assert!(!survey.holds_pages("docs", &[".mdx"]));
        assert!(!survey.holds_pages("missing", &[".rst"]));

        // Gone from the disk, the folders are still what the survey listed.
        std::fs::remove_dir_all(dir.path().join("docs")).unwrap();
        assert!(survey.pages_in(&[], &[".adoc"]));
        assert!(survey.holds_pages("docs", &[".rst"]));
        assert!(!Survey::new(&root, &layout).holds_pages("docs", &[".rst"]));
    }
}
