//! A line's inline markup: inline literals and interpreted text as Markdown code, roles as
//! the text Sphinx shows, references with a known target as Markdown links.

use std::collections::HashMap;

use super::super::rewrite::Rewrite;
use crate::kb::Catalog;

/// What a page's references resolve against: its own hyperlink targets, and the labels
/// every page defines (the catalogue's).
pub(super) struct Refs<'c> {
    /// The page's `.. _name: url` targets, by normal name.
    pub(super) targets: HashMap<String, String>,
    pub(super) catalog: Option<&'c Catalog>,
}

impl Refs<'_> {
    fn target(&self, name: &str) -> Option<&String> {
        self.targets.get(&normal_name(name))
    }

    /// The root-absolute path of the page that defines `label`.
    fn labelled(&self, label: &str) -> Option<String> {
        let page = self.catalog?.labelled(&normal_name(label))?;
        Some(format!("/{page}"))
    }
}

/// The labels a page defines for `:ref:` (`.. _label:`, a target with no URL), by normal
/// name.
pub(super) fn labels(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let name = line.trim().strip_prefix(".. _")?.strip_suffix(':')?;
            let name = name
                .strip_prefix('`')
                .and_then(|n| n.strip_suffix('`'))
                .unwrap_or(name);
            (!name.is_empty() && !name.contains(": ")).then(|| normal_name(name))
        })
        .collect()
}

/// Roles whose text is code.
const CODE_ROLES: [&str; 16] = [
    "class", "func", "meth", "attr", "mod", "obj", "data", "const", "exc", "code", "file",
    "envvar", "program", "option", "command", "samp",
];

/// Endings of a document name that already name its file (`:doc:` names leave `.rst` out).
const SOURCE_ENDINGS: [&str; 3] = [".rst", ".txt", ".md"];

/// The hyperlink targets of a page (`.. _name: url`), by normal name.
pub(super) fn targets(lines: &[&str]) -> HashMap<String, String> {
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

/// Whether a character may be part of a directive's or role's name (`code-block`,
/// `py:func`).
pub(super) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '+' | '.')
}

/// A line's inline markup rewritten. One pass: a scan for a closing mark that is not there
/// happens once, as nothing after it can close either. Markup starts only after white space
/// or punctuation, as in docutils (`` x`_ `` in a word starts nothing).
pub(super) fn rewrite(line: &str, refs: &Refs<'_>) -> (String, Vec<(u32, u32)>) {
    Rewrite::each(line, |out| {
        let rest = out.rest();
        let may_start = out.at == 0
            || line[..out.at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_whitespace() || "([{<\"'-/:".contains(c));
        if !may_start {
            false
        } else if rest.starts_with("``") {
            out.literal()
        } else if rest.starts_with(':') {
            out.role(refs)
        } else if rest.starts_with('`') {
            out.interpreted(refs)
        } else if rest.starts_with(|c: char| c.is_alphanumeric()) {
            out.simple_reference(refs)
        } else {
            false
        }
    })
}

/// reStructuredText's inline markup, read by [`rewrite`].
impl Rewrite<'_> {
    /// ``` ``text`` ``` as `` `text` `` (with double backquotes when it holds one).
    fn literal(&mut self) -> bool {
        let rest = self.rest();
        let Some(end) = rest[2..].find("``") else {
            return self.copy(rest.len());
        };
        let text = &rest[2..2 + end];
        let code = if text.contains('`') {
            format!("`` {text} ``")
        } else {
            format!("`{text}`")
        };
        self.replace(end + 4, &code)
    }

    /// `` :role:`text` `` as its text, code for code roles; `:doc:`, and `:ref:` to a label
    /// a page defines, as a link.
    fn role(&mut self, refs: &Refs<'_>) -> bool {
        let rest = self.rest();
        // The name runs to its closing `:` (a domain's name holds one: `py:func`).
        let run = rest[1..]
            .find(|c: char| !is_name_char(c))
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
            "doc" => link(title.unwrap_or(target), &doc_path(target)),
            "ref" => match refs.labelled(target) {
                Some(page) => link(title.unwrap_or(target), &page),
                None => title.unwrap_or(target).to_string(),
            },
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
    fn interpreted(&mut self, refs: &Refs<'_>) -> bool {
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
            Some(_) if target.ends_with('_') => refs.target(target.trim_end_matches('_')).cloned(),
            Some(_) => Some(target.to_string()),
            None if target.starts_with('<') => None,
            None => refs.target(target).cloned(),
        };
        let label = title.unwrap_or(target);
        let markdown = match url {
            Some(url) => link(label, &url),
            None => label.to_string(),
        };
        self.replace(close + 2 + underscores, &markdown)
    }

    /// `name_`: a link when a target of that name is known.
    fn simple_reference(&mut self, refs: &Refs<'_>) -> bool {
        let rest = self.rest();
        let word = rest
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '.' | '+' | '_')))
            .unwrap_or(rest.len());
        let name = &rest[..word];
        let Some(bare) = name.strip_suffix('_').filter(|b| !b.ends_with('_')) else {
            return self.copy(word);
        };
        match refs.target(bare) {
            Some(url) => self.replace(word, &link(bare, url)),
            None => self.copy(word),
        }
    }
}

/// A Markdown link; brackets in its text are escaped (`[Pyright playground]` would make the
/// link a wikilink).
pub(super) fn link(text: &str, target: &str) -> String {
    let text = text.replace('[', "\\[").replace(']', "\\]");
    format!("[{text}]({target})")
}

/// A role's or reference's text with an explicit target (`Title <target>`): the title and
/// the target; without one, no title and the whole text.
pub(super) fn explicit_title(text: &str) -> (Option<&str>, &str) {
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

/// A document name as a path to its file: `.rst` added unless it ends in a source ending
/// (`releases/1.0` is `releases/1.0.rst`); a URL as it is.
pub(super) fn doc_path(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    if name.contains("://") || SOURCE_ENDINGS.iter().any(|e| lower.ends_with(e)) {
        name.to_string()
    } else {
        format!("{name}.rst")
    }
}
