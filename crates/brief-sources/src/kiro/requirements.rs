//! `requirements.md`: requirements (`key/R2`) and their numbered acceptance criteria
//! (`key/R2.1`, WHEN/IF/THEN/SHALL kept as written).

use brief_model::{Kind, Node, Relation};

use super::{body, SpecRef};
use crate::specdoc::{self, Doc};

pub(super) fn parse(rel: &str, text: &str, spec: &SpecRef) -> Vec<Node> {
    let (doc, _) = body(rel, text);
    let mut used = vec![false; doc.lines.len()];
    let mut nodes = Vec::new();
    let mut in_requirements: Option<(u8, usize)> = None;
    let mut ordinal = 0;
    let mut i = 0;
    while i < doc.lines.len() {
        let Some(h) = doc.lines[i].heading.filter(|h| h.level >= 2) else {
            i += 1;
            continue;
        };
        if in_requirements.is_some_and(|(_, end)| i >= end) {
            in_requirements = None;
        }
        let plain = specdoc::plain(h.text);
        if plain.eq_ignore_ascii_case("requirements") {
            in_requirements = Some((h.level, doc.end(i)));
            i += 1;
            continue;
        }
        let inside = in_requirements.is_some_and(|(level, _)| h.level > level);
        let Some((number, title)) = requirement_heading(&plain, inside) else {
            i += 1;
            continue;
        };
        ordinal += 1;
        let number = number.unwrap_or(ordinal);
        let end = doc.end(i);
        nodes.extend(requirement(rel, &doc, i, end, number, title, spec));
        used[i..end].iter_mut().for_each(|u| *u = true);
        i = end;
    }
    let title = match doc.title() {
        Some((t, title)) => {
            used[t] = true;
            specdoc::plain(title)
        }
        None => "Requirements".into(),
    };
    let file = rel.rsplit('/').next().unwrap_or("requirements.md");
    let mut page = specdoc::node(
        rel,
        1,
        spec.page_id(file),
        Kind::parse("requirements"),
        title,
        doc.rest(&used),
    );
    for node in nodes
        .iter()
        .filter(|n| n.kind == Kind::parse("requirement"))
    {
        specdoc::link(&mut page, Relation::Contains, node.id.clone());
    }
    nodes.push(page);
    nodes
}

/// `Requirement 2`, `Requirement 2: Title`, `Requirement 2 - Title`; inside a `Requirements`
/// section also `2. Title` or a plain title (numbered in order).
fn requirement_heading(plain: &str, inside: bool) -> Option<(Option<u32>, String)> {
    let rest = plain
        .strip_prefix("Requirement ")
        .or_else(|| plain.strip_prefix("requirement "))
        .or_else(|| plain.strip_prefix("REQ-"));
    let (number_text, rest) = match rest {
        Some(rest) => {
            let len = rest.bytes().take_while(u8::is_ascii_digit).count();
            (&rest[..len], &rest[len..])
        }
        None if inside => {
            let len = plain.bytes().take_while(u8::is_ascii_digit).count();
            (&plain[..len], &plain[len..])
        }
        None => return None,
    };
    let number = number_text.parse::<u32>().ok();
    if number.is_none() && !inside {
        return None;
    }
    let title = rest
        .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '.' | ':' | '-' | '–' | '—'))
        .trim()
        .to_string();
    Some((number, title))
}

/// A requirement and its criteria: the criteria are the list items after `Acceptance
/// Criteria` (a heading or a bold label).
fn requirement(
    rel: &str,
    doc: &Doc,
    start: usize,
    end: usize,
    number: u32,
    title: String,
    spec: &SpecRef,
) -> Vec<Node> {
    let marker = (start + 1..end).find(|&j| {
        let t = doc.lines[j].text.to_lowercase();
        !doc.lines[j].code && t.contains("acceptance criteria")
    });
    let (mut criteria, taken) = match marker {
        Some(marker) => criteria(rel, doc, marker, end, number, spec),
        None => (Vec::new(), Vec::new()),
    };
    let mut own = String::new();
    for (j, line) in doc.lines.iter().enumerate().take(end).skip(start + 1) {
        if !taken.contains(&j) {
            own.push_str(line.text);
            own.push('\n');
        }
    }
    let own = own.trim().to_string();
    let title = if title.is_empty() {
        own.lines()
            .find_map(|l| specdoc::label(l).filter(|(n, _)| n.eq_ignore_ascii_case("user story")))
            .map(|(_, v)| specdoc::short(v))
            .unwrap_or_else(|| format!("Requirement {number}"))
    } else {
        title
    };
    let mut node = specdoc::node(
        rel,
        doc.lines[start].no,
        spec.id(&format!("R{number}")),
        Kind::parse("requirement"),
        title,
        own,
    );
    specdoc::link_all(
        &mut node,
        Relation::Contains,
        criteria.iter().map(|n| n.id.clone()),
    );
    criteria.push(node);
    criteria
}

/// The criteria after the `Acceptance Criteria` marker at `marker`, and the lines they (and
/// the marker) take.
fn criteria(
    rel: &str,
    doc: &Doc,
    marker: usize,
    end: usize,
    number: u32,
    spec: &SpecRef,
) -> (Vec<Node>, Vec<usize>) {
    let stop = match doc.lines[marker].heading {
        Some(_) => doc.end(marker).min(end),
        None => end,
    };
    let mut nodes = Vec::new();
    let mut taken = vec![marker];
    let mut ordinal = 0;
    let mut j = marker + 1;
    while j < stop {
        let line = &doc.lines[j];
        let Some(item) = (!line.code)
            .then(|| specdoc::list_item(line.text))
            .flatten()
        else {
            j += 1;
            continue;
        };
        let item_end = doc.item_end(j, stop);
        ordinal += 1;
        let (m, text) = criterion_number(line.text, item, number).unwrap_or((ordinal, item));
        let more = doc.text(j + 1, item_end);
        let body = if more.is_empty() {
            text.trim().to_string()
        } else {
            format!("{}\n{more}", text.trim())
        };
        nodes.push(specdoc::node(
            rel,
            line.no,
            spec.id(&format!("R{number}.{m}")),
            Kind::parse("criterion"),
            specdoc::short(text),
            body,
        ));
        taken.extend(j..item_end);
        j = item_end;
    }
    (nodes, taken)
}

/// A criterion's own number: the ordered-list marker (`3.`), or an `N.M` it starts with.
fn criterion_number<'t>(line: &str, item: &'t str, requirement: u32) -> Option<(u32, &'t str)> {
    let t = item.trim_start();
    let len = t
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    if len > 0 {
        let (a, b) = t[..len].trim_end_matches('.').split_once('.')?;
        if a.parse::<u32>().ok()? == requirement {
            return Some((b.parse().ok()?, t[len..].trim_start()));
        }
    }
    let marker = line.trim_start();
    let digits = marker.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0)
        .then(|| marker[..digits].parse().ok())
        .flatten()
        .map(|m| (m, item))
}
