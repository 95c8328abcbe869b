use super::*;

#[test]
fn rule_ids_are_unique_kebab_case() {
    let mut seen = HashSet::new();
    for rule in RULES {
        assert!(seen.insert(rule.id), "duplicate rule {}", rule.id);
        assert!(rule.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
    }
}

#[test]
fn line_col_counts_characters() {
    let text = "ab\ncé:x\n";
    assert_eq!(line_col(text, 0), (1, 1));
    assert_eq!(line_col(text, 3), (2, 1));
    let x = text.find('x').unwrap();
    assert_eq!(line_col(text, x), (2, 4));
}

#[test]
fn words_respect_boundaries() {
    let text = "specs: [SPEC-10, SPEC-1]";
    assert_eq!(find_word(text, 0, "SPEC-1"), Some(17));
    assert_eq!(find_word(text, 0, "SPEC-10"), Some(8));
    assert_eq!(find_word(text, 0, "SPEC"), None);
}

#[test]
fn front_offsets_prefer_the_token_then_the_key() {
    let text = "---\nid: TASK-1\nspecs:\n  - SPEC-9\n---\nSPEC-9 in the body\n";
    let at = front_offset(text, "specs", Some("SPEC-9")).unwrap();
    assert_eq!(line_col(text, at), (4, 5));
    let at = front_offset(text, "specs", Some("NOPE")).unwrap();
    assert_eq!(line_col(text, at).0, 3);
    let at = front_offset(text, "scope", None).unwrap();
    assert_eq!(line_col(text, at).0, 2);
}

#[test]
fn unknown_rules_suggest_close_ones() {
    let err = unknown_rule("orphan").to_string();
    assert!(err.contains("orphan-spec"), "{err}");
}
