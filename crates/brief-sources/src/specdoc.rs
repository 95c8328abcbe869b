//! The Markdown toolkit of the spec-driven sources (Spec Kit, Kiro): a file as lines with its
//! headings (fenced code known), sections, labelled parts (`**Rationale**:`, `### Decision`),
//! the ids a text mentions, the file paths it names, and the node every item becomes.
//!
//! Every scan is one pass over its input (a section's end is found once per heading).

use brief_model::{ArtifactFields, Content, Kind, Link, Location, Node, Origin, Relation};

/// A heading: its level (1–6) and its text, trimmed (closing `#`s dropped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Heading<'t> {
    pub level: u8,
    pub text: &'t str,
}

/// One line of a file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line<'t> {
    /// 1-based line number in the file.
    pub no: u32,
    pub text: &'t str,
    /// Inside a fenced code block (the fence lines included).
    pub code: bool,
    pub heading: Option<Heading<'t>>,
}

/// A Markdown file as lines, with the end of every heading's section computed once.
pub(crate) struct Doc<'t> {
    pub lines: Vec<Line<'t>>,
    /// For a heading line: the index of the first line after its section.
    ends: Vec<usize>,
}

impl<'t> Doc<'t> {
    /// Reads `text`, whose first line is line `first` of its file.
    pub(crate) fn new(text: &'t str, first: u32) -> Doc<'t> {
        let mut lines = Vec::new();
        let mut fence: Option<(u8, usize)> = None;
        for (i, raw) in text.split('\n').enumerate() {
            let text = raw.strip_suffix('\r').unwrap_or(raw);
            let trimmed = text.trim_start();
            let indent = text.len() - trimmed.len();
            let marker = trimmed.as_bytes().first().copied();
            let run = |c: u8| trimmed.bytes().take_while(|&b| b == c).count();
            let mut code = fence.is_some();
            match (fence, marker) {
                (None, Some(c @ (b'`' | b'~'))) if indent < 4 && run(c) >= 3 => {
                    fence = Some((c, run(c)));
                    code = true;
                }
                (Some((c, n)), Some(m))
                    if m == c && run(c) >= n && trimmed[run(c)..].trim().is_empty() =>
                {
                    fence = None;
                }
                _ => {}
            }
            let heading = if code { None } else { heading(text) };
            lines.push(Line {
                no: first + i as u32,
                text,
                code,
                heading,
            });
        }
        // Section ends: a stack of open headings, closed by the next heading at their level
        // or above.
        let mut ends = vec![lines.len(); lines.len()];
        let mut open: Vec<(u8, usize)> = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if let Some(h) = line.heading {
                while let Some(&(level, at)) = open.last() {
                    if level < h.level {
                        break;
                    }
                    ends[at] = i;
                    open.pop();
                }
                open.push((h.level, i));
            }
        }
        Doc { lines, ends }
    }

    /// The first level-1 heading: its line index and text.
    pub(crate) fn title(&self) -> Option<(usize, &'t str)> {
        self.lines
            .iter()
            .enumerate()
            .find_map(|(i, l)| match l.heading {
                Some(Heading { level: 1, text }) => Some((i, text)),
                _ => None,
            })
    }

    /// The index just past the section a heading at `i` opens (the end of the file for a
    /// line that is not a heading).
    pub(crate) fn end(&self, i: usize) -> usize {
        self.ends.get(i).copied().unwrap_or(self.lines.len())
    }

    /// The lines `from..to` as text, without leading and trailing blank lines.
    pub(crate) fn text(&self, from: usize, to: usize) -> String {
        let to = to.min(self.lines.len());
        let mut from = from.min(to);
        let mut to = to;
        while from < to && self.lines[from].text.trim().is_empty() {
            from += 1;
        }
        while to > from && self.lines[to - 1].text.trim().is_empty() {
            to -= 1;
        }
        let mut out = String::new();
        for line in &self.lines[from..to] {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(line.text);
        }
        out
    }

    /// The line after the list item (or item-like line) at `start`: its continuation lines and
    /// nested items belong to it; a heading, an item at its indent or less, or text at its indent
    /// after a blank line ends it. Trailing blank lines are not part of it.
    pub(crate) fn item_end(&self, start: usize, to: usize) -> usize {
        let doc = self;
        let item_indent = indent(doc.lines[start].text);
        let mut i = start + 1;
        while i < to {
            let line = &doc.lines[i];
            let depth = indent(line.text);
            let starts = !line.code
                && (list_item(line.text).is_some() || line.text.trim_start().starts_with("**"));
            let after_blank = doc.lines[i - 1].text.trim().is_empty();
            let ends = line.heading.is_some()
                || (starts && depth <= item_indent)
                || (!line.code
                    && !line.text.trim().is_empty()
                    && depth <= item_indent
                    && after_blank);
            if ends {
                break;
            }
            i += 1;
        }
        let mut end = i;
        while end > start + 1 && doc.lines[end - 1].text.trim().is_empty() {
            end -= 1;
        }
        end
    }

    /// The lines not marked in `used`, as text: what a page keeps once its items are nodes.
    /// A heading whose whole section was used goes too.
    pub(crate) fn rest(&self, used: &[bool]) -> String {
        let mut keep: Vec<bool> = (0..self.lines.len())
            .map(|i| !used.get(i).copied().unwrap_or(false))
            .collect();
        // Last heading first, so a heading whose sub-headings all went goes too.
        for i in (0..self.lines.len()).rev() {
            if !keep[i] || self.lines[i].heading.is_none() {
                continue;
            }
            let end = self.end(i);
            let emptied = (i + 1..end).all(|j| !keep[j] || self.lines[j].text.trim().is_empty());
            if emptied && end > i + 1 {
                keep[i] = false;
            }
        }
        let mut out = String::new();
        let mut blank = true;
        for (line, keep) in self.lines.iter().zip(keep) {
            if !keep {
                continue;
            }
            let is_blank = line.text.trim().is_empty();
            if is_blank && blank {
                continue;
            }
            out.push_str(line.text);
            out.push('\n');
            blank = is_blank;
        }
        out.trim_end().to_string()
    }
}

/// An ATX heading (`## Text ##`), up to three spaces of indent.
fn heading(line: &str) -> Option<Heading<'_>> {
    let trimmed = line.trim_start();
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let level = trimmed.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &trimmed[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let text = rest.trim().trim_end_matches('#').trim_end();
    Some(Heading {
        level: level as u8,
        text,
    })
}

/// Heading or label text made plain: emphasis, code marks and a trailing colon dropped.
pub(crate) fn plain(text: &str) -> String {
    let text: String = text.chars().filter(|&c| c != '*' && c != '`').collect();
    text.trim()
        .trim_end_matches([':', '：'])
        .trim()
        .replace("  ", " ")
}

/// A heading without its numbering: `3. Title`, `1.2 Title`, `III. Title`, `Phase 2:`.
pub(crate) fn unnumbered(text: &str) -> &str {
    let t = text.trim();
    let digits = t
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    if digits > 0 && t[digits..].starts_with([' ', ')']) {
        return t[digits..].trim_start_matches(')').trim();
    }
    t
}

/// A GitHub-style anchor: lower-case, spaces to `-`, punctuation other than `-` and `_`
/// dropped (letters of any script kept).
pub(crate) fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in plain(text).chars() {
        if c.is_alphanumeric() || c == '-' || c == '_' {
            out.extend(c.to_lowercase());
        } else if c == ' ' {
            out.push('-');
        }
    }
    out
}

/// A title of at most 80 characters, cut at a word boundary with an ellipsis.
pub(crate) fn short(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let one = plain(&one);
    if one.chars().count() <= 80 {
        return one;
    }
    let cut: String = one.chars().take(80).collect();
    let at = cut.rfind(' ').filter(|&at| at > 40).unwrap_or(cut.len());
    format!("{}…", cut[..at].trim_end())
}

/// A `**Label**: value`, `**Label:** value`, `Label: value` or `- **Label**: value` line:
/// the label (plain) and the value. Labels are at most five words.
pub(crate) fn label(line: &str) -> Option<(String, &str)> {
    let t = line.trim_start();
    let t = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .unwrap_or(t)
        .trim_start();
    let (name, value) = if let Some(rest) = t.strip_prefix("**") {
        let close = rest.find("**")?;
        let inner = &rest[..close];
        let after = rest[close + 2..].trim_start();
        if let Some(name) = inner.strip_suffix(':').or_else(|| inner.strip_suffix('：')) {
            (name, after)
        } else {
            let after = after
                .strip_prefix(':')
                .or_else(|| after.strip_prefix('：'))?;
            (inner, after)
        }
    } else {
        let colon = t.find([':', '：'])?;
        let sep = t[colon..].chars().next().map_or(1, char::len_utf8);
        (&t[..colon], &t[colon + sep..])
    };
    let name = plain(name);
    let words = name.split_whitespace().count();
    if name.is_empty()
        || words > 5
        || name.contains(['[', '(', '`', '/'])
        || value.starts_with("//")
    {
        return None;
    }
    Some((name, value.trim()))
}

/// The start of a list item: `- `, `* `, `+ ` or `1. ` / `1) `; the rest after the marker.
pub(crate) fn list_item(line: &str) -> Option<&str> {
    let t = line.trim_start();
    if let Some(rest) = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .or_else(|| t.strip_prefix("+ "))
    {
        return Some(rest);
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits < 4 {
        let rest = &t[digits..];
        return rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") "));
    }
    None
}

/// How deep a line is indented (tabs count four).
pub(crate) fn indent(line: &str) -> usize {
    line.chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

/// The words of a text that can be ids: runs of letters, digits, `-`, `_` and `.`, without a
/// trailing `.` or `-`.
pub(crate) fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .map(|w| {
            w.trim_end_matches(['.', '-'])
                .trim_start_matches(['.', '-'])
        })
        .filter(|w| !w.is_empty())
}

/// `FR-001`, `FR-001a`, `NFR-2`, `SC-003`: a requirement-style id (prefix of 2–4 capitals,
/// a hyphen, 1–4 digits, an optional lower-case letter).
pub(crate) fn is_item_id(word: &str) -> bool {
    let Some((prefix, rest)) = word.split_once('-') else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let tail = &rest[digits..];
    (2..=4).contains(&prefix.len())
        && prefix.bytes().all(|b| b.is_ascii_uppercase())
        && (1..=4).contains(&digits)
        && (tail.is_empty() || (tail.len() == 1 && tail.as_bytes()[0].is_ascii_lowercase()))
}

/// `US1`, `US-2`, `US03` → `US1`, `US2`, `US3`.
pub(crate) fn story_id(word: &str) -> Option<String> {
    let rest = word.strip_prefix("US")?;
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    let n: u32 = (!rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
        .then(|| rest.parse().ok())??;
    Some(format!("US{n}"))
}

/// Extensions a bare file name needs to count as a path (with a `/` any word may be one).
const FILE_EXTENSIONS: [&str; 52] = [
    "rs", "py", "ts", "tsx", "js", "jsx", "mjs", "cjs", "go", "java", "kt", "kts", "swift", "rb",
    "php", "cs", "c", "h", "cc", "cpp", "hpp", "m", "scala", "dart", "vue", "svelte", "sql", "md",
    "mdx", "json", "yaml", "yml", "toml", "ini", "cfg", "env", "sh", "bash", "ps1", "html", "css",
    "scss", "less", "graphql", "gql", "proto", "xml", "gradle", "lock", "txt", "csv", "ex",
];

/// The file paths a text names, root-relative as written: in backticks, bare words, Markdown
/// links, `file:///` links; several per line; folders end with `/`. URLs, API routes
/// (`/api/v1/x`, `:param`), absolute paths and words without a `/` or a known extension
/// are not paths.
pub(crate) fn paths_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |candidate: &str| {
        if let Some(path) = as_path(candidate) {
            if !out.contains(&path) {
                out.push(path);
            }
        }
    };
    for token in text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '`' | '(' | ')' | '<' | '>' | '"' | '\'' | '[' | ']' | '，' | '、' | '|'
            )
    }) {
        if let Some(rest) = token.strip_prefix("file://") {
            push(rest);
            continue;
        }
        push(token);
    }
    out
}

/// The `file:///…` links of a text, made root-relative by cutting each before its first folder
/// that starts a relative path of the same file (`anchors`: `src`, `backend`): a link to
/// `file:///home/me/repo/src/a.ts` next to `src/b.ts` is `src/a.ts`. Links with no such
/// folder are dropped (they may lie outside the project).
pub(crate) fn file_links(text: &str, anchors: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("file:///") {
        let tail = &rest[at + "file:///".len()..];
        let len = tail
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | '>' | '`' | '"' | '\'' | ']'))
            .unwrap_or(tail.len());
        let path = &tail[..len];
        let parts: Vec<&str> = path.split('/').collect();
        if let Some(cut) = parts.iter().position(|p| anchors.contains(p)) {
            if let Some(rel) = as_path(&parts[cut..].join("/")) {
                if !out.contains(&rel) {
                    out.push(rel);
                }
            }
        }
        rest = &tail[len..];
    }
    out
}

fn as_path(token: &str) -> Option<String> {
    let t = token.trim_end_matches(['.', ',', ';', ':', '!', '?', '*', '）', '。']);
    let t = t.trim_start_matches(['*', '~']);
    if t.len() < 3 || t.contains("://") || t.starts_with('/') || t.starts_with('#') {
        return None;
    }
    if t.contains([':', '{', '}', '=', '$', '@', '\\', '*', '%']) {
        return None;
    }
    let t = t.strip_prefix("./").unwrap_or(t);
    if t.starts_with("../") || t.contains("/../") {
        return None;
    }
    let name = t.trim_end_matches('/').rsplit('/').next().unwrap_or(t);
    let ext = name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase());
    let known = ext.as_deref().is_some_and(|e| FILE_EXTENSIONS.contains(&e));
    let has_dir = t.trim_end_matches('/').contains('/');
    if !(known || (has_dir && t.chars().any(|c| c.is_ascii_alphabetic()))) {
        return None;
    }
    // A path is ASCII-ish: letters, digits and the usual punctuation of file names.
    if !t
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '/' | '.' | '-' | '_' | '+'))
    {
        return None;
    }
    // `a/b` of two short words ("and/or", "I/O", "read/write") is prose, not a path.
    if !known && !t.ends_with('/') {
        let parts: Vec<&str> = t.split('/').collect();
        if parts.len() == 2
            && parts
                .iter()
                .all(|p| p.len() <= 6 && !p.contains(['.', '_']))
        {
            return None;
        }
    }
    Some(t.to_string())
}

/// A node of a spec-driven source: Markdown content, located at its line.
pub(crate) fn node(
    rel: &str,
    line: u32,
    id: String,
    kind: Kind,
    title: String,
    body: String,
) -> Node {
    Node {
        id,
        kind,
        title,
        status: None,
        origin: Origin::Markdown,
        content: Content::Artifact(ArtifactFields {
            body,
            body_line: line,
            ..ArtifactFields::default()
        }),
        links: Vec::new(),
        date: None,
        location: Location {
            path: rel.to_string(),
            line,
            col: 1,
        },
    }
}

/// The artifact fields of a node this module made (a node of another content gets artifact
/// fields first).
pub(crate) fn fields(node: &mut Node) -> &mut ArtifactFields {
    if !matches!(node.content, Content::Artifact(_)) {
        node.content = Content::Artifact(ArtifactFields::default());
    }
    match &mut node.content {
        Content::Artifact(fields) => fields,
        Content::Spec(_) | Content::Tana(_) => unreachable!("made an artifact above"),
    }
}

/// Adds a link unless the node has it already (or it points at the node itself).
pub(crate) fn link(node: &mut Node, relation: Relation, target: impl Into<String>) {
    let target = target.into();
    if target == node.id {
        return;
    }
    if !node
        .links
        .iter()
        .any(|l| l.relation == relation && l.target == target)
    {
        node.links.push(Link { relation, target });
    }
}

/// Adds a link to each of `targets` that the node does not have yet (not to itself), in
/// order: one pass, however many targets (a page's thousands of items).
pub(crate) fn link_all(
    node: &mut Node,
    relation: Relation,
    targets: impl IntoIterator<Item = String>,
) {
    let mut have: std::collections::HashSet<String> = node
        .links
        .iter()
        .filter(|l| l.relation == relation)
        .map(|l| l.target.clone())
        .collect();
    for target in targets {
        if target != node.id && have.insert(target.clone()) {
            node.links.push(Link {
                relation: relation.clone(),
                target,
            });
        }
    }
}

/// Sets a field shown on the node's card (`key: value`), once.
pub(crate) fn extra(node: &mut Node, key: &str, value: impl Into<String>) {
    let value = value.into();
    let fields = fields(node);
    if !fields.extra.iter().any(|(k, _)| k == key) {
        fields.extra.push((key.to_string(), value));
    }
}

/// The first `YYYY-MM-DD` in a text.
pub(crate) fn date_in(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    (0..bytes.len().saturating_sub(9)).find_map(|i| {
        let s = &bytes[i..i + 10];
        let shape = s.iter().enumerate().all(|(k, b)| match k {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        });
        let before = i == 0 || !bytes[i - 1].is_ascii_digit();
        (shape && before)
            .then(|| text[i..i + 10].to_string())
            .filter(|d| brief_model::epoch_days(d).is_some())
    })
}

/// The roman numeral of 1–39 (`IV`), for principle ids; references written in digits
/// (`Principle 4`) resolve to the same id.
pub(crate) fn roman(n: u32) -> Option<String> {
    if !(1..40).contains(&n) {
        return None;
    }
    let mut out = "X".repeat((n / 10) as usize);
    out.push_str(["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"][(n % 10) as usize]);
    Some(out)
}

/// The value of a roman numeral of 1–39, if `word` is one (upper case).
pub(crate) fn from_roman(word: &str) -> Option<u32> {
    (1..40).find(|&n| roman(n).as_deref() == Some(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_sections_and_fences() {
        let text = "# T\n\n## A\ntext\n```md\n## not a heading\n```\n### A1\nx\n## B\ny\n";
        let doc = Doc::new(text, 1);
        let heads: Vec<_> = doc
            .lines
            .iter()
            .filter_map(|l| l.heading.map(|h| (l.no, h.level, h.text)))
            .collect();
        assert_eq!(
            heads,
            [(1, 1, "T"), (3, 2, "A"), (8, 3, "A1"), (10, 2, "B")]
        );
        assert_eq!(doc.end(2), 9, "## A ends at ## B");
        assert_eq!(doc.end(7), 9);
        assert_eq!(doc.end(0), doc.lines.len());
        assert_eq!(doc.text(2, 4), "## A\ntext");
        assert_eq!(doc.title(), Some((0, "T")));
    }

    #[test]
    fn the_rest_drops_used_lines_and_emptied_headings() {
        let doc = Doc::new("# T\nintro\n## Items\n- a\n- b\n## Notes\nkeep\n", 1);
        let mut used = vec![false; doc.lines.len()];
        used[3] = true;
        used[4] = true;
        assert_eq!(doc.rest(&used), "# T\nintro\n## Notes\nkeep");
    }

    #[test]
    fn labels_items_and_words() {
        assert_eq!(
            label("**Rationale**: because"),
            Some(("Rationale".into(), "because"))
        );
        assert_eq!(
            label("- **Decision:** use X"),
            Some(("Decision".into(), "use X"))
        );
        assert_eq!(
            label("Alternatives considered: A, B"),
            Some(("Alternatives considered".into(), "A, B"))
        );
        assert_eq!(label("**理由**：速い"), Some(("理由".into(), "速い")));
        assert_eq!(label("See https://x.y for more"), None);
        assert_eq!(list_item("  - [x] T001 a"), Some("[x] T001 a"));
        assert_eq!(list_item("12. step"), Some("step"));
        assert_eq!(list_item("2024. no"), None);
        let found: Vec<&str> = words("[P] [US2] FR-007, and T014.").collect();
        assert_eq!(found, ["P", "US2", "FR-007", "and", "T014"]);
        assert!(is_item_id("FR-001") && is_item_id("FR-001a") && is_item_id("NFR-2"));
        assert!(!is_item_id("FR-") && !is_item_id("fr-001") && !is_item_id("UTF-8x1"));
        assert_eq!(story_id("US-02").as_deref(), Some("US2"));
        assert_eq!(story_id("USB"), None);
        assert_eq!(slug("3. Audio `Processing` (v2)!"), "3-audio-processing-v2");
        assert_eq!(unnumbered("3. Audio"), "Audio");
        assert_eq!(roman(14).as_deref(), Some("XIV"));
        assert_eq!(from_roman("IV"), Some(4));
        assert_eq!(
            date_in("**Created**: 2025-12-26 by x"),
            Some("2025-12-26".into())
        );
    }

    #[test]
    fn paths_as_people_write_them() {
        let text = "Create `src/models/user.py` and backend/src/api/stt.py, tests in \
                    tests/unit/ (see [x](docs/a.md)); also README.md, file:///home/u/r/src/x.ts, \
                    POST /api/stt/transcribe, https://x.io/a/b.py, `api/v1/apps/:appId/events`, \
                    and/or I/O, `uv sync`.";
        assert_eq!(
            paths_in(text),
            [
                "src/models/user.py",
                "backend/src/api/stt.py",
                "tests/unit/",
                "docs/a.md",
                "README.md",
            ]
        );
    }
}
