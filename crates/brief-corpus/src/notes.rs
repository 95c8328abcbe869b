//! A Markdown knowledge base as teams keep one: an Obsidian vault (`.obsidian/`, notes in
//! topic folders with wikilinks to notes and headings, embeds, tags, daily notes) beside
//! Nygard ADRs as adr-tools writes them (`.adr-dir`, `docs/adr/NNNN-slug.md`, status link lines
//! that supersede earlier records), and docs that link to both with relative links.

use std::fmt::Write as _;
use std::path::Path;

use super::{paragraph, write, Rng, Structure, TOPICS};

const HEADINGS: &[&str] = &["Budget", "Context", "Open questions", "Rules", "Examples"];

/// Writes about `total` Markdown files: 5% ADRs, 5% docs, the rest vault notes.
pub(crate) fn generate(
    out: &Path,
    total: usize,
    rng: &mut Rng,
) -> Result<(usize, Structure), String> {
    write(&out.join(".adr-dir"), "docs/adr\n")?;
    write(
        &out.join(".obsidian/app.json"),
        "{\n  \"newLinkFormat\": \"shortest\",\n  \"useMarkdownLinks\": false\n}\n",
    )?;
    let adrs = (total * 5 / 100).max(2);
    let docs = (total * 5 / 100).max(1);
    let notes = total.saturating_sub(adrs + docs).max(1);

    // Notes: `Topic/Topic note N.md`, unique base names so `[[Topic note N]]` resolves.
    let note_name = |i: usize| format!("{} note {i}", TOPICS[i % TOPICS.len()]);
    let note_path = |i: usize| format!("{}/{}.md", TOPICS[i % TOPICS.len()], note_name(i));
    let adr_slug = |n: usize| {
        format!(
            "{n:04}-decide-{}-{n}",
            TOPICS[n % TOPICS.len()].to_lowercase()
        )
    };

    for n in 1..=adrs {
        let mut text = format!(
            "# {n}. Decide {} {n}\n\nDate: 20{:02}-{:02}-{:02}\n\n## Status\n\n",
            TOPICS[n % TOPICS.len()].to_lowercase(),
            18 + n % 7,
            1 + n % 12,
            1 + n % 28
        );
        // Every tenth ADR is superseded by the next one; the next one says so too.
        if n % 10 == 1 && n < adrs {
            let _ = writeln!(
                text,
                "Superceded by [{}. Decide]({}.md)\n",
                n + 1,
                adr_slug(n + 1)
            );
        } else {
            text.push_str("Accepted\n\n");
        }
        if n % 10 == 2 {
            let _ = writeln!(
                text,
                "Supercedes [{}. Decide]({}.md)\n",
                n - 1,
                adr_slug(n - 1)
            );
        }
        let linked = rng.below(notes);
        let _ = write!(
            text,
            "## Context\n\n{}\nSee [[{}#Budget]] and [ADR {}]({}.md).\n\n## Decision\n\n{}\n\n## Consequences\n\n{}\n",
            paragraph(rng, 4),
            note_name(linked),
            n.max(2) - 1,
            adr_slug(n.max(2) - 1),
            paragraph(rng, 3),
            paragraph(rng, 2),
        );
        write(
            &out.join("docs/adr").join(format!("{}.md", adr_slug(n))),
            &text,
        )?;
    }

    for d in 0..docs {
        let adr = 1 + rng.below(adrs);
        let other = rng.below(docs);
        let text = format!(
            "# {} guide {d}\n\n{}\n\n## Budget\n\nThe limits come from [ADR {adr}](../adr/{}.md) and the\n[{} guide](../guides/guide-{other}.md#budget).\n\n{}\n",
            TOPICS[d % TOPICS.len()],
            paragraph(rng, 3),
            adr_slug(adr),
            TOPICS[other % TOPICS.len()],
            paragraph(rng, 3),
        );
        write(&out.join(format!("docs/guides/guide-{d}.md")), &text)?;
    }

    for i in 0..notes {
        let mut text = format!(
            "---\ntags: [{}, generated]\ncreated: 2024-{:02}-{:02}\n---\n# {}\n\n{}\n\n",
            TOPICS[i % TOPICS.len()].to_lowercase(),
            1 + i % 12,
            1 + i % 28,
            note_name(i),
            paragraph(rng, 4)
        );
        for heading in [HEADINGS[i % HEADINGS.len()], "Budget"] {
            let _ = writeln!(text, "## {heading}\n");
            let links = 2 + rng.below(3);
            for _ in 0..links {
                let to = rng.below(notes);
                match rng.below(4) {
                    0 => {
                        let h = HEADINGS[rng.below(HEADINGS.len())];
                        let _ = writeln!(text, "- [[{}#{h}|see {h}]]", note_name(to));
                    }
                    1 => {
                        let _ = writeln!(text, "- ![[{}#Budget]]", note_name(to));
                    }
                    _ => {
                        let _ = writeln!(text, "- [[{}]] #topic/{}", note_name(to), to % 7);
                    }
                }
            }
            let _ = writeln!(text, "\n{}\n", paragraph(rng, 2));
        }
        if i % 20 == 0 {
            let adr = 1 + rng.below(adrs);
            let _ = writeln!(text, "Decided in [[{}]].", adr_slug(adr));
        }
        write(&out.join(note_path(i)), &text)?;
    }
    Ok((adrs + docs + notes, Structure::Unlabelled))
}
