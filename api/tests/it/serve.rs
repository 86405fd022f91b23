//! `tessera serve` booted as a real process on the embedded store: it imports the fixtures on
//! first start, prints the URLs, and serves each tenant by its Host header.

use std::path::{Path, PathBuf};

use crate::support::{Backend, Server};

fn start(backend: Backend) -> Server {
    Server::start(backend, &[])
}

/// A GET with an explicit Host header: (status, head, body).
fn get(port: u16, host: &str, path: &str) -> (u16, String, String) {
    request(port, "GET", host, path, &[], "")
}

/// A request with an explicit Host header, extra headers and a body: (status, head, body).
fn request(
    port: u16,
    method: &str,
    host: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let r = crate::support::request(port, method, host, path, headers, body);
    (r.status, r.head, r.body)
}

#[test]
fn serves_tenants_by_host_on_the_embedded_store() {
    check_server(start(Backend::Embedded));
}

#[test]
fn serves_tenants_by_host_on_postgres() {
    let pg = tenants::testing::PgServer::shared();
    check_server(start(Backend::Postgres(pg.create_database())));
}

/// Every demo tenant folder under fixtures/, in name order, with its primary host.
fn fixture_tenants() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("tenant.json").is_file())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|dir| {
            let tenant: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(dir.join("tenant.json")).unwrap())
                    .unwrap();
            let domain = &tenant["domains"][0];
            let host = domain
                .as_str()
                .or(domain["host"].as_str())
                .unwrap()
                .to_string();
            (dir, host)
        })
        .collect()
}

/// Every collection file of every demo tenant: (tenant host, urlId (the file name when the
/// file has none), the collection's JSON).
fn fixture_collections() -> Vec<(String, String, serde_json::Value)> {
    let mut out = Vec::new();
    for (dir, host) in fixture_tenants() {
        for entry in std::fs::read_dir(dir.join("collections")).unwrap() {
            let path = entry.unwrap().path();
            let c: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let url_id = c["urlId"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| path.file_stem().unwrap().to_string_lossy().to_string());
            out.push((host.clone(), url_id, c));
        }
    }
    out
}

/// Every collection page and item page of every demo tenant, from the fixture files:
/// (tenant host, path, expected page type, text the page must contain).
fn routes() -> Vec<(String, String, u16, String)> {
    let mut out = Vec::new();
    for (host, url_id, c) in fixture_collections() {
        let is_folder = c["typeName"] == "folder";
        // A password-protected collection and its items show the lock screen (103),
        // titled with the collection's title.
        let locked = c["password"].is_string();
        let lock_title = c["title"].as_str().unwrap_or_default().to_string();
        // A collection in a member area and its items show visitors the join page (106).
        let members_only = c["memberArea"].is_string();
        let kind = if locked {
            103
        } else if members_only {
            106
        } else if c["type"] == 10 || c["type"] == 7 {
            2
        } else {
            1
        };
        if !is_folder {
            let marker = if locked {
                lock_title.clone()
            } else if members_only {
                "member-area-denied".to_string()
            } else {
                String::new()
            };
            out.push((host.clone(), format!("/{url_id}"), kind, marker));
        }
        for item in c["items"].as_array().map(Vec::as_slice).unwrap_or_default() {
            let title = item["title"].as_str().unwrap().to_string();
            let (kind, marker) = if locked {
                (103, lock_title.clone())
            } else if members_only {
                (106, "member-area-denied".to_string())
            } else {
                (50, title)
            };
            out.push((
                host.clone(),
                format!("/{url_id}/{}", item["urlId"].as_str().unwrap()),
                kind,
                marker,
            ));
        }
    }
    out
}

/// Per demo tenant: its host and the urlIds of every non-homepage collection its
/// navigations link to (nested folder entries included).
fn nav_targets() -> Vec<(String, Vec<String>)> {
    fn walk(items: &serde_json::Value, out: &mut Vec<String>) {
        for it in items.as_array().map(Vec::as_slice).unwrap_or_default() {
            if let Some(c) = it["collection"].as_str() {
                out.push(c.to_string());
            }
            walk(&it["items"], out);
        }
    }
    let mut out = Vec::new();
    for (dir, host) in fixture_tenants() {
        let Ok(nav) = std::fs::read_to_string(dir.join("navigation.json")) else {
            continue;
        };
        let nav: serde_json::Value = serde_json::from_str(&nav).unwrap();
        let mut targets = Vec::new();
        for items in nav.as_object().unwrap().values() {
            walk(items, &mut targets);
        }
        targets.retain(|c| {
            let file = dir.join("collections").join(format!("{c}.json"));
            let c: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
            c["homepage"] != true
        });
        assert!(
            !targets.is_empty(),
            "{}: no navigation links",
            dir.display()
        );
        out.push((host, targets));
    }
    out
}

fn check_server(server: Server) {
    // Every navigation renders its links (the store keeps them by collection id).
    for (host, targets) in nav_targets() {
        let (status, _, body) = get(server.port, &host, "/");
        assert_eq!(status, 200, "{host}/");
        for url_id in targets {
            assert!(
                body.contains(&format!("href=\"/{url_id}\"")),
                "{host}/ has no navigation link to /{url_id}"
            );
        }
    }
    for (host, path, page_type, marker) in routes() {
        let (status, head, body) = get(server.port, &host, &path);
        assert_eq!(status, 200, "{host}{path}: {head}");
        assert!(
            head.contains(&format!("x-page-type: {page_type}")),
            "{host}{path}: {head}"
        );
        let escaped = marker.replace('&', "&amp;").replace('\'', "&#39;");
        assert!(
            body.contains(&marker)
                || body.contains(&escaped)
                || body.contains(&marker.replace('\'', "’")),
            "{host}{path} lacks {marker:?}"
        );
    }
    let host = server.urls[0]
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let p = server.port;

    let (status, head, body) = get(p, &host, "/");
    assert_eq!(status, 200, "{head}\n{body}");
    assert!(
        head.to_ascii_lowercase().contains("x-page-type: "),
        "{head}"
    );
    assert!(
        body.contains("<html") || body.contains("<!doctype"),
        "{body}"
    );

    let (status, _, body) = get(p, &host, "/?format=json");
    assert_eq!(status, 200);
    let v: serde_json::Value = serde_json::from_str(&body).expect("?format=json is JSON");
    assert!(v["website"].is_object());

    let (status, head, _) = get(p, &host, "/no-such-page");
    assert_eq!(status, 404);
    assert!(head.contains("x-page-type: 100"), "{head}");

    // An unknown host gets a plain 404 with no tenant data.
    let (status, head, body) = get(p, "nobody.localhost", "/");
    assert_eq!((status, body.as_str()), (404, "Not Found"), "{head}");

    let (status, _, body) = get(p, &host, "/healthz");
    assert_eq!((status, body.as_str()), (200, "ok"));

    // Template assets: the bytes as stored, an ETag, and 304 when the client has them.
    let (status, head, body) = get(p, "skyward.localhost", "/assets/favicon.svg");
    assert_eq!(status, 200, "{head}");
    let on_disk = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/skyward/template/assets/favicon.svg"),
    )
    .unwrap();
    assert_eq!(body, on_disk);
    assert!(head.contains("image/svg+xml"), "{head}");
    assert!(head.contains("max-age=3600"), "{head}");
    let etag = head
        .lines()
        .find_map(|l| l.strip_prefix("etag: "))
        .expect("an ETag")
        .trim()
        .to_string();
    let (status, head, body) = request(
        p,
        "GET",
        "skyward.localhost",
        "/assets/favicon.svg",
        &[("If-None-Match", &format!("\"other\", {etag}"))],
        "",
    );
    assert_eq!((status, body.as_str()), (304, ""), "{head}");
    let (status, _, _) = request(
        p,
        "GET",
        "skyward.localhost",
        "/assets/favicon.svg",
        &[("If-None-Match", "\"stale\"")],
        "",
    );
    assert_eq!(status, 200);
    let (status, _, _) = get(p, "skyward.localhost", "/assets/no-such-file.png");
    assert_eq!(status, 404);

    let (status, head, _) = get(p, &host, "/site.css");
    assert_eq!(status, 200);
    assert!(head.contains("text/css"));
    // harbor-lane's stylesheets are LESS: compiled at import, with the site's tweak value
    // (site.json: 62rem) over the folder's default (58rem), the platform's grid import, and
    // LESS functions worked out.
    let (status, _, css) = get(p, "harbor-lane.localhost", "/site.css");
    assert_eq!(status, 200);
    assert!(
        css.contains("max-width: 62rem;") && !css.contains("58rem"),
        "{css}"
    );
    assert!(
        css.contains(".sqs-layout .sqs-row {"),
        "the platform's sqs-grid-breaker: {css}"
    );
    assert!(
        css.contains(".nav ul {") && css.contains("border-bottom: 1px solid #e1d7c6;"),
        "{css}"
    );
    assert!(
        !css.contains("@tweak") && !css.contains("@sqs"),
        "no LESS variables left: {css}"
    );

    let protected = protected_pages();
    assert!(!protected.is_empty(), "no demo collection has a password");
    for page in &protected {
        check_lock_screen(p, page);
    }
    check_attempt_limit(p, &protected);
    check_forwarded_clients(p, &protected[0]);
}

/// Unlock attempts are limited per client and tenant: after the attempts made above (three
/// per protected page of the tenant), the rest of the burst of ten are answered, then 429
/// without a check, even for the right password, until the next attempt a minute on. (The
/// demo tenants have one protected collection; the many-nodes test checks the limit across
/// nodes.)
fn check_attempt_limit(port: u16, protected: &[Protected]) {
    let page = &protected[0];
    let made = 3 * protected.iter().filter(|p| p.host == page.host).count();
    let post = |host: &str, id: &str, password: &str| {
        post_unlock(port, host, &[("collectionId", id), ("password", password)])
    };
    for _ in made..10 {
        let (status, head, _) = post(&page.host, &page.id, "not-the-password");
        assert_eq!(status, 303, "{head}");
    }
    for password in ["not-the-password", page.password.as_str()] {
        let (status, head, body) = post(&page.host, &page.id, password);
        assert_eq!(status, 429, "{head}");
        let after: u64 = header(&head, "retry-after").unwrap().parse().unwrap();
        assert!((1..=60).contains(&after), "{head}");
        assert_eq!(header(&head, "set-cookie"), None, "{head}");
        assert_eq!(
            body,
            "Too many password attempts. Please try again in a minute."
        );
    }
    // Requests the limit does not concern still get their answers.
    let (status, _, _) = post(&page.host, "nope", "x");
    assert_eq!(status, 400);
    let (status, _, _) = get(port, &page.host, &page.path);
    assert_eq!(status, 200);
}

/// Through a trusted proxy (the server trusts 127.0.0.1), each client the proxy names has
/// its own attempts, even once the proxy's own are used up (`check_attempt_limit`), and
/// the unlock cookie is `Secure` when the proxy says the visitor came over HTTPS.
fn check_forwarded_clients(port: u16, page: &Protected) {
    let post = |client: &str, proto: Option<&str>, password: &str| {
        let mut headers = vec![
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("X-Forwarded-For", client),
        ];
        headers.extend(proto.map(|p| ("X-Forwarded-Proto", p)));
        let fields = form(&[("collectionId", &page.id), ("password", password)]);
        request(
            port,
            "POST",
            &page.host,
            "/api/lock-screen/unlock",
            &headers,
            &fields,
        )
    };
    // The proxy's own address is still over its limit.
    let (status, head, _) = post("127.0.0.1", None, &page.password);
    assert_eq!(status, 429, "{head}");

    let (status, head, _) = post("203.0.113.7", Some("https"), &page.password);
    assert_eq!(status, 303, "{head}");
    let cookie = header(&head, "set-cookie").expect("an unlock cookie");
    assert!(
        cookie.ends_with("; HttpOnly; SameSite=Lax; Secure"),
        "{cookie}"
    );
    let (status, head, _) = post("203.0.113.8", Some("http"), &page.password);
    assert_eq!(status, 303, "{head}");
    let cookie = header(&head, "set-cookie").expect("an unlock cookie");
    assert!(cookie.ends_with("; HttpOnly; SameSite=Lax"), "{cookie}");

    // 203.0.113.7 has made one attempt: nine more, then it is over its own limit.
    for _ in 1..10 {
        let (status, head, _) = post("203.0.113.7", None, "not-the-password");
        assert_eq!(status, 303, "{head}");
    }
    let (status, head, _) = post("203.0.113.7", None, &page.password);
    assert_eq!(status, 429, "{head}");
    let (status, head, _) = post("203.0.113.8", None, &page.password);
    assert_eq!(status, 303, "{head}");
    // Past a trusted hop, 203.0.113.7 is still the client; an entry left of an untrusted
    // one was written by the visitor and proves nothing (the client is the untrusted one).
    let (status, head, _) = post("203.0.113.7, 127.0.0.1", None, &page.password);
    assert_eq!(status, 429, "{head}");
    let (status, head, _) = post("203.0.113.7, 198.51.100.1", None, &page.password);
    assert_eq!(status, 303, "{head}");
}

/// A password-protected page of a demo tenant, from its fixture file.
struct Protected {
    host: String,
    path: String,
    id: String,
    password: String,
    /// Verbatim `mainContent`: shown once unlocked.
    main_content: String,
    /// Plain text from inside it: never shown while locked.
    secret: String,
}

fn protected_pages() -> Vec<Protected> {
    let mut out = Vec::new();
    for (host, url_id, c) in fixture_collections() {
        let (Some(password), Some(main)) =
            (c["password"].as_str(), c["data"]["mainContent"].as_str())
        else {
            continue;
        };
        let text = main.split("<p>").nth(1).expect("mainContent has a <p>");
        out.push(Protected {
            host: host.clone(),
            path: format!("/{url_id}"),
            id: c["id"]
                .as_str()
                .expect("fixtures have fixed ids")
                .to_string(),
            password: password.to_string(),
            main_content: main.to_string(),
            secret: text.chars().take(40).collect(),
        });
    }
    out
}

fn form(pairs: &[(&str, &str)]) -> String {
    let mut f = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        f.append_pair(k, v);
    }
    f.finish()
}

/// The header `name` of a response head (names are lower case on HTTP/1.1 from hyper).
fn header<'h>(head: &'h str, name: &str) -> Option<&'h str> {
    head.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
        .map(str::trim)
}

/// Posts the unlock form with `fields` to the server on `port`, as `host`.
fn post_unlock(port: u16, host: &str, fields: &[(&str, &str)]) -> (u16, String, String) {
    request(
        port,
        "POST",
        host,
        "/api/lock-screen/unlock",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        &form(fields),
    )
}

/// A visitor's session on a protected page: locked, a wrong password, the right one, the
/// page with the cookie, and a forged cookie.
fn check_lock_screen(port: u16, page: &Protected) {
    let Protected { host, path, id, .. } = page;
    let post = |fields: &[(&str, &str)]| post_unlock(port, host, fields);
    let page_with = |cookie: &str| request(port, "GET", host, path, &[("Cookie", cookie)], "");

    // Locked: the lock screen, never cached, with none of the page's content.
    let (status, head, body) = get(port, host, path);
    assert_eq!(status, 200, "{head}");
    assert_eq!(header(&head, "x-page-type"), Some("103"), "{head}");
    assert_eq!(
        header(&head, "cache-control"),
        Some("private, no-store"),
        "{head}"
    );
    assert!(
        body.contains(
            r#"<form class="lock-screen-form" method="post" action="/api/lock-screen/unlock">"#
        ),
        "{body}"
    );
    assert!(body.contains(&format!(
        r#"<input type="hidden" name="collectionId" value="{id}">"#
    )));
    assert!(body.contains(&format!(
        r#"<input type="hidden" name="redirect" value="{path}">"#
    )));
    assert!(!body.contains(&page.secret), "{path} leaks its content");
    assert!(!body.contains("argon2"));
    assert!(!body.contains("Incorrect password"));
    let (_, head, json) = get(port, host, &format!("{path}?format=json"));
    assert_eq!(header(&head, "x-page-type"), Some("103"));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["lockScreen"]["collectionId"], id.as_str());
    assert!(v["collection"].get("mainContent").is_none(), "{json}");
    assert!(!json.contains(&page.secret) && !json.contains("argon2"));

    // A wrong password: back to the page, which says so.
    let (status, head, _) = post(&[
        ("collectionId", id),
        ("password", "not-the-password"),
        ("redirect", path),
    ]);
    assert_eq!(status, 303, "{head}");
    let back = format!("{path}?lock-error=1");
    assert_eq!(header(&head, "location"), Some(back.as_str()), "{head}");
    assert_eq!(header(&head, "set-cookie"), None, "{head}");
    let (status, head, body) = get(port, host, &back);
    assert_eq!((status, header(&head, "x-page-type")), (200, Some("103")));
    assert!(
        body.contains("Incorrect password. Please try again."),
        "{body}"
    );
    assert!(!body.contains(&page.secret));

    // The right one: a cookie, and back to the page.
    let (status, head, _) = post(&[
        ("collectionId", id),
        ("password", &page.password),
        ("redirect", path),
    ]);
    assert_eq!(status, 303, "{head}");
    assert_eq!(header(&head, "location"), Some(path.as_str()), "{head}");
    let set_cookie = header(&head, "set-cookie").expect("an unlock cookie");
    let (pair, attributes) = set_cookie.split_once("; ").unwrap();
    assert_eq!(attributes, "Path=/; HttpOnly; SameSite=Lax");
    let (name, token) = pair.split_once('=').unwrap();
    assert_eq!(name, format!("tessera-unlock-{id}"));
    assert!(
        token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit()),
        "{token}"
    );

    // With the cookie (among others): the real page, with its content, not cached.
    let (status, head, body) = page_with(&format!("theme=dark; {pair}"));
    assert_eq!(status, 200);
    assert_eq!(header(&head, "x-page-type"), Some("2"), "{head}");
    assert_eq!(header(&head, "cache-control"), Some("private, no-store"));
    assert!(body.contains(&page.main_content), "{body}");

    // Forged or misplaced cookies open nothing.
    let mut forged = token.as_bytes().to_vec();
    forged[0] = if forged[0] == b'0' { b'1' } else { b'0' };
    let forged = String::from_utf8(forged).unwrap();
    for cookie in [
        format!("{name}={forged}"),
        format!("{name}=00"),
        format!("{name}="),
        format!("tessera-unlock-000000000000000000000000={token}"),
    ] {
        let (_, head, body) = page_with(&cookie);
        assert_eq!(header(&head, "x-page-type"), Some("103"), "{cookie}");
        assert!(!body.contains(&page.secret), "{cookie}");
    }

    // Bad requests.
    let (status, _, body) = post(&[("password", "x"), ("redirect", path)]);
    assert_eq!((status, body.as_str()), (400, "Missing collectionId."));
    let (status, _, body) = post(&[("collectionId", id), ("redirect", path)]);
    assert_eq!((status, body.as_str()), (400, "Missing password."));
    let (status, _, body) = post(&[("collectionId", "nope"), ("password", "x")]);
    assert_eq!(status, 400);
    assert!(body.starts_with("Unknown collection"), "{body}");
    // Only same-site paths: anything else goes home.
    let (status, head, _) = post(&[
        ("collectionId", id),
        ("password", &page.password),
        ("redirect", "//evil.example/"),
    ]);
    assert_eq!((status, header(&head, "location")), (303, Some("/")));
}
