//! Small constructors for tests, in this crate and the ones above it.

use crate::{Content, Kind, Link, Location, Node, Origin, Relation, SpecFields};

/// A Spec Graph node with only an id, a kind and links (`(relation key, target id)`).
pub fn node(id: &str, kind: Kind, links: &[(&str, &str)]) -> Node {
    Node {
        id: id.to_string(),
        kind,
        title: format!("{id} title"),
        status: None,
        origin: Origin::SpecGraph,
        content: Content::Spec(SpecFields::default()),
        links: links
            .iter()
            .map(|(rel, target)| Link {
                relation: Relation::from_key(rel),
                target: target.to_string(),
            })
            .collect(),
        date: None,
        location: Location::file(format!("{id}.json")),
    }
}
