//! Why a request for embeddings gave no vectors.

/// A failed request. Each says in a few words what went wrong; none is fatal to brief,
/// which then works from the graph and words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EmbedError {
    /// The endpoint could not be reached: refused, no such host, TLS, a broken connection.
    #[error("cannot reach {url}: {reason}")]
    Unreachable {
        /// The URL posted to.
        url: String,
        /// What the system said.
        reason: String,
    },
    /// No whole answer within the time-out.
    #[error("no answer from {url} within {ms} ms")]
    Timeout {
        /// The URL posted to.
        url: String,
        /// The time-out, in milliseconds.
        ms: u128,
    },
    /// The server answered with an HTTP error.
    #[error("the server answered HTTP {status}: {message}")]
    Status {
        /// The HTTP status code.
        status: u16,
        /// The server's own message, on one line and shortened.
        message: String,
    },
    /// The body is not the JSON the embeddings API answers with.
    #[error("the answer is not an embeddings response: {0}")]
    Malformed(String),
    /// Fewer or more vectors than texts (a partial batch).
    #[error("the server returned {got} of {sent} vectors")]
    Count {
        /// Texts sent.
        sent: usize,
        /// Vectors returned.
        got: usize,
    },
    /// Vectors of another length than expected (asked for, or stored in the index).
    #[error("the server returned vectors of {got} dimensions where {expected} were expected")]
    Dimensions {
        /// The expected length.
        expected: usize,
        /// The length returned.
        got: usize,
    },
    /// Vectors of different lengths in one answer.
    #[error("the server returned vectors of {first} and of {other} dimensions in one answer")]
    Varying {
        /// The first vector's length.
        first: usize,
        /// Another vector's length.
        other: usize,
    },
    /// A vector holds a value that is not a finite number, or is all zeros.
    #[error("vector {index} of the answer is not usable (not a number, infinite, or zero)")]
    NotFinite {
        /// Its position in the batch.
        index: usize,
    },
    /// More texts than the endpoint's batch in one request (a caller's mistake).
    #[error("{sent} texts in one request; the batch is {batch}")]
    TooMany {
        /// Texts given.
        sent: usize,
        /// The endpoint's batch.
        batch: usize,
    },
    /// This brief was built without the HTTP client (the `embeddings` feature).
    #[error("this brief was built without embeddings (the `embeddings` feature)")]
    NotBuilt,
}

impl EmbedError {
    /// Whether waiting ran out (the server may be up but slow).
    pub fn is_timeout(&self) -> bool {
        matches!(self, EmbedError::Timeout { .. })
    }
}
