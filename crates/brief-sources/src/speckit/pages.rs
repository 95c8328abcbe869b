//! The other files of a feature: `plan.md` (one node per section), `data-model.md` (one per
//! entity), `quickstart.md`, `contracts/*` and `checklists/*` (one node each).

use brief_model::{Kind, Node, Relation};

use super::spec::{body_doc, entity_key, strip_prefix_label};
use super::{link_mentions, link_pages, page_status, FeatureRef};
use crate::specdoc::{self, Doc};

pub(super) fn parse(rel: &str, file: &str, text: &str, feature: &FeatureRef) -> Vec<Node> {
    match file {
        "plan.md" => plan(rel, text, feature),
        "data-model.md" => data_model(rel, text, feature),
        _ if file.starts_with("contracts/") => vec![contract(rel, file, text, feature)],
        _ if file.starts_with("checklists/") => vec![checklist(rel, file, text, feature)],
        _ => vec![whole(rel, file, text, feature)],
    }
}

/// The page node of a file: its title (lead-in label dropped), status and the text its items
/// did not take.
fn page(
    rel: &str,
    file: &str,
    doc: &Doc,
    used: &mut [bool],
    kind: &str,
    feature: &FeatureRef,
) -> Node {
    let (title, line) = match doc.title() {
        Some((i, title)) => {
            used[i] = true;
            (strip_prefix_label(title), doc.lines[i].no)
        }
        None => (file.to_string(), 1),
    };
    let id = feature.page_id(file).unwrap_or_else(|| feature.id(file));
    let body = doc.rest(used);
    let mut node = specdoc::node(rel, line, id, Kind::parse(kind), title, body.clone());
    node.status = page_status(doc);
    link_mentions(&mut node, &body, feature);
    link_pages(&mut node, &body, feature);
    node
}

/// `plan.md`: a node per `##` section (`key/plan#technical-context`), contained by the plan.
fn plan(rel: &str, text: &str, feature: &FeatureRef) -> Vec<Node> {
    let (doc, _) = body_doc(rel, text);
    let mut used = vec![false; doc.lines.len()];
    let page_id = feature
        .page_id("plan.md")
        .unwrap_or_else(|| feature.id("plan"));
    let mut nodes = Vec::new();
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for (i, line) in doc.lines.iter().enumerate() {
        let Some(h) = line.heading.filter(|h| h.level == 2) else {
            continue;
        };
        let end = doc.end(i);
        let mut slug = specdoc::slug(h.text);
        let n = seen.entry(slug.clone()).or_default();
        if *n > 0 {
            slug = format!("{slug}-{n}");
        }
        *n += 1;
        let body = doc.text(i + 1, end);
        let mut node = specdoc::node(
            rel,
            line.no,
            format!("{page_id}#{slug}"),
            Kind::Section,
            specdoc::plain(h.text),
            body.clone(),
        );
        link_mentions(&mut node, &body, feature);
        link_pages(&mut node, &body, feature);
        used[i..end].iter_mut().for_each(|u| *u = true);
        nodes.push(node);
    }
    let status = page_status(&doc);
    let mut plan = page(rel, "plan.md", &doc, &mut used, "plan", feature);
    for node in &mut nodes {
        node.status.clone_from(&status);
    }
    let ids: Vec<String> = nodes.iter().map(|n| n.id.clone()).collect();
    specdoc::link_all(&mut plan, Relation::Contains, ids.iter().cloned());
    specdoc::link_all(&mut plan, Relation::Link("sections".into()), ids);
    // The page first, then its sections (the index moves heading links by that order).
    nodes.insert(0, plan);
    nodes
}

/// Headings that organise a data model without naming an entity.
const NOT_ENTITIES: [&str; 16] = [
    "overview",
    "entities",
    "core entities",
    "entity definitions",
    "data entities",
    "relationships",
    "entity relationships",
    "validation rules",
    "validation",
    "state transitions",
    "enums",
    "enumerations",
    "indexes",
    "notes",
    "summary",
    "migrations",
];

/// `data-model.md`: a node per entity (`key/entity/Invoice`): `## Entity: Invoice`
/// headings, the sub-headings of an `Entities` section, else the top sections other than
/// overview, relationships, validation and the like.
fn data_model(rel: &str, text: &str, feature: &FeatureRef) -> Vec<Node> {
    let (doc, _) = body_doc(rel, text);
    let mut used = vec![false; doc.lines.len()];
    let headings: Vec<(usize, u8, &str)> = doc
        .lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.code)
        .filter_map(|(i, l)| {
            l.heading
                .filter(|h| h.level >= 2)
                .map(|h| (i, h.level, h.text))
        })
        .collect();
    let prefixed: Vec<usize> = headings
        .iter()
        .filter(|(_, _, t)| entity_prefix(t).is_some())
        .map(|(i, _, _)| *i)
        .collect();
    let chosen: Vec<usize> = if !prefixed.is_empty() {
        prefixed
    } else if let Some(&(at, level, _)) = headings.iter().find(|(_, _, t)| is_entities_heading(t)) {
        let end = doc.end(at);
        let child = headings
            .iter()
            .filter(|(i, l, _)| *i > at && *i < end && *l > level)
            .map(|(_, l, _)| *l)
            .min();
        headings
            .iter()
            .filter(|(i, l, _)| *i > at && *i < end && Some(*l) == child)
            .map(|(i, _, _)| *i)
            .collect()
    } else {
        let top = headings.iter().map(|(_, l, _)| *l).min();
        headings
            .iter()
            .filter(|(_, l, t)| {
                Some(*l) == top && !NOT_ENTITIES.contains(&name_of(t).to_lowercase().as_str())
            })
            .map(|(i, _, _)| *i)
            .collect()
    };
    let mut nodes = Vec::new();
    for i in chosen {
        let end = doc.end(i);
        let text = doc.lines[i].heading.map_or("", |h| h.text);
        let name = name_of(text);
        if name.is_empty() {
            continue;
        }
        let body = doc.text(i + 1, end);
        let mut node = specdoc::node(
            rel,
            doc.lines[i].no,
            feature.id(&format!("entity/{}", entity_key(&name))),
            Kind::parse("entity"),
            name,
            body.clone(),
        );
        link_mentions(&mut node, &body, feature);
        used[i..end].iter_mut().for_each(|u| *u = true);
        nodes.push(node);
    }
    let mut page = page(rel, "data-model.md", &doc, &mut used, "data_model", feature);
    let ids: Vec<String> = nodes.iter().map(|n| n.id.clone()).collect();
    specdoc::link_all(&mut page, Relation::Contains, ids.iter().cloned());
    specdoc::link_all(&mut page, Relation::Link("entity".into()), ids);
    nodes.push(page);
    nodes
}

fn entity_prefix(text: &str) -> Option<&str> {
    let plain = text.trim().trim_start_matches(['*', '`']);
    let plain = specdoc::unnumbered(plain);
    plain
        .strip_prefix("Entity:")
        .or_else(|| plain.strip_prefix("Entity "))
        .map(str::trim)
}

fn is_entities_heading(text: &str) -> bool {
    let lower = specdoc::plain(specdoc::unnumbered(text)).to_lowercase();
    matches!(
        lower.as_str(),
        "entities"
            | "core entities"
            | "entity definitions"
            | "data entities"
            | "domain entities"
            | "エンティティ"
    )
}

/// An entity's name from its heading: numbering, `Entity:`, code marks and a trailing
/// parenthetical (`User (users table)`) dropped.
fn name_of(text: &str) -> String {
    let t = entity_prefix(text).unwrap_or_else(|| specdoc::unnumbered(text));
    let t = t.split(" (").next().unwrap_or(t);
    let t = t.split(" - ").next().unwrap_or(t);
    specdoc::plain(t)
}

/// A contract (`contracts/openapi.yaml`): the file as the node's body, Markdown as it is,
/// anything else in a code block.
fn contract(rel: &str, file: &str, text: &str, feature: &FeatureRef) -> Node {
    let name = file.rsplit('/').next().unwrap_or(file);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    let (title, body) = if ext.eq_ignore_ascii_case("md") {
        let (doc, _) = body_doc(rel, text);
        let title = doc.title().map(|(_, t)| specdoc::plain(t));
        (title.unwrap_or_else(|| name.to_string()), text.to_string())
    } else {
        let fence = if text.contains("```") { "~~~~" } else { "```" };
        let title = yaml_title(text).unwrap_or_else(|| name.to_string());
        (title, format!("{fence}{ext}\n{}\n{fence}", text.trim_end()))
    };
    let id = feature.page_id(file).unwrap_or_else(|| feature.id(file));
    let mut node = specdoc::node(rel, 1, id, Kind::ApiContract, title, body);
    link_mentions(&mut node, text, feature);
    node
}

/// OpenAPI's `info: title:` (the first indented `title:` line).
fn yaml_title(text: &str) -> Option<String> {
    let mut in_info = false;
    for line in text.lines().take(40) {
        if line.starts_with("info:") {
            in_info = true;
            continue;
        }
        if in_info {
            if !line.starts_with([' ', '\t']) && !line.trim().is_empty() {
                return None;
            }
            if let Some(title) = line.trim().strip_prefix("title:") {
                let title = title.trim().trim_matches(['"', '\'']);
                return (!title.is_empty()).then(|| title.to_string());
            }
        }
    }
    None
}

/// A checklist: one node, with how many of its items are checked.
fn checklist(rel: &str, file: &str, text: &str, feature: &FeatureRef) -> Node {
    let (doc, _) = body_doc(rel, text);
    let mut used = vec![false; doc.lines.len()];
    let mut node = page(rel, file, &doc, &mut used, "checklist", feature);
    let (mut done, mut all) = (0, 0);
    for line in doc.lines.iter().filter(|l| !l.code) {
        let Some(item) = specdoc::list_item(line.text) else {
            continue;
        };
        if item.starts_with("[ ]") {
            all += 1;
        } else if item.starts_with("[x]") || item.starts_with("[X]") {
            all += 1;
            done += 1;
        }
    }
    if all > 0 {
        specdoc::extra(&mut node, "checked", format!("{done} of {all}"));
    }
    node
}

/// A page read whole (`quickstart.md`).
fn whole(rel: &str, file: &str, text: &str, feature: &FeatureRef) -> Node {
    let (doc, _) = body_doc(rel, text);
    let mut used = vec![false; doc.lines.len()];
    let kind = file.trim_end_matches(".md").replace('-', "_");
    page(rel, file, &doc, &mut used, &kind, feature)
}
