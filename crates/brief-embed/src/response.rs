//! Reading an answer of the embeddings API: `data[].embedding`, placed by `data[].index`,
//! every vector checked and made unit length.

use serde::Deserialize;

use crate::vector::normalize;
use crate::EmbedError;

/// The longest server message kept in an error, in characters.
const MESSAGE_CHARS: usize = 200;

#[derive(Deserialize)]
struct Answer {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    index: Option<usize>,
    embedding: Vec<f32>,
}

/// The vectors of an HTTP answer to `sent` texts, in the order the texts were sent, each of
/// unit length; `expected` is the length they must have (when one is known).
pub(crate) fn vectors(
    status: u16,
    body: &[u8],
    sent: usize,
    expected: Option<usize>,
) -> Result<Vec<Vec<f32>>, EmbedError> {
    if !(200..300).contains(&status) {
        return Err(EmbedError::Status {
            status,
            message: server_message(body),
        });
    }
    let answer: Answer = serde_json::from_slice(body)
        .map_err(|e| EmbedError::Malformed(shorten(&e.to_string(), MESSAGE_CHARS).to_string()))?;
    if answer.data.len() != sent {
        return Err(EmbedError::Count {
            sent,
            got: answer.data.len(),
        });
    }
    let mut placed: Vec<Option<Vec<f32>>> = vec![None; sent];
    for (position, item) in answer.data.into_iter().enumerate() {
        // Servers that leave `index` out answer in order.
        let at = item.index.unwrap_or(position);
        let slot = placed.get_mut(at).ok_or_else(|| {
            EmbedError::Malformed(format!("index {at} in an answer to {sent} texts"))
        })?;
        if slot.is_some() {
            return Err(EmbedError::Malformed(format!("index {at} appears twice")));
        }
        *slot = Some(item.embedding);
    }
    let vectors: Vec<Vec<f32>> = placed.into_iter().flatten().collect();
    check(vectors, expected)
}

/// Checks lengths and values and makes every vector unit length.
fn check(vectors: Vec<Vec<f32>>, expected: Option<usize>) -> Result<Vec<Vec<f32>>, EmbedError> {
    let first = vectors.first().map(Vec::len).unwrap_or(0);
    if let Some(expected) = expected.filter(|&e| e != first) {
        return Err(EmbedError::Dimensions {
            expected,
            got: first,
        });
    }
    let mut out = Vec::with_capacity(vectors.len());
    for (index, mut vector) in vectors.into_iter().enumerate() {
        if vector.len() != first {
            return Err(EmbedError::Varying {
                first,
                other: vector.len(),
            });
        }
        if vector.is_empty() || !normalize(&mut vector) {
            return Err(EmbedError::NotFinite { index });
        }
        out.push(vector);
    }
    Ok(out)
}

/// The server's message from an error body: `{"error": {"message": …}}` (OpenAI),
/// `{"error": "…"}` (Ollama, text-embeddings-inference), `{"message": …}`, or the body's text;
/// on one line and shortened.
pub(crate) fn server_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let from_json = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|value| {
            let error = value.get("error").unwrap_or(&value);
            error
                .get("message")
                .and_then(|m| m.as_str())
                .or_else(|| error.as_str())
                .map(str::to_string)
        });
    let message = from_json.unwrap_or_else(|| text.into_owned());
    let one_line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.is_empty() {
        return "(no message)".into();
    }
    let short = shorten(&one_line, MESSAGE_CHARS);
    if short.len() < one_line.len() {
        format!("{short}…")
    } else {
        one_line
    }
}

/// At most `chars` characters of `text`.
fn shorten(text: &str, chars: usize) -> &str {
    match text.char_indices().nth(chars) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(items: &str) -> Vec<u8> {
        format!(r#"{{"object":"list","data":[{items}],"model":"m"}}"#).into_bytes()
    }

    #[test]
    fn vectors_are_placed_by_index_and_made_unit_length() {
        let b = body(
            r#"{"object":"embedding","index":1,"embedding":[0,2]},
               {"object":"embedding","index":0,"embedding":[3,4]}"#,
        );
        let v = vectors(200, &b, 2, None).unwrap();
        assert_eq!(v[0], vec![0.6, 0.8]);
        assert_eq!(v[1], vec![0.0, 1.0]);
    }

    #[test]
    fn an_answer_without_indexes_is_taken_in_order() {
        let b = body(r#"{"embedding":[1,0]},{"embedding":[0,1]}"#);
        let v = vectors(200, &b, 2, Some(2)).unwrap();
        assert_eq!(v, vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
    }

    #[test]
    fn every_wrong_answer_is_its_own_error() {
        let partial = body(r#"{"index":0,"embedding":[1,0]}"#);
        assert_eq!(
            vectors(200, &partial, 2, None),
            Err(EmbedError::Count { sent: 2, got: 1 })
        );
        let twice = body(r#"{"index":0,"embedding":[1,0]},{"index":0,"embedding":[0,1]}"#);
        assert!(matches!(
            vectors(200, &twice, 2, None),
            Err(EmbedError::Malformed(_))
        ));
        let beyond = body(r#"{"index":5,"embedding":[1,0]}"#);
        assert!(matches!(
            vectors(200, &beyond, 1, None),
            Err(EmbedError::Malformed(_))
        ));
        let wrong = body(r#"{"index":0,"embedding":[1,0,0]}"#);
        assert_eq!(
            vectors(200, &wrong, 1, Some(2)),
            Err(EmbedError::Dimensions {
                expected: 2,
                got: 3
            })
        );
        let varying = body(r#"{"index":0,"embedding":[1,0]},{"index":1,"embedding":[1,0,0]}"#);
        assert_eq!(
            vectors(200, &varying, 2, None),
            Err(EmbedError::Varying { first: 2, other: 3 })
        );
        let zero = body(r#"{"index":0,"embedding":[0,0]}"#);
        assert_eq!(
            vectors(200, &zero, 1, None),
            Err(EmbedError::NotFinite { index: 0 })
        );
        // Too large for an f32: infinite once read.
        let huge = body(r#"{"index":0,"embedding":[1e39,0]}"#);
        assert_eq!(
            vectors(200, &huge, 1, None),
            Err(EmbedError::NotFinite { index: 0 })
        );
        let empty = body(r#"{"index":0,"embedding":[]}"#);
        assert_eq!(
            vectors(200, &empty, 1, None),
            Err(EmbedError::NotFinite { index: 0 })
        );
        for bad in [
            &b"not json"[..],
            br#"{"data":[{"index":0,"embedding":[null]}]}"#,
            br#"{"data":{"index":0}}"#,
            br#"{"object":"list"}"#,
            br#"{"data":[{"index":0,"embedding":"AAAA"}]}"#,
            b"",
        ] {
            assert!(
                matches!(vectors(200, bad, 1, None), Err(EmbedError::Malformed(_))),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn http_errors_carry_the_servers_message_shortened() {
        let openai =
            br#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#;
        assert_eq!(
            vectors(401, openai, 1, None),
            Err(EmbedError::Status {
                status: 401,
                message: "Incorrect API key provided".into()
            })
        );
        let ollama = br#"{"error":"model \"nomic\" not found, try pulling it first"}"#;
        assert_eq!(
            server_message(ollama),
            "model \"nomic\" not found, try pulling it first"
        );
        assert_eq!(server_message(b"Bad\n  Gateway\n"), "Bad Gateway");
        assert_eq!(server_message(b""), "(no message)");
        let long = "x".repeat(1000);
        let message = server_message(long.as_bytes());
        assert_eq!(message.chars().count(), MESSAGE_CHARS + 1);
        assert!(message.ends_with('…'));
        // Not UTF-8: still a message, never a panic.
        assert!(!server_message(&[0xff, 0xfe, b'o', b'k']).is_empty());
    }
}
