use super::*;

fn rules(text: &str) -> Vec<(&'static str, String)> {
    let value: Value = serde_json::from_str(text).unwrap();
    node("n.json", value.as_object().unwrap())
        .into_iter()
        .map(|p| (p.rule, p.message))
        .collect()
}

#[test]
fn a_valid_decision_passes() {
    let found = rules(
        r#"{"id":"DEC-1","type":"decision","category":"stack","title":"Use Postgres",
        "statement":"We use Postgres.","verification":["psql --version",{"kind":"manual","steps":["Look"]}],
        "links":{"constrains":["AUTH-01"]},"metadata":{"rationale":"Team knows it well."}}"#,
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn decision_conditionals() {
    let found = rules(
        r#"{"id":"DEC-1","type":"decision","title":"Use Postgres","statement":"x",
        "verification":["ok"],"severity":"hard","metadata":{"rationale":"short"}}"#,
    );
    let messages: Vec<&str> = found.iter().map(|(_, m)| m.as_str()).collect();
    assert!(
        messages.iter().any(|m| m.contains("needs a `category`")),
        "{messages:?}"
    );
    assert!(messages
        .iter()
        .any(|m| m.contains("`severity` is only allowed on policies")));
    assert!(messages
        .iter()
        .any(|m| m.contains("rationale has 5 characters")));
}

#[test]
fn behavior_shapes_and_ids() {
    let found = rules(
        r#"{"id":"auth-1","type":"behavior","title":"Go","expectation":"short",
        "verification":["npm test"],"status":"draft","links":{"uses":["X"],"depends_on":["bad id"]}}"#,
    );
    let got: Vec<&str> = found.iter().map(|(r, _)| *r).collect();
    assert_eq!(
        got.iter().filter(|r| **r == "id-pattern").count(),
        2,
        "{found:?}"
    );
    let messages: Vec<&str> = found.iter().map(|(_, m)| m.as_str()).collect();
    assert!(messages
        .iter()
        .any(|m| m.contains("unknown field `status`")));
    assert!(messages
        .iter()
        .any(|m| m.contains("`title` has 2 characters")));
    assert!(messages.iter().any(|m| m.contains("expectation")));
    assert!(messages.iter().any(|m| m.contains("one command string")));
    assert!(messages
        .iter()
        .any(|m| m.contains("unknown relation `uses`")));
}

#[test]
fn verification_entries_need_their_fields() {
    let found = rules(
        r#"{"id":"POL-1","type":"policy","severity":"soft","title":"Fast pages","statement":"x",
        "verification":[{"kind":"http","url":"http://x"},{"kind":"shell"},{"kind":"command","command":"x","timeoutSeconds":0}]}"#,
    );
    let entries: Vec<&str> = found
        .iter()
        .filter(|(r, _)| *r == "verification-entry")
        .map(|(_, m)| m.as_str())
        .collect();
    assert!(
        entries.iter().any(|m| m.contains("needs `method`")),
        "{entries:?}"
    );
    assert!(entries.iter().any(|m| m.contains("needs `expectStatus`")));
    assert!(entries.iter().any(|m| m.contains("\"shell\"")));
    assert!(entries.iter().any(|m| m.contains("timeoutSeconds")));
}

#[test]
fn feature_ids_are_at_most_20_characters() {
    let found = rules(
        r#"{"id":"A-VERY-LONG-FEATURE-NAME","type":"feature","title":"Long","description":"d"}"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "id-pattern");
}

#[test]
fn artifact_nodes_need_artifact_info() {
    let found = rules(
        r#"{"id":"ART-1","type":"artifact","title":"Export","statement":"x","verification":["ok"]}"#,
    );
    assert!(found[0].1.contains("`artifact` object"), "{found:?}");
}

#[test]
fn versions_and_paths() {
    assert!(is_semver("1.0.0") && is_semver("1.2.3-rc.1"));
    assert!(!is_semver("1.0") && !is_semver("v1.0.0") && !is_semver("1.0.0-"));
    assert!(is_node_path("nodes/features/A.json"));
    assert!(!is_node_path("/abs.json") && !is_node_path("../x.json") && !is_node_path("a b.json"));
}
