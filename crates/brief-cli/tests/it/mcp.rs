//! `brief serve`: the MCP server driven over stdio with raw JSON-RPC (always), and by the
//! official MCP Python SDK over stdio and HTTP (`tests/mcp/client.py`) when it is installed
//! — `.ci/run` installs it and sets `BRIEF_MCP_PYTHON`, which makes those tests mandatory.
#![cfg(feature = "mcp")]

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");

/// How long to wait for a line the server owes us before failing (an upper bound so a missing
/// reply fails the test instead of hanging it; not a timing assertion).
const REPLY_WAIT: Duration = Duration::from_secs(60);

/// A `brief serve` process spoken to line by line. Its stdout is read on a thread, so a reply
/// that never comes fails the test instead of hanging it.
pub(crate) struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Server {
    pub(crate) fn start(root: &Path) -> Server {
        Server::start_with(root, &[])
    }

    pub(crate) fn start_with(root: &Path, env: &[(&str, &str)]) -> Server {
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
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = Server {
            child,
            stdin,
            lines,
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
        self.send_bytes(line.as_bytes());
    }

    /// Writes `bytes` and a newline: one line, whatever it holds.
    fn send_bytes(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next line the server writes, as JSON.
    fn next_message(&mut self, waiting_for: &str) -> Value {
        let line = self
            .lines
            .recv_timeout(REPLY_WAIT)
            .unwrap_or_else(|e| panic!("no reply to {waiting_for} ({e})"));
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("server wrote a non-JSON line ({e}): {line}"))
    }

    /// The next message that answers `id` (messages for other ids are skipped).
    fn answer(&mut self, id: u64) -> Value {
        loop {
            let message = self.next_message(&format!("request {id}"));
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    pub(crate) fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(&line.to_string());
        self.answer(id)
    }

    fn call(&mut self, id: u64, tool: &str, arguments: Value) -> (bool, String) {
        let (failed, blocks) = self.call_blocks(id, tool, &arguments);
        (failed, blocks.into_iter().next().unwrap_or_default())
    }

    /// A tool call's outcome: whether it is a tool error, and its text blocks in order.
    pub(crate) fn call_blocks(
        &mut self,
        id: u64,
        tool: &str,
        arguments: &Value,
    ) -> (bool, Vec<String>) {
        let reply = self.request(
            id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        );
        let result = &reply["result"];
        assert!(result.is_object(), "tools/call {tool} failed: {reply}");
        let blocks = result["content"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|block| block["text"].as_str().unwrap_or("").to_string())
            .collect();
        (result["isError"] == json!(true), blocks)
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
            "impact",
            "explain",
            "diff",
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
        (
            "impact",
            json!({"ids": ["POL-CHK-01"]}),
            vec!["impact", "POL-CHK-01"],
        ),
        (
            "impact",
            json!({"ids": ["POL-CHK-01", "DEC-CHK-04"], "format": "json", "depth": 1}),
            vec![
                "impact",
                "POL-CHK-01",
                "DEC-CHK-04",
                "--format",
                "json",
                "--depth",
                "1",
            ],
        ),
        (
            "explain",
            json!({"id": "POL-CHK-01", "for": "CHECKOUT-01", "budget": 900}),
            vec![
                "explain",
                "POL-CHK-01",
                "--for",
                "CHECKOUT-01",
                "--budget",
                "900",
            ],
        ),
        (
            "explain",
            json!({"id": "REFUNDS-01", "for": "CHECKOUT-01", "format": "json"}),
            vec![
                "explain",
                "REFUNDS-01",
                "--for",
                "CHECKOUT-01",
                "--format",
                "json",
            ],
        ),
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
        let reply = server.next_message(garbage);
        assert!(reply["error"]["code"].is_i64(), "{garbage}: {reply}");
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
        // MCP error texts speak the tool's parameter names.
        (
            json!({"target": "CHECKOUT-01", "budget": 3}),
            "(use budget 91)",
        ),
        (json!({"depth": 2}), "missing field `target`"),
        (
            json!({"target": "CHECKOUT-01", "verbose": true}),
            "unknown parameter `verbose`",
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
fn tool_errors_name_parameters_and_never_alter_what_the_user_gave() {
    let dir = common::copy_fixture(EXAMPLE);
    let root = dir.path().to_str().unwrap();
    let mut server = Server::start(dir.path());
    // The user's own text holds a flag's name: it is quoted back as given.
    let (is_error, text) = server.call(
        40,
        "search",
        json!({"query": "checkout", "kind": "--budget"}),
    );
    assert!(is_error, "{text}");
    assert!(text.contains("no node has kind `--budget`;"), "{text}");
    let (_, _, stderr) = common::run(&["search", "checkout", "--kind=--budget", "--root", root]);
    assert_eq!(text, stderr);
    let (is_error, text) = server.call(
        41,
        "session_package_add",
        json!({"session": "s1", "type": "research", "file": "../--budget/x.md",
               "producer": "pm", "consumers": ["developer"], "priority": "high", "summary": "notes"}),
    );
    assert!(is_error, "{text}");
    assert_eq!(
        text,
        "error: file `../--budget/x.md` must be a path relative to the project root, without `..` \
         (e.g. bazinga/artifacts/S/research.md)\n"
    );
    // A parameter the message names is the tool's parameter; the CLI names its flag.
    let (is_error, text) = server.call(42, "context", json!({"target": "CHECKOUT-01", "seeds": 0}));
    assert!(is_error, "{text}");
    assert_eq!(
        text,
        "error: seeds must be at least 1 (how many search hits start the context)\n"
    );
    let (code, _, stderr) = common::run(&[
        "session",
        "package",
        "add",
        "--session",
        "s1",
        "--type",
        "research",
        "--file=../--budget/x.md",
        "--producer",
        "pm",
        "--consumers",
        "developer",
        "--priority",
        "high",
        "--summary",
        "notes",
        "--root",
        root,
    ]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: --file `../--budget/x.md` must be a path relative to the project root, without \
         `..` (e.g. bazinga/artifacts/S/research.md)\n"
    );
}

/// Sends one `show` call and asserts that the very next line the server writes answers it.
fn assert_still_serving(server: &mut Server, id: u64, after: &str) {
    let line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": "show", "arguments": {"id": "CHECKOUT-01", "detail": "meta"}}});
    server.send_line(&line.to_string());
    let reply = server.next_message(after);
    assert_eq!(reply["id"], json!(id), "after {after}: {reply}");
    let text = reply["result"]["content"][0]["text"].as_str().unwrap_or("");
    assert!(
        text.contains("CHECKOUT-01"),
        "no answer after {after}: {reply}"
    );
}

#[test]
fn malformed_lines_get_json_rpc_errors_and_the_server_keeps_serving() {
    let dir = common::copy_fixture(EXAMPLE);
    let mut server = Server::start(dir.path());
    let huge_query = "a".repeat(20 * 1024 * 1024);
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{{"name":"search","arguments":{{"query":"{huge_query}"}}}}}}"#
    );
    // (the line, the error code, the id the reply must carry)
    let cases: Vec<(Vec<u8>, i64, Value)> = vec![
        (b"garbage".to_vec(), -32700, Value::Null),
        (b"{not json".to_vec(), -32700, Value::Null),
        (br#"{"jsonrpc":"2.0","id":51,"#.to_vec(), -32700, Value::Null),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":40,\"method\":\"tools/list\",\"params\":{\"x\":\"\xff\xfe\"}}"
                .to_vec(),
            -32700,
            Value::Null,
        ),
        (huge.into_bytes(), -32700, Value::Null),
        (br#"{"id":42,"method":"tools/list"}"#.to_vec(), -32600, json!(42)),
        (
            br#"{"jsonrpc":"1.0","id":43,"method":"tools/list"}"#.to_vec(),
            -32600,
            json!(43),
        ),
        (
            br#"{"jsonrpc":2,"id":47,"method":"tools/list"}"#.to_vec(),
            -32600,
            json!(47),
        ),
        (
            br#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}"#.to_vec(),
            -32600,
            Value::Null,
        ),
        (
            br#"{"jsonrpc":"2.0","id":48,"method":5}"#.to_vec(),
            -32600,
            json!(48),
        ),
        (br#"{"jsonrpc":"2.0","id":7}"#.to_vec(), -32600, json!(7)),
        (b"null".to_vec(), -32600, Value::Null),
        (b"\"text\"".to_vec(), -32600, Value::Null),
        (b"[]".to_vec(), -32600, Value::Null),
        (
            br#"[{"jsonrpc":"2.0","id":49,"method":"tools/list"}]"#.to_vec(),
            -32600,
            Value::Null,
        ),
        (
            br#"{"jsonrpc":"2.0","id":44,"method":"tools/call","params":"show"}"#.to_vec(),
            -32602,
            json!(44),
        ),
        (
            br#"{"jsonrpc":"2.0","id":45,"method":"tools/call","params":[1]}"#.to_vec(),
            -32602,
            json!(45),
        ),
        (
            br#"{"jsonrpc":"2.0","id":46,"method":"tools/call","params":{"name":5}}"#.to_vec(),
            -32602,
            json!(46),
        ),
        (
            br#"{"jsonrpc":"2.0","id":"r-50","method":"resources/read","params":{"uri":7}}"#
                .to_vec(),
            -32602,
            json!("r-50"),
        ),
    ];
    let mut id = 1000;
    for (line, code, reply_id) in cases {
        let shown = String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned();
        server.send_bytes(&line);
        let reply = server.next_message(&shown);
        assert_eq!(reply["jsonrpc"], "2.0", "{shown}: {reply}");
        assert_eq!(reply["error"]["code"], json!(code), "{shown}: {reply}");
        assert_eq!(reply["id"], reply_id, "{shown}: {reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{shown}: {reply}"
        );
        id += 1;
        assert_still_serving(&mut server, id, &shown);
    }

    // No reply is owed to a notification, however wrong, nor to a blank line: the next line
    // the server writes answers the next request.
    for quiet in [
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"soon"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/made-up"}"#,
        "",
        "   ",
    ] {
        server.send_line(quiet);
        id += 1;
        assert_still_serving(&mut server, id, quiet);
    }

    // A byte-order mark before a request is allowed (RFC 8259 §8.1).
    server.send_bytes(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":60,\"method\":\"ping\"}");
    let pong = server.next_message("a request after a BOM");
    assert_eq!(
        (pong["id"].clone(), pong["result"].clone()),
        (json!(60), json!({})),
        "{pong}"
    );
}

#[test]
fn absurd_numbers_are_clamped_not_misread() {
    let dir = common::copy_fixture(EXAMPLE);
    let root = dir.path().to_str().unwrap();
    // The file the session package names (a package's file must exist).
    std::fs::create_dir_all(dir.path().join("notes")).unwrap();
    std::fs::write(dir.path().join("notes/r.md"), "# Retries\n").unwrap();
    let mut server = Server::start(dir.path());
    // Every hit, as a limit larger than the project asks for.
    let (is_error, all) = server.call(2, "search", json!({"query": "payment", "limit": 100_000}));
    assert!(!is_error && all.lines().count() > 4, "{all}");
    let mut id = 3;
    for limit in [
        u64::MAX,
        i64::MAX as u64,
        i64::MAX as u64 + 1,
        u32::MAX as u64 + 1,
    ] {
        id += 1;
        let (is_error, text) =
            server.call(id, "search", json!({"query": "payment", "limit": limit}));
        assert!(!is_error, "limit {limit}: {text}");
        assert_eq!(text, all, "limit {limit}");
        let (code, stdout, stderr) = common::run(&[
            "search",
            "payment",
            "--limit",
            &limit.to_string(),
            "--root",
            root,
        ]);
        assert_eq!(
            (code, stdout.as_str()),
            (0, all.as_str()),
            "--limit {limit}: {stderr}"
        );
    }
    // Numbers no integer parameter can hold are refused with a clear message.
    let past_u64: Value = serde_json::from_str("18446744073709551616").unwrap();
    for limit in [json!(1e300), json!(-1), past_u64] {
        id += 1;
        let (is_error, text) =
            server.call(id, "search", json!({"query": "payment", "limit": limit}));
        assert!(
            is_error && text.contains("invalid arguments"),
            "limit {limit}: {text}"
        );
    }
    id += 1;
    let (is_error, text) = server.call(
        id,
        "context",
        json!({"target": "CHECKOUT-01", "budget": u64::MAX, "depth": u32::MAX}),
    );
    assert!(!is_error && text.contains("CHECKOUT-01"), "{text}");
    // The session tools' limits.
    id += 1;
    let (is_error, text) = server.call(
        id,
        "session_package_add",
        json!({"session": "s1", "type": "research", "file": "notes/r.md", "producer": "developer",
               "consumers": ["qa_expert"], "priority": "high", "summary": "Retries reuse the idempotency key"}),
    );
    assert!(!is_error, "{text}");
    id += 1;
    let (is_error, text) = server.call(
        id,
        "session_package_list",
        json!({"session": "s1", "agent": "qa_expert", "limit": u64::MAX}),
    );
    assert!(!is_error && text.contains("idempotency key"), "{text}");
    id += 1;
    let message = "TypeError: Cannot read properties of undefined (reading 'token')";
    let (is_error, text) = server.call(
        id,
        "session_error_record",
        json!({"project": "p", "message": message, "solution": "Await the session first"}),
    );
    assert!(!is_error, "{text}");
    for limit in [u64::MAX, i64::MAX as u64 + 1] {
        id += 1;
        let (is_error, text) = server.call(
            id,
            "session_error_match",
            json!({"project": "p", "message": message, "limit": limit}),
        );
        assert!(
            !is_error && text.contains("Await the session"),
            "{limit}: {text}"
        );
    }
    id += 1;
    assert_still_serving(&mut server, id, "absurd numbers");
}

/// The tools for which finding nothing (the CLI's exit 1) is an answer, not a tool error.
pub(crate) const EMPTY_IS_A_RESULT: [&str; 3] =
    ["search", "session_package_list", "session_error_match"];

/// The port `brief serve --http 127.0.0.1:0` listens on, read from its stderr.
fn http_port(child: &mut Child) -> u16 {
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let port = line
        .trim()
        .rsplit_once(':')
        .and_then(|(_, rest)| rest.strip_suffix("/mcp"))
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    port
}

/// POSTs an `initialize` request with the given `Origin` header; returns the status code.
fn post_initialize(port: u16, origin: Option<&str>) -> u16 {
    post_initialize_to(port, &format!("127.0.0.1:{port}"), origin)
}

/// Like `post_initialize`, with the given `Host` header.
fn post_initialize_to(port: u16, host: &str, origin: Option<&str>) -> u16 {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\n{origin}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(REPLY_WAIT)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).unwrap();
    let status = String::from_utf8_lossy(&head[9..12]).into_owned();
    status
        .parse()
        .unwrap_or_else(|_| panic!("no status in {head:?}"))
}

#[test]
fn http_refuses_origins_that_are_not_plain_loopback_origins() {
    let dir = common::copy_fixture(EXAMPLE);
    let mut child = Command::new(env!("CARGO_BIN_EXE_brief"))
        .args(["serve", "--http", "127.0.0.1:0", "--no-watch", "--root"])
        .arg(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start brief serve --http");
    let port = http_port(&mut child);
    let allowed = [
        None,
        Some(format!("http://localhost:{port}")),
        Some(format!("http://127.0.0.1:{port}")),
        Some(format!("http://[::1]:{port}")),
    ];
    let refused = [
        format!("http://evil.example@localhost:{port}"),
        format!("http://user:pass@127.0.0.1:{port}"),
        format!("http://@localhost:{port}"),
        format!("http://localhost:{port}@evil.example"),
        format!("http://evil.example:{port}"),
        format!("http://localhost:{port}/mcp"),
        format!("http://localhost:{port}?x=1"),
        format!("http://localhost:{port}#x"),
        "http://".to_string(),
        "localhost".to_string(),
    ];
    let mut report = Vec::new();
    for origin in &allowed {
        let status = post_initialize(port, origin.as_deref());
        if status != 200 {
            report.push(format!("{origin:?} refused ({status})"));
        }
    }
    for origin in &refused {
        let status = post_initialize(port, Some(origin));
        if status != 403 {
            report.push(format!("{origin} answered {status}, not 403"));
        }
    }
    // The same trick in `Host` (which rmcp would read as host 127.0.0.1).
    let status = post_initialize_to(port, &format!("evil.example@127.0.0.1:{port}"), None);
    if status != 400 {
        report.push(format!("Host with userinfo answered {status}, not 400"));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(report.is_empty(), "{report:#?}");
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
fn serve_refuses_a_remote_address() {
    let (code, _, stderr) = common::run(&["serve", "--http", "0.0.0.0:0", "--root", EXAMPLE]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--allow-remote"), "{stderr}");
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

// Ignored by default, so a run without the SDK says "ignored" rather than a silent "ok":
// `cargo test -p brief-cli --test it -- --ignored python_sdk` runs them (`.ci/run` does,
// with BRIEF_MCP_PYTHON set, which makes a missing SDK a failure).
#[test]
#[ignore = "needs the MCP Python SDK (pip install mcp): cargo test -p brief-cli --test it -- --ignored python_sdk"]
fn python_sdk_over_stdio() {
    python_client("stdio");
}

#[test]
#[ignore = "needs the MCP Python SDK (pip install mcp): cargo test -p brief-cli --test it -- --ignored python_sdk"]
fn python_sdk_over_http() {
    python_client("http");
}

/// The `node_modules` folder holding the official MCP TypeScript SDK and ajv:
/// `BRIEF_MCP_NODE_MODULES` (then it must hold them and `node` must run), or a loud skip.
fn typescript_sdk() -> Option<std::path::PathBuf> {
    let Some(modules) = std::env::var_os("BRIEF_MCP_NODE_MODULES") else {
        eprintln!(
            "SKIPPED: the MCP TypeScript SDK tests need BRIEF_MCP_NODE_MODULES (a node_modules \
             with @modelcontextprotocol/sdk and ajv; .ci/run installs them)"
        );
        return None;
    };
    let modules = std::path::PathBuf::from(modules);
    assert!(
        modules
            .join("@modelcontextprotocol/sdk/package.json")
            .is_file()
            && modules.join("ajv/package.json").is_file(),
        "BRIEF_MCP_NODE_MODULES={} lacks @modelcontextprotocol/sdk or ajv",
        modules.display()
    );
    Some(modules)
}

/// Runs `tests/mcp/client.mjs` in `mode` beside a link to the SDK's `node_modules`.
fn typescript_client(mode: &str) {
    let Some(modules) = typescript_sdk() else {
        return;
    };
    let dir = common::copy_fixture(EXAMPLE);
    let runner = tempfile::tempdir().unwrap();
    let script = runner.path().join("client.mjs");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/client.mjs"),
        &script,
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&modules, runner.path().join("node_modules")).unwrap();
    let out = Command::new("node")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_brief"))
        .arg(dir.path())
        .arg(mode)
        .output()
        .expect("run node (the TypeScript SDK tests need Node.js 18 or later)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains(", 0 failed"),
        "the TypeScript MCP client ({mode}) failed:\n{stdout}\n{stderr}"
    );
}

// Like the Python ones: ignored unless asked for (`.ci/run` asks, with the SDK installed).
#[test]
#[ignore = "needs the MCP TypeScript SDK: BRIEF_MCP_NODE_MODULES=… cargo test -p brief-cli --test it -- --ignored typescript_sdk"]
fn typescript_sdk_over_stdio() {
    typescript_client("stdio");
}

#[test]
#[ignore = "needs the MCP TypeScript SDK: BRIEF_MCP_NODE_MODULES=… cargo test -p brief-cli --test it -- --ignored typescript_sdk"]
fn typescript_sdk_over_http() {
    typescript_client("http");
}

#[test]
#[ignore = "needs the MCP TypeScript SDK: BRIEF_MCP_NODE_MODULES=… cargo test -p brief-cli --test it -- --ignored typescript_sdk"]
fn typescript_sdk_finds_the_project_from_roots() {
    typescript_client("roots");
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
pub(crate) fn cli_at(now: &str, args: &[&str]) -> (i32, String, String) {
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
    // The files the packages name (a package's file must exist).
    for copy in [&over_mcp, &over_cli] {
        for file in ["research/retries.md", "handoff/qa.md"] {
            let path = copy.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "# Package\n").unwrap();
        }
    }
    let cli_root = over_cli.path().to_str().unwrap().to_string();
    let mut server = Server::start_with(over_mcp.path(), &[("BRIEF_NOW", now)]);
    let mut id = 10;
    let mut both = |server: &mut Server, tool: &str, arguments: Value, command: &[&str]| {
        id += 1;
        let (is_error, blocks) = server.call_blocks(id, tool, &arguments);
        let text = blocks.first().cloned().unwrap_or_default();
        let mut args: Vec<&str> = command.to_vec();
        args.extend(["--root", &cli_root]);
        let (code, stdout, stderr) = cli_at(now, &args);
        // Finding nothing is exit 1 for the CLI and an answer (with the note) for a tool.
        let empty_is_a_result = code == 1 && EMPTY_IS_A_RESULT.contains(&tool);
        if code == 0 || empty_is_a_result {
            assert!(!is_error, "{tool} {arguments}: {text}");
            assert_eq!(
                text, stdout,
                "{tool} {arguments} differs from brief {command:?}"
            );
            if empty_is_a_result {
                assert_eq!(blocks.get(1).map(String::as_str), Some(stderr.as_str()));
            }
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
