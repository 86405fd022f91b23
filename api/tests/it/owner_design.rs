//! The design routes over HTTP, on both backends (issue 44): the template's tweaks with
//! their defaults and the site's values, the preview (a stylesheet for the caller only:
//! visitors' pages do not change), saving (the next `/site.css` and page show it), a value
//! back to its default and Reset, bad values by field, another site's token, roles
//! without the design area, and a session's change without its CSRF token; the site's
//! identity (title, tagline, logo, icon, business information) the same way.

use serde_json::{Value, json};

use crate::support::{Backend, HARBOR_TOKEN, LOAM_TOKEN, Response, Server, get, request};

const LOAM: &str = "loam-lantern.localhost";
const HARBOR: &str = "harbor-lane.localhost";

on_both_backends!(
    tweaks_preview_save_and_reset,
    bad_values_roles_other_sites_and_csrf,
    site_identity,
    business_hours,
);

fn start(backend: Backend) -> Server {
    Server::with_owners(backend, &[])
}

fn call(server: &Server, token: &str, method: &str, path: &str, body: Value) -> Response {
    server.owner_call(HARBOR, token, method, path, &body)
}

fn tweak<'a>(design: &'a Value, title: &str) -> &'a Value {
    design["tweaks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["title"] == title)
        .unwrap_or_else(|| panic!("no {title} in {design}"))
}

/// What a visitor gets: the site's stylesheet and home page.
fn visitor_css(server: &Server) -> String {
    let r = get(server.port, HARBOR, "/site.css");
    assert_eq!(r.status, 200);
    r.body
}

fn tweaks_preview_save_and_reset(backend: Backend) {
    let server = start(backend);
    let r = call(
        &server,
        HARBOR_TOKEN,
        "GET",
        "/api/owner/design",
        Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let design = r.json();
    assert_eq!(design["compiled"], true);
    assert_eq!(design["groups"], json!(["General"]));
    let titles: Vec<&str> = design["tweaks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "tweak-site-width",
            "tweak-text-color",
            "tweak-page-background",
            "tweak-header-style",
            "tweak-show-journal-dates"
        ]
    );
    let width = tweak(&design, "tweak-site-width");
    assert_eq!(
        (
            &width["kind"],
            &width["default"],
            &width["value"],
            &width["set"]
        ),
        (
            &json!("value"),
            &json!("58rem"),
            &json!("62rem"),
            &json!(true)
        )
    );
    assert_eq!(
        (&width["min"], &width["max"], &width["units"]),
        (&json!(40), &json!(80), &json!("rem"))
    );
    assert_eq!(width["label"], "Site width");
    let text = tweak(&design, "tweak-text-color");
    assert_eq!(
        (
            &text["kind"],
            &text["default"],
            &text["value"],
            &text["set"]
        ),
        (
            &json!("color"),
            &json!("#1d2a30"),
            &json!("#1d2a30"),
            &json!(false)
        )
    );
    let header = tweak(&design, "tweak-header-style");
    assert_eq!(header["options"], json!(["Left Title", "Centered Title"]));
    assert_eq!(header["value"], "Centered Title");
    assert_eq!(tweak(&design, "tweak-show-journal-dates")["default"], true);
    let version = design["templateVersion"].as_i64().unwrap();
    let previews: Vec<(&str, &Value)> = design["previews"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["label"].as_str().unwrap(), &p["path"]))
        .collect();
    assert_eq!(
        previews,
        [
            ("Splash page", &Value::Null),
            ("Lock screen", &Value::Null),
            ("Popup overlay", &Value::Null),
            ("Checkout", &json!("/checkout")),
        ]
    );

    // The preview: the stylesheet with the unsaved values, and the body classes they change.
    let before = visitor_css(&server);
    assert!(before.contains("color: #1d2a30;"), "{before}");
    let r = call(
        &server,
        HARBOR_TOKEN,
        "POST",
        "/api/owner/design/preview",
        json!({"values": {"tweak-text-color": "#AA0000", "tweak-header-style": "Left Title"}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let preview = r.json();
    let css = preview["css"].as_str().unwrap();
    assert!(
        css.contains("color: #aa0000;") && !css.contains("#1d2a30"),
        "{css}"
    );
    // The saved width stays in the preview.
    assert!(css.contains("max-width: 62rem;"), "{css}");
    assert_eq!(
        preview["addClasses"],
        json!(["tweak-header-style-left-title"])
    );
    assert_eq!(
        preview["removeClasses"],
        json!(["tweak-header-style-centered-title"])
    );
    // Visitors see none of it.
    assert_eq!(visitor_css(&server), before);
    let home = get(server.port, HARBOR, "/");
    assert!(home.body.contains("tweak-header-style-centered-title"));

    // Saving: the next stylesheet and page have it, from a new template version.
    let r = call(
        &server,
        HARBOR_TOKEN,
        "PATCH",
        "/api/owner/design",
        json!({"values": {"tweak-text-color": "#aa0000", "tweak-header-style": "Left Title"}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let saved = r.json();
    assert_eq!(tweak(&saved, "tweak-text-color")["value"], "#aa0000");
    assert_eq!(tweak(&saved, "tweak-text-color")["set"], true);
    assert!(saved["templateVersion"].as_i64().unwrap() > version);
    let after = visitor_css(&server);
    assert!(
        after.contains("color: #aa0000;") && after.contains("max-width: 62rem;"),
        "{after}"
    );
    let home = get(server.port, HARBOR, "/");
    assert!(
        home.body.contains("tweak-header-style-left-title")
            && !home.body.contains("tweak-header-style-centered-title")
    );
    let r = call(
        &server,
        HARBOR_TOKEN,
        "GET",
        "/api/owner/design",
        Value::Null,
    );
    assert_eq!(tweak(&r.json(), "tweak-text-color")["value"], "#aa0000");

    // null: back to the template's default.
    let r = call(
        &server,
        HARBOR_TOKEN,
        "PATCH",
        "/api/owner/design",
        json!({"values": {"tweak-site-width": null}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let width = tweak(&r.json(), "tweak-site-width").clone();
    assert_eq!(
        (&width["value"], &width["set"]),
        (&json!("58rem"), &json!(false))
    );
    assert!(visitor_css(&server).contains("max-width: 58rem;"));

    // Reset: every value back to the template's.
    let r = call(
        &server,
        HARBOR_TOKEN,
        "PATCH",
        "/api/owner/design",
        json!({"values": null}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.json()["tweaks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["set"] == false && t["value"] == t["default"]),
        "{}",
        r.body
    );
    let css = visitor_css(&server);
    assert!(
        css.contains("color: #1d2a30;") && css.contains("max-width: 58rem;"),
        "{css}"
    );
    let home = get(server.port, HARBOR, "/");
    assert!(home.body.contains("tweak-header-style-left-title"));

    // A site with a password-protected page: its lock screen is there to preview.
    let sky = server.owner_token("skyward", "viewer");
    let r = server.owner_call(
        "skyward.localhost",
        &sky,
        "GET",
        "/api/owner/design",
        &Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let lock = r.json()["previews"][1].clone();
    assert_eq!(lock["kind"], "LOCK_SCREEN");
    let path = lock["path"].as_str().expect("a locked page").to_owned();
    let page = get(server.port, "skyward.localhost", &path);
    assert_eq!(page.header("x-page-type"), Some("103"), "{path}");

    // A folder of plain CSS: no tweaks to offer, nothing to compile.
    let r = server.owner_call(LOAM, LOAM_TOKEN, "GET", "/api/owner/design", &Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        (&r.json()["compiled"], &r.json()["tweaks"]),
        (&json!(false), &json!([]))
    );
    let r = server.owner_call(
        LOAM,
        LOAM_TOKEN,
        "POST",
        "/api/owner/design/preview",
        &json!({"values": {}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["css"], Value::Null);
}

fn bad_values_roles_other_sites_and_csrf(backend: Backend) {
    let server = start(backend);
    let before = visitor_css(&server);
    let bad = json!({"values": {
        "tweak-text-color": "hsl(400, 0.5, 0.5)",
        "tweak-page-background": "hsl(20, 0.5)",
        "tweak-site-width": "100rem",
        "tweak-header-style": "Nope",
        "tweak-show-journal-dates": "maybe",
        "no-such-tweak": "1px",
    }});
    let expected = json!({
        "values.tweak-text-color": "Hue out of bounds.",
        "values.tweak-page-background": "Missing an H/S/L value.",
        "values.tweak-site-width": "Please enter a number from 40 to 80 (rem).",
        "values.tweak-header-style": "Please choose one of the template's options.",
        "values.tweak-show-journal-dates": "A checkbox is on (true) or off (false).",
        "values.no-such-tweak": "This template has no such style setting.",
    });
    for (method, path) in [
        ("PATCH", "/api/owner/design"),
        ("POST", "/api/owner/design/preview"),
    ] {
        let r = call(&server, HARBOR_TOKEN, method, path, bad.clone());
        assert_eq!(r.status, 400, "{path}: {}", r.body);
        assert_eq!(r.json()["errors"], expected, "{path}");
        let r = call(
            &server,
            HARBOR_TOKEN,
            method,
            path,
            json!({"values": {"tweak-text-color": "red; } body { display: none"}}),
        );
        assert_eq!(
            r.json()["errors"]["values.tweak-text-color"],
            "Please enter a colour as #rgb, #rrggbb, rgb(…) or hsl(…).",
            "{path}"
        );
        let r = call(&server, HARBOR_TOKEN, method, path, json!(["x"]));
        assert_eq!(r.status, 400, "{path}");
        let r = call(&server, HARBOR_TOKEN, method, path, json!({"colours": {}}));
        assert_eq!(r.status, 400, "{path}");
    }
    // Nothing was stored.
    assert_eq!(visitor_css(&server), before);

    // Another site's token is not this site's.
    let r = call(&server, LOAM_TOKEN, "GET", "/api/owner/design", Value::Null);
    assert_eq!(r.status, 401, "{}", r.body);
    let r = call(
        &server,
        LOAM_TOKEN,
        "PATCH",
        "/api/owner/design",
        json!({"values": {"tweak-text-color": "#000"}}),
    );
    assert_eq!(r.status, 401, "{}", r.body);

    // A role without the design area: nothing; a viewer reads and previews, never saves.
    let manager = server.owner_token("harbor-lane", "store-manager");
    for (method, path, body) in [
        ("GET", "/api/owner/design", Value::Null),
        ("POST", "/api/owner/design/preview", json!({"values": {}})),
        (
            "PATCH",
            "/api/owner/design",
            json!({"values": {"tweak-text-color": "#000"}}),
        ),
    ] {
        let r = call(&server, &manager, method, path, body);
        assert_eq!(r.status, 403, "{method} {path}: {}", r.body);
    }
    let viewer = server.owner_token("harbor-lane", "viewer");
    let r = call(&server, &viewer, "GET", "/api/owner/design", Value::Null);
    assert_eq!(r.status, 200);
    let r = call(
        &server,
        &viewer,
        "POST",
        "/api/owner/design/preview",
        json!({"values": {"tweak-text-color": "#000"}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = call(
        &server,
        &viewer,
        "PATCH",
        "/api/owner/design",
        json!({"values": {"tweak-text-color": "#000"}}),
    );
    assert_eq!(r.status, 403);
    let editor = server.owner_token("harbor-lane", "editor");
    let r = call(
        &server,
        &editor,
        "PATCH",
        "/api/owner/design",
        json!({"values": {"tweak-text-color": "#123"}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);

    // A session's change needs its CSRF token; with it, it is made.
    let cookie = crate::owner_accounts::owner_session(&server, "harbor-lane", HARBOR);
    let body = json!({"values": {"tweak-text-color": "#456"}}).to_string();
    let headers = [
        ("Content-Type", "application/json"),
        ("Cookie", cookie.as_str()),
    ];
    let r = request(
        server.port,
        "PATCH",
        HARBOR,
        "/api/owner/design",
        &headers,
        &body,
    );
    assert_eq!(
        (r.status, r.message()),
        (403, "This needs the owner app's CSRF token.".to_owned())
    );
    let r = request(
        server.port,
        "POST",
        HARBOR,
        "/api/owner/design/preview",
        &headers,
        &body,
    );
    assert_eq!(r.status, 403, "a preview is a POST: {}", r.body);
    let me = request(
        server.port,
        "GET",
        HARBOR,
        "/api/owner/session",
        &headers,
        "",
    );
    let csrf = me.json()["csrf"].as_str().unwrap().to_owned();
    let with = [
        ("Content-Type", "application/json"),
        ("Cookie", cookie.as_str()),
        ("X-CSRF-Token", csrf.as_str()),
    ];
    let r = request(
        server.port,
        "PATCH",
        HARBOR,
        "/api/owner/design",
        &with,
        &body,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let css = visitor_css(&server);
    assert!(
        css.contains("color: #456;") || css.contains("color: #445566;"),
        "{css}"
    );
}

/// Uploads `bytes` (valid UTF-8, so the test client's text body carries them) as `name`:
/// the asset's id.
fn upload(server: &Server, name: &str, bytes: &[u8]) -> String {
    let auth = format!("Bearer {HARBOR_TOKEN}");
    let r = request(
        server.port,
        "POST",
        HARBOR,
        &format!("/api/owner/assets?fileName={name}"),
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/octet-stream"),
        ],
        &String::from_utf8_lossy(bytes),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["id"].as_str().unwrap().to_owned()
}

fn site_identity(backend: Backend) {
    let server = start(backend);
    const PATH: &str = "/api/owner/site-identity";
    let r = call(&server, HARBOR_TOKEN, "GET", PATH, Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    let id = r.json();
    assert_eq!(id["siteTitle"], "Harbor Lane Pottery");
    assert_eq!(
        id["siteTagLine"],
        "Small-batch stoneware, thrown and glazed by hand"
    );
    assert_eq!(id["location"]["addressLine1"], "14 Harbor Lane");
    assert_eq!(id["contactEmail"], "studio@harbor-lane.localhost");
    assert_eq!((&id["logo"], &id["favicon"]), (&Value::Null, &Value::Null));

    // Bad input, by field; nothing stored.
    let pdf = upload(&server, "menu.pdf", b"%PDF-1.4 a tiny document");
    let r = call(
        &server,
        HARBOR_TOKEN,
        "PATCH",
        PATH,
        json!({
            "siteTitle": "  ",
            "siteTagLine": "x".repeat(201),
            "logoAssetId": "no-such-asset",
            "faviconAssetId": pdf,
            "contactEmail": "not an address",
            "contactPhoneNumber": "call me",
            "location": {"addressLine1": 12, "mapLat": 1},
            "colour": "red",
        }),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.json()["errors"],
        json!({
            "siteTitle": "Please enter the site's title.",
            "siteTagLine": "At most 200 characters.",
            "logoAssetId": "That image is not among the site's uploaded files.",
            "faviconAssetId": "Please choose an image (PNG, JPEG, GIF or WebP).",
            "contactEmail": "Please enter a valid email",
            "contactPhoneNumber": "A phone number has digits, spaces and + - ( ) . only, at most 40 characters.",
            "location.addressLine1": "Please enter text.",
            "location.mapLat": "The site's identity has no such field.",
            "colour": "The site's identity has no such field.",
        })
    );
    let home = get(server.port, HARBOR, "/");
    assert!(home.body.contains("Harbor Lane Pottery"));
    // Another site's image is not this site's.
    let auth = format!("Bearer {LOAM_TOKEN}");
    let r = request(
        server.port,
        "POST",
        LOAM,
        "/api/owner/assets?fileName=theirs.gif",
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/octet-stream"),
        ],
        "GIF89a\x01\x00\x01\x00 their logo",
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let theirs = r.json()["id"].as_str().unwrap().to_owned();
    let r = call(
        &server,
        HARBOR_TOKEN,
        "PATCH",
        PATH,
        json!({"logoAssetId": theirs}),
    );
    assert_eq!(
        (r.status, &r.json()["errors"]["logoAssetId"]),
        (
            400,
            &json!("That image is not among the site's uploaded files.")
        )
    );

    // A change: the next page shows it.
    let logo = upload(&server, "logo.gif", b"GIF89a\x01\x00\x01\x00 a tiny logo");
    let r = call(
        &server,
        HARBOR_TOKEN,
        "PATCH",
        PATH,
        json!({
            "siteTitle": "Harbor Lane Studio",
            "siteTagLine": "",
            "logoAssetId": logo,
            "faviconAssetId": logo,
            "contactPhoneNumber": "+1 (207) 555-0100",
            "location": {"addressLine1": "16 Harbor Lane"},
        }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let id = r.json();
    assert_eq!(id["siteTitle"], "Harbor Lane Studio");
    assert_eq!(id["siteTagLine"], "");
    assert_eq!(id["logo"]["assetId"], logo.as_str());
    let url = id["logo"]["url"].as_str().unwrap().to_owned();
    assert!(
        url.starts_with(&format!("/_tessera/files/{logo}/")),
        "{url}"
    );
    assert_eq!(id["location"]["addressLine1"], "16 Harbor Lane");
    // The other lines stay.
    assert_eq!(id["location"]["addressLine2"], "Port Wren, ME 04000");
    assert_eq!(id["contactPhoneNumber"], "+1 (207) 555-0100");
    let home = get(server.port, HARBOR, "/");
    assert!(home.body.contains("Harbor Lane Studio"), "{}", home.body);
    assert!(
        home.body
            .contains(&format!("<link rel=\"icon\" href=\"{url}\">")),
        "{}",
        home.body
    );
    let r = call(&server, HARBOR_TOKEN, "GET", PATH, Value::Null);
    assert_eq!(r.json()["siteTitle"], "Harbor Lane Studio");
    assert!(
        r.json()["services"]
            .as_array()
            .unwrap()
            .contains(&json!("instagram"))
    );

    // Social accounts: a list replaced whole, each checked.
    let r = call(
        &server,
        HARBOR_TOKEN,
        "PATCH",
        PATH,
        json!({"socialAccounts": [
            {"serviceName": "myspace", "profileUrl": "https://myspace.example/h"},
            {"serviceName": "instagram", "profileUrl": "javascript:alert(1)"},
        ]}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.json()["errors"],
        json!({
            "socialAccounts[0].serviceName": "Please choose one of the networks offered.",
            "socialAccounts[1].profileUrl": api::routes::owner::layout::BAD_LINK,
        })
    );
    let r = call(
        &server,
        HARBOR_TOKEN,
        "PATCH",
        PATH,
        json!({"socialAccounts": [
            {"serviceName": "instagram", "profileUrl": "https://instagram.example/harborlane"},
            {"serviceName": "email", "profileUrl": "mailto:studio@harbor-lane.localhost"},
        ]}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["socialAccounts"][0]["serviceName"], "instagram");
    let context = get(server.port, HARBOR, "/?format=json");
    let accounts = context.json()["website"]["socialAccounts"].clone();
    assert_eq!(
        (
            &accounts[0]["profileUrl"],
            &accounts[1]["serviceName"],
            accounts.as_array().map(Vec::len)
        ),
        (
            &json!("https://instagram.example/harborlane"),
            &json!("email"),
            Some(2)
        ),
        "{}",
        context.body
    );
    // null takes the icon away: the template's again.
    let r = call(
        &server,
        HARBOR_TOKEN,
        "PATCH",
        PATH,
        json!({"faviconAssetId": null}),
    );
    assert_eq!(r.json()["favicon"], Value::Null);
    let home = get(server.port, HARBOR, "/");
    assert!(
        !home
            .body
            .contains(&format!("<link rel=\"icon\" href=\"{url}\">"))
    );

    // Another site's token, a role without design, a session without its CSRF token.
    assert_eq!(
        call(&server, LOAM_TOKEN, "GET", PATH, Value::Null).status,
        401
    );
    let manager = server.owner_token("harbor-lane", "store-manager");
    assert_eq!(
        call(&server, &manager, "GET", PATH, Value::Null).status,
        403
    );
    let viewer = server.owner_token("harbor-lane", "viewer");
    assert_eq!(call(&server, &viewer, "GET", PATH, Value::Null).status, 200);
    let r = call(
        &server,
        &viewer,
        "PATCH",
        PATH,
        json!({"siteTitle": "Mine"}),
    );
    assert_eq!(r.status, 403);
    let cookie = crate::owner_accounts::owner_session(&server, "harbor-lane", HARBOR);
    let r = request(
        server.port,
        "PATCH",
        HARBOR,
        PATH,
        &[("Content-Type", "application/json"), ("Cookie", &cookie)],
        &json!({"siteTitle": "Mine"}).to_string(),
    );
    assert_eq!(r.status, 403);
    let r = call(&server, HARBOR_TOKEN, "GET", PATH, Value::Null);
    assert_eq!(r.json()["siteTitle"], "Harbor Lane Studio");
}

/// Opening hours (`websiteSettings.businessHours`) in the site's identity: every day shown,
/// a change replaces the week with the server's `text`, the next page's context has it,
/// bad times by field, roles and another site.
fn business_hours(backend: Backend) {
    let server = start(backend);
    const PATH: &str = "/api/owner/site-identity";
    let r = call(&server, HARBOR_TOKEN, "GET", PATH, Value::Null);
    let week = r.json()["businessHours"].clone();
    assert_eq!(week.as_object().unwrap().len(), 7, "{week}");
    assert_eq!(week["monday"], json!({"text": "", "ranges": []}));

    let r = call(
        &server,
        HARBOR_TOKEN,
        "PATCH",
        PATH,
        json!({"businessHours": {
            "tuesday": {"ranges": [{"from": 540, "to": 720}, {"from": 780, "to": 1050}]},
            "saturday": {"ranges": [{"from": 600, "to": 960}], "text": "ignored"},
        }}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let week = r.json()["businessHours"].clone();
    assert_eq!(
        week["tuesday"],
        json!({"text": "09:00–12:00, 13:00–17:30", "ranges": [{"from": 540, "to": 720}, {"from": 780, "to": 1050}]})
    );
    assert_eq!(week["saturday"]["text"], "10:00–16:00");
    assert_eq!(week["sunday"], json!({"text": "", "ranges": []}));
    let context = get(server.port, HARBOR, "/?format=json").json();
    assert_eq!(
        context["websiteSettings"]["businessHours"]["tuesday"]["text"],
        "09:00–12:00, 13:00–17:30"
    );

    // Bad times, by field; nothing stored.
    let r = call(
        &server,
        HARBOR_TOKEN,
        "PATCH",
        PATH,
        json!({"businessHours": {
            "monday": {"ranges": [{"from": 600, "to": 540}]},
            "tuesday": {"ranges": [{"from": 540, "to": 720}, {"from": 700, "to": 800}]},
            "wednesday": {"ranges": [{"from": -1, "to": 1500}]},
            "funday": {"ranges": []},
            "friday": "9-5",
        }}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.json()["errors"],
        json!({
            "businessHours.monday[0].to": "The closing time must be after the opening time.",
            "businessHours.tuesday[1].from": "A day's hours must not overlap; list them in order.",
            "businessHours.wednesday[0].from": "A time is minutes from 0 (00:00) to 1440 (24:00).",
            "businessHours.wednesday[0].to": "A time is minutes from 0 (00:00) to 1440 (24:00).",
            "businessHours.funday": "Please use a day of the week, monday to sunday.",
            "businessHours.friday": "businessHours has a day (monday … sunday) for each key, each {ranges: [{from, to}]}.",
        })
    );
    let r = call(&server, HARBOR_TOKEN, "GET", PATH, Value::Null);
    assert_eq!(r.json()["businessHours"]["saturday"]["text"], "10:00–16:00");

    // A viewer reads but may not change them; another site's token is nobody here.
    let viewer = server.owner_token("harbor-lane", "viewer");
    let closed = json!({"businessHours": null});
    assert_eq!(
        call(&server, &viewer, "PATCH", PATH, closed.clone()).status,
        403
    );
    assert_eq!(
        call(&server, LOAM_TOKEN, "PATCH", PATH, closed.clone()).status,
        401
    );
    // null: no hours at all.
    let r = call(&server, HARBOR_TOKEN, "PATCH", PATH, closed);
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json()["businessHours"]["tuesday"],
        json!({"text": "", "ranges": []})
    );
    let context = get(server.port, HARBOR, "/?format=json").json();
    assert!(context["websiteSettings"].get("businessHours").is_none());
}
