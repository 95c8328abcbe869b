//! Streamable HTTP: rmcp's service behind a small hyper server. Before rmcp sees a request,
//! [`guard`] refuses one whose `Host`, `Origin` or target is not plain or not allowed (the
//! MCP specification's guard against DNS rebinding; by default only loopback hosts and
//! origins are) and answers CORS preflights.
//!
//! Latency: accepted sockets get `TCP_NODELAY`, rmcp's SSE priming event is off (there is
//! no event store to resume from), and the response to a POST is held until its first event
//! is ready; when that event is the answer and the stream ends with it, the response goes
//! whole, with its length, so headers and answer leave in one write. Two writes with
//! Nagle's algorithm on made every call from a client that delays its ACKs (Node's) wait
//! about 40 ms.

mod guard;

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Frame, Incoming, SizeHint};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tower_service::Service;

use crate::served::Served;
use crate::server::BriefServer;
use crate::{ServeError, ServeOptions};
use guard::{Body, Policy};

pub async fn serve(options: &ServeOptions, served: Arc<Served>) -> Result<(), ServeError> {
    let Some(addr) = options.http else {
        return Ok(());
    };
    let policy = Policy::new(&options.allowed_origins, options.allow_remote)?;
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_origins(policy.rmcp_origins())
        .enforce_origin_validation()
        .with_sse_retry(None);
    if options.allow_remote {
        // Other machines reach us by names we cannot know; Origin checks still apply.
        config = config.disable_allowed_hosts();
    }
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.sse_retry = None;
    let service = StreamableHttpService::new(
        move || Ok(BriefServer::new(Arc::clone(&served))),
        Arc::new(sessions),
        config,
    );
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    let local = listener.local_addr().unwrap_or(addr);
    // The one line a caller (or a test) reads to learn the port when 0 was asked for.
    eprintln!("brief serve: listening on http://{local}/mcp");
    let policy = Arc::new(policy);
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(conn) => conn,
            Err(e) => {
                eprintln!("brief serve: accept failed: {e}");
                continue;
            }
        };
        // Without it a response written in parts waits for the client's delayed ACK.
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        let policy = Arc::clone(&policy);
        let handler = hyper::service::service_fn(move |request: Request<Incoming>| {
            let service = service.clone();
            let policy = Arc::clone(&policy);
            async move { Ok::<_, Infallible>(answer(service, &policy, request).await) }
        });
        tokio::spawn(async move {
            let _ = auto::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}

/// One request: checked, answered by rmcp (or here, for a CORS preflight), and the response
/// made ready to leave in one write.
async fn answer(
    mut service: StreamableHttpService<BriefServer, LocalSessionManager>,
    policy: &Policy,
    request: Request<Incoming>,
) -> Response<Body> {
    let origin = match policy.check(&request) {
        Ok(origin) => origin,
        Err(refusal) => return refusal.response(),
    };
    let method = request.method().clone();
    if method == Method::OPTIONS {
        return guard::preflight(origin);
    }
    let mut response = match service.call(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    // A session ended by DELETE is answered 202 by rmcp; clients (the Python SDK) expect 200
    // or 204 and log a failure otherwise.
    if method == Method::DELETE && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    if method == Method::POST && is_event_stream(&response) {
        response = first_event_with_headers(response).await;
    }
    if let Some(origin) = origin {
        guard::allow_reading(&mut response, origin);
    }
    response
}

fn is_event_stream(response: &Response<Body>) -> bool {
    response
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// How long a response that holds its answer waits for its stream to end, so that it can
/// leave whole (the end follows the answer at once; this only bounds a surprise).
const END_WAIT: Duration = Duration::from_millis(20);

/// Waits for the stream's first frame (the answer to the POST, or a notification before it),
/// so the headers do not leave alone; when the stream ends right after it, the response is
/// sent whole, with its length (one write: no chunk and no end-of-chunks write after it).
async fn first_event_with_headers(response: Response<Body>) -> Response<Body> {
    let (mut parts, mut body) = response.into_parts();
    let first = body.frame().await.and_then(Result::ok);
    let answer = first
        .as_ref()
        .and_then(|f| f.data_ref())
        .is_some_and(holds_an_answer);
    if answer {
        if let Ok(None) = tokio::time::timeout(END_WAIT, body.frame()).await {
            let bytes = first.and_then(|f| f.into_data().ok()).unwrap_or_default();
            parts.headers.remove(hyper::header::TRANSFER_ENCODING);
            return Response::from_parts(parts, Full::new(bytes).boxed());
        }
    }
    let body = Prefetched { first, rest: body };
    Response::from_parts(parts, BodyExt::boxed(body))
}

/// Whether an SSE event carries a JSON-RPC answer (a `result` or an `error`), after which
/// rmcp ends a POST's stream.
fn holds_an_answer(event: &Bytes) -> bool {
    let text = String::from_utf8_lossy(event);
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<serde_json::Value>(data.trim()).ok())
        .any(|message| {
            message.get("id").is_some()
                && (message.get("result").is_some() || message.get("error").is_some())
        })
}

/// A body whose first frame was already read.
struct Prefetched {
    first: Option<Frame<Bytes>>,
    rest: Body,
}

impl hyper::body::Body for Prefetched {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if let Some(frame) = self.first.take() {
            return Poll::Ready(Some(Ok(frame)));
        }
        Pin::new(&mut self.rest).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.first.is_none() && self.rest.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}
