//! Writes a [`Card`] as compact text for agents: `=== KIND: ID ===`, `key: value` lines, the
//! body; no Markdown decoration of our own.

use super::card::{Card, Part};
use super::writer::{bullet_list, prose_prefix, QueryHead, Writer};
use brief_model::{Detail, Kind};

/// The text block of a card.
pub(crate) fn block(card: &Card, kind: &Kind, detail: Detail) -> String {
    let mut out = String::new();
    if *kind == Kind::Identity {
        out.push_str("=== IDENTITY ===\n");
    } else {
        out.push_str(&format!(
            "=== {}: {} ===\n",
            card.kind.to_ascii_uppercase(),
            card.id
        ));
    }
    out.push_str(&format!("title: {}\n", card.title));
    for (key, value) in &card.facts {
        out.push_str(&format!("{key}: {value}\n"));
    }
    if detail == Detail::Meta {
        return out;
    }
    for part in &card.parts {
        match part {
            Part::Text(text) => {
                out.push_str(text);
                out.push('\n');
            }
            Part::Labeled(label, text) => {
                out.push_str(&format!("{}: {text}\n", label.to_ascii_lowercase()))
            }
            Part::List(label, items) => {
                out.push_str(&format!("{}:\n", label.to_ascii_lowercase()));
                for item in items {
                    out.push_str(&format!("- {item}\n"));
                }
            }
            Part::Fields(fields) => {
                for (name, value) in fields {
                    out.push_str(&format!("{name}: {value}\n"));
                }
            }
            Part::Markdown(text) => {
                out.push('\n');
                out.push_str(text);
                out.push('\n');
            }
        }
    }
    out
}

/// The compact text style.
pub(crate) struct Text;

impl Writer for Text {
    fn header(&self, id: &str, title: &str) -> String {
        format!("context: {id} ({title})\n\n")
    }

    fn query_header(&self, head: &QueryHead<'_>) -> String {
        let QueryHead {
            query,
            id,
            title,
            confidence,
            trust,
            seeds,
            ..
        } = head;
        format!(
            "context: \"{query}\" → {id} ({title})\nstart nodes ({confidence} match{trust}): {seeds}\n\n"
        )
    }

    fn block(&self, card: &Card, kind: &Kind, detail: Detail, _bare: bool) -> String {
        block(card, kind, detail)
    }

    fn meta_head(&self, block: &str) -> usize {
        block
            .find("\ntitle: ")
            .and_then(|at| block[at + 1..].find('\n').map(|end| at + 1 + end))
            .unwrap_or_else(|| block.trim_end().len())
    }

    fn cut(&self, full: &str, keep: usize, id: &str, detail: Detail) -> String {
        let kept = prose_prefix(full, keep);
        // A meta line cut short keeps its title; a short mark says the facts were cut.
        if detail == Detail::Meta {
            return format!("{kept} (cut)\n\n");
        }
        format!("{kept}\n[cut to fit; brief show {id} prints all]\n\n")
    }

    fn section_heading(&self, _title: &str) -> Option<String> {
        None
    }

    fn list(&self, title: &str, lines: &[String]) -> String {
        bullet_list(format!("=== {} ===\n", title.to_ascii_uppercase()), lines)
    }

    fn omitted_heading(&self, count: usize) -> String {
        format!("=== OMITTED ===\n{count} more did not fit the budget, most relevant first:\n")
    }

    fn omitted_unlisted(&self, count: usize) -> String {
        format!(
            "=== OMITTED ===\n{count} more did not fit the budget; --format json lists them, most relevant first.\n"
        )
    }

    fn successor(&self, id: &str, title: &str) -> String {
        format!("{id} ({title})")
    }

    fn superseded(&self, what: &str, next: Option<&str>) -> String {
        let next = next.map_or(String::new(), |id| {
            format!(" brief context {id} gives the current context.")
        });
        format!("SUPERSEDED: {what}{next}\n\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::card::card;
    use crate::render::Bodies;
    use brief_model::testing::node;
    use brief_model::Graph;

    /// A title over several lines makes one `title:` line, so a meta line cut after the title
    /// keeps all of it.
    #[test]
    fn the_title_line_holds_a_title_written_over_several_lines() {
        let mut norm = node("NORM-09", Kind::Norm, &[]);
        norm.title = "No plaintext secrets\nin logs, traces\nor crash reports".into();
        let (graph, _) = Graph::build(vec![norm]);
        let ix = graph.lookup("NORM-09").unwrap();
        let block = block(
            &card(&graph, ix, Detail::Meta, &[], None, &Bodies::default()),
            &Kind::Norm,
            Detail::Meta,
        );
        assert_eq!(
            block,
            "=== NORM: NORM-09 ===\ntitle: No plaintext secrets in logs, traces or crash reports\n"
        );
    }
}
