//! MDX pages (`.mdx`): Markdown with JSX, as Docusaurus, Mintlify and Nextra sites write
//! their documentation. A page is read as the Markdown it holds, line for line, so a
//! warning's `path:line` is the page's own:
//!
//! - an ES module statement (`import …`, `export …` at the start of a block, over the lines
//!   its brackets keep open but never past a blank line, as MDX reads it), a JSX comment (`{/* … */}`), a line that is one expression
//!   (`{Sample}`), a line that is a component's tags (`<Tabs>`, `</TabItem>`,
//!   `<DocCardList />`, a tag over several lines up to the line that ends with its `>`) and
//!   Docusaurus' admonition fences (`:::note`, `:::`) become blank lines;
//! - a line that opens with a component and holds text keeps the text without the tags
//!   (`<Tip>Run it first.</Tip>`), and a comment after text is left out (a heading's
//!   `{/* #id */}`);
//! - inside a component, lines lose the indentation its first child line has: MDX has no
//!   indented code, and Mintlify indents a `<Step>`'s Markdown under it;
//! - code fences are kept as they are.
//!
//! Each line is looked at once.

use super::{PageFormat, Survey};
use crate::kb::Catalog;
use crate::markdown::{self, fence_mark, Parsed};

/// The MDX format.
pub(super) struct Mdx;

/// Where documentation sites keep their pages, besides the layout's ADR folders: discovery
/// looks there; the pages are then listed from the whole root, as every format's are.
const CONVENTIONAL_DIRS: [&str; 3] = ["docs", "doc", "website/docs"];

/// The configuration files of sites that keep their pages at the root (Mintlify's): with one
/// of them, pages directly at the root are found too. A page alone there is not enough: brief
/// run from inside a folder of pages would stop at that folder instead of the repository.
const ROOT_SITE_FILES: [&str; 2] = ["docs.json", "mint.json"];

impl PageFormat for Mdx {
    fn name(&self) -> &'static str {
        "mdx"
    }

    fn title(&self) -> &'static str {
        "MDX"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[".mdx"]
    }

    fn discover(&self, survey: &Survey<'_>) -> bool {
        let root = survey.root();
        let site_at_root = ROOT_SITE_FILES
            .iter()
            .any(|name| root.is_file(&root.path().join(name)));
        survey.pages_in(&CONVENTIONAL_DIRS, self.extensions())
            || (site_at_root && survey.holds_pages("", self.extensions()))
    }

    fn parse(&self, rel: &str, text: &str, catalog: &Catalog) -> Parsed {
        markdown::parse(rel, &to_markdown(text), catalog)
    }
}

/// What the line before was part of.
#[derive(Clone, Copy, PartialEq)]
enum Within {
    /// Markdown text; `block_start` when the line before was blank, the frontmatter's end or
    /// nothing (where an ES module statement may start).
    Text { block_start: bool },
    /// A code fence opened by `len` of `mark`.
    Fence { mark: u8, len: usize },
    /// An ES module statement with `depth` brackets still open: it goes on while they are
    /// open, never past a blank line.
    Module { depth: i64 },
    /// A JSX comment (`{/*`) not closed yet.
    Comment,
    /// A component's tag not closed yet (`<DocCardList` on a line of its own).
    Tag,
}

/// What becomes of a line.
enum Line {
    /// Kept as written (without the indentation of the components around it).
    Kept,
    /// Left out (a blank line stands for it).
    Blank,
    /// This text instead: the line without a component's tags.
    Text(String),
}

/// How a component's tag line changes the components the next lines are inside.
#[derive(Clone, Copy, PartialEq)]
enum Nesting {
    Same,
    Opens,
    Closes,
}

/// The Markdown of an MDX page, line for line.
pub(crate) fn to_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut within = Within::Text { block_start: true };
    // The indentation of each open component's first child line, once seen.
    let mut components: Vec<Option<usize>> = Vec::new();
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body.strip_suffix('\r').unwrap_or(body), "\n"),
            None => (line, ""),
        };
        let body = dedent(body, &mut components);
        let (read, next, nesting) = read_line(body, within);
        match nesting {
            Nesting::Opens => components.push(None),
            Nesting::Closes => {
                components.pop();
            }
            Nesting::Same => {}
        }
        within = next;
        match read {
            Line::Kept => out.push_str(body),
            Line::Blank => {}
            Line::Text(text) => out.push_str(&text),
        }
        out.push_str(end);
    }
    out
}

/// A line without the indentation of the components it is inside: the first child line of
/// the innermost one sets it.
fn dedent<'l>(line: &'l str, components: &mut [Option<usize>]) -> &'l str {
    let Some(indent) = components.last_mut() else {
        return line;
    };
    let spaces = line.len() - line.trim_start_matches(' ').len();
    if line.trim().is_empty() {
        return line;
    }
    let strip = *indent.get_or_insert(spaces);
    &line[spaces.min(strip)..]
}

/// What becomes of a line, what the next line is part of, and how the components nest.
fn read_line(line: &str, within: Within) -> (Line, Within, Nesting) {
    let trimmed = line.trim();
    let text = Within::Text {
        block_start: trimmed.is_empty(),
    };
    let until = |closed: bool| if closed { text } else { within };
    match within {
        Within::Fence { mark, len } => {
            let closes = fence_mark(line)
                .is_some_and(|(m, l, rest)| m == mark && l >= len && rest.trim().is_empty());
            (Line::Kept, until(closes), Nesting::Same)
        }
        Within::Module { .. } if trimmed.is_empty() => (Line::Blank, text, Nesting::Same),
        Within::Module { depth } if depth > 0 => (
            Line::Blank,
            Within::Module {
                depth: depth + bracket_balance(line),
            },
            Nesting::Same,
        ),
        // The statement is over: a statement follows, or the line is text again.
        Within::Module { .. } => read_text_line(line, trimmed, true),
        Within::Comment => (Line::Blank, until(line.contains("*/}")), Nesting::Same),
        // A tag's last line ends with its `>`; an arrow inside an attribute
        // (`items={x => x.ok}`) does not close it.
        Within::Tag if trimmed.ends_with('>') => {
            let nesting = if trimmed.ends_with("/>") {
                Nesting::Same
            } else {
                Nesting::Opens
            };
            (Line::Blank, text, nesting)
        }
        Within::Tag => (Line::Blank, within, Nesting::Same),
        Within::Text { block_start } => read_text_line(line, trimmed, block_start),
    }
}

/// A line of Markdown text: a fence opens, or an MDX line is blanked or freed of its tags.
fn read_text_line(line: &str, trimmed: &str, block_start: bool) -> (Line, Within, Nesting) {
    let text = Within::Text {
        block_start: trimmed.is_empty() || trimmed == "---",
    };
    if let Some((mark, len, _)) = fence_mark(line) {
        return (Line::Kept, Within::Fence { mark, len }, Nesting::Same);
    }
    if block_start && (line.starts_with("import ") || line.starts_with("export ")) {
        let depth = bracket_balance(line);
        return (Line::Blank, Within::Module { depth }, Nesting::Same);
    }
    if trimmed.starts_with("{/*") {
        let next = if trimmed.contains("*/}") {
            text
        } else {
            Within::Comment
        };
        return (Line::Blank, next, Nesting::Same);
    }
    if trimmed.starts_with(":::") || (trimmed.starts_with('{') && trimmed.ends_with('}')) {
        return (Line::Blank, text, Nesting::Same);
    }
    if !is_component_tag(trimmed) {
        // A comment after text (a heading's `{/* #id */}`) is no text of it.
        return match without_comments(line) {
            Some(line) => (Line::Text(line), text, Nesting::Same),
            None => (Line::Kept, text, Nesting::Same),
        };
    }
    if !trimmed.contains('>') {
        return (Line::Blank, Within::Tag, Nesting::Same);
    }
    let nesting = if trimmed.starts_with("</") {
        Nesting::Closes
    } else if trimmed.ends_with("/>") || trimmed.contains("</") {
        Nesting::Same
    } else {
        Nesting::Opens
    };
    let rest = without_components(trimmed);
    match rest.trim() {
        "" => (Line::Blank, text, nesting),
        rest => (Line::Text(rest.to_string()), text, nesting),
    }
}

/// A line without the JSX comments closed on it (`### External {/* #external */}` →
/// `### External`); `None` when it has none.
fn without_comments(line: &str) -> Option<String> {
    let first = line.find("{/*")?;
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    let mut at = first;
    loop {
        let Some(end) = rest[at..].find("*/}") else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..at]);
        rest = &rest[at + end + 3..];
        match rest.find("{/*") {
            Some(next) => at = next,
            None => {
                out.push_str(rest);
                break;
            }
        }
    }
    Some(out.trim_end().to_string())
}

/// A line without its components' tags and expressions (`<Tip>Use it.</Tip>` → `Use it.`,
/// `<CodeBlock>{Sample}</CodeBlock>` → nothing); HTML elements stay.
fn without_components(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    // Whether `}` and `>` may still come: once a search for one fails, no later part of the
    // line holds it, so a line of unclosed `{` or `<Tag` is read once.
    let mut open = [true, true];
    while let Some(at) = rest.find(['<', '{']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let expression = tail.starts_with('{');
        let (close, slot) = if expression { ('}', 0) } else { ('>', 1) };
        let end = if open[slot] && (expression || is_component_tag(tail)) {
            let end = tail.find(close);
            open[slot] = end.is_some();
            end
        } else {
            None
        };
        match end {
            Some(end) => rest = &tail[end + 1..],
            None => {
                out.push_str(&tail[..1]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
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

/// Whether a text opens with a component's tag: `<Name`, `</Name` (a capital first, as JSX
/// tells components from HTML elements) or a fragment (`<>`, `</>`).
fn is_component_tag(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('<') else {
        return false;
    };
    let rest = rest.strip_prefix('/').unwrap_or(rest);
    rest.starts_with('>') || rest.chars().next().is_some_and(|c| c.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_lines_comments_tags_and_admonition_fences_become_blank_lines() {
        let page = "---\ntitle: Install\n---\nimport Tabs from '@theme/Tabs';\nimport {\n  A,\n  B,\n} from './x';\n\nexport const meta = {\n  a: 1,\n};\n\n# Install\n\n{/* a note\n   for editors */}\n<Tabs groupId=\"os\">\n<TabItem value=\"deb\" label=\"Debian\">\n\nRun the installer.\n\n</TabItem>\n</Tabs>\n<DocCardList\n  items={x => x.ok}\n  limit={3}\n/>\n:::warning\nKeep your key.\n:::\n{Sample}\n<Buildkite />\n";
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
    fn a_module_statement_starts_a_block_and_ends_at_a_blank_line() {
        // As MDX reads them: a statement cannot interrupt a paragraph, and its brackets do
        // not carry it past a blank line.
        let page = "export const sym = \"{\";\n\n# Keys\n\nTo move them,\nexport the key (see step 2\nand import it.\n";
        assert_eq!(
            to_markdown(page),
            "\n\n# Keys\n\nTo move them,\nexport the key (see step 2\nand import it.\n"
        );
    }

    #[test]
    fn a_components_children_lose_its_indentation() {
        // Mintlify indents a step's Markdown under its tag; MDX has no indented code.
        let page = "<Steps>\n  <Step title=\"Install\">\n    ## Install the CLI\n\n    Run the installer:\n\n    ```sh\n    brew install tofu\n    ```\n  </Step>\n</Steps>\n\n    code stays code outside\n";
        assert_eq!(
            to_markdown(page),
            "\n\n## Install the CLI\n\nRun the installer:\n\n```sh\nbrew install tofu\n```\n\n\n\n    code stays code outside\n"
        );
    }

    #[test]
    fn text_inside_a_components_tags_on_one_line_is_kept() {
        let page = "<Tip>Run `tofu init` first.</Tip>\n<CodeBlock lang=\"hcl\">{Sample}</CodeBlock>\n<Note>a < b and <b>bold</b></Note>\n";
        assert_eq!(
            to_markdown(page),
            "Run `tofu init` first.\n\na < b and <b>bold</b>\n"
        );
    }

    #[test]
    fn pathological_lines_are_read_in_one_pass() {
        // Each would be read again from every mark if a failed search were repeated; the
        // point is that the page is read once (the test runs in milliseconds).
        for unit in [
            "{", "<A", "<a", "<A>{", "import {", "{/*", "x {/*", "{/**/}",
        ] {
            for opening in ["<Tip>", "Text "] {
                let line = format!("{opening}{}\n", unit.repeat(200_000 / unit.len()));
                assert_eq!(to_markdown(&line).lines().count(), 1, "{unit}");
            }
        }
        let nested = "<A>\n".repeat(50_000) + &"  x\n".repeat(50_000);
        assert_eq!(to_markdown(&nested).lines().count(), 100_000);
    }

    #[test]
    fn a_comment_after_text_is_left_out() {
        let page = "### External {/* #external-key-provider */}\n<div id=\"x\"></div>{/* kept id */}\nA {/* one */} and {/* two */} b {/* open\n";
        assert_eq!(
            to_markdown(page),
            "### External\n<div id=\"x\"></div>\nA  and  b {/* open\n"
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
            "\n# T\ntext"
        );
        assert_eq!(to_markdown(""), "");
        // An unclosed tag blanks the rest of the page, nothing more.
        assert_eq!(to_markdown("<Tabs\n# T\n"), "\n\n");
    }
}
