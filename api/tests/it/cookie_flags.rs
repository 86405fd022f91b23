//! Every cookie the server sets, with its flags, on both backends, over plain HTTP and over
//! HTTPS through a trusted proxy (`X-Forwarded-Proto: https` from the test's address, which
//! the test server trusts): one visitor session that sets them all — a page view (the crumb
//! and the analytics visitor and session), a cart (the cart), a member's sign-in and
//! sign-out (the session, `SiteUserInfo`, and their clearing) and a password-protected
//! page's unlock. Each is `Path=/` and `SameSite=Lax`, `Secure` exactly when the visitor
//! came over HTTPS, and `HttpOnly` unless the islands read it (the crumb, which they send
//! back as `X-CSRF-Token`, and `SiteUserInfo`, the member's name for the member bar).

use std::collections::BTreeSet;

use crate::support::{Backend, Response, Server, Visitor, item_id};
use serde_json::json;

const HARBOR: &str = "harbor-lane.localhost";
const SKYWARD: &str = "skyward.localhost";

/// Cookies scripts read: no `HttpOnly`.
const READ_BY_SCRIPTS: [&str; 2] = ["crumb", "SiteUserInfo"];

/// Every cookie a session sets (or clears), by name.
const EXPECTED: [&str; 10] = [
    "crumb",
    "ss_cvr",
    "ss_cvt",
    "tessera-cart",
    "tessera-member",
    "SiteUserInfo",
    "tessera-unlock-af2a18ab75a8ac13727dabef",
    "tessera-site-unlock",
    "tessera-announcement",
    "tessera-cookies",
];

/// Sends `method path` as `v`, over `proto`, with a JSON body (none when empty) and extra
/// headers; collects the response's `Set-Cookie` lines into `set`.
fn send(
    v: &mut Visitor,
    proto: &str,
    method: &str,
    path: &str,
    body: &str,
    extra: &[(&str, &str)],
    set: &mut Vec<String>,
) -> Response {
    let mut headers = vec![("X-Forwarded-Proto", proto)];
    if !body.is_empty() && !extra.iter().any(|(k, _)| *k == "Content-Type") {
        headers.push(("Content-Type", "application/json"));
    }
    headers.extend_from_slice(extra);
    let r = v.send(method, path, &headers, body);
    set.extend(r.headers("set-cookie").into_iter().map(str::to_owned));
    r
}

/// One visitor session on `proto`; every `Set-Cookie` line it got.
fn session(server: &Server, proto: &str, ip: &str) -> Vec<String> {
    let mut set = Vec::new();
    let mut v = Visitor::new(server, HARBOR, ip);
    let r = send(&mut v, proto, "GET", "/", "", &[], &mut set);
    assert_eq!(r.status, 200);
    let entry = json!({"itemId": item_id("harbor-lane", "tidepool-mug"), "sku": "TPM-12"});
    let r = send(
        &mut v,
        proto,
        "POST",
        "/api/commerce/shopping-cart/entries",
        &entry.to_string(),
        &[],
        &mut set,
    );
    assert!(r.status < 300, "{}", r.body);
    let account = json!({"email": "marin@harbor-lane.localhost", "password": "glaze-and-fire-1"});
    let r = send(
        &mut v,
        proto,
        "POST",
        "/api/site-users/account/session",
        &account.to_string(),
        &[],
        &mut set,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let xsrf = r.json()["xsrfToken"].as_str().unwrap().to_owned();
    let r = send(
        &mut v,
        proto,
        "DELETE",
        "/api/site-users/account/session",
        "",
        &[("X-XSRF-Token", &xsrf)],
        &mut set,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // The announcement bar closed and the cookie banner accepted.
    for notice in ["announcement", "cookies"] {
        let r = send(
            &mut v,
            proto,
            "POST",
            "/api/site-notices/dismiss",
            &format!("notice={notice}&redirect=/"),
            &[("Content-Type", "application/x-www-form-urlencoded")],
            &mut set,
        );
        assert_eq!(r.status, 303, "{}", r.head);
    }

    let mut v = Visitor::new(server, SKYWARD, ip);
    send(&mut v, proto, "GET", "/", "", &[], &mut set);
    let r = send(
        &mut v,
        proto,
        "POST",
        "/api/lock-screen/unlock",
        "collectionId=af2a18ab75a8ac13727dabef&password=orion",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        &mut set,
    );
    assert_eq!(r.status, 303, "{}", r.head);
    // The site password's own cookie.
    let r = send(
        &mut v,
        proto,
        "POST",
        "/api/lock-screen/unlock",
        "lock=site&password=whole+sky",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        &mut set,
    );
    assert_eq!(r.status, 303, "{}", r.head);
    set
}

fn check(proto: &str, set: &[String]) {
    let https = proto == "https";
    let mut names = BTreeSet::new();
    for line in set {
        let mut parts = line.split(';').map(str::trim);
        let name = parts.next().unwrap().split('=').next().unwrap().to_owned();
        let attributes: BTreeSet<&str> = parts.collect();
        let has = |a: &str| attributes.contains(a);
        assert!(has("Path=/"), "{proto}: {line}");
        assert!(has("SameSite=Lax"), "{proto}: {line}");
        assert_eq!(has("Secure"), https, "{proto}: {line}");
        // (A line that deletes a cookie may say HttpOnly whatever the cookie was.)
        if !has("Max-Age=0") {
            assert_eq!(
                has("HttpOnly"),
                !READ_BY_SCRIPTS.contains(&name.as_str()),
                "{proto}: {line}"
            );
        }
        assert!(
            !attributes.iter().any(|a| a.starts_with("Domain")),
            "a cookie for this host only: {line}"
        );
        names.insert(name);
    }
    for name in EXPECTED {
        assert!(names.contains(name), "{proto}: no {name} among {set:#?}");
    }
    // Signing out deleted the member's cookies.
    for name in ["tessera-member", "SiteUserInfo"] {
        assert!(
            set.iter()
                .any(|l| l.starts_with(&format!("{name}=;")) && l.contains("Max-Age=0")),
            "{proto}: {name} not deleted: {set:#?}"
        );
    }
}

fn cookies_have_the_right_flags(backend: Backend) {
    let server = Server::start(backend, &["--sign-ins-per-minute", "1000"]);
    let harbor = server.owner_token("harbor-lane", "admin");
    let bar = json!({"announcementBar": {"enabled": true, "text": "Kiln open"}});
    let r = server.owner_call(HARBOR, &harbor, "PATCH", "/api/owner/site-notices", &bar);
    assert_eq!(r.status, 200, "{}", r.body);
    let skyward = server.owner_token("skyward", "admin");
    let lock = json!({"password": "whole sky"});
    let r = server.owner_call(SKYWARD, &skyward, "PATCH", "/api/owner/site-access", &lock);
    assert_eq!(r.status, 200, "{}", r.body);
    for (proto, ip) in [("http", "203.0.113.51"), ("https", "203.0.113.52")] {
        let set = session(&server, proto, ip);
        check(proto, &set);
    }
}

on_both_backends!(cookies_have_the_right_flags);
