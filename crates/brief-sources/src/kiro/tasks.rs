//! Kiro's `tasks.md`: numbered tasks and sub-tasks (`key/2.1`, contained by `key/2`), their
//! done state (`[x]`, `[-]` in progress), optional ones (`- [ ]* 2.1`), the criteria their
//! `_Requirements: 1.1, 2.3_` lines name, what `Validates: Requirements …` lines name, and
//! the file paths they mention.

use brief_model::{Kind, Node, Relation};

use super::{body, requirements_line, SpecRef};
use crate::specdoc::{self, Doc};

/// A task line read: `- [x] 2.1 Title`, `- [ ]* 3. Title`.
#[derive(Debug, PartialEq)]
pub(crate) struct KiroTask<'t> {
    pub number: &'t str,
    /// `x`, ` `, `-` (in progress).
    pub state: char,
    pub optional: bool,
    pub title: &'t str,
}

pub(crate) fn task_line(item: &str) -> Option<KiroTask<'_>> {
    let t = item.trim_start();
    let rest = t.strip_prefix('[')?;
    let mut chars = rest.chars();
    let state = chars.next()?;
    let rest = chars.as_str().strip_prefix(']')?;
    let (optional, rest) = match rest.strip_prefix('*') {
        Some(rest) => (true, rest),
        None => (false, rest),
    };
    let rest = rest.trim_start();
    let len = rest
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let number = rest[..len].trim_end_matches('.');
    if number.is_empty() || !number.as_bytes()[0].is_ascii_digit() || number.contains("..") {
        return None;
    }
    let after = &rest[len..];
    if !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    Some(KiroTask {
        number,
        state: state.to_ascii_lowercase(),
        optional,
        title: after.trim(),
    })
}

pub(super) fn parse(rel: &str, text: &str, spec: &SpecRef) -> Vec<Node> {
    let (doc, _) = body(rel, text);
    let mut used = vec![false; doc.lines.len()];
    let task_lines: Vec<usize> = (0..doc.lines.len())
        .filter(|&i| line_task(&doc, i).is_some())
        .collect();
    let mut nodes: Vec<Node> = Vec::new();
    let mut previous: std::collections::BTreeMap<String, String> = Default::default();
    for (k, &i) in task_lines.iter().enumerate() {
        let Some(found) = line_task(&doc, i) else {
            continue;
        };
        let block = doc.item_end(i, doc.lines.len());
        let next_task = task_lines.get(k + 1).copied().unwrap_or(doc.lines.len());
        let end = block.min(next_task).max(i + 1);
        let node = task_node(rel, &doc, i, end, &found, spec, &mut previous);
        used[i..end].iter_mut().for_each(|u| *u = true);
        nodes.push(node);
    }
    // Parents contain their sub-tasks.
    let ids: Vec<String> = nodes.iter().map(|n| n.id.clone()).collect();
    let position: std::collections::HashMap<String, usize> = ids
        .iter()
        .enumerate()
        .map(|(k, id)| (id.clone(), k))
        .collect();
    let mut page = {
        let title = match doc.title() {
            Some((t, title)) => {
                used[t] = true;
                specdoc::plain(title)
            }
            None => "Tasks".into(),
        };
        specdoc::node(
            rel,
            1,
            spec.page_id("tasks.md"),
            Kind::parse("tasks"),
            title,
            doc.rest(&used),
        )
    };
    for id in &ids {
        let local = &id[spec.key.len() + 1..];
        let parent = local
            .rsplit_once('.')
            .and_then(|(parent, _)| position.get(&spec.id(parent)));
        match parent {
            Some(&at) => specdoc::link(&mut nodes[at], Relation::Contains, id.clone()),
            None => specdoc::link(&mut page, Relation::Contains, id.clone()),
        }
    }
    nodes.push(page);
    nodes
}

fn line_task<'t>(doc: &Doc<'t>, i: usize) -> Option<KiroTask<'t>> {
    let line = &doc.lines[i];
    if line.code || line.heading.is_some() {
        return None;
    }
    task_line(specdoc::list_item(line.text)?)
}

fn task_node(
    rel: &str,
    doc: &Doc,
    i: usize,
    end: usize,
    found: &KiroTask,
    spec: &SpecRef,
    previous: &mut std::collections::BTreeMap<String, String>,
) -> Node {
    let more = doc.text(i + 1, end);
    let body = if more.is_empty() {
        found.title.to_string()
    } else {
        format!("{}\n{more}", found.title)
    };
    let title = match specdoc::short(found.title) {
        t if t.is_empty() => format!("Task {}", found.number),
        t => t,
    };
    let mut node = specdoc::node(
        rel,
        doc.lines[i].no,
        spec.id(found.number),
        Kind::Task,
        title,
        body.clone(),
    );
    let state = match found.state {
        'x' => "done",
        '-' | '~' => "in progress",
        _ => "open",
    };
    specdoc::extra(&mut node, "done", state);
    if found.optional {
        specdoc::extra(&mut node, "optional", "yes");
    }
    for line in more.lines() {
        let Some(list) = requirements_line(line) else {
            continue;
        };
        let relation = if line.contains("Validates") {
            Relation::Link("checks".into())
        } else {
            Relation::Implements
        };
        for target in spec.requirement_refs(list) {
            // A criterion's requirement (its user story) is implemented too.
            if let Some((requirement, _)) = target.rsplit_once('.') {
                if relation == Relation::Implements && requirement.len() > spec.key.len() {
                    specdoc::link(&mut node, Relation::Implements, requirement.to_string());
                }
            }
            specdoc::link(&mut node, relation.clone(), target);
        }
    }
    // Tasks are written from the design: every task needs it.
    if spec.files.iter().any(|f| f == "design.md") {
        specdoc::link(&mut node, Relation::DependsOn, spec.page_id("design.md"));
    }
    // Siblings run in order: a task depends on the one numbered before it.
    let parent = found
        .number
        .rsplit_once('.')
        .map_or("", |(p, _)| p)
        .to_string();
    if let Some(before) = previous.insert(parent, node.id.clone()) {
        specdoc::link(&mut node, Relation::DependsOn, before);
    }
    specdoc::fields(&mut node).paths = specdoc::paths_in(&body);
    node
}
