//! `tasks.md`: the task list. Each task is a node (`key/T014`) with its done state, `[P]`,
//! phase, the story it implements (`[US2]`, or the story its phase heading names), the
//! requirements it names, the file paths it names, and what it depends on.

use brief_model::{Kind, Node, Relation};

use super::spec::{body_doc, strip_prefix_label};
use super::{link_pages, mentions, page_status, FeatureRef, Mention, SPEC_ROOTS};
use crate::specdoc::{self, Doc};

/// What one task line says.
#[derive(Debug, PartialEq)]
pub(super) struct TaskLine<'t> {
    pub id: &'t str,
    /// `Some(true)` for `[x]`/`[X]`, `Some(false)` for `[ ]`, `None` without a checkbox.
    pub done: Option<bool>,
    pub parallel: bool,
    /// The stories of its `[US2]` markers (`US2`).
    pub stories: Vec<String>,
    /// Other bracketed markers, kept as written (`[BLOCKED]`).
    pub markers: Vec<&'t str>,
    pub text: &'t str,
}

pub(super) fn parse(rel: &str, text: &str, feature: &FeatureRef) -> Vec<Node> {
    let (doc, _) = body_doc(rel, text);
    let status = page_status(&doc);
    let prerequisites = prerequisites(&doc, feature);
    let anchors = anchors(text);
    let anchors: Vec<&str> = anchors.iter().map(String::as_str).collect();
    let mut used = vec![false; doc.lines.len()];
    let mut tasks: Vec<Node> = Vec::new();
    let mut phase: Option<(String, Vec<String>)> = None;
    let mut previous_in_phase: Option<String> = None;
    let mut i = 0;
    while i < doc.lines.len() {
        let line = &doc.lines[i];
        if let Some(h) = line.heading.filter(|h| h.level >= 2) {
            if task_line(h.text).is_none() {
                let name = specdoc::plain(h.text);
                let stories = mentions(&name, feature)
                    .into_iter()
                    .filter(|(kind, _)| *kind == Mention::Story)
                    .map(|(_, id)| id)
                    .collect();
                phase = Some((name, stories));
                previous_in_phase = None;
                i += 1;
                continue;
            }
        }
        let Some(found) = line_task(line) else {
            i += 1;
            continue;
        };
        let end = if line.heading.is_some() {
            doc.end(i)
        } else {
            doc.item_end(i, doc.lines.len())
        };
        let body = task_body(&doc, i, end, &found);
        let mut node = task_node(rel, line.no, feature, &found, &body, &anchors);
        if let Some((name, stories)) = &phase {
            specdoc::extra(&mut node, "phase", name.clone());
            if found.stories.is_empty() {
                for story in stories {
                    specdoc::link(&mut node, Relation::Implements, story.clone());
                }
            }
        }
        for page in &prerequisites {
            specdoc::link(&mut node, Relation::DependsOn, page.clone());
        }
        if let Some(before) = previous_in_phase.take() {
            if !found.parallel {
                specdoc::link(&mut node, Relation::DependsOn, before);
            }
        }
        previous_in_phase = Some(node.id.clone());
        node.status.clone_from(&status);
        used[i..end].iter_mut().for_each(|u| *u = true);
        tasks.push(node);
        i = end;
    }
    let mut page = page_node(rel, &doc, feature, &mut used);
    page.status = status;
    specdoc::link_all(
        &mut page,
        Relation::Contains,
        tasks.iter().map(|n| n.id.clone()),
    );
    tasks.push(page);
    tasks
}

/// The task a line holds: a list item (`- [X] T017b [P] [US1] …`, `- [x] **T002 [P]** …`,
/// `- T003 …`) or a heading (`### T004: …`).
fn line_task<'t>(line: &specdoc::Line<'t>) -> Option<TaskLine<'t>> {
    if line.code {
        return None;
    }
    match line.heading {
        Some(h) => task_line(h.text),
        None => task_line(specdoc::list_item(line.text)?),
    }
}

/// Reads a task from the text after its list marker (or heading marks).
pub(super) fn task_line(item: &str) -> Option<TaskLine<'_>> {
    let mut t = item.trim_start();
    let mut done = None;
    for (mark, state) in [("[ ]", false), ("[x]", true), ("[X]", true)] {
        if let Some(rest) = t.strip_prefix(mark) {
            done = Some(state);
            t = rest;
            break;
        }
    }
    let t = t.trim_start().trim_start_matches('*').trim_start();
    let len = task_id_len(t)?;
    let id = &t[..len];
    let mut rest = &t[len..];
    let mut parallel = false;
    let mut stories = Vec::new();
    let mut markers = Vec::new();
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '*');
        let Some(inner) = rest.strip_prefix('[') else {
            break;
        };
        let Some(close) = inner.find(']') else {
            break;
        };
        let marker = &inner[..close];
        if marker == "P" || marker == "p" {
            parallel = true;
        } else {
            let found: Vec<String> = marker
                .split([',', ' ', '/'])
                .filter_map(|w| specdoc::story_id(w.trim()))
                .collect();
            if found.is_empty() {
                markers.push(marker);
            } else {
                stories.extend(found);
            }
        }
        rest = &inner[close + 1..];
    }
    let text = rest.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, ':' | '：' | '-' | '–' | '—' | '*' | '.')
    });
    Some(TaskLine {
        id,
        done,
        parallel,
        stories,
        markers,
        text,
    })
}

/// The length of a task id at the start of `t`: `T`, digits, then letters and `-`/`.`
/// segments (`T014`, `T017b`, `T018f-5a`, `T001.1`), ending at a word boundary.
fn task_id_len(t: &str) -> Option<usize> {
    let bytes = t.as_bytes();
    if bytes.first() != Some(&b'T') {
        return None;
    }
    let digits = bytes[1..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let mut end = 1 + digits;
    while end < bytes.len() {
        let b = bytes[end];
        let segment =
            (b == b'-' || b == b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_alphanumeric);
        if b.is_ascii_alphanumeric() || segment {
            end += 1;
        } else {
            break;
        }
    }
    let boundary = bytes
        .get(end)
        .is_none_or(|b| !b.is_ascii_alphanumeric() && *b != b'_');
    // A letter run longer than one after the digits is a word (`T2Phase`), not an id.
    let letters = bytes[1 + digits..end]
        .iter()
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    (boundary && letters <= 1).then_some(end)
}

/// The task's text: its line after the markers, then its continuation lines.
fn task_body(doc: &Doc, start: usize, end: usize, found: &TaskLine) -> String {
    let more = doc.text(start + 1, end);
    let first = found.text.trim().trim_end_matches("**").trim();
    match (first.is_empty(), more.is_empty()) {
        (_, true) => first.to_string(),
        (true, false) => more,
        (false, false) => format!("{first}\n{more}"),
    }
}

fn task_node(
    rel: &str,
    line: u32,
    feature: &FeatureRef,
    found: &TaskLine,
    body: &str,
    anchors: &[&str],
) -> Node {
    let title = match specdoc::short(found.text) {
        t if t.is_empty() => found.id.to_string(),
        t => t,
    };
    let mut node = specdoc::node(
        rel,
        line,
        feature.id(found.id),
        Kind::Task,
        title,
        body.to_string(),
    );
    let state = match found.done {
        Some(true) => "done",
        Some(false) => "open",
        None => "listed",
    };
    specdoc::extra(&mut node, "done", state);
    if found.parallel {
        specdoc::extra(&mut node, "parallel", "yes");
    }
    if !found.markers.is_empty() {
        specdoc::extra(&mut node, "markers", found.markers.join(", "));
    }
    for story in &found.stories {
        specdoc::link(&mut node, Relation::Implements, feature.id(story));
    }
    let found = mentions(body, feature);
    let (principles, implemented): (Vec<_>, Vec<_>) = found
        .into_iter()
        .partition(|(kind, _)| *kind == Mention::Principle);
    specdoc::link_all(
        &mut node,
        Relation::Implements,
        implemented.into_iter().map(|(_, id)| id),
    );
    specdoc::link_all(
        &mut node,
        Mention::Principle.relation(),
        principles.into_iter().map(|(_, id)| id),
    );
    task_references(&mut node, body, feature);
    link_pages(&mut node, body, feature);
    let mut paths = specdoc::paths_in(body);
    for link in specdoc::file_links(body, anchors) {
        if !paths.contains(&link) {
            paths.push(link);
        }
    }
    specdoc::fields(&mut node).paths = paths;
    node
}

/// Other tasks a task names: `depends_on` on a line that says so (`Depends on T012`,
/// `**Dependency**: T018f-4`, `after T010`, `blocked by`), a `tasks` link otherwise.
fn task_references(node: &mut Node, body: &str, feature: &FeatureRef) {
    let mut depends_on = Vec::new();
    let mut named = Vec::new();
    for line in body.lines() {
        let lower = line.to_lowercase();
        let depends = ["depend", "after", "requires", "blocked by", "prerequisite"]
            .iter()
            .any(|w| lower.contains(w));
        for word in specdoc::words(line) {
            if task_id_len(word) == Some(word.len()) {
                let list = if depends { &mut depends_on } else { &mut named };
                list.push(feature.id(word));
            }
        }
    }
    specdoc::link_all(node, Relation::DependsOn, depends_on);
    specdoc::link_all(node, Relation::Link("tasks".into()), named);
}

/// `**Prerequisites**: plan.md, spec.md, research.md` before the first section: the design
/// pages every task needs (spec.md is the feature itself, reached through the task's
/// story). Without such a line, every design document present.
fn prerequisites(doc: &Doc, feature: &FeatureRef) -> Vec<String> {
    for line in &doc.lines {
        if matches!(line.heading, Some(h) if h.level >= 2) {
            break;
        }
        let Some((name, value)) = specdoc::label(line.text) else {
            continue;
        };
        if !name.to_lowercase().starts_with("prerequisite") {
            continue;
        }
        return specdoc::words(value)
            .filter_map(|w| {
                let file = format!("{}.md", w.trim_end_matches(".md"));
                (file != "spec.md" && feature.has(&file))
                    .then(|| feature.page_id(&file))
                    .flatten()
            })
            .collect();
    }
    feature.design_pages()
}

/// The first folders of the relative paths a file names (`src`, `backend`): where a
/// `file:///` link's root-relative part starts.
fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = SPEC_ROOTS
        .iter()
        .map(|r| r.split('/').next().unwrap_or(r).to_string())
        .collect();
    for path in specdoc::paths_in(text) {
        if let Some((first, _)) = path.split_once('/') {
            if !out.iter().any(|a| a == first) {
                out.push(first.to_string());
            }
        }
    }
    out
}

/// The tasks page: its title, status and what is not a task (phases, checkpoints, the
/// dependency notes).
fn page_node(rel: &str, doc: &Doc, feature: &FeatureRef, used: &mut [bool]) -> Node {
    let (title, line) = match doc.title() {
        Some((i, title)) => {
            used[i] = true;
            (strip_prefix_label(title), doc.lines[i].no)
        }
        None => ("Tasks".to_string(), 1),
    };
    let id = feature
        .page_id("tasks.md")
        .unwrap_or_else(|| feature.id("tasks"));
    let title = format!("Tasks: {title}");
    specdoc::node(rel, line, id, Kind::parse("tasks"), title, doc.rest(used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_lines_as_written() {
        let t = task_line("[X] T017b [P] [US1] Create `src/a.py`").unwrap();
        assert_eq!((t.id, t.done, t.parallel), ("T017b", Some(true), true));
        assert_eq!(t.stories, ["US1"]);
        assert_eq!(t.text, "Create `src/a.py`");
        let t = task_line("[x] **T002 [P]** Contract test in `tests/a.ts`:").unwrap();
        assert_eq!(
            (t.id, t.parallel, t.text),
            ("T002", true, "Contract test in `tests/a.ts`:")
        );
        let t = task_line("[ ] T018f-5a [US-2, US3] Count rows").unwrap();
        assert_eq!((t.id, t.done), ("T018f-5a", Some(false)));
        assert_eq!(t.stories, ["US2", "US3"]);
        let t = task_line("T004: Write the migration").unwrap();
        assert_eq!(
            (t.id, t.done, t.text),
            ("T004", None, "Write the migration")
        );
        let t = task_line("[ ] T009 [BLOCKED] wait").unwrap();
        assert_eq!(t.markers, ["BLOCKED"]);
        assert!(task_line("[x] Task without id").is_none());
        assert!(task_line("The T1 line").is_none());
        assert!(task_line("[x] T2Phase").is_none());
        assert!(task_line("[x] TODO later").is_none());
    }
}
