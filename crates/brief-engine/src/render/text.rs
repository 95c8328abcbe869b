//! Writes a [`Card`] as compact text for agents: `=== KIND: ID ===`, `key: value` lines, the
//! body; no Markdown decoration of our own.

use super::card::{Card, Part};
use brief_model::{Detail, Kind};

/// The text block of a card.
pub fn block(card: &Card, kind: &Kind, detail: Detail) -> String {
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
