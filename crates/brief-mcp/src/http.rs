//! Streamable HTTP: rmcp's service behind a small hyper server. Requests whose `Host` or
//! `Origin` is not allowed are refused (the MCP specification's guard against DNS
//! rebinding); by default only loopback hosts and origins are. Before rmcp's own checks, a
//! `Host` that is not `host[:port]` and an `Origin` that is not a serialized origin
//! (`scheme://host[:port]`) are refused: rmcp reads them as URIs, so the userinfo in
//! `http://evil.example@localhost:PORT` would pass as host `localhost`.

use std::net::SocketAddr;
use std::sync::Arc;

use std::convert::Infallible;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderMap, HOST, ORIGIN};
use hyper::{Method, Request, Response, StatusCode};
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
                if let Some(refusal) = refuse_headers(request.headers()) {
                    return Ok(refusal);
                }
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

/// The response for a request whose `Host` or `Origin` is not in its plain form, if it is not.
fn refuse_headers(headers: &HeaderMap) -> Option<Response<BoxBody<Bytes, Infallible>>> {
    let refuse = |status: StatusCode, message: &'static str| {
        let body = Full::new(Bytes::from_static(message.as_bytes())).boxed();
        let mut response = Response::new(body);
        *response.status_mut() = status;
        response
    };
    for host in headers.get_all(HOST) {
        if !host.to_str().is_ok_and(is_host_and_port) {
            return Some(refuse(
                StatusCode::BAD_REQUEST,
                "Bad Request: the Host header must be host[:port]",
            ));
        }
    }
    for origin in headers.get_all(ORIGIN) {
        let plain = origin
            .to_str()
            .is_ok_and(|o| o == "null" || is_serialized_origin(o));
        if !plain {
            return Some(refuse(
                StatusCode::FORBIDDEN,
                "Forbidden: the Origin header must be scheme://host[:port]",
            ));
        }
    }
    None
}

/// `scheme "://" host [":" port]` (RFC 6454 §6.2), the only form a browser sends: no
/// userinfo, path, query or fragment.
fn is_serialized_origin(value: &str) -> bool {
    let Some((scheme, rest)) = value.split_once("://") else {
        return false;
    };
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    scheme_ok && is_host_and_port(rest)
}

/// `host [":" port]` where host is a DNS name, an IPv4 address or a bracketed IPv6 address.
fn is_host_and_port(value: &str) -> bool {
    let (host, port) = if let Some(v6) = value.strip_prefix('[') {
        let Some((inside, after)) = v6.split_once(']') else {
            return false;
        };
        if inside.parse::<std::net::Ipv6Addr>().is_err() {
            return false;
        }
        match after {
            "" => return true,
            _ => match after.strip_prefix(':') {
                Some(port) => ("v6", Some(port)),
                None => return false,
            },
        }
    } else {
        match value.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (value, None),
        }
    };
    let host_ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
    let port_ok = port.is_none_or(|p| {
        !p.is_empty()
            && p.len() <= 5
            && p.chars().all(|c| c.is_ascii_digit())
            && p.parse::<u16>().is_ok()
    });
    host_ok && port_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialized_origins() {
        for plain in [
            "http://localhost:8080",
            "https://127.0.0.1",
            "http://[::1]:3000",
            "https://app.example.com",
            "vscode-webview://abc123",
        ] {
            assert!(is_serialized_origin(plain), "{plain}");
        }
        for not in [
            "http://evil.example@localhost:8080",
            "http://@localhost",
            "http://u:p@127.0.0.1:1",
            "http://localhost:8080/",
            "http://localhost:8080/mcp",
            "http://localhost?x",
            "http://localhost#x",
            "http://localhost:",
            "http://localhost:99999",
            "http://localhost:80:80",
            "http://[::1",
            "http://[::1]x",
            "http://[evil]:1",
            "http://",
            "localhost",
            "://localhost",
            "1http://localhost",
            "http://local host",
        ] {
            assert!(!is_serialized_origin(not), "{not}");
        }
    }

    #[test]
    fn hosts() {
        assert!(is_host_and_port("127.0.0.1:4000"));
        assert!(is_host_and_port("localhost"));
        assert!(is_host_and_port("[::1]:4000"));
        assert!(!is_host_and_port("evil@127.0.0.1:4000"));
        assert!(!is_host_and_port("127.0.0.1:4000/x"));
    }
}
