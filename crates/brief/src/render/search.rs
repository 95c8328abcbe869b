//! Search hits as text or JSON.

use crate::index::Hit;
use crate::render::Format;

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
                let score = if hit.score.is_finite() {
                    format!("{:7.3}", hit.score)
                } else {
                    "  exact".to_string()
                };
                out.push_str(&format!(
                    "{score}  {:width$}  {:<12}  {}\n",
                    hit.id, hit.kind, hit.title
                ));
            }
            out
        }
    }
}
