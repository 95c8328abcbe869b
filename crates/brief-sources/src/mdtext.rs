//! Scanning Markdown text for the knowledge-base reader: links and wikilinks (outside code
//! spans), `@imports`, inline tags, percent escapes, GitHub anchors and dates on a line.

/// A link found in a line: its byte offset, target, and whether it is a wikilink/embed.
pub(super) struct Found {
    pub start: usize,
    pub target: String,
    pub wiki: bool,
    pub embed: bool,
}

pub(super) fn inline_links(text: &str) -> Vec<Found> {
    if !text.contains('[') {
        return Vec::new();
    }
    let text = blank_code(text);
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'[' && bytes.get(i + 1) == Some(&b'[') {
            if let Some(end) = text[i + 2..].find("]]") {
                let inner = &text[i + 2..i + 2 + end];
                let embed = i > 0 && bytes[i - 1] == b'!';
                let target = inner.split('|').next().unwrap_or("").trim().to_string();
                out.push(Found {
                    start: if embed { i - 1 } else { i },
                    target,
                    wiki: true,
                    embed,
                });
                i += end + 4;
                continue;
            }
        }
        if bytes[i] == b'[' {
            if let Some(close) = text[i..].find("](") {
                let open = i + close + 2;
                if let Some(end) = text[open..].find(')') {
                    let raw = text[open..open + end].trim();
                    let raw = raw.split(" \"").next().unwrap_or(raw);
                    let target = raw.trim_matches(['<', '>']).to_string();
                    let embed = i > 0 && bytes[i - 1] == b'!';
                    if !embed {
                        out.push(Found {
                            start: i,
                            target,
                            wiki: false,
                            embed: false,
                        });
                    }
                    i = open + end + 1;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

/// The text with inline code spans replaced by spaces (positions kept).
pub(super) fn blank_code(text: &str) -> String {
    if !text.contains('`') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for c in text.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else if in_code {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    out
}

/// A GitHub anchor as the heading it names (`provider-calls` → `Provider calls`); a heading
/// written out (a wikilink's) stays as written.
pub(super) fn deslug(anchor: &str) -> String {
    if anchor.starts_with('^') || anchor.contains(' ') || anchor.chars().any(char::is_uppercase) {
        return anchor.to_string();
    }
    let text = anchor.replace('-', " ");
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => text,
    }
}

pub(super) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() && text.is_char_boundary(i + 3) {
            if let Ok(b) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// `@path` imports (Claude Code): a word starting with `@` that names a file.
pub(super) fn imports(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let blanked = blank_code(text);
    for (at, _) in blanked.match_indices('@') {
        if at > 0 && !blanked.as_bytes()[at - 1].is_ascii_whitespace() {
            continue;
        }
        let word = &blanked[at + 1..];
        let end = word
            .find(|c: char| c.is_whitespace() || c == ')' || c == ',')
            .unwrap_or(word.len());
        let word = word[..end].trim_end_matches('.');
        if !word.is_empty() {
            out.push((at, &text[at + 1..at + 1 + word.len()]));
        }
    }
    out
}

/// Inline `#tag` / `#tag/sub`: not digits only, not in code, links or URLs.
pub(super) fn inline_tags(text: &str) -> Vec<String> {
    if !text.contains('#') {
        return Vec::new();
    }
    let mut clean = blank_code(text);
    // Blank link targets and wikilinks: their `#` are anchors.
    for found in inline_links(&clean.clone()) {
        let end = clean[found.start..]
            .find([')', ']'])
            .map_or(clean.len(), |e| found.start + e);
        clean.replace_range(found.start..end, &" ".repeat(end - found.start));
    }
    let mut out = Vec::new();
    let bytes = clean.as_bytes();
    for (at, _) in clean.match_indices('#') {
        if at > 0 && !bytes[at - 1].is_ascii_whitespace() && bytes[at - 1] != b'(' {
            continue;
        }
        let word: String = clean[at + 1..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '/'))
            .collect();
        let word = word.trim_end_matches(['/', '-']);
        if !word.is_empty() && !word.chars().all(|c| c.is_ascii_digit()) {
            // A bare URL's fragment follows a non-space, handled above.
            out.push(word.to_string());
        }
    }
    out
}

/// The newest date on a line: ISO `YYYY-MM-DD`, or `dd/mm/yyyy` (early adr-tools).
pub(super) fn newest_date(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut best: Option<String> = None;
    for i in 0..chars.len() {
        let window: String = chars[i..(i + 10).min(chars.len())].iter().collect();
        let b = window.as_bytes();
        let date = if b.len() == 10
            && b[..4].iter().all(u8::is_ascii_digit)
            && b[4] == b'-'
            && b[7] == b'-'
            && b[5..7].iter().chain(&b[8..10]).all(u8::is_ascii_digit)
        {
            Some(window.clone())
        } else if b.len() == 10
            && b[2] == b'/'
            && b[5] == b'/'
            && b.iter()
                .enumerate()
                .all(|(k, c)| k == 2 || k == 5 || c.is_ascii_digit())
        {
            Some(format!(
                "{}-{}-{}",
                &window[6..10],
                &window[3..5],
                &window[..2]
            ))
        } else {
            None
        };
        if let Some(date) = date {
            if best.as_ref().is_none_or(|b| &date > b) {
                best = Some(date);
            }
        }
    }
    best
}
