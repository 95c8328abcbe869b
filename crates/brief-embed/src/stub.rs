//! A stub embeddings server for tests and benchmarks (feature `stub`): a std `TcpListener`
//! on a free loopback port that answers the embeddings API the way it is told — well, with
//! errors, with wrong or partial answers, or not at all — and records what it was asked.
//!
//! Its vectors hash each word of a text into the dimensions, so texts that share words are
//! similar: enough to test ranking plumbing, nothing about meaning.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the stub answers every request.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// One vector of this many dimensions per input, in reverse order with their `index`.
    Vectors(usize),
    /// One vector (of 8 dimensions) fewer than inputs.
    Partial,
    /// This status and body.
    Status(u16, String),
    /// This body with status 200.
    Body(String),
    /// Reads the request, then says nothing for 30 seconds.
    Stall,
    /// Accepts the connection and closes it without a word.
    Close,
    /// Answers with bytes that are not HTTP.
    Garbage,
}

/// A request as the stub read it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The header lines, as sent.
    pub headers: Vec<String>,
    /// The JSON body (`null` when it did not parse).
    pub body: serde_json::Value,
}

impl Request {
    /// The texts of `input`.
    pub fn texts(&self) -> Vec<String> {
        self.body["input"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect()
    }
}

/// A running stub (it lives as long as the process).
pub struct Stub {
    url: String,
    answer: Arc<Mutex<Answer>>,
    seen: Arc<Mutex<Vec<Request>>>,
}

impl Stub {
    /// Starts a stub answering `answer`; fails only when no loopback port can be had.
    pub fn start(answer: Answer) -> std::io::Result<Stub> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let url = format!("http://{}/v1", listener.local_addr()?);
        let stub = Stub {
            url,
            answer: Arc::new(Mutex::new(answer)),
            seen: Arc::default(),
        };
        let (answer, seen) = (Arc::clone(&stub.answer), Arc::clone(&stub.seen));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (answer, seen) = (Arc::clone(&answer), Arc::clone(&seen));
                std::thread::spawn(move || serve(stream, &answer, &seen));
            }
        });
        Ok(stub)
    }

    /// Its base URL (`http://127.0.0.1:PORT/v1`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Answers `answer` from now on.
    pub fn set(&self, answer: Answer) {
        *lock(&self.answer) = answer;
    }

    /// The requests read since the last call.
    pub fn take(&self) -> Vec<Request> {
        std::mem::take(&mut *lock(&self.seen))
    }

    /// The texts asked for since the last call.
    pub fn texts(&self) -> Vec<String> {
        self.take().iter().flat_map(Request::texts).collect()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// The stub's vector of `text`: each word (lower-cased) hashed into one of `dims`
/// dimensions, plus a little in the first so that no text is the zero vector.
pub fn vector(text: &str, dims: usize) -> Vec<f32> {
    let dims = dims.max(1);
    let mut v = vec![0f32; dims];
    v[0] = 0.01;
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let h = word.to_lowercase().bytes().fold(7usize, |h, b| {
            h.wrapping_mul(31).wrapping_add(usize::from(b))
        });
        v[h % dims] += 1.0;
    }
    v
}

fn serve(stream: TcpStream, answer: &Mutex<Answer>, seen: &Mutex<Vec<Request>>) {
    let mut reader = BufReader::new(&stream);
    loop {
        if *lock(answer) == Answer::Close {
            return;
        }
        let Some(request) = read_request(&mut reader) else {
            return;
        };
        // Read after the request: a kept-alive connection answers as told now.
        let answer = lock(answer).clone();
        let texts = request.texts();
        lock(seen).push(request);
        let (status, body) = match answer {
            Answer::Vectors(dims) => (200, vectors(&texts, dims, texts.len())),
            Answer::Partial => (200, vectors(&texts, 8, texts.len().saturating_sub(1))),
            Answer::Status(status, body) => (status, body),
            Answer::Body(body) => (200, body),
            Answer::Stall => {
                std::thread::sleep(Duration::from_secs(30));
                return;
            }
            Answer::Garbage => {
                let _ = (&stream).write_all(b"\x00\x01 not HTTP at all\r\n\r\n");
                return;
            }
            Answer::Close => return,
        };
        let written = write!(
            &stream,
            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        if written.is_err() {
            return;
        }
    }
}

fn read_request(reader: &mut BufReader<&TcpStream>) -> Option<Request> {
    let mut headers = Vec::new();
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
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
    Some(Request {
        headers,
        body: serde_json::from_slice(&body).unwrap_or_default(),
    })
}

/// An answer of `n` vectors (for the first `n` texts), listed last first with their index.
fn vectors(texts: &[String], dims: usize, n: usize) -> String {
    let data: Vec<serde_json::Value> = texts
        .iter()
        .take(n)
        .enumerate()
        .rev()
        .map(|(i, t)| serde_json::json!({"object": "embedding", "index": i, "embedding": vector(t, dims)}))
        .collect();
    serde_json::json!({"object": "list", "data": data, "model": "stub"}).to_string()
}
