//! Parsing one knowledge-base Markdown file: an ADR (Nygard as adr-tools writes it, MADR
//! 2–4, log4brains), a doc, an agent instruction file or an Obsidian note. Kinds come from
//! the path and the document's shape; edges from relative links, wikilinks and ADR status
//! lines (see `docs/sources.md`).

use serde_json::{Map, Value};

use super::kb::Catalog;
use super::mdtext::{deslug, imports, inline_links, inline_tags, newest_date, percent_decode};
use super::{frontmatter, Problem};
use brief_model::{
    ArtifactFields, Content, Kind, Link, Location, Node, Origin, RejectedAlternative, Relation,
};

/// Parses the text of one knowledge-base file (`rel` relative to the root). Returns the
/// node and the warnings met (broken links, an ADR superseded by a missing one).
pub fn parse(rel: &str, text: &str, catalog: &Catalog) -> (Node, Vec<Problem>) {
    let mut problems = Vec::new();
    let (map, body, body_line) = front(rel, text, &mut problems);
    let lines = Lines::new(body, body_line);
    let is_adr = catalog.layout.is_adr(rel);
    let id = super::kb::id_for(&catalog.layout, rel);
    let name = rel.rsplit('/').next().unwrap_or(rel);
    // Agent files and rules with globs are norms; `rules` says when each applies.
    let rule = super::rules::RuleFile::of(rel);
    let kind = if is_adr {
        Kind::Decision
    } else if rule.is_some() {
        Kind::Norm
    } else if let Some(kind) = map
        .get("type")
        .or_else(|| map.get("kind"))
        .and_then(Value::as_str)
    {
        Kind::parse(kind)
    } else {
        Kind::parse("note")
    };
    let title = map
        .get("title")
        .and_then(scalar)
        .or_else(|| {
            lines
                .all()
                .find_map(|l| l.text.strip_prefix("# "))
                .map(|t| strip_number(t.trim()).to_string())
        })
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| id.clone());

    let mut links: Vec<Link> = Vec::new();
    let mut status = map.get("status").and_then(scalar).map(|s| s.to_lowercase());
    let mut date = ["date", "created"]
        .iter()
        .filter_map(|k| map.get(*k).and_then(scalar))
        .find_map(|v| newest_date(&v));
    let mut tags = list(map.get("tags"));
    // Lines consumed as status link lines: not also plain links.
    let mut consumed = std::collections::BTreeSet::new();

    let link_line = |line: &Line, links: &mut Vec<Link>, problems: &mut Vec<Problem>| {
        let (verb, target) = parse_link_line(line.text)?;
        let lower = verb.to_lowercase();
        let relation = match lower.as_str() {
            "supersedes" | "supercedes" | "replaces" => Relation::Supersedes,
            "superseded by" | "superceded by" | "replaced by" => {
                Relation::Link("superseded_by".into())
            }
            other => Relation::Link(other.replace(' ', "_").into()),
        };
        match resolve_path(rel, target, catalog) {
            Resolved::Node(id, _) => links.push(Link {
                relation,
                target: id,
            }),
            Resolved::Missing(path) => problems.push(Problem::warning(
                line.at(line.text.find('[').unwrap_or(0)),
                if relation.name() == "superseded_by" {
                    format!("{id} is superseded by a missing ADR: {path} does not exist")
                } else {
                    format!("broken link {target}: no such file")
                },
            )),
            Resolved::NotNode => {}
        }
        Some(lower)
    };

    if is_adr {
        for line in lines.section(&["status"]) {
            match link_line(&line, &mut links, &mut problems) {
                Some(verb) => {
                    consumed.insert(line.number);
                    if (verb.starts_with("supersed") || verb.starts_with("superced"))
                        && verb.ends_with(" by")
                    {
                        status = Some("superseded".into());
                    }
                    if status.is_none() {
                        status = Some(verb.trim_end_matches(" by").to_string());
                    }
                }
                None if status.is_none() && !line.text.trim().is_empty() => {
                    let word = line.text.trim().trim_end_matches('.');
                    status = Some(word.to_lowercase());
                }
                None => {}
            }
        }
        let preamble: Vec<Line> = lines
            .all()
            .take_while(|l| !l.text.starts_with("## "))
            .filter(|l| {
                parse_link_line(l.text).is_some_and(|(verb, _)| {
                    let verb = verb.to_lowercase();
                    verb.starts_with("replace")
                        || verb.starts_with("supersede")
                        || verb.starts_with("supercede")
                })
            })
            .collect();
        for line in preamble
            .iter()
            .cloned()
            .chain(lines.section(&["links", "more information"]))
        {
            if link_line(&line, &mut links, &mut problems).is_some() {
                consumed.insert(line.number);
            }
        }
        // MADR 2 and log4brains keep metadata in bullets at the top.
        for line in lines.all().take_while(|l| !l.text.starts_with("## ")) {
            let Some(rest) = line
                .text
                .strip_prefix("* ")
                .or(line.text.strip_prefix("- "))
            else {
                continue;
            };
            let Some((key, value)) = rest.split_once(':') else {
                continue;
            };
            let value = value.trim();
            match key.trim().to_lowercase().as_str() {
                "status" => {
                    status = Some(value.to_lowercase());
                    consumed.insert(line.number);
                    superseded_value(rel, &id, value, &line, catalog, &mut links, &mut problems);
                }
                "date" => date = newest_date(value).or(date),
                "tags" => tags.extend(
                    value
                        .split([' ', ','])
                        .filter(|t| !t.is_empty())
                        .map(str::to_string),
                ),
                _ => {}
            }
        }
        if let Some(value) = map.get("status").and_then(scalar) {
            let line = Line {
                number: 1,
                text: "",
            };
            superseded_value(rel, &id, &value, &line, catalog, &mut links, &mut problems);
        }
        if let Some(s) = &status {
            if s.starts_with("superseded") || s.starts_with("superceded") {
                status = Some("superseded".into());
            }
        }
        if status.is_none() && rel.split('/').next() != Some(".") && is_log4brains(rel) {
            status = Some("accepted".into());
        }
        if date.is_none() {
            date = lines
                .all()
                .find_map(|l| l.text.strip_prefix("Date:").and_then(newest_date));
        }
    }
    if date.is_none() {
        // A daily note is named by its date.
        date = newest_date(name.trim_end_matches(".md")).filter(|_| name.len() == 13);
    }

    // Links in the text: relative Markdown links and wikilinks (embeds marked).
    for line in lines.all() {
        if consumed.contains(&line.number) {
            continue;
        }
        for found in inline_links(line.text) {
            let at = line.at(found.start);
            let (base, heading) = match found.target.split_once('#') {
                Some((b, h)) => (b, Some(h)),
                None => (found.target.as_str(), None),
            };
            let resolved = if found.wiki {
                if base.is_empty() {
                    continue;
                }
                match catalog.wikilink(rel, base) {
                    Some(path) => Resolved::Node(
                        catalog.id_of_path(path).unwrap_or(path).to_string(),
                        heading.map(str::to_string),
                    ),
                    None if has_other_extension(base) => Resolved::NotNode,
                    None => {
                        problems.push(Problem::warning(
                            at,
                            format!("broken wikilink [[{base}]]: no note named \"{base}\""),
                        ));
                        continue;
                    }
                }
            } else {
                resolve_path(rel, &found.target, catalog)
            };
            match resolved {
                Resolved::Node(target, heading) => {
                    let base = if found.embed { "embeds" } else { "links" };
                    let heading = heading.or(heading_of(&found.target));
                    let name = match heading {
                        Some(h) if !h.is_empty() => format!("{base}#{}", deslug(&h)),
                        _ => base.to_string(),
                    };
                    if target != id {
                        links.push(Link {
                            relation: Relation::Link(name.into()),
                            target,
                        });
                    }
                }
                Resolved::Missing(_) => problems.push(Problem::warning(
                    at,
                    format!("broken link {}: no such file", found.target),
                )),
                Resolved::NotNode => {}
            }
        }
    }
    // `@path` imports of CLAUDE.md.
    if name == "CLAUDE.md" {
        for line in lines.all() {
            for (col, word) in imports(line.text) {
                if let Some(id) = catalog.id_of_path(word) {
                    links.push(Link {
                        relation: Relation::Link("imports".into()),
                        target: id.to_string(),
                    });
                    let _ = col;
                }
            }
        }
    }

    for line in lines.all() {
        if line.text.starts_with('#') && line.text.trim_start_matches('#').starts_with(' ') {
            continue;
        }
        tags.extend(inline_tags(line.text));
    }
    let mut seen = std::collections::BTreeSet::new();
    tags.retain(|t| seen.insert(t.to_lowercase()));

    let (scope, applies) = match &rule {
        Some(rule) => (rule.written_globs(&map), rule.applies(&map)),
        None => (Vec::new(), brief_model::Applies::Linked),
    };
    let mut fields = ArtifactFields {
        description: map
            .get("description")
            .and_then(scalar)
            .filter(|d| !d.is_empty()),
        tags,
        scope,
        body: body.to_string(),
        body_line,
        applies,
        ..ArtifactFields::default()
    };
    for (key, value) in &map {
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
    if kind == Kind::Decision {
        fields.rationale = lines
            .section_text(&["context", "context and problem statement"])
            .filter(|t| !t.is_empty());
        fields.rejected_alternatives = rejected(&lines);
    }
    let node = Node {
        id,
        kind,
        title,
        status,
        origin: Origin::Markdown,
        content: Content::Artifact(fields),
        links,
        date,
        location: Location::file(rel),
    };
    for problem in &mut problems {
        problem.location.path = rel.to_string();
    }
    (node, problems)
}

fn is_log4brains(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.len() > 9 && name[..8].bytes().all(|b| b.is_ascii_digit()) && name.as_bytes()[8] == b'-'
}

/// A `superseded by …` status value: a link, or an ADR id written out (MADR 4).
fn superseded_value(
    rel: &str,
    id: &str,
    value: &str,
    line: &Line,
    catalog: &Catalog,
    links: &mut Vec<Link>,
    problems: &mut Vec<Problem>,
) {
    let lower = value.to_lowercase();
    let Some(rest) = lower
        .strip_prefix("superseded by")
        .or(lower.strip_prefix("superceded by"))
    else {
        return;
    };
    let original = &value[value.len() - rest.len()..];
    if let Some(found) = inline_links(original).into_iter().next() {
        match resolve_path(rel, &found.target, catalog) {
            Resolved::Node(id, _) => links.push(Link {
                relation: Relation::Link("superseded_by".into()),
                target: id,
            }),
            Resolved::Missing(path) => problems.push(Problem::warning(
                line.at(0),
                format!("{id} is superseded by a missing ADR: {path} does not exist"),
            )),
            Resolved::NotNode => {}
        }
    } else {
        let word = original.trim().trim_end_matches('.');
        let digits: String = word
            .to_ascii_uppercase()
            .trim_start_matches("ADR-")
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if let Ok(n) = digits.parse::<u32>() {
            links.push(Link {
                relation: Relation::Link("superseded_by".into()),
                target: format!("ADR-{n:04}"),
            });
        }
    }
}

/// The frontmatter (YAML, or Cursor's `key: value` lines for `.mdc`), the body and its line.
fn front<'t>(
    rel: &str,
    text: &'t str,
    problems: &mut Vec<Problem>,
) -> (Map<String, Value>, &'t str, u32) {
    let Ok(split) = frontmatter::split(rel, text) else {
        return (Map::new(), text, 1);
    };
    let Some(yaml) = split.yaml else {
        return (Map::new(), split.body, split.body_line);
    };
    match frontmatter::parse(rel, yaml, split.yaml_line) {
        Ok(map) => (map, split.body, split.body_line),
        Err(problem) => {
            // Cursor writes `globs: **/*.ts,**/*.tsx` unquoted, which is not YAML: read
            // one `key: value` per line instead. Elsewhere the file is read without it.
            if !rel.ends_with(".mdc") {
                problems.push(Problem::warning(
                    problem.location,
                    format!("frontmatter ignored: {}", problem.message),
                ));
            }
            (
                super::rules::lenient_front(yaml),
                split.body,
                split.body_line,
            )
        }
    }
}

/// The body's lines with their file line numbers; code (fenced blocks and spans) blanked.
struct Lines<'t> {
    lines: Vec<Line<'t>>,
}

#[derive(Clone)]
struct Line<'t> {
    number: u32,
    /// The text, or empty in a fence.
    text: &'t str,
}

impl Line<'_> {
    /// The location of a byte offset, its column counted in characters.
    fn at(&self, byte: usize) -> Location {
        let byte = (0..=byte.min(self.text.len()))
            .rev()
            .find(|&b| self.text.is_char_boundary(b))
            .unwrap_or(0);
        let col = self.text[..byte].chars().count() as u32 + 1;
        Location {
            path: String::new(),
            line: self.number,
            col,
        }
    }
}

impl<'t> Lines<'t> {
    fn new(body: &'t str, first: u32) -> Lines<'t> {
        let mut lines = Vec::new();
        let mut fence: Option<&str> = None;
        for (i, raw) in body.lines().enumerate() {
            let trimmed = raw.trim_start();
            let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
            let text = match (fence, marker) {
                (Some(open), Some(m)) if m == open => {
                    fence = None;
                    ""
                }
                (Some(_), _) => "",
                (None, Some(m)) => {
                    fence = Some(m);
                    ""
                }
                (None, None) => raw,
            };
            lines.push(Line {
                number: first + i as u32,
                text,
            });
        }
        Lines { lines }
    }

    fn all(&self) -> impl Iterator<Item = Line<'t>> + '_ {
        self.lines.iter().cloned()
    }

    /// The lines of the first `## ` section with one of these names (lower case).
    fn section(&self, names: &[&str]) -> Vec<Line<'t>> {
        let mut out = Vec::new();
        let mut inside = false;
        for line in &self.lines {
            if let Some(heading) = line.text.strip_prefix("## ") {
                if inside {
                    break;
                }
                inside = names.contains(&heading.trim().to_lowercase().as_str());
                continue;
            }
            if inside {
                out.push(line.clone());
            }
        }
        out
    }

    fn section_text(&self, names: &[&str]) -> Option<String> {
        let lines = self.section(names);
        (!lines.is_empty()).then(|| {
            lines
                .iter()
                .map(|l| l.text)
                .collect::<Vec<_>>()
                .join("\n")
                .trim()
                .to_string()
        })
    }
}

/// `Verb [title](target)` (a list item too), optionally ending in `.`: the verb and target.
fn parse_link_line(text: &str) -> Option<(&str, &str)> {
    let text = text.trim();
    let text = text
        .strip_prefix("* ")
        .or(text.strip_prefix("- "))
        .unwrap_or(text);
    let open = text.find('[')?;
    let verb = text[..open].trim().trim_end_matches(':').trim();
    if verb.is_empty() || !verb.chars().all(|c| c.is_alphabetic() || c == ' ') {
        return None;
    }
    let rest = &text[open..];
    let close = rest.find("](")?;
    let end = rest[close..].find(')')? + close;
    let tail = rest[end + 1..].trim();
    if !(tail.is_empty() || tail == ".") {
        return None;
    }
    Some((verb, &rest[close + 2..end]))
}

enum Resolved {
    /// A node: its id, and the heading linked to.
    Node(String, Option<String>),
    /// A local Markdown file that does not exist (the path).
    Missing(String),
    /// External, a folder, or a file that is not a node.
    NotNode,
}

fn resolve_path(from: &str, target: &str, catalog: &Catalog) -> Resolved {
    let target = target.trim();
    if target.is_empty()
        || target.starts_with('#')
        || target.contains("://")
        || target.starts_with("mailto:")
    {
        return Resolved::NotNode;
    }
    let (path, heading) = match target.split_once('#') {
        Some((p, h)) => (p, Some(h.to_string())),
        None => (target, None),
    };
    let path = percent_decode(path);
    let dir = from.rsplit_once('/').map_or("", |(d, _)| d);
    let joined = if let Some(abs) = path.strip_prefix('/') {
        abs.to_string()
    } else if dir.is_empty() {
        path.clone()
    } else {
        format!("{dir}/{path}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
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
    if let Some(id) = catalog.id_of_path(&rel) {
        return Resolved::Node(id.to_string(), heading.map(|h| deslug(&h)));
    }
    let lower = rel.to_ascii_lowercase();
    if lower.ends_with(".md") || lower.ends_with(".mdc") {
        // A file in a hidden folder is another source's (`.contextia/`): its stem is its id.
        if rel.split('/').any(|p| p.starts_with('.')) {
            let stem = rel.rsplit('/').next().unwrap_or(&rel);
            let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
            return Resolved::Node(stem.to_string(), heading.map(|h| deslug(&h)));
        }
        return Resolved::Missing(rel);
    }
    Resolved::NotNode
}

fn has_other_extension(name: &str) -> bool {
    let last = name.rsplit('/').next().unwrap_or(name);
    last.rsplit_once('.').is_some_and(|(_, ext)| {
        !ext.eq_ignore_ascii_case("md") && ext.len() <= 4 && !ext.contains(' ')
    })
}

fn heading_of(target: &str) -> Option<String> {
    target.split_once('#').map(|(_, h)| deslug(h))
}

/// MADR: every considered option but the chosen one, with its `Bad, because` lines.
fn rejected(lines: &Lines) -> Vec<RejectedAlternative> {
    let options: Vec<String> = lines
        .section(&["considered options"])
        .iter()
        .filter_map(|l| {
            let t = l.text.trim();
            t.strip_prefix("* ").or(t.strip_prefix("- ")).map(str::trim)
        })
        .map(option_title)
        .collect();
    if options.is_empty() {
        return Vec::new();
    }
    let outcome = lines
        .section_text(&["decision outcome"])
        .unwrap_or_default();
    let chosen = outcome.split_once("Chosen option:").and_then(|(_, rest)| {
        let rest = rest.trim().trim_start_matches(['"', '“']);
        rest.find(['"', '”']).map(|end| option_title(&rest[..end]))
    });
    let pros = lines.section(&["pros and cons of the options"]);
    options
        .into_iter()
        .filter(|o| chosen.as_deref().is_none_or(|c| !same_option(c, o)))
        .map(|title| {
            let mut inside = false;
            let mut reasons = Vec::new();
            for line in &pros {
                if let Some(h) = line.text.strip_prefix("### ") {
                    inside = same_option(&option_title(h.trim()), &title);
                    continue;
                }
                let t = line.text.trim();
                let t = t.strip_prefix("* ").or(t.strip_prefix("- ")).unwrap_or(t);
                if inside {
                    if let Some(r) = t.strip_prefix("Bad, because") {
                        reasons.push(r.trim().to_string());
                    }
                }
            }
            RejectedAlternative {
                title,
                reason: reasons.join("; "),
            }
        })
        .collect()
}

/// An option's title without link markup or a ` – description`.
fn option_title(text: &str) -> String {
    let mut t = text.trim().to_string();
    if let (Some(open), Some(close)) = (t.find('['), t.find("](")) {
        if open < close {
            let end = t[close..].find(')').map_or(t.len(), |e| close + e + 1);
            let label = t[open + 1..close].to_string();
            t.replace_range(open..end, &label);
        }
    }
    let t = t.split(" – ").next().unwrap_or(&t).to_string();
    t.trim().trim_matches(['"', '“', '”']).to_string()
}

fn same_option(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// `7. Title` → `Title` (adr-tools' numbered headings).
fn strip_number(title: &str) -> &str {
    let rest = title.trim_start_matches(|c: char| c.is_ascii_digit());
    match rest.strip_prefix(". ") {
        Some(t) if rest.len() < title.len() => t.trim(),
        _ => title,
    }
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
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

fn one_line(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::Array(items) => Some(
            items
                .iter()
                .map(|i| scalar(i).unwrap_or_else(|| i.to_string()))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        Value::Object(_) => Some(value.to_string()),
        other => scalar(other).filter(|s| !s.is_empty()),
    }
}
