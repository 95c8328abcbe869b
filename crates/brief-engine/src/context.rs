//! The pipeline behind `brief context` and `brief show`: resolve → traverse → rank → fit →
//! render. The CLI and the MCP server call these and print what they return, byte for byte.

use crate::fit::{fit, Spread, TooSmall};
pub(crate) use crate::render::TruncationNote;
use crate::usage::{Param, Said};
use brief_model::{Corpus, Detail, GraphView, NodeIx, Origin, Scope, Shape, StoreError};
use brief_project::{Defaults, DEFAULT_BUDGET};
use std::collections::HashMap;

use crate::rank::{rank, RankInputs, Ranked};
use crate::related::{add_related, Named};
use crate::render::json::{audit, AuditInput};
use crate::render::{card, Bodies, Extras, Format, Layout, Style};
use crate::resolve::{resolve, UnknownTarget};
pub use crate::resolve::{Confidence, Found};
use crate::sections::rule_sections;
pub use crate::traverse::NamedRule;
use crate::traverse::{
    add_applying, add_found, ten_thousandths, traverse_many, traverse_tana, Depth, Selection,
    TraverseOptions, DEFAULT_FANOUT, TANA_FANOUT,
};
use brief_count::{Counter, Encoding};
use brief_model::Follow;

/// What to assemble. `None` fields take the project's defaults, then the built-in ones.
#[derive(Debug, Clone, Default)]
pub struct ContextRequest {
    /// A node id.
    pub target: String,
    /// How far to walk (`--depth`); `None`: the origin's default.
    pub depth: Option<Depth>,
    /// The detail every node starts from before the budget lowers it (`--detail`).
    pub detail: Option<Detail>,
    /// The token budget (`--budget`).
    pub budget: Option<usize>,
    /// The tokenizer the budget is counted in (`--encoding`).
    pub encoding: Option<Encoding>,
    /// How the document is written (`--format`).
    pub format: Format,
    /// Leave out the project identity.
    pub no_identity: bool,
    /// A lens name (`brief lenses`).
    pub lens: Option<String>,
    /// When the target is a query: how many best hits start the context together.
    pub seeds: Option<usize>,
    /// Show field values on cards (`--include-fields`, the default) or leave them out
    /// (`--no-include-fields`: Tana fields and artifacts' extra frontmatter fields).
    pub include_fields: Option<bool>,
    /// Instead of `target`: every file changed in the working tree against this git revision
    /// (anything `git rev-parse` accepts) is a file target, all at once (`--changed`).
    pub changed: Option<String>,
}

/// An assembled context.
#[derive(Debug, Clone)]
pub struct ContextOutput {
    /// Exactly what `brief context` prints.
    pub text: String,
    /// The exact token count of the document (for JSON, of the embedded Markdown).
    pub used: usize,
    /// The budget the document was fitted to.
    pub budget: usize,
    /// Nodes left out for the budget.
    pub omitted: usize,
    /// Problems that shrink the context: links to missing nodes.
    pub warnings: Vec<String>,
    /// The source files of the nodes in the document, sorted.
    pub files: Vec<String>,
    /// Every selected node, in rank order: its id and the detail the budget left it at
    /// (`None`: omitted). `explain` reads it.
    pub placed: Vec<(String, Option<Detail>)>,
    /// How far the start can be trusted (exact for an id; strong or weak for words): a hook
    /// answers a prompt only with a strong match.
    pub confidence: Confidence,
    /// Notes for the user about how the request was read (`note: …` lines), such as a
    /// setting that did not apply, and the one `warning: embeddings unavailable: …` line.
    pub notes: Vec<Said>,
}

/// Why a context could not be assembled.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    /// The target is no node and matched nothing.
    #[error(transparent)]
    UnknownTarget(#[from] UnknownTarget),
    /// The budget cannot hold even the target's meta line.
    #[error(transparent)]
    TooSmall(#[from] TooSmall),
    /// The lens is unknown or badly configured.
    #[error(transparent)]
    Lens(#[from] brief_model::LensError),
    /// The graph could not be read; nothing was assembled.
    #[error(transparent)]
    Store(#[from] brief_model::StoreError),
    /// `impact` would take more work than brief allows; nothing was answered.
    #[error(transparent)]
    Limit(#[from] WorkLimit),
}

/// `impact` stopped before its answer: deciding the targets would take more work than its
/// limit allows (`impact::IMPACT_WORK_LIMIT` by default).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.said())]
pub struct WorkLimit {
    /// The asked ids, comma-separated.
    pub nodes: String,
    /// Candidates decided before the limit was reached.
    pub decided: usize,
    /// Candidates in all.
    pub candidates: usize,
    /// Nodes visited.
    pub visited: usize,
    /// The limit.
    pub limit: usize,
    /// Candidates selected forward.
    pub selected: usize,
}

impl WorkLimit {
    /// The message, naming the settings that narrow the question.
    pub fn said(&self) -> Said {
        let why = if self.selected > 0 {
            format!(
                " ({} targets had to be selected in full, as a fan-out over [context] fanout \
                 inside the region is sampled)",
                self.selected
            )
        } else {
            String::new()
        };
        Said::new()
            .text(format!(
                "impact of {} stopped after deciding {} of {} candidate targets: they visited {} \
                 nodes, over brief's limit of {}{why}; narrow the question with ",
                self.nodes, self.decided, self.candidates, self.visited, self.limit
            ))
            .param(Param::Depth)
            .text(" N or a ")
            .param(Param::Lens)
    }
}

/// Where a context starts: the target, or the hits of a search.
#[derive(Debug, Clone, Default)]
pub struct Start {
    /// Start nodes, best first; the first is the target.
    pub seeds: Vec<NodeIx>,
    /// The search text, when the start came from a query.
    pub query: Option<String>,
    /// Query relevance per node (0–1).
    pub relevance: HashMap<NodeIx, f64>,
    /// With embeddings: the cosine similarity of the query to each of the most similar
    /// nodes (four places), shown in the audit.
    pub similarity: HashMap<NodeIx, f64>,
    /// Whether semantic similarity took part (the JSON audit's `embeddings`); `None` when
    /// embeddings are off.
    pub embeddings: Option<crate::semantic::Embeddings>,
    /// How far the start can be trusted: exact for an id.
    pub confidence: Confidence,
    /// For a query: each seed's score as a share of the best, in seed order.
    pub shares: Vec<f64>,
    /// Rules covering part of the tree whose words match the query (node, share of the
    /// best): hard constraints, as if their globs had matched.
    pub rules: Vec<(NodeIx, f64)>,
    /// Further search hits (node, share of the best) added as related material.
    pub related: Vec<(NodeIx, f64)>,
    /// Rules covering part of the tree whose folder the query names: hard constraints, as
    /// if their globs had matched.
    pub named: Vec<NamedRule>,
    /// How the start nodes were found, for a start with a query.
    pub found: Found,
}

/// Assembles the context for `request` over a loaded graph; the target must be an id.
pub fn assemble(
    corpus: &dyn Corpus,
    defaults: &Defaults,
    request: &ContextRequest,
) -> Result<ContextOutput, ContextError> {
    let target = resolve(corpus, &request.target)??;
    let start = Start {
        seeds: vec![target],
        ..Start::default()
    };
    assemble_from(corpus, defaults, request, &start)
}

/// How a context for one target is selected and fitted: the request's settings with the
/// project's and the built-in defaults filled in. `brief context`, `impact` and `explain`
/// all select through this, so they agree on depth, lens and rules.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The lens in force, if any.
    pub lens: Option<brief_model::Lens>,
    /// Depth, identity, relation families and fan-out for the walk.
    pub options: TraverseOptions,
    /// A Tana target walks both directions (`traverse_tana`); others use the rule set.
    pub tana: bool,
    /// The lens's field filter.
    pub fields: Option<Vec<String>>,
    /// Kinds, categories or tags (lower case) whose nodes the ranking boosts.
    pub boost: Vec<String>,
    /// The detail nodes start from.
    pub detail: Detail,
    /// The token budget.
    pub budget: usize,
    /// The tokenizer the budget is counted in.
    pub encoding: Encoding,
    /// The depth a start found by a weak match is walked to, when none was asked for
    /// ([`plan_from`]); `None` when the walk goes as the request, lens, project or source
    /// says.
    pub(crate) guess_depth: Option<u32>,
}

/// The settings a context for `target` is assembled with.
pub fn plan(
    corpus: &dyn Corpus,
    defaults: &Defaults,
    request: &ContextRequest,
    target: NodeIx,
) -> Result<Plan, ContextError> {
    let lens = match &request.lens {
        Some(name) => Some(brief_model::find_lens(name, &defaults.lenses)?),
        None => None,
    };
    let target_origin = corpus.store(&[target])?.node(target).origin;
    plan_for(defaults, request, lens, target_origin)
}

/// How far the links of a start found by a weak match are followed, unless a depth was asked
/// for: such a start is a guess, and two hops from a guess fill a small budget with the links
/// of its links before what the words found next gets room (`docs/traversal.md`, "Targets in
/// words"). Chosen on the evaluation of tasks in words: at 2,000 tokens 82 → 84 % of the
/// must-see documents, no budget lower, the held-out set unchanged.
const GUESS_DEPTH: u32 = 1;

/// [`plan`] for a context that starts from `start`: a start found by a weak match is walked
/// to [`GUESS_DEPTH`] when neither the request, its lens nor the project names a depth (a
/// Tana target aside).
pub(crate) fn plan_from(
    corpus: &dyn Corpus,
    defaults: &Defaults,
    request: &ContextRequest,
    start: &Start,
    target: NodeIx,
) -> Result<Plan, ContextError> {
    let mut plan = plan(corpus, defaults, request, target)?;
    let asked = request.depth.is_some()
        || defaults.depth.is_some()
        || plan
            .lens
            .as_ref()
            .is_some_and(|lens| lens.max_depth.is_some());
    // A Tana outline is walked as its lens says; no evaluation of tasks in words covers it.
    if start.confidence == Confidence::Weak && !asked && !plan.tana {
        plan.options.depth = Depth::Hops(GUESS_DEPTH);
        plan.guess_depth = Some(GUESS_DEPTH);
    }
    Ok(plan)
}

/// [`plan`] for a target of a known origin, with the lens already found.
pub(crate) fn plan_for(
    defaults: &Defaults,
    request: &ContextRequest,
    lens: Option<brief_model::Lens>,
    target_origin: Origin,
) -> Result<Plan, ContextError> {
    // Spec Graph: "depth 2 is usually sufficient"; artifacts follow links to the end, but a
    // knowledge base's notes link densely (their closure is most of the knowledge base).
    // A lens's maximum depth is also its depth when none is asked for.
    let lens_depth = lens.as_ref().and_then(|l| l.max_depth).map(Depth::Hops);
    let mut depth =
        request
            .depth
            .or(lens_depth)
            .or(defaults.depth)
            .unwrap_or(match target_origin {
                Origin::SpecGraph | Origin::Tana | Origin::Markdown => Depth::Hops(2),
                Origin::Artifact => Depth::Full,
            });
    if let Some(max) = lens.as_ref().and_then(|l| l.max_depth) {
        depth = match depth {
            Depth::Hops(n) => Depth::Hops(n.min(max)),
            Depth::Full => Depth::Hops(max),
        };
    }
    let detail = request.detail.or(defaults.detail).unwrap_or(Detail::Full);
    let budget = request.budget.or(defaults.budget).unwrap_or(DEFAULT_BUDGET);
    let encoding = request.encoding.or(defaults.encoding).unwrap_or_default();

    let tana = target_origin.shape() == Shape::Outline;
    let options = TraverseOptions {
        depth,
        identity: !request.no_identity,
        // Without a lens a Tana context walks every family (supertag's `general`).
        follow: lens.as_ref().map_or(
            if tana {
                Follow {
                    child: true,
                    parent: true,
                    reference: true,
                    field: true,
                }
            } else {
                Follow::DEFAULT
            },
            |l| l.follow,
        ),
        fanout: defaults
            .fanout
            .unwrap_or(if tana { TANA_FANOUT } else { DEFAULT_FANOUT }),
    };
    let boost: Vec<String> = lens.as_ref().map(|l| l.boost.clone()).unwrap_or_default();
    let fields = lens.as_ref().and_then(|l| l.fields.clone());
    Ok(Plan {
        lens,
        options,
        tana,
        fields,
        boost,
        detail,
        budget,
        encoding,
        guess_depth: None,
    })
}

/// The selection of a context: the nodes it holds (at any detail, before the budget).
pub fn select(
    graph: &dyn brief_model::GraphView,
    plan: &Plan,
    seeds: &[NodeIx],
) -> Result<Selection, brief_model::StoreError> {
    let mut selection = if plan.tana {
        traverse_tana(
            graph,
            seeds,
            plan.options,
            plan.fields.as_deref(),
            &plan.boost,
        )?
    } else {
        traverse_many(graph, seeds, plan.options)?
    };
    add_applying(graph, &mut selection, seeds)?;
    Ok(selection)
}

/// The whole selection of a context from its start (non-empty): what the rules select from
/// the start nodes, then the rules found by words or named by their folder, the sections of
/// long rules the words match, and related material. `explain` reads the same selection.
pub(crate) fn select_from(
    graph: &dyn GraphView,
    plan: &Plan,
    start: &Start,
) -> Result<Selection, StoreError> {
    let target = start.seeds.first().copied().unwrap_or_default();
    let mut selection = select(graph, plan, &start.seeds)?;
    let mut found: Vec<(NodeIx, Scope)> = start
        .rules
        .iter()
        .map(|&(node, s)| {
            (
                node,
                Scope::Words {
                    share: ten_thousandths(s),
                },
            )
        })
        .collect();
    found.extend(start.named.iter().map(|rule| {
        let scope = Scope::Named {
            folder: rule.folder.clone(),
            word: rule.word.clone(),
        };
        (rule.node, scope)
    }));
    add_found(graph, &mut selection, target, found)?;
    // The sections of the rules the selection now holds.
    let sections = rule_sections(graph, &selection, &start.seeds, &start.related)?
        .into_iter()
        .map(|(node, s)| {
            (
                node,
                Scope::Section {
                    share: ten_thousandths(s),
                },
            )
        })
        .collect();
    add_found(graph, &mut selection, target, sections)?;
    let named = match start.confidence {
        Confidence::Exact => Named::Exactly,
        Confidence::Strong | Confidence::Weak => Named::ByWords,
    };
    add_related(graph, &mut selection, &start.seeds, &start.related, named)?;
    Ok(selection)
}

/// Assembles the context from explicit start nodes.
pub fn assemble_from(
    corpus: &dyn Corpus,
    defaults: &Defaults,
    request: &ContextRequest,
    start: &Start,
) -> Result<ContextOutput, ContextError> {
    let Some(&target) = start.seeds.first() else {
        return Err(UnknownTarget::id(&request.target, Vec::new()).into());
    };
    let plan = plan_from(corpus, defaults, request, start, target)?;
    let selection = select_from(corpus, &plan, start)?;
    let needed = Needed::of(corpus, &selection, target)?;
    let store = corpus.store(&needed.nodes)?;
    let graph: &dyn brief_model::NodeStore = &*store;
    let warnings = dangling_warnings(graph, &selection);
    let truncations = selection.truncated.clone();
    let inputs = RankInputs {
        confidence: start.confidence,
        relevance: start.relevance.clone(),
        boost: plan.boost.clone(),
    };
    let ranked: Vec<Ranked> = rank(graph, selection, &inputs);
    let truncated = truncation_notes(graph, &ranked, truncations);
    let superseded = Superseded::of(graph, target, &needed.successors);
    let target_item = ranked.iter().position(|r| r.node == target).unwrap_or(0);
    let seed_ids: Vec<(String, f64)> = start
        .seeds
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let share = start.shares.get(k).copied().unwrap_or(1.0);
            (graph.node(s).id.clone(), share)
        })
        .collect();
    let layout = Layout::new(graph, &ranked, target, request.format.style()).with(Extras {
        query: start.query.clone(),
        found: start.found,
        seeds: seed_ids.clone(),
        confidence: start.confidence,
        truncated: truncated.iter().map(truncation_line).collect(),
        // An empty filter shows no field at all.
        fields: if request.include_fields == Some(false) {
            Some(Vec::new())
        } else {
            plan.fields.clone()
        },
        superseded_by: superseded.banner(),
        guess_depth: plan.guess_depth,
    });
    let counter = Counter::with_store(plan.encoding, corpus.counts());
    // A start found by words may be the wrong node: spread the room over the candidates.
    let spread = match start.query {
        Some(_) => Spread::Breadth,
        None => Spread::Depth,
    };
    let fitted = fit(
        &layout,
        &counter,
        target_item,
        plan.detail,
        spread,
        plan.budget,
    )?;
    counter.persist();
    let text = match request.format.document() {
        Some(_) => fitted.document.clone(),
        None => audit(
            &AuditInput {
                graph,
                target,
                query: start.query.as_deref(),
                embeddings: start.embeddings.as_ref().map(|e| e.audit()),
                lens: plan.lens.as_ref().map(|l| l.name.as_str()),
                encoding: plan.encoding.name(),
                limit: plan.budget,
                warnings: &warnings,
                truncated: &truncated,
                superseded_by: superseded.ids(),
                seeds: start.query.as_ref().map(|_| seed_ids.as_slice()),
                confidence: start.confidence,
                similarity: &start.similarity,
            },
            &ranked,
            &fitted,
        ),
    };
    Ok(ContextOutput {
        notes: Vec::new(),
        confidence: start.confidence,
        placed: ranked
            .iter()
            .zip(&fitted.details)
            .map(|(r, d)| (graph.node(r.node).id.clone(), *d))
            .collect(),
        text,
        used: fitted.used,
        budget: plan.budget,
        omitted: fitted.details.iter().filter(|d| d.is_none()).count(),
        warnings,
        files: source_files(graph, &needed.nodes),
    })
}

/// The nodes a context's rendering may name, loaded at once.
struct Needed {
    /// Selected nodes, the nodes their reasons pass through, sampled hubs and successors;
    /// sorted, no duplicates.
    nodes: Vec<NodeIx>,
    /// What supersedes the target (supersedes is never followed, so these are not in the
    /// selection), in index order.
    successors: Vec<NodeIx>,
}

impl Needed {
    fn of(
        corpus: &dyn Corpus,
        selection: &Selection,
        target: NodeIx,
    ) -> Result<Needed, brief_model::StoreError> {
        let mut nodes: Vec<NodeIx> = Vec::new();
        for reached in &selection.reached {
            nodes.push(reached.node);
            for reason in &reached.reasons {
                if let crate::traverse::Reason::Edge { from, via, .. } = reason {
                    nodes.push(*from);
                    nodes.extend(via);
                }
            }
        }
        nodes.extend(selection.truncated.iter().map(|t| t.node));
        let successors: Vec<NodeIx> = corpus
            .edges_in(target)?
            .into_iter()
            .filter(|e| e.relation == brief_model::Relation::Supersedes && e.from != target)
            .map(|e| e.from)
            // An ADR's "Superseded by" line is stored from the old record to the new one.
            .chain(
                corpus
                    .edges_out(target)?
                    .into_iter()
                    .filter(|e| e.relation.name() == "superseded_by" && e.to != target)
                    .map(|e| e.to),
            )
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        nodes.extend(&successors);
        nodes.sort_unstable();
        nodes.dedup();
        Ok(Needed { nodes, successors })
    }
}

/// One warning per link to a missing node.
fn dangling_warnings(graph: &dyn brief_model::NodeStore, selection: &Selection) -> Vec<String> {
    selection
        .dangling
        .iter()
        .map(|d| {
            let from = graph.node(d.from);
            format!(
                "{}: {} {} {}, which does not exist; its context is missing (run `brief check`)",
                from.location, from.id, d.relation, d.target
            )
        })
        .collect()
}

/// Sampled fan-outs in the rank order of the node whose links were sampled.
fn truncation_notes(
    graph: &dyn brief_model::NodeStore,
    ranked: &[Ranked],
    truncations: Vec<crate::traverse::Truncation>,
) -> Vec<TruncationNote> {
    let position = |ix: NodeIx| {
        ranked
            .iter()
            .position(|r| r.node == ix)
            .unwrap_or(ranked.len())
    };
    let mut truncations: Vec<(usize, usize, crate::traverse::Truncation)> = truncations
        .into_iter()
        .enumerate()
        .map(|(k, t)| (position(t.node), k, t))
        .collect();
    truncations.sort_by_key(|(at, k, _)| (*at, *k));
    truncations
        .iter()
        .map(|(_, _, t)| {
            let node = graph.node(t.node);
            TruncationNote {
                id: node.id.clone(),
                kind: node.kind.name().to_string(),
                title: node.title.clone(),
                relation: t.relation.name().to_string(),
                total: t.total,
                kept: t.kept,
            }
        })
        .collect()
}

/// A sampled fan-out's sentence in the document.
fn truncation_line(t: &TruncationNote) -> String {
    format!(
        "{} ({}: {}) has {} `{}` links; the {} best-ranked were followed",
        t.id,
        t.kind,
        crate::render::short_title(&t.title),
        t.total,
        t.relation,
        t.kept
    )
}

/// Whether the target is superseded, and by what (id, title), sorted.
struct Superseded {
    superseded: bool,
    successors: Vec<(String, String)>,
}

impl Superseded {
    fn of(graph: &dyn brief_model::NodeStore, target: NodeIx, successors: &[NodeIx]) -> Self {
        let superseded = !successors.is_empty()
            || graph
                .node(target)
                .status
                .as_deref()
                .is_some_and(|s| s.eq_ignore_ascii_case("superseded"));
        let mut named: Vec<(String, String)> = successors
            .iter()
            .map(|&s| (graph.node(s).id.clone(), graph.node(s).title.clone()))
            .collect();
        named.sort();
        named.dedup();
        Superseded {
            superseded,
            successors: named,
        }
    }

    /// The successors for the document's banner, when the target is superseded.
    fn banner(&self) -> Option<Vec<(String, String)>> {
        self.superseded.then(|| self.successors.clone())
    }

    /// The successors' ids for the audit, when the target is superseded.
    fn ids(&self) -> Option<Vec<&str>> {
        self.superseded
            .then(|| self.successors.iter().map(|(id, _)| id.as_str()).collect())
    }
}

/// The source files of these nodes, sorted, each once.
fn source_files(graph: &dyn brief_model::NodeStore, nodes: &[NodeIx]) -> Vec<String> {
    let mut files: Vec<String> = nodes
        .iter()
        .map(|&ix| graph.node(ix).location.path.clone())
        .collect();
    files.sort();
    files.dedup();
    files
}

/// What `brief show` prints: one node at one detail level.
pub fn show(
    corpus: &dyn Corpus,
    id: &str,
    detail: Detail,
    format: Format,
    encoding: Encoding,
) -> Result<String, ContextError> {
    let ix = resolve(corpus, id)??;
    let store = corpus.store(&[ix])?;
    let node = store.node(ix);
    let mut card = card(&*store, ix, detail, &[], None, &Bodies::default());
    card.facts
        .push(("source".into(), node.location.path.clone()));
    let markdown = crate::render::write_card(&card, &node.kind, detail, Style::Markdown);
    Ok(match format.document() {
        Some(Style::Markdown) => markdown,
        Some(style) => crate::render::write_card(&card, &node.kind, detail, style),
        None => {
            // Through the count cache, as contexts count: a card counted before costs no
            // tokenizer.
            let counter = Counter::with_store(encoding, corpus.counts());
            let tokens = counter.count(&markdown);
            counter.persist();
            let value = serde_json::json!({
                "id": node.id,
                "kind": node.kind.name(),
                "title": node.title,
                "detail": detail.name(),
                "source": node.location.path,
                "encoding": encoding.name(),
                "tokens": tokens,
                "document": markdown,
            });
            let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
            text.push('\n');
            text
        }
    })
}
