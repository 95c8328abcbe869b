//! `brief impact` and `brief explain` through the binary on the bundled examples: the detail
//! explain reports is the one `brief context` gives the node at that budget, impact lists
//! exactly the targets whose context holds the node, unknown ids are errors with exit 1.

use crate::common::{copy_fixture, run};
use serde_json::Value;

const PAYMENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");

#[track_caller]
fn brief(args: &[&str]) -> String {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, 0, "brief {args:?}: {stderr}");
    stdout
}

#[test]
fn explain_reports_the_detail_brief_context_gives_at_each_budget() {
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path().to_str().unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for budget in ["400", "600", "900", "1500", "8000"] {
        let context: Value = serde_json::from_str(&brief(&[
            "context",
            "CHECKOUT-01",
            "--budget",
            budget,
            "--format",
            "json",
            "--root",
            root,
        ]))
        .unwrap();
        for node in ["POL-CHK-01", "DEC-CHK-04", "CHECKOUT"] {
            let expected = context["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|n| n["id"] == node)
                .map_or("omitted".to_string(), |n| {
                    n["detail"].as_str().unwrap().to_string()
                });
            let explained: Value = serde_json::from_str(&brief(&[
                "explain",
                node,
                "--for",
                "CHECKOUT-01",
                "--budget",
                budget,
                "--format",
                "json",
                "--root",
                root,
            ]))
            .unwrap();
            assert_eq!(explained["included"], true, "{node} at {budget}");
            assert_eq!(explained["detail"], expected.as_str(), "{node} at {budget}");
            seen.insert(expected);
        }
    }
    // The budgets above move nodes through every level.
    assert!(
        seen.contains("omitted") && seen.contains("full"),
        "{seen:?}"
    );
}

#[test]
fn impact_lists_the_targets_grouped_by_kind_with_chains() {
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path().to_str().unwrap();
    let text = brief(&["impact", "POL-CHK-01", "--root", root]);
    assert!(
        text.starts_with("POL-CHK-01 is in the context of "),
        "{text}"
    );
    assert!(text.contains("\nbehavior ("), "{text}");
    assert!(
        text.contains("CHECKOUT-01 ← contains CHECKOUT ← constrains POL-CHK-01"),
        "{text}"
    );
    let json: Value = serde_json::from_str(&brief(&[
        "impact",
        "POL-CHK-01",
        "--format",
        "json",
        "--root",
        root,
    ]))
    .unwrap();
    assert_eq!(json["nodes"], serde_json::json!(["POL-CHK-01"]));
    // Every listed target's context holds the node; the first unlisted behavior's does not.
    for target in json["targets"].as_array().unwrap() {
        let id = target["id"].as_str().unwrap();
        let context = brief(&[
            "context", id, "--budget", "100000", "--format", "json", "--root", root,
        ]);
        assert!(context.contains("\"id\": \"POL-CHK-01\""), "{id}");
    }
    let listed = |id: &str| {
        json["targets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["id"] == id)
    };
    assert!(!listed("REFUNDS-01"));
    let context = brief(&[
        "context",
        "REFUNDS-01",
        "--budget",
        "100000",
        "--format",
        "json",
        "--root",
        root,
    ]);
    assert!(!context.contains("\"id\": \"POL-CHK-01\""));
}

#[test]
fn unknown_ids_are_refused_with_suggestions() {
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path().to_str().unwrap();
    let (code, _, stderr) = run(&["impact", "POL-CHK-1", "--root", root]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("POL-CHK-01"), "{stderr}");
    let (code, _, stderr) = run(&["explain", "POL-CHK-01", "--for", "NOPE-99", "--root", root]);
    assert_eq!(code, 1, "{stderr}");
}
