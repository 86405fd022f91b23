//! The security headers (api/src/server/security.rs) on every kind of response the real
//! `tessera serve` gives, on both backends: pages, a page's 404, an unknown host's 404,
//! the JSON API's answers and errors, the islands, a template's public file, the server's
//! own small pages, `/healthz` and the OpenAPI document. Each header comes exactly once (a
//! route that sets its own, as the islands set `nosniff`, gets no second one), and the
//! inline style of the small pages is the one the policy allows by hash.

use crate::support::{Backend, Response, Server, Visitor, get, request};
use base64::Engine;
use sha2::{Digest, Sha256};

const LOAM: &str = "loam-lantern.localhost";

/// The policy's directives, by name.
fn directives(csp: &str) -> std::collections::BTreeMap<&str, Vec<&str>> {
    csp.split(';')
        .filter_map(|d| {
            let mut words = d.split_whitespace();
            Some((words.next()?, words.collect()))
        })
        .collect()
}

/// Checks the four headers on `r` (what it is: `what`); returns the policy.
fn check(what: &str, r: &Response) -> String {
    for (name, value) in [
        ("x-content-type-options", Some("nosniff")),
        ("referrer-policy", Some("strict-origin-when-cross-origin")),
        ("x-frame-options", Some("SAMEORIGIN")),
        ("content-security-policy", None),
    ] {
        let got = r.headers(name);
        assert_eq!(got.len(), 1, "{what}: {name} once: {}", r.head);
        if let Some(v) = value {
            assert_eq!(got[0], v, "{what}: {}", r.head);
        }
    }
    let csp = r.header("content-security-policy").unwrap().to_owned();
    let d = directives(&csp);
    for (name, sources) in [
        ("default-src", &["'self'"][..]),
        ("object-src", &["'none'"]),
        ("base-uri", &["'self'"]),
        ("form-action", &["'self'"]),
        ("frame-ancestors", &["'self'"]),
        ("script-src", &["'self'"]),
    ] {
        assert_eq!(
            d.get(name).map(Vec::as_slice),
            Some(sources),
            "{what}: {csp}"
        );
    }
    assert!(!csp.contains("unsafe-"), "{what}: {csp}");
    csp
}

fn headers_on_every_kind_of_response(backend: Backend) {
    let server = Server::start(backend, &[]);
    let port = server.port;

    let mut visitor = Visitor::new(&server, LOAM, "203.0.113.7");
    let home = visitor.get("/");
    assert_eq!(home.status, 200);
    let csp = check("a page", &home);

    let missing = get(port, LOAM, "/no-such-page");
    assert_eq!(missing.status, 404);
    check("a page's 404", &missing);

    let unknown = get(port, "nobody.localhost", "/");
    assert_eq!(unknown.status, 404);
    check("an unknown host", &unknown);

    let cart = visitor.get("/api/commerce/shopping-cart");
    assert_eq!(cart.status, 200, "{}", cart.body);
    check("an API answer", &cart);

    // No crumb: the API's JSON 403.
    let refused = request(
        port,
        "POST",
        LOAM,
        "/api/commerce/shopping-cart/entries",
        &[("Content-Type", "application/json")],
        "{}",
    );
    assert!(refused.status >= 400, "{}", refused.head);
    check("an API error", &refused);

    // The islands' loader, whose route sets its own `nosniff`.
    let loader = home
        .body
        .split("src=\"/_tessera/islands/")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the home page loads the islands");
    let island = get(port, LOAM, &format!("/_tessera/islands/{loader}"));
    assert_eq!(island.status, 200);
    check("an island", &island);
    check(
        "an unknown island",
        &get(port, LOAM, "/_tessera/islands/nope.js"),
    );

    let favicon = get(port, LOAM, "/assets/favicon.svg");
    assert_eq!(favicon.status, 200);
    check("a template's file", &favicon);

    let healthz = get(port, LOAM, "/healthz");
    assert_eq!(healthz.status, 200);
    check("/healthz", &healthz);

    let doc = get(port, LOAM, "/api/openapi.json");
    assert_eq!(doc.status, 200);
    check("the OpenAPI document", &doc);

    // The server's own small page: its inline stylesheet is the one the policy allows.
    let small = get(port, LOAM, "/settings/billing/upgrade");
    assert_eq!(small.status, 200);
    check("a small page", &small);
    let style = small
        .body
        .split("<style>")
        .nth(1)
        .and_then(|rest| rest.split("</style>").next())
        .expect("the small page's stylesheet");
    let hash = format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(Sha256::digest(style.as_bytes()))
    );
    // And the site lock screen's own stylesheet, which is all a locked site shows.
    let lock = format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD
            .encode(Sha256::digest(renderer::render::SITE_LOCK_STYLE.as_bytes()))
    );
    let notices = format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD
            .encode(Sha256::digest(api::pages::notices::STYLE.as_bytes()))
    );
    assert_eq!(
        directives(&csp).get("style-src"),
        Some(&vec![
            "'self'",
            hash.as_str(),
            lock.as_str(),
            notices.as_str()
        ]),
        "{csp}"
    );
}

on_both_backends!(headers_on_every_kind_of_response);
