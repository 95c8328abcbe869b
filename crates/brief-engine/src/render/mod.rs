//! Rendering: the document for a ranked selection at chosen detail levels, as Markdown or as
//! compact text, and the JSON audit view around the Markdown.
//!
//! A [`Layout`] fixes the section of every node once; [`Layout::document`] then writes the
//! document for any assignment of detail levels, reusing cached blocks, so the budget fit can
//! try many assignments cheaply.

mod body;
pub(crate) mod card;
pub(crate) mod json;
mod markdown;
pub(crate) mod search;
mod text;
mod writer;
mod xml;

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;
use std::str::FromStr;

use crate::rank::{Class, Ranked};
use crate::traverse::Reason;
use brief_model::{Detail, Kind, Node, NodeIx, NodeStore, Shape};

pub(crate) use body::{has_heading_at, Bodies};
pub(crate) use card::{card, Card};
use writer::{QueryHead, Writer};

/// The chosen levels and the document they give.
#[derive(Debug, Clone, PartialEq)]
/// (Plain data: `fit` computes it, the JSON view reads it, so render never depends on fit.)
pub(crate) struct Fitted {
    /// Per ranked item: its detail, or `None` when omitted.
    pub details: Vec<Option<Detail>>,
    /// Per ranked item: the tokens of its block at the chosen detail (0 when omitted).
    pub tokens: Vec<usize>,
    /// The document as printed.
    pub document: String,
    /// The exact token count of `document`.
    pub used: usize,
    /// The item whose block was cut short to fill the budget, if any. Its detail is the
    /// level it was cut from; the whole level it holds is the one below.
    pub cut: Option<usize>,
    /// How many omitted items the document lists by name (in rank order); the rest are
    /// counted.
    pub listed: usize,
}

/// A sampled fan-out, for the document and the JSON (computed by `context`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct TruncationNote {
    /// The node whose links were sampled.
    pub id: String,
    /// Its kind's name.
    pub kind: String,
    /// Its title.
    pub title: String,
    /// The relation that was sampled.
    pub relation: String,
    /// How many neighbours it has over that relation.
    pub total: usize,
    /// How many were followed.
    pub kept: usize,
}

/// An output format of `context` and `show`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// The Markdown document (`--format markdown`, the default).
    #[default]
    Markdown,
    /// The audit view: the Markdown document plus why each node is in it.
    Json,
    /// Compact text for agents: one `=== KIND: ID ===` block per node.
    Text,
    /// XML-tagged text: the context in one `<context>` element, each node a `<document>`
    /// with its id, kind and reason as attributes.
    Xml,
}

impl Format {
    /// Every format's name, in the order `--format` offers them.
    pub const NAMES: &'static [&'static str] = &["markdown", "json", "text", "xml"];
    /// How help names the values of `--format`.
    pub const VALUE_NAME: &'static str = "markdown|json|text|xml";

    /// The style of the document this format prints, or `None` for JSON (data: the audit,
    /// or a command's own JSON), which embeds the Markdown document where it has one.
    pub fn document(self) -> Option<Style> {
        (self != Format::Json).then(|| self.style())
    }

    /// The style the document itself is written in (JSON embeds the Markdown document).
    pub fn style(self) -> Style {
        match self {
            Format::Markdown | Format::Json => Style::Markdown,
            Format::Text => Style::Text,
            Format::Xml => Style::Xml,
        }
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "markdown" | "md" => Ok(Format::Markdown),
            "json" => Ok(Format::Json),
            "text" => Ok(Format::Text),
            "xml" => Ok(Format::Xml),
            other => Err(format!(
                "unknown format `{other}`: use {}",
                one_of(Format::NAMES)
            )),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Markdown => "markdown",
            Format::Json => "json",
            Format::Text => "text",
            Format::Xml => "xml",
        })
    }
}

/// `a, b or c`.
fn one_of(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// How a document is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Markdown (also the document inside the JSON audit).
    Markdown,
    /// Compact text: one `=== KIND: ID ===` block per node.
    Text,
    /// XML: one `<document>` element per node inside `<context>`.
    Xml,
}

impl Style {
    /// The writer of this style: the one place a style is told apart.
    fn writer(self) -> &'static dyn Writer {
        match self {
            Style::Markdown => &markdown::Markdown,
            Style::Text => &text::Text,
            Style::Xml => &xml::Xml,
        }
    }
}

/// The sections of a document. Their order depends on the kind of project (see
/// [`Layout::new`]); a section without shown nodes is left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Section {
    Identity,
    Target,
    ArchitectureDecisions,
    StackDecisions,
    PatternDecisions,
    InterfaceDecisions,
    Decisions,
    Domains,
    Policies,
    Norms,
    Foundations,
    Behaviors,
    Specs,
    Tasks,
    /// Spec Graph extension types (contracts, tokens, pipelines).
    Extensions,
    Other,
    Namespace,
    /// Everything a Tana context reached, in rank order.
    Connected,
    /// Related material: what links to a start node, further search hits.
    Related,
}

impl Section {
    fn title(self, target_kind: &Kind) -> String {
        match self {
            Section::Identity => "Project Identity".into(),
            Section::Target => match target_kind {
                Kind::Behavior => "Behavior".into(),
                other => title_case(other.name()),
            },
            Section::ArchitectureDecisions => "Architectural Decisions".into(),
            Section::StackDecisions => "Technology Decisions".into(),
            Section::PatternDecisions => "Pattern Decisions".into(),
            Section::InterfaceDecisions => "Interface Decisions".into(),
            Section::Decisions => "Decisions".into(),
            Section::Domains => "Domain Concepts".into(),
            Section::Policies => "Policies".into(),
            Section::Norms => "Norms".into(),
            Section::Foundations => "Foundations".into(),
            Section::Behaviors => "Prerequisite Behaviors".into(),
            Section::Specs => "Specs".into(),
            Section::Tasks => "Tasks".into(),
            Section::Extensions => "Related Specifications".into(),
            Section::Other => "Other".into(),
            Section::Namespace => "Namespace".into(),
            Section::Connected => "Connected Nodes".into(),
            Section::Related => "Related Material".into(),
        }
    }
}

/// Spec Graph order (the docs' template, extended).
const SPEC_GRAPH_ORDER: [Section; 18] = [
    Section::Identity,
    Section::Target,
    Section::ArchitectureDecisions,
    Section::StackDecisions,
    Section::PatternDecisions,
    Section::InterfaceDecisions,
    Section::Decisions,
    Section::Domains,
    Section::Policies,
    Section::Norms,
    Section::Foundations,
    Section::Behaviors,
    Section::Specs,
    Section::Tasks,
    Section::Extensions,
    Section::Other,
    Section::Namespace,
    Section::Related,
];

/// Artifact bundle order: identity → norms → decisions → specs → task (→ code paths).
const ARTIFACT_ORDER: [Section; 17] = [
    Section::Identity,
    Section::Norms,
    Section::Decisions,
    Section::ArchitectureDecisions,
    Section::StackDecisions,
    Section::PatternDecisions,
    Section::InterfaceDecisions,
    Section::Policies,
    Section::Domains,
    Section::Foundations,
    Section::Specs,
    Section::Behaviors,
    Section::Extensions,
    Section::Other,
    Section::Namespace,
    Section::Tasks,
    Section::Related,
];

/// Tana order: the target, then every other node in rank order (a Tana graph has no
/// normative kinds to group by).
const TANA_ORDER: [Section; 4] = [
    Section::Identity,
    Section::Target,
    Section::Connected,
    Section::Related,
];

/// What a document says besides its nodes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Extras {
    /// The search text the context started from.
    pub query: Option<String>,
    /// How the start nodes were found.
    pub found: crate::resolve::Found,
    /// The start nodes: ids with their score as a share of the best hit.
    pub seeds: Vec<(String, f64)>,
    /// How far the start can be trusted.
    pub confidence: crate::resolve::Confidence,
    /// Sampled fan-outs, one sentence each.
    pub truncated: Vec<String>,
    /// Only these extra fields are shown on cards (a lens's field filter).
    pub fields: Option<Vec<String>>,
    /// When the target is superseded: what supersedes it (id, title), or an empty list when
    /// only its status says so.
    pub superseded_by: Option<Vec<(String, String)>>,
    /// The depth a weak match's start nodes were walked to, when brief lowered it.
    pub guess_depth: Option<u32>,
}

/// The sections of one context and the blocks of its nodes.
pub(crate) struct Layout<'a> {
    graph: &'a dyn NodeStore,
    writer: &'static dyn Writer,
    ranked: &'a [Ranked],
    target: NodeIx,
    /// Sections in document order, each with its items (indices into `ranked`) in rank order,
    /// and its heading (written once: the fit lays out hundreds of candidate documents).
    sections: Vec<(Section, Vec<usize>, Option<Rc<str>>)>,
    header: Rc<str>,
    blocks: RefCell<HashMap<(usize, Detail), Rc<str>>>,
    /// Decision records' full texts from their decision on ([`Layout::cut_source`]), by
    /// item: a cut measures many lengths of one.
    decision_first: RefCell<HashMap<usize, Rc<str>>>,
    /// What was read of artifacts' bodies: a candidate's levels share it.
    bodies: Bodies,
    extras: Extras,
    /// For a section taken as the part of a long rule a task is about, the item of its page:
    /// once the page shows its full text, the section's is there already.
    within: Vec<Option<usize>>,
    /// Each item's lines in the closing list of code paths (`path (id)`), written once.
    paths: Vec<Vec<String>>,
}

impl<'a> Layout<'a> {
    /// Places every ranked node in its section.
    pub(crate) fn new(
        graph: &'a dyn NodeStore,
        ranked: &'a [Ranked],
        target: NodeIx,
        style: Style,
    ) -> Layout<'a> {
        let target_node = graph.node(target);
        let shape = target_node.origin.shape();
        let artifact = shape == Shape::Documents;
        let tana = shape == Shape::Outline;
        let order: &[Section] = if tana {
            &TANA_ORDER
        } else if artifact {
            &ARTIFACT_ORDER
        } else {
            &SPEC_GRAPH_ORDER
        };
        let mut sections: Vec<(Section, Vec<usize>)> =
            order.iter().map(|&s| (s, Vec::new())).collect();
        for (i, item) in ranked.iter().enumerate() {
            let section = if item.class == Class::Related {
                Section::Related
            } else if tana {
                match graph.node(item.node).kind {
                    Kind::Identity => Section::Identity,
                    _ if item.node == target => Section::Target,
                    _ => Section::Connected,
                }
            } else {
                section_of(graph, item.node, target, artifact)
            };
            if let Some((_, members)) = sections.iter_mut().find(|(s, _)| *s == section) {
                members.push(i);
            }
        }
        sections.retain(|(_, members)| !members.is_empty());
        let writer = style.writer();
        let sections = sections
            .into_iter()
            .map(|(section, members)| {
                let heading = writer
                    .section_heading(&section.title(&target_node.kind))
                    .map(Rc::from);
                (section, members, heading)
            })
            .collect();
        let header = writer
            .header(&target_node.id, &card::one_line(&target_node.title))
            .into();
        Layout {
            graph,
            writer,
            ranked,
            target,
            sections,
            header,
            blocks: RefCell::new(HashMap::new()),
            decision_first: RefCell::new(HashMap::new()),
            bodies: Bodies::default(),
            extras: Extras::default(),
            within: pages_of_rule_sections(graph, ranked),
            paths: ranked
                .iter()
                .map(|item| code_paths_of(graph.node(item.node)))
                .collect(),
        }
    }

    /// The detail item `i` is shown at: its own, but a rule's section whose page shows its
    /// full text (not cut) is shown by its line alone.
    pub(crate) fn shown_at(
        &self,
        details: &[Option<Detail>],
        cut: Option<&Cut>,
        i: usize,
    ) -> Option<Detail> {
        let detail = details.get(i).copied().flatten()?;
        let page_in_full = self.within.get(i).copied().flatten().is_some_and(|page| {
            details.get(page).copied().flatten() == Some(Detail::Full)
                && cut.is_none_or(|cut| cut.item != page)
        });
        Some(if page_in_full {
            detail.min(Detail::Meta)
        } else {
            detail
        })
    }

    /// Adds what the document says besides its nodes: the query, sampled fan-outs, the
    /// lens's field filter.
    pub(crate) fn with(mut self, extras: Extras) -> Layout<'a> {
        if let Some(query) = &extras.query {
            let target = self.graph.node(self.target);
            let seeds = extras
                .seeds
                .iter()
                .map(|(id, share)| format!("{id} ({share:.2})"))
                .collect::<Vec<_>>()
                .join(", ");
            let mut trust = String::new();
            if extras.confidence == crate::resolve::Confidence::Weak {
                trust.push_str(
                    "; the best node holds only part of the words, so check it is the right start",
                );
                if let Some(depth) = extras.guess_depth {
                    let hops = if depth == 1 { "hop" } else { "hops" };
                    trust.push_str(&format!(
                        "; its links are followed {depth} {hops}, `--depth {}` follows more",
                        depth + 1
                    ));
                }
            }
            self.header = self
                .writer
                .query_header(&QueryHead {
                    query,
                    found: extras.found.phrase(),
                    id: &target.id,
                    title: &card::one_line(&target.title),
                    confidence: extras.confidence.name(),
                    trust: &trust,
                    seeds: &seeds,
                })
                .into();
        }
        if let Some(successors) = &extras.superseded_by {
            let banner = superseded_banner(self.graph.node(self.target), successors, self.writer);
            self.header = format!("{}{banner}", self.header).into();
        }
        self.extras = extras;
        self
    }

    /// The ranked items, best first.
    pub(crate) fn ranked(&self) -> &'a [Ranked] {
        self.ranked
    }

    /// The block of one item at one detail level (cached).
    pub(crate) fn block(&self, item: usize, detail: Detail) -> Rc<str> {
        if let Some(block) = self.blocks.borrow().get(&(item, detail)) {
            return block.clone();
        }
        let ranked = &self.ranked[item];
        let card = card(
            self.graph,
            ranked.node,
            detail,
            &ranked.reasons,
            self.extras.fields.as_deref(),
            &self.bodies,
        );
        let kind = &self.graph.node(ranked.node).kind;
        let bare = self.is_bare(ranked.node);
        let mut text = self.writer.block(&card, kind, detail, bare);
        // A block unit ends with a blank line (see `units`).
        text.push('\n');
        let text: Rc<str> = text.into();
        self.blocks
            .borrow_mut()
            .insert((item, detail), text.clone());
        text
    }

    /// The block of `item` at `detail` as a cut shortens it ([`Layout::cut_block`]): the
    /// block, but a decision record's full text from its decision on. Cut, what it decided
    /// and its consequences are what a reader must keep; its context is the first to go
    /// (`brief show` prints it all).
    pub(crate) fn cut_source(&self, item: usize, detail: Detail) -> Rc<str> {
        let block = self.block(item, detail);
        let node = self.graph.node(self.ranked[item].node);
        if detail != Detail::Full || node.kind != Kind::Decision {
            return block;
        }
        if let Some(kept) = self.decision_first.borrow().get(&item) {
            return kept.clone();
        }
        let at = self.writer.body_at(&block);
        let source = match (block.get(..at), block.get(at..)) {
            (Some(before), Some(body)) => match body::decision_at(body) {
                Some(at) if at > 0 => format!("{before}{}", &body[at..]).into(),
                _ => block,
            },
            _ => block,
        };
        self.decision_first
            .borrow_mut()
            .insert(item, source.clone());
        source
    }

    /// [`Layout::cut_source`] of `item` at `detail` cut to its first `keep` bytes (a char
    /// boundary), with a line saying so. The result is still a unit (see [`Layout::units`]).
    pub(crate) fn cut_block(&self, item: usize, detail: Detail, keep: usize) -> Cut {
        let full = self.cut_source(item, detail);
        let id = &self.graph.node(self.ranked[item].node).id;
        Cut {
            item,
            text: self.writer.cut(&full, keep, id, detail).into(),
        }
    }

    /// Where the text of `block` starts and ends, past its heading and facts and before what
    /// closes it.
    pub(crate) fn body_span(&self, block: &str) -> std::ops::Range<usize> {
        let end = self.writer.body_end(block);
        self.writer.body_at(block).min(end)..end
    }

    /// How much of `block` (at `detail`) a cut must keep past (see [`Layout::cut_block`]).
    pub(crate) fn head(&self, block: &str, detail: Detail) -> usize {
        self.writer.head(block, detail)
    }

    /// The target (in Spec Graph layout) and the identity have a section of their own and
    /// no heading of their own in Markdown.
    fn is_bare(&self, node: NodeIx) -> bool {
        let kind = &self.graph.node(node).kind;
        *kind == Kind::Identity
            || (node == self.target && self.graph.node(self.target).origin.shape() == Shape::Graph)
    }

    /// The units of the document for one assignment of detail levels (`None` = omitted),
    /// with `cut`'s item written as its cut text. The first `listed` omitted items are listed
    /// one per line, in rank order, with their kind and title; the rest are counted.
    ///
    /// Every unit starts with a non-whitespace character and ends with a newline. OpenAI's
    /// pre-tokenizers (cl100k, o200k) always split right after a newline that is followed by
    /// non-whitespace, so the token count of the document is exactly the sum of the counts of
    /// its units: the fit measures a candidate by adding cached counts, never re-tokenizing.
    pub(crate) fn units(
        &self,
        details: &[Option<Detail>],
        listed: usize,
        cut: Option<&Cut>,
    ) -> Vec<Unit> {
        let mut units = Vec::with_capacity(details.len() + 16);
        units.push(Unit::Text(self.header.clone()));
        let target_node = self.graph.node(self.target);
        for (_, members, heading) in &self.sections {
            let mut shown = members
                .iter()
                .filter_map(|&i| self.shown_at(details, cut, i).map(|d| (i, d)))
                .peekable();
            if shown.peek().is_none() {
                continue;
            }
            if let Some(heading) = heading {
                units.push(Unit::Text(heading.clone()));
            }
            units.extend(shown.map(|(i, d)| match cut {
                Some(cut) if cut.item == i => Unit::Cut(cut.text.clone()),
                _ => Unit::Block(i, d),
            }));
        }
        // The target's verification closes a Spec Graph context, as in the docs' template.
        let target_item = self.ranked.iter().position(|r| r.node == self.target);
        let target_detail = target_item.and_then(|i| details[i]);
        if target_node.origin.shape() == Shape::Graph && target_detail >= Some(Detail::Summary) {
            let lines = card::verification_of(target_node);
            if !lines.is_empty() {
                units.push(self.list_unit("Verification", &lines));
            }
        }
        let paths: Vec<String> = self
            .paths
            .iter()
            .zip(details)
            .filter(|(_, detail)| detail.is_some())
            .flat_map(|(lines, _)| lines.iter().cloned())
            .collect();
        if !paths.is_empty() {
            units.push(self.list_unit("Code paths", &paths));
        }
        if !self.extras.truncated.is_empty() {
            units.push(self.list_unit("Truncated", &self.extras.truncated));
        }
        let omitted: Vec<usize> = (0..self.ranked.len())
            .filter(|&i| details[i].is_none())
            .collect();
        let shown = listed.min(omitted.len());
        if !omitted.is_empty() && shown == 0 {
            let unlisted = self.writer.omitted_unlisted(omitted.len());
            units.push(Unit::Text(unlisted.into()));
        } else if !omitted.is_empty() {
            let heading = self.writer.omitted_heading(omitted.len());
            units.push(Unit::Text(heading.into()));
            units.extend(omitted[..shown].iter().map(|&i| Unit::Omitted(i)));
            if shown < omitted.len() {
                let more = self.writer.more_omitted(omitted.len() - shown);
                units.push(Unit::Text(more.into()));
            }
        }
        if let Some(footer) = self.writer.footer() {
            units.push(Unit::Text(footer.into()));
        }
        units
    }

    /// The text of a unit.
    pub(crate) fn text(&self, unit: &Unit) -> Rc<str> {
        match unit {
            Unit::Text(text) | Unit::Cut(text) => text.clone(),
            Unit::Block(i, d) => self.block(*i, *d),
            Unit::Omitted(i) => {
                let node = self.graph.node(self.ranked[*i].node);
                let kind = node.kind.to_string();
                self.writer
                    .omitted_line(&node.id, &kind, &short_title(&node.title))
                    .into()
            }
        }
    }

    /// The document: the units joined. Blocks are separated by blank lines; the document
    /// ends with a single newline.
    pub(crate) fn document(&self, units: &[Unit]) -> String {
        let mut out = String::with_capacity(units.len() * 256);
        for unit in units {
            let text = self.text(unit);
            debug_assert!(
                text.ends_with('\n')
                    && text
                        .chars()
                        .next()
                        .is_some_and(|c| !c.is_whitespace() && c != '/'),
                "a unit starts with a split point and ends with a newline: {text:?}"
            );
            out.push_str(&text);
        }
        let trimmed = out.trim_end_matches('\n').len();
        out.truncate(trimmed);
        out.push('\n');
        out
    }

    fn list_unit(&self, title: &str, lines: &[String]) -> Unit {
        Unit::Text(self.writer.list(title, lines).into())
    }
}

/// A piece of a document: a node's block at a detail level, or fixed text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Unit {
    /// An item's block at a detail level.
    Block(usize, Detail),
    /// An omitted item's line in the omitted list.
    Omitted(usize),
    /// A block cut short to fill the budget (see [`Cut`]).
    Cut(Rc<str>),
    /// Fixed text: a header, a heading, a closing list.
    Text(Rc<str>),
}

/// A node's lines in the closing list of code paths: each path its artifact names, with the
/// node's id.
fn code_paths_of(node: &Node) -> Vec<String> {
    node.artifact().map_or_else(Vec::new, |fields| {
        fields
            .paths
            .iter()
            .map(|path| format!("{path} ({})", node.id))
            .collect()
    })
}

/// For each ranked item that is a section taken as the part of a long rule the task is about
/// (`Scope::Section`), the item of its page when the page is ranked too. A section's id is
/// its page's id, `#` and its anchor.
fn pages_of_rule_sections(graph: &dyn NodeStore, ranked: &[Ranked]) -> Vec<Option<usize>> {
    let by_id: HashMap<&str, usize> = ranked
        .iter()
        .enumerate()
        .map(|(i, item)| (graph.node(item.node).id.as_str(), i))
        .collect();
    ranked
        .iter()
        .map(|item| {
            let is_part = item.reasons.iter().any(Reason::is_rule_section);
            let page = brief_model::page_of_section(&graph.node(item.node).id);
            is_part.then(|| by_id.get(page).copied()).flatten()
        })
        .collect()
}

/// One block cut short to fill the budget: the fit chooses it, [`Layout::units`] writes it in
/// place of the item's block.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cut {
    /// The ranked item whose block is cut.
    pub item: usize,
    /// The cut block, with the mark that says so.
    pub text: Rc<str>,
}

fn section_of(
    graph: &dyn NodeStore,
    node: NodeIx,
    target: NodeIx,
    artifact_layout: bool,
) -> Section {
    let n = graph.node(node);
    if n.kind == Kind::Identity {
        return Section::Identity;
    }
    if node == target && !artifact_layout {
        return Section::Target;
    }
    match &n.kind {
        Kind::Decision if artifact_layout => Section::Decisions,
        Kind::Decision => match n.spec().and_then(|s| s.category.as_deref()) {
            Some("architecture") => Section::ArchitectureDecisions,
            Some("stack") => Section::StackDecisions,
            Some("pattern") => Section::PatternDecisions,
            Some("interface") => Section::InterfaceDecisions,
            _ => Section::Decisions,
        },
        Kind::Domain => Section::Domains,
        Kind::Policy => Section::Policies,
        Kind::Norm => Section::Norms,
        Kind::Foundation => Section::Foundations,
        Kind::Behavior => Section::Behaviors,
        Kind::Spec => Section::Specs,
        Kind::Task => Section::Tasks,
        Kind::Feature | Kind::Layer => Section::Namespace,
        kind if kind.is_extension() => Section::Extensions,
        _ => Section::Other,
    }
}

/// Longest title an omitted or truncated line shows, in characters.
const SHORT_TITLE: usize = 80;

/// A title cut to [`SHORT_TITLE`] characters at a word boundary, with an ellipsis.
pub(crate) fn short_title(title: &str) -> String {
    let title = card::one_line(title);
    if title.chars().count() <= SHORT_TITLE {
        return title.to_string();
    }
    let cut: String = title.chars().take(SHORT_TITLE).collect();
    let at = cut
        .rfind(' ')
        .filter(|&at| at > SHORT_TITLE / 2)
        .unwrap_or(cut.len());
    format!("{}…", cut[..at].trim_end())
}

/// The banner that opens the context of a superseded target.
fn superseded_banner(
    target: &brief_model::Node,
    successors: &[(String, String)],
    writer: &dyn Writer,
) -> String {
    let named: Vec<String> = successors
        .iter()
        .map(|(id, title)| writer.successor(id, &short_title(title)))
        .collect();
    let next = successors.first().map(|(id, _)| id.as_str());
    let what = if named.is_empty() {
        format!(
            "{} is marked superseded, and no node says what supersedes it.",
            target.id
        )
    } else {
        format!("{} is superseded by {}.", target.id, named.join(" and "))
    };
    writer.superseded(&what, next)
}

fn title_case(name: &str) -> String {
    name.split('_')
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<String>>()
        .join(" ")
}

/// Writes one card on its own (for `brief show`), with its heading.
pub(crate) fn write_card(card: &Card, kind: &Kind, detail: Detail, style: Style) -> String {
    style.writer().block(card, kind, detail, false)
}
