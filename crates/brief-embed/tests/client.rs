//! The client against the stub server (`brief_embed::stub`) answering well, with errors,
//! with wrong or partial answers, or not at all: every case is a typed error within the
//! time-out and a little more, never a panic or a hang. Run with
//! `cargo test -p brief-embed --features http,stub`.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(all(feature = "http", feature = "stub"))]

use std::net::TcpListener;
use std::time::{Duration, Instant};

use brief_embed::stub::{Answer, Stub};
use brief_embed::{ApiKey, Client, EmbedError, Endpoint, Role};

fn stub(answer: Answer) -> Stub {
    Stub::start(answer).unwrap()
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
    let server = stub(Answer::Vectors(4));
    let mut endpoint = Endpoint::new(server.url(), "test-model");
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
    // Listed last first: placed by index, not by position.
    let expected = |t: &str| {
        let mut v = brief_embed::stub::vector(&format!("passage: {t}"), 4);
        assert!(brief_embed::normalize(&mut v));
        v
    };
    assert_eq!(v, vec![expected("a"), expected("b"), expected("c")]);
    let request = server.take().remove(0);
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
    let server = stub(Answer::Vectors(3));
    let v = client(server.url())
        .embed(&["q"], Role::Query, WAIT)
        .unwrap();
    assert_eq!(v.len(), 1);
    let request = server.take().remove(0);
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
    let server = stub(Answer::Stall);
    let err = within(WAIT, || {
        client(server.url()).embed(&["x"], Role::Query, WAIT)
    })
    .unwrap_err();
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
                r#"{"error":{"message":"model exploded","type":"server_error"}}"#.into(),
            ),
            |e| matches!(e, EmbedError::Status { status: 500, message } if message == "model exploded"),
        ),
        (Answer::Status(404, "no route".into()), |e| {
            matches!(e, EmbedError::Status { status: 404, .. })
        }),
        (Answer::Status(302, String::new()), |e| {
            matches!(e, EmbedError::Status { status: 302, .. })
        }),
        (Answer::Body("{not json".into()), |e| {
            matches!(e, EmbedError::Malformed(_))
        }),
        (
            Answer::Body(
                r#"{"data":[{"index":0,"embedding":[1e39,0]},{"index":1,"embedding":[1,0]}]}"#
                    .into(),
            ),
            |e| matches!(e, EmbedError::NotFinite { index: 0 }),
        ),
        (
            Answer::Body(
                r#"{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[1,0,0]}]}"#
                    .into(),
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
        let server = stub(answer);
        let err = within(WAIT, || {
            client(server.url()).embed(&["a", "b"], Role::Passage, WAIT)
        })
        .unwrap_err();
        assert!(expected(&err), "unexpected: {err:?}");
    }
}

#[test]
fn wrong_dimensions_are_refused_when_dimensions_were_asked() {
    let server = stub(Answer::Vectors(5));
    let mut endpoint = Endpoint::new(server.url(), "m");
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
    let server = stub(Answer::Vectors(8));
    let client = client(server.url());
    for _ in 0..20 {
        assert_eq!(client.embed(&["a"], Role::Query, WAIT).unwrap()[0].len(), 8);
    }
}
