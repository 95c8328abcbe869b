//! Streamable HTTP: rmcp's service behind a small hyper server. Requests whose `Host` or
//! `Origin` is not allowed are refused (the MCP specification's guard against DNS
//! rebinding); by default only loopback hosts and origins are.

use std::net::SocketAddr;
use std::sync::Arc;

use std::convert::Infallible;

use hyper::body::Incoming;
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tower_service::Service;

use crate::server::{BriefServer, Shared};
use crate::{ServeError, ServeOptions};

/// Origins a local client (an editor's webview, a browser tab on this machine) sends.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "https://localhost:*",
    "http://127.0.0.1:*",
    "https://127.0.0.1:*",
    "http://[::1]:*",
    "https://[::1]:*",
];

pub async fn serve(
    addr: SocketAddr,
    options: &ServeOptions,
    shared: Arc<Shared>,
) -> Result<(), ServeError> {
    let mut origins: Vec<String> = LOOPBACK_ORIGINS.iter().map(|s| s.to_string()).collect();
    origins.extend(options.allowed_origins.iter().cloned());
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_origins(origins)
        .enforce_origin_validation();
    if options.allow_remote {
        // Other machines reach us by names we cannot know; Origin checks still apply.
        config = config.disable_allowed_hosts();
    }
    let service = StreamableHttpService::new(
        move || Ok(BriefServer::new(Arc::clone(&shared))),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    let local = listener.local_addr().unwrap_or(addr);
    // The one line a caller (or a test) reads to learn the port when 0 was asked for.
    eprintln!("brief serve: listening on http://{local}/mcp");
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(conn) => conn,
            Err(e) => {
                eprintln!("brief serve: accept failed: {e}");
                continue;
            }
        };
        let service = service.clone();
        let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
            let mut service = service.clone();
            let ending_session = request.method() == Method::DELETE;
            async move {
                let mut response = service.call(request).await?;
                // A session ended by DELETE is answered 202 by rmcp; clients (the Python SDK)
                // expect 200 or 204 and log a failure otherwise.
                if ending_session && response.status() == StatusCode::ACCEPTED {
                    *response.status_mut() = StatusCode::NO_CONTENT;
                }
                Ok::<_, Infallible>(response)
            }
        });
        tokio::spawn(async move {
            let _ = auto::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}
