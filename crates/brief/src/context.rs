//! The pipeline behind `brief context` and `brief show`: resolve → traverse → rank → fit →
//! render. The CLI and the MCP server call these and print what they return, byte for byte.

use crate::fit::{fit, TooSmall};
use crate::model::{Corpus, Detail, NodeIx, Origin};
use crate::project::{Defaults, DEFAULT_BUDGET};
use crate::rank::{rank, Ranked};
use crate::render::json::{audit, AuditInput};
use crate::render::{card, Format, Layout, Style};
use crate::resolve::{resolve, UnknownTarget};
use crate::tokens::{Counter, Encoding};
use crate::traverse::{traverse, Depth, TraverseOptions};

/// What to assemble. `None` fields take the project's defaults, then the built-in ones.
#[derive(Debug, Clone, Default)]
pub struct ContextRequest {
    /// A node id.
    pub target: String,
    pub depth: Option<Depth>,
    pub detail: Option<Detail>,
    pub budget: Option<usize>,
    pub encoding: Option<Encoding>,
    pub format: Format,
    /// Leave out the project identity.
    pub no_identity: bool,
}

/// An assembled context.
#[derive(Debug, Clone)]
pub struct ContextOutput {
    /// Exactly what `brief context` prints.
    pub text: String,
    /// The exact token count of the document (for JSON, of the embedded Markdown).
    pub used: usize,
    pub budget: usize,
    /// Nodes left out for the budget.
    pub omitted: usize,
    /// Problems that shrink the context: links to missing nodes.
    pub warnings: Vec<String>,
}

/// Why a context could not be assembled.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    #[error(transparent)]
    UnknownTarget(#[from] UnknownTarget),
    #[error(transparent)]
    TooSmall(#[from] TooSmall),
}

/// Assembles the context for `request` over a loaded graph.
pub fn assemble(
    corpus: &dyn Corpus,
    defaults: &Defaults,
    request: &ContextRequest,
) -> Result<ContextOutput, ContextError> {
    let target = resolve(corpus, &request.target)?;
    let target_origin = corpus.store(&[target]).node(target).origin;
    // Spec Graph: "depth 2 is usually sufficient"; artifacts follow links to the end.
    let depth = request.depth.or(defaults.depth).unwrap_or(match target_origin {
        Origin::SpecGraph => Depth::Hops(2),
        Origin::Artifact => Depth::Full,
    });
    let detail = request.detail.or(defaults.detail).unwrap_or(Detail::Full);
    let budget = request.budget.or(defaults.budget).unwrap_or(DEFAULT_BUDGET);
    let encoding = request.encoding.or(defaults.encoding).unwrap_or_default();

    let selection = traverse(
        corpus,
        target,
        TraverseOptions {
            depth,
            identity: !request.no_identity,
        },
    );
    // Everything rendering may name: selected nodes and the nodes their reasons pass through.
    let mut needed: Vec<NodeIx> = Vec::new();
    for reached in &selection.reached {
        needed.push(reached.node);
        for reason in &reached.reasons {
            if let crate::traverse::Reason::Edge { from, via, .. } = reason {
                needed.push(*from);
                needed.extend(via);
            }
        }
    }
    needed.sort_unstable();
    needed.dedup();
    let store = corpus.store(&needed);
    let graph: &dyn crate::model::NodeStore = &*store;
    let warnings: Vec<String> = selection
        .dangling
        .iter()
        .map(|d| {
            let from = graph.node(d.from);
            format!(
                "{}: {} {} {}, which does not exist; its context is missing (run `brief check`)",
                from.location, from.id, d.relation, d.target
            )
        })
        .collect();
    let ranked: Vec<Ranked> = rank(graph, selection);
    let target_item = ranked.iter().position(|r| r.node == target).unwrap_or(0);
    let layout = Layout::new(graph, &ranked, target, request.format.style());
    let counter = Counter::new(encoding);
    let fitted = fit(&layout, &counter, ranked.len(), target_item, detail, budget)?;
    let omitted = fitted.details.iter().filter(|d| d.is_none()).count();
    let text = match request.format {
        Format::Json => audit(
            &AuditInput {
                graph,
                target,
                query: None,
                encoding: encoding.name(),
                limit: budget,
                warnings: &warnings,
            },
            &ranked,
            &fitted,
        ),
        Format::Markdown | Format::Text => fitted.document.clone(),
    };
    Ok(ContextOutput {
        text,
        used: fitted.used,
        budget,
        omitted,
        warnings,
    })
}

/// What `brief show` prints: one node at one detail level.
pub fn show(
    corpus: &dyn Corpus,
    id: &str,
    detail: Detail,
    format: Format,
    encoding: Encoding,
) -> Result<String, UnknownTarget> {
    let ix = resolve(corpus, id)?;
    let store = corpus.store(&[ix]);
    let node = store.node(ix);
    let mut card = card(&*store, ix, detail, &[]);
    card.facts
        .push(("source".into(), node.location.path.clone()));
    let markdown = crate::render::write_card(&card, &node.kind, detail, Style::Markdown);
    Ok(match format {
        Format::Markdown => markdown,
        Format::Text => crate::render::write_card(&card, &node.kind, detail, Style::Text),
        Format::Json => {
            let value = serde_json::json!({
                "id": node.id,
                "kind": node.kind.name(),
                "title": node.title,
                "detail": detail.name(),
                "source": node.location.path,
                "encoding": encoding.name(),
                "tokens": encoding.count(&markdown),
                "document": markdown,
            });
            let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
            text.push('\n');
            text
        }
    })
}
