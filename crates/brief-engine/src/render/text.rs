//! Writes a [`Card`] as compact text for agents: `=== KIND: ID ===`, `key: value` lines, the
//! body; no Markdown decoration of our own.

use super::card::{Card, Part};
use brief_model::{Detail, Kind};

/// The text block of a card.
pub(super) fn block(card: &Card, kind: &Kind, detail: Detail) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::card::card;
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
            &card(&graph, ix, Detail::Meta, &[], None),
            &Kind::Norm,
            Detail::Meta,
        );
        assert_eq!(
            block,
            "=== NORM: NORM-09 ===\ntitle: No plaintext secrets in logs, traces or crash reports\n"
        );
    }
}
