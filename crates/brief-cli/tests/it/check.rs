//! `brief check`: one fixture pair per rule under `tests/fixtures/check/<rule>/{bad,good}`.
//! Each `bad` project fires its rule at exact `path:line:col`s with the right exit code; the
//! near-identical `good` project reports nothing at all. Then the examples and the traversal
//! fixtures (valid graphs with cycles through constrains/implements and nested features) report
//! no error, and the options (`--format json`, `--rule`, baselines, `[check]` settings) work.
//! Every run is on a copy in a temporary directory.

use crate::common;

use std::fs;
use std::path::Path;

use common::*;
use serde_json::Value;

const CHECK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/check");
const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");

/// `brief check --root <root> --format json <extra>`: (exit code, parsed report, stderr).
#[track_caller]
fn check_json(root: &Path, extra: &[&str]) -> (i32, Value, String) {
    let root_s = root.to_str().unwrap();
    let mut args = vec!["check", "--root", root_s, "--format", "json"];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = run(&args);
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout of {args:?} is not JSON ({e}):\n{stdout}\n{stderr}"));
    (code, report, stderr)
}

/// The findings of `rule` as (path, line, col).
fn located(report: &Value, rule: &str) -> Vec<(String, u64, u64)> {
    let mut out: Vec<_> = findings(report)
        .iter()
        .filter(|f| f["rule"] == rule)
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["col"].as_u64().unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn findings(report: &Value) -> &Vec<Value> {
    report["findings"].as_array().expect("findings is an array")
}

/// A fixture project copied to a temporary directory.
fn fixture(rule: &str, variant: &str) -> tempfile::TempDir {
    copy_fixture(&format!("{CHECK}/{rule}/{variant}"))
}

/// The bad fixture fires `rule` exactly at `want` (and its text line reads
/// `<root>/<path>:<line>:<col>: <severity>[<rule>]: <message>`), exiting `exit`; the good one
/// reports nothing and exits 0.
#[track_caller]
fn case(dir: &str, rule: &str, severity: &str, want: &[(&str, u64, u64)], exit: i32) {
    let bad = fixture(dir, "bad");
    let (code, report, stderr) = check_json(bad.path(), &[]);
    let mut want: Vec<(String, u64, u64)> = want
        .iter()
        .map(|(p, l, c)| (p.to_string(), *l, *c))
        .collect();
    want.sort();
    assert_eq!(
        located(&report, rule),
        want,
        "{dir}/bad: findings of {rule}\n{report:#}"
    );
    assert_eq!(
        code, exit,
        "{dir}/bad exit code; stderr:\n{stderr}\n{report:#}"
    );
    for f in findings(&report).iter().filter(|f| f["rule"] == rule) {
        assert_eq!(f["severity"], severity, "{f}");
        assert!(
            f["message"].as_str().is_some_and(|m| m.len() > 20),
            "a message says what is wrong and what to do: {f}"
        );
    }
    let (_, text, _) = run(&["check", "--root", bad.path().to_str().unwrap()]);
    let (path, line, col) = &want[0];
    let prefix = format!(
        "{}/{path}:{line}:{col}: {severity}[{rule}]: ",
        bad.path().display()
    );
    assert!(
        text.lines().any(|l| l.starts_with(&prefix)),
        "text output has no line starting with {prefix:?}:\n{text}"
    );

    let good = fixture(dir, "good");
    let (code, report, stderr) = check_json(good.path(), &[]);
    assert!(
        findings(&report).is_empty(),
        "{dir}/good must report nothing:\n{report:#}\n{stderr}"
    );
    assert_eq!(code, 0, "{dir}/good exit code");
}

// ---- Spec Graph rules ----

#[test]
fn parse_error() {
    // GIFT-02.json line 5 ends with `,,`: the second comma is column 41.
    case(
        "parse-error",
        "parse-error",
        "error",
        &[("specgraph/nodes/behaviors/GIFT-02.json", 5, 41)],
        1,
    );
}

#[test]
fn missing_file() {
    // graph.json lists GIFT-02 under nodes/behaviour/ (line 27 is its `path`); the file is in
    // nodes/behaviors/. GIFT still contains GIFT-02: no broken-link piles on.
    case(
        "missing-file",
        "missing-file",
        "error",
        &[("specgraph/graph.json", 27, 7)],
        1,
    );
}

#[test]
fn id_mismatch() {
    case(
        "id-mismatch",
        "id-mismatch",
        "error",
        &[("specgraph/nodes/behaviors/GIFT-02.json", 3, 3)],
        1,
    );
}

#[test]
fn type_mismatch() {
    case(
        "type-mismatch",
        "type-mismatch",
        "error",
        &[("specgraph/nodes/domains/DOM-GIFT-01.json", 4, 3)],
        1,
    );
}

#[test]
fn file_hash_mismatch() {
    case(
        "file-hash-mismatch",
        "file-hash-mismatch",
        "error",
        &[("specgraph/graph.json", 9, 7)],
        1,
    );
}

#[test]
fn duplicate_graph_entries() {
    case(
        "duplicate-id-graph",
        "duplicate-id",
        "error",
        &[("specgraph/graph.json", 36, 7)],
        1,
    );
}

#[test]
fn schema() {
    // DEC-GIFT-01 lost its category (reported at `type`, line 4) and has a 7-character
    // rationale (line 19); DOM-GIFT-01 carries a `severity` (line 13).
    case(
        "schema",
        "schema",
        "error",
        &[
            ("specgraph/nodes/decisions/DEC-GIFT-01.json", 4, 3),
            ("specgraph/nodes/decisions/DEC-GIFT-01.json", 19, 5),
            ("specgraph/nodes/domains/DOM-GIFT-01.json", 13, 3),
        ],
        1,
    );
}

#[test]
fn id_pattern() {
    case(
        "id-pattern",
        "id-pattern",
        "error",
        &[("specgraph/nodes/behaviors/GIFT-02.json", 11, 7)],
        1,
    );
}

#[test]
fn verification_entry() {
    // An http entry without `method` and `expectStatus`: both reported at the entry.
    case(
        "verification-entry",
        "verification-entry",
        "error",
        &[
            ("specgraph/nodes/policies/POL-GIFT-01.json", 13, 5),
            ("specgraph/nodes/policies/POL-GIFT-01.json", 13, 5),
        ],
        1,
    );
}

#[test]
fn broken_link() {
    case(
        "broken-link",
        "broken-link",
        "error",
        &[("specgraph/nodes/behaviors/GIFT-02.json", 11, 7)],
        1,
    );
}

#[test]
fn self_edge() {
    case(
        "self-edge",
        "self-edge",
        "error",
        &[("specgraph/nodes/behaviors/GIFT-02.json", 11, 7)],
        1,
    );
}

#[test]
fn depends_on_cycle_is_printed() {
    // Both variants hold a nested feature (GIFT-ADMIN) and a cycle through implements and
    // constrains (API-GIFT-01 implements DOM-GIFT-01, which constrains it): valid. The bad one
    // adds GIFT-01 depends_on GIFT-02, closing a depends_on cycle.
    case(
        "depends-on-cycle",
        "depends-on-cycle",
        "error",
        &[("specgraph/nodes/behaviors/GIFT-01.json", 15, 7)],
        1,
    );
    let bad = fixture("depends-on-cycle", "bad");
    let (_, report, _) = check_json(bad.path(), &[]);
    let message = findings(&report)[0]["message"].as_str().unwrap();
    assert!(
        message.contains("GIFT-01 → GIFT-02 → GIFT-01"),
        "the cycle is printed: {message}"
    );
}

#[test]
fn layer_depends_on_feature() {
    case(
        "layer-depends-on-feature",
        "layer-depends-on-feature",
        "error",
        &[("specgraph/nodes/layers/PLATFORM.json", 13, 7)],
        1,
    );
}

#[test]
fn foundation_depends_on() {
    case(
        "foundation-depends-on",
        "foundation-depends-on",
        "error",
        &[("specgraph/nodes/foundations/FND-PLAT-01.json", 13, 7)],
        1,
    );
}

#[test]
fn ambiguous_layer_decision() {
    // GIFT depends on two layers that each contain a `stack` decision; in the good variant one
    // supersedes the other. Reported once, at the feature that brings both layers in.
    case(
        "ambiguous-layer-decision",
        "ambiguous-layer-decision",
        "error",
        &[("specgraph/nodes/features/GIFT.json", 15, 5)],
        1,
    );
}

#[test]
fn pin_mismatch() {
    case(
        "pin-mismatch",
        "pin-mismatch",
        "error",
        &[("specgraph/nodes/design_tokens/DT-GIFT-01.json", 21, 7)],
        1,
    );
}

#[test]
fn derived_from_without_pin() {
    case(
        "derived-from-without-pin",
        "derived-from-without-pin",
        "warning",
        &[("specgraph/nodes/design_tokens/DT-GIFT-01.json", 12, 7)],
        0,
    );
}

// ---- Artifact rules ----

#[test]
fn malformed_frontmatter() {
    // `title: Checkout: partial redemption` is not valid YAML (a second `: ` at column 16).
    case(
        "malformed-frontmatter",
        "malformed-frontmatter",
        "error",
        &[(".contextia/work/tasks/TASK-031.md", 3, 16)],
        1,
    );
}

#[test]
fn missing_required_field() {
    // brief.toml requires `owner` on decisions; the spec has no status; the decision's title
    // is empty.
    case(
        "missing-required-field",
        "missing-required-field",
        "error",
        &[
            (".contextia/system/rationale/DEC-GIFT-001.md", 2, 1),
            (".contextia/system/rationale/DEC-GIFT-001.md", 3, 1),
            (".contextia/system/specs/SPEC-GIFT-001.md", 2, 1),
        ],
        1,
    );
}

#[test]
fn duplicate_id() {
    case(
        "duplicate-id",
        "duplicate-id",
        "error",
        &[(".contextia/system/rationale/DEC-GIFT-002.md", 2, 1)],
        1,
    );
}

#[test]
fn broken_ref() {
    case(
        "broken-ref",
        "broken-ref",
        "error",
        &[(".contextia/work/tasks/TASK-031.md", 6, 24)],
        1,
    );
}

#[test]
fn broken_path() {
    case(
        "broken-path",
        "broken-path",
        "warning",
        &[(".contextia/system/specs/SPEC-GIFT-001.md", 7, 5)],
        0,
    );
}

// ---- Spec Kit, Kiro and rules with globs ----

#[test]
fn spec_unknown_story() {
    // `[US2]` on a task of a feature whose spec.md has only User Story 1.
    case(
        "spec-unknown-story",
        "spec-unknown-story",
        "warning",
        &[("specs/001-signup/tasks.md", 5, 13)],
        0,
    );
}

#[test]
fn spec_unknown_requirement() {
    // `FR-009` in a task's text; the spec defines FR-001 only.
    case(
        "spec-unknown-requirement",
        "spec-unknown-requirement",
        "warning",
        &[("specs/001-signup/tasks.md", 3, 67)],
        0,
    );
}

#[test]
fn spec_unknown_task() {
    // "depends on T009" where tasks.md has T001 and T002.
    case(
        "spec-unknown-task",
        "spec-unknown-task",
        "warning",
        &[("specs/001-signup/tasks.md", 4, 46)],
        0,
    );
}

#[test]
fn duplicate_task_id() {
    // T002 written twice: the second, at its id.
    case(
        "duplicate-task-id",
        "duplicate-task-id",
        "warning",
        &[("specs/001-signup/tasks.md", 5, 7)],
        0,
    );
}

#[test]
fn unknown_principle() {
    // The plan's Constitution Check cites Principle III of a two-principle constitution.
    case(
        "unknown-principle",
        "unknown-principle",
        "warning",
        &[("specs/001-signup/plan.md", 6, 13)],
        0,
    );
}

#[test]
fn kiro_unknown_requirement() {
    // `_Requirements: 1.1, 3.2_`: there is no requirement 3.
    case(
        "kiro-unknown-requirement",
        "kiro-unknown-requirement",
        "warning",
        &[(".kiro/specs/login/tasks.md", 4, 25)],
        0,
    );
}

#[test]
fn rule_glob_no_match() {
    // `globs: src/app.ts,src/legacy/**` (not YAML): the second matches no file.
    case(
        "rule-glob-no-match",
        "rule-glob-no-match",
        "warning",
        &[(".cursor/rules/legacy.mdc", 3, 19)],
        0,
    );
}

// ---- Markdown knowledge-base rules ----

#[test]
fn md_broken_link() {
    // A relative link to a missing file and a wikilink naming no note, at their `[`.
    case(
        "md-broken-link",
        "md-broken-link",
        "warning",
        &[
            ("docs/policies/retries.md", 8, 21),
            ("docs/policies/retries.md", 8, 70),
        ],
        0,
    );
}

#[test]
fn adr_superseded_by_missing() {
    // adr-tools' `Superceded by [3. …](0003-….md)` with no ADR 3: at the link's `[`.
    case(
        "adr-superseded-by-missing",
        "adr-superseded-by-missing",
        "warning",
        &[("doc/adr/0002-run-nightly-jobs-from-cron.md", 7, 15)],
        0,
    );
}

#[test]
fn md_frontmatter() {
    // An unquoted `title: Provider outage: what to do` is not YAML; the file is still read.
    case(
        "md-frontmatter",
        "md-frontmatter",
        "warning",
        &[("docs/runbooks/provider-outage.md", 2, 23)],
        0,
    );
}

#[test]
fn unknown_status() {
    // `Postponed indefinitely` is no word of the lifecycle table: a warning at the word.
    case(
        "unknown-status",
        "unknown-status",
        "warning",
        &[("doc/adr/0001-record-architecture-decisions.md", 7, 1)],
        0,
    );
}

#[test]
fn md_long_title() {
    // A 1,500-character frontmatter title is cut to 1,000: a warning at its `title:` line.
    case(
        "md-long-title",
        "md-long-title",
        "warning",
        &[("docs/outage.md", 2, 1)],
        0,
    );
}

#[test]
fn orphan_spec() {
    // The good variant's SPEC-GIFT-002 is named by an annotation only (no task links it).
    case(
        "orphan-spec",
        "orphan-spec",
        "warning",
        &[(".contextia/system/specs/SPEC-GIFT-002.md", 2, 1)],
        0,
    );
}

#[test]
fn empty_scope() {
    case(
        "empty-scope",
        "empty-scope",
        "warning",
        &[(".contextia/system/norms/NORM-SEC-001.md", 2, 1)],
        0,
    );
}

#[test]
fn oversized_identity() {
    case(
        "oversized-identity",
        "oversized-identity",
        "warning",
        &[(".contextia/system/identity.md", 1, 1)],
        0,
    );
    // The threshold comes from brief.toml.
    let good = fixture("oversized-identity", "good");
    fs::write(
        good.path().join("brief.toml"),
        "[check]\nidentity_max_tokens = 100\n",
    )
    .unwrap();
    let (code, report, _) = check_json(good.path(), &[]);
    assert_eq!(code, 0);
    assert_eq!(
        located(&report, "oversized-identity").len(),
        1,
        "{report:#}"
    );
}

// ---- Code annotations ----

#[test]
fn annotation_broken_ref() {
    // The good variant also holds `@test SPEC-GIFT-001/partial-redeem`: a sub-id names its base.
    case(
        "annotation-broken-ref",
        "annotation-broken-ref",
        "error",
        &[("src/redeem/redeem.ts", 2, 10)],
        1,
    );
}

#[test]
fn annotation_outside_paths() {
    case(
        "annotation-outside-paths",
        "annotation-outside-paths",
        "warning",
        &[("src/ledger/entries.ts", 3, 10)],
        0,
    );
    // strict_bidirectional makes it an error.
    let bad = fixture("annotation-outside-paths", "bad");
    fs::write(
        bad.path().join("brief.toml"),
        "[check]\nstrict_bidirectional = true\n",
    )
    .unwrap();
    let (code, report, _) = check_json(bad.path(), &[]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["errors"], 1);
    assert_eq!(findings(&report)[0]["severity"], "error");
}

#[test]
fn ignored_hidden_and_binary_files_are_not_scanned() {
    let dir = fixture("annotation-broken-ref", "good");
    let root = dir.path();
    fs::create_dir_all(root.join("dist")).unwrap();
    fs::write(root.join("dist/bundle.js"), "// @spec SPEC-GONE-001\n").unwrap();
    fs::write(root.join(".gitignore"), "dist/\n").unwrap();
    fs::create_dir_all(root.join(".cache")).unwrap();
    fs::write(root.join(".cache/x.ts"), "// @spec SPEC-GONE-002\n").unwrap();
    fs::write(root.join("src/blob.ts"), b"\0\0// @spec SPEC-GONE-003\n").unwrap();
    fs::create_dir_all(root.join("node_modules/x")).unwrap();
    fs::write(root.join("node_modules/x/i.js"), "// @spec SPEC-GONE-004\n").unwrap();
    let (code, report, _) = check_json(root, &[]);
    assert_eq!(code, 0, "{report:#}");
    assert!(findings(&report).is_empty(), "{report:#}");
    // The same file, not ignored, is reported.
    fs::remove_file(root.join(".gitignore")).unwrap();
    let (code, report, _) = check_json(root, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        located(&report, "annotation-broken-ref"),
        vec![("dist/bundle.js".to_string(), 1, 10)]
    );
}

// ---- Whole projects ----

#[test]
fn examples_and_traversal_fixtures_have_no_errors() {
    for src in [
        format!("{EXAMPLES}/payments"),
        format!("{EXAMPLES}/notes-app"),
        STOREFRONT.to_string(),
        PAYMENTS.to_string(),
    ] {
        let dir = copy_fixture(&src);
        let (code, report, stderr) = check_json(dir.path(), &[]);
        assert_eq!(report["errors"], 0, "{src}:\n{report:#}\n{stderr}");
        assert_eq!(code, 0, "{src}");
    }
}

#[test]
fn one_bad_file_never_stops_the_run() {
    // Three independent problems in three files: all reported in one run.
    let dir = fixture("broken-link", "bad");
    let root = dir.path();
    fs::write(
        root.join("specgraph/nodes/policies/POL-GIFT-01.json"),
        "{\n  \"id\": \"POL-GIFT-01\",\n",
    )
    .unwrap();
    let dom = root.join("specgraph/nodes/domains/DOM-GIFT-01.json");
    let text = fs::read_to_string(&dom).unwrap();
    fs::write(
        &dom,
        text.replace("\"type\": \"domain\"", "\"type\": \"domian\""),
    )
    .unwrap();
    let (code, report, _) = check_json(root, &[]);
    assert_eq!(code, 1);
    let rules: std::collections::BTreeSet<&str> = findings(&report)
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    for rule in ["broken-link", "parse-error", "type-mismatch", "schema"] {
        assert!(rules.contains(rule), "{rule} missing:\n{report:#}");
    }
}

#[test]
fn output_is_deterministic_and_sorted() {
    let dir = fixture("schema", "bad");
    let root = dir.path().to_str().unwrap();
    let (_, first, _) = run(&["check", "--root", root]);
    let (_, second, _) = run(&["check", "--root", root]);
    assert_eq!(first, second);
    let (_, report, _) = check_json(dir.path(), &[]);
    let keys: Vec<(String, u64, u64)> = findings(&report)
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["col"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(first.lines().last(), Some("3 errors, 0 warnings"));
}

#[test]
fn json_report_shape() {
    let dir = fixture("broken-ref", "bad");
    let (_, report, _) = check_json(dir.path(), &[]);
    assert_eq!(report["errors"], 1);
    assert_eq!(report["warnings"], 0);
    let f = &findings(&report)[0];
    for key in ["rule", "severity", "path", "line", "col", "node", "message"] {
        assert!(f.get(key).is_some(), "finding has no `{key}`: {f}");
    }
    assert_eq!(f["node"], "TASK-031");
}

// ---- Options ----

#[test]
fn rules_can_be_selected() {
    let dir = fixture("id-pattern", "bad");
    let (code, report, _) = check_json(dir.path(), &["--rule", "broken-link"]);
    assert_eq!(code, 1);
    assert_eq!(located(&report, "id-pattern"), vec![]);
    assert_eq!(located(&report, "broken-link").len(), 1);
    let (code, report, _) = check_json(dir.path(), &["--rule", "self-edge,orphan-spec"]);
    assert_eq!(code, 0);
    assert!(findings(&report).is_empty());
    let (code, _, stderr) = run(&[
        "check",
        "--root",
        dir.path().to_str().unwrap(),
        "--rule",
        "orphan",
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("unknown rule `orphan`") && stderr.contains("orphan-spec"),
        "{stderr}"
    );
}

#[test]
fn every_rule_is_listed_and_has_a_fixture() {
    let (code, list, _) = run(&["check", "--list-rules"]);
    assert_eq!(code, 0);
    let (_, help, _) = run(&["check", "--help"]);
    let ids: Vec<&str> = list
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(ids.len() >= 25, "{list}");
    for id in ids {
        assert!(
            Path::new(CHECK).join(id).join("bad").is_dir(),
            "rule {id} has no fixture under tests/fixtures/check/{id}/"
        );
        assert!(help.contains(id), "`brief check --help` does not list {id}");
    }
}

#[test]
fn severities_come_from_brief_toml() {
    let dir = fixture("orphan-spec", "bad");
    let toml = dir.path().join("brief.toml");
    fs::write(&toml, "[check]\nrules = { orphan-spec = \"error\" }\n").unwrap();
    let (code, report, _) = check_json(dir.path(), &[]);
    assert_eq!(code, 1);
    assert_eq!(findings(&report)[0]["severity"], "error");
    fs::write(&toml, "[check]\nrules = { orphan-spec = \"off\" }\n").unwrap();
    let (code, report, _) = check_json(dir.path(), &[]);
    assert_eq!(code, 0);
    assert!(findings(&report).is_empty());
    // A rule brief does not have: a `config` error at its name, the rest checked as usual.
    fs::write(&toml, "[check]\nrules = { orphan-specs = \"off\" }\n").unwrap();
    let (code, report, stderr) = check_json(dir.path(), &[]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        located(&report, "config"),
        [("brief.toml".to_string(), 2, 11)]
    );
    assert!(!located(&report, "orphan-spec").is_empty());
    // At the key the TOML parser read, not at the first line that mentions the name.
    fs::write(
        &toml,
        "# orphan-specs = \"off\" was the old name\n[check]\nrules = { orphan-specs = \"off\" }\n",
    )
    .unwrap();
    let (_, report, _) = check_json(dir.path(), &[]);
    assert_eq!(
        located(&report, "config"),
        [("brief.toml".to_string(), 3, 11)]
    );
    fs::write(
        &toml,
        "# [bad was tried\n[check]\nignore_patterns = [\"ok/**\", \"[bad\"]\n",
    )
    .unwrap();
    let (code, _, stderr) = run(&["check", "--root", dir.path().to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("brief.toml:3:30: [check] ignore_patterns: `[bad`"),
        "{stderr}"
    );
}

/// Issue 30, item 11: an unknown rule in `[check.rules]` made `check` exit 2 (refusing the
/// project) while `context` answered: one verdict now. The setting is a `config` error of
/// `check`'s at the rule's name, every other rule still runs, and `context` answers.
#[test]
fn config() {
    case("config", "config", "error", &[("brief.toml", 2, 36)], 1);
    let dir = fixture("config", "bad");
    let (code, _, stderr) = run(&["context", "GIFT-01", "--root", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn baselines_hide_known_findings() {
    let dir = fixture("missing-required-field", "bad");
    let root = dir.path();
    let root_s = root.to_str().unwrap();
    let baseline = root.join("check-baseline.json");
    let baseline_s = baseline.to_str().unwrap();
    let (code, _, stderr) = run(&["check", "--root", root_s, "--write-baseline", baseline_s]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("wrote 3 findings"), "{stderr}");
    let written: Value = serde_json::from_str(&fs::read_to_string(&baseline).unwrap()).unwrap();
    assert_eq!(written["findings"].as_array().unwrap().len(), 3);

    // Lines move: still known.
    let spec = root.join(".contextia/system/specs/SPEC-GIFT-001.md");
    let text = fs::read_to_string(&spec).unwrap();
    fs::write(
        &spec,
        text.replacen("---\n", "---\n# reviewed 2026-05\n", 1),
    )
    .unwrap();
    let (code, report, _) = check_json(root, &["--baseline", baseline_s]);
    assert_eq!(code, 0, "{report:#}");
    assert!(findings(&report).is_empty(), "{report:#}");
    assert_eq!(report["hidden"], 3);
    let (_, text_out, _) = run(&["check", "--root", root_s, "--baseline", baseline_s]);
    assert!(
        text_out.contains("0 errors, 0 warnings (3 findings hidden by the baseline)"),
        "{text_out}"
    );

    // A new problem is reported.
    let task = root.join(".contextia/work/tasks/TASK-031.md");
    let text = fs::read_to_string(&task).unwrap();
    fs::write(
        &task,
        text.replace("specs: [SPEC-GIFT-001]", "specs: [SPEC-GIFT-404]"),
    )
    .unwrap();
    let (code, report, _) = check_json(root, &["--baseline", baseline_s]);
    assert_eq!(code, 1);
    assert_eq!(
        located(&report, "broken-ref"),
        vec![(".contextia/work/tasks/TASK-031.md".to_string(), 6, 9)]
    );
    assert_eq!(report["errors"], 1, "{report:#}");

    // A file that is not a baseline is refused.
    fs::write(&baseline, "[]").unwrap();
    let (code, _, stderr) = run(&["check", "--root", root_s, "--baseline", baseline_s]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn unreadable_roots_exit_2() {
    let (code, _, stderr) = run(&["check", "--root", "/nonexistent/brief-check-root"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no such directory"), "{stderr}");
    let empty = tempfile::tempdir().unwrap();
    fs::write(empty.path().join("brief.toml"), "").unwrap();
    let (code, _, stderr) = run(&["check", "--root", empty.path().to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no sources"), "{stderr}");
}
