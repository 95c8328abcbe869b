//! Search hits as text or JSON.

use crate::render::Format;
use brief_index::{CatalogEntry, Hit};

/// The hits as `brief search` prints them: one line per hit, or a JSON list.
pub fn hits(hits: &[Hit], format: Format) -> String {
    match format {
        Format::Json => {
            let mut text = serde_json::to_string_pretty(hits).unwrap_or_default();
            text.push('\n');
            text
        }
        Format::Markdown | Format::Text => {
            let width = hits.iter().map(|h| h.id.len()).max().unwrap_or(0);
            let mut out = String::new();
            for hit in hits {
                // Scores are shares of the best hit, already at two significant digits.
                let score = format!("{:>7}", hit.score);
                out.push_str(&format!(
                    "{score}  {:width$}  {:<12}  {}\n",
                    hit.id, hit.kind, hit.title
                ));
            }
            out
        }
    }
}

/// The node index: one `ID<TAB>kind<TAB>title` line per node, sorted by id.
pub fn catalog(entries: &[CatalogEntry]) -> String {
    let mut text = String::new();
    for entry in entries {
        text.push_str(&entry.id);
        text.push('\t');
        text.push_str(&entry.kind);
        text.push('\t');
        text.push_str(&entry.title.replace(['\n', '\t'], " "));
        text.push('\n');
    }
    text
}
