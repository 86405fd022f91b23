//! Who a request comes from: the client's address and whether it reached us over HTTPS.
//!
//! Behind a reverse proxy the connection's peer is the proxy, and the proxy says who the
//! client is in `X-Forwarded-For` and how it connected in `X-Forwarded-Proto`. Anyone can
//! send those headers, so they are believed only from the proxies `tessera serve` was told
//! to trust (`--trusted-proxy`); from any other peer they are ignored.

use std::net::{IpAddr, Ipv4Addr};

use axum::http::HeaderMap;

/// What the server believes about a request's client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Client {
    pub ip: IpAddr,
    /// The client connected over HTTPS (to a trusted proxy that said so): cookies set for
    /// it get `Secure`.
    pub https: bool,
}

/// The client of a request from `peer` (the connection's address; `None` for requests
/// that did not come through the listener) with these headers.
///
/// From a trusted peer, the client is the right-most `X-Forwarded-For` address that is not
/// itself a trusted proxy: each proxy appends the address it saw, so entries left of that
/// one were written by the client and prove nothing. An entry that is not an address ends
/// the walk at the last address believed.
pub fn client_of(peer: Option<IpAddr>, headers: &HeaderMap, trusted: &[IpAddr]) -> Client {
    // On a dual-stack listener an IPv4 peer shows as `::ffff:a.b.c.d`; compared and counted
    // as the IPv4 address it is.
    let peer = peer.map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |p| p.to_canonical());
    let trusted = |ip: &IpAddr| trusted.iter().any(|t| t.to_canonical() == *ip);
    let mut client = Client {
        ip: peer,
        https: false,
    };
    if !trusted(&peer) {
        return client;
    }
    for entry in list_values(headers, "x-forwarded-for").rev() {
        let Ok(ip) = entry.parse::<IpAddr>() else {
            break;
        };
        client.ip = ip.to_canonical();
        if !trusted(&client.ip) {
            break;
        }
    }
    // The proxy nearest to us appends last, and it is the one that saw the client's scheme.
    client.https = list_values(headers, "x-forwarded-proto")
        .next_back()
        .is_some_and(|proto| proto.eq_ignore_ascii_case("https"));
    client
}

/// The comma-separated values of every `name` header line, in order, trimmed.
fn list_values<'h>(
    headers: &'h HeaderMap,
    name: &'static str,
) -> impl DoubleEndedIterator<Item = &'h str> {
    let lines: Vec<&str> = headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    lines
        .into_iter()
        .flat_map(|line| line.split(','))
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    const PROXY: &str = "10.0.0.1";

    #[test]
    fn forwarding_headers_from_an_untrusted_peer_are_ignored() {
        let h = headers(&[
            ("x-forwarded-for", "203.0.113.9"),
            ("x-forwarded-proto", "https"),
        ]);
        let c = client_of(Some(ip("198.51.100.4")), &h, &[ip(PROXY)]);
        assert_eq!(
            c,
            Client {
                ip: ip("198.51.100.4"),
                https: false
            }
        );
        // With no proxy trusted at all, likewise.
        assert_eq!(client_of(Some(ip(PROXY)), &h, &[]).ip, ip(PROXY));
    }

    #[test]
    fn a_trusted_proxy_names_the_client_it_saw() {
        let trusted = [ip(PROXY), ip("10.0.0.2")];
        // The client wrote the first entry itself; the proxy appended what it saw.
        let h = headers(&[("x-forwarded-for", "1.2.3.4, 203.0.113.9")]);
        assert_eq!(
            client_of(Some(ip(PROXY)), &h, &trusted).ip,
            ip("203.0.113.9")
        );
        // Through two trusted proxies, over two header lines.
        let h = headers(&[
            ("x-forwarded-for", "203.0.113.9"),
            ("x-forwarded-for", "10.0.0.2"),
        ]);
        assert_eq!(
            client_of(Some(ip(PROXY)), &h, &trusted).ip,
            ip("203.0.113.9")
        );
        // IPv6 clients.
        let h = headers(&[("x-forwarded-for", "2001:db8::7")]);
        assert_eq!(
            client_of(Some(ip(PROXY)), &h, &trusted).ip,
            ip("2001:db8::7")
        );
    }

    #[test]
    fn ipv4_mapped_addresses_are_their_ipv4_addresses() {
        // A dual-stack listener sees the IPv4 proxy as ::ffff:10.0.0.1.
        let h = headers(&[("x-forwarded-for", "::ffff:203.0.113.9")]);
        let c = client_of(Some(ip("::ffff:10.0.0.1")), &h, &[ip(PROXY)]);
        assert_eq!(c.ip, ip("203.0.113.9"));
        // And a proxy listed in mapped form matches its IPv4 peer.
        let c = client_of(Some(ip(PROXY)), &h, &[ip("::ffff:10.0.0.1")]);
        assert_eq!(c.ip, ip("203.0.113.9"));
        // Without forwarding, the peer is counted as its IPv4 address too.
        let c = client_of(Some(ip("::ffff:198.51.100.4")), &HeaderMap::new(), &[]);
        assert_eq!(c.ip, ip("198.51.100.4"));
    }

    #[test]
    fn an_entry_that_is_not_an_address_ends_the_walk() {
        let trusted = [ip(PROXY), ip("10.0.0.2")];
        let h = headers(&[("x-forwarded-for", "203.0.113.9, unknown, 10.0.0.2")]);
        // The last believed address is the trusted hop before the garbage.
        assert_eq!(client_of(Some(ip(PROXY)), &h, &trusted).ip, ip("10.0.0.2"));
        // No header: the proxy itself.
        assert_eq!(
            client_of(Some(ip(PROXY)), &HeaderMap::new(), &trusted).ip,
            ip(PROXY)
        );
    }

    #[test]
    fn the_nearest_proxy_says_whether_the_client_used_https() {
        let trusted = [ip(PROXY)];
        let https = |v: &str| {
            client_of(
                Some(ip(PROXY)),
                &headers(&[("x-forwarded-proto", v)]),
                &trusted,
            )
            .https
        };
        assert!(https("https"));
        assert!(https("HTTPS"));
        assert!(https("http, https"));
        assert!(!https("https, http"));
        assert!(!https("http"));
        assert!(!client_of(Some(ip(PROXY)), &HeaderMap::new(), &trusted).https);
        // Requests that did not come through the listener.
        assert_eq!(
            client_of(None, &HeaderMap::new(), &trusted).ip,
            IpAddr::V4(Ipv4Addr::UNSPECIFIED)
        );
    }
}
