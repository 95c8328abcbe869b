//! Unit tests of the knowledge-base parser on small pages in the real formats.

use super::*;
use crate::kb::{Catalog, Layout};

fn catalog(files: &[&str]) -> Catalog {
    let layout = Layout {
        adr_dirs: vec!["docs/adr".into()],
        ..Layout::default()
    };
    Catalog::new(layout, files.iter().map(|f| f.to_string()))
}

fn page(rel: &str, text: &str) -> Parsed {
    parse(
        rel,
        text,
        &catalog(&["docs/a.md", "docs/b.md", "docs/adr/0001-x.md"]),
    )
}

#[test]
fn a_megabyte_title_is_cut_with_a_warning() {
    let text = format!("---\ntitle: {}\n---\n# Short\n", "t".repeat(5_000_000));
    let parsed = page("docs/a.md", &text);
    assert_eq!(parsed.nodes[0].title.chars().count(), MAX_TITLE_CHARS + 1);
    let warning = &parsed.warnings[0];
    assert_eq!(warning.concern, Concern::LongTitle);
    assert_eq!(warning.problem.location.line, 2);
    assert!(
        warning.problem.message.contains("5000000 characters"),
        "{}",
        warning.problem.message
    );
}

#[test]
fn frontmatter_that_is_not_yaml_says_how_it_was_read() {
    let parsed = page(
        "docs/a.md",
        "---\ntitle: Retries: the budget\nbad: [\n---\nBody\n",
    );
    assert_eq!(
        parsed.nodes[0].title, "Retries: the budget",
        "read one key per line"
    );
    let warning = &parsed.warnings[0];
    assert_eq!(warning.concern, Concern::Frontmatter);
    assert!(
        warning
            .problem
            .message
            .ends_with("read as one `key: value` per line instead"),
        "{}",
        warning.problem.message
    );
}

#[test]
fn commented_out_links_are_not_links() {
    let parsed = page(
        "docs/a.md",
        "# A\n\n<!--\n[old](gone.md)\n-->\nSee [b](b.md). <!-- [x](nope.md) -->\n",
    );
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert_eq!(parsed.nodes[0].links.len(), 1);
}

#[test]
fn pathological_lines_parse_in_one_pass() {
    // Each of these took seconds per 100 KB when a scan restarted at every mark; the point
    // is that the whole page is read once (the test runs in milliseconds).
    for unit in [
        "[[", "[", "![[", "[[a#", "[[a|", "\\[[", "- [[", "<", "<!--", "#a", "`",
    ] {
        let text = format!("# P\n\n{}\n", unit.repeat(400_000 / unit.len()));
        let parsed = page("docs/a.md", &text);
        assert_eq!(parsed.nodes[0].id, "docs/a.md", "{unit}");
    }
    let links = "[[b]] ".repeat(100_000);
    let parsed = page("docs/a.md", &format!("# P\n\n{links}\n"));
    assert_eq!(parsed.nodes[0].links.len(), 100_000);
    let broken = "[[nowhere]] ".repeat(100_000);
    let parsed = page("docs/a.md", &format!("# P\n\n{broken}\n"));
    assert_eq!(parsed.warnings.len(), 100_000);
    assert_eq!(
        parsed.warnings[99_999].problem.location.col,
        1 + 12 * 99_999
    );
}

#[test]
fn a_site_absolute_link_resolves_from_the_folder_the_site_is_rooted_in() {
    // Docusaurus writes `/language/modules.mdx` for `website/docs/language/modules.mdx`: a
    // link from the root is tried from the root first, then from each folder above the page,
    // the outermost first (the site's folder, not a namesake nearer the page).
    let catalog = catalog(&[
        "website/docs/language/modules.md",
        "website/docs/language/state/language/modules.md",
        "website/docs/language/state/backends.md",
        "docs/a.md",
    ]);
    let parsed = parse(
        "website/docs/language/state/backends.md",
        "# Backends\n\nSee [modules](/language/modules.md), [again](/docs/language/modules.md), \
         [a](/docs/a.md) and [gone](/language/gone.md).\n",
        &catalog,
    );
    let targets: Vec<&str> = parsed.nodes[0]
        .links
        .iter()
        .map(|l| l.target.as_str())
        .collect();
    assert_eq!(
        targets,
        [
            "website/docs/language/modules.md",
            "website/docs/language/modules.md",
            "docs/a.md"
        ],
        "{:?}",
        parsed.warnings
    );
    assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
    assert!(parsed.warnings[0]
        .problem
        .message
        .contains("/language/gone.md"));
}
