//! Snapshot tests of the three formats on the shipped examples. A change to a rendered
//! document must show up here as a reviewed snapshot diff.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

fn brief(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_brief"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("the brief binary runs");
    assert!(
        out.status.success(),
        "brief {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("output is UTF-8")
}

#[test]
fn payments_markdown() {
    insta::assert_snapshot!(brief(&[
        "context",
        "CHECKOUT-01",
        "--root",
        "examples/payments"
    ]));
}

#[test]
fn payments_json() {
    insta::assert_snapshot!(brief(&[
        "context",
        "CHECKOUT-01",
        "--root",
        "examples/payments",
        "--format",
        "json",
        "--budget",
        "2500"
    ]));
}

#[test]
fn payments_text() {
    insta::assert_snapshot!(brief(&[
        "context",
        "CHECKOUT-01",
        "--root",
        "examples/payments",
        "--format",
        "text",
        "--depth",
        "1"
    ]));
}

#[test]
fn notes_markdown() {
    insta::assert_snapshot!(brief(&[
        "context",
        "TASK-002",
        "--root",
        "examples/notes-app"
    ]));
}

#[test]
fn notes_json() {
    insta::assert_snapshot!(brief(&[
        "context",
        "TASK-002",
        "--root",
        "examples/notes-app",
        "--format",
        "json",
        "--budget",
        "2000"
    ]));
}

#[test]
fn notes_text() {
    insta::assert_snapshot!(brief(&[
        "context",
        "TASK-002",
        "--root",
        "examples/notes-app",
        "--format",
        "text"
    ]));
}

#[test]
fn show_at_each_detail() {
    for detail in ["full", "summary", "meta"] {
        insta::assert_snapshot!(
            format!("show_dec_plat_01_{detail}"),
            brief(&[
                "show",
                "DEC-PLAT-01",
                "--root",
                "examples/payments",
                "--detail",
                detail
            ])
        );
        insta::assert_snapshot!(
            format!("show_spec_sync_001_{detail}"),
            brief(&[
                "show",
                "SPEC-SYNC-001",
                "--root",
                "examples/notes-app",
                "--detail",
                detail,
                "--format",
                "text"
            ])
        );
    }
}
