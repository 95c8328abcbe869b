//! Error behaviour of `brief context` (docs/cli.md): exit 2 with `path:line:col: message` for an
//! unreadable input, exit 1 with a suggestion for an unknown target, and never a panic (checked
//! by `common::run` on every invocation).

use crate::common;

use common::*;

/// Runs `brief context <target> --root <root> --format json` and returns (code, stderr).
fn context_err(root: &std::path::Path, target: &str) -> (i32, String) {
    let (code, _stdout, stderr) = run(&[
        "context",
        target,
        "--root",
        root.to_str().unwrap(),
        "--depth",
        "full",
        "--budget",
        "100000",
        "--format",
        "json",
    ]);
    (code, stderr)
}

/// Finds `<rel_path>:<line>:<col>: <message>` in `stderr` and returns (line, col, message).
/// The path may be printed absolute or relative to the root; it must end with `rel_path`.
fn find_location(stderr: &str, rel_path: &str) -> Option<(u64, u64, String)> {
    let pat = format!("{rel_path}:");
    let mut rest = stderr;
    while let Some(i) = rest.find(&pat) {
        let after = &rest[i + pat.len()..];
        let mut parts = after.splitn(3, ':');
        let line = parts.next().and_then(|s| s.parse::<u64>().ok());
        let col = parts.next().and_then(|s| s.parse::<u64>().ok());
        let msg = parts
            .next()
            .map(|m| m.lines().next().unwrap_or("").trim().to_string());
        if let (Some(line), Some(col), Some(msg)) = (line, col, msg) {
            if !msg.is_empty() {
                return Some((line, col, msg));
            }
        }
        rest = after;
    }
    None
}

#[test]
fn bad_json_node_is_reported_with_its_location() {
    // specgraph/nodes/behaviors/GIFT-01.json line 4 is `  "title": Apply Gift Card,`: the value
    // is not quoted; the offending character `A` is at column 12.
    let dir = copy_fixture(ERR_BAD_JSON);
    let (code, stderr) = context_err(dir.path(), "GIFT");
    assert_eq!(
        code, 2,
        "a malformed node file is unreadable input (exit 2); stderr:\n{stderr}"
    );
    assert!(
        stderr.contains("specgraph/nodes/behaviors/GIFT-01.json:4:12: "),
        "stderr must locate the error as <path>:4:12: <message>; got:\n{stderr}"
    );
    let (_, _, msg) = find_location(&stderr, "specgraph/nodes/behaviors/GIFT-01.json").unwrap();
    assert!(
        !msg.is_empty(),
        "the location must be followed by a message"
    );
}

#[test]
fn node_without_id_is_reported_with_its_location() {
    // specgraph/nodes/behaviors/GIFT-02.json is well-formed JSON without an `id` field. Where the
    // position points (the object's start or end) is not fixed; the path, a line:col and a
    // message naming `id` are.
    let dir = copy_fixture(ERR_MISSING_ID_NODE);
    let (code, stderr) = context_err(dir.path(), "GIFT");
    assert_eq!(
        code, 2,
        "a node without id is unreadable input (exit 2); stderr:\n{stderr}"
    );
    let (line, col, msg) = find_location(&stderr, "specgraph/nodes/behaviors/GIFT-02.json")
        .unwrap_or_else(|| panic!("expected specgraph/nodes/behaviors/GIFT-02.json:<line>:<col>: <message>, got:\n{stderr}"));
    assert!(
        (1..=7).contains(&line) && col >= 1,
        "location {line}:{col} is outside the file"
    );
    assert!(
        msg.contains("id"),
        "the message should name the missing `id` field: {msg}"
    );
}

#[test]
fn bad_yaml_frontmatter_is_reported_with_its_file_location() {
    // .contextia/work/tasks/TASK-031.md line 4 is `  status: active`, an indented continuation
    // of the `title` scalar that contains ': '. The YAML error sits at line 3, column 9 of the
    // frontmatter, which is line 4, column 9 of the file (the opening `---` is line 1): the
    // reported line must be the file's line.
    let dir = copy_fixture(ERR_BAD_YAML);
    let (code, stderr) = context_err(dir.path(), "SPEC-GIFT-001");
    assert_eq!(
        code, 2,
        "malformed frontmatter is unreadable input (exit 2); stderr:\n{stderr}"
    );
    assert!(
        stderr.contains(".contextia/work/tasks/TASK-031.md:4:9: "),
        "stderr must locate the error as <path>:4:9: <message>; got:\n{stderr}"
    );
}

#[test]
fn artifact_without_id_is_reported_with_its_location() {
    // .contextia/system/rationale/DEC-GIFT-001.md has valid frontmatter without `id`.
    let dir = copy_fixture(ERR_MISSING_ID_ARTIFACT);
    let (code, stderr) = context_err(dir.path(), "SPEC-GIFT-001");
    assert_eq!(
        code, 2,
        "an artifact without id is unreadable input (exit 2); stderr:\n{stderr}"
    );
    let (line, col, msg) = find_location(&stderr, ".contextia/system/rationale/DEC-GIFT-001.md")
        .unwrap_or_else(|| {
            panic!("expected .contextia/system/rationale/DEC-GIFT-001.md:<line>:<col>: <message>, got:\n{stderr}")
        });
    assert!(
        (1..=5).contains(&line) && col >= 1,
        "location {line}:{col} is outside the frontmatter"
    );
    assert!(
        msg.contains("id"),
        "the message should name the missing `id` field: {msg}"
    );
}

#[test]
fn unknown_specgraph_target_suggests_the_closest_id() {
    // "DEC-CHK-IDEMP-1" is one edit away from DEC-CHK-IDEMP-01 and far from every other id.
    let dir = copy_fixture(STOREFRONT);
    let (code, stderr) = context_err(dir.path(), "DEC-CHK-IDEMP-1");
    assert_eq!(
        code, 1,
        "an unknown target is 'nothing found' (exit 1); stderr:\n{stderr}"
    );
    assert!(
        stderr.contains("DEC-CHK-IDEMP-01"),
        "stderr should suggest DEC-CHK-IDEMP-01; got:\n{stderr}"
    );
}

#[test]
fn unknown_artifact_target_suggests_the_closest_id() {
    // "TASK-14" is one edit away from TASK-014 (and three from TASK-009).
    let dir = copy_fixture(PAYMENTS);
    let (code, stderr) = context_err(dir.path(), "TASK-14");
    assert_eq!(
        code, 1,
        "an unknown target is 'nothing found' (exit 1); stderr:\n{stderr}"
    );
    assert!(
        stderr.contains("TASK-014"),
        "stderr should suggest TASK-014; got:\n{stderr}"
    );
}

#[test]
fn valid_fixtures_load_without_errors() {
    // Sanity check for the fixtures themselves: the valid projects load and resolve a target
    // with nothing on stderr that looks like a diagnostic for one of their files.
    for (fixture, target) in [(STOREFRONT, "CHK-02"), (PAYMENTS, "TASK-014")] {
        let dir = copy_fixture(fixture);
        let (code, stdout, stderr) = run(&[
            "context",
            target,
            "--root",
            dir.path().to_str().unwrap(),
            "--format",
            "json",
            "--budget",
            "100000",
        ]);
        assert_eq!(code, 0, "{target}: stderr:\n{stderr}");
        assert!(
            serde_json::from_str::<serde_json::Value>(&stdout).is_ok(),
            "{target}: stdout is not JSON"
        );
        assert!(
            !stderr.contains(".json:") && !stderr.contains(".md:"),
            "{target}: unexpected diagnostics:\n{stderr}"
        );
    }
}
