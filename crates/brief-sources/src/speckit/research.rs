//! `research.md`: the decisions of a feature, in the heading styles people use.
//!
//! A section is a decision when its heading carries a decision id (`D-6.`, `TD-001:`,
//! `R1:`), says `Decision: …`, or when it holds a `Decision` label or sub-heading (`##
//! Audio processing` with `### Decision` / `**Decision**: …` inside). Inside one, the
//! `Decision` part is the body, `Rationale` the rationale and `Alternatives considered` the
//! rejected alternatives (a list of `name: why`); other parts stay in the body.

use brief_model::{Kind, Node, RejectedAlternative, Relation};

use super::spec::{body_doc, strip_prefix_label};
use super::{link_mentions, page_status, FeatureRef};
use crate::specdoc::{self, Doc};

/// What a labelled part of a decision is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Decision,
    Rationale,
    Alternatives,
}

/// The part a label or heading names.
pub(crate) fn part_of(label: &str) -> Option<Part> {
    let lower = specdoc::plain(specdoc::unnumbered(label)).to_lowercase();
    let lower = lower.trim();
    const DECISION: [&str; 9] = [
        "decision",
        "chosen",
        "choice",
        "selected",
        "chosen approach",
        "決定",
        "決定事項",
        "結論",
        "採用",
    ];
    const RATIONALE: [&str; 7] = [
        "rationale",
        "reason",
        "reasons",
        "reasoning",
        "why",
        "理由",
        "根拠",
    ];
    if DECISION.contains(&lower) {
        Some(Part::Decision)
    } else if RATIONALE.contains(&lower) {
        Some(Part::Rationale)
    } else if lower.starts_with("alternative")
        || lower.starts_with("options considered")
        || lower.starts_with("rejected")
        || lower.starts_with("considered alternative")
        || lower.contains("代替案")
    {
        Some(Part::Alternatives)
    } else {
        None
    }
}

pub(super) fn parse(rel: &str, text: &str, feature: &FeatureRef) -> Vec<Node> {
    let (doc, _) = body_doc(rel, text);
    let status = page_status(&doc);
    let mut used = vec![false; doc.lines.len()];
    let mut nodes = Vec::new();
    let mut i = 0;
    while i < doc.lines.len() {
        let Some(h) = doc.lines[i].heading.filter(|h| h.level >= 2) else {
            i += 1;
            continue;
        };
        let end = doc.end(i);
        let Some((id, title)) = decision_heading(&doc, i, h.text, feature) else {
            i += 1;
            continue;
        };
        let mut node = decision(rel, &doc, i, end, id, title, feature);
        node.status.clone_from(&status);
        // The research decides how the plan is carried out: its decisions constrain the plan
        // (the feature without one), so every task built on the plan has them as constraints.
        let governed = feature
            .page_id("plan.md")
            .filter(|_| feature.has("plan.md"))
            .unwrap_or_else(|| feature.key.to_string());
        specdoc::link(&mut node, Relation::Constrains, governed);
        used[i..end].iter_mut().for_each(|u| *u = true);
        nodes.push(node);
        i = end;
    }
    let (title, line) = match doc.title() {
        Some((t, title)) => {
            used[t] = true;
            (strip_prefix_label(title), doc.lines[t].no)
        }
        None => ("Research".to_string(), 1),
    };
    let id = feature
        .page_id("research.md")
        .unwrap_or_else(|| feature.id("research"));
    let body = doc.rest(&used);
    let mut page = specdoc::node(
        rel,
        line,
        id,
        Kind::parse("research"),
        format!("Research: {title}"),
        body.clone(),
    );
    page.status = status;
    link_mentions(&mut page, &body, feature);
    let ids: Vec<String> = nodes.iter().map(|n| n.id.clone()).collect();
    specdoc::link_all(&mut page, Relation::Contains, ids.iter().cloned());
    specdoc::link_all(&mut page, Relation::Link("decisions".into()), ids);
    nodes.push(page);
    nodes
}

/// The id and title of the decision a heading opens, if it opens one.
fn decision_heading(
    doc: &Doc,
    i: usize,
    text: &str,
    feature: &FeatureRef,
) -> Option<(String, String)> {
    if let Some((id, title)) = decision_id(text) {
        return Some((feature.id(id), title.to_string()));
    }
    let plain = specdoc::plain(specdoc::unnumbered(text));
    let titled = plain
        .strip_prefix("Decision")
        .or_else(|| plain.strip_prefix("決定"))
        .map(|rest| {
            rest.trim_start_matches(|c: char| {
                c.is_whitespace() || matches!(c, ':' | '：' | '-' | '–' | '—')
            })
        })
        .filter(|rest| !rest.is_empty() && !rest.starts_with(|c: char| c.is_ascii_lowercase()));
    let holds_decision = holds_decision(doc, i);
    match (titled, holds_decision) {
        (Some(title), _) => Some((local_id(feature, title), title.to_string())),
        (None, true) => Some((local_id(feature, &plain), plain.clone())),
        (None, false) => None,
    }
}

fn local_id(feature: &FeatureRef, title: &str) -> String {
    feature.id(&format!("research#{}", specdoc::slug(title)))
}

/// Whether the section of heading `i` has a `Decision` part of its own (a label line or a
/// bare sub-heading), not one inside a sub-section that is a decision itself.
fn holds_decision(doc: &Doc, i: usize) -> bool {
    let end = doc.end(i);
    let mut j = i + 1;
    while j < end {
        let line = &doc.lines[j];
        if line.code {
            j += 1;
            continue;
        }
        if let Some(h) = line.heading {
            if part_of(h.text) == Some(Part::Decision) {
                return true;
            }
            // A sub-section with its own decision title is a decision of its own.
            if decision_id(h.text).is_some() || specdoc::plain(h.text).starts_with("Decision:") {
                return false;
            }
        } else if let Some((name, _)) = specdoc::label(line.text) {
            if part_of(&name) == Some(Part::Decision) {
                return true;
            }
        }
        j += 1;
    }
    false
}

/// `D-6. Title`, `TD-001: Title`, `R1: Title`, `ADR-002 - Title`: the id and the title.
pub(crate) fn decision_id(text: &str) -> Option<(&str, &str)> {
    let t = text.trim().trim_start_matches('*');
    let len = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(t.len());
    let id = t[..len].trim_end_matches('-');
    let letters = id.bytes().take_while(u8::is_ascii_uppercase).count();
    let rest_of_id = id[letters..].trim_start_matches('-');
    let digits = rest_of_id.bytes().take_while(u8::is_ascii_digit).count();
    let shape = (1..=4).contains(&letters)
        && digits > 0
        && rest_of_id.len() <= digits + 1
        && !id.starts_with("FR-")
        && !id.starts_with("SC-")
        && !id.starts_with("US");
    if !shape {
        return None;
    }
    let after = t[len..].trim_start_matches('*');
    let sep = after.starts_with(['.', ':', '：', ')'])
        || after.trim_start().starts_with(['-', '–', '—'])
        || after.is_empty();
    if !sep {
        return None;
    }
    let title = after.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '.' | ':' | '：' | ')' | '-' | '–' | '—' | '*')
    });
    Some((id, title.trim()))
}

/// A decision node from its section: parts split by labels and sub-headings.
fn decision(
    rel: &str,
    doc: &Doc,
    start: usize,
    end: usize,
    id: String,
    title: String,
    feature: &FeatureRef,
) -> Node {
    let parts = split_parts(doc, start + 1, end);
    let mut decided = String::new();
    let mut rationale = String::new();
    let mut alternatives_text = String::new();
    let mut alternatives = Vec::new();
    for (part, text) in &parts {
        match part {
            Some(Part::Rationale) => push_para(&mut rationale, text),
            Some(Part::Alternatives) => {
                alternatives.extend(rejected(text));
                push_para(&mut alternatives_text, text);
            }
            Some(Part::Decision) | None => push_para(&mut decided, text),
        }
    }
    // The body is what was decided, then the rationale and the alternatives as written under
    // one label each (cards show an artifact's body; the fields give them to JSON as data).
    let mut body = decided;
    if !rationale.is_empty() {
        push_para(&mut body, &format!("**Rationale**: {rationale}"));
    }
    if !alternatives_text.is_empty() {
        push_para(
            &mut body,
            &format!("**Alternatives considered**:\n{alternatives_text}"),
        );
    }
    let title = specdoc::plain(&title);
    let mut node = specdoc::node(
        rel,
        doc.lines[start].no,
        id,
        Kind::Decision,
        title,
        body.clone(),
    );
    link_mentions(&mut node, &doc.text(start, end), feature);
    let fields = specdoc::fields(&mut node);
    fields.rationale = (!rationale.is_empty()).then_some(rationale);
    fields.rejected_alternatives = alternatives;
    node
}

fn push_para(out: &mut String, text: &str) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(text);
}

/// The lines `from..to` cut at every labelled part: `(part, its text)` in order; text
/// before the first label, and parts of other names, are `None`.
pub(crate) fn split_parts(doc: &Doc, from: usize, to: usize) -> Vec<(Option<Part>, String)> {
    let mut parts: Vec<(Option<Part>, String)> = vec![(None, String::new())];
    let mut heading_level: Option<u8> = None;
    for line in &doc.lines[from..to] {
        let mut starts: Option<(Option<Part>, &str)> = None;
        if !line.code {
            if let Some(h) = line.heading {
                match part_of(h.text) {
                    Some(part) => {
                        heading_level = Some(h.level);
                        starts = Some((Some(part), ""));
                    }
                    // A heading at or above a part heading's level ends that part.
                    None if heading_level.is_some_and(|l| h.level <= l) => {
                        heading_level = None;
                        starts = Some((None, line.text));
                    }
                    None => {}
                }
            } else if let Some((name, value)) = specdoc::label(line.text) {
                if let Some(part) = part_of(&name) {
                    starts = Some((Some(part), value));
                }
            }
        }
        match starts {
            Some((part, first)) => parts.push((part, first.to_string())),
            None => {
                if let Some((_, text)) = parts.last_mut() {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(line.text);
                }
            }
        }
    }
    parts.retain(|(_, text)| !text.trim().is_empty());
    parts
}

/// Rejected alternatives from their part: one per list item (`- Name: why`, `- **Name** —
/// why`, `- Name (why)`), else the whole text as one.
pub(crate) fn rejected(text: &str) -> Vec<RejectedAlternative> {
    let top = text
        .lines()
        .filter(|l| specdoc::list_item(l).is_some())
        .map(specdoc::indent)
        .min();
    let items: Vec<&str> = text
        .lines()
        .filter(|l| Some(specdoc::indent(l)) == top)
        .filter_map(specdoc::list_item)
        .collect();
    if items.is_empty() {
        let text = text.trim();
        return if text.is_empty() {
            Vec::new()
        } else {
            vec![RejectedAlternative {
                title: specdoc::short(text),
                reason: String::new(),
            }]
        };
    }
    items.into_iter().map(alternative).collect()
}

fn alternative(item: &str) -> RejectedAlternative {
    let t = item.trim();
    let (title, reason) = if let Some(rest) = t.strip_prefix("**") {
        match rest.find("**") {
            Some(close) => (&rest[..close], &rest[close + 2..]),
            None => (rest, ""),
        }
    } else if let Some(at) = t.find([':', '：']) {
        (&t[..at], &t[at..])
    } else if let Some(at) = t
        .find(" — ")
        .or_else(|| t.find(" - "))
        .or_else(|| t.find(" – "))
    {
        (&t[..at], &t[at..])
    } else if let Some(at) = t.find(" (") {
        (
            &t[..at],
            t[at..].trim().trim_start_matches('(').trim_end_matches(')'),
        )
    } else {
        (t, "")
    };
    let reason = reason.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, ':' | '：' | '-' | '–' | '—')
    });
    RejectedAlternative {
        title: specdoc::plain(title),
        reason: reason.trim().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decision_ids_in_headings() {
        assert_eq!(
            decision_id("D-6. Cache in Redis"),
            Some(("D-6", "Cache in Redis"))
        );
        assert_eq!(
            decision_id("TD-001: Keep role"),
            Some(("TD-001", "Keep role"))
        );
        assert_eq!(decision_id("R1 - Storage"), Some(("R1", "Storage")));
        assert_eq!(decision_id("FR-001: no"), None);
        assert_eq!(decision_id("Audio Processing"), None);
        assert_eq!(decision_id("HTTP2 support"), None);
    }

    #[test]
    fn alternatives_as_written() {
        let alts = rejected("- espnet-v2: lighter but less accurate\n- **Whisper** — multilingual\n- ffmpeg (pydub uses it)\n  - nested detail\n");
        let pairs: Vec<(&str, &str)> = alts
            .iter()
            .map(|a| (a.title.as_str(), a.reason.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("espnet-v2", "lighter but less accurate"),
                ("Whisper", "multilingual"),
                ("ffmpeg", "pydub uses it"),
            ]
        );
        assert_eq!(rejected("Polling, SSE").len(), 1);
    }
}
