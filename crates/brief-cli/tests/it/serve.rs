//! `brief serve` as real clients meet it (issue 29, and the HTTP part of issue 30 item 13):
//! HTTP framing and CORS, requests that run side by side, cancellation and time limits, a
//! server started without a project, strict schemas and the protocol's edge cases.
#![cfg(feature = "mcp")]

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio as Stdio_};

use serde_json::{json, Value};
use std::time::Duration;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");

/// An upper bound on any one wait, so a missing reply fails instead of hanging (not a timing
/// assertion).
const WAIT: Duration = Duration::from_secs(60);

/// `brief serve --http 127.0.0.1:0` with `args`, and the port it listens on.
pub(crate) struct HttpServer {
    child: Child,
    pub(crate) port: u16,
}

impl HttpServer {
    pub(crate) fn start(root: &Path, args: &[&str]) -> HttpServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_brief"))
            .args(["serve", "--http", "127.0.0.1:0", "--root"])
            .arg(root)
            .args(args)
            .stdin(Stdio_::null())
            .stdout(Stdio_::null())
            .stderr(Stdio_::piped())
            .spawn()
            .expect("start brief serve --http");
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let port = line
            .trim()
            .rsplit_once(':')
            .and_then(|(_, rest)| rest.strip_suffix("/mcp"))
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        HttpServer { child, port }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A response read whole: the status, the header lines (lower-cased names) and the body.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `head` (request line and headers, without the blank line) and `body` on a new
/// connection that the server closes after answering.
pub(crate) fn raw(port: u16, head: &str, body: &str) -> Reply {
    let request = format!(
        "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Reply {
        status,
        headers,
        body: body.to_string(),
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;

fn post(port: u16, extra_headers: &str) -> Reply {
    post_to(port, "/mcp", extra_headers)
}

fn post_to(port: u16, target: &str, extra_headers: &str) -> Reply {
    let head = format!(
        "POST {target} HTTP/1.1\r\n{extra_headers}Content-Type: application/json\r\nAccept: application/json, text/event-stream"
    );
    raw(port, &head, INITIALIZE)
}

#[test]
fn http_refuses_two_hosts_two_origins_and_a_target_naming_another_host() {
    let dir = common::copy_fixture(EXAMPLE);
    let server = HttpServer::start(dir.path(), &["--no-watch"]);
    let port = server.port;
    let host = format!("Host: 127.0.0.1:{port}\r\n");
    // The plain request is served.
    assert_eq!(post(port, &host).status, 200);
    let twice = post(port, &format!("{host}Host: evil.example\r\n"));
    assert_eq!(twice.status, 400, "two Host headers: {twice:?}");
    assert!(twice.body.contains("Host"), "{twice:?}");
    let origins = post(
        port,
        &format!("{host}Origin: http://localhost:{port}\r\nOrigin: http://evil.example\r\n"),
    );
    assert_eq!(origins.status, 403, "two Origin headers: {origins:?}");
    let elsewhere = post_to(port, "http://evil.example/mcp", &host);
    assert_eq!(elsewhere.status, 400, "absolute-form target: {elsewhere:?}");
    // An absolute-form target naming this very host is the same request.
    let same = post_to(port, &format!("http://127.0.0.1:{port}/mcp"), &host);
    assert_eq!(same.status, 200, "{same:?}");
}

#[test]
fn cors_preflight_is_answered_for_allowed_origins() {
    let dir = common::copy_fixture(EXAMPLE);
    let server = HttpServer::start(
        dir.path(),
        &["--no-watch", "--allow-origin", "https://app.example"],
    );
    let port = server.port;
    let preflight = |origin: &str| {
        raw(
            port,
            &format!(
                "OPTIONS /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: {origin}\r\n\
                 Access-Control-Request-Method: POST\r\n\
                 Access-Control-Request-Headers: content-type, mcp-session-id, mcp-protocol-version"
            ),
            "",
        )
    };
    for origin in ["https://app.example", &format!("http://localhost:{port}")] {
        let reply = preflight(origin);
        assert_eq!(reply.status, 204, "{origin}: {reply:?}");
        assert_eq!(
            reply.header("access-control-allow-origin"),
            Some(origin),
            "{reply:?}"
        );
        let methods = reply.header("access-control-allow-methods").unwrap_or("");
        assert!(
            methods.contains("POST") && methods.contains("DELETE"),
            "{reply:?}"
        );
        let headers = reply
            .header("access-control-allow-headers")
            .unwrap_or("")
            .to_ascii_lowercase();
        for needed in ["content-type", "mcp-session-id", "mcp-protocol-version"] {
            assert!(headers.contains(needed), "{needed}: {reply:?}");
        }
    }
    let foreign = preflight("https://evil.example");
    assert_eq!(foreign.status, 403, "{foreign:?}");
    assert!(foreign.header("access-control-allow-origin").is_none());
    // The request itself carries the headers a browser needs to read the session id.
    let reply = post(
        port,
        &format!("Host: 127.0.0.1:{port}\r\nOrigin: https://app.example\r\n"),
    );
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(
        reply.header("access-control-allow-origin"),
        Some("https://app.example")
    );
    let exposed = reply
        .header("access-control-expose-headers")
        .unwrap_or("")
        .to_ascii_lowercase();
    assert!(exposed.contains("mcp-session-id"), "{reply:?}");
}

/// A `brief serve` over stdio spoken to line by line, started where and how a test says.
pub(crate) struct Stdio {
    child: Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Stdio {
    pub(crate) fn spawn(cwd: &Path, args: &[&str]) -> Stdio {
        let mut child = Command::new(env!("CARGO_BIN_EXE_brief"))
            .arg("serve")
            .args(args)
            .current_dir(cwd)
            .stdin(Stdio_::piped())
            .stdout(Stdio_::piped())
            .stderr(Stdio_::null())
            .spawn()
            .expect("start brief serve");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Stdio {
            child,
            stdin,
            lines,
        }
    }

    /// Sends `initialize` with `capabilities` and the `initialized` notification.
    pub(crate) fn initialize(&mut self, capabilities: Value) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": capabilities,
            "clientInfo": {"name": "brief-test", "version": "0"}}}),
        );
        let hello = self.answer(0);
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        hello
    }

    pub(crate) fn send(&mut self, message: &Value) {
        self.send_raw(&message.to_string());
    }

    pub(crate) fn send_raw(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next message, or `None` when the server closed its stdout.
    pub(crate) fn next(&mut self) -> Option<Value> {
        let line = self.lines.recv_timeout(WAIT).ok()?;
        Some(serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}")))
    }

    /// The answer to request `id` (other messages are skipped).
    pub(crate) fn answer(&mut self, id: u64) -> Value {
        loop {
            let message = self
                .next()
                .unwrap_or_else(|| panic!("no answer to request {id}"));
            if message["id"] == json!(id) && message.get("method").is_none() {
                return message;
            }
        }
    }

    /// The next request the server sends the client (skipping answers and notifications).
    pub(crate) fn server_request(&mut self) -> Value {
        loop {
            let message = self.next().expect("a request from the server");
            if message.get("method").is_some() && message.get("id").is_some() {
                return message;
            }
        }
    }

    pub(crate) fn call(&mut self, id: u64, tool: &str, arguments: Value) -> (bool, String) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}));
        let reply = self.answer(id);
        let result = &reply["result"];
        assert!(result.is_object(), "{tool}: {reply}");
        let text = result["content"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|b| b["text"].as_str().unwrap_or("").to_string())
            .collect::<Vec<_>>()
            .join("");
        (result["isError"] == json!(true), text)
    }

    /// Whether the process is still running.
    pub(crate) fn running(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_none()
    }
}

impl Drop for Stdio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A folder URI as a client names a root.
fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

#[test]
fn a_server_without_a_project_starts_and_says_how_to_point_it_at_one() {
    let nowhere = tempfile::tempdir().unwrap();
    let mut server = Stdio::spawn(nowhere.path(), &[]);
    let hello = server.initialize(json!({}));
    assert_eq!(hello["result"]["serverInfo"]["name"], "brief", "{hello}");
    // Listing tools needs no project.
    server.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    assert!(server.answer(1)["result"]["tools"].is_array());
    let (is_error, text) = server.call(2, "context", json!({"target": "CHECKOUT-01"}));
    assert!(is_error, "{text}");
    assert!(text.contains("--root"), "{text}");
    assert!(text.contains("${workspaceFolder}"), "{text}");
    assert!(server.running());
    // A --root that holds no project: the same, with the reason.
    let mut server = Stdio::spawn(nowhere.path(), &["--root", "."]);
    server.initialize(json!({}));
    let (is_error, text) = server.call(2, "search", json!({"query": "x"}));
    assert!(is_error && text.contains("no sources"), "{text}");
    assert!(text.contains("--root"), "{text}");
}

#[test]
fn the_project_is_found_from_the_clients_roots_and_again_when_they_change() {
    let nowhere = tempfile::tempdir().unwrap();
    let payments = common::copy_fixture(EXAMPLE);
    let notes = common::copy_fixture(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/notes-app"
    ));
    let mut server = Stdio::spawn(nowhere.path(), &["--no-watch"]);
    server.initialize(json!({"roots": {"listChanged": true}}));
    let asked = server.server_request();
    assert_eq!(asked["method"], "roots/list", "{asked}");
    // A root that is no project is passed over; a subfolder of a project finds it.
    let inside = payments.path().join("specgraph");
    server.send(
        &json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": [
        {"uri": file_uri(nowhere.path())}, {"uri": file_uri(&inside), "name": "payments"}]}}),
    );
    let (is_error, text) = server.call(2, "show", json!({"id": "CHECKOUT-01", "detail": "meta"}));
    assert!(!is_error, "{text}");
    // The roots change: the server asks again and serves the new project.
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));
    let asked = server.server_request();
    assert_eq!(asked["method"], "roots/list", "{asked}");
    server.send(
        &json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": [
        {"uri": file_uri(notes.path())}]}}),
    );
    let (is_error, text) = server.call(3, "show", json!({"id": "TASK-002", "detail": "meta"}));
    assert!(!is_error, "{text}");
    // An explicit --root is never replaced by the roots.
    let mut pinned = Stdio::spawn(
        nowhere.path(),
        &["--no-watch", "--root", payments.path().to_str().unwrap()],
    );
    pinned.initialize(json!({"roots": {"listChanged": true}}));
    let (is_error, text) = pinned.call(4, "show", json!({"id": "CHECKOUT-01", "detail": "meta"}));
    assert!(!is_error, "{text}");
}

#[test]
fn protocol_edge_cases() {
    let dir = common::copy_fixture(EXAMPLE);
    // The file the session package below names (packages name files that exist).
    std::fs::create_dir_all(dir.path().join("notes")).unwrap();
    std::fs::write(dir.path().join("notes/r.md"), "# Retries\n").unwrap();
    let mut server = Stdio::spawn(dir.path(), &["--no-watch"]);
    // A notification before `initialize` is ignored, not fatal; a request before it is
    // answered with an error that says what to send.
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 9}}),
    );
    server.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}));
    let early = server.answer(9);
    assert_eq!(early["error"]["code"], json!(-32600), "{early}");
    assert!(
        early["error"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize"),
        "{early}"
    );
    server.send(&json!({"jsonrpc": "2.0", "id": 10, "method": "ping"}));
    assert_eq!(server.answer(10)["result"], json!({}));
    let hello = server.initialize(json!({}));
    assert!(
        hello["result"]["capabilities"]["completions"].is_object(),
        "{hello}"
    );
    // An unknown method: −32601 that names it and what the server answers.
    server.send(&json!({"jsonrpc": "2.0", "id": 11, "method": "tools/run"}));
    let unknown = server.answer(11);
    assert_eq!(unknown["error"]["code"], json!(-32601), "{unknown}");
    let message = unknown["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("tools/run") && message.contains("tools/call"),
        "{message}"
    );
    // `impact` with neither ids nor since is refused, saying what to give.
    let (is_error, text) = server.call(12, "impact", json!({}));
    assert!(is_error, "{text}");
    assert!(text.contains("ids") && text.contains("since"), "{text}");
    // The MCP form of a CLI hint keeps its dashes.
    let (is_error, text) = server.call(
        16,
        "session_package_add",
        json!({"session": "s1", "type": "research", "file": "notes/r.md", "producer": "developer",
               "consumers": ["qa_expert"], "priority": "high", "summary": "Retries"}),
    );
    assert!(!is_error, "{text}");
    let (is_error, text) = server.call(
        13,
        "session_package_consume",
        json!({"session": "s9", "agent": "developer", "id": 4}),
    );
    assert!(is_error, "{text}");
    assert!(
        text.contains("`brief session package list --session s9 --agent developer`"),
        "{text}"
    );
    let (is_error, text) = server.call(
        15,
        "session_package_list",
        json!({"session": "s9", "agent": "developer"}),
    );
    assert!(!is_error, "nothing yet is an answer: {text}");
    // A baseline that does not exist is named as given, not by an absolute path.
    let (is_error, text) = server.call(14, "check", json!({"baseline": "missing.json"}));
    assert!(is_error && text.contains("missing.json"), "{text}");
    assert!(!text.contains(dir.path().to_str().unwrap()), "{text}");
    assert!(server.running());
}

#[test]
fn completions_offer_ids_for_the_prompt_and_the_node_template() {
    let dir = common::copy_fixture(EXAMPLE);
    let mut server = Stdio::spawn(dir.path(), &["--no-watch"]);
    server.initialize(json!({}));
    server.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "completion/complete", "params": {
        "ref": {"type": "ref/prompt", "name": "brief-before-task"},
        "argument": {"name": "target", "value": "check"}}}),
    );
    let done = server.answer(1);
    let values: Vec<&str> = done["result"]["completion"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(values.contains(&"CHECKOUT-01"), "{done}");
    assert!(values
        .iter()
        .all(|v| v.to_lowercase().starts_with("check") || !v.is_empty()));
    server.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "completion/complete", "params": {
        "ref": {"type": "ref/resource", "uri": "brief://node/{id}"},
        "argument": {"name": "id", "value": "REFUNDS"}}}),
    );
    let done = server.answer(2);
    assert_eq!(
        done["result"]["completion"]["values"][0], "REFUNDS",
        "{done}"
    );
}

/// A Markdown knowledge base large enough that `check` takes seconds in a debug build.
fn large_notes() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    brief_corpus::generate(brief_corpus::Shape::Notes, 8000, &dir.path().join("kb"), 7).unwrap();
    let (code, _, stderr) = common::run(&[
        "index",
        "-q",
        "--root",
        dir.path().join("kb").to_str().unwrap(),
    ]);
    assert!(code == 0 || code == 2, "{stderr}");
    dir
}

#[test]
fn a_slow_call_holds_up_no_other_call_and_a_time_limit_ends_it() {
    let dir = large_notes();
    let root = dir.path().join("kb");
    let mut server = Stdio::spawn(&root, &["--no-watch"]);
    server.initialize(json!({}));
    // The slow call first, then quick ones: they are answered while it runs.
    server.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "check", "arguments": {}}}));
    server.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "lenses", "arguments": {}}}));
    server.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "search", "arguments": {"query": "retry"}}}));
    let mut order = Vec::new();
    while order.len() < 3 {
        let message = server.next().expect("an answer");
        if let Some(id) = message["id"].as_u64() {
            order.push(id);
        }
    }
    assert_eq!(
        order.last(),
        Some(&1),
        "the slow check held up a quick call: {order:?}"
    );
    // Cancelled: the server goes on answering.
    server.send(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "check", "arguments": {}}}));
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 4, "reason": "the user pressed Escape"}}),
    );
    let (is_error, _) = server.call(5, "lenses", json!({}));
    assert!(!is_error);
    // Past the time limit: a tool error that says what to narrow.
    let mut limited = Stdio::spawn(&root, &["--no-watch", "--time-limit", "1ms"]);
    limited.initialize(json!({}));
    let (is_error, text) = limited.call(1, "check", json!({}));
    assert!(is_error, "{text}");
    assert!(
        text.contains("time limit") && text.contains("rules"),
        "{text}"
    );
    // The server goes on answering; with a limit this short even `lenses` may run past it,
    // and is then told so like any other call.
    let (is_error, text) = limited.call(2, "lenses", json!({}));
    assert!(!is_error || text.contains("time limit"), "{text}");
}

#[test]
fn slow_calls_hold_up_no_other_http_session() {
    let dir = large_notes();
    let root = dir.path().join("kb");
    let server = HttpServer::start(&root, &["--no-watch"]);
    let port = server.port;
    let first = Session::open(port);
    let second = Session::open(port);
    let (done, order) = std::sync::mpsc::channel();
    let slow = {
        let done = done.clone();
        std::thread::spawn(move || {
            let reply = first.call("check", json!({}));
            done.send(("check", reply)).unwrap();
        })
    };
    // Give the slow request a head start on the wire (sequencing, not a measurement).
    std::thread::sleep(Duration::from_millis(300));
    for (tool, arguments) in [("lenses", json!({})), ("search", json!({"query": "retry"}))] {
        let reply = second.call(tool, arguments);
        done.send((tool, reply)).unwrap();
    }
    slow.join().unwrap();
    drop(done);
    let answered: Vec<(&str, Value)> = order.iter().collect();
    let names: Vec<&str> = answered.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["lenses", "search", "check"], "{answered:?}");
    for (name, reply) in &answered {
        assert!(reply["result"].is_object(), "{name}: {reply}");
    }
}

/// An MCP session over HTTP, one request per connection.
struct Session {
    port: u16,
    id: String,
}

impl Session {
    fn open(port: u16) -> Session {
        let reply = post(port, &format!("Host: 127.0.0.1:{port}\r\n"));
        assert_eq!(reply.status, 200, "{reply:?}");
        let id = reply
            .header("mcp-session-id")
            .expect("a session id")
            .to_string();
        let session = Session { port, id };
        let note = session.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_eq!(note.status, 202, "{note:?}");
        session
    }

    fn post(&self, message: &Value) -> Reply {
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nMcp-Session-Id: {}\r\n\
             Mcp-Protocol-Version: 2025-06-18\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream",
            self.port, self.id
        );
        raw(self.port, &head, &message.to_string())
    }

    /// A tool call's JSON-RPC answer, read from the response's event stream.
    fn call(&self, tool: &str, arguments: Value) -> Value {
        let reply = self.post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}));
        assert_eq!(reply.status, 200, "{reply:?}");
        reply
            .body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str::<Value>(d).ok())
            .find(|m| m.get("id").is_some())
            .unwrap_or_else(|| panic!("no answer in {reply:?}"))
    }
}
