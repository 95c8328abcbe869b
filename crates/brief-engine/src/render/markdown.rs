//! Writes a [`Card`] as Markdown: a `###` heading, one line of facts, then the parts.

use super::card::{Card, Part};
use super::writer::{bullet_list, prose_prefix, QueryHead, Writer};
use brief_model::{Detail, Kind};

/// What separates a meta line's title from its facts.
pub(crate) const META_FACTS: &str = " — ";

/// The Markdown block of a card. `bare` cards (the target, the identity) sit under a section
/// heading of their own and get no heading; at `meta` every card is one bullet line: id,
/// kind and title first, then the facts (why, status, links), so a line cut short still
/// names the node.
pub(crate) fn block(card: &Card, detail: Detail, bare: bool) -> String {
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

/// The Markdown style.
pub(crate) struct Markdown;

impl Writer for Markdown {
    fn header(&self, id: &str, title: &str) -> String {
        format!("# Context for {id}: {title}\n\n")
    }

    fn query_header(&self, head: &QueryHead<'_>) -> String {
        let QueryHead {
            query,
            found,
            id,
            title,
            confidence,
            trust,
            seeds,
        } = head;
        format!(
            "# Context for \"{query}\": {id}: {title}\n\nStart nodes, {found} ({confidence} match{trust}): {seeds}\n\n"
        )
    }

    fn block(&self, card: &Card, _kind: &Kind, detail: Detail, bare: bool) -> String {
        block(card, detail, bare)
    }

    fn meta_head(&self, block: &str) -> usize {
        block
            .find(META_FACTS)
            .unwrap_or_else(|| block.trim_end().len())
    }

    fn cut(&self, full: &str, keep: usize, id: &str, detail: Detail) -> String {
        let kept = prose_prefix(full, keep);
        // A meta line cut short keeps its title; a short mark says the facts were cut.
        if detail == Detail::Meta {
            return format!("{kept} _(cut)_\n\n");
        }
        format!("{kept}\n\n_[cut to fit; `brief show {id}` prints all]_\n\n")
    }

    fn section_heading(&self, title: &str) -> Option<String> {
        Some(format!("## {title}\n\n"))
    }

    fn list(&self, title: &str, lines: &[String]) -> String {
        bullet_list(format!("## {title}\n\n"), lines)
    }

    fn omitted_heading(&self, count: usize) -> String {
        format!(
            "## Omitted\n\n{count} more did not fit the budget, most relevant first (`brief show <ID>` prints one):\n\n"
        )
    }

    fn omitted_unlisted(&self, count: usize) -> String {
        format!(
            "## Omitted\n\n{count} more did not fit the budget; `--format json` lists them, most relevant first (`brief show <ID>` prints one).\n\n"
        )
    }

    fn successor(&self, id: &str, title: &str) -> String {
        format!("**{id}** ({title})")
    }

    fn superseded(&self, what: &str, next: Option<&str>) -> String {
        let next = next.map_or(String::new(), |id| {
            format!(" `brief context {id}` gives the current context.")
        });
        format!("> **Superseded:** {what}{next}\n\n")
    }
}
