//! What a decision record adds: its rationale (`## Context`) and MADR's rejected
//! alternatives (every considered option but the chosen one, with its `Bad, because` lines).

use super::lines::Lines;
use brief_model::RejectedAlternative;

/// The `## Context` (or MADR's `## Context and Problem Statement`) section.
pub(super) fn rationale(lines: &Lines) -> Option<String> {
    lines
        .section_text(&["context", "context and problem statement"])
        .filter(|t| !t.is_empty())
}

/// MADR: every considered option but the chosen one, with its `Bad, because` lines.
pub(super) fn rejected(lines: &Lines) -> Vec<RejectedAlternative> {
    let options: Vec<String> = lines
        .section(&["considered options"])
        .iter()
        .filter_map(|l| bullet(&l.text).map(option_title))
        .collect();
    if options.is_empty() {
        return Vec::new();
    }
    let outcome = lines
        .section_text(&["decision outcome"])
        .unwrap_or_default();
    let chosen = outcome.split_once("Chosen option:").and_then(|(_, rest)| {
        let rest = rest.trim().trim_start_matches(['"', '“']);
        rest.find(['"', '”']).map(|end| option_title(&rest[..end]))
    });
    let pros = lines.section(&["pros and cons of the options"]);
    options
        .into_iter()
        .filter(|o| chosen.as_deref().is_none_or(|c| !same_option(c, o)))
        .map(|title| {
            let mut inside = false;
            let mut reasons = Vec::new();
            for line in pros {
                if let Some(h) = line.text.strip_prefix("### ") {
                    inside = same_option(&option_title(h.trim()), &title);
                    continue;
                }
                let t = line.text.trim();
                let t = bullet(t).unwrap_or(t);
                if inside {
                    if let Some(r) = t.strip_prefix("Bad, because") {
                        reasons.push(r.trim().to_string());
                    }
                }
            }
            RejectedAlternative {
                title,
                reason: reasons.join("; "),
            }
        })
        .collect()
}

/// A list item's text.
fn bullet(text: &str) -> Option<&str> {
    let t = text.trim();
    t.strip_prefix("* ").or(t.strip_prefix("- ")).map(str::trim)
}

/// An option's title without link markup or a ` – description`.
fn option_title(text: &str) -> String {
    let mut t = text.trim().to_string();
    if let (Some(open), Some(close)) = (t.find('['), t.find("](")) {
        if open < close {
            let end = t[close..].find(')').map_or(t.len(), |e| close + e + 1);
            let label = t[open + 1..close].to_string();
            t.replace_range(open..end, &label);
        }
    }
    let t = t.split(" – ").next().unwrap_or(&t).to_string();
    t.trim().trim_matches(['"', '“', '”']).to_string()
}

fn same_option(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}
