//! `brief hook` with recorded Claude Code hook events (the fields its hooks reference lists:
//! `session_id`, `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`, and per
//! event `prompt` or `tool_name`/`tool_input`): valid hook JSON with the context, or nothing;
//! always exit 0.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::common;

const PAYMENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");
const NOTES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/notes-app");

/// Runs `brief hook ARGS` in `cwd` with `event` on stdin; returns (exit code, stdout, stderr).
fn hook(cwd: &Path, args: &[&str], event: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_brief"))
        .arg("hook")
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(event.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        stderr,
    )
}

/// A `UserPromptSubmit` event as Claude Code writes it.
fn prompt_event(cwd: &Path, prompt: &str) -> String {
    json!({
        "session_id": "0e4c1c5a-6d1c-4a53-9b5e-3d3f6f1b2a10",
        "transcript_path": "/home/dev/.claude/projects/shop/0e4c1c5a.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt
    })
    .to_string()
}

/// A `PreToolUse` (or `PostToolUse`) event for an `Edit` of `file` (absolute).
fn edit_event(cwd: &Path, event: &str, file: &Path) -> String {
    json!({
        "session_id": "0e4c1c5a-6d1c-4a53-9b5e-3d3f6f1b2a10",
        "transcript_path": "/home/dev/.claude/projects/shop/0e4c1c5a.jsonl",
        "cwd": cwd,
        "permission_mode": "acceptEdits",
        "hook_event_name": event,
        "tool_name": "Edit",
        "tool_input": {"file_path": file, "old_string": "a", "new_string": "b"},
        "tool_use_id": "toolu_01ABC123"
    })
    .to_string()
}

fn additional_context(stdout: &str, event: &str) -> String {
    let answer: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"], event,
        "{answer}"
    );
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("additionalContext")
        .to_string()
}

#[test]
fn a_prompt_naming_a_node_gets_its_context_within_the_budget() {
    let dir = common::copy_fixture(PAYMENTS);
    // A generous limit: a debug build on a loaded machine, not the default 200 ms.
    let (code, stdout, stderr) = hook(
        dir.path(),
        &["--time-limit-ms", "20000"],
        &prompt_event(
            dir.path(),
            "Please make checkout-01 retry declined cards once",
        ),
    );
    assert_eq!(code, 0, "{stderr}");
    let context = additional_context(&stdout, "UserPromptSubmit");
    // The same document `brief context` prints at the hook's budget.
    let (_, expected, _) = common::run(&[
        "context",
        "CHECKOUT-01",
        "--budget",
        "800",
        "--root",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(context, expected);
    let bpe = tiktoken_rs::cl100k_base().unwrap();
    assert!(bpe.encode_ordinary(&context).len() <= 800);
}

#[test]
fn the_budget_comes_from_brief_toml() {
    let dir = common::copy_fixture(NOTES);
    std::fs::write(dir.path().join("brief.toml"), "[hook]\nbudget = 300\n").unwrap();
    let (code, stdout, stderr) = hook(
        dir.path(),
        &["--time-limit-ms", "20000"],
        &prompt_event(dir.path(), "what does TASK-002 need?"),
    );
    assert_eq!(code, 0, "{stderr}");
    let context = additional_context(&stdout, "UserPromptSubmit");
    let bpe = tiktoken_rs::cl100k_base().unwrap();
    assert!(bpe.encode_ordinary(&context).len() <= 300, "{context}");
    assert!(context.contains("TASK-002"), "{context}");
}

#[test]
fn an_edit_gets_the_context_of_its_file() {
    let dir = common::copy_fixture(NOTES);
    let file = dir.path().join(".contextia/system/specs/SPEC-SYNC-001.md");
    assert!(file.is_file());
    for event in ["PreToolUse", "PostToolUse"] {
        let (code, stdout, stderr) = hook(
            dir.path(),
            &["--time-limit-ms", "20000"],
            &edit_event(dir.path(), event, &file),
        );
        assert_eq!(code, 0, "{stderr}");
        let context = additional_context(&stdout, event);
        assert!(context.starts_with("# "), "{context}");
    }
}

#[test]
fn nothing_is_printed_when_there_is_nothing_sure_or_nothing_to_read() {
    let dir = common::copy_fixture(PAYMENTS);
    let quiet = |cwd: &Path, args: &[&str], event: &str| {
        let (code, stdout, stderr) = hook(cwd, args, event);
        assert_eq!(code, 0, "{event}: {stderr}");
        assert_eq!(stdout, "", "{event}");
        stderr
    };
    // A prompt naming no node: its words match something in most projects, so nothing.
    quiet(
        dir.path(),
        &["--time-limit-ms", "20000"],
        &prompt_event(dir.path(), "tidy up the readme"),
    );
    // Events brief does not answer, and a tool that changes no file.
    quiet(dir.path(), &[], r#"{"hook_event_name":"Stop","cwd":"/"}"#);
    quiet(
        dir.path(),
        &[],
        r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
    );
    // Not JSON: a note, nothing else.
    let note = quiet(dir.path(), &[], "{not json");
    assert!(note.contains("brief hook"), "{note}");
    // No project, and a project that cannot be read.
    let nowhere = tempfile::tempdir().unwrap();
    quiet(
        nowhere.path(),
        &[],
        &prompt_event(nowhere.path(), "fix CHECKOUT-01"),
    );
    let broken = common::copy_fixture(PAYMENTS);
    std::fs::write(broken.path().join("brief.toml"), "budget = [").unwrap();
    let note = quiet(
        broken.path(),
        &[],
        &prompt_event(broken.path(), "fix CHECKOUT-01"),
    );
    assert!(note.contains("brief.toml"), "{note}");
    // A file outside the project.
    quiet(
        dir.path(),
        &["--time-limit-ms", "20000"],
        &edit_event(dir.path(), "PreToolUse", Path::new("/etc/hosts")),
    );
}

#[test]
fn past_its_time_limit_a_hook_gives_up_quietly() {
    let dir = common::copy_fixture(PAYMENTS);
    let (code, stdout, stderr) = hook(
        dir.path(),
        &["--time-limit-ms", "0"],
        &prompt_event(dir.path(), "fix CHECKOUT-01"),
    );
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert!(stderr.contains("within 0 ms"), "{stderr}");
}
