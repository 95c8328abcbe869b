//! `brief serve`: the MCP server driven over stdio with raw JSON-RPC (always), and by the
//! official MCP Python SDK over stdio and HTTP (`tests/mcp/client.py`) when it is installed
//! — `.ci/run` installs it and sets `BRIEF_MCP_PYTHON`, which makes those tests mandatory.
#![cfg(feature = "mcp")]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");

/// A `brief serve` process spoken to line by line.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    fn start(root: &Path) -> Server {
        Server::start_with(root, &[])
    }

    fn start_with(root: &Path, env: &[(&str, &str)]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_brief"))
            .args(["serve", "--root"])
            .arg(root)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start brief serve");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = Server {
            child,
            stdin,
            stdout,
        };
        let hello = server.request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "brief-test", "version": "0"}}),
        );
        assert_eq!(hello["result"]["serverInfo"]["name"], "brief", "{hello}");
        server.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        server
    }

    fn send_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next message that answers `id` (errors without an id are skipped but collected).
    fn answer(&mut self, id: u64) -> Value {
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).unwrap();
            assert!(n > 0, "the server closed stdout before answering {id}");
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("server wrote a non-JSON line ({e}): {line}"));
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(&line.to_string());
        self.answer(id)
    }

    fn call(&mut self, id: u64, tool: &str, arguments: Value) -> (bool, String) {
        let reply = self.request(
            id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        );
        let result = &reply["result"];
        assert!(result.is_object(), "tools/call {tool} failed: {reply}");
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string();
        (result["isError"] == json!(true), text)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn tools_return_the_bytes_the_cli_prints() {
    let dir = common::copy_fixture(EXAMPLE);
    let root = dir.path().to_str().unwrap();
    let mut server = Server::start(dir.path());
    let listed = server.request(2, "tools/list", json!({}));
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "context",
            "search",
            "show",
            "check",
            "lenses",
            "session_package_add",
            "session_package_list",
            "session_package_consume",
            "session_error_record",
            "session_error_feedback",
            "session_error_match"
        ]
    );

    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "context",
            json!({"target": "CHECKOUT-01"}),
            vec!["context", "CHECKOUT-01"],
        ),
        (
            "context",
            json!({"target": "CHECKOUT-01", "budget": 900, "format": "json", "depth": 1}),
            vec![
                "context",
                "CHECKOUT-01",
                "--budget",
                "900",
                "--format",
                "json",
                "--depth",
                "1",
            ],
        ),
        (
            "context",
            json!({"target": "payment retries", "format": "text"}),
            vec!["context", "payment retries", "--format", "text"],
        ),
        (
            "search",
            json!({"query": "payment", "limit": 4}),
            vec!["search", "payment", "--limit", "4"],
        ),
        (
            "show",
            json!({"id": "CHECKOUT-01", "detail": "summary"}),
            vec!["show", "CHECKOUT-01", "--detail", "summary"],
        ),
        (
            "check",
            json!({"format": "json"}),
            vec!["check", "--format", "json"],
        ),
        ("lenses", json!({}), vec!["lenses"]),
    ];
    for (n, (tool, arguments, command)) in cases.into_iter().enumerate() {
        assert_same_as_cli(&mut server, 10 + n as u64, tool, arguments, &command, root);
    }
}

/// Calls `tool` and runs `brief COMMAND --root ROOT`: both succeed with the same bytes.
fn assert_same_as_cli(
    server: &mut Server,
    id: u64,
    tool: &str,
    arguments: Value,
    command: &[&str],
    root: &str,
) {
    let (is_error, text) = server.call(id, tool, arguments.clone());
    let mut args = command.to_vec();
    args.extend(["--root", root]);
    let (code, stdout, stderr) = common::run(&args);
    assert_eq!(code, 0, "brief {command:?}: {stderr}");
    assert!(!is_error, "{tool} {arguments}: {text}");
    assert_eq!(
        text, stdout,
        "{tool} {arguments} differs from brief {command:?}"
    );
}

#[test]
fn bad_requests_are_answered_and_the_server_keeps_serving() {
    let dir = common::copy_fixture(EXAMPLE);
    let root = dir.path().to_str().unwrap();
    let mut server = Server::start(dir.path());
    let mut id = 100;
    let mut still_serving = |server: &mut Server, after: &str| {
        id += 1;
        let (is_error, text) =
            server.call(id, "show", json!({"id": "CHECKOUT-01", "detail": "meta"}));
        assert!(
            !is_error && text.contains("CHECKOUT-01"),
            "no answer after {after}: {text}"
        );
    };

    for garbage in [
        "{not json",
        "[1, 2",
        "null",
        "\"text\"",
        r#"{"jsonrpc":"2.0","id":7}"#,
    ] {
        server.send_line(garbage);
        still_serving(&mut server, garbage);
    }
    let unknown = server.request(20, "bogus/method", json!({}));
    assert!(unknown["error"].is_object(), "{unknown}");
    still_serving(&mut server, "an unknown method");
    let no_tool = server.request(21, "tools/call", json!({"name": "nope", "arguments": {}}));
    assert!(
        no_tool["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("nope"),
        "{no_tool}"
    );
    still_serving(&mut server, "an unknown tool");
    let not_object = server.request(22, "tools/call", json!({"name": "show", "arguments": 5}));
    assert!(not_object["error"].is_object(), "{not_object}");
    still_serving(&mut server, "arguments that are not an object");

    // Tool errors: the message the CLI prints on stderr, as an `isError` result.
    let (is_error, text) = server.call(30, "context", json!({"target": "CHECKOUT-99"}));
    let (code, _, stderr) = common::run(&["context", "CHECKOUT-99", "--root", root]);
    assert!(is_error && code == 1);
    assert_eq!(text, stderr);
    still_serving(&mut server, "an unknown target");
    for (arguments, needle) in [
        (
            json!({"target": "CHECKOUT-01", "detail": "everything"}),
            "unknown variant `everything`",
        ),
        (
            json!({"target": "CHECKOUT-01", "depth": "deep"}),
            "invalid depth `deep`",
        ),
        (
            json!({"target": "CHECKOUT-01", "budget": -3}),
            "invalid arguments",
        ),
        (json!({"target": "CHECKOUT-01", "budget": 3}), "--budget"),
        (json!({"depth": 2}), "missing field `target`"),
        (
            json!({"target": "CHECKOUT-01", "verbose": true}),
            "unknown field `verbose`",
        ),
        (
            json!({"target": "CHECKOUT-01", "lens": "telescope"}),
            "telescope",
        ),
    ] {
        let (is_error, text) = server.call(31, "context", arguments.clone());
        assert!(is_error, "{arguments}: {text}");
        assert!(
            text.contains(needle),
            "{arguments}: {text:?} lacks {needle:?}"
        );
        still_serving(&mut server, &arguments.to_string());
    }
}

#[test]
fn a_changed_file_is_served_without_a_restart() {
    let dir = common::copy_fixture(EXAMPLE);
    let mut server = Server::start(dir.path());
    let (_, before) = server.call(2, "show", json!({"id": "CHECKOUT-01", "detail": "meta"}));
    assert!(before.contains("Card payment authorization"), "{before}");
    let file = dir
        .path()
        .join("specgraph/nodes/behaviors/CHECKOUT-01.json");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace(
            "Card payment authorization",
            "Card payment authorisation (3-D Secure)",
        ),
    )
    .unwrap();
    // The watcher reports the change asynchronously: poll for it (not a timing assertion —
    // only an upper bound on how long to wait).
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut id = 3;
    loop {
        let (_, now) = server.call(id, "show", json!({"id": "CHECKOUT-01", "detail": "meta"}));
        if now.contains("authorisation (3-D Secure)") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the change was never served: {now}"
        );
        std::thread::sleep(Duration::from_millis(100));
        id += 1;
    }
}

#[test]
fn resources_and_prompt() {
    let dir = common::copy_fixture(common::PAYMENTS);
    let mut server = Server::start(dir.path());
    let listed = server.request(2, "resources/list", json!({}));
    let uris: Vec<&str> = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["brief://identity", "brief://nodes"]);
    let identity = server.request(3, "resources/read", json!({"uri": "brief://identity"}));
    let text = identity["result"]["contents"][0]["text"].as_str().unwrap();
    let identity_id = common::run(&[
        "search",
        "identity",
        "--kind",
        "identity",
        "--format",
        "json",
        "--root",
        dir.path().to_str().unwrap(),
    ])
    .1;
    let identity_id: Value = serde_json::from_str(&identity_id).unwrap();
    let id = identity_id[0]["id"].as_str().unwrap();
    let (_, shown, _) = common::run(&["show", id, "--root", dir.path().to_str().unwrap()]);
    assert_eq!(text, shown);
    let nodes = server.request(4, "resources/read", json!({"uri": "brief://nodes"}));
    let listing = nodes["result"]["contents"][0]["text"].as_str().unwrap();
    let ids: Vec<&str> = listing
        .lines()
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
    assert!(ids.contains(&id) && ids.len() > 5, "{listing}");
    let missing = server.request(5, "resources/read", json!({"uri": "brief://node/NOPE-1"}));
    assert!(
        missing["error"]["message"]
            .as_str()
            .unwrap()
            .contains("NOPE-1"),
        "{missing}"
    );

    let prompt = server.request(
        6,
        "prompts/get",
        json!({"name": "brief-before-task", "arguments": {"target": "TASK-031"}}),
    );
    let words = prompt["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(
        words.contains("`context`") && words.contains("\"TASK-031\""),
        "{words}"
    );
    let no_target = server.request(7, "prompts/get", json!({"name": "brief-before-task"}));
    assert!(no_target["error"].is_object(), "{no_target}");
}

#[test]
fn serve_refuses_a_remote_address_and_a_folder_without_a_project() {
    let (code, _, stderr) = common::run(&["serve", "--http", "0.0.0.0:0", "--root", EXAMPLE]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--allow-remote"), "{stderr}");
    let empty = tempfile::tempdir().unwrap();
    let (code, _, stderr) = common::run(&["serve", "--root", empty.path().to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no sources"), "{stderr}");
}

/// The Python interpreter with the `mcp` SDK: `BRIEF_MCP_PYTHON` (then it must work), or a
/// `python3` that happens to have it.
fn python_sdk() -> Option<String> {
    let required = std::env::var("BRIEF_MCP_PYTHON").ok();
    let python = required.clone().unwrap_or_else(|| "python3".into());
    let has_sdk = Command::new(&python)
        .args(["-c", "import mcp.client.stdio, mcp.client.streamable_http"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    match (has_sdk, required) {
        (true, _) => Some(python),
        (false, Some(p)) => panic!("BRIEF_MCP_PYTHON={p} cannot import the `mcp` SDK"),
        (false, None) => {
            eprintln!(
                "skipped: no Python with the `mcp` SDK (pip install mcp, or set BRIEF_MCP_PYTHON); .ci/run runs it"
            );
            None
        }
    }
}

fn python_client(transport: &str) {
    let Some(python) = python_sdk() else { return };
    let dir = common::copy_fixture(EXAMPLE);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/client.py");
    let out = Command::new(python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_brief"))
        .arg(dir.path())
        .arg(transport)
        .output()
        .expect("run the Python MCP client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains(&format!("ok: {transport}")),
        "Python MCP client over {transport} failed:\n{stdout}\n{stderr}"
    );
}

#[test]
fn python_sdk_over_stdio() {
    python_client("stdio");
}

#[test]
fn python_sdk_over_http() {
    python_client("http");
}

#[test]
fn tana_contexts_match_the_cli() {
    let tana = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tana");
    let dir = common::copy_fixture(tana);
    let root = dir.path().to_str().unwrap();
    let mut server = Server::start(dir.path());
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"target": "pjApollo01", "lens": "meeting-prep", "depth": 2}),
            vec![
                "context",
                "pjApollo01",
                "--lens",
                "meeting-prep",
                "--depth",
                "2",
            ],
        ),
        (
            json!({"target": "pjApollo01", "include_fields": false, "format": "json"}),
            vec![
                "context",
                "pjApollo01",
                "--no-include-fields",
                "--format",
                "json",
            ],
        ),
        (
            json!({"target": "kickoff meeting", "format": "text"}),
            vec!["context", "kickoff meeting", "--format", "text"],
        ),
    ];
    for (n, (arguments, command)) in cases.into_iter().enumerate() {
        assert_same_as_cli(
            &mut server,
            10 + n as u64,
            "context",
            arguments,
            &command,
            root,
        );
    }
}

/// The CLI with the clock pinned: (exit code, stdout, stderr).
fn cli_at(now: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_brief"))
        .args(args)
        .env("BRIEF_NOW", now)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn session_tools_do_what_the_session_commands_do() {
    // Two identical projects: one driven through MCP, one through the CLI, same clock.
    let now = "1795000000";
    let over_mcp = common::copy_fixture(EXAMPLE);
    let over_cli = common::copy_fixture(EXAMPLE);
    let cli_root = over_cli.path().to_str().unwrap().to_string();
    let mut server = Server::start_with(over_mcp.path(), &[("BRIEF_NOW", now)]);
    let mut id = 10;
    let mut both = |server: &mut Server, tool: &str, arguments: Value, command: &[&str]| {
        id += 1;
        let (is_error, text) = server.call(id, tool, arguments.clone());
        let mut args: Vec<&str> = command.to_vec();
        args.extend(["--root", &cli_root]);
        let (code, stdout, stderr) = cli_at(now, &args);
        if code == 0 {
            assert!(!is_error, "{tool} {arguments}: {text}");
            assert_eq!(
                text, stdout,
                "{tool} {arguments} differs from brief {command:?}"
            );
        } else {
            assert!(
                is_error,
                "{tool} {arguments} succeeded where the CLI exited {code}"
            );
            assert_eq!(
                text, stderr,
                "{tool} {arguments}: error differs from the CLI's"
            );
        }
        text
    };
    let summary = "Card retries must reuse the idempotency key; staging key AKIAIOSFODNN7EXAMPLE leaked in logs";
    both(
        &mut server,
        "session_package_add",
        json!({"session": "s1", "group": "group_a", "type": "research", "file": "research/retries.md",
               "producer": "requirements_engineer", "consumers": ["developer", "qa_expert"],
               "priority": "high", "summary": summary}),
        &[
            "session",
            "package",
            "add",
            "--session",
            "s1",
            "--group",
            "group_a",
            "--type",
            "research",
            "--file",
            "research/retries.md",
            "--producer",
            "requirements_engineer",
            "--consumers",
            "developer,qa_expert",
            "--priority",
            "high",
            "--summary",
            summary,
        ],
    );
    both(
        &mut server,
        "session_package_add",
        json!({"session": "s1", "type": "handoff", "file": "handoff/qa.md", "producer": "developer",
               "consumers": ["qa_expert"], "priority": "critical", "summary": "Retry path done; test 3-D Secure fallback", "format": "json"}),
        &[
            "session",
            "package",
            "add",
            "--session",
            "s1",
            "--type",
            "handoff",
            "--file",
            "handoff/qa.md",
            "--producer",
            "developer",
            "--consumers",
            "qa_expert",
            "--priority",
            "critical",
            "--summary",
            "Retry path done; test 3-D Secure fallback",
            "--format",
            "json",
        ],
    );
    let listed = both(
        &mut server,
        "session_package_list",
        json!({"session": "s1", "agent": "qa_expert", "group": "group_a"}),
        &[
            "session",
            "package",
            "list",
            "--session",
            "s1",
            "--agent",
            "qa_expert",
            "--group",
            "group_a",
        ],
    );
    assert!(!listed.contains("AKIAIOSFODNN7EXAMPLE"), "{listed}");
    both(
        &mut server,
        "session_package_consume",
        json!({"session": "s1", "agent": "qa_expert", "id": 1}),
        &[
            "session",
            "package",
            "consume",
            "--session",
            "s1",
            "--agent",
            "qa_expert",
            "--id",
            "1",
        ],
    );
    both(
        &mut server,
        "session_package_list",
        json!({"session": "s1", "agent": "qa_expert", "format": "json"}),
        &[
            "session",
            "package",
            "list",
            "--session",
            "s1",
            "--agent",
            "qa_expert",
            "--format",
            "json",
        ],
    );
    let message = "TypeError: Cannot read properties of undefined (reading 'token') at /srv/pay/src/retry.ts:41:7";
    let recorded = both(
        &mut server,
        "session_error_record",
        json!({"project": "payments", "message": message, "solution": "Await the session before reading its token", "lang": "ts", "format": "json"}),
        &[
            "session",
            "error",
            "record",
            "--project",
            "payments",
            "--message",
            message,
            "--solution",
            "Await the session before reading its token",
            "--lang",
            "ts",
            "--format",
            "json",
        ],
    );
    let hash = serde_json::from_str::<Value>(&recorded).unwrap()["pattern"]["hash"]
        .as_str()
        .unwrap()
        .to_string();
    both(
        &mut server,
        "session_error_feedback",
        json!({"project": "payments", "hash": hash, "helped": true}),
        &[
            "session",
            "error",
            "feedback",
            "--project",
            "payments",
            "--hash",
            &hash,
            "--helped",
        ],
    );
    let other_line = "TypeError: Cannot read properties of undefined (reading 'token') at /home/ci/pay/src/retry.ts:97:12";
    let matched = both(
        &mut server,
        "session_error_match",
        json!({"project": "payments", "message": other_line}),
        &[
            "session",
            "error",
            "match",
            "--project",
            "payments",
            "--message",
            other_line,
        ],
    );
    assert!(matched.contains("Await the session"), "{matched}");
    both(
        &mut server,
        "session_package_list",
        json!({"session": "s9", "agent": "developer"}),
        &[
            "session",
            "package",
            "list",
            "--session",
            "s9",
            "--agent",
            "developer",
        ],
    );
    let zone = both(
        &mut server,
        "context",
        json!({"target": "CHECKOUT-01", "session": "s1", "agent": "developer", "group": "group_a",
               "model": "claude", "used_tokens": 20000, "budget": 3000}),
        &[
            "context",
            "CHECKOUT-01",
            "--session",
            "s1",
            "--agent",
            "developer",
            "--group",
            "group_a",
            "--model",
            "claude",
            "--used-tokens",
            "20000",
            "--budget",
            "3000",
        ],
    );
    assert!(
        zone.contains("CHECKOUT-01") && zone.contains("retries"),
        "{zone}"
    );
}
