//! The budget through the binary: never over, exact against tiktoken-rs, the default and
//! `brief.toml` budgets, and the error that names the smallest budget that works.

use crate::common;

use common::run;
use serde_json::Value;

const PAYMENTS_EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");
const NOTES_EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/notes-app");

fn oracle(encoding: &str, text: &str) -> usize {
    let bpe = match encoding {
        "cl100k_base" => tiktoken_rs::cl100k_base().unwrap(),
        _ => tiktoken_rs::o200k_base().unwrap(),
    };
    bpe.encode_ordinary(text).len()
}

fn audit(args: &[&str]) -> Value {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, 0, "brief {args:?} failed: {stderr}");
    serde_json::from_str(&stdout).expect("JSON output")
}

#[test]
fn documents_never_exceed_the_budget_and_counts_are_exact() {
    for (root, target) in [
        (PAYMENTS_EXAMPLE, "CHECKOUT-01"),
        (NOTES_EXAMPLE, "TASK-002"),
    ] {
        for encoding in ["cl100k", "o200k"] {
            for budget in ["120", "400", "900", "1700", "2600", "3900", "20000"] {
                let json = audit(&[
                    "context",
                    target,
                    "--root",
                    root,
                    "--format",
                    "json",
                    "--depth",
                    "full",
                    "--encoding",
                    encoding,
                    "--budget",
                    budget,
                ]);
                let used = json["budget"]["used"].as_u64().unwrap() as usize;
                let limit: usize = budget.parse().unwrap();
                let document = json["document"].as_str().unwrap();
                let name = json["encoding"].as_str().unwrap();
                assert!(used <= limit, "{target} {encoding} {budget}: used {used}");
                assert_eq!(used, oracle(name, document), "{target} {encoding} {budget}");
                // The Markdown format prints exactly the audited document.
                let (_, markdown, _) = run(&[
                    "context",
                    target,
                    "--root",
                    root,
                    "--depth",
                    "full",
                    "--encoding",
                    encoding,
                    "--budget",
                    budget,
                ]);
                assert_eq!(markdown, document);
                // When material was left out, the budget is nearly full.
                let degraded = !json["omitted"].as_array().unwrap().is_empty()
                    || json["nodes"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|n| n["detail"] != "full");
                if degraded && limit >= 400 {
                    assert!(
                        used * 100 >= limit * 95,
                        "{target} {encoding} {budget}: only {used}"
                    );
                }
            }
        }
    }
}

#[test]
fn text_format_is_budgeted_too() {
    for budget in [200usize, 1000, 3000] {
        let (code, text, _) = run(&[
            "context",
            "CHECKOUT-01",
            "--root",
            PAYMENTS_EXAMPLE,
            "--format",
            "text",
            "--budget",
            &budget.to_string(),
        ]);
        assert_eq!(code, 0);
        assert!(oracle("cl100k_base", &text) <= budget);
        assert!(text.contains("=== BEHAVIOR: CHECKOUT-01 ==="));
    }
}

#[test]
fn a_budget_too_small_names_the_smallest_that_works() {
    let (code, _, stderr) = run(&[
        "context",
        "CHECKOUT-01",
        "--root",
        PAYMENTS_EXAMPLE,
        "--budget",
        "5",
    ]);
    assert_eq!(code, 2);
    let minimum: usize = stderr
        .split("smallest budget that works is ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no minimum in: {stderr}"));
    let (code, stdout, _) = run(&[
        "context",
        "CHECKOUT-01",
        "--root",
        PAYMENTS_EXAMPLE,
        "--budget",
        &minimum.to_string(),
    ]);
    assert_eq!(code, 0, "the named minimum works");
    assert!(oracle("cl100k_base", &stdout) <= minimum);
    assert!(stdout.contains("CHECKOUT-01"));
    let (code, _, _) = run(&[
        "context",
        "CHECKOUT-01",
        "--root",
        PAYMENTS_EXAMPLE,
        "--budget",
        &(minimum - 1).to_string(),
    ]);
    assert_eq!(code, 2, "one token less does not");
}

#[test]
fn default_budget_is_4000_unless_brief_toml_says_otherwise() {
    let json = audit(&[
        "context",
        "CHECKOUT-01",
        "--root",
        PAYMENTS_EXAMPLE,
        "--format",
        "json",
    ]);
    assert_eq!(json["budget"]["limit"], 4000);

    let dir = common::copy_fixture(PAYMENTS_EXAMPLE);
    std::fs::write(
        dir.path().join("brief.toml"),
        "[context]\nbudget = 1234\nencoding = \"o200k\"\n",
    )
    .unwrap();
    let root = dir.path().to_str().unwrap();
    let json = audit(&["context", "CHECKOUT-01", "--root", root, "--format", "json"]);
    assert_eq!(json["budget"]["limit"], 1234);
    assert_eq!(json["encoding"], "o200k_base");
    let json = audit(&[
        "context",
        "CHECKOUT-01",
        "--root",
        root,
        "--format",
        "json",
        "--budget",
        "777",
    ]);
    assert_eq!(
        json["budget"]["limit"], 777,
        "the command line wins over brief.toml"
    );
}

#[test]
fn a_budget_with_room_to_list_no_omitted_node_says_where_they_are() {
    // The tightest budgets leave no room for a single name: the document points at the
    // JSON instead of opening a list it cannot fill.
    let tight = (100..900).step_by(10).find_map(|budget| {
        let json = checkout_in_full(budget);
        let omitted = json["omitted"].as_array().unwrap();
        let none_listed = !omitted.is_empty() && omitted.iter().all(|e| e["listed"] == false);
        none_listed.then_some(json)
    });
    let json = tight.expect("some budget lists none of the omitted nodes");
    let count = json["omitted"].as_array().unwrap().len();
    let document = json["document"].as_str().unwrap();
    assert!(
        document.contains(&format!(
            "## Omitted\n\n{count} more did not fit the budget; `--format json` lists them"
        )),
        "{document}"
    );
    assert!(!document.contains("- … and"), "{document}");
    assert!(!document.contains("prints one):"), "{document}");
}

/// The payments checkout behavior's context at full depth, as JSON.
fn checkout_in_full(budget: usize) -> Value {
    audit(&[
        "context",
        "CHECKOUT-01",
        "--root",
        PAYMENTS_EXAMPLE,
        "--format",
        "json",
        "--budget",
        &budget.to_string(),
        "--depth",
        "full",
    ])
}

#[test]
fn omitted_nodes_are_listed_in_the_document() {
    let json = checkout_in_full(900);
    let omitted = json["omitted"].as_array().unwrap();
    assert!(!omitted.is_empty());
    let document = json["document"].as_str().unwrap();
    assert!(document.contains(&format!("## Omitted\n\n{} more did not fit", omitted.len())));
    // The best-ranked omitted nodes are named with kind and title, the rest counted.
    let listed: Vec<&Value> = omitted.iter().filter(|e| e["listed"] == true).collect();
    assert!(!listed.is_empty());
    assert!(
        omitted
            .iter()
            .skip(listed.len())
            .all(|e| e["listed"] == false),
        "the listed ones come first"
    );
    for entry in &listed {
        assert!(document.contains(&format!(
            "- {} ({}): {}\n",
            entry["id"].as_str().unwrap(),
            entry["kind"].as_str().unwrap(),
            entry["title"].as_str().unwrap()
        )));
    }
    if listed.len() < omitted.len() {
        assert!(document.contains(&format!(
            "- … and {} more (see `--format json`)",
            omitted.len() - listed.len()
        )));
    }
    // The target keeps more detail than anything below it.
    assert_eq!(json["nodes"][0]["id"], "CHECKOUT-01");
    assert_eq!(
        json["nodes"][0]["reasons"],
        serde_json::json!([{"relation": "target"}])
    );
}
