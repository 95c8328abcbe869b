//! Writes a [`Card`] as Markdown: a `###` heading, one line of facts, then the parts.

use super::card::{Card, Part};
use brief_model::Detail;

/// What separates a meta line's title from its facts.
pub(crate) const META_FACTS: &str = " — ";

/// The Markdown block of a card. `bare` cards (the target, the identity) sit under a section
/// heading of their own and get no heading; at `meta` every card is one bullet line: id,
/// kind and title first, then the facts (why, status, links), so a line cut short still
/// names the node.
pub(super) fn block(card: &Card, detail: Detail, bare: bool) -> String {
    let mut out = String::new();
    if detail == Detail::Meta {
        out.push_str(&format!(
            "- **{}** ({}): {}",
            card.id, card.kind, card.title
        ));
        let facts: Vec<String> = card
            .facts
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        if !facts.is_empty() {
            out.push_str(META_FACTS);
            out.push_str(&facts.join("; "));
        }
        out.push('\n');
        return out;
    }
    if !bare {
        out.push_str(&format!("### {}: {}\n", card.id, card.title));
    }
    let mut facts = vec![card.kind.clone()];
    facts.extend(card.facts.iter().map(|(k, v)| format!("{k}: {v}")));
    out.push_str(&format!("_{}_\n", facts.join(" · ")));
    for part in &card.parts {
        out.push('\n');
        match part {
            Part::Text(text) | Part::Markdown(text) => {
                out.push_str(text);
                out.push('\n');
            }
            Part::Labeled(label, text) => out.push_str(&format!("**{label}:** {text}\n")),
            Part::List(label, items) => {
                out.push_str(&format!("**{label}:**\n"));
                for item in items {
                    out.push_str(&format!("- {item}\n"));
                }
            }
            Part::Fields(fields) => {
                for (name, value) in fields {
                    out.push_str(&format!("- **{name}:** {value}\n"));
                }
            }
        }
    }
    out
}
