//! What an ADR says about itself: its status in every common form, the records it supersedes
//! or is superseded by (linked or named as text), its date and tags.
//!
//! A status is read from MADR's frontmatter, a `## Status` section's first line, or a
//! metadata line before the first section: `Status: Accepted`, `- **Status:** Accepted`,
//! `* **Status**: Accepted`, `| Status | Accepted |`. The node keeps the normal word
//! (`superseded`, `in review`); what it means is `brief_model::Lifecycle`'s to say.

use serde_json::{Map, Value};

use super::lines::{Line, Lines};
use super::links::{Placed, Resolved, Resolver};
use super::{Concern, Warning};
use crate::frontmatter::scalar;
use crate::mdtext::{inline_links, newest_date, plain, Found};
use brief_model::{Lifecycle, Link, Location, Relation};

/// What the metadata of an ADR gave.
#[derive(Debug, Default)]
pub(super) struct Meta {
    pub status: Option<Status>,
    pub date: Option<String>,
    pub tags: Vec<String>,
    /// Typed edges: `supersedes`, `superseded_by`, `amends`, …
    pub links: Vec<Placed>,
    /// Lines whose links are typed edges (not also plain `links`), by index.
    pub consumed: Vec<bool>,
}

/// A status as the node keeps it, and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Status {
    /// The normal word (`accepted`, `superseded`, `in review`).
    pub word: String,
    pub at: Location,
}

impl Status {
    /// A status value as written (`**Accepted** ✅`, `[Deprecated](…)`, `Superseded by …`).
    pub(super) fn read(value: &str, at: Location) -> Option<Status> {
        let word = normal_word(&plain(value).to_lowercase())?;
        Some(Status { word, at })
    }
}

/// The words a status is known by: the first word, or two when the first is `in`, `not`, …
/// (`in review`, `not accepted`, `no longer`); spellings of "superseded" made one.
fn normal_word(lower: &str) -> Option<String> {
    let mut words = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map(|w| w.trim_matches('-'))
        .filter(|w| w.chars().any(char::is_alphabetic));
    let first = words.next()?;
    if first.starts_with("supersed") || first.starts_with("superced") || first == "supersceded" {
        return Some("superseded".into());
    }
    match (first, words.next()) {
        ("not" | "in" | "under" | "on" | "for" | "un", Some(second))
        | ("no", Some(second @ "longer")) => Some(format!("{first} {second}")),
        _ => Some(first.to_string()),
    }
}

/// Where a key of a metadata line is: `Status: Accepted`, `- **Status:** Accepted`,
/// `* **Status**: Accepted`, `| Status | Accepted |`. Returns the lower-cased key, the value
/// and the value's byte offset in the line.
pub(super) fn key_value(text: &str) -> Option<(String, &str, usize)> {
    let trimmed = text.trim_start();
    let mut at = text.len() - trimmed.len();
    if let Some(row) = trimmed.strip_prefix('|') {
        let mut cells = row.split('|');
        let key = cells.next()?;
        let value = cells.next()?;
        let offset = at + 1 + key.len() + 1;
        return clean_key(key).map(|k| (k, value.trim(), offset + lead(value)));
    }
    for bullet in ["- ", "* ", "+ "] {
        if let Some(rest) = text[at..].strip_prefix(bullet) {
            at += bullet.len();
            at += rest.len() - rest.trim_start().len();
            break;
        }
    }
    let rest = &text[at..];
    let colon = rest.find(':')?;
    let key = clean_key(&rest[..colon])?;
    let after = &rest[colon + 1..];
    if after.starts_with("//") {
        return None;
    }
    // `**Status:** Accepted`: the emphasis closes after the colon.
    let marks = after.len() - after.trim_start_matches(['*', '_']).len();
    let value = &after[marks..];
    let offset = at + colon + 1 + marks + lead(value);
    Some((key, value.trim(), offset))
}

/// Whether a line of a document is a metadata line as an ADR writes one (`Date: 2024-01-05`,
/// `- **Deciders:** Ana, Bo`, `| Status | Accepted |`) or a table's rule (`|---|---|`): what a
/// summary skips to reach the record's first prose.
pub fn is_metadata_line(text: &str) -> bool {
    let trimmed = text.trim();
    let rule =
        trimmed.starts_with('|') && trimmed.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '));
    rule || key_value(text).is_some_and(|(_, value, _)| !value.is_empty())
}

/// A body without the metadata lines it opens with (`Date: 2017-02-21` before the first
/// prose; blank lines and headings pass): what search reads of an ADR. Every record of a
/// collection has a `Date:` line, which would make "date" a word every node holds; the
/// node's date and status are read into its fields already.
pub fn without_opening_metadata(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut opening = true;
    for line in body.split_inclusive('\n') {
        let text = line.trim();
        if opening && !text.is_empty() && !text.starts_with('#') {
            if is_metadata_line(line) {
                continue;
            }
            opening = false;
        }
        out.push_str(line);
    }
    out
}

/// A body without the language labels of its code blocks (the `python` of a fence opened
/// with three backticks and `python`, an AsciiDoc `[source,java]` line): what search reads
/// of a page. A docs page with ten Python examples does not say "Python" ten times, and in
/// a Python project's docs every page would hold the word. The fences and the code stay.
pub fn without_fence_labels(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        let text = line.trim_start();
        // A backtick fence's label holds no backtick: "```x``` in prose" is inline code.
        let fence = ['`', '~']
            .into_iter()
            .map(|mark| (mark, text.len() - text.trim_start_matches(mark).len()))
            .find(|&(mark, run)| run >= 3 && (mark == '~' || !text[run..].contains('`')));
        if let Some((_, run)) = fence {
            out.push_str(&line[..line.len() - text.len() + run]);
            out.push('\n');
        } else if is_source_block_line(text) {
            out.push_str("[source]\n");
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Whether a line is an AsciiDoc source block's attribute list (`[source,java]`,
/// `[source, python, linenums]`): comma-separated single words, not a bracketed sentence.
fn is_source_block_line(text: &str) -> bool {
    let Some(inner) = text
        .trim_end()
        .strip_prefix("[source,")
        .and_then(|rest| rest.strip_suffix(']'))
    else {
        return false;
    };
    inner
        .split(',')
        .all(|part| !part.trim().is_empty() && !part.trim().contains(char::is_whitespace))
}

fn lead(text: &str) -> usize {
    text.len() - text.trim_start().len()
}

/// A metadata key: one to three words of letters, emphasis marks around it allowed.
fn clean_key(key: &str) -> Option<String> {
    let key = key.trim().trim_matches(['*', '_']).trim();
    let words = key.split_whitespace().count();
    let letters = key
        .chars()
        .all(|c| c.is_alphabetic() || c == ' ' || c == '-');
    (words > 0 && words <= 3 && letters).then(|| key.to_lowercase())
}

/// What a typed link line names.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Named<'t> {
    /// A Markdown link's target, or a wikilink's note.
    Link(&'t Found),
    /// An ADR number written as text (`ADR-0009`).
    Adr(u32),
}

/// `Verb [title](target)`, `Verb [[Note]]` or `Verb ADR-0009` (a list item too), optionally
/// ending in `.`: the verb, lower-cased.
fn link_line<'f>(text: &str, found: &'f [Found]) -> Option<(String, Named<'f>)> {
    let trimmed = text.trim();
    let body = ["* ", "- ", "+ "]
        .iter()
        .find_map(|b| trimmed.strip_prefix(b))
        .unwrap_or(trimmed);
    let skipped = text.len() - text.trim_start().len() + (trimmed.len() - body.len());
    let (verb_end, named, rest) = match found.first() {
        Some(link) if found.len() == 1 => {
            let verb_end = link.start.checked_sub(skipped)?;
            (verb_end, Named::Link(link), &text[link.end..])
        }
        Some(_) => return None,
        None => {
            let (verb_end, number, len) = adr_reference(body)?;
            (verb_end, Named::Adr(number), &body[verb_end + len..])
        }
    };
    let verb = body.get(..verb_end)?.trim().trim_end_matches(':').trim();
    let tail = rest.trim();
    let words_only = verb.chars().all(|c| c.is_alphabetic() || c == ' ');
    (!verb.is_empty() && words_only && (tail.is_empty() || tail == "."))
        .then(|| (verb.to_lowercase(), named))
}

/// The first `ADR-0009` / `ADR 9` / `ADR0009` in a text: its offset, number and length.
fn adr_reference(text: &str) -> Option<(usize, u32, usize)> {
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(found) = lower[from..].find("adr") {
        let at = from + found;
        let rest = &lower[at + 3..];
        let gap = rest.len() - rest.trim_start_matches(['-', '_', ' ']).len();
        let digits = rest[gap..].bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && digits <= 6 {
            let number = rest[gap..gap + digits].parse().ok()?;
            return Some((at, number, 3 + gap + digits));
        }
        from = at + 3;
    }
    None
}

/// The relation a verb names.
fn verb_relation(verb: &str) -> Relation {
    match verb {
        "supersedes" | "supercedes" | "replaces" => Relation::Supersedes,
        "superseded by" | "superceded by" | "replaced by" => Relation::Link("superseded_by".into()),
        other => Relation::Link(other.replace(' ', "_").into()),
    }
}

/// Reads an ADR's metadata. `front` is its frontmatter and `status_line` the file line of
/// its `status:` key.
pub(super) fn read(
    id: &str,
    lines: &Lines,
    front: &Map<String, Value>,
    status_line: u32,
    resolver: &Resolver,
    warnings: &mut Vec<Warning>,
) -> Meta {
    let mut reader = Reader {
        meta: Meta {
            consumed: vec![false; lines.lines.len()],
            ..Meta::default()
        },
        id,
        resolver,
        warnings,
    };
    if let Some(value) = front.get("status").and_then(scalar) {
        let at = Location {
            path: String::new(),
            line: status_line,
            col: 1,
        };
        reader.status_value(&value, at, None);
    }
    reader.status_section(lines);
    reader.preamble(lines);
    let typed = lines.section(&["links", "more information"]);
    let start = typed.first().map_or(0, |l| index_of(lines, l));
    for (k, line) in typed.iter().enumerate() {
        reader.typed_line(start + k, line, Verbs::Any);
    }
    reader.meta
}

fn index_of(lines: &Lines, line: &Line) -> usize {
    lines
        .lines
        .iter()
        .position(|l| l.number == line.number)
        .unwrap_or(0)
}

/// Which verbs a line may carry to be a typed link line.
#[derive(Clone, Copy, PartialEq)]
enum Verbs {
    /// Any verb (`## Status`, `## Links`).
    Any,
    /// Only supersede/replace verbs (the preamble, where other links are plain).
    Succession,
}

struct Reader<'r, 'c> {
    meta: Meta,
    /// The ADR's id, for messages.
    id: &'r str,
    resolver: &'r Resolver<'c>,
    warnings: &'r mut Vec<Warning>,
}

impl Reader<'_, '_> {
    /// `## Status`: the first line that says something is the status; link lines are edges.
    fn status_section(&mut self, lines: &Lines) {
        let section = lines.section(&["status"]);
        let start = section.first().map_or(0, |l| index_of(lines, l));
        let mut first = true;
        for (k, line) in section.iter().enumerate() {
            let i = start + k;
            if line.text.trim().is_empty() {
                continue;
            }
            let typed = self.typed_line(i, line, Verbs::Any);
            if !first {
                continue;
            }
            first = false;
            let (value, offset) = match key_value(&line.text) {
                Some((key, value, offset)) if key == "status" => (value, offset),
                _ => (line.text.trim(), lead(&line.text)),
            };
            match typed {
                // A line that only links (`Supersedes [3](…)`) names no status, but
                // `Amended by [8](…)` is the word `amended`.
                Some(verb) => {
                    let word = verb.trim_end_matches(" by");
                    if Lifecycle::parse(word).is_some() {
                        self.set_status(word, line.at(offset));
                    }
                }
                None => self.status_value(value, line.at(offset), Some(i)),
            }
        }
    }

    /// Metadata lines and succession link lines before the first section.
    fn preamble(&mut self, lines: &Lines) {
        for (i, line) in lines.preamble().iter().enumerate() {
            if let Some((key, value, offset)) = key_value(&line.text) {
                match key.as_str() {
                    "status" => {
                        self.status_value(value, line.at(offset), Some(i));
                        continue;
                    }
                    "date" | "last updated" | "updated" => {
                        self.meta.date = newest_date(value).max(self.meta.date.take());
                    }
                    "tags" => self.meta.tags.extend(
                        value
                            .split([' ', ','])
                            .map(|t| t.trim_start_matches('#'))
                            .filter(|t| !t.is_empty())
                            .map(str::to_string),
                    ),
                    _ => {}
                }
            }
            self.typed_line(i, line, Verbs::Succession);
        }
    }

    /// A typed link line becomes its edge (or a warning); returns its verb.
    fn typed_line(&mut self, i: usize, line: &Line, verbs: Verbs) -> Option<String> {
        let found = inline_links(&line.text);
        let (verb, named) = link_line(&line.text, &found)?;
        let succession = ["supersede", "supercede", "replace"]
            .iter()
            .any(|v| verb.starts_with(v));
        if verbs == Verbs::Succession && !succession {
            return None;
        }
        self.meta.consumed[i] = true;
        let relation = verb_relation(&verb);
        let at = match named {
            Named::Link(link) => line.at(link.start),
            Named::Adr(_) => line.at(lead(&line.text)),
        };
        self.edge(relation, named, at, i);
        Some(verb)
    }

    /// A status value: its word, and the successor a `superseded by …` value names.
    fn status_value(&mut self, value: &str, at: Location, line: Option<usize>) {
        let lower = value.to_lowercase();
        let successor = ["superseded by", "superceded by", "replaced by"]
            .iter()
            .find_map(|verb| lower.find(verb).map(|k| k + verb.len()));
        if let Some(after) = successor {
            let rest = &value[after..];
            let found = inline_links(rest);
            let named = match found.first() {
                Some(link) => Some(Named::Link(link)),
                None => adr_reference(rest)
                    .or_else(|| bare_number(rest))
                    .map(|(_, n, _)| Named::Adr(n)),
            };
            if let Some(named) = named {
                if let Some(i) = line {
                    self.meta.consumed[i] = true;
                }
                let relation = Relation::Link("superseded_by".into());
                self.edge(relation, named, at.clone(), line.unwrap_or(0));
            }
        }
        if let Some(status) = Status::read(value, at) {
            if self.meta.status.is_none() || successor.is_some() {
                self.meta.status = Some(status);
            }
        }
    }

    fn set_status(&mut self, word: &str, at: Location) {
        if self.meta.status.is_none() {
            self.meta.status = Status::read(word, at);
        }
    }

    /// The edge a typed line names, or the warning for a missing target.
    fn edge(&mut self, relation: Relation, named: Named, at: Location, line: usize) {
        let resolved = match named {
            Named::Link(link) if link.wiki => self
                .resolver
                .wikilink(&link.target)
                .unwrap_or_else(|| Resolved::Missing(link.target.clone())),
            Named::Link(link) => self.resolver.path(&link.target),
            Named::Adr(number) => self.resolver.adr(number),
        };
        let superseded = relation.name() == "superseded_by";
        match resolved {
            Resolved::Node(target, _) => self.meta.links.push(Placed {
                line,
                link: Link { relation, target },
            }),
            Resolved::Missing(path) if superseded => self.warnings.push(Warning::new(
                Concern::SupersededByMissing,
                at,
                format!(
                    "{} is superseded by a missing ADR: {path} does not exist",
                    self.id
                ),
            )),
            Resolved::Missing(path) => self.warnings.push(Warning::new(
                Concern::MissingFile(path.clone()),
                at,
                format!("broken link {path}: no such file"),
            )),
            Resolved::NotNode => {}
        }
        if superseded {
            let at = self.meta.status.as_ref().map(|s| s.at.clone());
            self.meta.status = Some(Status {
                word: "superseded".into(),
                at: at.unwrap_or_default(),
            });
        }
    }
}

/// A bare ADR number after `superseded by` (`0009`, `9.`): offset, number, length.
fn bare_number(text: &str) -> Option<(usize, u32, usize)> {
    let at = lead(text);
    let digits = text[at..].bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && digits <= 4)
        .then(|| text[at..at + digits].parse().ok())
        .flatten()
        .map(|n| (at, n, digits))
}

#[cfg(test)]
mod tests {

    #[test]
    fn search_reads_a_record_without_its_opening_metadata() {
        let body = "# 8. Use ISO dates\n\nDate: 2017-02-21\n- **Deciders:** Ana\n\n## Status\n\nAccepted\n\nDate: kept, after prose\n";
        assert_eq!(
            without_opening_metadata(body),
            "# 8. Use ISO dates\n\n\n## Status\n\nAccepted\n\nDate: kept, after prose\n"
        );
        assert_eq!(without_opening_metadata("Plain text.\n"), "Plain text.\n");
    }

    #[test]
    fn code_block_labels_are_not_searched() {
        let page = "Run it:\n\n```python title=\"x.py\"\nimport os\n```\n\n  ~~~~ rust\nfn main() {}\n~~~~\n[source,java]\n----\nclass A {}\n----\nIn ```python``` prose stays.\n```inline``` code stays\n[source, see the RFC]\n[source, python, linenums]\r\n```";
        assert_eq!(
            without_fence_labels(page),
            "Run it:\n\n```\nimport os\n```\n\n  ~~~~\nfn main() {}\n~~~~\n[source]\n----\nclass A {}\n----\nIn ```python``` prose stays.\n```inline``` code stays\n[source, see the RFC]\n[source]\n```\n"
        );
        assert!(is_metadata_line("| Status | Accepted |"));
        assert!(is_metadata_line("|---|:--|"));
        assert!(!is_metadata_line("Note:"));
    }
    use super::*;

    #[test]
    fn metadata_lines_in_every_common_form() {
        for (line, value) in [
            ("Status: Accepted", "Accepted"),
            (
                "- **Status:** Superseded by [ADR-0004](0004-x.md)",
                "Superseded by [ADR-0004](0004-x.md)",
            ),
            ("**Status:** Accepted", "Accepted"),
            ("* **Status**: Proposed", "Proposed"),
            ("| Status | Deprecated |", "Deprecated"),
            (
                "| **Status** | [Deprecated](https://x.y) |",
                "[Deprecated](https://x.y)",
            ),
        ] {
            let (key, found, offset) = key_value(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!((key.as_str(), found), ("status", value), "{line}");
            assert!(line[offset..].starts_with(value), "{line}: {offset}");
        }
        assert_eq!(
            key_value("See: the notes"),
            Some(("see".into(), "the notes", 5))
        );
        assert_eq!(key_value("https://example.com"), None);
    }

    #[test]
    fn status_words_are_normal() {
        let word = |v: &str| Status::read(v, Location::default()).map(|s| s.word);
        assert_eq!(word("**Accepted** ✅").as_deref(), Some("accepted"));
        assert_eq!(
            word("[Deprecated](https://x.y)").as_deref(),
            Some("deprecated")
        );
        assert_eq!(
            word("Superceded by ADR-0009").as_deref(),
            Some("superseded")
        );
        assert_eq!(word("In Review").as_deref(), Some("in review"));
        assert_eq!(word("No longer relevant.").as_deref(), Some("no longer"));
        assert_eq!(word("No").as_deref(), Some("no"));
        assert_eq!(word("✅ Accepted").as_deref(), Some("accepted"));
        assert_eq!(word("—"), None);
    }

    #[test]
    fn link_lines_name_links_and_adr_numbers() {
        let line = "Superseded by [5. Use X](0005-use-x.md).";
        let found = inline_links(line);
        let (verb, named) = link_line(line, &found).unwrap();
        assert_eq!(verb, "superseded by");
        assert!(matches!(named, Named::Link(l) if l.target == "0005-use-x.md"));
        let (verb, named) = link_line("- Supersedes ADR-0003", &[]).unwrap();
        assert_eq!((verb.as_str(), named), ("supersedes", Named::Adr(3)));
        assert_eq!(
            link_line(
                "We chose [X](x.md) because",
                &inline_links("We chose [X](x.md) because")
            ),
            None
        );
        assert_eq!(adr_reference("see adr 12 and ADR-0013"), Some((4, 12, 6)));
    }
}
