//! Shared helpers for the `brief` integration tests.
//!
//! Every test runs the real binary (`CARGO_BIN_EXE_brief`) on a *copy* of a fixture project in a
//! fresh temporary directory: brief keeps its derived index in `<root>/.brief/cache/`, and tests
//! run in parallel, so running on the checked-in fixture directories would write into the source
//! tree and let concurrent tests race on one cache.
#![allow(dead_code)]

#[cfg(feature = "embeddings")]
pub(crate) mod embed;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Spec Graph project: a storefront with two layers, nested features, policies, decisions and
/// extension nodes (`specgraph/graph.json` + `specgraph/nodes/<typeDir>/<ID>.json`).
pub(crate) const STOREFRONT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/specgraph-storefront"
);
/// Artifact project in the Contextia layout (`.contextia/system/...`, `.contextia/work/tasks/...`).
pub(crate) const PAYMENTS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/contextia-payments"
);
/// Spec Graph project whose `GIFT-01` node file is not valid JSON (line 4, column 12).
pub(crate) const ERR_BAD_JSON: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/errors/bad-json-node"
);
/// Spec Graph project whose `GIFT-02` node file has no `id`.
pub(crate) const ERR_MISSING_ID_NODE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/errors/missing-id-node"
);
/// Artifact project whose `TASK-031` frontmatter is not valid YAML (file line 4, column 9).
pub(crate) const ERR_BAD_YAML: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/errors/bad-yaml-artifact"
);
/// Artifact project whose decision `DEC-GIFT-001.md` has no `id` in its frontmatter.
pub(crate) const ERR_MISSING_ID_ARTIFACT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/errors/missing-id-artifact"
);

/// Runs `brief` with `args`; returns (exit code, stdout, stderr).
///
/// Whatever the command, brief must never panic: a stderr mentioning `panicked` or
/// `RUST_BACKTRACE` fails the calling test.
#[track_caller]
pub(crate) fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_brief"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("failed to start the brief binary");
    let code = out.status.code().unwrap_or(-1);
    let stdout = String::from_utf8(out.stdout).expect("stdout is not UTF-8");
    let stderr = String::from_utf8(out.stderr).expect("stderr is not UTF-8");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "brief {args:?} panicked (exit {code}):\n{stderr}"
    );
    (code, stdout, stderr)
}

/// Copies the fixture project at `src` into a fresh temporary directory and returns it.
pub(crate) fn copy_fixture(src: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_tree(Path::new(src), dir.path());
    dir
}

/// Writes `text` to `rel` under `root`, creating its folders.
pub(crate) fn write_file(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A fresh project of a root `AGENTS.md` and `pages` (file name, text) in `docs/`.
pub(crate) fn docs_project(pages: &[(impl AsRef<str>, impl AsRef<str>)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let docs = dir.path().join("docs");
    fs::create_dir_all(&docs).unwrap();
    fs::write(dir.path().join("AGENTS.md"), "# Agents\n\nRun the tests.\n").unwrap();
    for (file, text) in pages {
        fs::write(docs.join(file.as_ref()), text.as_ref()).unwrap();
    }
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    let mut entries: Vec<_> = fs::read_dir(from).unwrap().map(|e| e.unwrap()).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        // An index another test is refreshing in the source tree is not part of the fixture
        // (its side files come and go while it is copied).
        if src.ends_with(".brief/cache") {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst);
        } else {
            fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Every regular file under `root` except brief's own `.brief/` folder, sorted.
pub(crate) fn project_files(root: &Path) -> Vec<std::path::PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            if e.file_name() == ".brief" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), out);
            } else {
                out.push(e.path());
            }
        }
    }
    let mut out = Vec::new();
    walk(root, &mut out);
    out.sort();
    out
}

/// `brief context <target> --root <root> --depth <depth> --budget 100000 --format json`, plus
/// `extra` arguments. Asserts exit 0, parses stdout, and checks the envelope of docs/json.md
/// (target echoed, no query, encoding, budget limit respected, nothing omitted with this budget,
/// each node listed once).
#[track_caller]
pub(crate) fn context(root: &Path, target: &str, depth: &str, extra: &[&str]) -> Value {
    let root_s = root.to_str().unwrap();
    let mut args = vec![
        "context", target, "--root", root_s, "--depth", depth, "--budget", "100000", "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "brief {args:?} exited {code}\nstderr:\n{stderr}");
    let v: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout of {args:?} is not JSON ({e}):\n{stdout}"));
    assert_eq!(v["target"], target, "target field");
    assert!(
        v["query"].is_null(),
        "query must be null for an id target: {}",
        v["query"]
    );
    assert_eq!(v["encoding"], "cl100k_base", "default encoding");
    assert_eq!(v["budget"]["limit"], 100000, "budget.limit");
    let used = v["budget"]["used"]
        .as_u64()
        .expect("budget.used is an integer");
    assert!(used <= 100000, "budget.used {used} exceeds the limit");
    assert!(v["document"].is_string(), "document must be a string");
    let omitted = v["omitted"].as_array().expect("omitted is an array");
    assert!(
        omitted.is_empty(),
        "nothing may be omitted with a 100000-token budget: {omitted:?}"
    );
    let nodes = v["nodes"].as_array().expect("nodes is an array");
    let mut seen = BTreeSet::new();
    for n in nodes {
        let id = n["id"].as_str().expect("node id is a string");
        assert!(
            seen.insert(id.to_string()),
            "node {id} is listed more than once"
        );
    }
    v
}

/// The ids of the hits of a `brief search --format json` answer, best first.
pub(crate) fn hit_ids(stdout: &str) -> Vec<String> {
    let hits: Value = serde_json::from_str(stdout).unwrap();
    hits.as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap().to_string())
        .collect()
}

/// The ids of every node a context's JSON audit shows, related material too, in rank order.
pub(crate) fn node_ids(v: &Value) -> Vec<String> {
    v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_string())
        .collect()
}

/// The ids of the selected nodes.
pub(crate) fn ids(v: &Value) -> BTreeSet<String> {
    order(v).into_iter().collect()
}

/// The ids of the nodes the rules selected, in rank order (related material, which only
/// fills the room the rules leave, is [`related`]).
pub(crate) fn order(v: &Value) -> Vec<String> {
    v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["rank"]["class"] != "related")
        .map(|n| n["id"].as_str().unwrap().to_string())
        .collect()
}

/// The ids of the related material shown, in rank order.
pub(crate) fn related(v: &Value) -> Vec<String> {
    v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["rank"]["class"] == "related")
        .map(|n| n["id"].as_str().unwrap().to_string())
        .collect()
}

/// Asserts that the selected node ids are exactly `expected`, reporting missing and extra ids.
#[track_caller]
pub(crate) fn assert_ids(v: &Value, expected: &[&str]) {
    let got = ids(v);
    let want: BTreeSet<String> = expected.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        want.len(),
        expected.len(),
        "duplicate id in the expected list {expected:?}"
    );
    let missing: Vec<_> = want.difference(&got).collect();
    let extra: Vec<_> = got.difference(&want).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "node set for target {} differs\n  missing: {missing:?}\n  unexpected: {extra:?}\n  got: {got:?}",
        v["target"]
    );
}

/// The node object with this id (panics if it was not selected).
#[track_caller]
pub(crate) fn node<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == id)
        .unwrap_or_else(|| panic!("node {id} is not in the selection: {:?}", ids(v)))
}

fn s(v: &Value) -> String {
    v.as_str().unwrap_or("").to_string()
}

/// The reasons of node `id` as (relation, direction, from); a missing field is "".
#[track_caller]
pub(crate) fn reasons(v: &Value, id: &str) -> BTreeSet<(String, String, String)> {
    node(v, id)["reasons"]
        .as_array()
        .unwrap_or_else(|| panic!("reasons of {id} is not an array"))
        .iter()
        .map(|r| (s(&r["relation"]), s(&r["direction"]), s(&r["from"])))
        .collect()
}

/// The reasons of node `id` as (relation, direction) pairs.
#[track_caller]
pub(crate) fn reason_pairs(v: &Value, id: &str) -> BTreeSet<(String, String)> {
    reasons(v, id).into_iter().map(|(r, d, _)| (r, d)).collect()
}

/// Builds an expected (relation, direction, from) set.
pub(crate) fn triples(items: &[(&str, &str, &str)]) -> BTreeSet<(String, String, String)> {
    items
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

/// Builds an expected (relation, direction) set.
pub(crate) fn pairs(items: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// The forward reasons of node `id` as (relation, from).
#[track_caller]
pub(crate) fn forward_reasons(v: &Value, id: &str) -> BTreeSet<(String, String)> {
    reasons(v, id)
        .into_iter()
        .filter(|(_, d, _)| d == "forward")
        .map(|(r, _, f)| (r, f))
        .collect()
}

/// Asserts the node is the target: its reasons are exactly `[{"relation":"target"}]`.
#[track_caller]
pub(crate) fn assert_target_reason(v: &Value, id: &str) {
    let rs = node(v, id)["reasons"].as_array().unwrap();
    assert!(
        rs.len() == 1 && rs[0]["relation"] == "target",
        "the target's reasons must be [{{\"relation\":\"target\"}}], got {rs:?}"
    );
}

/// Asserts the `via` list of some `constrains`/`inverse` reason of `id` names `ancestor`.
#[track_caller]
pub(crate) fn assert_inherited_via(v: &Value, id: &str, ancestor: &str) {
    let rs = node(v, id)["reasons"].as_array().unwrap();
    let ok = rs.iter().any(|r| {
        r["relation"] == "constrains"
            && r["direction"] == "inverse"
            && r["via"]
                .as_array()
                .is_some_and(|via| via.iter().any(|x| x == ancestor))
    });
    assert!(
        ok,
        "{id} should be an inherited constrainer with {ancestor} in `via`, reasons: {rs:?}"
    );
}

/// Asserts every reason of `id` is `propagated` (and that there is at least one).
#[track_caller]
pub(crate) fn assert_only_propagated(v: &Value, id: &str) {
    let rs = reasons(v, id);
    assert!(
        !rs.is_empty() && rs.iter().all(|(_, d, _)| d == "propagated"),
        "{id} should be brought only by layer propagation, reasons: {rs:?}"
    );
}

/// Runs git in `dir` as a test's own user (no system or user configuration), failing the test
/// when git fails; its standard output, trimmed.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}
