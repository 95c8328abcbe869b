//! The knowledge base's findings: the Markdown parser's warnings, each under its rule, kept
//! only where they are true. A link to a file that exists (a template brief skips on purpose,
//! a file in a folder brief does not read) or that a `.gitignore` lists (a generated file) is
//! not broken, and test fixtures and templates are not checked at all: their links are
//! examples.

use std::collections::HashMap;
use std::path::Path;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::Pending;
use brief_root::Root;
use brief_sources::{Concern, Warning, TEST_DATA_DIRS, TEST_DIRS};

/// Folders whose Markdown files are examples, not the project's knowledge: templates,
/// besides the folders of tests ([`TEST_DIRS`]) and their data ([`TEST_DATA_DIRS`], which
/// discovery never reads; a file named there by hand is an example still).
const TEMPLATE_FOLDERS: [&str; 3] = ["templates", "template", "_templates"];

/// The rule of a knowledge-base warning.
pub(super) fn rule(concern: &Concern) -> &'static str {
    match concern {
        Concern::MissingFile(_) | Concern::NoNote => "md-broken-link",
        Concern::SupersededByMissing => "adr-superseded-by-missing",
        Concern::Frontmatter => "md-frontmatter",
        Concern::UnknownStatus => "unknown-status",
        Concern::LongTitle => "md-long-title",
    }
}

/// Whether a file is an example (a test fixture or a template): none of its findings count.
pub(super) fn is_example(rel: &str) -> bool {
    let (dirs, name) = rel.rsplit_once('/').unwrap_or(("", rel));
    dirs.split('/').any(|d| {
        let d = d.to_ascii_lowercase();
        [&TEMPLATE_FOLDERS[..], &TEST_DIRS, &TEST_DATA_DIRS]
            .iter()
            .any(|folders| folders.contains(&d.as_str()))
    }) || name.to_ascii_lowercase().contains("template")
}

/// The warnings that are true, as findings.
pub(super) fn findings(root: &Root, warnings: Vec<Warning>) -> Vec<Pending> {
    let mut ignores = Ignores::new(root);
    warnings
        .into_iter()
        .filter(|w| !is_example(&w.problem.location.path))
        .filter(|w| match &w.concern {
            Concern::MissingFile(path) => {
                !is_placeholder(path) && !exists(root, path) && !ignores.ignored(path)
            }
            _ => true,
        })
        .map(|w| Pending::at(rule(&w.concern), &w.problem.location, w.problem.message))
        .collect()
}

/// A template's placeholder written as a link (`{ADR_SLUG}.md`), not a path.
fn is_placeholder(rel: &str) -> bool {
    rel.contains(['{', '}'])
}

fn exists(root: &Root, rel: &str) -> bool {
    root.kind(&root.path().join(rel)).is_ok()
}

/// The `.gitignore` files of the root and of the folders above a path, read through the
/// root and kept per folder.
struct Ignores<'r> {
    root: &'r Root,
    by_folder: HashMap<String, Option<Gitignore>>,
}

impl<'r> Ignores<'r> {
    fn new(root: &'r Root) -> Ignores<'r> {
        Ignores {
            root,
            by_folder: HashMap::new(),
        }
    }

    /// Whether a root-relative file is ignored by the `.gitignore` of any folder above it
    /// (the deepest that decides wins, as git reads them).
    fn ignored(&mut self, rel: &str) -> bool {
        let mut folders = vec![String::new()];
        let mut at = 0;
        while let Some(slash) = rel[at..].find('/') {
            folders.push(rel[..at + slash].to_string());
            at += slash + 1;
        }
        let path = self.root.path().join(rel);
        for folder in folders.iter().rev() {
            if let Some(ignore) = self.of(folder) {
                let matched = ignore.matched_path_or_any_parents(&path, false);
                if matched.is_ignore() {
                    return true;
                }
                if matched.is_whitelist() {
                    return false;
                }
            }
        }
        false
    }

    fn of(&mut self, folder: &str) -> Option<&Gitignore> {
        let root = self.root;
        self.by_folder
            .entry(folder.to_string())
            .or_insert_with(|| read_gitignore(root, folder))
            .as_ref()
    }
}

fn read_gitignore(root: &Root, folder: &str) -> Option<Gitignore> {
    let dir = root.path().join(folder);
    let (bytes, _) = root.read(&dir.join(".gitignore")).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let mut builder = GitignoreBuilder::new(&dir);
    for line in text.lines() {
        // A line the matcher cannot read is skipped, as git skips it.
        let _ = builder.add_line(Some(Path::new(".gitignore").to_path_buf()), line);
    }
    builder.build().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixtures_and_templates_are_examples() {
        for example in [
            "tests/fixtures/kb/README.md",
            "pkg/testdata/notes.md",
            ".github/PULL_REQUEST_TEMPLATE.md",
            "docs/adr/adr-template.md",
            "templates/page.md",
            "packages/core/integration-tests/ro-project/docs/adr/20201028-links.md",
        ] {
            assert!(is_example(example), "{example}");
        }
        for real in [
            "docs/adr/0001-use-go.md",
            "docs/fixtures.md",
            "docs/testing.md",
            "README.md",
        ] {
            assert!(!is_example(real), "{real}");
        }
    }

    #[test]
    fn placeholders_are_not_paths() {
        assert!(is_placeholder("docs/adr/{LOG4BRAINS_ADR_SLUG}.md"));
        assert!(!is_placeholder("docs/adr/0005-example.md"));
    }

    #[test]
    fn gitignored_files_are_ignored_by_the_deepest_gitignore() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".gitignore"), "/site/\n*.gen.md\n").unwrap();
        std::fs::create_dir_all(dir.path().join("docs")).unwrap();
        std::fs::write(dir.path().join("docs/.gitignore"), "!keep.gen.md\napi/\n").unwrap();
        let root = Root::open(dir.path()).unwrap();
        let mut ignores = Ignores::new(&root);
        assert!(ignores.ignored("site/index.md"));
        assert!(ignores.ignored("docs/cli.gen.md"));
        assert!(ignores.ignored("docs/api/v1.md"));
        assert!(!ignores.ignored("docs/keep.gen.md"));
        assert!(!ignores.ignored("docs/guide.md"));
    }
}
