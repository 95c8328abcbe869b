use super::*;
use brief_model::testing::node;
use brief_model::Graph;

fn ids(graph: &Graph, selection: &Selection) -> Vec<String> {
    selection
        .reached
        .iter()
        .map(|r| graph.node(r.node).id.clone())
        .collect()
}

fn run(graph: &Graph, id: &str, depth: Depth) -> Vec<String> {
    let target = graph.lookup(id).unwrap();
    ids(
        graph,
        &traverse(graph, target, TraverseOptions::at(depth)).unwrap(),
    )
}

/// The layered example of the Spec Graph docs, by hand: BILLING-01 inherits PLATFORM's
/// guidance through BILLING → AUTH → PLATFORM.
fn layered() -> Graph {
    Graph::build(vec![
        node(
            "AUTH",
            Kind::Feature,
            &[("contains", "AUTH-01"), ("depends_on", "PLATFORM")],
        ),
        node(
            "BILLING",
            Kind::Feature,
            &[("contains", "BILLING-01"), ("depends_on", "AUTH")],
        ),
        node(
            "PLATFORM",
            Kind::Layer,
            &[
                ("contains", "DEC-PLAT-01"),
                ("contains", "POL-PLAT-SEC-01"),
                ("contains", "POL-PLAT-LOG-01"),
                ("depends_on", "FND-PLAT-01"),
            ],
        ),
        node(
            "FND-PLAT-01",
            Kind::Foundation,
            &[("depends_on", "DEC-PLAT-01")],
        ),
        node("AUTH-01", Kind::Behavior, &[]),
        node("BILLING-01", Kind::Behavior, &[]),
        node("DEC-PLAT-01", Kind::Decision, &[("constrains", "PLATFORM")]),
        node(
            "POL-PLAT-SEC-01",
            Kind::Policy,
            &[("constrains", "PLATFORM")],
        ),
        node("POL-PLAT-LOG-01", Kind::Policy, &[]),
    ])
    .0
}

#[test]
fn layer_guidance_reaches_through_features() {
    let graph = layered();
    assert_eq!(
        run(&graph, "BILLING-01", Depth::Hops(2)),
        vec!["BILLING", "BILLING-01", "DEC-PLAT-01", "POL-PLAT-SEC-01"],
        "a policy merely contained in the layer does not propagate; the layer and hops are not included"
    );
}

#[test]
fn superseded_candidates_are_dropped() {
    let (graph, _) = Graph::build(vec![
        node(
            "APP",
            Kind::Feature,
            &[("contains", "APP-01"), ("depends_on", "CORE")],
        ),
        node("APP-01", Kind::Behavior, &[]),
        node(
            "CORE",
            Kind::Layer,
            &[("contains", "DEC-OLD"), ("contains", "DEC-NEW")],
        ),
        node("DEC-OLD", Kind::Decision, &[]),
        node("DEC-NEW", Kind::Decision, &[("supersedes", "DEC-OLD")]),
    ]);
    assert_eq!(
        run(&graph, "APP-01", Depth::Full),
        vec!["APP", "APP-01", "DEC-NEW"]
    );
}

#[test]
fn forward_depth_and_cycles() {
    let (graph, _) = Graph::build(vec![
        node(
            "A",
            Kind::Behavior,
            &[("depends_on", "B"), ("implements", "D")],
        ),
        node("B", Kind::Behavior, &[("depends_on", "C")]),
        node("C", Kind::Behavior, &[]),
        node("D", Kind::Domain, &[("implements", "E")]),
        node("E", Kind::ApiContract, &[("implements", "D")]),
        node("P", Kind::Policy, &[("constrains", "B")]),
    ]);
    assert_eq!(run(&graph, "A", Depth::Hops(1)), vec!["A", "B", "D"]);
    assert_eq!(
        run(&graph, "A", Depth::Hops(2)),
        vec!["A", "B", "C", "D", "E"]
    );
    assert_eq!(
        run(&graph, "A", Depth::Full),
        vec!["A", "B", "C", "D", "E"],
        "the implements cycle terminates; P constrains a dependency and is not inherited"
    );
}

#[test]
fn two_paths_give_one_node_with_both_reasons() {
    let (graph, _) = Graph::build(vec![
        node("F", Kind::Feature, &[("contains", "T")]),
        node("T", Kind::Behavior, &[("depends_on", "DEC")]),
        node("DEC", Kind::Decision, &[("constrains", "T")]),
        node("POL", Kind::Policy, &[("constrains", "F")]),
    ]);
    let t = graph.lookup("T").unwrap();
    let selection = traverse(
        &graph,
        t,
        TraverseOptions {
            identity: false,
            ..TraverseOptions::at(Depth::Hops(1))
        },
    )
    .unwrap();
    let dec = selection
        .reached
        .iter()
        .find(|r| graph.node(r.node).id == "DEC")
        .unwrap();
    assert_eq!(dec.reasons.len(), 2);
    let pol = selection
        .reached
        .iter()
        .find(|r| graph.node(r.node).id == "POL")
        .unwrap();
    let f = graph.lookup("F").unwrap();
    assert!(matches!(&pol.reasons[0], Reason::Edge { via, .. } if via == &vec![f]));
}

#[test]
fn depth_parses() {
    assert_eq!("full".parse::<Depth>().unwrap(), Depth::Full);
    assert_eq!("3".parse::<Depth>().unwrap(), Depth::Hops(3));
    assert!("deep".parse::<Depth>().is_err());
}
