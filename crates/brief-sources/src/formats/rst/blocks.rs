//! What each line of a page is: a title, text, code, a line of brief's own Markdown (a
//! fence, a metadata line, a toctree entry, an admonition's name), or nothing — by the blocks
//! it is inside, which indentation opens and closes.

use super::inline::{doc_path, explicit_title, is_name_char, link};

/// The fence code blocks become: at least this long, and longer than any run of `~` that
/// starts a line of the block (which would close it).
const FENCE_LEN: usize = 6;

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
const SKIPPED_DIRECTIVES: [&str; 19] = [
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
];

/// Admonitions and version notes, and the words Sphinx shows for them.
const ADMONITIONS: [(&str, &str); 13] = [
    ("note", "Note:"),
    ("warning", "Warning:"),
    ("tip", "Tip:"),
    ("important", "Important:"),
    ("caution", "Caution:"),
    ("danger", "Danger:"),
    ("attention", "Attention:"),
    ("error", "Error:"),
    ("hint", "Hint:"),
    ("seealso", "See also:"),
    ("deprecated", "Deprecated since version"),
    ("versionadded", "Added in version"),
    ("versionchanged", "Changed in version"),
];

/// A section title's style: its character, and whether it is overlined too.
pub(super) type Style = (char, bool);

/// What a line of the page becomes.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Read {
    /// A blank line.
    Blank,
    /// Text, its markup rewritten.
    Text,
    /// A section title's text, in this style.
    Title(Style),
    /// A line of code, as written less the block's indentation.
    Code(String),
    /// A line of brief's own Markdown (`lead`), then `text` of the page rewritten, which
    /// starts at column `from` of the page.
    Markdown {
        lead: String,
        text: String,
        from: u32,
    },
}

impl Read {
    fn fence() -> Read {
        Read::said("~".repeat(FENCE_LEN), String::new(), 0)
    }

    fn said(lead: String, text: String, at: usize) -> Read {
        Read::Markdown {
            lead,
            text,
            from: at as u32 + 1,
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

/// What each line is (one more line when a code block ends the page, for its fence), and
/// whether a header block gave the page its title.
pub(super) fn read(lines: &[&str]) -> (Vec<Read>, bool) {
    let mut reader = Reader {
        reads: Vec::with_capacity(lines.len() + 1),
        block: Block::Text,
        literal_after: None,
        titled: false,
        underline: None,
    };
    let headed = reader.header(lines);
    reader.titled |= headed;
    let mut i = reader.reads.len();
    while i < lines.len() {
        i += reader.line(lines, i);
    }
    if let Block::Code { open, .. } = reader.block {
        if !close_fence(&mut reader.reads, open) {
            reader.reads.push(Read::fence());
            let last = reader.reads.len() - 1;
            fit_fences(&mut reader.reads, open, last);
        }
    }
    (reader.reads, headed)
}

/// The state of [`read`].
struct Reader {
    reads: Vec<Read>,
    block: Block,
    /// A paragraph ended with `::` whose text starts at this column: a deeper block after
    /// it is literal.
    literal_after: Option<usize>,
    /// Whether a title has been read (fields before it are the builder's).
    titled: bool,
    /// The line of the last title's underline.
    underline: Option<usize>,
}

impl Reader {
    /// A header block that opens the page (`PEP: 8`, `Title: Style Guide for Python Code`,
    /// `Status: Active`, …, as PEPs are written, up to the first blank line): its `Title` is
    /// the page's title, its `Status` and `Created` metadata lines, the rest left out. Whether
    /// the page had one (it needs a `Title`).
    fn header(&mut self, lines: &[&str]) -> bool {
        let block: Vec<&str> = lines
            .iter()
            .copied()
            .take_while(|line| !line.trim().is_empty())
            .collect();
        let key = |line: &str| header_line(line).map(|(key, _, _)| key.to_ascii_lowercase());
        let keyed = block.first().is_some_and(|first| key(first).is_some());
        if !keyed
            || !block
                .iter()
                .any(|line| key(line).as_deref() == Some("title"))
        {
            return false;
        }
        for line in block {
            let read = match header_line(line) {
                Some((key, value, at)) => match key.to_ascii_lowercase().as_str() {
                    "title" => Read::said("# ".into(), value.to_string(), at),
                    "status" => Read::said("Status: ".into(), value.to_string(), at),
                    "created" => Read::said("Date: ".into(), value.to_string(), at),
                    _ => Read::Blank,
                },
                // A value continued on an indented line.
                None => Read::Blank,
            };
            self.reads.push(read);
        }
        true
    }

    /// Reads line `i`, and the underline after it when it is a title; how many lines it read.
    fn line(&mut self, lines: &[&str], i: usize) -> usize {
        let line = lines[i];
        let blank = line.trim().is_empty();
        let indent = indentation(line);
        if let Some(read) = self.inside(line, blank, indent) {
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
        let after_underline = i > 0 && self.underline == Some(i - 1);
        if let Some(style) = title_at(lines, i, after_underline) {
            if style.1 {
                // The overline is the line before, already read as a blank adornment.
                if let Some(last) = self.reads.last_mut() {
                    *last = Read::Blank;
                }
            }
            self.reads.extend([Read::Title(style), Read::Blank]);
            self.titled = true;
            self.underline = Some(i + 1);
            return 2;
        }
        // An empty comment before a blank line ends what came before, and takes nothing.
        let empty_comment =
            line.trim() == ".." && lines.get(i + 1).is_none_or(|l| l.trim().is_empty());
        let read = if empty_comment {
            Read::Blank
        } else {
            self.outside(line, indent)
        };
        self.reads.push(read);
        1
    }

    /// A line inside an open block: what it becomes, or `None` when the block has ended
    /// (it is closed, and the line is read afresh).
    fn inside(&mut self, line: &str, blank: bool, indent: usize) -> Option<Read> {
        match self.block.clone() {
            Block::Text => None,
            Block::Code {
                indent: outer,
                open,
                body,
                options,
            } => {
                if !blank && indent <= outer {
                    self.block = Block::Text;
                    end_fence(&mut self.reads, open);
                    return None;
                }
                if options && !blank && field(line.trim()).is_some() {
                    return Some(Read::Blank);
                }
                let body = if blank { body } else { body.or(Some(indent)) };
                self.block = Block::Code {
                    indent: outer,
                    open,
                    body,
                    options: false,
                };
                if blank {
                    return Some(Read::Code(String::new()));
                }
                let from = body.unwrap_or(indent).min(indent);
                Some(Read::Code(line[from..].to_string()))
            }
            Block::Skip { indent: outer } => {
                if blank || indent > outer {
                    return Some(Read::Blank);
                }
                self.block = Block::Text;
                None
            }
            Block::Options { indent: outer } => {
                if !blank && indent > outer && field(line.trim()).is_some() {
                    return Some(Read::Blank);
                }
                self.block = Block::Text;
                None
            }
            Block::Toc { indent: outer } => {
                if blank {
                    return Some(Read::Blank);
                }
                if indent <= outer {
                    self.block = Block::Text;
                    return None;
                }
                let entry = line.trim();
                if entry.starts_with(':') {
                    return Some(Read::Blank);
                }
                Some(
                    toc_entry(entry)
                        .map_or(Read::Blank, |link| Read::said("- ".into(), link, indent)),
                )
            }
        }
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
            self.literal_after = Some(indent + item_text_at(trimmed));
            return if kept.trim().is_empty() {
                Read::Blank
            } else {
                let text = kept[indent..].to_string();
                Read::said(" ".repeat(indent.min(3)), text, indent)
            };
        }
        if is_adornment(trimmed) || trimmed == "=" || trimmed == "-" {
            // A transition, or the overline of a title on the next line: never a Markdown
            // setext underline.
            return Read::Blank;
        }
        match field(trimmed) {
            Some((name, value)) if METADATA_FIELDS.contains(&name.to_lowercase().as_str()) => {
                // The value ends the line: its column, in characters.
                let at = line.trim_end().len() - value.len();
                Read::said(
                    format!("{name}: "),
                    value.to_string(),
                    line[..at].chars().count(),
                )
            }
            Some(_) if !self.titled => Read::Blank,
            _ => Read::Text,
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
    fit_fences(reads, open, first);
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
    if last > open {
        reads[last] = Read::fence();
        fit_fences(reads, open, last);
    } else {
        reads[last] = Read::Blank;
    }
}

/// Makes the fences at `open` and `close` longer than any run of `~` that starts a line
/// between them, so none of those lines closes the block.
fn fit_fences(reads: &mut [Read], open: usize, close: usize) {
    let longest = reads[open + 1..close]
        .iter()
        .filter_map(|read| match read {
            Read::Code(code) => Some(code.trim_start().bytes().take_while(|&b| b == b'~').count()),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    if longest < FENCE_LEN {
        return;
    }
    let fence = "~".repeat(longest + 1);
    for at in [open, close] {
        reads[at] = Read::said(fence.clone(), String::new(), 0);
    }
}

/// An explicit markup line (`.. …`) at `at`: what it becomes and the block after it.
fn explicit(trimmed: &str, indent: usize, at: usize) -> (Read, Block) {
    let skip = Block::Skip { indent };
    let Some(rest) = trimmed.strip_prefix(".. ") else {
        return (Read::Blank, skip);
    };
    let Some((name, argument)) = directive(rest) else {
        // A target, a substitution definition, a footnote or citation, or a comment.
        if let Some(note) = rest.strip_prefix('[') {
            if let Some((label, text)) = note.split_once(']') {
                let read = Read::said(
                    format!("[{label}]"),
                    text.to_string(),
                    indent + 4 + label.len() + 1,
                );
                return (read, Block::Options { indent });
            }
        }
        return (Read::Blank, skip);
    };
    let name = name.to_ascii_lowercase();
    let name = name.rsplit(':').next().unwrap_or(&name).to_string();
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
    let text = argument.trim();
    let from = indent + trimmed.len() - argument.trim_start().len();
    let label = ADMONITIONS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, label)| *label);
    let read = match label {
        Some(label) if text.is_empty() => Read::said(label.to_string(), String::new(), from),
        Some(label) if label.ends_with(':') => {
            Read::said(format!("{label} "), text.to_string(), from)
        }
        // A version note: `Added in version 3.2:`.
        Some(label) => Read::said(format!("{label} "), format!("{text}:"), from),
        None if text.is_empty() => Read::Blank,
        None => Read::said(String::new(), text.to_string(), from),
    };
    (read, Block::Options { indent })
}

/// A directive's name and argument (`code-block:: python`), from the text after `.. `.
fn directive(rest: &str) -> Option<(&str, &str)> {
    let (name, argument) = rest.split_once("::")?;
    let valid = !name.is_empty() && name.chars().all(is_name_char);
    valid.then_some((name, argument))
}

/// A toctree entry as a Markdown link to its document (`Title <path>` or `path`); `None`
/// for `self` and globs.
fn toc_entry(entry: &str) -> Option<String> {
    let (title, path) = explicit_title(entry);
    if path == "self" || path.contains('*') || path.is_empty() {
        return None;
    }
    Some(link(title.unwrap_or(path), &doc_path(path)))
}

/// The style of a section title whose text is line `i`, if it is one: underlined, and
/// overlined alike when the line before is an adornment that is not the underline of the
/// title before (`after_underline`).
fn title_at(lines: &[&str], i: usize, after_underline: bool) -> Option<Style> {
    let text = lines[i];
    let under = lines.get(i + 1)?.trim_end();
    if text.trim().is_empty() || is_adornment(text.trim()) || !is_adornment(under) {
        return None;
    }
    if under.len() < 3 || under.chars().count() < text.trim().chars().count().min(4) {
        return None;
    }
    let mark = under.chars().next()?;
    let before = i.checked_sub(1).map(|k| lines[k].trim());
    let overlined =
        !after_underline && before.is_some_and(|l| is_adornment(l) && l.starts_with(mark));
    if overlined {
        return Some((mark, true));
    }
    // Without an overline, a title starts at the margin after a blank line, or right under
    // another title.
    let boundary = before.is_none_or(|l| l.is_empty() || is_adornment(l));
    (boundary && indentation(text) == 0).then_some((mark, false))
}

/// Whether a line is one adornment character repeated (at least twice).
fn is_adornment(line: &str) -> bool {
    let mut chars = line.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    ADORNMENTS.contains(first) && line.len() >= 2 && chars.all(|c| c == first)
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

/// Where the text of a list item or field starts in a line without its indentation
/// (`#. Install` at 3, `- Run` at 2, `:param x: text` after the field name), 0 for a line
/// that is neither: a literal block after it must be deeper than that.
fn item_text_at(trimmed: &str) -> usize {
    let marker = if trimmed.starts_with(['-', '*', '+', '•']) {
        trimmed.chars().next().map_or(0, char::len_utf8)
    } else if let Some((name, _)) = field(trimmed) {
        name.len() + 2
    } else {
        let enumerator = trimmed.strip_prefix('(').unwrap_or(trimmed);
        let digits = enumerator
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'#')
            .count();
        let after = &enumerator[digits..];
        if (1..=4).contains(&digits) && after.starts_with(['.', ')']) {
            trimmed.len() - after.len() + 1
        } else {
            0
        }
    };
    let rest = &trimmed[marker..];
    if marker == 0 || !rest.starts_with(' ') {
        return 0;
    }
    marker + rest.len() - rest.trim_start().len()
}

/// A header line (`Post-History: 05-Jul-2001`): its key, its value and the value's byte
/// offset; `None` for a continuation line or anything else.
fn header_line(line: &str) -> Option<(&str, &str, usize)> {
    let (key, value) = line.split_once(": ")?;
    let valid = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    let at = key.len() + 2 + (value.len() - value.trim_start().len());
    valid.then(|| (key, value.trim(), at))
}

/// The bytes of white space (spaces, tabs) before a line's text.
pub(super) fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}
