//! Headings as link targets: GitHub's anchor for a heading, and the section a link to a
//! heading of a page lands on.
//!
//! A knowledge-base link to `docs/storage.md#cache-directory` (or `[[Storage#Cache
//! directory]]`) is written as a link to the page with the relation `links#Cache directory`.
//! When the page is long enough to be split into sections, the section node
//! `docs/storage.md#cache-directory` exists and the link lands on it; otherwise on the page.
//! The in-memory graph and the index apply this one rule.

use super::{Link, Relation};

/// GitHub's anchor for a heading's plain text: lower case, spaces to `-`, every character
/// that is not a letter, a digit, `_` or `-` dropped (`Cache directory (v2)` →
/// `cache-directory-v2`). A page numbers repeats (`setup-1`); that is the page's to do.
pub fn anchor(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c),
            _ => None,
        })
        .collect()
}

/// The page of a section node's id, `{page id}#{anchor}` (nested sections too): the id up to
/// its last `#`, since an anchor never holds one and a page's name may. Only for a section's
/// id: a page's own id is returned whole by the caller.
pub fn page_of_section(id: &str) -> &str {
    id.rsplit_once('#').map_or(id, |(page, _)| page)
}

impl Link {
    /// The id of the section this link names when its relation names a heading
    /// (`links#Cache directory` to `docs/storage.md` → `docs/storage.md#cache-directory`).
    /// The link lands there when that node exists, else on its target.
    pub fn section(&self) -> Option<String> {
        section_of(&self.target, &self.relation)
    }
}

/// [`Link::section`] of a target and a relation.
pub fn section_of(target: &str, relation: &Relation) -> Option<String> {
    let Relation::Link(name) = relation else {
        return None;
    };
    let (_, heading) = name.split_once('#')?;
    let anchor = anchor(heading);
    (!anchor.is_empty()).then(|| format!("{target}#{anchor}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sections_page_is_its_id_up_to_the_last_hash() {
        assert_eq!(page_of_section("docs/storage.md#cache"), "docs/storage.md");
        assert_eq!(page_of_section("notes/C#.md#setup"), "notes/C#.md");
        assert_eq!(page_of_section("plain"), "plain");
    }

    #[test]
    fn a_heading_link_names_its_section() {
        let link = Link {
            relation: Relation::Link("links#Cache directory (v2)".into()),
            target: "docs/storage.md".into(),
        };
        assert_eq!(
            link.section().as_deref(),
            Some("docs/storage.md#cache-directory-v2")
        );
        let plain = Link {
            relation: Relation::Link("links".into()),
            target: "docs/storage.md".into(),
        };
        assert_eq!(plain.section(), None);
        assert_eq!(anchor("Setup 1"), "setup-1");
        assert_eq!(anchor("Über `brief` — née"), "über-brief--née");
    }
}
