//! Turning the links a page writes into node ids: relative and root-absolute paths, the
//! repository's own URLs, wikilinks, and ADR numbers written as text.

use super::lines::Line;
use super::{Concern, Warning};
use crate::kb::Catalog;
use crate::mdtext::{deslug, inline_links, percent_decode, Found};
use brief_model::{Link, Relation};

/// What a link target turned out to be.
#[derive(Debug, PartialEq)]
pub(super) enum Resolved {
    /// A node: its id, and the heading linked to (as a heading, not an anchor).
    Node(String, Option<String>),
    /// A local Markdown file that does not exist (the path).
    Missing(String),
    /// External, a folder, or a file that is not a node.
    NotNode,
}

/// A link of the page and the line it is written on (a section holds the links of its lines).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Placed {
    /// Index of the line in the body.
    pub line: usize,
    pub link: Link,
}

/// Resolves the links of one file.
pub(super) struct Resolver<'c> {
    /// The file, relative to the root.
    pub rel: &'c str,
    pub catalog: &'c Catalog,
}

impl Resolver<'_> {
    /// A Markdown link's target: a path relative to the file or to the root (`/docs/x.md`),
    /// or this repository's own URL (`https://github.com/OWNER/REPO/blob/main/docs/x.md`).
    /// A path from the root that names no file there is tried from each folder above the
    /// file, the outermost first: a documentation site roots its links at its own folder
    /// (Docusaurus' `/language/modules.mdx` for `website/docs/language/modules.mdx`), and
    /// that folder is above the pages under it.
    pub(super) fn path(&self, target: &str) -> Resolved {
        let target = target.trim();
        if target.is_empty() || target.starts_with('#') || target.starts_with("mailto:") {
            return Resolved::NotNode;
        }
        if target.contains("://") {
            return match self.catalog.own_path(target) {
                Some(path) => self.in_root(&path),
                None => Resolved::NotNode,
            };
        }
        let (path, heading) = split_heading(target);
        let path = percent_decode(path);
        let dir = self.rel.rsplit_once('/').map_or("", |(d, _)| d);
        let from_root = path.starts_with('/');
        let joined = match path.strip_prefix('/') {
            Some(abs) => abs.to_string(),
            None if dir.is_empty() => path,
            None => format!("{dir}/{path}"),
        };
        let with_heading = |path: &str| match heading {
            Some(h) => format!("{path}#{h}"),
            None => path.to_string(),
        };
        let resolved = self.in_root(&with_heading(&joined));
        if !from_root || !matches!(resolved, Resolved::Missing(_)) {
            return resolved;
        }
        let outermost_first = dir.match_indices('/').map(|(at, _)| at).chain([dir.len()]);
        for end in outermost_first.filter(|&end| end > 0) {
            let above = &dir[..end];
            if let found @ Resolved::Node(..) =
                self.in_root(&with_heading(&format!("{above}/{joined}")))
            {
                return found;
            }
        }
        resolved
    }

    /// A root-relative path (with an optional `#anchor`), `..` and `.` resolved.
    fn in_root(&self, target: &str) -> Resolved {
        let (path, heading) = split_heading(target);
        let heading = heading.map(deslug);
        let mut parts: Vec<&str> = Vec::new();
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    if parts.pop().is_none() {
                        return Resolved::NotNode;
                    }
                }
                other => parts.push(other),
            }
        }
        let rel = parts.join("/");
        if let Some(id) = self.catalog.id_of_path(&rel) {
            return Resolved::Node(id.to_string(), heading);
        }
        let lower = rel.to_ascii_lowercase();
        if !(self.catalog.layout.is_page(&lower) || lower.ends_with(".mdc")) {
            return Resolved::NotNode;
        }
        // A file of an artifact folder (`.contextia/`, `.brief/`) is another source's: its
        // stem is its id. Other hidden folders (`.github/`) hold no nodes.
        if matches!(parts.first(), Some(&".contextia" | &".brief")) {
            let stem = rel.rsplit('/').next().unwrap_or(&rel);
            let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
            return Resolved::Node(stem.to_string(), heading);
        }
        Resolved::Missing(rel)
    }

    /// A wikilink's note (`Note`, `Folder/Note`, `Note#Heading`): `None` when no note has
    /// that name.
    pub(crate) fn wikilink(&self, target: &str) -> Option<Resolved> {
        let (base, heading) = split_heading(target);
        if base.is_empty() {
            return Some(Resolved::NotNode);
        }
        match self.catalog.wikilink(self.rel, base) {
            Some(path) => Some(Resolved::Node(
                self.catalog.id_of_path(path).unwrap_or(path).to_string(),
                heading.map(deslug),
            )),
            None if has_other_extension(base) => Some(Resolved::NotNode),
            None => None,
        }
    }

    /// An ADR named by its number (`ADR-0009`, `ADR 9`, `0009`): its id, when the knowledge
    /// base has it.
    pub(super) fn adr(&self, number: u32) -> Resolved {
        let id = format!("ADR-{number:04}");
        if self.catalog.has_id(&id) {
            Resolved::Node(id, None)
        } else {
            Resolved::Missing(id)
        }
    }
}

fn split_heading(target: &str) -> (&str, Option<&str>) {
    match target.split_once('#') {
        Some((base, heading)) => (base, Some(heading)),
        None => (target, None),
    }
}

fn has_other_extension(name: &str) -> bool {
    let last = name.rsplit('/').next().unwrap_or(name);
    last.rsplit_once('.').is_some_and(|(_, ext)| {
        !ext.eq_ignore_ascii_case("md") && ext.len() <= 4 && !ext.contains(' ')
    })
}

/// The relation of a plain link: `links`, `embeds`, with `#Heading` when it names one.
pub(super) fn plain_relation(found: &Found, heading: Option<String>) -> Relation {
    let base = if found.embed { "embeds" } else { "links" };
    match heading {
        Some(h) if !h.is_empty() => Relation::Link(format!("{base}#{h}").into()),
        _ => Relation::Link(base.into()),
    }
}

/// The links and wikilinks written on the lines not `consumed` by typed link lines; broken
/// ones become warnings at their `line:col`.
pub(super) fn body_links(
    lines: &[Line],
    consumed: &[bool],
    own_id: &str,
    resolver: &Resolver,
    warnings: &mut Vec<Warning>,
) -> Vec<Placed> {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if consumed.get(i).copied().unwrap_or(false) || !line.text.contains('[') {
            continue;
        }
        let mut columns = line.columns();
        for found in inline_links(&line.text) {
            let resolved = if found.wiki {
                match resolver.wikilink(&found.target) {
                    Some(resolved) => resolved,
                    None => {
                        let base = split_heading(&found.target).0;
                        warnings.push(Warning::new(
                            Concern::NoNote,
                            columns.at(found.start),
                            format!("broken wikilink [[{base}]]: no note named \"{base}\""),
                        ));
                        continue;
                    }
                }
            } else {
                resolver.path(&found.target)
            };
            match resolved {
                Resolved::Node(target, heading) if target != own_id => out.push(Placed {
                    line: i,
                    link: Link {
                        relation: plain_relation(&found, heading),
                        target,
                    },
                }),
                Resolved::Node(..) | Resolved::NotNode => {}
                Resolved::Missing(path) => warnings.push(Warning::new(
                    Concern::MissingFile(path),
                    columns.at(found.start),
                    format!("broken link {}: no such file", found.target),
                )),
            }
        }
    }
    out
}
