//! The Tana walk: breadth-first both ways over ownership, references and fields, sampled
//! by rank over the fan-out limit and capped at [`TANA_MAX_NODES`].

use std::collections::{HashMap, VecDeque};

use super::{edge_reason, Acc, Direction, Reason, Selection, TraverseOptions, Truncation};
use brief_model::{GraphView, NodeIx, Relation, StoreError};

/// Neighbours of one Tana node followed over one relation in one direction, unless
/// `[context] fanout` says otherwise: a node with hundreds of children is sampled.
pub(crate) const TANA_FANOUT: usize = 50;

/// Most nodes one Tana context selects. Tana graphs are dense (every child, backlink and
/// field value is an edge both ways), so depth alone would pull in thousands of nodes on a
/// large workspace; the walk is breadth-first, so what is left out is the farthest.
pub(crate) const TANA_MAX_NODES: usize = 400;

/// Selects the nodes of a Tana context (docs/traversal.md, Tana): breadth-first from the seeds,
/// both ways over ownership (`child` forward = children, inverse = parent), `reference`
/// and `field:*` edges, as the lens's families allow (`child`, `parent`, `reference`,
/// `field`). `fields`, when given, keeps only the field edges it selects (a lens's field
/// filter). Over the fan-out limit a relation's neighbours are sampled by rank: nodes
/// already selected, then nodes whose supertag the lens boosts, then by id; every cut is
/// reported as a [`Truncation`].
pub(crate) fn traverse_tana(
    graph: &dyn GraphView,
    seeds: &[NodeIx],
    options: TraverseOptions,
    fields: Option<&[String]>,
    boost: &[String],
) -> Result<Selection, StoreError> {
    let mut acc = Acc::default();
    let mut best: HashMap<NodeIx, u32> = HashMap::new();
    let mut queue: VecDeque<(NodeIx, u32)> = VecDeque::new();
    for &seed in seeds {
        acc.add(seed, 0, Reason::Target);
        if best.insert(seed, 0).is_none() {
            queue.push_back((seed, 0));
        }
    }
    if options.identity {
        if let Some(identity) = graph.identity()? {
            if !seeds.contains(&identity) {
                acc.add(identity, 0, Reason::Identity);
            }
        }
    }
    let mut truncated: Vec<Truncation> = Vec::new();
    while let Some((node, distance)) = queue.pop_front() {
        if best.get(&node) != Some(&distance) {
            continue;
        }
        let next = distance + 1;
        if !options.depth.allows(next) {
            continue;
        }
        for ((relation, direction), mut list) in neighbours(graph, node, &options, fields)? {
            list.dedup();
            let total = list.len();
            let mut kept = total;
            if total > options.fanout {
                let mut keyed = Vec::with_capacity(list.len());
                for other in list {
                    let kind = graph.kind_of(other)?;
                    let boosted = boost.iter().any(|b| b == kind.name());
                    let key = (
                        !acc.nodes.contains_key(&other),
                        !boosted,
                        graph.id_of(other)?,
                    );
                    keyed.push((key, other));
                }
                keyed.sort_by(|a, b| a.0.cmp(&b.0));
                list = keyed.into_iter().map(|(_, other)| other).collect();
                list.truncate(options.fanout);
                kept = options.fanout;
            }
            let mut cut = 0;
            for other in list {
                if seeds.contains(&other) {
                    continue;
                }
                if !acc.nodes.contains_key(&other) && acc.nodes.len() >= TANA_MAX_NODES {
                    cut += 1;
                    continue;
                }
                acc.add(
                    other,
                    next,
                    edge_reason(relation.clone(), direction, node, Vec::new()),
                );
                if best.get(&other).is_none_or(|&d| d > next) {
                    best.insert(other, next);
                    queue.push_back((other, next));
                }
            }
            if kept - cut < total {
                truncated.push(Truncation {
                    node,
                    relation,
                    total,
                    kept: kept - cut,
                });
            }
        }
    }
    acc.finish(graph, seeds.first().copied().unwrap_or(0), truncated)
}

/// Neighbours reached by one relation in one direction.
type Group = ((Relation, Direction), Vec<NodeIx>);

/// The neighbours of `node` the lens follows, grouped by (relation, direction) in the order
/// edges come (by id).
fn neighbours(
    graph: &dyn GraphView,
    node: NodeIx,
    options: &TraverseOptions,
    fields: Option<&[String]>,
) -> Result<Vec<Group>, StoreError> {
    let field_followed = |relation: &Relation| match relation {
        Relation::Field(name) => {
            options.follow.field
                && brief_model::field_selected(fields, name.strip_prefix("field:").unwrap_or(name))
        }
        _ => false,
    };
    let mut groups: Vec<((Relation, Direction), Vec<NodeIx>)> = Vec::new();
    let mut push = |key: (Relation, Direction), other: NodeIx| match groups
        .iter_mut()
        .find(|(k, _)| *k == key)
    {
        Some((_, list)) => list.push(other),
        None => groups.push((key, vec![other])),
    };
    for edge in graph.edges_out(node)? {
        let followed = match &edge.relation {
            Relation::Child => options.follow.child,
            Relation::Reference => options.follow.reference,
            field @ Relation::Field(_) => field_followed(field),
            // Links from other sources into or out of a Tana node read as references.
            other => other.is_forward() && options.follow.reference,
        };
        if followed {
            push((edge.relation, Direction::Forward), edge.to);
        }
    }
    for edge in graph.edges_in(node)? {
        let followed = match &edge.relation {
            Relation::Child => options.follow.parent,
            Relation::Reference => options.follow.reference,
            field @ Relation::Field(_) => field_followed(field),
            _ => false,
        };
        if followed {
            push((edge.relation, Direction::Inverse), edge.from);
        }
    }
    Ok(groups)
}
