//! The announcement bar and the cookie banner over HTTP, on both backends:
//! `GET/PATCH /api/owner/site-notices`. Turned on, the next page (on any node) shows the bar
//! at the top of its body and the banner at its end, escaped, with no script; a visitor
//! dismisses each with a form (a cookie; a new announcement shows again); `?format=json`
//! and the site's lock screen carry neither. Bad values are named by field and store
//! nothing; the design area's roles change them; another site's token is nobody here and
//! its pages stay as they were; a session's patch needs its CSRF token.

use serde_json::{Value, json};

use crate::support::{Backend, Response, Server, get, request};

const HARBOR: &str = "harbor-lane.localhost";
const LOAM: &str = "loam-lantern.localhost";
const PATH: &str = "/api/owner/site-notices";
const BAR: &str = "<div class=\"tessera-announcement\"";
const BANNER: &str = "<div class=\"tessera-cookie-banner\"";

on_both_backends!(
    the_next_page_shows_them_until_dismissed,
    bad_values_are_named_by_field_and_nothing_is_stored,
    roles_sites_and_sessions,
    a_template_that_places_the_bar_shows_it_once,
);

fn read(server: &Server, host: &str, token: &str) -> Response {
    server.owner_call(host, token, "GET", PATH, &Value::Null)
}

fn patch(server: &Server, host: &str, token: &str, body: Value) -> Response {
    server.owner_call(host, token, "PATCH", PATH, &body)
}

fn get_with(server: &Server, path: &str, cookie: &str) -> Response {
    request(server.port, "GET", HARBOR, path, &[("Cookie", cookie)], "")
}

fn dismiss(server: &Server, form: &str) -> Response {
    request(
        server.port,
        "POST",
        HARBOR,
        "/api/site-notices/dismiss",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        form,
    )
}

fn cookie_of(r: &Response) -> String {
    r.header("set-cookie")
        .expect("a cookie")
        .split(';')
        .next()
        .unwrap()
        .to_owned()
}

fn the_next_page_shows_them_until_dismissed(backend: Backend) {
    let server = Server::start(backend.clone(), &[]);
    let admin = server.owner_token("harbor-lane", "admin");
    let r = read(&server, HARBOR, &admin);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["announcementBar"]["enabled"], false);
    assert_eq!(r.json()["cookieBanner"]["enabled"], false);
    let home = get(server.port, HARBOR, "/").body;
    assert!(!home.contains(BAR) && !home.contains(BANNER));

    let r = patch(
        &server,
        HARBOR,
        &admin,
        json!({"announcementBar": {"enabled": true, "text": "Kiln sale <Saturday> & Sunday", "url": "harbor.example/sale"},
               "cookieBanner": {"enabled": true, "buttonLabel": "Fine"}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json()["announcementBar"],
        json!({"enabled": true, "text": "Kiln sale <Saturday> & Sunday", "url": "https://harbor.example/sale"})
    );
    assert_eq!(
        r.json()["cookieBanner"],
        json!({"enabled": true, "text": "", "buttonLabel": "Fine"})
    );
    assert_eq!(read(&server, HARBOR, &admin).json(), r.json());

    for path in ["/", "/journal", "/shop", "/no-such-page"] {
        let page = get(server.port, HARBOR, path).body;
        let bar = page.find(BAR).unwrap_or_else(|| panic!("{path}: no bar"));
        let banner = page
            .find(BANNER)
            .unwrap_or_else(|| panic!("{path}: no banner"));
        assert!(page[..bar].contains("<body"), "{path}");
        assert!(banner > bar && page[banner..].contains("</body>"), "{path}");
        assert!(page.contains(
            "<a href=\"https://harbor.example/sale\">Kiln sale &lt;Saturday&gt; &amp; Sunday</a>"
        ));
        assert!(page.contains("<button type=\"submit\">Fine</button>"));
        assert!(
            page.contains(&format!("name=\"redirect\" value=\"{path}\"")),
            "{path}"
        );
        assert!(!page.contains("<Saturday>"));
    }
    // The next page on another node too.
    if matches!(backend, Backend::Postgres(_)) {
        assert!(
            get(server.another_node().port, HARBOR, "/")
                .body
                .contains(BAR)
        );
    }
    // Not in the JSON context; another site has neither.
    let json = get(server.port, HARBOR, "/?format=json").body;
    assert!(!json.contains("tessera-announcement"));
    let loam = get(server.port, LOAM, "/").body;
    assert!(!loam.contains(BANNER));

    // Dismissing: a cookie, and back to the page.
    let r = dismiss(&server, "notice=announcement&redirect=/journal");
    assert_eq!(r.status, 303);
    assert_eq!(r.header("location"), Some("/journal"));
    let bar_cookie = cookie_of(&r);
    assert!(bar_cookie.starts_with("tessera-announcement="));
    let page = get_with(&server, "/journal", &bar_cookie).body;
    assert!(!page.contains(BAR) && page.contains(BANNER));
    let r = dismiss(&server, "notice=cookies&redirect=https://evil.example/");
    assert_eq!(r.header("location"), Some("/"));
    let both = format!("{bar_cookie}; {}", cookie_of(&r));
    let page = get_with(&server, "/", &both).body;
    assert!(!page.contains(BAR) && !page.contains(BANNER));
    assert_eq!(dismiss(&server, "notice=moon").status, 400);

    // A new announcement shows again to those who closed the old one.
    let r = patch(
        &server,
        HARBOR,
        &admin,
        json!({"announcementBar": {"text": "Closed on Monday", "url": null}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let page = get_with(&server, "/", &both).body;
    assert!(page.contains("<p>Closed on Monday</p>"), "{page}");
    assert!(!page.contains(BANNER));

    // Not on the site's lock screen, which shows nothing of the site.
    let r = server.owner_call(
        HARBOR,
        &admin,
        "PATCH",
        "/api/owner/site-access",
        &json!({"password": "pw"}),
    );
    assert_eq!(r.status, 200);
    let locked = get(server.port, HARBOR, "/");
    assert_eq!(locked.header("x-page-type"), Some("103"));
    assert!(!locked.body.contains("Closed on Monday") && !locked.body.contains(BANNER));
    server.owner_call(
        HARBOR,
        &admin,
        "PATCH",
        "/api/owner/site-access",
        &json!({"password": null}),
    );

    // Off: gone from the next page.
    let r = patch(
        &server,
        HARBOR,
        &admin,
        json!({"announcementBar": {"enabled": false}, "cookieBanner": {"enabled": false}}),
    );
    assert_eq!(r.status, 200);
    let page = get(server.port, HARBOR, "/").body;
    assert!(!page.contains(BAR) && !page.contains(BANNER));
    // Off takes the bar away (as DELETE /api/owner/announcement-bar does).
    assert_eq!(
        read(&server, HARBOR, &admin).json()["announcementBar"],
        json!({"enabled": false, "text": "", "url": ""})
    );
    assert_eq!(
        server
            .owner_call(
                HARBOR,
                &admin,
                "GET",
                "/api/owner/announcement-bar",
                &Value::Null
            )
            .json()["announcementBar"],
        Value::Null
    );
}

/// loam-lantern's header places the bar itself: the page shows it once, and the owner
/// routes of the bar and of the notices read the same one.
fn a_template_that_places_the_bar_shows_it_once(backend: Backend) {
    let server = Server::start(backend, &[]);
    let admin = server.owner_token("loam-lantern", "admin");
    let r = read(&server, LOAM, &admin);
    assert_eq!(r.json()["announcementBar"]["enabled"], true, "{}", r.body);
    let text = r.json()["announcementBar"]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let page = get(server.port, LOAM, "/").body;
    assert_eq!(page.matches(&text).count(), 1, "{page}");
    assert!(!page.contains(BAR));
    let r = patch(
        &server,
        LOAM,
        &admin,
        json!({"announcementBar": {"text": "Closed for inventory", "url": "/shop"}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let bar = server
        .owner_call(
            LOAM,
            &admin,
            "GET",
            "/api/owner/announcement-bar",
            &Value::Null,
        )
        .json()["announcementBar"]
        .clone();
    assert_eq!(bar["text"], "Closed for inventory");
    assert_eq!(
        bar["clickthroughUrl"],
        json!({"url": "/shop", "newWindow": false})
    );
    assert_eq!(bar["style"], 1, "the template's style is kept");
    let page = get(server.port, LOAM, "/").body;
    assert_eq!(page.matches("Closed for inventory").count(), 1, "{page}");
}

fn bad_values_are_named_by_field_and_nothing_is_stored(backend: Backend) {
    let server = Server::start(backend, &[]);
    let admin = server.owner_token("harbor-lane", "admin");
    let before = read(&server, HARBOR, &admin).json();
    let r = patch(
        &server,
        HARBOR,
        &admin,
        json!({
            "announcementBar": {"enabled": "yes", "text": "x".repeat(501), "url": "not a link", "colour": 1},
            "cookieBanner": {"text": 5, "buttonLabel": "b".repeat(41)},
            "popup": {},
        }),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.json()["errors"],
        json!({
            "announcementBar.enabled": "This is true or false.",
            "announcementBar.text": "An announcement can have at most 500 characters.",
            "announcementBar.url": "Links must be formatted as www.example.com or https://www.example.com",
            "announcementBar.colour": "The site's notices have no such field.",
            "cookieBanner.text": "Please enter text.",
            "cookieBanner.buttonLabel": "A button label is at most 40 characters.",
            "popup": "The site's notices have no such field.",
        })
    );
    let r = patch(
        &server,
        HARBOR,
        &admin,
        json!({"announcementBar": {"enabled": true}}),
    );
    assert_eq!(
        r.json()["errors"]["announcementBar.text"],
        "Write the announcement, or remove the bar."
    );
    let r = patch(
        &server,
        HARBOR,
        &admin,
        json!({"cookieBanner": {"text": "a\u{1}b"}}),
    );
    assert_eq!(
        r.json()["errors"]["cookieBanner.text"],
        "The banner's text is at most 500 characters."
    );
    assert_eq!(patch(&server, HARBOR, &admin, json!([1])).status, 400);
    assert_eq!(
        patch(&server, HARBOR, &admin, json!({"cookieBanner": true})).status,
        400
    );
    assert_eq!(read(&server, HARBOR, &admin).json(), before);
    assert!(!get(server.port, HARBOR, "/").body.contains(BAR));
}

fn roles_sites_and_sessions(backend: Backend) {
    let server = Server::start(backend, &["--sign-ins-per-minute", "600"]);
    let viewer = server.owner_token("harbor-lane", "viewer");
    let editor = server.owner_token("harbor-lane", "editor");
    let manager = server.owner_token("harbor-lane", "store-manager");
    let loam = server.owner_token("loam-lantern", "admin");
    let on = json!({"announcementBar": {"enabled": true, "text": "Open late"}});

    // The design area: the viewer reads, the store manager has none, the editor changes.
    assert_eq!(read(&server, HARBOR, &viewer).status, 200);
    assert_eq!(patch(&server, HARBOR, &viewer, on.clone()).status, 403);
    assert_eq!(read(&server, HARBOR, &manager).status, 403);
    assert_eq!(patch(&server, HARBOR, &manager, on.clone()).status, 403);
    assert_eq!(patch(&server, HARBOR, &editor, on.clone()).status, 200);
    assert!(get(server.port, HARBOR, "/").body.contains("Open late"));

    // Another site's token is nobody here, and its site shows nothing.
    assert_eq!(read(&server, HARBOR, &loam).status, 401);
    assert_eq!(patch(&server, HARBOR, &loam, json!({})).status, 401);
    assert!(!get(server.port, LOAM, "/").body.contains("Open late"));
    assert_ne!(
        read(&server, LOAM, &loam).json()["announcementBar"]["text"],
        "Open late"
    );

    // A session patches with its CSRF token only.
    let (cookie, csrf) = crate::owner_accounts::signed_in(
        &server,
        "harbor-lane",
        HARBOR,
        ("ann@example.test", "admin", "correct horse"),
    );
    let call = |csrf: Option<&str>| {
        server.session_call(
            HARBOR,
            &cookie,
            csrf,
            "PATCH",
            PATH,
            &json!({"announcementBar": {"text": "Closed today"}}),
        )
    };
    assert_eq!(call(None).status, 403);
    assert!(get(server.port, HARBOR, "/").body.contains("Open late"));
    assert_eq!(call(Some(&csrf)).status, 200);
    assert!(get(server.port, HARBOR, "/").body.contains("Closed today"));
}
