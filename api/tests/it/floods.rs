//! Slow clients and floods, over HTTP against the real binary: the header and body
//! timeouts, body size limits, the connection cap and per-site fairness (`tessera serve`'s
//! `--header-timeout`, `--body-timeout`, `--max-connections`, `--tenant-max-in-flight`).
//!
//! The bounds are generous on purpose (a noisy 2-core machine): each test checks what
//! happens, and that it happens well before a stuck server would have let it.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::support::{Backend, Server, Visitor};

const QUIET: &str = "skyward.localhost";
const FLOODED: &str = "loam-lantern.localhost";
const OWNER_TOKEN: &str = "floods-owner-token-0001";

fn connect(server: &Server) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    s
}

/// What the connection says next: `Some(bytes)` read (empty: closed by the server), or
/// `None` when nothing came within the socket's read timeout.
fn poll_read(s: &mut TcpStream) -> Option<Vec<u8>> {
    let mut buf = [0u8; 65536];
    match s.read(&mut buf) {
        Ok(n) => Some(buf[..n].to_vec()),
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => None,
        // A reset is the server closing too.
        Err(_) => Some(Vec::new()),
    }
}

/// The whole answer on `s` (until the server closes or `limit` passes): status and text.
fn answer(s: &mut TcpStream, limit: Duration) -> (u16, String) {
    let started = Instant::now();
    let mut raw = Vec::new();
    while started.elapsed() < limit {
        match poll_read(s) {
            Some(bytes) if bytes.is_empty() => break,
            Some(bytes) => raw.extend(bytes),
            None if complete(&raw) => break,
            None => {}
        }
    }
    let text = String::from_utf8_lossy(&raw).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

/// Whether `raw` holds a whole answer with a `Content-Length` body.
fn complete(raw: &[u8]) -> bool {
    let text = String::from_utf8_lossy(raw);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    head.lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|n| n.trim().parse::<usize>().unwrap_or(0))
        })
        .is_some_and(|n| body.len() >= n)
}

fn json_of(text: &str) -> serde_json::Value {
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The head of a visitor's API call (cookies, crumb and client address of `v`), without
/// the blank line, so a test can add `Content-Length` or `Transfer-Encoding`.
fn call_head(v: &Visitor, path: &str) -> String {
    let cookies = v
        .cookies
        .iter()
        .map(|(k, val)| format!("{k}={val}"))
        .collect::<Vec<_>>()
        .join("; ");
    format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nCookie: {cookies}\r\nX-CSRF-Token: {}\r\n\
         X-Forwarded-For: {}\r\nContent-Type: application/json\r\n",
        v.host,
        v.crumb().unwrap_or_default(),
        v.ip
    )
}

/// A client that trickles its headers is cut off once the header timeout passes, however
/// steadily it trickles; so is a keep-alive connection left idle.
#[test]
fn slowloris_is_cut_off() {
    let server = Server::start(Backend::Embedded, &["--header-timeout", "1s"]);
    let mut s = connect(&server);
    let started = Instant::now();
    s.write_all(format!("GET / HTTP/1.1\r\nHost: {QUIET}\r\n").as_bytes())
        .unwrap();
    let mut cut_off = false;
    for i in 0.. {
        // A header line every 200 ms: never idle, never done.
        if s.write_all(format!("X-Slow-{i}: a\r\n").as_bytes())
            .is_err()
        {
            cut_off = true;
            break;
        }
        match poll_read(&mut s) {
            Some(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                assert!(!text.contains(" 200 "), "the page was served: {text}");
                cut_off = true;
                break;
            }
            None if started.elapsed() > Duration::from_secs(20) => break,
            None => {}
        }
    }
    assert!(cut_off, "a trickling client was still connected after 20 s");

    // A keep-alive connection: served, then closed when left idle.
    let mut s = connect(&server);
    s.write_all(format!("GET /healthz HTTP/1.1\r\nHost: {QUIET}\r\n\r\n").as_bytes())
        .unwrap();
    let (status, _) = answer(&mut s, Duration::from_secs(20));
    assert_eq!(status, 200);
    let idle = Instant::now();
    let closed = loop {
        if let Some(bytes) = poll_read(&mut s) {
            break bytes.is_empty();
        }
        if idle.elapsed() > Duration::from_secs(20) {
            break false;
        }
    };
    assert!(
        closed,
        "an idle keep-alive connection was still open after 20 s"
    );
}

/// A body sent a byte at a time is answered 408 with the API's JSON error once the body
/// timeout passes: the timeout is for the whole body, not between its bytes.
#[test]
fn a_slow_body_is_answered_408() {
    let server = Server::start(Backend::Embedded, &["--body-timeout", "1s"]);
    let v = Visitor::arrive(&server, QUIET, "198.51.100.7");
    let mut s = connect(&server);
    let head = call_head(&v, "/api/form/SaveFormSubmission");
    s.write_all(format!("{head}Content-Length: 1000\r\n\r\n").as_bytes())
        .unwrap();
    let started = Instant::now();
    let mut raw = Vec::new();
    while started.elapsed() < Duration::from_secs(20) {
        if s.write_all(b" ").is_err() {
            break;
        }
        match poll_read(&mut s) {
            Some(bytes) if bytes.is_empty() => break,
            Some(bytes) => {
                raw.extend(bytes);
                if complete(&raw) {
                    break;
                }
            }
            None => {}
        }
    }
    let text = String::from_utf8_lossy(&raw).to_string();
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert_eq!(
        json_of(&text)["message"],
        "The request body was not sent in time."
    );
}

/// SIGTERM stops the server gracefully: a request in flight (its body half sent) is still
/// answered, and then the server exits by itself.
#[test]
fn sigterm_lets_a_request_in_flight_finish() {
    let mut server = Server::start(Backend::Embedded, &[]);
    let v = Visitor::arrive(&server, QUIET, "198.51.100.6");
    let mut s = connect(&server);
    let head = call_head(&v, "/api/form/SaveFormSubmission");
    let body = r#"{"key": "k", "formId": "nope", "form": "{}"}"#;
    // `Expect: 100-continue`: the server says `100 Continue` when the handler starts
    // reading the body, so the test knows the request is in flight.
    s.write_all(
        format!(
            "{head}Expect: 100-continue\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    )
    .unwrap();
    let started = Instant::now();
    let mut interim = Vec::new();
    while !String::from_utf8_lossy(&interim).contains("\r\n\r\n") {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no 100 Continue"
        );
        match poll_read(&mut s) {
            Some(bytes) if bytes.is_empty() => panic!("closed before 100 Continue"),
            Some(bytes) => interim.extend(bytes),
            None => {}
        }
    }
    let interim = String::from_utf8_lossy(&interim).to_string();
    assert!(interim.starts_with("HTTP/1.1 100"), "{interim}");
    server.sigterm();
    std::thread::sleep(Duration::from_millis(300));
    s.write_all(body.as_bytes()).unwrap();
    let (status, text) = answer(&mut s, Duration::from_secs(20));
    assert!((400..500).contains(&status), "{text}");
    assert!(json_of(&text)["message"].is_string(), "{text}");
    let exit = server.exited_within(Duration::from_secs(20));
    assert!(
        exit.is_some_and(|e| e.success()),
        "the server did not stop cleanly: {exit:?}"
    );
}

/// JSON bodies over the limit get 413 with the API's JSON error: a declared length at
/// once, unread, and a chunked body as soon as it passes the limit, though it never ends.
/// An owner's template upload has its own, larger limit.
fn bodies_over_the_limit_get_413(backend: Backend) {
    let token = format!("skyward={OWNER_TOKEN}");
    let server = Server::start(backend, &["--owner-token", &token]);
    let v = Visitor::arrive(&server, QUIET, "198.51.100.8");
    let path = "/api/form/SaveFormSubmission";

    // Declared: 10 MB, of which nothing is sent.
    let mut s = connect(&server);
    let head = call_head(&v, path);
    s.write_all(format!("{head}Content-Length: 10000000\r\n\r\n").as_bytes())
        .unwrap();
    let (status, text) = answer(&mut s, Duration::from_secs(30));
    assert_eq!(status, 413, "{text}");
    assert_eq!(
        json_of(&text)["message"],
        "The request body is too large (at most 64 KB)."
    );

    // Chunked: 96 KB in 8 KB chunks, and no last chunk.
    let mut s = connect(&server);
    s.write_all(format!("{head}Transfer-Encoding: chunked\r\n\r\n").as_bytes())
        .unwrap();
    let chunk = format!("2000\r\n{}\r\n", "x".repeat(0x2000));
    for _ in 0..12 {
        s.write_all(chunk.as_bytes()).unwrap();
    }
    let (status, text) = answer(&mut s, Duration::from_secs(30));
    assert_eq!(status, 413, "{text}");
    assert!(json_of(&text)["message"].is_string(), "{text}");

    // The owner's upload: 200 KB is under its limit (refused for what it is, not its
    // size), 30 MB over it.
    let owner_head = |len: usize| {
        format!(
            "POST /api/owner/template HTTP/1.1\r\nHost: {QUIET}\r\nAuthorization: Bearer \
             {OWNER_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: {len}\r\n\
             Connection: close\r\n\r\n"
        )
    };
    let big = format!("{{\"junk\": \"{}\"}}", "x".repeat(200_000));
    let mut s = connect(&server);
    s.write_all(owner_head(big.len()).as_bytes()).unwrap();
    s.write_all(big.as_bytes()).unwrap();
    let (status, text) = answer(&mut s, Duration::from_secs(30));
    assert_eq!(status, 400, "{text}");
    let mut s = connect(&server);
    s.write_all(owner_head(30_000_000).as_bytes()).unwrap();
    let (status, text) = answer(&mut s, Duration::from_secs(30));
    assert_eq!(status, 413, "{text}");
    assert!(json_of(&text)["message"].is_string(), "{text}");
}

/// Over `--max-connections`, a new connection waits (it is not answered) until an open one
/// closes, and is then served.
#[test]
fn over_the_connection_limit_a_connection_waits_its_turn() {
    let server = Server::start(
        Backend::Embedded,
        &["--max-connections", "2", "--header-timeout", "60s"],
    );
    // Two keep-alive connections, each served once and left open.
    let mut held: Vec<TcpStream> = (0..2)
        .map(|_| {
            let mut s = connect(&server);
            s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                .unwrap();
            let (status, text) = answer(&mut s, Duration::from_secs(20));
            assert_eq!(status, 200, "{text}");
            s
        })
        .collect();
    let mut third = connect(&server);
    third
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    // Nothing for a while: the server has not even accepted it.
    let waited = Instant::now();
    while waited.elapsed() < Duration::from_millis(1500) {
        assert_eq!(poll_read(&mut third), None, "answered over the limit");
    }
    held.pop();
    let (status, text) = answer(&mut third, Duration::from_secs(20));
    assert_eq!(status, 200, "{text}");
}

/// A site with its share of requests in flight gets 503 with `Retry-After` for more, at
/// once, while another site's pages are served; when its requests finish it is served
/// again.
fn a_flooded_site_does_not_starve_the_others(backend: Backend) {
    let server = Server::start(
        backend,
        &[
            "--tenant-max-in-flight",
            "4",
            "--form-submissions-per-minute",
            "100000",
        ],
    );
    let v = Visitor::arrive(&server, FLOODED, "198.51.100.9");
    // Four calls whose bodies never come: each holds a place until the body timeout.
    let head = call_head(&v, "/api/form/SaveFormSubmission");
    let slow_call = || {
        let mut s = connect(&server);
        s.write_all(format!("{head}Content-Length: 100\r\n\r\n").as_bytes())
            .unwrap();
        s
    };
    let mut slow: Vec<TcpStream> = (0..4).map(|_| slow_call()).collect();
    // Once all four are in, the flooded site is refused. (A probe that got in before a
    // slow call took that call's place: the call was answered, and is sent again.)
    let started = Instant::now();
    let refused = loop {
        for s in &mut slow {
            if poll_read(s).is_some() {
                *s = slow_call();
            }
        }
        let r = crate::support::get(server.port, FLOODED, "/");
        if r.status == 503 {
            break r;
        }
        assert_eq!(r.status, 200, "{}", r.head);
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "the flooded site was never refused"
        );
    };
    assert_eq!(refused.header("retry-after"), Some("1"), "{}", refused.head);
    let api = crate::support::get(server.port, FLOODED, "/api/commerce/shopping-cart");
    assert_eq!(api.status, 503, "{}", api.head);
    assert_eq!(api.header("retry-after"), Some("1"));
    assert!(api.message().contains("busy"), "{}", api.body);
    // The cap's refusals carry the security headers like every other answer.
    for r in [&refused, &api] {
        assert_eq!(
            r.headers("x-content-type-options"),
            ["nosniff"],
            "{}",
            r.head
        );
        let csp = r.header("content-security-policy").unwrap_or_default();
        assert!(csp.contains("frame-ancestors 'self'"), "{}", r.head);
    }

    // The quiet site is served, and promptly (a bound a stuck server would not meet).
    let quiet = Instant::now();
    let page = crate::support::get(server.port, QUIET, "/");
    assert_eq!(page.status, 200, "{}", page.head);
    assert!(quiet.elapsed() < Duration::from_secs(10));

    // The slow calls end (their clients go away): the flooded site is served again.
    for s in &mut slow {
        let _ = s.shutdown(std::net::Shutdown::Both);
    }
    drop(slow);
    let freed = Instant::now();
    loop {
        let r = crate::support::get(server.port, FLOODED, "/");
        if r.status == 200 {
            break;
        }
        assert!(
            freed.elapsed() < Duration::from_secs(20),
            "still refused: {}",
            r.head
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

on_both_backends!(
    bodies_over_the_limit_get_413,
    a_flooded_site_does_not_starve_the_others
);
