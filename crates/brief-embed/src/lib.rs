//! Embeddings through the standard API: a blocking client for the OpenAI-compatible
//! `POST /v1/embeddings` (Ollama, llama.cpp's server, vLLM, LM Studio,
//! text-embeddings-inference, OpenAI itself), and the 8-bit vectors brief stores and scans.
//!
//! brief never ships or downloads a model: it asks the endpoint the user configured, and
//! sends it nothing but the texts to embed.
//!
//! ```no_run
//! use std::time::Duration;
//! use brief_embed::{Client, Endpoint, Role};
//!
//! let endpoint = Endpoint::new("http://localhost:11434/v1", "nomic-embed-text");
//! let client = Client::new(endpoint);
//! let vectors = client.embed(&["switch the bullet lists to dashes"], Role::Query,
//!                            Duration::from_millis(800))?;
//! # Ok::<(), brief_embed::EmbedError>(())
//! ```
//!
//! Every failure is an [`EmbedError`]: refused, timed out, an HTTP error (with the server's
//! message, shortened), a wrong count, wrong or varying dimensions, a value that is not a
//! number, a body that is not the API's JSON. Nothing panics and nothing waits longer than
//! the time-out it is given.
//!
//! The HTTP client is the `http` feature (ureq with rustls); without it every request fails
//! with [`EmbedError::NotBuilt`], and the vector code still works. The `stub` feature adds
//! [`stub`], a stub server for tests and benchmarks.

#![deny(missing_docs)]

mod client;
mod endpoint;
mod error;
mod response;
#[cfg(feature = "stub")]
pub mod stub;
mod vector;

pub use client::Client;
pub use endpoint::{ApiKey, Endpoint, Role};
pub use error::EmbedError;
pub use vector::{normalize, Matrix, Quantized};
