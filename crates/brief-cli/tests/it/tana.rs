//! Tana workspace exports as a source: one test per mapping of the export (supertag.md §2),
//! traversal both ways, the five lenses (supertag.md §1.3), fields on and off, fan-out
//! sampling, query targets, malformed exports and refresh of the one export file.
//!
//! The fixture `tests/fixtures/tana/export.json` is a small workspace in the real export
//! shape: supertags defined by `tagDef`s with `[SYS_A13, SYS_T01, parents…]` metanode tuples
//! (`#bug` extends `#task` extends `#work-item`), fields by `attrDef`s with `[SYS_A13,
//! SYS_T02]`, tag applications, field tuples with text, option and reference values,
//! built-in fields (`SYS_A61`, `SYS_A90`, `SYS_A142`), inline-reference and date spans, a
//! trash with nested content, a viewDef and a doc of an unknown `_docType`.

use crate::common;

use std::fs;
use std::path::Path;

use common::{context, copy_fixture, ids, order, run};
use serde_json::Value;

const TANA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tana");

fn root_of(dir: &tempfile::TempDir) -> &str {
    dir.path().to_str().unwrap()
}

/// `brief show ID --format json`, parsed.
fn show(root: &Path, id: &str) -> Value {
    let (code, out, err) = run(&[
        "show",
        id,
        "--root",
        root.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "show {id}: {err}");
    serde_json::from_str(&out).unwrap()
}

fn markdown(root: &Path, target: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "context",
        target,
        "--root",
        root.to_str().unwrap(),
        "--budget",
        "100000",
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "context {target} {extra:?}: {err}");
    out
}

fn position(v: &Value, id: &str) -> usize {
    order(v)
        .iter()
        .position(|n| n == id)
        .unwrap_or_else(|| panic!("{id} not in {:?}", order(v)))
}

/// (relation, direction, from) of every reason of a node.
fn reasons(v: &Value, id: &str) -> Vec<(String, String, String)> {
    common::node(v, id)["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["relation"].as_str().unwrap_or("").to_string(),
                r["direction"].as_str().unwrap_or("").to_string(),
                r["from"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn has_reason(v: &Value, id: &str, relation: &str, direction: &str, from: &str) -> bool {
    reasons(v, id).contains(&(relation.into(), direction.into(), from.into()))
}

#[test]
fn names_resolve_inline_references_dates_and_entities() {
    let dir = copy_fixture(TANA);
    let brief = show(dir.path(), "ntBrief_01");
    assert_eq!(
        brief["title"],
        "Launch brief: [[Alice Meyer]] presents on 2026-03-15 & answers questions"
    );
    assert_eq!(
        show(dir.path(), "ntIdeas_02")["title"],
        "Ideas for [[Apollo launch]]: a teaser video"
    );
}

#[test]
fn supertags_are_kinds_and_inherit() {
    let dir = copy_fixture(TANA);
    let bug = show(dir.path(), "tkBug__03");
    assert_eq!(bug["kind"], "bug");
    let doc = bug["document"].as_str().unwrap();
    assert!(doc.contains("tags: #bug"), "{doc}");
    // #bug extends #task, which extends #work-item: both are inherited.
    assert!(doc.contains("extends: #task, #work-item"), "{doc}");
    assert_eq!(show(dir.path(), "tkDesign01")["kind"], "task");
    assert_eq!(
        show(dir.path(), "Hm0meRoot1")["kind"],
        "node",
        "untagged content"
    );
}

#[test]
fn fields_carry_text_option_date_and_reference_values() {
    let dir = copy_fixture(TANA);
    let design = show(dir.path(), "tkDesign01");
    let doc = design["document"].as_str().unwrap();
    for line in [
        "- **Status:** Done",
        "- **Owner:** [[Alice Meyer]]",
        "- **Due date:** Due 2026-02-20",
        "- **Priority:** High",
    ] {
        assert!(doc.contains(line), "{line} missing from\n{doc}");
    }
    let kickoff = show(dir.path(), "mtKick_01");
    let doc = kickoff["document"].as_str().unwrap();
    assert!(
        doc.contains("- **Attendees:** [[Alice Meyer]], [[Bob Stone]]"),
        "{doc}"
    );
    assert!(doc.contains("- **Date:** 2026-01-12"), "{doc}");
    // A reference value is a `field:<name>` edge, walked both ways.
    let v = context(dir.path(), "tkCopy_02", "1", &[]);
    assert!(has_reason(
        &v,
        "tkDesign01",
        "field:Blocked by",
        "forward",
        "tkCopy_02"
    ));
    assert!(has_reason(
        &v,
        "psBob__02",
        "field:Owner",
        "forward",
        "tkCopy_02"
    ));
    let v = context(dir.path(), "psCarol03", "1", &[]);
    assert!(has_reason(
        &v,
        "mtRetro_02",
        "field:Attendees",
        "inverse",
        "psCarol03"
    ));
}

#[test]
fn ownership_gives_child_and_parent_edges() {
    let dir = copy_fixture(TANA);
    let v = context(dir.path(), "pjApollo01", "1", &[]);
    for child in ["tkDesign01", "tkCopy_02", "tkBug__03", "ntBrief_01"] {
        assert!(
            has_reason(&v, child, "child", "forward", "pjApollo01"),
            "{child}"
        );
    }
    // Owned by the project but missing from its `children` list: still its child.
    assert!(has_reason(
        &v,
        "tkQA___04",
        "child",
        "forward",
        "pjApollo01"
    ));
    // The owner, walked inversely.
    assert!(has_reason(
        &v,
        "Hm0meRoot1",
        "child",
        "inverse",
        "pjApollo01"
    ));
}

#[test]
fn children_owned_elsewhere_are_references() {
    let dir = copy_fixture(TANA);
    let v = context(dir.path(), "pjApollo01", "1", &[]);
    // The kickoff is listed under the project but owned by the Meetings folder.
    assert_eq!(
        reasons(&v, "mtKick_01"),
        vec![("reference".into(), "forward".into(), "pjApollo01".into())]
    );
    let doc = v["document"].as_str().unwrap();
    assert!(
        doc.contains("- [[Apollo kickoff]]"),
        "the outline marks the reference:\n{doc}"
    );
}

#[test]
fn inline_references_are_edges_both_ways() {
    let dir = copy_fixture(TANA);
    let v = context(dir.path(), "ntBrief_01", "1", &[]);
    assert!(has_reason(
        &v,
        "psAlice01",
        "reference",
        "forward",
        "ntBrief_01"
    ));
    let v = context(dir.path(), "psAlice01", "1", &[]);
    assert!(has_reason(
        &v,
        "ntBrief_01",
        "reference",
        "inverse",
        "psAlice01"
    ));
    assert!(has_reason(
        &v,
        "tkDesign01",
        "field:Owner",
        "inverse",
        "psAlice01"
    ));
    assert!(
        !ids(&v).contains("acmeWS_STASH"),
        "containers are not nodes"
    );
}

#[test]
fn created_and_modified_times() {
    let dir = copy_fixture(TANA);
    let doc = show(dir.path(), "pjApollo01")["document"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        doc.contains("created: 2026-01-03 · modified: 2026-01-31"),
        "{doc}"
    );
    let text = markdown(
        dir.path(),
        "pjApollo01",
        &["--format", "text", "--depth", "0"],
    );
    assert!(
        text.contains("created: 2026-01-03\nmodified: 2026-01-31\n"),
        "{text}"
    );
}

#[test]
fn trash_and_system_docs_are_not_nodes() {
    let dir = copy_fixture(TANA);
    let root = root_of(&dir);
    for id in [
        "trPlan_01",       // in the trash
        "trPlan_02",       // under a trashed node
        "tgTask_02",       // tagDef
        "atStat_01",       // attrDef
        "opActv_01",       // an option of a field
        "mn_pjApollo01",   // metanode
        "fv_pjApollo01_0", // field tuple
        "vdTable01",       // viewDef
        "acmeWS_SCHEMA",   // container
        "dvDue__01",       // a field's text value
    ] {
        let (code, _, err) = run(&["show", id, "--root", root]);
        assert_eq!(code, 1, "{id} must not be a node: {err}");
    }
    // An unknown docType is tolerated and read as content.
    assert_eq!(
        show(dir.path(), "uxFutur_01")["title"],
        "Node of a future doc type"
    );
    let (_, out, _) = run(&["search", "legacy plan", "--root", root]);
    assert!(
        !out.contains("trPlan"),
        "trashed nodes are not searchable: {out}"
    );
}

#[test]
fn traversal_walks_both_ways_to_depth() {
    let dir = copy_fixture(TANA);
    let one = context(dir.path(), "tkDesign01", "1", &[]);
    let two = context(dir.path(), "tkDesign01", "2", &[]);
    // Down: its subtasks; up: the project; sideways: the owner and what it blocks.
    for id in [
        "skHero_01",
        "skForm_02",
        "pjApollo01",
        "psAlice01",
        "tkCopy_02",
    ] {
        assert!(ids(&one).contains(id), "{id} at depth 1");
    }
    assert!(!ids(&one).contains("Hm0meRoot1"));
    // Two hops: the project's parent and the other tasks, Alice's other links.
    for id in ["Hm0meRoot1", "tkBug__03", "mtKick_01", "ntBrief_01"] {
        assert!(ids(&two).contains(id), "{id} at depth 2");
    }
    assert_eq!(common::node(&two, "Hm0meRoot1")["distance"], 2);
}

#[test]
fn lens_general_follows_every_family() {
    let dir = copy_fixture(TANA);
    let general = context(dir.path(), "pjApollo01", "1", &["--lens", "general"]);
    let default = context(dir.path(), "pjApollo01", "1", &[]);
    assert_eq!(ids(&general), ids(&default));
    for id in ["tkDesign01", "Hm0meRoot1", "mtKick_01", "ntIdeas_02"] {
        assert!(ids(&general).contains(id), "{id}");
    }
}

#[test]
fn lens_writing_follows_children_and_references_and_boosts_notes() {
    let dir = copy_fixture(TANA);
    let v = context(dir.path(), "pjApollo01", "1", &["--lens", "writing"]);
    assert!(!ids(&v).contains("Hm0meRoot1"), "no parents");
    assert!(ids(&v).contains("mtKick_01") && ids(&v).contains("ntIdeas_02"));
    // Notes first among the direct neighbours.
    let general = context(dir.path(), "pjApollo01", "1", &[]);
    assert!(position(&v, "ntBrief_01") < position(&v, "tkBug__03"));
    assert!(position(&general, "ntBrief_01") > position(&general, "tkBug__03"));
    assert_eq!(
        order(&v)[1..3]
            .iter()
            .filter(|id| id.starts_with("nt"))
            .count(),
        2
    );
}

#[test]
fn lens_coding_follows_references_and_filtered_fields() {
    let dir = copy_fixture(TANA);
    let v = context(dir.path(), "tkDesign01", "1", &["--lens", "coding"]);
    // No children, no parent; Owner and Blocked by are not coding fields.
    assert_eq!(ids(&v).into_iter().collect::<Vec<_>>(), vec!["tkDesign01"]);
    let doc = v["document"].as_str().unwrap();
    assert!(
        doc.contains("**Status:** Done") && doc.contains("**Priority:** High"),
        "{doc}"
    );
    assert!(!doc.contains("Owner") && !doc.contains("Due date"), "{doc}");
}

#[test]
fn lens_planning_follows_children_and_planning_fields_and_boosts_tasks() {
    let dir = copy_fixture(TANA);
    let v = context(dir.path(), "pjApollo01", "1", &["--lens", "planning"]);
    assert!(
        !ids(&v).contains("mtKick_01"),
        "references are not followed"
    );
    assert!(!ids(&v).contains("Hm0meRoot1"), "parents are not followed");
    // Tasks (and the bug, a task by inheritance) before the note.
    for task in ["tkDesign01", "tkCopy_02", "tkBug__03", "tkQA___04"] {
        assert!(position(&v, task) < position(&v, "ntBrief_01"), "{task}");
    }
    // `blocked-by` is a planning field: followed. `Owner` is not.
    let v = context(dir.path(), "tkCopy_02", "1", &["--lens", "planning"]);
    assert!(ids(&v).contains("tkDesign01"));
    assert!(!ids(&v).contains("psBob__02"));
    let doc = v["document"].as_str().unwrap();
    assert!(
        doc.contains("**Blocked by:**") && !doc.contains("**Owner:**"),
        "{doc}"
    );
}

#[test]
fn lens_meeting_prep_follows_references_and_children_and_boosts_meetings() {
    let dir = copy_fixture(TANA);
    let v = context(dir.path(), "pjApollo01", "1", &["--lens", "meeting-prep"]);
    assert_eq!(
        order(&v)[1],
        "mtKick_01",
        "the meeting ranks first: {:?}",
        order(&v)
    );
    let v = context(dir.path(), "mtKick_01", "2", &["--lens", "meeting-prep"]);
    // Attendees are shown as a field, and the action item's inline reference reaches Bob.
    let doc = v["document"].as_str().unwrap();
    assert!(
        doc.contains("**Attendees:** [[Alice Meyer]], [[Bob Stone]]"),
        "{doc}"
    );
    assert!(has_reason(
        &v,
        "psBob__02",
        "reference",
        "forward",
        "acCopy_01"
    ));
    assert!(!ids(&v).contains("flMeet_01"), "no parents");
}

#[test]
fn include_fields_on_and_off() {
    let dir = copy_fixture(TANA);
    let on = markdown(dir.path(), "tkDesign01", &["--depth", "0"]);
    let explicit = markdown(
        dir.path(),
        "tkDesign01",
        &["--depth", "0", "--include-fields"],
    );
    let off = markdown(
        dir.path(),
        "tkDesign01",
        &["--depth", "0", "--no-include-fields"],
    );
    assert_eq!(on, explicit);
    assert!(on.contains("**Owner:** [[Alice Meyer]]"), "{on}");
    assert!(
        !off.contains("**Owner:**") && !off.contains("**Status:**"),
        "{off}"
    );
    assert!(
        off.contains("Hero section with the launch date"),
        "the outline stays:\n{off}"
    );
}

#[test]
fn large_child_lists_are_sampled_and_the_truncation_stated() {
    let dir = copy_fixture(TANA);
    fs::write(
        dir.path().join("brief.toml"),
        "tana = \"export.json\"\n[context]\nfanout = 2\n",
    )
    .unwrap();
    let v = context(dir.path(), "pjApollo01", "1", &["--lens", "planning"]);
    let truncated = v["truncated"].as_array().unwrap();
    assert!(
        truncated.iter().any(|t| t["id"] == "pjApollo01"
            && t["relation"] == "child"
            && t["total"] == 5
            && t["kept"] == 2),
        "{truncated:?}"
    );
    let children: Vec<String> = order(&v)
        .into_iter()
        .filter(|id| has_reason(&v, id, "child", "forward", "pjApollo01"))
        .collect();
    // Sampled by rank: the planning lens boosts tasks, so the note is left out.
    assert_eq!(children.len(), 2, "{children:?}");
    assert!(
        children.iter().all(|id| id.starts_with("tk")),
        "{children:?}"
    );
    let doc = v["document"].as_str().unwrap();
    assert!(
        doc.contains("pjApollo01 (project: Apollo launch) has 5 `child` links; the 2 best-ranked were followed"),
        "{doc}"
    );
}

#[test]
fn a_query_is_a_target() {
    let dir = copy_fixture(TANA);
    let root = root_of(&dir);
    let (code, out, err) = run(&[
        "context",
        "apollo kickoff",
        "--root",
        root,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["query"], "apollo kickoff");
    assert_eq!(v["target"], "mtKick_01");
    // A topic that reads like an id is still searched for in a Tana project.
    let (code, out, err) = run(&["context", "ACME", "--root", root, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["target"], "Hm0meRoot1");
    // Words that match nothing: exit 1.
    let (code, _, _) = run(&["context", "zebra quantum", "--root", root]);
    assert_eq!(code, 1);
}

#[test]
fn a_malformed_export_names_the_json_path() {
    let dir = copy_fixture(TANA);
    let root = root_of(&dir);
    let export = dir.path().join("export.json");
    let text = fs::read_to_string(&export).unwrap();
    let bad = text.replacen(
        "\"children\": [\"tgWork_01\"",
        "\"children\": [17, \"tgWork_01\"",
        1,
    );
    assert_ne!(bad, text);
    fs::write(&export, bad).unwrap();
    let (code, _, err) = run(&["context", "pjApollo01", "--root", root]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("export.json:2:")
            && err.contains("docs[0].children[0]: expected a string id, found a number"),
        "{err}"
    );
    let (code, out, _) = run(&["check", "--root", root]);
    assert_eq!(code, 1);
    assert!(out.contains("docs[0].children[0]"), "{out}");
    // Not JSON at all: line and column, and the doc being read.
    fs::write(&export, text.replacen("\"Trash\"", "\"Trash", 1)).unwrap();
    let (code, _, err) = run(&["context", "pjApollo01", "--root", root]);
    assert_eq!(code, 2);
    assert!(
        err.contains("export.json:4:") && err.contains("docs[2]: invalid JSON"),
        "{err}"
    );
    // Not an export.
    fs::write(&export, "{\"nodes\": []}").unwrap();
    let (code, _, err) = run(&["context", "pjApollo01", "--root", root]);
    assert_eq!(code, 2);
    assert!(err.contains("not a Tana export"), "{err}");
}

#[test]
fn a_missing_export_is_a_config_error() {
    let dir = copy_fixture(TANA);
    fs::remove_file(dir.path().join("export.json")).unwrap();
    let (code, _, err) = run(&["context", "pjApollo01", "--root", root_of(&dir)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("brief.toml") && err.contains("export.json"),
        "{err}"
    );
}

#[test]
fn refresh_only_when_the_export_changed_and_replace_it_whole() {
    let dir = copy_fixture(TANA);
    // A file indexed within moments of being written is hashed again at the next refresh
    // (its timestamps could still hide a second change); counts below start from a settled
    // copy.
    std::thread::sleep(std::time::Duration::from_millis(120));
    let root = root_of(&dir);
    let index = || {
        let (code, out, err) = run(&["index", "--root", root]);
        assert_eq!(code, 0, "{err}");
        out
    };
    let first = index();
    assert!(
        first.contains(
            "(1 parsed, 0 unchanged after hashing, 0 removed, created, 19 Tana nodes written)"
        ),
        "{first}"
    );
    let second = index();
    assert!(
        second.contains("(0 parsed, 0 unchanged after hashing, 0 removed)"),
        "{second}"
    );
    // Same bytes, new mtime: hashed, not parsed.
    let export = dir.path().join("export.json");
    let text = fs::read_to_string(&export).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::write(&export, &text).unwrap();
    let touched = index();
    assert!(
        touched.contains("(0 parsed, 1 unchanged after hashing, 0 removed)"),
        "{touched}"
    );
    // A new export: every node replaced in one go.
    let renamed = text
        .replace("\"Apollo launch\"", "\"Apollo relaunch\"")
        .replace(", \"uxFutur_01\"]", "]")
        .replace("{\"id\": \"uxFutur_01\"", "{\"id\": \"uxGone__01\"");
    fs::write(&export, renamed).unwrap();
    let changed = index();
    assert!(
        changed.contains("(1 parsed, 0 unchanged after hashing, 0 removed, 19 Tana nodes written)"),
        "{changed}"
    );
    assert_eq!(show(dir.path(), "pjApollo01")["title"], "Apollo relaunch");
    assert_eq!(
        show(dir.path(), "ntIdeas_02")["title"],
        "Ideas for [[Apollo relaunch]]: a teaser video"
    );
    let (code, _, _) = run(&["show", "uxFutur_01", "--root", root]);
    assert_eq!(code, 1, "the old export's nodes are gone");
    // Edges were rebuilt with the new nodes.
    let v = context(dir.path(), "pjApollo01", "1", &[]);
    assert!(has_reason(
        &v,
        "tkDesign01",
        "child",
        "forward",
        "pjApollo01"
    ));
}

#[test]
fn output_is_deterministic() {
    let a = copy_fixture(TANA);
    let b = copy_fixture(TANA);
    for format in ["markdown", "json", "text"] {
        let run_one = |dir: &tempfile::TempDir| {
            run(&[
                "context",
                "pjApollo01",
                "--root",
                root_of(dir),
                "--format",
                format,
            ])
            .1
        };
        assert_eq!(run_one(&a), run_one(&b), "{format}");
        assert_eq!(run_one(&a), run_one(&a), "{format}");
    }
}
