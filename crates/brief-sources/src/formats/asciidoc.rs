//! AsciiDoc knowledge pages (`.adoc`, `.asciidoc`): arc42 documents, ADRs, docs. A page is
//! read as the Markdown page it says the same as, line for line, then parsed by the Markdown
//! parser, so titles, sections, ADR status (and its normalisation), links and their warnings
//! are the Markdown pages' own. A warning's column is taken back to the AsciiDoc text.
//!
//! What is read: the document title (`= Title`), section titles (`==` … `======`), the
//! header's `:status:`, `:date:` and `:tags:` attributes (an ADR's status may also be the
//! first paragraph of its `== Status` section), `xref:`, `link:` and `<<…>>` cross
//! references (in an Antora component, resolved from the module's pages as Antora does;
//! [`Module`]). Comments, block attribute lines, anchors, the author and revision lines and
//! other attribute entries are left out; listing, literal and passthrough blocks are code.
//! See `docs/sources.md`.

use super::rewrite::{Rewrite, Translated};
use super::{PageFormat, Survey};
use crate::kb::Catalog;
use crate::markdown::Parsed;
use brief_root::Root;

/// The AsciiDoc page format.
pub(crate) struct AsciiDoc;

/// Folders where arc42 and docs-as-code projects keep their AsciiDoc (besides ADR folders).
const CONVENTIONAL_DIRS: [&str; 5] = ["docs", "doc", "src/docs", "src/docs/arc42", "docs/arc42"];

/// Header attributes read as metadata lines; the others are settings of the renderer.
const METADATA_KEYS: [&str; 3] = ["status", "date", "tags"];

/// The fence code blocks become (long, so a listing that holds a Markdown fence stays one).
const FENCE: &str = "~~~~~~";

impl PageFormat for AsciiDoc {
    fn name(&self) -> &'static str {
        "asciidoc"
    }

    fn title(&self) -> &'static str {
        "AsciiDoc"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[".adoc", ".asciidoc"]
    }

    fn discover(&self, survey: &Survey<'_>) -> bool {
        survey.pages_in(&CONVENTIONAL_DIRS, self.extensions()) || holds_component(survey.root())
    }

    fn parse(&self, rel: &str, text: &str, catalog: &Catalog) -> Parsed {
        translate(text, Module::of(rel).as_ref()).parse(rel, catalog)
    }
}

/// Whether a folder directly under the root holds an Antora component (its `antora.yml`):
/// `docs/`, or a folder of its own name (`session-docs/`). An `antora.yml` at the root
/// itself does not count: standing in a component, the root is the repository around it.
fn holds_component(root: &Root) -> bool {
    root.subfolders(root.path()).is_ok_and(|folders| {
        folders.iter().any(|folder| {
            let dir = root.path().join(&folder.name);
            root.is_file(&dir.join("antora.yml"))
        })
    })
}

/// Where the reader is: in text, in a block read as code, or in a comment block.
#[derive(Debug, Clone, PartialEq)]
enum Block {
    Text,
    /// A listing, literal, passthrough or fenced block, closed by this delimiter.
    Code(String),
    /// A comment block, closed by this delimiter.
    Comment(String),
}

/// Where the document header is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Header {
    /// Before the first line with content.
    Before,
    /// After the title, until the first empty line.
    In,
    /// In the body.
    Done,
}

/// Translates a page, line by line (linear in the text).
/// Where a file of an Antora component stands: its component's folder and its module. Antora
/// resolves a cross reference from the module's `pages/` folder, not from the referring file's.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Module {
    /// The component's folder, root-relative, with its trailing `/` (empty at the root).
    component: String,
    /// The module's folder name (`ROOT`, `concepts`).
    name: String,
    /// The referring page's folder inside `pages/` (`protocols/`), for `./` references.
    topic: String,
}

impl Module {
    /// The module of `rel` when it lies in one: `…/modules/NAME/pages/…`,
    /// `…/modules/NAME/partials/…` or the module's navigation file (`nav.adoc`, `nav-….adoc`);
    /// the first `modules/` of the path so followed decides (a topic folder may be called
    /// `modules` too). A partial's references are its including page's, so a partial has no
    /// topic of its own.
    fn of(rel: &str) -> Option<Module> {
        let parts: Vec<&str> = rel.split('/').collect();
        let (at, topic) = parts.iter().enumerate().find_map(|(at, part)| {
            if *part != "modules" {
                return None;
            }
            let inside = parts.get(at + 2..)?;
            let topic = match inside {
                [file] if is_nav(file) => String::new(),
                ["pages", folders @ .., _file] => folders.iter().map(|f| format!("{f}/")).collect(),
                ["partials", _, ..] => String::new(),
                _ => return None,
            };
            Some((at, topic))
        })?;
        let component: String = parts[..at].iter().map(|p| format!("{p}/")).collect();
        Some(Module {
            component,
            name: parts[at + 1].to_string(),
            topic,
        })
    }

    /// A page reference resolved as Antora does, as a root-relative path (`/docs/modules/…`):
    /// `page.adoc` or `topic/page.adoc` from this module's `pages/`, `./page.adoc` from the
    /// referring page's topic, `module:page.adoc` from another module's `pages/`,
    /// `partial$x.adoc` from `partials/`. `None` for another component or version, and for
    /// families that hold no pages (images, examples, attachments).
    fn resolve(&self, reference: &str) -> Option<String> {
        if reference.contains('@') {
            return None;
        }
        let (module, id) = match reference.split(':').collect::<Vec<_>>()[..] {
            [id] => (self.name.as_str(), id),
            [module, id] => (module, id),
            _ => return None,
        };
        let (family, path) = match id.split_once('$') {
            Some(("page", path)) => ("pages", path),
            Some(("partial", path)) => ("partials", path),
            Some(_) => return None,
            None => ("pages", id),
        };
        let (module, path) = match path.strip_prefix("./") {
            Some(rest) if module == self.name && family == "pages" => {
                (module, format!("{}{rest}", self.topic))
            }
            _ => (module, path.to_string()),
        };
        let module = if module.is_empty() { "ROOT" } else { module };
        Some(format!(
            "/{}modules/{module}/{family}/{path}",
            self.component
        ))
    }
}

/// Whether a file name is an Antora navigation file's (`nav.adoc`, `nav-admin.adoc`).
fn is_nav(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.starts_with("nav") && name.ends_with(".adoc")
}

fn translate(text: &str, module: Option<&Module>) -> Translated {
    let mut out = Translated::default();
    let mut block = Block::Text;
    let mut header = Header::Before;
    for raw in text.split_inclusive('\n') {
        let line = raw.trim_end_matches(['\n', '\r']);
        let (markdown, shifts) = match block {
            Block::Code(ref delimiter) => {
                let closes = line.trim_end() == delimiter;
                if closes {
                    block = Block::Text;
                }
                let kept = if closes { FENCE } else { line };
                (kept.to_string(), Vec::new())
            }
            Block::Comment(ref delimiter) => {
                if line.trim_end() == delimiter {
                    block = Block::Text;
                }
                (String::new(), Vec::new())
            }
            Block::Text => text_line(line, &mut block, &mut header, module),
        };
        out.push(&markdown, shifts);
    }
    out
}

/// A line outside blocks: a delimiter, a header line, a comment, an attribute entry, a
/// section title, a block attribute line, or text.
fn text_line(
    line: &str,
    block: &mut Block,
    header: &mut Header,
    module: Option<&Module>,
) -> (String, Vec<(u32, u32)>) {
    let trimmed = line.trim_end();
    if trimmed.is_empty() {
        if *header == Header::In {
            *header = Header::Done;
        }
        return (String::new(), Vec::new());
    }
    if let Some(opened) = delimiter(trimmed) {
        *header = Header::Done;
        return match opened {
            Opened::Code(close) => {
                *block = Block::Code(close);
                (FENCE.to_string(), Vec::new())
            }
            Opened::Comment(close) => {
                *block = Block::Comment(close);
                (String::new(), Vec::new())
            }
            Opened::Container => (String::new(), Vec::new()),
        };
    }
    if trimmed.starts_with("//") {
        return (String::new(), Vec::new());
    }
    if let Some(key) = attribute_key(trimmed) {
        // Same length: `:status: x` becomes ` status: x`, a metadata line.
        let kept = METADATA_KEYS.contains(&key.to_ascii_lowercase().as_str());
        let line = if kept {
            format!(" {}", &line[1..])
        } else {
            String::new()
        };
        return (line, Vec::new());
    }
    match *header {
        Header::Before if heading(trimmed) == Some(1) => *header = Header::In,
        Header::Before => *header = Header::Done,
        // The author and revision lines, and any other line of the header.
        Header::In => return (String::new(), Vec::new()),
        Header::Done => {}
    }
    if let Some(level) = heading(trimmed) {
        let title = trimmed[level..].trim_end_matches('=').trim_end();
        let (title, shifts) = inline(title, module);
        // The marks keep their length: the title's columns move by as many.
        let marks = level as u32;
        let shifts = shifts
            .into_iter()
            .map(|(md, src)| (md + marks, src + marks));
        return (format!("{}{title}", "#".repeat(level)), shifts.collect());
    }
    if trimmed.starts_with('[') && trimmed.ends_with(']') {
        return (String::new(), Vec::new());
    }
    inline(line, module)
}

/// What a delimiter line opens.
#[derive(Debug, PartialEq)]
enum Opened {
    /// A block read as code, closed by the same line.
    Code(String),
    /// A comment block, closed by the same line.
    Comment(String),
    /// An example, sidebar, quote or open block: its content is text.
    Container,
}

/// The block a delimiter line opens: four or more of one character (`----`, `....`, `++++`,
/// `////`, `====`, `****`, `____`), a Markdown fence, or `--`.
fn delimiter(line: &str) -> Option<Opened> {
    if line.starts_with("```") {
        return Some(Opened::Code("```".into()));
    }
    if line == "--" {
        return Some(Opened::Container);
    }
    let first = line.chars().next()?;
    if line.len() < 4 || !line.chars().all(|c| c == first) {
        return None;
    }
    match first {
        '-' | '.' | '+' => Some(Opened::Code(line.to_string())),
        '/' => Some(Opened::Comment(line.to_string())),
        '=' | '*' | '_' => Some(Opened::Container),
        _ => None,
    }
}

/// The name of an attribute entry (`:name: value`, `:name!:`).
fn attribute_key(line: &str) -> Option<&str> {
    let rest = line.strip_prefix(':')?;
    let end = rest.find(':')?;
    let name = rest[..end].trim_end_matches('!');
    let after = &rest[end + 1..];
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
    (valid && (after.is_empty() || after.starts_with(' '))).then_some(name)
}

/// A section title's level plus one (`= Title` is 1, `== Section` 2, up to 6).
fn heading(line: &str) -> Option<usize> {
    let marks = line.bytes().take_while(|&b| b == b'=').count();
    let rest = &line[marks..];
    let valid = (1..=6).contains(&marks) && rest.starts_with(' ') && !rest.trim().is_empty();
    valid.then_some(marks)
}

/// A line's cross references rewritten as Markdown links: `xref:T[X]` and `link:T[X]` as
/// `[X](T)`, `<<T,X>>` as `[X](T)`, inline anchors `[[id]]` dropped. One pass: every scan
/// ends at a closing mark known to exist, and what it scanned is consumed.
fn inline(line: &str, module: Option<&Module>) -> (String, Vec<(u32, u32)>) {
    let last_bracket = line.rfind(']');
    let last_double = line.rfind("]]");
    let last_angle = line.rfind(">>");
    Rewrite::each(line, |out| {
        let rest = out.rest();
        if rest.starts_with("xref:") || rest.starts_with("link:") {
            let is_xref = rest.starts_with('x');
            out.macro_link(5, is_xref, last_bracket, module)
        } else if rest.starts_with("<<") {
            out.angle_link(last_angle, module)
        } else if rest.starts_with("[[") {
            out.anchor(last_double)
        } else {
            false
        }
    })
}

/// AsciiDoc's cross references, read by [`inline`].
impl Rewrite<'_> {
    /// `xref:TARGET[TEXT]` or `link:TARGET[TEXT]`, the name `prefix` bytes long.
    fn macro_link(
        &mut self,
        prefix: usize,
        is_xref: bool,
        last_bracket: Option<usize>,
        module: Option<&Module>,
    ) -> bool {
        let rest = &self.line[self.at + prefix..];
        let target_len = rest
            .find(|c: char| c.is_whitespace() || c == '[' || c == '<')
            .unwrap_or(rest.len());
        let open = self.at + prefix + target_len;
        let closes = last_bracket.is_some_and(|last| last > open);
        if target_len == 0 || !self.line[open..].starts_with('[') || !closes {
            return self.copy(prefix + target_len);
        }
        let close = open + self.line[open..].find(']').unwrap_or(0);
        let target = &rest[..target_len];
        let label = &self.line[open + 1..close];
        let target = if is_xref {
            xref_target(target, module)
        } else {
            Some(target.to_string())
        };
        let markdown = link(label, target, &rest[..target_len]);
        self.replace(close + 1 - self.at, &markdown)
    }

    /// `<<TARGET>>` or `<<TARGET,TEXT>>`.
    fn angle_link(&mut self, last_angle: Option<usize>, module: Option<&Module>) -> bool {
        let start = self.at + 2;
        let Some(end) = last_angle.filter(|&last| last >= start) else {
            return self.copy(2);
        };
        let end = start + self.line[start..end + 2].find(">>").unwrap_or(0);
        let inside = &self.line[start..end];
        let (target, label) = inside.split_once(',').unwrap_or((inside, ""));
        if target.is_empty() || target.contains(char::is_whitespace) {
            return self.copy(end + 2 - self.at);
        }
        let markdown = link(label.trim(), xref_target(target, module), target);
        self.replace(end + 2 - self.at, &markdown)
    }

    /// An inline anchor `[[id]]` (or `[[id,label]]`): dropped, it is no link.
    fn anchor(&mut self, last_double: Option<usize>) -> bool {
        let start = self.at + 2;
        let Some(last) = last_double.filter(|&last| last >= start) else {
            return self.copy(2);
        };
        let end = start + self.line[start..last + 2].find("]]").unwrap_or(0);
        if end == start || self.line[start..end].contains(char::is_whitespace) {
            return self.copy(end + 2 - self.at);
        }
        self.replace(end + 2 - self.at, "")
    }
}

/// The Markdown link of a cross reference: `[label](target)`, the label the target's text
/// when empty; only the label when the target is no path (an Antora resource id).
fn link(label: &str, target: Option<String>, written: &str) -> String {
    let label = if label.is_empty() { written } else { label };
    match target {
        Some(target) => format!("[{label}]({target})"),
        None => label.to_string(),
    }
}

/// Where a cross reference points, as a Markdown link target: `file.adoc#id` as written,
/// `file#id` with the `.adoc` AsciiDoc leaves out, a bare `id` in this page (`#id`). In an
/// Antora `module`, a page reference is resolved from the module's pages ([`Module::resolve`]);
/// elsewhere an Antora resource id (`module:page.adoc`) is no path: `None`.
fn xref_target(target: &str, module: Option<&Module>) -> Option<String> {
    let (doc, anchor) = match target.split_once('#') {
        Some((doc, anchor)) => (doc, Some(anchor)),
        None => (target, None),
    };
    let is_page = doc
        .rsplit('/')
        .next()
        .is_some_and(|name| name.contains('.'));
    let doc = match module {
        Some(module) if is_page => module.resolve(doc)?,
        _ if doc.contains(':') => return None,
        _ => doc.to_string(),
    };
    let doc = doc.as_str();
    let has_extension = {
        let name = doc.rsplit('/').next().unwrap_or(doc);
        name.contains('.')
    };
    let doc = match (doc.is_empty(), has_extension, anchor) {
        (true, _, _) => String::new(),
        (false, true, _) => doc.to_string(),
        // `xref:id[]` names an anchor of this page; `xref:page#id[]` a page.
        (false, false, None) => return Some(format!("#{doc}")),
        (false, false, Some(_)) => format!("{doc}.adoc"),
    };
    Some(match anchor {
        Some(anchor) => format!("{doc}#{}", heading_anchor(anchor)),
        None => doc,
    })
}

/// A section id as Asciidoctor generates it (`_how_to_set_up`: a `_` first, `_` between
/// words) read as the Markdown heading anchor of the same title (`how-to-set-up`); any other
/// id as written.
fn heading_anchor(id: &str) -> String {
    match id.strip_prefix('_') {
        Some(words) if !words.is_empty() => words.replace('_', "-"),
        _ => id.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn markdown(text: &str) -> String {
        translate(text, None).markdown
    }

    #[test]
    fn the_header_title_sections_and_metadata_become_markdown_line_for_line() {
        let text = "= ADR 1: Use Postgres\nJane Doe <jane@example.com>\n:status: Accepted\n\
                    :toc: left\n\n== Context\n\n// a comment\n[source,sql]\n----\n== not a title\n\
                    ----\n=== Detail ===\n";
        assert_eq!(
            markdown(text),
            "# ADR 1: Use Postgres\n\n status: Accepted\n\n\n## Context\n\n\n\n~~~~~~\n\
             == not a title\n~~~~~~\n### Detail\n"
        );
        assert_eq!(text.lines().count(), markdown(text).lines().count());
    }

    #[test]
    fn cross_references_become_links_and_columns_map_back() {
        let line = "See xref:0002-b.adoc[the next one], <<other#why,Why>> and <<local>> [[here]].";
        let page = translate(line, None);
        assert_eq!(
            page.markdown,
            "See [the next one](0002-b.adoc), [Why](other.adoc#why) and [local](#local) .\n"
        );
        assert_eq!(
            page.column_of(1, 34),
            37,
            "the `<<` of the second reference"
        );
        assert_eq!(xref_target("ROOT:page.adoc", None), None);
        assert_eq!(xref_target("anchor", None).as_deref(), Some("#anchor"));
        assert_eq!(
            markdown("link:https://x.org/a[site]"),
            "[site](https://x.org/a)\n"
        );
    }

    #[test]
    fn antora_references_resolve_from_the_modules_pages() {
        let module = Module::of("docs/modules/concepts/pages/protocols/smtp.adoc").unwrap();
        assert_eq!(module.component, "docs/");
        assert_eq!(module.name, "concepts");
        assert_eq!(module.topic, "protocols/");
        let target = |t: &str| xref_target(t, Some(&module));
        let cases = [
            (
                "messages/mime.adoc",
                "/docs/modules/concepts/pages/messages/mime.adoc",
            ),
            (
                "./lmtp.adoc#_delivery",
                "/docs/modules/concepts/pages/protocols/lmtp.adoc#delivery",
            ),
            ("ROOT:index.adoc", "/docs/modules/ROOT/pages/index.adoc"),
            (
                "partial$note.adoc",
                "/docs/modules/concepts/partials/note.adoc",
            ),
            (
                "ops:page$run/run-docker.adoc",
                "/docs/modules/ops/pages/run/run-docker.adoc",
            ),
            ("_rfc_2821", "#_rfc_2821"),
        ];
        for (reference, expected) in cases {
            assert_eq!(target(reference).as_deref(), Some(expected), "{reference}");
        }
        for elsewhere in ["other:ROOT:page.adoc", "2.0@page.adoc", "image$map.png"] {
            assert_eq!(target(elsewhere), None, "{elsewhere}");
        }
        let nav = Module::of("docs/modules/concepts/nav.adoc").unwrap();
        assert_eq!(
            xref_target("index.adoc", Some(&nav)).as_deref(),
            Some("/docs/modules/concepts/pages/index.adoc")
        );
        assert_eq!(
            Module::of("modules/ROOT/pages/a.adoc").unwrap().component,
            ""
        );
        assert_eq!(Module::of("docs/adr/0001-a.adoc"), None);
        assert_eq!(Module::of("docs/modules/concepts/images/a.adoc"), None);
        // A page directly in a folder named `modules` is no navigation file; a topic folder
        // named `modules` is a topic.
        assert_eq!(Module::of("docs/modules/auth/overview.adoc"), None);
        let deep = Module::of("docs/modules/ROOT/pages/modules/kafka/setup.adoc").unwrap();
        assert_eq!(
            (deep.name.as_str(), deep.topic.as_str()),
            ("ROOT", "modules/kafka/")
        );
        let partial = Module::of("docs/modules/ops/partials/run/steps.adoc").unwrap();
        assert_eq!((partial.name.as_str(), partial.topic.as_str()), ("ops", ""));
        // Outside a module a reference is relative to the page; Asciidoctor's section ids
        // name the Markdown heading anchors.
        assert_eq!(
            xref_target("other.adoc#_how_to_set_up", None).as_deref(),
            Some("other.adoc#how-to-set-up")
        );
    }

    #[test]
    fn unclosed_references_and_blocks_are_read_as_text() {
        assert_eq!(markdown("xref:a.adoc[no close"), "xref:a.adoc[no close\n");
        assert_eq!(markdown("<<a <<b <<c"), "<<a <<b <<c\n");
        assert_eq!(markdown("////\nhidden\n"), "\n\n");
        // Every scan ends at a closing mark known to exist, and what it scanned is read once
        // (`benches`-free: a quadratic reading of these lines would take minutes).
        for long in [
            "xref:".repeat(20_000) + "[",
            "Text [[a ".repeat(20_000) + "]]",
            "Text <<a ".repeat(20_000) + ">>",
        ] {
            assert!(markdown(&long).trim_end() == long, "read as text");
        }
        let nested = "xref:a[".repeat(20_000) + "]";
        assert!(markdown(&nested).starts_with("[xref:a["));
    }
}
