//! Parsing one knowledge-base Markdown file: an ADR (Nygard as adr-tools writes it, MADR
//! 2–4, log4brains), a doc, an agent instruction file or an Obsidian note. Kinds come from
//! the path and the document's shape; edges from relative links, wikilinks and ADR status
//! lines; a long page is also split into sections (see `docs/sources.md`).
//!
//! [`parse`] runs in phases, each with its own module and typed result: the frontmatter
//! ([`Front`]), the body's lines and headings (`lines`), what an ADR says about itself
//! (`meta`), the links (`links`), the decision fields (`decision`), then the page node and its
//! sections (`sections`).

mod decision;
mod lines;
mod links;
mod meta;
pub use meta::{is_metadata_line, without_fence_labels, without_opening_metadata};
mod sections;

use serde_json::{Map, Value};

use super::frontmatter::{self, one_line, scalar};
use super::kb::Catalog;
use super::mdtext::{imports, inline_tags, newest_date, strip_html};
use super::{Problem, ProblemKind};
use brief_model::{
    ArtifactFields, Content, Kind, Lifecycle, Link, Location, Node, Origin, Relation,
};
pub(crate) use lines::fence_mark;
use lines::{clean, Lines};
use links::{body_links, Placed, Resolver};
use meta::{Meta, Status};

/// What a knowledge-base warning is about: `brief check` gives each its rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Concern {
    /// A link to a Markdown file that is not in the knowledge base (its root-relative path;
    /// the file may still exist: a template, a generated file).
    MissingFile(String),
    /// A wikilink that names no note.
    NoNote,
    /// An ADR superseded by an ADR that does not exist.
    SupersededByMissing,
    /// Frontmatter that is not valid YAML (read as one `key: value` per line).
    Frontmatter,
    /// A status word the lifecycle table does not know (the node counts as current).
    UnknownStatus,
    /// A title longer than [`MAX_TITLE_CHARS`], cut to it.
    LongTitle,
}

/// The longest title kept, in characters: a title is one line of a card and of every
/// header, counted again at each detail, so a megabyte-long one is cut (with a warning).
pub(crate) const MAX_TITLE_CHARS: usize = 1_000;

/// A warning met while parsing, and what it is about.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// What the warning is about: `brief check` maps it to a rule.
    pub concern: Concern,
    /// Where and what, as `brief check` prints it (the path is the file's).
    pub problem: Problem,
}

impl Warning {
    fn new(concern: Concern, location: Location, message: String) -> Warning {
        Warning {
            concern,
            problem: Problem::warning(ProblemKind::Content, location, message),
        }
    }
}

/// What one file gave.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The page first, then its sections in document order (a section before its own).
    pub nodes: Vec<Node>,
    /// Everything the parse noticed but could still read past.
    pub warnings: Vec<Warning>,
}

impl Parsed {
    /// The warnings as plain problems.
    pub(crate) fn problems(&self) -> impl Iterator<Item = &Problem> {
        self.warnings.iter().map(|w| &w.problem)
    }
}

/// Parses the text of one knowledge-base file (`rel` relative to the root).
pub fn parse(rel: &str, text: &str, catalog: &Catalog) -> Parsed {
    let mut warnings = Vec::new();
    let front = Front::read(rel, text, &mut warnings);
    let lines = Lines::new(front.body, front.body_line);
    let file = File::new(rel, catalog);
    let resolver = Resolver { rel, catalog };
    let meta = file.meta(&front, &lines, &resolver, &mut warnings);
    let title = cut_title(file.title(&front.map, &lines), &front, &mut warnings);
    let placed = file.links(&lines, &meta, &resolver, &mut warnings);
    if let Some(status) = &meta.status {
        if Lifecycle::parse(&status.word).is_none() {
            warnings.push(unknown_status(status));
        }
    }
    let mut page = Node {
        id: file.id.clone(),
        kind: file.kind(&front.map),
        title,
        status: meta.status.as_ref().map(|s| s.word.clone()),
        origin: Origin::Markdown,
        content: Content::Artifact(file.fields(&front, &lines, &meta)),
        links: placed.iter().map(|p| p.link.clone()).collect(),
        date: file.date(&front.map, &meta, &lines),
        location: Location::file(rel),
    };
    let mut nodes = Vec::new();
    if !file.is_adr {
        let sections = sections::Page {
            id: &page.id,
            rel,
            status: page.status.as_deref(),
            date: page.date.as_deref(),
            links: &placed,
        };
        let (found, contains) = sections::split(&sections, &lines);
        page.links.extend(contains);
        nodes = found;
    }
    nodes.insert(0, page);
    for warning in &mut warnings {
        warning.problem.location.path = rel.to_string();
    }
    Parsed { nodes, warnings }
}

/// The title cut to [`MAX_TITLE_CHARS`] at a character boundary, with a warning at the
/// frontmatter's `title:` line (else the first line of the body).
fn cut_title(title: String, front: &Front, warnings: &mut Vec<Warning>) -> String {
    let Some((cut, _)) = title.char_indices().nth(MAX_TITLE_CHARS) else {
        return title;
    };
    let line =
        frontmatter::key_line(front.yaml, front.yaml_line, "title").unwrap_or(front.body_line);
    warnings.push(Warning::new(
        Concern::LongTitle,
        Location {
            path: String::new(),
            line,
            col: 1,
        },
        format!(
            "title of {} characters cut to its first {MAX_TITLE_CHARS} (the longest title brief keeps): shorten it",
            title.chars().count()
        ),
    ));
    format!("{}…", &title[..cut])
}

fn unknown_status(status: &Status) -> Warning {
    Warning::new(
        Concern::UnknownStatus,
        status.at.clone(),
        format!(
            "unknown status `{}`: brief reads it as current; write a known word (accepted, proposed, \
             superseded, deprecated, rejected, withdrawn, obsolete, …)",
            status.word
        ),
    )
}

/// The frontmatter (YAML, or one `key: value` per line when it is not YAML), the body and
/// where each starts.
struct Front<'t> {
    map: Map<String, Value>,
    body: &'t str,
    body_line: u32,
    /// The YAML text and its first line, for locating keys.
    yaml: &'t str,
    yaml_line: u32,
}

impl<'t> Front<'t> {
    fn read(rel: &str, text: &'t str, warnings: &mut Vec<Warning>) -> Front<'t> {
        let none = |body, body_line| Front {
            map: Map::new(),
            body,
            body_line,
            yaml: "",
            yaml_line: 1,
        };
        let Ok(split) = frontmatter::split(rel, text) else {
            return none(text, 1);
        };
        let Some(yaml) = split.yaml else {
            return none(split.body, split.body_line);
        };
        let map = match frontmatter::parse(rel, yaml, split.yaml_line) {
            Ok(map) => map,
            Err(problem) => {
                // Cursor writes `globs: **/*.ts,**/*.tsx` unquoted, which is not YAML: such a
                // file is read one `key: value` per line, as its tools read it, and so is
                // any other frontmatter that is not YAML (with a warning that says so).
                if !rel.ends_with(".mdc") {
                    warnings.push(Warning::new(
                        Concern::Frontmatter,
                        problem.location,
                        format!(
                            "{}; read as one `key: value` per line instead",
                            problem.message
                        ),
                    ));
                }
                super::rules::lenient_front(yaml)
            }
        };
        Front {
            map,
            body: split.body,
            body_line: split.body_line,
            yaml,
            yaml_line: split.yaml_line,
        }
    }
}

/// What the path says about a file.
struct File<'r> {
    rel: &'r str,
    /// The file name.
    name: &'r str,
    id: String,
    is_adr: bool,
    catalog: &'r Catalog,
}

impl<'r> File<'r> {
    fn new(rel: &'r str, catalog: &'r Catalog) -> File<'r> {
        File {
            rel,
            name: rel.rsplit('/').next().unwrap_or(rel),
            id: super::kb::id_for(&catalog.layout, rel),
            is_adr: catalog.layout.is_adr(rel),
            catalog,
        }
    }

    /// An ADR's metadata; another file's status is its frontmatter's.
    fn meta(
        &self,
        front: &Front,
        lines: &Lines,
        resolver: &Resolver,
        warnings: &mut Vec<Warning>,
    ) -> Meta {
        let status_line = frontmatter::key_line(front.yaml, front.yaml_line, "status").unwrap_or(1);
        if !self.is_adr {
            let at = Location {
                path: String::new(),
                line: status_line,
                col: 1,
            };
            let status = front.map.get("status").and_then(scalar);
            return Meta {
                status: status.and_then(|s| Status::read(&s, at)),
                ..Meta::default()
            };
        }
        let mut meta = meta::read(&self.id, lines, &front.map, status_line, resolver, warnings);
        if meta.status.is_none() && is_log4brains(self.rel) {
            meta.status = Status::read("accepted", Location::default());
        }
        meta
    }

    fn kind(&self, map: &Map<String, Value>) -> Kind {
        let declared = map
            .get("type")
            .or_else(|| map.get("kind"))
            .and_then(Value::as_str);
        // Agent files and rules with globs are norms; `rules` says when each applies.
        if self.is_adr {
            Kind::Decision
        } else if super::rules::RuleFile::of(self.rel).is_some() {
            Kind::Norm
        } else if let Some(kind) = declared {
            Kind::parse(kind)
        } else {
            Kind::parse("note")
        }
    }

    /// Frontmatter `title`, else the first level-1 heading (an ADR's number dropped), else
    /// a skill's `name` or folder, else the file's name (an ADR: its id).
    fn title(&self, map: &Map<String, Value>, lines: &Lines) -> String {
        let declared = map
            .get("title")
            .and_then(scalar)
            .map(|t| strip_html(&t).trim().to_string());
        let heading = || {
            lines.title().map(|t| match self.is_adr {
                true => strip_adr_number(t, &self.id).to_string(),
                false => t.to_string(),
            })
        };
        let fallback = || match self.is_adr {
            true => self.id.clone(),
            false => {
                let stem = self.name.rsplit_once('.').map_or(self.name, |(s, _)| s);
                stem.to_string()
            }
        };
        // A skill is named by its `name`, else its folder (its file is always `SKILL.md`).
        let skill = || {
            matches!(
                super::rules::RuleFile::of(self.rel),
                Some(super::rules::RuleFile::Skill { .. })
            )
            .then(|| {
                map.get("name").and_then(scalar).or_else(|| {
                    let folder = self.rel.rsplit_once('/').map(|(dir, _)| dir)?;
                    folder.rsplit('/').next().map(str::to_string)
                })
            })
            .flatten()
        };
        declared
            .filter(|t| !t.is_empty())
            .or_else(heading)
            .filter(|t| !t.is_empty())
            .or_else(skill)
            .filter(|t| !t.is_empty())
            .unwrap_or_else(fallback)
    }

    /// Every link of the page in line order: typed ADR links, plain links and wikilinks,
    /// and `CLAUDE.md`'s `@path` imports.
    fn links(
        &self,
        lines: &Lines,
        meta: &Meta,
        resolver: &Resolver,
        warnings: &mut Vec<Warning>,
    ) -> Vec<Placed> {
        let mut placed = meta.links.clone();
        placed.extend(body_links(
            &lines.lines,
            &meta.consumed,
            &self.id,
            resolver,
            warnings,
        ));
        if self.name == "CLAUDE.md" {
            for (i, line) in lines.lines.iter().enumerate() {
                for (_, word) in imports(&line.text) {
                    if let Some(id) = self.catalog.id_of_path(word) {
                        placed.push(Placed {
                            line: i,
                            link: Link {
                                relation: Relation::Link("imports".into()),
                                target: id.to_string(),
                            },
                        });
                    }
                }
            }
        }
        placed.sort_by_key(|p| p.line);
        placed
    }

    /// An ADR's date line, frontmatter `date`/`created`, an ADR's `Date:` line anywhere,
    /// else a daily note's name.
    fn date(&self, map: &Map<String, Value>, meta: &Meta, lines: &Lines) -> Option<String> {
        let front = ["date", "created"]
            .iter()
            .filter_map(|k| map.get(*k).and_then(scalar))
            .find_map(|v| newest_date(&v));
        let date_line = || {
            lines
                .lines
                .iter()
                .filter(|_| self.is_adr)
                .find_map(|l| l.text.strip_prefix("Date:").and_then(newest_date))
        };
        let daily =
            || newest_date(self.name.trim_end_matches(".md")).filter(|_| self.name.len() == 13);
        meta.date
            .clone()
            .or(front)
            .or_else(date_line)
            .or_else(daily)
    }

    fn fields(&self, front: &Front, lines: &Lines, meta: &Meta) -> ArtifactFields {
        let map = &front.map;
        let rule = super::rules::RuleFile::of(self.rel);
        let mut tags = list(map.get("tags"));
        tags.extend(meta.tags.iter().cloned());
        for (i, line) in lines.lines.iter().enumerate() {
            if !lines.is_heading(i) {
                tags.extend(inline_tags(&line.text));
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        tags.retain(|t| seen.insert(t.to_lowercase()));
        let mut fields = ArtifactFields {
            description: map
                .get("description")
                .and_then(scalar)
                .filter(|d| !d.is_empty()),
            tags,
            scope: rule
                .as_ref()
                .map(|r| r.written_globs(map))
                .unwrap_or_default(),
            applies: rule.as_ref().map(|r| r.applies(map)).unwrap_or_default(),
            body: clean(&lines.lines),
            body_line: front.body_line,
            ..ArtifactFields::default()
        };
        for (key, value) in map {
            if matches!(
                key.as_str(),
                "title" | "status" | "type" | "kind" | "description" | "tags" | "globs" | "applyTo"
            ) || (rule.is_some() && super::rules::SCOPE_KEYS.contains(&key.as_str()))
            {
                continue;
            }
            if let Some(line) = one_line(value) {
                fields.extra.push((key.clone(), line));
            }
        }
        if self.is_adr {
            fields.rationale = decision::rationale(lines);
            fields.rejected_alternatives = decision::rejected(lines);
        }
        fields
    }
}

fn is_log4brains(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.len() > 9 && name[..8].bytes().all(|b| b.is_ascii_digit()) && name.as_bytes()[8] == b'-'
}

/// An ADR title without the number its id already says: `7. Title` (adr-tools),
/// `ADR-0002: Title`, `ADR 2 - Title`, `0002 – Title`.
fn strip_adr_number<'t>(title: &'t str, id: &str) -> &'t str {
    let Some(number) = id.strip_prefix("ADR-").and_then(|n| n.parse::<u32>().ok()) else {
        return title;
    };
    let lower = title.to_ascii_lowercase();
    let after_word = lower.strip_prefix("adr").map_or(0, |rest| {
        3 + (rest.len() - rest.trim_start_matches(['-', '_', ' ', '#']).len())
    });
    let digits = title[after_word..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    if digits == 0 || title[after_word..after_word + digits].parse::<u32>().ok() != Some(number) {
        return title;
    }
    let rest = &title[after_word + digits..];
    let stripped = rest.trim_start_matches([' ', '.', ':', '-', '–', '—']);
    // The number must be followed by a separator, and something must remain.
    if stripped.len() == rest.len() && !rest.is_empty() || stripped.trim().is_empty() {
        return title;
    }
    stripped.trim()
}

fn list(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::Array(items)) => items.iter().filter_map(scalar).collect(),
        Some(Value::String(s)) => s
            .split([',', ' '])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests;
