use proptest::prelude::*;

/// Small JSON documents with few distinct keys and strings, so paths often exist.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        (0i64..5).prop_map(serde_json::Value::from),
        "[a-c]".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::Array),
            proptest::collection::vec(("[a-c]", inner), 0..4)
                .prop_map(|members| { serde_json::Value::Object(members.into_iter().collect()) }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The raw readers never panic, whatever the text: frontmatter keys, anchors, JSON
    /// positions and the annotation scanner.
    #[test]
    fn raw_readers_never_panic(text in "\\PC{0,300}", word in "[A-Za-z@:/*-]{0,8}") {
        let _ = super::artifacts::front_keys(&text);
        let _ = super::front_offset(&text, &word, Some(&word));
        let _ = super::find_word(&text, text.len() / 2, &word);
        let _ = brief_sources::locate(&text, &[brief_sources::Seg::Key(word.clone()), brief_sources::Seg::Index(1)]);
        for file in ["a.rs", "a.py", "a.sql", "a.html", "a.lua", "a.vue"] {
            if let Some(syntax) = super::annotations::syntax_for(std::path::Path::new(file)) {
                let _ = super::annotations::scan_text("x", &text, syntax);
            }
        }
    }

    /// Comment-shaped lines with annotations never panic and always give 1-based positions.
    #[test]
    fn annotation_lines(lines in proptest::collection::vec("( {0,3})(//|#|/\\*|\\*/|<!--|-->|\"\"\"|--|;)?( ?)(@spec|@test|@norm|@decision|x)?( |:)?([A-Z]{1,3}-[0-9]{1,3})?([./][a-z]{1,5})?", 0..8)) {
        let text = lines.join("\n");
        for file in ["a.ts", "a.py", "a.md", "a.sql"] {
            let syntax = super::annotations::syntax_for(std::path::Path::new(file)).unwrap();
            for a in super::annotations::scan_text("x", &text, syntax) {
                prop_assert!(a.location.line >= 1 && a.location.col >= 1);
                prop_assert!(!a.base.is_empty());
            }
        }
    }

    /// The one-pass locators answer what the simple ones answer: words in frontmatter and
    /// lines and columns of offsets.
    #[test]
    fn one_pass_locators_agree(
        body in "[a-zA-Z0-9 :\\-\\n\\[\\],_/é]{0,200}",
        fenced in proptest::bool::ANY,
        words in proptest::collection::vec("[A-Za-z0-9_/-]{0,6}", 0..6),
        offsets in proptest::collection::vec(0usize..260, 0..8),
    ) {
        let text = if fenced { format!("---\n{body}\n---\nafter\n") } else { body };
        let mut index = super::FrontIndex::new(&text);
        for key in ["specs", "id", "links"] {
            for word in &words {
                prop_assert_eq!(
                    index.offset(key, Some(word)),
                    super::front_offset(&text, key, Some(word)),
                    "{:?} {} {}", text, key, word
                );
            }
            prop_assert_eq!(index.offset(key, None), super::front_offset(&text, key, None));
        }
        let asked: Vec<Option<usize>> = offsets.iter().map(|&o| Some(o)).collect();
        for (o, got) in offsets.iter().zip(super::line_cols(&text, &asked)) {
            prop_assert_eq!(got, Some(super::line_col(&text, *o)));
        }
    }

    /// The JSON locator answers what the walk answers, on any text and path.
    #[test]
    fn json_locator_agrees(
        text in "[\\[\\]{}\",:0-9a-c \\n]{0,120}",
        path in proptest::collection::vec(prop_oneof![
            "[a-c]".prop_map(brief_sources::Seg::Key),
            (0usize..4).prop_map(brief_sources::Seg::Index),
            "[a-c]".prop_map(brief_sources::Seg::Str),
            ("[a-c]", "[a-c]").prop_map(|(k, v)| brief_sources::Seg::ObjWith(k, v)),
        ], 0..4),
    ) {
        let locator = brief_sources::Locator::new(&text);
        prop_assert_eq!(locator.locate(&path), brief_sources::locate(&text, &path));
    }

    /// The same on well-formed JSON, where the locator uses its tree.
    #[test]
    fn json_locator_agrees_on_documents(
        value in json_value(),
        pretty in proptest::bool::ANY,
        paths in proptest::collection::vec(proptest::collection::vec(prop_oneof![
            "[a-c]".prop_map(brief_sources::Seg::Key),
            (0usize..4).prop_map(brief_sources::Seg::Index),
            "[a-c]".prop_map(brief_sources::Seg::Str),
            ("[a-c]", "[a-c]").prop_map(|(k, v)| brief_sources::Seg::ObjWith(k, v)),
        ], 0..4), 1..6),
    ) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        let locator = brief_sources::Locator::new(&text);
        for path in &paths {
            prop_assert_eq!(locator.locate(path), brief_sources::locate(&text, path));
        }
    }

    /// Any JSON shape given to the node schema gives findings, never a panic.
    #[test]
    fn schema_on_json_shapes(
        kind in prop_oneof![Just("behavior"), Just("decision"), Just("feature"), Just("artifact"), Just("policy"), Just("x")],
        value in prop_oneof![Just("null".to_string()), Just("[]".to_string()), Just("{}".to_string()), Just("[{}]".to_string()), Just("[1, \"a\"]".to_string()), "\"[a-zA-Z0-9 -]{0,12}\"", "-?[1-9][0-9]{0,4}"],
        key in prop_oneof![Just("title"), Just("links"), Just("verification"), Just("metadata"), Just("pins"), Just("artifact"), Just("constraints"), Just("id")],
    ) {
        let text = format!("{{\"id\": \"A-1\", \"type\": \"{kind}\", \"{key}\": {value}}}");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let found = super::schema::node("n.json", value.as_object().unwrap());
        for p in found {
            let _ = brief_sources::locate(&text, match &p.anchor { super::Anchor::Json(s) => s, _ => &[] });
        }
    }
}
