//! MDX pages (`.mdx`): Markdown with JSX, as Docusaurus, Mintlify and Nextra sites write
//! their documentation. A page is read as the Markdown it holds: the ES module lines
//! (`import …`, `export …`), JSX comments (`{/* … */}`), lines that are a component's tags
//! (`<Tabs>`, `<TabItem value="a">`, `<DocCardList />`, a tag spread over several lines) or a
//! lone expression (`{Sample}`) and Docusaurus' admonition fences (`:::note`, `:::`) become
//! blank lines, so every other line keeps its number (a warning's `path:line` is the page's
//! own). Code fences are kept as they are. Each line is looked at once.

use super::{holds_pages, Layout, PageFormat};
use crate::kb::Catalog;
use crate::markdown::{self, Parsed};
use brief_root::Root;

/// The MDX format.
pub(super) struct Mdx;

/// Where documentation sites keep their pages, besides the layout's ADR folders.
const CONVENTIONAL_DIRS: [&str; 3] = ["docs", "doc", "website/docs"];

impl PageFormat for Mdx {
    fn name(&self) -> &'static str {
        "mdx"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[".mdx"]
    }

    fn discover(&self, root: &Root, layout: &Layout) -> bool {
        let adr_dirs = layout.adr_dirs.iter().map(String::as_str);
        adr_dirs
            .chain(CONVENTIONAL_DIRS)
            .any(|dir| holds_pages(root, dir, self.extensions()))
    }

    fn parse(&self, rel: &str, text: &str, catalog: &Catalog) -> Parsed {
        markdown::parse(rel, &to_markdown(text), catalog)
    }
}

/// What the line before was part of.
#[derive(Clone, Copy, PartialEq)]
enum Within {
    /// Markdown text.
    Text,
    /// A code fence opened by `len` of `marker` (`` ` `` or `~`).
    Fence { marker: char, len: usize },
    /// An `import` or `export` statement whose brackets are still open.
    Module { depth: i64 },
    /// A JSX comment (`{/*`) not closed yet.
    Comment,
    /// A component's tag not closed yet (`<DocCardList` on a line of its own).
    Tag,
}

/// The Markdown of an MDX page, line for line.
pub(crate) fn to_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut within = Within::Text;
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body.strip_suffix('\r').unwrap_or(body), "\n"),
            None => (line, ""),
        };
        let (kept, next) = read_line(body, within);
        within = next;
        if kept {
            out.push_str(line);
        } else {
            out.push_str(end);
        }
    }
    out
}

/// Whether a line is kept, and what the next line is part of.
fn read_line(line: &str, within: Within) -> (bool, Within) {
    let trimmed = line.trim();
    match within {
        Within::Fence { marker, len } => {
            let closes =
                trimmed.len() >= len && trimmed.chars().all(|c| c == marker) && !trimmed.is_empty();
            (true, if closes { Within::Text } else { within })
        }
        Within::Module { depth } => {
            let depth = depth + bracket_balance(line);
            (false, module_or_text(depth))
        }
        Within::Comment => (
            false,
            if line.contains("*/}") {
                Within::Text
            } else {
                within
            },
        ),
        Within::Tag => (
            false,
            if line.contains('>') {
                Within::Text
            } else {
                within
            },
        ),
        Within::Text => read_text_line(line, trimmed),
    }
}

/// A line of Markdown text: a fence opens, or an MDX line is blanked.
fn read_text_line(line: &str, trimmed: &str) -> (bool, Within) {
    if let Some(fence) = fence_opening(trimmed) {
        return (true, fence);
    }
    if line.starts_with("import ") || line.starts_with("export ") {
        return (false, module_or_text(bracket_balance(line)));
    }
    if trimmed.starts_with("{/*") {
        let closed = trimmed.contains("*/}");
        return (
            false,
            if closed {
                Within::Text
            } else {
                Within::Comment
            },
        );
    }
    if trimmed.starts_with(":::") {
        return (false, Within::Text);
    }
    if is_component_tag(trimmed) {
        return (
            false,
            if trimmed.contains('>') {
                Within::Text
            } else {
                Within::Tag
            },
        );
    }
    if trimmed.starts_with('{') && trimmed.ends_with('}') {
        return (false, Within::Text);
    }
    (true, Within::Text)
}

/// The fence a line opens: three or more backticks or tildes.
fn fence_opening(trimmed: &str) -> Option<Within> {
    let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = trimmed.chars().take_while(|c| *c == marker).count();
    (len >= 3).then_some(Within::Fence { marker, len })
}

/// Whether a line opens with a component's tag: `<Name`, `</Name` (a capital first, as JSX
/// tells components from HTML elements) or a fragment (`<>`, `</>`).
fn is_component_tag(trimmed: &str) -> bool {
    let rest = trimmed.strip_prefix('<').unwrap_or("");
    let rest = rest.strip_prefix('/').unwrap_or(rest);
    trimmed.starts_with('<')
        && (rest.starts_with('>') || rest.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
}

/// How many more brackets a line opens than it closes.
fn bracket_balance(line: &str) -> i64 {
    line.chars()
        .map(|c| match c {
            '(' | '[' | '{' => 1,
            ')' | ']' | '}' => -1,
            _ => 0,
        })
        .sum()
}

fn module_or_text(depth: i64) -> Within {
    if depth > 0 {
        Within::Module { depth }
    } else {
        Within::Text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_lines_comments_tags_and_admonition_fences_become_blank_lines() {
        let page = "---\ntitle: Install\n---\nimport Tabs from '@theme/Tabs';\nimport {\n  A,\n  B,\n} from './x';\nexport const meta = {\n  a: 1,\n};\n\n# Install\n\n{/* a note\n   for editors */}\n<Tabs groupId=\"os\">\n<TabItem value=\"deb\" label=\"Debian\">\n\nRun the installer.\n\n</TabItem>\n</Tabs>\n<DocCardList\n  items={x}\n/>\n:::warning\nKeep your key.\n:::\n{Sample}\n<Buildkite />\n";
        let markdown = to_markdown(page);
        assert_eq!(markdown.lines().count(), page.lines().count());
        let kept: Vec<&str> = markdown.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(
            kept,
            [
                "---",
                "title: Install",
                "---",
                "# Install",
                "Run the installer.",
                "Keep your key."
            ]
        );
    }

    #[test]
    fn code_fences_and_html_are_kept() {
        let page = "# Use\n\n```jsx\nimport Tabs from '@theme/Tabs';\n<Tabs>\n```\n\n~~~~\n{x}\n~~~~\n\n<details>\n<summary>More</summary>\n\nText.\n</details>\n";
        assert_eq!(to_markdown(page), page);
    }

    #[test]
    fn a_page_without_a_final_newline_or_with_crlf_keeps_its_lines() {
        assert_eq!(
            to_markdown("import X from 'x';\r\n# T\r\ntext"),
            "\n# T\r\ntext"
        );
        assert_eq!(to_markdown(""), "");
        // An unclosed statement or tag blanks the rest of the page, nothing more.
        assert_eq!(to_markdown("export const a = {\n# T\n"), "\n\n");
    }
}
