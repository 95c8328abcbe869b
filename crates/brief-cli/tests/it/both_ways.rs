//! Every command run both ways — the `brief` binary and the MCP tool over stdio — on the
//! bundled examples, comparing bytes: stdout with the tool's text, stderr with its notes or
//! its error. Both front ends go through `brief::command`, so any difference is a bug.
#![cfg(feature = "mcp")]

use std::path::Path;

use serde_json::{json, Value};

use crate::common;
use crate::mcp::{cli_at, Server, EMPTY_IS_A_RESULT};

const PAYMENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");
const NOTES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/notes-app");
/// The clock both sides read (session commands rank by age).
const NOW: &str = "1760000000";

/// What the CLI has that the MCP server does not, and why (the server has no tool the CLI
/// lacks: its resources and prompt read the same engine calls).
const CLI_ONLY: &[(&str, &str)] = &[
    (
        "index",
        "the server's file watcher refreshes the index before each call",
    ),
    (
        "init",
        "a server serves a project that exists; writing brief.toml is the user's act",
    ),
    (
        "check --write-baseline / --list-rules",
        "writes a file / help text; the server only reads",
    ),
    (
        "session prune",
        "deletes stored data: left to the user, not to an agent",
    ),
    (
        "serve, watch, completions, man",
        "the front end itself, generated from the clap definition",
    ),
    (
        "hook",
        "answers an agent host's hook events; a client of the server calls the tools itself",
    ),
];

/// One command both ways.
struct Case {
    tool: &'static str,
    arguments: Value,
    cli: Vec<&'static str>,
    /// How the MCP error names a parameter the CLI names as a flag: (flag, parameter).
    renamed: Option<(&'static str, &'static str)>,
}

fn case(tool: &'static str, arguments: Value, cli: &[&'static str]) -> Case {
    Case {
        tool,
        arguments,
        cli: cli.to_vec(),
        renamed: None,
    }
}

/// A tool call's outcome: (is error, text, notes).
fn call(server: &mut Server, id: u64, tool: &str, arguments: &Value) -> (bool, String, String) {
    let (failed, blocks) = server.call_blocks(id, tool, arguments);
    let block = |n: usize| blocks.get(n).cloned().unwrap_or_default();
    (failed, block(0), block(1))
}

/// Runs `cases` in order, the server on one copy of `fixture` and the CLI on another, so
/// commands that write (session packages) leave both in the same state. `prepare` alters
/// each copy first. The server's root in its texts is read as the CLI's.
fn run_cases(fixture: &str, prepare: fn(&Path), cases: Vec<Case>) {
    let (served, commanded) = (common::copy_fixture(fixture), common::copy_fixture(fixture));
    prepare(served.path());
    prepare(commanded.path());
    let served_root = served.path().to_str().unwrap();
    let root = commanded.path().to_str().unwrap();
    let mut server = Server::start_with(served.path(), &[("BRIEF_NOW", NOW)]);
    for (n, case) in cases.into_iter().enumerate() {
        let (is_error, text, notes) = call(&mut server, 100 + n as u64, case.tool, &case.arguments);
        let (text, notes) = (
            text.replace(served_root, root),
            notes.replace(served_root, root),
        );
        let mut args = case.cli.clone();
        args.extend(["--root", root]);
        let (code, stdout, stderr) = cli_at(NOW, &args);
        let what = format!("{} {} vs brief {:?}", case.tool, case.arguments, case.cli);
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
        if is_error {
            assert_ne!(code, 0, "{what}: only the tool failed: {text}");
            let expected = match case.renamed {
                Some((flag, parameter)) => {
                    assert!(stderr.contains(flag), "{what}: {stderr}");
                    stderr.replace(flag, parameter)
                }
                None => stderr,
            };
            assert_eq!(text, expected, "{what}: the errors differ");
        } else {
            // `check` exits 1 on findings and still answers with its report; finding
            // nothing is an answer for the tools that list.
            assert!(
                code == 0 || case.tool == "check" || EMPTY_IS_A_RESULT.contains(&case.tool),
                "{what}: only the CLI failed: {stderr}"
            );
            assert_eq!(text, stdout, "{what}: the outputs differ");
            assert_eq!(notes, stderr, "{what}: the notes differ");
        }
    }
}

fn unchanged(_: &Path) {}

/// Writes the file the session cases' package names (a package's file must exist).
fn with_package_file(root: &Path) {
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(root.join("notes/auth.md"), "# Token refresh\n").unwrap();
}

/// Breaks one spec's YAML frontmatter.
fn break_a_spec(root: &Path) {
    let spec = root.join(".contextia/system/specs/SPEC-SYNC-001.md");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, text.replacen("title: ", "title: [unclosed ", 1)).unwrap();
}

#[test]
fn every_command_gives_the_same_bytes_both_ways_on_payments() {
    assert!(!CLI_ONLY.is_empty());
    let cases = vec![
        case(
            "context",
            json!({"target": "CHECKOUT-01"}),
            &["context", "CHECKOUT-01"],
        ),
        case(
            "context",
            json!({"target": "CHECKOUT-01", "format": "json", "budget": 900, "lens": "security"}),
            &[
                "context",
                "CHECKOUT-01",
                "--format",
                "json",
                "--budget",
                "900",
                "--lens",
                "security",
            ],
        ),
        case(
            "show",
            json!({"id": "DEC-CHK-04", "format": "text"}),
            &["show", "DEC-CHK-04", "--format", "text"],
        ),
        case(
            "search",
            json!({"query": "refund", "format": "json"}),
            &["search", "refund", "--format", "json"],
        ),
        case("check", json!({}), &["check"]),
        case(
            "check",
            json!({"format": "json", "rules": ["broken-link"]}),
            &["check", "--format", "json", "--rule", "broken-link"],
        ),
        case("lenses", json!({}), &["lenses"]),
        case(
            "impact",
            json!({"ids": ["POL-CHK-01"], "format": "json"}),
            &["impact", "POL-CHK-01", "--format", "json"],
        ),
        case(
            "explain",
            json!({"id": "POL-CHK-01", "for": "CHECKOUT-01"}),
            &["explain", "POL-CHK-01", "--for", "CHECKOUT-01"],
        ),
        // Errors.
        case(
            "context",
            json!({"target": "CHECKOUT-99"}),
            &["context", "CHECKOUT-99"],
        ),
        Case {
            renamed: Some(("--budget", "budget")),
            ..case(
                "context",
                json!({"target": "CHECKOUT-01", "budget": 3}),
                &["context", "CHECKOUT-01", "--budget", "3"],
            )
        },
        case(
            "search",
            json!({"query": "refund", "kind": "widget"}),
            &["search", "refund", "--kind", "widget"],
        ),
        case("search", json!({"query": "zzzqqq"}), &["search", "zzzqqq"]),
        case("show", json!({"id": "NOPE-1"}), &["show", "NOPE-1"]),
        case(
            "explain",
            json!({"id": "NOPE-1", "for": "CHECKOUT-01"}),
            &["explain", "NOPE-1", "--for", "CHECKOUT-01"],
        ),
        // The copy is no git repository: both refuse alike.
        case(
            "impact",
            json!({"since": "HEAD"}),
            &["impact", "--since", "HEAD"],
        ),
        case(
            "diff",
            json!({"target": "CHECKOUT-01", "from": "HEAD"}),
            &["diff", "CHECKOUT-01", "--from", "HEAD"],
        ),
    ];
    run_cases(PAYMENTS, unchanged, cases);
}

#[test]
fn session_commands_give_the_same_bytes_both_ways() {
    let cases = vec![
        // Nothing stored yet.
        case(
            "session_package_list",
            json!({"session": "s1", "agent": "developer"}),
            &[
                "session",
                "package",
                "list",
                "--session",
                "s1",
                "--agent",
                "developer",
            ],
        ),
        case(
            "context",
            json!({"target": "TASK-002", "session": "s1", "agent": "developer"}),
            &[
                "context",
                "--session",
                "s1",
                "--agent",
                "developer",
                "--task",
                "TASK-002",
            ],
        ),
        case(
            "session_package_add",
            json!({"session": "s1", "type": "research", "file": "notes/auth.md", "producer": "requirements_engineer",
                   "consumers": ["developer"], "priority": "high", "summary": "Token refresh flow, password=hunter2secret"}),
            &[
                "session",
                "package",
                "add",
                "--session",
                "s1",
                "--type",
                "research",
                "--file",
                "notes/auth.md",
                "--producer",
                "requirements_engineer",
                "--consumers",
                "developer",
                "--priority",
                "high",
                "--summary",
                "Token refresh flow, password=hunter2secret",
            ],
        ),
        case(
            "session_package_list",
            json!({"session": "s1", "agent": "developer", "format": "json"}),
            &[
                "session",
                "package",
                "list",
                "--session",
                "s1",
                "--agent",
                "developer",
                "--format",
                "json",
            ],
        ),
        Case {
            renamed: Some(("--window", "window")),
            ..case(
                "context",
                json!({"target": "TASK-002", "session": "s1", "agent": "developer", "window": 0}),
                &[
                    "context",
                    "TASK-002",
                    "--session",
                    "s1",
                    "--agent",
                    "developer",
                    "--window",
                    "0",
                ],
            )
        },
        case(
            "session_error_match",
            json!({"project": "notes", "message": "Cannot find module '@/lib'", "limit": 3}),
            &[
                "session",
                "error",
                "match",
                "--project",
                "notes",
                "--message",
                "Cannot find module '@/lib'",
            ],
        ),
    ];
    run_cases(NOTES, with_package_file, cases);
}

#[test]
fn a_malformed_spec_reads_the_same_in_every_context() {
    let dir = common::copy_fixture(NOTES);
    break_a_spec(dir.path());
    let root = dir.path().to_str().unwrap();

    let (code, _, plain) = common::run(&["context", "TASK-002", "--root", root]);
    assert_eq!(code, 2, "{plain}");
    assert!(
        plain.contains("SPEC-SYNC-001.md:4:7: invalid YAML frontmatter"),
        "{plain}"
    );
    // The session context reads the same graph, so it reports the same problem the same way
    // (it used to say only `error: 1 file problem(s)`).
    let (code, _, zoned) = cli_at(
        NOW,
        &[
            "context",
            "--session",
            "s1",
            "--agent",
            "developer",
            "--task",
            "TASK-002",
            "--root",
            root,
        ],
    );
    assert_eq!(code, 2, "{zoned}");
    assert_eq!(zoned, plain);

    run_cases(
        NOTES,
        break_a_spec,
        vec![
            case(
                "context",
                json!({"target": "TASK-002"}),
                &["context", "TASK-002"],
            ),
            case(
                "context",
                json!({"target": "TASK-002", "session": "s1", "agent": "developer"}),
                &[
                    "context",
                    "--session",
                    "s1",
                    "--agent",
                    "developer",
                    "--task",
                    "TASK-002",
                ],
            ),
            case("show", json!({"id": "TASK-002"}), &["show", "TASK-002"]),
        ],
    );
}
