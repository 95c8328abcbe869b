//! A [`Card`] is what one node shows at one detail level, before it is written as Markdown
//! or as compact text. Deciding *what* to show lives here once; the two writers only decide
//! *how*.

use std::borrow::Cow;

use serde_json::Value;

use super::body::{self, Bodies, Body};
use crate::traverse::{Direction, Reason};
use brief_model::{
    ArtifactFields, Content, Detail, Kind, Node, NodeIx, NodeStore, Relation, SpecFields,
    TanaFields, Verification,
};

/// Links of one relation listed on a card before the rest is counted ("+N more").
const LINKS_SHOWN: usize = 8;

/// Reasons a meta line or a summary names before the rest is counted ("+N more"): the one
/// that brought the node in first says why it is here; the others are in the full text and
/// the JSON audit. A meta line names a node the budget had no room for, and a summary is the
/// gist: a line of reasons with paths for ids cost as much as the next node's summary.
/// (On the evaluation of tasks in words, 1 reason and 2 links held 89 % of the must-see
/// documents at 2,000 tokens where 3 and 3 held 87 %.)
const REASONS_SHOWN: usize = 1;

/// Links of one relation a meta line or a summary names before the rest is counted.
const BRIEF_LINKS_SHOWN: usize = 2;

/// One part of a card's body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part {
    /// Plain prose (a statement, an expectation).
    Text(String),
    /// `Label: text` on one line.
    Labeled(&'static str, String),
    /// A labelled list.
    List(&'static str, Vec<String>),
    /// A Markdown body (artifacts), already sliced to the detail level.
    Markdown(String),
    /// Named values, one `name: value` line each (Tana fields).
    Fields(Vec<(String, String)>),
}

/// What one node shows at one detail level.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Card {
    pub id: String,
    pub kind: String,
    pub title: String,
    /// `key: value` facts: category, severity, status, why, links, frontmatter lines.
    pub facts: Vec<(String, String)>,
    pub parts: Vec<Part>,
}

/// Builds the card of `node` at `detail`; `reasons` explain why it is in the context.
/// `fields`, when given, limits the extra frontmatter fields shown (a lens's filter).
/// `bodies` keeps what was read of artifacts' bodies for their other cards.
pub(crate) fn card(
    graph: &dyn NodeStore,
    ix: NodeIx,
    detail: Detail,
    reasons: &[Reason],
    fields: Option<&[String]>,
    bodies: &Bodies,
) -> Card {
    let shown_fields = fields;
    let node = graph.node(ix);
    let mut facts: Vec<(String, String)> = Vec::new();
    let mut parts = Vec::new();
    if let Some(spec) = node.spec() {
        if let Some(category) = &spec.category {
            facts.push(("category".into(), category.clone()));
        }
        if let Some(severity) = &spec.severity {
            facts.push(("severity".into(), severity.clone()));
        }
    }
    if let Some(status) = &node.status {
        // A retired record shown by its line says there what its status section says
        // (reverted by what, where to go instead).
        let note = match (&node.content, detail) {
            (Content::Artifact(fields), Detail::Meta) if node.lifecycle().retired().is_some() => {
                body::status_note(&bodies.read(ix, &fields.body), node.lifecycle())
            }
            _ => None,
        };
        let status = match note {
            Some(note) => format!("{status} ({note})"),
            None => status.clone(),
        };
        facts.push(("status".into(), status));
    }
    // Every level says why the node is here, meta lines too: a line without its reason
    // is a line the reader cannot weigh. A summary, like a meta line, names the first
    // reason and a few links and counts the rest: the full text lists them all.
    let (reasons_shown, links_shown) = match detail {
        Detail::Meta | Detail::Summary => (REASONS_SHOWN, BRIEF_LINKS_SHOWN),
        Detail::Full => (usize::MAX, LINKS_SHOWN),
    };
    let why = why(graph, reasons, reasons_shown);
    if !why.is_empty() {
        facts.push(("why".into(), why));
    }
    // A Tana node's links are its outline and its `[[references]]`, shown in its text;
    // listing opaque ids again would only cost tokens.
    if node.origin.shape() != brief_model::Shape::Outline {
        if let Some(links) = links_line(node, links_shown) {
            facts.push(("links".into(), links));
        }
    }
    match &node.content {
        Content::Spec(spec) => spec_parts(spec, &node.kind, detail, &mut parts),
        Content::Tana(tana) => tana_card(tana, detail, shown_fields, &mut facts, &mut parts),
        Content::Artifact(fields) => artifact_card(
            fields,
            // Only a summary or the full text shows the body.
            (detail >= Detail::Summary).then(|| bodies.read(ix, &fields.body)),
            &node.kind,
            detail,
            shown_fields,
            &mut facts,
            &mut parts,
        ),
    }
    Card {
        id: node.id.clone(),
        kind: node.kind.name().to_string(),
        title: one_line(&node.title).into_owned(),
        facts,
        parts,
    }
}

/// A Spec Graph node's texts, lists and (at full) its verification, pins and other fields.
fn spec_parts(spec: &SpecFields, kind: &Kind, detail: Detail, parts: &mut Vec<Part>) {
    if detail >= Detail::Summary {
        for text in [&spec.expectation, &spec.statement, &spec.description]
            .into_iter()
            .flatten()
        {
            parts.push(Part::Text(text.trim().to_string()));
        }
        if detail == Detail::Full && !spec.constraints.is_empty() {
            parts.push(Part::List("Constraints", spec.constraints.clone()));
        }
        // Decisions always carry their rationale and rejected alternatives above meta,
        // so agents do not re-propose what was already turned down.
        if let Some(rationale) = &spec.rationale {
            parts.push(Part::Labeled("Rationale", rationale.trim().to_string()));
        }
        if !spec.rejected_alternatives.is_empty() {
            parts.push(Part::List(
                "Rejected alternatives",
                spec.rejected_alternatives
                    .iter()
                    .map(|alt| format!("{}: {}", alt.title, alt.reason))
                    .collect(),
            ));
        }
    }
    if detail == Detail::Full {
        if !spec.verification.is_empty() && *kind != Kind::Behavior {
            parts.push(Part::List(
                "Verification",
                verification_lines(&spec.verification),
            ));
        }
        if !spec.pins.is_empty() {
            parts.push(Part::List(
                "Pins",
                spec.pins
                    .iter()
                    .map(|pin| format!("{} sha256 {}", pin.id, pin.sha256))
                    .collect(),
            ));
        }
        if !spec.artifact.is_empty() {
            parts.push(Part::Labeled("Artifact", key_values(&spec.artifact)));
        }
        if !spec.metadata.is_empty() {
            parts.push(Part::Labeled("Metadata", key_values(&spec.metadata)));
        }
        if !spec.extra.is_empty() {
            parts.push(Part::Labeled("Other fields", key_values(&spec.extra)));
        }
    }
}

/// A Tana node's tags and times as facts; its fields, description and outline as parts.
fn tana_card(
    tana: &TanaFields,
    detail: Detail,
    shown_fields: Option<&[String]>,
    facts: &mut Vec<(String, String)>,
    parts: &mut Vec<Part>,
) {
    if !tana.tags.is_empty() {
        facts.push(("tags".into(), hash_tags(&tana.tags)));
    }
    if !tana.inherited.is_empty() {
        facts.push(("extends".into(), hash_tags(&tana.inherited)));
    }
    if detail >= Detail::Summary {
        for (key, time) in [("created", &tana.created), ("modified", &tana.modified)] {
            if let Some(time) = time {
                facts.push((key.into(), time.get(..10).unwrap_or(time).to_string()));
            }
        }
        let fields: Vec<(String, String)> = tana
            .fields
            .iter()
            .filter(|f| brief_model::field_selected(shown_fields, &f.name))
            .map(|f| (f.name.clone(), f.values.join(", ")))
            .collect();
        if !fields.is_empty() {
            parts.push(Part::Fields(fields));
        }
        if let Some(description) = &tana.description {
            parts.push(Part::Text(description.trim().to_string()));
        }
        // The outline: all kept child names at full, the first few at summary.
        let shown = match detail {
            Detail::Full => tana.children.len(),
            _ => tana.children.len().min(TANA_SUMMARY_CHILDREN),
        };
        if shown > 0 {
            let mut items: Vec<String> = tana.children[..shown].to_vec();
            if tana.child_count > shown {
                items.push(format!("… {} more", tana.child_count - shown));
            }
            parts.push(Part::List("Children", items));
        }
    }
}

/// An artifact's description, lists and extra frontmatter as facts; its body as a part.
fn artifact_card(
    fields: &ArtifactFields,
    body: Option<Body<'_>>,
    kind: &Kind,
    detail: Detail,
    shown_fields: Option<&[String]>,
    facts: &mut Vec<(String, String)>,
    parts: &mut Vec<Part>,
) {
    let shown = shown_fields;
    if detail >= Detail::Summary {
        if let Some(description) = &fields.description {
            facts.push(("description".into(), description.clone()));
        }
        for (key, list) in [
            ("paths", &fields.paths),
            ("scope", &fields.scope),
            ("tags", &fields.tags),
        ] {
            if !list.is_empty() {
                facts.push((key.into(), list.join(", ")));
            }
        }
        // A summary says what the artifact is about; its other frontmatter (a site's
        // `nav_order`, `permalink`, a record's `consulted`) comes with the full text, as a
        // Spec Graph node's other fields do — unless a lens names the fields it wants.
        for (key, value) in &fields.extra {
            let wanted = match shown {
                Some(_) => brief_model::field_selected(shown, key),
                None => detail == Detail::Full,
            };
            if wanted {
                facts.push((key.clone(), value.clone()));
            }
        }
    }
    if let Some(body) = body {
        let text = match detail {
            Detail::Full => body::full(&body),
            // What was decided is what a decision record's reader must not miss; its context
            // comes with the full text.
            _ if *kind == Kind::Decision => {
                body::decision_summary(&body).unwrap_or_else(|| body::summary(&body))
            }
            _ => body::summary(&body),
        };
        if !text.is_empty() {
            parts.push(Part::Markdown(text));
        }
    }
}

/// A title as one line: a title written over several lines has each run of whitespace that
/// holds a line break or a tab made one space, so a `title:` line, a heading or a name in the
/// omitted list never spills onto the next line. A one-line title is kept as written.
pub(crate) fn one_line(title: &str) -> std::borrow::Cow<'_, str> {
    if !title.contains(['\n', '\r', '\t']) {
        return title.into();
    }
    title
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .into()
}

/// Children a Tana node lists at summary detail.
const TANA_SUMMARY_CHILDREN: usize = 5;

fn hash_tags(tags: &[String]) -> String {
    tags.iter()
        .map(|t| format!("#{t}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The verification of a Spec Graph node as lines (the target's Verification section).
pub(crate) fn verification_of(node: &Node) -> Vec<String> {
    node.spec()
        .map(|spec| verification_lines(&spec.verification))
        .unwrap_or_default()
}

fn verification_lines(entries: &[Verification]) -> Vec<String> {
    entries
        .iter()
        .map(|entry| match entry {
            Verification::Text(text) => text.clone(),
            Verification::Entry { kind, fields } => {
                let main = ["command", "url", "description", "ruleId"]
                    .iter()
                    .find_map(|key| fields.iter().find(|(k, _)| k == key));
                let mut line = match main {
                    Some((_, value)) => format!("{kind}: {}", value_text(value)),
                    None => kind.clone(),
                };
                let rest: Vec<(String, Value)> = fields
                    .iter()
                    .filter(|(k, _)| Some(k) != main.map(|(k, _)| k))
                    .cloned()
                    .collect();
                if !rest.is_empty() {
                    line.push_str(&format!(" ({})", key_values(&rest)));
                }
                line
            }
        })
        .collect()
}

fn key_values(pairs: &[(String, Value)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}: {}", value_text(v)))
        .collect::<Vec<_>>()
        .join("; ")
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(value_text).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// A `contains` link to a section of the node's own page: the page's body holds its text.
fn is_own_section(node: &Node, link: &brief_model::Link) -> bool {
    // A section's subsections are sections of its page too (`page.md#a` holds `page.md#b`).
    let page = match node.kind {
        Kind::Section => brief_model::page_of_section(&node.id),
        _ => node.id.as_str(),
    };
    link.relation == brief_model::Relation::Contains
        && link
            .target
            .strip_prefix(page)
            .is_some_and(|anchor| anchor.starts_with('#'))
}

/// `depends_on DEC-A, DEC-B; implements DOM-1` over the node's links as written. A plain
/// `links` to a node that a named relation also reaches (`superseded_by ADR-0004`, whose
/// status line links it) is left out: the named one says more.
fn links_line(node: &Node, most: usize) -> Option<String> {
    // Linear in the links: a node may list a hundred thousand (hashed, not searched).
    let mut groups: Vec<(&str, Vec<Cow<'_, str>>)> = Vec::new();
    let mut group_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut seen: std::collections::HashSet<(&str, Cow<'_, str>)> =
        std::collections::HashSet::new();
    let named: std::collections::HashSet<&str> = node
        .links
        .iter()
        .filter(|link| is_named(&link.relation))
        .map(|link| link.target.as_str())
        .collect();
    for link in &node.links {
        if is_own_section(node, link)
            || (is_plain(&link.relation) && named.contains(link.target.as_str()))
        {
            continue;
        }
        // A link to a heading of a page (`links#Heading`) is one of the node's links, not a
        // relation of its own: it is listed with them as the heading's section id (a block
        // reference, `#^id`, as written).
        let (name, target) = match link.relation.name().split_once('#') {
            Some((base, block)) if block.starts_with('^') => {
                (base, Cow::Owned(format!("{}#{block}", link.target)))
            }
            Some((base, _)) => match link.section() {
                Some(section) => (base, Cow::Owned(section)),
                None => (base, Cow::Borrowed(link.target.as_str())),
            },
            None => (link.relation.name(), Cow::Borrowed(link.target.as_str())),
        };
        if !seen.insert((name, target.clone())) {
            continue;
        }
        match group_of.get(name) {
            Some(&g) => groups[g].1.push(target),
            None => {
                group_of.insert(name, groups.len());
                groups.push((name, vec![target]));
            }
        }
    }
    if groups.is_empty() {
        return None;
    }
    Some(
        groups
            .into_iter()
            .map(|(rel, targets)| {
                let shown = targets.len().min(most);
                let mut text = format!("{rel} {}", targets[..shown].join(", "));
                if targets.len() > shown {
                    text.push_str(&format!(" (+{} more)", targets.len() - shown));
                }
                text
            })
            .collect::<Vec<_>>()
            .join("; "),
    )
}

/// Whether `relation` is a plain link (`links`, not `links#Heading`): one that says only that
/// the text mentions its target.
fn is_plain(relation: &Relation) -> bool {
    relation.name() == "links"
}

/// Whether `relation` says how its target bears on the node (`supersedes`, `amends`,
/// `depends_on`): not a plain link, a link to a heading or a block, or `contains`.
fn is_named(relation: &Relation) -> bool {
    *relation != Relation::Contains
        && !relation.name().starts_with("links")
        && !relation.name().contains('#')
}

/// Why a node is in the context, in a few words per reason, read from the node's side:
/// "linked from TASK-002 as a spec", "constrains CHECKOUT, which contains CHECKOUT-01".
/// The first `most` reasons are named and the rest counted ("+N more").
fn why(graph: &dyn NodeStore, reasons: &[Reason], most: usize) -> String {
    let id = |ix: &NodeIx| graph.node(*ix).id.as_str();
    // What makes the node a rule or the identity first: a line cut short still says it.
    let (deciding, rest): (Vec<&Reason>, Vec<&Reason>) = reasons
        .iter()
        .partition(|r| matches!(r, Reason::Applies { .. } | Reason::Identity));
    let mut said: Vec<String> = deciding
        .into_iter()
        .chain(rest)
        .filter_map(|reason| match reason {
            Reason::Target => None,
            Reason::Identity => Some("project identity".to_string()),
            Reason::Applies { to, scope } => Some(match scope {
                brief_model::Scope::Always => "applies to every target".to_string(),
                brief_model::Scope::Glob { glob, file } => {
                    format!("applies to {} (glob `{glob}` matches {file})", id(to))
                }
                brief_model::Scope::Words { share } => format!(
                    "a rule whose words match the task, {:.2}",
                    f64::from(*share) / 10_000.0
                ),
                brief_model::Scope::Section { share } => format!(
                    "the part of a rule that applies whose words match the task, {:.2}",
                    f64::from(*share) / 10_000.0
                ),
                brief_model::Scope::Named { folder, word } => {
                    format!("its folder `{folder}/` is named by the task's word `{word}`")
                }
            }),
            Reason::Words { share } => Some(format!(
                "related by words, {:.2}",
                f64::from(*share) / 10_000.0
            )),
            Reason::Log { of } => Some(format!(
                "one of the project's {of} decisions (a log this small is read whole)"
            )),
            Reason::Edge {
                relation,
                direction,
                from,
                via,
            } => Some(match direction {
                Direction::Forward => forward_why(relation, id(from)),
                Direction::Backlink => format!("links to {}", id(from)),
                Direction::Inverse => inverse_why(relation, id(from), via.iter().map(id)),
                Direction::Linked => match via.first() {
                    Some(linked) => {
                        format!(
                            "{} {}, which {} links",
                            verb(relation),
                            id(linked),
                            id(from)
                        )
                    }
                    None => format!("{} {}", verb(relation), id(from)),
                },
                Direction::Propagated => {
                    let layer = via
                        .iter()
                        .rev()
                        .find(|ix| graph.node(**ix).kind == Kind::Layer)
                        .map(id)
                        .unwrap_or("?");
                    // The path from the target to the layer, without the layer.
                    let mut path: Vec<&str> = via.iter().map(id).collect();
                    let member = match path.iter().rposition(|p| *p == layer) {
                        Some(at) => {
                            let member = path.get(at + 1).copied();
                            path.truncate(at);
                            member
                        }
                        None => None,
                    };
                    let reach = if path.is_empty() {
                        format!("{} builds on", id(from))
                    } else {
                        format!("{} builds on through {}", id(from), path.join(", "))
                    };
                    match (relation, member) {
                        (Relation::Contains, _) => {
                            format!("decision of layer {layer}, which {reach}")
                        }
                        (relation, Some(member)) => format!(
                            "{} {member} in layer {layer}, which {reach}",
                            verb(relation)
                        ),
                        (relation, None) => {
                            format!("{} layer {layer}, which {reach}", verb(relation))
                        }
                    }
                }
            }),
        })
        .collect();
    // A rule that applies to every target reached from several starts says so once.
    let mut seen = std::collections::HashSet::new();
    said.retain(|phrase| seen.insert(phrase.clone()));
    if said.len() > most {
        let more = said.len() - most;
        said.truncate(most);
        said.push(format!("+{more} more"));
    }
    said.join("; ")
}

/// A relation as a verb whose subject is the edge's source (`constrains`, `depends on`).
fn verb(relation: &Relation) -> String {
    relation.name().replace('_', " ")
}

/// The node was reached over an edge `from → node`.
fn forward_why(relation: &Relation, from: &str) -> String {
    match relation {
        Relation::DependsOn => format!("dependency of {from}"),
        Relation::Implements => format!("implemented by {from}"),
        Relation::VerifiedBy => format!("verifies {from}"),
        Relation::DerivedFrom => format!("{from} is derived from it"),
        Relation::Contains => format!("part of {from}"),
        Relation::Constrains => format!("constrained by {from}"),
        Relation::Supersedes => format!("superseded by {from}"),
        // Tana relations read in words: ids are opaque.
        Relation::Child => format!("child of {from}"),
        Relation::Reference => format!("referenced by {from}"),
        Relation::Field(name) => format!(
            "in {} of {from}",
            name.strip_prefix("field:").unwrap_or(name)
        ),
        Relation::Link(key) => match key.as_ref() {
            "links" => format!("linked from {from}"),
            "superseded_by" => format!("supersedes {from}"),
            "amends" => format!("amended by {from}"),
            "amended_by" => format!("amends {from}"),
            "embeds" => format!("embedded in {from}"),
            key if key.starts_with("links#") => {
                format!(
                    "linked from {from} (section \"{}\")",
                    &key["links#".len()..]
                )
            }
            key if key.starts_with("embeds#") => {
                format!(
                    "embedded in {from} (section \"{}\")",
                    &key["embeds#".len()..]
                )
            }
            key => match key.strip_suffix('s') {
                Some(one) if !one.is_empty() => {
                    let article = if one.starts_with(['a', 'e', 'i', 'o', 'u']) {
                        "an"
                    } else {
                        "a"
                    };
                    format!("linked from {from} as {article} {one}")
                }
                _ => format!("linked from {from} as {key}"),
            },
        },
    }
}

/// The node was reached over an edge `node → from` (or `node → ancestor`, with `via` the
/// ancestors between `from` and it, nearest last).
fn inverse_why<'a>(
    relation: &Relation,
    from: &'a str,
    via: impl DoubleEndedIterator<Item = &'a str>,
) -> String {
    match relation {
        Relation::Child => format!("parent of {from}"),
        Relation::Reference => format!("references {from}"),
        Relation::Field(name) => format!(
            "has {from} as {}",
            name.strip_prefix("field:").unwrap_or(name)
        ),
        relation => {
            // The chain from the node down to the target: node → via… → from.
            let mut chain: Vec<&str> = via.rev().collect();
            if relation == &Relation::Contains {
                // `via` ends with the node's own child on the way down.
                return match chain.split_first() {
                    Some((child, rest)) => {
                        let mut text = format!("contains {child}");
                        for next in rest.iter().chain([&from]) {
                            text.push_str(&format!(", which contains {next}"));
                        }
                        text
                    }
                    None => format!("contains {from}"),
                };
            }
            chain.push(from);
            let (first, rest) = chain
                .split_first()
                .map_or((from, &[][..]), |(f, r)| (*f, r));
            let mut text = format!("{} {first}", verb(relation));
            for next in rest {
                text.push_str(&format!(", which contains {next}"));
            }
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use brief_model::testing::node;
    use brief_model::{Graph, Kind};

    /// A title written over several lines (a YAML block scalar, a pasted name) is one line
    /// on the card, so no block built from it spills (see `text`'s test for the `title:` line).
    #[test]
    fn a_title_over_several_lines_is_shown_on_one() {
        let mut norm = node("NORM-09", Kind::Norm, &[]);
        norm.title = "No plaintext secrets\nin logs,\t traces\r\n\nor crash reports ".into();
        let (graph, _) = Graph::build(vec![norm]);
        let ix = graph.lookup("NORM-09").unwrap();
        let card = card(&graph, ix, Detail::Meta, &[], None, &Bodies::default());
        assert_eq!(
            card.title,
            "No plaintext secrets in logs, traces or crash reports"
        );
    }

    #[test]
    fn a_section_lists_no_section_of_its_own_page_among_its_links() {
        let section = node(
            "docs/admin.md#users",
            Kind::Section,
            &[
                ("contains", "docs/admin.md#create-a-user"),
                ("contains", "docs/other.md#users"),
                ("links", "docs/admin.md#groups"),
            ],
        );
        assert_eq!(
            links_line(&section, LINKS_SHOWN).as_deref(),
            Some("contains docs/other.md#users; links docs/admin.md#groups")
        );
    }

    #[test]
    fn a_plain_link_to_a_node_a_named_relation_reaches_is_not_listed_twice() {
        // A status line `Superseded by [ADR-0004](0004.md)` is both a link and the relation.
        let record = node(
            "ADR-0002",
            Kind::Decision,
            &[
                ("links", "ADR-0004"),
                ("superseded_by", "ADR-0004"),
                ("links", "ADR-0001"),
                ("links#Context", "ADR-0003"),
                ("links", "ADR-0003"),
            ],
        );
        assert_eq!(
            links_line(&record, LINKS_SHOWN).as_deref(),
            Some("superseded_by ADR-0004; links ADR-0001, ADR-0003#context, ADR-0003")
        );
    }

    #[test]
    fn links_to_headings_are_listed_with_the_other_links() {
        let note = node(
            "Note.md",
            Kind::Other("note".into()),
            &[
                ("links", "A.md"),
                ("links#Set up", "B.md"),
                ("links#Use", "B.md"),
                ("links#use", "B.md"),
                ("embeds#^block", "C.md"),
                ("links", "D.md"),
            ],
        );
        assert_eq!(
            links_line(&note, LINKS_SHOWN).as_deref(),
            Some("links A.md, B.md#set-up, B.md#use, D.md; embeds C.md#^block")
        );
        assert_eq!(
            links_line(&note, BRIEF_LINKS_SHOWN).as_deref(),
            Some("links A.md, B.md#set-up (+2 more); embeds C.md#^block")
        );
    }

    #[test]
    fn a_meta_line_names_a_few_reasons_and_links_and_counts_the_rest() {
        let hub: Vec<(&str, String)> = (0..6).map(|k| ("links", format!("PAGE-{k}"))).collect();
        let links: Vec<(&str, &str)> = hub.iter().map(|(r, t)| (*r, t.as_str())).collect();
        let mut nodes = vec![node("HUB", Kind::Other("note".into()), &links)];
        nodes.extend((0..6).map(|k| node(&format!("PAGE-{k}"), Kind::Other("note".into()), &[])));
        let (graph, _) = brief_model::Graph::build(nodes);
        let reasons: Vec<Reason> = (0..5)
            .map(|k| Reason::Edge {
                relation: Relation::Link("links".into()),
                direction: Direction::Backlink,
                from: graph.lookup(&format!("PAGE-{k}")).unwrap(),
                via: Vec::new(),
            })
            .collect();
        let hub = graph.lookup("HUB").unwrap();
        let fact = |card: &Card, key: &str| {
            card.facts
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let meta = card(
            &graph,
            hub,
            Detail::Meta,
            &reasons,
            None,
            &Bodies::default(),
        );
        assert_eq!(fact(&meta, "why"), "links to PAGE-0; +4 more");
        assert_eq!(fact(&meta, "links"), "links PAGE-0, PAGE-1 (+4 more)");
        // What makes it a rule is named first, however many links brought it too; applying
        // to every target from a second start is the same reason, said once.
        let mut rule = reasons.clone();
        for _start in 0..2 {
            rule.push(Reason::Applies {
                to: hub,
                scope: brief_model::Scope::Always,
            });
            let meta = card(&graph, hub, Detail::Meta, &rule, None, &Bodies::default());
            assert_eq!(fact(&meta, "why"), "applies to every target; +5 more");
        }
        // A summary is the gist: it counts as a meta line does. The full text names every
        // reason, and links up to its own limit.
        let summary = card(
            &graph,
            hub,
            Detail::Summary,
            &reasons,
            None,
            &Bodies::default(),
        );
        assert_eq!(fact(&summary, "why"), fact(&meta, "why"));
        assert_eq!(fact(&summary, "links"), fact(&meta, "links"));
        let full = card(
            &graph,
            hub,
            Detail::Full,
            &reasons,
            None,
            &Bodies::default(),
        );
        assert!(fact(&full, "why").ends_with("links to PAGE-4"));
        assert_eq!(
            fact(&full, "links"),
            "links PAGE-0, PAGE-1, PAGE-2, PAGE-3, PAGE-4, PAGE-5"
        );
    }

    #[test]
    fn other_frontmatter_comes_with_the_full_text_unless_a_lens_names_it() {
        let mut page = node("docs/page.md", Kind::Other("doc".into()), &[]);
        page.content = Content::Artifact(ArtifactFields {
            description: Some("What the page is for".into()),
            extra: vec![
                ("nav_order".into(), "4".into()),
                ("owner".into(), "payments".into()),
            ],
            body: "The first section.".into(),
            ..ArtifactFields::default()
        });
        let (graph, _) = brief_model::Graph::build(vec![page]);
        let ix = graph.lookup("docs/page.md").unwrap();
        let keys = |detail: Detail, fields: Option<&[String]>| -> Vec<String> {
            card(&graph, ix, detail, &[], fields, &Bodies::default())
                .facts
                .into_iter()
                .map(|(k, _)| k)
                .collect()
        };
        assert_eq!(keys(Detail::Summary, None), ["description"]);
        assert_eq!(
            keys(Detail::Full, None),
            ["description", "nav_order", "owner"]
        );
        let lens = ["Owner".to_string()];
        assert_eq!(keys(Detail::Summary, Some(&lens)), ["description", "owner"]);
        assert_eq!(keys(Detail::Full, Some(&lens)), ["description", "owner"]);
    }

    #[test]
    fn a_title_on_one_line_is_kept_as_written() {
        assert_eq!(one_line("Two  spaces kept"), "Two  spaces kept");
        assert_eq!(one_line("a\nb"), "a b");
    }
}
