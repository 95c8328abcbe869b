//! Writes a document as XML-tagged text: the context in one `<context>` element, each node in
//! a `<document>` element with its id, kind and reason as attributes, the way documents are
//! best given to Claude. Everything brief did not write itself is escaped.

use super::card::{Card, Part};
use super::writer::{QueryHead, Writer};
use brief_model::{Detail, Kind};

/// The XML style.
pub(crate) struct Xml;

/// `text` with `&`, `<` and `>` escaped (element content).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` escaped for a double-quoted attribute, on one line.
fn attribute(text: &str) -> String {
    escape(text)
        .replace('"', "&quot;")
        .replace(['\n', '\r', '\t'], " ")
}

/// A fact by its key, if the card has it.
fn fact<'a>(card: &'a Card, key: &str) -> Option<&'a str> {
    card.facts
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

impl Writer for Xml {
    fn header(&self, id: &str, title: &str) -> String {
        format!(
            "<context target=\"{}\" title=\"{}\">\n\n",
            attribute(id),
            attribute(title)
        )
    }

    fn query_header(&self, head: &QueryHead<'_>) -> String {
        let trust = head.trust.trim_start_matches("; ");
        let note = if trust.is_empty() {
            String::new()
        } else {
            format!(" note=\"{}\"", attribute(trust))
        };
        format!(
            "<context query=\"{}\" target=\"{}\" title=\"{}\">\n<start confidence=\"{}\" nodes=\"{}\"{note}/>\n\n",
            attribute(head.query),
            attribute(head.id),
            attribute(head.title),
            attribute(head.confidence),
            attribute(head.seeds),
        )
    }

    fn footer(&self) -> Option<String> {
        Some("</context>\n".into())
    }

    fn block(&self, card: &Card, _kind: &Kind, detail: Detail, _bare: bool) -> String {
        let mut out = format!(
            "<document id=\"{}\" kind=\"{}\"",
            attribute(&card.id),
            attribute(&card.kind)
        );
        if let Some(why) = fact(card, "why") {
            out.push_str(&format!(" reason=\"{}\"", attribute(why)));
        }
        out.push_str(&format!(
            " detail=\"{}\">\n<title>{}</title>\n",
            detail.name(),
            escape(&card.title)
        ));
        for (key, value) in card.facts.iter().filter(|(k, _)| k != "why") {
            out.push_str(&format!("{}: {}\n", escape(key), escape(value)));
        }
        if detail > Detail::Meta {
            for part in &card.parts {
                out.push_str(&part_text(part));
            }
        }
        out.push_str("</document>\n");
        out
    }

    fn meta_head(&self, block: &str) -> usize {
        block
            .find("</title>\n")
            .map(|at| at + "</title>\n".len())
            .unwrap_or_else(|| block.trim_end().len())
    }

    fn body_at(&self, block: &str) -> usize {
        let title_end = self.meta_head(block);
        // Past the facts (`key: value` lines).
        let mut at = title_end;
        for line in block[title_end..].split_inclusive('\n') {
            let fact = line.split_once(": ").is_some_and(|(key, _)| {
                !key.is_empty()
                    && key
                        .chars()
                        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' '))
            });
            if !fact {
                break;
            }
            at += line.len();
        }
        at
    }

    fn body_end(&self, block: &str) -> usize {
        block.rfind("</document>").unwrap_or(block.len())
    }

    fn cut(&self, full: &str, keep: usize, id: &str, _detail: Detail) -> String {
        // The content is escaped text between the document's tags: a cut ends before any
        // tag or character reference it would split, and the element is closed.
        let body_end = full.rfind("</document>").unwrap_or(full.len());
        let mut end = keep.min(body_end);
        while !full.is_char_boundary(end) {
            end -= 1;
        }
        let kept = &full[..end];
        let open = kept.rfind(['&', '<']).filter(|&at| {
            let closer = if kept[at..].starts_with('&') {
                ';'
            } else {
                '>'
            };
            !kept[at..].contains(closer)
        });
        let kept = open.map_or(kept, |at| &kept[..at]).trim_end();
        format!(
            "{kept} …\n<cut>cut to fit; brief show {} prints all</cut>\n</document>\n\n",
            escape(id)
        )
    }

    fn section_heading(&self, _title: &str) -> Option<String> {
        None
    }

    fn list(&self, title: &str, lines: &[String]) -> String {
        let mut out = format!("<list title=\"{}\">\n", attribute(title));
        for line in lines {
            out.push_str(&format!("<item>{}</item>\n", escape(line)));
        }
        out.push_str("</list>\n\n");
        out
    }

    fn omitted_heading(&self, count: usize) -> String {
        format!("<omitted count=\"{count}\" order=\"most relevant first\"/>\n")
    }

    fn omitted_line(&self, id: &str, kind: &str, title: &str) -> String {
        format!(
            "<left_out id=\"{}\" kind=\"{}\" title=\"{}\"/>\n",
            attribute(id),
            attribute(kind),
            attribute(title)
        )
    }

    fn more_omitted(&self, count: usize) -> String {
        format!("<left_out more=\"{count}\" see=\"--format json\"/>\n")
    }

    fn omitted_unlisted(&self, count: usize) -> String {
        format!(
            "<omitted count=\"{count}\" order=\"most relevant first\" see=\"--format json\"/>\n"
        )
    }

    fn successor(&self, id: &str, title: &str) -> String {
        format!("{id} ({title})")
    }

    fn superseded(&self, what: &str, next: Option<&str>) -> String {
        let next = next.map_or(String::new(), |id| {
            format!(" current=\"{}\"", attribute(id))
        });
        format!("<superseded{next}>{}</superseded>\n\n", escape(what))
    }
}

/// One part of a card as escaped text lines.
fn part_text(part: &Part) -> String {
    match part {
        Part::Text(text) | Part::Markdown(text) => format!("{}\n", escape(text)),
        Part::Labeled(label, text) => {
            format!(
                "{}: {}\n",
                escape(&label.to_ascii_lowercase()),
                escape(text)
            )
        }
        Part::List(label, items) => {
            let mut out = format!("{}:\n", escape(&label.to_ascii_lowercase()));
            for item in items {
                out.push_str(&format!("- {}\n", escape(item)));
            }
            out
        }
        Part::Fields(fields) => fields
            .iter()
            .map(|(name, value)| format!("{}: {}\n", escape(name), escape(value)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_attributes_are_escaped() {
        assert_eq!(
            escape("a < b && c > \"d\""),
            "a &lt; b &amp;&amp; c &gt; \"d\""
        );
        assert_eq!(
            attribute("say \"hi\"\nto <x>"),
            "say &quot;hi&quot; to &lt;x&gt;"
        );
    }

    /// A cut never ends inside a tag or a character reference, and closes the element.
    #[test]
    fn a_cut_never_splits_a_tag_or_a_reference() {
        let full = "<document id=\"A\" kind=\"norm\" detail=\"full\">\n<title>T</title>\nstatus: active\nx &amp; y &lt; z\n</document>\n\n";
        let head = Xml.head(full, Detail::Full);
        for keep in head..full.len() {
            let cut = Xml.cut(full, keep, "A", Detail::Full);
            assert!(cut.starts_with("<document id=\"A\""), "{cut}");
            assert!(cut.ends_with("</cut>\n</document>\n\n"), "{cut}");
            let body = &cut[..cut.find(" …\n<cut>").unwrap()];
            let open_ref = body.rfind('&').is_some_and(|at| !body[at..].contains(';'));
            let open_tag = body.rfind('<').is_some_and(|at| !body[at..].contains('>'));
            assert!(!open_ref && !open_tag, "keep {keep}: {cut}");
        }
        assert_eq!(
            &full[..Xml.meta_head(full)],
            "<document id=\"A\" kind=\"norm\" detail=\"full\">\n<title>T</title>\n"
        );
        assert!(full[..head].contains("status: active\n"));
    }
}
