//! `brief serve` as real clients meet it (issue 29, and the HTTP part of issue 30 item 13):
//! HTTP framing and CORS, requests that run side by side, cancellation and time limits, a
//! server started without a project, strict schemas and the protocol's edge cases.
#![cfg(feature = "mcp")]

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
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
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
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
