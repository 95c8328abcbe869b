use super::*;

use crate::testing::node;

#[test]
fn build_sorts_dedupes_and_indexes_both_ways() {
    let nodes = vec![
        node(
            "B",
            Kind::Behavior,
            &[("depends_on", "A"), ("depends_on", "A")],
        ),
        node(
            "A",
            Kind::Decision,
            &[("constrains", "B"), ("depends_on", "GONE")],
        ),
    ];
    let (graph, dups) = Graph::build(nodes);
    assert!(dups.is_empty());
    assert_eq!(graph.node(0).id, "A");
    assert_eq!(graph.edges().len(), 2, "repeated link is kept once");
    let b = graph.lookup("B").unwrap();
    assert_eq!(graph.outgoing(b).count(), 1);
    assert_eq!(graph.incoming(b).count(), 1);
    assert_eq!(graph.dangling().len(), 1);
    assert_eq!(graph.dangling()[0].target, "GONE");
}

#[test]
fn duplicate_ids_keep_the_first_location() {
    let mut first = node("A", Kind::Policy, &[]);
    first.location = Location::file("a.json");
    let mut second = node("A", Kind::Policy, &[]);
    second.location = Location::file("b.json");
    let (graph, dups) = Graph::build(vec![second, first]);
    assert_eq!(graph.len(), 1);
    assert_eq!(graph.node(0).location.path, "a.json");
    assert_eq!(dups[0].second.path, "b.json");
}

#[test]
fn relation_names_round_trip() {
    for rel in Relation::SPEC_GRAPH {
        assert_eq!(Relation::from_key(rel.name()), rel);
    }
    assert_eq!(Relation::from_key("specs").name(), "specs");
    assert!(Relation::from_key("specs").is_forward());
    assert!(!Relation::Constrains.is_forward());
}

#[test]
fn spec_graph_names_read_back_as_their_relations() {
    let names: Vec<&str> = Relation::SPEC_GRAPH
        .iter()
        .filter_map(Relation::spec_graph_name)
        .collect();
    assert_eq!(names.len(), 7);
    for relation in Relation::SPEC_GRAPH {
        assert_eq!(Relation::from_key(relation.name()), relation);
    }
    assert_eq!(Relation::Child.spec_graph_name(), None);
    assert_eq!(Relation::from_key("child"), Relation::Child);
    assert_eq!(Relation::from_key("specs"), Relation::Link("specs".into()));
}
