//! `brief serve`: the brief engine as an MCP server over stdio or streamable HTTP, its
//! project kept current by the watcher of `brief_watch`.
//!
//! The only crate with async code. Tools, resources and the prompt are thin adapters over
//! the `brief` library — the calls the CLI makes — so a tool returns the bytes the CLI
//! prints for the same arguments.

mod http;
mod params;
mod schema;
mod served;
mod server;
pub(crate) mod stdio;
pub(crate) mod tools;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;

pub(crate) use served::Served;
pub(crate) use server::BriefServer;

/// How long one tool call may run by default before it is answered with a tool error that
/// says what to narrow (below the 60 s most clients wait).
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(30);

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// `--root`, if given.
    pub root: Option<PathBuf>,
    /// Where the project is discovered from otherwise.
    pub cwd: PathBuf,
    /// Serve streamable HTTP on this address instead of stdio.
    pub http: Option<SocketAddr>,
    /// Allow a non-loopback `http` address.
    pub allow_remote: bool,
    /// Browser origins allowed besides loopback ones (`http://localhost:*` and the like).
    pub allowed_origins: Vec<String>,
    /// Watch the files and refresh on change (otherwise every request checks the files).
    pub watch: bool,
    /// How long one tool call may run (`None`: no limit).
    pub time_limit: Option<Duration>,
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The project could not be opened.
    #[error(transparent)]
    Engine(#[from] brief::EngineError),
    /// `--http` names an address other machines can reach, without `--allow-remote`.
    #[error("{0} is not a loopback address: pass --allow-remote to serve other machines (anyone who can reach it can read the project)")]
    NotLoopback(SocketAddr),
    /// The HTTP address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The system's error.
        source: std::io::Error,
    },
    /// tokio's runtime could not start (the system's error).
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// The MCP session could not start, or ended in failure.
    #[error("MCP session failed: {0}")]
    Session(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// An `--allow-origin` that is not an origin.
    #[error("--allow-origin {0}: an origin is scheme://host[:port] (e.g. https://app.example or http://localhost:*), with no path")]
    BadOrigin(String),
}

/// Runs the server until the client disconnects (stdio) or the process is stopped (HTTP).
/// A server that finds no project still starts, and answers every call with a tool error
/// that says how to point it at one.
pub fn serve(options: ServeOptions) -> Result<(), ServeError> {
    if let Some(addr) = options.http {
        if !addr.ip().is_loopback() && !options.allow_remote {
            return Err(ServeError::NotLoopback(addr));
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    let served = Arc::new(Served::start(&options));
    runtime.block_on(async move {
        if options.http.is_some() {
            return http::serve(&options, served).await;
        }
        let service = BriefServer::new(served)
            .serve(stdio::stdio())
            .await
            .map_err(|e| ServeError::Session(e.into()))?;
        service
            .waiting()
            .await
            .map_err(|e| ServeError::Session(e.into()))?;
        Ok(())
    })
}
