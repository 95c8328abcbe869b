//! The blocking client: one `POST` per batch, bounded in time.

use std::time::Duration;

use serde::Serialize;

use crate::{response, EmbedError, Endpoint, Role};

/// The largest answer read, in bytes (2,048 vectors of 3,072 dimensions as JSON fit).
#[cfg_attr(not(feature = "http"), allow(dead_code))]
const MAX_ANSWER_BYTES: u64 = 256 << 20;

/// A client of one endpoint. It keeps its connections open between requests (`brief serve`
/// holds one for its life).
pub struct Client {
    endpoint: Endpoint,
    #[cfg(feature = "http")]
    agent: ureq::Agent,
}

/// The body of a request.
#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    input: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dimensions: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_type: Option<&'static str>,
}

impl Client {
    /// A client of `endpoint`.
    pub fn new(endpoint: Endpoint) -> Client {
        Client {
            #[cfg(feature = "http")]
            agent: agent(&endpoint),
            endpoint,
        }
    }

    /// The endpoint it asks.
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// Embeds `texts` (at most the endpoint's batch) in one request, each after its role's
    /// prefix, waiting at most `timeout` for the whole answer (and at most the endpoint's
    /// time-out to connect). One unit vector per text, in order.
    pub fn embed(
        &self,
        texts: &[&str],
        role: Role,
        timeout: Duration,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        if texts.len() > self.endpoint.batch.max(1) {
            return Err(EmbedError::TooMany {
                sent: texts.len(),
                batch: self.endpoint.batch,
            });
        }
        let request = Request {
            model: &self.endpoint.model,
            input: texts
                .iter()
                .map(|text| self.endpoint.prefixed(text, role))
                .collect(),
            dimensions: self.endpoint.dimensions,
            input_type: self.endpoint.input_type.then(|| role.name()),
        };
        let body = serde_json::to_vec(&request)
            .map_err(|e| EmbedError::Malformed(format!("cannot write the request: {e}")))?;
        let (status, answer) = self.post(body, timeout)?;
        let expected = self.endpoint.dimensions.map(|d| d as usize);
        response::vectors(status, &answer, texts.len(), expected)
    }

    /// Posts `body`; the status and body of the answer.
    #[cfg(feature = "http")]
    fn post(&self, body: Vec<u8>, timeout: Duration) -> Result<(u16, Vec<u8>), EmbedError> {
        let url = &self.endpoint.url;
        let mut request = self
            .agent
            .post(url)
            .config()
            .timeout_global(Some(timeout))
            .timeout_connect(Some(timeout.min(self.endpoint.timeout)))
            .build()
            .header("Content-Type", "application/json")
            .header("Accept", "application/json");
        if let Some(key) = &self.endpoint.api_key {
            request = request.header("Authorization", format!("Bearer {}", key.expose()));
        }
        let failed = |e: ureq::Error| transport_error(url, timeout, e);
        let mut answer = request.send(&body[..]).map_err(failed)?;
        let status = answer.status().as_u16();
        let bytes = answer
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER_BYTES)
            .read_to_vec()
            .map_err(failed)?;
        Ok((status, bytes))
    }

    /// Without the HTTP client nothing can be asked.
    #[cfg(not(feature = "http"))]
    fn post(&self, _body: Vec<u8>, _timeout: Duration) -> Result<(u16, Vec<u8>), EmbedError> {
        Err(EmbedError::NotBuilt)
    }
}

/// The agent of one endpoint: no redirects (a key is never sent on to another host), HTTP
/// errors read as answers (their body says why), the environment's proxy settings.
#[cfg(feature = "http")]
fn agent(endpoint: &Endpoint) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_connect(Some(endpoint.timeout))
        .user_agent(concat!("brief/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// A transport failure as an [`EmbedError`].
#[cfg(feature = "http")]
fn transport_error(url: &str, timeout: Duration, error: ureq::Error) -> EmbedError {
    use std::io::ErrorKind;
    let unreachable = |reason: String| EmbedError::Unreachable {
        url: url.to_string(),
        reason,
    };
    let timed_out = || EmbedError::Timeout {
        url: url.to_string(),
        ms: timeout.as_millis(),
    };
    match error {
        ureq::Error::Timeout(_) => timed_out(),
        ureq::Error::Io(e) if matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock) => {
            timed_out()
        }
        ureq::Error::Io(e) => unreachable(e.to_string()),
        ureq::Error::HostNotFound => unreachable("no such host".into()),
        ureq::Error::ConnectionFailed => unreachable("connection failed".into()),
        ureq::Error::BodyExceedsLimit(limit) => {
            EmbedError::Malformed(format!("the answer is larger than {} MiB", limit >> 20))
        }
        ureq::Error::Protocol(e) => EmbedError::Malformed(format!("not an HTTP answer: {e}")),
        other => unreachable(other.to_string()),
    }
}
