//! `spec.md`: the feature itself, its user stories, functional requirements, success criteria
//! and key entities.

use brief_model::{Kind, Node, Relation};

use super::{feature_node, link_mentions, FeatureRef, SpecHead};
use crate::specdoc::{self, Doc};

pub(super) fn parse(rel: &str, text: &str, feature: &FeatureRef) -> Vec<Node> {
    let (doc, _) = body_doc(rel, text);
    let mut used = vec![false; doc.lines.len()];
    let mut nodes = Vec::new();
    stories(rel, &doc, feature, &mut used, &mut nodes);
    if !feature.has("data-model.md") {
        entities(rel, &doc, feature, &mut used, &mut nodes);
    }
    items(rel, &doc, feature, &mut used, &mut nodes);
    let mut head = head(&doc);
    if let Some((i, _)) = doc.title() {
        used[i] = true;
    }
    head.body = doc.rest(&used);
    let mut feature_node = feature_node(rel, feature, Some(head));
    specdoc::link_all(
        &mut feature_node,
        Relation::Contains,
        nodes.iter().map(|n| n.id.clone()),
    );
    nodes.push(feature_node);
    nodes
}

/// The document after any frontmatter, and the line its body starts at.
pub(super) fn body_doc<'t>(rel: &str, text: &'t str) -> (Doc<'t>, u32) {
    match crate::frontmatter::split(rel, text) {
        Ok(split) => (Doc::new(split.body, split.body_line), split.body_line),
        Err(_) => (Doc::new(text, 1), 1),
    }
}

/// Title, status and date from the heading and the `**Label**: value` lines before the first
/// section.
fn head(doc: &Doc) -> SpecHead {
    let mut head = SpecHead {
        line: 1,
        ..SpecHead::default()
    };
    if let Some((i, title)) = doc.title() {
        head.title = strip_prefix_label(title);
        head.line = doc.lines[i].no;
    }
    for line in &doc.lines {
        if matches!(line.heading, Some(h) if h.level >= 2) {
            break;
        }
        let Some((name, value)) = specdoc::label(line.text) else {
            continue;
        };
        match name.to_lowercase().as_str() {
            "status" | "状態" | "ステータス" if !value.is_empty() => {
                head.status = Some(specdoc::plain(value).to_lowercase());
            }
            "created" | "date" | "作成日" => head.date = specdoc::date_in(value),
            _ => {}
        }
    }
    head
}

/// `Feature Specification: Payments` → `Payments` (any `…Specification…:` lead-in).
pub(super) fn strip_prefix_label(title: &str) -> String {
    let plain = specdoc::plain(title);
    if let Some((lead, rest)) = plain.split_once([':', '：']) {
        let lead = lead.to_lowercase();
        if (lead.contains("spec")
            || lead.contains("plan")
            || lead.contains("tasks")
            || lead.contains("research")
            || lead.contains("仕様")
            || lead.contains("計画")
            || lead.contains("タスク")
            || lead.contains("model"))
            && !rest.trim().is_empty()
        {
            return rest.trim().to_string();
        }
    }
    plain
}

/// User story sections: `User Story 2 - Title (Priority: P2)`, with a hyphen, an en or em
/// dash or a colon, `US2: Title`, or `ユーザーストーリー 2 - …` (`優先度: P2`).
fn stories(rel: &str, doc: &Doc, feature: &FeatureRef, used: &mut [bool], out: &mut Vec<Node>) {
    for (i, line) in doc.lines.iter().enumerate() {
        let Some(h) = line.heading.filter(|h| h.level >= 2) else {
            continue;
        };
        let Some(story) = story_heading(h.text) else {
            continue;
        };
        let end = doc.end(i);
        let body = doc.text(i + 1, end);
        let title = if story.title.is_empty() {
            format!("User Story {}", story.number)
        } else {
            story.title
        };
        let mut node = specdoc::node(
            rel,
            line.no,
            feature.id(&format!("US{}", story.number)),
            Kind::parse("story"),
            title,
            body.clone(),
        );
        if let Some(priority) = story.priority {
            specdoc::extra(&mut node, "priority", priority);
        }
        let scenarios = scenario_count(&body);
        if scenarios > 0 {
            specdoc::extra(&mut node, "acceptance scenarios", scenarios.to_string());
        }
        link_mentions(&mut node, &body, feature);
        used[i..end].iter_mut().for_each(|u| *u = true);
        out.push(node);
    }
}

/// A story heading read: number, title, priority.
#[derive(Debug, PartialEq)]
pub(super) struct StoryHeading {
    pub number: u32,
    pub title: String,
    pub priority: Option<String>,
}

pub(super) fn story_heading(text: &str) -> Option<StoryHeading> {
    let plain = specdoc::plain(text);
    let lower = plain.to_lowercase();
    let after = if let Some(rest) = plain.strip_prefix("US") {
        rest.trim_start_matches('-')
    } else {
        let leads = [
            "user story",
            "ユーザーストーリー",
            "ユーザストーリー",
            "用户故事",
            "story",
        ];
        let (at, lead) = leads
            .iter()
            .find_map(|lead| lower.find(lead).map(|at| (at, *lead)))?;
        // Only a heading that starts with the lead (after numbering) is a story.
        if !specdoc::unnumbered(&lower[..at]).trim().is_empty() {
            return None;
        }
        plain.get(at + lead.len()..)?
    };
    let after = after.trim_start();
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    let number: u32 = after[..digits].parse().ok()?;
    let rest = after[digits..].trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '-' | '–' | '—' | ':' | '：' | '.' | ')')
    });
    let (title, priority) = split_priority(rest);
    Some(StoryHeading {
        number,
        title,
        priority,
    })
}

/// `Title (Priority: P1)`, `Title [P1]`, `Title (優先度: P1)` → the title and `P1`.
fn split_priority(text: &str) -> (String, Option<String>) {
    for (open, close) in [('(', ')'), ('[', ']'), ('（', '）')] {
        if let Some(at) = text.rfind(open) {
            let inner = &text[at + open.len_utf8()..];
            let inner = inner.split(close).next().unwrap_or(inner);
            let priority = specdoc::words(inner)
                .find(|w| w.len() == 2 && w.starts_with('P') && w.as_bytes()[1].is_ascii_digit());
            if let Some(priority) = priority {
                let title = text[..at].trim().trim_end_matches(['-', '–', '—']).trim();
                return (title.to_string(), Some(priority.to_string()));
            }
        }
    }
    (text.trim().to_string(), None)
}

/// List items in a story's body that read `Given … When … Then` (an item runs over its
/// continuation lines).
fn scenario_count(body: &str) -> usize {
    let mut count = 0;
    let mut current = String::new();
    let mut close = |text: &mut String| {
        let lower = text.to_lowercase();
        if lower.contains("given") && lower.contains("then") {
            count += 1;
        }
        text.clear();
    };
    for line in body.lines() {
        if specdoc::list_item(line).is_some() {
            close(&mut current);
        }
        current.push_str(line);
        current.push('\n');
    }
    close(&mut current);
    count
}

/// Key entities (`- **Invoice**: …` under a `Key Entities` heading), when the feature has no
/// data-model.md to hold them.
fn entities(rel: &str, doc: &Doc, feature: &FeatureRef, used: &mut [bool], out: &mut Vec<Node>) {
    for (i, line) in doc.lines.iter().enumerate() {
        let Some(h) = line.heading else {
            continue;
        };
        let lower = h.text.to_lowercase();
        if !(lower.contains("entities") || lower.contains("エンティティ")) {
            continue;
        }
        let end = doc.end(i);
        for (at, entry) in list_blocks(doc, i + 1, end) {
            let item = doc.lines[at].text;
            let Some(rest) = specdoc::list_item(item) else {
                continue;
            };
            let Some((name, _)) = entity_name(rest) else {
                continue;
            };
            let text = doc.text(at, entry);
            let body = text
                .trim_start()
                .trim_start_matches(['-', '*', '+'])
                .trim()
                .to_string();
            let mut node = specdoc::node(
                rel,
                doc.lines[at].no,
                feature.id(&format!("entity/{}", entity_key(&name))),
                Kind::parse("entity"),
                name,
                body.clone(),
            );
            link_mentions(&mut node, &body, feature);
            used[at..entry].iter_mut().for_each(|u| *u = true);
            out.push(node);
        }
    }
}

/// `**Invoice**: …`, `**Invoice** (…) - …`, `Invoice: …`: the name and what follows.
pub(super) fn entity_name(item: &str) -> Option<(String, &str)> {
    let t = item.trim();
    if let Some(rest) = t.strip_prefix("**") {
        let close = rest.find("**")?;
        let name = specdoc::plain(&rest[..close]);
        return (!name.is_empty()).then_some((name, &rest[close + 2..]));
    }
    let colon = t.find([':', '：'])?;
    let name = specdoc::plain(&t[..colon]);
    (!name.is_empty() && name.split_whitespace().count() <= 4).then_some((name, &t[colon..]))
}

/// An entity's name as an id part: words joined by `-`, other punctuation dropped.
pub(super) fn entity_key(name: &str) -> String {
    name.split_whitespace()
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// The list items of lines `from..to`: each item's first line and the line after its last
/// (continuation lines and nested items belong to it).
pub(super) fn list_blocks(doc: &Doc, from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = from;
    while i < to {
        let line = &doc.lines[i];
        if !line.code && specdoc::list_item(line.text).is_some() {
            let end = doc.item_end(i, to);
            out.push((i, end));
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// Requirements (`FR-001`, `FR-001a`, `NFR-2`) and success criteria (`SC-001`): list items
/// (`- **FR-001**: …`, `* **FR-001 (Name)**: …`, `- FR-001: …`) and table rows
/// (`| FR-001 | … |`) anywhere outside the stories.
fn items(rel: &str, doc: &Doc, feature: &FeatureRef, used: &mut [bool], out: &mut Vec<Node>) {
    let mut i = 0;
    while i < doc.lines.len() {
        let line = &doc.lines[i];
        if used[i] || line.code {
            i += 1;
            continue;
        }
        let item = specdoc::list_item(line.text).or_else(|| {
            line.text
                .trim_start()
                .starts_with("**")
                .then_some(line.text)
        });
        if let Some(rest) = item {
            if let Some(found) = item_head(rest) {
                let end = doc.item_end(i, doc.lines.len());
                let more = doc.text(i + 1, end);
                let body = join(found.text, &more);
                out.push(item_node(rel, line.no, feature, &found, body));
                used[i..end].iter_mut().for_each(|u| *u = true);
                i = end;
                continue;
            }
        } else if let Some(found) = table_row(line.text) {
            let body = found.text.to_string();
            out.push(item_node(rel, line.no, feature, &found, body));
            used[i] = true;
        }
        i += 1;
    }
}

fn join(first: &str, more: &str) -> String {
    match (first.trim().is_empty(), more.trim().is_empty()) {
        (_, true) => first.trim().to_string(),
        (true, false) => more.to_string(),
        (false, false) => format!("{}\n{more}", first.trim()),
    }
}

fn item_node(rel: &str, line: u32, feature: &FeatureRef, found: &ItemHead, body: String) -> Node {
    let kind = if found.id.starts_with("SC-") {
        "criterion"
    } else {
        "requirement"
    };
    let title = match &found.name {
        Some(name) => name.clone(),
        None if !body.trim().is_empty() => specdoc::short(&body),
        None => found.id.to_string(),
    };
    let mut node = specdoc::node(
        rel,
        line,
        feature.id(found.id),
        Kind::parse(kind),
        title,
        body.clone(),
    );
    link_mentions(&mut node, &body, feature);
    node
}

/// An item's id, optional name and text.
struct ItemHead<'t> {
    id: &'t str,
    name: Option<String>,
    text: &'t str,
}

/// `**FR-001**: text`, `**FR-001 (Name)**: text`, `FR-001: text`, `**FR-001:** text`.
fn item_head(item: &str) -> Option<ItemHead<'_>> {
    let t = item.trim_start().trim_start_matches('*').trim_start();
    let len = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(t.len());
    let id = &t[..len];
    if !is_requirement_or_criterion(id) {
        return None;
    }
    let mut rest = t[len..].trim_start();
    let mut name = None;
    if let Some(inner) = rest.strip_prefix('(') {
        let close = inner.find(')')?;
        name = Some(specdoc::plain(&inner[..close])).filter(|n| !n.is_empty());
        rest = &inner[close + 1..];
    }
    let rest = rest.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '*' | ':' | '：' | '-' | '–' | '—')
    });
    Some(ItemHead {
        id,
        name,
        text: rest,
    })
}

fn is_requirement_or_criterion(id: &str) -> bool {
    specdoc::is_item_id(id)
        && id
            .split_once('-')
            .is_some_and(|(prefix, _)| prefix == "SC" || prefix.ends_with('R'))
}

/// `| FR-001 | text | … |`: the first cell an id, the next one its text.
fn table_row(line: &str) -> Option<ItemHead<'_>> {
    let t = line.trim();
    let inner = t.strip_prefix('|')?;
    let mut cells = inner.split('|').map(str::trim);
    let id = cells.next()?.trim_matches('*');
    if !is_requirement_or_criterion(id) {
        return None;
    }
    let text = cells.next().unwrap_or("");
    Some(ItemHead {
        id,
        name: None,
        text,
    })
}
