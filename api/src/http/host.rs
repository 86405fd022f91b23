//! The one `Host` a request is for, parsed strictly before anything reads it (issue 40).
//!
//! A request names its site by `Host`, and links in pages and emails were once built from
//! the header as sent: `Host: harbor-lane.localhost:@evil.example` found harbor-lane (the
//! lookup stops at the first `:`) and mailed a link to evil.example. So the outermost layer
//! of the router ([`strict_host`]) accepts only:
//! - an absolute-form request line's authority when there is one, which wins over `Host`
//!   (RFC 9112 §3.2.2; HTTP/2's `:authority` arrives the same way);
//! - else exactly one `Host` header (two or more: 400);
//! - a name of letters, digits, `-`, `.` and `_` (or an IPv4 address, or an IPv6 one in
//!   brackets), at most 253 characters, and an optional port of digits from 1 to 65535
//!   (`:abc`, `:99999`, `:`, userinfo, paths: 400).
//!
//! It then leaves that authority, lower-cased, as the request's only `Host` header, so every
//! reader after it ([`super::site::host_of`], [`super::call::Call::host`]) sees a checked
//! value. Absolute URLs are then built by [`RequestHost::origin`] from the name the site was
//! found by, which is one of the site's configured domains (the store looks sites up by
//! exact domain), and the port.

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, Version, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The site's origin for a link: its primary domain (`http` for a `.localhost` name,
/// else `https`), with `port` unless it is the scheme's default.
pub fn link_origin(domain: &str, port: Option<u16>) -> String {
    let local = domain == "localhost" || domain.ends_with(".localhost");
    let scheme = if local { "http" } else { "https" };
    match port {
        Some(p) if !(local && p == 80 || !local && p == 443) => format!("{scheme}://{domain}:{p}"),
        _ => format!("{scheme}://{domain}"),
    }
}

/// The longest host name DNS allows.
const MAX_NAME: usize = 253;

/// A checked authority: a host name (lower case) and an optional port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestHost {
    pub name: String,
    pub port: Option<u16>,
}

/// Why a request's host was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadHost {
    /// More than one `Host` header.
    Repeated,
    /// No `Host` on an HTTP/1.1 request without an absolute-form target.
    Missing,
    /// Not a name with an optional port.
    Malformed,
}

impl RequestHost {
    /// Parses `name[:port]`.
    pub fn parse(raw: &str) -> Result<RequestHost, BadHost> {
        let (name, port) = if let Some(rest) = raw.strip_prefix('[') {
            // An IPv6 literal: `[` an address std parses `]`, then an optional port.
            let end = rest.find(']').ok_or(BadHost::Malformed)?;
            if rest[..end].parse::<std::net::Ipv6Addr>().is_err() {
                return Err(BadHost::Malformed);
            }
            let after = &rest[end + 1..];
            let port = match after {
                "" => None,
                p => Some(p.strip_prefix(':').ok_or(BadHost::Malformed)?),
            };
            (&raw[..end + 2], port)
        } else {
            match raw.split_once(':') {
                Some((name, port)) => (name, Some(port)),
                None => (raw, None),
            }
        };
        let port = match port {
            None => None,
            Some(p) => Some(parse_port(p)?),
        };
        let name = name.strip_suffix('.').unwrap_or(name);
        let valid_name = !name.is_empty()
            && name.len() <= MAX_NAME
            && (name.starts_with('[')
                || name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_')));
        // Every label has a character: no leading dot, no two in a row, and no second
        // trailing dot (`b..` would come back as `b.`, a different host).
        if !valid_name || name.starts_with('.') || name.ends_with('.') || name.contains("..") {
            return Err(BadHost::Malformed);
        }
        Ok(RequestHost {
            name: name.to_ascii_lowercase(),
            port,
        })
    }

    /// The host as a `Host` header carries it.
    pub fn authority(&self) -> String {
        match self.port {
            Some(p) => format!("{}:{p}", self.name),
            None => self.name.clone(),
        }
    }

    /// The site's origin for absolute URLs: `scheme://name[:port]`. `name` is the domain the
    /// site was found by; the port is left out when it is the scheme's default.
    pub fn origin(&self, https: bool) -> String {
        let scheme = if https { "https" } else { "http" };
        match self.port {
            Some(p) if !(https && p == 443 || !https && p == 80) => {
                format!("{scheme}://{}:{p}", self.name)
            }
            _ => format!("{scheme}://{}", self.name),
        }
    }
}

/// A port: 1 to 5 digits, 1–65535.
fn parse_port(p: &str) -> Result<u16, BadHost> {
    if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) {
        return Err(BadHost::Malformed);
    }
    match p.parse::<u32>() {
        Ok(n) if (1..=65535).contains(&n) => Ok(n as u16),
        _ => Err(BadHost::Malformed),
    }
}

/// The host a request is for: the request line's authority (absolute form, HTTP/2), else
/// its one `Host` header. `Ok(None)`: an HTTP/1.0 request without either.
pub fn of_request(
    version: Version,
    uri: &axum::http::Uri,
    headers: &axum::http::HeaderMap,
) -> Result<Option<RequestHost>, BadHost> {
    let mut hosts = headers.get_all(header::HOST).iter();
    let first = hosts.next();
    if hosts.next().is_some() {
        return Err(BadHost::Repeated);
    }
    if let Some(authority) = uri.authority() {
        // Userinfo (`user@host`) has no place in a request target (RFC 9110 §4.2.4).
        if authority.as_str().contains('@') {
            return Err(BadHost::Malformed);
        }
        return RequestHost::parse(authority.as_str()).map(Some);
    }
    match first {
        Some(value) => {
            let text = value.to_str().map_err(|_| BadHost::Malformed)?;
            RequestHost::parse(text).map(Some)
        }
        None if version == Version::HTTP_10 || version == Version::HTTP_09 => Ok(None),
        None => Err(BadHost::Missing),
    }
}

/// The router's outermost layer: refuses a request whose host is missing, repeated or
/// malformed with a plain 400, and leaves the checked host as its only `Host` header.
pub async fn strict_host(mut req: Request, next: Next) -> Response {
    match of_request(req.version(), req.uri(), req.headers()) {
        Ok(Some(host)) => {
            let value = HeaderValue::from_str(&host.authority()).expect("a checked host");
            req.headers_mut().insert(header::HOST, value);
            next.run(req).await
        }
        Ok(None) => next.run(req).await,
        Err(why) => {
            tracing::debug!(?why, "bad host");
            (
                StatusCode::BAD_REQUEST,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                "Bad Request",
            )
                .into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderMap, Uri};

    fn parse(raw: &str) -> Result<RequestHost, BadHost> {
        RequestHost::parse(raw)
    }

    #[test]
    fn names_with_and_without_ports() {
        assert_eq!(
            parse("Harbor-Lane.localhost:8080"),
            Ok(RequestHost {
                name: "harbor-lane.localhost".into(),
                port: Some(8080)
            })
        );
        assert_eq!(parse("shop.example.").unwrap().authority(), "shop.example");
        assert_eq!(parse("127.0.0.1:1").unwrap().port, Some(1));
        assert_eq!(parse("[::1]:8080").unwrap().name, "[::1]");
        assert_eq!(parse("[::1]").unwrap().port, None);
    }

    #[test]
    fn anything_else_is_refused() {
        for bad in [
            "",
            ":80",
            "harbor-lane.localhost:@evil.example",
            "harbor-lane.localhost:abc",
            "harbor-lane.localhost:99999",
            "harbor-lane.localhost:0",
            "harbor-lane.localhost:",
            "harbor-lane.localhost:80:81",
            "user@harbor-lane.localhost",
            "harbor-lane.localhost/evil",
            "evil.example\\@harbor-lane.localhost",
            "a b",
            "..",
            "b..",
            ".evil",
            "a..b",
            "[::1",
            "[::1]x",
            "[evil.example]",
            "[:8:::::::::::::21]:404",
            "[1::2::3]",
            &"a".repeat(254),
        ] {
            assert!(parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn origins_leave_out_default_ports() {
        let h = parse("shop.example:443").unwrap();
        assert_eq!(h.origin(true), "https://shop.example");
        assert_eq!(h.origin(false), "http://shop.example:443");
        assert_eq!(
            parse("shop.example:8080").unwrap().origin(false),
            "http://shop.example:8080"
        );
    }

    #[test]
    fn the_request_line_wins_and_host_is_said_once() {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("evil.example"));
        let absolute: Uri = "http://harbor-lane.localhost:8080/".parse().unwrap();
        assert_eq!(
            of_request(Version::HTTP_11, &absolute, &headers)
                .unwrap()
                .unwrap()
                .authority(),
            "harbor-lane.localhost:8080"
        );
        let origin: Uri = "/".parse().unwrap();
        headers.append(
            header::HOST,
            HeaderValue::from_static("harbor-lane.localhost"),
        );
        assert_eq!(
            of_request(Version::HTTP_11, &origin, &headers),
            Err(BadHost::Repeated)
        );
        assert_eq!(
            of_request(Version::HTTP_11, &origin, &HeaderMap::new()),
            Err(BadHost::Missing)
        );
        assert_eq!(
            of_request(Version::HTTP_10, &origin, &HeaderMap::new()),
            Ok(None)
        );
    }
}
