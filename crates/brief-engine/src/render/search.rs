//! Search hits as text or JSON.

use crate::render::Format;
use brief_index::{CatalogEntry, Hit};

/// The widest the id column of search hits grows (in characters).
const MAX_ID_COLUMN: usize = 64;

/// The hits as `brief search` prints them: one line per hit, or a JSON list.
pub fn search_hits(hits: &[Hit], format: Format) -> String {
    match format.document() {
        None => {
            let mut text = serde_json::to_string_pretty(hits).unwrap_or_default();
            text.push('\n');
            text
        }
        Some(_) => {
            // The id column is as wide as the widest id up to a cap: a longer id overflows
            // its column rather than padding every line to it.
            let width = hits
                .iter()
                .map(|h| h.id.chars().count())
                .max()
                .unwrap_or(0)
                .min(MAX_ID_COLUMN);
            let mut out = String::new();
            for hit in hits {
                // Scores are shares of the best hit, already at two significant digits.
                let score = format!("{:>7}", hit.score);
                let pad = width.saturating_sub(hit.id.chars().count());
                out.push_str(&format!(
                    "{score}  {}{}  {:<12}  {}\n",
                    hit.id,
                    " ".repeat(pad),
                    hit.kind,
                    hit.title
                ));
            }
            out
        }
    }
}

/// The node index: one `ID<TAB>kind<TAB>title` line per node, sorted by id.
pub(crate) fn catalog(entries: &[CatalogEntry]) -> String {
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
