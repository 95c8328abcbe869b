//! `brief diff` and `brief impact --since` on a temporary git repository whose second commit
//! edits a policy, adds a decision that supersedes a layer decision, removes a decision and
//! renames a node file — and leaves the working tree and `.git/index` byte for byte as they
//! were. (The test drives git to make the commits; brief itself reads them with gix.)

use std::fs;
use std::path::Path;

use crate::common::{copy_fixture, git, run};
use serde_json::Value;

const PAYMENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");

/// Every file beneath `dir` but git's object store and brief's cache, with its bytes: the
/// working tree, the index, HEAD and refs.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            // brief's own cache may keep what any run learned (the Kiro walk); what must not
            // change is the project's files and git's.
            if rel == ".git/objects" || rel == ".git/logs" || rel == ".brief/cache" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push((rel, fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

fn edit_json(path: &Path, change: impl FnOnce(&mut Value)) {
    let mut value: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    change(&mut value);
    fs::write(path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
}

#[track_caller]
fn brief(args: &[&str]) -> String {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, 0, "brief {args:?}: {stderr}");
    stdout
}

/// The repository: commit A is the payments example, commit B changes it.
fn repository() -> (tempfile::TempDir, String, String) {
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "A"]);
    let a = git(root, &["rev-parse", "HEAD"]);
    let sg = root.join("specgraph");
    // Edit: a policy's title.
    edit_json(&sg.join("nodes/policies/POL-CHK-01.json"), |v| {
        v["title"] = "Idempotency key on every state-changing request".into();
    });
    // Supersedes: a new platform decision replaces DEC-PLAT-01.
    let mut new = fs::read_to_string(sg.join("nodes/decisions/DEC-PLAT-01.json")).unwrap();
    new = new.replacen("\"id\": \"DEC-PLAT-01\"", "\"id\": \"DEC-PLAT-09\"", 1);
    fs::write(sg.join("nodes/decisions/DEC-PLAT-09.json"), new).unwrap();
    edit_json(&sg.join("nodes/decisions/DEC-PLAT-09.json"), |v| {
        if v.get("links").is_none() {
            v["links"] = serde_json::json!({});
        }
        v["links"]["supersedes"] = serde_json::json!(["DEC-PLAT-01"]);
    });
    edit_json(&sg.join("nodes/layers/PLATFORM.json"), |v| {
        v["links"]["contains"]
            .as_array_mut()
            .unwrap()
            .push("DEC-PLAT-09".into());
    });
    // Remove: DEC-CHK-04 and every link to it; rename: DEC-CHK-01's file moves.
    fs::remove_file(sg.join("nodes/decisions/DEC-CHK-04.json")).unwrap();
    fs::create_dir_all(sg.join("nodes/decisions/moved")).unwrap();
    fs::rename(
        sg.join("nodes/decisions/DEC-CHK-01.json"),
        sg.join("nodes/decisions/moved/DEC-CHK-01.json"),
    )
    .unwrap();
    edit_json(&sg.join("graph.json"), |v| {
        let nodes = v["nodes"].as_array_mut().unwrap();
        nodes.retain(|n| n["id"] != "DEC-CHK-04");
        for n in nodes.iter_mut() {
            if n["id"] == "DEC-CHK-01" {
                n["path"] = "nodes/decisions/moved/DEC-CHK-01.json".into();
            }
        }
        nodes.push(serde_json::json!({
            "id": "DEC-PLAT-09",
            "path": "nodes/decisions/DEC-PLAT-09.json",
            "expectedType": "decision"
        }));
    });
    for entry in fs::read_dir(sg.join("nodes")).unwrap() {
        let folder = entry.unwrap().path();
        for file in fs::read_dir(&folder).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|e| e == "json") {
                let text = fs::read_to_string(&file).unwrap();
                if text.contains("\"DEC-CHK-04\"") {
                    edit_json(&file, |v| strip(v, "DEC-CHK-04"));
                }
            }
        }
    }
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "B"]);
    let b = git(root, &["rev-parse", "HEAD"]);
    (dir, a, b)
}

/// Removes `id` from every array of ids in `value`.
fn strip(value: &mut Value, id: &str) {
    match value {
        Value::Array(items) => {
            items.retain(|i| i != id);
            items.iter_mut().for_each(|i| strip(i, id));
        }
        Value::Object(map) => map.values_mut().for_each(|v| strip(v, id)),
        _ => {}
    }
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn diff_between_two_commits_and_against_the_working_tree() {
    let (dir, a, b) = repository();
    let root = dir.path().to_str().unwrap();
    // An uncommitted edit in the working tree, seen only without --to.
    edit_json(
        &dir.path().join("specgraph/nodes/policies/POL-CHK-02.json"),
        |v| {
            v["title"] = "Authorization latency budget, p99".into();
        },
    );
    let before = snapshot(dir.path());

    let d: Value = serde_json::from_str(&brief(&[
        "diff",
        "CHECKOUT-01",
        "--from",
        &a,
        "--to",
        &b,
        "--format",
        "json",
        "--root",
        root,
    ]))
    .unwrap();
    assert!(
        ids(&d["entered"]).contains(&"DEC-PLAT-09".to_string()),
        "{d}"
    );
    assert!(ids(&d["left"]).contains(&"DEC-PLAT-01".to_string()), "{d}");
    assert!(ids(&d["left"]).contains(&"DEC-CHK-04".to_string()), "{d}");
    let changed = ids(&d["changed"]);
    assert!(changed.contains(&"POL-CHK-01".to_string()), "{d}");
    // The renamed file says the same: not a change.
    assert!(!changed.contains(&"DEC-CHK-01".to_string()), "{d}");
    assert!(!changed.contains(&"POL-CHK-02".to_string()), "{d}");
    let pol =
        &d["changed"].as_array().unwrap()[changed.iter().position(|c| c == "POL-CHK-01").unwrap()];
    assert_eq!(
        pol["fields"],
        serde_json::json!([{"field": "title",
            "from": "Idempotency key on every state-changing checkout request",
            "to": "Idempotency key on every state-changing request"}]),
        "{pol}"
    );
    assert!(d["tokens_from"].as_u64().unwrap() > 0 && d["tokens_to"].as_u64().unwrap() > 0);

    // Default --to: the working tree, with its uncommitted edit.
    let text = brief(&["diff", "CHECKOUT-01", "--from", &a, "--root", root]);
    assert!(
        text.starts_with(&format!(
            "Context of CHECKOUT-01: {a} → working tree, tokens "
        )),
        "{text}"
    );
    assert!(text.contains("~ POL-CHK-02 (policy)"), "{text}");
    assert!(text.contains("+ DEC-PLAT-09 (decision)"), "{text}");
    // Field by field, readable: no JSON lines, no escaped text.
    assert!(
        text.contains("      title: ") && text.contains(" → Authorization latency budget, p99\n"),
        "{text}"
    );
    assert!(
        !text.contains("\\\"") && !text.contains("\"title\":"),
        "{text}"
    );

    assert!(
        snapshot(dir.path()) == before,
        "the working tree or .git/index changed"
    );
}

#[test]
fn impact_since_lists_every_changed_context() {
    let (dir, a, b) = repository();
    let root = dir.path().to_str().unwrap();
    let before = snapshot(dir.path());
    let s: Value = serde_json::from_str(&brief(&[
        "impact", "--since", &a, "--format", "json", "--root", root,
    ]))
    .unwrap();
    let nodes: Vec<&str> = s["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    // Edited, added and removed nodes, and those whose links to the removed one went; not the
    // renamed file's node.
    assert_eq!(
        nodes,
        [
            "CHECKOUT",
            "DEC-CHK-02",
            "DEC-CHK-04",
            "DEC-PLAT-09",
            "PLATFORM",
            "POL-CHK-01"
        ]
    );
    let targets = s["targets"].as_array().unwrap();
    let checkout = targets
        .iter()
        .find(|t| t["id"] == "CHECKOUT-01")
        .expect("CHECKOUT-01 changes");
    assert!(checkout["entered"].to_string().contains("DEC-PLAT-09"));
    assert!(checkout["changed"].to_string().contains("POL-CHK-01"));

    // Exact: a target is listed iff its diff shows a change.
    let listed: Vec<String> = ids(&s["targets"]);
    for target in [
        "CHECKOUT-01",
        "REFUNDS-01",
        "DM-LEDGER-01",
        "POL-PLAT-01",
        "DEC-PLAT-02",
    ] {
        let d: Value = serde_json::from_str(&brief(&[
            "diff", target, "--from", &a, "--to", &b, "--format", "json", "--root", root,
        ]))
        .unwrap();
        let changes = ["entered", "left", "changed"]
            .iter()
            .map(|k| d[k].as_array().unwrap().len())
            .sum::<usize>();
        assert_eq!(
            listed.contains(&target.to_string()),
            changes > 0,
            "{target}: {d}"
        );
    }

    let markdown = brief(&[
        "impact", "--since", &a, "--format", "markdown", "--root", root,
    ]);
    assert!(
        markdown.starts_with(&format!("### Context changes since `{a}`")),
        "{markdown}"
    );
    assert!(
        markdown.contains("| `CHECKOUT-01` | behavior |"),
        "{markdown}"
    );
    let text = brief(&["impact", "--since", &a, "--root", root]);
    assert!(
        text.contains("CHECKOUT-01 (behavior): +DEC-PLAT-09"),
        "{text}"
    );

    assert!(
        snapshot(dir.path()) == before,
        "the working tree or .git/index changed"
    );
}

#[test]
fn an_unknown_revision_is_an_error() {
    let (dir, _, _) = repository();
    let root = dir.path().to_str().unwrap();
    let (code, _, stderr) = run(&[
        "diff",
        "CHECKOUT-01",
        "--from",
        "no-such-rev",
        "--root",
        root,
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("unknown revision `no-such-rev`"),
        "{stderr}"
    );
}

/// The project identity is in every context, so an edit of it changes every context, and
/// `impact --since` must list each one (it listed only the targets linked to the identity).
#[test]
fn an_edited_identity_changes_every_context() {
    let dir = copy_fixture(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/notes-app"
    ));
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "A"]);
    let identity = root.join(".contextia/system/identity.md");
    let mut text = fs::read_to_string(&identity).unwrap();
    text.push_str("\nEvery sync is end-to-end encrypted.\n");
    fs::write(&identity, text).unwrap();
    let root = root.to_str().unwrap();
    let holders: Value = serde_json::from_str(&brief(&[
        "impact", "IDENTITY", "--format", "json", "--root", root,
    ]))
    .unwrap();
    let s: Value = serde_json::from_str(&brief(&[
        "impact", "--since", "HEAD", "--format", "json", "--root", root,
    ]))
    .unwrap();
    assert_eq!(s["nodes"], serde_json::json!(["IDENTITY"]));
    let changed: Vec<&str> = s["targets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["changed"] == serde_json::json!(["IDENTITY"]))
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    let every: Vec<&str> = holders["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert!(every.len() > 5, "{every:?}");
    assert_eq!(changed, every);
}

/// A body edited in one line reads as that line removed and added, with its neighbours; a
/// target in words is the best hit of the working tree's search.
#[test]
fn diff_shows_bodies_as_text_and_takes_words() {
    let dir = copy_fixture(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/notes-app"
    ));
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "A"]);
    let a = git(root, &["rev-parse", "HEAD"]);
    let spec = root.join(".contextia/system/specs/SPEC-SYNC-001.md");
    let text = fs::read_to_string(&spec).unwrap();
    let body_line = text
        .lines()
        .rev()
        .find(|l| l.len() > 20 && !l.starts_with('#') && !l.contains(':'))
        .unwrap()
        .to_string();
    fs::write(
        &spec,
        text.replacen(&body_line, "Replayed operations are applied once.", 1),
    )
    .unwrap();
    let out = brief(&[
        "diff",
        "SPEC-SYNC-001",
        "--from",
        &a,
        "--root",
        root.to_str().unwrap(),
    ]);
    assert!(out.contains("~ SPEC-SYNC-001 (spec)"), "{out}");
    assert!(out.contains("      body:\n"), "{out}");
    assert!(out.contains(&format!("        - {body_line}\n")), "{out}");
    assert!(
        out.contains("        + Replayed operations are applied once.\n"),
        "{out}"
    );
    // Words: the search picks the node, and the header says which words.
    let title = text
        .lines()
        .find_map(|l| l.strip_prefix("title: "))
        .unwrap()
        .trim_matches('"')
        .to_lowercase();
    let words: String = title
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    let (code, out, stderr) = run(&[
        "diff",
        &words,
        "--from",
        &a,
        "--root",
        root.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        out.contains(&format!("(the best match for `{words}`)")),
        "{out}"
    );
}
