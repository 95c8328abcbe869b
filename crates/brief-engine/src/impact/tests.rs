//! The inverse against forward selection on random graphs: every rule, supersedes pruning,
//! sampled fan-outs and namespace nodes that link forward at depths above 2.

use proptest::prelude::*;

use super::*;
use brief_model::testing::node;
use brief_model::{Graph, Kind};
use brief_project::Defaults;

const KINDS: [Kind; 7] = [
    Kind::Layer,
    Kind::Feature,
    Kind::Decision,
    Kind::Policy,
    Kind::Behavior,
    Kind::Task,
    Kind::Identity,
];
const RELATIONS: [&str; 7] = [
    "contains",
    "depends_on",
    "constrains",
    "supersedes",
    "implements",
    "verified_by",
    "links",
];
/// No lens, and built-in lenses that follow different families (children without parents,
/// references only, …).
const LENSES: [Option<&str>; 4] = [None, Some("planning"), Some("coding"), Some("writing")];

/// A graph of `kinds.len()` nodes `N0…` with the given `(from, relation, to)` links.
fn graph(kinds: &[usize], links: &[(usize, usize, usize)]) -> Graph {
    let n = kinds.len();
    let nodes = (0..n)
        .map(|i| {
            let targets: Vec<(&str, String)> = links
                .iter()
                .filter(|(from, _, to)| from % n == i && to % n != i)
                .map(|(_, rel, to)| (RELATIONS[*rel], format!("N{}", to % n)))
                .collect();
            let targets: Vec<(&str, &str)> =
                targets.iter().map(|(r, t)| (*r, t.as_str())).collect();
            node(&format!("N{i}"), KINDS[kinds[i]].clone(), &targets)
        })
        .collect();
    Graph::build(nodes).0
}

/// For every node: the targets and chains `impact` gives equal those of every target's own
/// selection.
fn assert_exact(graph: &Graph, depth: Depth, fanout: usize) -> Result<(), TestCaseError> {
    let request = ContextRequest {
        depth: Some(depth),
        ..ContextRequest::default()
    };
    assert_exact_with(graph, &request, fanout, false)
}

/// [`assert_exact`] with any request (lens, identity), and optionally asking two nodes at once.
fn assert_exact_with(
    graph: &Graph,
    request: &ContextRequest,
    fanout: usize,
    pairs: bool,
) -> Result<(), TestCaseError> {
    let request = request.clone();
    let defaults = Defaults {
        fanout: Some(fanout),
        ..Defaults::default()
    };
    let plans = Plans::new(&defaults, &request).unwrap();
    let plan = plans.of(Origin::SpecGraph);
    let all = 0..graph.len() as NodeIx;
    let selections: Vec<Selection> = all
        .clone()
        .map(|t| select(graph, plan, &[t]).unwrap())
        .collect();
    for node in all {
        let answer = impact(graph, &plans, &[node]).unwrap();
        let mut expected: Vec<Affected> = Vec::new();
        for selection in &selections {
            if let Some(chain) = chain(graph, selection, node).unwrap() {
                let t = selection.target;
                expected.push(Affected {
                    id: graph.node(t).id.clone(),
                    kind: graph.node(t).kind.name().to_string(),
                    chain: vec![chain],
                });
            }
        }
        expected.sort_by(|a, b| a.id.cmp(&b.id));
        prop_assert_eq!(
            &answer.targets,
            &expected,
            "impact of {}",
            graph.node(node).id
        );
        // What `impact --since` compares when the node changes holds at least these.
        let explorers = explorers(graph, &plans, node).unwrap();
        for target in &answer.targets {
            let t = graph.lookup(&target.id).unwrap();
            prop_assert!(explorers.contains(&t), "{} explores {}", target.id, node);
        }
        if pairs {
            // Two asked nodes: each target lists a chain per node its context holds, in order.
            let other = (node + 1) % graph.len() as NodeIx;
            if other != node {
                let both = impact(graph, &plans, &[node, other]).unwrap();
                let mut expected: Vec<Affected> = Vec::new();
                for selection in &selections {
                    let mut chains = Vec::new();
                    for n in [node, other] {
                        chains.extend(chain(graph, selection, n).unwrap());
                    }
                    if !chains.is_empty() {
                        let t = selection.target;
                        expected.push(Affected {
                            id: graph.node(t).id.clone(),
                            kind: graph.node(t).kind.name().to_string(),
                            chain: chains,
                        });
                    }
                }
                expected.sort_by(|a, b| a.id.cmp(&b.id));
                prop_assert_eq!(&both.targets, &expected, "impact of two nodes");
            }
        }
        // Knowing the origins skips look-ups, not targets: a sole origin, and two without Tana.
        for origins in [
            vec![Origin::SpecGraph],
            vec![Origin::SpecGraph, Origin::Artifact],
        ] {
            let known = Plans::new(&defaults, &request).unwrap().only(origins);
            let answer = impact(graph, &known, &[node]).unwrap();
            prop_assert_eq!(
                &answer.targets,
                &expected,
                "impact of {}",
                graph.node(node).id
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn impact_agrees_with_every_selection_under_lenses_and_identity(
        kinds in prop::collection::vec(0..KINDS.len(), 4..12),
        links in prop::collection::vec((0usize..12, 0..RELATIONS.len(), 0usize..12), 0..36),
        depth in prop_oneof![(0u32..4).prop_map(Depth::Hops), Just(Depth::Full)],
        lens in 0..LENSES.len(),
        no_identity in any::<bool>(),
        fanout in prop_oneof![Just(1usize), Just(2), Just(200)],
    ) {
        let graph = graph(&kinds, &links);
        let request = ContextRequest {
            depth: Some(depth),
            lens: LENSES[lens].map(str::to_string),
            no_identity,
            ..ContextRequest::default()
        };
        assert_exact_with(&graph, &request, fanout, true)?;
    }

    #[test]
    fn impact_agrees_with_every_selection(
        kinds in prop::collection::vec(0..KINDS.len(), 4..14),
        links in prop::collection::vec((0usize..14, 0..RELATIONS.len(), 0usize..14), 0..40),
        depth in prop_oneof![(1u32..5).prop_map(Depth::Hops), Just(Depth::Full)],
        fanout in 1usize..4,
    ) {
        let graph = graph(&kinds, &links);
        assert_exact(&graph, depth, fanout)?;
    }
}

/// Rule 4's pruning where the superseding decision is itself a target: its own context
/// keeps the older decision, every other target below both layers drops it.
#[test]
fn a_superseded_layer_decision_reaches_only_the_superseder() {
    let graph = graph(
        &[0, 0, 2, 2, 1, 4],
        &[
            (0, 0, 2), // L0 contains D-old
            (1, 0, 3), // L1 contains D-new
            (3, 3, 2), // D-new supersedes D-old
            (1, 1, 0), // L1 depends_on L0
            (4, 1, 1), // F depends_on L1
            (4, 0, 5), // F contains B
            (3, 1, 1), // D-new depends_on L1
        ],
    );
    let plans = Plans::new(&Defaults::default(), &ContextRequest::default()).unwrap();
    let answer = impact(&graph, &plans, &[2]).unwrap();
    let ids: Vec<&str> = answer.targets.iter().map(|t| t.id.as_str()).collect();
    // N3 (D-new) walks to L1 and L0 but is not its own candidate, so N2 survives there.
    assert_eq!(ids, ["N1", "N2", "N3"]);
    assert_exact(&graph, Depth::Hops(2), 200).unwrap();
}

/// At depth 3 a namespace node can be a chain's step through a forward link although the
/// walk from the target reaches it only over nodes that cannot reach the asked node in time:
/// the inverse must notice it cannot vouch for that distance, and the chain must still be
/// the selection's (`N1 ← contains N0 → depends_on N3 → implements N4`, not through N5).
#[test]
fn a_namespace_node_on_a_long_forward_chain_is_found() {
    let graph = graph(
        &[1, 4, 4, 4, 4, 3],
        &[
            (0, 0, 1), // N0 contains N1 (the target)
            (1, 1, 2), // N1 depends_on N2
            (2, 1, 0), // N2 depends_on N0
            (0, 1, 3), // N0 depends_on N3
            (5, 2, 1), // N5 constrains N1
            (5, 1, 3), // N5 depends_on N3
            (3, 4, 4), // N3 implements N4 (the asked node)
        ],
    );
    let request = ContextRequest {
        depth: Some(Depth::Hops(3)),
        ..ContextRequest::default()
    };
    let plans = Plans::new(&Defaults::default(), &request).unwrap();
    let answer = impact(&graph, &plans, &[4]).unwrap();
    let n1 = answer.targets.iter().find(|t| t.id == "N1").unwrap();
    assert_eq!(
        n1.chain,
        ["N1 ← contains N0 → depends_on N3 → implements N4"]
    );
    assert_exact(&graph, Depth::Hops(3), 200).unwrap();
}
