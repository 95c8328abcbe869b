//! What a reader of a context must not miss, through the binary: hard constraints kept under
//! pressure, kinds weighed before ids, and audits that read well in every format (omitted
//! and truncated entries with kind and title in rank order, the why on meta lines and read
//! forwards, the banner of a superseded target, every JSON field documented).

use crate::common;

use std::collections::BTreeSet;
use std::fs;

use common::{copy_fixture, run};
use serde_json::Value;

const PAYMENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");
const NOTES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/notes-app");
const TANA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tana");
const JSON_DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/json.md");

#[track_caller]
fn brief(args: &[&str]) -> String {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, 0, "brief {args:?}: {stderr}");
    stdout
}

#[track_caller]
fn audit(args: &[&str]) -> Value {
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    serde_json::from_str(&brief(&args)).expect("JSON output")
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_string())
        .collect()
}

fn detail_of(v: &Value, id: &str) -> Option<String> {
    v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == id)
        .map(|n| n["detail"].as_str().unwrap().to_string())
}

#[test]
fn task_002_at_2500_keeps_the_logging_norm() {
    let dir = copy_fixture(NOTES);
    let root = dir.path().to_str().unwrap();
    let args = ["context", "TASK-002", "--root", root, "--budget", "2500"];
    let v = audit(&args);
    assert!(
        ids(&v["nodes"]).contains(&"NORM-SEC-001".to_string()),
        "NORM-SEC-001 omitted: {:?}",
        ids(&v["omitted"])
    );
    // Both norms (hard constraints) are shown whole before any spec is.
    for norm in ["NORM-SEC-001", "NORM-DATA-001"] {
        assert_eq!(detail_of(&v, norm).as_deref(), Some("full"), "{norm}");
    }
    let markdown = brief(&args);
    assert!(markdown.contains("### NORM-SEC-001: Keep note content and credentials out of logs"));
    assert!(markdown.contains("Never log session ids, share tokens"));
}

/// A norm that `constrains` a spec the task links applies to the task: the task changes that
/// spec. `NORM-TEST-001` names `SPEC-SYNC-002` only from its own side (the spec does not list
/// it), so it is found by following the link inversely, and it is a hard constraint.
#[test]
fn a_norm_constraining_a_linked_spec_is_in_the_task_context() {
    let dir = copy_fixture(NOTES);
    let root = dir.path().to_str().unwrap();
    let v = audit(&["context", "TASK-002", "--root", root, "--budget", "100000"]);
    let node = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "NORM-TEST-001")
        .unwrap_or_else(|| panic!("NORM-TEST-001 missing: {:?}", ids(&v["nodes"])));
    assert_eq!(node["detail"], "full");
    let reason = &node["reasons"][0];
    assert_eq!(reason["relation"], "constrains");
    assert_eq!(reason["direction"], "linked");
    assert_eq!(reason["from"], "TASK-002");
    assert_eq!(reason["via"][0], "SPEC-SYNC-002");
    assert_eq!(node["rank"]["class"], "hard");
    let markdown = brief(&["context", "TASK-002", "--root", root, "--budget", "100000"]);
    assert!(
        markdown.contains("why: constrains SPEC-SYNC-002, which TASK-002 links"),
        "{markdown}"
    );
    // A task that links no spec it constrains does not get it.
    let other = audit(&["context", "TASK-003", "--root", root, "--budget", "100000"]);
    let links_sync_002 = other["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n["id"] == "SPEC-SYNC-002");
    assert_eq!(
        ids(&other["nodes"]).contains(&"NORM-TEST-001".to_string()),
        links_sync_002
    );
    // The spec's own context lists it too (rule 3, the target's constrainers).
    let spec = audit(&[
        "context",
        "SPEC-SYNC-002",
        "--root",
        root,
        "--budget",
        "100000",
    ]);
    assert!(ids(&spec["nodes"]).contains(&"NORM-TEST-001".to_string()));
}

#[test]
fn the_primary_psp_decision_ranks_above_the_token_export() {
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path().to_str().unwrap();
    let all = audit(&[
        "context",
        "CHECKOUT-01",
        "--root",
        root,
        "--budget",
        "100000",
    ]);
    let order = ids(&all["nodes"]);
    let at = |id: &str| order.iter().position(|n| n == id).unwrap();
    assert!(at("DEC-CHK-04") < at("ART-CHK-01"), "{order:?}");
    // Same class (two hops out), a decision weighs more than an artifact.
    let weight = |id: &str| {
        all["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == id)
            .unwrap()["rank"]["weight"]
            .as_u64()
    };
    assert!(weight("DEC-CHK-04") > weight("ART-CHK-01"));
    // Under pressure the decision keeps at least the export's detail, at every budget.
    let level = |d: Option<String>| match d.as_deref() {
        None => 0,
        Some("meta") => 1,
        Some("summary") => 2,
        _ => 3,
    };
    for budget in ["2500", "3500", "4000", "4500"] {
        let v = audit(&["context", "CHECKOUT-01", "--root", root, "--budget", budget]);
        assert!(
            level(detail_of(&v, "DEC-CHK-04")) >= level(detail_of(&v, "ART-CHK-01")),
            "at {budget}: DEC-CHK-04 {:?}, ART-CHK-01 {:?}",
            detail_of(&v, "DEC-CHK-04"),
            detail_of(&v, "ART-CHK-01")
        );
    }
}

/// The `- ID (kind): title` lines under a document's Omitted heading.
fn omitted_lines(document: &str, heading: &str) -> Vec<String> {
    let Some((_, rest)) = document.split_once(heading) else {
        return Vec::new();
    };
    rest.lines()
        .filter(|l| l.starts_with("- ") && !l.starts_with("- …"))
        .map(str::to_string)
        .collect()
}

#[test]
fn omitted_entries_carry_kind_and_title_in_rank_order_in_every_format() {
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path().to_str().unwrap();
    let base = [
        "context",
        "CHECKOUT-01",
        "--root",
        root,
        "--budget",
        "1500",
        "--depth",
        "full",
    ];
    let v = audit(&base);
    let omitted = v["omitted"].as_array().unwrap();
    assert!(omitted.len() > 3, "{omitted:?}");
    // Rank order: classes never go back up the list.
    let class = |c: &str| {
        ["target", "hard", "direct", "guidance", "distant", "related"]
            .iter()
            .position(|k| *k == c)
            .unwrap()
    };
    let classes: Vec<usize> = omitted
        .iter()
        .map(|o| class(o["class"].as_str().unwrap()))
        .collect();
    assert!(classes.windows(2).all(|w| w[0] <= w[1]), "{classes:?}");
    let expected: Vec<String> = omitted
        .iter()
        .filter(|o| o["listed"] == true)
        .map(|o| {
            format!(
                "- {} ({}): {}",
                o["id"].as_str().unwrap(),
                o["kind"].as_str().unwrap(),
                o["title"].as_str().unwrap()
            )
        })
        .collect();
    assert!(!expected.is_empty());
    let markdown = brief(&base);
    assert_eq!(v["document"].as_str().unwrap(), markdown);
    assert_eq!(omitted_lines(&markdown, "## Omitted"), expected);
    let mut text_args = base.to_vec();
    text_args.extend(["--format", "text"]);
    let text = brief(&text_args);
    let text_lines = omitted_lines(&text, "=== OMITTED ===");
    assert!(!text_lines.is_empty(), "{text}");
    // The text layout fits on its own, so its list may differ in length, not in shape.
    for line in &text_lines {
        let id = line[2..].split(' ').next().unwrap();
        let entry = omitted.iter().find(|o| o["id"] == id);
        if let Some(o) = entry {
            assert_eq!(
                line,
                &format!(
                    "- {id} ({}): {}",
                    o["kind"].as_str().unwrap(),
                    o["title"].as_str().unwrap()
                )
            );
        }
        assert!(line.contains(" (") && line.contains("): "), "{line}");
    }
}

#[test]
fn meta_lines_keep_their_why() {
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path().to_str().unwrap();
    let markdown = brief(&["context", "CHECKOUT-01", "--root", root, "--detail", "meta"]);
    // Every meta line but the target's own (which is in the context for being the target).
    let metas: Vec<&str> = markdown
        .lines()
        .filter(|l| l.starts_with("- **") && !l.starts_with("- **CHECKOUT-01**"))
        .collect();
    assert!(metas.len() > 10, "{markdown}");
    for line in metas {
        let (_, facts) = line.split_once(" — ").unwrap_or_else(|| panic!("{line}"));
        assert!(
            facts.starts_with("why: ") || facts.contains("; why: "),
            "{line}"
        );
    }
    assert!(markdown.contains(
        "- **POL-CHK-01** (policy): Idempotency key on every state-changing checkout request — severity: hard; why: constrains CHECKOUT, which contains CHECKOUT-01; links: constrains CHECKOUT\n"
    ), "{markdown}");
    let text = brief(&[
        "context",
        "CHECKOUT-01",
        "--root",
        root,
        "--detail",
        "meta",
        "--format",
        "text",
    ]);
    assert!(
        text.contains("=== POLICY: POL-CHK-01 ===\ntitle: Idempotency key on every state-changing checkout request\nseverity: hard\nwhy: constrains CHECKOUT, which contains CHECKOUT-01\n"),
        "{text}"
    );
}

#[test]
fn the_why_reads_from_the_node_to_the_target() {
    let dir = copy_fixture(NOTES);
    let root = dir.path().to_str().unwrap();
    let notes = brief(&["context", "TASK-002", "--root", root, "--budget", "100000"]);
    for why in [
        "why: linked from TASK-002 as a spec",
        "why: linked from SPEC-SYNC-001",
        "why: linked from SPEC-SYNC-001; linked from SPEC-SYNC-002 as a norm",
        "why: linked from SPEC-STORE-001 as a decision",
    ] {
        assert!(notes.contains(why), "{why}");
    }
    assert!(!notes.contains("specs from"), "{notes}");
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path().to_str().unwrap();
    let payments = brief(&[
        "context",
        "CHECKOUT-01",
        "--root",
        root,
        "--budget",
        "100000",
    ]);
    for why in [
        "why: constrains CHECKOUT, which contains CHECKOUT-01",
        "why: constrains CHECKOUT-01",
        "why: dependency of CHECKOUT-01",
        "why: implemented by API-CHK-01; implemented by CHECKOUT-01; implemented by CHECKOUT-02",
        "why: verifies CHECKOUT-01; verifies POL-CHK-02",
        "why: DT-CHK-01 is derived from it",
        "why: decision of layer PLATFORM, which CHECKOUT-01 builds on through CHECKOUT",
        "why: constrains layer PLATFORM, which CHECKOUT-01 builds on through CHECKOUT",
        "why: contains CHECKOUT-01",
    ] {
        assert!(payments.contains(why), "{why}\n{payments}");
    }
    assert!(!payments.contains("depends_on from"), "{payments}");
}

#[test]
fn a_superseded_target_opens_with_its_successor() {
    let dir = copy_fixture(NOTES);
    let root = dir.path().to_str().unwrap();
    let markdown = brief(&["context", "DEC-SYNC-002", "--root", root]);
    let opening: Vec<&str> = markdown.lines().take(3).collect();
    assert_eq!(
        opening[2],
        "> **Superseded:** DEC-SYNC-002 is superseded by **DEC-SYNC-003** (Sync over one WebSocket per session with state-vector handshakes). `brief context DEC-SYNC-003` gives the current context."
    );
    let v = audit(&["context", "DEC-SYNC-002", "--root", root]);
    assert_eq!(v["superseded_by"], serde_json::json!(["DEC-SYNC-003"]));
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path().to_str().unwrap();
    let text = brief(&["context", "DEC-PLAT-02", "--root", root, "--format", "text"]);
    assert!(
        text.lines().nth(2).is_some_and(|l| l
            .starts_with("SUPERSEDED: DEC-PLAT-02 is superseded by DEC-PLAT-03 (PostgreSQL 16")),
        "{text}"
    );
    // A current node has no banner and no field.
    let v = audit(&["context", "DEC-PLAT-03", "--root", root]);
    assert!(v.get("superseded_by").is_none());
    assert!(!v["document"].as_str().unwrap().contains("**Superseded:**"));
    // The smallest document keeps the banner: it is part of the target's own line.
    let (code, _, stderr) = run(&["context", "DEC-PLAT-02", "--root", root, "--budget", "1"]);
    assert_eq!(code, 2);
    let minimum: String = stderr
        .rsplit("works is ")
        .next()
        .unwrap()
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let smallest = brief(&[
        "context",
        "DEC-PLAT-02",
        "--root",
        root,
        "--budget",
        &minimum,
    ]);
    assert!(
        smallest.contains("> **Superseded:** DEC-PLAT-02"),
        "{smallest}"
    );
}

#[test]
fn truncated_entries_carry_kind_and_title() {
    let dir = copy_fixture(TANA);
    fs::write(
        dir.path().join("brief.toml"),
        "tana = \"export.json\"\n[context]\nfanout = 2\n",
    )
    .unwrap();
    let root = dir.path().to_str().unwrap();
    let v = audit(&[
        "context",
        "pjApollo01",
        "--root",
        root,
        "--depth",
        "1",
        "--lens",
        "planning",
    ]);
    let truncated = v["truncated"].as_array().unwrap();
    let entry = truncated.iter().find(|t| t["id"] == "pjApollo01").unwrap();
    assert_eq!(entry["kind"], "project");
    let title = entry["title"].as_str().unwrap();
    assert!(!title.is_empty());
    let document = v["document"].as_str().unwrap();
    assert!(
        document.contains(&format!(
            "- pjApollo01 (project: {title}) has 5 `child` links; the 2 best-ranked were followed"
        )),
        "{document}"
    );
}

/// Every key of a JSON value, as `parent.key` paths without array indices.
fn keys(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                out.insert(path.clone());
                keys(inner, &path, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                keys(item, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_json_field_is_documented() {
    let doc = fs::read_to_string(JSON_DOC).expect("docs/json.md exists");
    let mut seen = BTreeSet::new();
    let payments = copy_fixture(PAYMENTS);
    let notes = copy_fixture(NOTES);
    let tana = copy_fixture(TANA);
    fs::write(
        tana.path().join("brief.toml"),
        "tana = \"export.json\"\n[context]\nfanout = 2\n",
    )
    .unwrap();
    let (p, n, t) = (
        payments.path().to_str().unwrap(),
        notes.path().to_str().unwrap(),
        tana.path().to_str().unwrap(),
    );
    for args in [
        vec!["context", "CHECKOUT-01", "--root", p, "--budget", "2500"],
        vec![
            "context",
            "CHECKOUT-01",
            "--root",
            p,
            "--budget",
            "900",
            "--depth",
            "full",
        ],
        vec!["context", "DEC-PLAT-02", "--root", p],
        vec!["context", "TASK-002", "--root", n, "--budget", "2500"],
        vec!["context", "idempotency key", "--root", p],
        vec!["context", "pjApollo01", "--root", t, "--lens", "planning"],
    ] {
        keys(&audit(&args), "", &mut seen);
    }
    // The fields that only show in some contexts must have been seen.
    for must in [
        "nodes[].cut",
        "nodes[].rank.boosted",
        "superseded_by",
        "truncated[].title",
        "lens",
        "omitted[].listed",
        "seeds[].score",
        "confidence",
    ] {
        assert!(seen.contains(must), "{must} not produced: {seen:?}");
    }
    let missing: Vec<&String> = seen
        .iter()
        .filter(|path| !doc.contains(&format!("`{path}`")))
        .collect();
    assert!(missing.is_empty(), "undocumented JSON fields: {missing:?}");
}
