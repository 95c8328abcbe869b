//! Rich text in names: inline references and dates resolved, other tags dropped, entities
//! decoded.

use super::*;

/// Resolves a name's spans: `data-inlineref-node` → `[[name]]` (and the referenced doc),
/// `data-inlineref-date` → the date; other tags are dropped and entities decoded.
pub(super) fn resolve(
    raw: &str,
    lookup: &dyn Fn(&str) -> Option<(u32, String)>,
) -> (String, Vec<u32>) {
    let mut refs = Vec::new();
    if !raw.contains(['<', '&']) {
        return (raw.to_string(), refs);
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(open) = rest.find('<') {
        out.push_str(&decode(&rest[..open]));
        let tag_text = &rest[open..];
        let Some(close) = tag_text.find('>') else {
            // A lone `<`: text, not a tag.
            out.push_str(&decode(tag_text));
            rest = "";
            break;
        };
        let tag = &tag_text[..=close];
        rest = &tag_text[close + 1..];
        if tag.starts_with("<span") {
            let node = attribute(tag, "data-inlineref-node");
            let date = attribute(tag, "data-inlineref-date");
            if node.is_some() || date.is_some() {
                // The span's own text (usually empty) is replaced.
                let (inner, after) = match rest.find("</span>") {
                    Some(end) => (&rest[..end], &rest[end + "</span>".len()..]),
                    None => (rest, ""),
                };
                rest = after;
                if let Some(id) = node {
                    match lookup(&id) {
                        Some((doc, name)) => {
                            out.push_str(&format!("[[{}]]", name.trim()));
                            refs.push(doc);
                        }
                        None => {
                            let inner = plain(inner);
                            out.push_str(&format!(
                                "[[{}]]",
                                if inner.trim().is_empty() {
                                    id.as_str()
                                } else {
                                    inner.trim()
                                }
                            ));
                        }
                    }
                } else if let Some(date) = date.as_deref().and_then(date_of) {
                    out.push_str(&date);
                } else {
                    out.push_str(&plain(inner));
                }
            }
        }
    }
    out.push_str(&decode(rest));
    (out, refs)
}

/// The most characters of a referenced node's name an inline reference shows (a longer name
/// is cut with `…`): a name made of thousands of references then grows linearly.
pub(super) const REF_NAME_CHARS: usize = 120;

/// The most bytes of a referenced node's raw name read to find them.
pub(super) const REF_NAME_SCAN: usize = 4096;

/// A referenced node's name as an inline reference shows it: plain text, whitespace
/// collapsed, at most [`REF_NAME_CHARS`] characters, read from at most [`REF_NAME_SCAN`]
/// bytes of the raw name.
pub(super) fn ref_name(raw: &str) -> String {
    let mut end = raw.len().min(REF_NAME_SCAN);
    while !raw.is_char_boundary(end) {
        end -= 1;
    }
    let mut cut = &raw[..end];
    // A tag cut in half is dropped, not shown as text.
    if end < raw.len() {
        if let Some(open) = cut.rfind('<').filter(|&open| !cut[open..].contains('>')) {
            cut = &cut[..open];
        }
    }
    let text = plain(cut);
    let mut out = String::new();
    let mut chars = 0;
    let mut shortened = end < raw.len();
    for word in text.split_whitespace() {
        let len = word.chars().count();
        if chars + len + usize::from(chars > 0) > REF_NAME_CHARS {
            shortened = true;
            if chars == 0 {
                out.extend(word.chars().take(REF_NAME_CHARS));
            }
            break;
        }
        if chars > 0 {
            out.push(' ');
            chars += 1;
        }
        out.push_str(word);
        chars += len;
    }
    if shortened {
        out.push('…');
    }
    out
}

/// A name as plain text: spans and tags dropped (their text kept), entities decoded.
pub(super) fn plain(raw: &str) -> String {
    if !raw.contains(['<', '&']) {
        return raw.to_string();
    }
    resolve(raw, &|_| None).0
}

/// The value of `name="…"` in a tag, entities decoded.
pub(super) fn attribute(tag: &str, name: &str) -> Option<String> {
    let at = tag.find(name)?;
    let rest = tag[at + name.len()..].trim_start().strip_prefix('=')?;
    let rest = rest.trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = &rest[1..];
    let end = body.find(quote)?;
    Some(decode(&body[..end]).into_owned())
}

/// `dateTimeString` out of a date span's JSON (`{"dateTimeString":"2026-03-02",…}`).
pub(super) fn date_of(json: &str) -> Option<String> {
    let at = json.find("dateTimeString")?;
    let rest = &json[at + "dateTimeString".len()..];
    let start = rest.find(':')? + 1;
    let rest = rest[start..].trim_start().strip_prefix('"')?;
    let end = rest.find('"')?;
    let value = rest[..end].trim();
    (!value.is_empty()).then(|| value.to_string())
}

pub(super) fn decode(text: &str) -> Cow<'_, str> {
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let entity = [
            ("&amp;", "&"),
            ("&lt;", "<"),
            ("&gt;", ">"),
            ("&quot;", "\""),
            ("&#39;", "'"),
            ("&#x27;", "'"),
            ("&apos;", "'"),
            ("&nbsp;", " "),
        ]
        .iter()
        .find(|(e, _)| rest.starts_with(e));
        match entity {
            Some((e, c)) => {
                out.push_str(c);
                rest = &rest[e.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Epoch milliseconds as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
pub(super) fn iso_time(ms: i64) -> String {
    brief_model::iso_utc(ms.div_euclid(1000))
}
