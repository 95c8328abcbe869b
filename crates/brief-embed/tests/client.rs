//! The client against a stub server of our own (std `TcpListener`) that answers well, with
//! errors, with wrong or partial answers, or not at all: every case is a typed error within
//! the time-out and a little more, never a panic or a hang.

#![cfg(feature = "http")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use brief_embed::{ApiKey, Client, EmbedError, Endpoint, Role};

/// How the stub answers every request.
#[derive(Clone)]
enum Answer {
    /// Vectors of this many dimensions, one per input.
    Vectors(usize),
    /// One vector fewer than asked.
    Partial,
    /// This status with this body.
    Status(u16, &'static str),
    /// This body with status 200.
    Body(&'static str),
    /// Read the request, then say nothing (until the test ends).
    Stall,
    /// Accept, then close without a word.
    Close,
    /// Bytes that are not HTTP.
    Garbage,
}

/// A request as the stub read it.
struct Seen {
    headers: Vec<String>,
    body: serde_json::Value,
}

/// Starts a stub on a free port; its URL and a receiver of the requests it read.
fn stub(answer: Answer) -> (String, std::sync::mpsc::Receiver<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let (answer, tx) = (answer.clone(), tx.clone());
            std::thread::spawn(move || serve(stream, answer, tx));
        }
    });
    (url, rx)
}

fn serve(mut stream: TcpStream, answer: Answer, tx: std::sync::mpsc::Sender<Seen>) {
    if let Answer::Close = answer {
        return;
    }
    let Some(seen) = read_request(&stream) else {
        return;
    };
    let inputs = seen.body["input"].as_array().map(Vec::len).unwrap_or(0);
    let _ = tx.send(seen);
    let (status, body) = match answer {
        Answer::Vectors(dims) => (200, vectors(inputs, dims)),
        Answer::Partial => (200, vectors(inputs.saturating_sub(1), 4)),
        Answer::Status(status, body) => (status, body.to_string()),
        Answer::Body(body) => (200, body.to_string()),
        Answer::Stall => {
            std::thread::sleep(Duration::from_secs(30));
            return;
        }
        Answer::Garbage => {
            let _ = stream.write_all(b"\x00\x01 this is not HTTP\r\n\r\n");
            return;
        }
        Answer::Close => return,
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
}

fn read_request(stream: &TcpStream) -> Option<Seen> {
    let mut reader = BufReader::new(stream);
    let mut headers = Vec::new();
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end().to_string();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = n.trim().parse().ok()?;
        }
        headers.push(line);
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Seen {
        headers,
        body: serde_json::from_slice(&body).ok()?,
    })
}

fn vectors(n: usize, dims: usize) -> String {
    let data: Vec<String> = (0..n)
        .rev()
        .map(|i| {
            let v: Vec<String> = (0..dims).map(|d| ((i + d) % 3).to_string()).collect();
            format!(
                r#"{{"object":"embedding","index":{i},"embedding":[{}]}}"#,
                v.join(",")
            )
        })
        .collect();
    format!(r#"{{"object":"list","data":[{}]}}"#, data.join(","))
}

fn client(url: &str) -> Client {
    let mut endpoint = Endpoint::new(url, "test-model");
    endpoint.timeout = Duration::from_millis(300);
    Client::new(endpoint)
}

/// Runs `f`, checking it took at most `limit` plus 50 ms.
fn within<T>(limit: Duration, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    assert!(
        took <= limit + Duration::from_millis(50),
        "took {took:?}, limit {limit:?}"
    );
    out
}

/// What an error must look like.
type Expect = fn(&EmbedError) -> bool;

const WAIT: Duration = Duration::from_millis(300);

#[test]
fn a_good_answer_gives_unit_vectors_in_order_and_the_request_is_the_standard_one() {
    let (url, seen) = stub(Answer::Vectors(4));
    let mut endpoint = Endpoint::new(&url, "test-model");
    endpoint.dimensions = Some(4);
    endpoint.passage_prefix = "passage: ".into();
    endpoint.api_key = Some(ApiKey::new("sk-test"));
    endpoint.input_type = true;
    let client = Client::new(endpoint);
    let v = client.embed(&["a", "b", "c"], Role::Passage, WAIT).unwrap();
    assert_eq!(v.len(), 3);
    for vector in &v {
        let norm: f32 = vector.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-5);
    }
    // The stub's vector i is (i, i+1, i+2, i+3) mod 3: placed by index, not by position.
    assert_ne!(v[0], v[1]);
    let request = seen.recv().unwrap();
    assert_eq!(request.body["model"], "test-model");
    assert_eq!(request.body["dimensions"], 4);
    assert_eq!(request.body["input_type"], "passage");
    assert_eq!(
        request.body["input"],
        serde_json::json!(["passage: a", "passage: b", "passage: c"])
    );
    assert!(request
        .headers
        .iter()
        .any(|h| h == "authorization: Bearer sk-test" || h == "Authorization: Bearer sk-test"));
}

#[test]
fn without_options_the_request_has_only_model_and_input() {
    let (url, seen) = stub(Answer::Vectors(3));
    let v = client(&url).embed(&["q"], Role::Query, WAIT).unwrap();
    assert_eq!(v.len(), 1);
    let request = seen.recv().unwrap();
    let keys: Vec<&String> = request.body.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["model", "input"]);
    assert!(!request
        .headers
        .iter()
        .any(|h| h.to_ascii_lowercase().starts_with("authorization")));
}

#[test]
fn a_refused_connection_is_unreachable_at_once() {
    // A port nobody listens on: bound, then closed.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let err = within(WAIT, || client(&url).embed(&["x"], Role::Query, WAIT)).unwrap_err();
    assert!(matches!(err, EmbedError::Unreachable { .. }), "{err}");
}

#[test]
fn a_stalled_server_times_out_on_time() {
    let (url, _seen) = stub(Answer::Stall);
    let err = within(WAIT, || client(&url).embed(&["x"], Role::Query, WAIT)).unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert!(err.to_string().contains("300 ms"), "{err}");
}

#[test]
fn every_bad_answer_is_a_typed_error_within_the_time_out() {
    let cases: Vec<(Answer, Expect)> = vec![
        (Answer::Partial, |e| {
            matches!(e, EmbedError::Count { sent: 2, got: 1 })
        }),
        (
            Answer::Status(
                500,
                r#"{"error":{"message":"model exploded","type":"server_error"}}"#,
            ),
            |e| matches!(e, EmbedError::Status { status: 500, message } if message == "model exploded"),
        ),
        (Answer::Status(404, "no route"), |e| {
            matches!(e, EmbedError::Status { status: 404, .. })
        }),
        (Answer::Status(302, ""), |e| {
            matches!(e, EmbedError::Status { status: 302, .. })
        }),
        (Answer::Body("{not json"), |e| {
            matches!(e, EmbedError::Malformed(_))
        }),
        (
            Answer::Body(
                r#"{"data":[{"index":0,"embedding":[1e39,0]},{"index":1,"embedding":[1,0]}]}"#,
            ),
            |e| matches!(e, EmbedError::NotFinite { index: 0 }),
        ),
        (
            Answer::Body(
                r#"{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[1,0,0]}]}"#,
            ),
            |e| matches!(e, EmbedError::Varying { .. }),
        ),
        (Answer::Close, |e| {
            matches!(e, EmbedError::Unreachable { .. } | EmbedError::Malformed(_))
        }),
        (Answer::Garbage, |e| {
            matches!(e, EmbedError::Unreachable { .. } | EmbedError::Malformed(_))
        }),
    ];
    for (answer, expected) in cases {
        let (url, _seen) = stub(answer);
        let err = within(WAIT, || {
            client(&url).embed(&["a", "b"], Role::Passage, WAIT)
        })
        .unwrap_err();
        assert!(expected(&err), "unexpected: {err:?}");
    }
}

#[test]
fn wrong_dimensions_are_refused_when_dimensions_were_asked() {
    let (url, _seen) = stub(Answer::Vectors(5));
    let mut endpoint = Endpoint::new(&url, "m");
    endpoint.dimensions = Some(4);
    let err = Client::new(endpoint)
        .embed(&["a"], Role::Query, WAIT)
        .unwrap_err();
    assert_eq!(
        err,
        EmbedError::Dimensions {
            expected: 4,
            got: 5
        }
    );
}

#[test]
fn more_texts_than_the_batch_are_refused_before_asking() {
    let mut endpoint = Endpoint::new("http://127.0.0.1:9/v1", "m");
    endpoint.batch = 2;
    let err = Client::new(endpoint)
        .embed(&["a", "b", "c"], Role::Passage, WAIT)
        .unwrap_err();
    assert_eq!(err, EmbedError::TooMany { sent: 3, batch: 2 });
    assert!(client("http://127.0.0.1:9/v1")
        .embed(&[], Role::Query, WAIT)
        .unwrap()
        .is_empty());
}

#[test]
fn one_client_serves_many_requests() {
    let (url, _seen) = stub(Answer::Vectors(8));
    let client = client(&url);
    for _ in 0..20 {
        assert_eq!(client.embed(&["a"], Role::Query, WAIT).unwrap()[0].len(), 8);
    }
}
