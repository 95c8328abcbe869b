use super::*;

fn load(json: &str) -> SourceOutput {
    load_text("export.json", json)
}

fn node<'n>(out: &'n SourceOutput, id: &str) -> &'n Node {
    out.nodes.iter().find(|n| n.id == id).unwrap_or_else(|| {
        panic!(
            "no node {id} in {:?}",
            out.nodes.iter().map(|n| &n.id).collect::<Vec<_>>()
        )
    })
}

#[test]
fn spans_resolve_to_names_and_dates() {
    let json = r#"{"docs":[
      {"id":"a","props":{"name":"see <span data-inlineref-node=\"b\"></span> on <span data-inlineref-date=\"{&quot;dateTimeString&quot;:&quot;2026-03-02&quot;}\"></span> &amp; <b>more</b>"}},
      {"id":"b","props":{"name":"Bob <i>B.</i>"}}]}"#;
    let out = load(json);
    assert!(out.problems.is_empty(), "{:?}", out.problems);
    let a = node(&out, "a");
    assert_eq!(a.title, "see [[Bob B.]] on 2026-03-02 & more");
    assert_eq!(a.links[0].relation, Relation::Reference);
    assert_eq!(a.links[0].target, "b");
}

/// Item 6 of issue 13: inline references are expanded with a bounded copy of the name
/// they point to, so a name that references itself (or a long name) thousands of times
/// grows linearly, not quadratically.
#[test]
fn inline_references_expand_within_a_bound() {
    let span = |id: &str| format!("<span data-inlineref-node=\"{id}\"></span>");
    let self_name = format!("Loop {}", span("self").repeat(300));
    let long_name = "long words ".repeat(1000);
    let many = format!("Refs {}", span("long").repeat(300));
    let json = serde_json::json!({"docs": [
        {"id": "self", "props": {"name": self_name}},
        {"id": "long", "props": {"name": long_name}},
        {"id": "many", "props": {"name": many, "description": many}},
    ]})
    .to_string();
    let out = load(&json);
    let looped = node(&out, "self");
    assert!(
        looped.title.starts_with("Loop [[Loop"),
        "{}",
        &looped.title[..40]
    );
    assert!(
        looped.title.len() <= 4 * self_name.len(),
        "{} bytes from a {}-byte name",
        looped.title.len(),
        self_name.len()
    );
    let refs = node(&out, "many");
    assert!(refs.title.len() <= 4 * many.len(), "{}", refs.title.len());
    assert!(
        refs.title.contains("[[long words long words"),
        "{}",
        &refs.title[..60]
    );
    let Content::Tana(fields) = &refs.content else {
        panic!("a Tana node");
    };
    let description = fields.description.as_deref().unwrap_or_default();
    assert!(description.len() <= 4 * many.len(), "{}", description.len());
}

#[test]
fn wrong_types_name_their_json_path() {
    let json = "{\"docs\":[{\"id\":\"a\",\"children\":[\"c\",3]},{\"id\":\"b\",\"props\":[]},7,{\"id\":\"c\",\"props\":{\"name\":\"C\"}}]}";
    let out = load(json);
    let messages: Vec<String> = out.problems.iter().map(|p| p.to_string()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("docs[0].children[1]: expected a string id, found a number")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("docs[1].props: expected an object")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("docs[2]: expected a doc object")),
        "{messages:?}"
    );
    assert_eq!(node(&out, "a").links.len(), 1);
}

#[test]
fn bad_json_names_line_and_doc() {
    let out = load("{\"docs\":[{\"id\":\"a\"},\n{\"id\": }]}");
    assert_eq!(out.problems.len(), 1);
    let text = out.problems[0].to_string();
    assert!(text.starts_with("export.json:2:"), "{text}");
    assert!(text.contains("docs[1]: invalid JSON"), "{text}");
    let out = load("[1]");
    assert!(out.problems[0].message.contains("expected a JSON object"));
    let out = load("{\"storeData\":{\"docs\":{}}}");
    assert!(out.problems[0]
        .message
        .starts_with("storeData.docs: expected an array"));
}

#[test]
fn iso_times() {
    assert_eq!(iso_time(0), "1970-01-01T00:00:00Z");
    assert_eq!(iso_time(1_772_409_600_000), "2026-03-02T00:00:00Z");
    assert_eq!(iso_time(-1), "1969-12-31T23:59:59Z");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
    /// Mutated exports (bytes flipped, cut, spliced) never panic the loader.
    #[test]
    fn mutated_exports_never_panic(cuts in proptest::collection::vec((0usize..2000, 0u8..128), 0..6), cut_end in proptest::option::of(0usize..2000)) {
        let base = include_str!("../../../brief-cli/tests/fixtures/tana/export.json");
        let mut bytes = base.as_bytes().to_vec();
        for (at, byte) in cuts {
            let at = at * bytes.len() / 2000;
            if at < bytes.len() {
                bytes[at] = byte;
            }
        }
        if let Some(end) = cut_end {
            bytes.truncate(end * bytes.len() / 2000);
        }
        let text = String::from_utf8_lossy(&bytes);
        let _ = load_text("export.json", &text);
    }

    /// Arbitrary JSON-ish text never panics the loader.
    #[test]
    fn arbitrary_text_never_panics(text in "[\\[\\]{}\",:0-9a-z_<>&; \\\\]{0,200}") {
        let _ = load_text("export.json", &text);
        let wrapped = format!("{{\"docs\":[{text}]}}");
        let _ = load_text("export.json", &wrapped);
    }
}
