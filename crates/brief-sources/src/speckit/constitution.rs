//! The constitution: the project's principles, each a policy that constrains every feature.
//!
//! A principle is a section whose heading is numbered (`### I. Library-First`, `### 3.
//! Tests`, `## Article IV: …`) or sits under a `Principles` heading. It is hard
//! (`severity: hard`) when "NON-NEGOTIABLE" appears in its heading or text, or when it is
//! worded in capital `MUST`/`SHALL`/`NEVER` (RFC 2119), else soft. Its `**Rationale**:` part
//! is its rationale.

use brief_model::{Kind, Node, Relation};

use super::research::{split_parts, Part};
use super::spec::{body_doc, strip_prefix_label};
use crate::specdoc::{self, Doc};

/// The id of the constitution node.
pub(crate) const ID: &str = "constitution";

pub(super) fn parse(rel: &str, text: &str, features: &[String]) -> Vec<Node> {
    let (doc, _) = body_doc(rel, text);
    let mut used = vec![false; doc.lines.len()];
    mark_comments(&doc, &mut used);
    let mut nodes: Vec<Node> = Vec::new();
    let mut under_principles: Option<(u8, usize)> = None;
    let mut i = 0;
    while i < doc.lines.len() {
        let line = &doc.lines[i];
        let Some(h) = line.heading.filter(|h| h.level >= 2) else {
            i += 1;
            continue;
        };
        if under_principles.is_some_and(|(_, end)| i >= end) {
            under_principles = None;
        }
        let lower = h.text.to_lowercase();
        if (lower.contains("principles") || lower.contains("原則")) && numeral(h.text).is_none() {
            under_principles = Some((h.level, doc.end(i)));
            used[i] = true;
            i += 1;
            continue;
        }
        let numbered = numeral(h.text);
        let listed = under_principles.is_some_and(|(level, _)| h.level > level);
        if numbered.is_none() && !listed {
            i += 1;
            continue;
        }
        let end = doc.end(i);
        nodes.push(principle(rel, &doc, i, end, numbered, features));
        used[i..end].iter_mut().for_each(|u| *u = true);
        i = end;
    }
    let (title, line) = match doc.title() {
        Some((t, title)) => {
            used[t] = true;
            (strip_prefix_label(title), doc.lines[t].no)
        }
        None => ("Constitution".to_string(), 1),
    };
    let mut node = specdoc::node(
        rel,
        line,
        ID.to_string(),
        Kind::parse("constitution"),
        title,
        doc.rest(&used),
    );
    version(&doc, &mut node);
    specdoc::link_all(
        &mut node,
        Relation::Contains,
        nodes.iter().map(|n| n.id.clone()),
    );
    nodes.push(node);
    nodes
}

/// HTML comments (Spec Kit's sync report) are not text.
fn mark_comments(doc: &Doc, used: &mut [bool]) {
    let mut open = false;
    for (i, line) in doc.lines.iter().enumerate() {
        let t = line.text.trim();
        if !open && t.starts_with("<!--") {
            open = true;
        }
        if open {
            used[i] = true;
            if t.ends_with("-->") {
                open = false;
            }
        }
    }
}

/// `**Version**: 2.1.1 | **Ratified**: 2025-06-13 | **Last Amended**: 2025-07-16`.
fn version(doc: &Doc, node: &mut Node) {
    for line in &doc.lines {
        let version = line.text.split('|').find_map(|cell| {
            specdoc::label(cell).filter(|(name, _)| name.eq_ignore_ascii_case("version"))
        });
        let Some((_, value)) = version else {
            continue;
        };
        specdoc::extra(node, "version", specdoc::plain(value));
        let mut newest = None;
        for cell in line.text.split('|') {
            if let Some(date) = specdoc::date_in(cell) {
                if newest.as_ref().is_none_or(|n: &String| date > *n) {
                    newest = Some(date);
                }
            }
        }
        node.date = newest;
        return;
    }
}

/// The numeral a heading starts with, as the principle's id part: `IV.`, `Article IV:`,
/// `Principle 4`, `4.` → `IV`.
pub(crate) fn numeral(text: &str) -> Option<String> {
    let plain = specdoc::plain(text);
    let t = plain
        .strip_prefix("Article ")
        .or_else(|| plain.strip_prefix("Principle "))
        .unwrap_or(&plain);
    let len = t
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(t.len());
    let word = &t[..len];
    let after = &t[len..];
    let separated = after.is_empty() || after.starts_with(['.', ':', '：', ')', ' ']);
    if !separated || word.is_empty() {
        return None;
    }
    // `I` alone is a numeral only before a separator other than a space ("I want" is prose).
    if let Ok(n) = word.parse::<u32>() {
        return specdoc::roman(n);
    }
    specdoc::from_roman(word)
        .filter(|_| word.len() > 1 || after.starts_with(['.', ':', '：', ')']))
        .map(|_| word.to_string())
}

/// The heading without its numeral and without the `(NON-NEGOTIABLE)` mark.
fn principle_title(text: &str) -> String {
    let plain = specdoc::plain(text);
    let t = plain
        .strip_prefix("Article ")
        .or_else(|| plain.strip_prefix("Principle "))
        .unwrap_or(&plain);
    let t = match numeral(text) {
        Some(_) => {
            let len = t
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(t.len());
            t[len..].trim_start_matches(|c: char| {
                c.is_whitespace() || matches!(c, '.' | ':' | '：' | ')' | '-' | '–' | '—')
            })
        }
        None => t,
    };
    let mut title = t.to_string();
    for mark in [
        "(NON-NEGOTIABLE)",
        "(Non-Negotiable)",
        "(non-negotiable)",
        "(NON NEGOTIABLE)",
    ] {
        title = title.replace(mark, "");
    }
    title.trim().to_string()
}

/// Hard when marked non-negotiable anywhere, or worded with RFC 2119 capitals.
pub(crate) fn is_hard(heading: &str, body: &str) -> bool {
    let marked = |t: &str| {
        let upper = t.to_uppercase();
        upper.contains("NON-NEGOTIABLE")
            || upper.contains("NON NEGOTIABLE")
            || upper.contains("NONNEGOTIABLE")
    };
    marked(heading)
        || marked(body)
        || specdoc::words(body).any(|w| matches!(w, "MUST" | "SHALL" | "NEVER" | "REQUIRED"))
}

fn principle(
    rel: &str,
    doc: &Doc,
    start: usize,
    end: usize,
    numbered: Option<String>,
    features: &[String],
) -> Node {
    let heading = doc.lines[start].heading.map_or("", |h| h.text);
    let title = principle_title(heading);
    let local = numbered.unwrap_or_else(|| specdoc::slug(&title));
    // The body is the section as written (cards show it); the rationale is also a field.
    let body = doc.text(start + 1, end);
    let mut rationale = String::new();
    for (part, text) in split_parts(doc, start + 1, end) {
        if part == Some(Part::Rationale) {
            if !rationale.is_empty() {
                rationale.push_str("\n\n");
            }
            rationale.push_str(text.trim());
        }
    }
    let hard = is_hard(heading, &doc.text(start + 1, end));
    let mut node = specdoc::node(
        rel,
        doc.lines[start].no,
        format!("{ID}/{local}"),
        Kind::Policy,
        title,
        body,
    );
    specdoc::extra(&mut node, "severity", if hard { "hard" } else { "soft" });
    specdoc::fields(&mut node).rationale = (!rationale.is_empty()).then_some(rationale);
    for feature in features {
        specdoc::link(&mut node, Relation::Constrains, feature.clone());
    }
    node
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numerals_and_titles() {
        assert_eq!(
            numeral("I. Privacy-First (NON-NEGOTIABLE)").as_deref(),
            Some("I")
        );
        assert_eq!(numeral("Article IV: Tests").as_deref(), Some("IV"));
        assert_eq!(numeral("3. Simplicity").as_deref(), Some("III"));
        assert_eq!(numeral("Principle 2 — Speed").as_deref(), Some("II"));
        assert_eq!(numeral("Governance"), None);
        assert_eq!(numeral("I want this"), None);
        assert_eq!(
            principle_title("I. Privacy-First (NON-NEGOTIABLE)"),
            "Privacy-First"
        );
        assert_eq!(principle_title("Article IV: Tests"), "Tests");
        assert!(is_hard("Tests", "All code MUST be tested."));
        assert!(is_hard("Tests", "- This principle is non-negotiable."));
        assert!(!is_hard(
            "Tests",
            "Code should be tested; it must be, ideally."
        ));
    }
}
