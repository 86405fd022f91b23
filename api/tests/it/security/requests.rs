//! What the server takes from a request: reflected values in pages, the combined scripts,
//! `Host` and the absolute URLs built from it (issue 40, findings 2, 3, 4, 13).

use std::collections::BTreeSet;

use serde_json::json;

use crate::support::{Backend, Server, Visitor, get, request};

const HARBOR: &str = "harbor-lane.localhost";
const SKYWARD: &str = "skyward.localhost";
const QUILLBACK: &str = "quillback.localhost";
const TENANTS: [&str; 4] = [HARBOR, SKYWARD, QUILLBACK, "loam-lantern.localhost"];

/// Markup a visitor might put in a URL. A page that shows it raw runs it.
const PROBE: &str = r#"<tessera-probe a="1" b='2'>&"#;
/// What a page must never contain: the probe's tag, as markup.
const RAW: &str = "<tessera-probe";

fn encoded(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// Every query parameter the renderer reads, each set to the probe.
fn probe_query() -> String {
    [
        "category",
        "tag",
        "author",
        "month",
        "q",
        "cartToken",
        "redirect",
        "offset",
        "view",
        "lock-error",
    ]
    .iter()
    .map(|k| format!("{k}={}", encoded(PROBE)))
    .collect::<Vec<_>>()
    .join("&")
}

/// Same-site links of a page: `href="/…"`, without fragments.
fn links(body: &str) -> BTreeSet<String> {
    body.split("href=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .filter(|h| h.starts_with('/') && !h.starts_with("//"))
        .map(|h| h.split('#').next().unwrap_or(h).replace("&amp;", "&"))
        .collect()
}

/// Finding 2: list filters and the search query print as text.
#[test]
fn list_filters_and_search_are_escaped_in_pages() {
    let server = Server::start(Backend::Embedded, &[]);
    for param in ["category", "tag", "month", "author"] {
        let path = format!("/notes?{param}={}", encoded(PROBE));
        let r = get(server.port, SKYWARD, &path);
        assert_eq!(r.status, 200, "{path}");
        assert!(!r.body.contains(RAW), "{path} printed the probe raw");
        // The context holds the escaped text, as the platform's does.
        let json = get(server.port, SKYWARD, &format!("{path}&format=json")).json();
        let key = format!("{param}Filter");
        assert_eq!(
            json[&key],
            json!("&lt;tessera-probe a=&quot;1&quot; b=&#x27;2&#x27;&gt;&amp;"),
            "{key}"
        );
    }
    // The report's own payload: a refresh to another site.
    let refresh = "<meta http-equiv=refresh content=0;url=https://evil.example/>";
    let r = get(
        server.port,
        SKYWARD,
        &format!("/notes?tag={}", encoded(refresh)),
    );
    assert!(!r.body.contains("<meta http-equiv=refresh"), "{}", r.body);
    // Search shows the query as typed, escaped once (not as entities on the page).
    let r = get(
        server.port,
        SKYWARD,
        &format!("/search?q={}", encoded(PROBE)),
    );
    assert!(!r.body.contains(RAW));
    assert!(
        r.body
            .contains("&lt;tessera-probe a=&quot;1&quot; b=&#x27;2&#x27;&gt;&amp;"),
        "{}",
        r.body
    );
    assert!(!r.body.contains("&amp;lt;"), "escaped twice: {}", r.body);
}

/// The class: every page of every demo site, reached by its links, with every parameter
/// the renderer reads set to markup, and with markup as a path segment: the markup is never
/// printed raw.
#[test]
fn no_page_prints_request_text_raw() {
    let server = Server::start(Backend::Embedded, &[]);
    let mut checked = 0;
    for host in TENANTS {
        let home = get(server.port, host, "/");
        assert_eq!(home.status, 200, "{host}");
        let mut paths = links(&home.body);
        paths.extend(
            [
                "/",
                "/search",
                "/cart",
                "/checkout",
                "/checkout/gift-card",
                "/checkout/subscription",
                "/commerce/orders/abc",
            ]
            .map(String::from),
        );
        for path in paths.iter().take(40) {
            let sep = if path.contains('?') { '&' } else { '?' };
            let with_query = format!("{path}{sep}{}", probe_query());
            let in_path = format!("{}/{}", path.trim_end_matches('/'), encoded(PROBE));
            for target in [with_query, in_path] {
                let r = get(server.port, host, &target);
                assert!(
                    !r.body.contains(RAW),
                    "{host}{target} ({}) printed request text raw",
                    r.status
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 40, "only {checked} pages checked");
}

/// Lock screens and member areas carry the path to return to: escaped, and still the path.
#[test]
fn return_paths_are_escaped() {
    let server = Server::start(Backend::Embedded, &[]);
    // harbor-lane's Studio Club course is a member area.
    let path = format!("/course/centering?x={}", encoded(PROBE));
    let r = get(server.port, HARBOR, &path);
    assert_eq!(r.header("x-page-type"), Some("106"), "{}", r.head);
    assert!(!r.body.contains(RAW), "{}", r.body);
    assert!(
        r.body
            .contains("data-redirect=\"/course/centering?x=%3Ctessera-probe"),
        "{}",
        r.body
    );
}

/// Finding 3: the combined scripts never echo the names asked for.
#[test]
fn combined_scripts_echo_nothing() {
    let server = Server::start(Backend::Embedded, &[]);
    for query in [
        "site.js&**//alert(1)//",
        "site.js&*/alert(1)/*",
        "site.js&%2A%2F%0Aalert(1)%2F%2F",
        "site.js&%3C/script%3E%3Cscript%3Ealert(1)%3C/script%3E",
    ] {
        let r = get(server.port, QUILLBACK, &format!("/scripts/combo/?{query}"));
        assert_eq!(r.status, 200, "{query}");
        assert_eq!(
            r.header("content-type"),
            Some("text/javascript; charset=utf-8")
        );
        assert!(!r.body.contains("alert(1)"), "{query}: {}", r.body);
        assert!(
            r.body
                .contains("/* script 2 of this list is not in this template */"),
            "{}",
            r.body
        );
    }
}

/// Findings 4 and 13: `Host` parsed strictly.
#[test]
fn malformed_repeated_or_missing_hosts_are_refused() {
    let server = Server::start(Backend::Embedded, &[]);
    for host in [
        "harbor-lane.localhost:@evil.example",
        "harbor-lane.localhost:abc",
        "harbor-lane.localhost:99999",
        "harbor-lane.localhost:",
        "user@harbor-lane.localhost",
        "harbor-lane.localhost/x",
    ] {
        let r = get(server.port, host, "/");
        assert_eq!(r.status, 400, "Host: {host}");
        let r = request(server.port, "GET", host, "/api/site-users/account", &[], "");
        assert_eq!(r.status, 400, "Host: {host} on the API");
    }
    // Two Host headers, even naming the same site.
    let r = request(server.port, "GET", HARBOR, "/", &[("Host", HARBOR)], "");
    assert_eq!(r.status, 400);
    let r = request(
        server.port,
        "GET",
        HARBOR,
        "/",
        &[("Host", "evil.example")],
        "",
    );
    assert_eq!(r.status, 400);
    // A good host with a port, in any case, still names its site.
    let r = get(
        server.port,
        &format!("Harbor-Lane.localhost:{}", server.port),
        "/",
    );
    assert_eq!(r.status, 200);
}

/// RFC 9112 §3.2.2: an absolute-form target wins over `Host`.
#[test]
fn the_request_line_names_the_site() {
    let server = Server::start(Backend::Embedded, &[]);
    let absolute = format!("http://{HARBOR}:{}/", server.port);
    let r = get(server.port, "evil.example", &absolute);
    assert_eq!(r.status, 200);
    assert!(r.body.contains("Harbor Lane"), "{}", r.body);
    let r = get(server.port, HARBOR, "http://evil.example/");
    assert_eq!(r.status, 404, "the target's host, not Host, names the site");
    let r = get(server.port, HARBOR, "http://user@harbor-lane.localhost/");
    assert_eq!(r.status, 400);
}

fn outbox(server: &Server) -> Vec<tenants::QueuedEmail> {
    server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_host(HARBOR).await.unwrap().unwrap();
            s.outbox(t.id).await.unwrap()
        })
    })
}

/// Finding 4: a sign-up's emailed link comes from the site's domain, whatever `Host` said.
fn emailed_links_come_from_the_sites_domain(backend: Backend) {
    let server = Server::start(backend, &["--sign-ins-per-minute", "100000"]);
    let mut v = Visitor::arrive(&server, HARBOR, "10.40.0.1");
    let body = |email: &str| {
        json!({"email": email, "password": "wheel-and-kiln", "displayName": "Ana",
               "memberAreaId": "studio-club", "redirect": "/course/centering"})
        .to_string()
    };
    // The report's request: refused before anything is mailed.
    let mut evil = v.clone();
    evil.host = "harbor-lane.localhost:@evil.example".into();
    let r = evil.send(
        "POST",
        "/api/site-users/account",
        &[("Content-Type", "application/json")],
        &body("ana@example.test"),
    );
    assert_eq!(r.status, 400);
    // An absolute-form target with another Host: the target's site and domain.
    let absolute = format!("http://{HARBOR}:{}/api/site-users/account", server.port);
    let mut other_host = v.clone();
    other_host.host = "evil.example".into();
    let r = other_host.send(
        "POST",
        &absolute,
        &[("Content-Type", "application/json")],
        &body("bo@example.test"),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let r = v.send(
        "POST",
        "/api/site-users/account",
        &[("Content-Type", "application/json")],
        &body("cy@example.test"),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let mail = outbox(&server);
    assert!(
        mail.iter().all(|m| m.email.to != "ana@example.test"),
        "the refused sign-up was mailed"
    );
    // Each link is on the domain the site was found by (with the port the request named).
    for (to, origin) in [
        (
            "bo@example.test",
            format!(
                "http://{HARBOR}:{}/api/site-users/account/confirm",
                server.port
            ),
        ),
        (
            "cy@example.test",
            format!("http://{HARBOR}/api/site-users/account/confirm"),
        ),
    ] {
        let m = mail
            .iter()
            .find(|m| m.email.to == to)
            .unwrap_or_else(|| panic!("no mail to {to}"));
        let all = format!(
            "{}\n{}",
            m.email.text,
            m.email.html.as_deref().unwrap_or("")
        );
        assert!(!all.contains("evil"), "{all}");
        assert!(all.contains(&origin), "{to}: no {origin} in {all}");
        assert!(
            m.email.from.contains("@harbor-lane.localhost"),
            "{}",
            m.email.from
        );
    }
}

/// What no answer may contain: a system file's or a template source's text.
fn leaks(body: &str) -> bool {
    body.contains("root:x:0:0") || body.contains("\"stylesheets\"") || body.contains("{.section")
}

/// The class: every route that takes a path or a file name answers only from its own
/// folder or site. Template files and the islands are served from memory by exact name,
/// uploaded files by id within the site; traversal in any spelling finds nothing.
fn no_route_serves_a_file_outside_its_folder(backend: Backend) {
    let server = Server::start(backend, &[]);
    for path in [
        "/assets/../template.conf",
        "/assets/%2e%2e/template.conf",
        "/assets/..%2ftemplate.conf",
        "/scripts/../site.region",
        "/scripts/..%5csite.region",
        "/scripts/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/scripts/combo/?../template.conf",
        "/scripts/combo/?..%2Ftemplate.conf",
        "/scripts/combo/?/etc/passwd",
        "/scripts/combo/?site.js&../../../../etc/passwd",
        "/_tessera/islands/../../../../etc/passwd",
        "/_tessera/islands/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/_tessera/files/..%2f..%2fetc/passwd",
        "/site.css/../../etc/passwd",
        "/template.conf",
        "/site.region",
        "//etc/passwd",
    ] {
        for host in [QUILLBACK, HARBOR] {
            let r = get(server.port, host, path);
            assert!(!leaks(&r.body), "{host}{path} ({}): {}", r.status, r.body);
        }
    }
    // An uploaded file is its site's: another site's id finds nothing, and a name with a
    // path keeps only its last part.
    let harbor = server.owner_token("harbor-lane", "admin");
    // A PDF's bytes are text, which the test client sends as they are.
    let pdf = "%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";
    let auth = format!("Bearer {harbor}");
    let up = request(
        server.port,
        "POST",
        HARBOR,
        "/api/owner/assets?fileName=..%2F..%2Fetc%2Fpasswd.pdf",
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/pdf"),
        ],
        pdf,
    );
    assert_eq!(up.status, 201, "{}", up.body);
    let a = up.json();
    assert_eq!(a["fileName"], "passwd.pdf", "{a}");
    let url = a["url"].as_str().unwrap();
    assert_eq!(get(server.port, HARBOR, url).status, 200);
    assert_eq!(
        get(server.port, SKYWARD, url).status,
        404,
        "another site's file"
    );
    // Template uploads: a path that leaves the folder is refused by field.
    for bad in [
        "../x.region",
        "/etc/x.region",
        "a/../../x.region",
        "a\\..\\x.region",
        "./x",
    ] {
        let r = request(
            server.port,
            "POST",
            HARBOR,
            "/api/owner/template",
            &[
                ("Authorization", &auth),
                ("Content-Type", "application/json"),
            ],
            &json!({"files": [{"path": bad, "text": "x"}]}).to_string(),
        );
        assert_eq!(r.status, 400, "{bad}: {}", r.body);
        assert!(
            r.json()["errors"]["files[0].path"].is_string(),
            "{bad}: {}",
            r.body
        );
    }
}

on_both_backends!(
    emailed_links_come_from_the_sites_domain,
    no_route_serves_a_file_outside_its_folder,
);
