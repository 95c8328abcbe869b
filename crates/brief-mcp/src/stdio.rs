//! MCP over stdio: newline-delimited JSON-RPC, framed and checked here before rmcp sees it.
//!
//! rmcp's own stdio transport drops lines it cannot parse without a word (and answers some
//! others without their id), so a client that sent garbage waits forever. This transport
//! reads each line itself, bounded by [`MAX_LINE_BYTES`], and answers every malformed one with
//! the JSON-RPC error the specification names — −32700 for what is not JSON (or not UTF-8, or
//! too long), −32600 for JSON that is not a request, −32602 for a request whose `params` do
//! not fit its method — then goes on serving. Only well-formed messages reach rmcp.
//!
//! Every outgoing line (rmcp's replies and ours) goes through one channel to one writer task,
//! so lines never interleave and a reply cancelled half-way cannot leave half a line.

use std::io;

use rmcp::model::{ClientRequest, JsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The longest line (one JSON-RPC message, without its newline) the server reads: 4 MiB.
/// A longer line is skipped up to its newline and answered with a −32700 error.
pub(crate) const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// JSON-RPC 2.0 error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// Lines waiting for the writer; a slow reader of our stdout holds replies back here.
const QUEUE: usize = 64;

/// UTF-8 byte order mark, which RFC 8259 §8.1 lets a parser ignore.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A line-framed, checked JSON-RPC transport over a reader and a writer.
pub(crate) struct Framed<R> {
    read: BufReader<R>,
    /// The line read so far; kept across cancelled reads (rmcp polls `receive` in a
    /// `select!`), cleared once a whole line was handled.
    line: Vec<u8>,
    /// Skipping the rest of an oversized line up to its newline.
    discarding: bool,
    /// An error reply not yet handed to the writer.
    pending: Option<Vec<u8>>,
    out: Option<mpsc::Sender<Vec<u8>>>,
    writer: Option<JoinHandle<io::Result<()>>>,
    /// Whether `initialize` was passed on: rmcp ends the session on any other first message.
    initialized: bool,
}

/// The server's stdin and stdout.
pub(crate) fn stdio() -> Framed<tokio::io::Stdin> {
    Framed::new(tokio::io::stdin(), tokio::io::stdout())
}

impl<R: AsyncRead + Unpin + Send> Framed<R> {
    /// Frames `read`; replies go to `write` (must be called inside a tokio runtime).
    pub(crate) fn new<W: AsyncWrite + Unpin + Send + 'static>(read: R, write: W) -> Framed<R> {
        let (out, lines) = mpsc::channel(QUEUE);
        Framed {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            pending: None,
            out: Some(out),
            writer: Some(tokio::spawn(write_lines(write, lines))),
            initialized: false,
        }
    }

    /// Reads up to the next newline into `self.line` without letting it grow past
    /// [`MAX_LINE_BYTES`]. Cancel-safe: between awaits, every byte consumed from the reader
    /// is either in `self.line` or dropped on purpose (`discarding`).
    async fn read_line(&mut self) -> Read {
        loop {
            let (used, step) = {
                let available = match self.read.fill_buf().await {
                    Ok(bytes) => bytes,
                    Err(_) => return Read::Closed,
                };
                if available.is_empty() {
                    return Read::Closed;
                }
                let newline = available.iter().position(|&b| b == b'\n');
                let take = newline.map_or(available.len(), |at| at + 1);
                let body = newline.unwrap_or(available.len());
                if self.discarding {
                    (
                        take,
                        if newline.is_some() {
                            Step::EndSkip
                        } else {
                            Step::More
                        },
                    )
                } else if self.line.len() + body > MAX_LINE_BYTES {
                    self.line.clear();
                    let step = if newline.is_some() {
                        Step::TooLong
                    } else {
                        Step::TooLongSkip
                    };
                    (take, step)
                } else {
                    self.line.extend_from_slice(&available[..body]);
                    (
                        take,
                        if newline.is_some() {
                            Step::Line
                        } else {
                            Step::More
                        },
                    )
                }
            };
            self.read.consume(used);
            match step {
                Step::Line => return Read::Line,
                Step::More => {}
                Step::EndSkip => self.discarding = false,
                Step::TooLong => return Read::TooLong,
                Step::TooLongSkip => {
                    self.discarding = true;
                    return Read::TooLong;
                }
            }
        }
    }
}

enum Read {
    Line,
    TooLong,
    Closed,
}

enum Step {
    Line,
    More,
    EndSkip,
    TooLong,
    TooLongSkip,
}

/// Writes each queued line, flushing whenever the queue runs dry.
async fn write_lines<W: AsyncWrite + Unpin>(
    mut write: W,
    mut lines: mpsc::Receiver<Vec<u8>>,
) -> io::Result<()> {
    while let Some(line) = lines.recv().await {
        write.write_all(&line).await?;
        if lines.is_empty() {
            write.flush().await?;
        }
    }
    write.flush().await
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "stdout is closed")
}

impl<R: AsyncRead + Unpin + Send> Transport<RoleServer> for Framed<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), io::Error>> + Send + 'static {
        let out = self.out.clone();
        async move {
            let mut line = serde_json::to_vec(&item).map_err(io::Error::other)?;
            line.push(b'\n');
            match out {
                Some(out) => out.send(line).await.map_err(|_| closed()),
                None => Err(closed()),
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if self.pending.is_some() {
                // Reserve first: a cancelled wait loses nothing.
                let permit = self.out.as_ref()?.reserve().await.ok()?;
                permit.send(self.pending.take().unwrap_or_default());
            }
            match self.read_line().await {
                Read::Line => {}
                Read::TooLong => {
                    self.pending = Some(error_line(
                        &Value::Null,
                        PARSE_ERROR,
                        format!("message longer than {MAX_LINE_BYTES} bytes (the stdio line limit); not read"),
                    ));
                    continue;
                }
                Read::Closed => return None,
            }
            let mut verdict = check(&self.line);
            self.line.clear();
            if !self.initialized {
                verdict = before_initialize(verdict);
                self.initialized = matches!(verdict, Verdict::Message(_));
            }
            match verdict {
                Verdict::Message(message) => return Some(*message),
                Verdict::Reply(line) => self.pending = Some(line),
                Verdict::Ignore => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        // Dropping the last sender ends the writer once it has written everything queued.
        self.out = None;
        match self.writer.take() {
            Some(writer) => writer.await.map_err(io::Error::other)?,
            None => Ok(()),
        }
    }
}

/// What to do with one line.
#[derive(Debug)]
enum Verdict {
    /// A well-formed message for rmcp.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// An error reply to write (a whole line).
    Reply(Vec<u8>),
    /// Nothing to do: a blank line, or a notification that does not parse (JSON-RPC never
    /// answers a notification).
    Ignore,
}

/// Checks one line (without its newline) the way JSON-RPC 2.0 orders the errors: not JSON
/// first, then not a request object, then parameters that do not fit the method.
fn check(line: &[u8]) -> Verdict {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(BOM).unwrap_or(line);
    if line.trim_ascii().is_empty() {
        return Verdict::Ignore;
    }
    let refuse = |id: &Value, code, message: String| Verdict::Reply(error_line(id, code, message));
    let text = match std::str::from_utf8(line) {
        Ok(text) => text,
        Err(e) => {
            let message = format!("parse error: invalid UTF-8 at byte {}", e.valid_up_to());
            return refuse(&Value::Null, PARSE_ERROR, message);
        }
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => return refuse(&Value::Null, PARSE_ERROR, format!("parse error: {e}")),
    };
    let object = match &value {
        Value::Object(object) => object,
        Value::Array(_) => {
            let message = "invalid request: batches are not supported; send one message per line";
            return refuse(&Value::Null, INVALID_REQUEST, message.into());
        }
        _ => {
            let message = "invalid request: a message must be a JSON object";
            return refuse(&Value::Null, INVALID_REQUEST, message.into());
        }
    };
    let id = match object.get("id") {
        None => None,
        Some(id @ Value::String(_)) => Some(id.clone()),
        Some(id @ Value::Number(n)) if n.is_i64() => Some(id.clone()),
        Some(id @ Value::Number(_)) => {
            let message =
                "invalid request: a numeric `id` must be an integer between -2^63 and 2^63-1";
            return refuse(id, INVALID_REQUEST, message.into());
        }
        Some(_) => {
            let message = "invalid request: `id` must be a string or an integer";
            return refuse(&Value::Null, INVALID_REQUEST, message.into());
        }
    };
    let reply_id = id.clone().unwrap_or(Value::Null);
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        let message = r#"invalid request: `jsonrpc` must be "2.0""#;
        return refuse(&reply_id, INVALID_REQUEST, message.into());
    }
    let method = match object.get("method") {
        Some(Value::String(method)) => Some(method.clone()),
        Some(_) => {
            let message = "invalid request: `method` must be a string";
            return refuse(&reply_id, INVALID_REQUEST, message.into());
        }
        None => None,
    };
    if method.is_none() && !is_response(object) {
        let message = "invalid request: a message needs a `method` (a request or notification) or an `id` with a `result` or `error` (a response)";
        return refuse(&reply_id, INVALID_REQUEST, message.into());
    }
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
        // rmcp falls back to a custom request when a standard method's params do not fit.
        Ok(JsonRpcMessage::Request(request))
            if matches!(request.request, ClientRequest::CustomRequest(_))
                && method
                    .as_deref()
                    .is_some_and(|m| TYPED_METHODS.contains(&m)) =>
        {
            let method = method.unwrap_or_default();
            let message =
                format!("invalid params for `{method}`: they do not match the method's parameters");
            refuse(&reply_id, INVALID_PARAMS, message)
        }
        Ok(message) => Verdict::Message(Box::new(message)),
        Err(e) => match (method, id) {
            (Some(method), Some(_)) => {
                let message = format!("invalid params for `{method}`: {e}");
                refuse(&reply_id, INVALID_PARAMS, message)
            }
            // A notification is never answered, and an answer is not answered either.
            _ => Verdict::Ignore,
        },
    }
}

/// The request methods rmcp reads into typed requests (`ClientRequest`'s variants other than
/// `CustomRequest`): one of these parsed as a custom request had parameters that do not fit.
const TYPED_METHODS: &[&str] = &[
    "ping",
    "initialize",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/directory/read",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
];

/// A message before `initialize`, which rmcp would take for the end of the session: only
/// `initialize` goes on; `ping` is answered here, another request is refused with a message
/// saying what to send first, and a notification or a response is dropped.
fn before_initialize(verdict: Verdict) -> Verdict {
    let Verdict::Message(message) = verdict else {
        return verdict;
    };
    match *message {
        JsonRpcMessage::Request(request) => match request.request {
            ClientRequest::InitializeRequest(_) => {
                Verdict::Message(Box::new(JsonRpcMessage::Request(request)))
            }
            ClientRequest::PingRequest(_) => {
                let id = serde_json::to_value(&request.id).unwrap_or(Value::Null);
                let reply = json!({"jsonrpc": "2.0", "id": id, "result": {}});
                let mut line = reply.to_string().into_bytes();
                line.push(b'\n');
                Verdict::Reply(line)
            }
            _ => {
                let id = serde_json::to_value(&request.id).unwrap_or(Value::Null);
                Verdict::Reply(error_line(
                    &id,
                    INVALID_REQUEST,
                    "invalid request: the session is not initialized yet; send `initialize` \
                     first, then `notifications/initialized`"
                        .into(),
                ))
            }
        },
        _ => Verdict::Ignore,
    }
}

/// An `id` with exactly one of `result` and `error`.
fn is_response(object: &Map<String, Value>) -> bool {
    object.contains_key("id") && (object.contains_key("result") != object.contains_key("error"))
}

/// One JSON-RPC error response, as a line.
fn error_line(id: &Value, code: i64, message: String) -> Vec<u8> {
    let reply = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let mut line = reply.to_string().into_bytes();
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &[u8]) -> Value {
        match check(line) {
            Verdict::Reply(bytes) => serde_json::from_slice(&bytes).unwrap(),
            other => panic!("{}: {other:?}", String::from_utf8_lossy(line)),
        }
    }

    fn code_and_id(line: &[u8]) -> (i64, Value) {
        let r = reply(line);
        (r["error"]["code"].as_i64().unwrap(), r["id"].clone())
    }

    #[test]
    fn parse_errors() {
        assert_eq!(code_and_id(b"garbage"), (PARSE_ERROR, Value::Null));
        assert_eq!(code_and_id(b"{\"id\":1,"), (PARSE_ERROR, Value::Null));
        let line = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xff\"}";
        let r = reply(line);
        assert_eq!(r["error"]["code"], PARSE_ERROR);
        let at = line.iter().position(|&b| b == 0xff).unwrap();
        let message = r["error"]["message"].as_str().unwrap();
        assert!(message.ends_with(&format!("byte {at}")), "{r}");
    }

    #[test]
    fn invalid_requests_carry_the_id_when_it_is_one() {
        let cases: [(&[u8], Value); 9] = [
            (br#"{"id":3,"method":"ping"}"#, json!(3)),
            (br#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#, json!("a")),
            (br#"{"jsonrpc":"2.0","id":4,"method":["ping"]}"#, json!(4)),
            (br#"{"jsonrpc":"2.0","id":5}"#, json!(5)),
            (
                br#"{"jsonrpc":"2.0","id":6,"result":{},"error":{}}"#,
                json!(6),
            ),
            (
                br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                Value::Null,
            ),
            (br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, json!(1.5)),
            (
                br#"[{"jsonrpc":"2.0","id":7,"method":"ping"}]"#,
                Value::Null,
            ),
            (b"42", Value::Null),
        ];
        for (line, id) in cases {
            assert_eq!(
                code_and_id(line),
                (INVALID_REQUEST, id),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn params_that_do_not_fit_the_method() {
        assert_eq!(
            code_and_id(br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"x"}"#),
            (INVALID_PARAMS, json!(8))
        );
        assert_eq!(
            code_and_id(br#"{"jsonrpc":"2.0","id":9,"method":"initialize","params":{}}"#),
            (INVALID_PARAMS, json!(9))
        );
    }

    #[test]
    fn well_formed_messages_pass_and_quiet_ones_are_ignored() {
        for line in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#[..],
            b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/list\"}\r",
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ] {
            assert!(matches!(check(line), Verdict::Message(_)), "{line:?}");
        }
        for line in [
            &b""[..],
            b" \t\r",
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}"#,
        ] {
            assert!(matches!(check(line), Verdict::Ignore), "{line:?}");
        }
    }

    /// A well-formed `initialize` request, as a line.
    const INITIALIZE: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"0\"}}}\n";

    /// Before `initialize`: a notification is dropped, `ping` answered here, another request
    /// refused; `initialize` goes on, and everything after it.
    #[test]
    fn messages_before_initialize() {
        let parse = |line: &[u8]| before_initialize(check(line));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Verdict::Ignore
        ));
        let pong = match parse(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#) {
            Verdict::Reply(line) => serde_json::from_slice::<Value>(&line).unwrap(),
            other => panic!("{other:?}"),
        };
        assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
        let early = match parse(br#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#) {
            Verdict::Reply(line) => serde_json::from_slice::<Value>(&line).unwrap(),
            other => panic!("{other:?}"),
        };
        assert_eq!(early["error"]["code"], INVALID_REQUEST);
        assert_eq!(early["id"], "a");
        assert!(matches!(
            parse(INITIALIZE.trim_ascii_end()),
            Verdict::Message(_)
        ));
    }

    /// The transport end to end over in-memory pipes: an oversized line is answered and the
    /// next line is read whole.
    #[tokio::test]
    async fn oversized_lines_are_answered_and_skipped() {
        use tokio::io::AsyncReadExt;
        let (mut client, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, mut replies) = tokio::io::duplex(1 << 16);
        let mut framed = Framed::new(server_in, server_out);
        let writer = tokio::spawn(async move {
            let big = vec![b'x'; MAX_LINE_BYTES + 10];
            client.write_all(&big).await.unwrap();
            client.write_all(b"\n").await.unwrap();
            client.write_all(INITIALIZE).await.unwrap();
        });
        let message = framed
            .receive()
            .await
            .expect("the request after the long line");
        assert_eq!(serde_json::to_value(&message).unwrap()["id"], json!(2));
        writer.await.unwrap();
        framed.close().await.unwrap();
        let mut text = String::new();
        replies.read_to_string(&mut text).await.unwrap();
        let reply: Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(reply["error"]["code"], PARSE_ERROR, "{reply}");
        assert_eq!(reply["id"], Value::Null);
    }
}
