//! The Pages screen's routes over HTTP, on both backends (issue 44): the pages as the
//! navigations and the not-linked area show them, adding a page of each kind the template
//! declares, a page's settings (title, URL, enabled, homepage, navigation title, password,
//! SEO), arranging navigations and folders, external links, deleting; each change on the
//! live site at once. Bad input by field, another site's pages (404), roles without the
//! content (or store) area (403), a session's change without its CSRF token (403).

use crate::support::{Backend, LOAM_TOKEN, QUILL_TOKEN, Response, Server, get, request};
use serde_json::{Value, json};

const QUILL: &str = "quillback.localhost";
const SKY: &str = "skyward.localhost";
const LOAM: &str = "loam-lantern.localhost";
const HARBOR: &str = "harbor-lane.localhost";
const BAD_URL_LINK: &str = "Links must be formatted as www.example.com or https://www.example.com";

crate::on_both_backends!(
    pages_are_listed_and_added,
    a_pages_settings,
    arranging_and_deleting,
    roles_sites_and_sessions,
);

fn start(backend: Backend) -> Server {
    Server::with_owners(backend, &[])
}

fn call(server: &Server, method: &str, path: &str, body: Value) -> Response {
    server.owner_call(QUILL, QUILL_TOKEN, method, path, &body)
}

fn pages(server: &Server) -> Value {
    let r = call(server, "GET", "/api/owner/pages", Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()
}

/// The id of the page at `url_id`.
fn page_id(all: &Value, url_id: &str) -> String {
    all["pages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["urlId"] == url_id)
        .unwrap_or_else(|| panic!("no page {url_id}"))["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn nav<'a>(all: &'a Value, name: &str) -> &'a Vec<Value> {
    all["navigations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["identifier"] == name)
        .unwrap()["links"]
        .as_array()
        .unwrap()
}

fn page(server: &Server, path: &str) -> Response {
    get(server.port, QUILL, path)
}

/// The main navigation of a quillback page's HTML.
fn main_nav(html: &str) -> &str {
    let start = at(html, "<ul class=\"nav__list\">");
    let end = start + at(&html[start..], "</nav>");
    &html[start..end]
}

/// Where `text` first is in the home page's HTML (panics when absent).
fn at(html: &str, text: &str) -> usize {
    html.find(text)
        .unwrap_or_else(|| panic!("{text} not on the page"))
}

fn pages_are_listed_and_added(backend: Backend) {
    let server = start(backend);
    let all = pages(&server);
    let names: Vec<(&str, &str)> = all["navigations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["identifier"].as_str().unwrap(),
                n["title"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("mainNav", "Main Navigation"),
            ("footerNav", "Footer Links")
        ]
    );
    let workshop = page_id(&all, "workshop");
    let main = nav(&all, "mainNav");
    assert_eq!(main[1]["collectionId"], workshop.as_str());
    assert_eq!(main[1]["items"].as_array().unwrap().len(), 3);
    assert_eq!(
        all["notLinked"],
        json!([]),
        "every quillback page is linked"
    );
    let types: Vec<(&str, i64, bool)> = all["types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["typeName"].as_str().unwrap(),
                t["type"].as_i64().unwrap(),
                t["folder"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        types,
        [
            ("page", 10, false),
            ("folder", 1, true),
            ("visit", 7, false)
        ]
    );
    let about = all["pages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["urlId"] == "about")
        .unwrap();
    assert_eq!(about["fullUrl"], "/about");
    assert_eq!(about["passwordProtected"], false);
    assert!(about.get("password").is_none() && about.get("passwordHash").is_none());

    // A page at the end of the main navigation: on the site at once.
    let r = call(
        &server,
        "POST",
        "/api/owner/collections",
        json!({"typeName": "page", "title": "Gallery Walk", "navigation": "mainNav"}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let walk = r.json();
    assert_eq!(
        (&walk["urlId"], &walk["type"], &walk["enabled"]),
        (&json!("gallery-walk"), &json!(10), &json!(true))
    );
    let home = page(&server, "/").body;
    assert!(
        at(&home, "href=\"/contact\"") < at(&home, "href=\"/gallery-walk\""),
        "last in the main navigation"
    );
    assert_eq!(page(&server, "/gallery-walk").status, 200);
    // The same title again gets a URL of its own.
    let r = call(
        &server,
        "POST",
        "/api/owner/collections",
        json!({"typeName": "page", "title": "Gallery Walk"}),
    );
    assert_eq!(
        (r.status, r.json()["urlId"].clone()),
        (201, json!("gallery-walk-2"))
    );
    let all = pages(&server);
    let draft = page_id(&all, "gallery-walk-2");
    assert_eq!(all["notLinked"], json!([{"collectionId": draft}]));

    // Into a folder: wherever the folder is linked, and the page is the folder's.
    let r = call(
        &server,
        "POST",
        "/api/owner/collections",
        json!({"typeName": "page", "title": "Tune-ups", "urlId": "/Tune-Ups", "folderId": workshop}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.json()["urlId"], "tune-ups");
    assert_eq!(r.json()["parentId"], workshop.as_str());
    let all = pages(&server);
    let folder = &nav(&all, "mainNav")[1];
    assert_eq!(
        folder["items"][3]["collectionId"],
        page_id(&all, "tune-ups").as_str()
    );
    assert!(page(&server, "/").body.contains("href=\"/tune-ups\""));
    // A folder (the platform's) and a static template page of the template's.
    let r = call(
        &server,
        "POST",
        "/api/owner/collections",
        json!({"typeName": "folder", "title": "Rides", "navigation": "footerNav"}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.json()["folder"], true);
    let rides = r.json()["id"].as_str().unwrap().to_owned();
    let r = call(
        &server,
        "POST",
        "/api/owner/collections",
        json!({"typeName": "visit", "title": "Find the shop", "folderId": rides}),
    );
    assert_eq!(
        (r.status, r.json()["type"].clone()),
        (201, json!(7)),
        "{}",
        r.body
    );
    assert_eq!(
        page(&server, "/rides").status,
        302,
        "a folder leads to its first page"
    );
    assert_eq!(page(&server, "/find-the-shop").status, 200);

    // Bad input, by field.
    let r = call(
        &server,
        "POST",
        "/api/owner/collections",
        json!({"typeName": "blog"}),
    );
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["errors"],
        json!({"typeName": "The site's template has no page of this type."})
    );
    let r = call(
        &server,
        "POST",
        "/api/owner/collections",
        json!({"typeName": "page", "title": " ", "urlId": "a b", "navigation": "sideNav",
               "folderId": "nope"}),
    );
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["errors"],
        json!({
            "title": "Please enter a title.",
            "urlId": "a b is not a valid page URL",
            "navigation": "That navigation is not in the site's template.",
            "folderId": "That folder does not exist.",
        })
    );
    let r = call(
        &server,
        "POST",
        "/api/owner/collections",
        json!({"typeName": "folder", "urlId": "about", "folderId": workshop}),
    );
    assert_eq!(
        r.json()["errors"],
        json!({"urlId": "Another page has this URL.",
               "folderId": "A folder cannot go inside another folder."})
    );
    for url in ["cart", "config", "ab", "über", ".hidden"] {
        let r = call(
            &server,
            "POST",
            "/api/owner/collections",
            json!({"typeName": "page", "urlId": url}),
        );
        assert_eq!(
            r.json()["errors"]["urlId"],
            format!("{url} is not a valid page URL")
        );
    }
    let before = pages(&server)["pages"].as_array().unwrap().len();
    assert_eq!(before, 8 + 5, "nothing was added by a refusal");
}

fn a_pages_settings(backend: Backend) {
    let server = start(backend);
    let all = pages(&server);
    let about = page_id(&all, "about");
    let home = page_id(&all, "home");
    let path = format!("/api/owner/collections/{about}");
    let patch = |body: Value| call(&server, "PATCH", &path, body);

    // Renamed and moved: the site follows, the old URL is gone.
    let r = patch(json!({"title": "Our story", "urlId": "/Our-Story/"}));
    assert_eq!(r.status, 200, "{}", r.body);
    let p = r.json();
    assert_eq!(
        (
            &p["title"],
            &p["navigationTitle"],
            &p["urlId"],
            &p["fullUrl"]
        ),
        (
            &json!("Our story"),
            &json!("Our story"),
            &json!("our-story"),
            &json!("/our-story")
        )
    );
    assert_eq!(page(&server, "/about").status, 404);
    let story = page(&server, "/our-story");
    assert_eq!(story.status, 200);
    assert!(page(&server, "/").body.contains(">Our story</a>"));
    // The navigation title apart from the title.
    let r = patch(json!({"navigationTitle": "Story"}));
    assert_eq!(r.json()["navigationTitle"], "Story");
    assert!(page(&server, "/").body.contains(">Story</a>"));
    let r = patch(json!({"title": "The story so far"}));
    assert_eq!(
        r.json()["navigationTitle"],
        "Story",
        "an own navigation title stays"
    );
    let r = patch(json!({"navigationTitle": null}));
    assert_eq!(r.json()["navigationTitle"], "The story so far");

    // SEO title and description: the browser's title and the description.
    let r = patch(
        json!({"seoTitle": "Bicycle repair story", "seoDescription": "How \"Quillback\" began"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let html = page(&server, "/our-story").body;
    assert!(
        html.contains("<title>Bicycle repair story"),
        "{}",
        &html[..400.min(html.len())]
    );
    assert!(
        html.contains(r#"<meta name="description" content="How &quot;Quillback&quot; began">"#)
    );
    let r = patch(json!({"seoTitle": null, "seoDescription": ""}));
    assert_eq!(
        (
            r.json()["seoTitle"].clone(),
            r.json()["seoDescription"].clone()
        ),
        (json!(""), json!(""))
    );
    assert!(
        !page(&server, "/our-story")
            .body
            .contains("name=\"description\"")
    );

    // A password: the lock screen; stored hashed, never answered; removed with null.
    let r = patch(json!({"password": "sesame"}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["passwordProtected"], true);
    assert!(!r.body.contains("sesame") && !r.body.contains("argon2"));
    assert!(!pages(&server).to_string().contains("argon2"));
    let locked = page(&server, "/our-story");
    assert_eq!(locked.header("x-page-type"), Some("103"), "{}", locked.head);
    let id = about.clone();
    let hash = server.with_store(move |s| {
        Box::pin(async move {
            let t = s.tenant_by_host(QUILL).await.unwrap().unwrap();
            let site = s.load_site_content(t.id).await.unwrap();
            site.collection(&id).unwrap().password_hash.clone().unwrap()
        })
    });
    assert!(hash.starts_with("$argon2id$") && tenants::password::verify("sesame", &hash));
    let unlock = request(
        server.port,
        "POST",
        QUILL,
        "/api/lock-screen/unlock",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        &format!("collectionId={about}&password=sesame"),
    );
    assert!(
        unlock
            .header("set-cookie")
            .is_some_and(|c| c.starts_with("tessera-unlock-")),
        "{}",
        unlock.head
    );
    assert_eq!(
        patch(json!({"password": null})).json()["passwordProtected"],
        false
    );
    assert_ne!(
        page(&server, "/our-story").header("x-page-type"),
        Some("103")
    );

    // Disabled: not on the site, not in its navigation.
    assert_eq!(patch(json!({"enabled": false})).json()["enabled"], false);
    assert_eq!(page(&server, "/our-story").status, 404);
    assert!(!main_nav(&page(&server, "/").body).contains("href=\"/our-story\""));
    assert_eq!(patch(json!({"enabled": true})).status, 200);

    // Bad input, by field; nothing of a refused patch is kept.
    let r = patch(
        json!({"title": "", "urlId": "contact", "enabled": "yes", "colour": "red",
                         "password": "", "seoTitle": "x".repeat(201), "navigationTitle": 5}),
    );
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["errors"],
        json!({
            "title": "Please enter a title.",
            "urlId": "Another page has this URL.",
            "enabled": "This is true or false.",
            "colour": "A page has no such setting.",
            "password": "Please enter a password, or remove it.",
            "seoTitle": "An SEO title is at most 200 characters.",
            "navigationTitle": "This is text.",
        })
    );
    for url in ["search", "a", "with space", "a/b"] {
        assert_eq!(
            patch(json!({"urlId": url})).json()["errors"]["urlId"],
            format!("{url} is not a valid page URL")
        );
    }
    assert_eq!(page(&server, "/our-story").status, 200);

    // The homepage: kept until another page takes its place; never disabled or deleted.
    let home_path = format!("/api/owner/collections/{home}");
    let r = call(&server, "PATCH", &home_path, json!({"enabled": false}));
    assert_eq!(
        r.json()["errors"]["enabled"],
        "The homepage cannot be disabled."
    );
    let r = call(&server, "PATCH", &home_path, json!({"homepage": false}));
    assert_eq!(
        r.json()["errors"]["homepage"],
        "Make another page the homepage instead."
    );
    let r = call(&server, "DELETE", &home_path, Value::Null);
    assert_eq!(
        (r.status, r.message()),
        (
            400,
            "The homepage cannot be deleted. Make another page the homepage first.".into()
        )
    );
    let r = patch(json!({"homepage": true}));
    assert_eq!(
        (r.json()["homepage"].clone(), r.json()["fullUrl"].clone()),
        (json!(true), json!("/"))
    );
    assert!(
        page(&server, "/")
            .body
            .contains(&format!("collection-{about} "))
    );
    let r = call(&server, "DELETE", &home_path, Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json(), json!({"deleted": home}));
}

fn arranging_and_deleting(backend: Backend) {
    let server = start(backend);
    let all = pages(&server);
    let id = |u: &str| page_id(&all, u);
    let template_id = all["templateId"].clone();
    let arrange = |body: Value| call(&server, "PATCH", "/api/owner/pages", body);

    // The main navigation reordered (as the keyboard or a drag does): the site's order.
    let main: Vec<Value> = nav(&all, "mainNav").clone();
    let mut reordered = main.clone();
    reordered.swap(2, 3); // visit ↔ about
    let r = arrange(json!({"templateId": template_id, "navigations": {"mainNav": reordered}}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(nav(&r.json(), "mainNav"), &reordered);
    let home = page(&server, "/").body;
    let home = main_nav(&home);
    assert!(at(home, "href=\"/about\"") < at(home, "href=\"/visit\""));

    // Contact moved to not linked; a page out of the folder into the navigation; an
    // external link as a bare host, in a new window.
    let workshop = id("workshop");
    let mut main = reordered.clone();
    main.retain(|l| l["collectionId"] != id("contact").as_str());
    main[1]["items"] =
        json!([{"collectionId": id("services")}, {"collectionId": id("fleet-care")}]);
    main.push(json!({"collectionId": id("pricing")}));
    main.push(json!({"externalLink": {"url": "rides.example.org/map", "newWindow": true}, "title": "Ride map"}));
    let r = arrange(json!({"navigations": {"mainNav": main, "footerNav": []},
                           "notLinked": [{"collectionId": id("contact")}]}));
    assert_eq!(r.status, 200, "{}", r.body);
    let now = r.json();
    assert_eq!(now["notLinked"], json!([{"collectionId": id("contact")}]));
    let last = nav(&now, "mainNav").last().unwrap().clone();
    assert_eq!(
        last,
        json!({"externalLink": {"url": "https://rides.example.org/map", "newWindow": true}, "title": "Ride map"})
    );
    let by_id = |all: &Value, u: &str| {
        all["pages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["urlId"] == u)
            .unwrap()
            .clone()
    };
    assert_eq!(
        by_id(&now, "pricing")["parentId"],
        Value::Null,
        "out of the folder"
    );
    assert_eq!(by_id(&now, "services")["parentId"], workshop.as_str());
    let home = page(&server, "/").body;
    assert!(!main_nav(&home).contains("href=\"/contact\""));
    assert!(home.contains(
        r#"<a href="https://rides.example.org/map" target="_blank" rel="noopener">Ride map"#
    ));
    assert_eq!(
        page(&server, "/contact").status,
        200,
        "not linked is still a page"
    );
    assert_eq!(
        page(&server, "/workshop").header("location"),
        Some("/services")
    );

    // Bad arrangements, by field; nothing changes.
    let r = arrange(json!({"templateId": "999999", "navigations": {"mainNav": []}}));
    assert_eq!(r.status, 409);
    let r = arrange(json!({
        "navigations": {
            "sideNav": [],
            "mainNav": [
                {"externalLink": "javascript:alert(1)", "title": "x"},
                {"collectionId": id("about"), "items": [{"collectionId": id("visit")}]},
                {"collectionId": workshop, "items": [{"collectionId": workshop}]},
                {"collectionId": "ffffffffffffffffffffffff"},
                {"externalLink": "https://example.org"},
            ],
        },
        "notLinked": [{"externalLink": "https://example.org", "title": "x"}, {"collectionId": id("about")}],
    }));
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["errors"],
        json!({
            "navigations.sideNav": "That navigation is not in the site's template.",
            "navigations.mainNav[0].externalLink": BAD_URL_LINK,
            "navigations.mainNav[1].items": "Only a folder holds pages.",
            "navigations.mainNav[2].items[0]": "A folder cannot go inside another folder.",
            "navigations.mainNav[3].collectionId": "That collection does not exist.",
            "navigations.mainNav[4].title": "An external link needs a title.",
            "notLinked[0]": "Only pages are not linked: an external link is in a navigation.",
            "notLinked[1]": "This page is linked in a navigation, so it is not under Not linked.",
        })
    );
    let many: Vec<Value> = (0..101)
        .map(|_| json!({"collectionId": id("about")}))
        .collect();
    let r = arrange(json!({"navigations": {"footerNav": many}}));
    assert_eq!(
        r.json()["errors"]["navigations.footerNav"],
        "A navigation has at most 100 links."
    );
    assert_eq!(nav(&pages(&server), "mainNav"), nav(&now, "mainNav"));

    // Deleting a folder: its pages move up to where it was, and stay pages.
    let r = call(
        &server,
        "DELETE",
        &format!("/api/owner/collections/{workshop}"),
        Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let after = pages(&server);
    let main = nav(&after, "mainNav");
    assert_eq!(main[1], json!({"collectionId": id("services")}));
    assert_eq!(main[2], json!({"collectionId": id("fleet-care")}));
    assert_eq!(by_id(&after, "services")["parentId"], Value::Null);
    assert!(
        after["pages"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["urlId"] != "workshop")
    );
    assert_eq!(page(&server, "/workshop").status, 404);
    assert_eq!(page(&server, "/services").status, 200);
    // Deleting a page takes its links out of every navigation.
    let about = id("about");
    let r = call(
        &server,
        "DELETE",
        &format!("/api/owner/collections/{about}"),
        Value::Null,
    );
    assert_eq!(r.status, 200);
    let after = pages(&server);
    assert!(!after.to_string().contains(&about));
    assert!(!main_nav(&page(&server, "/").body).contains("href=\"/about\""));
    let r = call(
        &server,
        "DELETE",
        &format!("/api/owner/collections/{about}"),
        Value::Null,
    );
    assert_eq!(
        (r.status, r.message()),
        (404, "That page does not exist.".into())
    );
}

fn roles_sites_and_sessions(backend: Backend) {
    let server = start(backend);
    let all = pages(&server);
    let about = page_id(&all, "about");
    let sky = server.owner_token("skyward", "admin");
    let sky_pages = server.owner_call(SKY, &sky, "GET", "/api/owner/pages", &Value::Null);
    assert_eq!(sky_pages.status, 200);
    // A blog, events and a gallery in skyward's template: each a page type.
    let types: Vec<String> = sky_pages.json()["types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["typeName"].as_str().unwrap().to_owned())
        .collect();
    for t in ["page", "blog", "events", "gallery", "index", "folder"] {
        assert!(types.iter().any(|x| x == t), "{t} in {types:?}");
    }
    let r = server.owner_call(
        SKY,
        &sky,
        "POST",
        "/api/owner/collections",
        &json!({"typeName": "blog", "title": "Observing log", "navigation": "mainNav"}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.json()["type"], 1);
    assert_eq!(get(server.port, SKY, "/observing-log").status, 200);

    // A link for a member area the site declares (harbor-lane's Studio Club).
    let harbor = server.owner_token("harbor-lane", "admin");
    let on_harbor =
        |body: Value| server.owner_call(HARBOR, &harbor, "PATCH", "/api/owner/pages", &body);
    let link = |area: &str| {
        json!({"navigations": {"footerNav": [
            {"externalLink": "/course", "title": "Course", "memberAreaId": area}
        ]}})
    };
    let r = on_harbor(link("no-such-area"));
    assert_eq!(
        r.json()["errors"]["navigations.footerNav[0].memberAreaId"],
        "That member area does not exist."
    );
    let r = on_harbor(link("studio-club"));
    assert_eq!(r.status, 200, "{}", r.body);
    let answer = r.json();
    assert_eq!(
        nav(&answer, "footerNav"),
        &vec![
            json!({"externalLink": {"url": "/course", "newWindow": false}, "title": "Course",
                     "memberAreaId": "studio-club"})
        ]
    );
    assert!(
        answer["memberAreas"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["id"] == "studio-club")
    );

    // Another site's page is not found through this one.
    let sky_about = page_id(&sky_pages.json(), "about");
    let path = format!("/api/owner/collections/{sky_about}");
    let r = call(&server, "PATCH", &path, json!({"title": "Mine"}));
    assert_eq!(
        (r.status, r.message()),
        (404, "That page does not exist.".into())
    );
    assert_eq!(call(&server, "DELETE", &path, Value::Null).status, 404);
    let r = call(
        &server,
        "POST",
        "/api/owner/collections",
        json!({"typeName": "page", "folderId": page_id(&sky_pages.json(), "club")}),
    );
    assert_eq!(
        r.json()["errors"]["folderId"],
        "That folder does not exist."
    );
    let r = call(
        &server,
        "PATCH",
        "/api/owner/pages",
        json!({"navigations": {"mainNav": [{"collectionId": sky_about}]}}),
    );
    assert_eq!(
        r.json()["errors"]["navigations.mainNav[0].collectionId"],
        "That collection does not exist."
    );

    // Roles: none of the content area, nothing; a reader reads only.
    let manager = server.owner_token("quillback", "store-manager");
    let viewer = server.owner_token("quillback", "viewer");
    let own = format!("/api/owner/collections/{about}");
    let calls = [
        ("GET", "/api/owner/pages", Value::Null),
        (
            "PATCH",
            "/api/owner/pages",
            json!({"navigations": {"footerNav": []}}),
        ),
        (
            "POST",
            "/api/owner/collections",
            json!({"typeName": "page"}),
        ),
        ("PATCH", own.as_str(), json!({"title": "x"})),
        ("DELETE", own.as_str(), Value::Null),
    ];
    for (method, path, body) in &calls {
        let r = server.owner_call(QUILL, &manager, method, path, body);
        assert_eq!(r.status, 403, "{method} {path}: {}", r.body);
        let r = server.owner_call(QUILL, &viewer, method, path, body);
        assert_eq!(
            r.status,
            if *method == "GET" { 200 } else { 403 },
            "{method} {path}"
        );
    }
    // The editor adds pages but not a store (that needs the store area too).
    let editor = server.owner_token("loam-lantern", "editor");
    let add = |token: &str, ty: &str| {
        server.owner_call(
            LOAM,
            token,
            "POST",
            "/api/owner/collections",
            &json!({"typeName": ty, "title": "More things"}),
        )
    };
    assert_eq!(add(&editor, "products").status, 403);
    assert_eq!(add(&editor, "page").status, 201);
    let r = add(LOAM_TOKEN, "products");
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.json()["type"], 13);
    let store = r.json()["id"].as_str().unwrap().to_owned();
    let r = server.owner_call(
        LOAM,
        &editor,
        "DELETE",
        &format!("/api/owner/collections/{store}"),
        &Value::Null,
    );
    assert_eq!(r.status, 403, "a store's products go with it");

    // A signed-in session changes pages with its CSRF token only.
    let cookie = crate::owner_accounts::owner_session(&server, "quillback", QUILL);
    let send = |csrf: Option<&str>| {
        server.session_call(
            QUILL,
            &cookie,
            csrf,
            "PATCH",
            &own,
            &json!({"title": "Signed in"}),
        )
    };
    let r = send(None);
    assert_eq!(r.status, 403, "{}", r.body);
    let me = request(
        server.port,
        "GET",
        QUILL,
        "/api/owner/session",
        &[("Cookie", cookie.as_str())],
        "",
    );
    let csrf = me.json()["csrf"].as_str().unwrap().to_owned();
    let r = send(Some(&csrf));
    assert_eq!(
        (r.status, r.json()["title"].clone()),
        (200, json!("Signed in")),
        "{}",
        r.body
    );
}
