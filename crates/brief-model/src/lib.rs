//! The one graph model every source is loaded into: [`Node`]s joined by typed, directed
//! [`Edge`]s, stored forward and indexed in both directions.
//!
//! Nodes are kept sorted by id, so a [`NodeIx`] order is the id order and nothing downstream
//! depends on the order in which files were listed.

mod anchor;
mod dates;
mod guidance;
mod lens;
mod lifecycle;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

mod view;

pub use anchor::{anchor, page_of_section, section_of};
pub use dates::{epoch_days, iso_utc};
pub use guidance::layer_guides;
pub use lens::{
    all_lenses, field_selected, find_lens, Follow, Lens, LensConfig, LensError, LENS_BOOST,
};
pub use lifecycle::{Applies, Lifecycle, Retired, Scope};
pub use view::{Corpus, Fault, GraphView, LayerGuide, NodeStore, StoreError, Subgraph};

/// Index of a node inside a [`Graph`]; ordering by index is ordering by id.
pub type NodeIx = u32;

/// Hashes a [`NodeIx`] with one multiply. Node indices are small distinct integers, and
/// SipHash on them showed up in the profile of large contexts (rendering looks nodes up for
/// every unit of every candidate document).
#[derive(Debug, Default, Clone, Copy)]
pub struct IxHasher(u64);

impl std::hash::Hasher for IxHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0 ^ u64::from(n)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A map keyed by node index.
pub type IxMap<V> = HashMap<NodeIx, V, std::hash::BuildHasherDefault<IxHasher>>;

/// Which kind of source a node came from; it decides traversal defaults and ranking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Origin {
    /// A Spec Graph node file (`specgraph/nodes/**.json`).
    SpecGraph,
    /// A Markdown artifact with YAML frontmatter (`.contextia/`, `.brief/`).
    Artifact,
    /// A file of a Markdown knowledge base (an ADR, a doc, a note, an agent file): an artifact
    /// for traversal and ranking, but its links are followed two hops by default, since notes
    /// link densely and their closure is most of the knowledge base.
    Markdown,
    /// A content node of a Tana workspace export (`tana = "…"` in `brief.toml`).
    Tana,
}

impl Origin {
    /// Every origin.
    pub const ALL: [Origin; 4] = [
        Origin::SpecGraph,
        Origin::Artifact,
        Origin::Markdown,
        Origin::Tana,
    ];

    /// What the nodes of this origin are, for the stages that treat sources differently: the
    /// one place an origin is mapped to a treatment (a new origin adds its arm here).
    pub fn shape(self) -> Shape {
        match self {
            Origin::SpecGraph => Shape::Graph,
            Origin::Artifact | Origin::Markdown => Shape::Documents,
            Origin::Tana => Shape::Outline,
        }
    }
}

/// What a source's nodes are, as the layout, the cards and the walk see them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Typed nodes of a graph (Spec Graph): sections by type, the target in a section of its
    /// own, its verification closing the context.
    Graph,
    /// Documents with frontmatter (artifacts, knowledge-base files): the artifact bundle
    /// order, links as frontmatter keys.
    Documents,
    /// Items of an outline (Tana): walked both ways and laid out in rank order; their links
    /// are their outline and references, shown in their text.
    Outline,
}

/// What a node is. Spec Graph's 7 core and 7 extension types, the artifact kinds, or any other.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "String", from = "String")]
pub enum Kind {
    /// Spec Graph `feature`: a grouping of behaviors (weight 1).
    Feature,
    /// Spec Graph `layer`: what a layer propagates to the nodes it contains (rule 4).
    Layer,
    /// Spec Graph `foundation`: groundwork other nodes depend on.
    Foundation,
    /// Spec Graph `behavior`: one expected behaviour, with its verification.
    Behavior,
    /// A decision: Spec Graph `decision`, an ADR or a decision artifact (`adr`, `rationale`).
    Decision,
    /// Spec Graph `domain`: a concept the work must match.
    Domain,
    /// Spec Graph `policy`: a rule, hard or soft (`severity`).
    Policy,
    /// Spec Graph extension `design_token`.
    DesignToken,
    /// Spec Graph extension `ui_contract`.
    UiContract,
    /// Spec Graph extension `api_contract`.
    ApiContract,
    /// Spec Graph extension `data_model`.
    DataModel,
    /// Spec Graph extension `artifact`: an exported file the graph records.
    Artifact,
    /// Spec Graph extension `equivalence_contract`.
    EquivalenceContract,
    /// Spec Graph extension `pipeline`.
    Pipeline,
    /// An `identity` artifact: what the project is, shown first in every context.
    Identity,
    /// A `task` artifact (or a Spec Kit / Kiro task).
    Task,
    /// A `spec` artifact (`specification`), or a Spec Kit / Kiro feature spec.
    Spec,
    /// A `norm` artifact: a project rule, applied by its `scope` or `Applies`.
    Norm,
    /// A part of a long document under one heading (`docs/storage.md#cache-directory`),
    /// contained by its page.
    Section,
    /// Any other `kind:`/`type:` an artifact declares, lower-cased.
    Other(Arc<str>),
}

impl Kind {
    /// Parses a kind name as written in files (`behavior`, `design_token`, `spec`, …).
    pub fn parse(name: &str) -> Kind {
        match name.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "feature" => Kind::Feature,
            "layer" => Kind::Layer,
            "foundation" => Kind::Foundation,
            "behavior" | "behaviour" => Kind::Behavior,
            "decision" | "adr" | "rationale" => Kind::Decision,
            "domain" => Kind::Domain,
            "policy" => Kind::Policy,
            "design_token" => Kind::DesignToken,
            "ui_contract" => Kind::UiContract,
            "api_contract" => Kind::ApiContract,
            "data_model" => Kind::DataModel,
            "artifact" => Kind::Artifact,
            "equivalence_contract" => Kind::EquivalenceContract,
            "pipeline" => Kind::Pipeline,
            "identity" => Kind::Identity,
            "task" => Kind::Task,
            "spec" | "specification" => Kind::Spec,
            "norm" => Kind::Norm,
            "section" => Kind::Section,
            other => Kind::Other(Arc::from(other)),
        }
    }

    /// The kind's name as written in files and JSON output.
    pub fn name(&self) -> &str {
        match self {
            Kind::Feature => "feature",
            Kind::Layer => "layer",
            Kind::Foundation => "foundation",
            Kind::Behavior => "behavior",
            Kind::Decision => "decision",
            Kind::Domain => "domain",
            Kind::Policy => "policy",
            Kind::DesignToken => "design_token",
            Kind::UiContract => "ui_contract",
            Kind::ApiContract => "api_contract",
            Kind::DataModel => "data_model",
            Kind::Artifact => "artifact",
            Kind::EquivalenceContract => "equivalence_contract",
            Kind::Pipeline => "pipeline",
            Kind::Identity => "identity",
            Kind::Task => "task",
            Kind::Spec => "spec",
            Kind::Norm => "norm",
            Kind::Section => "section",
            Kind::Other(name) => name,
        }
    }

    /// True for the seven Spec Graph extension types.
    pub fn is_extension(&self) -> bool {
        matches!(
            self,
            Kind::DesignToken
                | Kind::UiContract
                | Kind::ApiContract
                | Kind::DataModel
                | Kind::Artifact
                | Kind::EquivalenceContract
                | Kind::Pipeline
        )
    }

    /// True for the grouping types (`feature`, `layer`).
    pub fn is_grouping(&self) -> bool {
        matches!(self, Kind::Feature | Kind::Layer)
    }
}

impl From<String> for Kind {
    fn from(name: String) -> Kind {
        Kind::parse(&name)
    }
}

impl From<Kind> for String {
    fn from(kind: Kind) -> String {
        kind.name().to_string()
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A typed, directed relation. The seven Spec Graph edges keep their meaning wherever they
/// appear; any other artifact link key (`specs`, `decisions`, `norms`, `links`) is a plain
/// forward link.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "String", from = "String")]
pub enum Relation {
    /// `contains`: the parent holds the child (features hold behaviors, pages hold sections).
    Contains,
    /// `depends_on`: the source needs the target.
    DependsOn,
    /// `constrains`: the source (a policy, decision or layer) limits the target.
    Constrains,
    /// `implements`: the source realises the target.
    Implements,
    /// `derived_from`: the source was made from the target (with a pinned hash, see [`Pin`]).
    DerivedFrom,
    /// `verified_by`: the target checks the source.
    VerifiedBy,
    /// `supersedes`: the source replaces the target, which is no longer current.
    Supersedes,
    /// Tana ownership, stored once from the owner to the node it owns (`_ownerId`). Walked
    /// forward it gives a node's children, inversely its parent: one stored direction keeps
    /// the two views from disagreeing.
    Child,
    /// A Tana reference: an inline reference in a node's name, or an entry of its `children`
    /// list owned elsewhere (Tana's "reference" bullets). Walked both ways (backlinks).
    Reference,
    /// A Tana field whose value is another node, named `field:<Field name>`, from the node
    /// that carries the field to the value node. Text values are not edges.
    Field(Arc<str>),
    /// An artifact link key other than the seven above.
    Link(Arc<str>),
}

impl Relation {
    /// The seven Spec Graph relations, in their documented order.
    pub const SPEC_GRAPH: [Relation; 7] = [
        Relation::Contains,
        Relation::DependsOn,
        Relation::Constrains,
        Relation::Implements,
        Relation::DerivedFrom,
        Relation::VerifiedBy,
        Relation::Supersedes,
    ];

    /// The relation a link key names: a Spec Graph relation name keeps its meaning.
    pub fn from_key(key: &str) -> Relation {
        if let Some(relation) = Relation::SPEC_GRAPH
            .into_iter()
            .find(|r| r.spec_graph_name() == Some(key))
        {
            return relation;
        }
        match key {
            "child" => Relation::Child,
            "reference" => Relation::Reference,
            field if field.starts_with("field:") => Relation::Field(Arc::from(field)),
            other => Relation::Link(Arc::from(other)),
        }
    }

    /// The relation's name as written in files and JSON output.
    pub fn name(&self) -> &str {
        match self {
            Relation::Child => "child",
            Relation::Reference => "reference",
            Relation::Field(name) | Relation::Link(name) => name,
            spec_graph => spec_graph.spec_graph_name().unwrap_or_default(),
        }
    }

    /// The name of a Spec Graph relation (one of [`Relation::SPEC_GRAPH`]), the one place
    /// these seven names are written; `None` for the others.
    pub fn spec_graph_name(&self) -> Option<&'static str> {
        Some(match self {
            Relation::Contains => "contains",
            Relation::DependsOn => "depends_on",
            Relation::Constrains => "constrains",
            Relation::Implements => "implements",
            Relation::DerivedFrom => "derived_from",
            Relation::VerifiedBy => "verified_by",
            Relation::Supersedes => "supersedes",
            Relation::Child | Relation::Reference | Relation::Field(_) | Relation::Link(_) => {
                return None
            }
        })
    }

    /// Whether traversal follows this relation from source to target. `contains`,
    /// `constrains` and `supersedes` are only ever read inversely (namespace, constrainers,
    /// pruning); everything else points at something the source needs.
    pub fn is_forward(&self) -> bool {
        !matches!(
            self,
            Relation::Contains | Relation::Constrains | Relation::Supersedes
        )
    }
}

impl From<String> for Relation {
    fn from(name: String) -> Relation {
        Relation::from_key(&name)
    }
}

impl From<Relation> for String {
    fn from(relation: Relation) -> String {
        relation.name().to_string()
    }
}

impl fmt::Display for Relation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where something was read from: a path relative to the project root (with `/`), 1-based.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
pub struct Location {
    /// The file, relative to the project root, with `/` separators.
    pub path: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
}

impl Location {
    /// A location at the start of a file.
    pub fn file(path: impl Into<String>) -> Location {
        Location {
            path: path.into(),
            line: 1,
            col: 1,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.path, self.line, self.col)
    }
}

/// One verification entry of a Spec Graph node: a plain string or a typed entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Verification {
    /// A plain-string entry.
    Text(String),
    /// `{kind: command|http|manual|observation|policy, …}` with its fields in file order.
    Entry {
        /// The entry's `kind` value.
        kind: String,
        /// Its other keys and values, in file order.
        fields: Vec<(String, Value)>,
    },
}

/// A rejected alternative recorded on a decision (`metadata.rejected_alternatives`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RejectedAlternative {
    /// The alternative that was considered.
    pub title: String,
    /// Why it was not chosen.
    pub reason: String,
}

/// A pinned hash of a `derived_from` source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pin {
    /// The id of the `derived_from` source the pin is for.
    pub id: String,
    /// The source's SHA-256 when the node was derived, as written (hex).
    pub sha256: String,
}

/// The fields of a Spec Graph node, every one kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SpecFields {
    /// `description` (features, layers).
    pub description: Option<String>,
    /// `expectation` (behaviors).
    pub expectation: Option<String>,
    /// `statement` (contract types).
    pub statement: Option<String>,
    /// `constraints`: the node's own rules, one line each.
    pub constraints: Vec<String>,
    /// `verification`: how the node is checked.
    pub verification: Vec<Verification>,
    /// Decision category: architecture, stack, pattern, interface.
    pub category: Option<String>,
    /// Policy severity: hard or soft.
    pub severity: Option<String>,
    /// A decision's `rationale` (metadata), shown in full on its card.
    pub rationale: Option<String>,
    /// A decision's `rejected_alternatives` (metadata).
    pub rejected_alternatives: Vec<RejectedAlternative>,
    /// Other metadata (`notes`, `owner`, `tags`, free-form keys) in file order.
    pub metadata: Vec<(String, Value)>,
    /// `pins`: hashes pinned on `derived_from` sources.
    pub pins: Vec<Pin>,
    /// `artifact` info (`sha256`, `source`, `format`) for artifact nodes.
    pub artifact: Vec<(String, Value)>,
    /// Any other top-level field, kept verbatim.
    pub extra: Vec<(String, Value)>,
}

/// The content of a Markdown artifact.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ArtifactFields {
    /// Frontmatter `description`, shown before the body.
    pub description: Option<String>,
    /// Frontmatter `tags` (and `#tags` of a note), matched by lens boosts.
    pub tags: Vec<String>,
    /// Code paths (globs) the artifact covers (`paths`).
    pub paths: Vec<String>,
    /// Files a norm applies to (`scope`).
    pub scope: Vec<String>,
    /// Other frontmatter keys, rendered to one line each, in file order.
    pub extra: Vec<(String, String)>,
    /// The Markdown body after the frontmatter.
    pub body: String,
    /// 1-based line of the body's first line in the file.
    pub body_line: u32,
    /// A decision record's rationale (its Context section), when read from Markdown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rationale: Option<String>,
    /// A decision record's rejected alternatives (MADR's considered options but the chosen).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected_alternatives: Vec<RejectedAlternative>,
    /// When the artifact applies to targets it has no link with (agent files, rules with
    /// globs, steering); [`Applies::Linked`] for ordinary artifacts.
    #[serde(default, skip_serializing_if = "Applies::is_linked")]
    pub applies: Applies,
}

/// One field of a Tana node: its name and its values in order.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TanaField {
    /// The field's name (its definition's name in the export).
    pub name: String,
    /// Each value as text; a value that is another node reads `[[its name]]`.
    pub values: Vec<String>,
}

/// The content of a Tana node.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TanaFields {
    /// Supertags applied to the node, by name, in the order they were applied.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Supertags the applied ones extend (transitively), by name, sorted; not in `tags`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inherited: Vec<String>,
    /// The node's field values, in the order the export lists them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<TanaField>,
    /// `props.description`, spans resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The outline under the node: the names of its content children in order (owned
    /// children and references alike), at most [`TanaFields::OUTLINE_KEPT`] of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<String>,
    /// How many content children the node has in all (the outline may be shorter).
    #[serde(default)]
    pub child_count: usize,
    /// Creation time, `YYYY-MM-DDTHH:MM:SSZ` (UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    /// Latest modification time (the largest of `modifiedTs`), same format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
}

impl TanaFields {
    /// Child names kept in a node's outline: enough to show what is under it, and a node
    /// with thousands of children does not store them all again.
    pub const OUTLINE_KEPT: usize = 20;

    /// Every supertag of the node, applied first, then inherited.
    pub fn all_tags(&self) -> impl Iterator<Item = &str> {
        self.tags.iter().chain(&self.inherited).map(String::as_str)
    }
}

/// What a node holds besides its identity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Content {
    /// A Spec Graph node's fields.
    Spec(SpecFields),
    /// An artifact's frontmatter and body (Markdown, Spec Kit, Kiro, rules).
    Artifact(ArtifactFields),
    /// A Tana node's tags, fields and outline.
    Tana(TanaFields),
}

/// A link as written in a source, before its target is resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// The relation the link stands for.
    pub relation: Relation,
    /// The target's id as written (resolved when the graph is built).
    pub target: String,
}

/// A node of the knowledge graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// The node's unique id, as users type it (`BH-007`, `ADR-0007`, `docs/setup.md#install`).
    pub id: String,
    /// What the node is; decides its kind weight and card.
    pub kind: Kind,
    /// The title shown on its card and searched.
    pub title: String,
    /// `status` as written (`accepted`, `superseded`, …); read by the lifecycle rules.
    pub status: Option<String>,
    /// Which source family produced it; decides the default depth.
    pub origin: Origin,
    /// Everything else it holds, by source family.
    pub content: Content,
    /// Outgoing links in source order (targets may be missing from the graph).
    pub links: Vec<Link>,
    /// A date (`YYYY-MM-DD…`) used for recency; never the file's mtime.
    pub date: Option<String>,
    /// Where it was read from (its file's first line for whole-file nodes).
    pub location: Location,
}

impl Node {
    /// The Spec Graph fields, if this is a Spec Graph node.
    pub fn spec(&self) -> Option<&SpecFields> {
        match &self.content {
            Content::Spec(fields) => Some(fields),
            _ => None,
        }
    }

    /// The artifact fields, if this is a Markdown artifact.
    pub fn artifact(&self) -> Option<&ArtifactFields> {
        match &self.content {
            Content::Artifact(fields) => Some(fields),
            _ => None,
        }
    }

    /// The Tana fields, if this is a Tana node.
    pub fn tana(&self) -> Option<&TanaFields> {
        match &self.content {
            Content::Tana(fields) => Some(fields),
            _ => None,
        }
    }

    /// Where the node stands in its lifecycle, from its status (no status: current).
    pub fn lifecycle(&self) -> Lifecycle {
        Lifecycle::of(self.status.as_deref())
    }

    /// The files the node is about: its source file, then the code paths it names.
    pub fn files(&self) -> Vec<String> {
        let mut files = vec![self.location.path.clone()];
        if let Some(fields) = self.artifact() {
            files.extend(fields.paths.iter().cloned());
        }
        files
    }

    /// When the node applies to targets it has no link with.
    pub fn applies(&self) -> &Applies {
        static LINKED: Applies = Applies::Linked;
        match &self.content {
            Content::Artifact(fields) => &fields.applies,
            _ => &LINKED,
        }
    }

    /// `severity` of a policy (or of any node that carries one).
    pub fn severity(&self) -> Option<&str> {
        match &self.content {
            Content::Spec(fields) => fields.severity.as_deref(),
            Content::Artifact(fields) => fields
                .extra
                .iter()
                .find(|(key, _)| key == "severity")
                .map(|(_, value)| value.as_str()),
            Content::Tana(_) => None,
        }
    }
}

/// A resolved edge between two nodes of a graph.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Edge {
    /// The node the edge leaves.
    pub from: NodeIx,
    /// The node the edge reaches.
    pub to: NodeIx,
    /// What the edge means.
    pub relation: Relation,
}

/// A link whose target is not in the graph.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Dangling {
    /// The node the link was written on.
    pub from: NodeIx,
    /// What the link would have meant.
    pub relation: Relation,
    /// The id it names, which no node has.
    pub target: String,
}

/// The loaded knowledge graph: nodes sorted by id, edges indexed both ways.
#[derive(Debug, Default)]
pub struct Graph {
    nodes: Vec<Node>,
    by_id: HashMap<String, NodeIx>,
    edges: Vec<Edge>,
    out: Vec<Vec<u32>>,
    inc: Vec<Vec<u32>>,
    dangling: Vec<Dangling>,
    newest_date: Option<String>,
}

/// Two nodes claim one id.
#[derive(Debug, Clone, PartialEq)]
pub struct DuplicateId {
    /// The id both nodes claim.
    pub id: String,
    /// Where the node that was kept was read.
    pub first: Location,
    /// Where the node that was dropped was read.
    pub second: Location,
}

impl Graph {
    /// Builds a graph from nodes in any order. Nodes with an id already taken are returned as
    /// duplicates (the one whose location sorts first is kept), so the result never depends
    /// on the order files were listed in.
    pub fn build(mut nodes: Vec<Node>) -> (Graph, Vec<DuplicateId>) {
        nodes.sort_by(|a, b| a.id.cmp(&b.id).then_with(|| a.location.cmp(&b.location)));
        let mut duplicates = Vec::new();
        let mut kept: Vec<Node> = Vec::with_capacity(nodes.len());
        for node in nodes {
            match kept.last() {
                Some(last) if last.id == node.id => duplicates.push(DuplicateId {
                    id: node.id.clone(),
                    first: last.location.clone(),
                    second: node.location,
                }),
                _ => kept.push(node),
            }
        }
        let by_id: HashMap<String, NodeIx> = kept
            .iter()
            .enumerate()
            .map(|(ix, node)| (node.id.clone(), ix as NodeIx))
            .collect();
        let mut edges = Vec::new();
        let mut dangling = Vec::new();
        for (ix, node) in kept.iter().enumerate() {
            let from = ix as NodeIx;
            for link in &node.links {
                // A link to a heading lands on that section when the page has it.
                let section = link.section().and_then(|s| by_id.get(&s));
                match section.or_else(|| by_id.get(&link.target)) {
                    Some(&to) => edges.push(Edge {
                        from,
                        to,
                        relation: link.relation.clone(),
                    }),
                    None => dangling.push(Dangling {
                        from,
                        relation: link.relation.clone(),
                        target: link.target.clone(),
                    }),
                }
            }
        }
        // Sorted and deduplicated: the tools dedupe repeated link targets, and a stable edge
        // order makes every traversal independent of how links were written.
        edges.sort();
        edges.dedup();
        dangling.sort();
        dangling.dedup();
        let mut out = vec![Vec::new(); kept.len()];
        let mut inc = vec![Vec::new(); kept.len()];
        for (eix, edge) in edges.iter().enumerate() {
            out[edge.from as usize].push(eix as u32);
            inc[edge.to as usize].push(eix as u32);
        }
        let newest_date = kept.iter().filter_map(|n| n.date.clone()).max();
        let graph = Graph {
            nodes: kept,
            by_id,
            edges,
            out,
            inc,
            dangling,
            newest_date,
        };
        (graph, duplicates)
    }

    /// A node's id.
    pub fn id_of(&self, ix: NodeIx) -> String {
        self.node(ix).id.clone()
    }

    /// A node's kind.
    pub fn kind_of(&self, ix: NodeIx) -> Kind {
        self.node(ix).kind.clone()
    }

    /// Edges leaving a node, sorted by (target id, relation): indices follow ids here, so
    /// the stored order is already the promised one.
    pub fn edges_out(&self, ix: NodeIx) -> Vec<Edge> {
        self.outgoing(ix).cloned().collect()
    }

    /// Edges arriving at a node, sorted by (source id, relation).
    pub fn edges_in(&self, ix: NodeIx) -> Vec<Edge> {
        let mut edges: Vec<Edge> = self.incoming(ix).cloned().collect();
        edges.sort_by(|a, b| {
            a.from
                .cmp(&b.from)
                .then_with(|| a.relation.cmp(&b.relation))
        });
        edges
    }

    /// The project identity node, if there is one.
    pub fn identity(&self) -> Option<NodeIx> {
        self.nodes
            .iter()
            .position(|n| n.kind == Kind::Identity)
            .map(|ix| ix as NodeIx)
    }

    /// Every id, sorted.
    pub fn all_ids(&self) -> Vec<String> {
        self.nodes.iter().map(|n| n.id.clone()).collect()
    }

    /// Links out of a node whose target does not exist.
    pub fn dangling_from(&self, ix: NodeIx) -> Vec<Dangling> {
        let start = self.dangling.partition_point(|d| d.from < ix);
        self.dangling[start..]
            .iter()
            .take_while(|d| d.from == ix)
            .cloned()
            .collect()
    }

    /// All nodes, sorted by id.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The node at an index.
    pub fn node(&self, ix: NodeIx) -> &Node {
        &self.nodes[ix as usize]
    }

    /// The index of the node with this exact id.
    pub fn lookup(&self, id: &str) -> Option<NodeIx> {
        self.by_id.get(id).copied()
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the graph has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Every resolved edge, sorted.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// Edges leaving a node, sorted by (target, relation).
    pub fn outgoing(&self, ix: NodeIx) -> impl Iterator<Item = &Edge> + '_ {
        self.out[ix as usize]
            .iter()
            .map(move |&e| &self.edges[e as usize])
    }

    /// Edges arriving at a node, sorted by (source, relation).
    pub fn incoming(&self, ix: NodeIx) -> impl Iterator<Item = &Edge> + '_ {
        self.inc[ix as usize]
            .iter()
            .map(move |&e| &self.edges[e as usize])
    }

    /// Links whose target does not exist.
    pub fn dangling(&self) -> &[Dangling] {
        &self.dangling
    }

    /// The newest `date` of any node: the reference point for recency, never the clock.
    pub fn newest_date(&self) -> Option<&str> {
        self.newest_date.as_deref()
    }

    /// Node counts per kind, for summaries.
    pub fn kind_counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for node in &self.nodes {
            *counts.entry(node.kind.name().to_string()).or_insert(0) += 1;
        }
        counts
    }
}

/// How much of a node a document shows: `full`, `summary` (metadata plus the first section)
/// or `meta` (id, kind, title, status and links only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Detail {
    /// Id, kind, title, status and links only.
    Meta,
    /// Metadata plus the first section of the body.
    Summary,
    /// Everything the node holds.
    #[default]
    Full,
}

impl Detail {
    /// The level name as used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Detail::Meta => "meta",
            Detail::Summary => "summary",
            Detail::Full => "full",
        }
    }

    /// The next level down, if any.
    pub fn lower(self) -> Option<Detail> {
        match self {
            Detail::Full => Some(Detail::Summary),
            Detail::Summary => Some(Detail::Meta),
            Detail::Meta => None,
        }
    }

    /// The next level up, if any.
    pub fn higher(self) -> Option<Detail> {
        match self {
            Detail::Meta => Some(Detail::Summary),
            Detail::Summary => Some(Detail::Full),
            Detail::Full => None,
        }
    }
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Detail {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "full" => Ok(Detail::Full),
            "summary" => Ok(Detail::Summary),
            "meta" => Ok(Detail::Meta),
            other => Err(format!(
                "unknown detail `{other}`: use full, summary or meta"
            )),
        }
    }
}

// ---- Depth: how far traversal follows forward relations (here so `project` can read it
// from `brief.toml` without depending on `traverse`, which re-exports it).

/// How far forward relations are followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Depth {
    /// At most this many hops.
    Hops(u32),
    /// The transitive closure.
    Full,
}

impl Depth {
    /// Whether a node `distance` hops away is within this depth.
    pub fn allows(self, distance: u32) -> bool {
        match self {
            Depth::Hops(max) => distance <= max,
            Depth::Full => true,
        }
    }
}

impl fmt::Display for Depth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Depth::Hops(n) => write!(f, "{n}"),
            Depth::Full => f.write_str("full"),
        }
    }
}

impl std::str::FromStr for Depth {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "full" | "all" => Ok(Depth::Full),
            n => n.parse::<u32>().map(Depth::Hops).map_err(|_| {
                format!("invalid depth `{s}`: use a number of hops (0, 1, 2, …) or `full`")
            }),
        }
    }
}

/// Constructors for the tests of this crate and the crates above it: a documented extension
/// point for tests (ARCHITECTURE.md, "Public APIs").
pub mod testing;
#[cfg(test)]
mod tests;
