//! reStructuredText pages (`.rst`): Sphinx documentation, and the ADRs Open edX projects and
//! others keep in `docs/decisions/`. A page is read as the Markdown page it says the same
//! as, line for line, then parsed by the Markdown parser, so titles, sections, ADR status
//! (`Status` as a section or a `:Status:` field), links and their warnings are the Markdown
//! pages' own; a warning's column is taken back to the page as written.
//!
//! What is read:
//! - section titles: a line of text under a line of one punctuation character (and over
//!   one, for an overlined title). Levels follow the order the styles first appear, as
//!   docutils orders them; when the first title's style comes back later (an ADR whose
//!   title and sections are all underlined alike), the first title is the page's and the
//!   later ones its sections, as Sphinx shows the page;
//! - the fields `:Status:`, `:Date:` and `:Tags:` as metadata lines; other fields before
//!   the first title (`:orphan:`) are the builder's and left out;
//! - links: `` `text <url>`_ ``, `` `text`_ `` and `name_` with their `.. _text: url`
//!   target anywhere in the page, `:doc:` roles (from the page's folder, or from the folders
//!   above it with a leading `/`), and `toctree` entries, one link each;
//! - roles as their text (`:class:`~pkg.Widget`` as `` `Widget` ``, `:ref:` by its title),
//!   inline literals (``` ``x`` ```) as Markdown code;
//! - directives: an admonition's content as text after its name (`Note:`, `Deprecated:`),
//!   other directives' argument and content as text; code directives and literal blocks
//!   (after `::`) as fenced code; images, figures, raw, includes, substitution definitions,
//!   comments, targets and directive options are left out.
//!
//! Text keeps at most three spaces of indentation: in Markdown four would make it code.
//! Each line is read once, and a line's inline markup in one pass.

use std::collections::HashMap;

use super::rewrite::{Rewrite, Translated};
use super::{holds_pages, Layout, PageFormat};
use crate::kb::Catalog;
use crate::markdown::{self, Parsed};
use brief_root::Root;

/// The reStructuredText format.
pub(super) struct Rst;

/// Where Sphinx projects keep their sources, besides the layout's ADR folders.
const CONVENTIONAL_DIRS: [&str; 5] = ["docs", "doc", "docs/source", "doc/source", "Doc"];

/// The fence code blocks become (long, so a block that holds a Markdown fence stays one).
const FENCE: &str = "~~~~~~";

/// The characters a section title may be adorned with.
const ADORNMENTS: &str = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

/// Fields read as metadata lines.
const METADATA_FIELDS: [&str; 3] = ["status", "date", "tags"];

/// Directives whose content is code.
const CODE_DIRECTIVES: [&str; 14] = [
    "code",
    "code-block",
    "sourcecode",
    "parsed-literal",
    "doctest",
    "testcode",
    "testsetup",
    "testcleanup",
    "testoutput",
    "ipython",
    "jupyter-execute",
    "prompt",
    "math",
    "mermaid",
];

/// Directives left out with their content: pictures, markup for the builder, and what
/// another file holds.
const SKIPPED_DIRECTIVES: [&str; 20] = [
    "image",
    "figure",
    "raw",
    "include",
    "literalinclude",
    "highlight",
    "contents",
    "index",
    "meta",
    "default-role",
    "role",
    "currentmodule",
    "module",
    "tabularcolumns",
    "graphviz",
    "digraph",
    "uml",
    "csv-table",
    "plot",
    "only-html",
];

/// Directives whose name is said before their content.
const ADMONITIONS: [&str; 13] = [
    "note",
    "warning",
    "tip",
    "important",
    "caution",
    "danger",
    "attention",
    "error",
    "hint",
    "seealso",
    "deprecated",
    "versionadded",
    "versionchanged",
];

impl PageFormat for Rst {
    fn name(&self) -> &'static str {
        "rst"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[".rst"]
    }

    fn discover(&self, root: &Root, layout: &Layout) -> bool {
        let adr_dirs = layout.adr_dirs.iter().map(String::as_str);
        adr_dirs
            .chain(CONVENTIONAL_DIRS)
            .any(|dir| holds_pages(root, dir, self.extensions()))
    }

    fn parse(&self, rel: &str, text: &str, catalog: &Catalog) -> Parsed {
        let page = translate(text);
        let mut parsed = markdown::parse(rel, &page.markdown, catalog);
        for warning in &mut parsed.warnings {
            page.relocate(&mut warning.problem.location);
        }
        parsed
    }
}

/// A section title's style: its character, and whether it is overlined too.
type Style = (char, bool);

/// What a line of the page becomes.
#[derive(Debug, Clone, PartialEq)]
enum Read {
    /// A blank line.
    Blank,
    /// Text, its markup rewritten; the indentation cut to three spaces.
    Text,
    /// A section title's text, in this style.
    Title(Style),
    /// A line of code, as written less the block's indentation.
    Code(String),
    /// A line of this Markdown (a fence, a metadata line, a toctree entry, an admonition's
    /// name), its markup rewritten; `from` is the column of the page it stands for.
    Markdown { text: String, from: u32 },
}

impl Read {
    fn fence() -> Read {
        Read::Markdown {
            text: FENCE.to_string(),
            from: 1,
        }
    }

    fn said(text: String, indent: usize) -> Read {
        Read::Markdown {
            text,
            from: indent as u32 + 1,
        }
    }

    /// A blank line, or a blank line of code.
    fn is_blank(&self) -> bool {
        match self {
            Read::Blank => true,
            Read::Code(code) => code.is_empty(),
            _ => false,
        }
    }
}

/// The block a line is inside.
#[derive(Debug, Clone, PartialEq)]
enum Block {
    Text,
    /// A literal block or a code directive's content, deeper than `indent`, its fence
    /// opened on line `open`; `body` is the indentation of its first line, once seen;
    /// `options` while directive options may still come.
    Code {
        indent: usize,
        open: usize,
        body: Option<usize>,
        options: bool,
    },
    /// A block left out, deeper than `indent`.
    Skip {
        indent: usize,
    },
    /// A directive's options, deeper than `indent`, until the first line that is no option.
    Options {
        indent: usize,
    },
    /// A toctree's entries, deeper than `indent`.
    Toc {
        indent: usize,
    },
}

/// Translates a page (linear in its length).
fn translate(text: &str) -> Translated {
    let lines: Vec<&str> = text
        .split_inclusive('\n')
        .map(|l| l.trim_end_matches(['\n', '\r']))
        .collect();
    let targets = targets(&lines);
    let reads = read_blocks(&lines);
    let (levels, page_titled) = levels(&reads);
    // With the page's own title, the first title is level 1 whatever its style's level.
    let mut first_title = page_titled;
    let mut out = Translated::default();
    for (k, read) in reads.iter().enumerate() {
        // A fence closing a block at the end of the page is a line after it.
        let line = lines.get(k).copied().unwrap_or_default();
        let (markdown, shifts) = match read {
            Read::Blank => (String::new(), Vec::new()),
            Read::Code(code) => (code.clone(), Vec::new()),
            Read::Markdown { text, from } => moved(inline(text, &targets), 1, *from),
            Read::Text => {
                let cut = indentation(line).saturating_sub(3);
                moved(inline(&line[cut..], &targets), 1, cut as u32 + 1)
            }
            Read::Title(style) => {
                let level = match std::mem::take(&mut first_title) {
                    true => 1,
                    false => levels.get(style).copied().unwrap_or(6),
                };
                let lead = indentation(line) as u32;
                let (title, shifts) =
                    moved(inline(line.trim(), &targets), level as u32 + 2, lead + 1);
                (format!("{} {title}", "#".repeat(level)), shifts)
            }
        };
        out.push(&markdown, shifts);
    }
    out
}

/// A rewritten text that starts at Markdown column `md` and stands for the page from
/// column `src`: its shifts moved there, and one at its start.
fn moved(
    (text, shifts): (String, Vec<(u32, u32)>),
    md: u32,
    src: u32,
) -> (String, Vec<(u32, u32)>) {
    let mut all = Vec::with_capacity(shifts.len() + 1);
    all.push((md, src));
    all.extend(shifts.into_iter().map(|(m, s)| (m + md - 1, s + src - 1)));
    (text, all)
}

/// The hyperlink targets of a page (`.. _name: url`), by normal name.
fn targets(lines: &[&str]) -> HashMap<String, String> {
    let mut targets = HashMap::new();
    for line in lines {
        let Some(rest) = line.trim_start().strip_prefix(".. _") else {
            continue;
        };
        let (name, url) = match rest.strip_prefix('`') {
            Some(quoted) => match quoted.split_once("`:") {
                Some((name, url)) => (name, url),
                None => continue,
            },
            None => match rest.split_once(": ") {
                Some((name, url)) => (name, url),
                None => continue,
            },
        };
        let url = url.trim();
        if !url.is_empty() && !url.ends_with('_') {
            targets
                .entry(normal_name(name))
                .or_insert_with(|| url.to_string());
        }
    }
    targets
}

/// A reference name as docutils compares them: lower-case, white space made one space.
fn normal_name(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// What each line is, by the blocks it is inside (one more line when a code block ends the
/// page, for its closing fence).
fn read_blocks(lines: &[&str]) -> Vec<Read> {
    let mut reader = Reader {
        reads: Vec::with_capacity(lines.len() + 1),
        block: Block::Text,
        literal_after: None,
        titled: false,
    };
    let mut i = 0;
    while i < lines.len() {
        i += reader.line(lines, i);
    }
    if let Block::Code { open, .. } = reader.block {
        if !close_fence(&mut reader.reads, open) {
            reader.reads.push(Read::fence());
        }
    }
    reader.reads
}

/// The state of [`read_blocks`].
struct Reader {
    reads: Vec<Read>,
    block: Block,
    /// A paragraph ended with `::` at this indentation: a deeper block after it is literal.
    literal_after: Option<usize>,
    /// Whether a title has been read (fields before it are the builder's).
    titled: bool,
}

impl Reader {
    /// Reads line `i`, and the underline after it when it is a title; how many lines it read.
    fn line(&mut self, lines: &[&str], i: usize) -> usize {
        let line = lines[i];
        let blank = line.trim().is_empty();
        let indent = indentation(line);
        if let Some(read) = inside(&mut self.block, line, blank, indent, &mut self.reads) {
            self.reads.push(read);
            return 1;
        }
        if blank {
            self.reads.push(Read::Blank);
            return 1;
        }
        if self.literal_starts(line, indent) {
            return 1;
        }
        if let Some(style) = title_at(lines, i) {
            if style.1 {
                // The overline is the line before, already read as a blank adornment.
                if let Some(last) = self.reads.last_mut() {
                    *last = Read::Blank;
                }
            }
            self.reads.extend([Read::Title(style), Read::Blank]);
            self.titled = true;
            return 2;
        }
        let read = self.outside(line, indent);
        self.reads.push(read);
        1
    }

    /// Whether `line` starts the literal block a `::` announced (its fence opened on the
    /// blank line before).
    fn literal_starts(&mut self, line: &str, indent: usize) -> bool {
        let Some(outer) = self.literal_after.take() else {
            return false;
        };
        if indent <= outer || !open_fence(&mut self.reads) {
            return false;
        }
        self.block = Block::Code {
            indent: outer,
            open: self.reads.len() - 1,
            body: Some(indent),
            options: false,
        };
        self.reads.push(Read::Code(line[indent..].to_string()));
        true
    }

    /// A line outside blocks that is no title: explicit markup, a `::` paragraph end, an
    /// adornment, a field, or text.
    fn outside(&mut self, line: &str, indent: usize) -> Read {
        let trimmed = line.trim();
        if trimmed == ".." || trimmed.starts_with(".. ") {
            let (read, next) = explicit(trimmed, indent, self.reads.len());
            self.block = next;
            return read;
        }
        if let Some(kept) = literal_marker(line) {
            self.literal_after = Some(indent);
            let cut = indent.saturating_sub(3);
            return if kept.trim().is_empty() {
                Read::Blank
            } else {
                Read::said(kept[cut..].to_string(), cut)
            };
        }
        if is_adornment(trimmed) {
            // A transition, or the overline of a title on the next line (never a Markdown
            // setext underline).
            return Read::Blank;
        }
        match field(trimmed) {
            Some((name, value)) if METADATA_FIELDS.contains(&name.to_lowercase().as_str()) => {
                Read::said(format!("{name}: {value}"), indent)
            }
            Some(_) if !self.titled => Read::Blank,
            _ => Read::Text,
        }
    }
}

/// A line inside an open block: what it becomes, or `None` when the block has ended (it
/// is closed, and the line is read afresh).
fn inside(
    block: &mut Block,
    line: &str,
    blank: bool,
    indent: usize,
    reads: &mut [Read],
) -> Option<Read> {
    match block.clone() {
        Block::Text => None,
        Block::Code {
            indent: outer,
            open,
            body,
            options,
        } => {
            if blank {
                *block = Block::Code {
                    indent: outer,
                    open,
                    body,
                    options: false,
                };
                return Some(Read::Code(String::new()));
            }
            if indent <= outer {
                *block = Block::Text;
                end_fence(reads, open);
                return None;
            }
            if options && field(line.trim()).is_some() {
                return Some(Read::Blank);
            }
            let body = body.unwrap_or(indent);
            *block = Block::Code {
                indent: outer,
                open,
                body: Some(body),
                options: false,
            };
            Some(Read::Code(line[body.min(indent)..].to_string()))
        }
        Block::Skip { indent: outer } => {
            if blank || indent > outer {
                return Some(Read::Blank);
            }
            *block = Block::Text;
            None
        }
        Block::Options { indent: outer } => {
            if !blank && indent > outer && field(line.trim()).is_some() {
                return Some(Read::Blank);
            }
            *block = Block::Text;
            None
        }
        Block::Toc { indent: outer } => {
            if blank {
                return Some(Read::Blank);
            }
            if indent <= outer {
                *block = Block::Text;
                return None;
            }
            let entry = line.trim();
            if entry.starts_with(':') {
                return Some(Read::Blank);
            }
            Some(toc_entry(entry).map_or(Read::Blank, |item| Read::said(item, indent)))
        }
    }
}

/// Opens a fence on the blank line before a literal block; false when there is none (the
/// block does not follow a blank line, which docutils does not read as literal either).
fn open_fence(reads: &mut [Read]) -> bool {
    match reads.last_mut() {
        Some(last) if *last == Read::Blank => {
            *last = Read::fence();
            true
        }
        _ => false,
    }
}

/// Closes the code block whose fence opened at `open` on the first of the blank lines it
/// ends with; false when it ends with none.
fn close_fence(reads: &mut [Read], open: usize) -> bool {
    let mut first = reads.len();
    while first > open + 1 && reads[first - 1].is_blank() {
        first -= 1;
    }
    if first == reads.len() {
        return false;
    }
    reads[first] = Read::fence();
    for read in &mut reads[first + 1..] {
        *read = Read::Blank;
    }
    true
}

/// Closes a code block the page goes on after: on a blank line it ends with, else its last
/// line gives way to the fence (docutils warns of such a block too), or, with no line at
/// all, the fence that opened it is taken back.
fn end_fence(reads: &mut [Read], open: usize) {
    if close_fence(reads, open) {
        return;
    }
    let last = reads.len() - 1;
    reads[last] = if last > open {
        Read::fence()
    } else {
        Read::Blank
    };
}

/// An explicit markup line (`.. …`): what it becomes and the block after it.
fn explicit(trimmed: &str, indent: usize, at: usize) -> (Read, Block) {
    let skip = Block::Skip { indent };
    let Some(rest) = trimmed.strip_prefix(".. ") else {
        return (Read::Blank, skip);
    };
    let Some((name, argument)) = directive(rest) else {
        // A target, a substitution definition, a footnote or citation, or a comment.
        if let Some(note) = rest.strip_prefix('[') {
            if let Some((label, text)) = note.split_once(']') {
                return (
                    Read::said(format!("[{label}]{text}"), indent),
                    Block::Options { indent },
                );
            }
        }
        return (Read::Blank, skip);
    };
    let name = name.to_ascii_lowercase();
    let name = name.rsplit(':').next().unwrap_or(&name).to_string();
    let argument = argument.trim();
    if CODE_DIRECTIVES.contains(&name.as_str()) {
        let code = Block::Code {
            indent,
            open: at,
            body: None,
            options: true,
        };
        return (Read::fence(), code);
    }
    if SKIPPED_DIRECTIVES.contains(&name.as_str()) || name.starts_with("auto") {
        return (Read::Blank, skip);
    }
    if name == "toctree" {
        return (Read::Blank, Block::Toc { indent });
    }
    let said = if ADMONITIONS.contains(&name.as_str()) {
        let mut title = name.clone();
        title[..1].make_ascii_uppercase();
        format!("{title}: {argument}").trim_end().to_string()
    } else {
        argument.to_string()
    };
    let read = if said.is_empty() {
        Read::Blank
    } else {
        Read::said(said, indent)
    };
    (read, Block::Options { indent })
}

/// A directive's name and argument (`code-block:: python`), from the text after `.. `.
fn directive(rest: &str) -> Option<(&str, &str)> {
    let (name, argument) = rest.split_once("::")?;
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '+' | '.'));
    valid.then_some((name, argument))
}

/// A toctree entry as a Markdown list item linking its document (`Title <path>` or
/// `path`, `.rst` added); `None` for `self`, globs and options.
fn toc_entry(entry: &str) -> Option<String> {
    let (title, path) = match entry.strip_suffix('>').and_then(|e| e.rsplit_once('<')) {
        Some((title, path)) => (title.trim(), path.trim()),
        None => (entry, entry),
    };
    if path == "self" || path.contains('*') || path.is_empty() {
        return None;
    }
    Some(format!("- [{title}]({})", doc_path(path)))
}

/// A document name as a path to its file: `.rst` added unless it has an ending; a URL as
/// it is.
fn doc_path(name: &str) -> String {
    let file = name.rsplit('/').next().unwrap_or(name);
    if name.contains("://") || file.contains('.') {
        name.to_string()
    } else {
        format!("{name}.rst")
    }
}

/// The style of a section title whose text is line `i`, if it is one: underlined, and
/// overlined alike when the line before is an adornment.
fn title_at(lines: &[&str], i: usize) -> Option<Style> {
    let text = lines[i];
    let under = lines.get(i + 1)?.trim_end();
    if text.trim().is_empty() || is_adornment(text.trim()) || !is_adornment(under) {
        return None;
    }
    if under.len() < 3 || under.chars().count() < text.trim().chars().count().min(4) {
        return None;
    }
    let mark = under.chars().next()?;
    let over = i
        .checked_sub(1)
        .map(|k| lines[k].trim_end())
        .filter(|l| is_adornment(l) && l.starts_with(mark));
    match over {
        Some(_) => Some((mark, true)),
        // Without an overline, a title starts at the margin after a blank line.
        None => {
            let before = i.checked_sub(1).map(|k| lines[k].trim());
            // After a blank line, or right under another title's underline.
            let boundary = before.is_none_or(|l| l.is_empty() || is_adornment(l));
            (boundary && indentation(text) == 0).then_some((mark, false))
        }
    }
}

/// Whether a line is one adornment character repeated (at least twice).
fn is_adornment(line: &str) -> bool {
    let mut chars = line.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    ADORNMENTS.contains(first) && line.len() >= 2 && chars.all(|c| c == first)
}

/// The Markdown level of each title style, in the order styles first appear, and whether
/// the first title is the page's own: when its style comes again, the first title is the
/// page's (level 1) and every other title one level deeper.
fn levels(reads: &[Read]) -> (HashMap<Style, usize>, bool) {
    let mut order: Vec<Style> = Vec::new();
    let mut first_again = false;
    for read in reads {
        if let Read::Title(style) = read {
            if let Some(k) = order.iter().position(|s| s == style) {
                first_again |= k == 0;
            } else {
                order.push(*style);
            }
        }
    }
    let shift = usize::from(first_again);
    let levels = order
        .iter()
        .enumerate()
        .map(|(k, style)| (*style, (k + 1 + shift).min(6)))
        .collect();
    (levels, first_again)
}

/// A field list line (`:name: value`): its name and value.
fn field(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix(':')?;
    let end = rest.find(':')?;
    let name = &rest[..end];
    let value = &rest[end + 1..];
    let valid = !name.is_empty() && !name.starts_with(' ') && !name.contains('`');
    (valid && (value.is_empty() || value.starts_with(' '))).then(|| (name, value.trim()))
}

/// A line that ends with `::`: the line without its marker (`Example::` is `Example:`,
/// `Run it ::` is `Run it`, a lone `::` is nothing).
fn literal_marker(line: &str) -> Option<&str> {
    let body = line.trim_end().strip_suffix("::")?;
    if body.ends_with(['\\', ':']) {
        return None;
    }
    Some(
        if body.ends_with(char::is_whitespace) || body.trim().is_empty() {
            body.trim_end()
        } else {
            // Keep one colon: `Example::` reads `Example:`.
            &line.trim_end()[..body.len() + 1]
        },
    )
}

/// The spaces (a tab as one) before a line's text.
fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// Roles whose text is code.
const CODE_ROLES: [&str; 16] = [
    "class", "func", "meth", "attr", "mod", "obj", "data", "const", "exc", "code", "file",
    "envvar", "program", "option", "command", "samp",
];

/// A line's inline markup rewritten: inline literals and interpreted text as Markdown code,
/// roles as their text, references with a target as Markdown links. One pass: a scan for a
/// closing mark that is not there happens once, as nothing after it can close either.
fn inline(line: &str, targets: &HashMap<String, String>) -> (String, Vec<(u32, u32)>) {
    let mut out = Rewrite::new(line);
    while !out.done() {
        let rest = out.rest();
        let after_space = out.at == 0
            || line[..out.at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_whitespace() || "([{<\"'-/:".contains(c));
        let done = if rest.starts_with("``") {
            out.literal()
        } else if rest.starts_with(':') && after_space {
            out.role()
        } else if rest.starts_with('`') {
            out.interpreted(targets)
        } else if after_space && rest.starts_with(|c: char| c.is_alphanumeric()) {
            out.simple_reference(targets)
        } else {
            false
        };
        if !done {
            out.copy_char();
        }
    }
    out.finish()
}

/// reStructuredText's inline markup, read by [`inline`].
impl Rewrite<'_> {
    /// ``` ``text`` ``` as `` `text` ``.
    fn literal(&mut self) -> bool {
        let rest = self.rest();
        let Some(end) = rest[2..].find("``") else {
            return self.copy(rest.len());
        };
        let text = &rest[2..2 + end];
        self.replace(end + 4, &format!("`{text}`"))
    }

    /// `` :role:`text` `` as its text, code for code roles; `:doc:` as a link.
    fn role(&mut self) -> bool {
        let rest = self.rest();
        // The name runs to its closing `:` (a domain's name holds one: `py:func`).
        let run = rest[1..]
            .find(|c: char| {
                !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '+' | '.'))
            })
            .unwrap_or(rest.len() - 1);
        let marked = &rest[1..1 + run];
        let open = 1 + run;
        if marked.len() < 2 || !marked.ends_with(':') || !rest[open..].starts_with('`') {
            // No `:` in this run opens a role: they all end where this one does.
            return self.copy(open);
        }
        let Some(close) = rest[open + 1..].find('`') else {
            return self.copy(rest.len());
        };
        let name = &marked[..marked.len() - 1];
        let text = &rest[open + 1..open + 1 + close];
        let name = name.rsplit(':').next().unwrap_or(name);
        let (title, target) = explicit_title(text);
        let markdown = match name {
            // `project:page` is another project's (intersphinx): its name only.
            "doc" if target.contains(':') => title.unwrap_or(target).to_string(),
            "doc" => format!("[{}]({})", title.unwrap_or(target), doc_path(target)),
            "pep" => format!("PEP {}", title.unwrap_or(target)),
            "rfc" => format!("RFC {}", title.unwrap_or(target)),
            code if CODE_ROLES.contains(&code) => {
                let shown = title.unwrap_or_else(|| python_name(target));
                format!("`{shown}`")
            }
            _ => title.unwrap_or(target).to_string(),
        };
        self.replace(open + 2 + close, &markdown)
    }

    /// `` `text` `` (interpreted text, as code), `` `text <url>`_ `` and `` `name`_ `` (a
    /// link when its target is known, else its text).
    fn interpreted(&mut self, targets: &HashMap<String, String>) -> bool {
        let rest = self.rest();
        let Some(close) = rest[1..].find('`') else {
            return self.copy(rest.len());
        };
        let text = &rest[1..1 + close];
        let after = &rest[close + 2..];
        let underscores = after.bytes().take_while(|&b| b == b'_').count().min(2);
        if underscores == 0 {
            return self.copy(close + 2);
        }
        let (title, target) = explicit_title(text);
        let url = match title {
            Some(_) if target.ends_with('_') => targets
                .get(&normal_name(target.trim_end_matches('_')))
                .cloned(),
            Some(_) => Some(target.to_string()),
            None if target.starts_with('<') => None,
            None => targets.get(&normal_name(target)).cloned(),
        };
        let label = title.unwrap_or(target);
        let markdown = match url {
            Some(url) => format!("[{label}]({url})"),
            None => label.to_string(),
        };
        self.replace(close + 2 + underscores, &markdown)
    }

    /// `name_`: a link when a target of that name is known.
    fn simple_reference(&mut self, targets: &HashMap<String, String>) -> bool {
        let rest = self.rest();
        let word = rest
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '.' | '+' | '_')))
            .unwrap_or(rest.len());
        let name = &rest[..word];
        let Some(bare) = name.strip_suffix('_').filter(|b| !b.ends_with('_')) else {
            return self.copy(word);
        };
        match targets.get(&normal_name(bare)) {
            Some(url) => self.replace(word, &format!("[{bare}]({url})")),
            None => self.copy(word),
        }
    }
}

/// A role's or reference's text with an explicit target (`Title <target>`): the title and
/// the target; without one, no title and the whole text.
fn explicit_title(text: &str) -> (Option<&str>, &str) {
    match text.strip_suffix('>').and_then(|t| t.rsplit_once('<')) {
        Some((title, target)) if !title.trim().is_empty() => (Some(title.trim()), target.trim()),
        _ => (None, text.trim()),
    }
}

/// A Python object as Sphinx shows it: `~pkg.mod.Name` as `Name`, `!name` as `name`.
fn python_name(target: &str) -> &str {
    match target.strip_prefix('~') {
        Some(path) => path.rsplit('.').next().unwrap_or(path),
        None => target.trim_start_matches('!'),
    }
}

#[cfg(test)]
mod tests;
