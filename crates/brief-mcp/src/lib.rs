//! `brief serve`: the brief engine as an MCP server, over stdio or streamable HTTP.
//!
//! The only crate with async code. Tools, resources and the prompt are thin adapters over
//! the `brief` library — the calls the CLI makes — so a tool returns the bytes the CLI
//! prints for the same arguments.

mod http;
pub mod params;
pub mod server;
pub mod stdio;
pub mod tools;
mod watch;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use rmcp::ServiceExt;

pub use server::{BriefServer, Shared};

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
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Engine(#[from] brief::EngineError),
    #[error("{0} is not a loopback address: pass --allow-remote to serve other machines (anyone who can reach it can read the project)")]
    NotLoopback(SocketAddr),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("MCP session failed: {0}")]
    Session(String),
}

/// Runs the server until the client disconnects (stdio) or the process is stopped (HTTP).
pub fn serve(options: ServeOptions) -> Result<(), ServeError> {
    if let Some(addr) = options.http {
        if !addr.ip().is_loopback() && !options.allow_remote {
            return Err(ServeError::NotLoopback(addr));
        }
    }
    let shared = Arc::new(Shared::open(options.root.clone(), options.cwd.clone())?);
    let _watcher = if options.watch {
        watch::start(shared.root(), Arc::clone(&shared))
    } else {
        None
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async move {
        match options.http {
            Some(addr) => http::serve(addr, &options, shared).await,
            None => {
                let service = BriefServer::new(shared)
                    .serve(stdio::stdio())
                    .await
                    .map_err(|e| ServeError::Session(e.to_string()))?;
                service
                    .waiting()
                    .await
                    .map_err(|e| ServeError::Session(e.to_string()))?;
                Ok(())
            }
        }
    })
}
