//! Settings → Site access over HTTP, on both backends: `GET/PATCH /api/owner/site-access`.
//! With a site password every visitor route of the site answers its lock screen (pages,
//! `?format=json`, the store, search, folder redirects, unknown paths, an item's comments)
//! while the stylesheet, the owner app and the owner API stay; the password unlocks it (a
//! site cookie), a page's unlock does not and the site's does not open a locked page; a new
//! password ends earlier unlocks; the hash is never in an answer; off opens the site again.
//! Bad values are named by field and store nothing; only roles with the access area may
//! read or change it; another site's token is nobody here and its site stays open; a
//! session's patch needs its CSRF token.

use serde_json::{Value, json};

use crate::support::{Backend, Response, Server, get, item_id, request};

const HARBOR: &str = "harbor-lane.localhost";
const LOAM: &str = "loam-lantern.localhost";
const PATH: &str = "/api/owner/site-access";
/// harbor-lane's journal.
const JOURNAL: &str = "43d22b9062a229663352e4f3";

on_both_backends!(
    the_site_password_locks_every_visitor_route_until_unlocked,
    bad_values_are_named_by_field_and_nothing_is_stored,
    roles_sites_and_sessions,
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

fn unlock(server: &Server, form: &str) -> Response {
    request(
        server.port,
        "POST",
        HARBOR,
        "/api/lock-screen/unlock",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        form,
    )
}

/// The `name=value` of a response's cookie named `name`.
fn cookie_of(r: &Response, name: &str) -> Option<String> {
    r.headers("set-cookie")
        .into_iter()
        .map(|c| c.split(';').next().unwrap().to_owned())
        .find(|c| c.starts_with(&format!("{name}=")))
}

/// The site's lock screen and nothing of the site.
fn assert_site_lock(r: &Response, what: &str) {
    assert_eq!(r.status, 200, "{what}: {}", r.body);
    assert_eq!(r.header("x-page-type"), Some("103"), "{what}: {}", r.head);
    assert!(
        r.header("cache-control")
            .is_some_and(|c| c.contains("no-store")),
        "{what}: {}",
        r.head
    );
    for secret in [
        "spring firing",
        "Forty-one pieces",
        "Harbor Lane Pottery",
        "Journal",
        "argon2",
        "sitePassword",
        "Tidepool",
    ] {
        assert!(
            !r.body.contains(secret),
            "{what} leaks {secret:?}: {}",
            r.body
        );
    }
}

fn the_site_password_locks_every_visitor_route_until_unlocked(backend: Backend) {
    let server = Server::start(backend.clone(), &[]);
    let admin = server.owner_token("harbor-lane", "admin");
    let post = item_id("harbor-lane", "spring-firing");
    let comments = format!("/api/comments?itemId={post}");
    assert_eq!(get(server.port, HARBOR, &comments).status, 200);
    let r = read(&server, HARBOR, &admin);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["passwordSet"], false);

    let r = patch(
        &server,
        HARBOR,
        &admin,
        json!({"password": "open sesame", "title": "Opening <soon>", "message": "Back in May."}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json(),
        json!({"passwordSet": true, "title": "Opening <soon>", "message": "Back in May.",
               "defaultMessage": "This site is password protected. Enter the password to view it."})
    );
    assert!(!r.body.contains("sesame") && !r.body.contains("argon2"));
    assert_eq!(read(&server, HARBOR, &admin).json(), r.json());

    // Every visitor route: the lock screen, with the owner's words (escaped).
    for path in [
        "/",
        "/?format=json",
        "/?format=json-pretty",
        "/?format=main-content",
        "/journal",
        "/journal/spring-firing",
        "/journal/spring-firing?format=json",
        "/shop",
        "/search?q=glaze",
        "/cart",
        "/checkout",
        "/no-such-page",
        "//journal",
    ] {
        let r = get(server.port, HARBOR, path);
        assert_site_lock(&r, path);
        if !path.contains("format=json") {
            assert!(
                r.body.contains("<h1>Opening &lt;soon&gt;</h1>"),
                "{path}: {}",
                r.body
            );
            assert!(r.body.contains("Back in May."));
            assert!(r.body.contains(r#"name="lock" value="site""#));
        }
    }
    let json = get(server.port, HARBOR, "/journal?format=json").json();
    assert_eq!(json["lockScreen"]["site"], true);
    assert_eq!(json["lockScreen"]["redirect"], "/journal");
    // An item's comments are the site's too.
    assert_eq!(get(server.port, HARBOR, &comments).status, 404);
    // The stylesheet, the owner app and the owner API stay.
    let css = get(server.port, HARBOR, "/site.css");
    assert_eq!(css.status, 200);
    assert!(css.header("content-type").unwrap().starts_with("text/css"));
    assert_eq!(get(server.port, HARBOR, "/config").status, 200);
    assert_eq!(read(&server, HARBOR, &admin).status, 200);
    // Another site stays open.
    let loam = get(server.port, LOAM, "/");
    assert_eq!(loam.status, 200);
    assert_ne!(loam.header("x-page-type"), Some("103"));
    // The next page on another node shows it too.
    if matches!(backend, Backend::Postgres(_)) {
        assert_site_lock(
            &get(server.another_node().port, HARBOR, "/"),
            "another node",
        );
    }
    // The site's owner sees the site (the editor's frame).
    let owner = request(
        server.port,
        "GET",
        HARBOR,
        "/journal",
        &[("Authorization", &format!("Bearer {admin}"))],
        "",
    );
    assert_ne!(owner.header("x-page-type"), Some("103"));
    assert!(owner.body.contains("Notes from the spring firing"));

    // A page's own unlock does not unlock the site.
    let r = server.owner_call(
        HARBOR,
        &admin,
        "PATCH",
        &format!("/api/owner/collections/{JOURNAL}"),
        &json!({"password": "journal pass"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = unlock(
        &server,
        &format!("collectionId={JOURNAL}&password=journal+pass"),
    );
    assert_eq!(r.status, 303, "{}", r.body);
    let page_cookie = cookie_of(&r, &format!("tessera-unlock-{JOURNAL}")).expect("page cookie");
    assert_site_lock(&get_with(&server, "/journal", &page_cookie), "page cookie");

    // A wrong site password: back with the error, no cookie.
    let r = unlock(&server, "lock=site&password=nope&redirect=/journal");
    assert_eq!(r.status, 303);
    assert_eq!(r.header("location"), Some("/journal?lock-error=1"));
    assert!(cookie_of(&r, "tessera-site-unlock").is_none());
    let again = get(server.port, HARBOR, "/journal?lock-error=1");
    assert!(again.body.contains("Incorrect password. Please try again."));
    // `lock` names the site only.
    assert_eq!(unlock(&server, "lock=moon&password=x").status, 400);

    // The right one: the site cookie opens the site, but not the journal's own lock.
    let r = unlock(&server, "lock=site&password=open+sesame&redirect=/shop");
    assert_eq!(r.status, 303);
    assert_eq!(r.header("location"), Some("/shop"));
    let site_cookie = cookie_of(&r, "tessera-site-unlock").expect("site cookie");
    let home = get_with(&server, "/", &site_cookie);
    assert_eq!(home.status, 200);
    assert_ne!(home.header("x-page-type"), Some("103"));
    assert!(home.body.contains("Harbor Lane Pottery"));
    let json = get_with(&server, "/?format=json", &site_cookie);
    assert!(json.body.contains("Harbor Lane Pottery"));
    assert!(!json.body.contains("argon2") && !json.body.contains("sitePassword"));
    let journal = get_with(&server, "/journal", &site_cookie);
    assert_eq!(journal.header("x-page-type"), Some("103"));
    assert!(journal.body.contains(&format!("value=\"{JOURNAL}\"")));
    assert!(!journal.body.contains("Forty-one pieces"));
    let both = format!("{site_cookie}; {page_cookie}");
    assert!(
        get_with(&server, "/journal", &both)
            .body
            .contains("Notes from the spring firing")
    );
    assert_eq!(get_with(&server, &comments, &page_cookie).status, 404);
    assert_eq!(get_with(&server, &comments, &both).status, 200);

    // Only the words change: the cookie still opens the site.
    let r = patch(
        &server,
        HARBOR,
        &admin,
        json!({"title": null, "message": ""}),
    );
    assert_eq!(r.json()["passwordSet"], true);
    assert_eq!(
        (r.json()["title"].clone(), r.json()["message"].clone()),
        (json!(""), json!(""))
    );
    assert_ne!(
        get_with(&server, "/", &site_cookie).header("x-page-type"),
        Some("103")
    );
    // Without words, the site's title and the default message.
    let plain = get(server.port, HARBOR, "/");
    assert!(
        plain.body.contains("<title>Harbor Lane Pottery</title>"),
        "{}",
        plain.body
    );
    assert!(plain.body.contains("This site is password protected."));

    // A new password ends every earlier unlock.
    let r = patch(&server, HARBOR, &admin, json!({"password": "new words"}));
    assert_eq!(r.status, 200);
    assert_eq!(
        get_with(&server, "/", &site_cookie).header("x-page-type"),
        Some("103")
    );
    let hash = server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_host(HARBOR).await.unwrap().unwrap();
            let settings = s.site_settings(t.id).await.unwrap();
            settings.website_settings["sitePassword"]["hash"]
                .as_str()
                .unwrap()
                .to_owned()
        })
    });
    assert!(hash.starts_with("$argon2id$") && tenants::password::verify("new words", &hash));

    // Off: the site is open to everyone again.
    let r = patch(&server, HARBOR, &admin, json!({"password": null}));
    assert_eq!(r.json()["passwordSet"], false);
    let home = get(server.port, HARBOR, "/");
    assert_ne!(home.header("x-page-type"), Some("103"));
    assert!(home.body.contains("Harbor Lane Pottery"));
    assert_eq!(unlock(&server, "lock=site&password=new+words").status, 400);
}

fn bad_values_are_named_by_field_and_nothing_is_stored(backend: Backend) {
    let server = Server::start(backend, &[]);
    let admin = server.owner_token("harbor-lane", "admin");
    let before = read(&server, HARBOR, &admin).json();
    let r = patch(
        &server,
        HARBOR,
        &admin,
        json!({"password": "", "title": "t".repeat(101), "message": 5, "colour": "red"}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.json()["errors"],
        json!({
            "password": "Please enter a password, or turn the site password off.",
            "title": "A title is at most 100 characters.",
            "message": "Please enter text.",
            "colour": "Site access has no such field.",
        })
    );
    for (body, field, message) in [
        (
            json!({"password": "p".repeat(201)}),
            "password",
            "A password is at most 200 characters.",
        ),
        (json!({"password": 7}), "password", "Please enter text."),
        (
            json!({"message": "m".repeat(1001)}),
            "message",
            "A message is at most 1000 characters.",
        ),
        (
            json!({"password": "fine", "title": "a\u{7}b"}),
            "title",
            "A title is at most 100 characters.",
        ),
    ] {
        let r = patch(&server, HARBOR, &admin, body.clone());
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        assert_eq!(r.json()["errors"][field], message, "{body}: {}", r.body);
    }
    assert_eq!(patch(&server, HARBOR, &admin, json!(["x"])).status, 400);
    assert_eq!(read(&server, HARBOR, &admin).json(), before);
    assert_ne!(
        get(server.port, HARBOR, "/").header("x-page-type"),
        Some("103")
    );
}

fn roles_sites_and_sessions(backend: Backend) {
    let server = Server::start(backend, &["--sign-ins-per-minute", "600"]);
    let admin = server.owner_token("harbor-lane", "admin");
    let manager = server.owner_token("harbor-lane", "website-manager");
    let loam = server.owner_token("loam-lantern", "admin");
    let body = json!({"password": "pw"});

    // Only admins and website managers have the access area.
    for role in [
        "editor",
        "viewer",
        "store-manager",
        "moderator",
        "reporting",
    ] {
        let token = server.owner_token("harbor-lane", role);
        assert_eq!(read(&server, HARBOR, &token).status, 403, "{role}");
        assert_eq!(
            patch(&server, HARBOR, &token, body.clone()).status,
            403,
            "{role}"
        );
    }
    assert_eq!(read(&server, HARBOR, &admin).json()["passwordSet"], false);
    let r = patch(&server, HARBOR, &manager, json!({"title": "Soon"}));
    assert_eq!(r.status, 200, "{}", r.body);

    // Another site's token is nobody here; its own site stays open.
    assert_eq!(read(&server, HARBOR, &loam).status, 401);
    assert_eq!(patch(&server, HARBOR, &loam, body.clone()).status, 401);
    let r = patch(&server, LOAM, &loam, body.clone());
    assert_eq!(r.status, 200);
    assert_eq!(
        get(server.port, LOAM, "/").header("x-page-type"),
        Some("103")
    );
    assert_ne!(
        get(server.port, HARBOR, "/").header("x-page-type"),
        Some("103")
    );
    assert_eq!(read(&server, HARBOR, &admin).json()["passwordSet"], false);

    // A session patches with its CSRF token only, and its owner sees the locked site.
    let (cookie, csrf) = crate::owner_accounts::signed_in(
        &server,
        "harbor-lane",
        HARBOR,
        ("ann@example.test", "admin", "correct horse"),
    );
    let call = |csrf: Option<&str>, body: &Value| {
        server.session_call(HARBOR, &cookie, csrf, "PATCH", PATH, body)
    };
    let r = call(None, &body);
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(read(&server, HARBOR, &admin).json()["passwordSet"], false);
    let r = call(Some(&csrf), &body);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["passwordSet"], true);
    assert_eq!(
        get(server.port, HARBOR, "/").header("x-page-type"),
        Some("103")
    );
    let own = get_with(&server, "/", &cookie);
    assert_ne!(own.header("x-page-type"), Some("103"));
    assert!(own.body.contains("Harbor Lane Pottery"));
}
