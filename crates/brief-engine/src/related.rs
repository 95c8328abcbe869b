//! Related material (`docs/traversal.md`, "Related material"): once the links and rules
//! have selected what governs the start, what else bears on it — the nodes that link to a
//! selected node (one hop back) and the further hits of a search in words. They join the
//! selection with reasons of their own, so ranking puts them after every linked node and the
//! fit gives them only the room everything else left.
//!
//! `impact` answers for the rules, so it does not see this material; `explain` reads the
//! whole selection of the context it is asked about, this material included.

use std::collections::BTreeSet;

use crate::resolve::{may_be_translation, Languages};
use crate::traverse::{Direction, Reached, Reason, Selection};
use brief_model::{GraphView, Kind, Lifecycle, NodeIx, Relation, StoreError};

/// Most nodes added as backlinks to one context.
pub(crate) const BACKLINKS_MAX: usize = 40;

/// Most decisions a project may have for a context in words to add the rest of them (its
/// whole decision log, when room is left).
pub(crate) const LOG_MAX: usize = 40;

/// How a context's start was named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Named {
    /// By id or by file: the links and rules say what governs it.
    Exactly,
    /// By words: the start is a guess, and related material may hold what governs the work.
    ByWords,
}

/// Adds related material to `selection`: nodes linking to a selected node (the start nodes
/// first, then the others in id order), at most [`BACKLINKS_MAX`], the search hits `words`
/// (node, share of the best hit) not selected yet, and — for a start named by words — the
/// rest of a small decision log ([`LOG_MAX`]). None adds a part of a selected whole (a
/// section of a selected page: its text is there already), a proposed node (its text would
/// read as in force), or a node of a document that only gathers others (a change log, a
/// table of contents). A retired node may join (ranking puts it last, shown by its line);
/// retired backlinks have a cap of their own, so they never crowd out current ones.
pub(crate) fn add_related(
    graph: &dyn GraphView,
    selection: &mut Selection,
    seeds: &[NodeIx],
    words: &[(NodeIx, f64)],
    named: Named,
) -> Result<(), StoreError> {
    let selected: BTreeSet<NodeIx> = selection.reached.iter().map(|r| r.node).collect();
    let mut added: Vec<Reached> = Vec::new();
    let mut taken: BTreeSet<NodeIx> = selected.clone();
    // Backlinks taken so far: the walk stops when the current ones reach the cap; retired
    // ones have a cap of their own.
    let (mut current, mut retired) = (0usize, 0usize);
    let mut copies = Copies::new(selection, seeds);
    for (from, distance) in backlink_order(selection, seeds) {
        if current >= BACKLINKS_MAX {
            break;
        }
        for edge in graph.edges_in(from)? {
            if current >= BACKLINKS_MAX {
                break;
            }
            if !edge.relation.is_forward() || taken.contains(&edge.from) {
                continue;
            }
            let Some(lifecycle) = admitted(graph, edge.from, &selected)? else {
                continue;
            };
            if copies.elsewhere(graph, edge.from)? {
                continue;
            }
            let count = if lifecycle.retired().is_some() {
                &mut retired
            } else {
                &mut current
            };
            if *count >= BACKLINKS_MAX {
                continue;
            }
            *count += 1;
            taken.insert(edge.from);
            added.push(Reached {
                node: edge.from,
                distance: distance + 1,
                reasons: vec![Reason::Edge {
                    relation: edge.relation,
                    direction: Direction::Backlink,
                    from,
                    via: Vec::new(),
                }],
            });
        }
    }
    for &(node, share) in words {
        let reason = Reason::Words {
            share: crate::traverse::ten_thousandths(share),
        };
        if let Some(reached) = added.iter_mut().find(|r| r.node == node) {
            reached.reasons.push(reason);
            continue;
        }
        // A hit that is part of one taken already, or the whole of one, would show the same
        // text twice: the first, the better match, stays.
        if taken.contains(&node)
            || !admissible(graph, node, &taken)?
            || holds_taken_part(graph, node, &taken)?
        {
            continue;
        }
        taken.insert(node);
        added.push(Reached {
            node,
            distance: 1,
            reasons: vec![reason],
        });
    }
    if named == Named::ByWords {
        add_log(graph, &mut taken, &mut added)?;
    }
    if added.is_empty() {
        return Ok(());
    }
    selection.reached.extend(added);
    let mut keyed = Vec::with_capacity(selection.reached.len());
    for r in selection.reached.drain(..) {
        keyed.push((graph.id_of(r.node)?, r));
    }
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    selection.reached = keyed.into_iter().map(|(_, r)| r).collect();
    Ok(())
}

/// The rest of a small decision log: when the project has at most [`LOG_MAX`] decisions,
/// every current one not taken yet, in id order. Records rarely link to each other, and a
/// start found by words may be the wrong one; a log this small is cheap to read whole, and as
/// related material it gets only the room everything else leaves. Rules are not part of it:
/// one that covers part of the tree applies only where its scope or its words say.
fn add_log(
    graph: &dyn GraphView,
    taken: &mut BTreeSet<NodeIx>,
    added: &mut Vec<Reached>,
) -> Result<(), StoreError> {
    let Some(log) = graph.nodes_of_kind_upto(&Kind::Decision, LOG_MAX)? else {
        return Ok(());
    };
    if log.len() > LOG_MAX {
        return Ok(());
    }
    let of = u16::try_from(log.len()).unwrap_or(u16::MAX);
    let mut keyed = Vec::with_capacity(log.len());
    for node in log.into_iter().filter(|node| !taken.contains(node)) {
        keyed.push((graph.id_of(node)?, node));
    }
    keyed.sort();
    for (_, node) in keyed {
        if !admissible(graph, node, taken)? {
            continue;
        }
        taken.insert(node);
        added.push(Reached {
            node,
            distance: 1,
            reasons: vec![Reason::Log { of }],
        });
    }
    Ok(())
}

/// Whether `node` may join as related material: not a part of a selected whole read from
/// the same file, not proposed (its text would read as in force), and not in a document that
/// only gathers others. A retired node may: ranked after every current one and shown by its
/// line alone, it says that something was replaced or reverted without its old text.
fn admissible(
    graph: &dyn GraphView,
    node: NodeIx,
    selected: &BTreeSet<NodeIx>,
) -> Result<bool, StoreError> {
    Ok(admitted(graph, node, selected)?.is_some())
}

/// [`admissible`], with the node's lifecycle when it is (read once: backlinks are capped
/// by it).
fn admitted(
    graph: &dyn GraphView,
    node: NodeIx,
    selected: &BTreeSet<NodeIx>,
) -> Result<Option<Lifecycle>, StoreError> {
    if part_of_selected(graph, node, selected)? {
        return Ok(None);
    }
    let lifecycle = graph.lifecycle_of(node)?;
    let admitted = !matches!(lifecycle, Lifecycle::Proposed) && !in_aggregate(graph, node)?;
    Ok(admitted.then_some(lifecycle))
}

/// Translations kept out of a context whose start is none: a translation ([`Languages`]: a
/// language folder beside `en/` or under `i18n/`, or a page beside its original) that links
/// to a selected page says again what the page says,
/// so it is no backlink unless the start is a translation too. Whether a folder named like a
/// language is one is judged against the selection's files (where its `en/` sibling shows),
/// read once, and only once a backlink lives in such a folder.
pub(crate) struct Copies {
    /// The start node first, then every other selected node.
    nodes: Vec<NodeIx>,
    /// The selection's English folders and whether the start is a translation.
    known: Option<(Languages, bool)>,
}

impl Copies {
    /// The copies of a context that starts from `seeds` (the first is the start) and has
    /// selected `selection`.
    pub(crate) fn new(selection: &Selection, seeds: &[NodeIx]) -> Copies {
        let rest = selection
            .reached
            .iter()
            .map(|r| r.node)
            .filter(|n| seeds.first() != Some(n));
        Copies {
            nodes: seeds.first().copied().into_iter().chain(rest).collect(),
            known: None,
        }
    }

    /// Whether `node` is a translation while the start is not.
    pub(crate) fn elsewhere(
        &mut self,
        graph: &dyn GraphView,
        node: NodeIx,
    ) -> Result<bool, StoreError> {
        let Some(file) = graph.files_of(node)?.into_iter().next() else {
            return Ok(false);
        };
        if !may_be_translation(&file) {
            return Ok(false);
        }
        let (languages, start_is_copy) = match &self.known {
            Some(known) => known,
            None => self.known.insert(self.read(graph)?),
        };
        Ok(!*start_is_copy && is_copy(graph, languages, &file))
    }

    /// The selection's English folders, and whether the start is a translation.
    fn read(&self, graph: &dyn GraphView) -> Result<(Languages, bool), StoreError> {
        let mut files = Vec::with_capacity(self.nodes.len());
        for &n in &self.nodes {
            files.push(graph.files_of(n)?.into_iter().next());
        }
        let languages = Languages::of(files.iter().flatten().map(String::as_str));
        let start = files.first().and_then(Option::as_deref);
        let start_is_copy = start.is_some_and(|f| is_copy(graph, &languages, f));
        Ok((languages, start_is_copy))
    }
}

/// Whether `file` is a translation. Its original may be outside the selection (a
/// `README.zh-CN.md` that links to a selected page, beside a `README.md` that is not
/// selected), so it is looked up in the graph, where a page's id is its path; a lookup the
/// store fails reads as no original, and the page stays what it is.
fn is_copy(graph: &dyn GraphView, languages: &Languages, file: &str) -> bool {
    let exists = |original: &str| graph.lookup(original).is_ok_and(|n| n.is_some());
    languages.is_translation_beside(file, &exists)
}

/// The selected nodes whose backlinks are gathered, with their distance: the start nodes in
/// order, then every other selected node nearest first (the selection is in id order, so
/// ties stay in id order).
fn backlink_order(selection: &Selection, seeds: &[NodeIx]) -> Vec<(NodeIx, u32)> {
    let distance = |node: NodeIx| {
        selection
            .reached
            .iter()
            .find(|r| r.node == node)
            .map_or(0, |r| r.distance)
    };
    let mut order: Vec<(NodeIx, u32)> = seeds.iter().map(|&s| (s, distance(s))).collect();
    let mut rest: Vec<&Reached> = selection
        .reached
        .iter()
        .filter(|r| !seeds.contains(&r.node))
        .collect();
    rest.sort_by_key(|r| r.distance);
    order.extend(rest.into_iter().map(|r| (r.node, r.distance)));
    order
}

/// Whether `node` lives in a document that only gathers others (a change log, release notes,
/// a table of contents): it links to and mentions everything, so it is related to every
/// topic and tells about none.
fn in_aggregate(graph: &dyn GraphView, node: NodeIx) -> Result<bool, StoreError> {
    Ok(graph
        .files_of(node)?
        .first()
        .is_some_and(|file| crate::resolve::is_aggregate(file)))
}

/// Whether a `contains` descendant of `node` read from the same file is among `taken`.
fn holds_taken_part(
    graph: &dyn GraphView,
    node: NodeIx,
    taken: &BTreeSet<NodeIx>,
) -> Result<bool, StoreError> {
    kin_in_file(graph, node, taken, Kin::Parts)
}

/// Whether a `contains` ancestor of `node` read from the same file is selected: that
/// whole's text holds the part (a page its sections, a task list its tasks). A part with a
/// file of its own (a feature's behavior) has text the whole does not show.
fn part_of_selected(
    graph: &dyn GraphView,
    node: NodeIx,
    selected: &BTreeSet<NodeIx>,
) -> Result<bool, StoreError> {
    kin_in_file(graph, node, selected, Kin::Wholes)
}

/// Which way [`kin_in_file`] walks the `contains` edges.
#[derive(Clone, Copy)]
enum Kin {
    /// Up, to the wholes that contain the node.
    Wholes,
    /// Down, to the parts it contains.
    Parts,
}

/// Whether a node `kin` of `node` (at any depth) that is read from one of `node`'s files is
/// in `set`.
fn kin_in_file(
    graph: &dyn GraphView,
    node: NodeIx,
    set: &BTreeSet<NodeIx>,
    kin: Kin,
) -> Result<bool, StoreError> {
    // The files are read only once a member of the set is met: most candidates have none.
    let mut files: Option<Vec<String>> = None;
    let mut frontier = vec![node];
    let mut seen = BTreeSet::new();
    while let Some(at) = frontier.pop() {
        let next: Vec<NodeIx> = match kin {
            Kin::Wholes => graph
                .edges_in_of(at, &Relation::Contains)?
                .into_iter()
                .map(|e| e.from)
                .collect(),
            Kin::Parts => graph
                .edges_out_of(at, &Relation::Contains)?
                .into_iter()
                .map(|e| e.to)
                .collect(),
        };
        for other in next {
            if set.contains(&other) {
                if files.is_none() {
                    files = Some(graph.files_of(node)?);
                }
                let own = files.as_deref().unwrap_or_default();
                if graph.files_of(other)?.iter().any(|file| own.contains(file)) {
                    return Ok(true);
                }
            }
            if seen.insert(other) {
                frontier.push(other);
            }
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traverse::{traverse_many, TraverseOptions};
    use brief_model::testing::node;
    use brief_model::{Depth, Graph, Location, Node};

    /// A node read from `file` (a section shares its page's file).
    fn in_file(file: &str, node: Node) -> Node {
        Node {
            location: Location::file(file),
            ..node
        }
    }

    /// The selection of `seed` (two hops), with `also` selected as if linked, after related
    /// material from `hits` (id, share): every node but the seed with its reasons, in the
    /// selection's order.
    fn related(
        graph: &Graph,
        seed: &str,
        also: &[&str],
        hits: &[(&str, f64)],
        named: Named,
    ) -> Vec<(String, Vec<Reason>)> {
        let ix = |id: &str| graph.lookup(id).unwrap();
        let seed = ix(seed);
        let mut selection =
            traverse_many(graph, &[seed], TraverseOptions::at(Depth::Hops(2))).unwrap();
        for id in also {
            selection.reached.push(Reached {
                node: ix(id),
                distance: 1,
                reasons: vec![Reason::Target],
            });
        }
        let hits: Vec<(NodeIx, f64)> = hits.iter().map(|(id, share)| (ix(id), *share)).collect();
        add_related(graph, &mut selection, &[seed], &hits, named).unwrap();
        selection
            .reached
            .iter()
            .filter(|r| r.node != seed)
            .map(|r| (graph.node(r.node).id.clone(), r.reasons.clone()))
            .collect()
    }

    fn ids(related: &[(String, Vec<Reason>)]) -> Vec<&str> {
        related.iter().map(|(id, _)| id.as_str()).collect()
    }

    #[test]
    fn backlinks_and_hits_join_after_the_selection_without_parts_of_selected_wholes() {
        let (graph, _) = Graph::build(vec![
            node("ADR-0008", Kind::Decision, &[]),
            node("ADR-0010", Kind::Decision, &[("links", "ADR-0008")]),
            in_file(
                "PAGE.json",
                node(
                    "PAGE",
                    Kind::Other("note".into()),
                    &[("contains", "PAGE#part")],
                ),
            ),
            in_file(
                "PAGE.json",
                node("PAGE#part", Kind::Section, &[("links", "ADR-0008")]),
            ),
            node("HIT", Kind::Other("note".into()), &[]),
        ]);
        let seed = graph.lookup("ADR-0008").unwrap();
        // The page is selected (as if linked): its part adds nothing.
        let found = related(
            &graph,
            "ADR-0008",
            &["PAGE"],
            &[("HIT", 0.5)],
            Named::Exactly,
        );
        assert!(found.contains(&(
            "ADR-0010".into(),
            vec![Reason::Edge {
                relation: Relation::Link("links".into()),
                direction: Direction::Backlink,
                from: seed,
                via: Vec::new()
            }]
        )));
        assert!(found.contains(&("HIT".into(), vec![Reason::Words { share: 5000 }])));
        assert!(!ids(&found).contains(&"PAGE#part"));
        let order = ids(&found);
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(order, sorted, "kept in id order");
    }

    #[test]
    fn a_behavior_of_a_selected_feature_is_still_related_material() {
        // A feature holds its behaviors, but not their text: a behavior found by words is
        // worth showing though its feature is in the context.
        let (graph, _) = Graph::build(vec![
            node("AUTH", Kind::Feature, &[("contains", "AUTH-05")]),
            node("AUTH-05", Kind::Behavior, &[]),
            node("DOM-USER", Kind::Other("domain".into()), &[]),
        ]);
        let found = related(
            &graph,
            "DOM-USER",
            &["AUTH"],
            &[("AUTH-05", 0.56)],
            Named::Exactly,
        );
        assert!(found.contains(&("AUTH-05".into(), vec![Reason::Words { share: 5600 }])));
    }

    fn log_of(records: usize) -> Graph {
        let mut nodes = vec![node("PAGE", Kind::Other("note".into()), &[])];
        for n in 0..records {
            nodes.push(node(&format!("ADR-{n:04}"), Kind::Decision, &[]));
        }
        nodes.push(Node {
            status: Some("superseded".into()),
            ..node("ADR-OLD", Kind::Decision, &[])
        });
        Graph::build(nodes).0
    }

    #[test]
    fn a_start_in_words_adds_the_rest_of_a_small_decision_log() {
        let graph = log_of(3);
        // Four decisions; the superseded one joins too (ranking puts it last, by its line).
        let log = Reason::Log { of: 4 };
        assert_eq!(
            related(&graph, "PAGE", &[], &[], Named::ByWords),
            vec![
                ("ADR-0000".to_string(), vec![log.clone()]),
                ("ADR-0001".to_string(), vec![log.clone()]),
                ("ADR-0002".to_string(), vec![log.clone()]),
                ("ADR-OLD".to_string(), vec![log]),
            ]
        );
        // A proposed record counts and stays out: its text would read as in force.
        let (pending, _) = Graph::build(vec![
            node("PAGE", Kind::Other("note".into()), &[]),
            node("ADR-0000", Kind::Decision, &[]),
            Node {
                status: Some("proposed".into()),
                ..node("ADR-NEW", Kind::Decision, &[])
            },
        ]);
        assert_eq!(
            related(&pending, "PAGE", &[], &[], Named::ByWords),
            vec![("ADR-0000".to_string(), vec![Reason::Log { of: 2 }])]
        );
        // An id's context keeps what its links and rules select.
        assert!(related(&graph, "PAGE", &[], &[], Named::Exactly).is_empty());
        // A large log is not read whole.
        let large = log_of(LOG_MAX);
        assert!(related(&large, "PAGE", &[], &[], Named::ByWords).is_empty());
        let largest = log_of(LOG_MAX - 1);
        assert_eq!(
            related(&largest, "PAGE", &[], &[], Named::ByWords).len(),
            LOG_MAX
        );
    }

    #[test]
    fn a_hit_and_its_whole_are_not_both_related_material() {
        let (graph, _) = Graph::build(vec![
            node("SEED", Kind::Other("note".into()), &[]),
            in_file(
                "PAGE.md",
                node(
                    "PAGE",
                    Kind::Other("note".into()),
                    &[("contains", "PAGE#a"), ("contains", "PAGE#b")],
                ),
            ),
            in_file("PAGE.md", node("PAGE#a", Kind::Section, &[])),
            in_file("PAGE.md", node("PAGE#b", Kind::Section, &[])),
        ]);
        let hits = |hits: &[(&str, f64)]| -> Vec<String> {
            let found = related(&graph, "SEED", &[], hits, Named::ByWords);
            ids(&found).iter().map(|id| id.to_string()).collect()
        };
        // Sections first: the page that holds them stays out; both sections join.
        assert_eq!(
            hits(&[("PAGE#a", 0.9), ("PAGE", 0.5), ("PAGE#b", 0.4)]),
            ["PAGE#a", "PAGE#b"]
        );
        // The page first: its sections add nothing.
        assert_eq!(hits(&[("PAGE", 0.9), ("PAGE#a", 0.5)]), ["PAGE"]);
    }
}
