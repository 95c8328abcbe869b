//! The JSON audit view of a context (`docs/json.md` documents every field): the Markdown
//! document plus, for every node, its detail, distance, rank, tokens and the reasons it is
//! in, and every node left out, in rank order.

use serde::Serialize;

use crate::rank::Ranked;
use crate::traverse::Reason;
use brief_model::{NodeIx, NodeStore, Scope};

use super::{Fitted, TruncationNote};

#[derive(Serialize)]
struct Audit<'a> {
    target: &'a str,
    query: Option<&'a str>,
    confidence: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    seeds: Option<Vec<SeedOut<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    embeddings: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lens: Option<&'a str>,
    encoding: &'a str,
    budget: BudgetOut,
    nodes: Vec<NodeOut<'a>>,
    omitted: Vec<OmittedOut<'a>>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    truncated: &'a [TruncationNote],
    #[serde(skip_serializing_if = "Option::is_none")]
    superseded_by: Option<Vec<&'a str>>,
    warnings: &'a [String],
    document: &'a str,
}

#[derive(Serialize)]
struct SeedOut<'a> {
    id: &'a str,
    score: f64,
}

#[derive(Serialize)]
struct BudgetOut {
    limit: usize,
    used: usize,
}

#[derive(Serialize)]
struct NodeOut<'a> {
    id: &'a str,
    kind: &'a str,
    title: &'a str,
    detail: &'static str,
    /// Why the node is no longer in force (`superseded`, …), which holds it at its line
    /// unless it is the target; absent for a current or proposed node.
    #[serde(skip_serializing_if = "Option::is_none")]
    retired: Option<&'static str>,
    distance: u32,
    score: f64,
    rank: RankOut,
    tokens: usize,
    /// True for the one node whose block was cut short to fill the budget.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    cut: bool,
    reasons: Vec<ReasonOut<'a>>,
}

#[derive(Serialize)]
struct RankOut {
    class: &'static str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    boosted: bool,
    weight: u8,
    distance: f64,
    relevance: f64,
    /// The semantic component: the query's cosine similarity to the node, with embeddings.
    #[serde(skip_serializing_if = "Option::is_none")]
    similarity: Option<f64>,
    recency: f64,
    priority: f64,
}

#[derive(Serialize)]
struct ReasonOut<'a> {
    relation: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    direction: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    from: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    via: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    glob: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    folder: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    word: Option<&'a str>,
    /// For `log`: how many decisions the project's log holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    of: Option<u16>,
}

impl<'a> ReasonOut<'a> {
    fn plain(relation: &'a str) -> ReasonOut<'a> {
        ReasonOut {
            relation,
            direction: None,
            from: None,
            via: None,
            glob: None,
            file: None,
            score: None,
            folder: None,
            of: None,
            word: None,
        }
    }
}

/// A reason as the audit writes it (`docs/json.md`, `nodes[].reasons[]`).
fn reason_out<'a>(reason: &'a Reason, id: &dyn Fn(&NodeIx) -> &'a str) -> ReasonOut<'a> {
    match reason {
        Reason::Target => ReasonOut::plain("target"),
        Reason::Identity => ReasonOut::plain("identity"),
        Reason::Edge {
            relation,
            direction,
            from,
            via,
        } => ReasonOut {
            direction: Some(direction.name()),
            from: Some(id(from)),
            via: Some(via.iter().map(id).collect()),
            ..ReasonOut::plain(relation.name())
        },
        Reason::Applies { to, scope } => {
            let direction = match scope {
                Scope::Always => "always",
                Scope::Glob { .. } => "glob",
                Scope::Words { .. } => "words",
                Scope::Section { .. } => "section",
                Scope::Named { .. } => "named",
            };
            let out = ReasonOut {
                direction: Some(direction),
                from: Some(id(to)),
                ..ReasonOut::plain("applies")
            };
            match scope {
                Scope::Always => out,
                Scope::Glob { glob, file } => ReasonOut {
                    glob: Some(glob),
                    file: Some(file),
                    ..out
                },
                Scope::Words { share } | Scope::Section { share } => ReasonOut {
                    score: Some(f64::from(*share) / 10_000.0),
                    ..out
                },
                Scope::Named { folder, word } => ReasonOut {
                    folder: Some(folder),
                    word: Some(word),
                    ..out
                },
            }
        }
        Reason::Words { share } => ReasonOut {
            score: Some(f64::from(*share) / 10_000.0),
            ..ReasonOut::plain("words")
        },
        Reason::Log { of } => ReasonOut {
            of: Some(*of),
            ..ReasonOut::plain("log")
        },
    }
}

#[derive(Serialize)]
struct OmittedOut<'a> {
    id: &'a str,
    kind: &'a str,
    title: &'a str,
    class: &'static str,
    reason: &'static str,
    /// Whether the document lists it by name (the rest are only counted there).
    listed: bool,
}

/// What the audit needs besides the ranking and the fit.
pub(crate) struct AuditInput<'a> {
    /// The nodes, for ids, kinds, titles and locations.
    pub graph: &'a dyn NodeStore,
    /// The start node.
    pub target: NodeIx,
    /// The words the target was searched for with, when it was given as words.
    pub query: Option<&'a str>,
    /// `on` or `unavailable: …` when embeddings are configured; `None` when they are off.
    pub embeddings: Option<String>,
    /// The lens in force, by name.
    pub lens: Option<&'a str>,
    /// The tokenizer's name.
    pub encoding: &'a str,
    /// The budget.
    pub limit: usize,
    /// The warnings the document carries (links to missing nodes).
    pub warnings: &'a [String],
    /// The fan-outs that were sampled.
    pub truncated: &'a [TruncationNote],
    /// What supersedes the target, when it is superseded.
    pub superseded_by: Option<Vec<&'a str>>,
    /// For a query: the start nodes with their share of the best hit.
    pub seeds: Option<&'a [(String, f64)]>,
    /// How far the start can be trusted.
    pub confidence: crate::resolve::Confidence,
    /// With embeddings, the query's cosine similarity to the nodes most similar to it.
    pub similarity: &'a std::collections::HashMap<NodeIx, f64>,
}

/// The audit JSON, pretty-printed, with a trailing newline.
pub(crate) fn audit(input: &AuditInput<'_>, ranked: &[Ranked], fitted: &Fitted) -> String {
    let graph = input.graph;
    let id = |ix: &NodeIx| graph.node(*ix).id.as_str();
    let mut nodes = Vec::new();
    let mut omitted = Vec::new();
    for (i, item) in ranked.iter().enumerate() {
        let node = graph.node(item.node);
        match fitted.details[i] {
            Some(detail) => nodes.push(NodeOut {
                id: &node.id,
                kind: node.kind.name(),
                title: &node.title,
                detail: detail.name(),
                retired: node.lifecycle().retired().map(|why| why.name()),
                distance: item.distance,
                score: item.score.total,
                rank: RankOut {
                    class: item.class.name(),
                    boosted: item.boosted,
                    weight: item.weight,
                    distance: item.score.distance,
                    relevance: item.score.relevance,
                    similarity: input.similarity.get(&item.node).copied(),
                    recency: item.score.recency,
                    priority: item.score.priority,
                },
                tokens: fitted.tokens[i],
                cut: fitted.cut == Some(i),
                reasons: item.reasons.iter().map(|r| reason_out(r, &id)).collect(),
            }),
            None => {
                let listed = omitted.len() < fitted.listed;
                omitted.push(OmittedOut {
                    id: &node.id,
                    kind: node.kind.name(),
                    title: &node.title,
                    class: item.class.name(),
                    reason: "budget",
                    listed,
                })
            }
        }
    }
    let audit = Audit {
        target: &graph.node(input.target).id,
        query: input.query,
        confidence: input.confidence.name(),
        seeds: input.seeds.map(|seeds| {
            seeds
                .iter()
                .map(|(id, score)| SeedOut { id, score: *score })
                .collect()
        }),
        embeddings: input.embeddings.clone(),
        lens: input.lens,
        encoding: input.encoding,
        budget: BudgetOut {
            limit: input.limit,
            used: fitted.used,
        },
        nodes,
        omitted,
        truncated: input.truncated,
        superseded_by: input.superseded_by.clone(),
        warnings: input.warnings,
        document: &fitted.document,
    };
    let mut text = serde_json::to_string_pretty(&audit).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_from_a_decision_log_says_how_many_decisions_the_log_holds() {
        let no_id = |_: &NodeIx| -> &str { "" };
        let log = Reason::Log { of: 12 };
        let out = serde_json::to_value(reason_out(&log, &no_id)).unwrap();
        assert_eq!(out, serde_json::json!({"relation": "log", "of": 12}));
    }
}
