//! What a request must look like before rmcp sees it: one plain `Host` that names this
//! server, at most one plain `Origin` that is allowed, and a target that names no other host;
//! and the CORS answers a browser client needs (the preflight and the response headers).
//!
//! rmcp reads `Host` and `Origin` as URIs and only the first of each, so the userinfo in
//! `http://evil.example@localhost:PORT` would pass as host `localhost`, and a second header
//! would go unread: both are refused here first.

use std::convert::Infallible;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{HeaderMap, HeaderValue, HOST, ORIGIN};
use hyper::{Request, Response, StatusCode};

/// A response body as rmcp builds them.
pub(crate) type Body = BoxBody<Bytes, Infallible>;

/// Origins a local client (an editor's webview, a browser tab on this machine) sends.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "https://localhost:*",
    "http://127.0.0.1:*",
    "https://127.0.0.1:*",
    "http://[::1]:*",
    "https://[::1]:*",
];

/// Host names that reach this machine only.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The request headers a browser client of MCP sends, allowed by the preflight.
const ALLOWED_HEADERS: &str =
    "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID";
/// The response headers a browser client must be able to read.
const EXPOSED_HEADERS: &str = "Mcp-Session-Id, Mcp-Protocol-Version";
/// The methods of the streamable HTTP transport.
const METHODS: &str = "GET, POST, DELETE, OPTIONS";

/// Which hosts and origins this server answers.
#[derive(Debug, Clone)]
pub(crate) struct Policy {
    origins: Vec<Pattern>,
    /// `--allow-remote`: any host name (the Origin check still applies).
    any_host: bool,
}

/// An allowed origin: scheme, host, and a port (`None`: any port).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pattern {
    scheme: String,
    host: String,
    port: Option<u16>,
}

/// A request's origin, its port made explicit (the scheme's default when absent).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl Policy {
    /// Loopback origins and `extra` (from `--allow-origin`); any host name with `any_host`.
    /// An `extra` origin that is not `scheme://host[:port|:*]` is an error naming it.
    pub(crate) fn new(extra: &[String], any_host: bool) -> Result<Policy, crate::ServeError> {
        let mut origins: Vec<Pattern> =
            LOOPBACK_ORIGINS.iter().filter_map(|o| pattern(o)).collect();
        for given in extra {
            let parsed =
                pattern(given).ok_or_else(|| crate::ServeError::BadOrigin(given.clone()))?;
            origins.push(parsed);
        }
        Ok(Policy { origins, any_host })
    }

    /// The origins as rmcp's configuration takes them (it checks them again).
    pub(crate) fn rmcp_origins(&self) -> Vec<String> {
        self.origins
            .iter()
            .map(|p| match p.port {
                Some(port) => format!("{}://{}:{port}", p.scheme, p.host),
                None => format!("{}://{}:*", p.scheme, p.host),
            })
            .collect()
    }

    fn allows(&self, origin: &Origin) -> bool {
        self.origins.iter().any(|p| {
            p.scheme == origin.scheme
                && p.host == origin.host
                && p.port.is_none_or(|port| Some(port) == origin.port)
        })
    }

    /// The refusal for a request that is not in plain form or not for this server, if it
    /// is not; otherwise the request's allowed `Origin`, if it sent one.
    pub(crate) fn check<B>(&self, request: &Request<B>) -> Result<Option<HeaderValue>, Refusal> {
        let headers = request.headers();
        let host = match one(headers, HOST).map_err(|_| TWO_HOSTS)? {
            Some(value) => Some(
                value
                    .to_str()
                    .ok()
                    .filter(|h| is_host_and_port(h))
                    .ok_or(BAD_HOST)?,
            ),
            None => None,
        };
        // An absolute-form target (`POST http://other/mcp`) names the host a proxy would
        // reach; it must be the one `Host` names.
        if let Some(authority) = request.uri().authority() {
            let same = host.is_none_or(|h| h.eq_ignore_ascii_case(authority.as_str()));
            if !same || !is_host_and_port(authority.as_str()) {
                return Err(OTHER_TARGET);
            }
        }
        let named = host.or_else(|| request.uri().authority().map(|a| a.as_str()));
        if !self.any_host && !named.is_some_and(is_loopback_host) {
            return Err(FOREIGN_HOST);
        }
        let Some(origin) = one(headers, ORIGIN).map_err(|_| TWO_ORIGINS)? else {
            return Ok(None);
        };
        let text = origin.to_str().unwrap_or("");
        if text == "null" {
            return Err(OPAQUE_ORIGIN);
        }
        let parsed = parse_origin(text).ok_or(BAD_ORIGIN)?;
        if !self.allows(&parsed) {
            return Err(FOREIGN_ORIGIN);
        }
        Ok(Some(origin.clone()))
    }
}

const TWO_HOSTS: Refusal = Refusal(
    StatusCode::BAD_REQUEST,
    "Bad Request: send exactly one Host header",
);
const BAD_HOST: Refusal = Refusal(
    StatusCode::BAD_REQUEST,
    "Bad Request: the Host header must be host[:port]",
);
const OTHER_TARGET: Refusal = Refusal(
    StatusCode::BAD_REQUEST,
    "Bad Request: the request target names another host than the Host header",
);
const FOREIGN_HOST: Refusal = Refusal(
    StatusCode::FORBIDDEN,
    "Forbidden: the Host header must name this machine (localhost, 127.0.0.1 or [::1]); \
     serve other names with --allow-remote",
);
const TWO_ORIGINS: Refusal = Refusal(
    StatusCode::FORBIDDEN,
    "Forbidden: send at most one Origin header",
);
const OPAQUE_ORIGIN: Refusal = Refusal(
    StatusCode::FORBIDDEN,
    "Forbidden: requests from an opaque origin (Origin: null) are not served",
);
const BAD_ORIGIN: Refusal = Refusal(
    StatusCode::FORBIDDEN,
    "Forbidden: the Origin header must be scheme://host[:port]",
);
const FOREIGN_ORIGIN: Refusal = Refusal(
    StatusCode::FORBIDDEN,
    "Forbidden: this origin is not allowed; start the server with --allow-origin ORIGIN to serve it",
);

/// The CORS preflight's answer for an allowed origin (the caller checked it).
pub(crate) fn preflight(origin: Option<HeaderValue>) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::new()).boxed());
    *response.status_mut() = StatusCode::NO_CONTENT;
    let headers = response.headers_mut();
    if let Some(origin) = origin {
        headers.insert("access-control-allow-origin", origin);
    }
    headers.insert(
        "access-control-allow-methods",
        HeaderValue::from_static(METHODS),
    );
    headers.insert(
        "access-control-allow-headers",
        HeaderValue::from_static(ALLOWED_HEADERS),
    );
    headers.insert("access-control-max-age", HeaderValue::from_static("600"));
    headers.insert("vary", HeaderValue::from_static("Origin"));
    response
}

/// Adds the headers a browser needs to read a response to `origin`.
pub(crate) fn allow_reading(response: &mut Response<Body>, origin: HeaderValue) {
    let headers = response.headers_mut();
    headers.insert("access-control-allow-origin", origin);
    headers.insert(
        "access-control-expose-headers",
        HeaderValue::from_static(EXPOSED_HEADERS),
    );
    headers.append("vary", HeaderValue::from_static("Origin"));
}

/// Why a request is refused: its status and a line of plain text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Refusal(StatusCode, &'static str);

impl Refusal {
    /// The plain-text response.
    pub(crate) fn response(self) -> Response<Body> {
        let mut response = Response::new(Full::new(Bytes::from_static(self.1.as_bytes())).boxed());
        *response.status_mut() = self.0;
        response.headers_mut().insert(
            "content-type",
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        response
    }
}

/// The one value of a header that may appear once: `Err` when it appears more often.
fn one(headers: &HeaderMap, name: hyper::header::HeaderName) -> Result<Option<&HeaderValue>, ()> {
    let mut values = headers.get_all(name).iter();
    let first = values.next();
    match values.next() {
        Some(_) => Err(()),
        None => Ok(first),
    }
}

fn is_loopback_host(authority: &str) -> bool {
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split_once(']').map_or(authority, |(inside, _)| inside),
        None => authority.split_once(':').map_or(authority, |(h, _)| h),
    };
    LOOPBACK_HOSTS
        .iter()
        .any(|l| l.trim_matches(['[', ']']).eq_ignore_ascii_case(host))
}

/// An allowed origin as given: `scheme://host[:port|:*]`.
fn pattern(value: &str) -> Option<Pattern> {
    let (base, any_port) = match value.strip_suffix(":*") {
        Some(base) => (base, true),
        None => (value, false),
    };
    let origin = parse_origin(base)?;
    // `http://h:80:*` is no pattern.
    let explicit = base
        .split_once("://")
        .and_then(|(_, authority)| split_port(authority))
        .is_some_and(|(_, port)| port.is_some());
    if any_port && explicit {
        return None;
    }
    Some(Pattern {
        scheme: origin.scheme,
        host: origin.host,
        port: if any_port { None } else { origin.port },
    })
}

/// `scheme "://" host [":" port]` (RFC 6454 §6.2), the only form a browser sends: no
/// userinfo, path, query or fragment. Scheme and host are lower-cased, the port made explicit
/// for http and https.
fn parse_origin(value: &str) -> Option<Origin> {
    if !is_serialized_origin(value) {
        return None;
    }
    let (scheme, rest) = value.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let (host, port) = split_port(rest)?;
    let port = port.or(match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    });
    Some(Origin {
        scheme,
        host: host.to_ascii_lowercase(),
        port,
    })
}

/// `host[:port]` → host (brackets kept for IPv6) and port.
fn split_port(authority: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']')? + 1;
        let (host, after) = authority.split_at(end);
        (host, after.strip_prefix(':'))
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let port = match port {
        Some(p) => Some(p.parse().ok()?),
        None => None,
    };
    Some((host, port))
}

/// `scheme "://" host [":" port]`: no userinfo, path, query or fragment.
pub(crate) fn is_serialized_origin(value: &str) -> bool {
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
pub(crate) fn is_host_and_port(value: &str) -> bool {
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
        assert!(is_loopback_host("[::1]:4000"));
        assert!(is_loopback_host("LOCALHOST"));
        assert!(!is_loopback_host("localhost.evil.example"));
    }

    #[test]
    fn origins_match_scheme_host_and_port() {
        let policy = Policy::new(
            &["https://app.example".into(), "http://dev.example:*".into()],
            false,
        )
        .unwrap();
        let allowed = |o: &str| policy.allows(&parse_origin(o).unwrap());
        assert!(allowed("https://app.example"));
        assert!(allowed("https://app.example:443"));
        assert!(allowed("https://APP.example"));
        assert!(!allowed("https://app.example:8443"));
        assert!(!allowed("http://app.example"));
        assert!(allowed("http://dev.example:3000"));
        assert!(allowed("http://localhost:5173"));
        assert!(allowed("https://[::1]:1"));
        assert!(!allowed("http://localhost.evil.example:5173"));
        assert!(Policy::new(&["app.example".into()], false).is_err());
        assert!(Policy::new(&["https://app.example/x".into()], false).is_err());
    }
}
