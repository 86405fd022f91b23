//! Settings → Languages over HTTP, on both backends: `GET /api/multilingual/settings` and
//! its JSON Merge Patch (the default language and the other languages). A patch changes
//! what it names; a default made of a listed language leaves the list; the next page is
//! written in the new language (`<html lang>`); bad values are named by field and store
//! nothing; roles without the languages area (or without changing it) are refused; another
//! site's token is nobody here and its settings stay; a session's patch needs its CSRF
//! token.

use serde_json::{Value, json};

use crate::support::{Backend, Response, Server, get};

const LOAM: &str = "loam-lantern.localhost";
const HARBOR: &str = "harbor-lane.localhost";
const PATH: &str = "/api/multilingual/settings";

on_both_backends!(
    the_default_language_changes_and_the_next_page_shows_it,
    bad_values_are_named_by_field_and_nothing_is_stored,
    roles_sites_and_sessions,
);

fn read(server: &Server, host: &str, token: &str) -> Response {
    server.owner_call(host, token, "GET", PATH, &Value::Null)
}

fn patch(server: &Server, host: &str, token: &str, body: Value) -> Response {
    server.owner_call(host, token, "PATCH", PATH, &body)
}

fn lang_of_home(server: &Server, host: &str) -> String {
    let page = get(server.port, host, "/");
    assert_eq!(page.status, 200, "{}", page.body);
    let at = page.body.find("<html lang=\"").expect("<html lang>") + 12;
    page.body[at..].split('"').next().unwrap().to_owned()
}

fn the_default_language_changes_and_the_next_page_shows_it(backend: Backend) {
    let server = Server::start(backend.clone(), &[]);
    let admin = server.owner_token("loam-lantern", "admin");
    let r = read(&server, LOAM, &admin);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["defaultLanguage"], "en-US");
    assert_eq!(lang_of_home(&server, LOAM), "en-US");

    // The other languages first (canonical), then the default becomes one of them: it
    // leaves the list, and the rest stays as it was.
    let r = patch(
        &server,
        LOAM,
        &admin,
        json!({"languages": ["nl-nl", {"tag": "de", "enabled": false}]}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json()["languages"],
        json!([{"tag": "nl-NL", "enabled": true}, {"tag": "de", "enabled": false}])
    );
    let r = patch(&server, LOAM, &admin, json!({"defaultLanguage": "nl-nl"}));
    assert_eq!(r.status, 200, "{}", r.body);
    let doc = r.json();
    assert_eq!(doc["defaultLanguage"], "nl-NL");
    assert_eq!(doc["languages"], json!([{"tag": "de", "enabled": false}]));
    assert_eq!(read(&server, LOAM, &admin).json(), doc);
    assert_eq!(lang_of_home(&server, LOAM), "nl-NL");
    // Another node (a second server on the same database) shows it on its next page too.
    if matches!(backend, Backend::Postgres(_)) {
        let other = server.another_node();
        assert_eq!(lang_of_home(&other, LOAM), "nl-NL");
    }

    // `languages: null` empties the list; the default stays.
    let r = patch(&server, LOAM, &admin, json!({"languages": null}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        (
            r.json()["defaultLanguage"].clone(),
            r.json()["languages"].clone()
        ),
        (json!("nl-NL"), json!([]))
    );
    // An empty patch changes nothing.
    let r = patch(&server, LOAM, &admin, json!({}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["defaultLanguage"], "nl-NL");
}

fn bad_values_are_named_by_field_and_nothing_is_stored(backend: Backend) {
    let server = Server::start(backend, &[]);
    let admin = server.owner_token("loam-lantern", "admin");
    let before = read(&server, LOAM, &admin).json();
    for (body, field, message) in [
        (
            json!({"defaultLanguage": "not a tag", "languages": ["fr-FR"]}),
            "defaultLanguage",
            "That is not a language tag (like fr-FR).",
        ),
        (
            json!({"defaultLanguage": 7}),
            "defaultLanguage",
            "That is not a language tag (like fr-FR).",
        ),
        (
            json!({"defaultLanguage": "fr-FR", "languages": ["de", "DE"]}),
            "languages[1]",
            "This language already exists",
        ),
        (
            json!({"languages": "fr"}),
            "languages",
            "languages is a list of language tags.",
        ),
        (
            json!({"colour": "red"}),
            "colour",
            "The languages have no such setting.",
        ),
    ] {
        let r = patch(&server, LOAM, &admin, body.clone());
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        assert_eq!(r.json()["errors"][field], message, "{body}: {}", r.body);
    }
    let r = patch(&server, LOAM, &admin, json!(["fr-FR"]));
    assert_eq!(r.status, 400, "{}", r.body);
    let r = patch(&server, LOAM, &admin, json!({"languages": vec!["en"; 51]}));
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(read(&server, LOAM, &admin).json(), before);
    assert_eq!(lang_of_home(&server, LOAM), "en-US");
}

fn roles_sites_and_sessions(backend: Backend) {
    let server = Server::start(backend, &["--sign-ins-per-minute", "600"]);
    let viewer = server.owner_token("loam-lantern", "viewer");
    let editor = server.owner_token("loam-lantern", "editor");
    let manager = server.owner_token("loam-lantern", "store-manager");
    let harbor = server.owner_token("harbor-lane", "admin");
    let body = json!({"defaultLanguage": "fr-FR"});

    // The viewer reads languages but may not change them; the store manager has no
    // languages area at all; the editor changes them.
    assert_eq!(read(&server, LOAM, &viewer).status, 200);
    assert_eq!(patch(&server, LOAM, &viewer, body.clone()).status, 403);
    assert_eq!(read(&server, LOAM, &manager).status, 403);
    assert_eq!(patch(&server, LOAM, &manager, body.clone()).status, 403);
    let r = patch(&server, LOAM, &editor, body.clone());
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["defaultLanguage"], "fr-FR");

    // Another site's token is nobody here, and its own site keeps its language.
    let harbor_before = read(&server, HARBOR, &harbor).json();
    assert_eq!(read(&server, LOAM, &harbor).status, 401);
    assert_eq!(
        patch(&server, LOAM, &harbor, json!({"defaultLanguage": "de"})).status,
        401
    );
    assert_eq!(read(&server, HARBOR, &harbor).json(), harbor_before);
    assert_ne!(harbor_before["defaultLanguage"], "fr-FR");
    assert_eq!(
        read(&server, LOAM, &editor).json()["defaultLanguage"],
        "fr-FR"
    );

    // A session patches with its CSRF token only.
    let (cookie, csrf) = crate::owner_accounts::signed_in(
        &server,
        "loam-lantern",
        LOAM,
        ("ann@example.test", "admin", "correct horse"),
    );
    let call = |csrf: Option<&str>, body: &Value| {
        server.session_call(LOAM, &cookie, csrf, "PATCH", PATH, body)
    };
    let r = call(None, &json!({"defaultLanguage": "de"}));
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(
        read(&server, LOAM, &editor).json()["defaultLanguage"],
        "fr-FR"
    );
    let r = call(Some(&csrf), &json!({"defaultLanguage": "de"}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(read(&server, LOAM, &editor).json()["defaultLanguage"], "de");
}
